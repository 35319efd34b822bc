"""The table layer's one loop (:class:`cardzoo.table.Table`), ``load_game`` and the facts games
declare about themselves, and the agent factory's names."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardzoo.agents import build_agent, game_agents, make_agent, take_turn
from cardzoo.agents.policy import NumpyPolicy, save_policy
from cardzoo.envs import GAMES, load_game
from cardzoo.envs.helpers import game_rng_from_seed
from cardzoo.envs.registry import GameSpec
from cardzoo.errors import InputError
from cardzoo.table import Table

# ----------------------------------------------------------------------------------------------
# load_game and the games' facts
# ----------------------------------------------------------------------------------------------


def test_load_game_builds_the_engine_with_its_parameters():
    game = load_game("nobody_wants_it", num_players=3, reward="points")
    assert type(game).__name__ == "NobodyWantsIt"
    assert game.params() == {"num_players": 3, "num_rounds": 3, "reward": "points"}


def test_load_game_refuses_an_unknown_parameter_naming_it():
    with pytest.raises(ValueError, match="minus_two has no parameter 'max_cycles'; its param"):
        load_game("minus_two", max_cycles=10)
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        load_game("chess")


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("believe_it_or_not_v1", "games are named without their version here: "
         "'believe_it_or_not'"),
        ("believe_it_or_not_v0", "this cardzoo has believe_it_or_not_v1, named "
         "'believe_it_or_not' (a game's results are comparable within one version"),
        ("foxy_v0", "games are named without their version here: 'foxy'"),
    ],
)  # fmt: skip
def test_a_versioned_game_name_is_refused_with_the_name_the_library_takes(name, hint):
    """``cardzoo list`` and the PettingZoo modules spell games with their version; the Python
    API answered such a name with a bare "unknown game"."""
    from cardzoo.agents.profiles import game_agents

    for call in (load_game, game_agents):
        with pytest.raises(ValueError) as refused:
            call(name)
        assert str(refused.value).startswith(f"unknown game {name!r}; choose one of [")
        assert hint in str(refused.value)
    with pytest.raises(ValueError) as refused:
        load_game("chess")
    assert str(refused.value).endswith("'minus_two', 'foxy']")  # no hint for another name


@pytest.mark.parametrize(
    "name, players, direction, points, objective, simultaneous, decisions, resampler",
    [
        ("henhouse", (2, 8), 1, False, "win", False, False, False),
        ("nobody_wants_it", (2, 7), -1, True, "win", False, True, True),
        ("believe_it_or_not", (2, 6), -1, False, "win", False, True, True),
        ("minus_two", (2, 6), -1, True, "win", False, True, True),
        ("foxy", (1, 5), 1, True, "points", True, True, False),
    ],
)
def test_each_game_declares_its_facts(
    name, players, direction, points, objective, simultaneous, decisions, resampler
):
    game = load_game(name)
    assert (game.min_players, game.max_players) == players
    assert game.score_direction == direction
    assert game.has_points_reward == points
    assert game.objective == objective
    assert game.simultaneous == simultaneous
    assert game.has_decisions == decisions
    assert game.can_resample() == resampler


@pytest.mark.parametrize("name", list(GAMES))
def test_a_games_player_range_is_the_one_its_engine_accepts(name):
    game_class = GAMES[name].game_class()
    low, high = game_class.min_players, game_class.max_players
    assert load_game(name, num_players=low).num_players == low
    assert load_game(name, num_players=high).num_players == high
    for outside in (low - 1, high + 1):
        with pytest.raises(InputError, match=f"num_players={outside} is out of range"):
            load_game(name, num_players=outside)


@pytest.mark.parametrize("name", list(GAMES))
def test_a_game_without_decisions_has_one_legal_action_at_every_step(name):
    game = load_game(name)
    state, steps = game.new_state(game_rng_from_seed(1)), 0
    most_legal = 0
    while not state.terminal and steps < 300:
        legal = np.flatnonzero(game.legal_mask(state, state.current_player))
        most_legal = max(most_legal, legal.size)
        game.apply(state, int(legal[0]))
        steps += 1
    assert (most_legal > 1) == game.has_decisions


@pytest.mark.parametrize("name", list(GAMES))
def test_a_game_has_heuristics_and_training_defaults_exactly_when_it_has_decisions(name):
    """``Game.has_decisions`` decides; the agents' profile of the game follows it."""
    agents = game_agents(name)
    decides = GAMES[name].game_class().has_decisions
    assert bool(agents.heuristics) == decides
    assert (agents.best is not None) == decides
    assert bool(agents.training) == decides


def test_the_list_of_games_holds_no_fact_of_a_game():
    """A game's facts live on its engine class; the list holds only its name and the parameter
    sets the shared tests play (a copy there could disagree with the engine)."""
    assert [field.name for field in dataclasses.fields(GameSpec)] == ["name", "test_variants"]
    for name, spec in GAMES.items():
        assert spec.game_class() is spec.module().raw_env.game_class
        assert spec.game_class().name == name


def test_pettingzoo_registers_a_parallel_form_for_exactly_the_simultaneous_games():
    import pettingzoo

    import cardzoo  # noqa: F401  (registers the games)

    parallel = {spec.name for spec in GAMES.values() if spec.game_class().simultaneous}
    assert parallel == {"foxy"}
    registered = {key for key in pettingzoo.parallel_registry if key.startswith("cardzoo/")}
    assert registered == {f"cardzoo/{name}-v0" for name in parallel}
    assert all(hasattr(GAMES[name].module(), "parallel_env") for name in parallel)
    assert not any(hasattr(GAMES[name].module(), "parallel_env") for name in set(GAMES) - parallel)


# ----------------------------------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------------------------------


def _random_table(max_cycles: int, seed: int = 5) -> Table:
    game = load_game("nobody_wants_it", num_players=3, reward="points")
    agents = [make_agent("nobody_wants_it", "random", game, seed=seat) for seat in range(3)]
    return Table(game, game.new_state(game_rng_from_seed(seed)), agents, max_cycles)


def test_play_stops_when_the_given_seat_must_decide():
    table = _random_table(10_000)
    table.play(until=2)
    assert table.state.current_player == 2 and not table.over
    assert table.steps == 2  # player_0 and player_1 moved first


def test_the_step_that_truncates_the_game_earns_nothing():
    reference = _random_table(10_000)
    game, state, agents = reference.game, reference.state, reference.agents
    paying_step, step_rewards = 0, None
    while step_rewards is None:  # the first step that pays points: the end of a round
        step_rewards = take_turn(game, state, agents[state.current_player])
        paying_step += 1
    truncated = _random_table(paying_step)
    earned = truncated.play()
    assert truncated.truncated and truncated.steps == paying_step
    assert earned.tolist() == [0.0, 0.0, 0.0] and truncated.rewards.tolist() == [0.0, 0.0, 0.0]
    one_more = _random_table(paying_step + 1)
    one_more.play()
    assert one_more.rewards.tolist() == step_rewards.tolist() != [0.0, 0.0, 0.0]


def test_a_seat_decided_outside_is_played_with_step():
    table = _random_table(10_000)
    table.agents[1] = None
    table.play(until=1)
    legal = np.flatnonzero(table.game.legal_mask(table.state, 1))
    table.step(int(legal[0]))
    assert table.state.current_player != 1 and table.steps == 2
    with pytest.raises(ValueError, match="illegal|not legal"):
        table.step(int(np.flatnonzero(table.game.legal_mask(table.state, 2) == 0)[0]))


# ----------------------------------------------------------------------------------------------
# The agent factory
# ----------------------------------------------------------------------------------------------


def test_a_factory_that_returns_no_agent_is_named():
    game = load_game("henhouse")

    def broken(game, seed):
        return None

    broken.name = "broken"
    with pytest.raises(ValueError, match="agent factory 'broken' returned None, not a cardzoo"):
        build_agent("henhouse", broken, game, 0)


def test_an_agent_without_parameters_refuses_them():
    game = load_game("nobody_wants_it")
    with pytest.raises(ValueError, match="^agent 'nwi_dodger' takes no parameters, got 'depth=3'$"):
        make_agent("nobody_wants_it", "nwi_dodger:depth=3", game)
    with pytest.raises(ValueError, match="unknown policy kind 'xyz' in agent 'xyz:1'"):
        make_agent("nobody_wants_it", "xyz:1", game)


def test_a_stacked_policy_opponent_keeps_one_frame_buffer_per_seat(tmp_path):
    """Two seats playing one saved policy with a frame stack never share its buffer."""
    from cardzoo.training.sampler import OpponentMix

    game = load_game("nobody_wants_it", num_players=3)
    size = game.observation_size * 2
    layers = [(np.eye(size, game.num_actions, dtype=np.float32),
               np.zeros(game.num_actions, np.float32), "Identity")]  # fmt: skip
    record = {
        "game": "nobody_wants_it",
        "params": game.params(),
        "frame_stack": 2,
        "observation_size": game.observation_size,
        "num_actions": game.num_actions,
    }
    save_policy(tmp_path / "policy.npz", NumpyPolicy(layers), record)
    mix = OpponentMix("nobody_wants_it", {f"ppo:{tmp_path}": 1.0})
    rng = np.random.default_rng(0)
    first, second = mix.draw(game, 0, 1, rng), mix.draw(game, 0, 2, rng)
    assert first.inputs.frame_stack == 2
    assert first.inputs is not second.inputs
    observation = np.ones(game.observation_size, np.float32)
    first.inputs(observation)
    assert not second.inputs._frames.any()  # what the first seat saw is not in the second's


# ----------------------------------------------------------------------------------------------
# Many games at once: the same games as one at a time
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "game_name, lineup, params",
    [
        ("henhouse", ["random"] * 3, {}),
        ("nobody_wants_it", ["nwi_dodger", "hand_shedder", "random", "random"], {}),
        ("believe_it_or_not", ["bluffer", "honest", "random"], {"variant": "quick"}),
        ("minus_two", ["attacker", "high_cards", "random"], {}),
        ("foxy", ["perfect_memory", "forgetful", "random"], {}),
    ],
)
def test_games_side_by_side_are_the_games_played_one_at_a_time(game_name, lineup, params):
    from cardzoo.evaluation import play_match

    alone = play_match(game_name, lineup, 12, seed=5, params=params, parallel=1)
    together = play_match(game_name, lineup, 12, seed=5, params=params, parallel=12)
    for one, other in zip(alone.games, together.games):
        assert (one.seed, one.length, one.truncated) == (other.seed, other.length, other.truncated)
        assert one.rewards.tolist() == other.rewards.tolist()
        assert one.scores.tolist() == other.scores.tolist()
        assert one.winners.tolist() == other.winners.tolist()
    assert alone.summary() == together.summary()


def test_policy_seats_deciding_together_choose_from_the_same_probabilities():
    """act_batch's one forward pass gives every seat the distribution its own act() would
    (within float tolerance: a batched matrix product may round differently), and the same
    most likely action."""
    from cardzoo.agents.policy import PolicyAgent

    game = load_game("minus_two", num_players=3)
    rng = np.random.default_rng(0)
    size, actions = game.observation_size, game.num_actions
    layers = [(rng.normal(size=(size, 64)).astype(np.float32), np.zeros(64, np.float32), "Tanh"),
              (rng.normal(size=(64, actions)).astype(np.float32), np.zeros(actions, np.float32),
               "Identity")]  # fmt: skip
    policy = NumpyPolicy(layers)
    agents = [PolicyAgent(game, policy, seed=seed) for seed in range(6)]
    states = [game.new_state(game_rng_from_seed(seed)) for seed in range(6)]
    observations = np.stack([game.observe(state, state.current_player) for state in states])
    masks = np.stack([game.legal_mask(state, state.current_player) for state in states])

    def probabilities(logits, mask):
        logits = np.where(mask.astype(bool), logits, -np.inf)
        exp = np.exp(logits - logits.max(axis=-1, keepdims=True))
        return exp / exp.sum(axis=-1, keepdims=True)

    batched = probabilities(policy.logits(agents[0].inputs.scaler(observations.copy())), masks)
    together = PolicyAgent.act_batch(agents, observations, masks)
    for row, agent in enumerate(agents):
        alone = probabilities(policy.logits(agent.inputs(observations[row].copy())), masks[row])
        np.testing.assert_allclose(batched[row], alone, rtol=1e-5, atol=1e-7)
        assert together[row] == agent.act({"observation": observations[row],
                                           "action_mask": masks[row]})  # fmt: skip


def test_sampling_seats_deciding_together_draw_what_choice_draws():
    """choices (a sampling policy agent's draws in act_batch): for 3,000 rows of distributions
    with impossible actions, each row's draw with its own generator is exactly the one
    Generator.choice makes from that row alone; a row that is no distribution gets choice's
    error."""
    from cardzoo.agents.policy import choices

    rng = np.random.default_rng(5)
    for _ in range(300):
        size, rows = int(rng.integers(2, 60)), 10
        logits = rng.normal(0, 3, (rows, size)).astype(np.float32)
        logits[rng.random((rows, size)) < 0.4] = -np.inf
        logits[:, 0] = np.maximum(logits[:, 0], 0)
        together = np.exp(logits - logits.max(axis=1, keepdims=True))
        together /= together.sum(axis=1, keepdims=True)
        seeds = rng.integers(0, 2**31, rows)
        drawn = choices(together, [np.random.default_rng(seed) for seed in seeds])
        for row, seed in zip(range(rows), seeds):
            alone = np.exp(logits[row] - logits[row].max())
            alone /= alone.sum()
            assert drawn[row] == np.random.default_rng(seed).choice(size, p=alone)
    with pytest.raises(ValueError, match="Probabilities contain NaN"):
        choices(np.array([[0.5, np.nan]]), [np.random.default_rng(0)])


def test_sampling_policy_seats_draw_from_the_softmax_exactly_as_choices_draws():
    """_sampled, the sampling seats' path of act_batch (training's opponents: one to a few rows
    a pass), draws for masked logits exactly what choices draws from their softmax computed
    the plain way, row by row the same generator calls; a NaN row gets choice's error."""
    from cardzoo.agents.policy import _sampled, choices

    rng = np.random.default_rng(9)
    for _ in range(500):
        size, rows = int(rng.integers(2, 40)), int(rng.integers(1, 6))
        logits = rng.normal(0, 3, (rows, size)).astype(np.float32)
        logits[rng.random((rows, size)) < 0.4] = -np.inf
        logits[:, -1] = np.maximum(logits[:, -1], 0)
        plain = np.exp(logits - logits.max(axis=1, keepdims=True))
        plain /= plain.sum(axis=1, keepdims=True)
        seeds = rng.integers(0, 2**31, rows)
        fast = [np.random.default_rng(seed) for seed in seeds]
        slow = [np.random.default_rng(seed) for seed in seeds]
        assert _sampled(logits.copy(), fast).tolist() == choices(plain, slow).tolist()
        assert [g.random() for g in fast] == [g.random() for g in slow]  # as many draws

    # the sums in float64, as choice makes them: ten equal actions, a draw between 0.1 and the
    # first float32 sum (0.0999999896) takes the first action, not the second
    class Drawn:
        def random(self) -> float:
            return 0.099999995

    assert _sampled(np.zeros((1, 10), np.float32), [Drawn()]).tolist() == [0]  # type: ignore[list-item]
    with pytest.raises(ValueError, match="Probabilities contain NaN"):
        _sampled(np.array([[0.5, np.nan]], np.float32), [np.random.default_rng(0)])
