"""The docs stand alone: nothing users get sends them to the project's private ``shared/`` folder,
and each game's page (``docs/<game>.md``) states every Decision of its rules engine and names what
the game's interface is made of (observation fields, parameters, reset options, agents).

A Decision in a rules module docstring is written ``**Decision (name):** what, and why``; its page
must carry the same marker, so a Decision added to (or dropped from) either side fails here until
the other follows.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from cardzoo.agents import agent_classes
from cardzoo.envs import GAMES

ROOT = Path(__file__).resolve().parent.parent
#: what users get: the package, its docs and the README (benchmarks and notebooks ship too), the
#: release files and the docs site's configuration
USER_FACING = [
    *("cardzoo", "docs", "README.md", "benchmarks", "notebooks"),
    *("CHANGELOG.md", "CITATION.cff", "LICENSE", "mkdocs.yml"),
]
FORBIDDEN = ("shared/rules", "../shared")

DECISION_WORD = re.compile(r"\bDecision\b")
#: ``**Decision (name):**`` states a Decision; ``**Decision (name)**`` refers to one (pages only)
DECISION_MARKER = re.compile(r"\*\*Decision \(([^()]+)\):\*\*")
DECISION_REFERENCE = re.compile(r"\*\*Decision \(([^()]+)\)\*\*")


def user_facing_files() -> list[Path]:
    files = []
    for name in USER_FACING:
        path = ROOT / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files.extend(p for p in sorted(path.rglob("*")) if p.is_file())
    return [
        p for p in files if "__pycache__" not in p.parts and ".ipynb_checkpoints" not in p.parts
    ]


def forbidden_references(text: str) -> list[str]:
    return [needle for needle in FORBIDDEN if needle in text]


def decision_names(text: str, references: bool = False) -> list[str]:
    """The names of the ``**Decision (name):**`` markers of ``text`` (line breaks inside a marker
    allowed). ``ValueError`` if some ``Decision`` is not such a marker, so every one is named; with
    ``references``, ``**Decision (name)**`` may also refer to a Decision stated elsewhere in
    ``text`` (``ValueError`` if none is)."""
    flat = " ".join(text.split())
    names = DECISION_MARKER.findall(flat)
    referred = DECISION_REFERENCE.findall(flat) if references else []
    unnamed = len(DECISION_WORD.findall(flat)) - len(names) - len(referred)
    if unnamed:
        raise ValueError(f"{unnamed} 'Decision' without a '**Decision (name):**' marker")
    unknown = sorted(set(referred) - set(names))
    if unknown:
        raise ValueError(f"references to Decisions not stated: {unknown}")
    return names


def rules_docstring(game: str) -> str:
    return importlib.import_module(f"cardzoo.envs.{game}.rules").__doc__


def game_page(game: str) -> str:
    return (ROOT / "docs" / f"{game}.md").read_text(encoding="utf-8")


# --- nothing points users to shared/ -----------------------------------------------------------


def test_no_user_facing_file_refers_to_the_shared_folder():
    offenders = []
    for path in user_facing_files():
        data = path.read_bytes()
        if b"\0" in data:
            continue  # binary
        found = forbidden_references(data.decode("utf-8", errors="replace"))
        if found:
            offenders.append(f"{path.relative_to(ROOT)}: {found}")
    assert not offenders, "files that send users to shared/: " + "; ".join(offenders)


def test_the_shared_folder_check_sees_a_reference():
    assert forbidden_references("Specification: ``shared/rules/henhouse.md``") == ["shared/rules"]
    assert forbidden_references("see ../shared/DESIGN.md") == ["../shared"]
    assert forbidden_references("the shared base class") == []


def test_the_scan_covers_the_package_the_docs_and_the_readme():
    scanned = {path.relative_to(ROOT).as_posix() for path in user_facing_files()}
    assert "README.md" in scanned and "CHANGELOG.md" in scanned
    assert "cardzoo/envs/henhouse/rules.py" in scanned
    assert {f"docs/{game}.md" for game in GAMES} <= scanned


# --- the calls the docs show match the functions ----------------------------------------------


def written_agent_calls(text: str) -> list[tuple[str, int]]:
    """Every ``make_agent(...)`` call written in ``text`` (not its ``def``): the call as written
    and how many positional arguments it passes."""
    calls = []
    for match in re.finditer(r"(?<!def )\bmake_agent\(", text):
        depth, start, parts, index = 1, match.end(), [], match.end()
        while depth and index < len(text):
            char = text[index]
            depth += char in "([{"
            depth -= char in ")]}"
            if char == "," and depth == 1 or not depth:
                parts.append(text[start:index].strip())
                start = index + 1
            index += 1
        positional = [part for part in parts if part and not re.match(r"^\w+\s*=", part)]
        calls.append((text[match.start() : index], len(positional)))
    return calls


def test_every_make_agent_call_in_the_docs_and_docstrings_passes_name_agent_and_game():
    """``make_agent(game_name, agent_name, game)``: a page or docstring that leaves out the
    engine shows users a call that raises TypeError."""
    wrong = []
    for path in user_facing_files():
        if path.suffix not in (".py", ".md"):
            continue
        for call, positional in written_agent_calls(path.read_text(encoding="utf-8")):
            if 0 < positional < 3:  # make_agent() names the function
                wrong.append(f"{path.relative_to(ROOT)}: {call}")
    assert not wrong, "make_agent calls without the game's engine: " + "; ".join(wrong)


def test_the_call_check_counts_positional_arguments():
    text = 'x = make_agent(game, "ppo:RUN")\ny = make_agent("nwi", f(a, b), game, seed=0)'
    assert [count for _, count in written_agent_calls(text)] == [2, 3]
    assert written_agent_calls("def make_agent(game_name, agent_name, game):") == []
    assert written_agent_calls("the one factory make_agent()") == [("make_agent()", 0)]


# --- every Decision of a rules engine is on its page -------------------------------------------


def test_decision_names_are_read_from_markers_even_across_lines():
    text = "a **Decision (deck\n    list):** 40 cards. **Decision (youngest players):** high seats."
    assert decision_names(text) == ["deck list", "youngest players"]


def test_a_decision_without_a_name_is_refused():
    with pytest.raises(ValueError, match="1 'Decision' without"):
        decision_names("**Decision (deck list):** 40 cards. **Decision:** the youngest ...")


def test_a_page_may_refer_to_its_decisions_but_only_to_stated_ones():
    page = "40 cards (**Decision (deck list)**). ## Decisions **Decision (deck list):** why."
    assert decision_names(page, references=True) == ["deck list"]
    with pytest.raises(ValueError, match="1 'Decision' without"):
        decision_names(page)  # a rules docstring states its Decisions, it does not refer
    with pytest.raises(ValueError, match="not stated: \\['egg'\\]"):
        decision_names(page + " see **Decision (egg)**", references=True)


@pytest.mark.parametrize("game", list(GAMES))
def test_every_decision_of_the_rules_docstring_is_named_once(game):
    names = decision_names(rules_docstring(game))
    assert names, f"{game}: no Decision in the rules docstring"
    assert len(names) == len(set(names)), f"{game}: a Decision name is used twice: {names}"


@pytest.mark.parametrize("game", list(GAMES))
def test_game_page_states_exactly_the_decisions_of_its_rules_docstring(game):
    in_code = set(decision_names(rules_docstring(game)))
    on_page = set(decision_names(game_page(game), references=True))
    assert in_code - on_page == set(), f"docs/{game}.md misses Decisions {in_code - on_page}"
    assert on_page - in_code == set(), (
        f"docs/{game}.md names Decisions the rules docstring does not have: {on_page - in_code}"
    )


@pytest.mark.parametrize("game", list(GAMES))
def test_game_page_gives_a_reason_for_every_decision(game):
    page = " ".join(game_page(game).split())
    sections = page.split("## Decisions", 1)
    assert len(sections) == 2, f"docs/{game}.md has no '## Decisions' section"
    decisions = sections[1].split(" ## ", 1)[0]
    for name in decision_names(rules_docstring(game)):
        entry = decisions.split(f"**Decision ({name}):**", 1)
        assert len(entry) == 2, f"docs/{game}.md: Decision ({name}) not in '## Decisions'"
        assert "*Why:*" in entry[1].split("**Decision (", 1)[0], (
            f"docs/{game}.md: Decision ({name}) has no '*Why:*'"
        )


# --- each page stands alone -------------------------------------------------------------------


@pytest.mark.parametrize("game", list(GAMES))
def test_game_page_names_the_game_it_comes_from(game):
    page = game_page(game)
    assert "## Where it comes from" in page
    origin = page.split("## Where it comes from", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"\*\*[A-Z][^*]+\*\*", origin), f"docs/{game}.md: no game named in bold"


@pytest.mark.parametrize("game", list(GAMES))
def test_game_page_names_every_field_parameter_option_and_agent(game):
    page = game_page(game)
    module = GAMES[game].module()
    params = {"memory": "perfect"} if game == "foxy" else {}  # every optional field too
    engine = module.raw_env(**params).game
    names = [
        *engine.observation_layout,
        *engine.params(),
        *engine.reset_options,
        *agent_classes(game),
        "max_cycles",
        "render_mode",
        module.__name__.rsplit(".", 1)[1],  # the environment id, e.g. henhouse_v0
    ]
    # as code (`num_players`) or as a key in an example (options={"deck": ...})
    missing = [name for name in names if f"`{name}`" not in page and f'"{name}"' not in page]
    assert not missing, f"docs/{game}.md does not name {missing}"


#: a row of the README's table of games: | `name_v0` | low–high | what it is |
README_GAME_ROW = re.compile(r"^\| `(\w+)_v(\d+)` \| (\d+)–(\d+) \| (.+) \|$", re.MULTILINE)


def test_the_readmes_table_of_games_tells_what_each_engine_declares():
    """Versions, player counts and descriptions are facts of each game's engine class; the
    README's table repeats them for readers, so it is held to them (code spans aside)."""
    rows = README_GAME_ROW.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert [row[0] for row in rows] == list(GAMES)
    for name, version, low, high, description in rows:
        game_class = GAMES[name].game_class()
        assert int(version) == game_class.version, name
        assert (int(low), int(high)) == (game_class.min_players, game_class.max_players), name
        assert description.replace("`", "") == game_class.description, name
