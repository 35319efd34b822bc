"""Collecting the learner's experience: many games at once, in a worker process beside the learner.

A :class:`Sampler` holds ``num_games`` games of one game (one batch, or Tables: below). In each
game the learner sits in a random seat; every other seat is drawn from the opponent mix for the
episode (:class:`OpponentMix`: agent names with weights, and ``self`` for the pool of frozen
snapshots of the learner). Agents are built once per seat and reseeded for every episode. Each
step of a rollout advances every game to the learner's next decision, the opponents' policies
deciding for all their seats in one forward pass each, then the learner decides for all games in
one numpy forward pass of its policy and value networks. A rollout of ``n_steps`` steps comes back
with the generalised advantage estimates (GAE) of its rewards.

**Two paths, one behaviour.** Where the game has a kernel (``batch.has_batch``) and no agent of
the mix reads the engine's state, the games are one batch
(:class:`~cardzoo.vector.seated.SeatedGames`): the learner's action and every seat played in
the kernel (random, the kernel's heuristics) advance in compiled code, the other agents decide
from Python, policies for all their seats in one forward pass. Elsewhere (Foxy, search agents,
``SamplerConfig.tables``) each game is a :class:`~cardzoo.table.Table`. Both count steps,
rewards, truncation at the game's ``default_max_cycles``, new deals and results alike; they
draw from different random streams, so the same seed gives the same run on each path, not the
same run on both.

**Decision (the games keep in step):** every game waits for the slowest to reach its learner's
turn, so a step takes as many rounds of outside decisions as the longest chain among the games.
Letting each game go on at its own pace (the learner deciding in whichever games wait for it,
as EnvPool's asynchronous mode does) was tried on the default runs (32 to 64 games a process):
it cut the rounds by 40 to 70% but made the learner's forward passes about four times as many
and as small, and a rollout took 20 to 30% more CPU time in Nobody Wants It and Minus Two and
10 to 15% less in Believe It or Not. Not worth a second way of sampling.

A learner with a recurrent core (``state_size`` > 0) has a hidden state per game slot: zeros when
a game is dealt, advanced by each of its decisions; its value network reads the core's outputs.
Its rollout is laid out game by game (each slot's ``n_steps`` decisions one sequence, not step by
step as a feed-forward learner's) with the hidden state each sequence started from, so the
update can replay the sequences exactly as they were played.

:class:`SamplerWorker` runs a sampler in its own process and writes each rollout into shared
memory: while it plays rollout ``k + 1`` the learner updates on rollout ``k``, so both cores are
busy. **Decision (one rollout of policy lag):** rollout ``k + 1`` is therefore played by the
policy from before the update on rollout ``k``; PPO's ratio is taken against the policy that
played (its log-probabilities are stored), as asynchronous PPO variants do. The lag is fixed, not
timing-dependent: the same seed gives the same run.

Rewards, per learner decision (everything its seat earned until its next decision), are the
run's reward mode's (:class:`~cardzoo.training.settings.RewardMode`); the sampler keeps each
seat's score for the modes that pay its changes (``win+score``, in the direction the game counts
it, ``Game.score_direction``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from multiprocessing import shared_memory
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from cardzoo.agents import POLICY_LOADERS, Agent, check_agent_name, make_agent
from cardzoo.agents.policy import (
    NumpyPolicy,
    PolicyAgent,
    PolicyInput,
    cumulative,
    draw_index,
    stacked_inputs,
)
from cardzoo.envs import load_game
from cardzoo.envs.batch import OVER, RUNNING, has_batch
from cardzoo.envs.core import Game, State
from cardzoo.envs.helpers import spawn_game_rng
from cardzoo.errors import InputError, SettingError
from cardzoo.table import Table, Tables
from cardzoo.training.settings import RewardMode
from cardzoo.vector.seated import SeatedGames

SELF = "self"
#: how much lower the sampling workers' scheduling priority is than the learner's (``os.nice``,
#: where the system has it): see :func:`_work`
SAMPLER_NICENESS = 10
#: every sampler a training run builds plays its games on Tables (``SamplerConfig.tables``),
#: even where they could be played as one batch: the benchmarks' reference, measured in the
#: same run (``benchmarks/training_speed.py --paths``); read when a run builds its samplers
TABLES = False


# ----------------------------------------------------------------------------------------------
# The opponent mix
# ----------------------------------------------------------------------------------------------


def parse_mix(game_name: str, text: str | Sequence[str]) -> dict[str, float]:
    """``"nwi_dodger:0.5,self:0.3,random:0.2"`` -> {name: weight}, weights summing to 1. A name
    without a weight counts 1; ``self`` is the learner's snapshot pool; any agent name
    :func:`~cardzoo.agents.make_agent` takes may be used (``ppo:PATH:0.2`` for a saved policy
    with its weight). The one place that reads an opponent mix."""
    entries = [entry.strip() for entry in (text.split(",") if isinstance(text, str) else text)]
    mix: dict[str, float] = {}
    for entry in entries:
        name, weight_text = _split_weight(entry)
        kind, _, whole_path = entry.partition(":")
        if weight_text and kind in POLICY_LOADERS and _exists(whole_path):
            raise SettingError(
                "opponents",
                f"{entry!r} reads as {name} with weight {weight_text}, but {whole_path!r} "
                f"exists too: write {entry}:1 for the policy in {whole_path!r}, or "
                f"{name}/:{weight_text} for {name.partition(':')[2]!r} with weight {weight_text}",
            )
        if name != SELF:
            try:
                check_agent_name(game_name, name)
            except InputError as error:
                raise SettingError("opponents", f"{error}, or self") from None
        try:
            weight = float(weight_text) if weight_text else 1.0
        except ValueError:
            raise SettingError("opponents", f"weight of {name!r} must be a number") from None
        if not (weight > 0 and np.isfinite(weight)):
            raise SettingError(
                "opponents", f"weight of {name!r} must be positive, got {weight_text}"
            )
        mix[name] = mix.get(name, 0.0) + weight
    if not mix:
        raise SettingError("opponents", "name at least one agent")
    if not all(np.isfinite(weight) for weight in mix.values()):  # one name's weights added up
        raise SettingError("opponents", "the weights of one agent add up beyond a float's range")
    if not np.isfinite(sum(mix.values())):  # weights near a float's limit: scaled down first
        largest = max(mix.values())
        mix = {name: weight / largest for name, weight in mix.items()}
    total = sum(mix.values())
    return {name: weight / total for name, weight in mix.items()}


def _exists(path: str) -> bool:
    """Whether ``path`` names something on disk (a name too long for the system names
    nothing)."""
    try:
        return Path(path).exists()
    except OSError:
        return False


def _split_weight(entry: str) -> tuple[str, str]:
    """``"bluffer:0.3"`` -> ("bluffer", "0.3"); ``"ppo:runs/x"`` -> ("ppo:runs/x", ""): the text
    after the last colon is a weight when the name before it has no colon of its own, or when it
    reads as a number (``"ppo:runs/x:0.3"``)."""
    head, colon, tail = entry.rpartition(":")
    if not colon:
        return entry, ""
    if ":" not in head:
        kind_takes_path = head in POLICY_LOADERS and not _is_number(tail)
        return (entry, "") if kind_takes_path or "=" in tail else (head, tail)
    return (head, tail) if _is_number(tail) else (entry, "")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class OpponentMix:
    """Draws the agent of one seat for one episode. ``self`` draws a uniformly random policy of
    the pool (played by sampling from its action distribution, so the learner meets varied
    play); until the pool has a policy ``self`` is skipped. Agents are built once per (game
    slot, seat, name) and reseeded per episode; two seats never share an agent (a policy with a
    frame stack keeps one buffer per seat); saved policies are read from disk once."""

    def __init__(
        self,
        game_name: str,
        mix: dict[str, float],
        frame_stack: int = 1,
        stack_fields: tuple[str, ...] = (),
        count_fields: tuple[str, ...] = (),
    ):
        self.game_name = game_name
        self.mix = mix
        #: how the snapshots of the learner build their inputs (PolicyInput): as the learner
        self.inputs = (frame_stack, stack_fields, count_fields)
        self.pool: list[NumpyPolicy] = []
        self._agents: dict[tuple[int, int, str], Agent] = {}
        #: with a league (:mod:`cardzoo.training.league`): its members as (key, agent name or
        #: None, policy or None) and their draw probabilities; empty without one
        self.roster: list[tuple[str, str | None, NumpyPolicy | None]] = []
        self.weights = np.zeros(0)
        self._league_sums = np.zeros(0)
        #: the names ``draw`` chooses from, and their sums, without and with a pool
        self._choices: dict[bool, tuple[list[str], np.ndarray]] = {}
        for with_pool in (False, True):
            names = [name for name in mix if name != SELF or with_pool]
            if names:
                weights = np.array([mix[name] for name in names])
                self._choices[with_pool] = (names, cumulative(weights / weights.sum()))

    @property
    def league(self) -> bool:
        return bool(self.roster)

    def set_league(self, roster: list | None, weights: list[float]) -> None:
        """The league's members (None: unchanged) and their new draw probabilities."""
        if roster is not None:
            self.roster = [
                (key, name, None if state is None else NumpyPolicy(**state))
                for key, name, state in roster
            ]
        self.weights = np.asarray(weights, float)
        self._league_sums = cumulative(self.weights)

    def draw_table(
        self, game: Game, slot: int, seats: list[int], rng: np.random.Generator
    ) -> tuple[str, list[Agent]]:
        """With a league: one member, drawn by its weight, in every seat of ``seats``; returns
        its key and its agents (a frozen policy samples its actions, as ``self`` does)."""
        key, name, policy = self.roster[draw_index(rng, self._league_sums)]
        seed = int(rng.integers(2**31))
        agents = []
        for seat in seats:
            cache = (slot, seat, name or "policy")
            if cache not in self._agents:
                self._agents[cache] = (
                    make_agent(self.game_name, name, game, seed=seed)
                    if name
                    else PolicyAgent(game, policy, None, False, key, *self.inputs)
                )
            agent = self._agents[cache]
            if policy is not None:
                agent.policy, agent.name = policy, key
            agent.reseed(seed + seat)
            agents.append(agent)
        return key, agents

    def draw(self, game: Game, slot: int, seat: int, rng: np.random.Generator) -> Agent:
        names, sums = self._choices[bool(self.pool)]
        name = names[draw_index(rng, sums)]
        seed = int(rng.integers(2**31))
        key = (slot, seat, name)
        if name == SELF:
            policy = self.pool[rng.integers(len(self.pool))]
            if key not in self._agents:
                self._agents[key] = PolicyAgent(game, policy, None, False, SELF, *self.inputs)
            self._agents[key].policy = policy
        elif key not in self._agents:
            self._agents[key] = make_agent(self.game_name, name, game, seed=seed)
        agent = self._agents[key]
        agent.reseed(seed)
        return agent


# ----------------------------------------------------------------------------------------------
# The learner's seats
# ----------------------------------------------------------------------------------------------


class LearnerSeat(Agent):
    """The learner's seat in one game: its inputs (scaled, optionally stacked observations).
    All learner seats decide together in :meth:`Sampler.collect`, never through ``act``."""

    name = "learner"

    def __init__(
        self,
        game: Game,
        frame_stack: int,
        stack_fields: tuple[str, ...] = (),
        count_fields: tuple[str, ...] = (),
    ):
        super().__init__(game)
        self.inputs = PolicyInput(game, frame_stack, stack_fields, count_fields)

    def reset(self) -> None:
        self.inputs.reset()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        raise RuntimeError("the learner's seats decide together in Sampler.collect")


@dataclass
class Rollout:
    """One rollout, flattened over (step, game) (a recurrent learner's over (game, step): one
    sequence per game, with ``hidden``): the learner's inputs, legal actions, actions,
    their log-probabilities under the policy that played, the value estimates, advantages (GAE),
    returns, rewards and episode ends; and how many episodes finished and were won (and, with
    a league, each finished episode's opponent and whether the learner won)."""

    inputs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    logprobs: np.ndarray
    values: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray
    rewards: np.ndarray
    dones: np.ndarray
    #: a recurrent learner's hidden state at the start of each sequence (else None)
    hidden: np.ndarray | None = None
    episodes: int = 0
    wins: int = 0
    cpu_seconds: float = 0.0  # the sampling process's CPU time for this rollout
    results: list[tuple[str, bool]] = field(default_factory=list)  # (league member, won)

    @classmethod
    def join(cls, rollouts: list[Rollout]) -> Rollout:
        """The workers' rollouts as one (copied out of the shared buffers): each array
        concatenated (a recurrent learner's sequences stay whole, each worker's after the
        previous one's), the counts added up."""
        first = rollouts[0]
        joined: dict[str, Any] = {}
        for name in (f.name for f in fields(cls)):
            parts = [getattr(rollout, name) for rollout in rollouts]
            if isinstance(parts[0], np.ndarray):
                joined[name] = np.concatenate(parts)
            elif isinstance(parts[0], (int, float, list)):
                joined[name] = sum(parts, type(parts[0])())
            else:  # None: an array this rollout does not have
                joined[name] = getattr(first, name)
        return cls(**joined)


def rollout_shapes(
    num_samples: int,
    input_size: int,
    num_actions: int,
    num_sequences: int = 0,
    state_size: int = 0,
) -> dict[str, tuple]:
    """The arrays of a rollout of ``num_samples`` decisions: name -> (shape, dtype); with a
    recurrent learner's ``state_size``, the hidden state each of ``num_sequences`` started from."""
    shapes = {
        "inputs": ((num_samples, input_size), np.float32),
        "masks": ((num_samples, num_actions), np.bool_),
        "actions": ((num_samples,), np.int64),
        "logprobs": ((num_samples,), np.float32),
        "values": ((num_samples,), np.float32),
        "advantages": ((num_samples,), np.float32),
        "returns": ((num_samples,), np.float32),
        "rewards": ((num_samples,), np.float32),
        "dones": ((num_samples,), np.bool_),
    }
    if state_size:
        shapes["hidden"] = ((num_sequences, state_size), np.float32)
    return shapes


def _by_step(array: np.ndarray, n_steps: int, num_games: int, by_game: bool) -> np.ndarray:
    """A (step, game, ...) view of a rollout's array, laid out step by step, or game by game."""
    if by_game:
        return array.reshape(num_games, n_steps, *array.shape[1:]).swapaxes(0, 1)
    return array.reshape(n_steps, num_games, *array.shape[1:])


def masked_log_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Log-probabilities of the masked categorical distribution (−inf where illegal)."""
    logits = np.where(masks, logits, -np.inf)
    top = logits.max(axis=1, keepdims=True)
    return logits - top - np.log(np.exp(logits - top).sum(axis=1, keepdims=True))


@dataclass(frozen=True)
class SamplerConfig:
    """What a sampler plays: ``num_games`` games of ``game_name`` with ``params`` (with
    ``reward="points"`` where the reward mode uses points), the learner paid by ``reward`` and
    ``points_scale``, its inputs built from its last ``frame_stack`` observations (earlier ones
    cut to ``stack_fields`` where given) and the sums of ``count_fields`` over the game, its
    advantages by ``gamma`` and ``gae_lambda``, and with a recurrent core a hidden state of
    ``state_size`` numbers per game (0: feed-forward). ``seed`` fixes every deal, seat and
    opponent, and the learner's sampled actions."""

    game_name: str
    params: dict[str, Any]
    num_games: int
    reward: RewardMode
    points_scale: float
    frame_stack: int
    stack_fields: tuple[str, ...]
    gamma: float
    gae_lambda: float
    seed: int
    state_size: int = 0
    count_fields: tuple[str, ...] = ()
    #: play every game as a :class:`~cardzoo.table.Table` even where the games could be played
    #: as one batch (the benchmarks' reference, measured in the same run)
    tables: bool = False

    def game(self) -> Game:
        return load_game(self.game_name, **self.params)

    @property
    def inputs(self) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
        """How the learner's inputs are built (:class:`~cardzoo.agents.policy.PolicyInput`)."""
        return self.frame_stack, self.stack_fields, self.count_fields

    def input_size(self) -> int:
        """The numbers of the learner's inputs (its stacked, scaled observations)."""
        return PolicyInput(self.game(), *self.inputs).size


class Sampler:
    """``config.num_games`` games in which the learner plays one seat each, its opponents drawn
    from ``mix``; see the module docstring."""

    def __init__(self, config: SamplerConfig, mix: OpponentMix):
        self.config = config
        self.game = config.game()
        self.mix = mix
        self.reward = RewardMode(config.reward)
        self.rng = np.random.default_rng(config.seed)
        num_games = config.num_games
        self.learners = [LearnerSeat(self.game, *config.inputs) for _ in range(num_games)]
        self.input_size = self.learners[0].inputs.size
        #: a recurrent learner's hidden state in each game (None: feed-forward)
        self.hidden = (
            np.zeros((num_games, config.state_size), np.float32) if config.state_size else None
        )
        self.tables: list[Table] = [None] * num_games  # type: ignore[list-item]
        #: the games as one batch on the game's kernel (None: each a Table; see the module
        #: docstring)
        self.seated = SeatedGames(self.game, num_games) if self._batch_playable() else None
        self.seats = np.zeros(num_games, np.int64)
        self.opponents: list[str | None] = [None] * num_games  # league member of each game
        #: with a league, the games that ended during the last rollout: (member key, learner
        #: won, how many seats won)
        self.results: list[tuple[str, bool, int]] = []
        self.potentials = np.zeros(num_games)
        self._scores = np.zeros((num_games, self.game.num_players), np.int64)  # a batch's scratch
        self.credited = np.zeros(num_games)  # each learner's game rewards counted so far
        #: the episodes that ended during the last rollout: (game slot, learner seat, scores, won)
        self.finished: list[tuple[int, int, np.ndarray, bool]] = []
        if self.seated is not None:
            self.seated.seed(self.rng.integers(2**63, size=num_games))
        everyone = np.ones(num_games, bool)
        self._deal_all(everyone)
        if self.seated is None:
            self._advance()
        self.decision = self._decision_inputs()  # every game waits for the learner

    def _batch_playable(self) -> bool:
        """Whether the games can be played as one batch: the game has a kernel (a vector
        form), no agent of the mix reads the engine's state, and no run asked for Tables."""
        if self.config.tables or not has_batch(type(self.game)):
            return False
        return not any(
            make_agent(self.config.game_name, name, self.game).uses_state
            for name in self.mix.mix
            if name != SELF
        )

    # --- one rollout -------------------------------------------------------------------

    def collect(
        self,
        policy: NumpyPolicy,
        value: NumpyPolicy,
        n_steps: int,
        out: dict[str, np.ndarray],
        held: np.ndarray | None = None,
    ) -> tuple[int, int]:
        """Play ``n_steps`` learner decisions in every game with ``policy`` (sampling) and
        ``value``; write the rollout into ``out`` (arrays of :func:`rollout_shapes`). ``held``
        (bool, one per action): actions the learner may not choose now, unless nothing else is
        legal (the rollout's masks say what it could). Returns the episodes finished and how
        many of them the learner won."""
        num_games = len(self.tables)
        shape = (n_steps, num_games)
        rewards, dones = np.zeros(shape), np.zeros(shape, bool)
        values, logprobs = np.zeros(shape, np.float32), np.zeros(shape, np.float32)
        by_game = self.hidden is not None
        inputs = _by_step(out["inputs"], n_steps, num_games, by_game)
        masks = _by_step(out["masks"], n_steps, num_games, by_game)
        actions = _by_step(out["actions"], n_steps, num_games, by_game)
        if by_game:
            out["hidden"][:] = self.hidden
        episodes = wins = 0
        self.finished, self.results = [], []
        for step in range(n_steps):
            inputs[step], masks[step] = self.decision
            if held is not None:
                allowed = masks[step] & ~held
                masks[step] = np.where(allowed.any(axis=1, keepdims=True), allowed, masks[step])
            features, self.hidden = self._features(policy, inputs[step])
            logits = policy.logits(features)
            log_probabilities = masked_log_softmax(logits, masks[step])
            chosen = _sample(log_probabilities, self.rng)
            actions[step] = chosen
            logprobs[step] = log_probabilities[np.arange(num_games), chosen]
            values[step] = value.logits(features)[:, 0]
            if self.seated is None:
                for slot, table in enumerate(self.tables):
                    table.step(int(chosen[slot]))
                finished = self._advance(rewards[step])
            else:
                finished = self._advance_batch(chosen, rewards[step])
            self.decision = self._decision_inputs()
            for slot, won in finished:
                dones[step, slot] = True
                rewards[step, slot] += self.reward.final_reward(won)
                episodes += 1
                wins += int(won)
        next_values = value.logits(self._features(policy, self.decision[0])[0])[:, 0]
        advantages = _gae(
            rewards, values, dones, next_values, self.config.gamma, self.config.gae_lambda
        )
        for name, array in (
            *(("logprobs", logprobs), ("values", values), ("advantages", advantages)),
            *(("returns", advantages + values), ("rewards", rewards), ("dones", dones)),
        ):
            _by_step(out[name], n_steps, num_games, by_game)[:] = array
        return episodes, wins

    def _features(
        self, policy: NumpyPolicy, inputs: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """What the policy's and the value's MLPs read for these inputs of every game: the
        inputs, or a recurrent core's outputs; and the games' hidden states after them."""
        if self.hidden is None:
            return inputs, None
        return policy.core(inputs, self.hidden)

    def _decision_inputs(self) -> tuple[np.ndarray, np.ndarray]:
        """The learner's inputs and legal actions in every game (all wait for its decision);
        called once per decision, as it adds the observation to the seat's frame stack."""
        game = self.game
        if self.seated is not None:
            return self._batch_decision_inputs()
        rows, masks = [], []
        for slot, table in enumerate(self.tables):
            seat = int(self.seats[slot])
            rows.append(self.learners[slot].inputs(game.observe(table.state, seat)).copy())
            masks.append(game.legal_mask(table.state, seat).astype(bool))
        return np.stack(rows), np.stack(masks)

    def _advance(self, rewards: np.ndarray | None = None) -> list[tuple[int, bool]]:
        """Play every game to the learner's next decision; a game that ends is dealt again
        (and played to its learner's first decision). Adds each learner's rewards meanwhile to
        ``rewards``; returns the games that ended, with whether the learner won."""
        finished: list[tuple[int, bool]] = []
        pending = list(range(len(self.tables)))
        while pending:
            Tables([self.tables[slot] for slot in pending]).play([self.seats[s] for s in pending])
            redeal = []
            for slot in pending:
                table, seat = self.tables[slot], int(self.seats[slot])
                earned = table.rewards[seat] - self.credited[slot]
                self.credited[slot] = table.rewards[seat]
                if rewards is not None:
                    rewards[slot] += self._step_reward(slot, earned)
                if table.over:
                    winners = self._winners(table.state, table.state.terminal)
                    won = bool(winners[seat])
                    if rewards is not None:
                        finished.append((slot, won))
                        self.finished.append((slot, seat, self.game.scores(table.state), won))
                        if self.opponents[slot] is not None:
                            self.results.append((self.opponents[slot], won, int(winners.sum())))
                    self._deal(slot)
                    redeal.append(slot)
            pending, rewards = redeal, None  # a new deal's first moves belong to no decision
        return finished

    def _winners(self, state: State, over: bool) -> np.ndarray:
        """The winners of a game that ended (none if it was cut short: ``over`` false)."""
        if not over:
            return np.zeros(self.game.num_players, bool)
        return np.asarray(self.game.winners(state), bool)

    def _step_reward(self, slot: int, earned: float) -> float:
        change = 0.0
        if self.reward.shapes_score:
            table, seat = self.tables[slot], int(self.seats[slot])
            potential = self.game.score_direction * float(self.game.scores(table.state)[seat])
            change = potential - self.potentials[slot]
            self.potentials[slot] = potential
        return self.reward.step_reward(earned, change, self.config.points_scale)

    def _deal(self, slot: int) -> None:
        """A new episode in ``slot``: a deal, the learner's seat, the opponents (in a batch,
        the deal itself is :meth:`_deal_all`'s)."""
        game, rng = self.game, self.rng
        state = None if self.seated is not None else game.new_state(spawn_game_rng(rng))
        seat = int(rng.integers(game.num_players))
        others = [other for other in range(game.num_players) if other != seat]
        agents: list[Agent | None] = [None] * game.num_players
        if self.mix.league:
            self.opponents[slot], drawn = self.mix.draw_table(game, slot, others, rng)
        else:
            drawn = [self.mix.draw(game, slot, other, rng) for other in others]
        for other, agent in zip(others, drawn):
            agents[other] = agent
        self.learners[slot].reset()
        if self.hidden is not None:
            self.hidden[slot] = 0.0  # a new game: the learner remembers nothing
        self.seats[slot] = seat
        self.credited[slot] = 0.0
        if self.seated is not None:
            self.seated.sit(slot, seat, agents)
            return
        assert state is not None
        self.tables[slot] = Table(game, state, agents, game.default_max_cycles)
        self.potentials[slot] = game.score_direction * float(game.scores(state)[seat])

    # --- the games as one batch (SeatedGames) -------------------------------------------

    def _deal_all(self, slots: np.ndarray) -> None:
        """A new episode in every slot of ``slots`` (bool); in a batch, each played to its
        learner's first decision, dealt again while a game ends before it (as a Table's)."""
        while slots.any():
            for slot in np.flatnonzero(slots).tolist():
                self._deal(slot)
            if self.seated is None:
                return
            self.seated.start(slots)
            self.potentials[slots] = self._potentials()[slots]
            ends = np.zeros(len(slots), np.int64)
            # a new deal's first moves belong to no decision: what they earn is not paid
            self.seated.advance(slots, np.zeros((len(slots), self.game.num_players)), ends)
            slots = slots & (ends != RUNNING)

    def _potentials(self) -> np.ndarray:
        """Each learner's score now, in the direction the game counts it."""
        assert self.seated is not None
        scores = self.seated.batch.scores(self._scores)[np.arange(len(self.seats)), self.seats]
        return self.game.score_direction * scores.astype(float)  # floats, as the Tables path's

    def _advance_batch(self, chosen: np.ndarray, rewards: np.ndarray) -> list[tuple[int, bool]]:
        """:meth:`_advance` for a batch: every learner takes its ``chosen`` action, every game
        is played to its learner's next decision, the learners' rewards meanwhile are added to
        ``rewards``; a game that ends is dealt again. Returns the games that ended, with
        whether the learner won."""
        assert self.seated is not None
        game, seated = self.game, self.seated
        by_seat = np.zeros((len(chosen), game.num_players))
        ends = np.zeros(len(chosen), np.int64)
        seated.advance(np.ones(len(chosen), bool), by_seat, ends, chosen)
        earned = by_seat[np.arange(len(chosen)), self.seats]
        change = 0.0
        if self.reward.shapes_score:
            potentials = self._potentials()
            change, self.potentials = potentials - self.potentials, potentials
        rewards += self.reward.step_reward(earned, change, self.config.points_scale)
        ended = ends != RUNNING
        finished = []
        for slot in np.flatnonzero(ended).tolist():
            seat, state = int(self.seats[slot]), seated.state(slot)
            winners = self._winners(state, ends[slot] == OVER)
            won = bool(winners[seat])
            finished.append((slot, won))
            self.finished.append((slot, seat, np.array(game.scores(state)), won))
            if self.opponents[slot] is not None:
                self.results.append((self.opponents[slot], won, int(winners.sum())))
        self._deal_all(ended)
        return finished

    def _batch_decision_inputs(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_decision_inputs` for a batch: every learner's view in one call."""
        assert self.seated is not None
        count = len(self.seats)
        observations = np.zeros((count, self.game.observation_size), np.float32)
        masks = np.zeros((count, self.game.num_actions), np.int8)
        self.seated.batch.observe(self.seats, observations, masks)
        rows = stacked_inputs([learner.inputs for learner in self.learners], observations)
        return rows, masks.astype(bool)


def _sample(log_probabilities: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row from its distribution (inverse transform on one uniform per row)."""
    cumulative = np.cumsum(np.exp(log_probabilities), axis=1)
    draws = rng.random(len(cumulative))[:, None] * cumulative[:, -1:]
    return np.minimum((cumulative <= draws).sum(axis=1), cumulative.shape[1] - 1)


def _gae(
    rewards: np.ndarray,
    values: np.ndarray,
    dones: np.ndarray,
    next_values: np.ndarray,
    gamma: float,
    gae_lambda: float,
) -> np.ndarray:
    """Generalised advantage estimates over (step, game); a finished episode bootstraps
    nothing."""
    advantages = np.zeros_like(rewards)
    running = np.zeros(rewards.shape[1])
    for step in reversed(range(len(rewards))):
        following = next_values if step == len(rewards) - 1 else values[step + 1]
        alive = 1.0 - dones[step]
        delta = rewards[step] + gamma * following * alive - values[step]
        running = delta + gamma * gae_lambda * alive * running
        advantages[step] = running
    return advantages.astype(np.float32)


# ----------------------------------------------------------------------------------------------
# The worker process
# ----------------------------------------------------------------------------------------------


class SamplerWorker:
    """A :class:`Sampler` in a process of its own, writing rollouts into two shared-memory
    buffers in turn: :meth:`start` asks for a rollout with given weights, :meth:`wait` returns
    it. A worker that dies ends training with an error naming it; it never hangs."""

    def __init__(
        self,
        config: SamplerConfig,
        mix: dict[str, float],
        pool: list[dict[str, Any]] | None,
        n_steps: int,
        num_actions: int,
        league: tuple[list, list[float]] | None = None,
    ):
        """A worker playing ``config``'s games against ``mix`` (with ``self``, the policies
        of ``pool`` until the first rollout brings its own; with a ``league``, its roster and
        draw probabilities, against its members from the first game on), ``n_steps`` learner
        decisions a game per rollout."""
        self.n_steps = n_steps
        self.shapes = rollout_shapes(
            n_steps * config.num_games,
            config.input_size(),
            num_actions,
            config.num_games,
            config.state_size,
        )
        size = sum(
            int(np.prod(shape)) * np.dtype(dtype).itemsize for shape, dtype in self.shapes.values()
        )
        self.memory = [shared_memory.SharedMemory(create=True, size=size) for _ in range(2)]
        self.buffers = [_views(memory, self.shapes) for memory in self.memory]
        # fork where the system has it: a user's script needs no `if __name__ == "__main__"`
        # guard (spawn would import it again in the worker); the worker uses no torch.
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_work,
            args=(
                child,
                config,
                mix,
                pool,
                league,
                n_steps,
                [m.name for m in self.memory],
                self.shapes,
            ),  # fmt: skip
            daemon=True,
        )
        self.process.start()
        child.close()
        self._next = 0
        try:
            self._expect("ready")
        except BaseException:
            self.close()
            raise

    def start(
        self,
        policy: NumpyPolicy,
        value: NumpyPolicy,
        pool: list[NumpyPolicy] | None,
        league: tuple[list | None, list[float]] | None = None,
        held: np.ndarray | None = None,
    ) -> int:
        """Ask for the next rollout; returns the buffer it will be written to. ``pool``: the
        self-play snapshots when they changed (else None); ``league``: the league's roster when
        it changed (else None) and its members' draw probabilities; ``held``: the actions the
        learner may not choose (:meth:`Sampler.collect`)."""
        buffer = self._next
        self._next = 1 - self._next
        pool_states = None if pool is None else [p.state() for p in pool]
        try:
            self.connection.send(
                ("collect", buffer, policy.state(), value.state(), pool_states, league, held)
            )
        except OSError:  # a broken pipe: it died while the learner evaluated or updated
            self._died()
        return buffer

    def wait(self, buffer: int) -> Rollout:
        episodes, wins, cpu_seconds, results = self._expect("done")
        return Rollout(
            **self.buffers[buffer],
            episodes=episodes,
            wins=wins,
            cpu_seconds=cpu_seconds,
            results=results,
        )

    def _expect(self, what: str) -> Any:
        try:
            while not self.connection.poll(1.0):
                if not self.process.is_alive():
                    self._died()
            kind, payload = self.connection.recv()
        except (EOFError, OSError):
            self._died()
        if kind == "error":
            raise RuntimeError(f"the sampling worker failed:\n{payload}")
        if kind != what:
            raise RuntimeError(f"the sampling worker answered {kind!r}, expected {what!r}")
        return payload

    def _died(self) -> NoReturn:
        self.process.join(timeout=5)
        raise RuntimeError(
            f"the sampling worker (pid {self.process.pid}) died (exit code "
            f"{self.process.exitcode}); training stopped"
        )

    def close(self) -> None:
        if self.process.is_alive():
            with contextlib.suppress(BrokenPipeError, OSError):
                self.connection.send(("close",))
            self.process.join(timeout=5)
            if self.process.is_alive():
                self.process.kill()
                self.process.join()
        self.connection.close()
        self.buffers = []
        for memory in self.memory:
            memory.close()
            memory.unlink()
        self.memory = []


def _views(memory: shared_memory.SharedMemory, shapes: dict[str, tuple]) -> dict[str, np.ndarray]:
    views, offset = {}, 0
    for name, (shape, dtype) in shapes.items():
        views[name] = np.ndarray(shape, dtype, buffer=memory.buf, offset=offset)
        offset += int(np.prod(shape)) * np.dtype(dtype).itemsize
    return views


def _work(connection, config, mix_weights, pool, league, n_steps, memory_names, shapes) -> None:
    """The worker process: build the sampler, then serve rollouts until told to close."""
    from threadpoolctl import threadpool_limits

    # One BLAS thread: the forward passes are small, and a second thread spinning beside the
    # learner halved the learner's speed on 2 cores.
    threadpool_limits(1)
    # The learner first: it is the slower side on 2 cores, and three busy processes sharing
    # them gave it only 0.79 of a core (the samplers 0.41 each, waiting for it the rest).
    # Lower priority only yields to the learner (and to other work): idle cores still go to
    # the samplers, and the run is the same, as nothing in it depends on timing.
    if SAMPLER_NICENESS and hasattr(os, "nice"):
        os.nice(SAMPLER_NICENESS)
    memories = [shared_memory.SharedMemory(name=name) for name in memory_names]
    try:
        mix = OpponentMix(config.game_name, mix_weights, *config.inputs)
        mix.pool = [NumpyPolicy(**state) for state in pool or []]
        if league is not None:  # before the first deals: they meet its members too
            mix.set_league(*league)
        sampler = Sampler(config, mix)
        buffers = [_views(memory, shapes) for memory in memories]
        connection.send(("ready", None))
        while True:
            message = connection.recv()
            if message[0] == "close":
                return
            _, buffer, policy, value, pool, league, held = message
            if pool is not None:
                mix.pool = [NumpyPolicy(**state) for state in pool]
            if league is not None:
                mix.set_league(*league)
            started = time.process_time()
            episodes, wins = sampler.collect(NumpyPolicy(**policy), NumpyPolicy(**value), n_steps,
                                             buffers[buffer], held)  # fmt: skip
            cpu_seconds = time.process_time() - started
            connection.send(("done", (episodes, wins, cpu_seconds, sampler.results)))
    except (EOFError, KeyboardInterrupt):
        return
    except BaseException:
        connection.send(("error", traceback.format_exc()))
    finally:
        buffers = []
        for memory in memories:
            memory.close()
