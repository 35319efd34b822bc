"""``cardzoo match``: agents against each other, seats rotated, mirrored deals; ``--record DIR``
also writes the first games as GIFs (``DIR/game_0001.gif`` ...)."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import tempfile
from pathlib import Path

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
    from cardzoo.io import write_json_new

    params = game_params(args, num_players=len(args.agents))
    check_agent_names(args.game, args.agents)
    recorded_games = _recorded_games(args)
    digests = _policy_digests(args.game, args.agents, params)
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
    taken = None  # --out's name taken while the match ran: said after the recording is written
    if args.out:
        try:
            summary = {**result.summary(), "policy_sha256": digests}
            write_json_new(args.out, summary)  # never replaces: see output_file
            print(f"results written to {args.out}")
        except InputError as error:
            taken = UsageError("--out", str(error))
    if recorded_games:
        changed = [
            name
            for name, digest in _policy_digests(args.game, args.agents, params).items()
            if digest != digests[name]
        ]
        if changed:  # the recording builds its agents again, from the files as they are now
            raise UsageError(
                "--record",
                f"the file of {', '.join(changed)} changed during the match: the recording would "
                "show another policy than the table, so none was made (the table is the policy "
                "of the match's start)",
            )
        _record(args, params, recorded_games)
    if taken is not None:
        raise taken
    return 0


def _policy_digests(game_name: str, names: list[str], params: dict) -> dict[str, str]:
    """The sha256 of the file each agent that plays one reads (``ppo:``, ``rllib:``,
    ``pretrained``), by agent name."""
    from cardzoo.agents.registry import policy_digests
    from cardzoo.envs import load_game

    game = load_game(game_name, **params)
    return policy_digests(game_name, {name: name for name in names}, game)


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
    if args.out is not None:
        out, record = Path(os.path.abspath(args.out)), Path(os.path.abspath(args.record))
        if record == out or record.is_relative_to(out):
            raise UsageError(
                "--record", f"{args.record} is, or is inside, --out's file {args.out}: give the "
                "recording a folder of its own"
            )  # fmt: skip
    try:
        check_record_folder(args.record, count)
    except InputError as error:  # "folder: ..." from the library; the option says which folder
        raise UsageError("--record", str(error).removeprefix("folder: ")) from None
    return count


def _record(args: argparse.Namespace, params: dict, count: int) -> None:
    """Write the recording into ``--record`` without replacing any file: the GIFs are made in a
    hidden folder inside it, then each gets its name only if that name is still free (a file
    that appeared there while the match ran is left as it was; the GIF is kept beside it, and
    the command says where)."""
    from cardzoo.io import appeared_error, publish_new
    from cardzoo.recording import record_games

    created = not args.record.exists()
    args.record.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".cardzoo-record-", dir=args.record))
    try:
        with option_errors("--record"):
            made = record_games(
                args.game,
                [agent_factory(args.game, name) for name in args.agents],
                scratch,
                num_games=count,
                seed=args.seed,
                params=params,
                mirrored=not args.no_mirror,
                max_cycles=args.max_cycles,
            )
    except BaseException:  # a refused or interrupted recording leaves nothing
        shutil.rmtree(scratch, ignore_errors=True)
        if created:
            with contextlib.suppress(OSError):
                args.record.rmdir()
        raise
    placed = [(args.record / path.name, publish_new(path, args.record / path.name))
              for path in made]  # fmt: skip
    with contextlib.suppress(OSError):  # empty unless a GIF found no free name (then kept)
        scratch.rmdir()
    print(f"{len(made)} recorded game{'s' if len(made) != 1 else ''} written to {args.record}")
    taken = [(wanted, kept) for wanted, kept in placed if kept != wanted]
    if taken:
        others = len(taken) - 1
        more = f" (and {others} more recorded game{'s' if others > 1 else ''})" if others else ""
        raise UsageError("--record", str(appeared_error(*taken[0])) + more)
