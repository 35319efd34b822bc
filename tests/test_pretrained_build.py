"""benchmarks/pretrained.py ships a run's chosen policy, or the candidate named for it in
``SHIPPED_CANDIDATES``, and its model card says which."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "pretrained.py"


@pytest.fixture(scope="module")
def build():
    spec = importlib.util.spec_from_file_location("benchmarks_pretrained", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def run(tmp_path):
    (tmp_path / "candidates").mkdir()
    for name in ("policy.npz", "candidates/5251072.npz", "candidates/16007168.npz"):
        (tmp_path / name).write_bytes(name.encode())
    return tmp_path


def test_a_run_ships_its_own_choice_unless_a_candidate_is_named(build, run, monkeypatch):
    metrics = {"selected_timesteps": 16_007_168}
    rule = "the one that won most"
    monkeypatch.setattr(build, "SHIPPED_CANDIDATES", {"believe_it_or_not": (5_251_072, rule)})
    assert build.shipped_policy("minus_two", run, metrics) == (run / "policy.npz", metrics)
    file, shipped = build.shipped_policy("believe_it_or_not", run, metrics)
    assert file == run / "candidates" / "5251072.npz"
    assert shipped == {
        "selected_timesteps": 5_251_072,
        "shipped_candidate": 5_251_072,
        "shipped_rule": rule,
    }
    assert metrics == {"selected_timesteps": 16_007_168}  # the run's own record is left alone
    settings = {"select_top": 5, "select_games": 2000}
    text = build._selection(settings, shipped)
    assert text.startswith("among the 5 candidates of the run (its best periodic evaluations), "
                           "the one that won most, all on the league pilots' deals")  # fmt: skip
    assert "benchmarks/league_pilots.md" in text
    assert build._selection(settings, metrics) == build._selection(settings)


def test_a_named_candidate_the_run_did_not_keep_is_refused(build, run, monkeypatch):
    monkeypatch.setattr(build, "SHIPPED_CANDIDATES", {"believe_it_or_not": (7_503_872, "")})
    with pytest.raises(SystemExit, match="7503872.npz does not exist"):
        build.shipped_policy("believe_it_or_not", run, {"selected_timesteps": 1})


def test_a_card_without_its_run_is_refused_naming_the_missing_file(build, tmp_path):
    with pytest.raises(SystemExit, match="--card-only needs its run's .*minus_two/metrics.json"):
        build.write_card("minus_two", tmp_path)
