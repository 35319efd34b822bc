"""A person plays one seat in the terminal against agents: ``cardzoo play GAME --opponents ...``.

>>> from cardzoo.play import play
>>> play("nobody_wants_it", ["nwi_dodger", "random"])   # reads stdin, writes stdout

Before each of the person's moves the table is shown from their seat (``game.render(state,
seat)``: their own cards, nothing they could not see at a real table), then the legal moves, each
with its number (the action id the environment uses) and name. The person types a number or a
name; anything else is explained and asked again; ``q`` quits. At the end the table, everybody's
score and the winners are shown. Foxy works the same way: every player writes on every card, the
person when their turn in the engine's order comes, and nobody's number is shown before the end.

Decisions:

- The opponents' moves are not announced by name: several are secret at a real table (Foxy's
  numbers, Nobody Wants It's horse gifts, the cards of a Believe It or Not placement), and the
  table shown before the person's next move shows what everybody could see of them.
- Moves are numbered by their action ids, not 1, 2, 3 for the moves listed, so a number means
  the same move in every position (and in logs, errors and the environment). Runs of numbered
  moves are listed as a range (Foxy: ``0..40  write 0 .. write 40``).
- Enter alone takes the move when only one is legal (Henhouse has nothing else); end of input
  (Ctrl-D) quits like ``q``.
- The person sits in seat 0 (``player_0``) unless ``seat`` says otherwise; the opponents fill the
  other seats in order.
- Without a seed the deal is drawn at random and its seed printed, so a game can be replayed.
- A game stopped by ``max_cycles`` ends with nobody winning, as in the environment.
- Foxy's earlier cards stay in the terminal's scrollback: playing it as a memory test means not
  scrolling back.
"""

from __future__ import annotations

__all__ = ["PlayResult", "play"]

import dataclasses
import re
import sys
from collections.abc import Sequence
from typing import TextIO

import numpy as np

from cardzoo.agents import Agent, make_agent
from cardzoo.envs import game_spec, load_game
from cardzoo.envs.core import Game, State
from cardzoo.envs.helpers import check_int, check_max_cycles, game_rng_from_seed
from cardzoo.errors import InputError
from cardzoo.table import Table

QUIT_WORDS = ("q", "quit", "exit")
#: runs of at least this many consecutive numbered moves are listed as one range
RANGE_AT_LEAST = 4


@dataclasses.dataclass
class PlayResult:
    """How a played game ended (``quit``: the person stopped it; scores and winners as they
    stood then, winners all False)."""

    seed: int
    seat: int
    players: list[str]  # who sat in each seat: "you" or the agent's name
    scores: list[float]
    winners: list[bool]
    quit: bool = False
    truncated: bool = False

    @property
    def won(self) -> bool:
        return self.winners[self.seat]


def play(
    game_name: str,
    opponents: Sequence[str],
    seat: int = 0,
    seed: int | None = None,
    params: dict | None = None,
    max_cycles: int | None = None,
    input_stream: TextIO | None = None,
    output_stream: TextIO | None = None,
) -> PlayResult:
    """Play ``game_name`` in seat ``seat`` against ``opponents`` (agent names, one per other
    seat, in seat order), reading moves from ``input_stream`` and writing the table to
    ``output_stream`` (stdin and stdout by default). The player count is ``len(opponents) + 1``.
    ``seed`` (an int >= 0) fixes the deal, as ``env.reset(seed=...)`` does, and seeds the
    opponents; None (the default) draws a fresh seed, so the deal is a random one. The seed is
    printed at the start and kept in the result, so the same deal can be played again.
    Every argument is checked before the game starts (a ``ValueError`` naming it)."""
    read = input_stream or sys.stdin
    out = output_stream or sys.stdout
    game, seat, names = _set_up(game_name, opponents, seat, params)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    seed = check_int("seed", seed, 0)
    max_cycles = check_max_cycles(max_cycles, game.default_max_cycles)
    agents = _opponents(game_name, game, names, seat, seed)
    table = Table(game, game.new_state(game_rng_from_seed(seed)), agents, max_cycles)
    state = table.state
    players = ["you" if s == seat else names[s] for s in range(game.num_players)]
    _write(out, _introduction(game_name, game, seat, players, seed))
    while True:
        table.play(until=seat)
        if table.over:
            break
        action = _ask_move(game, state, seat, read, out)
        if action is None:
            _write(out, "You quit the game; no result.")
            return _result(game, state, seed, seat, players, quit=True)
        table.step(action)
    result = _result(game, state, seed, seat, players, truncated=table.truncated)
    _write(out, "\n" + game.render(state, seat) + "\n\n" + _ending(result, max_cycles))
    return result


# ----------------------------------------------------------------------------------------------
# Setting up
# ----------------------------------------------------------------------------------------------


def _set_up(
    game_name: str, opponents: Sequence[str], seat: int, params: dict | None
) -> tuple[Game, int, dict[int, str]]:
    """The game (checked parameters), the person's seat, and the opponents by seat."""
    game_class = game_spec(game_name).game_class()
    if isinstance(opponents, str) or not isinstance(opponents, Sequence):
        raise InputError(f"opponents must be a list of agent names, got {opponents!r}")
    players = len(opponents) + 1
    low, high = game_class.min_players, game_class.max_players
    if not low <= players <= high:
        raise InputError(
            f"opponents: {len(opponents)} opponents make {players} "
            f"player{'s' if players != 1 else ''}; {game_name} seats "
            f"{low}..{high}, so give {low - 1}..{high - 1} opponents"
        )
    if params is not None and not isinstance(params, dict):
        raise InputError(f"params must be a dict of game parameters, got {params!r}")
    params = dict(params or {})
    if params.setdefault("num_players", players) != players:
        raise InputError(
            f"params['num_players']={params['num_players']} but {len(opponents)} opponents "
            f"make {players} players"
        )
    seat = check_int("seat", seat, 0, players - 1)
    other_seats = [s for s in range(players) if s != seat]
    game = load_game(game_name, **params)
    return game, seat, dict(zip(other_seats, opponents))


def _opponents(
    game_name: str, game: Game, names: dict[int, str], seat: int, seed: int
) -> list[Agent | None]:
    """An agent in every seat but the person's (None)."""
    agents: list[Agent | None] = [None] * game.num_players
    for player, name in names.items():
        try:
            agents[player] = make_agent(game_name, name, game, seed=seed * 7919 + player)
        except (InputError, OSError) as error:
            detail = str(error) if name in str(error) else f"{name}: {error}"
            raise InputError(f"opponents: {detail}") from error
    return agents


# ----------------------------------------------------------------------------------------------
# The person's move
# ----------------------------------------------------------------------------------------------


def _ask_move(game: Game, state: State, seat: int, read: TextIO, out: TextIO) -> int | None:
    """Show the table and the legal moves, read until a legal move (or None: quit)."""
    mask = game.legal_mask(state, seat)
    _write(out, "\n" + game.render(state, seat) + "\nYour legal moves:\n" + moves_text(game, mask))
    while True:
        out.write("Your move (number or name, q quits): ")
        out.flush()
        line = read.readline()
        if not line:  # end of input
            _write(out, "")
            return None
        try:
            return parse_move(line, game, mask)
        except ValueError as reason:
            _write(out, str(reason))


def moves_text(game: Game, mask: np.ndarray) -> str:
    """The legal moves, one line each: ``  12  play pig``; a run of at least
    :data:`RANGE_AT_LEAST` consecutive action ids whose names differ only in their numbers is
    one line ``  0..40  write 0 .. write 40``."""
    entries = []  # (number or range, name or names)
    for run in _runs(game, np.flatnonzero(mask).tolist()):
        first, last = run[0], run[-1]
        if len(run) >= RANGE_AT_LEAST:
            entries.append(
                (f"{first}..{last}", f"{game.action_name(first)} .. {game.action_name(last)}")
            )
        else:
            entries.extend((str(action), game.action_name(action)) for action in run)
    width = max(len(number) for number, _ in entries)
    return "\n".join(f"  {number:>{width}}  {name}" for number, name in entries)


def _runs(game: Game, actions: list[int]) -> list[list[int]]:
    """``actions`` cut into runs of consecutive ids with the same name apart from numbers."""
    runs: list[list[int]] = []
    for action in actions:
        previous = runs[-1][-1] if runs else None
        if action - 1 == previous and _shape(game, action) == _shape(game, previous):
            runs[-1].append(action)
        else:
            runs.append([action])
    return runs


def _shape(game: Game, action: int) -> str:
    """An action's name with its numbers blanked: ``write 7`` -> ``write #``."""
    return re.sub(r"\d+", "#", game.action_name(action))


def parse_move(text: str, game: Game, mask: np.ndarray) -> int | None:
    """The legal move the person typed (a number or a name, any case and spacing), or None if
    they quit. Anything else raises ``ValueError`` saying why it is not a legal move."""
    typed = " ".join(text.split()).lower()
    legal = np.flatnonzero(mask).tolist()
    if typed in QUIT_WORDS:
        return None
    if not typed:
        if len(legal) == 1:
            return legal[0]
        raise ValueError("Type the number or the name of one of the moves listed (q quits).")
    if re.fullmatch(r"[+-]?\d+", typed):
        # read without its leading zeros; a number longer than any move's is out of range
        # unread (int() refuses more than 4300 digits)
        sign, digits = typed[0] if typed[0] in "+-" else "", typed.lstrip("+-").lstrip("0")
        too_long = len(digits) > len(str(game.num_actions))
        action = -1 if too_long else int(sign + (digits or "0"))
        if not 0 <= action < game.num_actions:
            number = (typed[:12] + "...") if too_long else action
            raise ValueError(
                f"There is no move {number}: moves are numbered 0..{game.num_actions - 1}; "
                "type one of the numbers listed."
            )
    else:
        by_name = {_normal_name(game, a): a for a in range(game.num_actions)}
        if typed not in by_name:
            raise ValueError(
                f"{text.strip()!r} is not a move; type a number or a name from the list."
            )
        action = by_name[typed]
    if action not in legal:
        raise ValueError(f"Move {action} ({game.action_name(action)}) is not allowed now.")
    return action


def _normal_name(game: Game, action: int) -> str:
    return " ".join(game.action_name(action).split()).lower()


# ----------------------------------------------------------------------------------------------
# Texts
# ----------------------------------------------------------------------------------------------


def _introduction(game_name: str, game: Game, seat: int, players: list[str], seed: int) -> str:
    seats = ", ".join(f"player_{s} {name}" for s, name in enumerate(players))
    return (
        f"{game_name} {game.params()}\n"
        f"You are player_{seat}. At the table: {seats}.\n"
        f"Deal seed {seed} (the same deal again: --seed {seed}).\n"
        "Type a move's number or its name; q quits."
    )


def _result(
    game: Game,
    state: State,
    seed: int,
    seat: int,
    players: list[str],
    quit: bool = False,
    truncated: bool = False,
) -> PlayResult:
    winners = game.winners(state) if state.terminal else np.zeros(game.num_players, bool)
    return PlayResult(
        seed,
        seat,
        players,
        [float(score) for score in game.scores(state)],
        [bool(won) for won in winners],
        quit=quit,
        truncated=truncated,
    )


def _ending(result: PlayResult, max_cycles: int) -> str:
    scores = ", ".join(
        f"player_{s} ({name}) {score:g}"
        for s, (name, score) in enumerate(zip(result.players, result.scores))
    )
    lines = [f"Scores: {scores}"]
    if result.truncated:
        lines.append(f"The game was stopped after {max_cycles} moves (max_cycles): nobody wins.")
        return "\n".join(lines)
    winners = [f"player_{s} ({result.players[s]})" for s, won in enumerate(result.winners) if won]
    lines.append(("Winners: " if len(winners) > 1 else "Winner: ") + ", ".join(winners))
    lines.append(verdict(result.won, len(winners)))
    return "\n".join(lines)


def verdict(won: bool, num_winners: int) -> str:
    """The person's line of a finished game's result, here and on the web page."""
    if not won:
        return "You lost."
    return "You won!" if num_winners == 1 else "You share the win."


def _write(out: TextIO, text: str) -> None:
    out.write(text + "\n")
    out.flush()
