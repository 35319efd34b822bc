"""Small helpers the engines share: checking parameters, seeds and reset options, reading card
names, laying out observations, and drawing a new game's generator.

Every helper raises :class:`~cardzoo.errors.InputError` or ``ValueError`` naming what it checks;
the rules they follow (seeds, reset options, a reset that raises) are in the docstring of
:mod:`cardzoo.envs.core`.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Mapping
from types import FrameType
from typing import TYPE_CHECKING, Any

import numpy as np

from cardzoo.errors import InputError

if TYPE_CHECKING:
    from cardzoo.envs.core import Game, State


def check_choice(name: str, value: Any, allowed: Any) -> None:
    """Raise :class:`~cardzoo.errors.InputError` (a ``ValueError``) naming the parameter unless
    ``value`` is one of ``allowed``."""
    if value not in allowed:
        raise InputError(f"{name}={value!r} is not allowed; choose one of {list(allowed)}")


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    """Raise :class:`~cardzoo.errors.InputError` (a ``ValueError``) naming the parameter unless
    ``value`` is an int in [low, high] (no upper bound where ``high`` is None)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        allowed = f">= {low}" if high is None else f"{low}..{high}"
        raise InputError(f"{name}={value} is out of range; allowed {allowed}")
    return int(value)


#: the most agent steps a game may be allowed (``max_cycles``): the compiled kernels count a
#: game's steps in 64-bit integers
MAX_CYCLES_BOUND = 2**63 - 1


def check_max_cycles(max_cycles: Any, default: int) -> int:
    """``max_cycles``, or ``default`` for None, checked: an int in 1 .. :data:`MAX_CYCLES_BOUND`
    (beyond it a compiled kernel failed with a traceback); else
    :class:`~cardzoo.errors.InputError`."""
    return check_int("max_cycles", default if max_cycles is None else max_cycles, 1,
                     MAX_CYCLES_BOUND)  # fmt: skip


def check_bool(name: str, value: Any) -> bool:
    """``value`` if it is True or False (numpy's too); else :class:`~cardzoo.errors.InputError`
    naming the parameter (a string such as "no" is true to Python, and would be taken as yes)."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name} must be True or False, got {value!r:.80}")
    return bool(value)


def check_seed(seed: Any, name: str = "seed") -> int | None:
    """``seed`` as an int (or None); ``ValueError`` naming it unless it is None or an integer
    >= 0 (see "Seeds" in the docstring of :mod:`cardzoo.envs.core`)."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"{name} must be None or an integer >= 0, got {seed!r:.80}")
    return int(seed)


def require(condition: Any, message: str) -> None:
    """``assert`` for :meth:`~cardzoo.envs.core.Game.check_invariants` that ``python -O`` does
    not remove: restoring a snapshot relies on those checks."""
    if not condition:
        raise AssertionError(message)


def in_range(values: Any, low: int, high: int) -> bool:
    """Whether every value (of an array or a scalar) lies in ``[low, high]``."""
    return bool(np.all((np.asarray(values) >= low) & (np.asarray(values) <= high)))


def card_types(
    where: str, names: Any, allowed: tuple[str, ...], noun: str = "card name"
) -> np.ndarray:
    """The card names of a reset option as type ids (their index in ``allowed``). ``ValueError``
    naming the option (``where``), every unknown name and the allowed names."""
    is_list = isinstance(names, (list, tuple, np.ndarray)) and not isinstance(names, str)
    if not is_list or not all(isinstance(name, str) for name in names):
        raise ValueError(
            f"{where} must be a list of {noun}s from {list(allowed)}, got {names!r:.80}"
        )
    index = {name: type_id for type_id, name in enumerate(allowed)}
    unknown = {repr(name) for name in names if name not in index}
    if unknown:
        raise ValueError(
            f"{where}: unknown {noun}(s) {', '.join(sorted(unknown))}; "
            f"allowed {noun}s: {list(allowed)}"
        )
    return np.array([index[name] for name in names], np.int64)


def layout_from_sizes(sizes: list[tuple[str, int]]) -> dict[str, slice]:
    """Turn ``[(field, length), ...]`` into ``{field: slice}`` laid end to end."""
    layout: dict[str, slice] = {}
    start = 0
    for name, size in sizes:
        if name in layout:
            raise ValueError(f"duplicate observation field {name!r}")
        layout[name] = slice(start, start + size)
        start += size
    return layout


def named_counts(counts: np.ndarray, card_names: tuple[str, ...]) -> dict[str, int]:
    """``{card name: count}`` of the non-zero counts, for messages."""
    return {name: int(count) for name, count in zip(card_names, counts) if count}


def check_card_counts(
    option: str,
    cards: np.ndarray,
    expected: np.ndarray,
    card_names: tuple[str, ...],
    description: str | None = None,
) -> None:
    """Raise ``ValueError`` unless the card types ``cards`` (from a reset option) hold exactly
    ``expected`` copies of each type; ``description`` says what was expected, in words."""
    counts = np.bincount(np.ravel(cards), minlength=len(card_names))
    if np.array_equal(counts, expected):
        return
    description = description or str(named_counts(expected, card_names))
    raise ValueError(
        f"{option} option must hold exactly {description}; "
        f"got {np.size(cards)} cards {named_counts(counts, card_names)}"
    )


def split_observation(layout: dict[str, slice], vector: np.ndarray) -> dict[str, np.ndarray]:
    """An observation vector split into its named fields."""
    return {name: vector[part] for name, part in layout.items()}


def spawn_game_rng(env_rng: np.random.Generator) -> np.random.Generator:
    """The generator of one new game, drawn from the environment's generator. A reset without a
    seed thus continues the environment's sequence of deals."""
    return np.random.default_rng(env_rng.integers(2**63))


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """A generator of the same kind at the same position, independent of ``rng``."""
    bit_generator = type(rng.bit_generator)()
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)


def game_rng_from_seed(seed: int | None) -> np.random.Generator:
    """The game generator that ``env.reset(seed=seed)`` gives the engine (used by the match
    runner, so every game it reports can be replayed in the environment)."""
    return spawn_game_rng(np.random.default_rng(check_seed(seed)))


def game_generator(rng: Any) -> np.random.Generator:
    """The generator :meth:`~cardzoo.envs.core.Game.new_state` deals with: a
    ``numpy.random.Generator`` as given; for a seed (an integer >= 0) the one
    ``env.reset(seed=seed)`` gives the engine, so that ``game.new_state(s)`` is the game the
    environment deals from ``s``; for None one from fresh entropy. Anything else raises
    :class:`~cardzoo.errors.InputError` naming ``rng``."""
    if isinstance(rng, np.random.Generator):
        return rng
    try:
        return game_rng_from_seed(rng)  # checks the seed (check_seed)
    except InputError:
        raise InputError(
            "new_state: rng must be a numpy.random.Generator, a seed (an integer >= 0) or "
            f"None, got {rng!r:.80}"
        ) from None


def deal_for_reset(
    game: Game, seed: Any, options: Any, env_rng: np.random.Generator | None
) -> tuple[np.random.Generator, State]:
    """What an environment's ``reset(seed, options)`` does before it changes anything (the AEC
    base and Foxy's parallel form alike, so one seed deals the same game in both): check the seed
    and the options, take the environment's generator (a new one from ``seed`` if given, or if
    the environment has none yet) and deal a new game with a generator drawn from it. Returns
    that environment generator and the new state. If anything raises, ``env_rng`` is as it was:
    a rejected reset consumes no draw (see "A reset that raises changes nothing" in the
    docstring of :mod:`cardzoo.envs.core`)."""
    seed = check_seed(seed)
    options = known_options(game, options)
    if seed is not None or env_rng is None:
        env_rng = np.random.default_rng(seed)
    saved = env_rng.bit_generator.state
    try:
        return env_rng, game.new_state(spawn_game_rng(env_rng), options)
    except BaseException:
        env_rng.bit_generator.state = saved
        raise


@functools.cache
def seat_order(player: int, num_players: int) -> np.ndarray:
    """Seats starting with ``player`` and going left: the order observations list players in.
    Cached and read-only: observations ask for it at every step."""
    seats = (np.arange(num_players) + player) % num_players
    seats.flags.writeable = False
    return seats


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _stacklevel_outside_package() -> int:
    """The ``stacklevel`` that makes a warning issued by our caller point at the first frame
    outside cardzoo (the user's ``reset`` call, however deep inside cardzoo it was noticed)."""
    frame: FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def known_options(game: Game, options: Any) -> dict:
    """The reset options ``game`` understands, out of what a caller passed (see "Reset options"
    in the docstring of :mod:`cardzoo.envs.core`: not a dict -> ``InputError``; unknown keys ->
    ``UserWarning`` naming them, and dropped). Every engine's ``new_state`` and every
    environment's ``reset`` goes through here."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise InputError(
            f"{game.name}: reset options must be a dict or None, "
            f"got {type(options).__name__} {options!r:.60}"
        )
    unknown = sorted((key for key in options if key not in game.reset_options), key=repr)
    if unknown:
        warnings.warn(
            f"{game.name} ignores unknown reset options {unknown}; "
            f"it understands {list(game.reset_options)}",
            UserWarning,
            stacklevel=_stacklevel_outside_package(),
        )
    return {key: options[key] for key in game.reset_options if key in options}


def is_index(action: Any, size: int) -> bool:
    """Whether ``action`` is an integer (Python or numpy, not a bool) in ``[0, size)``."""
    if type(action) is int:  # the common case, checked first: this runs at every step
        return 0 <= action < size
    return bool(
        isinstance(action, (int, np.integer))
        and not isinstance(action, (bool, np.bool_))
        and 0 <= action < size
    )
