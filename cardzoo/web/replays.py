"""The recorded matches a server offers: the GIFs under one folder (``cardzoo serve --replays
DIR``), listed and read by their path relative to it, and nothing else.

A requested name is refused before any file is opened when it is empty, longer than
:data:`MAX_NAME_CHARS`, absolute, holds ``..``, a backslash or a NUL, or does not end in ``.gif``
(400); a name whose real path (symbolic links followed) lies outside the folder is refused (403);
a missing file, a folder, or a path the system cannot open (a part of it too long, say) is 404.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from cardzoo.web.sessions import RequestError

#: the most replays a listing names (a large folder is listed in part)
MAX_LISTED = 1000
#: the longest replay name a request may give (Linux's PATH_MAX is 4096 bytes)
MAX_NAME_CHARS = 1024


class Replays:
    """The GIFs under ``folder`` (None: no folder served, every request is 404)."""

    def __init__(self, folder: str | os.PathLike | None):
        self.root = None if folder is None else Path(folder).resolve()

    def names(self) -> list[str]:
        """The GIFs' paths relative to the folder, sorted (links out of it left out)."""
        if self.root is None:
            return []
        found = []
        for directory, folders, files in os.walk(self.root):
            folders.sort()
            for name in sorted(files):
                path = Path(directory, name)
                if name.lower().endswith(".gif") and self._inside(path):
                    found.append(path.relative_to(self.root).as_posix())
                    if len(found) >= MAX_LISTED:
                        return sorted(found)
        return sorted(found)

    def read(self, name: str) -> bytes:
        """The bytes of replay ``name`` (see the module docstring for what is refused)."""
        if self.root is None:
            raise RequestError(404, "this server offers no replays (start it with --replays DIR)")
        relative = _checked_name(name)
        path = self.root.joinpath(*relative.parts)
        try:
            if not path.exists():  # a dangling link or nothing at all
                raise RequestError(404, f"no replay {name!r}")
            if not self._inside(path):
                raise RequestError(403, f"replay {name!r} lies outside the replay folder")
            if not path.is_file():
                raise RequestError(404, f"replay {name!r} is not a file")
            return path.read_bytes()
        except OSError as error:  # a name part too long for the file system, say
            raise RequestError(404, f"no replay {name!r} ({error.strerror})") from None

    def _inside(self, path: Path) -> bool:
        """Whether ``path``, links followed, is a file or folder inside the served folder (not
        when its links go round in a loop)."""
        try:
            return path.resolve().is_relative_to(self.root)
        except RuntimeError:  # Python < 3.13: a symbolic link loop
            return False


def _checked_name(name: str) -> PurePosixPath:
    if not isinstance(name, str) or not name.strip():
        raise RequestError(400, "name the replay: ?name=game_0001.gif")
    if len(name) > MAX_NAME_CHARS:
        raise RequestError(
            400, f"replay name of {len(name)} characters: at most {MAX_NAME_CHARS} are read"
        )
    if "\\" in name or "\x00" in name:
        raise RequestError(400, f"replay name {name!r}: no backslashes or NUL characters")
    relative = PurePosixPath(name)
    if relative.is_absolute() or (len(name) > 1 and name[1] == ":"):
        raise RequestError(400, f"replay name {name!r} is absolute; give a path inside the folder")
    if ".." in relative.parts:
        raise RequestError(400, f"replay name {name!r} climbs out with '..'")
    if relative.suffix.lower() != ".gif":
        raise RequestError(400, f"replay name {name!r}: only .gif files are served")
    return relative
