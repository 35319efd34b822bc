"""A person at the table: cardzoo.play driven through its input stream, and the real command."""

from __future__ import annotations

import io
import re
import sys

import numpy as np
import pexpect
import pytest

from cardzoo.agents import make_agent, take_turn
from cardzoo.cli import main
from cardzoo.envs import game_spec
from cardzoo.envs.helpers import game_rng_from_seed
from cardzoo.play import moves_text, parse_move, play


def _game(name: str, players: int = 2, **params):
    return game_spec(name).module().raw_env(num_players=players, **params).game


def _play(game_name, opponents, typed, **kwargs):
    output = io.StringIO()
    result = play(
        game_name, opponents, input_stream=io.StringIO(typed), output_stream=output, **kwargs
    )
    return result, output.getvalue()


class FirstLegalMove(io.StringIO):
    """An input stream that answers every prompt with the first move the output listed."""

    def __init__(self, output: io.StringIO):
        super().__init__()
        self.output = output

    def readline(self, size: int = -1) -> str:
        listed = self.output.getvalue().rsplit("Your legal moves:\n", 1)[1]
        return re.match(r"\s*(\d+)", listed).group(1) + "\n"


# --- the list of moves and what the person types ------------------------------------------------


def test_legal_moves_are_listed_by_number_and_name():
    game = _game("nobody_wants_it")
    state = game.new_state(game_rng_from_seed(1))
    assert moves_text(game, game.legal_mask(state, 0)).splitlines() == [
        "  0  play sheep",
        "  1  play pig",
        "  4  play pair of sheep",
        "  5  play pair of pig",
        "  8  pass, take top of draw pile",
    ]


def test_runs_of_numbered_moves_are_listed_as_ranges():
    game = _game("foxy")
    state = game.new_state(game_rng_from_seed(0))
    assert moves_text(game, game.legal_mask(state, 0)).splitlines() == [
        "   0..40  write 0 .. write 40",
        "  41..81  write 0 circled .. write 40 circled",
    ]


def test_a_move_is_typed_as_its_number_or_its_name_in_any_case():
    game = _game("nobody_wants_it")
    mask = game.legal_mask(game.new_state(game_rng_from_seed(1)), 0)
    assert parse_move("4\n", game, mask) == 4
    assert parse_move("  Play  PAIR of sheep \n", game, mask) == 4
    assert parse_move("q\n", game, mask) is None


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("2", "Move 2 (play horse) is not allowed now."),
        ("play horse", "Move 2 (play horse) is not allowed now."),
        ("16", "There is no move 16: moves are numbered 0..15"),
        ("-1", "There is no move -1"),
        ("sheep", "'sheep' is not a move; type a number or a name from the list."),
        ("", "Type the number or the name of one of the moves listed (q quits)."),
    ],
)
def test_a_bad_move_is_refused_with_the_reason(typed, reason):
    game = _game("nobody_wants_it")
    mask = game.legal_mask(game.new_state(game_rng_from_seed(1)), 0)
    with pytest.raises(ValueError, match=re.escape(reason)):
        parse_move(typed, game, mask)


@pytest.mark.parametrize(
    ("typed", "shown"),
    [("9" * 5000, "9" * 12 + "..."), ("-" + "1" * 5000, "-" + "1" * 11 + "..."), ("0016", "16")],
)
def test_a_number_too_long_for_any_move_is_out_of_range(typed, shown):
    """Even one of more digits than Python converts (4300): no error of its own."""
    game = _game("nobody_wants_it")
    mask = game.legal_mask(game.new_state(game_rng_from_seed(1)), 0)
    with pytest.raises(ValueError) as refusal:
        parse_move(typed, game, mask)
    assert str(refusal.value) == (
        f"There is no move {shown}: moves are numbered 0..15; type one of the numbers listed."
    )
    assert parse_move("0" * 5000 + "4", game, mask) == 4  # leading zeros are no move of their own


def test_enter_takes_the_only_legal_move():
    game = _game("henhouse")
    state = game.new_state(game_rng_from_seed(0))
    assert parse_move("\n", game, game.legal_mask(state, state.current_player)) == 0


# --- whole games through the input stream -------------------------------------------------------


def test_bad_input_is_asked_again_with_the_reason_then_q_quits():
    result, shown = _play("nobody_wants_it", ["random"], "sheep\n2\n0\nq\n", seed=1)
    assert "'sheep' is not a move" in shown
    assert "Move 2 (play horse) is not allowed now." in shown
    assert shown.count("Your move (number or name, q quits): ") == 4
    assert shown.endswith("You quit the game; no result.\n")
    assert result.quit and not any(result.winners)


def test_end_of_input_quits():
    result, shown = _play("nobody_wants_it", ["random"], "", seed=1)
    assert result.quit and shown.endswith("You quit the game; no result.\n")


def test_henhouse_is_played_to_the_end_with_enter_and_shows_scores_and_winner():
    result, shown = _play("henhouse", ["random"], "\n" * 1000, seed=5)
    assert shown.endswith(
        "Scores: player_0 (you) 0, player_1 (random) 40\nWinner: player_1 (random)\nYou lost.\n"
    )
    assert result.scores == [0, 40] and result.winners == [False, True] and not result.won


def test_foxy_is_played_against_an_agent_and_ends_with_the_checked_sheets():
    result, shown = _play("foxy", ["forgetful"], "3\n" * 20, seed=5)
    assert "Foxy: game over, the sheets checked" in shown
    assert shown.endswith(
        "Scores: player_0 (you) 36, player_1 (forgetful) 48\n"
        "Winner: player_1 (forgetful)\nYou lost.\n"
    )
    assert shown.count("Your move") == 20  # one number per card


def test_solo_foxy_needs_no_opponents():
    result, shown = _play("foxy", [], "write 2\n" * 20, seed=0)
    assert result.players == ["you"] and len(result.scores) == 1
    assert "sheet of player_0: 2 2" in shown


def test_a_person_in_a_later_seat_plays_a_whole_game_of_every_decision_game():
    for game_name, opponents in [
        ("nobody_wants_it", ["nwi_dodger", "random"]),
        ("believe_it_or_not", ["bluffer"]),
        ("minus_two", ["attacker", "high_cards"]),
    ]:
        output = io.StringIO()
        result = play(
            game_name,
            opponents,
            seat=1,
            seed=2,
            input_stream=FirstLegalMove(output),
            output_stream=output,
        )
        assert not result.quit and not result.truncated
        assert result.players[1] == "you" and sum(result.winners) >= 1
        assert "\nScores: player_0 (" in output.getvalue()


def test_a_game_stopped_by_max_cycles_has_no_winner():
    result, shown = _play("henhouse", ["random"], "\n" * 100, seed=5, max_cycles=10)
    assert result.truncated and not any(result.winners)
    assert "stopped after 10 moves (max_cycles): nobody wins." in shown


def test_the_deal_seed_is_printed_and_replays_the_same_game():
    first, shown = _play("henhouse", ["random"], "\n" * 1000)
    seed = int(re.search(r"Deal seed (\d+)", shown).group(1))
    again, _ = _play("henhouse", ["random"], "\n" * 1000, seed=seed)
    assert (again.seed, again.scores) == (seed, first.scores)


# --- the table shows the person's seat only -----------------------------------------------------


def _hide_differently(game_name, game, state):
    """A copy of ``state`` that differs only in what seat 0 cannot see."""
    other = game.restore(game.snapshot(state))
    if game_name == "henhouse":  # the order of seat 1's deck
        slots = (other.deck_top[1] + np.arange(other.deck_size[1])) % game.num_cards
        cards = other.decks[1, slots]
        other.decks[1, slots] = np.roll(cards, 1)
        assert not np.array_equal(cards, other.decks[1, slots])
    elif game_name in ("nobody_wants_it", "believe_it_or_not"):  # seat 1's hand
        held = np.flatnonzero(other.hands[1])
        other.hands[1, held[0]] -= 1
        other.hands[1, held[-1] if len(held) > 1 else held[0] + 1] += 1
    elif game_name == "minus_two":  # seat 1's hand and every face-down row (seat 0's too)
        held = np.flatnonzero(other.cards[0, 1])
        other.cards[0, 1, held[0]] -= 1
        other.cards[0, 1, (held[0] + 1) % other.cards.shape[2]] += 1
        other.face_down[:] = other.face_down[:, ::-1]
    elif game_name == "foxy":  # the cards still to come, and seat 1's sheet
        other.stack[other.turned :] = other.stack[other.turned :][::-1]
        other.sheets[1] += 1
    return other


@pytest.mark.parametrize(
    "game_name", ["henhouse", "nobody_wants_it", "believe_it_or_not", "minus_two", "foxy"]
)
def test_the_table_is_shown_from_the_persons_seat_only(game_name):
    game = _game(game_name)
    state = game.new_state(game_rng_from_seed(4))
    agent = make_agent(game_name, "random", game, seed=0)
    for _ in range(6):  # a few moves in, so that seat 1 has acted too
        take_turn(game, state, agent)
    other = _hide_differently(game_name, game, state)
    assert game.render(other, 0) == game.render(state, 0)
    if game_name != "henhouse":  # Henhouse shows no cards at all: nothing to tell apart
        seen_by_all = game.render(other, None) != game.render(state, None)
        assert seen_by_all or game.render(other, 1) != game.render(state, 1)


# --- bad arguments -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("opponents", "kwargs", "message"),
    [
        (["random"] * 7, {}, "7 opponents make 8 players; nobody_wants_it seats 2..7"),
        ([], {}, "0 opponents make 1 player; nobody_wants_it seats 2..7, so give 1..6"),
        (["random"], {"seat": 2}, "seat=2 is out of range; allowed 0..1"),
        (["dodger"], {}, "unknown agent 'dodger' for nobody_wants_it"),
        (["forgetful"], {}, "unknown agent 'forgetful' for nobody_wants_it"),
        (["ppo:/no/such/run"], {}, "ppo:/no/such/run"),
        ("random", {}, "opponents must be a list of agent names"),
        (["random"], {"params": {"reward": "money"}}, "reward='money'"),
        (["random"], {"seed": -3}, "seed=-3"),
    ],
)
def test_bad_arguments_are_clear_errors(opponents, kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        _play("nobody_wants_it", opponents, "q\n", **kwargs)


# --- the command ------------------------------------------------------------------------------


def test_command_refuses_an_unknown_opponent_in_one_line(capsys):
    assert main(["play", "nobody_wants_it", "--opponents", "random,perfect_memory"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("cardzoo: error: --opponents: unknown agent 'perfect_memory'")
    assert error.count("\n") == 1


def test_command_in_a_real_terminal():
    command = [sys.executable, "-m", "cardzoo", "play", "nobody_wants_it"]
    child = pexpect.spawn(
        command[0], [*command[1:], "--opponents", "random", "--seed", "1"], timeout=30
    )
    child.expect_exact("You are player_0. At the table: player_0 you, player_1 random.")
    child.expect_exact("  0  play sheep")
    child.expect_exact("Your move (number or name, q quits): ")
    child.sendline("play horse")
    child.expect_exact("Move 2 (play horse) is not allowed now.")
    child.expect_exact("Your move (number or name, q quits): ")
    child.sendline("0")
    child.expect_exact("Your move (number or name, q quits): ")
    child.sendline("q")
    child.expect_exact("You quit the game; no result.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
