"""Blind positions (Believe It or Not): a trained policy that turns, peeks and lays its cards
as the heuristics do (docs/training.md, "Positions"; docs/believe_it_or_not.md, **Decision
(blind positions)**)."""

from __future__ import annotations

import collections
import json

import numpy as np
import pytest
from test_believe_it_or_not_rules import P0_THREE, P1_THREE, P2_THREE, SPECIALS, deck, lead

from cardzoo.agents import make_agent
from cardzoo.agents.believe_it_or_not import BlindPositions
from cardzoo.agents.policy import (
    BLIND_POLICY_FORMAT,
    POLICY_FORMAT,
    PRETRAINED,
    NumpyPolicy,
    PolicyAgent,
    read_policy,
    save_policy,
)
from cardzoo.cli import main
from cardzoo.envs import believe_it_or_not_v1, load_game
from cardzoo.envs.believe_it_or_not.rules import (
    ADD_CARD,
    BUILD,
    CHOOSE_PEEK,
    CHOOSE_TURN,
    DOUBT,
    FINISH,
    PEEK_AT,
    PLAY_PEEK,
    TURN_CARD,
)
from cardzoo.errors import InputError, SettingError
from cardzoo.evaluation import play_match
from cardzoo.training.exploit import exploit_config
from cardzoo.training.ppo import TrainConfig


def some_policy(game, seed: int = 0) -> NumpyPolicy:
    """A fixed policy of random weights that fits ``game``."""
    rng = np.random.default_rng(seed)
    size, hidden = game.observation_size, 16
    actions = int(game.num_actions)
    first = rng.normal(size=(size, hidden)).astype(np.float32)
    second = rng.normal(size=(hidden, actions)).astype(np.float32)
    return NumpyPolicy(
        [(first, np.zeros(hidden, np.float32), "Tanh"), (second, np.zeros(actions), "Identity")]
    )


def record(game) -> dict:
    """What a policy file records of its game."""
    return {
        "game": game.name,
        "params": game.params(),
        "observation_size": int(game.observation_size),
        "num_actions": int(game.num_actions),
    }


def blind_agent(game, seed: int = 0, policy: NumpyPolicy | None = None) -> PolicyAgent:
    return PolicyAgent(game, policy or some_policy(game), seed=seed, positions="blind")


def three_players_after_a_lead():
    """player_0 leads cat with cat, dog, cow (card 0 true, cards 1 and 2 lies); player_1, who
    holds a peek, is to respond."""
    env = believe_it_or_not_v1.raw_env(num_players=3, **SPECIALS)
    env.reset(seed=0, options={"deck": deck(P0_THREE, P1_THREE, P2_THREE)})
    lead(env, "cat", ["cat", "dog", "cow"])
    return env


def observation(env) -> dict[str, np.ndarray]:
    player = env.state_.current_player
    return {
        "observation": env.game.observe(env.state_, player),
        "action_mask": env.game.legal_mask(env.state_, player),
    }


def decision(env) -> int:
    vector = observation(env)["observation"]
    return int(np.argmax(vector[env.game.observation_layout["decision"]]))


@pytest.mark.parametrize("peeked, turned", [(1, 1), (2, 2)])
def test_decision_blind_positions_turns_a_peeked_lie(peeked, turned):
    env = three_players_after_a_lead()
    env.step(PLAY_PEEK)
    env.step(PEEK_AT + peeked)  # a dog or a cow: a lie
    env.step(DOUBT)
    assert decision(env) == CHOOSE_TURN
    agent = blind_agent(env.game, seed=5)
    assert agent.act(observation(env)) == TURN_CARD + turned


def test_decision_blind_positions_never_turns_a_peeked_true_card_and_draws_among_the_others():
    """Having peeked the true cat (card 0), it turns card 1 or card 2, drawn from its
    generator: seed 0 turns card 2, seed 1 card 1; over 200 seeds each about as often."""
    env = three_players_after_a_lead()
    env.step(PLAY_PEEK)
    env.step(PEEK_AT + 0)
    env.step(DOUBT)
    turned = [blind_agent(env.game, seed).act(observation(env)) for seed in range(200)]
    assert turned[:2] == [TURN_CARD + 2, TURN_CARD + 1]
    counts = collections.Counter(turned)
    assert set(counts) == {TURN_CARD + 1, TURN_CARD + 2}
    assert 75 <= counts[TURN_CARD + 1] <= 125, counts


def test_decision_blind_positions_turns_and_peeks_at_a_random_card_without_a_peek():
    env = three_players_after_a_lead()
    env.step(DOUBT)
    assert decision(env) == CHOOSE_TURN
    turned = collections.Counter(
        blind_agent(env.game, seed).act(observation(env)) - TURN_CARD for seed in range(300)
    )
    assert set(turned) == {0, 1, 2} and min(turned.values()) >= 70, turned
    env = three_players_after_a_lead()
    env.step(PLAY_PEEK)
    assert decision(env) == CHOOSE_PEEK
    peeked = [blind_agent(env.game, seed).act(observation(env)) - PEEK_AT for seed in range(300)]
    assert peeked[:3] == [2, 1, 2]
    assert min(collections.Counter(peeked).values()) >= 70


def test_a_learned_policy_turns_where_its_weights_say():
    """The same policy without the rule: the card its logits prefer, whatever the seed."""
    env = three_players_after_a_lead()
    env.step(DOUBT)
    game = env.game
    chosen = {
        PolicyAgent(game, some_policy(game), seed=seed).act(observation(env)) for seed in range(20)
    }
    assert len(chosen) == 1


def pretrained_quick():
    game = load_game("believe_it_or_not", variant="quick")
    policy, info = read_policy(PRETRAINED / "believe_it_or_not-quick.npz")
    return game, policy


def test_decision_blind_positions_lays_the_policys_own_cards_in_a_shuffled_order():
    """At each placement of 60 seeded games, the blind agent adds the cards the same policy
    playing its positions as it learnt adds, in an order drawn from its generator (in some
    placements of several cards not theirs)."""
    game, policy = pretrained_quick()
    learned = PolicyAgent(game, policy, seed=0)
    placements = reordered = 0
    for seed in range(60):
        blind = PolicyAgent(game, policy, seed=seed, positions="blind")
        for state, _player, obs in _decisions(game, seed):
            if _placement_starts(game, obs):
                theirs = _placement(game, game.copy_state(state), learned)
                ours = _placement(game, state, blind)
                assert sorted(ours) == sorted(theirs)
                placements += 1
                reordered += ours != theirs
            else:
                game.apply(state, learned.act(obs))
    assert placements > 300 and reordered > placements // 4, (placements, reordered)


def _decisions(game, seed: int, limit: int = 400):
    """A seeded game's decisions, (state, player, observation) each: the loop applies one
    action to the state at each (up to ``limit`` of them)."""
    state = game.new_state(np.random.default_rng(seed))
    for _ in range(limit):
        if state.terminal:
            return
        player = state.current_player
        yield state, player, _observation(game, state, player)


def _observation(game, state, player) -> dict[str, np.ndarray]:
    return {"observation": game.observe(state, player),
            "action_mask": game.legal_mask(state, player)}  # fmt: skip


def _placement_starts(game, obs) -> bool:
    """Whether the first card of a placement is to be chosen."""
    layout = game.observation_layout
    vector = obs["observation"]
    return (
        int(np.argmax(vector[layout["decision"]])) == BUILD and not vector[layout["building"]].any()
    )


def _placement(game, state, agent) -> list[int]:
    """Plays ``agent``'s placement in ``state`` to its end; the cards in the order added."""
    cards = []
    while True:
        action = agent.act(_observation(game, state, state.current_player))
        game.apply(state, action)
        if action == FINISH:
            return cards
        cards.append(action - ADD_CARD)


def test_a_planned_placement_sees_the_observations_and_masks_the_game_shows():
    """The observations a blind agent plans on are the engine's, card by card: checked on every
    placement of 40 seeded games, planned with the heuristic bluffer's choices."""
    game = load_game("believe_it_or_not", variant="quick")
    rule = BlindPositions(game, 0)
    checked = 0
    for seed in range(40):
        players = [
            make_agent("believe_it_or_not", "bluffer", game, seed=seed + p) for p in range(4)
        ]
        for state, player, obs in _decisions(game, seed):
            if _placement_starts(game, obs):
                copy = game.copy_state(state)

                def decide(planned, copy=copy, agent=players[player], player=player):
                    nonlocal checked
                    assert np.array_equal(planned["observation"], game.observe(copy, player))
                    assert np.array_equal(
                        planned["action_mask"] != 0, game.legal_mask(copy, player) != 0
                    )
                    checked += 1
                    action = agent.act(planned)
                    game.apply(copy, action)
                    return action

                rule.planned(obs, decide)
                players[player].reset()  # its plan was used up on the copy
            game.apply(state, players[player].act(obs))
    assert checked > 1000


def test_act_and_act_batch_play_the_same_games_with_blind_positions():
    """A match plays the same games one at a time and 64 side by side (the batched forward
    pass leaves the rule's decisions to each agent, in its own generator)."""
    alone = play_match("believe_it_or_not", ["pretrained", "bluffer", "pretrained", "honest"],
                       24, seed=11, params={"variant": "quick"}, parallel=1)  # fmt: skip
    together = play_match("believe_it_or_not", ["pretrained", "bluffer", "pretrained", "honest"],
                          24, seed=11, params={"variant": "quick"}, parallel=64)  # fmt: skip
    assert [g.scores.tolist() for g in alone.games] == [g.scores.tolist() for g in together.games]
    assert [g.length for g in alone.games] == [g.length for g in together.games]


def test_the_shipped_believe_it_or_not_agents_play_positions_blind():
    for variant in ("quick", "standard"):
        game = load_game("believe_it_or_not", variant=variant)
        agent = make_agent("believe_it_or_not", "pretrained", game, seed=0)
        assert isinstance(agent.positions, BlindPositions)
    nwi = make_agent("nobody_wants_it", "pretrained", load_game("nobody_wants_it"), seed=0)
    assert nwi.positions is None


def test_a_policy_file_records_blind_positions_in_format_5_and_plays_them(tmp_path):
    game = load_game("believe_it_or_not", num_players=3, **SPECIALS)
    policy = some_policy(game)
    info = record(game)
    save_policy(tmp_path / "blind.npz", policy, {**info, "positions": "blind"})
    save_policy(tmp_path / "learned.npz", policy, {**info, "positions": "learned"})
    assert read_policy(tmp_path / "blind.npz")[1]["format"] == BLIND_POLICY_FORMAT
    assert read_policy(tmp_path / "learned.npz")[1]["format"] == POLICY_FORMAT
    blind = make_agent("believe_it_or_not", f"ppo:{tmp_path / 'blind.npz'}", game, seed=0)
    learned = make_agent("believe_it_or_not", f"ppo:{tmp_path / 'learned.npz'}", game, seed=0)
    assert isinstance(blind.positions, BlindPositions) and learned.positions is None


def test_a_policy_file_with_unknown_positions_is_refused_on_loading(tmp_path):
    game = load_game("believe_it_or_not", num_players=3, **SPECIALS)
    path = tmp_path / "odd.npz"
    save_policy(path, some_policy(game), {**record(game), "positions": "psychic"})
    with np.load(path) as arrays:
        saved = json.loads(arrays["info"].tobytes().decode())
    assert saved["positions"] == "psychic"
    with pytest.raises(InputError, match="positions must be one of"):
        make_agent("believe_it_or_not", f"ppo:{path}", game, seed=0)


def test_training_defaults_blind_positions_for_believe_it_or_not_only_where_it_can_plan():
    assert TrainConfig("believe_it_or_not").resolved().positions == "blind"
    assert TrainConfig("believe_it_or_not", memory="gru").resolved().positions == "learned"
    assert TrainConfig("believe_it_or_not", frame_stack=4).resolved().positions == "learned"
    assert TrainConfig("nobody_wants_it").resolved().positions == "learned"
    # a best response looks for every habit, positions included
    assert exploit_config("believe_it_or_not", "bluffer").resolved().positions == "learned"


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"game": "nobody_wants_it", "positions": "blind"}, "nobody_wants_it has none"),
        ({"game": "believe_it_or_not", "positions": "blind", "frame_stack": 2}, "frame stack"),
        ({"game": "believe_it_or_not", "positions": "blind", "memory": "lstm"}, "recurrent core"),
        ({"game": "believe_it_or_not", "positions": "sideways"}, "positions"),
    ],
)
def test_bad_positions_settings_are_refused_before_anything_runs(settings, message):
    with pytest.raises(SettingError, match=message):
        TrainConfig(**settings).resolved()


def test_a_blind_agent_for_a_game_without_positions_is_refused():
    game = load_game("nobody_wants_it")
    with pytest.raises(InputError, match="has none"):
        PolicyAgent(game, some_policy(game), positions="blind")


def test_cardzoo_train_refuses_blind_positions_with_a_frame_stack_in_one_line(tmp_path, capsys):
    argv = ["train", "believe_it_or_not", "--positions", "blind", "--frame-stack", "2"]
    assert main([*argv, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardzoo: error: --positions: ") and err.count("\n") == 1, err
    assert not (tmp_path / "run").exists()


def test_pretrained_positions_learned_plays_the_shipped_policy_as_it_learnt():
    """``pretrained:positions=learned`` turns where the weights say, seed after seed; the
    shipped agent (blind) draws the card."""
    game = load_game("believe_it_or_not", variant="quick")
    learned = make_agent("believe_it_or_not", "pretrained:positions=learned", game, seed=0)
    blind = make_agent("believe_it_or_not", "pretrained", game, seed=0)
    assert learned.positions is None and learned.name == "pretrained:positions=learned"
    assert isinstance(blind.positions, BlindPositions) and blind.name == "pretrained"
    result = play_match("believe_it_or_not", ["pretrained:positions=learned", "pretrained",
                        "bluffer", "honest"], 8, seed=3, params={"variant": "quick"})  # fmt: skip
    assert set(result.agents) == {"pretrained:positions=learned", "pretrained", "bluffer", "honest"}


@pytest.mark.parametrize(
    "name, message",
    [
        ("pretrained:positions=sideways", "positions must be one of"),
        ("pretrained:colour=red", "unknown parameter 'colour'"),
    ],
)
def test_bad_pretrained_parameters_are_refused(name, message):
    game = load_game("believe_it_or_not", variant="quick")
    with pytest.raises(InputError, match=message):
        make_agent("believe_it_or_not", name, game, seed=0)
    with pytest.raises(SettingError, match=message):
        exploit_config("believe_it_or_not", name, params={"variant": "quick"})
