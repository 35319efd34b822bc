"""Torch's thread count for the length of a block, restored afterwards.

Small networks on few cores train much faster on one thread per process (several threads only
wait on each other). The commands set that for their whole process; a library function that
needs it sets it for its own duration with :func:`torch_threads` and leaves the caller's
setting as it found it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """Torch at ``count`` threads inside the block; the previous count afterwards."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
