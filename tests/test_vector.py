"""The vector environments (``cardzoo.vector``): the same games as the single environments, step by
step, Gymnasium's vector conventions, clear errors for bad input. The game-independent tests run
for every game with a vector form (:data:`CASES`)."""

from __future__ import annotations

import re

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from reference.kernel_runs import KERNELS, needs_numba

import cardzoo  # noqa: F401  (registers the ids)
from cardzoo.agents import Agent, make_agent
from cardzoo.agents.kernel_heuristic import KernelHeuristic
from cardzoo.envs import GAMES, batch, kernel_random, kernels, nobody_wants_it_v0
from cardzoo.envs.batch import opponent_seeds
from cardzoo.errors import InputError
from cardzoo.single_agent import SingleAgentEnv
from cardzoo.vector import MultiAgentVectorEnv, VectorEnv


def seeded(name: str, seed: int):
    """An agent factory that ignores the seed it is given: the same agent in any environment
    (Believe It or Not's heuristics draw random numbers; the environments seed them apart)."""
    return lambda game, _seed: make_agent(game.name, name, game, seed=seed)


#: per game with a vector form: a configuration whose games are short, one for a learner with
#: heuristic opponents (one per other seat) and the fewest steps its episode takes, and a reset
#: option that fixes the cards
CASES = {
    "nobody_wants_it": {
        "config": {"num_players": 3, "reward": "points", "num_rounds": 1},
        "heuristics": (
            {"num_players": 3, "reward": "win", "num_rounds": 3},
            ["nwi_dodger", "hand_shedder"],
            10,  # 3 rounds
        ),
        "options": {"deck": ["sheep"] * 72},
    },
    "minus_two": {
        "config": {"num_players": 3, "reward": "points", "target_score": 60},
        "heuristics": (
            {"num_players": 3, "reward": "win", "target_score": 100},
            ["attacker", "high_cards"],
            10,  # a round at least
        ),
        "options": {
            "deals": [["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "-2", "-2", ">>>"]] * 2
        },
    },
    "believe_it_or_not": {
        "config": {"num_players": 3, "variant": "quick"},
        "heuristics": (
            {"num_players": 3, "num_species": 6},
            [seeded("bluffer", 1), seeded("honest", 2)],
            5,
        ),
        "options": {"deck": ["cat"] * 4 + ["dog"] * 4},
    },
}
each_game = pytest.mark.parametrize("name", list(CASES))


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``."""
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])


# ----------------------------------------------------------------------------------------------
# The multi-agent form
# ----------------------------------------------------------------------------------------------


@each_game
@pytest.mark.parametrize("compiled", KERNELS)
def test_multi_agent_games_are_the_aec_envs_games_and_reset_themselves(name, compiled):
    """Game i of reset(seed=10) is env.reset(seed=10 + i); after its end the final observations
    are the env's, and the next game is the env's next unseeded reset()."""
    config = CASES[name]["config"]
    games = MultiAgentVectorEnv(name, 3, compiled=compiled, **config)
    envs = [GAMES[name].module().raw_env(**config) for _ in range(3)]
    for index, env in enumerate(envs):
        env.reset(seed=10 + index)
    step = games.reset(seed=10)
    assert not step.rewards.any() and step.final_observation is None
    rng = np.random.default_rng(1)
    endings = 0
    while endings < 6:
        for b, env in enumerate(envs):
            agent = env.agent_selection
            assert step.current_player[b] == env.agent_name_mapping[agent]
            assert np.array_equal(step.observation[b], env.observe(agent)["observation"])
            assert np.array_equal(step.action_mask[b], env.infos[agent]["action_mask"])
        actions = random_legal(step.action_mask, rng)
        step = games.step(actions)
        for b, env in enumerate(envs):
            env.step(int(actions[b]))
            assert step.rewards[b].tolist() == [env.rewards[a] for a in env.possible_agents]
            assert step.terminated[b] == all(env.terminations.values())
            if step.terminated[b]:
                endings += 1
                final = step.final_observation[list(np.flatnonzero(step.terminated)).index(b)]
                for seat, agent in enumerate(env.possible_agents):
                    assert np.array_equal(final[seat], env.observe(agent)["observation"])
                env.reset()
    assert not step.truncated.any()


def test_without_autoreset_an_ended_game_stays_ended():
    games = MultiAgentVectorEnv("nobody_wants_it", 2, autoreset=False, max_cycles=3)
    step = games.reset(seed=0)
    for _ in range(3):
        step = games.step(random_legal(step.action_mask, np.random.default_rng(0)))
    assert step.truncated.tolist() == [True, True] and not step.action_mask.any()
    held = step.observation
    step = games.step(np.array([99, -5]))  # ignored: the games are over
    assert step.truncated.tolist() == [True, True] and not step.rewards.any()
    assert np.array_equal(step.observation, held) and step.final_observation is None
    assert games.reset(seed=0).truncated.tolist() == [False, False]


def test_without_autoreset_final_games_names_the_games_a_step_ended():
    """An ended game keeps its end flag, so from the second game to end the flags no longer say
    which rows ``final_observation`` holds (the review's script: an IndexError at the third)."""
    games = MultiAgentVectorEnv("nobody_wants_it", 3, autoreset=False, num_players=3, num_rounds=1)
    envs = [nobody_wants_it_v0.raw_env(num_players=3, num_rounds=1) for _ in range(3)]
    step, rng = games.reset(seed=0), np.random.default_rng(0)
    for b, env in enumerate(envs):
        env.reset(seed=b)
    ended_at = {}
    for count in range(1000):
        was_over = step.terminated | step.truncated
        actions = random_legal(np.where(was_over[:, None], 1, step.action_mask), rng)
        step = games.step(actions)
        for b in np.flatnonzero(~was_over):
            envs[b].step(int(actions[b]))
        now = np.flatnonzero((step.terminated | step.truncated) & ~was_over)
        if now.size:
            assert step.final_games.tolist() == now.tolist()
            for row, b in enumerate(now):
                ended_at[int(b)] = count
                for seat, agent in enumerate(envs[b].possible_agents):
                    seen = envs[b].observe(agent)["observation"]
                    assert np.array_equal(step.final_observation[row, seat], seen)
        else:
            assert step.final_games is None and step.final_observation is None
        if (step.terminated | step.truncated).all():
            break
    assert ended_at == {0: 49, 1: 70, 2: 152}  # three steps, one game each


def test_without_autoreset_observe_gives_an_ended_game_no_legal_action():
    games = MultiAgentVectorEnv("nobody_wants_it", 1, autoreset=False, max_cycles=5)
    env = nobody_wants_it_v0.raw_env(max_cycles=5)
    step, _ = games.reset(seed=0), env.reset(seed=0)
    for _ in range(5):
        action = int(np.flatnonzero(step.action_mask[0])[0])
        step = games.step(np.array([action]))
        env.step(action)
    assert step.truncated[0] and step.current_player[0] == 1
    assert not env.observe("player_1")["action_mask"].any()
    assert not games.observe(1)[1].any()  # it gave player_1's two legal actions


@pytest.mark.parametrize("autoreset", ["False", "no", 1, None])
def test_autoreset_must_be_true_or_false(autoreset):
    with pytest.raises(InputError, match=f"autoreset must be True or False, got {autoreset!r}"):
        MultiAgentVectorEnv("nobody_wants_it", 2, autoreset=autoreset)


def test_a_seed_in_a_zero_dimensional_array_is_one_seed():
    env = VectorEnv("nobody_wants_it", 2)
    as_array = env.reset(seed=np.array(5))[0]
    assert np.array_equal(as_array, env.reset(seed=5)[0])
    assert env.np_random_seed == (5, 6)


def test_a_game_whose_seed_is_none_goes_on_with_its_own_deals():
    """Gymnasium's list[int | None]: game 1's None leaves it on its own sequence."""
    env, alone = VectorEnv("nobody_wants_it", 2), VectorEnv("nobody_wants_it", 1)
    observations, _ = env.reset(seed=[3, 10])
    assert np.array_equal(observations[1], alone.reset(seed=10)[0][0])
    observations, _ = env.reset(seed=[4, None])  # game 1: its next deal
    assert np.array_equal(observations[0], VectorEnv("nobody_wants_it", 1).reset(seed=4)[0][0])
    assert np.array_equal(observations[1], alone.reset()[0][0])
    assert env.np_random_seed == (4, 10)
    fresh = VectorEnv("nobody_wants_it", 2)
    fresh.reset(seed=[7, None])  # a game never dealt gets fresh entropy
    assert fresh.np_random_seed[0] == 7 and fresh.np_random_seed[1] is not None


def test_a_reset_mask_starts_new_episodes_in_those_games_only():
    env = VectorEnv("nobody_wants_it", 3, learner_seat=0)
    with pytest.raises(InputError, match="the first reset deals every game"):
        env.reset(seed=0, options={"reset_mask": np.array([True, False, True])})
    observations, infos = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(3):
        observations, *_, infos = env.step(random_legal(infos["action_mask"], rng))
    mask = np.array([False, True, False])
    again, infos = env.reset(seed=[None, 21, None], options={"reset_mask": mask})
    assert np.array_equal(again[[0, 2]], observations[[0, 2]])  # going on as they were
    assert np.array_equal(again[1], VectorEnv("nobody_wants_it", 1, learner_seat=0).reset(
        seed=21)[0][0])  # fmt: skip
    for bad in (np.array([1, 0, 0]), np.zeros(3, bool), np.ones(2, bool), [True] * 3):
        with pytest.raises(InputError, match="reset_mask"):
            env.reset(options={"reset_mask": bad})


def test_same_step_final_info_flags_the_games_that_ended_only():
    env = VectorEnv("nobody_wants_it", 3, autoreset_mode="SameStep", num_players=2, num_rounds=1)
    observations, infos = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        observations, rewards, terminated, truncated, infos = env.step(
            random_legal(infos["action_mask"], rng)
        )
        ended = terminated | truncated
        if ended.any() and not ended.all():
            break
    final = infos["final_info"]
    assert final["_seat"].tolist() == ended.tolist() == infos["_final_info"].tolist()
    assert final["_action_mask"].tolist() == ended.tolist()
    assert not final["action_mask"][~ended].any()


def test_multi_agent_observe_gives_any_seats_view():
    games = MultiAgentVectorEnv("nobody_wants_it", 2, num_players=4)
    step = games.reset(seed=5)
    env = nobody_wants_it_v0.raw_env(num_players=4)
    env.reset(seed=6)
    observations, masks = games.observe(np.array([0, 2]))
    assert np.array_equal(observations[1], env.observe("player_2")["observation"])
    assert not masks[1].any()  # player_0 decides first
    assert np.array_equal(masks[0], step.action_mask[0])
    with pytest.raises(InputError, match="seat must be integers in 0..3"):
        games.observe(4)


# ----------------------------------------------------------------------------------------------
# The Gymnasium VectorEnv against the single-agent view
# ----------------------------------------------------------------------------------------------


class KernelRandom(Agent):
    """Plays as the compiled random opponents do: the k-th legal action, k drawn by the kernel's
    generator, shared by every opponent of a table (they draw in turn, as in the kernel)."""

    name = "kernel_random"
    uses_observation = False

    def __init__(self, game, generator: np.ndarray):
        super().__init__(game)
        self.generator = generator

    def act(self, observation):
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[kernel_random.below(self.generator, legal.size)])


def play_beside_the_single_agent_view(vector: VectorEnv, single: SingleAgentEnv, seed: int) -> int:
    """Episode 1 of the vector env's game 0 and of the single-agent view, the same random learner
    actions, compared at every step; returns the number of steps."""
    observations, infos = vector.reset(seed=seed)
    observation, info = single.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while True:
        assert np.array_equal(observations[0], observation)
        assert np.array_equal(infos["action_mask"][0], info["action_mask"])
        assert infos["seat"][0] == single.seat
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        actions = np.array([action, np.flatnonzero(infos["action_mask"][1])[0]])
        observations, rewards, terminated, truncated, infos = vector.step(actions)
        observation, reward, done, cut, info = single.step(action)
        steps += 1
        assert (rewards[0], terminated[0], truncated[0]) == (reward, done, cut)
        if done or cut:
            return steps


def kernel_opponents_beside_the_single_agent_view(
    name: str, config: dict, opponents: list, learner_seat: int, seed: int, compiled: bool
) -> int:
    """:func:`play_beside_the_single_agent_view` with opponents the kernel plays (random, and a
    game's heuristics written in its kernel), one per other seat; in the single-agent view the
    same agents, the random ones drawing as the kernel's do, the heuristics seeded as the vector
    env seeds them."""
    vector = VectorEnv(name, 2, opponents, learner_seat=learner_seat, compiled=compiled, **config)
    assert vector._compiled_opponents
    generator = np.zeros(kernel_random.SIZE, np.int64)
    state = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(1,))).state
    kernel_random.set_numpy_state(generator, state)
    seeds = opponent_seeds(seed, len(opponents))  # as the kernel seeds its heuristics' draws
    single_opponents = [
        (lambda game, _seed: KernelRandom(game, generator))
        if spec == "random"
        else (
            lambda game, _seed, spec=spec, agent_seed=agent_seed: make_agent(
                name, spec, game, seed=agent_seed
            )
        )
        for spec, agent_seed in zip(opponents, seeds)
    ]
    single = SingleAgentEnv(name, single_opponents, learner_seat=learner_seat, **config)
    return play_beside_the_single_agent_view(vector, single, seed)


def random_opponents_beside_the_single_agent_view(
    name: str, config: dict, learner_seat: int, seed: int, compiled: bool
) -> int:
    """:func:`kernel_opponents_beside_the_single_agent_view` with random opponents only."""
    opponents = ["random"] * (config["num_players"] - 1)
    return kernel_opponents_beside_the_single_agent_view(
        name, config, opponents, learner_seat, seed, compiled
    )


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize(
    ("name", "config", "seed"),
    [
        ("nobody_wants_it", {"num_players": 4, "reward": "points", "num_rounds": 2}, 3),
        ("nobody_wants_it", {"num_players": 4, "reward": "points", "num_rounds": 2}, 44),
        ("minus_two", {"num_players": 4, "reward": "points"}, 8),
        ("minus_two", {"num_players": 3, "scoring": "count"}, 8),
    ],
)
def test_the_vector_env_plays_the_single_agent_views_game(name, config, seed, compiled):
    """With the learner in seat 2 and random opponents, episode 1 of game 0 is the single-agent
    view's episode for the same seed, its opponents drawing as the kernel's do."""
    assert random_opponents_beside_the_single_agent_view(name, config, 2, seed, compiled) > 20


@needs_numba
@pytest.mark.parametrize(
    "config", GAMES["believe_it_or_not"].test_configs(), ids=lambda c: str(sorted(c.items()))
)
def test_believe_it_or_not_vector_env_plays_the_single_agent_views_game(config):
    """Every player count and variant: the learner in the last seat, random opponents."""
    last = config["num_players"] - 1
    assert random_opponents_beside_the_single_agent_view(
        "believe_it_or_not", config, last, 8, True
    ) > 2  # fmt: skip


@each_game
@pytest.mark.parametrize("seed", [5, 6])
def test_agent_opponents_play_as_in_the_single_agent_view(name, seed):
    """Opponents called from Python (a heuristic in every other seat, learner in seat 1)."""
    config, opponents, fewest = CASES[name]["heuristics"]
    vector = VectorEnv(name, 2, opponents, learner_seat=1, **config)
    single = SingleAgentEnv(name, opponents, learner_seat=1, **config)
    assert play_beside_the_single_agent_view(vector, single, seed) > fewest


NWI_WIN = {"num_players": 4, "reward": "win", "num_rounds": 3}


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize(
    ("name", "config", "opponents", "seed", "steps"),
    [
        ("nobody_wants_it", NWI_WIN, ["random", "nwi_dodger", "hand_shedder"], 3, 28),
        ("nobody_wants_it", NWI_WIN, ["hand_shedder", "random", "random"], 44, 23),
        ("nobody_wants_it", NWI_WIN, ["nwi_dodger", "nwi_dodger", "random"], 8, 20),
        ("believe_it_or_not", {"num_players": 4}, ["random", "bluffer", "honest"], 3, 30),
        ("believe_it_or_not", {"num_players": 4}, ["honest", "random", "random"], 44, 200),
        (
            "believe_it_or_not",
            {"num_players": 5},
            ["bluffer", "bluffer", "random", "honest"],
            8,
            67,
        ),
        ("believe_it_or_not", {"num_players": 3, "variant": "quick"}, ["bluffer", "random"], 5, 55),
    ],
)
def test_heuristics_mixed_with_random_play_the_single_agent_views_game(
    name, config, opponents, seed, steps, compiled
):
    """A game's heuristics and random opponents per seat, all in the kernel: episode 1 of game 0
    is the single-agent view's with the Python agents (the random ones drawing as the kernel's
    do, the heuristics seeded as the vector env's)."""
    assert (
        kernel_opponents_beside_the_single_agent_view(name, config, opponents, 1, seed, compiled)
        == steps
    )


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize(
    ("opponents", "config", "seed", "steps"),
    [
        (["attacker", "random", "high_cards"], {"num_players": 4}, 3, 72),
        (["random", "attacker"], {"num_players": 3, "scoring": "count"}, 4, 130),
        (["high_cards", "high_cards", "random", "attacker", "random"], {"num_players": 6}, 8, 45),
    ],
)
def test_minus_two_heuristics_mixed_with_random_play_the_single_agent_views_game(
    opponents, config, seed, steps, compiled
):
    """Minus Two's heuristics and random opponents per seat, all in the kernel: episode 1 of
    game 0 is the single-agent view's with the Python agents (the random ones drawing as the
    kernel's do)."""
    assert (
        kernel_opponents_beside_the_single_agent_view(
            "minus_two", config, opponents, 1, seed, compiled
        )
        == steps
    )


class CountingAgent(Agent):
    """A heuristic called from Python, counting its calls in ``calls`` and the positions it had
    seen before in the game (a loop breaker's) in ``repeated``."""

    calls: list[int] = []
    repeated: list[int] = []

    def __init__(self, name: str, game, seed):
        super().__init__(game, seed)
        self.agent = make_agent(game.name, name, game, seed)

    def act(self, observation):
        self.calls.append(1)
        if observation["observation"].tobytes() in getattr(self.agent, "_seen", ()):
            self.repeated.append(1)
        return self.agent.act(observation)

    def reset(self):
        self.agent.reset()


def play_vector_env(env: VectorEnv, seed: int, steps: int) -> list[np.ndarray]:
    """Random legal learner actions for ``steps`` steps: everything the env gave, in order."""
    observations, infos = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = [observations, infos["seat"], infos["action_mask"]]
    for _ in range(steps):
        observations, rewards, terminated, truncated, infos = env.step(
            random_legal(infos["action_mask"], rng)
        )
        trace += [observations, rewards, terminated, truncated, infos["seat"]]
        trace.append(infos["action_mask"])
    return trace


NWI_ONE_ROUND = {"num_players": 4, "reward": "points", "num_rounds": 1}


def kernel_beside_python_opponents(
    name: str, config: dict, opponents, steps: int, compiled: bool, monkeypatch
) -> tuple[VectorEnv, list[np.ndarray]]:
    """``steps`` random learner steps in 6 games with ``opponents`` (names of heuristics the
    kernel plays) as the same agents called from Python (factories of :class:`CountingAgent`),
    then played in the kernel with no agent called from Python: every observation, reward, end,
    seat and mask the same. Returns the kernel's env and what it gave."""
    n = config["num_players"]
    specs = [opponents] * (n - 1) if isinstance(opponents, str) else opponents
    factories = [lambda game, seed, spec=spec: CountingAgent(spec, game, seed) for spec in specs]
    monkeypatch.setattr(CountingAgent, "calls", [])
    monkeypatch.setattr(CountingAgent, "repeated", [])
    in_python = VectorEnv(name, 6, factories, compiled=compiled, **config)
    expected = play_vector_env(in_python, 5, steps)
    assert not in_python._compiled_opponents and len(CountingAgent.calls) > steps

    def no_python(self, observation):
        raise AssertionError("a heuristic was called from Python")

    monkeypatch.setattr(KernelHeuristic, "act", no_python)
    in_kernel = VectorEnv(name, 6, opponents, compiled=compiled, **config)
    assert in_kernel._compiled_opponents
    trace = play_vector_env(in_kernel, 5, steps)
    assert all(np.array_equal(a, b) for a, b in zip(trace, expected, strict=True))
    return in_kernel, trace


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize(
    ("name", "config", "opponents", "episodes"),
    [
        ("nobody_wants_it", NWI_ONE_ROUND, "nwi_dodger", {False: 33, True: 330}),
        ("nobody_wants_it", NWI_ONE_ROUND, "hand_shedder", {False: 30, True: 318}),
        (
            "nobody_wants_it",
            NWI_ONE_ROUND,
            ["hand_shedder", "nwi_dodger", "nwi_dodger"],
            {False: 33, True: 320},
        ),
        ("believe_it_or_not", {"num_players": 4}, "bluffer", {False: 3, True: 43}),
        (
            "believe_it_or_not",
            {"num_players": 3, "variant": "quick"},
            "honest",
            {False: 3, True: 58},
        ),
        (
            "believe_it_or_not",
            {"num_players": 6, "num_species": 5},
            ["honest", "bluffer", "bluffer", "honest", "bluffer"],
            {False: 6, True: 67},
        ),
    ],
)
def test_kernel_heuristic_opponents_play_as_the_python_agents_without_calling_python(
    name, config, opponents, episodes, compiled, monkeypatch
):
    """Opponents named by a game's heuristics written in its kernel are played there, no agent
    called from Python; the games, every observation, reward, end, seat and mask, are those of
    the same agents called from Python (given as factories, seeded as the vector env seeds
    them), over many episodes of 6 games."""
    steps = 400 if compiled else 40  # the plain kernel is slow
    _env, trace = kernel_beside_python_opponents(
        name, config, opponents, steps, compiled, monkeypatch
    )
    assert sum(int(ended.sum()) for ended in trace[5::6]) == episodes[compiled]  # terminated


@pytest.mark.parametrize("compiled", KERNELS)
@pytest.mark.parametrize(
    ("opponents", "config", "slots", "seen"),
    [
        ("attacker", {"num_players": 2}, 256, {False: (0, 3, 256), True: (22, 75, 256)}),
        (
            "high_cards",
            {"num_players": 2, "scoring": "count"},
            2,
            {False: (0, 3, 128), True: (25, 81, 512)},
        ),
        (
            ["high_cards", "attacker", "attacker"],
            {"num_players": 4},
            2,
            {False: (0, 0, 128), True: (52, 0, 256)},
        ),
    ],
)
def test_minus_two_kernel_heuristics_play_as_the_python_agents_without_calling_python(
    opponents, config, slots, seen, compiled, monkeypatch
):
    """Opponents named attacker or high_cards are played inside the kernel, no agent called from
    Python; the games, every observation, reward, end, seat and mask, are those of the same
    agents called from Python (given as factories), over many episodes of 6 games: the
    positions they repeat (2-player games cycle) and the random actions they play there
    included, and with tables of positions that start at ``slots`` slots, grow as they fill
    and shrink when their games are over. ``seen``: the episodes that ended by the rules, the
    repeated positions, the slots at the end."""
    monkeypatch.setattr(batch, "MEMORY_SLOTS", slots)
    steps = 600 if compiled else 40  # the plain kernel is slow
    in_kernel, trace = kernel_beside_python_opponents(
        "minus_two", config, opponents, steps, compiled, monkeypatch
    )
    terminated = sum(int(ended.sum()) for ended in trace[5::6])
    slots_at_the_end = in_kernel.batch.memory.shape[2]
    assert (terminated, len(CountingAgent.repeated), slots_at_the_end) == seen[compiled]


@pytest.mark.parametrize(
    ("name", "opponents", "in_kernel"),
    [
        ("nobody_wants_it", "random", True),
        ("nobody_wants_it", ["nwi_dodger", "random", "hand_shedder"], True),
        ("nobody_wants_it", ["nwi_dodger", "random", seeded("hand_shedder", 0)], False),
        ("minus_two", "random", True),
        ("minus_two", "attacker", True),
        ("minus_two", ["attacker", "random", seeded("high_cards", 0)], False),
        ("believe_it_or_not", ["random", "bluffer", "honest"], True),
        ("believe_it_or_not", ["random", "random", seeded("honest", 0)], False),
    ],
)
def test_the_kernel_plays_the_opponents_only_when_it_knows_every_one(name, opponents, in_kernel):
    env = VectorEnv(name, 2, opponents, num_players=4)
    assert env._compiled_opponents == in_kernel


@pytest.mark.parametrize(
    ("name", "config", "field", "opponents"),
    [
        ("nobody_wants_it", {"num_rounds": 1}, "scores", "random"),
        ("nobody_wants_it", {"num_rounds": 1}, "scores", "nwi_dodger"),
        ("minus_two", {"target_score": 60}, "totals", "random"),
        ("minus_two", {"target_score": 60}, "totals", "attacker"),
    ],
)
def test_episode_rewards_add_up_to_minus_the_learners_points(name, config, field, opponents):
    """Points reward: an episode's rewards sum to minus the learner's final score (the
    ``field`` of the observation, seat-relative: index 0 is the learner's)."""
    env = VectorEnv(name, 6, opponents=opponents, reward="points", **config)
    scores = env.observation_layout[field]
    observations, infos = env.reset(seed=0)
    returns = np.zeros(6)
    rng = np.random.default_rng(0)
    finished, seats = 0, set()
    while finished < 30:
        seats |= set(infos["seat"].tolist())
        actions = random_legal(infos["action_mask"], rng)
        observations, rewards, terminated, truncated, infos = env.step(actions)
        returns += rewards
        for b in np.flatnonzero(terminated):
            assert returns[b] == -observations[b, scores][0]
            finished += 1
        returns[terminated | truncated] = 0
    assert seats == {0, 1, 2, 3}  # a seat drawn for every episode


@each_game
def test_compiled_and_plain_vector_envs_are_identical(name):
    runs = []
    for compiled in (True, False) if kernels.numba is not None else (False,):
        env = VectorEnv(name, 3, compiled=compiled, **{**CASES[name]["config"], "num_players": 5})
        observations, infos = env.reset(seed=9)
        rng = np.random.default_rng(9)
        trace = [observations]
        for _ in range(150):
            observations, rewards, terminated, truncated, infos = env.step(
                random_legal(infos["action_mask"], rng)
            )
            trace += [observations, rewards, terminated, infos["seat"], infos["action_mask"]]
        runs.append(trace)
    assert sum(int(ended.sum()) for ended in runs[0][3::5]) > 0  # episodes ended and began
    assert all(np.array_equal(a, b) for a, b in zip(runs[0], runs[-1]))


# ----------------------------------------------------------------------------------------------
# Gymnasium's conventions
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gym_id", "params", "num_actions"),
    [
        ("cardzoo/NobodyWantsIt-v0", {"num_players": 3}, 16),
        ("cardzoo/BelieveItOrNot-v1", {"num_players": 3}, 34),
        ("cardzoo/MinusTwo-v0", {"num_players": 3, "scoring": "count"}, 293),
    ],
)
def test_make_vec_gives_the_vector_env_with_the_single_views_arguments(gym_id, params, num_actions):
    env = gymnasium.make_vec(
        gym_id, num_envs=4, vectorization_mode="vector_entry_point", learner_seat=1, **params
    )
    assert isinstance(env, VectorEnv) and env.game.num_players == 3
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert env.single_observation_space.shape == (env.game.observation_size,)
    assert env.observation_space.shape == (4, env.game.observation_size)
    assert env.action_space == gymnasium.spaces.MultiDiscrete([num_actions] * 4)
    assert env.game.params() == {**env.game.params(), **params}
    observations, infos = env.reset(seed=1)
    assert observations in env.observation_space
    assert infos["action_mask"].dtype == np.int8 and infos["seat"].tolist() == [1] * 4
    assert np.array_equal(env.action_masks(), infos["action_mask"].astype(bool))
    step = env.step(random_legal(infos["action_mask"], np.random.default_rng(0)))
    assert [type(part) for part in step[:4]] == [np.ndarray] * 4
    assert step[1].dtype == np.float64 and step[2].dtype == step[3].dtype == np.bool_
    assert step[0] in env.observation_space


def test_decision_mask_after_the_end_allows_every_action_and_the_next_step_ignores_it():
    env = VectorEnv("nobody_wants_it", 1, max_cycles=4, learner_seat=0)
    observations, infos = env.reset(seed=2)
    rng = np.random.default_rng(2)
    truncated = np.array([False])
    while not truncated[0]:
        observations, rewards, terminated, truncated, infos = env.step(
            random_legal(infos["action_mask"], rng)
        )
    assert not rewards.any() and not terminated.any()
    assert infos["action_mask"].all()  # any action: it is ignored
    observations, rewards, terminated, truncated, infos = env.step(np.array([15]))
    assert not (rewards.any() or terminated.any() or truncated.any())
    assert observations[0, env.observation_layout["hand_sizes"]].tolist() == [9] * 4


def test_same_step_autoreset_gives_the_final_observation_in_the_infos():
    env = VectorEnv("nobody_wants_it", 1, max_cycles=4, learner_seat=0, autoreset_mode="SameStep")
    observations, infos = env.reset(seed=2)
    rng = np.random.default_rng(2)
    truncated = np.array([False])
    while not truncated[0]:
        before = observations
        observations, rewards, terminated, truncated, infos = env.step(
            random_legal(infos["action_mask"], rng)
        )
    assert infos["_final_obs"].tolist() == [True]
    final = infos["final_obs"][0]
    assert final.shape == before[0].shape and not np.array_equal(final, observations[0])
    assert observations[0, env.observation_layout["hand_sizes"]].tolist() == [9] * 4
    assert infos["action_mask"][0, 8] == 1  # a new turn: passing is legal


def test_gymnasiums_episode_statistics_wrapper_counts_the_episodes():
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        VectorEnv("nobody_wants_it", 4, num_rounds=1)
    )
    observations, infos = env.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(200):
        observations, rewards, terminated, truncated, infos = env.step(
            random_legal(infos["action_mask"], rng)
        )
        if "episode" in infos:
            returns = infos["episode"]["r"][infos["_episode"]]
            assert set(returns.tolist()) <= {-1.0, 1.0}
            episodes += int(infos["_episode"].sum())
    assert episodes > 10


# ----------------------------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=KERNELS)
def dealt(request):
    env = VectorEnv("nobody_wants_it", 2, learner_seat=0, compiled=request.param)
    env.reset(seed=0)
    return env


@pytest.mark.parametrize("compiled", KERNELS)
def test_first_illegal_finds_the_first_bad_game_not_ignored(compiled):
    """The batch's check of a whole batch's actions, in both forms: out of range on either
    side, a 0 of the mask, and games ignored whatever they hold."""
    games = batch.GameBatch(cardzoo.envs.load_game("minus_two"), 6, compiled=compiled)
    masks = np.zeros((6, 293), np.int8)
    masks[:, 5] = 1
    masks[:, 292] = 1
    ignored = np.array([False, True, False, False, False, False])
    cases = [
        ([5, 5, 292, 5, 5, 5], -1),
        ([5, -1, 292, 5, 5, 5], -1),  # game 1 ignored
        ([5, 5, 293, 5, 5, 5], 2),  # just out of range
        ([5, 5, 292, -1, 5, 5], 3),
        ([5, 5, 292, 5, 6, 5], 4),  # in range, a 0 of the mask
        ([5, 5, 292, 5, 5, -(2**63)], 5),
        ([4, 5, 292, 5, 6, 5], 0),  # the first of two
    ]
    for actions, first in cases:
        assert games.first_illegal(masks, np.array(actions, np.int64), ignored) == first


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (
            np.array([8]),
            r"actions must be an array of shape \(2,\), one per game; got shape \(1,\)",
        ),
        (np.array([[8, 8]]), r"got shape \(1, 2\)"),
        (np.array([8.0, 8.0]), "actions must be integers, got dtype float64"),
        (np.array([True, False]), "actions must be integers, got dtype bool"),
        (np.array([8, 16]), r"game 1: action 16 of player_0 is out of range \(0..15\)"),
        (np.array([-1, 8]), r"game 0: action -1 of player_0 is out of range"),
        (np.array([8, 11]), r"game 1: action 11 of player_0 is illegal \(pig answer: take the pig"),
        (  # named as given, not as it wraps in int64
            np.array([8, 2**64 - 1], np.uint64),
            r"game 1: action 18446744073709551615 of player_0 is out of range",
        ),
    ],
)
def test_bad_actions_are_refused_with_a_clear_error(dealt, actions, message):
    with pytest.raises(InputError, match=message):
        dealt.step(actions)


def test_an_illegal_action_error_lists_the_legal_ones(dealt):
    with pytest.raises(InputError, match=r"legal actions: .*8 \(pass, take top of draw pile\)"):
        dealt.step(np.array([8, 12]))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"num_envs": 0}, InputError, "num_envs=0 is out of range; allowed >= 1"),
        ({"num_envs": 2.5}, InputError, "num_envs must be an integer"),
        ({"learner_seat": 4}, InputError, "learner_seat=4 is out of range"),
        ({"opponents": ["random"]}, InputError, "a list of 3 of them"),
        ({"opponents": "nobody"}, ValueError, "nobody"),
        ({"autoreset_mode": "Disabled"}, InputError, "autoreset_mode"),
        ({"autoreset_mode": "junk"}, InputError, "choose one of 'NextStep', 'SameStep'"),
        ({"compiled": "no"}, InputError, "compiled must be None, True or False, got 'no'"),
        ({"render_mode": "human"}, InputError, "do not render"),
        ({"num_players": 9}, InputError, "num_players=9 is out of range"),
        ({"compiled": True, "max_cycles": 0}, InputError, "max_cycles=0 is out of range"),
    ],
)
def test_bad_arguments_are_refused(kwargs, error, message):
    with pytest.raises(error, match=message):
        VectorEnv("nobody_wants_it", **{"num_envs": 2, **kwargs})


def test_a_seed_whose_games_run_past_the_largest_is_refused_as_such():
    env = VectorEnv("nobody_wants_it", 4)
    with pytest.raises(InputError, match=r"for 4 games the seed must be at most 2\*\*63 - 4"):
        env.reset(seed=2**63 - 2)
    env.reset(seed=2**63 - 4)  # the largest: game 3 gets 2**63 - 1


def test_observe_refuses_seats_of_the_wrong_shape():
    env = MultiAgentVectorEnv("nobody_wants_it", 2)
    env.reset(seed=0)
    for seats, shape in (([0, 1, 2], r"\(3,\)"), ([[0, 1]], r"\(1, 2\)")):
        with pytest.raises(InputError, match=f"one integer or one per game .* got shape {shape}"):
            env.observe(seats)
    assert env.observe(np.array([0, 1]))[0].shape == (2, env.game.observation_size)


def test_the_vector_forms_refuse_to_run_after_close():
    """``close()`` lets the games go: using them after it is a clear error, not a silent
    success; closing twice is allowed (Gymnasium's ``VectorEnv.close`` itself is)."""
    from cardzoo.vector.sb3 import SB3VecEnv

    games = MultiAgentVectorEnv("nobody_wants_it", 2)
    games.reset(seed=0)
    gym_env = VectorEnv("nobody_wants_it", 2)
    gym_env.reset(seed=0)
    sb3_env = SB3VecEnv("nobody_wants_it", 2)
    sb3_env.reset()
    for env in (games, gym_env, sb3_env):
        env.close()
        env.close()
    zeros = np.zeros(2, np.int64)
    calls = (lambda: games.step(zeros), games.reset, lambda: games.observe(0),
             lambda: gym_env.step(zeros), gym_env.reset, sb3_env.reset)  # fmt: skip
    for call in calls:
        with pytest.raises(RuntimeError, match=r"called after close\(\); make a new environment"):
            call()


def test_sb3_vec_env_refuses_an_autoreset_mode():
    from cardzoo.vector.sb3 import SB3VecEnv

    with pytest.raises(InputError, match="autoreset_mode: SB3VecEnv resets each game in the step"):
        SB3VecEnv("nobody_wants_it", 2, autoreset_mode="NextStep")


def test_sb3_vec_env_says_why_it_has_no_images():
    """SB3's base raised a NotImplementedError with no message."""
    pytest.importorskip("stable_baselines3")
    from cardzoo.vector.sb3 import SB3VecEnv

    with pytest.raises(NotImplementedError, match="the vector forms do not render; for pictures"):
        SB3VecEnv("nobody_wants_it", 2).get_images()


def test_games_without_a_kernel_have_no_vector_form():
    with pytest.raises(InputError, match="henhouse has no vector form yet"):
        VectorEnv("henhouse", 2)


@each_game
def test_bad_seeds_and_options_are_refused(name):
    env = VectorEnv(name, 2)
    with pytest.raises(InputError, match="seed must be None or an integer >= 0"):
        env.reset(seed=-1)
    with pytest.raises(InputError, match=r"one per game needed \(2\), got 3"):
        env.reset(seed=[1, 2, 3])
    with pytest.raises(InputError, match=f"{name}: the vector environments deal from seeds only"):
        env.reset(options=CASES[name]["options"])
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(np.array([8, 8]))


def test_bad_input_deeper_down_is_an_input_error_too():
    with pytest.raises(InputError, match="unknown game"):
        VectorEnv(["nobody_wants_it"], 2)
    with pytest.raises(InputError, match="reset options must be a dict or None"):
        VectorEnv("nobody_wants_it", 2).reset(options="deck")
    with pytest.raises(InputError, match="returned None, not a cardzoo Agent"):
        VectorEnv("nobody_wants_it", 2, opponents=lambda game, seed: None)


@each_game
def test_search_opponents_are_refused_when_the_environment_is_made(name):
    """Search agents plan from the engine's state, which the vector forms do not keep: refused
    by the constructor (it used to be the first reset)."""
    with pytest.raises(InputError, match=f"{name}: opponent 'pimc' searches from the game's"):
        VectorEnv(name, 2, opponents=["random", "pimc:simulations=5"], num_players=3)


def test_a_saved_policy_opponent_that_does_not_exist_is_refused_when_made(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        VectorEnv("nobody_wants_it", 2, opponents=f"ppo:{tmp_path / 'nothing'}")


def test_a_max_cycles_the_learner_never_reaches_is_refused():
    env = VectorEnv("nobody_wants_it", 2, learner_seat=3, max_cycles=2)
    with pytest.raises(InputError, match="raise max_cycles"):
        env.reset(seed=0)


# ----------------------------------------------------------------------------------------------
# Stable-Baselines3
# ----------------------------------------------------------------------------------------------


@each_game
def test_maskable_ppo_trains_on_the_sb3_adapter_unmodified(name):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from cardzoo.vector.sb3 import SB3VecEnv

    env = SB3VecEnv(name, num_envs=8, **CASES[name]["config"])
    assert is_masking_supported(env)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(total_timesteps=512)
    assert model.num_timesteps == 512
    masks = get_action_masks(env)
    assert masks.shape == (8, env.env.game.num_actions) and masks.dtype == bool
    assert np.array_equal(masks, env.env.action_masks())


def test_the_sb3_adapter_follows_sb3s_conventions():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import VecMonitor

    from cardzoo.vector.sb3 import SB3VecEnv

    env = VecMonitor(SB3VecEnv("nobody_wants_it", num_envs=3, max_cycles=6, learner_seat=0))
    env.seed(4)
    observations = first = env.reset()
    assert observations.shape == (3, 55)
    rng = np.random.default_rng(0)
    for _ in range(10):
        observations, rewards, dones, infos = env.step(
            random_legal(env.env_method("action_masks"), rng)
        )
        assert rewards.dtype == np.float32 and isinstance(infos, list) and len(infos) == 3
        for index in np.flatnonzero(dones):
            assert infos[index]["TimeLimit.truncated"] is True  # cut at max_cycles=6
            assert infos[index]["terminal_observation"].shape == (55,)
            assert "episode" in infos[index]  # VecMonitor's
            assert observations[index][4:8].tolist() == [9.0] * 4  # the new deal
    again = SB3VecEnv("nobody_wants_it", num_envs=3, max_cycles=6, learner_seat=0)
    again.seed(4)
    assert np.array_equal(again.reset(), first)  # seed(s) then reset() deals the same games


def test_a_learner_seat_set_after_construction_is_checked_and_taken_at_the_next_deal():
    """Set out of range (directly or by SB3's set_attr), it played 1,000 deals and then asked to
    raise max_cycles; a negative seat ran as a drawn one."""
    pytest.importorskip("stable_baselines3")
    from cardzoo.vector.sb3 import SB3VecEnv

    env = SB3VecEnv("nobody_wants_it", num_envs=2, num_players=3, max_cycles=6, learner_seat=0)
    env.reset()
    for seat, message in [(3, "learner_seat=3 is out of range; allowed 0..2"),
                          (-5, "learner_seat=-5 is out of range; allowed 0..2"),
                          ("1", "learner_seat must be an integer, got '1'")]:  # fmt: skip
        with pytest.raises(InputError, match=re.escape(message)):
            env.set_attr("learner_seat", seat)
        with pytest.raises(InputError, match=re.escape(message)):
            env.env.learner_seat = seat
    with pytest.raises(InputError, match=re.escape("set them for every game (indices=None)")):
        env.set_attr("learner_seat", 1, indices=[1])  # SB3's convention: that game alone
    assert env.get_attr("learner_seat") == [0, 0]
    env.set_attr("learner_seat", 2, indices=[0, 1])
    rng, seats = np.random.default_rng(0), []
    for _ in range(12):  # max_cycles=6: every game is dealt again within these steps
        env.step(random_legal(env.action_masks(), rng))
        seats.append(env.env._seats.tolist())
    assert seats[0] == [0, 0] and seats[-1] == [2, 2]


def test_the_sb3_adapter_passes_reset_options_on():
    pytest.importorskip("stable_baselines3")
    from cardzoo.vector.sb3 import SB3VecEnv

    env = SB3VecEnv("nobody_wants_it", num_envs=2)
    env.set_options({"deck": [0] * 10})  # the game's own option: refused, as VectorEnv does
    with pytest.raises(InputError, match="the vector environments deal from seeds only"):
        env.reset()
    env.set_options({"colour": "red"})
    with pytest.warns(UserWarning, match="colour"):
        env.reset()
