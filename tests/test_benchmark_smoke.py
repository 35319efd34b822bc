"""The throughput benchmark (benchmarks/throughput.py) runs, counts and reports correctly.

Quick mode on Henhouse only with a tiny budget. The PettingZoo classic and OpenSpiel references
are measured when the ``bench`` extra is installed and reported as not installed otherwise."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from cardzoo.envs import registry

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "throughput.py"


@pytest.fixture(scope="module")
def throughput():
    spec = importlib.util.spec_from_file_location("benchmarks_throughput", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the script loads
    spec.loader.exec_module(module)
    return module


def quick(throughput, output: Path, *extra: str):
    argv = ["--quick", "--seconds", "0.02", "--output", str(output), *extra]
    rows = throughput.main(argv)
    return {(row.library, row.name, row.path): row for row in rows}


def test_quick_run_measures_henhouse_through_both_paths(throughput, tmp_path):
    rows = quick(throughput, tmp_path / "RESULTS.md", "--games", "henhouse", "--references", "none")
    assert set(rows) == {("cardzoo", "henhouse_v0", "aec"), ("cardzoo", "henhouse_v0", "engine")}
    for row in rows.values():
        assert row.status == "ok"
        assert len(row.runs) == 3
        assert all(run.games >= 1 and run.seconds > 0 for run in row.runs)
        assert row.median("choices") == 0  # Henhouse's only action is "turn your top card"
    for run in rows["cardzoo", "henhouse_v0", "aec"].runs:
        # Every game ends with the four players, all terminated or truncated, stepping out.
        assert run.steps == run.decisions + 4 * run.games
    for run in rows["cardzoo", "henhouse_v0", "engine"].runs:
        assert run.steps == run.decisions


@pytest.mark.parametrize(
    ("argv", "recorded"),
    [
        ([], True),
        (
            ["--games", "nobody_wants_it", "--references", "none", "--opponents", "nwi_dodger"],
            False,
        ),
        (["--games", "minus_two"], False),
        (["--references", "none"], False),
        (["--quick"], False),
        (["--seconds", "1"], False),
        (["--vector-games", "64"], False),
        (["--clock", "wall"], False),
    ],
)
def test_only_a_full_run_writes_the_recorded_table_by_default(throughput, argv, recorded):
    """docs/vector.md's one-game commands had replaced benchmarks/RESULTS.md, the full table the
    docs quote, with a one-game table."""
    output = throughput.parse_args(argv).output
    assert output == (throughput.DEFAULT_OUTPUT if recorded else throughput.PARTIAL_OUTPUT)
    assert output.relative_to(SCRIPT.parent.parent).as_posix() == (
        "benchmarks/RESULTS.md" if recorded else "runs/throughput.md"
    )


def test_quick_run_writes_the_report(throughput, tmp_path):
    output = tmp_path / "RESULTS.md"
    quick(throughput, output, "--games", "henhouse", "--references", "none")
    text = output.read_text()
    assert "| cardzoo | henhouse_v0 | aec | num_players=4 |" in text
    assert "| cardzoo | henhouse_v0 | engine | num_players=4 |" in text
    assert ">=100k dec/s: " in text
    assert ">=5x leduc: n/a; >=rps/1.5: n/a" in text  # no references in this run
    assert "numpy" in text and "CPU:" in text
    assert not list(tmp_path.glob(".*.tmp"))  # written through a temporary file and a rename


def test_references_are_measured_when_installed(throughput, tmp_path):
    pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo.classic.rps_v2")  # needs pygame: the bench extra
    references = "rps_v2,leduc_poker"
    rows = quick(throughput, tmp_path / "R.md", "--games", "henhouse", "--references", references)
    for key in (("PettingZoo", "rps_v2", "aec"), ("OpenSpiel", "leduc_poker", "spiel")):
        assert rows[key].status == "ok"
        assert all(run.decisions >= 1 for run in rows[key].runs)
    text = (tmp_path / "R.md").read_text()
    assert ">=rps/1.5: met" in text or ">=rps/1.5: NOT met" in text  # rps is known in this run


def test_references_not_installed_are_reported_not_a_crash(throughput, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import now raises ImportError
    monkeypatch.setitem(sys.modules, "pettingzoo.classic.rps_v2", None)
    references = "rps_v2,leduc_poker"
    output = tmp_path / "R.md"
    rows = quick(throughput, output, "--games", "henhouse", "--references", references)
    for key in (("PettingZoo", "rps_v2", "aec"), ("OpenSpiel", "leduc_poker", "spiel")):
        assert rows[key].status.startswith("not installed")
        assert rows[key].runs == []
    assert "| PettingZoo | rps_v2 | aec | not installed" in output.read_text()


def test_a_game_that_does_not_import_is_reported_missing(throughput, tmp_path, monkeypatch):
    monkeypatch.setitem(registry.GAMES, "no_such_game", registry.GameSpec("no_such_game"))
    output = tmp_path / "RESULTS.md"
    rows = quick(throughput, output, "--games", "henhouse,no_such_game", "--references", "none")
    assert rows["cardzoo", "no_such_game", "aec"].status.startswith("missing")
    assert rows["cardzoo", "no_such_game", "engine"].status.startswith("missing")
    assert rows["cardzoo", "henhouse_v0", "aec"].status == "ok"
    assert "| cardzoo | no_such_game | aec | missing (ModuleNotFoundError" in output.read_text()


def test_targets_are_marked_against_the_references_of_the_same_run(throughput):
    def row(library, name, path, steps, decisions=None):
        counts = throughput.Counts(steps, steps if decisions is None else decisions, 0, 1, 1.0)
        return throughput.Benchmark(name, library, path, runs=[counts])

    leduc, rps = 10_000.0, 60_000.0
    fast = row("cardzoo", "a_v0", "aec", 50_000)  # 5x leduc, rps / 1.2
    slow = row("cardzoo", "b_v0", "aec", 39_999)  # under both
    assert throughput.targets(fast, leduc, rps) == ">=5x leduc: met; >=rps/1.5: met"
    assert throughput.targets(slow, leduc, rps) == ">=5x leduc: NOT met; >=rps/1.5: NOT met"
    assert throughput.targets(fast, None, None) == ">=5x leduc: n/a; >=rps/1.5: n/a"
    engine = row("cardzoo", "a_v0", "engine", 100_000)
    assert throughput.targets(engine, leduc, rps) == ">=100k dec/s: met"
    engine = row("cardzoo", "a_v0", "engine", 99_999)
    assert throughput.targets(engine, leduc, rps) == ">=100k dec/s: NOT met"
    reference = row("PettingZoo", "leduc_holdem_v4", "aec", 10_000)
    assert throughput.targets(reference, leduc, rps) == ""  # targets are cardzoo's only
    rows = [reference, row("PettingZoo", "rps_v2", "aec", 60_000)]
    assert throughput.reference_rate(rows, "leduc_holdem_v4") == 10_000
    assert throughput.reference_rate(rows, "rps_v2") == 60_000
    assert throughput.reference_rate(rows, "connect_four_v3") is None


def test_the_vector_rows_are_marked_against_the_aec_env_and_crazy_eights(throughput):
    def row(library, name, path, decisions):
        counts = throughput.Counts(decisions, decisions, 0, 1, 1.0)
        return throughput.Benchmark(name, library, path, runs=[counts])

    rows = [
        row("cardzoo", "a_v0", "aec", 50_000),
        row("cardzoo", "a_v0", "engine", 100_000),
        row("OpenSpiel", "crazy_eights", "spiel", 250_000),
    ]
    rates = throughput.decision_rates(rows)
    assert rates == {"a_v0 aec": 50_000, "a_v0 engine": 100_000, "crazy_eights": 250_000}
    fast = row("cardzoo", "a_v0", "vector", 1_000_000)
    assert throughput.targets(fast, None, None, rates) == (
        ">=1M dec/s: met; >=20x AEC: met; >=4x crazy_eights: met"
    )
    slow = row("cardzoo", "a_v0", "vector gym", 999_999)
    assert throughput.targets(slow, None, None, rates) == (
        ">=1M dec/s: NOT met; >=20x AEC: NOT met; >=4x crazy_eights: NOT met"
    )
    assert throughput.targets(fast, None, None, {}) == (
        ">=1M dec/s: met; >=20x AEC: n/a; >=4x crazy_eights: n/a"
    )
    plain = row("cardzoo", "a_v0", "vector plain", 99_999)
    assert throughput.targets(plain, None, None, rates) == ">=engine dec/s: NOT met (1.00x)"
    # a game with a numpy engine of before its kernel: the plain rows are held to it
    numpy_engine = row("cardzoo", "a_v0", "numpy engine", 80_000)
    rates = throughput.decision_rates([*rows, numpy_engine])
    assert rates["a_v0 numpy engine"] == 80_000
    assert throughput.targets(numpy_engine, None, None, rates) == ""
    assert throughput.targets(plain, None, None, rates) == ">=numpy engine dec/s: met (1.25x)"
    plain = row("cardzoo", "a_v0", "vector plain", 60_000)
    assert throughput.targets(plain, None, None, rates) == ">=numpy engine dec/s: NOT met (0.75x)"
    assert throughput.targets(plain, None, None, {}) == ">=engine dec/s: n/a"


def test_quick_run_measures_the_vector_forms(throughput, tmp_path):
    output = tmp_path / "R.md"
    argv = ["--games", "nobody_wants_it", "--references", "none", "--vector-games", "20"]
    rows = quick(throughput, output, *argv)
    paths = {"aec", "engine", "numpy engine", "vector", "vector gym", "vector plain",
             "vector gym plain"}  # fmt: skip
    assert {path for _, _, path in rows} == paths
    for path, games in (("vector", 20), ("vector plain", 2)):  # the plain rows: a tenth
        row = rows["cardzoo", "nobody_wants_it_v0", path]
        assert row.params.endswith(f"num_envs={games}")
        assert all(run.steps == run.decisions and run.decisions % games == 0 for run in row.runs)
    gym = rows["cardzoo", "nobody_wants_it_v0", "vector gym"]
    assert all(run.decisions > run.steps >= run.choices for run in gym.runs)
    text = output.read_text()
    assert "command: `python benchmarks/throughput.py --quick --seconds 0.02" in text
    assert "| cardzoo | nobody_wants_it_v0 | vector | " in text


def test_quick_run_measures_a_learner_against_heuristic_opponents(throughput, tmp_path):
    """--opponents: the learner against nwi_dodger in the VectorEnv's kernel, in the VectorEnv
    called from Python, and in the AEC env; every opponent decision counted besides the
    learner's steps; the second table rates each row against the kernel row."""
    pytest.importorskip("numba")
    output = tmp_path / "R.md"
    flags = ["--references", "none", "--opponents", "nwi_dodger", "--vector-games", "4"]
    rows = quick(throughput, output, "--games", "nobody_wants_it", *flags)
    paths = [f"vector gym vs nwi_dodger ({how})" for how in ("kernel", "Python")]
    for path in [*paths, "aec vs nwi_dodger"]:
        row = rows["cardzoo", "nobody_wants_it_v0", path]
        assert row.status == "ok" and len(row.runs) == 3
        assert all(run.decisions > run.steps >= 1 for run in row.runs)  # opponents decide too
    text = output.read_text()
    assert "| nobody_wants_it_v0 | vector gym vs nwi_dodger (kernel) |" in text
    assert text.count(" | 1.00 |\n") >= 1 and "kernel x this" in text


def test_opponents_the_kernel_does_not_play_are_an_error_row(throughput):
    """A policy (every heuristic of the games with a vector form is in their kernels now): the
    kernel row is an error, the other two run."""
    rows = throughput.opponent_benchmarks("nobody_wants_it", "", "pretrained", 2)
    assert [row.path for row in rows] == [
        "vector gym vs pretrained (kernel)",
        "vector gym vs pretrained (Python)",
        "aec vs pretrained",
    ]
    assert rows[0].status == "error (ValueError: the kernel does not play pretrained)"
    assert rows[1].status == rows[2].status == "ok"
