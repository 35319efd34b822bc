"""Memory: which policy remembers Foxy best? ``benchmarks/memory.md`` and its picture.

Foxy asks, on every card, how many animals of the card's species have appeared so far. Without
memory in the observation (``memory="none"``, the game's default) a policy must remember the
cards itself; with ``memory="perfect"`` the observation holds every species' running count. Each
row here is one training run (``cardzoo train``'s trainer, Foxy's network: an ordinal head on two
ReLU layers of 256, the long-run settings of ``benchmarks/pretrained.py``), all with the same
budget of decisions, one per kind of input:

- ``feed-forward``: the observation alone;
- ``stack 20``: the cards of the last 19 observations and the whole current one (``--frame-stack
  20 --stack-fields card``: every card of the game);
- ``gru`` and ``lstm``: a recurrent core of 64 before the layers (``--memory gru|lstm``);
- ``count``: the card field summed over the game and that sum times the card now
  (``--count-fields card``: an exact count).

Every Foxy run may circle only after its first half (:data:`FOXY_HOLD`, ``--hold-special``).

Each final policy plays 2,000 mirrored games (seats rotated) against ``forgetful`` and against
``perfect_memory`` on the deals from :data:`EVAL_SEED`, a range written down in
``benchmarks/DEALS.md`` before the first run and used for nothing else. The recipe of the shipped
Foxy agent is chosen from this table, so its own final figure is measured elsewhere, on fresh
deals. The table also gives each run's minutes of training, to the checkpoint it chose and in
all (wall-clock on 2 cores, as measured: other work on the machine slows them).

The other decision games ask whether a recurrent core helps where memory is not the game: for
Nobody Wants It, Believe It or Not (quick) and Minus Two, a GRU learner and the feed-forward one,
with budgets in the ratio of their speeds (``benchmarks/training_speed.md``, "Memory": the GRU
sampled at about 0.7-0.8 of the feed-forward speed when these runs were set, on a shared machine)
so that they train for about the same minutes, each against three copies of the game's best
heuristic on the same deals.

    python benchmarks/memory.py                  # every run (resumable), then the report
    python benchmarks/memory.py --only foxy-none-count,foxy-none-gru
    python benchmarks/memory.py --report         # the report from the results

Results: ``memory_results.json`` (one entry a run, written as each ends), ``memory.md``,
``memory.png``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from exploitability import report_parser, save_picture  # beside this script
from pretrained import EARLIER_DEFAULTS, FOXY_NETWORK, LONG_RUN  # beside this script

from cardzoo.agents import game_agents, make_agent
from cardzoo.agents.policy import play_settings, read_policy
from cardzoo.evaluation import play_match
from cardzoo.io import write_bytes_atomic, write_json_atomic
from cardzoo.training.ppo import TrainConfig, learner_factory, run_game, train

HERE = Path(__file__).parent
RESULTS = HERE / "memory_results.json"
REPORT = HERE / "memory.md"
PICTURE = HERE / "memory.png"
#: the first deal of this report's games: written down before its first run, used for nothing else
EVAL_SEED = 8_000_000
EVAL_GAMES = 2000
#: Foxy's budget per run, in the learner's decisions
FOXY_TIMESTEPS = 3_000_000
#: every Foxy run holds its circle for the first half (``--hold-special``, docs/training.md):
#: the rows compare memories, each with the circle learned once its numbers are
FOXY_HOLD = FOXY_TIMESTEPS // 2
#: the other games: the feed-forward budget, and the GRU's (in the ratio of their speeds)
FF_TIMESTEPS = 2_000_000
GRU_TIMESTEPS = 1_500_000

#: the kinds of input compared on Foxy, as training settings
FOXY_INPUTS: dict[str, dict[str, Any]] = {
    "feed-forward": {},
    "stack 20": {"frame_stack": 20, "stack_fields": ("card",)},
    "gru": {"memory": "gru"},
    "lstm": {"memory": "lstm"},
    "count": {"count_fields": ("card",)},
}
#: the other games, with their parameters
OTHER_GAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "nobody_wants_it": ("nobody_wants_it", {}),
    "believe_it_or_not-quick": ("believe_it_or_not", {"variant": "quick"}),
    "minus_two": ("minus_two", {}),
}


def _runs() -> dict[str, TrainConfig]:
    """Every run of the report, by label."""
    runs = {}
    for memory in ("none", "perfect"):
        for kind, inputs in FOXY_INPUTS.items():
            runs[f"foxy-{memory}-{kind.replace(' ', '')}"] = TrainConfig(
                "foxy",
                params={"memory": memory},
                timesteps=FOXY_TIMESTEPS,
                hold_special=FOXY_HOLD,
                eval_every=500_000,
                **FOXY_NETWORK,
                **LONG_RUN,
                **inputs,
            )
    for label, (game, params) in OTHER_GAMES.items():
        for kind, budget, memory in (("feed-forward", FF_TIMESTEPS, "none"),
                                     ("gru", GRU_TIMESTEPS, "gru")):  # fmt: skip
            runs[f"{label}-{kind}"] = TrainConfig(
                game,
                params=params,
                timesteps=budget,
                eval_every=250_000,
                memory=memory,
                **EARLIER_DEFAULTS.get(game, {}),
            )
    return runs


RUNS = _runs()
#: the Foxy heuristics on the same deals, for scale: the one that remembers nothing, the one
#: that remembers everything
BASELINES = ("heuristic forgetful", "heuristic perfect_memory")


def opponent(game: str) -> str:
    """Who sits in every other seat when a run's policy is measured: Foxy's perfect_memory (a
    seat's points do not depend on the others in Foxy; who wins does), else the game's best
    heuristic."""
    return "perfect_memory" if game == "foxy" else game_agents(game).best


def measure(label: str, config: TrainConfig, runs: Path) -> dict[str, Any]:
    """Train (or resume) one run, then play its chosen policy on the report's deals."""
    folder = runs / label
    saved = folder / "metrics.json"
    done = saved.exists() and json.loads(saved.read_text())["timesteps"] >= config.timesteps
    if not done:
        train(config.resolved(), folder, resume=(folder / "config.json").exists(), progress=False)
    metrics = json.loads(saved.read_text())
    policy, info = read_policy(folder / "policy.npz")
    seconds = {entry["timesteps"]: entry.get("train_seconds") for entry in metrics["history"]}
    return {
        **play(
            config.game,
            dict(config.params),
            learner_factory(policy, label=label, **play_settings(info)),
            label,
        ),
        "timesteps": metrics["timesteps"],
        "selected_timesteps": metrics["selected_timesteps"],
        "minutes": metrics["train_seconds"] / 60,
        "minutes_to_selected": (seconds.get(metrics["selected_timesteps"]) or 0) / 60 or None,
    }


def play(game_name: str, params: dict[str, Any], agent: Any, label: str) -> dict[str, Any]:
    """``agent`` (a name or a line-up factory labelled ``label``) in one seat, every other seat
    the game's :func:`opponent`: its points and win rate on the report's deals."""
    game = run_game(TrainConfig(game_name, params=params).resolved(build_agents=False))
    played = {key: value for key, value in game.params().items() if key != "reward"}
    lineup = [agent] + [opponent(game_name)] * (game.num_players - 1)
    figures = play_match(game_name, lineup, EVAL_GAMES, EVAL_SEED, played).agents[label].summary()
    return {
        "game": game_name,
        "params": game.params(),
        "points": figures["mean_score"],
        "points_ci": figures["mean_score_ci"],
        "win_rate": figures["win_rate"],
        "win_rate_ci": figures["win_rate_ci"],
    }


def write_report(results: dict[str, Any]) -> None:
    lines = [
        "# Memory",
        "",
        "Which input lets a learned policy count Foxy's animals, and does a recurrent core help",
        "elsewhere? Each row is one training run; its chosen policy played 2,000 mirrored games",
        f"(seats rotated) on the deals from {EVAL_SEED:,}, which nothing else uses, against",
        "`perfect_memory` (Foxy) or three copies of the game's best heuristic, beside the Foxy",
        "heuristics themselves on the same deals. 95% CIs. Minutes are wall-clock training on",
        "2 cores as measured (to the chosen checkpoint / in all; other work on the machine slowed",
        "some runs). Rebuilt by `python benchmarks/memory.py` (resumable).",
        "",
        "| run | decisions | Foxy points | win rate vs perfect_memory / 3 × best heuristic "
        "| minutes |",
        "| --- | --- | --- | --- | --- |",
    ]
    for label in [*BASELINES, *RUNS]:
        if label not in results:
            continue
        r = results[label]
        points = _cell(r["points"], r["points_ci"], ".1f") if r["game"] == "foxy" else "—"
        if label in BASELINES:
            decisions = minutes = "—"
        else:
            decisions = f"{r['timesteps'] / 1e6:.1f}M"
            to_selected = r["minutes_to_selected"]
            minutes = (f"{to_selected:.1f} / " if to_selected else "") + f"{r['minutes']:.1f}"
        lines.append(
            f"| {label} | {decisions} | {points} "
            f"| {_cell(r['win_rate'], r['win_rate_ci'], '.3f')} | {minutes} |"
        )
    missing = [label for label in [*BASELINES, *RUNS] if label not in results]
    if missing:
        lines += ["", f"Not measured yet ({len(missing)} of {len(BASELINES) + len(RUNS)}; the "
                  f"command resumes them): {', '.join(missing)}."]  # fmt: skip
    lines += ["", f"![points and win rates per run]({PICTURE.name})", ""]
    write_bytes_atomic(REPORT, "\n".join(lines).encode())
    _picture(results)


def _seat(label: str) -> Any:
    """The heuristic of a baseline row as a line-up entry of its own label, so that its seat's
    results are told apart from the same heuristic's in the other seats."""

    def build(game: Any, seed: int) -> Any:
        return make_agent("foxy", label.split()[-1], game, seed=seed)

    build.name = label  # type: ignore[attr-defined]
    return build


def _cell(value: float, interval: list[float], form: str) -> str:
    return f"{value:{form}} [{interval[0]:{form}}, {interval[1]:{form}}]"


def _picture(results: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("foxy", "points", "Foxy: points (95% CI)"),
              ("other", "win_rate", "win rate vs 3 × best heuristic (95% CI)")]  # fmt: skip
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    for axis, (group, measure_name, title) in zip(axes, panels):
        rows = [(label, r) for label, r in results.items()
                if (r["game"] == "foxy") == (group == "foxy")]  # fmt: skip
        for index, (_, r) in enumerate(rows):
            value, (low, high) = r[measure_name], r[f"{measure_name}_ci"]
            axis.errorbar([index], [value], yerr=[[value - low], [high - value]], fmt="o",
                          capsize=3)  # fmt: skip
        axis.set_xticks(range(len(rows)), [label for label, _ in rows], rotation=35, ha="right",
                        fontsize=8)  # fmt: skip
        axis.set_title(title, fontsize=9)
    save_picture(figure, PICTURE)


def main() -> None:
    parser = report_parser(__doc__ or "", "runs/memory", "run labels")
    args = parser.parse_args()
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if not args.report:
        only = set(args.only.split(",")) if args.only else None
        unknown = sorted((only or set()) - {*BASELINES, *RUNS})
        if unknown:
            parser.error(f"--only: unknown runs {unknown}; the runs are {', '.join(RUNS)}")
        for label in [*BASELINES, *RUNS]:
            if (only and label not in only) or label in results:
                continue
            began = time.perf_counter()
            if label in BASELINES:
                results[label] = play("foxy", {"memory": "none"}, _seat(label), label)
            else:
                results[label] = measure(label, RUNS[label], args.runs)
            write_json_atomic(RESULTS, results)
            write_report(results)
            print(f"{label}: {time.perf_counter() - began:.0f} s", flush=True)
    write_report(results)


if __name__ == "__main__":
    main()
