"""The ``cardzoo`` command: list the games, simulate random play, play matches between agents.

    cardzoo list --agents
    cardzoo simulate henhouse --players 4 --games 10000 --seed 0
    cardzoo match nobody_wants_it --agents "nwi_dodger, random, random, random" --games 2000
    python -m cardzoo --version

A game is named as ``cardzoo list`` prints it (``henhouse_v0``) or without the version suffix
(``henhouse``). Every bad argument is reported as one line naming the option,
``cardzoo: error: --seed: ...``, with exit code 2 and no traceback; Ctrl-C prints
``cardzoo: interrupted`` and exits with 130 (the shell's code for an interrupt).

Adding a subcommand
-------------------
A subcommand is one function ``add_<name>_parser(subparsers)`` listed in :data:`SUBCOMMANDS`. It
creates its parser with ``subparsers.add_parser(...)``, adds its arguments with the shared
helpers below and sets ``func`` to the function that runs it, which takes the parsed arguments
and returns the exit code (0)::

    def add_tournament_parser(subparsers):
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

Shared arguments (each sets the attribute named in brackets; the value is already checked):

- :func:`add_game_argument` (``args.game``: the game's name without ``_v0``);
- :func:`add_players_argument` (``args.players``: int or None for the game's default);
- :func:`add_param_argument` (``args.param``: list of ``(key, value)``; use :func:`game_params`);
- :func:`add_seed_argument` (``args.seed``: int >= 0);
- :func:`add_max_cycles_argument` (``args.max_cycles``: int >= 1 or None for the default);
- :func:`add_games_argument` (``args.games``: int >= 1);
- :func:`add_agents_argument` (``args.agents``: list of names, spaces stripped; check them
  against the game with :func:`check_agent_names`, build them with :func:`agent_factory`);
- :func:`add_out_argument` (``args.out``: a ``Path`` whose folder is writable, checked before
  anything runs);
- :func:`add_quiet_argument` (``args.quiet``: no progress bar).

Errors: raise :class:`UsageError` (``UsageError("--seed", "must be ...")``), or wrap code whose
``ValueError`` comes from one option in ``with option_errors("--param"):``. :func:`main` prints
either as one line and returns 2. A ``ValueError`` escaping a subcommand is reported the same
way (it comes from the environment or the agents refusing an argument), without an option name.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cardzoo import __version__
from cardzoo.envs import GAMES
from cardzoo.play import add_play_parser
from cardzoo.tournament import add_tournament_parser
from cardzoo.training.rllib_cli import add_train_rllib_parser

# ----------------------------------------------------------------------------------------------
# The one error path
# ----------------------------------------------------------------------------------------------


class UsageError(Exception):
    """A bad command-line argument: ``main`` prints ``cardzoo: error: OPTION: MESSAGE`` and
    returns 2. Not a ``ValueError``, so library code that maps ``ValueError`` leaves it alone."""

    def __init__(self, option: str | None, message: str):
        self.option = option
        self.message = message
        super().__init__(f"{option}: {message}" if option else message)


@contextlib.contextmanager
def option_errors(option: str) -> Iterator[None]:
    """Turn a ``ValueError`` raised inside the block into a :class:`UsageError` naming
    ``option`` (for checks the library does, e.g. a game refusing a ``--param`` value)."""
    try:
        yield
    except ValueError as error:
        raise UsageError(option, str(error)) from None


class _Parser(argparse.ArgumentParser):
    """argparse, but its errors go through :class:`UsageError`: one line, no usage block."""

    def error(self, message: str):
        # argparse says "argument --seed: ..."; we say "--seed: ..." like our own errors.
        message = message.removeprefix("argument ")
        raise UsageError(None, f"{message} (see '{self.prog} --help')")

    def parse_args(self, args=None, namespace=None):
        # argparse reports unknown options from the top parser; point to the subcommand's help.
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(parsed, "command", None)
            prog = f"{self.prog} {command}" if command else self.prog
            raise UsageError(
                None, f"unrecognized arguments: {' '.join(extras)} (see '{prog} --help')"
            )
        return parsed


# ----------------------------------------------------------------------------------------------
# Value types for argparse (raise ArgumentTypeError: argparse prefixes the option's name)
# ----------------------------------------------------------------------------------------------


def _int(text: str, low: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (``--games``, ``--max-cycles``, ``--players``)."""
    return _int(text, 1, "an integer of at least 1")


def nonnegative_int(text: str) -> int:
    """An integer >= 0 (``--seed``)."""
    return _int(text, 0, "a non-negative integer")


def game_name(text: str) -> str:
    """A game as ``cardzoo list`` prints it (``henhouse_v0``) or without ``_v0``; returns the
    name without the suffix, the form the library's functions take."""
    name = text.strip().removesuffix("_v0")
    if name not in GAMES:
        allowed = ", ".join(GAMES)
        raise argparse.ArgumentTypeError(
            f"unknown game {text!r}; choose one of {allowed} (with or without _v0)"
        )
    return name


def agent_names(text: str) -> list[str]:
    """A comma-separated list of agent names; spaces around the names are ignored."""
    names = [name.strip() for name in text.split(",")]
    if not any(names):
        raise argparse.ArgumentTypeError("give at least one agent name")
    if not all(names):
        raise argparse.ArgumentTypeError(f"an empty agent name in {text!r}")
    return names


def param_pair(text: str) -> tuple[str, Any]:
    """``KEY=VALUE``; the value is read as JSON where it parses (numbers, true/false, null),
    otherwise it is the string itself (``reward=points``)."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"wants KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value.strip()


def output_file(text: str) -> Path:
    """A file path that can be written: checked before anything runs, so a long match never
    ends in a failed write."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder; give a file name")
    _check_writable_folder(path.parent, text)
    return path


def output_folder(text: str) -> Path:
    """A folder path that can be created or written into (a run folder), checked up front."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a file; give a folder")
    _check_writable_folder(path, text)
    return path


def _check_writable_folder(folder: Path, text: str) -> None:
    """``folder`` exists and is writable, or can be created (its nearest existing ancestor is
    a writable folder). Missing folders are not created here: a refused run leaves nothing."""
    existing = folder.absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: {str(existing)!r} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(
            f"cannot write {text!r}: no permission to write in {str(existing)!r}"
        )


# ----------------------------------------------------------------------------------------------
# Shared arguments
# ----------------------------------------------------------------------------------------------


def add_game_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "game",
        type=game_name,
        metavar="GAME",
        help=f"which game: {', '.join(GAMES)} (a _v0 suffix is allowed)",
    )


def add_players_argument(parser: argparse.ArgumentParser, default: int | None = None) -> None:
    shown = "the game's default" if default is None else default
    parser.add_argument(
        "--players",
        type=positive_int,
        default=default,
        metavar="N",
        help=f"number of players (default: {shown})",
    )


def add_param_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--param",
        type=param_pair,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game parameter, e.g. --param reward=points (repeatable; see cardzoo list --params)",
    )


def add_seed_argument(parser: argparse.ArgumentParser, default: int = 0) -> None:
    parser.add_argument(
        "--seed",
        type=nonnegative_int,
        default=default,
        help=f"seed of the first deal, an integer >= 0 (default {default})",
    )


def add_max_cycles_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-cycles",
        type=positive_int,
        default=None,
        metavar="N",
        help="truncate a game after N agent steps (default: the game's own limit)",
    )


def add_games_argument(parser: argparse.ArgumentParser, default: int = 1000) -> None:
    parser.add_argument(
        "--games",
        type=positive_int,
        default=default,
        metavar="N",
        help=f"number of games (default {default})",
    )


def add_agents_argument(
    parser: argparse.ArgumentParser,
    required: bool = True,
    help: str = "comma-separated agent names, one per seat (e.g. 'random, random'); "
    "a saved policy is ppo:PATH or rllib:PATH",
) -> None:
    parser.add_argument("--agents", type=agent_names, required=required, metavar="NAMES", help=help)


def add_out_argument(
    parser: argparse.ArgumentParser,
    help: str = "write the results as JSON to this file",
    folder: bool = False,
    required: bool = False,
) -> None:
    """``--out``: a file (or with ``folder=True`` a folder) checked writable at parse time."""
    parser.add_argument(
        "--out",
        type=output_folder if folder else output_file,
        default=None,
        required=required,
        metavar="PATH",
        help=help,
    )


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


# ----------------------------------------------------------------------------------------------
# Checks that need the game
# ----------------------------------------------------------------------------------------------

# Settings that have an option of their own: one spelling for each, so nothing is set twice.
_OWN_OPTIONS = {"num_players": "--players", "max_cycles": "--max-cycles"}


def game_params(args: argparse.Namespace, num_players: int | None = None) -> dict[str, Any]:
    """The game's parameters from ``--players`` (or ``num_players``, e.g. the number of
    ``--agents``) and ``--param``, checked by building the game: a bad value is a
    :class:`UsageError` naming the option, never a traceback or a silently different game."""
    params: dict[str, Any] = {}
    known = _known_params(args.game)
    for key, value in getattr(args, "param", []):
        if key in _OWN_OPTIONS:
            raise UsageError("--param", f"set {key} with {_OWN_OPTIONS[key]}, not --param")
        if key not in known:
            others = ", ".join(k for k in known if k not in _OWN_OPTIONS) or "none"
            raise UsageError(
                "--param", f"{args.game} has no parameter {key!r}; its parameters: {others}"
            )
        if key in params and params[key] != value:
            raise UsageError("--param", f"{key} given twice ({params[key]!r} and {value!r})")
        params[key] = value
    players = getattr(args, "players", None)
    if players is not None and num_players is not None and players != num_players:
        raise UsageError("--players", f"{players} players but {num_players} agents")
    players = players if players is not None else num_players
    if players is not None:
        params["num_players"] = players
    module = GAMES[args.game].module()
    try:
        module.raw_env(**params)
    except ValueError as error:
        raise UsageError(_option_of(error, args, num_players), str(error)) from None
    return params


def _option_of(error: ValueError, args: argparse.Namespace, num_players: int | None) -> str:
    """The option a game's complaint is about: the player count came from ``--players`` or the
    number of agents; everything else from ``--param``."""
    if str(error).startswith("num_players"):
        if getattr(args, "players", None) is not None:
            return "--players"
        if num_players is not None and hasattr(args, "agents"):
            return "--agents"
    return "--param"


def _known_params(game: str) -> list[str]:
    """The parameter names of ``game`` (those of a game built with its defaults)."""
    return list(GAMES[game].module().raw_env().game.params())


def check_agent_names(game: str, names: list[str], option: str = "--agents") -> None:
    """Registry names must be agents of ``game``; ``KIND:PATH`` names (saved policies) pass
    here and are checked when :func:`agent_factory` loads them."""
    from cardzoo.agents import agent_classes

    allowed = list(agent_classes(game))
    for name in names:
        if ":" not in name and name not in allowed:
            raise UsageError(
                option,
                f"unknown agent {name!r} for {game}; choose one of {', '.join(allowed)}, "
                "or ppo:PATH / rllib:PATH for a saved policy",
            )


def agent_factory(game: str, name: str, option: str = "--agents") -> Callable[[Any, int], Any]:
    """A factory ``f(game_engine, seed) -> Agent`` for :func:`cardzoo.evaluation.play_match`
    that builds agent ``name`` when the match starts; a ``ValueError`` or missing file from
    :func:`cardzoo.agents.make_agent` (an unknown policy kind, a missing or wrong model) becomes
    a :class:`UsageError` naming ``option``."""
    from cardzoo.agents import make_agent

    def factory(engine, seed):
        try:
            return make_agent(game, name, engine, seed=seed)
        except (ValueError, FileNotFoundError) as error:
            raise UsageError(option, str(error)) from None

    factory.name = name
    return factory


# ----------------------------------------------------------------------------------------------
# Subcommands
# ----------------------------------------------------------------------------------------------


def add_list_parser(subparsers) -> None:
    parser = subparsers.add_parser("list", help="the games, their player counts and descriptions")
    parser.add_argument("--agents", action="store_true", help="also list each game's agents")
    parser.add_argument(
        "--params", action="store_true", help="also list each game's parameters and defaults"
    )
    parser.set_defaults(func=run_list)


def run_list(args: argparse.Namespace) -> int:
    from cardzoo.agents import agent_classes

    print(f"{'game':<24}{'players':<10}description")
    for spec in GAMES.values():
        players = f"{spec.min_players}..{spec.max_players}"
        print(f"{spec.name + '_v0':<24}{players:<10}{spec.description}")
        if args.agents:
            print(f"{'':<34}agents: {', '.join(agent_classes(spec.name))}")
        if args.params:
            defaults = spec.module().raw_env().game.params()
            shown = ", ".join(f"{key}={value!r}" for key, value in defaults.items())
            print(f"{'':<34}parameters: {shown}")
    return 0


def add_simulate_parser(subparsers) -> None:
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


def add_match_parser(subparsers) -> None:
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


def add_train_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "train",
        help="learn a policy for one seat with MaskablePPO (needs the train extra)",
        description="Train a policy for one seat; the run folder holds the model, metrics.json, "
        "learning_curve.png and TensorBoard logs. Defaults per game: cardzoo.training.ppo.",
    )
    add_game_argument(parser)
    parser.add_argument(
        "--opponents",
        metavar="MIX",
        help='the other seats, drawn every game from agents with weights, e.g. "nwi_dodger:0.5,'
        'self:0.3,random:0.2"; self = frozen earlier snapshots of the learner, ppo:PATH = a '
        "saved policy (default: the game's mix)",
    )
    parser.add_argument("--timesteps", type=positive_int, help="learner steps (default per game)")
    add_seed_argument(parser)
    parser.add_argument("--n-envs", type=positive_int, default=16, help="games played at once")
    parser.add_argument(
        "--processes", type=positive_int, default=1, help="worker processes stepping the games"
    )
    add_players_argument(parser)
    add_param_argument(parser)
    parser.add_argument(
        "--reward",
        choices=["win", "win+points", "points", "win+score"],
        help="reward mode (default per game; see docs/training.md)",
    )
    parser.add_argument(
        "--frame-stack", type=positive_int, help="the learner sees its last K observations"
    )
    parser.add_argument("--eval-every", type=positive_int, default=100_000, metavar="STEPS")
    parser.add_argument("--eval-games", type=positive_int, default=400, metavar="N")
    parser.add_argument("--final-eval-games", type=positive_int, default=1000, metavar="N")
    add_out_argument(parser, help="the run folder (default: runs/GAME)", folder=True)
    parser.add_argument("--resume", action="store_true", help="continue an interrupted run")
    parser.add_argument("--force", action="store_true", help="replace a run already in --out")
    add_quiet_argument(parser)
    parser.set_defaults(func=run_train)


def run_train(args: argparse.Namespace) -> int:
    from cardzoo.training.ppo import TrainConfig, report, train

    if args.resume and args.force:
        raise UsageError("--resume", "cannot be combined with --force")
    config = TrainConfig(
        args.game,
        params=game_params(args),
        opponents=args.opponents,
        timesteps=args.timesteps,
        seed=args.seed,
        n_envs=args.n_envs,
        processes=args.processes,
        reward=args.reward,
        frame_stack=args.frame_stack,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        final_eval_games=args.final_eval_games,
    )
    config = config.resolved()
    out = args.out if args.out is not None else Path("runs") / args.game
    result = train(config, out, resume=args.resume, force=args.force, progress=not args.quiet)
    print(report(result))
    return 0


#: The subcommands in the order ``cardzoo --help`` lists them; a new one adds its line here.
SUBCOMMANDS: list[Callable[[Any], None]] = [
    add_list_parser,
    add_simulate_parser,
    add_match_parser,
    add_tournament_parser,
    add_play_parser,
    add_train_parser,
    add_train_rllib_parser,
]


# ----------------------------------------------------------------------------------------------
# Entry point
# ----------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cardzoo", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"cardzoo {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add_parser in SUBCOMMANDS:
        add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code: 0 done, 2 a bad argument, 130 interrupted
    (Ctrl-C), 141 the output pipe closed."""
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as done:  # --help and --version print and stop here
            return 0 if done.code is None else done.code
        return args.func(args)
    except (UsageError, ValueError) as error:
        print(f"cardzoo: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ncardzoo: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`cardzoo list | head -1`): stop quietly, as `yes | head` does.
        # Point stdout at /dev/null so that Python's final flush does not complain again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a command its pipe stopped


if __name__ == "__main__":
    sys.exit(main())
