"""The single-agent Gymnasium view: registration, masks, rewards, and every rule of its module
docstring (actions, reset options, rendering, the deal-again bound). The outside tools (Gymnasium's
checker and vector envs, Stable-Baselines3, sb3-contrib) are run in test_ecosystem_gymnasium.py."""

from __future__ import annotations

import contextlib
import signal
import threading
import warnings

import gymnasium
import numpy as np
import pytest

import cardzoo  # noqa: F401  (registers the Gymnasium ids)
from cardzoo.envs import GAMES
from cardzoo.single_agent import MAX_DEALS, SingleAgentEnv, gym_id


@contextlib.contextmanager
def fails_instead_of_hanging(seconds: int = 20):
    """A test of a hang must fail, not hang the suite (SIGALRM, where the platform has it)."""
    usable = hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def hung(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: the call hangs")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def play_out(env: SingleAgentEnv) -> tuple[float, bool, bool, dict]:
    """Play the first legal action until the episode ends: (total reward, terminated, truncated,
    last info)."""
    total, info = 0.0, env._info()
    while True:
        action = int(np.flatnonzero(env.action_masks())[0])
        _, reward, terminated, truncated, info = env.step(action)
        total += reward
        if terminated or truncated:
            return total, terminated, truncated, info


def nwi_illegal_action(env: SingleAgentEnv) -> int:
    """An in-range action the learner's mask forbids now."""
    return int(np.flatnonzero(~env.action_masks())[0])


# --- registration, episodes, rewards ------------------------------------------------------------


def test_gym_ids():
    assert gym_id("nobody_wants_it") == "cardzoo/NobodyWantsIt-v0"
    assert gym_id("henhouse") == "cardzoo/Henhouse-v0"


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_is_registered(name):
    env = gymnasium.make(gym_id(name))
    assert isinstance(env.unwrapped, SingleAgentEnv) and env.unwrapped.game_name == name


@pytest.mark.parametrize("name", list(GAMES))
def test_random_episodes_end_with_the_learner_rewards(name):
    env = SingleAgentEnv(name, learner_seat=0)
    for seed in range(3):
        observation, info = env.reset(seed=seed)
        assert env.observation_space.contains(observation)
        done = False
        while not done:
            mask = env.action_masks()
            assert mask.any() and np.array_equal(mask, info["action_mask"].astype(bool))
            action = int(np.flatnonzero(mask)[0])
            observation, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert "illegal_action" not in info


def test_same_seed_same_episode():
    def episode(seed):
        env = SingleAgentEnv("henhouse", num_players=3)
        observation, _ = env.reset(seed=seed)
        trace = [observation.tobytes(), env.seat]
        done = False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(0)
            trace.append((observation.tobytes(), reward))
            done = terminated or truncated
        return trace

    assert episode(4) == episode(4)
    assert episode(4) != episode(5)


def test_henhouse_learner_reward_is_plus_or_minus_one():
    env = SingleAgentEnv("henhouse", learner_seat=1, num_players=2)
    env.reset(seed=0)
    total, terminated, _, _ = play_out(env)
    winner = int(np.flatnonzero(env.game.winners(env.state))[0])
    assert terminated and total == (1.0 if winner == 1 else -1.0)


def test_truncation_after_max_cycles():
    env = SingleAgentEnv("henhouse", learner_seat=0, max_cycles=5, num_players=2)
    env.reset(seed=0)
    _, terminated, truncated, _ = play_out(env)
    assert truncated and not terminated and env.table.steps == 5


def test_max_cycles_counts_decisions_in_foxy_too():
    # 2 players, max_cycles=4: the learner and its opponent write on two cards each.
    env = SingleAgentEnv("foxy", num_players=2, learner_seat=0, max_cycles=4)
    env.reset(seed=0)
    _, _, _, first_truncated, _ = env.step(1)
    _, _, terminated, truncated, _ = env.step(1)
    assert (first_truncated, terminated, truncated) == (False, False, True)
    assert env.table.steps == 4 and env.state.turned - 1 == 2  # two cards completed


def test_changing_the_info_mask_does_not_make_an_action_legal():
    env = SingleAgentEnv("nobody_wants_it", num_players=4, learner_seat=0)
    _, info = env.reset(seed=0)
    illegal = nwi_illegal_action(env)
    info["action_mask"][:] = 1
    assert not env.action_masks()[illegal]
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)


def test_bad_parameters():
    with pytest.raises(ValueError, match="opponents"):
        SingleAgentEnv("henhouse", opponents=["random"], num_players=4)
    with pytest.raises(ValueError, match="opponents: unknown agent 'nobody'"):
        SingleAgentEnv("henhouse", opponents="nobody", num_players=2)
    with pytest.raises(ValueError, match="opponents must be"):
        SingleAgentEnv("henhouse", opponents=5, num_players=2)
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv("henhouse", learner_seat=4, num_players=4)
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv("henhouse", learner_seat=True, num_players=4)
    with pytest.raises(ValueError, match="illegal_action"):
        SingleAgentEnv("henhouse", illegal_action="ignore")
    with pytest.raises(ValueError, match="max_cycles"):
        SingleAgentEnv("henhouse", max_cycles=0)
    with pytest.raises(ValueError, match="unknown game"):
        SingleAgentEnv("chess")


def test_an_opponent_that_cannot_play_is_refused_at_make_not_at_the_first_reset(tmp_path):
    """A saved policy that does not exist, or none trained for these parameters, is refused by
    ``gymnasium.make`` itself (it used to pass until the first ``reset``)."""
    missing = tmp_path / "nothing"
    with pytest.raises(ValueError, match=f"opponents: model file {missing} does not exist"):
        gymnasium.make("cardzoo/NobodyWantsIt-v0", opponents=f"ppo:{missing}")
    with pytest.raises(ValueError, match="opponents: the pretrained nobody_wants_it policies"):
        gymnasium.make("cardzoo/NobodyWantsIt-v0", opponents="pretrained", num_players=3)


def test_seed_must_be_a_non_negative_integer():
    env = SingleAgentEnv("henhouse")
    for seed in (True, -1, 1.5, "3"):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)


# --- item 1: render modes the environment does not offer -----------------------------------------


def test_unoffered_render_mode_warns_and_turns_rendering_off():
    with pytest.warns(UserWarning, match="render_mode='rgb_array_list' is not offered"):
        env = SingleAgentEnv("henhouse", render_mode="rgb_array_list")
    assert env.render_mode is None
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert env.render() is None


def test_render_mode_that_is_not_a_string_raises():
    with pytest.raises(ValueError, match="render_mode must be None or one of"):
        SingleAgentEnv("henhouse", render_mode=5)


# --- item 6: rendering as Gymnasium expects it ---------------------------------------------------


def test_human_render_prints_and_returns_none(capsys):
    env = SingleAgentEnv("nobody_wants_it", num_players=4, learner_seat=0, render_mode="human")
    env.reset(seed=0)
    shown_by_reset = capsys.readouterr().out
    table = env.game.render(env.state, 0)
    assert shown_by_reset == table + "\n"
    assert env.render() is None
    assert capsys.readouterr().out == table + "\n"
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert capsys.readouterr().out == env.game.render(env.state, 0) + "\n"


def test_ansi_render_returns_the_learners_view():
    env = SingleAgentEnv("nobody_wants_it", num_players=4, learner_seat=2, render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == env.game.render(env.state, 2)
    assert env.render() != env.game.render(env.state)  # the others' hands stay hidden


def test_metadata_declares_render_modes_and_fps():
    assert SingleAgentEnv.metadata == {
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 2,
    }


@pytest.mark.parametrize("name", list(GAMES))
def test_rgb_array_render_is_the_picture_from_the_learners_seat(name):
    env = SingleAgentEnv(name, learner_seat=1, render_mode="rgb_array")
    env.reset(seed=3)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    np.testing.assert_array_equal(frame, env.game.picture(env.state, 1))
    first_shape = frame.shape
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert env.render().shape == first_shape  # one size for the whole game: one video


def test_rgb_array_render_hides_what_the_learner_cannot_see():
    env = SingleAgentEnv("nobody_wants_it", num_players=4, learner_seat=2, render_mode="rgb_array")
    env.reset(seed=0)
    assert not np.array_equal(env.render(), env.game.picture(env.state))  # others' hands hidden


def test_no_last_action_in_the_picture():
    """Decision: the header names no last action (the opponents moved since the learner's)."""
    env = SingleAgentEnv("nobody_wants_it", num_players=3, learner_seat=0, render_mode="rgb_array")
    env.reset(seed=0)
    action = int(np.flatnonzero(env.action_masks())[0])
    env.step(action)
    frame = env.render()
    np.testing.assert_array_equal(frame, env.game.picture(env.state, 0, None))
    assert not np.array_equal(frame, env.game.picture(env.state, 0, {0: action}))


def test_render_collection_records_a_frame_per_reset_and_step():
    """Decision: the frames Gymnasium's wrappers collect are the learner's pictures, one after
    the reset and one after each of its steps (the opponents' moves fall in between)."""
    env = gymnasium.wrappers.RenderCollection(
        gymnasium.make(gym_id("henhouse"), render_mode="rgb_array", num_players=3)
    )
    _, info = env.reset(seed=0)
    steps, done = 0, False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        _, _, terminated, truncated, info = env.step(action)
        steps, done = steps + 1, terminated or truncated
    frames = env.render()
    assert len(frames) == steps + 1
    assert {frame.shape for frame in frames} == {frames[0].shape}
    np.testing.assert_array_equal(frames[-1], env.unwrapped.render())


def test_record_video_writes_a_video_of_an_episode(tmp_path):
    pytest.importorskip("moviepy", reason="RecordVideo needs moviepy (gymnasium[other])")
    env = gymnasium.wrappers.RecordVideo(
        gymnasium.make(gym_id("henhouse"), render_mode="rgb_array", num_players=2),
        str(tmp_path / "videos"),  # a new folder: RecordVideo warns about an existing one
        episode_trigger=lambda episode: True,
    )
    _, info = env.reset(seed=0)
    done = False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    env.close()
    assert [path.suffix for path in (tmp_path / "videos").iterdir()] == [".mp4"]


# --- item 7: one rule for reset options ----------------------------------------------------------


@pytest.mark.parametrize("name", list(GAMES))
def test_unknown_reset_options_warn_naming_the_keys_and_are_ignored(name):
    plain = SingleAgentEnv(name, learner_seat=0)
    expected, _ = plain.reset(seed=3)
    env = SingleAgentEnv(name, learner_seat=0)
    with pytest.warns(UserWarning, match=r"ignores unknown reset options \['bogus', 'zz'\]"):
        observation, _ = env.reset(seed=3, options={"zz": 1, "bogus": None})
    assert np.array_equal(observation, expected)  # the same deal as without them


@pytest.mark.parametrize("name", list(GAMES))
def test_bad_value_of_a_known_reset_option_raises_value_error(name):
    env = SingleAgentEnv(name, learner_seat=0)
    key = env.game.reset_options[0]
    with pytest.raises(ValueError, match=f"{key} option"):
        env.reset(seed=0, options={key: [0]})


def test_reset_options_that_are_not_a_dict_raise():
    env = SingleAgentEnv("henhouse")
    with pytest.raises(ValueError, match="options must be a dict"):
        env.reset(options="deck")


def test_failed_reset_changes_nothing():
    env, twin = SingleAgentEnv("nobody_wants_it"), SingleAgentEnv("nobody_wants_it")
    env.reset(seed=7)
    twin.reset(seed=7)
    for options in ({"deck": ["no such card"]}, "deck"):
        with pytest.raises(ValueError, match="deck option|options must be a dict"):
            env.reset(options=options)
    action = int(np.flatnonzero(twin.action_masks())[0])
    played, expected = env.step(action), twin.step(action)  # the game in progress goes on
    assert np.array_equal(played[0], expected[0]) and played[1:4] == expected[1:4]
    observation, _ = env.reset()  # the next deal is the one the failed resets did not use up
    expected, _ = twin.reset()
    assert np.array_equal(observation, expected) and env.seat == twin.seat


def test_failed_first_reset_leaves_nothing_to_step():
    env = SingleAgentEnv("nobody_wants_it")
    with pytest.raises(ValueError, match="deck option"):
        env.reset(seed=0, options={"deck": ["no such card"]})
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(0)


# --- item 11: no input hangs reset() --------------------------------------------------------------


@pytest.mark.parametrize("name", ["foxy", "minus_two", "nobody_wants_it", "believe_it_or_not"])
def test_max_cycles_too_small_for_the_learner_raises_instead_of_hanging(name):
    # player_0 always starts these games: with max_cycles=1 seat 1 never gets a decision.
    env = gymnasium.make(gym_id(name), num_players=2, learner_seat=1, max_cycles=1)
    message = (
        f"{name}: in {MAX_DEALS} deals in a row the game ended or reached max_cycles=1 before "
        r"the learner \(seat 1, learner_seat=1\) had a decision; raise max_cycles"
    )
    with fails_instead_of_hanging(), pytest.raises(ValueError, match=message):
        env.reset(seed=0)


def test_small_max_cycles_deals_again_until_the_learner_decides():
    # Henhouse starts with whoever holds the fox: some deals give seat 1 the first move.
    env = SingleAgentEnv("henhouse", num_players=2, learner_seat=1, max_cycles=1)
    with fails_instead_of_hanging():
        env.reset(seed=0)
    assert env.state.current_player == 1 and env.table.steps == 0
    _, reward, terminated, truncated, _ = env.step(0)
    assert (reward, terminated, truncated) == (0.0, False, True)


def test_fixed_deal_that_never_reaches_the_learner_raises_at_once():
    env = SingleAgentEnv("foxy", num_players=2, learner_seat=1, max_cycles=1)
    stack = env.game.new_state(np.random.default_rng(0)).stack
    from cardzoo.envs.foxy.rules import CARD_SPECIES, FOXY, SPECIES

    option = [
        "foxy" if kind == FOXY else [SPECIES[s] for s in np.flatnonzero(CARD_SPECIES[kind])]
        for kind in stack
    ]
    with fails_instead_of_hanging(), pytest.raises(ValueError, match="fixed by the reset options"):
        env.reset(seed=0, options={"stack": option})


# --- item 12: actions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action", [3.9, "5", True, False, None, np.float64(2.0), np.bool_(True), np.array([1]), 1j]
)
def test_non_integer_actions_raise_value_error_naming_the_action(action):
    env = SingleAgentEnv("nobody_wants_it", num_players=4, learner_seat=0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action must be an integer") as error:
        env.step(action)
    assert repr(action) in str(error.value)
    assert env.step(0)[2] is False  # the episode goes on: nothing was played


@pytest.mark.parametrize(
    "action", [0, np.int64(0), np.int8(0), np.uint8(0), np.array(0), np.array(0, np.uint16)]
)
def test_python_and_numpy_integer_actions_are_played(action):
    env, twin = (SingleAgentEnv("nobody_wants_it", num_players=4, learner_seat=0) for _ in "ab")
    env.reset(seed=0)
    twin.reset(seed=0)
    observation, reward, terminated, truncated, _ = env.step(action)
    expected = twin.step(0)
    assert np.array_equal(observation, expected[0])
    assert (reward, terminated, truncated) == expected[1:4]


@pytest.mark.parametrize("illegal_action", ["terminate", "raise"])
@pytest.mark.parametrize("action", [16, -1, np.int64(99)])
def test_out_of_range_action_raises_value_error(action, illegal_action):
    env = SingleAgentEnv("nobody_wants_it", num_players=4, illegal_action=illegal_action)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"out of range \(0..15\)"):
        env.step(action)


def test_illegal_action_terminates_with_minus_one_or_raises():
    env = SingleAgentEnv("nobody_wants_it", num_players=4, learner_seat=0)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(nwi_illegal_action(env))
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    strict = SingleAgentEnv(
        "nobody_wants_it", num_players=4, learner_seat=0, illegal_action="raise"
    )
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="is illegal .* legal actions"):
        strict.step(nwi_illegal_action(strict))


def test_step_after_the_episode_ended_raises():
    env = SingleAgentEnv("nobody_wants_it", num_players=4, learner_seat=0)
    env.reset(seed=0)
    env.step(nwi_illegal_action(env))  # terminated by an illegal action
    with pytest.raises(RuntimeError, match="after the episode ended; call reset"):
        env.step(0)
    env.reset(seed=0)
    _, terminated, _, _ = play_out(env)  # terminated by the rules
    assert terminated
    with pytest.raises(RuntimeError, match="after the episode ended; call reset"):
        env.step(0)
    short = SingleAgentEnv("henhouse", learner_seat=0, max_cycles=3, num_players=2)
    short.reset(seed=0)
    _, _, truncated, _ = play_out(short)  # truncated
    assert truncated
    with pytest.raises(RuntimeError, match="after the episode ended; call reset"):
        short.step(0)


def test_calls_before_reset_raise_runtime_error():
    env = SingleAgentEnv("nobody_wants_it", render_mode="ansi")
    for call in (lambda: env.step(0), env.action_masks, env.render):
        with pytest.raises(RuntimeError, match=r"before reset\(\); call reset\(\) first"):
            call()


# --- item 8: masks on what gymnasium.make returns ------------------------------------------------


def test_action_masks_reachable_through_gymnasium_make_wrappers():
    env = gymnasium.make("cardzoo/NobodyWantsIt-v0", num_players=4)
    _, info = env.reset(seed=0)
    expected = info["action_mask"].astype(bool)
    assert np.array_equal(env.unwrapped.action_masks(), expected)
    assert np.array_equal(env.get_wrapper_attr("action_masks")(), expected)  # as sb3-contrib


def test_maskable_ppo_learns_on_it_without_error():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    env = gymnasium.make("cardzoo/NobodyWantsIt-v0", num_players=3)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, verbose=0)
    model.learn(128)
    observation, info = env.reset(seed=1)
    for _ in range(20):  # the masked policy only ever picks legal actions
        mask = env.unwrapped.action_masks()
        action, _ = model.predict(observation, action_masks=mask)  # a 0-d integer array
        assert mask[int(action)]
        observation, _, terminated, truncated, info = env.step(action)
        assert "illegal_action" not in info
        if terminated or truncated:
            observation, info = env.reset()


def test_no_warning_on_an_ordinary_episode():
    env = SingleAgentEnv("believe_it_or_not", learner_seat=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0)
        play_out(env)
