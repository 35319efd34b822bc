"""How much the order of the games moves a tournament's openskill ratings, and how much of that
the average over :data:`~cardzoo.tournament.RATING_ORDERS` orders leaves: the figures of the
Decision "the order of the games does not count" in :mod:`cardzoo.tournament`.

For each tournament of ``benchmarks/tournaments/`` (its pairwise records: the games themselves),
openskill's ratings after one pass over the games in each of 100 random orders (the spread of mu
from order to order, against the gap between the two leading agents), then the averaged
ratings of the tournament as :func:`~cardzoo.tournament.tournament` computes them under 12 seeds
of the orders (their own Monte Carlo error).

    python benchmarks/rating_orders.py [--seeds 12]

Writes ``benchmarks/rating_orders.md``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from openskill.models import PlackettLuce

from cardzoo.tournament import (
    RATING_ORDERS,
    PairRecord,
    _canonical_games,
    _rate,
    _rated_in_order,
)

HERE = Path(__file__).parent
TOURNAMENTS = HERE / "tournaments"
REPORT = HERE / "rating_orders.md"


def pair_records(summary: dict) -> tuple[list[str], list[PairRecord]]:
    """The agents and the pairs' results of a saved tournament (each pair once)."""
    records: dict[tuple[str, str], PairRecord] = {}
    for row in summary["pairwise"]:
        key = tuple(sorted((row["agent"], row["opponent"])))
        if key not in records:
            records[key] = PairRecord(row["agent"], row["opponent"], row["wins"], row["losses"],
                                      row["draws"])  # fmt: skip
    return summary["agents"], list(records.values())


def one_pass_spread(agents: list[str], pairs: list[PairRecord], orders: int) -> np.ndarray:
    """Per agent, the standard deviation of mu over ``orders`` single passes in random orders."""
    model = PlackettLuce(tau=0.0)
    games = _canonical_games(pairs)
    rng = np.random.default_rng(0)
    mus = np.zeros((orders, len(agents)))
    for order in range(orders):
        current = _rated_in_order(model, agents, games, rng.permutation(len(games)))
        mus[order] = [current[agent].mu for agent in agents]
    return mus.std(axis=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=12, help="seeds of the averaged orders")
    args = parser.parse_args()
    if args.seeds < 2:
        parser.error("--seeds: at least 2")
    lines = [
        "# Tournament ratings and the order of the games",
        "",
        f"`python benchmarks/rating_orders.py --seeds {args.seeds}`, on the pairwise results of "
        'each tournament in `benchmarks/tournaments/` (`cardzoo.tournament`, Decision "the '
        "order of the games does not count\"). *One pass*: the standard deviation of an agent's "
        "mu from one random order of the games to another (100 orders; random left out, whose "
        "rating nobody reads for a rank), beside the gap in mu between the two leading agents. "
        f"*Averaged*: the ratings as tournaments compute them ({RATING_ORDERS} orders), under "
        f"{args.seeds} seeds of the orders: the standard deviation of mu, and of the difference "
        "of the two leading agents' ordinals.",
        "",
        "| tournament | games | one pass: sd of mu | gap in mu, first two | averaged: sd of mu "
        "| averaged: sd of the first two's difference |",
        "| --- | ---: | --- | ---: | --- | ---: |",
    ]
    for path in sorted(TOURNAMENTS.glob("*/tournament.json")):
        summary = json.loads(path.read_text())
        agents, pairs = pair_records(summary)
        rated = [i for i, agent in enumerate(agents) if agent != "random"]
        spread = one_pass_spread(agents, pairs, 100)[rated]
        seeded = [_rate(agents, pairs, seed) for seed in range(args.seeds)]
        mus = np.array([[ratings[agent].mu for agent in agents] for ratings in seeded])[:, rated]
        first, second = agents[0], agents[1]  # best first, as saved
        gaps = [ratings[first].ordinal - ratings[second].ordinal for ratings in seeded]
        gap_in_mu = summary["ratings"][0]["mu"] - summary["ratings"][1]["mu"]
        lines.append(
            f"| {path.parent.name} | {sum(p.games for p in pairs):,} | "
            f"{spread.min():.2f}-{spread.max():.2f} | {gap_in_mu:.2f} | "
            f"{mus.std(axis=0).min():.3f}-{mus.std(axis=0).max():.3f} | {np.std(gaps):.3f} |"
        )
        print(lines[-1], flush=True)
    REPORT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
