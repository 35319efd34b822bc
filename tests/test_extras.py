"""A module of cardzoo that needs an optional extra says which one when it is missing: a user of
the base install who imports the trainer read a bare ``No module named 'torch'`` (found by a
library review). Each case runs in a fresh interpreter with the extra's module blocked, as if it
were not installed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cardzoo.extras import missing_extra, require_modules


def import_without(blocked: str, statement: str) -> subprocess.CompletedProcess:
    """Run ``statement`` in a new interpreter where importing ``blocked`` fails."""
    code = f"import sys; sys.modules[{blocked!r}] = None\n{statement}"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize(
    ("blocked", "statement", "expected"),
    [
        (
            "torch",
            "from cardzoo.training.ppo import TrainConfig, train",
            "cardzoo.training needs the train extra (torch is missing): "
            "pip install 'cardzoo[train]'",
        ),
        (
            "torch",
            "from cardzoo.training.exploit import exploit",
            "cardzoo.training needs the train extra (torch is missing)",
        ),
        (
            "tensorboard",
            "import cardzoo.training.ppo",
            "cardzoo.training needs the train extra (tensorboard is missing)",
        ),
        (
            "stable_baselines3",
            "from cardzoo.vector.sb3 import SB3VecEnv",
            "cardzoo.vector.sb3 needs the train extra (stable_baselines3 is missing): "
            "pip install 'cardzoo[train]'",
        ),
        (
            "starlette",
            "from cardzoo.web.app import create_app",
            "cardzoo.web needs the web extra (starlette is missing): pip install 'cardzoo[web]'",
        ),
    ],
)
def test_importing_a_module_without_its_extra_names_the_extra(blocked, statement, expected):
    result = import_without(blocked, statement)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: ") and expected in last, result.stderr


def test_the_rllib_trainer_without_ray_names_the_rllib_extra():
    statement = "from cardzoo.training.rllib import train\ntrain('foxy', '/nonexistent/run')"
    result = import_without("ray", statement)
    last = result.stderr.strip().splitlines()[-1]
    assert last == (
        "ModuleNotFoundError: cardzoo.training.rllib needs the rllib extra (ray is missing): "
        "pip install 'cardzoo[rllib]'"
    ), result.stderr


def test_require_modules_names_the_first_missing_module(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    require_modules("train", "x", ("numpy",))  # installed: nothing raised
    with pytest.raises(ModuleNotFoundError) as caught:
        require_modules("train", "cardzoo train", ("numpy", "tensorboard", "torch"))
    assert str(caught.value) == (
        "cardzoo train needs the train extra (tensorboard is missing): pip install 'cardzoo[train]'"
    )
    assert caught.value.name == "tensorboard"
    assert isinstance(missing_extra("web", "cardzoo serve", None), ImportError)
