"""Pretrained agents: ``make_agent(game, "pretrained")`` plays the policy shipped for a game,
refuses another player count by name, needs no torch, and appears wherever agents are listed."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from cardzoo.agents import agent_names, make_agent
from cardzoo.agents import policy as policy_module
from cardzoo.agents.policy import NumpyPolicy, PolicyAgent, save_policy
from cardzoo.envs import GAMES, load_game


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """A pretrained Nobody Wants It policy for 4 players, in a package folder of its own."""
    game = load_game("nobody_wants_it")
    layers = [(np.zeros((game.observation_size, game.num_actions), np.float32),
               np.arange(game.num_actions, dtype=np.float32), "Identity")]  # fmt: skip
    record = {
        "game": "nobody_wants_it",
        "params": game.params(),
        "observation_size": game.observation_size,
        "num_actions": game.num_actions,
    }
    save_policy(tmp_path / "nobody_wants_it.npz", NumpyPolicy(layers), record)
    monkeypatch.setattr(policy_module, "PRETRAINED", tmp_path)
    return game


def test_pretrained_plays_the_shipped_policy(shipped):
    agent = make_agent("nobody_wants_it", "pretrained", shipped, seed=0)
    assert isinstance(agent, PolicyAgent) and agent.name == "pretrained"
    observation = {"observation": np.zeros(shipped.observation_size, np.float32),
                   "action_mask": np.zeros(shipped.num_actions, np.int8)}  # fmt: skip
    observation["action_mask"][[2, 9]] = 1
    assert agent.act(observation) == 9  # the larger bias among the legal actions


def test_pretrained_refuses_another_player_count_by_name(shipped):
    with pytest.raises(ValueError, match="policies play .*'num_players': 4.*none was trained"):
        make_agent("nobody_wants_it", "pretrained", load_game("nobody_wants_it", num_players=3))


def test_pretrained_picks_the_policy_trained_for_the_games_parameters(tmp_path, monkeypatch):
    """Believe It or Not's variants see the same observation sizes: a policy trained on the
    quick variant must not play the standard one unnoticed. Each file plays its own variant."""
    monkeypatch.setattr(policy_module, "PRETRAINED", tmp_path)
    quick = load_game("believe_it_or_not", variant="quick")
    assert quick.observation_size == load_game("believe_it_or_not").observation_size
    _ship(tmp_path / "believe_it_or_not-quick.npz", quick, favourite=3)
    with pytest.raises(ValueError, match="'variant': 'quick'.*none was trained.*'standard'"):
        make_agent("believe_it_or_not", "pretrained", load_game("believe_it_or_not"))
    _ship(tmp_path / "believe_it_or_not.npz", load_game("believe_it_or_not"), favourite=5)
    observation = {"observation": np.zeros(quick.observation_size, np.float32),
                   "action_mask": np.ones(quick.num_actions, np.int8)}  # fmt: skip
    for params, favourite in (({"variant": "quick"}, 3), ({}, 5)):
        game = load_game("believe_it_or_not", **params)
        assert make_agent("believe_it_or_not", "pretrained", game).act(observation) == favourite


def _ship(path, game, favourite):
    bias = np.zeros(game.num_actions, np.float32)
    bias[favourite] = 1
    layers = [(np.zeros((game.observation_size, game.num_actions), np.float32), bias, "Identity")]
    record = {
        "game": "believe_it_or_not",
        "params": game.params(),
        "observation_size": game.observation_size,
        "num_actions": game.num_actions,
    }
    save_policy(path, NumpyPolicy(layers), record)


def test_pretrained_is_listed_only_where_a_policy_ships(shipped):
    assert agent_names("nobody_wants_it")[-1] == "pretrained"
    assert "pretrained" not in agent_names("henhouse")
    with pytest.raises(ValueError, match="cardzoo ships no pretrained policy for henhouse"):
        make_agent("henhouse", "pretrained", load_game("henhouse"))


def test_every_decision_game_ships_a_policy_and_its_model_card():
    from cardzoo.agents.profiles import PROFILES

    decision_games = [name for name, spec in GAMES.items() if spec.game_class().has_decisions]
    assert decision_games == ["nobody_wants_it", "believe_it_or_not", "minus_two", "foxy"]
    for game in decision_games:
        default = load_game(game, **PROFILES[game].training.get("params", {}))
        assert policy_module.pretrained_file(game, default) is not None, game
    for path in sorted(policy_module.PRETRAINED.glob("*.npz")):
        card = path.with_suffix(".md").read_text()
        assert card.startswith(f"# Pretrained agent: {path.stem}") and "95% CIs" in card


def test_every_shipped_policy_plays_its_game_without_torch():
    """The policies in the package load and play with numpy alone."""
    script = (
        "import sys\n"
        "from cardzoo.agents import make_agent\n"
        "from cardzoo.agents.policy import PRETRAINED\n"
        "from cardzoo.evaluation import play_match\n"
        "import json, numpy as np\n"
        "paths = sorted(PRETRAINED.glob('*.npz'))\n"
        "assert len(paths) >= 4, paths\n"
        "for path in paths:\n"
        "    with np.load(path) as archive:\n"
        "        info = json.loads(archive['info'].tobytes())\n"
        "    n = info['params'].get('num_players', 4)\n"
        "    params = {k: v for k, v in info['params'].items()}\n"
        "    play_match(info['game'], ['pretrained'] + ['random'] * (n - 1), n, params=params)\n"
        "assert 'torch' not in sys.modules\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
