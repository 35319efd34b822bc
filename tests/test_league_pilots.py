"""benchmarks/league_pilots.py: the head-to-head scores a pilot is chosen by."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def pilots():
    sys.path.insert(0, str(BENCHMARKS))  # the script imports its neighbours by name
    try:
        import league_pilots
    finally:
        sys.path.remove(str(BENCHMARKS))
    return league_pilots


def test_head_to_head_meets_the_shipped_agent_and_the_one_it_replaced(pilots, monkeypatch):
    monkeypatch.setattr(pilots, "GAMES", 32)
    config = pilots.PILOTS["believe_it_or_not-quick-e"]
    scores = pilots.head_to_head(config, "random", "believe_it_or_not-quick")
    assert list(scores) == ["shipped", "replaced"]  # quick's v0 agent is kept
    for score in scores.values():
        assert score["games"] == 32  # two rounds of four seats in each of four line-ups
        assert score["score"] <= 0.25  # random wins little against a learned agent
        assert score["ci"][0] <= score["score"] <= score["ci"][1]


def test_head_to_head_without_a_replaced_agent_meets_the_shipped_one_only(
    pilots, monkeypatch, tmp_path
):
    monkeypatch.setattr(pilots, "GAMES", 16)
    learning = sys.modules[pilots.replaced_policy.__module__]  # where the replaced agents lie
    monkeypatch.setattr(learning, "PREVIOUS", tmp_path)  # no file of a replaced agent
    config = pilots.PILOTS["believe_it_or_not-quick-e"]
    assert list(pilots.head_to_head(config, "random", "believe_it_or_not-quick")) == ["shipped"]
