"""``cardzoo serve``: a local web page to watch the games and play a seat against agents (the
``web`` extra: Starlette and uvicorn), bound to 127.0.0.1 only."""

from __future__ import annotations

import argparse
import socket
from pathlib import Path

from cardzoo.cli.args import UsageError, option_errors, positive_int
from cardzoo.errors import InputError
from cardzoo.extras import require_modules

HOST = "127.0.0.1"  # never another interface: the page has no login
#: how long Ctrl-C waits for requests in progress before cancelling them (a cancelled request
#: stops its game after the move in progress: cardzoo.web.app)
SHUTDOWN_WAIT_SECONDS = 2


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve", help="a local web page: watch the games, play a seat, open recorded matches"
    )
    parser.add_argument(
        "--port", type=port_number, default=8000, help="the port on 127.0.0.1 (default 8000)"
    )
    parser.add_argument(
        "--replays",
        type=existing_folder,
        default=None,
        metavar="DIR",
        help="offer the GIFs under DIR (e.g. written by cardzoo match --record DIR)",
    )
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="KIND:PATH",
        help="also offer this saved policy (ppo:PATH or rllib:PATH) as an agent (repeatable)",
    )
    parser.set_defaults(func=run_serve)


def port_number(text: str) -> int:
    value = positive_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"must be a port number 1..65535, got {value}")
    return value


def existing_folder(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path names no folder; give a folder name")
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    return path


def run_serve(args: argparse.Namespace) -> int:
    try:
        require_modules("web", "cardzoo serve", ("uvicorn", "starlette"))
    except ImportError as error:
        raise UsageError(None, str(error)) from None
    import uvicorn

    from cardzoo.web.app import create_app

    _check_offered_agents(args.agent)
    _check_port_free(args.port)
    app = create_app(args.replays, args.agent)
    print(f"cardzoo: serving on http://{HOST}:{args.port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(
        app,
        host=HOST,
        port=args.port,
        log_level="warning",
        timeout_graceful_shutdown=SHUTDOWN_WAIT_SECONDS,
    )
    return 0


def _check_offered_agents(names: list[str]) -> None:
    """Each ``--agent`` is ``KIND:PATH`` of a saved-policy kind, PATH exists, and the policy
    there loads and fits the game its record names (its file checked as every saved policy's
    is), before the server starts; which line-ups may seat it is checked when one names it."""
    from cardzoo.agents import POLICY_LOADERS, check_saved_agent

    for name in names:
        kind, colon, path = name.partition(":")
        if not colon or kind not in POLICY_LOADERS:
            raise UsageError(
                "--agent", f"{name!r} is not KIND:PATH with KIND one of {sorted(POLICY_LOADERS)}"
            )
        if not Path(path).exists():
            raise UsageError("--agent", f"{name!r}: no file or folder {path!r}")
        with option_errors("--agent"):
            _check_page_seats(name, check_saved_agent(name))


def _check_page_seats(name: str, game_name: str) -> None:
    """The page builds its games with their default parameters and the player count of the
    line-up: a policy trained with other parameters (Foxy's ``memory=perfect``, a training
    default) was offered, then refused when a line-up seated it."""
    from cardzoo.agents import make_agent
    from cardzoo.agents.policy import saved_policy_record
    from cardzoo.envs import load_game

    kind, _, path = name.partition(":")
    players = (saved_policy_record(kind, path).get("params") or {}).get("num_players")
    game = load_game(game_name, **({} if players is None else {"num_players": players}))
    try:
        make_agent(game_name, name, game)
    except InputError as error:
        raise InputError(
            f"the page plays {game_name} with its default parameters ({game.params()}), "
            f"which this policy cannot play: {error}"
        ) from None


def _check_port_free(port: int) -> None:
    """``UsageError`` unless the server can listen on ``HOST:port``. The probe binds as uvicorn
    does, with ``SO_REUSEADDR``, so the connections a server just stopped leaves in TIME-WAIT do
    not make the port look taken; a port another program listens on still does."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError as error:
            raise UsageError(
                "--port", f"{HOST}:{port} cannot be used ({error.strerror}); pick another port"
            ) from None
