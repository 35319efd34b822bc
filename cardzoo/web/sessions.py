"""The games of the web page, kept in the server's memory by id: set up from a request, advanced
one move at a time (watching) or up to the person's next decision (playing a seat), drawn from
any seat's eyes, and described as JSON. Nothing here knows HTTP: every bad request is a
:class:`RequestError` carrying the status code and the message the page shows.

Decisions:

- A person plays at most one seat (``"you"`` in the line-up). While their game runs, only their
  own seat's picture is drawn (the full table or another seat's view is refused with 403), and
  no move of another seat is named: at a real table several are secret (Foxy's numbers, Nobody
  Wants It's horse gifts), as in terminal play. When the game is over every view is open.
- Saved policies (``ppo:PATH``, ``rllib:PATH``) read files, so a request may only name those the
  person who started the server offered (``cardzoo serve --agent ppo:runs/nwi``); a request
  naming any other path is refused before anything is read.
- At most :data:`MAX_SESSIONS` games are kept; starting one more drops a finished game (the
  least recently used of them) or, when every game is still in progress, the least recently used
  game. A request naming a dropped game is told so (the last :data:`DROPPED_REMEMBERED` dropped
  ids are remembered).
- Game ids are random (``secrets.token_urlsafe``), so no other page can guess one.
- A search agent (``pimc``, ``ismcts``) may think at most :data:`MAX_AGENT_SECONDS` seconds and
  :data:`MAX_AGENT_SIMULATIONS` simulations per move (each game's suggested budgets fit); a
  line-up asking for more is refused with 400 naming the limit. The server plays for one
  person, and one move's search must not hold a game (or a Ctrl-C) for long.
- A seed may be sent as a JSON integer or as a string of digits (the page sends the digits
  typed, which a JavaScript number would round above 2**53), 0..:data:`MAX_SEED` either way.
- A saved policy offered by the server is listed, and may be seated, only in the game its file
  records (the player count is checked when it is seated).
- Moves are made by the agents one at a time; ``stop`` (a ``threading.Event``, set when the
  request is cancelled because the server stops) ends a run of moves after the move in
  progress, leaving the game as it stands.
"""

from __future__ import annotations

import dataclasses
import io
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image

from cardzoo.agents import (
    BEST_HEURISTIC,
    POLICY_LOADERS,
    Agent,
    agent_action,
    agent_names,
    make_agent,
)
from cardzoo.agents.policy import saved_policy_record
from cardzoo.agents.search import SearchAgent
from cardzoo.envs import GAMES, game_spec, load_game
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import game_rng_from_seed
from cardzoo.errors import InputError
from cardzoo.play import verdict
from cardzoo.table import Table

#: the line-up entry of the person's seat
HUMAN = "you"
#: games kept in memory at once (finished games are dropped first, then the least recently used)
MAX_SESSIONS = 64
#: how many dropped game ids are remembered, to tell a request naming one what happened
DROPPED_REMEMBERED = 1024
#: the most moves one request may ask the agents to make
MAX_MOVES_PER_REQUEST = 10_000
#: the largest seed a request may give (numpy seeds are unbounded; JSON numbers are not)
MAX_SEED = 2**63 - 1
#: the most a search agent of a web line-up may think per move: seconds, and simulations
MAX_AGENT_SECONDS = 2.0
MAX_AGENT_SIMULATIONS = 5_000


class RequestError(Exception):
    """A request the server will not carry out: ``status`` (4xx) and a message for the page."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def catalogue(offered_agents: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Every game with its player counts, the agents a request may name (a saved policy offered
    by the server only under the game its file records) and the best of them (the page's
    default opponent)."""
    offered = offered_games(offered_agents)
    return [
        {
            "name": game.name,
            "description": game.description,
            "min_players": game.min_players,
            "max_players": game.max_players,
            "default_players": game.num_players,
            "agents": [
                *agent_names(game.name),
                *(name for name, played in offered.items() if played == game.name),
            ],
            "best_agent": BEST_HEURISTIC.get(game.name, "random"),
        }
        for game in (load_game(name) for name in GAMES)
    ]


def offered_games(offered_agents: Sequence[str]) -> dict[str, str | None]:
    """Each offered saved policy (``KIND:PATH``) -> the game its file records, or None where the
    record cannot be read (``cardzoo serve`` refuses such a policy before serving; seating it
    gives the loading error)."""
    games: dict[str, str | None] = {}
    for name in offered_agents:
        kind, _, path = name.partition(":")
        try:
            games[name] = str(saved_policy_record(kind, path)["game"])
        except (ValueError, OSError, KeyError):  # InputError is a ValueError
            games[name] = None
    return games


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to about ``limit`` characters for an error message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _stopped(stop: threading.Event | None) -> bool:
    return stop is not None and stop.is_set()


@dataclasses.dataclass
class Session:
    """One game in progress: its table, who sits where, and the latest move."""

    id: str
    game_name: str
    game: Game
    seed: int
    lineup: list[str]  # per seat: an agent's name or HUMAN
    table: Table
    human_seat: int | None
    last_move: tuple[int, int] | None = None  # (player, action)
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    @property
    def state(self):
        return self.table.state

    @property
    def your_turn(self) -> bool:
        return not self.table.over and self.state.current_player == self.human_seat

    # --- moves --------------------------------------------------------------------------------

    def advance(self, moves: int, stop: threading.Event | None = None) -> None:
        """Let the agents make up to ``moves`` moves (stopping at the person's turn, the end, or
        when ``stop`` is set); ``RequestError`` (409) if none can be made now."""
        if self.table.over:
            raise RequestError(409, "the game is over; start a new one")
        if self.your_turn:
            raise RequestError(409, "it is your turn: choose one of your legal moves")
        for _ in range(moves):
            if self.table.over or self.your_turn or _stopped(stop):
                return
            self._agent_moves()

    def act(self, action: Any, stop: threading.Event | None = None) -> None:
        """The person's move ``action`` (an action id), then the agents' moves up to the
        person's next decision, the end, or ``stop`` being set."""
        if self.human_seat is None:
            raise RequestError(409, "nobody plays a seat in this game: it is watched (use step)")
        if self.table.over:
            raise RequestError(409, "the game is over; start a new one")
        if not self.your_turn:
            raise RequestError(409, f"it is player_{self.state.current_player}'s turn, not yours")
        if isinstance(action, bool) or not isinstance(action, int):
            raise RequestError(400, f"action must be an integer action id, got {action!r}")
        mask = self.game.legal_mask(self.state, self.human_seat)
        if not 0 <= action < mask.shape[0]:
            raise RequestError(
                400, f"there is no move {action}: moves are numbered 0..{mask.shape[0] - 1}"
            )
        if not mask[action]:
            name = self.game.action_name(action)
            raise RequestError(400, f"move {action} ({name}) is not allowed now")
        self.table.step(action)
        self.last_move = (self.human_seat, action)
        self.play_agents(stop)

    def play_agents(self, stop: threading.Event | None = None) -> None:
        """The agents' moves up to the person's next decision, the end, or ``stop`` being set."""
        while not (self.table.over or self.your_turn or _stopped(stop)):
            self._agent_moves()

    def _agent_moves(self) -> None:
        player = self.state.current_player
        action, _ = agent_action(self.game, self.state, self.table.agents[player])
        self.table.step(action)
        self.last_move = (player, action)

    # --- what the page is shown ---------------------------------------------------------------

    def views(self) -> list[str]:
        """The pictures that may be drawn now: ``"all"`` and ``"0"``, ``"1"``, ... (seats)."""
        seats = [str(seat) for seat in range(self.game.num_players)]
        if self.human_seat is None or self.table.over:
            return ["all", *seats]
        return [str(self.human_seat)]

    def picture_png(self, view: str) -> bytes:
        """The table as a PNG, in full (``"all"``) or from seat ``view``'s eyes."""
        if view not in ["all", *(str(seat) for seat in range(self.game.num_players))]:
            raise RequestError(
                400,
                f"view must be 'all' or a seat 0..{self.game.num_players - 1}, got {view!r}",
            )
        if view not in self.views():
            raise RequestError(
                403,
                f"you play seat {self.human_seat}: the full table and the other seats are shown "
                "when the game is over",
            )
        viewer = None if view == "all" else int(view)
        last = None if self._untold_move() else dict([self.last_move])
        frame = self.game.picture(self.state, viewer, last)
        png = io.BytesIO()
        Image.fromarray(frame, "RGB").save(png, format="PNG", compress_level=1)
        return png.getvalue()

    def describe(self) -> dict[str, Any]:
        """The game as the page shows it (JSON-ready)."""
        table, state = self.table, self.state
        description: dict[str, Any] = {
            "id": self.id,
            "game": self.game_name,
            "params": self.game.params(),
            "seed": self.seed,
            "players": [
                {"seat": seat, "name": f"player_{seat}", "agent": entry}
                for seat, entry in enumerate(self.lineup)
            ],
            "human_seat": self.human_seat,
            "steps": table.steps,
            "over": table.over,
            "truncated": table.truncated,
            "to_move": None if table.over else int(state.current_player),
            "your_turn": self.your_turn,
            "legal_moves": self._legal_moves(),
            "last_move": self._last_move_text(),
            "views": self.views(),
            "result": self._result() if table.over else None,
        }
        return description

    def _legal_moves(self) -> list[dict[str, Any]]:
        if not self.your_turn:
            return []
        mask = self.game.legal_mask(self.state, self.human_seat)
        return [
            {"action": int(action), "name": self.game.action_name(int(action))}
            for action in np.flatnonzero(mask)
        ]

    def _untold_move(self) -> bool:
        """No latest move, or another seat's while the person plays (not named: see the
        module's Decision)."""
        if self.last_move is None:
            return True
        playing = self.human_seat is not None and not self.table.over
        return playing and self.last_move[0] != self.human_seat

    def _last_move_text(self) -> str | None:
        if self._untold_move():
            return None
        player, action = self.last_move
        return f"player_{player}: {self.game.action_name(action)}"

    def _result(self) -> dict[str, Any]:
        game, state, table = self.game, self.state, self.table
        winners = np.zeros(game.num_players, bool) if table.truncated else game.winners(state)
        scores = [float(score) for score in game.scores(state)]
        names = [f"player_{seat} ({entry})" for seat, entry in enumerate(self.lineup)]
        lines = ["Scores: " + ", ".join(f"{n} {s:g}" for n, s in zip(names, scores))]
        if table.truncated:
            lines.append(f"Stopped after {table.max_cycles} moves (max_cycles): nobody wins.")
        else:
            won = [names[seat] for seat in np.flatnonzero(winners)]
            lines.append(("Winners: " if len(won) > 1 else "Winner: ") + ", ".join(won))
        if self.human_seat is not None and not table.truncated:
            lines.append(verdict(bool(winners[self.human_seat]), int(winners.sum())))
        return {"scores": scores, "winners": [bool(w) for w in winners], "text": "\n".join(lines)}


class Sessions:
    """The games in memory by id (most recently used last), and the saved policies requests
    may name beyond each game's own agents."""

    def __init__(self, offered_agents: Sequence[str] = ()):
        self.offered_agents = list(offered_agents)
        self._offered = offered_games(self.offered_agents)
        self._games: OrderedDict[str, Session] = OrderedDict()
        self._dropped: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, session_id: str) -> Session:
        """Game ``session_id``, now the most recently used; ``RequestError`` (404) if there is
        none (saying so when it was dropped for the limit)."""
        with self._lock:
            session = self._games.get(session_id)
            if session is not None:
                self._games.move_to_end(session_id)
            dropped = session_id in self._dropped
        if session is not None:
            return session
        if dropped:
            raise RequestError(
                404,
                f"no game {session_id!r} any more: it was dropped to keep at most "
                f"{MAX_SESSIONS} games in memory (finished games go first, then the least "
                "recently used); start a new one",
            )
        raise RequestError(
            404, f"no game {shown(session_id)} (it ended with the server, or never was)"
        )

    def start(self, request: Any, stop: threading.Event | None = None) -> Session:
        """A new game from a request ``{"game", "lineup", "seed"?}``, advanced to the first
        decision of the person (or kept at the deal when nobody plays a seat; ``stop`` set
        ends the agents' first moves early)."""
        game_name, lineup, seed = self._checked_request(request)
        game = self._game(game_name, len(lineup))
        human_seats = [seat for seat, entry in enumerate(lineup) if entry == HUMAN]
        if len(human_seats) > 1:
            raise RequestError(
                400, f"lineup: a person plays one seat, got {HUMAN!r} in {human_seats}"
            )
        agents = [
            None if entry == HUMAN else self._agent(game_name, game, entry, seed * 7919 + seat)
            for seat, entry in enumerate(lineup)
        ]
        table = Table(
            game, game.new_state(game_rng_from_seed(seed)), agents, game.default_max_cycles
        )
        human = human_seats[0] if human_seats else None
        session = Session(self._new_id(), game_name, game, seed, lineup, table, human)
        if human is not None:  # the agents before the person move first
            session.play_agents(stop)
        with self._lock:  # shown to other requests only once set up
            self._games[session.id] = session
            while len(self._games) > MAX_SESSIONS:
                self._drop_one()
        return session

    def _new_id(self) -> str:
        """A random id no game has had (see the module's Decision)."""
        while True:
            session_id = secrets.token_urlsafe(12)
            with self._lock:
                if session_id not in self._games and session_id not in self._dropped:
                    return session_id

    def _drop_one(self) -> None:
        """Forget the least recently used finished game, else the least recently used game
        (called with ``self._lock`` held)."""
        finished = [key for key, session in self._games.items() if session.table.over]
        session_id = finished[0] if finished else next(iter(self._games))
        del self._games[session_id]
        self._dropped[session_id] = None
        while len(self._dropped) > DROPPED_REMEMBERED:
            self._dropped.popitem(last=False)

    def _checked_request(self, request: Any) -> tuple[str, list[str], int]:
        if not isinstance(request, dict):
            raise RequestError(400, "send a JSON object {game, lineup, seed}")
        unknown = sorted(set(request) - {"game", "lineup", "seed"})
        if unknown:
            raise RequestError(400, f"unknown field(s) {unknown}; allowed: game, lineup, seed")
        game_name = request.get("game")
        try:
            game_spec(game_name)
        except InputError as error:  # an unknown game, or one named with its version
            raise RequestError(400, str(error)) from None
        lineup = request.get("lineup")
        if not isinstance(lineup, list) or not all(isinstance(e, str) for e in lineup):
            raise RequestError(
                400, "lineup must be a list of agent names, one per seat ('you': you)"
            )
        return game_name, lineup, _checked_seed(request.get("seed"))

    @staticmethod
    def _game(game_name: str, players: int) -> Game:
        game_class = game_spec(game_name).game_class()
        if not game_class.min_players <= players <= game_class.max_players:
            raise RequestError(
                400,
                f"lineup: {players} seats, but {game_name} seats "
                f"{game_class.min_players}..{game_class.max_players} players",
            )
        return load_game(game_name, num_players=players)

    def _agent(self, game_name: str, game: Game, name: str, seed: int) -> Agent:
        """Agent ``name`` of the line-up: a saved policy only if the server offers it, and only
        in its game; a search agent only within the web's limits (see the module's
        Decisions)."""
        kind, colon, _ = name.partition(":")
        if colon and kind in POLICY_LOADERS:
            if name not in self._offered:
                raise RequestError(
                    400,
                    f"agent {name!r} is not offered by this server; saved policies are offered "
                    "when it starts: cardzoo serve --agent KIND:PATH",
                )
            played = self._offered[name]
            if played is not None and played != game_name:
                raise RequestError(
                    400,
                    f"agent {name!r} plays {played} (the game its file records), not {game_name}",
                )
        try:
            agent = make_agent(game_name, name, game, seed=seed)
        except (ValueError, OSError) as error:
            raise RequestError(400, f"agent {name!r}: {error}") from None
        if isinstance(agent, SearchAgent):
            _check_search_budget(name, agent)
        return agent


def _check_search_budget(name: str, agent: SearchAgent) -> None:
    """``RequestError`` (400) if search agent ``name`` may think longer than the web allows."""
    if agent.seconds is not None and agent.seconds > MAX_AGENT_SECONDS:
        raise RequestError(
            400,
            f"agent {shown(name)}: at most seconds={MAX_AGENT_SECONDS:g} per move on the web "
            f"page, got seconds={agent.seconds:g}",
        )
    if agent.simulations is not None and agent.simulations > MAX_AGENT_SIMULATIONS:
        raise RequestError(
            400,
            f"agent {shown(name)}: at most simulations={MAX_AGENT_SIMULATIONS} per move on the "
            f"web page, got simulations={agent.simulations}",
        )


def _checked_seed(seed: Any) -> int:
    """A request's seed: an integer or a string of ASCII digits, 0..MAX_SEED; None draws one."""
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(seed, str) and re.fullmatch("[0-9]+", seed) and len(seed) <= len(str(MAX_SEED)):
        seed = int(seed)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise RequestError(
            400,
            f"seed must be an integer 0..{MAX_SEED} (a number or a string of digits), "
            f"got {shown(seed)}",
        )
    return seed
