"""Writing files so that nothing a user saved is ever left half-written, and a new output
file never replaces one a user saved (:func:`write_bytes_new`)."""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import stat
from pathlib import Path
from typing import Any

import numpy as np

from cardzoo.errors import InputError


def file_sha256(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes, in hex: what ties a recorded result to the policy file it
    was measured on."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename, so a
    crash leaves either the old file or the new one, never a mix. Missing folders are created.
    It replaces what is at ``path``: a file a command was asked to create goes through
    :func:`write_bytes_new` instead.

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


def write_bytes_new(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path``, a file that must not exist yet, and never replace one: a
    command checks its output's name when it starts, but a file of that name can appear while
    it runs, and what a user saved there must survive. Missing folders are created.

    The data go to a temporary file in the same folder first (so ``path`` never holds half a
    result), which then gets its name without replacing anything (:func:`publish_new`). If
    ``path`` appeared meanwhile, the result is kept beside it (``race-1.json`` for
    ``race.json``) and an :class:`~cardzoo.errors.InputError` says so, naming both. Returns
    ``path``. A new file's permissions are those of ``open(path, "w")``: 0666 minus the
    umask."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary, handle = _create_temporary(path)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    written = publish_new(temporary, path)
    if written != path:
        raise appeared_error(path, written)
    return path


def write_json_new(path: str | os.PathLike, data: Any) -> Path:
    """:func:`write_bytes_new` of ``data`` as :func:`report_json`."""
    return write_bytes_new(path, report_json(data).encode())


def report_json(data: Any) -> str:
    """``data`` as the indented JSON of a result written for users (``cardzoo match --out``, a
    tournament's summary): numpy values as plain numbers, and a number that is not finite (the
    interval of an agent that played one game) as null. NaN is not JSON: JavaScript's
    ``JSON.parse`` and strict readers refuse the file, and ``jq`` turns it into null anyway.
    The run folders' own files, which only cardzoo reads back, keep their infinities."""
    return json.dumps(_finite(to_json_value(data)), indent=2, allow_nan=False) + "\n"


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


#: how many siblings (``name-1``, ``name-2``, ...) :func:`publish_new` tries before it gives up
#: and leaves the result under its temporary name
MOST_SIBLINGS = 100


def publish_new(temporary: str | os.PathLike, path: str | os.PathLike) -> Path:
    """Give the finished file ``temporary`` (in ``path``'s folder) the name ``path`` without
    ever replacing a file there, and return the name it got: ``path``, or where ``path``
    exists, the first free sibling ``STEM-1.SUFFIX``, ``STEM-2.SUFFIX``, ... (up to
    :data:`MOST_SIBLINGS`; beyond that the file keeps its temporary name, returned).

    Decision: a rename (``os.replace``) would replace a file that appeared after the check, so
    the name is a hard link, which the system refuses to create over an existing name; the
    temporary name is then removed. Where the file system has no hard links, the data are
    copied into a file created only if the name is free (``O_EXCL``): never replacing either,
    though a crash during that copy can leave a shorter file (removed if the copy fails)."""
    temporary, path = Path(temporary), Path(path)
    for n in range(MOST_SIBLINGS + 1):
        name = path if n == 0 else path.with_name(f"{path.stem}-{n}{path.suffix}")
        if _place(temporary, name):
            temporary.unlink()
            _sync_folder(path.parent)
            return name
    return temporary


def appeared_error(path: str | os.PathLike, kept: str | os.PathLike) -> InputError:
    """The error of a new file whose name was taken while a command ran: the file there is
    left as it was, and the result is in ``kept`` (:func:`publish_new`'s answer)."""
    return InputError(
        f"{os.fspath(path)!r} appeared while the command ran and is left as it was (a file "
        f"that exists is never replaced); the result is in {os.fspath(kept)!r} instead"
    )


def _place(temporary: Path, name: Path) -> bool:
    """Whether ``temporary``'s data now also lie under ``name``; False if ``name`` exists."""
    try:
        os.link(temporary, name)
        return True
    except FileExistsError:
        return False
    except (OSError, AttributeError, NotImplementedError):  # no hard links here
        pass
    try:
        target = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return False
    try:
        with os.fdopen(target, "wb") as file, open(temporary, "rb") as source:
            os.chmod(file.fileno(), stat.S_IMODE(os.stat(temporary).st_mode))
            while chunk := source.read(1 << 20):
                file.write(chunk)
            file.flush()
            os.fsync(file.fileno())
    except BaseException:
        name.unlink(missing_ok=True)  # ours: O_EXCL created it
        raise
    return True


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
