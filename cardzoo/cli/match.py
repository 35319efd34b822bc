"""``cardzoo match``: agents against each other, seats rotated, mirrored deals."""

from __future__ import annotations

import argparse

from cardzoo.cli.args import (
    add_agents_argument,
    add_game_argument,
    add_games_argument,
    add_max_cycles_argument,
    add_out_argument,
    add_param_argument,
    add_quiet_argument,
    add_seed_argument,
    agent_factory,
    check_agent_names,
    game_params,
)


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("match", help="agents against each other, seats rotated")
    add_game_argument(parser)
    add_agents_argument(parser)
    add_param_argument(parser)
    add_games_argument(parser)
    add_seed_argument(parser)
    add_max_cycles_argument(parser)
    parser.add_argument("--no-mirror", action="store_true", help="a new deal for every game")
    add_out_argument(parser, help="write the summary as JSON to this file")
    add_quiet_argument(parser)
    parser.set_defaults(func=run_match)


def run_match(args: argparse.Namespace) -> int:
    from cardzoo.evaluation import play_match
    from cardzoo.io import write_json_atomic

    params = game_params(args, num_players=len(args.agents))
    check_agent_names(args.game, args.agents)
    result = play_match(
        args.game,
        [agent_factory(args.game, name) for name in args.agents],
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
