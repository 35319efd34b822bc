"""The web page's server: a Starlette application (``cardzoo serve`` runs it with uvicorn on
127.0.0.1).

Routes (JSON in and out unless said otherwise; every refusal is a 4xx ``{"error": message}``):

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

Decision (local names only): a request whose ``Host`` is not ``127.0.0.1`` or ``localhost`` (with
any port) is refused with 400. The server listens on the loopback interface only, but a web page
elsewhere could point a name of its own at 127.0.0.1 (DNS rebinding) and read the answers; with
this check its requests never reach the games or the replays.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from cardzoo.web.replays import Replays
from cardzoo.web.sessions import MAX_MOVES_PER_REQUEST, RequestError, Sessions, catalogue

#: the page's files, served by name (nothing else of the package is ever read by a request)
PAGE_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
}
NO_STORE = {"Cache-Control": "no-store"}
#: the names the page may be reached by (see the module's Decision)
LOCAL_HOSTS = ("127.0.0.1", "localhost")


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
        session = sessions.start(await _json(request))
        return JSONResponse(session.describe(), status_code=201)

    def show(request: Request) -> JSONResponse:
        return JSONResponse(sessions.get(request.path_params["id"]).describe())

    async def step(request: Request) -> JSONResponse:
        body = await _json(request, empty_ok=True)
        moves = _field(body, "moves", 1)
        if isinstance(moves, bool) or not isinstance(moves, int):
            raise RequestError(400, f"moves must be an integer, got {moves!r}")
        if not 1 <= moves <= MAX_MOVES_PER_REQUEST:
            raise RequestError(400, f"moves must be 1..{MAX_MOVES_PER_REQUEST}, got {moves}")
        session = sessions.get(request.path_params["id"])
        with session.lock:
            session.advance(moves)
            return JSONResponse(session.describe())

    async def act(request: Request) -> JSONResponse:
        body = await _json(request)
        if "action" not in body:
            raise RequestError(400, 'send {"action": ACTION_ID}')
        session = sessions.get(request.path_params["id"])
        with session.lock:
            session.act(body["action"])
            return JSONResponse(session.describe())

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
    """ASGI middleware: HTTP requests addressed to another host than :data:`LOCAL_HOSTS` get a
    400 with a JSON message and go no further."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            host = Headers(scope=scope).get("host", "")
            name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
            if name not in LOCAL_HOSTS:
                message = f"host {host!r} refused: open the page at http://127.0.0.1:PORT/"
                await JSONResponse({"error": message}, status_code=400)(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _json(request: Request, empty_ok: bool = False) -> dict[str, Any]:
    """The request's body as a JSON object (``{}`` for an empty body where ``empty_ok``)."""
    raw = await request.body()
    if not raw.strip() and empty_ok:
        return {}
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise RequestError(400, "the body must be a JSON object") from None
    if not isinstance(body, dict):
        raise RequestError(400, "the body must be a JSON object")
    return body


def _field(body: dict[str, Any], name: str, default: Any) -> Any:
    unknown = sorted(set(body) - {name})
    if unknown:
        raise RequestError(400, f"unknown field(s) {unknown}; allowed: {name}")
    return body.get(name, default)


def _refused(request: Request, error: RequestError) -> JSONResponse:
    return JSONResponse({"error": error.message}, status_code=error.status)


def _http_error(request: Request, error: HTTPException) -> JSONResponse:
    """Starlette's own refusals (no such route, wrong method) as JSON too."""
    return JSONResponse({"error": error.detail}, status_code=error.status_code)
