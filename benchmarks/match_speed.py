"""The speed of ``play_match`` on a batch of games and on Tables, in one run.

For each game with a kernel, the shipped pretrained policy against three of the game's
heuristics (4 players), ``--games`` mirrored games, played twice on each path in turn
(Tables, batch, Tables, batch: ``play_match(..., tables=True)`` forces Tables); the best time of
each path and their ratio. Both paths play the same games (the tests hold them equal), so only
the time differs. A first short match compiles or loads the kernel and the policy.

    .venv/bin/python benchmarks/match_speed.py --games 2000
"""

from __future__ import annotations

import argparse
import time

from cardzoo.evaluation import play_match

LINEUPS = {
    "nobody_wants_it": ["pretrained", "nwi_dodger", "hand_shedder", "nwi_dodger"],
    "believe_it_or_not": ["pretrained", "honest", "bluffer", "honest"],
    "minus_two": ["pretrained", "attacker", "high_cards", "attacker"],
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per match")
    args = parser.parse_args(argv)
    for name, lineup in LINEUPS.items():
        play_match(name, lineup, 8)  # compiles (or loads) the kernel, loads the policy
        seconds: dict[bool, list[float]] = {True: [], False: []}
        for tables in (True, False, True, False):
            start = time.perf_counter()
            play_match(name, lineup, args.games, seed=1, tables=tables)
            seconds[tables].append(time.perf_counter() - start)
        on_tables, on_batch = min(seconds[True]), min(seconds[False])
        runs = {path: [round(t, 1) for t in seconds[tables]] for path, tables in
                (("tables", True), ("batch", False))}  # fmt: skip
        print(
            f"{name} {', '.join(lineup)}: Tables {on_tables:.1f} s, batch {on_batch:.1f} s, "
            f"{on_tables / on_batch:.1f}x (every run: {runs})",
            flush=True,
        )


if __name__ == "__main__":
    main()
