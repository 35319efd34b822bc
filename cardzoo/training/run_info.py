"""What a run folder records about where it ran: package versions, the git commit, the machine.
Shared by cardzoo's PPO (``cardzoo train``) and the RLlib back end; imports neither."""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import sys
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


#: the folder that holds the ``cardzoo`` package: the root of a cardzoo checkout
SOURCE_ROOT = Path(__file__).resolve().parents[2]


def _git(*arguments: str) -> str | None:
    """The output of a git command on the cardzoo source tree, or None outside a checkout of
    cardzoo itself: an installed cardzoo inside a user's own repository (``project/.venv``)
    would otherwise report the user's commit as cardzoo's."""
    try:
        top = _run_git("rev-parse", "--show-toplevel")
        if Path(top).resolve() != SOURCE_ROOT:
            return None
        return _run_git(*arguments)
    except (OSError, subprocess.CalledProcessError):
        return None


def _run_git(*arguments: str) -> str:
    return subprocess.run(
        ["git", *arguments], cwd=SOURCE_ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


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


#: the environment variables that fix which kernels the numeric libraries run, instead of the
#: fastest for the CPU: torch's own (ATen), Intel MKL's (torch's matrix products), OpenBLAS's
#: (numpy's) and numpy's loops. A training run is bit-identical only where these kernels are the
#: same (docs/training.md, "Reproducibility").
KERNEL_SETTINGS = (
    "ATEN_CPU_CAPABILITY",
    "MKL_CBWR",
    "OPENBLAS_CORETYPE",
    "NPY_DISABLE_CPU_FEATURES",
)


def machine() -> dict[str, object]:
    """Where a run ran, as far as its results depend on it: the CPUs, the platform, the kernel
    level torch chose (when torch is loaded) and the :data:`KERNEL_SETTINGS` that were set."""
    found: dict[str, object] = {"cpus": os.cpu_count(), "platform": platform.platform()}
    torch = sys.modules.get("torch")  # imported by the trainer; never imported here
    if torch is not None:
        found["torch_cpu_capability"] = torch.backends.cpu.get_cpu_capability()
    found["kernel_settings"] = {
        name: os.environ[name] for name in KERNEL_SETTINGS if name in os.environ
    }
    return found
