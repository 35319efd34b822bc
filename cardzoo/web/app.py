"""The web page's server: a Starlette application (``cardzoo serve`` runs it with uvicorn on
127.0.0.1).

Routes (JSON in and out unless said otherwise; every refusal is a 4xx ``{"error": message}``,
but for a 503 to a request still running when the server stops):

- ``GET /``, ``/app.js``, ``/style.css``: the page (plain HTML and a little JavaScript);
- ``GET /api/games``: the games, their player counts and the agents a line-up may name;
- ``POST /api/sessions`` ``{"game", "lineup": [agent or "you", ...], "seed"?}``: a new game;
- ``GET /api/sessions/{id}``: the game as the page shows it (whose turn, the legal moves of the
  person's seat by the engine's action names, the result at the end);
- ``POST /api/sessions/{id}/step`` ``{"moves"?: n}``: the agents make up to n moves (default 1);
- ``POST /api/sessions/{id}/act`` ``{"action": id}``: the person's move, then the agents' moves
  up to the person's next decision;
- ``GET /api/sessions/{id}/picture.png?view=all|SEAT``: the table as a PNG;
- ``GET /api/replays``: the GIFs of the replay folder; ``GET /api/replay?name=PATH``: one of them.

Decisions:

- Local names only: a request whose ``Host`` is not ``127.0.0.1`` or ``localhost`` (with any
  port) is refused with 400. The server listens on the loopback interface only, but a web page
  elsewhere could point a name of its own at 127.0.0.1 (DNS rebinding) and read the answers;
  with this check its requests never reach the games or the replays.
- The page's own requests only: a POST whose ``Origin`` header, when there is one, is not the
  address the request was sent to (``http://`` + its ``Host``) is refused with 403, and a POST
  whose ``Content-Type`` is not ``application/json`` with 415 (even with an empty body), so
  another site open in the same browser can make no move (a form or a plain ``fetch`` cannot
  send JSON elsewhere without the browser asking this server first, which it never allows).
- The agents' moves (and loading a saved policy) run in a worker thread, so the server answers
  other requests meanwhile; one game's requests take turns (its ``lock``). A request the server
  cancels while stopping (``cardzoo serve`` waits a few seconds for requests in progress, then
  cancels them) stops its game after the move in progress.
- A body JSON cannot hold (nested too deeply, a number of more digits than Python converts) is
  refused with 400 like any other bad body, and a body longer than :data:`MAX_BODY_BYTES`
  (the page's own are a few hundred bytes) with 413, read no further: a request cannot make the
  server hold a body of any size in memory.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any, TypeVar

from cardzoo.extras import missing_extra

try:
    from starlette.applications import Starlette
    from starlette.datastructures import Headers
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route
except ImportError as error:
    raise missing_extra("web", "cardzoo.web", error.name) from None

from cardzoo.web.replays import Replays
from cardzoo.web.sessions import (
    MAX_MOVES_PER_REQUEST,
    RequestError,
    Session,
    Sessions,
    catalogue,
    shown,
)

#: the page's files, served by name (nothing else of the package is ever read by a request)
PAGE_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
}
NO_STORE = {"Cache-Control": "no-store"}
#: the names the page may be reached by (see the module's Decisions)
LOCAL_HOSTS = ("127.0.0.1", "localhost")
#: the methods that change nothing, exempt from the Origin and Content-Type checks
READ_ONLY_METHODS = ("GET", "HEAD")

T = TypeVar("T")


def create_app(
    replays: str | os.PathLike | None = None, offered_agents: Sequence[str] = ()
) -> Starlette:
    """The application: games in memory, the replay folder ``replays`` (None: none), and the
    saved policies ``offered_agents`` (``ppo:PATH``...) a line-up may name besides each game's
    own agents."""
    sessions = Sessions(offered_agents)
    folder = Replays(replays)
    games = catalogue(offered_agents)

    def page(request: Request) -> Response:
        name, media_type = PAGE_FILES[request.url.path]
        text = resources.files("cardzoo.web").joinpath("static", name).read_text("utf-8")
        return Response(text, media_type=media_type, headers=NO_STORE)

    def list_games(request: Request) -> JSONResponse:
        return JSONResponse({"games": games, "replays": folder.root is not None})

    async def start(request: Request) -> JSONResponse:
        body = await _json(request)
        described = await _off_the_loop(lambda stop: sessions.start(body, stop).describe())
        return JSONResponse(described, status_code=201)

    def show(request: Request) -> JSONResponse:
        session = sessions.get(request.path_params["id"])
        with session.lock:
            return JSONResponse(session.describe())

    async def step(request: Request) -> JSONResponse:
        body = await _json(request, empty_ok=True)
        moves = _fields(body, ["moves"]).get("moves", 1)
        if isinstance(moves, bool) or not isinstance(moves, int):
            raise RequestError(400, f"moves must be an integer, got {shown(moves)}")
        if not 1 <= moves <= MAX_MOVES_PER_REQUEST:
            raise RequestError(400, f"moves must be 1..{MAX_MOVES_PER_REQUEST}, got {moves}")
        session = sessions.get(request.path_params["id"])
        return JSONResponse(await _off_the_loop(_in_turn(session, Session.advance, moves)))

    async def act(request: Request) -> JSONResponse:
        body = _fields(await _json(request), ["action"])
        if "action" not in body:
            raise RequestError(400, 'send {"action": ACTION_ID}')
        session = sessions.get(request.path_params["id"])
        return JSONResponse(await _off_the_loop(_in_turn(session, Session.act, body["action"])))

    def picture(request: Request) -> Response:
        session = sessions.get(request.path_params["id"])
        with session.lock:
            png = session.picture_png(request.query_params.get("view", "all"))
        return Response(png, media_type="image/png", headers=NO_STORE)

    def list_replays(request: Request) -> JSONResponse:
        return JSONResponse({"replays": folder.names()})

    def replay(request: Request) -> Response:
        data = folder.read(request.query_params.get("name", ""))
        return Response(data, media_type="image/gif", headers=NO_STORE)

    routes = [Route(path, page) for path in PAGE_FILES] + [
        Route("/api/games", list_games),
        Route("/api/sessions", start, methods=["POST"]),
        Route("/api/sessions/{id}", show),
        Route("/api/sessions/{id}/step", step, methods=["POST"]),
        Route("/api/sessions/{id}/act", act, methods=["POST"]),
        Route("/api/sessions/{id}/picture.png", picture),
        Route("/api/replays", list_replays),
        Route("/api/replay", replay),
    ]
    handlers = {RequestError: _refused, HTTPException: _http_error}
    return Starlette(routes=routes, exception_handlers=handlers, middleware=[Middleware(LocalOnly)])


class LocalOnly:
    """ASGI middleware: an HTTP request addressed to another host than :data:`LOCAL_HOSTS` gets
    a 400, and a request that may change something (not GET or HEAD) sent from another origin a
    403 or without a JSON body type a 415, each with a JSON message, and goes no further (see
    the module's Decisions)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            refusal = _refusal(scope)
            if refusal is not None:
                status, message = refusal
                await JSONResponse({"error": message}, status_code=status)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _refusal(scope: dict) -> tuple[int, str] | None:
    """Why the HTTP request ``scope`` is refused before it reaches a route (status, message),
    or None."""
    headers = Headers(scope=scope)
    host = headers.get("host", "")
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    if name not in LOCAL_HOSTS:
        return 400, f"host {shown(host)} refused: open the page at http://127.0.0.1:PORT/"
    if scope["method"] in READ_ONLY_METHODS:
        return None
    origin = headers.get("origin")
    if origin is not None and origin.lower() != f"http://{host}".lower():
        return (
            403,
            f"origin {shown(origin)} refused: only the page at http://{host}/ may send moves",
        )
    content_type = headers.get("content-type", "")
    if content_type.split(";", 1)[0].strip().lower() != "application/json":
        return 415, (
            f"send the body as JSON with Content-Type: application/json, got {shown(content_type)}"
        )
    return None


async def _off_the_loop(work: Callable[[threading.Event], T]) -> T:
    """``work(stop)`` in a worker thread, so the server answers other requests meanwhile.

    When the request is cancelled (``cardzoo serve`` stopping cancels the requests still running
    a few seconds after Ctrl-C), ``stop`` is set, so ``work`` returns after the move in
    progress, and the request is answered at once with 503 rather than failing with a
    traceback."""
    stop = threading.Event()
    try:
        return await asyncio.get_running_loop().run_in_executor(None, functools.partial(work, stop))
    except asyncio.CancelledError:
        raise RequestError(503, "the server is stopping") from None
    finally:
        stop.set()


def _in_turn(session: Session, move: Callable[..., None], argument: Any) -> Callable:
    """A ``work(stop)`` for :func:`_off_the_loop`: ``move(session, argument, stop)`` with the
    game's lock held (one request at a time per game), then the game described."""

    def work(stop: threading.Event) -> dict[str, Any]:
        with session.lock:
            move(session, argument, stop)
            return session.describe()

    return work


#: the longest request body the server reads (413 past it): the page sends a few hundred bytes
MAX_BODY_BYTES = 64 * 1024


async def _body(request: Request) -> bytes:
    """The request's body, or ``RequestError`` (413) as soon as it is known to be longer than
    :data:`MAX_BODY_BYTES`: from its ``Content-Length``, or while it arrives."""
    too_long = RequestError(413, f"the body is longer than {MAX_BODY_BYTES:,} bytes")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise too_long
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise too_long
        chunks.append(chunk)
    return b"".join(chunks)


async def _json(request: Request, empty_ok: bool = False) -> dict[str, Any]:
    """The request's body as a JSON object (``{}`` for an empty body where ``empty_ok``);
    ``RequestError`` (400) for anything else, a body too deeply nested or holding a number too
    long for Python to read included, and 413 for one too long to read (:func:`_body`)."""
    raw = await _body(request)
    if not raw.strip() and empty_ok:
        return {}
    try:
        body = json.loads(raw)
    except RecursionError:
        raise RequestError(400, "the body is nested too deeply to be read") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise RequestError(400, "the body must be a JSON object") from None
    except ValueError:  # an integer longer than int() converts (sys.set_int_max_str_digits)
        raise RequestError(
            400, f"a number in the body has more than {sys.get_int_max_str_digits()} digits"
        ) from None
    if not isinstance(body, dict):
        raise RequestError(400, "the body must be a JSON object")
    return body


def _fields(body: dict[str, Any], allowed: list[str]) -> dict[str, Any]:
    """``body``, if it holds no other field than ``allowed``; else ``RequestError`` (400)."""
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise RequestError(400, f"unknown field(s) {shown(unknown)}; allowed: {', '.join(allowed)}")
    return body


async def _refused(request: Request, error: RequestError) -> JSONResponse:
    """A refusal as JSON (``async``: answered on the event loop, even by a request the
    server cancelled while stopping, see :func:`_off_the_loop`)."""
    return JSONResponse({"error": error.message}, status_code=error.status)


async def _http_error(request: Request, error: HTTPException) -> JSONResponse:
    """Starlette's own refusals (no such route, wrong method) as JSON too."""
    return JSONResponse({"error": error.detail}, status_code=error.status_code)
