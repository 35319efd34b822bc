"""The files a user reads before using or citing cardzoo agree with each other and with the code:
LICENSE (MIT, as pyproject.toml says), CITATION.cff (Citation File Format 1.2.0), CHANGELOG.md
(the versioning policy and the release notes) and the README that links them all; the version is
the same in pyproject.toml, ``cardzoo.__version__``, CITATION.cff, the README's BibTeX and the
newest release of the changelog.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest
import yaml

import cardzoo

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
VERSION = PYPROJECT["version"]
#: between releases the version is the next release's with ``.dev0`` (CHANGELOG's policy)
DEVELOPMENT = VERSION.endswith(".dev0")
NEXT_RELEASE = VERSION.removesuffix(".dev0")

#: CFF 1.2.0: the keys a citation file must have and the only keys it may have at the top level
CFF_REQUIRED = {"cff-version", "message", "title", "authors"}
CFF_KEYS = CFF_REQUIRED | {
    *("abstract", "commit", "contact", "date-released", "doi", "identifiers", "keywords"),
    *("license", "license-url", "preferred-citation", "references", "repository"),
    *("repository-artifact", "repository-code", "type", "url", "version"),
}
#: the keys of a person in CFF 1.2.0 (an entity has ``name`` instead of ``family-names``)
CFF_PERSON_KEYS = {
    *("family-names", "given-names", "name-particle", "name-suffix", "affiliation", "alias"),
    *("address", "city", "country", "email", "fax", "orcid", "post-code", "region", "tel"),
    "website",
}
CFF_ENTITY_KEYS = {
    *("name", "address", "alias", "city", "country", "date-end", "date-start", "email", "fax"),
    *("location", "orcid", "post-code", "region", "tel", "website"),
}
DATE = re.compile(r"^[0-9]{4}-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])$")
#: a release heading of the changelog: ``## 0.1.0 — 2026-12-03``
RELEASE_HEADING = re.compile(r"^## (\d+\.\d+\.\d+) — (\d{4}-\d{2}-\d{2})$", re.MULTILINE)


def citation_problems(cff: object) -> list[str]:
    """What makes ``cff`` (a parsed CITATION.cff) not a valid CFF 1.2.0 citation of software:
    the required keys and the allowed keys at the top level, the authors as persons or entities,
    the version a string and the release date an ISO date string."""
    if not isinstance(cff, dict):
        return ["not a mapping"]
    problems = [f"missing {key}" for key in sorted(CFF_REQUIRED - cff.keys())]
    problems += [f"unknown key {key}" for key in sorted(cff.keys() - CFF_KEYS)]
    if cff.get("cff-version") != "1.2.0":
        problems.append(f"cff-version {cff.get('cff-version')!r}, not '1.2.0'")
    for key in ("message", "title"):
        if key in cff and not (isinstance(cff[key], str) and cff[key].strip()):
            problems.append(f"{key}: a non-empty string")
    authors = cff.get("authors")
    if not isinstance(authors, list) or not authors:
        problems.append("authors: a non-empty list")
    else:
        for author in authors:
            keys = set(author) if isinstance(author, dict) else set()
            allowed = CFF_ENTITY_KEYS if "name" in keys else CFF_PERSON_KEYS
            if not keys or keys - allowed or not ({"name", "family-names"} & keys):
                problems.append(f"author {author!r}: a person or an entity with a name")
    if "version" in cff and not isinstance(cff["version"], (str, int, float)):
        problems.append("version: a string")
    if "date-released" in cff and not DATE.match(str(cff["date-released"])):
        problems.append(f"date-released {cff['date-released']!r}: YYYY-MM-DD")
    if "type" in cff and cff["type"] not in ("software", "dataset"):
        problems.append(f"type {cff['type']!r}")
    return problems


def citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def changelog() -> str:
    return (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


# --- LICENSE ----------------------------------------------------------------------------------


def test_license_is_the_mit_text_that_pyproject_names():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Copyright (c) 2026 the cardzoo developers" in text
    assert "Permission is hereby granted, free of charge" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in text
    assert PYPROJECT["license"] == "MIT"
    assert PYPROJECT["license-files"] == ["LICENSE"]


# --- CITATION.cff -----------------------------------------------------------------------------


def test_citation_file_is_valid_cff_1_2():
    assert citation_problems(citation()) == []


def test_the_citation_check_finds_what_is_wrong():
    good = citation()
    assert citation_problems({**good, "cff-version": "1.1.0"}) == [
        "cff-version '1.1.0', not '1.2.0'"
    ]
    missing = {key: value for key, value in good.items() if key != "authors"}
    assert "missing authors" in citation_problems(missing)
    assert citation_problems({**good, "author": ["x"]}) == ["unknown key author"]
    assert citation_problems({**good, "authors": [{"given-names": "Ada"}]}) != []
    assert citation_problems({**good, "date-released": "3 December 2026"}) != []
    assert citation_problems("cff-version: 1.2.0") == ["not a mapping"]


def test_citation_names_this_release():
    cff = citation()
    assert cff["version"] == VERSION
    assert cff["license"] == "MIT"
    released = dict(RELEASE_HEADING.findall(changelog()))
    if DEVELOPMENT:  # no release of this version yet, so no release date
        assert "date-released" not in cff and NEXT_RELEASE not in released
    else:
        assert str(cff["date-released"]) == released[VERSION]


def test_the_version_between_releases_is_the_next_ones_dev0():
    """A copy of main called itself 0.1.0 while it held 540 lines of changes since 0.1.0."""
    newest = RELEASE_HEADING.findall(changelog())[0][0]
    unreleased = changelog().split("## Unreleased", 1)[1].split("\n## ", 1)[0]
    if unreleased.strip():
        assert DEVELOPMENT, f"notes under Unreleased, but the version is {VERSION}"
    if DEVELOPMENT:
        as_numbers = [tuple(int(part) for part in v.split(".")) for v in (newest, NEXT_RELEASE)]
        assert as_numbers[0] < as_numbers[1], (newest, NEXT_RELEASE)


# --- CHANGELOG.md -----------------------------------------------------------------------------


def test_changelog_states_the_versioning_policy_and_an_unreleased_section():
    text = changelog()
    for heading in (
        "## Versioning policy",
        "### Environment versions: `_vN`",
        "### Package version: `MAJOR.MINOR.PATCH`",
        "## Unreleased",
    ):
        assert f"\n{heading}\n" in text, heading
    assert text.index("## Versioning policy") < text.index("## Unreleased")
    assert text.index("## Unreleased") < RELEASE_HEADING.search(text).start()


def test_changelog_releases_run_newest_first_and_the_newest_is_this_version():
    releases = RELEASE_HEADING.findall(changelog())
    assert releases, "no '## X.Y.Z — YYYY-MM-DD' heading"
    versions = [tuple(int(part) for part in version.split(".")) for version, _ in releases]
    dates = [datetime.date.fromisoformat(date) for _, date in releases]
    assert versions == sorted(versions, reverse=True)
    assert dates == sorted(dates, reverse=True)
    assert releases[0][0] == VERSION or DEVELOPMENT  # between releases: the test above


def test_the_unreleased_notes_name_what_landed_after_0_1_0():
    unreleased = changelog().split("## Unreleased", 1)[1].split("\n## ", 1)[0]
    for needle in ("cardzoo exploit", "eval_opponents", "final_eval_seed", "paired"):
        assert needle in unreleased, needle


def test_every_version_number_is_the_same():
    assert cardzoo.__version__ == VERSION
    bibtex = re.search(r"```bibtex\n(.*?)```", readme(), re.DOTALL)
    assert bibtex, "the README has no BibTeX block"
    assert re.search(r"version\s*=\s*\{([^}]*)\}", bibtex[1])[1] == VERSION


# --- the README points to them ----------------------------------------------------------------


def test_readme_links_the_license_the_citation_the_changelog_and_the_api():
    head = readme().split("\n## ", 1)[0]  # before the first section: where a new user looks
    for target in ("LICENSE", "CITATION.cff", "CHANGELOG.md", "docs/api.md"):
        assert f"]({target})" in head, target
        assert (ROOT / target).is_file(), target
