"""``cardzoo match``: agents against each other, seats rotated, mirrored deals; ``--record DIR``
also writes the first games as GIFs (``DIR/game_0001.gif`` ...)."""

from __future__ import annotations

import argparse

from cardzoo.cli.args import (
    UsageError,
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
    option_errors,
    output_folder,
    positive_int,
)
from cardzoo.errors import InputError


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
    parser.add_argument(
        "--record",
        type=output_folder,
        default=None,
        metavar="DIR",
        help="also write the first games as GIFs, DIR/game_0001.gif ... (never overwritten)",
    )
    parser.add_argument(
        "--record-games",
        type=positive_int,
        default=None,
        metavar="N",
        help="how many games --record writes (default: the first 20, at most --games)",
    )
    add_quiet_argument(parser)
    parser.set_defaults(func=run_match)


def run_match(args: argparse.Namespace) -> int:
    from cardzoo.evaluation import play_match
    from cardzoo.io import write_json_atomic

    params = game_params(args, num_players=len(args.agents))
    check_agent_names(args.game, args.agents)
    recorded_games = _recorded_games(args)
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
    if recorded_games:
        _record(args, params, recorded_games)
    return 0


def _recorded_games(args: argparse.Namespace) -> int:
    """How many games ``--record`` writes (0: no recording); the folder is checked here, before
    any game is played, so that a long match never ends in a refused recording."""
    from cardzoo.recording import DEFAULT_RECORDED_GAMES, check_record_folder

    if args.record is None:
        if args.record_games is not None:
            raise UsageError("--record-games", "needs --record DIR")
        return 0
    if args.record_games is not None and args.record_games > args.games:
        raise UsageError(
            "--record-games", f"{args.record_games} games to record but --games is {args.games}"
        )
    count = min(args.games, args.record_games or DEFAULT_RECORDED_GAMES)
    try:
        check_record_folder(args.record, count)
    except InputError as error:  # "folder: ..." from the library; the option says which folder
        raise UsageError("--record", str(error).removeprefix("folder: ")) from None
    return count


def _record(args: argparse.Namespace, params: dict, count: int) -> None:
    from cardzoo.recording import record_games

    with option_errors("--record"):
        paths = record_games(
            args.game,
            [agent_factory(args.game, name) for name in args.agents],
            args.record,
            num_games=count,
            seed=args.seed,
            params=params,
            mirrored=not args.no_mirror,
            max_cycles=args.max_cycles,
        )
    print(f"{len(paths)} recorded game{'s' if len(paths) != 1 else ''} written to {args.record}")
