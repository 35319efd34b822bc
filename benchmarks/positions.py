"""Does playing positions blind make Believe It or Not's agents harder to exploit? ``positions.md``.

The shipped Believe It or Not policies, each played two ways (``pretrained:positions=learned``:
the card it turns and the order of its cards as the policy learnt them; ``pretrained:
positions=blind``: as the heuristics choose them, docs/training.md "Positions"), and the best
heuristic beside them:

- **strong**: in one seat against three ``bluffer``, 2,000 mirrored games on the deals from 3·10⁶;
- **robust**: the gain of a 1M-decision best response (``cardzoo exploit``) on the deals from
  2·10⁶.

Both are selection deals (``benchmarks/DEALS.md``): this comparison chose to ship the agents
blind; their report figures are the model cards' (from 7·10⁶) and ``exploitability.md``'s (from
6·10⁶). Resumable (runs under ``--runs``, results in ``positions_results.json``):

    python benchmarks/positions.py [--runs runs/positions] [--only believe_it_or_not-quick]
"""

from __future__ import annotations

import json
from pathlib import Path

from exploitability import measure, report_parser  # beside this script

from cardzoo.agents import agent_label, make_agent
from cardzoo.evaluation import play_match
from cardzoo.io import write_bytes_atomic, write_json_atomic

HERE = Path(__file__).parent
RESULTS = HERE / "positions_results.json"
REPORT = HERE / "positions.md"
STRENGTH_SEED, EXPLOIT_SEED, GAMES, BUDGET = 3_000_000, 2_000_000, 2000, 1_000_000
LABELS = {
    "believe_it_or_not-quick": {"variant": "quick"},
    "believe_it_or_not": {"variant": "standard"},
}
AGENTS = ("pretrained:positions=learned", "pretrained:positions=blind", "bluffer")
#: which files the recorded results played (the results do not keep their digests)
MEASURED_WITH = (
    "Measured with the policies shipped on 2026-12-05. Quick's was replaced on 2026-12-06; the "
    "file measured here is kept as `benchmarks/results/previous_pretrained/"
    "believe_it_or_not-quick.npz`."
)


def run_one(label: str, agent: str, runs: Path) -> dict:
    """The strength and the exploitability of ``agent`` in the game of ``label``."""
    params = LABELS[label]
    seat = agent
    if agent == "bluffer":  # its own share: the seat under test named apart from the others

        def seat(game, seed):
            return make_agent("believe_it_or_not", "bluffer", game, seed=seed)

        seat.name = "bluffer (same seat)"  # type: ignore[attr-defined]
    lineup = [seat, "bluffer", "bluffer", "bluffer"]
    match = play_match("believe_it_or_not", lineup, GAMES, STRENGTH_SEED, params)
    strength = match.agents[agent_label(seat)].summary()
    folder = runs / f"{label}-{agent.replace(':', '-').replace('=', '-')}"
    exploit = measure("believe_it_or_not", agent, folder, params, BUDGET, EXPLOIT_SEED)
    return {"strength": strength, "exploit": exploit}


def write_report(results: dict) -> None:
    lines = [
        "# Positions played blind (selection deals)",
        "",
        __doc__.split("\n\n")[1].replace("\n", " ").strip(),
        "",
        "| game | agent | vs 3 × bluffer [95% CI] | 1M best response's gain [95% CI] |",
        "| --- | --- | --- | --- |",
    ]
    for key, result in results.items():
        label, agent = key.split("/", 1)
        strength, exploit = result["strength"], result["exploit"]
        low, high = strength["win_rate_ci"]
        gain_low, gain_high = exploit["gain_ci"]
        lines.append(
            f"| {label} | `{agent}` | {strength['win_rate']:.3f} [{low:.3f}, {high:.3f}] "
            f"| {exploit['gain']:+.3f} [{gain_low:+.3f}, {gain_high:+.3f}] |"
        )
    lines += ["", MEASURED_WITH, "", "Rebuilt by `python benchmarks/positions.py` (resumable).", ""]
    write_bytes_atomic(REPORT, "\n".join(lines).encode())


def main() -> None:
    parser = report_parser(__doc__ or "", "runs/positions", "game labels")
    args = parser.parse_args()
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if not args.report:
        only = set(args.only.split(",")) if args.only else set(LABELS)
        for label in LABELS:
            for agent in AGENTS:
                if label in only and f"{label}/{agent}" not in results:
                    results[f"{label}/{agent}"] = run_one(label, agent, args.runs)
                    write_json_atomic(RESULTS, results)
                    write_report(results)
    write_report(results)


if __name__ == "__main__":
    main()
