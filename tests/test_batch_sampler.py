"""The trainer's sampler on the games' kernels: its games as one batch (cardzoo.vector.seated),
the kernel's heuristics played as their agents play, the same seed giving the same rollouts,
compiled and plain kernels giving the same, and the games that stay on Tables."""

from __future__ import annotations

import dataclasses
import functools
import shutil

import numpy as np
import pytest
from reference.kernel_runs import KERNELS

from cardzoo.agents import Agent, agent_classes
from cardzoo.agents.base import RandomAgent
from cardzoo.agents.kernel_heuristic import KernelHeuristic
from cardzoo.agents.minus_two import Attacker
from cardzoo.agents.nobody_wants_it import HandShedder
from cardzoo.agents.policy import NumpyPolicy, cumulative, draw_index, pretrained_file
from cardzoo.envs import batch as batch_module
from cardzoo.envs import kernel_random, load_game
from cardzoo.envs.batch import RUNNING
from cardzoo.errors import SettingError
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


class Repeats(InPython):
    """A Minus Two loop breaker played from Python, counting in ``count`` the positions it had
    seen before in its game (where it plays a random action)."""

    count = 0

    def act(self, observation):
        Repeats.count += observation["observation"].tobytes() in self.inner._seen
        return super().act(observation)


def play_beside(name, heuristic, config, num_games, decisions, compiled):
    """``num_games`` games on two SeatedGames, every seat but the stop seat a new ``heuristic``
    agent at every deal (as the sampler seats its agents), played inside the kernel on one
    and called from Python on the other; the stop seat takes seeded random legal actions, on
    the kernel's side in the call that plays the others after it (as the sampler steps), on
    the other by a step of its own.
    Asserts the games stay equal, row for row, with the same rewards and ends, through
    ``decisions`` stop-seat decisions and the new deals they bring. Returns the kernel's games
    and the games that ended."""
    game = load_game(name, **config)
    n = game.num_players
    sides = [SeatedGames(game, num_games, compiled=compiled) for _ in range(2)]
    deals = np.zeros(num_games, np.int64)
    wrapper = Repeats if name == "minus_two" else InPython  # its heuristics break loops

    def deal(b):
        stop = int(b + deals[b]) % n
        for wrap, games in zip((False, True), sides):
            agents = [heuristic(game, seed=int(1000 * b + 10 * deals[b] + s)) for s in range(n)]
            games.sit(b, stop, [wrapper(a) if wrap else a for a in agents])
        deals[b] += 1

    everyone = np.ones(num_games, bool)
    for games in sides:
        games.seed(np.arange(num_games) + 100)
    for b in range(num_games):
        deal(b)
    for games in sides:
        games.start(everyone)
    rng = np.random.default_rng(1)
    ended = 0
    stepped = np.zeros((num_games, n))  # what the Python side's stop seats earned by their step
    chosen = np.full(num_games, -1)  # the stop seats' actions, taken by the kernel's advance
    for _ in range(decisions):
        results = []
        for games, actions in zip(sides, (chosen, None)):
            earned, ends = np.zeros((num_games, n)), np.zeros(num_games, np.int64)
            games.advance(everyone, earned, ends, actions)
            rows = np.array([games.batch.row(b) for b in range(num_games)])  # a plain batch
            results.append((rows, earned, ends))  # stays on its lists (GameBatch.rows: arrays)
        results[1] = (results[1][0], results[1][1] + stepped, results[1][2])
        for got, expected in zip(results[1], results[0]):
            np.testing.assert_array_equal(got, expected)
        over = results[0][2] != RUNNING
        ended += int(over.sum())
        masks = np.zeros((num_games, game.num_actions), np.int8)
        sides[0].batch.observe(np.where(over, -2, sides[0].stops), sides[0].observations, masks)
        chosen = np.array([rng.choice(np.flatnonzero(m)) if m.any() else -1 for m in masks])
        for b in np.flatnonzero(over).tolist():
            deal(b)
        for games in sides:
            games.start(over)
        stepped, ends = np.zeros((num_games, n)), np.zeros(num_games, np.int64)
        sides[1].step(chosen, stepped, ends)
    return sides[0], ended


#: the games that ended in :func:`play_beside`'s 16 games and 60 decisions (compiled or plain)
ENDED = {
    ("nobody_wants_it", "hand_shedder"): 39,
    ("nobody_wants_it", "nwi_dodger"): 42,
    ("believe_it_or_not", "honest"): 13,
    ("believe_it_or_not", "bluffer"): 10,
    ("minus_two", "high_cards"): 9,
    ("minus_two", "attacker"): 7,
}


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize(("name", "heuristic"), kernel_heuristics())
def test_a_heuristic_plays_in_the_kernel_as_its_agent_plays_from_python(name, heuristic, compiled):
    """Every heuristic a batch game's kernel plays (Believe It or Not's and Minus Two's draw and
    remember) plays the same games inside the kernel as its agents called from Python, seated
    anew at every deal; compiled and plain, the same games end."""
    games, ended = play_beside(name, heuristic, {}, 16, 60, compiled)
    assert (games.codes >= 0).sum() == 16 * (games.game.num_players - 1)
    assert ended == ENDED[name, heuristic.name]


@pytest.mark.parametrize("compiled", KERNELS)
def test_a_kernel_heuristic_draws_as_its_agent_whether_its_generator_is_made_or_not(compiled):
    """A seated heuristic whose generator is not made yet is seeded from its seed in the kernel
    (``Agent.unmade_seed``); one whose generator has drawn is copied as it stands: either way the
    kernel's generator is the agent's, and the agent's own is not advanced."""
    game = load_game("minus_two")
    games = SeatedGames(game, 1, compiled=compiled)
    fresh, used = Attacker(game, seed=11), Attacker(game, seed=12)
    used.rng.random(3)
    assert (fresh.unmade_seed(), used.unmade_seed()) == (11, None)
    games.sit(0, 0, [None, fresh, used, Attacker(game, seed=np.random.default_rng(1))])
    loaded = [kernel_random.numpy_state(rng) for rng in games.batch.heuristic_rngs[0, :2]]
    assert loaded == [np.random.default_rng(11).bit_generator.state, used.rng.bit_generator.state]
    assert fresh.unmade_seed() == 11  # not made by sitting down
    used.reseed(13)
    assert used.unmade_seed() == 13
    assert Attacker(game, seed=np.random.default_rng(1)).unmade_seed() is None


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize("seed", [0, 11, 2**32 + 5, 2**63 - 1])
def test_a_kernel_heuristic_seeded_from_its_seed_has_default_rngs_generator(compiled, seed):
    """``GameBatch.seed_generator`` (the kernel's own seeding where it is compiled, numpy's
    where it is plain) gives a heuristic's seat ``numpy.random.default_rng(seed)``'s generator,
    for seeds of one 32-bit word and of two, and leaves the other seats' alone."""
    batch = SeatedGames(load_game("minus_two"), 2, compiled=compiled).batch
    batch.seed(np.array([3, 4]))
    before = batch.heuristic_rngs.copy()
    batch.seed_generator(1, 2, seed)
    after = batch.heuristic_rngs
    assert kernel_random.numpy_state(after[1, 2]) == np.random.default_rng(seed).bit_generator.state
    after[1, 2] = before[1, 2]
    assert np.array_equal(after, before)


@pytest.mark.parametrize("compiled", KERNELS)
def test_minus_two_loop_breakers_repeat_positions_and_grow_their_tables_in_the_kernel(
    compiled, monkeypatch
):
    """Two-player Minus Two cycles: the attackers meet positions they saw before in their game
    and play a random action there (drawn as the agent draws it), with tables of positions that
    start at 2 slots and grow as they fill (to 512), and the games stay those of the agents
    called from Python: (games ended, positions repeated, slots at the end)."""
    monkeypatch.setattr(batch_module, "MEMORY_SLOTS", 2)
    monkeypatch.setattr(Repeats, "count", 0)
    games, ended = play_beside("minus_two", Attacker, {"num_players": 2}, 6, 300, compiled)
    assert (ended, Repeats.count, games.batch.memory.shape[2]) == (10, 27, 512)


def uniform(size: int, actions: int) -> tuple[NumpyPolicy, NumpyPolicy]:
    """A policy with small fixed weights (not uniform play, so that the pool's choices show)
    and a value network of zeros."""
    weights = np.random.default_rng(0).normal(0, 0.3, (size, actions)).astype(np.float32)
    policy = NumpyPolicy([(weights, np.zeros(actions, np.float32), "Identity")])
    value = NumpyPolicy([(np.zeros((size, 1), np.float32), np.zeros(1, np.float32), "Identity")])
    return policy, value


def default_sampler(
    name: str,
    num_games: int = 8,
    seed: int = 0,
    league: tuple | None = None,
    opponents: str | None = None,
    **changes,
) -> Sampler:
    """A sampler of the game's default run (mix, reward, inputs) with its pool of one policy
    (and ``league``, a roster and its weights, if given; ``opponents``, another mix)."""
    run = TrainConfig(name).resolved()
    config = run.sampler(num_games, seed)
    config = dataclasses.replace(config, **changes)
    mix = OpponentMix(name, parse_mix(name, opponents or run.opponents), *config.inputs)
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
    "believe_it_or_not": ((9, 0), -7.75, 3798, 9),
    "minus_two": ((5, 0), -13.21, 37135, 5),
}


#: the league test's results (member, learner won, winners) of its second rollout, sorted
PINNED_LEAGUE = [
    ("nwi_dodger", False, 1),
    ("random", False, 1),
    ("random", False, 1),
    ("random", False, 1),
]


def sampled_twice(name: str, opponents: str | None = None) -> tuple[dict, tuple]:
    """Two samplers of the game's default run (``opponents``: another mix) from seed 0, two
    rollouts of 40 decisions each: asserts they are the same (every array equal). Returns the
    last rollout and its figures: (episodes, wins), the rewards and actions summed, the ends."""
    first, first_counts = rollout(default_sampler(name, opponents=opponents), 40)
    again, again_counts = rollout(default_sampler(name, opponents=opponents), 40)
    for key, array in first.items():
        np.testing.assert_array_equal(again[key], array, err_msg=key)
    assert first_counts == again_counts
    figures = (
        first_counts[-1],
        round(float(first["rewards"].sum()), 4),
        int(first["actions"].sum()),
        int(first["dones"].sum()),
    )
    return first, figures


@pytest.mark.parametrize("name", BATCH_GAMES)
def test_the_same_seed_samples_the_same_rollouts(name):
    """Two samplers of the game's default run from one seed play the same rollouts (every
    array equal); the figures are pinned, and another seed plays others."""
    first, figures = sampled_twice(name)
    assert figures == PINNED[name]
    other, _ = rollout(default_sampler(name, seed=1), 40)
    assert not np.array_equal(other["actions"], first["actions"])


#: a mix of each batch game's random agent and kernel heuristics alone
KERNEL_MIXES = {
    "nobody_wants_it": "nwi_dodger,hand_shedder,random",
    "believe_it_or_not": "honest,bluffer:2,random",
    "minus_two": "attacker:2,high_cards,random",
}
#: :data:`PINNED` for the runs with :data:`KERNEL_MIXES`
PINNED_KERNEL_MIXES = {
    "nobody_wants_it": ((16, 1), -25.85, 2248, 16),
    "believe_it_or_not": ((5, 1), -1.95, 3696, 5),
    "minus_two": ((5, 1), -9.49, 34325, 5),
}


@pytest.mark.parametrize("name", BATCH_GAMES)
def test_kernel_opponents_make_no_python_decision_and_the_same_seed_samples_the_same(
    name, monkeypatch
):
    """With a mix of random agents and kernel heuristics (Believe It or Not's and Minus Two's
    draw and remember), every opponent's decision is taken in the kernel: no agent's ``act``
    runs. Two samplers from one seed play the same rollouts; the figures are pinned."""

    def no_python(self, observation):
        raise AssertionError(f"{self!r} decided from Python")

    for agent_class in agent_classes(name).values():
        if agent_class is RandomAgent or issubclass(agent_class, KernelHeuristic):
            monkeypatch.setattr(agent_class, "act", no_python)
    _, figures = sampled_twice(name, KERNEL_MIXES[name])
    assert figures == PINNED_KERNEL_MIXES[name]


@pytest.mark.parametrize("mixes", [{}, KERNEL_MIXES], ids=["default", "kernel"])
@pytest.mark.parametrize("name", BATCH_GAMES)
def test_compiled_and_plain_kernels_sample_the_same(name, mixes, monkeypatch):
    pytest.importorskip("numba")
    opponents = mixes.get(name)
    compiled, _ = rollout(default_sampler(name, 4, opponents=opponents), 15)
    monkeypatch.setattr(
        sampler_module, "SeatedGames", functools.partial(SeatedGames, compiled=False)
    )
    sampler = default_sampler(name, 4, opponents=opponents)
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
    assert sum(won for _, won, _ in sampler.results) == counts[-1][1]
    assert sorted(sampler.results) == PINNED_LEAGUE


@pytest.mark.parametrize("tables", [False, True])
def test_league_results_count_each_games_winners(tables):
    """Each league result carries how many seats won its game (the league's fair share is
    measured from them): three of four in Believe It or Not's standard game, on Tables and in
    one batch alike; the learner's wins are among them."""
    roster = [("bluffer", "bluffer", None)]
    standard = {"variant": "standard"}
    sampler = default_sampler(
        "believe_it_or_not", 8, league=(roster, [1.0]), tables=tables, params=standard
    )
    out, counts = rollout(sampler, 200, rollouts=1)
    assert (sampler.seated is None) == tables
    assert len(sampler.results) == counts[-1][0] == int(out["dones"].sum()) > 0
    assert {winners for _, _, winners in sampler.results} == {3}
    assert sum(won for _, won, _ in sampler.results) == counts[-1][1]


def test_mix_draws_are_generator_choices():
    """The mix draws its opponents (and a league its members) as ``Generator.choice`` with
    those weights would, number for number: training runs from before the faster draw are
    trained again the same. Weights of 2 to 9 members, some tiny, 2,000 draws each."""
    weights_rng = np.random.default_rng(11)
    for size in range(2, 10):
        weights = weights_rng.random(size) ** 4  # some near 0
        p = weights / weights.sum()
        ours, numpys = np.random.default_rng(size), np.random.default_rng(size)
        sums = cumulative(p)
        drawn = [draw_index(ours, sums) for _ in range(2000)]
        assert drawn == [int(numpys.choice(size, p=p)) for _ in range(2000)]
    mix = OpponentMix(
        "nobody_wants_it", parse_mix("nobody_wants_it", "nwi_dodger:3,random:1,self:1")
    )
    game = load_game("nobody_wants_it")
    ours, numpys = np.random.default_rng(5), np.random.default_rng(5)
    names = [mix.draw(game, 0, 1, ours).name for _ in range(50)]  # no pool: self is skipped
    expected = []
    for _ in range(50):
        expected.append(["nwi_dodger", "random"][numpys.choice(2, p=[0.75, 0.25])])
        numpys.integers(2**31)  # the agent's seed
    assert names == expected


@pytest.mark.parametrize("compiled", KERNELS)
def test_a_seated_agent_that_chooses_an_illegal_action_is_named(compiled):
    """An agent called from Python that answers with an action its mask forbids stops the games
    with an error naming it, the action and the game, before that action is played; one that
    decides alone and one that decides in a batch alike."""

    class Stubborn(Agent):
        """Takes the discard pile's top card (action 9): illegal on the empty pile of a deal."""

        name = "stubborn"

        def act(self, observation):
            return 9

    class StubbornBatch(Stubborn):
        batch_key = "stubborn"

        @staticmethod
        def act_batch(agents, observations, masks):
            return np.full(len(agents), 9)

    game = load_game("nobody_wants_it")
    for stubborn in (Stubborn, StubbornBatch):
        games = SeatedGames(game, 2, compiled=compiled)
        games.seed(np.array([5, 6]))
        for b in range(2):  # no stop seat: seat 0, the stubborn one, plays first
            games.sit(b, 4, [stubborn(game, 1)] + [HandShedder(game, s) for s in (2, 3, 4)])
        games.start(np.ones(2, bool))
        dealt = games.batch.rows.copy()
        error = r"Stubborn(Batch)?\(nobody_wants_it\) chose action 9, which is not legal in game 0"
        with pytest.raises(RuntimeError, match=error):
            games.advance(np.ones(2, bool), np.zeros((2, 4)), np.zeros(2, np.int64))
        assert np.array_equal(games.batch.rows, dealt)


def test_weights_near_a_floats_limit_are_drawn_as_given():
    """random:1e308,nwi_dodger:1e308 summed to inf: every weight became 0, the cumulative sums
    NaN, and every seat drew random (a review of bad input)."""
    assert parse_mix("nobody_wants_it", "random:1e308,nwi_dodger:1e308") == {
        "random": 0.5,
        "nwi_dodger": 0.5,
    }
    assert parse_mix("nobody_wants_it", "random:1e308,self:5e307") == {
        "random": 2 / 3,
        "self": 1 / 3,
    }
    with pytest.raises(SettingError, match="the weights of one agent add up beyond a float's"):
        parse_mix("nobody_wants_it", "random:1e308,random:1e308")


def test_a_policy_weight_that_is_also_a_path_is_refused_as_ambiguous(tmp_path, monkeypatch):
    """``ppo:run:2`` is the folder run:2 to cardzoo match, and ppo:run with weight 2 to a mix:
    with both folders there, training silently took run/."""
    policy = pretrained_file("nobody_wants_it")
    for folder in ("run", "run:2"):
        (tmp_path / folder).mkdir()
        shutil.copy(policy, tmp_path / folder / "policy.npz")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SettingError) as refused:
        parse_mix("nobody_wants_it", "ppo:run:2,random")
    assert str(refused.value) == (
        "opponents: 'ppo:run:2' reads as ppo:run with weight 2, but 'run:2' exists too: write "
        "ppo:run:2:1 for the policy in 'run:2', or ppo:run/:2 for 'run' with weight 2"
    )
    assert parse_mix("nobody_wants_it", "ppo:run/:2,random") == {"ppo:run/": 2 / 3, "random": 1 / 3}
    assert parse_mix("nobody_wants_it", "ppo:run:2:1,random") == {"ppo:run:2": 0.5, "random": 0.5}
    shutil.rmtree(tmp_path / "run:2")
    assert parse_mix("nobody_wants_it", "ppo:run:2,random") == {"ppo:run": 2 / 3, "random": 1 / 3}
