"""Every ```python block of README.md runs as written: each in a fresh namespace, in an empty
temporary directory, with plots drawn off screen.

A block the tests must not run (one that needs a GPU, say) is marked by the line
``<!-- readme-test: skip -->`` right before its opening fence; prefer runnable blocks. A block whose
import of an optional extra (torch, Stable-Baselines3, Ray, ...) fails is skipped, not failed.
"""

from __future__ import annotations

import linecache
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SKIP_MARK = "<!-- readme-test: skip -->"
PYTHON_LANGUAGES = {"python", "py", "python3"}
# Top-level modules of optional extras: a block importing a missing one is skipped.
OPTIONAL_MODULES = {"torch", "stable_baselines3", "sb3_contrib", "ray", "tensorboard", "supersuit"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\s]*)")


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(first code line number, code)`` of every python fenced block of a Markdown text, code
    dedented by the fence's indent; blocks right after :data:`SKIP_MARK` are left out."""
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
        previous = next((line.strip() for line in reversed(lines[:index]) if line.strip()), "")
        if opening["info"].lower() in PYTHON_LANGUAGES and previous != SKIP_MARK:
            code = "\n".join(line[indent:] for line in lines[index + 1 : end])
            blocks.append((index + 2, code + "\n"))
        index = end + 1
    return blocks


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}


README_BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def test_python_blocks_are_found_as_markdown_defines_them():
    text = "\n".join(
        [
            "```python",
            "a = 1",
            "```",
            "```",
            "```python  <- inside a plain block: not code",
            "```",
            SKIP_MARK,
            "",
            "```python",
            "skipped = True",
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
    assert python_blocks(text) == [(2, "a = 1\n"), (14, "b = 2\n```\nc = 3\n")]


def test_readme_has_the_gymnasium_example():
    assert any('gymnasium.make("cardzoo/' in code for _, code in README_BLOCKS)


@pytest.mark.parametrize(
    "line, code", README_BLOCKS, ids=[f"README.md:{line}" for line, _ in README_BLOCKS]
)
def test_readme_block_runs_as_written(line, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")  # plt.show() draws nothing
    torch, threads = None, 0
    if re.search(r"\b(torch|stable_baselines3|sb3_contrib)\b", code):
        torch = pytest.importorskip("torch")
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # the test suite shares two cores
    filename = f"README.md:{line}"
    # Tracebacks show the README's lines.
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    namespace = {"__name__": "__main__", "__file__": str(tmp_path / "readme_block.py")}
    try:
        exec(compile(code, filename, "exec"), namespace)
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] not in OPTIONAL_MODULES:
            raise
        pytest.skip(f"needs the optional module {error.name}")
    finally:
        linecache.cache.pop(filename, None)
        if torch is not None:
            torch.set_num_threads(threads)
