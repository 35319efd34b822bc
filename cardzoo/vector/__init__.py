"""Many games of one kind stepped in one call, on the game's compiled kernel.

- :class:`VectorEnv`: a Gymnasium ``VectorEnv``, one learning seat per game, the other seats
  played by random (inside the compiled kernel) or any cardzoo agent; registered so that
  ``gymnasium.make_vec("cardzoo/NobodyWantsIt-v0", num_envs=N)`` gives it.
- :class:`MultiAgentVectorEnv`: every seat decided outside, pgx's shape (the seat to decide,
  its observation and legal actions, one action per game).
- :class:`cardzoo.vector.sb3.SB3VecEnv`: Stable-Baselines3's ``VecEnv`` over :class:`VectorEnv`,
  for sb3-contrib's ``MaskablePPO`` (needs the ``train`` extra).

Each game is the AEC environment's game for the same seed, step by step (the kernel's rules and
generator are the engine's: :mod:`cardzoo.envs.batch`). The kernel is compiled by numba where
it is installed (the ``search`` extra) and runs as plain Python otherwise, with identical
results, much slower. Only games with a kernel have a vector form: today Nobody Wants It,
Believe It or Not and Minus Two.
"""

from cardzoo.vector.gymnasium_env import VectorEnv
from cardzoo.vector.multi_agent import MultiAgentVectorEnv, VectorStep

__all__ = ["MultiAgentVectorEnv", "VectorEnv", "VectorStep"]
