"""Playing matches between agents, with honest statistics.

:func:`play_match` plays N games of one game between a lineup of agents (one per seat), rotating
the seats every game so that no agent keeps the first seat, optionally on mirrored deals: the
same deal is replayed once per rotation, which cancels most of the luck of the cards. It reports
per agent the win rate with a 95% Wilson interval, and the mean reward and mean score with 95%
normal intervals. :func:`simulate` studies a game under random play (lengths, seat advantage).

Games are played on the engine directly (no PettingZoo bookkeeping), exactly as the environment
would play them: deal ``k`` uses the generator that ``env.reset(seed=seed + k)`` uses, so any game
reported here can be replayed in the environment. Where the game has a kernel and every agent of
the line-up can sit at a batch of games, a match plays on one
(:class:`~cardzoo.vector.seated.SeatedGames`), the very games it plays on Tables (see
:func:`play_match`).
"""

from __future__ import annotations

__all__ = [
    "AgentRecord",
    "GameRecord",
    "MatchResult",
    "SimulationResult",
    "play_game",
    "play_match",
    "simulate",
]

import contextlib
import dataclasses
import math
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from cardzoo import __version__
from cardzoo.agents import Agent, AgentSpec, agent_label, build_agent
from cardzoo.agents.registry import check_fits
from cardzoo.envs import game_spec, load_game
from cardzoo.envs.batch import TRUNCATED, has_batch
from cardzoo.envs.core import Game
from cardzoo.envs.helpers import check_bool, check_int, check_max_cycles, game_rng_from_seed
from cardzoo.errors import InputError
from cardzoo.io import to_json_value
from cardzoo.stats import mean_interval, wilson_interval
from cardzoo.table import Table, Tables
from cardzoo.vector.seated import SeatedGames, kernel_policy

# ----------------------------------------------------------------------------------------------
# One game
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass(eq=False)
class GameRecord:
    """The outcome of one game, per seat. Two records are equal when every field is, the
    per-seat arrays number for number and of the same dtype."""

    seed: int
    rewards: np.ndarray  # summed over the game
    scores: np.ndarray
    winners: np.ndarray  # bool; all False when truncated
    length: int  # agent steps
    truncated: bool

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameRecord):
            return NotImplemented
        same = (self.seed, self.length, self.truncated) == (
            other.seed,
            other.length,
            other.truncated,
        )
        return same and all(
            getattr(self, name).dtype == getattr(other, name).dtype
            and np.array_equal(getattr(self, name), getattr(other, name))
            for name in _SEAT_ARRAYS
        )


def play_game(
    game: Game, agents: Sequence[Agent], seed: int, max_cycles: int | None = None
) -> GameRecord:
    """Play one game with ``agents[i]`` in seat i on the deal ``env.reset(seed=seed)`` makes.
    ``agents``: one :class:`~cardzoo.agents.Agent` per seat, each built for ``game``
    (:func:`~cardzoo.agents.make_agent` builds one from a name); anything else raises
    :class:`~cardzoo.errors.InputError` before the game starts."""
    if not isinstance(game, Game):
        raise InputError(
            f"play_game: game must be a cardzoo Game, got {game!r:.80} (cardzoo.envs.load_game "
            "makes one from a name)"
        )
    seed = check_int("seed", seed, 0)
    max_cycles = _check_max_cycles(game, max_cycles)
    if len(agents) != game.num_players:
        raise InputError(
            f"play_game: {game.name} has {game.num_players} seats; got {len(agents)} agents"
        )
    for seat, agent in enumerate(agents):
        if not isinstance(agent, Agent):
            raise InputError(
                f"play_game: agents[{seat}] is {agent!r:.80}, not a cardzoo Agent "
                "(cardzoo.agents.make_agent builds one from a name)"
            )
        check_fits(agent, game, f"play_game: agents[{seat}]")
    for agent in agents:
        agent.reset()
    table = Table(game, game.new_state(game_rng_from_seed(seed)), agents, max_cycles)
    table.play()
    return game_record(table, seed)


def game_record(table: Table, seed: int) -> GameRecord:
    """The outcome of the finished game on ``table``, dealt from ``seed``."""
    game, state, truncated = table.game, table.state, table.truncated
    winners = np.zeros(game.num_players, bool) if truncated else game.winners(state)
    return GameRecord(seed, table.rewards, game.scores(state), winners, table.steps, truncated)


def agent_seed(seed: int, game_index: int, entry: int, named: int | None = None) -> int:
    """The seed of line-up entry ``entry``'s agent in game ``game_index`` of a match (``named``:
    a seed given in the agent's name, :attr:`~cardzoo.agents.Agent.named_seed`, mixed in after
    a 1 that marks it: numpy's SeedSequence drops trailing zeros, so ``seed=0`` had played the
    games of the agent without a seed)."""
    key = (seed, game_index, entry) if named is None else (seed, game_index, entry, 1, named)
    return int(np.random.SeedSequence(key).generate_state(1)[0])


# ----------------------------------------------------------------------------------------------
# Matches
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class AgentRecord:
    """Everything one agent (a lineup name, pooled over its seats) did in a match.

    An agent in several seats of the same game (three random players, say) has correlated
    results within that game, so its intervals are computed over games, from its per-game
    averages (normal approximation; for a win rate of 0 or 1 in every game, Wilson's interval
    over the games, since the normal one would have no width); an agent in one seat per
    game gets the Wilson interval of its wins. A mean reward or score whose values were all equal
    has an interval of no width: the games showed no spread, which is not to say there is none."""

    name: str
    seats_per_game: int = 1
    wins: int = 0
    seat_games: int = 0
    rewards: list[float] = dataclasses.field(default_factory=list)
    scores: list[float] = dataclasses.field(default_factory=list)
    win_shares: list[float] = dataclasses.field(default_factory=list)  # per game

    @property
    def win_rate(self) -> float:
        return self.wins / self.seat_games if self.seat_games else math.nan

    def add_game(self, wins: list[bool], rewards: list[float], scores: list[float]) -> None:
        """The results of this agent's seats in one game."""
        self.seat_games += len(wins)
        self.wins += sum(wins)
        self.win_shares.append(sum(wins) / len(wins))
        self.rewards.append(float(np.mean(rewards)))
        self.scores.append(float(np.mean(scores)))

    def summary(self) -> dict:
        if self.seats_per_game == 1:
            low, high = wilson_interval(self.wins, self.seat_games)
        elif set(self.win_shares) in ({0.0}, {1.0}):
            # It never won, or won with every seat, in every game: the normal interval would
            # have no width. A share lies in 0..1, whose variance is at most p(1 - p): Wilson's
            # interval over the games is the honest one. (A share the rules fix, one winner of
            # two seats it holds both of, keeps its exact interval.)
            low, high = wilson_interval(sum(self.win_shares), len(self.win_shares))
        else:
            _, low, high = mean_interval(self.win_shares)
            low, high = max(0.0, low), min(1.0, high)
        reward, reward_low, reward_high = mean_interval(self.rewards)
        score, score_low, score_high = mean_interval(self.scores)
        return {
            "agent": self.name,
            "seats_per_game": self.seats_per_game,
            "seat_games": self.seat_games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_rate_ci": [low, high],
            "mean_reward": reward,
            "mean_reward_ci": [reward_low, reward_high],
            "mean_score": score,
            "mean_score_ci": [score_low, score_high],
        }


@dataclasses.dataclass
class MatchResult:
    game: str
    params: dict
    lineup: list[str]
    games: list[GameRecord]
    agents: dict[str, AgentRecord]
    mirrored: bool
    #: with ``mirrored``: the rotations each deal was replayed under (None: every one)
    rotations: int | None = None
    #: the first deal and the step limit the match was played with (None in records written
    #: before they were kept)
    seed: int | None = None
    max_cycles: int | None = None

    @property
    def truncated(self) -> int:
        return sum(record.truncated for record in self.games)

    def summary(self) -> dict:
        """The match's results as JSON-ready data (``cardzoo match --out`` writes it), with the
        game's versioned name (``env``) and the cardzoo that played it: results are comparable
        within one version of a game."""
        return {
            "game": self.game,
            "env": game_spec(self.game).versioned_name,
            "cardzoo": __version__,
            "params": self.params,
            "lineup": self.lineup,
            "num_games": len(self.games),
            "seed": self.seed,
            "max_cycles": self.max_cycles,
            "mirrored": self.mirrored,
            "truncated": self.truncated,
            "agents": [record.summary() for record in self.agents.values()],
        }

    def to_json(self) -> dict:
        """Everything the match recorded (every game, every agent's record) as JSON-ready data,
        which :meth:`from_json` reads back exactly: the per-seat arrays keep their dtypes, so
        the result compares equal to this one. (:meth:`summary` is the report; this is the
        record.)"""
        return {
            "game": self.game,
            "params": self.params,
            "lineup": self.lineup,
            "mirrored": self.mirrored,
            "rotations": self.rotations,
            "seed": self.seed,
            "max_cycles": self.max_cycles,
            "dtypes": {
                name: str(getattr(self.games[0], name).dtype) if self.games else None
                for name in _SEAT_ARRAYS
            },
            "games": [
                {name: to_json_value(value) for name, value in vars(record).items()}
                for record in self.games
            ],
            "agents": [dataclasses.asdict(record) for record in self.agents.values()],
        }

    @classmethod
    def from_json(cls, data: dict) -> MatchResult:
        """The match :meth:`to_json` wrote. Data of another shape (a damaged or foreign file)
        is an :class:`~cardzoo.errors.InputError` saying what is wrong."""
        try:
            lineup = [str(label) for label in _json_list(data, "lineup")]
            dtypes = {name: np.dtype(data["dtypes"][name]) for name in _SEAT_ARRAYS}
            games = []
            for item in _json_list(data, "games"):
                arrays = {name: np.array(item[name], dtypes[name]) for name in _SEAT_ARRAYS}
                if any(array.shape != (len(lineup),) for array in arrays.values()):
                    raise InputError(f"a game has not one number per seat of {len(lineup)}")
                games.append(
                    GameRecord(
                        seed=_json_int(item, "seed"),
                        length=_json_int(item, "length"),
                        truncated=_json_bool(item, "truncated"),
                        **arrays,
                    )
                )
            agents = [AgentRecord(**fields) for fields in _json_list(data, "agents")]
            if not isinstance(data["params"], dict) or not isinstance(data["game"], str):
                raise InputError("its game is not a name with a dict of parameters")
            return cls(
                data["game"],
                data["params"],
                lineup,
                games,
                {record.name: record for record in agents},
                _json_bool(data, "mirrored"),
                _json_count(data, "rotations", 1),
                _json_count(data, "seed", 0),
                _json_count(data, "max_cycles", 1),
            )
        except InputError:
            raise
        except (KeyError, TypeError, ValueError) as error:
            raise InputError(f"not a match record ({type(error).__name__}: {error})") from None

    def table(self) -> str:
        """The result as a plain-text table (95% intervals in brackets)."""
        head = (
            f"{self.game} {self.params}, {len(self.games)} games"
            f"{' on mirrored deals' if self.mirrored else ''}{self._partial_deal()}, seats "
            f"rotated; truncated: {self.truncated}"
        )
        width = max(22, 2 + max(len(name) for name in self.agents))  # names never touch
        rows = [head, f"{'agent':<{width}}{'seat-games':>11}  {'win rate [95% CI]':<24}"]
        rows[-1] += f"{'mean reward [95% CI]':<28}{'mean score [95% CI]':<28}"
        for record in self.agents.values():
            s = record.summary()
            rows.append(
                f"{s['agent']:<{width}}{s['seat_games']:>11}  "
                f"{s['win_rate']:.3f} [{s['win_rate_ci'][0]:.3f}, {s['win_rate_ci'][1]:.3f}]".ljust(
                    width + 11 + 2 + 24
                )
                + f"{_fmt(s['mean_reward'], s['mean_reward_ci']):<27} "  # a space even when
                + f"{_fmt(s['mean_score'], s['mean_score_ci']):<27} "  # a figure is wider
            )
        if any(record.seats_per_game > 1 for record in self.agents.values()):
            rows.append(
                "(an agent in several seats of a game: intervals over games, from its per-game "
                "averages)"
            )
        return "\n".join(rows)

    def _partial_deal(self) -> str:
        """Where the games end inside a deal's rotations, the table's head says so."""
        per_deal = games_per_deal(len(self.lineup), self.mirrored, self.rotations)
        played = len(self.games) % per_deal
        if not played:
            return ""
        return f" (the last deal in {played} of its {per_deal} seatings)"


def _json_count(data: dict, key: str, low: int) -> int | None:
    """A match record's optional integer ``key`` (>= ``low``; absent in records written before
    it was kept, or null: None)."""
    value = data.get(key)
    if value is not None and (type(value) is not int or value < low):
        raise InputError(f"its {key} is {value!r:.40}, not an integer >= {low}")
    return value


#: the fields of a GameRecord that hold one number per seat
_SEAT_ARRAYS = ("rewards", "scores", "winners")


def _json_list(data: dict, key: str) -> list:
    if not isinstance(data[key], list):
        raise InputError(f"{key} is not a list")
    return data[key]


def _json_int(data: dict, key: str) -> int:
    if isinstance(data[key], bool) or not isinstance(data[key], int):
        raise InputError(f"{key} is not an integer: {data[key]!r}")
    return data[key]


def _json_bool(data: dict, key: str) -> bool:
    if not isinstance(data[key], bool):
        raise InputError(f"{key} is not true or false: {data[key]!r}")
    return data[key]


def _fmt(mean: float, interval: list[float]) -> str:
    """A mean and its interval; one game shows no spread, so no interval (n/a, not "+nan")."""
    if any(math.isnan(bound) for bound in interval):
        return f"{mean:+.3f} [n/a]"
    return f"{mean:+.3f} [{interval[0]:+.3f}, {interval[1]:+.3f}]"


#: a factory ``f(game, seed) -> Agent``: a line-up entry that is not a registry name
AgentFactory = Callable[[Game, int], Agent]


def _check_max_cycles(game: Game, max_cycles: int | None) -> int:
    """The game's own limit for None, else an int >= 1 (as the environment requires)."""
    return check_max_cycles(max_cycles, game.default_max_cycles)


def _check_lineup(lineup: Sequence[AgentSpec]) -> list[AgentSpec]:
    """A lineup is a sequence of agents: registry names or factories. Decision: a single string
    is refused rather than read as one agent, since ``"random"`` for ``["random"]`` and
    ``"random,random"`` for two agents are both plausible readings."""
    if isinstance(lineup, (str, bytes)) or not isinstance(lineup, Sequence):
        raise InputError(
            f"lineup must be a list of agents (names or factories), one per seat, got "
            f"{lineup!r}; e.g. ['random', 'random']"
        )
    if not lineup:
        raise InputError("lineup is empty; give one agent per seat")
    for entry in lineup:
        if isinstance(entry, Agent):  # callable (it acts), but one agent for every game
            raise InputError(
                f"lineup entry {entry!r:.80} is an agent, not a name or a factory: a match "
                "builds and seeds its own agents for every game; give its name, or a factory "
                "f(game, seed) -> Agent that makes a new one"
            )
        if not (isinstance(entry, str) or callable(entry)):
            raise InputError(
                f"lineup entry {entry!r} is neither an agent name nor a factory f(game, seed)"
            )
    return list(lineup)


def _check_params(params: dict | None) -> dict:
    """The game's parameters; environment settings are refused by name, not ignored."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise InputError(f"params must be a dict of game parameters, got {params!r}")
    for key in ("max_cycles", "render_mode"):
        if key in params:
            own = "pass max_cycles= itself" if key == "max_cycles" else "games here are not drawn"
            raise InputError(f"params: {key} is not a game parameter ({own})")
    return dict(params)


def check_match(
    game_name: str,
    lineup: Sequence[AgentSpec],
    num_games: int,
    seed: int,
    params: dict | None,
    max_cycles: int | None,
) -> tuple[Game, list[AgentSpec], int, int, int]:
    """A match's arguments checked before its first game (``ValueError`` naming the one that
    is wrong): the game, the line-up, the number of games, the seed and ``max_cycles``."""
    lineup = _check_lineup(lineup)
    num_games = check_int("num_games", num_games, 1)
    seed = check_int("seed", seed, 0)
    params = _check_params(params)
    params.setdefault("num_players", len(lineup))
    game = load_game(game_name, **params)
    max_cycles = _check_max_cycles(game, max_cycles)
    if len(lineup) != game.num_players:
        raise InputError(f"lineup has {len(lineup)} agents for {game.num_players} seats")
    return game, lineup, num_games, seed, max_cycles


def play_match(
    game_name: str,
    lineup: Sequence[AgentSpec],
    num_games: int,
    seed: int = 0,
    params: dict | None = None,
    mirrored: bool = True,
    max_cycles: int | None = None,
    progress: bool = False,
    parallel: int = 64,
    tables: bool = False,
    rotations: int | None = None,
) -> MatchResult:
    """Play ``num_games`` games between the agents of ``lineup``, one per seat.

    ``lineup`` holds agent registry names (see :func:`cardzoo.agents.agent_classes`) or factories
    ``f(game, seed) -> Agent``; ``len(lineup)`` is the player count (a different
    ``num_players`` in ``params`` is refused with a ``ValueError``). Game ``g`` seats lineup
    entry ``(seat + g) % n`` in each seat. With ``mirrored`` deal ``g // n`` is replayed under
    every rotation; otherwise every game has a deal of its own. Deals use seeds
    ``seed, seed + 1, ...`` exactly as ``env.reset(seed=...)`` does. ``rotations`` (with
    ``mirrored``): a line-up that repeats itself when turned by that many seats (a tournament's
    A B A B: 2) replays each deal under that many rotations only, its distinct seatings (the
    others would replay the same games); it must divide the player count, and the line-up must
    repeat with it.

    Up to ``parallel`` games are played side by side (:class:`~cardzoo.table.Tables`), so that a
    policy decides for all the seats it plays in one forward pass. Decision: the agents of game
    ``g`` are reseeded from ``(seed, g, lineup entry)`` (:func:`agent_seed`) at its start, so a
    game is the same whether it is played alone, first, or beside others (``parallel=1`` plays
    the same games one at a time); a factory must return a new agent at every call. A seed in
    an agent's name (``pimc:simulations=100:seed=3``) is mixed into its seed for every game:
    the same name plays the same games, another seed other ones.

    **Decision (batch or Tables):** where the game has a kernel (Nobody Wants It, Believe It or
    Not, Minus Two) and every agent of the line-up is one a batch plays exactly as a Table does
    (the uniformly random agent, the heuristics written in the game's kernel, agents that decide
    in batches such as policies), the games of ``parallel`` slots are
    one batch (:class:`~cardzoo.vector.seated.SeatedGames`): the heuristics play in compiled
    code, drawing from copies of their agents' generators; random seats and policies decide from
    Python, with their own generators. Every other line-up (a search agent, an agent of another
    kind, Foxy, Henhouse), or ``tables=True``, plays each game on a
    :class:`~cardzoo.table.Table`. Both paths give the same result, game for game (the tests
    hold them equal, compiled and plain): only the speed differs.

    Every argument is checked before the first game: ``num_games`` an int >= 1, ``seed`` an
    int >= 0, ``max_cycles`` None (the game's limit) or an int >= 1, ``parallel`` an int >= 1,
    ``mirrored``, ``tables`` and ``progress`` True or False; anything else is a ``ValueError``
    naming the argument. Decision: the result's ``params`` are
    the game's full parameters (defaults included), so a saved summary says exactly what was
    played.
    """
    game, lineup, num_games, seed, max_cycles = check_match(
        game_name, lineup, num_games, seed, params, max_cycles
    )
    n = game.num_players
    labels = [agent_label(entry) for entry in lineup]
    mirrored, tables = check_bool("mirrored", mirrored), check_bool("tables", tables)
    progress = check_bool("progress", progress)
    rotations = _check_rotations(rotations, labels, mirrored)
    slots = min(check_int("parallel", parallel, 1), num_games)
    # Agents are built once per game slot and reseeded for every game from (seed, game, entry):
    # each game is the same whether the match plays it alone or beside others.
    pools = [
        [build_agent(game_name, entry, game, seed * 7919 + i) for i, entry in enumerate(lineup)]
        for _ in range(slots)
    ]
    built = [agent for pool in pools for agent in pool]
    if len({id(agent) for agent in built}) < len(built):  # one object in two seats or slots
        raise InputError(
            "play_match: a factory returned an agent it had returned before; it must return a "
            "new agent at every call (an agent keeps the memory of the one game it plays: a "
            "recurrent policy's hidden state, a frame stack, counts)"
        )
    records = {label: AgentRecord(label, labels.count(label)) for label in dict.fromkeys(labels)}
    games = []
    # A batch deals from 64-bit seeds: a match whose deals reach past them plays on Tables,
    # which take any seed (the same games, more slowly).
    on_batch = not tables and seed + num_games < 2**63
    seated = _batch_for(game, pools[0], slots, max_cycles) if on_batch else None
    with _progress_bar(num_games, f"{game_name} match", progress) as advance:
        for first in range(0, num_games, slots):
            seatings = []
            for slot, g in enumerate(range(first, min(first + slots, num_games))):
                deal, seat_entries = match_seating(seed, g, n, mirrored, rotations)
                agents = [pools[slot][entry] for entry in seat_entries]
                for agent, entry in zip(agents, seat_entries):
                    agent.reseed(agent_seed(seed, g, entry, agent.named_seed))
                seatings.append((deal, seat_entries, agents))
            played = (
                _play_on_tables(game, seatings, max_cycles)
                if seated is None
                else _play_on_batch(seated, seatings)
            )
            for record, (_, seat_entries, _) in zip(played, seatings):
                games.append(record)
                for label, stats in records.items():
                    seats = [s for s, entry in enumerate(seat_entries) if labels[entry] == label]
                    stats.add_game(
                        [bool(record.winners[seat]) for seat in seats],
                        [float(record.rewards[seat]) for seat in seats],
                        [float(record.scores[seat]) for seat in seats],
                    )
                advance()
    return MatchResult(
        game_name, game.params(), labels, games, records, mirrored, rotations, seed, max_cycles
    )


def _check_rotations(rotations: int | None, labels: list[str], mirrored: bool) -> int | None:
    """``rotations`` checked (see :func:`play_match`): None, or with ``mirrored`` a divisor of
    the player count under which the line-up's labels repeat."""
    if rotations is None:
        return None
    n = len(labels)
    rotations = check_int("rotations", rotations, 1, n)
    if not mirrored or n % rotations or labels != labels[rotations:] + labels[:rotations]:
        raise InputError(
            f"rotations={rotations}: only mirrored deals of a line-up that repeats itself when "
            f"turned by {rotations} seats (and {rotations} dividing {n}) take it; got "
            f"{labels}{'' if mirrored else ' not mirrored'}"
        )
    return None if rotations == n else rotations


def _batch_for(
    game: Game, agents: Sequence[Agent], slots: int, max_cycles: int
) -> SeatedGames | None:
    """The batch of ``slots`` games on which a match of ``game`` between ``agents`` plays, or
    None for Tables (see :func:`play_match`): the game has a kernel, and each agent is the
    uniformly random agent, a heuristic its kernel plays, or an agent that decides in batches
    (``batch_key`` and ``act_batch``: policies), none reading the engine's state. Decision:
    other agents stay on Tables, though a batch could call them from Python: what they do with
    an observation taken from a batch is not held to a Table's by any test."""
    if not has_batch(type(game)) or any(agent.uses_state for agent in agents):
        return None
    seated = SeatedGames(game, slots, max_cycles=max_cycles, random_in_kernel=False)
    batched = [
        kernel_policy(seated.batch, agent) is not None
        or getattr(agent, "batch_key", None) is not None
        for agent in agents
    ]
    return seated if all(batched) else None


def _play_on_tables(game: Game, seatings: list, max_cycles: int) -> list[GameRecord]:
    """The games of ``seatings`` (deal, line-up entry per seat, agents per seat), played side by
    side on Tables."""
    tables = [
        Table(game, game.new_state(game_rng_from_seed(deal)), agents, max_cycles)
        for deal, _, agents in seatings
    ]
    Tables(tables).play()
    return [game_record(table, deal) for table, (deal, _, _) in zip(tables, seatings)]


def _play_on_batch(seated: SeatedGames, seatings: list) -> list[GameRecord]:
    """The games of ``seatings`` played to their ends in the first slots of ``seated``, with no
    stop seat: the records a Table gives for them."""
    game, count = seated.game, len(seatings)
    n = game.num_players
    deals = np.zeros(seated.num_games, np.int64)
    deals[:count] = [deal for deal, _, _ in seatings]
    seated.seed(deals)  # before sit: it loads the heuristics' generators over the seeded ones
    for slot, (_, _, agents) in enumerate(seatings):
        seated.sit(slot, n, agents)
    active = np.arange(seated.num_games) < count
    earned, ends = np.zeros((seated.num_games, n)), np.zeros(seated.num_games, np.int64)
    seated.start(active)
    seated.advance(active, earned, ends)
    records = []
    steps = seated.batch.step_counts(np.zeros(seated.num_games, np.int64))
    for slot, (deal, _, _) in enumerate(seatings):
        state, truncated = seated.state(slot), bool(ends[slot] == TRUNCATED)
        winners = np.zeros(n, bool) if truncated else np.array(game.winners(state))
        scores = np.array(game.scores(state))
        records.append(
            GameRecord(deal, earned[slot].copy(), scores, winners, int(steps[slot]), truncated)
        )
    return records


def games_per_deal(num_players: int, mirrored: bool, rotations: int | None = None) -> int:
    """How many games of a match play each deal: one per rotation played (``rotations``, or
    every one) on mirrored deals, else one."""
    return (rotations or num_players) if mirrored else 1


def match_seating(
    seed: int, game_index: int, num_players: int, mirrored: bool, rotations: int | None = None
) -> tuple:
    """Game ``game_index`` of a match: the seed of its deal and the line-up entry in each seat
    (rotated one seat per game; with ``mirrored`` a deal is replayed under ``rotations``
    consecutive rotations, every one by default)."""
    deal = seed + game_index // games_per_deal(num_players, mirrored, rotations)
    return deal, [(seat + game_index) % num_players for seat in range(num_players)]


@contextlib.contextmanager
def _progress_bar(total: int, description: str, enabled: bool) -> Iterator[Callable[[], None]]:
    """Yields the function that counts one game: a tqdm bar's, or one that does nothing. The bar
    is closed even on Ctrl-C, so it is not drawn again after the command's last message."""
    if not enabled:
        yield lambda: None
        return
    from tqdm import tqdm

    with tqdm(total=total, desc=description, unit="game") as bar:
        yield bar.update


# ----------------------------------------------------------------------------------------------
# Simulation study under random play
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class SimulationResult:
    game: str
    params: dict
    lengths: np.ndarray
    truncated: np.ndarray
    seat_wins: np.ndarray  # (games, seats) bool
    seeds: np.ndarray

    def table(self) -> str:
        games = len(self.lengths)
        mean, low, high = mean_interval(self.lengths)
        finished = self.lengths[~self.truncated]
        lines = [
            f"{self.game} {self.params}: {games} games of random play",
            f"game length (agent steps): mean {mean:.1f} [95% CI {low:.1f}, {high:.1f}]",
        ]
        if finished.size:
            q = np.percentile(finished, [0, 10, 50, 90, 99, 100]).round(1)
            lines.append(
                f"  finished games: min {q[0]}, p10 {q[1]}, median {q[2]}, p90 {q[3]}, "
                f"p99 {q[4]}, max {q[5]}"
            )
        share_low, share_high = wilson_interval(int(self.truncated.sum()), games)
        lines.append(
            f"truncated (max_cycles reached): {int(self.truncated.sum())} of {games} = "
            f"{self.truncated.mean():.3%} [95% CI {share_low:.3%}, {share_high:.3%}]"
        )
        lines.append("win rate by seat [95% Wilson CI]:")
        for seat in range(self.seat_wins.shape[1]):
            wins = int(self.seat_wins[:, seat].sum())
            low, high = wilson_interval(wins, games)
            lines.append(f"  player_{seat}: {wins / games:.3f} [{low:.3f}, {high:.3f}]")
        longest = int(np.argmax(self.lengths))
        lines.append(
            f"longest game: seed {int(self.seeds[longest])}, {int(self.lengths[longest])} steps"
            f"{' (truncated)' if self.truncated[longest] else ''}"
        )
        return "\n".join(lines)


def simulate(
    game_name: str,
    num_games: int,
    seed: int = 0,
    params: dict | None = None,
    max_cycles: int | None = None,
    progress: bool = False,
) -> SimulationResult:
    """Play ``num_games`` games with uniformly random agents in every seat (seeds ``seed`` ...).

    Arguments are checked up front as in :func:`play_match`. Decision: ``num_games=0`` is a
    ``ValueError`` (a study of no games has no lengths or win rates to report)."""
    num_games = check_int("num_games", num_games, 1)
    seed = check_int("seed", seed, 0)
    params = _check_params(params)
    game = load_game(game_name, **params)
    max_cycles = _check_max_cycles(game, max_cycles)
    agents = [
        build_agent(game_name, "random", game, seed * 7919 + i) for i in range(game.num_players)
    ]
    records = []
    with _progress_bar(num_games, f"{game_name} simulation", progress) as advance:
        for g in range(num_games):
            records.append(play_game(game, agents, seed + g, max_cycles))
            advance()
    return SimulationResult(
        game_name,
        game.params(),
        np.array([r.length for r in records]),
        np.array([r.truncated for r in records]),
        np.array([r.winners for r in records]),
        np.array([r.seed for r in records]),
    )
