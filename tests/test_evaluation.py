"""The match runner, the simulation study, the cardzoo command and atomic writes."""

from __future__ import annotations

import json
import os
import re
import stat

import numpy as np
import pytest

from cardzoo.agents import RandomAgent, agent_classes, make_agent
from cardzoo.envs import henhouse_v0, load_game
from cardzoo.envs.helpers import game_rng_from_seed
from cardzoo.errors import InputError
from cardzoo.evaluation import (
    MatchResult,
    mean_interval,
    play_game,
    play_match,
    simulate,
    wilson_interval,
)
from cardzoo.io import write_json_atomic


def test_wilson_interval_known_values():
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)


def test_mean_interval_known_values():
    mean, low, high = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert (low, high) == pytest.approx(
        (2.5 - 1.96 * 1.2910 / 2, 2.5 + 1.96 * 1.2910 / 2), abs=1e-3
    )


def test_play_game_uses_the_deal_env_reset_seed_makes():
    env = henhouse_v0.raw_env(num_players=4)
    env.reset(seed=17)
    state = env.game.new_state(game_rng_from_seed(17))
    assert env.game.snapshot(env.state_) == env.game.snapshot(state)


def test_play_game_matches_the_environment_step_for_step():
    env = henhouse_v0.raw_env(num_players=3)
    agents = [RandomAgent(env.game, seed=i) for i in range(3)]
    record = play_game(env.game, agents, seed=5)
    env.reset(seed=5)
    steps = 0
    while not env.terminations[env.agent_selection]:
        env.step(0)
        steps += 1
    assert steps == record.length
    assert env.game.winners(env.state_).tolist() == record.winners.tolist()


def test_play_match_rotates_seats_and_mirrors_deals():
    result = play_match("henhouse", ["random", "random", "random"], 6, seed=3)
    assert [g.seed for g in result.games] == [3, 3, 3, 4, 4, 4]
    assert result.agents["random"].seat_games == 18
    # the same deal under every rotation, with no choices to make, has the same length
    assert len({g.length for g in result.games[:3]}) == 1


def test_play_match_without_mirroring_deals_every_game_anew():
    result = play_match("henhouse", ["random", "random"], 4, seed=0, mirrored=False)
    assert [g.seed for g in result.games] == [0, 1, 2, 3]


def test_play_match_pools_each_agent_over_its_seats():
    def named(name):
        def factory(game, seed):
            agent = RandomAgent(game, seed)
            return agent

        factory.name = name
        return factory

    result = play_match("henhouse", [named("a"), named("b")], 10, seed=0)
    a, b = result.agents["a"], result.agents["b"]
    assert a.seat_games == b.seat_games == 10
    assert a.wins + b.wins == 10  # henhouse always has exactly one winner
    summary = result.summary()
    assert summary["num_games"] == 10 and len(summary["agents"]) == 2
    assert "win rate" in result.table()


def test_play_match_bad_lineup_is_a_value_error():
    with pytest.raises(ValueError, match="lineup"):
        play_match("henhouse", ["random"] * 3, 2, params={"num_players": 4})
    with pytest.raises(ValueError, match="unknown agent"):
        play_match("henhouse", ["nobody", "random"], 2)
    with pytest.raises(ValueError, match="num_games"):
        play_match("henhouse", ["random", "random"], 0)


def test_simulate_reports_lengths_seats_and_longest_game():
    result = simulate("henhouse", 50, seed=0, params={"num_players": 4})
    assert result.seat_wins.sum() == 50  # one winner per game, no truncation at 20,000 steps
    assert not result.truncated.any()
    longest = int(np.argmax(result.lengths))
    env = henhouse_v0.raw_env(num_players=4)
    env.reset(seed=int(result.seeds[longest]))
    steps = 0
    while not env.terminations[env.agent_selection]:
        env.step(0)
        steps += 1
    assert steps == result.lengths.max()
    assert f"longest game: seed {result.seeds[longest]}" in result.table()


def test_simulate_counts_truncated_games():
    result = simulate("henhouse", 5, seed=0, params={"num_players": 2}, max_cycles=10)
    assert result.truncated.all() and result.seat_wins.sum() == 0
    assert "5 of 5" in result.table()


def test_registry_make_agent():
    game = henhouse_v0.raw_env().game
    assert isinstance(make_agent("henhouse", "random", game, seed=0), RandomAgent)
    assert list(agent_classes("henhouse")) == ["random"]
    with pytest.raises(ValueError, match="unknown game"):
        make_agent("chess", "random", game)


def test_random_agent_only_takes_legal_actions():
    agent = RandomAgent(henhouse_v0.raw_env().game, seed=0)
    mask = np.array([0, 1, 0, 1, 0], np.int8)
    actions = {agent.act({"observation": np.zeros(1), "action_mask": mask}) for _ in range(50)}
    assert actions == {1, 3}
    with pytest.raises(ValueError, match="no legal action"):
        agent.act({"observation": np.zeros(1), "action_mask": np.zeros(5, np.int8)})


def test_write_json_atomic_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "sub" / "data.json"
    write_json_atomic(target, {"a": 1})
    assert json.loads(target.read_text()) == {"a": 1}
    with pytest.raises(TypeError):
        write_json_atomic(target, {"a": object()})
    assert json.loads(target.read_text()) == {"a": 1}  # the old file survives a failed write
    assert [p.name for p in target.parent.iterdir()] == ["data.json"]


def test_agent_in_several_seats_gets_intervals_over_games():
    """Two random players in every Henhouse game: exactly one of them wins each game, so the
    pooled win rate is exactly 1/2 with no uncertainty once the within-game correlation is
    respected (seat-games counted as independent would give a wide Wilson interval)."""
    result = play_match("henhouse", ["random", "random"], 40, seed=0)
    summary = result.agents["random"].summary()
    assert summary["seats_per_game"] == 2 and summary["seat_games"] == 80
    assert summary["win_rate"] == 0.5
    assert summary["win_rate_ci"] == [0.5, 0.5]
    assert "intervals over games" in result.table()


def test_agent_in_one_seat_gets_the_wilson_interval():
    def single(game, seed):
        return RandomAgent(game, seed)

    single.name = "candidate"
    result = play_match("henhouse", [single, "random", "random"], 30, seed=0)
    candidate = result.agents["candidate"]
    assert candidate.summary()["win_rate_ci"] == list(
        wilson_interval(candidate.wins, candidate.seat_games)
    )


# ----------------------------------------------------------------------------------------------
# Bad arguments to the match runner: refused up front with a ValueError naming them
# ----------------------------------------------------------------------------------------------


def test_play_match_refuses_a_string_lineup():
    with pytest.raises(ValueError, match="lineup must be a list of agents"):
        play_match("henhouse", "random", 10)
    with pytest.raises(ValueError, match="lineup is empty"):
        play_match("henhouse", [], 10)
    with pytest.raises(ValueError, match="lineup entry 3"):
        play_match("henhouse", ["random", 3], 10)


@pytest.mark.parametrize("max_cycles", [0, -3, 2.5, True, "5"])
def test_play_match_refuses_bad_max_cycles(max_cycles):
    with pytest.raises(ValueError, match="max_cycles"):
        play_match("henhouse", ["random", "random"], 2, max_cycles=max_cycles)
    with pytest.raises(ValueError, match="max_cycles"):
        simulate("henhouse", 2, max_cycles=max_cycles)


def test_play_match_max_cycles_1_truncates_every_game():
    result = play_match("henhouse", ["random", "random"], 4, max_cycles=1)
    assert result.truncated == 4 and [g.length for g in result.games] == [1, 1, 1, 1]


@pytest.mark.parametrize("seed", [1.5, -1, True, "0", None])
def test_play_match_and_simulate_refuse_a_seed_that_is_not_an_int(seed):
    with pytest.raises(ValueError, match="seed"):
        play_match("henhouse", ["random", "random"], 2, seed=seed)
    with pytest.raises(ValueError, match="seed"):
        simulate("henhouse", 2, seed=seed)


def test_numpy_integers_are_accepted_as_seed_and_num_games():
    result = play_match("henhouse", ["random", "random"], np.int64(2), seed=np.int64(5))
    assert [g.seed for g in result.games] == [5, 5]


@pytest.mark.parametrize("num_games", [0, -1, 2.0])
def test_simulate_zero_games_is_a_value_error_up_front(num_games):
    with pytest.raises(ValueError, match="num_games"):
        simulate("henhouse", num_games)
    with pytest.raises(ValueError, match="num_games"):
        play_match("henhouse", ["random", "random"], num_games)


def test_play_match_refuses_params_that_are_not_a_dict():
    with pytest.raises(ValueError, match="params must be a dict"):
        play_match("henhouse", ["random", "random"], 2, params=[("num_players", 2)])


def test_results_report_the_game_s_full_parameters():
    result = play_match("nobody_wants_it", ["random", "random"], 2)
    assert result.params == {"num_players": 2, "num_rounds": 3, "reward": "win"}
    assert simulate("henhouse", 2).params == {"num_players": 4}


def test_numpy_values_in_params_serialize(tmp_path):
    result = play_match("henhouse", ["random"] * 4, 4, params={"num_players": np.int64(4)})
    write_json_atomic(tmp_path / "r.json", result.summary())
    assert json.loads((tmp_path / "r.json").read_text())["params"] == {"num_players": 4}


# ----------------------------------------------------------------------------------------------
# Atomic writes
# ----------------------------------------------------------------------------------------------


def test_write_json_atomic_converts_numpy_scalars_and_arrays(tmp_path):
    data = {
        "n": np.int64(4),
        "x": np.float32(0.5),
        "ok": np.bool_(True),
        "a": np.arange(3),
        np.int64(2): [np.int8(1), (np.float64(2.5),)],
    }
    write_json_atomic(tmp_path / "d.json", data)
    assert json.loads((tmp_path / "d.json").read_text()) == {
        "n": 4,
        "x": 0.5,
        "ok": True,
        "a": [0, 1, 2],
        "2": [1, [2.5]],
    }


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_write_json_atomic_new_file_mode_follows_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        write_json_atomic(tmp_path / "new.json", {"a": 1})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == mode


def test_write_json_atomic_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    target = tmp_path / "old.json"
    target.write_text("{}")
    target.chmod(0o640)
    write_json_atomic(target, {"a": 2})
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert json.loads(target.read_text()) == {"a": 2}


def test_a_mask_only_agent_is_not_handed_an_observation_and_plays_the_same_games():
    from cardzoo.agents import RandomAgent, take_turn
    from cardzoo.envs import nobody_wants_it_v0

    game = nobody_wants_it_v0.raw_env().game
    seen = []

    class Recorder(RandomAgent):
        def act(self, observation):
            seen.append(set(observation))
            return super().act(observation)

    state = game.new_state(np.random.default_rng(0))
    take_turn(game, state, Recorder(game, seed=0))
    assert seen == [{"action_mask"}]
    # the match results of random play do not depend on whether observations were built
    first = play_match("nobody_wants_it", ["random"] * 4, 8, seed=3).summary()
    RandomAgent.uses_observation = True
    try:
        second = play_match("nobody_wants_it", ["random"] * 4, 8, seed=3).summary()
    finally:
        RandomAgent.uses_observation = False
    assert first == second


def test_wilson_interval_is_exactly_zero_or_one_at_the_extremes():
    assert wilson_interval(0, 1000)[0] == 0.0
    assert wilson_interval(1000, 1000)[1] == 1.0


def test_a_match_record_reads_back_exactly():
    match = play_match("minus_two", ["random", "attacker", "random"], 6, seed=2, max_cycles=40)
    assert match.truncated > 0  # truncated games (no winners) read back too
    again = MatchResult.from_json(json.loads(json.dumps(match.to_json())))
    assert again.to_json() == match.to_json() and again.summary() == match.summary()
    for record, read in zip(match.games, again.games):
        for name in ("rewards", "scores", "winners"):
            assert getattr(read, name).dtype == getattr(record, name).dtype
            assert np.array_equal(getattr(read, name), getattr(record, name))
    assert again.agents == match.agents


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda data: data.pop("games"), "not a match record (KeyError: 'games')"),
        (lambda data: data["games"][1]["winners"].pop(), "a game has not one number per seat"),
        (lambda data: data["games"][0].update(seed="3"), "seed is not an integer: '3'"),
        (lambda data: data.update(mirrored=1), "mirrored is not true or false: 1"),
        (lambda data: data["agents"][0].update(colour="red"), "not a match record (TypeError"),
    ],
)
def test_a_damaged_match_record_is_refused(damage, message):
    data = play_match("nobody_wants_it", ["random", "nwi_dodger"], 2, seed=0).to_json()
    damage(data)
    with pytest.raises(InputError, match=re.escape(message)):
        MatchResult.from_json(data)


def test_play_game_refuses_agents_that_cannot_sit_at_its_table():
    """The wrong number of agents, a name instead of an agent, and an agent built for another
    player count each failed inside the rules (IndexError, AttributeError, ZeroDivisionError)
    or, with one agent too many, played a game and ignored it."""
    game = load_game("nobody_wants_it", num_players=3)
    other = load_game("nobody_wants_it", num_players=4)
    agents = [make_agent("nobody_wants_it", "random", game, seed=i) for i in range(3)]
    with pytest.raises(InputError, match="nobody_wants_it has 3 seats; got 2 agents"):
        play_game(game, agents[:2], 0)
    with pytest.raises(InputError, match="has 3 seats; got 4 agents"):
        play_game(game, [*agents, agents[0]], 0)
    with pytest.raises(InputError, match=r"agents\[1\] is 'random', not a cardzoo Agent"):
        play_game(game, [agents[0], "random", agents[2]], 0)
    dodger = make_agent("nobody_wants_it", "nwi_dodger", other, seed=0)
    refusal = (
        r"agents\[2\] was built for \w+ \{'num_players': 4.*cannot play \w+ \{'num_players': 3"
    )
    with pytest.raises(InputError, match=refusal):
        play_game(game, [*agents[:2], dodger], 0)
    points = load_game("nobody_wants_it", num_players=3, reward="points")
    same_seats = make_agent("nobody_wants_it", "nwi_dodger", points, seed=0)
    assert play_game(game, [*agents[:2], same_seats], 0).length > 0  # the reward aside


def test_an_agent_factory_for_another_player_count_is_refused_where_it_is_built():
    """The Gymnasium view failed mid-episode with 'action -1 of player_2 is out of range'."""
    import gymnasium

    four = load_game("nobody_wants_it", num_players=4)
    env = gymnasium.make("cardzoo/NobodyWantsIt-v0", num_players=3,
                         opponents=lambda g, s: make_agent("nobody_wants_it", "nwi_dodger", four,
                                                           seed=s))  # fmt: skip
    with pytest.raises(InputError, match="was built for nobody_wants_it {'num_players': 4"):
        env.reset(seed=0)


@pytest.mark.parametrize("seed", [-1, 1.5, True, [1, 2], "3"])
def test_an_agent_seed_follows_the_seed_rule(seed):
    """None, an integer >= 0 or a numpy Generator; -1 gave numpy's message, 1.5 a TypeError,
    True and [1, 2] were taken."""
    game = load_game("nobody_wants_it")
    with pytest.raises(InputError, match="seed must be None or an integer >= 0"):
        make_agent("nobody_wants_it", "random", game, seed=seed)
    agent = make_agent("nobody_wants_it", "random", game, seed=0)
    with pytest.raises(InputError, match="seed must be None or an integer >= 0"):
        agent.reseed(seed)
    assert make_agent("nobody_wants_it", "random", game, seed=np.uint8(3)).unmade_seed() == 3


def test_a_win_rate_without_spread_among_games_gets_wilsons_interval_over_games():
    """nwi_dodger beats two random players in every one of these 3 games: the random seats'
    per-game shares are all 0, and their interval is Wilson's over 3 games, not [0, 0]."""
    result = play_match("nobody_wants_it", ["nwi_dodger", "random", "random"], 3)
    random_agent = result.agents["random"].summary()
    assert random_agent["wins"] == 0 and random_agent["seat_games"] == 6
    assert random_agent["win_rate_ci"] == list(wilson_interval(0, 3))


def test_a_match_record_read_back_compares_equal_and_keeps_seed_and_max_cycles():
    result = play_match("nobody_wants_it", ["nwi_dodger", "random", "random"], 4, seed=7)
    again = MatchResult.from_json(json.loads(json.dumps(result.to_json())))
    assert again == result and again.games[0] == result.games[0]
    assert (result.summary()["seed"], result.summary()["max_cycles"]) == (7, 1500)
    changed = MatchResult.from_json(result.to_json())
    changed.games[0].scores = changed.games[0].scores + 1
    assert changed != result
    assert "(the last deal in 1 of its 3 seatings)" in result.table()


def test_an_agent_object_in_a_lineup_is_refused_with_what_to_give_instead():
    game = load_game("nobody_wants_it", num_players=2)
    agent = make_agent("nobody_wants_it", "random", game)
    with pytest.raises(InputError, match="is an agent, not a name or a factory"):
        play_match("nobody_wants_it", ["random", agent], 2)
    with pytest.raises(InputError, match="game must be a cardzoo Game"):
        play_game("nobody_wants_it", [agent, agent], 0)


def test_long_agent_names_do_not_run_into_the_next_column():
    name = "pimc:simulations=20:rollout=random"
    table = play_match("nobody_wants_it", [name, "random"], 2).table().splitlines()
    row = next(line for line in table if line.startswith(name))
    assert re.search(r"\] +[+-]\d", row)  # a space between the win rate and the reward


def test_a_seed_in_an_agents_name_is_mixed_into_its_seed_for_every_game():
    def games(name):
        played = play_match("nobody_wants_it", [name, "random"], 4, parallel=1)
        return [(g.scores.tolist(), g.length) for g in played.games]

    first = games("pimc:simulations=8:seed=1")
    assert games("pimc:simulations=8:seed=1") == first  # the same name: the same games
    assert games("pimc:simulations=8:seed=2") != first  # it was ignored: the same games


def test_a_factory_that_returns_one_agent_object_twice_is_refused_before_any_game():
    """The docs asked a factory for a new agent at every call, and nothing checked it: one
    recurrent or counting agent in two seats (or two game slots) mixes the memories of two
    games without an error (a review of the memory features)."""
    from cardzoo.evaluation import play_match

    game = load_game("foxy", memory="none")
    shared = make_agent("foxy", "pretrained", game, seed=0)
    with pytest.raises(InputError, match="a factory returned an agent it had returned before"):
        play_match("foxy", [lambda g, s: shared, "forgetful"], 4, params={"memory": "none"})
    with pytest.raises(InputError, match="must return a new agent at every call"):
        play_match("foxy", [lambda g, s: shared, lambda g, s: shared], 2, parallel=1,
                   params={"memory": "none"})  # fmt: skip
    fresh = play_match("foxy", [lambda g, s: make_agent("foxy", "pretrained", g, seed=s),
                                "forgetful"], 4, params={"memory": "none"})  # fmt: skip
    assert len(fresh.games) == 4


def test_a_seed_of_0_in_an_agents_name_is_a_seed_of_its_own():
    """numpy's SeedSequence drops trailing zeros: ``pimc:...:seed=0`` played exactly the games
    of ``pimc:...`` without a seed, so a seed sweep beside the unseeded agent counted one
    sample twice (a review)."""
    from cardzoo.evaluation import agent_seed

    seeds = {agent_seed(7, 3, 1, named) for named in (None, 0, 1, 2**64 - 1)}
    assert len(seeds) == 4
    unseeded = play_match("nobody_wants_it", ["pimc:simulations=24", "random", "random"], 3)
    seed_0 = play_match("nobody_wants_it", ["pimc:simulations=24:seed=0", "random", "random"], 3)
    assert [g.scores.tolist() for g in unseeded.games] != [g.scores.tolist() for g in seed_0.games]


def test_a_mean_of_one_game_is_printed_without_an_interval():
    """One game shows no spread (mean_interval's Decision: NaN bounds); the table printed
    "[+nan, +nan]" (a review of bad input). The JSON keeps null."""
    result = play_match("nobody_wants_it", ["random", "nwi_dodger"], 1, seed=0)
    rows = result.table().splitlines()[2:]
    assert [row.split()[5:] for row in rows] == [
        ["-1.000", "[n/a]", "+27.000", "[n/a]"],
        ["+1.000", "[n/a]", "+6.000", "[n/a]"],
    ]
    assert "nan" not in result.table()
