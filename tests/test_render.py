"""Pictures of the games: ``render_mode="rgb_array"`` in every game's AEC form and in Foxy's
parallel form, the seat's-eye view (``render_seat``) and its leak test on pixels, determinism,
``"human"`` without a display, recorded GIFs, and no cost when no render mode is set."""

from __future__ import annotations

import copy
import os
import subprocess
import sys

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import render_test
from PIL import Image

import cardzoo.envs.rendering as rendering
from cardzoo.envs import GAMES, foxy_v0
from cardzoo.envs.believe_it_or_not import rules as bion
from cardzoo.envs.foxy import rules as foxy
from cardzoo.envs.minus_two import rules as minus_two
from cardzoo.envs.nobody_wants_it import rules as nwi
from cardzoo.envs.recording import write_gif

#: each game at its smallest and largest table
PLAYER_COUNTS = [
    pytest.param(spec, n, id=f"{spec.name}-{n}p")
    for spec in GAMES.values()
    for n in sorted({spec.game_class().min_players, spec.game_class().max_players})
]


def random_steps(env, steps: int, seed: int = 0) -> None:
    """``steps`` seeded random legal actions (fewer if the game ends first)."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        env.step(int(rng.choice(np.flatnonzero(env.infos[agent]["action_mask"]))))


def play_to_end(env, seed: int = 0) -> None:
    random_steps(env, 100_000, seed)


def picture_shape(env) -> tuple[int, int, int]:
    module = __import__(f"cardzoo.envs.{env.game.name}.picture", fromlist=["layout"])
    return module.layout(env.game).shape


def assert_frame(frame, shape) -> None:
    assert isinstance(frame, np.ndarray)
    assert frame.dtype == np.uint8 and frame.shape == shape and frame.shape[2] == 3


# --- every game, every view: the declared modes, shape and dtype ----------------------------------


@pytest.mark.parametrize("spec", GAMES.values(), ids=list(GAMES))
def test_metadata_declares_rgb_array_and_a_frame_rate(spec):
    metadata = spec.module().raw_env.metadata
    assert metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    assert metadata["render_fps"] == 2


def test_foxy_parallel_metadata_declares_rgb_array():
    assert "rgb_array" in foxy_v0.parallel_env.metadata["render_modes"]


@pytest.mark.parametrize("spec, num_players", PLAYER_COUNTS)
def test_rgb_array_frames_of_one_size_in_every_view(spec, num_players):
    env = spec.module().env(num_players=num_players, render_mode="rgb_array")
    env.reset(seed=1)
    shape = picture_shape(env.unwrapped)
    assert shape[0] % 16 == 0 and shape[1] % 16 == 0  # what video encoders want
    for _ in range(3):
        assert_frame(env.render(), shape)
        for agent in env.possible_agents:
            assert_frame(env.render_seat(agent), shape)
        random_steps(env, 7)
    assert isinstance(env.render_seat(env.possible_agents[0], mode="ansi"), str)


@pytest.mark.parametrize("spec", GAMES.values(), ids=list(GAMES))
def test_finished_game_renders_in_every_view(spec):
    env = spec.module().env(num_players=spec.game_class().min_players, render_mode="rgb_array")
    env.reset(seed=2)
    play_to_end(env)
    shape = picture_shape(env.unwrapped)
    assert_frame(env.render(), shape)
    for agent in env.possible_agents:
        assert_frame(env.render_seat(agent), shape)


def test_foxy_parallel_env_renders_rgb_array_and_seats():
    env = foxy_v0.parallel_env(num_players=3, render_mode="rgb_array")
    env.reset(seed=0)
    shape = picture_shape(env)
    while env.agents:
        assert_frame(env.render(), shape)
        actions = {agent: 3 for agent in env.agents}
        env.step(actions)
        assert env.last_actions == {0: 3, 1: 3, 2: 3}
    assert_frame(env.render(), shape)
    assert_frame(env.render_seat("player_2"), shape)


@pytest.mark.parametrize("game_id", [spec.pettingzoo_id for spec in GAMES.values()])
def test_pettingzoo_render_test_with_rgb_array(game_id, capsys):
    render_test(lambda render_mode: pettingzoo.make("aec", game_id, render_mode=render_mode))
    assert capsys.readouterr().out  # "human" without a display printed the table


def test_render_seat_rejects_unknown_agent_and_mode():
    env = GAMES["henhouse"].module().env(num_players=2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="agent='player_9'"):
        env.render_seat("player_9")
    with pytest.raises(ValueError, match="mode='svg'"):
        env.render_seat("player_0", mode="svg")


def test_render_seat_works_without_a_render_mode_but_not_before_reset():
    env = GAMES["henhouse"].module().raw_env(num_players=2)
    with pytest.raises(RuntimeError, match="before reset"):
        env.render_seat("player_0")
    env.reset(seed=0)
    assert_frame(env.render_seat("player_0"), picture_shape(env))


# --- the last action ---------------------------------------------------------------------------


def test_last_actions_are_the_latest_move_and_appear_in_the_picture():
    env = GAMES["minus_two"].module().raw_env(num_players=2, render_mode="rgb_array")
    env.reset(seed=0)
    assert env.last_actions is None
    player = env.state_.current_player
    action = int(np.flatnonzero(env.infos[env.agent_selection]["action_mask"])[0])
    env.step(action)
    assert env.last_actions == {player: action}
    with_last = env.render()
    without_last = env.game.picture(env.state_, None, None)
    assert not np.array_equal(with_last, without_last)  # the header tells it
    env.reset(seed=0)
    assert env.last_actions is None


# --- determinism ---------------------------------------------------------------------------------

#: the digest of a few frames of every game (run here and in fresh interpreters)
FRAME_DIGEST_CODE = """
import hashlib, numpy as np
from cardzoo.envs import GAMES
digest = hashlib.sha256()
for spec in GAMES.values():
    env = spec.module().env(num_players=spec.game_class().min_players, render_mode="rgb_array")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(6):
        agent = env.agent_selection
        env.step(int(rng.choice(np.flatnonzero(env.infos[agent]["action_mask"]))))
    digest.update(env.render().tobytes())
    digest.update(env.render_seat(env.possible_agents[-1]).tobytes())
"""


def test_same_game_same_pixels_in_other_processes():
    namespace: dict = {}
    exec(FRAME_DIGEST_CODE, namespace)  # here, after other tests filled the picture caches
    here = namespace["digest"].hexdigest()
    for hash_seed in (1, 2):
        result = subprocess.run(
            [sys.executable, "-c", FRAME_DIGEST_CODE + "print(digest.hexdigest())"],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": str(hash_seed)},
        )
        assert result.stdout.strip() == here, result.stderr


@pytest.mark.parametrize("spec", GAMES.values(), ids=list(GAMES))
def test_same_seed_same_frames(spec):
    frames = []
    for _ in range(2):
        env = spec.module().env(num_players=spec.game_class().min_players, render_mode="rgb_array")
        env.reset(seed=11)
        random_steps(env, 9, seed=11)
        frames.append((env.render(), env.render_seat(env.possible_agents[-1])))
    assert np.array_equal(frames[0][0], frames[1][0])
    assert np.array_equal(frames[0][1], frames[1][1])


# --- the seat's-eye view: a leak test on pixels ------------------------------------------------
# Each test builds two states that differ only in cards the viewer cannot see, checks both are
# valid states, and asserts that the viewer's picture is the same pixel for pixel, while the full
# view (and the seat that can see the difference) is not: so the test can fail.


def assert_hidden_from(game, state, changed, viewer, sees=None, last=None, last_changed=None):
    game.check_invariants(changed)
    seen = game.picture(state, viewer, last)
    assert np.array_equal(seen, game.picture(changed, viewer, last_changed or last))
    assert not np.array_equal(game.picture(state), game.picture(changed))
    if sees is not None:
        assert not np.array_equal(
            game.picture(state, sees, last), game.picture(changed, sees, last_changed or last)
        )


def mid_game(spec_name: str, num_players: int, steps: int, seed: int = 3):
    env = GAMES[spec_name].module().raw_env(num_players=num_players)
    env.reset(seed=seed)
    random_steps(env, steps, seed)
    assert not env.state_.terminal
    return env.game, env.state_


def test_henhouse_decks_are_hidden_from_every_seat_even_their_owner():
    game, state = mid_game("henhouse", 3, 10)
    changed = copy.deepcopy(state)
    owner = int(np.argmax(state.deck_size))
    top, size = state.deck_top[owner], state.deck_size[owner]
    slots = (top + np.arange(size)) % game.num_cards
    cards = changed.decks[owner, slots]
    first_other = int(np.flatnonzero(cards != cards[0])[0])
    changed.decks[owner, slots[[0, first_other]]] = cards[[first_other, 0]]
    for viewer in range(3):
        assert_hidden_from(game, state, changed, viewer)


def test_nobody_wants_it_hides_other_hands_the_draw_pile_and_horse_gifts():
    game, state = mid_game("nobody_wants_it", 3, 6)
    changed = copy.deepcopy(state)
    # player_1 and player_2 swap a card of different species; the draw pile is reordered.
    a = int(np.flatnonzero(state.hands[1])[0])
    b = int(np.flatnonzero((state.hands[2] > 0) & (np.arange(4) != a))[0])
    changed.hands[1, [a, b]] += [-1, 1]
    changed.hands[2, [a, b]] += [1, -1]
    draw = changed.draw_pile[: changed.draw_size]
    changed.draw_pile[: changed.draw_size] = np.roll(draw, 1)
    assert not np.array_equal(draw, state.draw_pile[: state.draw_size])
    gift_a, gift_b = {1: nwi.HORSE_GIVE + a}, {1: nwi.HORSE_GIVE + b}
    assert_hidden_from(game, state, changed, 0, sees=1, last=gift_a, last_changed=gift_b)


def test_believe_it_or_not_hides_other_hands_and_their_placements():
    game, state = mid_game("believe_it_or_not", 3, 30)
    assert state.num_placements >= 1
    changed = copy.deepcopy(state)
    owner = int(state.placement_owners[0])
    viewer = next(p for p in range(3) if p != owner)
    # the owner's first placed card changes places with a card of another type in their hand
    placed = int(changed.table_cards[0])
    held = int(np.flatnonzero((state.hands[owner] > 0) & (np.arange(bion.NUM_TYPES) != placed))[0])
    changed.table_cards[0] = held
    changed.hands[owner, [held, placed]] += [-1, 1]
    changed.table_counts[owner, [held, placed]] += [1, -1]
    added_a, added_b = {owner: bion.ADD_CARD + placed}, {owner: bion.ADD_CARD + held}
    assert_hidden_from(game, state, changed, viewer, sees=owner, last=added_a, last_changed=added_b)


def test_minus_two_hides_other_hands_and_every_face_down_card():
    game, state = mid_game("minus_two", 3, 4)
    changed = copy.deepcopy(state)
    hand = changed.cards[minus_two.HAND]
    a = int(np.flatnonzero(hand[1])[0])
    b = int(np.flatnonzero((hand[2] > 0) & (np.arange(minus_two.NUM_TYPES) != a))[0])
    hand[1, [a, b]] += [-1, 1]
    hand[2, [a, b]] += [1, -1]
    # the viewer's own face-down row is hidden from them too
    row = changed.face_down[0]
    k = int(np.flatnonzero((row != row[0]) & (row != minus_two.NO_CARD))[0])
    row[[0, k]] = row[[k, 0]]
    # The table's public memory of the hands (not drawn) must still fit the swapped hands.
    np.minimum(changed.hidden_hand, changed.cards[minus_two.HAND], out=changed.hidden_hand)
    changed.hand_excludes[:] = False
    assert_hidden_from(game, state, changed, 0, sees=1)


def test_foxy_hides_the_rest_of_the_stack_and_other_sheets():
    game, state = mid_game("foxy", 3, 3 * 5 + 1)  # card 6, player_1 to write
    changed = copy.deepcopy(state)
    stack = changed.stack
    later = np.arange(state.turned, foxy.STACK_SIZE)
    k = int(later[np.flatnonzero(stack[later] != stack[later[0]])[0]])
    stack[[later[0], k]] = stack[[k, later[0]]]
    changed.counts, changed.answers = foxy.true_answers(stack)
    changed.sheets[2, :5] = (changed.sheets[2, :5] + 1) % 10
    wrote_a, wrote_b = {0: game.action_for(2)}, {0: game.action_for(7, circle=False)}
    assert_hidden_from(game, state, changed, 1, sees=2, last=wrote_a, last_changed=wrote_b)


def test_foxy_seat_does_not_see_earlier_cards_but_the_full_view_does():
    game, state = mid_game("foxy", 2, 2 * 4)  # card 5
    changed = copy.deepcopy(state)
    earlier = np.arange(state.turned - 1)
    k = int(earlier[np.flatnonzero(changed.stack[earlier] != changed.stack[0])[0]])
    changed.stack[[0, k]] = changed.stack[[k, 0]]
    changed.counts, changed.answers = foxy.true_answers(changed.stack)
    assert_hidden_from(game, state, changed, 0)


# --- "human" -----------------------------------------------------------------------------------


def test_human_without_a_display_prints_the_table_with_a_one_line_note(monkeypatch, capsys):
    monkeypatch.setattr(rendering, "display_available", lambda: False)
    env = GAMES["henhouse"].module().env(num_players=2, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    env.step(0)  # renders again
    out = capsys.readouterr().out
    assert out.count("no display") == 1 and out.count("Henhouse, 2 players") == 2


def test_human_with_a_display_but_no_window_backend_prints_the_text(monkeypatch, capsys):
    monkeypatch.setattr(rendering, "display_available", lambda: True)
    monkeypatch.setattr(rendering, "_interactive_matplotlib", lambda: False)
    env = foxy_v0.parallel_env(num_players=1, render_mode="human")
    env.reset(seed=0)
    env.render()
    assert "Foxy, 1 player" in capsys.readouterr().out


def test_human_with_a_display_shows_the_picture_in_one_figure_until_closed(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")  # a backend without windows stands in for a screen here
    import matplotlib.pyplot as plt

    monkeypatch.setattr(rendering, "display_available", lambda: True)
    monkeypatch.setattr(rendering, "_interactive_matplotlib", lambda: True)
    before = plt.get_fignums()  # other tests may have left figures open
    env = GAMES["minus_two"].module().env(num_players=2, render_mode="human")
    env.reset(seed=0)
    env.render()
    random_steps(env, 3)  # each step shows the new picture in the same figure
    display = env.unwrapped._display
    shown = display._image.get_array()
    assert np.array_equal(
        shown, env.unwrapped.game.picture(env.unwrapped.state_, None, env.unwrapped.last_actions)
    )
    assert plt.get_fignums() == [*before, display._figure.number]
    env.close()
    assert plt.get_fignums() == before


# --- no render mode: no cost ----------------------------------------------------------------------


@pytest.mark.parametrize("spec", GAMES.values(), ids=list(GAMES))
def test_no_picture_is_drawn_while_playing_without_a_render_mode(spec, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a picture was drawn")

    env = spec.module().env(num_players=spec.game_class().min_players)
    monkeypatch.setattr(type(env.unwrapped.game), "picture", refuse)
    monkeypatch.setattr(type(env.unwrapped.game), "render", refuse)
    env.reset(seed=0)
    play_to_end(env)


def test_playing_without_a_render_mode_imports_no_picture_module():
    script = (
        "import sys, numpy as np\n"
        "from cardzoo.envs import GAMES\n"
        "for spec in GAMES.values():\n"
        "    env = spec.module().env()\n"
        "    env.reset(seed=0)\n"
        "    for _ in range(20):\n"
        "        a = env.agent_selection\n"
        "        env.step(int(np.flatnonzero(env.infos[a]['action_mask'])[0]))\n"
        "print(sorted(m for m in sys.modules if m.endswith('picture') or m == 'PIL'))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr


# --- recorded games ------------------------------------------------------------------------------


def test_recorded_gif_opens_with_one_frame_per_step(tmp_path):
    env = GAMES["foxy"].module().env(num_players=1, render_mode="rgb_array")
    env.reset(seed=0)
    frames = [env.render_seat("player_0")]
    for _ in range(6):
        env.step(0)
        frames.append(env.render_seat("player_0"))
    frames.append(frames[-1])  # a step that changes nothing on the picture keeps its frame
    path = write_gif(tmp_path / "foxy.gif", frames, fps=4)
    with Image.open(path) as gif:
        assert gif.n_frames == len(frames) == 8
        assert gif.size == (frames[0].shape[1], frames[0].shape[0])
        assert gif.info["duration"] == 250


def test_write_gif_rejects_bad_frames_and_fps(tmp_path):
    frame = np.zeros((16, 16, 3), np.uint8)
    with pytest.raises(ValueError, match="frames is empty"):
        write_gif(tmp_path / "a.gif", [])
    with pytest.raises(ValueError, match=r"frames\[1\] has shape"):
        write_gif(tmp_path / "a.gif", [frame, np.zeros((32, 16, 3), np.uint8)])
    with pytest.raises(ValueError, match=r"frames\[0\] must be"):
        write_gif(tmp_path / "a.gif", [frame.astype(np.float32)])
    with pytest.raises(ValueError, match="fps"):
        write_gif(tmp_path / "a.gif", [frame], fps=0)
