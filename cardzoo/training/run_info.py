"""What a run folder records about where it ran: package versions, the git commit, the machine.
Shared by cardzoo's PPO (``cardzoo train``) and the RLlib back end; imports neither."""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

PACKAGES = (
    "cardzoo",
    "numpy",
    "gymnasium",
    "pettingzoo",
    "torch",
    "stable-baselines3",
    "sb3-contrib",
    "ray",
)


def versions() -> dict[str, str]:
    """Python's version and those of the installed packages among :data:`PACKAGES`."""
    found = {"python": platform.python_version()}
    for package in PACKAGES:
        with contextlib.suppress(PackageNotFoundError):
            found[package] = version(package)
    return found


def _git(*arguments: str) -> str | None:
    """The output of a git command on the cardzoo source tree, or None outside a checkout."""
    try:
        return subprocess.run(
            ["git", *arguments],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def git_commit() -> str | None:
    """The commit of the cardzoo source tree, if it is a git checkout (None otherwise)."""
    return _git("rev-parse", "HEAD")


def source_state() -> str | None:
    """The commit of the cardzoo source tree, with ``+changes`` if tracked files differ from it
    (what a run actually ran), or None outside a git checkout."""
    commit = git_commit()
    if commit is None:
        return None
    changed = _git("status", "--porcelain", "--untracked-files=no")
    return f"{commit}+changes" if changed else commit


def machine() -> dict[str, object]:
    return {"cpus": os.cpu_count(), "platform": platform.platform()}
