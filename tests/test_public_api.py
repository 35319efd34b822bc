"""The public API is written down and kept: ``docs/public_api.json`` lists the modules users may
import and the names in them; ``docs/api.md`` documents exactly those; every one exists; and a
name that was public in the last release (``tests/public_api_released.json``) and is no longer
is named in the changelog's notes since that release (CHANGELOG.md's versioning policy).
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
PUBLIC_API = ROOT / "docs" / "public_api.json"
RELEASED_API = ROOT / "tests" / "public_api_released.json"
API_PAGE = ROOT / "docs" / "api.md"
CHANGELOG = ROOT / "CHANGELOG.md"

#: a mkdocstrings directive and its indented YAML options
DIRECTIVE = re.compile(r"^::: (?P<module>[\w.]+)\n(?P<options>(?:    .*\n|\n)*)", re.MULTILINE)
RELEASE_HEADING = re.compile(r"^## (\d+\.\d+\.\d+) — ", re.MULTILINE)


def public_api() -> dict[str, list[str]]:
    return json.loads(PUBLIC_API.read_text(encoding="utf-8"))["modules"]


def released_api() -> tuple[str, dict[str, list[str]]]:
    data = json.loads(RELEASED_API.read_text(encoding="utf-8"))
    return data["version"], data["modules"]


def qualified(api: dict[str, list[str]]) -> set[str]:
    """Every public module and every public name, as dotted paths."""
    return set(api) | {f"{module}.{name}" for module, names in api.items() for name in names}


def missing_names(api: dict[str, list[str]]) -> list[str]:
    """The listed modules that do not import and the listed names they do not have."""
    missing = []
    for module_name, names in api.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            missing.append(module_name)
            continue
        missing += [f"{module_name}.{name}" for name in names if not hasattr(module, name)]
    return missing


def documented(page: str) -> dict[str, list[str]]:
    """The modules the page's ``::: module`` directives render, each with its ``members``."""
    found = {}
    for match in DIRECTIVE.finditer(page):
        options = yaml.safe_load(match["options"]) or {}
        found[match["module"]] = (options.get("options") or {}).get("members", [])
    return found


def notes_since(changelog: str, version: str) -> str:
    """The changelog's text above the heading of release ``version`` (its later notes and the
    Unreleased section). ``ValueError`` if that release has no heading."""
    for match in RELEASE_HEADING.finditer(changelog):
        if match[1] == version:
            return changelog[: match.start()]
    raise ValueError(f"CHANGELOG.md has no heading for release {version}")


def unannounced_removals(released: dict, current: dict, notes: str) -> list[str]:
    """Public paths of the release that are public no longer and that ``notes`` do not name
    (in backticks, in full; a module named covers its names)."""
    gone = sorted(qualified(released) - qualified(current))
    named = set(re.findall(r"`([\w.]+)`", notes))
    return [path for path in gone if not any(path == n or path.startswith(n + ".") for n in named)]


# --- the list is true ------------------------------------------------------------------------


def test_every_public_name_exists():
    assert missing_names(public_api()) == [], (
        "public names that are gone: if on purpose, take them out of docs/public_api.json and "
        "docs/api.md and name them in CHANGELOG.md under Unreleased"
    )


def test_the_existence_check_sees_a_name_that_is_gone():
    assert missing_names({"cardzoo.evaluation": ["play_match", "play_matches"]}) == [
        "cardzoo.evaluation.play_matches"
    ]
    assert missing_names({"cardzoo.no_such_module": []}) == ["cardzoo.no_such_module"]


def test_every_public_module_has_an_all_that_lists_exactly_its_public_names():
    """``__all__`` says what a module exports (``from m import *``, and what tools call its
    public names): the list and it cannot disagree. Thirteen public modules had none, so a star
    import brought in their internals (40 names of ``cardzoo.evaluation`` where 7 are public)."""
    for module_name, names in public_api().items():
        module = importlib.import_module(module_name)
        exported = getattr(module, "__all__", None)
        assert exported is not None, f"{module_name} has no __all__"
        assert sorted(names) == sorted(exported), module_name
        namespace: dict = {}
        exec(f"from {module_name} import *", namespace)
        assert sorted(set(namespace) - {"__builtins__"}) == sorted(names), module_name


def test_no_private_name_is_public():
    for module_name, names in public_api().items():
        assert not any(part.startswith("_") for part in module_name.split(".")), module_name
        assert [name for name in names if name.startswith("_") and name != "__version__"] == []


# --- docs/api.md documents exactly the list ------------------------------------------------------


def test_api_page_documents_every_public_name_and_no_other():
    api, page = public_api(), documented(API_PAGE.read_text(encoding="utf-8"))
    assert sorted(page) == sorted(api), "one '::: module' directive per public module"
    for module_name, names in api.items():
        # a public name that is itself a public module has its own directive
        expected = [name for name in names if f"{module_name}.{name}" not in api]
        assert sorted(page[module_name]) == sorted(expected), module_name


def test_the_page_reader_sees_directives_and_members():
    page = "# API\n\n::: cardzoo.stats\n    options:\n      members:\n        - wilson_interval\n"
    page += "\ntext\n\n::: cardzoo\n"
    assert documented(page) == {"cardzoo.stats": ["wilson_interval"], "cardzoo": []}


# --- nothing public disappears without a word in the changelog ---------------------------------


def test_the_released_api_is_the_newest_release_of_the_changelog():
    version, _ = released_api()
    first = RELEASE_HEADING.search(CHANGELOG.read_text(encoding="utf-8"))
    assert first and first[1] == version


def test_every_name_public_in_the_last_release_is_still_public_or_in_the_changelog():
    version, released = released_api()
    notes = notes_since(CHANGELOG.read_text(encoding="utf-8"), version)
    assert unannounced_removals(released, public_api(), notes) == [], (
        "public in the last release and gone without a changelog entry: name each (in full, "
        "in backticks) in CHANGELOG.md under Unreleased"
    )


def test_a_removal_without_a_changelog_entry_is_caught():
    released = {"cardzoo.evaluation": ["play_match", "simulate"], "cardzoo.stats": ["z"]}
    current = {"cardzoo.evaluation": ["play_match"]}
    changelog = "## Unreleased\n\n- nothing\n\n## 0.1.0 — 2026-12-03\n\n- `cardzoo.stats`\n"
    notes = notes_since(changelog, "0.1.0")
    assert unannounced_removals(released, current, notes) == [
        "cardzoo.evaluation.simulate",
        "cardzoo.stats",
        "cardzoo.stats.z",
    ]
    notes += "- Removed `cardzoo.evaluation.simulate`; the module `cardzoo.stats` moved.\n"
    assert unannounced_removals(released, current, notes) == []


# --- the type checker reads the public modules -------------------------------------------------


def test_the_type_checker_checks_exactly_the_public_modules():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert sorted(config["tool"]["mypy"]["modules"]) == sorted(public_api())
