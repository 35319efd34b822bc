"""A game whose one engine is its kernel: the state is the kernel's packed row.

A kernel (``<game>/kernel.py``, :mod:`cardzoo.envs.kernels`) holds a game's rules as small integer
functions on one row of integers, the same source compiled by numba where it is installed and run as
plain Python otherwise. A game built on it (:class:`KernelGame`) keeps no rules of its own: its
:class:`PackedState` *is* such a row, and every rule and observation field is the kernel's, written
once for one game at a time, many games a call (:mod:`cardzoo.envs.batch`) and the search playouts.

The state's named fields (``state.hands``, ``state.draw_size``, ...) read and write the row:
scalars (:class:`Scalar`) are plain Python numbers, arrays (:class:`Part`) numpy views laid out by
the game's :class:`RowLayout`, so code that reads or changes ``state.hands`` works as on any
state, and snapshots, copies and restores stay generic (:meth:`PackedState.field_values`).

**Decision (the row's container).** Plain Python indexes a list several times faster than a numpy
array, and numba takes numpy arrays. So a state's row is a Python list while it runs on the plain
kernel and nobody has asked for an array field, and a numpy array (of
:data:`~cardzoo.envs.kernels.ROW_DTYPE`) from the moment a view is handed out (or the compiled
kernel runs it): from then on it stays an array, so that every view stays live, and the plain kernel
changes a list copy written back (slower, and only for states whose fields are read: tests,
pictures, search). A state whose views its maker alone used (a search's sampled world) forgets them,
and is a list again at its next change.

**Decision (the generator).** A state holds a real ``numpy.random.Generator`` (``state.rng``,
copied or shared as :class:`~cardzoo.envs.core.State` says), and every state draws exactly what
it gives, as the numpy engines did. The plain kernel takes the generator itself (its shuffles
are numpy's own: :mod:`cardzoo.envs.kernel_random`). The compiled kernel draws from numpy's
PCG64 reproduced bit for bit; loading the generator into that form costs more than a step, and
most steps draw nothing, so a step runs first with a generator that is not loaded
(``WAITING``); if it wanted to draw (a deal, a reshuffle) it is undone and run again with the
state's generator loaded, whose new position is then written back.

**Decision (compiled or plain).** The compiled kernel plays a game faster than the plain one
(a call costs about a microsecond, mostly numba's dispatch), but loading it costs a process
about half a second (numba, and the kernel from numba's on-disk cache), and compiling it the
first time on a machine several seconds. So a game starts on the plain kernel and moves to the
compiled one, where numba is installed, once it has taken :data:`SWITCH_AFTER` steps: a short
use never loads numba, a long one soon runs compiled. The two give the same games (the tests
hold both to the numpy engine). :data:`COMPILED` forces one (the tests play each).
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import struct
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from cardzoo.envs.core import Game, State
from cardzoo.envs.helpers import copy_generator
from cardzoo.envs.kernels import ROW_DTYPE, plain_and_compiled, plain_copy, use_compiled

#: the generator's layout and numpy's state in and out (plain Python: numba stays unloaded)
_random = plain_copy("cardzoo.envs.kernel_random")
_KIND, _WAITING, _MISSED = _random.KIND, _random.WAITING, _random.MISSED

#: whether a game on its kernel runs it compiled: True from the start (numba required), False
#: never, None (the default) once it has taken :data:`SWITCH_AFTER` steps, where numba is
#: installed; read when a game is built
COMPILED: bool | None = None
#: the steps (``apply`` calls) after which a game moves to the compiled kernel: about half a
#: second of plain play, what loading the compiled kernel costs a process
SWITCH_AFTER = 50_000


class RowLayout:
    """Where the array fields of one game's states lie in its row: ``parts`` maps a field's name
    to its start and shape; ``size`` is the row's length."""

    def __init__(self, parts: dict[str, tuple[int, tuple[int, ...]]], size: int):
        self.parts = {name: (int(start), tuple(shape)) for name, (start, shape) in parts.items()}
        self.size = int(size)
        #: the :attr:`~cardzoo.envs.core.Game.state_key` of the game whose states it lays out
        #: (one layout per game): what each of its states records of its game
        self.game_key: str | None = None


class Scalar:
    """A field that is one number of the row, at ``index``: an int (or a bool: ``kind=bool``)."""

    def __init__(self, index: int, kind: type = int):
        self.index = index
        self.kind = kind

    def __get__(self, state: PackedState | None, owner: type | None = None) -> Any:
        if state is None:
            return self
        return self.kind(state._row[self.index])

    def __set__(self, state: PackedState, value: Any) -> None:
        state._row[self.index] = int(value)
        state._legal = -1


class Part:
    """A field that is an array of the row: a numpy view laid out by the state's
    :class:`RowLayout`; assigning to it writes into the row. Snapshots hold it as ``dtype``;
    ``snapshot=False``: a view only (of part of a field that snapshots hold), not a field."""

    def __init__(self, dtype: type = np.int64, snapshot: bool = True):
        self.dtype = np.dtype(dtype)
        self.snapshot = snapshot

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, state: PackedState | None, owner: type | None = None) -> Any:
        if state is None:
            return self
        view = state._views.get(self.name)
        return state._view(self.name) if view is None else view

    def __set__(self, state: PackedState, value: Any) -> None:
        self.__get__(state)[...] = value


class PackedState(State):
    """A state that is its game's kernel row (see the module docstring). A subclass declares
    its fields as :class:`Scalar` and :class:`Part` class attributes, in snapshot order
    (``current_player`` and ``terminal`` among them); ``rng`` is the game's generator."""

    #: the names of the fields, in the order they are declared (snapshots list them so)
    fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = [
            name
            for name, value in vars(cls).items()
            if isinstance(value, Scalar) or (isinstance(value, Part) and value.snapshot)
        ]
        cls.fields = (*cls.fields, *declared)

    def __init__(self, layout: RowLayout, row: list | np.ndarray, rng: np.random.Generator):
        #: where the fields lie in the row (one per game)
        self.layout = layout
        self._row = row
        self._views: dict[str, np.ndarray] = {}
        self.rng = rng
        #: the legal actions (bits) of the player to decide, as the kernel's last step left
        #: them; -1: not known. Trusted while no view of the row is out (every other write
        #: forgets it).
        self._legal = -1

    # --- the row ----------------------------------------------------------------------------

    @property
    def row(self) -> list | np.ndarray:
        """The packed row itself (a list or a :data:`~cardzoo.envs.kernels.ROW_DTYPE` array; not
        a copy), for drivers that copy rows into arrays of their own (the search playouts)."""
        return self._row

    def _array(self) -> np.ndarray:
        """The row as a numpy array, from now on (see the module docstring)."""
        if type(self._row) is list:
            self._row = np.array(self._row, ROW_DTYPE)
        return self._row

    def _view(self, name: str) -> np.ndarray:
        start, shape = self.layout.parts[name]
        view = self._array()[start : start + math.prod(shape)].reshape(shape)
        self._views[name] = view
        return view

    def _write(self, name: str, value: Any) -> None:
        """Set a field without asking for a view (the row stays a list if it is one)."""
        if name not in self.layout.parts:
            setattr(self, name, value)
            return
        start, shape = self.layout.parts[name]
        self._row[start : start + math.prod(shape)] = np.ravel(value).tolist()
        self._legal = -1

    # --- what State asks for: snapshots, restores, copies -----------------------------------

    @property
    def game_key(self) -> str | None:
        return self.layout.game_key

    def field_values(self) -> dict[str, Any]:
        values: dict[str, Any] = {"rng": self.rng}
        for name in self.fields:
            value = getattr(self, name)
            if isinstance(value, np.ndarray):
                value = value.astype(type(self).__dict__[name].dtype)
            values[name] = value
        return values

    @classmethod
    def from_field_values(cls, game: Game, values: dict[str, Any]) -> State:
        assert isinstance(game, KernelGame)
        state = cls(game.row_layout, game.engine.new_row(), values["rng"])
        for name in cls.fields:
            state._write(name, values[name])
        return state

    def copy(self, rng: np.random.Generator | None = None) -> PackedState:
        row = self._row.copy()
        copied = type(self)(self.layout, row, copy_generator(self.rng) if rng is None else rng)
        copied._legal = self._legal
        return copied

    def __deepcopy__(self, memo: dict) -> PackedState:
        return type(self)(self.layout, self._row.copy(), copy_generator(self.rng))

    def __copy__(self) -> PackedState:
        return self.copy(self.rng)

    def __reduce__(self) -> tuple:
        row = self._row if type(self._row) is list else self._row.tolist()
        return (_unpickle, (type(self), self.layout, row, self.rng))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, PackedState)
        same_row = list(self._row) == list(other._row)
        return same_row and self.rng.bit_generator.state == other.rng.bit_generator.state

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.fields)
        return f"{type(self).__name__}({shown})"


def _unpickle(
    cls: type[PackedState], layout: RowLayout, row: list, rng: np.random.Generator
) -> PackedState:
    return cls(layout, row, rng)


class KernelEngine:
    """The kernel module ``kernel_module`` run on one state at a time, plain (numba is not even
    imported) or compiled (:meth:`compile`)."""

    def __init__(self, kernel_module: str, layout: RowLayout):
        self.kernel_module = kernel_module
        self.layout = layout
        self.compiled = False
        self.kernel: ModuleType = plain_copy(kernel_module)
        # The compiled kernel's generator: loaded with a state's own only for a step that draws.
        self.generator = np.zeros(_random.SIZE, np.int64)
        self.generator[_KIND] = _WAITING

    def compile(self) -> None:
        """Run the compiled kernel from now on (numba required)."""
        plain, compiled = plain_and_compiled(importlib.import_module(self.kernel_module))
        self.compiled = use_compiled(True, compiled)
        self.kernel = compiled

    def new_row(self) -> list[int] | np.ndarray:
        """A row of zeros in the container the kernel runs fastest on."""
        size = self.layout.size
        return np.zeros(size, ROW_DTYPE) if self.compiled else [0] * size

    def change(self, state: PackedState, function: Any, args: tuple, draws: bool = False) -> Any:
        """``function(row, *args, generator)``: a kernel function that changes the state's row
        and may draw from its generator; ``draws``: it surely does. Returns what the function
        returns."""
        row = state._row
        if not self.compiled:  # the state's numpy generator itself: nothing to load
            if type(row) is not list:
                if state._views:  # views are out: changed as a list, written back
                    work = row.tolist()
                    result = function(work, *args, state.rng)
                    row[:] = work
                    return result
                row = state._row = row.tolist()  # no view out: a list again
            return function(row, *args, state.rng)
        if type(row) is list:
            row = state._array()
        generator = self.generator  # WAITING between calls
        if not draws:
            saved = row.copy()
            result = function(row, *args, generator)
            if generator[_KIND] != _MISSED:
                return result
            row[:] = saved  # it wanted to draw: undone, and run again with the generator
        _random.set_numpy_state(generator, state.rng.bit_generator.state)
        result = function(row, *args, generator)
        state.rng.bit_generator.state = _random.numpy_state(generator)
        generator[_KIND] = _WAITING
        return result


class KernelGame(Game):
    """A :class:`~cardzoo.envs.core.Game` whose rules are all its kernel's
    (:attr:`~cardzoo.envs.core.Game.kernel_module`). Its state class is a :class:`PackedState`;
    a subclass builds its :class:`RowLayout` and calls :meth:`_set_up_kernel` in ``__init__``.
    The kernel has, taking the game's :meth:`~cardzoo.envs.core.Game.kernel_parameters` after
    the row, and its generator last (a :mod:`~cardzoo.envs.kernel_random` generator compiled,
    the state's ``numpy.random.Generator`` plain: these functions may draw only by
    ``kernel_random.shuffle``):

    - ``new_game(row, *parameters, rng)``: a new game, in a row holding what reset options fix;
    - ``legal_actions(row, *parameters)``: the legal actions of the player to decide, as bits
      (bit ``a``: action ``a`` is legal), or, for a game with more actions than an int64 has
      bits, as a code of the kernel's own (a number >= 0, 0 for none) that its
      ``expand_legal(code, mask, True)`` writes out as 1s into a zeroed mask;
    - ``step(row, *parameters, action, rewards, rng)``: an action, and what each seat earned
      by it into ``rewards``; returns the legal actions that follow (bits) shifted left by one,
      plus 1 if the step gives rewards;
    - ``observe(row, *parameters, player, starts, out)``: a player's observation into a zeroed
      ``out``, its fields (``OBSERVATION_FIELDS``) starting at ``starts``;
    - ``seat_scores(row, n, out)``: each seat's score as the rules count it, into ``out``
      (:meth:`scores`; a batch asks ``scores_games``);
    - ``CURRENT``: where a row holds the player to decide.

    A game object keeps scratch buffers for its kernel's calls: one thread at a time may use it
    (as one environment), as with every PettingZoo environment.
    """

    state_class: ClassVar[type[PackedState]]
    row_layout: RowLayout

    def _set_up_kernel(self, layout: RowLayout) -> None:
        assert self.kernel_module is not None
        layout.game_key = self.state_key
        self.row_layout = layout
        self.engine = KernelEngine(self.kernel_module, layout)
        self._parameters = self.kernel_parameters()
        #: bits (or code) -> (mask, count), kept by kernel_arrays.kept (at most KEPT of them)
        self._masks: dict[int, tuple[np.ndarray, int]] = {}
        self._plain_kernel = plain_copy(self.kernel_module)
        self._arrays = plain_copy("cardzoo.envs.kernel_arrays")
        self._expand_legal = getattr(self._plain_kernel, "expand_legal", None)
        self._no_actions = np.zeros(self.num_actions, np.int8)
        self._observation_struct = struct.Struct(f"{self.observation_size}f")
        #: the steps before the compiled kernel is taken (-1: never; see COMPILED)
        self._switch_in = -1
        if COMPILED:
            self.engine.compile()
        elif COMPILED is None and numba_installed():
            self._switch_in = SWITCH_AFTER
        self._take_kernel()

    def observation_starts(self) -> list[int]:
        """Where each of the kernel's ``OBSERVATION_FIELDS`` begins in a seat's observation
        vector: the ``starts`` its ``observe`` and its heuristics take."""
        fields = self._plain_kernel.OBSERVATION_FIELDS
        return [self.observation_layout[name].start for name in fields]

    def _take_kernel(self) -> None:
        """Call the engine's kernel, plain or compiled, from now on."""
        kernel, self._compiled = self.engine.kernel, self.engine.compiled
        self._new_game, self._legal_actions = kernel.new_game, kernel.legal_actions
        self._step, self._observe = kernel.step, kernel.observe
        self._current = kernel.CURRENT
        starts = self.observation_starts()
        self._starts: list[int] | np.ndarray = starts
        self._rewards: list[int] | np.ndarray = [0] * self.num_players
        if self._compiled:
            self._starts = np.array(starts, np.int64)
            self._rewards = np.zeros(self.num_players)

    def _count_step(self) -> None:
        self._switch_in -= 1
        if self._switch_in == 0:
            self.engine.compile()
            self._take_kernel()

    def _without_views(self, state: PackedState) -> PackedState:
        """``state``, made here and its views used here only, with its views forgotten: the
        plain kernel may run it on a list again (a search plays its sampled worlds on)."""
        state._views.clear()
        state._legal = -1
        return state

    def __reduce__(self) -> tuple:
        """Pickled (and deep-copied) as its parameters: the kernel is loaded again where it is
        unpickled, compiled or plain as :data:`COMPILED` says there."""
        return (_game_from_params, (type(self), self.params()))

    def _new_packed_state(self, rng: np.random.Generator, fixed: dict[str, Any]) -> PackedState:
        """A new game: a row holding the ``fixed`` fields (reset options), dealt by the kernel
        with ``rng`` as the state's generator."""
        state = self.state_class(self.row_layout, self.engine.new_row(), rng)
        for name, value in fixed.items():
            state._write(name, value)
        self.engine.change(state, self._new_game, self._parameters, draws=True)
        return state

    def legal_mask(self, state: State, player: int) -> np.ndarray:
        if getattr(state, "game_key", None) is not self.state_key:
            self.check_state(state)
        if not (type(player) is int and 0 <= player < self.num_players):
            player = self.check_player(player)
        row = state._row  # type: ignore[attr-defined]
        if player != row[self._current]:
            return self._no_actions.copy()
        bits = state._legal  # type: ignore[attr-defined]
        if bits < 0 or state._views:  # type: ignore[attr-defined]
            if self._compiled and type(row) is list:
                row = state._array()  # type: ignore[attr-defined]
            elif not self._compiled and type(row) is not list:
                row = row.tolist()  # Python ints: 32-bit numpy ones would overflow the bits
            bits = self._legal_actions(row, *self._parameters)
        found = self._masks.get(bits)
        if found is None:  # made once, kept as the plain kernels keep theirs
            found = self._arrays.kept(self._masks, bits, self.num_actions, self._spell, bits)
        return found[0].copy()

    def _spell(self, run: np.ndarray, legal: int) -> int:
        """The legal actions ``legal`` (bits, or the kernel's code) as 1s in the zeroed array
        ``run``; returns how many there are."""
        if self._expand_legal is None:
            return self._arrays.spell_out(run, legal)
        return self._expand_legal(legal, run, True)

    def apply(self, state: State, action: int) -> np.ndarray | None:
        rewards, row = self._rewards, state._row  # type: ignore[attr-defined]
        if type(row) is list and not self._compiled:  # the common plain case, without a detour
            done = self._step(row, *self._parameters, action, rewards, state.rng)
        else:
            arguments = (*self._parameters, action, rewards)
            done = self.engine.change(state, self._step, arguments)  # type: ignore[arg-type]
        state._legal = done >> 1  # type: ignore[attr-defined]
        given = np.array(rewards, np.float64) if done & 1 else None
        if self._switch_in > 0:
            self._count_step()
        return given

    def scores(self, state: State) -> np.ndarray:
        """Each player's score, as the kernel's ``seat_scores`` counts it (the game's module
        says what it counts)."""
        self.check_state(state)
        scores = [0] * self.num_players
        self._plain_kernel.seat_scores(state._row, self.num_players, scores)  # type: ignore[attr-defined]
        return np.array(scores, np.int64)

    def observe(self, state: State, player: int, out: np.ndarray | None = None) -> np.ndarray:
        if getattr(state, "game_key", None) is not self.state_key:
            self.check_state(state)
        if not (type(player) is int and 0 <= player < self.num_players):
            player = self.check_player(player)
        row = state._row  # type: ignore[attr-defined]
        if self._compiled:
            if type(row) is list:
                row = state._array()  # type: ignore[attr-defined]
            if out is None:
                out = np.zeros(self.observation_size, np.float32)
            else:
                out.fill(0.0)
            self._observe(row, *self._parameters, player, self._starts, out)
            return out
        # Plain: from a list (of Python ints, see legal_mask) into a list, then into float32
        # in one call.
        values = [0.0] * self.observation_size
        if type(row) is not list:
            row = row.tolist()
        self._observe(row, *self._parameters, player, self._starts, values)
        if out is None:
            out = np.empty(self.observation_size, np.float32)
        elif out.dtype.char != "f":
            out[...] = values
            return out
        try:
            self._observation_struct.pack_into(out, 0, *values)
        except (BufferError, TypeError):  # not one contiguous block of memory
            out[...] = values
        return out


def _game_from_params(cls: type[KernelGame], params: dict[str, Any]) -> KernelGame:
    return cls(**params)


def numba_installed() -> bool:
    """Whether numba can be imported (without importing it)."""
    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError):  # numba blocked (sys.modules["numba"] = None)
        return False
