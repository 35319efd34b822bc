"""The trainer's sampler on the games' kernels: its games as one batch (cardzoo.vector.seated),
the kernel's heuristics played as their agents play, the same seed giving the same rollouts,
compiled and plain kernels giving the same, and the games that stay on Tables."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

from cardzoo.agents import Agent, agent_classes
from cardzoo.agents.kernel_heuristic import KernelHeuristic
from cardzoo.agents.policy import NumpyPolicy
from cardzoo.envs import load_game
from cardzoo.envs.batch import RUNNING
from cardzoo.training import sampler as sampler_module
from cardzoo.training.config import TrainConfig
from cardzoo.training.sampler import OpponentMix, Sampler, parse_mix, rollout_shapes
from cardzoo.vector.seated import SeatedGames, kernel_policy

BATCH_GAMES = ["nobody_wants_it", "believe_it_or_not", "minus_two"]


class InPython(Agent):
    """An agent played from Python: the kernel knows no code for it."""

    def __init__(self, inner: Agent):
        super().__init__(inner.game)
        self.inner = inner

    def act(self, observation):
        return self.inner.act(observation)


def kernel_heuristics() -> list[tuple[str, type]]:
    """(game, heuristic class) for every heuristic a batch game's kernel plays."""
    found = []
    for name in BATCH_GAMES:
        probe = SeatedGames(load_game(name), 1)
        for agent_class in agent_classes(name).values():
            is_heuristic = issubclass(agent_class, KernelHeuristic)
            if is_heuristic and kernel_policy(probe.batch, agent_class) is not None:
                found.append((name, agent_class))
    return found


@pytest.mark.parametrize(("name", "heuristic"), kernel_heuristics())
def test_a_heuristic_plays_in_the_kernel_as_its_agent_plays_from_python(name, heuristic):
    """16 games, the stop seat taking seeded random legal actions, every other seat the
    heuristic: played inside the kernel and called from Python, the games stay equal row for
    row, with the same rewards and ends, through 60 decisions and the new deals they bring."""
    game = load_game(name)
    sides = []
    for wrap in (False, True):
        games = SeatedGames(game, 16)
        games.seed(np.arange(16) + 100)
        for b in range(16):
            agents = [heuristic(game, seed=b) for _ in range(game.num_players)]
            games.sit(b, b % game.num_players, [InPython(a) if wrap else a for a in agents])
        sides.append(games)
    assert (sides[0].codes >= 0).sum() == 16 * (game.num_players - 1)
    assert (sides[1].codes >= 0).sum() == 0
    everyone = np.ones(16, bool)
    rng = np.random.default_rng(1)
    ended = 0
    for games in sides:
        games.start(everyone)
    for _ in range(60):
        results = []
        for games in sides:
            earned, ends = np.zeros(16), np.zeros(16, np.int64)
            games.advance(everyone, earned, ends)
            results.append((games.batch.rows.copy(), earned, ends))
        for got, expected in zip(results[1], results[0]):
            np.testing.assert_array_equal(got, expected)
        over = results[0][2] != RUNNING
        ended += int(over.sum())
        masks = np.zeros((16, game.num_actions), np.int8)
        sides[0].batch.observe(np.where(over, -2, sides[0].stops), sides[0].observations, masks)
        chosen = np.array([rng.choice(np.flatnonzero(m)) if m.any() else -1 for m in masks])
        for games in sides:
            games.start(over)
            games.step(chosen, np.zeros(16), np.zeros(16, np.int64))
    assert ended > 0


def uniform(size: int, actions: int) -> tuple[NumpyPolicy, NumpyPolicy]:
    """A policy with small fixed weights (not uniform play, so that the pool's choices show)
    and a value network of zeros."""
    weights = np.random.default_rng(0).normal(0, 0.3, (size, actions)).astype(np.float32)
    policy = NumpyPolicy([(weights, np.zeros(actions, np.float32), "Identity")])
    value = NumpyPolicy([(np.zeros((size, 1), np.float32), np.zeros(1, np.float32), "Identity")])
    return policy, value


def default_sampler(
    name: str, num_games: int = 8, seed: int = 0, league: tuple | None = None, **changes
) -> Sampler:
    """A sampler of the game's default run (mix, reward, inputs) with its pool of one policy
    (and ``league``, a roster and its weights, if given)."""
    run = TrainConfig(name).resolved()
    config = run.sampler(num_games, seed)
    config = dataclasses.replace(config, **changes)
    mix = OpponentMix(name, parse_mix(name, run.opponents), *config.inputs)
    mix.pool = [uniform(config.input_size(), config.game().num_actions)[0]]
    if league is not None:
        mix.set_league(*league)
    return Sampler(config, mix)


def rollout(sampler: Sampler, n_steps: int, rollouts: int = 2) -> tuple[dict, list]:
    """The last of ``rollouts`` rollouts, and every rollout's (episodes, wins)."""
    game = sampler.game
    shapes = rollout_shapes(n_steps * len(sampler.seats), sampler.input_size, game.num_actions)
    out = {name: np.zeros(shape, dtype) for name, (shape, dtype) in shapes.items()}
    counts = []
    for _ in range(rollouts):
        counts.append(sampler.collect(*uniform(sampler.input_size, game.num_actions), n_steps, out))
    return out, counts


def test_the_sampler_plays_one_batch_where_it_can_and_tables_elsewhere():
    assert all(default_sampler(name, 2).seated is not None for name in BATCH_GAMES)
    assert default_sampler("nobody_wants_it", 2, tables=True).seated is None  # asked for
    assert default_sampler("foxy", 2).seated is None  # no kernel
    run = TrainConfig("nobody_wants_it").resolved()
    config = run.sampler(2, 0)
    searching = OpponentMix("nobody_wants_it", parse_mix("nobody_wants_it", "random,pimc"))
    assert Sampler(config, searching).seated is None  # pimc reads the engine's state


#: each game's default run, 8 games, two rollouts of 40 decisions a game from seed 0: the
#: second rollout's (episodes, wins), its rewards and actions summed, and its episode ends
PINNED = {
    "nobody_wants_it": ((13, 0), -20.95, 2298, 13),
    "believe_it_or_not": ((2, 1), 1.05, 3673, 2),
    "minus_two": ((5, 0), -13.21, 37135, 5),
}


#: the league test's results (member, learner won) of its second rollout, sorted
PINNED_LEAGUE = [("nwi_dodger", False), ("random", False), ("random", False), ("random", False)]


@pytest.mark.parametrize("name", BATCH_GAMES)
def test_the_same_seed_samples_the_same_rollouts(name):
    """Two samplers of the game's default run from one seed play the same rollouts (every
    array equal); the figures are pinned, and another seed plays others."""
    first, first_counts = rollout(default_sampler(name), 40)
    again, again_counts = rollout(default_sampler(name), 40)
    for key, array in first.items():
        np.testing.assert_array_equal(again[key], array, err_msg=key)
    assert first_counts == again_counts
    figures = (
        first_counts[-1],
        round(float(first["rewards"].sum()), 4),
        int(first["actions"].sum()),
        int(first["dones"].sum()),
    )
    assert figures == PINNED[name]
    other, _ = rollout(default_sampler(name, seed=1), 40)
    assert not np.array_equal(other["actions"], first["actions"])


@pytest.mark.parametrize("name", BATCH_GAMES)
def test_compiled_and_plain_kernels_sample_the_same(name, monkeypatch):
    pytest.importorskip("numba")
    compiled, _ = rollout(default_sampler(name, 4), 15)
    monkeypatch.setattr(
        sampler_module, "SeatedGames", functools.partial(SeatedGames, compiled=False)
    )
    sampler = default_sampler(name, 4)
    assert sampler.seated is not None and not sampler.seated.batch.compiled
    plain, _ = rollout(sampler, 15)
    for key, array in compiled.items():
        np.testing.assert_array_equal(plain[key], array, err_msg=key)


def test_a_league_member_plays_every_other_seat_of_a_game_and_its_results_come_back():
    """A league of a kernel heuristic, random and a frozen policy: each game's opponents are
    one member, played in the kernel (heuristic, random) or batched from Python (the policy);
    every finished episode reports its member and result."""
    from cardzoo.agents.nobody_wants_it import NwiDodger

    size = default_sampler("nobody_wants_it", 1).input_size
    frozen = uniform(size, load_game("nobody_wants_it").num_actions)[0]
    roster = [("nwi_dodger", "nwi_dodger", None), ("random", "random", None),
              ("snapshot@0", None, frozen.state())]  # fmt: skip
    sampler = default_sampler("nobody_wants_it", 8, league=(roster, [0.4, 0.3, 0.3]))
    codes = {"nwi_dodger": NwiDodger.kernel_policy, "random": 0, "snapshot@0": -1}
    for slot, member in enumerate(sampler.opponents):
        seat = int(sampler.seats[slot])
        others = np.delete(sampler.seated.codes[slot], seat)
        assert (others == codes[member]).all(), (member, others)
    out, counts = rollout(sampler, 40)
    assert len(sampler.results) == counts[-1][0] == int(out["dones"].sum())
    assert sum(won for _, won in sampler.results) == counts[-1][1]
    assert sorted(sampler.results) == PINNED_LEAGUE
