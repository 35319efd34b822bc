"""Several games per worker process, as one SB3 ``VecEnv``.

SB3's ``SubprocVecEnv`` runs one environment per process. Our games step in tens of microseconds,
so with one process per game the pipe round trips cost more than the games, and eight processes
on two cores mostly wait for each other (measured in benchmarks/training_speed.py). Here each of
``processes`` workers steps a slice of the environments in a ``DummyVecEnv`` of its own — SB3's
auto-reset, ``terminal_observation`` and ``reset_infos`` conventions come from it unchanged — and
the main process only splits the actions and joins the results: one round trip per worker per
step.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv


def _worker(connection, factories: list[Callable[[], gymnasium.Env]]) -> None:
    venv = DummyVecEnv(factories)
    commands = {
        "step": lambda actions: (*venv.step(actions), venv.reset_infos),
        "reset": lambda _: (venv.reset(), venv.reset_infos),
        "seed": lambda seed: venv.seed(seed),
        "spaces": lambda _: (venv.observation_space, venv.action_space, venv.render_mode),
        "env_method": lambda call: venv.env_method(call[0], *call[1], indices=call[3], **call[2]),
        "get_attr": lambda call: venv.get_attr(call[0], indices=call[1]),
        "set_attr": lambda call: venv.set_attr(call[0], call[1], indices=call[2]),
        "env_is_wrapped": lambda call: venv.env_is_wrapped(call[0], indices=call[1]),
    }
    try:
        while True:
            command, argument = connection.recv()
            if command == "close":
                venv.close()
                return
            try:
                connection.send(("ok", commands[command](argument)))
            except Exception as error:  # sent back and raised in the main process
                connection.send(("error", error))
    except (EOFError, KeyboardInterrupt):
        venv.close()
    finally:
        connection.close()


class MultiGameVecEnv(VecEnv):
    """``len(factories)`` environments stepped by ``processes`` worker processes (forked), each
    running a contiguous slice of them."""

    def __init__(self, factories: Sequence[Callable[[], gymnasium.Env]], processes: int):
        if not 1 <= processes <= len(factories):
            raise ValueError(f"processes must be 1..{len(factories)}, got {processes}")
        context = multiprocessing.get_context("fork")
        bounds = np.linspace(0, len(factories), processes + 1).astype(int)
        self._slices = [range(bounds[k], bounds[k + 1]) for k in range(processes)]
        self._connections = []
        self._processes = []
        for part in self._slices:
            parent, child = context.Pipe()
            process = context.Process(
                target=_worker, args=(child, [factories[i] for i in part]), daemon=True
            )
            process.start()
            child.close()
            self._connections.append(parent)
            self._processes.append(process)
        observation_space, action_space, self.render_mode = self._call_one(0, "spaces", None)
        super().__init__(len(factories), observation_space, action_space)
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._actions: np.ndarray | None = None
        self.closed = False

    # --- talking to the workers ----------------------------------------------------------

    def _call_one(self, worker: int, command: str, argument: Any) -> Any:
        self._connections[worker].send((command, argument))
        return self._receive(worker)

    def _receive(self, worker: int) -> Any:
        status, value = self._connections[worker].recv()
        if status == "error":
            raise value
        return value

    def _call_all(self, command: str, arguments: Sequence[Any]) -> list[Any]:
        for connection, argument in zip(self._connections, arguments):
            connection.send((command, argument))
        return [self._receive(worker) for worker in range(len(self._connections))]

    def _by_worker(self, indices) -> list[tuple[int, list[int], list[int]]]:
        """(worker, local indices, global indices) of the workers holding ``indices``."""
        wanted = list(self._get_indices(indices))
        groups = []
        for worker, part in enumerate(self._slices):
            chosen = [i for i in wanted if i in part]
            if chosen:
                groups.append((worker, [i - part.start for i in chosen], chosen))
        return groups

    def _call_indices(self, command: str, make_argument, indices) -> list[Any]:
        groups = self._by_worker(indices)
        for worker, local, _ in groups:
            self._connections[worker].send((command, make_argument(local)))
        results: list[Any] = []
        for worker, _, _ in groups:
            results.extend(self._receive(worker) or [])  # set_attr answers None
        return results

    # --- the VecEnv API ----------------------------------------------------------------------

    def reset(self):
        # A worker seeds its slice as seed, seed + 1, ...: start each at its first global index.
        for worker, part in enumerate(self._slices):
            if self._seeds[part.start] is not None:
                self._call_one(worker, "seed", self._seeds[part.start])
        results = self._call_all("reset", [None] * len(self._slices))
        self._reset_seeds()
        self.reset_infos = [info for _, infos in results for info in infos]
        return np.concatenate([observations for observations, _ in results])

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        parts = [self._actions[part.start : part.stop] for part in self._slices]
        results = self._call_all("step", parts)
        observations = np.concatenate([r[0] for r in results])
        rewards = np.concatenate([r[1] for r in results])
        dones = np.concatenate([r[2] for r in results])
        infos = [info for r in results for info in r[3]]
        self.reset_infos = [info for r in results for info in r[4]]
        return observations, rewards, dones, infos

    def close(self) -> None:
        if self.closed:
            return
        for connection in self._connections:
            with contextlib.suppress(BrokenPipeError, OSError):
                connection.send(("close", None))
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        self.closed = True

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list[Any]:
        return self._call_indices(
            "env_method", lambda local: (method_name, args, kwargs, local), indices
        )

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return self._call_indices("get_attr", lambda local: (attr_name, local), indices)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        self._call_indices("set_attr", lambda local: (attr_name, value, local), indices)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return self._call_indices("env_is_wrapped", lambda local: (wrapper_class, local), indices)

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs
