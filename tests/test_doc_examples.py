"""Every ```python block of README.md and of each docs/*.md page runs as written, so the
examples cannot rot: a page's blocks run top to bottom in one namespace (a later block may use
what an earlier one made, as a reader does), in an empty temporary directory, with plots drawn
off screen and torch on one thread.

A block that cannot run here is marked by an HTML comment right before its opening fence, with
the reason, which readers of the rendered page do not see:

    <!-- not-run: trains for minutes -->

Keep that list short (``NOT_RUN_ALLOWED`` caps it): prefer a small budget that runs. A block
whose import of an optional extra (torch, Stable-Baselines3, Ray, ...) fails is skipped, and the
page reports the skip after its other blocks ran.
"""

from __future__ import annotations

import linecache
import re
from pathlib import Path

import pytest

from cardzoo.envs import GAMES

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = re.compile(r"^<!-- not-run: (?P<reason>\S.*?) -->$")
#: the most blocks the pages may mark not-run (raise it only with a reason in the commit)
NOT_RUN_ALLOWED = 3
PYTHON_LANGUAGES = {"python", "py", "python3"}
# Top-level modules of optional extras: a block importing a missing one is skipped.
OPTIONAL_MODULES = {"torch", "stable_baselines3", "sb3_contrib", "ray", "tensorboard", "supersuit"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\s]*)")


def python_blocks(text: str) -> list[tuple[int, str, str | None]]:
    """``(first code line number, code, reason not run or None)`` of every python fenced block
    of a Markdown text, code dedented by the fence's indent."""
    lines = text.splitlines()
    blocks, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        end = index + 1
        while end < len(lines) and not _closes(lines[end], fence):
            end += 1
        if opening["info"].lower() in PYTHON_LANGUAGES:
            previous = next((line.strip() for line in reversed(lines[:index]) if line.strip()), "")
            marked = NOT_RUN.match(previous)
            code = "\n".join(line[indent:] for line in lines[index + 1 : end])
            blocks.append((index + 2, code + "\n", marked["reason"] if marked else None))
        index = end + 1
    return blocks


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}


def page_blocks(page: Path) -> list[tuple[int, str, str | None]]:
    return python_blocks(page.read_text(encoding="utf-8"))


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def test_python_blocks_are_found_as_markdown_defines_them():
    text = "\n".join(
        [
            "```python",
            "a = 1",
            "```",
            "```",
            "```python  <- inside a plain block: not code",
            "```",
            "<!-- not-run: needs a GPU -->",
            "",
            "```python",
            "gpu = True",
            "```",
            "- a list item:",
            "  ````py",
            "  b = 2",
            "  ```",
            "  c = 3",
            "  ````",
            "~~~bash",
            "echo no",
            "~~~",
        ]
    )
    assert python_blocks(text) == [
        (2, "a = 1\n", None),
        (10, "gpu = True\n", "needs a GPU"),
        (14, "b = 2\n```\nc = 3\n", None),
    ]


def test_a_marker_without_a_reason_marks_nothing():
    assert python_blocks("<!-- not-run: -->\n```python\nx = 1\n```") == [(3, "x = 1\n", None)]


def test_few_blocks_are_marked_not_run_and_each_says_why():
    marked = [
        f"{name(page)}:{line} ({reason})"
        for page in PAGES
        for line, _, reason in page_blocks(page)
        if reason is not None
    ]
    assert len(marked) <= NOT_RUN_ALLOWED, marked


def test_the_readme_and_every_game_page_have_examples_that_run():
    assert any('gymnasium.make("cardzoo/' in code for _, code, _ in page_blocks(PAGES[0]))
    for page in [PAGES[0], *(ROOT / "docs" / f"{game}.md" for game in GAMES)]:
        assert any(reason is None for _, _, reason in page_blocks(page)), name(page)


@pytest.mark.parametrize("page", [p for p in PAGES if page_blocks(p)], ids=name)
def test_page_examples_run_as_written(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")  # plt.show() draws nothing
    namespace = {"__name__": "__main__", "__file__": str(tmp_path / "example.py")}
    skipped = []
    for line, code, reason in page_blocks(page):
        if reason is not None:
            continue
        filename = f"{name(page)}:{line}"
        # Tracebacks show the page's lines.
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        try:
            _run(code, filename, namespace)
        except ModuleNotFoundError as error:
            if (error.name or "").partition(".")[0] not in OPTIONAL_MODULES:
                raise
            skipped.append(f"{filename} needs the optional module {error.name}")
        finally:
            linecache.cache.pop(filename, None)
    if skipped:
        pytest.skip("; ".join(skipped))


def _run(code: str, filename: str, namespace: dict) -> None:
    torch, threads = None, 0
    if re.search(r"\b(torch|stable_baselines3|sb3_contrib)\b", code):
        torch = pytest.importorskip("torch")
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # the test suite shares two cores
    try:
        exec(compile(code, filename, "exec"), namespace)
    finally:
        if torch is not None:
            torch.set_num_threads(threads)
