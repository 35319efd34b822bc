"""What every test module shares: nothing a test run writes is left outside pytest's temp dir."""

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def sb3_logs_in_pytest_temp(tmp_path_factory):
    """Stable-Baselines3 makes a folder ``SB3-<date and time>`` in the system's temp dir at every
    ``learn()`` without a log folder of its own (its logger's default): hundreds in a test run,
    none removed. ``SB3_LOGDIR`` sends them to pytest's temp dir, which pytest prunes."""
    folder = str(tmp_path_factory.mktemp("sb3-logs"))
    before = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = folder
    yield folder
    if before is None:
        del os.environ["SB3_LOGDIR"]
    else:
        os.environ["SB3_LOGDIR"] = before
