"""The documentation site (mkdocs.yml, ``make docs``) builds strictly from the README, docs/*.md,
the changelog and the docstrings; its API reference has an entry for every public name
(docs/public_api.json); and a broken link fails the build. Skipped without the ``docs`` extra.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings_handlers.python")

ROOT = Path(__file__).resolve().parent.parent
#: what a build reads from the repository
SOURCES = ["mkdocs.yml", "docs", "cardzoo", "README.md", "CHANGELOG.md", "LICENSE", "CITATION.cff"]


def build(project: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def load_hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site")
    done = build(ROOT, site)
    assert done.returncode == 0, done.stderr
    return site


def test_every_public_name_has_an_entry_in_the_api_reference(site):
    page = (site / "api.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'id="([\w.]+)"', page))
    api = json.loads((ROOT / "docs" / "public_api.json").read_text(encoding="utf-8"))["modules"]
    wanted = set(api) | {f"{module}.{name}" for module, names in api.items() for name in names}
    assert sorted(wanted - ids) == []


def test_every_page_and_top_file_is_in_the_site(site):
    pages = [path.stem for path in (ROOT / "docs").glob("*.md")]
    for name in [*pages, "index", "CHANGELOG"]:
        assert (site / f"{name}.html").is_file(), name
    assert (site / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
    assert (site / "CITATION.cff").read_bytes() == (ROOT / "CITATION.cff").read_bytes()
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "Five animal card games" in index  # the README is the home page
    for link in ('href="LICENSE"', 'href="CHANGELOG.html"', 'href="api.html"'):
        assert link in index, link


def test_docstrings_reach_the_page_with_sphinx_roles_shown_as_code(site):
    page = html.unescape(re.sub(r"<[^>]+>", "", (site / "api.html").read_text(encoding="utf-8")))
    assert "replayed under every rotation" in page  # play_match's docstring
    assert ":func:" not in page and ":class:" not in page and ":mod:" not in page


def test_a_broken_link_fails_the_build(tmp_path):
    project = tmp_path / "project"
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, project / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            project.mkdir(exist_ok=True)
            shutil.copy(source, project / name)
    page = project / "docs" / "training.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [the rules](no_such_page.md).\n")
    done = build(project, tmp_path / "site")
    assert done.returncode != 0
    assert "no_such_page.md" in done.stderr


def test_links_between_repository_files_point_into_the_site():
    site_link = load_hooks().site_link
    assert site_link("docs/api.md", "index.md") == "api.md"  # README -> a docs page
    assert site_link("CHANGELOG.md", "index.md") == "CHANGELOG.md"
    assert site_link("../CHANGELOG.md", "api.md") == "CHANGELOG.md"  # a docs page -> a top file
    assert site_link("../README.md", "training.md") == "index.md"
    assert site_link("docs/api.md", "CHANGELOG.md") == "api.md"
    assert site_link("foxy.md", "training.md") == "foxy.md"  # between docs pages: unchanged
    assert site_link("../benchmarks/learning.md", "training.md") == "../benchmarks/learning.md"
    assert site_link("https://example.org/x.md", "index.md") == "https://example.org/x.md"


def test_doctest_lines_are_fenced_as_code():
    fence = load_hooks().fence_doctests
    text = "Example:\n\n>>> a = 1\n>>> for x in y:\n...     f(x)\n\nMore text, > 0.\n"
    assert fence(text) == (
        "Example:\n\n```pycon\n>>> a = 1\n>>> for x in y:\n...     f(x)\n```\n\nMore text, > 0.\n"
    )
    assert fence("  >>> b = 2") == "  ```pycon\n  >>> b = 2\n  ```"
    assert fence("no examples") == "no examples"
