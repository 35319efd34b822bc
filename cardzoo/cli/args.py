"""The command line's shared parts: the one error path and the arguments every command takes.

Every bad argument is reported as one line naming the option, ``cardzoo: error: --seed: ...``,
with exit code 2 and no traceback (:func:`cardzoo.cli.main` prints it).

Shared arguments (each sets the attribute named in brackets; the value is already checked):

- :func:`add_game_argument` (``args.game``: the game's name without its ``_vN``);
- :func:`add_players_argument` (``args.players``: int or None for the game's default);
- :func:`add_param_argument` (``args.param``: list of ``(key, value)``; use :func:`game_params`);
- :func:`add_seed_argument` (``args.seed``: int >= 0);
- :func:`add_max_cycles_argument` (``args.max_cycles``: int >= 1 or None for the default);
- :func:`add_games_argument` (``args.games``: int >= 1);
- :func:`add_agents_argument` (``args.agents``: list of names, spaces stripped; check them
  against the game with :func:`check_agent_names`, build them with :func:`agent_factory`);
- :func:`add_out_argument` (``args.out``: a ``Path`` whose folder is writable, checked before
  anything runs; a command with a default folder takes it through :func:`out_folder`);
- :func:`add_quiet_argument` (``args.quiet``: no progress bar);
- :func:`add_setting_options` (training settings, each an option built from its declaration in
  :mod:`cardzoo.training.config`; ``args.NAME`` is None unless given: read them with
  :func:`given_settings`, and name a refused one's option with :func:`setting_errors`).

Errors: raise :class:`UsageError` (``UsageError("--seed", "must be ...")``), or wrap checking
code whose :class:`~cardzoo.errors.InputError` comes from one option in
``with option_errors("--param"):``. Any other exception is a bug and keeps its traceback.

May import: :mod:`cardzoo.envs`, :mod:`cardzoo.agents`, the training settings
(:mod:`cardzoo.training.config`, which imports no torch; the command layer is the top floor).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from cardzoo.agents.profiles import PROFILES
from cardzoo.envs import GAMES, load_game
from cardzoo.envs.registry import versioned_game
from cardzoo.errors import InputError, SettingError
from cardzoo.extras import TRAIN_MODULES, require_modules
from cardzoo.training.config import GAME_DEFAULTS, SETTING
from cardzoo.training.settings import Flag, KindError, Setting

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


def require_train_extra(command: str) -> None:
    """:class:`UsageError` naming the extra when a module of the train extra that ``cardzoo
    train`` and ``cardzoo exploit`` import is missing (the base install has no torch), before
    any work."""
    try:
        require_modules("train", f"cardzoo {command}", TRAIN_MODULES)
    except ImportError as error:
        raise UsageError(None, str(error)) from None


def option_spelling(options: dict[str, str]) -> dict[str, str]:
    """How the run folder's messages name each setting while a command that has ``options``
    (setting -> option) runs (:data:`~cardzoo.training.config.OPTION_SPELLING`): by its option,
    the game's parameters by ``--players/--param``, and a setting the command has no option for
    as a setting, so that no message points to an option the command lacks."""
    return {
        **{name: f"{name} (a setting of the Python API)" for name in SETTING},
        **options,
        "params": "--players/--param",
    }


@contextlib.contextmanager
def option_errors(option: str) -> Iterator[None]:
    """Turn an :class:`~cardzoo.errors.InputError` raised inside the block into a
    :class:`UsageError` naming ``option`` (for checks the library does, e.g. a game refusing a
    ``--param`` value); other exceptions pass unchanged."""
    try:
        yield
    except InputError as error:
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
    """An integer >= 1 (``--max-cycles``, ``--players``)."""
    return _int(text, 1, "an integer of at least 1")


#: the most games one command plays: far beyond any study (a billion would take weeks)
MAX_GAMES = 10_000_000


def games_count(text: str) -> int:
    """A number of games, 1..:data:`MAX_GAMES` (``--games``)."""
    value = _int(text, 1, "an integer of at least 1")
    if value > MAX_GAMES:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_GAMES:,}, got {value:,}")
    return value


def nonnegative_int(text: str) -> int:
    """An integer >= 0 (``--seed``)."""
    return _int(text, 0, "a non-negative integer")


def game_name(text: str) -> str:
    """A game as ``cardzoo list`` prints it (``henhouse_v0``, ``believe_it_or_not_v1``) or
    without its version suffix; returns the name without the suffix, the form the library's
    functions take. Another version than the game's is refused, naming the one installed."""
    text = text.strip()
    name = versioned_game(text) or text
    if name not in GAMES:
        allowed = ", ".join(GAMES)
        raise argparse.ArgumentTypeError(
            f"unknown game {text!r}; choose one of {allowed} (with or without its _vN)"
        )
    if name != text and text != GAMES[name].versioned_name:
        raise argparse.ArgumentTypeError(
            f"{text!r}: this cardzoo has {GAMES[name].versioned_name} (a game's results are "
            "comparable within one version: CHANGELOG.md)"
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
    as a bool if it is Python's ``True`` or ``False`` (as ``cardzoo list --params`` prints
    defaults), otherwise it is the string itself (``reward=points``)."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"wants KEY=VALUE, got {text!r}")
    if value.strip() in ("True", "False"):
        return key, value.strip() == "True"
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value.strip()


def output_file(text: str) -> Path:
    """A file path that can be written: checked before anything runs, so a long match never
    ends in a failed write. The name must be new; a file of that name can still appear while
    the command runs, so write it with :func:`cardzoo.io.write_bytes_new` (or
    ``write_json_new``), which never replaces one."""
    _check_not_empty(text, "file")
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder; give a file name")
    if path.exists():  # a file a user saved is never replaced
        raise argparse.ArgumentTypeError(f"{text!r} exists; give the name of a new file")
    if path.is_symlink():  # to nothing: the file is written without following links
        raise argparse.ArgumentTypeError(
            f"{text!r} is a link to nothing; give the name of a new file"
        )
    _check_writable_folder(path.parent, text)
    return path


def output_folder(text: str) -> Path:
    """A folder path that can be created or written into (a run folder), checked up front."""
    _check_not_empty(text, "folder")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a file; give a folder")
    _check_writable_folder(path, text)
    return path


def _check_not_empty(text: str, kind: str) -> None:
    """One rule for every command: an empty path is refused, never read as the current
    folder."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"an empty path names no {kind}; give a {kind} name")


def _check_writable_folder(folder: Path, text: str) -> None:
    """``folder`` exists and is writable, or can be created (its nearest existing ancestor is
    a writable folder). The one check of every path a command writes to (``--out``,
    ``--record``, a default run folder).

    Decision: permissions alone do not tell (root may write anywhere by them, yet nothing can
    be created in ``/proc``, and a read-only file system says yes too), so a folder is created
    in the nearest existing ancestor and removed at once. Missing folders are not created: a
    refused run leaves nothing."""
    existing = folder.absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: {str(existing)!r} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(
            f"cannot write {text!r}: no permission to write in {str(existing)!r}"
        )
    try:
        probe = tempfile.mkdtemp(prefix=".cardzoo-write-check-", dir=existing)
    except OSError as error:
        raise argparse.ArgumentTypeError(
            f"cannot write {text!r}: nothing can be created in {str(existing)!r} ({error.strerror})"
        ) from None
    os.rmdir(probe)


def out_folder(out: Path | None, default: Path) -> Path:
    """The folder a command writes into: ``--out`` (checked when it was parsed) or, without it,
    ``default``, checked the same way now, before any work."""
    if out is not None:
        return out
    try:
        return output_folder(str(default))
    except argparse.ArgumentTypeError as error:
        raise UsageError("--out", f"{error} (the default folder; give --out)") from None


# ----------------------------------------------------------------------------------------------
# Shared arguments
# ----------------------------------------------------------------------------------------------


def add_game_argument(parser: argparse.ArgumentParser, learnable: bool = False) -> None:
    """The GAME argument; ``learnable``: a command that trains, whose help lists only the games
    with decisions to learn (Henhouse has none, and is refused)."""
    games = list(GAME_DEFAULTS) if learnable else list(GAMES)
    parser.add_argument(
        "game",
        type=game_name,
        metavar="GAME",
        help=f"which game: {', '.join(games)} (its _vN suffix is allowed)",
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
        type=games_count,
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
# Training settings, from their one declaration
# ----------------------------------------------------------------------------------------------


def add_setting_options(
    parser: argparse.ArgumentParser,
    helps: dict[str, str | None],
    flags: dict[str, str] | None = None,
) -> None:
    """An option for each training setting named in ``helps`` (its help text; None: the
    declared one, :func:`setting_help`), as the setting declares it
    (:data:`cardzoo.training.config.SETTING`): its spelling (``--n-envs`` for ``n_envs``, or
    ``flags[name]``), metavar, choices, and a type that reads and checks the text with the
    setting's own check. Every default is None, so a command knows what was given
    (:func:`given_settings`); the help says what a setting left out becomes."""
    for name, own_help in helps.items():
        declared = SETTING[name]
        help = setting_help(declared) if own_help is None else own_help
        kind = declared.kind
        options: dict[str, Any] = {"dest": name, "default": None, **kind.argparse()}
        if not {"action", "choices"} & set(options):  # argparse checks those itself
            options["type"] = _setting_type(declared)
            options["metavar"] = kind.metavar
        flag = (flags or {}).get(name, declared.flag)
        parser.add_argument(flag, help=help.replace("%", "%%"), **options)


def setting_help(declared: Setting) -> str:
    """A setting's help, with what it becomes when left out: its default, or each game's."""
    show = declared.kind.show
    if isinstance(declared.kind, Flag):
        return declared.help
    if not declared.per_game:
        return f"{declared.help} (default {show(declared.default)})"
    own = {game: defaults[declared.name] for game, defaults in GAME_DEFAULTS.items()}
    if declared.name == "timesteps":
        each = [f"{game} {show(n)}, {PROFILES[game].minutes:g} min" for game, n in own.items()]
        return (
            f"{declared.help} (default per game, with the minutes of training it took on our "
            "2-core machine; a machine three times slower takes three times as long: "
            + "; ".join(each)
            + ")"
        )
    others = [f"{game} {show(value)}" for game, value in own.items() if value != declared.default]
    if declared.default is None:
        return f"{declared.help} (default per game: {'; '.join(others)})"
    if not others:
        return f"{declared.help} (default {show(declared.default)})"
    return f"{declared.help} (default {show(declared.default)}; {'; '.join(others)})"


def _setting_type(declared: Setting) -> Callable[[str], Any]:
    """Reads an option's text and checks the value as the setting does (argparse names the
    option in front of the reason)."""

    def read(text: str) -> Any:
        try:
            return declared.check(declared.kind.parse(text))
        except KindError as refused:
            raise argparse.ArgumentTypeError(str(refused)) from None
        except SettingError as refused:
            raise argparse.ArgumentTypeError(refused.reason) from None

    read.__name__ = declared.name  # argparse's "invalid <name> value" if anything else fails
    return read


def given_settings(args: argparse.Namespace, names: Iterable[str]) -> dict[str, Any]:
    """The settings among ``names`` given on the command line (left out: not in the dict)."""
    return {name: getattr(args, name) for name in names if getattr(args, name) is not None}


def refuse_memory_size_without_core(given: dict[str, Any], memory: str | None) -> None:
    """``--memory-size`` given without a recurrent core, even at its default (the settings'
    own check sees only a size other than the default: ``--memory-size 64`` trained without a
    core)."""
    if "memory_size" in given and memory == "none":
        raise UsageError("--memory-size", "only with a recurrent core (--memory gru or lstm)")


def note_memory_already_observed(params: dict[str, Any], memory: str, frame_stack: int) -> None:
    """A learner given a memory of its own (``--memory``, ``--frame-stack``) in Foxy with
    ``memory="perfect"``, the training default: the observation already holds the species counts
    so far, so the learner has nothing to remember. Said on standard error, not refused (a
    comparison may want it)."""
    if params.get("memory") == "perfect" and (memory != "none" or frame_stack > 1):
        print(
            "cardzoo: note: memory=perfect (foxy's training default) shows the species counts "
            "so far in the observation, so the learner's own memory has nothing to remember; "
            "--param memory=none hides them",
            file=sys.stderr,
        )


@contextlib.contextmanager
def setting_errors(flags: dict[str, str]) -> Iterator[None]:
    """Turn a :class:`~cardzoo.errors.SettingError` raised inside the block into a
    :class:`UsageError` naming the option of its setting, ``flags[setting]`` (where the
    command has none, the message names the setting)."""
    try:
        yield
    except SettingError as error:
        flag = flags.get(error.setting)
        raise UsageError(flag, error.reason if flag else str(error)) from None


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
        if key == "num_players" and not hasattr(args, "players"):  # match, play: no --players
            seats = "--agents, one for each seat" if hasattr(args, "agents") else "--opponents"
            raise UsageError("--param", f"the number of players is set by {seats}, not --param")
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
    try:
        load_game(args.game, **params)
    except InputError as error:
        option = _option_of(error, args, num_players)
        given = f"{num_players} agent{'s' * (num_players != 1)} given, one for each seat; "
        raise UsageError(option, (given if option == "--agents" else "") + str(error)) from None
    return params


def _option_of(error: InputError, args: argparse.Namespace, num_players: int | None) -> str:
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
    return list(load_game(game).params())


def check_agent_names(game: str, names: list[str], option: str = "--agents") -> None:
    """Every name must name an agent of ``game``; ``KIND:PATH`` names (saved policies) pass
    here and are checked when :func:`agent_factory` loads them."""
    from cardzoo.agents import check_agent_name

    for name in names:
        with option_errors(option):
            check_agent_name(game, name)


def agent_factory(game: str, name: str, option: str = "--agents") -> Callable[[Any, int], Any]:
    """A factory ``f(game_engine, seed) -> Agent`` for :func:`cardzoo.evaluation.play_match`
    that builds agent ``name`` when the match starts; an :class:`~cardzoo.errors.InputError`
    from :func:`cardzoo.agents.make_agent` (an unknown policy kind, a missing or wrong model)
    becomes a :class:`UsageError` naming ``option``."""
    from cardzoo.agents import make_agent

    def factory(engine, seed):
        try:
            return make_agent(game, name, engine, seed=seed)
        except InputError as error:
            raise UsageError(option, str(error)) from None

    factory.name = name
    return factory
