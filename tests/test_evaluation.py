"""The match runner, the simulation study, the cardzoo command and atomic writes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardzoo import cli
from cardzoo.agents import RandomAgent, agent_classes, make_agent
from cardzoo.envs import henhouse_v0
from cardzoo.envs.core import game_rng_from_seed
from cardzoo.evaluation import mean_interval, play_game, play_match, simulate, wilson_interval
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


def test_cli_list(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ("henhouse_v0", "nobody_wants_it_v0", "foxy_v0"):
        assert name in out


def test_cli_simulate(capsys):
    assert cli.main(["simulate", "henhouse", "--players", "3", "--games", "20", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "20 games of random play" in out and "player_2:" in out


def test_cli_match_writes_json(tmp_path, capsys):
    out_file = tmp_path / "result.json"
    code = cli.main(
        [
            "match",
            "henhouse",
            "--agents",
            "random,random",
            "--games",
            "4",
            "--quiet",
            "--out",
            str(out_file),
        ]
    )
    assert code == 0
    data = json.loads(out_file.read_text())
    assert data["num_games"] == 4 and data["agents"][0]["agent"] == "random"


def test_cli_bad_parameters_exit_2_with_a_message(capsys):
    assert cli.main(["simulate", "henhouse", "--players", "9", "--games", "1", "--quiet"]) == 2
    assert "num_players" in capsys.readouterr().err
    assert cli.main(["simulate", "henhouse", "--games", "0"]) == 2
    with pytest.raises(SystemExit):
        cli.main(["simulate", "no_such_game"])


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
