"""The ``cardzoo`` command: list the games, simulate random play, play matches between agents.

    cardzoo list --agents
    cardzoo simulate henhouse --players 4 --games 10000 --seed 0
    cardzoo match nobody_wants_it --agents "nwi_dodger, random, random, random" --games 2000
    cardzoo serve --replays replays     # a local web page: watch and play the games
    python -m cardzoo --version

A game is named as ``cardzoo list`` prints it (``henhouse_v0``) or without the version suffix
(``henhouse``). Every bad argument is reported as one line naming the option,
``cardzoo: error: --seed: ...``, with exit code 2 and no traceback, and so is every input the
library refuses (:class:`cardzoo.errors.InputError`: a file, a parameter, a run folder). Nothing
else is turned into that line: any other exception is a bug and shows its traceback (an
interrupted training run stays resumable). Ctrl-C prints ``cardzoo: interrupted`` and exits
with 130 (the shell's code for an interrupt).

Adding a subcommand
-------------------
A subcommand is one module of this package with a function ``add_parser(subparsers)``, listed in
:data:`SUBCOMMANDS`. It creates its parser with ``subparsers.add_parser(...)``, adds its arguments
with the shared helpers of :mod:`cardzoo.cli.args` and sets ``func`` to the function that runs
it, which takes the parsed arguments and returns the exit code (0)::

    def add_parser(subparsers):
        parser = subparsers.add_parser("tournament", help="...")
        add_game_argument(parser)
        add_agents_argument(parser)
        add_seed_argument(parser)
        parser.set_defaults(func=run_tournament)

    def run_tournament(args):
        from cardzoo.tournament import ...  # heavy imports here, so `cardzoo list` stays fast
        params = game_params(args, num_players=len(args.agents))
        check_agent_names(args.game, args.agents)
        ...
        return 0

The shared arguments and the error path are in :mod:`cardzoo.cli.args`. The command layer is the
top floor: it may import every layer below (its heavy imports stay inside the functions that run
a command, so ``cardzoo list`` stays fast).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
from typing import Any

from cardzoo import __version__
from cardzoo.cli import (
    agents,
    exploit,
    listing,
    match,
    play,
    serve,
    simulate,
    tournament,
    train,
    train_rllib,
)
from cardzoo.cli.args import UsageError, _Parser
from cardzoo.errors import InputError

#: The subcommands in the order ``cardzoo --help`` lists them; a new one adds its module here.
SUBCOMMANDS = [
    listing,
    agents,
    simulate,
    match,
    tournament,
    play,
    serve,
    train,
    exploit,
    train_rllib,
]


# ----------------------------------------------------------------------------------------------
# Entry point
# ----------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cardzoo", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"cardzoo {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in SUBCOMMANDS:
        command.add_parser(subparsers)
    return parser


#: what ``cardzoo --help`` says first: the docstring's first line, as plain text
DESCRIPTION = (__doc__ or "").split("\n")[0].replace("``", "")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code: 0 done, 2 bad input (an argument, or what
    the library refuses as :class:`~cardzoo.errors.InputError`), 130 interrupted (Ctrl-C), 141
    the output pipe closed, 143 terminated (SIGTERM: a command stops as after Ctrl-C, so that
    training's sampling processes end with it). Any other exception propagates with its
    traceback."""
    try:
        terminate = signal.signal(signal.SIGTERM, _terminated)
    except ValueError:  # not the main thread: leave the process's signals alone
        terminate = None
    args = None
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as done:  # --help and --version print and stop here
            return 0 if done.code is None else done.code
        return args.func(args)
    except (UsageError, InputError) as error:
        print(f"cardzoo: error: {_as_option(str(error), args)}", file=sys.stderr)
        return 2
    except Terminated:
        print("\ncardzoo: terminated", file=sys.stderr)
        return 143  # 128 + SIGTERM
    except KeyboardInterrupt:
        print("\ncardzoo: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`cardzoo list | head -1`): stop quietly, as `yes | head` does.
        # Point stdout at /dev/null so that Python's final flush does not complain again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a command its pipe stopped
    finally:
        if terminate is not None:
            signal.signal(signal.SIGTERM, terminate)


def _as_option(message: str, args: argparse.Namespace | None) -> str:
    """The library names what it refuses as Python does (``out: ...``, ``players=1 ...``); the
    command line names it by the option that gave it (``--out: ...``), where the command has
    one of that name."""
    found = re.match(r"([a-z_]+)(: |=)", message)
    if found is None or args is None or not hasattr(args, found[1]) or found[1] == "func":
        return message
    flag = "--" + found[1].replace("_", "-")
    rest = message[found.end() :] if found[2] == ": " else message
    return f"{flag}: {rest}"


class Terminated(KeyboardInterrupt):
    """SIGTERM during a command: raised as Ctrl-C's KeyboardInterrupt is, so that every
    ``finally`` and ``except KeyboardInterrupt`` on the way out (closing training's sampling
    processes, saving what a run keeps) runs as it does for Ctrl-C."""


def _terminated(signum: int, frame: Any) -> None:
    raise Terminated


if __name__ == "__main__":
    sys.exit(main())
