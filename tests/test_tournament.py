"""Tournaments: line-ups, game results between two agents, scores, ratings, files, errors."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import multiprocessing
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from openskill.models import PlackettLuce

import cardzoo
from cardzoo import evaluation
from cardzoo.agents import Agent
from cardzoo.agents.foxy import ForgetfulAgent
from cardzoo.agents.policy import pretrained_file
from cardzoo.cli import main
from cardzoo.errors import InputError, SettingError
from cardzoo.evaluation import GameRecord, MatchResult, play_match
from cardzoo.stats import wilson_interval
from cardzoo.tournament import (
    ORDINAL_SIGMAS,
    RATING_ORDERS,
    LineUp,
    PairRecord,
    _lineup_outcomes,
    _rate,
    pattern_period,
    seating_patterns,
    tournament,
)

NWI_AGENTS = ["random", "hand_shedder", "nwi_dodger"]


@pytest.fixture(scope="module")
def nwi_result():
    return tournament("nobody_wants_it", NWI_AGENTS, games=40, seed=3)


# --- line-ups ---------------------------------------------------------------------------------


def test_seating_patterns_are_every_arrangement_of_two_agents_up_to_rotation():
    assert seating_patterns(2) == ["AB"]
    assert seating_patterns(3) == ["AAB", "ABB"]
    assert seating_patterns(4) == ["AAAB", "AABB", "ABAB", "ABBB"]
    # binary necklaces of n beads minus the two of one colour only
    assert [len(seating_patterns(n)) for n in range(2, 9)] == [1, 2, 4, 6, 12, 18, 34]


def test_a_patterns_period_is_the_fewest_seats_it_repeats_after():
    periods = {"AB": 2, "AAB": 3, "ABAB": 2, "AABB": 4, "ABABAB": 2, "AABAAB": 3, "ABBABB": 3}
    assert {pattern: pattern_period(pattern) for pattern in periods} == periods


def test_a_lineup_that_repeats_when_turned_replays_each_deal_under_its_distinct_seatings():
    """A B A B turned by two seats is A B A B again: its deals are played under two rotations
    (they were under four, and two heuristics that do not draw played every game twice)."""
    result = tournament("nobody_wants_it", ["hand_shedder", "nwi_dodger"], games=16, players=4)
    for lineup, match in zip(result.lineups, result.matches):
        games = [(g.seed, tuple(g.scores.tolist()), g.length) for g in match.games]
        assert len(set(games)) == len(games) == 4, lineup.pattern
        per_deal = 2 if lineup.pattern == "ABAB" else 4
        assert [g.seed for g in match.games] == [g // per_deal for g in range(4)]
        assert match.rotations == (2 if lineup.pattern == "ABAB" else None)


@pytest.mark.parametrize(
    "lineup, rotations, mirrored, message",
    [
        (["random", "nwi_dodger", "random", "nwi_dodger"], 3, True, "3 dividing 4"),
        (["random", "nwi_dodger", "random", "nwi_dodger"], 5, True, "rotations=5 is out of"),
        (["random", "nwi_dodger", "random", "random"], 2, True, "repeats itself when turned"),
        (["random", "nwi_dodger", "random", "nwi_dodger"], 2, False, "not mirrored"),
    ],
)
def test_play_match_refuses_rotations_its_lineup_does_not_repeat_under(
    lineup, rotations, mirrored, message
):
    with pytest.raises(InputError, match=message):
        play_match("nobody_wants_it", lineup, 4, rotations=rotations, mirrored=mirrored)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_seating_patterns_treat_both_agents_alike(players):
    patterns = seating_patterns(players)
    swapped = {min(p[i:] + p[:i] for i in range(players)) for p in _swap_marks(patterns)}
    assert swapped == set(patterns)
    assert sum(p.count("A") for p in patterns) == sum(p.count("B") for p in patterns)


def _swap_marks(patterns):
    return [p.translate(str.maketrans("AB", "BA")) for p in patterns]


def test_every_pair_meets_in_every_seating_pattern():
    result = tournament("nobody_wants_it", NWI_AGENTS, games=10, players=4, seed=0)
    met = {(lineup.first, lineup.second, lineup.pattern) for lineup in result.lineups}
    pairs = [("random", "hand_shedder"), ("random", "nwi_dodger"), ("hand_shedder", "nwi_dodger")]
    assert met == {(a, b, p) for a, b in pairs for p in ["AAAB", "AABB", "ABAB", "ABBB"]}
    lineup = next(lu for lu in result.lineups if lu.pattern == "ABAB")
    assert lineup.agents == [lineup.first, lineup.second, lineup.first, lineup.second]


def test_games_per_pair_are_rounded_up_to_whole_deals_in_every_rotation():
    # 4 players: 4 line-ups per pair, each a multiple of 4 games -> 16 games per pair at least
    small = tournament("nobody_wants_it", ["random", "nwi_dodger"], games=10, players=4)
    assert (small.games_per_lineup, small.games_per_pair) == (4, 16)
    larger = tournament("nobody_wants_it", ["random", "nwi_dodger"], games=50, players=4)
    assert (larger.games_per_lineup, larger.games_per_pair) == (16, 64)
    assert [len(match.games) for match in larger.matches] == [16] * 4


def test_every_lineup_plays_the_same_mirrored_deals(nwi_result):
    for match in nwi_result.matches:
        assert [record.seed for record in match.games] == [3 + g // 2 for g in range(40)]


# --- one game's result between two agents ----------------------------------------------------


def _match(pattern: str, winners: list[list[bool]]) -> MatchResult:
    n = len(pattern)
    games = [
        GameRecord(0, np.zeros(n), np.zeros(n), np.array(won), 10, not any(won)) for won in winners
    ]
    return MatchResult("nobody_wants_it", {}, [], games, {}, True)


def test_a_game_is_won_by_the_agent_with_the_larger_share_of_winning_seats():
    lineup = LineUp("a", "b", "AABB")
    # game g seats line-up entry (seat + g) % 4 in each seat: game 1 has marks A, B, B, A
    match = _match(
        "AABB",
        [
            [True, False, False, False],  # game 0 (A A B B): an A seat won
            [False, True, False, False],  # game 1 (A B B A): a B seat won
            [True, False, False, True],  # game 2 (B B A A): one of each won: 1/2 against 1/2
            [False, False, False, False],  # game 3: truncated, nobody won
            [True, True, True, False],  # game 4 (A A B B): one loser, a B seat: 2/2 against 1/2
            [False, True, True, True],  # game 5 (A B B A): one loser, an A seat: 1/2 against 2/2
        ],
    )
    assert _lineup_outcomes(lineup, match) == [1, -1, 0, 0, 1, -1]


def test_pairwise_score_counts_a_draw_as_half_a_win():
    record = PairRecord("a", "b", wins=3, losses=1, draws=2)
    assert record.games == 6
    assert record.score("a") == pytest.approx(4 / 6)
    assert record.score("b") == pytest.approx(2 / 6)
    assert record.score_interval("a") == pytest.approx(wilson_interval(4, 6))


def test_score_matrix_is_each_pair_from_both_sides(nwi_result):
    scores, intervals = nwi_result.score_matrix()
    assert np.isnan(np.diag(scores)).all()
    off_diagonal = ~np.eye(3, dtype=bool)
    assert np.allclose((scores + scores.T)[off_diagonal], 1.0)
    assert (intervals[..., 0][off_diagonal] <= scores[off_diagonal]).all()
    assert (scores[off_diagonal] <= intervals[..., 1][off_diagonal]).all()
    assert all(record.games == 40 for record in nwi_result.pairs)


# --- ratings ----------------------------------------------------------------------------------


def test_ratings_rank_the_heuristics_above_random(nwi_result):
    assert nwi_result.agents[-1] == "random"
    ratings = nwi_result.ratings
    assert ratings["nwi_dodger"].mu > ratings["random"].mu + 10
    for rating in ratings.values():
        assert rating.sigma < 25 / 3  # every game made it surer than the prior
        assert rating.ordinal == pytest.approx(rating.mu - ORDINAL_SIGMAS * rating.sigma)
        assert rating.games == 80


def test_ratings_are_plackett_luce_with_tau_zero_averaged_over_random_orders(nwi_result):
    """openskill's ratings after every game, rated in RATING_ORDERS orders drawn from the seed
    (the games listed pair by pair, wins, losses, draws, before they are shuffled), averaged."""
    model = PlackettLuce(tau=0.0)
    games = []
    for record in nwi_result.pairs:
        first, second = sorted((record.first, record.second))
        won, lost = (record.wins, record.losses)
        if first != record.first:
            won, lost = lost, won
        games += [(first, second, (0, 1))] * won + [(first, second, (1, 0))] * lost
        games += [(first, second, (0, 0))] * record.draws
    games.sort()
    rng = np.random.default_rng(3)  # the tournament's seed
    mus = {agent: [] for agent in NWI_AGENTS}
    sigmas = {agent: [] for agent in NWI_AGENTS}
    for _ in range(RATING_ORDERS):
        ratings = {agent: model.rating(name=agent) for agent in NWI_AGENTS}
        for index in rng.permutation(len(games)):
            first, second, ranks = games[index]
            teams = [[ratings[first]], [ratings[second]]]
            [[ratings[first]], [ratings[second]]] = model.rate(teams, ranks=list(ranks))
        for agent in NWI_AGENTS:
            mus[agent].append(ratings[agent].mu)
            sigmas[agent].append(ratings[agent].sigma)
    assert RATING_ORDERS == 100
    for agent in NWI_AGENTS:
        assert nwi_result.ratings[agent].mu == pytest.approx(np.mean(mus[agent]))
        assert nwi_result.ratings[agent].sigma == pytest.approx(np.mean(sigmas[agent]))
        assert np.std(mus[agent]) > 0  # the orders differ, and so do their ratings


def test_ratings_do_not_depend_on_the_order_of_the_pairs_or_their_sides():
    """The same results listed in another order, each pair seen from its other side, give the
    same ratings to the last digit (the old ratings rated the games in the order played)."""
    pairs = [
        PairRecord("a", "b", wins=30, losses=10, draws=2),
        PairRecord("a", "c", wins=5, losses=35, draws=0),
        PairRecord("b", "c", wins=21, losses=19, draws=4),
    ]
    flipped = [PairRecord(r.second, r.first, r.losses, r.wins, r.draws) for r in reversed(pairs)]
    ratings = _rate(["a", "b", "c"], pairs, seed=7)
    assert _rate(["c", "b", "a"], flipped, seed=7) == ratings
    assert [ratings[agent].score for agent in "abc"] == pytest.approx([36 / 82, 34 / 86, 56 / 84])
    assert sorted("abc", key=lambda agent: -ratings[agent].mu) == ["c", "a", "b"]
    assert _rate(["a", "b", "c"], pairs, seed=8) != ratings  # another seed, other orders


def test_ratings_rank_by_the_results_not_by_the_order_of_the_games():
    """The case the averaging is for: "strong" beats "weak" 60-40, but "weak" won the last 40
    games. Rated once in that order, openskill puts "weak" first; the averaged ratings put
    "strong" first."""
    model = PlackettLuce(tau=0.0)
    one_pass = {agent: model.rating(name=agent) for agent in ("strong", "weak")}
    for strong_won in [True] * 60 + [False] * 40:
        ranks = [0, 1] if strong_won else [1, 0]
        teams = [[one_pass["strong"]], [one_pass["weak"]]]
        [[one_pass["strong"]], [one_pass["weak"]]] = model.rate(teams, ranks=ranks)
    assert one_pass["weak"].mu > one_pass["strong"].mu + 20  # the defect of one order
    ratings = _rate(["strong", "weak"], [PairRecord("strong", "weak", 60, 40)], seed=0)
    assert ratings["strong"].ordinal > ratings["weak"].ordinal
    assert 0 < ratings["strong"].mu - ratings["weak"].mu < 10


def test_the_same_seed_gives_the_same_table_and_another_seed_another(nwi_result):
    again = tournament("nobody_wants_it", NWI_AGENTS, games=40, seed=3)
    assert again.table() == nwi_result.table()
    other = tournament("nobody_wants_it", NWI_AGENTS, games=40, seed=4)
    assert other.table() != nwi_result.table()


def test_foxy_perfect_memory_outrates_forgetful_at_two_players():
    result = tournament("foxy", ["forgetful", "perfect_memory", "random"], games=16, seed=0)
    assert result.agents == ["perfect_memory", "forgetful", "random"]


def test_three_player_tables_seat_both_agents_equally_often():
    result = tournament("believe_it_or_not", ["random", "bluffer"], games=12, players=3)
    seat_games = {"random": 0, "bluffer": 0}
    for match in result.matches:
        for name, record in match.agents.items():
            seat_games[name] += record.seat_games
    assert seat_games == {"random": 18, "bluffer": 18}


def test_agents_may_be_factories_named_by_their_label():
    def remembers_one(game, seed):
        return ForgetfulAgent(game, seed, memory_cards=1)

    remembers_one.name = "remembers 1"
    result = tournament("foxy", [remembers_one, "perfect_memory"], games=4, seed=0)
    assert sorted(result.agents) == ["perfect_memory", "remembers 1"]
    assert result.matches[0].lineup == ["remembers 1", "perfect_memory"]


def test_a_factory_without_a_name_is_refused():
    with pytest.raises(ValueError, match="factories f\\(game, seed\\) with a name attribute"):
        tournament("foxy", [lambda game, seed: ForgetfulAgent(game, seed), "random"])


# --- output -----------------------------------------------------------------------------------


def test_table_shows_ratings_and_the_pairwise_matrix(nwi_result):
    lines = nwi_result.table().splitlines()
    assert lines[0].startswith("nobody_wants_it {'num_players': 2")
    assert "40 games per pair" in lines[0]
    rating_rows = [line.split() for line in lines[4:7]]
    assert [row[1] for row in rating_rows] == nwi_result.agents
    assert [row[0] for row in rating_rows] == ["1", "2", "3"]
    assert "score of the row agent against the column agent" in nwi_result.table()


def test_save_refuses_a_folder_of_another_tournament(nwi_result, tmp_path):
    """Saving into a folder that holds another tournament's result is refused before anything
    is written (it was overwritten); saving the same tournament again is allowed."""
    other = tournament("nobody_wants_it", NWI_AGENTS[:2], games=8, seed=1)
    paths = other.save(tmp_path / "out")
    before = paths["json"].read_bytes()
    with pytest.raises(InputError, match="holds another tournament's tournament.json"):
        nwi_result.save(tmp_path / "out")
    assert paths["json"].read_bytes() == before
    assert other.save(tmp_path / "out")["json"].read_bytes() == before


def test_save_refuses_a_users_pictures_an_empty_path_and_a_file(nwi_result, tmp_path):
    (tmp_path / "ratings.png").write_bytes(b"mine")
    with pytest.raises(InputError, match="holds ratings.png of no tournament saved there"):
        nwi_result.save(tmp_path)
    assert (tmp_path / "ratings.png").read_bytes() == b"mine"
    assert not (tmp_path / "tournament.json").exists()
    with pytest.raises(InputError, match="an empty path"):
        nwi_result.save("")
    with pytest.raises(InputError, match="is a file, not a folder"):
        nwi_result.save(tmp_path / "ratings.png")


def test_save_writes_the_json_and_both_plots(nwi_result, tmp_path):
    paths = nwi_result.save(tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "pairwise.png",
        "ratings.png",
        "tournament.json",
    ]
    data = json.loads(paths["json"].read_text())
    assert data["agents"] == nwi_result.agents
    assert [row["agent"] for row in data["ratings"]] == nwi_result.agents
    assert len(data["pairwise"]) == 6 and len(data["lineups"]) == 3
    assert data["rating_model"].startswith("openskill PlackettLuce")
    for kind in ("ratings", "pairwise"):
        assert paths[kind].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plots_show_the_agents_best_first(nwi_result):
    ratings_axes = nwi_result.plot_ratings().axes[0]
    labels = [label.get_text() for label in ratings_axes.get_yticklabels()]
    heights = dict(zip(labels, ratings_axes.get_yticks()))
    assert sorted(heights, key=heights.get, reverse=True) == nwi_result.agents  # best on top
    heat_map = nwi_result.plot_pairwise().axes[0].images[0].get_array()
    scores, _ = nwi_result.score_matrix()
    assert np.allclose(heat_map.filled(np.nan), scores, equal_nan=True)


def test_progress_bar_counts_every_game(capsys):
    tournament("nobody_wants_it", ["random", "nwi_dodger"], games=12, players=3, progress=True)
    assert "12/12" in capsys.readouterr().err  # 2 line-ups of 6 games


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"agents": ["random"]}, "at least 2 different agents"),
        ({"agents": ["random", "random"]}, "'random' is listed twice"),
        ({"agents": "random,nwi_dodger"}, "agents must be a list"),
        ({"agents": ["random", "dodger"]}, "unknown agent 'dodger' for nobody_wants_it"),
        ({"agents": ["random", "perfect_memory"]}, "unknown agent 'perfect_memory'"),
        ({"agents": ["random", "ppo:/no/such/run"]}, "ppo:/no/such/run"),
        ({"players": 8}, "players=8 is out of range; allowed 2..7"),
        ({"players": 1}, "players=1 is out of range"),
        ({"params": {"num_players": 3}}, "players="),
        ({"params": {"reward": "money"}}, "reward='money'"),
        ({"games": 0}, "games=0"),
        ({"seed": -1}, "seed=-1"),
    ],
)
def test_bad_arguments_are_clear_errors(kwargs, message):
    arguments = {"agents": ["random", "nwi_dodger"], "games": 2} | kwargs
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        tournament("nobody_wants_it", **arguments)


def test_a_one_player_foxy_tournament_is_refused():
    with pytest.raises(ValueError, match="players=1 is out of range; allowed 2..5"):
        tournament("foxy", ["random", "forgetful"], players=1)


# --- the command ------------------------------------------------------------------------------


def test_command_prints_the_table_and_writes_the_files(tmp_path, capsys):
    out = tmp_path / "nwi"
    arguments = ["--agents", "random, nwi_dodger", "--games", "4", "--seed", "3", "--quiet"]
    assert main(["tournament", "nobody_wants_it_v0", *arguments, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    expected = tournament("nobody_wants_it", ["random", "nwi_dodger"], games=4, seed=3)
    assert printed.startswith(expected.table() + "\n")
    assert f"written: {out / 'tournament.json'}" in printed
    assert json.loads((out / "tournament.json").read_text())["games_per_pair"] == 4


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--agents", "random"], "--agents: a tournament needs at least 2 different agents"),
        (["--agents", "random,perfect_memory"], "--agents: unknown agent 'perfect_memory'"),
        (["--agents", "random,nwi_dodger", "--players", "8"], "--players: num_players=8"),
        (["--agents", "random,nwi_dodger", "--games", "0"], "--games: must be an integer"),
    ],
)
def test_command_reports_a_bad_argument_in_one_line(arguments, message, capsys):
    assert main(["tournament", "nobody_wants_it", *arguments, "--quiet"]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"cardzoo: error: {message}") and error.count("\n") == 1


# --- resuming from a folder -------------------------------------------------------------------

#: 3 agents at 4 seats: 3 pairs x 4 seating patterns = 12 line-ups of 4 games each
RESUMED = {"agents": ["random", "nwi_dodger", "pretrained"], "games": 16, "players": 4, "seed": 7}


@pytest.fixture(scope="module")
def straight():
    return tournament("nobody_wants_it", **RESUMED)


class GamePlayedError(Exception):
    """A game was played where none may be."""


def _stopping_after(monkeypatch, lineups: int, stop: type[BaseException] = KeyboardInterrupt):
    """Make the tournament stop with ``stop`` (by default as Ctrl-C does) when it starts its
    line-up number ``lineups`` + 1; returns the list that counts the line-ups played."""
    from cardzoo import tournament as module

    played: list[int] = []

    def play(*args, **kwargs):
        if len(played) == lineups:
            raise stop
        played.append(1)
        return evaluation.play_match(*args, **kwargs)

    monkeypatch.setattr(module, "play_match", play)
    return played


def _files(folder):
    """Every file under ``folder`` with its content and modification time."""
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """A folder of the RESUMED tournament stopped after 5 of its 12 line-ups."""
    folder = tmp_path_factory.mktemp("tournaments") / "nwi"
    with pytest.MonkeyPatch.context() as monkeypatch:
        _stopping_after(monkeypatch, 5)
        with pytest.raises(KeyboardInterrupt):
            tournament("nobody_wants_it", **RESUMED, folder=folder)
    return folder


def test_a_stopped_tournament_resumes_to_the_result_of_an_uninterrupted_one(
    straight, stopped, tmp_path, monkeypatch
):
    folder = tmp_path / "nwi"
    shutil.copytree(stopped, folder)
    assert sorted(p.name for p in (folder / "lineups").iterdir()) == [
        f"{i:04d}.json" for i in range(5)
    ]
    played = _stopping_after(monkeypatch, 4)  # stopped again, after 4 more
    with pytest.raises(KeyboardInterrupt):
        tournament("nobody_wants_it", **RESUMED, folder=folder)
    assert len(list((folder / "lineups").iterdir())) == 9
    played = _stopping_after(monkeypatch, 12)
    resumed = tournament("nobody_wants_it", **RESUMED, folder=folder)
    assert len(played) == 3  # only the missing line-ups were played
    assert resumed.summary() == straight.summary()
    assert resumed.table() == straight.table()
    assert resumed.ratings == straight.ratings and resumed.pairs == straight.pairs
    assert [m.to_json() for m in resumed.matches] == [m.to_json() for m in straight.matches]
    assert resumed.agents == ["nwi_dodger", "pretrained", "random"]  # by rank (version 2)
    # a finished folder reads everything back and plays nothing
    before = _files(folder)
    again = tournament("nobody_wants_it", **RESUMED, folder=folder)
    assert len(played) == 3 and again.summary() == straight.summary()
    assert _files(folder) == before


def test_the_folder_records_the_settings_and_every_lineups_match(straight, stopped):
    settings = json.loads((stopped / "settings.json").read_text())
    digest = hashlib.sha256(pretrained_file("nobody_wants_it").read_bytes()).hexdigest()
    assert settings == {
        "format": 1,
        "tournament": {
            "game": "nobody_wants_it",
            "players": 4,
            "params": {"num_players": 4, "num_rounds": 3, "reward": "win"},
            "agents": ["random", "nwi_dodger", "pretrained"],
            "games": 16,
            "seed": 7,
            "max_cycles": 2000,
            "cardzoo": cardzoo.__version__,
            "policy_sha256": {"pretrained": digest},
        },
    }
    first = json.loads((stopped / "lineups" / "0000.json").read_text())
    assert first["lineup"] == {"A": "random", "B": "nwi_dodger", "pattern": "AAAB"}
    assert first["match"] == straight.matches[0].to_json()


def _refused(folder, message, monkeypatch, **changes):
    """The tournament in ``folder`` with ``changes`` is refused with ``message`` before any
    game, and nothing in the folder changes."""
    played = _stopping_after(monkeypatch, 0, GamePlayedError)
    before = _files(folder)
    with pytest.raises(SettingError, match=re.escape(message)):
        tournament("nobody_wants_it", **(RESUMED | changes), folder=folder)
    assert played == [] and _files(folder) == before


@pytest.mark.parametrize(
    ("changes", "difference"),
    [
        ({"games": 24}, "games 16 there, 24 here"),
        ({"seed": 8}, "seed 7 there, 8 here"),
        ({"max_cycles": 500}, "max_cycles 2000 there, 500 here"),
        ({"params": {"reward": "points"}}, "params.reward 'win' there, 'points' here"),
        (
            {"agents": ["nwi_dodger", "random", "pretrained"]},
            "agents ['random', 'nwi_dodger', 'pretrained'] there, "
            "['nwi_dodger', 'random', 'pretrained'] here",
        ),
    ],
)
def test_other_settings_are_refused_before_any_game(stopped, changes, difference, monkeypatch):
    _refused(
        stopped,
        f"folder: {stopped} holds a tournament of other settings ({difference}); give the same "
        "settings to resume it, or another folder to start a new one",
        monkeypatch,
        **changes,
    )


def test_a_saved_policy_changed_on_disk_is_refused(tmp_path, monkeypatch):
    policy = tmp_path / "policy.npz"
    shutil.copy(pretrained_file("nobody_wants_it"), policy)
    agents = ["random", f"ppo:{policy}"]
    folder = tmp_path / "nwi"
    _stopping_after(monkeypatch, 1)
    with pytest.raises(KeyboardInterrupt):
        tournament("nobody_wants_it", **(RESUMED | {"agents": agents}), folder=folder)
    old = hashlib.sha256(policy.read_bytes()).hexdigest()
    with np.load(policy) as archive:  # the same policy, written again with one more array
        np.savez(policy, **dict(archive), note=np.zeros(1))
    new = hashlib.sha256(policy.read_bytes()).hexdigest()
    _refused(
        folder,
        f"(policy_sha256.ppo:{policy} '{old}' there, '{new}' here)",
        monkeypatch,
        agents=agents,
    )


def _rewrite(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("file", "damage", "message"),
    [
        (
            "settings.json",
            lambda path: path.write_text('{"format": 1, "tourn'),
            "settings.json is damaged or foreign (JSONDecodeError: Unterminated string",
        ),
        (
            "settings.json",
            lambda path: path.write_text('{"game": "nobody_wants_it", "timesteps": 1000}'),
            "settings.json is damaged or foreign (not a file of a cardzoo tournament folder of "
            "format 1); give another folder",
        ),
        (
            "lineups/0003.json",
            lambda path: path.write_text(path.read_text()[:100]),
            "lineups/0003.json is damaged or foreign (JSONDecodeError",
        ),
        (
            "lineups/0003.json",
            lambda path: path.write_bytes((path.parent / "0002.json").read_bytes()),
            "lineups/0003.json is damaged or foreign (it holds the line-up {'A': 'random', 'B': "
            "'nwi_dodger', 'pattern': 'ABAB'}, not {'A': 'random', 'B': 'nwi_dodger', "
            "'pattern': 'ABBB'}); remove the file to play its line-up again",
        ),
        (
            "lineups/0003.json",
            lambda path: _rewrite(path, lambda data: data["match"]["games"].pop()),
            "lineups/0003.json is damaged or foreign (its games are not this line-up's (deals "
            "[7, 7, 7] there, [7, 7, 7, 7] here))",
        ),
        (
            "lineups/0003.json",
            lambda path: _rewrite(path, lambda data: data["match"]["params"].update(num_rounds=2)),
            "(its games are not this line-up's (params.num_rounds 2 there, 3 here))",
        ),
        (
            "lineups/0001.json",
            lambda path: _rewrite(path, lambda data: data["match"]["games"][2].pop("rewards")),
            "lineups/0001.json is damaged or foreign (not a match record (KeyError: 'rewards'))",
        ),
    ],
)
def test_a_damaged_or_foreign_file_is_refused_before_any_game(
    stopped, tmp_path, file, damage, message, monkeypatch
):
    folder = tmp_path / "nwi"
    shutil.copytree(stopped, folder)
    damage(folder / file)
    _refused(folder, message, monkeypatch)


def test_a_folder_of_other_files_is_refused(tmp_path, monkeypatch):
    (tmp_path / "notes.txt").write_text("mine")
    _refused(
        tmp_path,
        f"folder: {tmp_path} is not empty and holds no tournament (no settings.json); give a "
        "new or empty folder",
        monkeypatch,
    )
    _refused(tmp_path / "notes.txt", "notes.txt exists and is not a folder", monkeypatch)


def test_command_resumes_an_interrupted_tournament_with_resume(tmp_path, capsys, monkeypatch):
    out = tmp_path / "nwi"
    agents = ["random", "hand_shedder", "nwi_dodger"]
    expected = tournament("nobody_wants_it", agents, games=8, players=3, seed=3)
    command = ["tournament", "nobody_wants_it", "--agents", ",".join(agents), "--games", "8",
               "--players", "3", "--seed", "3", "--quiet", "--processes", "1",
               "--out", str(out)]  # fmt: skip
    played = _stopping_after(monkeypatch, 2)  # counted in this process: one process
    assert main(command) == 130  # as Ctrl-C after 2 of the 6 line-ups
    assert capsys.readouterr().err == "\ncardzoo: interrupted\n"
    refusals = {
        (): f"--out: {out} holds an interrupted tournament; --resume continues it",
        ("--resume", "--games", "12"): f"--out: {out} holds a tournament of other settings "
        "(games 8 there, 12 here); give the same settings to resume it, or another folder to "
        "start a new one",
        ("--resume", "--out", str(tmp_path / "new")): f"--resume: {tmp_path / 'new'} holds no "
        "tournament to resume (no settings.json); leave out --resume to start one there",
    }
    _command_refuses(command, refusals, tmp_path, capsys)
    assert len(played) == 2
    played = _stopping_after(monkeypatch, 6)
    assert main([*command, "--resume"]) == 0
    assert len(played) == 4
    assert capsys.readouterr().out.startswith(expected.table() + "\n")
    assert json.loads((out / "tournament.json").read_text()) == json.loads(
        json.dumps(expected.summary())
    )
    finished = {
        (): f"--out: {out} holds a finished tournament (tournament.json); give another folder",
        ("--resume",): f"--resume: the tournament in {out} is finished (tournament.json); "
        "nothing to resume",
    }
    _command_refuses(command, finished, tmp_path, capsys)
    assert len(played) == 4


# --- line-ups in processes ---------------------------------------------------------------------


def _lineup_files(folder):
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*.json")}


def test_lineups_in_processes_are_the_same_games_and_the_same_folder(straight, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    alone = tournament("nobody_wants_it", **RESUMED, folder=one)
    together = tournament("nobody_wants_it", **RESUMED, folder=two, processes=2)
    assert together.summary() == alone.summary() == straight.summary()
    assert [m.to_json() for m in together.matches] == [m.to_json() for m in straight.matches]
    assert _lineup_files(two) == _lineup_files(one) and len(_lineup_files(one)) == 13


def test_a_stopped_tournament_resumes_in_processes(straight, stopped, tmp_path):
    folder = tmp_path / "nwi"
    shutil.copytree(stopped, folder)
    before = {name: (folder / name).read_bytes() for name in _lineup_files(folder)}
    resumed = tournament("nobody_wants_it", **RESUMED, folder=folder, processes=3)
    assert resumed.summary() == straight.summary()
    assert all((folder / name).read_bytes() == data for name, data in before.items())


def test_factories_play_in_processes_without_being_pickled():
    def remembers_one(game, seed):  # a closure: pickle cannot take it, fork needs not
        return ForgetfulAgent(game, seed, memory_cards=memory)

    memory = 1
    remembers_one.name = "remembers 1"
    entries = [remembers_one, "perfect_memory", "random"]
    alone = tournament("foxy", entries, games=4, seed=0)
    assert tournament("foxy", entries, games=4, seed=0, processes=2).summary() == alone.summary()


class AgentBrokenError(Exception):
    """What the broken agent below raises."""


class BrokenAgent(Agent):
    name = "broken"

    def act(self, observation):
        raise AgentBrokenError("no agent today")


def test_an_error_in_a_process_stops_the_tournament_with_that_error(tmp_path):
    def broken(game, seed):  # built when checked; fails at its first move
        return BrokenAgent(game, seed)

    broken.name = "broken"
    folder = tmp_path / "nwi"
    with pytest.raises(AgentBrokenError, match="no agent today"):
        tournament("nobody_wants_it", ["random", "nwi_dodger", broken], games=16, players=4,
                   folder=folder, processes=2)  # fmt: skip
    # the line-ups of random and nwi_dodger that finished are kept; none with the broken agent
    kept = [json.loads(p.read_text())["lineup"] for p in (folder / "lineups").iterdir()]
    assert all("broken" not in lineup.values() for lineup in kept)


def test_stopped_in_processes_the_lineups_being_played_stop_too(tmp_path, monkeypatch):
    """On Ctrl-C the pool had played every line-up already queued (one per process and one more)
    to its end and thrown them away (a code review: 13 s more with pimc in the field). Now the
    processes are stopped at once: only the two saved line-ups were played to their end."""
    import time
    import uuid

    from cardzoo import tournament as module

    ended = tmp_path / "ended"
    ended.mkdir()

    def slow_play_match(*args, **kwargs):
        result = evaluation.play_match(*args, **kwargs)
        time.sleep(1.0)  # long enough to be stopped in
        (ended / uuid.uuid4().hex).touch()
        return result

    saved: list[int] = []
    real_save = module._TournamentFolder.save

    def save_then_stop(self, index, lineup, match):
        real_save(self, index, lineup, match)
        saved.append(index)
        if len(saved) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(module, "play_match", slow_play_match)
    monkeypatch.setattr(module._TournamentFolder, "save", save_then_stop)
    folder = tmp_path / "nwi"
    with pytest.raises(KeyboardInterrupt):
        tournament("nobody_wants_it", **RESUMED, folder=folder, processes=2)
    assert multiprocessing.active_children() == []
    assert len(list((folder / "lineups").iterdir())) == 2
    assert len(list(ended.iterdir())) == 2  # the line-ups in play when it stopped did not end


def test_where_processes_are_spawned_the_agents_must_pickle(straight, monkeypatch):
    """Spawn (every system but Linux) sends the line-up player to each process: agent names
    pickle and play the same games; a closure is refused before any game, saying why."""
    from cardzoo import tournament as module

    monkeypatch.setattr(module.sys, "platform", "darwin")
    spawned = tournament("nobody_wants_it", **RESUMED, processes=2)
    assert spawned.summary() == straight.summary()

    def remembers_one(game, seed):
        return ForgetfulAgent(game, seed, memory_cards=1)

    remembers_one.name = "remembers 1"
    with pytest.raises(
        InputError,
        match="processes: on this system a tournament's processes "
        "are started anew and must be sent its agents, which cannot be pickled",
    ):
        tournament("foxy", [remembers_one, "random", "forgetful"], games=4, processes=2)


@pytest.mark.parametrize("processes", [0, -1, 61, 1.5, "2", True])
def test_a_bad_number_of_processes_is_refused_before_any_game(processes, tmp_path):
    with pytest.raises(InputError, match=re.escape("processes")):
        tournament("nobody_wants_it", ["random", "nwi_dodger"], games=2, processes=processes,
                   folder=tmp_path / "t")  # fmt: skip
    assert not (tmp_path / "t").exists()


def _command_refuses(command, refusals, tmp_path, capsys):
    """``command`` with each tuple of extra arguments fails with its message, and changes
    nothing under ``tmp_path``."""
    for extra, message in refusals.items():
        before = _files(tmp_path)
        assert main([*command, *extra]) == 2
        assert capsys.readouterr().err == f"cardzoo: error: {message}\n"
        assert _files(tmp_path) == before


def test_command_refuses_resume_without_out(capsys):
    command = ["tournament", "nobody_wants_it", "--agents", "random,nwi_dodger", "--resume"]
    assert main(command) == 2
    error = "cardzoo: error: --resume: needs --out, the folder of the tournament\n"
    assert capsys.readouterr().err == error


# --- the learning benchmark's tournaments -----------------------------------------------------


def _learning_script():
    """``benchmarks/learning.py`` as a module."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "learning.py"
    spec = importlib.util.spec_from_file_location("benchmarks_learning", script)
    learning = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(learning)
    return learning


def test_the_learning_benchmarks_tournaments_resume_where_they_stopped(tmp_path, monkeypatch):
    pytest.importorskip("torch")  # the script trains too
    learning = _learning_script()
    # the replaced policy is named by a path from the repository's top
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    monkeypatch.setattr(learning, "TOURNAMENTS", tmp_path / "reports")
    results = {"foxy": json.loads(learning.PRETRAINED_RESULTS.read_text())["foxy"]}
    straight = learning.run_tournaments(results, 2)
    monkeypatch.setattr(learning, "TOURNAMENT_PROCESSES", 1)  # the line-ups counted here
    _stopping_after(monkeypatch, 3)
    with pytest.raises(KeyboardInterrupt):
        learning.run_tournaments(results, 2, folder=tmp_path / "lineups")
    played = _stopping_after(monkeypatch, 100)
    assert learning.run_tournaments(results, 2, folder=tmp_path / "lineups") == straight
    lineups = len(list((tmp_path / "lineups" / "foxy" / "lineups").iterdir()))
    assert lineups > 3 and len(played) == lineups - 3


def test_the_learning_benchmark_replaces_its_own_earlier_tournament_only(tmp_path, monkeypatch):
    """A newly shipped policy's tournament is saved over the report's own files of the earlier
    one; a folder that holds anything else is refused, its files kept."""
    pytest.importorskip("torch")  # the script trains too
    learning = _learning_script()
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    monkeypatch.setattr(learning, "TOURNAMENTS", tmp_path / "reports")
    results = {"foxy": json.loads(learning.PRETRAINED_RESULTS.read_text())["foxy"]}
    learning.run_tournaments(results, 2)
    learning.run_tournaments(results, 4)  # other settings: the earlier files are replaced
    saved = tmp_path / "reports" / "foxy"
    assert sorted(path.name for path in saved.iterdir()) == ["pairwise.png", "ratings.png",
                                                             "tournament.json"]  # fmt: skip
    assert json.loads((saved / "tournament.json").read_text())["games_per_pair"] == 4
    (saved / "notes.txt").write_text("mine")
    before = {path.name: path.read_bytes() for path in saved.iterdir()}
    with pytest.raises(InputError, match="holds another tournament's tournament.json"):
        learning.run_tournaments(results, 2)
    assert {path.name: path.read_bytes() for path in saved.iterdir()} == before


def test_the_learning_benchmark_seats_every_earlier_agent_kept_newest_first(tmp_path, monkeypatch):
    learning = _learning_script()
    monkeypatch.setattr(learning, "PREVIOUS", tmp_path)
    kept = ("quick.npz", "quick.v0.npz", "quick.v1.npz", "quick.v10.npz", "quick.vx.npz")
    for name in (*kept, "quick-other.npz", "quick-other.v0.npz"):
        (tmp_path / name).write_bytes(b"")
    assert learning.earlier_policies("quick") == [
        tmp_path / name for name in ("quick.npz", "quick.v10.npz", "quick.v1.npz", "quick.v0.npz")
    ]  # fmt: skip
    assert learning.earlier_policies("quick-other") == [
        tmp_path / "quick-other.npz", tmp_path / "quick-other.v0.npz"
    ]  # fmt: skip
    (tmp_path / "quick.npz").unlink()  # only older ones kept
    assert learning.earlier_policies("quick")[0] == tmp_path / "quick.v10.npz"
    assert learning.earlier_policies("nobody") == []


def test_a_saved_tournaments_ratings_are_what_its_pairs_give():
    """benchmarks/rating_orders.py reads each pair of a saved tournament once; rated again, the
    pairs of the shipped Nobody Wants It tournament give the ratings it saved (the same games,
    the same seed)."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "rating_orders.py"
    spec = importlib.util.spec_from_file_location("benchmarks_rating_orders", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    saved = json.loads((script.parent / "tournaments/nobody_wants_it/tournament.json").read_text())
    agents, pairs = module.pair_records(saved)
    n = len(agents)
    assert len(pairs) == n * (n - 1) // 2 and {record.games for record in pairs} == {112}
    ratings = _rate(agents, pairs, saved["seed"])
    for row in saved["ratings"]:
        assert ratings[row["agent"]].mu == pytest.approx(row["mu"], abs=1e-9)
        assert ratings[row["agent"]].sigma == pytest.approx(row["sigma"], abs=1e-9)
