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
from cardzoo.envs import load_game


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
    with pytest.raises(ValueError, match="the pretrained nobody_wants_it policy plays .*another"):
        make_agent("nobody_wants_it", "pretrained", load_game("nobody_wants_it", num_players=3))


def test_pretrained_is_listed_only_where_a_policy_ships(shipped):
    assert agent_names("nobody_wants_it")[-1] == "pretrained"
    assert "pretrained" not in agent_names("henhouse")
    with pytest.raises(ValueError, match="cardzoo ships no pretrained policy for henhouse"):
        make_agent("henhouse", "pretrained", load_game("henhouse"))


def test_every_decision_game_ships_a_policy_and_its_model_card():
    from cardzoo.agents.profiles import PROFILES

    decision_games = [name for name, agents in PROFILES.items() if agents.training is not None]
    for game in decision_games:
        assert (policy_module.PRETRAINED / f"{game}.npz").is_file(), game
        card = (policy_module.PRETRAINED / f"{game}.md").read_text()
        assert card.startswith(f"# Pretrained agent: {game}") and "95% CIs" in card


def test_every_shipped_policy_plays_its_game_without_torch():
    """The policies in the package load and play with numpy alone."""
    script = (
        "import sys\n"
        "from cardzoo.agents import make_agent\n"
        "from cardzoo.agents.policy import PRETRAINED\n"
        "from cardzoo.evaluation import play_match\n"
        "import json, numpy as np\n"
        "paths = sorted(PRETRAINED.glob('*.npz'))\n"
        "assert len(paths) == 4, paths\n"
        "for path in paths:\n"
        "    with np.load(path) as archive:\n"
        "        info = json.loads(archive['info'].tobytes())\n"
        "    n = info['params'].get('num_players', 4)\n"
        "    params = {k: v for k, v in info['params'].items()}\n"
        "    play_match(path.stem, ['pretrained'] + ['random'] * (n - 1), n, params=params)\n"
        "assert 'torch' not in sys.modules\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
