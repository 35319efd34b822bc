"""The heuristics' speed benchmark (benchmarks/heuristics_speed.py) loads the original agents
from git, checks that both sides take the same actions and writes its table."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "heuristics_speed.py"


def _has_reference_commit() -> bool:
    if shutil.which("git") is None:
        return False
    reference = SCRIPT.read_text().split('REFERENCE = "')[1].split('"')[0]
    found = subprocess.run(
        ["git", "cat-file", "-e", f"{reference}^{{commit}}"], cwd=ROOT, capture_output=True
    )
    return found.returncode == 0


pytestmark = pytest.mark.skipif(
    not _has_reference_commit(), reason="needs the project's git history"
)


@pytest.fixture(scope="module")
def speed():
    spec = importlib.util.spec_from_file_location("benchmarks_heuristics_speed", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_quick_run_measures_every_foxy_agent_and_writes_the_table(speed, tmp_path):
    output = tmp_path / "speed.md"
    rows = speed.main(["--games", "1", "--repeats", "1", "--only", "foxy", "--output", str(output)])
    assert [row["agent"] for row in rows] == ["random", "perfect_memory", "forgetful"]
    assert all(row["decisions"] == 40 for row in rows)  # one 2-player game of 20 cards
    text = output.read_text()
    assert "| foxy | perfect_memory | 40 |" in text
    assert speed.REFERENCE[:10] in text


def test_a_run_whose_sides_disagree_stops(speed, monkeypatch):
    time_acts = speed.time_acts

    def disagreeing(game, agent_class, recording):
        seconds, actions = time_acts(game, agent_class, recording)
        if agent_class.__module__.startswith("_reference"):
            actions = [action + 1 for action in actions]
        return seconds, actions

    monkeypatch.setattr(speed, "time_acts", disagreeing)
    with pytest.raises(SystemExit, match="different actions"):
        speed.measure("foxy", num_games=1, repeats=1)
