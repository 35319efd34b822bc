"""``cardzoo simulate``: a study of random play (lengths, seat advantage)."""

from __future__ import annotations

import argparse

from cardzoo.cli.args import (
    add_game_argument,
    add_games_argument,
    add_max_cycles_argument,
    add_param_argument,
    add_players_argument,
    add_quiet_argument,
    add_seed_argument,
    game_params,
)


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "simulate", help="a study of random play: lengths, seat advantage"
    )
    add_game_argument(parser)
    add_players_argument(parser)
    add_param_argument(parser)
    add_games_argument(parser)
    add_seed_argument(parser)
    add_max_cycles_argument(parser)
    add_quiet_argument(parser)
    parser.set_defaults(func=run_simulate)


def run_simulate(args: argparse.Namespace) -> int:
    from cardzoo.evaluation import simulate

    params = game_params(args)
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
