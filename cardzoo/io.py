"""Writing files so that nothing a user saved is ever left half-written."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

import numpy as np


def file_sha256(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes, in hex: what ties a recorded result to the policy file it
    was measured on."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename, so a
    crash leaves either the old file or the new one, never a mix. Missing folders are created.

    Decision: the file gets the permissions a plain ``open(path, "w")`` would give it: those of
    the file it replaces, or for a new file 0666 minus the umask (0644 with the usual umask),
    not the 0600 of a ``tempfile`` file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary, handle = _create_temporary(path)
    try:
        with os.fdopen(handle, "wb") as file:
            if path.exists():
                os.chmod(file.fileno(), stat.S_IMODE(path.stat().st_mode))
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


def _create_temporary(path: Path) -> tuple[Path, int]:
    """A new hidden file next to ``path``, opened for writing. Created with mode 0666 so that
    the kernel applies the umask exactly as it does for any new file."""
    while True:
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            return temporary, os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:  # a name already taken (vanishingly rare): draw another
            continue


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (where the platform lets a folder be opened)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def to_json_value(value: Any) -> Any:
    """``value`` with numpy scalars and arrays (also as dict keys, in lists and tuples) turned
    into the Python numbers and lists JSON can hold; anything else is left for ``json`` to judge
    (so an object it cannot write is still a ``TypeError``)."""
    if isinstance(value, dict):
        return {_to_json_key(key): to_json_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_value(item) for item in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def _to_json_key(key: Any) -> Any:
    return key.item() if isinstance(key, np.generic) else key


def write_json_atomic(path: str | os.PathLike, data: Any) -> None:
    """Write ``data`` as indented JSON, atomically; numpy values are written as plain numbers
    and lists (see :func:`to_json_value`)."""
    write_bytes_atomic(path, (json.dumps(to_json_value(data), indent=2) + "\n").encode())
