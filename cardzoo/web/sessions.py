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
- At most :data:`MAX_SESSIONS` games are kept; starting one more forgets the oldest.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
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
from cardzoo.envs import GAMES, game_spec, load_game
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import game_rng_from_seed
from cardzoo.table import Table

#: the line-up entry of the person's seat
HUMAN = "you"
#: games kept in memory at once (the oldest is forgotten first)
MAX_SESSIONS = 64
#: the most moves one request may ask the agents to make
MAX_MOVES_PER_REQUEST = 10_000
#: the largest seed a request may give (numpy seeds are unbounded; JSON numbers are not)
MAX_SEED = 2**63 - 1


class RequestError(Exception):
    """A request the server will not carry out: ``status`` (4xx) and a message for the page."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def catalogue(offered_agents: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Every game with its player counts, the agents a request may name and the best of them
    (the page's default opponent)."""
    return [
        {
            "name": game.name,
            "description": game.description,
            "min_players": game.min_players,
            "max_players": game.max_players,
            "default_players": game.num_players,
            "agents": [*agent_names(game.name), *offered_agents],
            "best_agent": BEST_HEURISTIC.get(game.name, "random"),
        }
        for game in (load_game(name) for name in GAMES)
    ]


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

    def advance(self, moves: int) -> None:
        """Let the agents make up to ``moves`` moves (stopping at the person's turn or the end);
        ``RequestError`` (409) if none can be made now."""
        if self.table.over:
            raise RequestError(409, "the game is over; start a new one")
        if self.your_turn:
            raise RequestError(409, "it is your turn: choose one of your legal moves")
        for _ in range(moves):
            if self.table.over or self.your_turn:
                return
            self._agent_moves()

    def act(self, action: Any) -> None:
        """The person's move ``action`` (an action id), then the agents' moves up to the
        person's next decision or the end."""
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
        while not (self.table.over or self.your_turn):
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
            lines.append("You won!" if winners[self.human_seat] else "You lost.")
        return {"scores": scores, "winners": [bool(w) for w in winners], "text": "\n".join(lines)}


class Sessions:
    """The games in memory by id, and the agents requests may name beyond each game's own."""

    def __init__(self, offered_agents: Sequence[str] = ()):
        self.offered_agents = list(offered_agents)
        self._games: OrderedDict[str, Session] = OrderedDict()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def get(self, session_id: str) -> Session:
        with self._lock:
            session = self._games.get(session_id)
        if session is None:
            raise RequestError(
                404, f"no game {session_id!r} (it ended with the server, or never was)"
            )
        return session

    def start(self, request: Any) -> Session:
        """A new game from a request ``{"game", "lineup", "seed"?}``, advanced to the first
        decision of the person (or kept at the deal when nobody plays a seat)."""
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
        with self._lock:
            session_id = f"g{next(self._ids)}"
        session = Session(session_id, game_name, game, seed, lineup, table, human)
        if human is not None:  # the agents before the person move first
            while not (table.over or session.your_turn):
                session._agent_moves()
        with self._lock:  # shown to other requests only once set up
            self._games[session_id] = session
            while len(self._games) > MAX_SESSIONS:
                self._games.popitem(last=False)
        return session

    def _checked_request(self, request: Any) -> tuple[str, list[str], int]:
        if not isinstance(request, dict):
            raise RequestError(400, "send a JSON object {game, lineup, seed}")
        unknown = sorted(set(request) - {"game", "lineup", "seed"})
        if unknown:
            raise RequestError(400, f"unknown field(s) {unknown}; allowed: game, lineup, seed")
        game_name = request.get("game")
        if not isinstance(game_name, str) or game_name not in GAMES:
            raise RequestError(400, f"unknown game {game_name!r}; choose one of {list(GAMES)}")
        lineup = request.get("lineup")
        if not isinstance(lineup, list) or not all(isinstance(e, str) for e in lineup):
            raise RequestError(
                400, "lineup must be a list of agent names, one per seat ('you': you)"
            )
        seed = request.get("seed")
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise RequestError(400, f"seed must be an integer 0..{MAX_SEED}, got {seed!r}")
        return game_name, lineup, seed

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
        """Agent ``name`` of the line-up; a saved policy only if the server offers it."""
        kind, colon, _ = name.partition(":")
        if colon and kind in POLICY_LOADERS and name not in self.offered_agents:
            raise RequestError(
                400,
                f"agent {name!r} is not offered by this server; saved policies are offered when "
                "it starts: cardzoo serve --agent KIND:PATH",
            )
        try:
            return make_agent(game_name, name, game, seed=seed)
        except (ValueError, OSError) as error:
            raise RequestError(400, f"agent {name!r}: {error}") from None
