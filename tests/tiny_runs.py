"""The smallest training runs the tests make: a few thousand decisions, tiny networks; and what
a test compares to show a refused command changed nothing in a run's folder."""

import hashlib
import stat
from pathlib import Path

#: TrainConfig settings of a run that takes seconds (two evaluations of 8 games)
TINY = dict(
    timesteps=1024,
    n_envs=4,
    n_steps=128,
    batch_size=128,
    n_epochs=1,
    eval_every=512,
    eval_games=8,
    final_eval_games=8,
    net_arch=(16,),
)


def interrupted_at_the_second_call(function):
    """``function``, but its second call is a Ctrl-C."""
    calls = []

    def interrupt_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return function(*args, **kwargs)

    return interrupt_second


def disk(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``folder``: its content's hash and mode."""
    return {
        str(path.relative_to(folder)): (
            hashlib.sha256(path.read_bytes()).hexdigest(),
            stat.S_IMODE(path.stat().st_mode),
        )  # fmt: skip
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
