"""How benchmarks/training_speed.py charges a sampling process's time to the parts of the code:
py-spy's sampled stacks and cProfile's table, on fixed inputs; and how it writes its file."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "training_speed.py"
ENVIRONMENT = "environment: engine, kernels, table loop or batch driver"
POLICY = "policy forward passes (learner and self-play snapshots)"


@pytest.fixture(scope="module")
def speed():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        spec = importlib.util.spec_from_file_location("benchmarks_training_speed", SCRIPT)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return module


#: py-spy's raw format: a stack (outermost first) and its samples
RAW = "\n".join([
    "<module> (<string>:1);sampling_child (training_speed.py:160);"
    "one_process (training_speed.py:140) 50",
    "<module> (<string>:1);sampled_collects (training_speed.py:170);Sampler.collect "
    "(cardzoo/training/sampler.py:440);SeatedGames.advance (cardzoo/vector/seated.py:201);"
    "GameBatch.play_codes (cardzoo/envs/batch.py:271) 30",
    "<module> (<string>:1);sampled_collects (training_speed.py:170);Sampler.collect "
    "(cardzoo/training/sampler.py:440);SeatedGames.advance (cardzoo/vector/seated.py:204);"
    "decide (cardzoo/vector/seated.py:89);PolicyAgent.act_batch (cardzoo/agents/policy.py:648);"
    "choices (cardzoo/agents/policy.py:568);Agent.rng (cardzoo/agents/base.py:45);"
    "default_rng (numpy/random/_generator.py:5) 7",
    "<module> (<string>:1);sampled_collects (training_speed.py:170);Sampler.collect "
    "(cardzoo/training/sampler.py:440);SeatedGames.sit (cardzoo/vector/seated.py:160);"
    "Agent.unmade_seed (cardzoo/agents/base.py:63) 3",
    "<module> (<string>:1);sampled_collects (training_speed.py:170);Sampler.collect "
    "(cardzoo/training/sampler.py:455);_gae (cardzoo/training/sampler.py:660);"
    "sum (numpy/_core/fromnumeric.py:2300) 10",
])  # fmt: skip


def test_sampled_stacks_are_charged_to_their_innermost_cardzoo_frame(speed):
    parts = speed.sampled_parts(RAW)
    assert parts == {
        ENVIRONMENT: 33,  # the kernel's call, and the generator made for the kernel at sit
        POLICY: 7,  # the policy's own draw, through the agents' base class
        "sampler: learner's inputs, sampled actions, rewards, GAE": 10,
    }  # the 50 samples of the set-up (outside sampled_collects) are not counted


def test_the_agents_base_class_is_charged_to_its_caller_in_cprofile_too(speed):
    rng = ("/x/cardzoo/agents/base.py", 45, "rng")
    choices = ("/x/cardzoo/agents/policy.py", 568, "choices")
    sit = ("/x/cardzoo/vector/seated.py", 160, "sit")
    # (calls, primitive calls, own time, cumulative time, callers: {caller: (..., time)})
    stats = {
        rng: (4, 4, 0.4, 0.4, {choices: (3, 3, 0.3, 0.3), sit: (1, 1, 0.1, 0.1)}),
        choices: (1, 1, 1.0, 1.3, {}),
        sit: (1, 1, 2.0, 2.1, {}),
    }
    parts = speed.profiled_parts(stats)
    assert parts[POLICY] == pytest.approx(1.3)
    assert parts[ENVIRONMENT] == pytest.approx(2.1)


def test_each_measurement_rewrites_its_own_part_of_the_file_and_keeps_the_other(speed, tmp_path):
    out = tmp_path / "training_speed.md"
    paths = speed.PATHS_HEADING
    speed.write_part(out, [paths, "", "paths, first"], before_paths=False)  # no file yet
    assert out.read_text() == f"{paths}\n\npaths, first\n"
    speed.write_part(out, [paths, "", "paths, second"], before_paths=False)
    assert out.read_text() == f"{paths}\n\npaths, second\n"
    speed.write_part(out, ["# Training speed", "", "main, first"], before_paths=True)
    assert out.read_text() == f"# Training speed\n\nmain, first\n\n{paths}\n\npaths, second\n"
    speed.write_part(out, ["# Training speed", "", "main, second", ""], before_paths=True)
    assert out.read_text() == f"# Training speed\n\nmain, second\n\n{paths}\n\npaths, second\n"
    speed.write_part(out, [paths, "", "paths, third"], before_paths=False)
    assert out.read_text() == f"# Training speed\n\nmain, second\n\n{paths}\n\npaths, third\n"


def test_the_main_measurement_keeps_the_paths_section(speed, tmp_path, monkeypatch):
    out = tmp_path / "training_speed.md"
    out.write_text(f"# Training speed\n\nold tables\n\n{speed.PATHS_HEADING}\n\npaths\n")
    monkeypatch.setattr(speed, "breakdown", lambda game, tables=False: ("where it went", 0.3))
    monkeypatch.setattr(speed, "user_default", lambda game, steps: (100.0, 1.0))
    monkeypatch.setattr(speed, "ours", lambda game, steps, processes, **settings: (400.0, 1.5))
    monkeypatch.setattr(speed.torch, "set_num_threads", lambda threads: None)
    monkeypatch.setattr(speed, "threadpool_limits", lambda limit: None)
    monkeypatch.setattr(sys, "argv", ["training_speed.py", "--games", "foxy", "--out", str(out)])
    speed.main()
    text = out.read_text()
    assert "old tables" not in text
    assert "| foxy | 100 | 1.00 | 400 | 1.50 | 4.0 | 400 | 1.50 | 4.0 | 400 | 400 | 1.00 |" in text
    assert text.endswith(f"where it went\n\n{speed.PATHS_HEADING}\n\npaths\n")


def test_the_load_note_gives_both_load_averages(speed, monkeypatch):
    monkeypatch.setattr(speed.os, "getloadavg", lambda: (2.6, 0.0, 0.0))
    assert speed.load_note(0.4).startswith(
        "The load average was 0.4 at the start and 2.6 at the end; it includes the benchmark's own"
    )
