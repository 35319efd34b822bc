"""The optional extras: one error, in one wording, when a module of one is missing (ground floor:
imports nothing of cardzoo).

``pip install cardzoo`` brings the environments, the agents, evaluation and tournaments. Training
(torch, Stable-Baselines3, TensorBoard), the web page (Starlette), RLlib and the compiled search
come with extras. A module of cardzoo that needs one raises :func:`missing_extra`'s error when
its import fails, and the command line prints the same words, so a user without the extra reads
which one to install, not a bare ``No module named 'torch'``. Importing
:mod:`cardzoo.training.ppo` without the train extra raises ``ModuleNotFoundError: cardzoo.training
needs the train extra (torch is missing): pip install 'cardzoo[train]'``.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence

#: the modules cardzoo's own trainer imports (``cardzoo train``, ``cardzoo exploit``,
#: :mod:`cardzoo.training.ppo`), all from the train extra
TRAIN_MODULES = ("torch", "tensorboard", "threadpoolctl")


def missing_extra(extra: str, user: str, module: str | None) -> ModuleNotFoundError:
    """The error for ``user`` (a command or module) when ``module`` of ``extra`` is missing (a
    failed import's ``name``; its top-level package is named, ``ray`` for ``ray.rllib``): it
    names both and the command that installs the extra. A ``ModuleNotFoundError``, as the failed
    import was, so callers that catch ``ImportError`` keep working."""
    module = module.partition(".")[0] if module else None
    return ModuleNotFoundError(
        f"{user} needs the {extra} extra ({module or 'a module of it'} is missing): "
        f"pip install 'cardzoo[{extra}]'",
        name=module,
    )


def require_modules(extra: str, user: str, modules: Sequence[str]) -> None:
    """:func:`missing_extra`'s error for the first of ``modules`` that is not installed, without
    importing any of them (a check before work that would need them later)."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise missing_extra(extra, user, module)
