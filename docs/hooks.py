"""MkDocs hooks of the documentation site (mkdocs.yml).

- The files a reader finds at the top of the repository join the site: README.md as the home
  page, CHANGELOG.md as a page, LICENSE and CITATION.cff as they are.
- A link between repository files (``[notes](../CHANGELOG.md)`` in docs/api.md,
  ``[API](docs/api.md)`` in the README) is pointed to the same file's place in the site, so the
  Markdown reads the same on a code host and in the site. A link to a file that is in neither
  stays as it is, and the strict build fails on it.
- Docstrings name code with Sphinx roles (``:func:`train```); the site shows them as code.
- Docstrings show examples as doctest lines (``>>> env.reset()``); :class:`DoctestBlocks`, a
  griffe extension (mkdocs.yml), fences them as Python code so Markdown does not read the
  ``>>>`` as quotes.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

import griffe
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
#: repository files outside docs/ that the site carries -> their place in the site
TOP_FILES = {
    "README.md": "index.md",
    "CHANGELOG.md": "CHANGELOG.md",
    "LICENSE": "LICENSE",
    "CITATION.cff": "CITATION.cff",
}
#: a Markdown link or image target: ](target) or ](target#anchor)
LINK = re.compile(r"\]\((?P<target>[^)\s#]+)(?P<anchor>#[^)\s]*)?\)")
#: a Sphinx role before inline code; ``~a.b.C`` shows ``C``, as Sphinx shows it
ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj):<code>(?:~(?:[\w.]+\.)?)?")


def on_files(files: Files, config) -> Files:
    for source, site in TOP_FILES.items():
        files.append(
            File.generated(config, site, abs_src_path=str(ROOT / source))
            if site.endswith(".md")
            else File.generated(config, site, content=(ROOT / source).read_bytes())
        )
    return files


def repository_path(page_src: str) -> str:
    """Where the page's Markdown lives in the repository (``api.md`` -> ``docs/api.md``)."""
    for source, site in TOP_FILES.items():
        if site == page_src:
            return source
    return f"docs/{page_src}"


def site_link(target: str, page_src: str) -> str:
    """``target``, a link written in the repository file of the page ``page_src``, as a link in
    the site: to the site's copy of a top file or of a docs/ page; anything else unchanged."""
    if "://" in target or target.startswith(("/", "mailto:")):
        return target
    here = posixpath.dirname(repository_path(page_src))
    path = posixpath.normpath(posixpath.join(here, target))
    if path in TOP_FILES:
        site = TOP_FILES[path]
    elif path.startswith("docs/"):
        site = path.removeprefix("docs/")
    else:
        return target
    return posixpath.relpath(site, posixpath.dirname(page_src) or ".")


def on_page_markdown(markdown: str, page, config, files) -> str:
    src = page.file.src_uri
    return LINK.sub(
        lambda m: f"]({site_link(m['target'], src)}{m['anchor'] or ''})",
        markdown,
    )


def on_page_content(html: str, page, config, files) -> str:
    return ROLE.sub("<code>", html)


def fence_doctests(text: str) -> str:
    """Every run of doctest lines (from a ``>>>`` line to the next blank line) fenced as
    ``pycon``, at the run's indentation."""
    lines, out, index = text.split("\n"), [], 0
    while index < len(lines):
        line = lines[index]
        if not line.lstrip().startswith(">>>"):
            out.append(line)
            index += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        end = index
        while end < len(lines) and lines[end].strip():
            end += 1
        out += [f"{indent}```pycon", *lines[index:end], f"{indent}```"]
        index = end
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Fences the doctest lines of every docstring (:func:`fence_doctests`)."""

    def on_object(self, *, obj, loader, **kwargs) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
