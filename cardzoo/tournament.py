"""Tournaments: every agent against every other, with ratings and how sure we are of them.

>>> from cardzoo.tournament import tournament
>>> result = tournament("nobody_wants_it", ["random", "hand_shedder", "nwi_dodger"], games=200)
>>> print(result.table())           # ratings, then the pairwise score matrix with 95% CIs
>>> result.save("tournaments/nwi")  # tournament.json, ratings.png, pairwise.png

Who meets whom. Every pair of agents (A, B) plays its own games, at tables that seat only A and
B. With 2 players that is one line-up, A against B. With n > 2 players it is every way of seating
copies of A and B around the table, each at least once, counted up to rotation (3 players: AAB,
ABB; 4 players: AAAB, AABB, ABAB, ABBB). Each line-up is one :func:`~cardzoo.evaluation.play_match`:
seats rotated every game and mirrored deals (one deal replayed under every rotation), so every
line-up meets every deal in every seat. Decision: a line-up that repeats itself when turned (A B
A B at 4 players; A B A B A B, A A B A A B and A B B A B B at 6) replays each deal under its
distinct seatings only (2 for A B A B), and plays more deals instead: its other rotations
would replay the same games (exactly, for agents that do not draw at random), which the
statistics would count as evidence twice.

Decision: with more than 2 players a pair meets at tables of copies of the two of them, not at
tables of several different agents. That gives every pair a head-to-head on equal terms (the set
of line-ups is symmetric: A and B get the same seats and the same neighbours, so two equal agents
score 1/2), it never needs more agents than seats, and the number of line-ups grows with the
pairs only. Who sits next to whom matters in these games (cards pass to the left), which is why
every circular arrangement is played and not only "2 + 2".

One game's result between A and B: the agent with the larger share of its seats among the game's
winners wins it; equal shares are a draw (a tie, or a truncated game, which has no winners).
Decision: shares rather than "an A seat won and no B seat did", because in some games nearly
everybody wins (Believe It or Not has one loser): at a table AABB there, the pair whose seat lost
has lost the game, which the shares say (A 2/2, B 1/2) and the other rule would call a draw. With
2 players both rules are the same: the winner wins, a shared win is a draw.

The pairwise matrix holds the score of the row agent against the column agent, (wins + draws/2) /
games, with a 95% Wilson interval taken on that score. Decision: a draw counts as half a win, the
usual tournament score; the Wilson interval of a score with draws is conservative (draws only
lower the variance of a game's result).

Ratings: openskill's Plackett–Luce model (Weng & Lin's Bayesian approximation). Why: each game is
one ranking of two sides, possibly tied; on two sides Plackett–Luce is the Bradley–Terry (logistic)
model of pairwise wins, it handles a tie as equal ranks, and it is openskill's recommended and
fastest model (it also takes tables of more than two sides, should line-ups grow). Decision: the
dynamics parameter tau is 0, because the agents do not change during a tournament (tau > 0 models
skill drifting between games and keeps sigma from shrinking). Each agent gets mu (its skill),
sigma (the uncertainty of mu) and openskill's conservative ordinal mu - 3 sigma (its skill is
above that with 99.7% probability); the table is sorted by the ordinal.

Decision (the order of the games does not count): openskill updates the ratings one game at a time,
each update the larger the more its result surprised, so the same games rated in another order give
other ratings (a run of wins at the end counts for more than the same wins spread out). In our
4-player tournaments (112 games a pair) mu moved by 0.6 to 0.9 (its standard deviation) from one
random order to another, as much as the gaps between the leading agents, and the one order used
before (game 1 of every line-up, then game 2, ...) ranked Nobody Wants It's hand_shedder first
though it loses to every opponent but random. The agents do not change during a tournament, so no
order is the right one: each agent's mu and sigma are the means of openskill's over
:data:`RATING_ORDERS` random orders of all the games. (Chatbot Arena's leaderboard met the same
problem with online Elo and moved to a Bradley–Terry fit of all games at once, Chiang et al. 2024.
Such a fit of openskill's model is order-free too, but its sigma is then mostly the uncertainty of
where the whole field sits, about 3 for every agent, and the ordinal would rank by mu alone;
averaging keeps openskill's ratings as they are read elsewhere.) The orders are drawn from the
tournament's seed, and the games are listed in one canonical order before they are shuffled, so the
ratings depend on the games' results and the seed alone: not on the order in which line-ups or
games were played. The games themselves depend on the order the agents are listed in (a pair's
first agent is the one listed first, and each seat's agent is seeded by its place in the
line-up): list them in the same order to play the same tournament, as ``--resume`` requires.
With 100 orders the Monte Carlo error of the averages is about a tenth of
sigma (0.04 to 0.10 in mu, 0.06 to 0.12 in the difference of the two leading agents' ordinals, over
12 seeds of the orders: ``benchmarks/rating_orders.py``); a 4-player tournament of seven agents
takes about 3 s to rate.

Budget. ``games`` is the number of games per pair, spread over the pair's line-ups. Decision: it
is rounded up so that every line-up plays a whole number of deals in every rotation (a multiple
of the player count each); the result says how many were played.

Reproducible: every line-up plays the deals ``seed, seed + 1, ...`` (the pairs are compared on
the same cards) and its agents are seeded by :func:`~cardzoo.evaluation.play_match` from the
seed, so the same call gives the same table.

Resumable: with ``folder``, a tournament writes its settings there before its first game
(``settings.json``) and every line-up's match as it finishes (``lineups/0000.json``, ...: the
match's record, :meth:`~cardzoo.evaluation.MatchResult.to_json`, each file written atomically).
Called again with the same folder and the same settings, it reads the finished line-ups back and
plays only the missing ones; since every line-up's games depend on the seed alone, the result
is the one an uninterrupted tournament gives (agents that think against a clock,
``pimc:seconds=0.1``, play differently on every run, resumed or not). The settings are the game
with all its parameters, the agents' labels, ``games``, ``seed``, ``max_cycles`` (the game's
limit when left out) and the cardzoo version; and, for every agent that plays a file (a saved
policy ``ppo:PATH`` or ``rllib:PATH``, or the shipped ``pretrained``), the file's sha256.
Decision: a resume with other settings, or after such a file changed, is refused rather than
mixed: the folder is left as it is, and another folder starts afresh. What is not recorded: the
code behind an agent factory or a heuristic (only its label and the cardzoo version). A damaged
or foreign line-up file among those the tournament plays (``lineups/NNNN.json`` of its
line-ups) is refused too, naming the file, before any game; other files in the folder are left
alone.
"""

from __future__ import annotations

__all__ = ["Rating", "TournamentResult", "tournament"]

import contextlib
import ctypes
import dataclasses
import functools
import itertools
import json
import math
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from openskill.models import PlackettLuce

from cardzoo import __version__
from cardzoo.agents import Agent, build_agent
from cardzoo.agents.registry import policy_digests
from cardzoo.envs import game_spec, load_game
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import check_int
from cardzoo.errors import InputError, SettingError
from cardzoo.evaluation import AgentFactory, MatchResult, check_match, match_seating, play_match
from cardzoo.io import (
    report_json,
    to_json_value,
    write_bytes_atomic,
    write_json_atomic,
)
from cardzoo.stats import wilson_interval

if TYPE_CHECKING:  # matplotlib is imported when a picture is drawn
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: how many random orders of the games the ratings average (module docstring)
RATING_ORDERS = 100
RATING_MODEL = f"openskill PlackettLuce (Weng-Lin), tau=0, mean of {RATING_ORDERS} orders"
#: a tournament folder's files (``tournament(..., folder=)``): the settings, and a folder of one
#: file per finished line-up, named by its index in :attr:`TournamentResult.lineups`
SETTINGS_FILE = "settings.json"
LINEUPS_FOLDER = "lineups"
#: the format of a tournament folder's files, written into each (another one is refused)
FOLDER_FORMAT = 1
#: the result's summary, which :meth:`TournamentResult.save` writes beside its plots
SUMMARY_FILE = "tournament.json"
#: ... and its two plots; the three are every file it writes
RATINGS_FILE, PAIRWISE_FILE = "ratings.png", "pairwise.png"
SAVED_FILES = (SUMMARY_FILE, RATINGS_FILE, PAIRWISE_FILE)
#: Linux's prctl option: the signal a process gets when its parent dies
PR_SET_PDEATHSIG = 1
#: the most line-ups played at once (Windows waits on at most 61 processes' handles)
MAX_PROCESSES = 60
#: how many sigmas the conservative ordinal subtracts from mu (openskill's default)
ORDINAL_SIGMAS = 3.0


# ----------------------------------------------------------------------------------------------
# Line-ups
# ----------------------------------------------------------------------------------------------


def seating_patterns(num_players: int) -> list[str]:
    """Every way of seating two agents "A" and "B" around a table of ``num_players`` seats, each
    at least once, one representative per rotation (the lexicographically smallest)."""
    patterns = set()
    for seats in itertools.product("AB", repeat=num_players):
        if "A" in seats and "B" in seats:
            rotations = ["".join(seats[i:] + seats[:i]) for i in range(num_players)]
            patterns.add(min(rotations))
    return sorted(patterns)


def pattern_period(pattern: str) -> int:
    """The fewest seats ``pattern`` can be turned by to give itself again (its length if no
    fewer does): A B A B repeats after 2, so of its 4 rotations only 2 are distinct seatings."""
    n = len(pattern)
    return next(p for p in range(1, n + 1) if n % p == 0 and pattern == pattern[p:] + pattern[:p])


@dataclasses.dataclass(frozen=True)
class LineUp:
    """One table of a pair: ``pattern`` says which seat holds ``first`` (A) or ``second`` (B)."""

    first: str
    second: str
    pattern: str

    @property
    def agents(self) -> list[str]:
        return [self.first if mark == "A" else self.second for mark in self.pattern]

    @property
    def rotations(self) -> int | None:
        """The rotations its mirrored deals are replayed under: its distinct seatings (None:
        every rotation, for a line-up that does not repeat itself when turned)."""
        period = pattern_period(self.pattern)
        return None if period == len(self.pattern) else period


# ----------------------------------------------------------------------------------------------
# Results
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class PairRecord:
    """The games between two agents, from ``first``'s side."""

    first: str
    second: str
    wins: int = 0  # games ``first`` won
    losses: int = 0  # games ``second`` won
    draws: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    def score(self, agent: str) -> float:
        """``agent``'s score in these games: (wins + draws / 2) / games."""
        wins = self.wins if agent == self.first else self.losses
        return (wins + self.draws / 2) / self.games

    def score_interval(self, agent: str) -> tuple[float, float]:
        return wilson_interval(self.score(agent) * self.games, self.games)


@dataclasses.dataclass
class Rating:
    agent: str
    mu: float
    sigma: float
    games: int
    score: float  # against all opponents together
    score_ci: tuple[float, float]

    @property
    def ordinal(self) -> float:
        return self.mu - ORDINAL_SIGMAS * self.sigma


@dataclasses.dataclass
class TournamentResult:
    """Everything a tournament measured. ``agents`` is sorted best first (by the ordinal)."""

    game: str
    params: dict
    seed: int
    agents: list[str]
    ratings: dict[str, Rating]
    pairs: list[PairRecord]
    lineups: list[LineUp]
    matches: list[MatchResult]  # one per line-up
    games_per_lineup: int

    @property
    def num_players(self) -> int:
        return int(self.params["num_players"])

    @property
    def games_per_pair(self) -> int:
        return self.pairs[0].games

    @property
    def truncated(self) -> int:
        return sum(match.truncated for match in self.matches)

    def pair(self, agent: str, opponent: str) -> PairRecord:
        for record in self.pairs:
            if {record.first, record.second} == {agent, opponent}:
                return record
        raise ValueError(f"no games between {agent!r} and {opponent!r} in this tournament")

    def score_matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """``scores[i, j]``: the score of ``agents[i]`` against ``agents[j]`` (NaN on the
        diagonal), and ``intervals[i, j]``: its 95% interval (low, high)."""
        k = len(self.agents)
        scores = np.full((k, k), np.nan)
        intervals = np.full((k, k, 2), np.nan)
        for i, j in itertools.permutations(range(k), 2):
            record = self.pair(self.agents[i], self.agents[j])
            scores[i, j] = record.score(self.agents[i])
            intervals[i, j] = record.score_interval(self.agents[i])
        return scores, intervals

    # --- reporting ------------------------------------------------------------------------

    def header(self) -> str:
        patterns = sorted({lineup.pattern for lineup in self.lineups})
        pairs = f"{len(self.pairs)} pair{'' if len(self.pairs) == 1 else 's'}"
        return (
            f"{self.game} {self.params}: {len(self.agents)} agents, {pairs}, "
            f"{self.games_per_pair} games per pair (line-ups {', '.join(patterns)}; "
            f"{self.games_per_lineup} games each on mirrored deals, seats rotated), seed "
            f"{self.seed}; truncated: {self.truncated}"
        )

    def table(self) -> str:
        """Ratings and the pairwise matrix as plain text (95% intervals in brackets)."""
        name = max(22, *(len(agent) + 2 for agent in self.agents))  # the agent column's width
        rows = [self.header(), "", f"ratings ({RATING_MODEL}; ordinal = mu - 3 sigma):"]
        rows.append(
            f"  {'rank':>4}  {'agent':<{name}}{'mu':>7}{'sigma':>7}{'ordinal':>9}{'games':>7}  "
            "score [95% CI]"
        )
        for rank, agent in enumerate(self.agents, start=1):
            rating = self.ratings[agent]
            low, high = rating.score_ci
            rows.append(
                f"  {rank:>4}  {agent:<{name}}{rating.mu:>7.2f}{rating.sigma:>7.2f}"
                f"{rating.ordinal:>9.2f}{rating.games:>7}  "
                f"{rating.score:.3f} [{low:.3f}, {high:.3f}]"
            )
        rows += ["", "score of the row agent against the column agent (a draw counts 1/2):"]
        scores, intervals = self.score_matrix()
        cell = max(20, name)
        rows.append(f"  {'':<{name}}" + "".join(f"{agent:<{cell}}" for agent in self.agents))
        for i, agent in enumerate(self.agents):
            cells = [
                "-" if i == j else f"{scores[i, j]:.3f} [{low:.2f}, {high:.2f}]"
                for j, (low, high) in enumerate(intervals[i])
            ]
            rows.append(f"  {agent:<{name}}" + "".join(f"{text:<{cell}}" for text in cells))
        return "\n".join(row.rstrip() for row in rows)

    def summary(self) -> dict:
        """The whole result as JSON-ready data."""
        return {
            "game": self.game,
            "params": self.params,
            "seed": self.seed,
            "agents": self.agents,
            "rating_model": RATING_MODEL,
            "games_per_pair": self.games_per_pair,
            "games_per_lineup": self.games_per_lineup,
            "truncated": self.truncated,
            "ratings": [
                {
                    "rank": rank,
                    "agent": agent,
                    "mu": rating.mu,
                    "sigma": rating.sigma,
                    "ordinal": rating.ordinal,
                    "games": rating.games,
                    "score": rating.score,
                    "score_ci": list(rating.score_ci),
                }
                for rank, (agent, rating) in enumerate(self.ratings.items(), start=1)
            ],
            "pairwise": [
                {
                    "agent": agent,
                    "opponent": opponent,
                    "games": record.games,
                    "wins": record.wins if agent == record.first else record.losses,
                    "draws": record.draws,
                    "losses": record.losses if agent == record.first else record.wins,
                    "score": record.score(agent),
                    "score_ci": list(record.score_interval(agent)),
                }
                for agent, opponent in itertools.permutations(self.agents, 2)
                for record in [self.pair(agent, opponent)]
            ],
            "lineups": [
                {"pattern": lineup.pattern, "A": lineup.first, "B": lineup.second} | match.summary()
                for lineup, match in zip(self.lineups, self.matches)
            ],
        }

    def plot_ratings(self, ax: Axes | None = None) -> Figure:
        """The ratings with error bars (a matplotlib ``Figure``)."""
        from cardzoo.tournament_plots import plot_ratings

        return plot_ratings(self, ax)

    def plot_pairwise(self, ax: Axes | None = None) -> Figure:
        """The pairwise score matrix as a heat map (a matplotlib ``Figure``)."""
        from cardzoo.tournament_plots import plot_pairwise

        return plot_pairwise(self, ax)

    def save(self, folder: str | os.PathLike) -> dict[str, Path]:
        """Write ``tournament.json``, ``ratings.png`` and ``pairwise.png`` into ``folder``
        (created if missing), each atomically. Returns the paths by kind. Refused
        (``InputError``), before anything is written: an empty path (never read as the current
        folder), a path that is a file, a folder that holds another tournament's
        ``tournament.json``, and one that holds a ``ratings.png`` or ``pairwise.png`` without
        this tournament's ``tournament.json`` (a user's pictures are not replaced). Saving the
        same tournament again rewrites all three files (``tournament.json`` with the same
        content)."""
        from cardzoo.tournament_plots import save_figure

        if not os.fspath(folder).strip():
            raise InputError("folder: an empty path; give the folder to save the tournament in")
        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise InputError(f"folder: {folder} is a file, not a folder")
        paths = {
            "json": folder / SUMMARY_FILE,
            "ratings": folder / RATINGS_FILE,
            "pairwise": folder / PAIRWISE_FILE,
        }
        summary = self.summary()
        same = False
        if paths["json"].exists():
            try:
                same = json.loads(paths["json"].read_text()) == json.loads(report_json(summary))
            except (OSError, ValueError):
                same = False
            if not same:
                raise InputError(
                    f"folder: {folder} holds another tournament's {SUMMARY_FILE}; save this one "
                    "in a folder of its own"
                )
        pictures = [paths[kind].name for kind in ("ratings", "pairwise") if paths[kind].exists()]
        if pictures and not same:
            raise InputError(
                f"folder: {folder} holds {' and '.join(pictures)} of no tournament saved there "
                f"(no {SUMMARY_FILE} of this one); save it in a folder of its own"
            )
        write_bytes_atomic(paths["json"], report_json(summary).encode())
        save_figure(self.plot_ratings(), paths["ratings"])
        save_figure(self.plot_pairwise(), paths["pairwise"])
        return paths


# ----------------------------------------------------------------------------------------------
# Running a tournament
# ----------------------------------------------------------------------------------------------


def tournament(
    game_name: str,
    agents: Sequence[str | AgentFactory],
    games: int = 200,
    seed: int = 0,
    players: int = 2,
    params: dict | None = None,
    max_cycles: int | None = None,
    progress: bool = False,
    folder: str | os.PathLike | None = None,
    processes: int = 1,
) -> TournamentResult:
    """Every agent of ``agents`` against every other at ``players`` seats (see the module
    docstring for the line-ups, the scores and the ratings).

    ``agents`` are names :func:`cardzoo.agents.make_agent` understands (registry names of the
    game's agents, ``KIND:PATH`` for a saved policy) or, as in
    :func:`~cardzoo.evaluation.play_match`, factories ``f(game, seed) -> Agent`` whose ``name``
    attribute is their label in the tables; at least two, all different. ``games`` is
    the number of games per pair (rounded up to whole deals in every rotation of every line-up);
    ``params`` are the game's other parameters; ``max_cycles`` is the most agent steps a game
    may take before it is cut short (truncated: no winners, a draw), None (the default) the
    game's own limit; ``progress`` shows a bar over all games. Every argument is checked, and
    every agent built once, before the first game: a bad one is a ``ValueError`` naming the
    argument.

    ``folder`` (optional) makes the tournament resumable (see the module docstring): a new or
    empty folder starts one, a folder of the same settings resumes it (a finished one is read
    back, nothing played). Refused, before any game and with the folder left as it is, as an
    :class:`~cardzoo.errors.SettingError` of ``folder``: a folder that holds other files, or a
    tournament of other settings, or a damaged or foreign file.

    ``processes`` (default 1) plays that many line-ups at once, each in a process of its own
    (forked on Linux, so factories need not be picklable; elsewhere started anew, and agents
    that cannot be pickled are refused): the same games and the same result as one process,
    since every line-up's games depend only on the seed and the line-up. With a progress bar,
    it advances by whole line-ups. A stop (Ctrl-C, an error) stops every process at once.
    """
    game, params = _check_game(game_name, players, params)
    entries = _check_agents(game_name, agents, game)  # label -> name or factory
    labels = list(entries)
    games = check_int("games", games, 1)
    seed = check_int("seed", seed, 0)
    processes = check_int("processes", processes, 1, MAX_PROCESSES)
    lineups = [
        LineUp(first, second, pattern)
        for first, second in itertools.combinations(labels, 2)
        for pattern in seating_patterns(players)
    ]
    rounds_per_lineup = math.ceil(games / (len(seating_patterns(players)) * players))
    games_per_lineup = rounds_per_lineup * players
    lineup_specs = [entries[label] for label in lineups[0].agents]
    max_cycles = check_match(game_name, lineup_specs, games_per_lineup, seed, params, max_cycles)[4]
    store = None if folder is None else _TournamentFolder(Path(folder))
    finished: dict[int, MatchResult] = {}
    if store is not None:
        settings = _settings(game_name, game, entries, games, seed, max_cycles)
        finished = store.load(settings, lineups, games_per_lineup)
        store.start(settings)  # everything above was read and checked, nothing written
    bar = _progress_bar(len(lineups) * games_per_lineup, game_name, progress)
    if bar is not None:
        bar.update(len(finished) * games_per_lineup)
    play = functools.partial(
        _play_lineup, game_name, entries, games_per_lineup, seed, params, max_cycles
    )

    def done(index: int, match: MatchResult) -> None:
        finished[index] = match
        if store is not None:
            store.save(index, lineups[index], match)

    to_play = [index for index in range(len(lineups)) if index not in finished]
    try:
        if processes > 1 and len(to_play) > 1:
            _play_in_processes(play, lineups, to_play, processes, done, bar, games_per_lineup)
        else:
            for index in to_play:
                done(index, play(lineups[index], bar))
    finally:
        if bar is not None:
            bar.close()  # also on Ctrl-C, so the bar is not drawn again after the error
    matches = [finished[index] for index in range(len(lineups))]
    pairs = _pair_records(labels, lineups, matches)
    ratings = _rate(labels, pairs, seed)
    order = sorted(labels, key=lambda agent: (-ratings[agent].ordinal, labels.index(agent)))
    return TournamentResult(
        game=game_name,
        params=matches[0].params,
        seed=seed,
        agents=order,
        ratings={agent: ratings[agent] for agent in order},
        pairs=pairs,
        lineups=lineups,
        matches=matches,
        games_per_lineup=games_per_lineup,
    )


def _play_lineup(
    game_name: str,
    entries: dict[str, str | AgentFactory],
    games_per_lineup: int,
    seed: int,
    params: dict,
    max_cycles: int,
    lineup: LineUp,
    bar=None,
) -> MatchResult:
    """One line-up's games: the same wherever and whenever they are played."""
    return play_match(
        game_name,
        _factories(game_name, entries, lineup, bar),
        games_per_lineup,
        seed=seed,
        params=params,
        mirrored=True,
        max_cycles=max_cycles,
        rotations=lineup.rotations,
    )


def _lineup_worker(
    connection: Connection, play: Callable[[LineUp], MatchResult], parent: int
) -> None:
    """A worker process: plays each line-up it is sent and sends back ``("done", match)``, or
    ``("error", exception)``. Ctrl-C is the parent's to handle (it stops the workers). A worker
    whose parent died ends: at once on Linux (the kernel sends it SIGTERM), elsewhere when it
    is next idle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform == "linux":
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    while True:
        if os.getppid() != parent:  # also if it died before the kernel was asked to say so
            return
        if not connection.poll(1.0):
            continue
        lineup = connection.recv()
        try:
            reply: tuple[str, Any] = ("done", play(lineup))
        except Exception as error:  # the parent raises it; a bug in an agent, say
            note = getattr(error, "add_note", None)  # Python 3.11 on
            if note is not None:
                note(f"(in the process that played {lineup}:)\n{traceback.format_exc()}")
            reply = ("error", error)
        try:
            connection.send(reply)
        except Exception:  # an exception that cannot be pickled: its text
            connection.send(("error", RuntimeError(f"{reply[1]!r}\n{traceback.format_exc()}")))


def _play_in_processes(
    play: Callable[[LineUp], MatchResult],
    lineups: list[LineUp],
    indices: list[int],
    processes: int,
    done: Callable[[int, MatchResult], None],
    bar,
    games_per_lineup: int,
) -> None:
    """Play ``lineups[i]`` for every i of ``indices`` in up to ``processes`` worker processes,
    one line-up per process at a time, calling ``done(i, match)`` here as each finishes (in any
    order). On an error, Ctrl-C or any exception here the workers are stopped at once: only
    the line-ups they were playing are lost, as in one process."""
    # fork on Linux: the line-up player (factories, closures) is inherited, not pickled, and a
    # user's script needs no `if __name__ == "__main__"` guard. Elsewhere spawn (macOS's system
    # libraries are not safe to fork), which must pickle it.
    context: Any = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    if context.get_start_method() != "fork":
        try:
            pickle.dumps(play)
        except Exception as error:
            raise InputError(
                f"processes: on this system a tournament's processes are started anew and must "
                f"be sent its agents, which cannot be pickled ({error}); give processes=1, or "
                "factories defined at a module's top level"
            ) from None
    workers: dict[Connection, tuple[BaseProcess, int]] = {}  # busy: its process, its line-up
    started: list[tuple[BaseProcess, Connection]] = []
    waiting = list(indices)

    def give(connection: Connection, process: BaseProcess) -> None:
        index = waiting.pop(0)
        connection.send(lineups[index])
        workers[connection] = (process, index)

    try:
        for _ in range(min(processes, len(indices))):
            connection, child = context.Pipe()
            process = context.Process(
                target=_lineup_worker, args=(child, play, os.getpid()), daemon=True
            )
            process.start()
            child.close()
            started.append((process, connection))
            give(connection, process)
        while workers:
            for ready in multiprocessing.connection.wait(list(workers)):
                assert isinstance(ready, Connection)
                process, index = workers.pop(ready)
                try:
                    kind, payload = ready.recv()
                except EOFError:
                    raise RuntimeError(
                        f"the process playing line-up {index} ({lineups[index]}) died (exit "
                        f"code {process.exitcode}); the tournament stopped"
                    ) from None
                if kind == "error":
                    raise payload
                done(index, payload)
                if bar is not None:
                    bar.update(games_per_lineup)
                if waiting:
                    give(ready, process)
    finally:
        for process, connection in started:
            process.terminate()  # idle, or mid line-up on an error or Ctrl-C
            process.join()
            connection.close()


def _settings(
    game_name: str,
    game: Game,
    entries: dict[str, str | AgentFactory],
    games: int,
    seed: int,
    max_cycles: int,
) -> dict[str, Any]:
    """What a tournament folder records, and a resume must repeat (as JSON reads it back)."""
    settings = {
        "game": game_name,
        "players": game.num_players,
        "params": game.params(),
        "agents": list(entries),
        "games": games,
        "seed": seed,
        "max_cycles": max_cycles,
        "cardzoo": __version__,
        "policy_sha256": policy_digests(game_name, entries, game),
    }
    return json.loads(json.dumps(to_json_value(settings)))


class _TournamentFolder:
    """A resumable tournament's folder: :data:`SETTINGS_FILE` and, in :data:`LINEUPS_FOLDER`,
    one file per finished line-up. Every refusal is a :class:`SettingError` of ``folder``."""

    def __init__(self, path: Path):
        self.path = path
        self.settings = path / SETTINGS_FILE
        self.lineups = path / LINEUPS_FOLDER

    def lineup_file(self, index: int) -> Path:
        return self.lineups / f"{index:04d}.json"

    def load(
        self, settings: dict[str, Any], lineups: list[LineUp], games_per_lineup: int
    ) -> dict[int, MatchResult]:
        """The finished line-ups' matches by index (none for a new folder), every file checked:
        the folder must be new, empty, or hold the tournament of exactly these ``settings``.
        Reads only."""
        if self.path.exists() and not self.path.is_dir():
            raise SettingError("folder", f"{self.path} exists and is not a folder")
        if not self.settings.exists():
            if self.path.exists() and any(self.path.iterdir()):
                raise SettingError(
                    "folder",
                    f"{self.path} is not empty and holds no tournament (no {SETTINGS_FILE}); "
                    "give a new or empty folder",
                )
            return {}
        saved = self._read(self.settings, "tournament")
        if saved != settings:
            raise SettingError(
                "folder",
                f"{self.path} holds a tournament of other settings "
                f"({_differences(saved, settings)}); give the same settings to resume it, or "
                "another folder to start a new one",
            )
        finished = {}
        for index, lineup in enumerate(lineups):
            file = self.lineup_file(index)
            if file.exists():
                finished[index] = self._read_match(file, settings, lineup, games_per_lineup)
        return finished

    def start(self, settings: dict[str, Any]) -> None:
        """Write the settings of a new tournament (after :meth:`load` checked the folder)."""
        if not self.settings.exists():
            write_json_atomic(self.settings, {"format": FOLDER_FORMAT, "tournament": settings})

    def save(self, index: int, lineup: LineUp, match: MatchResult) -> None:
        """A finished line-up's match, atomically."""
        data = {
            "format": FOLDER_FORMAT,
            "lineup": _lineup_record(lineup),
            "match": match.to_json(),
        }
        write_json_atomic(self.lineup_file(index), data)

    def _read(self, file: Path, key: str) -> Any:
        """The data under ``key`` of a file this folder wrote."""
        try:
            data = json.loads(file.read_text())
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise self._damaged(file, f"{type(error).__name__}: {error}") from None
        if not isinstance(data, dict) or data.get("format") != FOLDER_FORMAT or key not in data:
            raise self._damaged(
                file, f"not a file of a cardzoo tournament folder of format {FOLDER_FORMAT}"
            )
        return data[key]

    def _read_match(
        self, file: Path, settings: dict[str, Any], lineup: LineUp, games_per_lineup: int
    ) -> MatchResult:
        """The match of ``file``, which must be ``lineup``'s in the tournament of
        ``settings``."""
        saved = self._read(file, "lineup")
        expected = _lineup_record(lineup)
        if saved != expected:
            raise self._damaged(file, f"it holds the line-up {saved}, not {expected}")
        try:
            match = MatchResult.from_json(self._read(file, "match"))
        except InputError as error:
            raise self._damaged(file, str(error)) from None
        n = len(lineup.pattern)
        seed, rotations = settings["seed"], lineup.rotations
        deals = [match_seating(seed, g, n, True, rotations)[0] for g in range(games_per_lineup)]
        played = {
            "game": match.game,
            "params": match.params,
            "lineup": match.lineup,
            "mirrored": match.mirrored,
            "rotations": match.rotations,
            "deals": [record.seed for record in match.games],
        }
        wanted = {
            "game": settings["game"],
            "params": settings["params"],
            "lineup": lineup.agents,
            "mirrored": True,
            "rotations": rotations,
            "deals": deals,
        }
        if played != wanted:
            raise self._damaged(
                file, f"its games are not this line-up's ({_differences(played, wanted)})"
            )
        return match

    def _damaged(self, file: Path, detail: str) -> SettingError:
        remedy = (
            "give another folder"
            if file == self.settings
            else "remove the file to play its line-up again"
        )
        return SettingError("folder", f"{file} is damaged or foreign ({detail}); {remedy}")


def _lineup_record(lineup: LineUp) -> dict[str, str]:
    """How a line-up file names its line-up (and a resume checks it)."""
    return {"A": lineup.first, "B": lineup.second, "pattern": lineup.pattern}


def _differences(there: dict[str, Any], here: dict[str, Any], prefix: str = "") -> str:
    """What differs between two dicts of settings, as ``games 200 there, 400 here`` (inside
    nested dicts by the key's path: ``params.num_rounds 3 there, 5 here``)."""
    parts = []
    for key in {**there, **here}:
        old, new = there.get(key), here.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            parts.append(_differences(old, new, f"{prefix}{key}."))
        elif old != new:
            parts.append(f"{prefix}{key} {old!r} there, {new!r} here")
    return "; ".join(part for part in parts if part)


def _check_game(game_name: str, players: int, params: dict | None) -> tuple[Game, dict]:
    game_class = game_spec(game_name).game_class()
    players = check_int("players", players, max(2, game_class.min_players), game_class.max_players)
    if params is not None and not isinstance(params, dict):
        raise InputError(f"params must be a dict of game parameters, got {params!r}")
    params = dict(params or {})
    if "num_players" in params:
        raise InputError("give the player count as players=, not params['num_players']")
    params["num_players"] = players
    return load_game(game_name, **params), params


def _check_agents(
    game_name: str, agents: Sequence[str | AgentFactory], game: Game
) -> dict[str, str | AgentFactory]:
    """The agents by label, checked: at least two different ones, each one an agent of this
    game that can be built (a saved policy is loaded once here, so a missing or wrong model file
    stops the tournament before its first game)."""
    if isinstance(agents, str) or not isinstance(agents, Sequence):
        raise InputError(f"agents must be a list of agent names or factories, got {agents!r}")
    entries: dict[str, str | AgentFactory] = {}
    for entry in agents:
        label = _label(entry)
        if label in entries:
            raise InputError(f"agents: {label!r} is listed twice; list each agent once")
        entries[label] = entry
    if len(entries) < 2:
        raise InputError(
            f"agents: a tournament needs at least 2 different agents, got {list(entries)}"
        )
    for label, entry in entries.items():
        try:
            build_agent(game_name, entry, game, 0)
        except (InputError, OSError) as error:
            detail = str(error) if label in str(error) else f"{label}: {error}"
            raise InputError(f"agents: {detail}") from error
    return entries


def _label(entry: str | AgentFactory) -> str:
    if isinstance(entry, str) and entry:
        return entry
    name = getattr(entry, "name", None) if callable(entry) else None
    if isinstance(name, str) and name:
        return name
    raise InputError(
        f"agents must be agent names or factories f(game, seed) with a name attribute (their "
        f"label in the tables), got {entry!r}"
    )


def _factories(
    game_name: str, entries: dict[str, str | AgentFactory], lineup: LineUp, bar
) -> list[AgentFactory]:
    """Agent factories for play_match, one per seat of ``lineup``. With a progress bar, the
    first seat's agent ticks it at the start of every game (play_match reseeds every agent once
    per game)."""

    def factory(label: str, ticks: bool) -> AgentFactory:
        def build(game: Game, seed: int) -> Agent:
            agent = build_agent(game_name, entries[label], game, seed)
            return _Ticking(agent, bar) if ticks else agent

        build.name = label  # type: ignore[attr-defined]  # play_match's label for this seat
        return build

    return [
        factory(label, ticks=bar is not None and seat == 0)
        for seat, label in enumerate(lineup.agents)
    ]


class _Ticking(Agent):
    """An agent that advances a progress bar whenever a new game starts, and otherwise acts as
    the agent it wraps."""

    def __init__(self, agent: Agent, bar):
        super().__init__(agent.game)
        self.agent = agent
        self.bar = bar
        self.name = agent.name
        self.named_seed = agent.named_seed
        # what the table gives the wrapped agent: it sees exactly what it would see unwrapped
        self.uses_observation = agent.uses_observation
        self.uses_state = agent.uses_state

    def reset(self) -> None:
        self.agent.reset()

    def reseed(self, seed: int | None) -> None:
        self.agent.reseed(seed)
        self.bar.update(1)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return self.agent.act(observation)


def _progress_bar(total: int, game_name: str, enabled: bool):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=f"{game_name} tournament", unit="game")


def _lineup_outcomes(lineup: LineUp, match: MatchResult) -> list[int]:
    """Per game of a line-up's match: +1 if A won, -1 if B won, 0 for a draw (by the shares of
    their seats among the winners). Game ``g`` seats line-up entry ``(seat + g) % n`` in each
    seat (play_match's rotation)."""
    n = len(lineup.pattern)
    outcomes = []
    for g, record in enumerate(match.games):
        marks = np.array([lineup.pattern[(seat + g) % n] for seat in range(n)])
        a_share = record.winners[marks == "A"].mean()
        b_share = record.winners[marks == "B"].mean()
        outcomes.append(int(np.sign(a_share - b_share)))
    return outcomes


def _pair_records(
    agents: list[str], lineups: list[LineUp], matches: list[MatchResult]
) -> list[PairRecord]:
    records = {
        (first, second): PairRecord(first, second)
        for first, second in itertools.combinations(agents, 2)
    }
    for lineup, match in zip(lineups, matches):
        record = records[(lineup.first, lineup.second)]
        for outcome in _lineup_outcomes(lineup, match):
            record.wins += int(outcome == 1)
            record.losses += int(outcome == -1)
            record.draws += int(outcome == 0)
    return list(records.values())


def _rate(agents: list[str], pairs: list[PairRecord], seed: int) -> dict[str, Rating]:
    """openskill ratings from every game, mu and sigma averaged over random orders of the games
    (see the module docstring)."""
    model = PlackettLuce(tau=0.0)
    results = _canonical_games(pairs)
    rng = np.random.default_rng(seed)
    sums = {agent: np.zeros(2) for agent in agents}
    for _ in range(RATING_ORDERS):
        current = _rated_in_order(model, agents, results, rng.permutation(len(results)))
        for agent in agents:
            sums[agent] += (current[agent].mu, current[agent].sigma)
    ratings = {}
    for agent in agents:
        played = [record for record in pairs if agent in (record.first, record.second)]
        games = sum(record.games for record in played)
        points = sum(record.score(agent) * record.games for record in played)
        ratings[agent] = Rating(
            agent,
            float(sums[agent][0] / RATING_ORDERS),
            float(sums[agent][1] / RATING_ORDERS),
            games,
            points / games,
            wilson_interval(points, games),
        )
    return ratings


def _rated_in_order(
    model: PlackettLuce,
    agents: list[str],
    games: list[tuple[str, str, tuple[int, int]]],
    order: np.ndarray,
) -> dict[str, Any]:
    """openskill's rating of each agent after one pass over ``games`` (as
    :func:`_canonical_games` lists them), rated one at a time in ``order``."""
    current = {agent: model.rating(name=agent) for agent in agents}
    for index in order:
        first, second, ranks = games[index]
        [[current[first]], [current[second]]] = model.rate(
            [[current[first]], [current[second]]], ranks=list(ranks)
        )
    return current


def _canonical_games(pairs: list[PairRecord]) -> list[tuple[str, str, tuple[int, int]]]:
    """Every game of ``pairs`` as (agent, agent, their ranks), the two agents in sorted order and
    the games sorted: one list for the same results, however the pairs were listed or sided."""
    games = []
    for record in pairs:
        first, second = sorted((record.first, record.second))
        wins, losses = (
            (record.wins, record.losses) if first == record.first else (record.losses, record.wins)
        )
        games += [(first, second, (0, 1))] * wins  # first ranked above second
        games += [(first, second, (1, 0))] * losses
        games += [(first, second, (0, 0))] * record.draws
    return sorted(games)
