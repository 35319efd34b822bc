"""The ``cardzoo`` command: list the games, simulate random play, play matches between agents.

cardzoo list
cardzoo simulate henhouse --players 4 --games 10000 --seed 0
cardzoo match nobody_wants_it --agents nwi_dodger,random,random,random --games 2000
"""

from __future__ import annotations

import argparse
import json
import sys

from cardzoo.agents import agent_classes
from cardzoo.envs import GAMES
from cardzoo.evaluation import play_match, simulate
from cardzoo.io import write_json_atomic


def _parse_params(pairs: list[str]) -> dict:
    """``key=value`` pairs; values are read as JSON where they parse (numbers, true/false)."""
    params = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"cardzoo: --param wants key=value, got {pair!r}")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return params


def cmd_list(args: argparse.Namespace) -> int:
    print(f"{'game':<24}{'players':<10}description")
    for spec in GAMES.values():
        players = f"{spec.min_players}..{spec.max_players}"
        print(f"{spec.name + '_v0':<24}{players:<10}{spec.description}")
        if args.agents:
            try:
                names = ", ".join(agent_classes(spec.name))
            except ImportError:
                names = "random"
            print(f"{'':<34}agents: {names}")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    params = {"num_players": args.players, **_parse_params(args.param)}
    result = simulate(
        args.game,
        args.games,
        seed=args.seed,
        params=params,
        max_cycles=args.max_cycles,
        progress=not args.quiet,
    )
    print(result.table())
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    lineup = args.agents.split(",")
    params = {"num_players": len(lineup), **_parse_params(args.param)}
    result = play_match(
        args.game,
        lineup,
        args.games,
        seed=args.seed,
        params=params,
        mirrored=not args.no_mirror,
        max_cycles=args.max_cycles,
        progress=not args.quiet,
    )
    print(result.table())
    if args.out:
        write_json_atomic(args.out, result.summary())
        print(f"results written to {args.out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardzoo", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    listing = commands.add_parser("list", help="the games, their player counts and descriptions")
    listing.add_argument("--agents", action="store_true", help="also list each game's agents")
    listing.set_defaults(run=cmd_list)

    def game_arguments(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("game", choices=list(GAMES), help="which game")
        sub.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
        sub.add_argument("--seed", type=int, default=0, help="first deal's seed (default 0)")
        sub.add_argument(
            "--max-cycles", type=int, default=None, help="truncate after this many steps"
        )
        sub.add_argument(
            "--param",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="a game parameter, e.g. --param reward=points (repeatable)",
        )
        sub.add_argument("--quiet", action="store_true", help="no progress bar")

    sim = commands.add_parser("simulate", help="a study of random play: lengths, seat advantage")
    game_arguments(sim)
    sim.add_argument("--players", type=int, default=4, help="number of players (default 4)")
    sim.set_defaults(run=cmd_simulate)

    match = commands.add_parser("match", help="agents against each other, seats rotated")
    game_arguments(match)
    match.add_argument(
        "--agents",
        required=True,
        help="comma-separated agent names, one per seat (e.g. random,random)",
    )
    match.add_argument("--no-mirror", action="store_true", help="a new deal for every game")
    match.add_argument("--out", help="write the summary as JSON to this file")
    match.set_defaults(run=cmd_match)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "games", 1) < 1:
        print("cardzoo: --games must be at least 1", file=sys.stderr)
        return 2
    try:
        return args.run(args)
    except ValueError as error:  # bad parameters, unknown agents: say so, no traceback
        print(f"cardzoo: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
