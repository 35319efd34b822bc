"""What a user installs: the sdist and the wheel built from this checkout carry the right metadata,
the license, ``py.typed`` and the pretrained policies, and the wheel installed alone into a fresh
virtual environment (base dependencies only: no torch) plays the README's quickstart and a match
of the ``pretrained`` agent.

The build runs without isolation (``python -m build --no-isolation``: the setuptools and build of
the dev extra, nothing downloaded); the fresh environment installs the base dependencies through
pip as a user would, within the tested versions (``constraints.txt``). About 20 s here.
"""

from __future__ import annotations

import email.parser
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("build")
tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
NAME, VERSION = PROJECT["name"], PROJECT["version"]
#: what the build reads: the project files a source distribution holds
SOURCES = [
    "pyproject.toml",
    "MANIFEST.in",
    "README.md",
    "LICENSE",
    "CHANGELOG.md",
    "CITATION.cff",
    "mkdocs.yml",
]
PRETRAINED = sorted(
    path.relative_to(ROOT).as_posix()
    for path in (ROOT / "cardzoo" / "agents" / "pretrained").iterdir()
    if path.suffix in (".npz", ".md")
)
#: optional dependencies: none may be installed beside a plain wheel
EXTRAS_ONLY = ["torch", "stable_baselines3", "sb3_contrib", "ray", "numba", "starlette"]


def run(*command, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**env, "MPLBACKEND": "Agg"},
    )


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """The sdist and the wheel of a copy of the checkout (the checkout gets no build files)."""
    work = tmp_path_factory.mktemp("packaging")
    source = work / "source"
    source.mkdir()
    for name in SOURCES:
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "cardzoo", source / "cardzoo", ignore=shutil.ignore_patterns("__pycache__")
    )
    for folder in ("docs", "tests"):  # MANIFEST.in takes one and leaves the other
        shutil.copytree(
            ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    done = run(
        sys.executable, "-m", "build", "--no-isolation", "--outdir", work / "dist", source, cwd=work
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return work / "dist"


def wheel_of(dist: Path) -> Path:
    [wheel] = dist.glob("*.whl")
    return wheel


def sdist_of(dist: Path) -> Path:
    [sdist] = dist.glob("*.tar.gz")
    return sdist


def test_the_wheel_carries_its_metadata_license_types_and_pretrained_policies(dist):
    wheel = wheel_of(dist)
    assert wheel.name == f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"{NAME}-{VERSION}.dist-info"
        metadata = email.parser.Parser().parsestr(archive.read(f"{info}/METADATA").decode())
        license_text = archive.read(f"{info}/licenses/LICENSE")
    assert metadata["Name"] == NAME and metadata["Version"] == VERSION
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["Requires-Python"] == PROJECT["requires-python"]
    assert license_text == (ROOT / "LICENSE").read_bytes()
    assert "cardzoo/py.typed" in names
    assert [name for name in PRETRAINED if name not in names] == []
    assert "cardzoo/web/static/index.html" in names
    # no test, docs or build files in the package
    assert not [name for name in names if name.startswith(("tests/", "docs/", "build/"))]


def test_the_sdist_carries_the_sources_the_license_and_the_release_files(dist):
    sdist = sdist_of(dist)
    assert sdist.name == f"{NAME}-{VERSION}.tar.gz"
    top = f"{NAME}-{VERSION}"
    with tarfile.open(sdist) as archive:
        names = set(archive.getnames())
        info = archive.extractfile(f"{top}/PKG-INFO").read().decode()
    metadata = email.parser.Parser().parsestr(info)
    assert metadata["Name"] == NAME and metadata["Version"] == VERSION
    assert metadata["License-Expression"] == "MIT"
    for name in [
        "LICENSE",
        "README.md",
        "pyproject.toml",
        "CHANGELOG.md",
        "CITATION.cff",
        "mkdocs.yml",
    ]:
        assert f"{top}/{name}" in names, name
    assert f"{top}/cardzoo/py.typed" in names
    assert [name for name in PRETRAINED if f"{top}/{name}" not in names] == []
    # the rules the docstrings name are there; a test suite that could not run there is not
    assert f"{top}/docs/nobody_wants_it.md" in names and f"{top}/docs/api.md" in names
    assert not [name for name in names if name.startswith(f"{top}/tests")]


def test_the_wheel_alone_plays_the_quickstart_and_a_pretrained_match_without_torch(dist, tmp_path):
    venv = tmp_path / "venv"
    done = run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    python = venv / "bin" / "python"
    done = run(
        python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        "-c", ROOT / "constraints.txt", wheel_of(dist),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    # the base install only: no optional extra came along
    done = run(python, "-c", f"import importlib.util as u; print([m for m in {EXTRAS_ONLY!r} "
               "if u.find_spec(m)])", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr
    done = run(python, "-c", "import torch", cwd=tmp_path)
    assert done.returncode != 0 and "No module named 'torch'" in done.stderr

    # the installed package, not the checkout
    done = run(python, "-c", "import cardzoo; print(cardzoo.__file__, cardzoo.__version__)",
               cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    location, version = done.stdout.split()
    assert Path(location).is_relative_to(venv) and version == VERSION

    # the README's quickstart, as written
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quickstart = readme.split("## Quickstart", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert "henhouse_v0.env(" in quickstart
    done = run(python, "-c", quickstart, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Henhouse, 4 players" in done.stdout and "game over" in done.stdout

    # the pretrained policy shipped in the wheel, played in numpy
    done = run(
        venv / "bin" / "cardzoo", "match", "nobody_wants_it",
        "--agents", "pretrained,random,random,random", "--games", "8", "--seed", "0",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "pretrained" in done.stdout and "random" in done.stdout

    # the vector form without numba: the kernel as plain Python
    vector = (
        "import gymnasium, cardzoo\n"
        "env = gymnasium.make_vec('cardzoo/NobodyWantsIt-v0', num_envs=2, num_rounds=1)\n"
        "observations, infos = env.reset(seed=0)\n"
        "env.step(infos['action_mask'].argmax(axis=1))\n"
        "print(env.compiled, observations.shape)\n"
    )
    done = run(python, "-c", vector, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "(2,", "55)"]
