"""Snapshots: a game in progress as JSON-serialisable data, and the checked way back.

A snapshot is plain data (dicts, lists, numbers, strings) that ``json.dumps`` writes as it is:

- numpy arrays as ``{"__ndarray__": nested lists, "dtype": "<i8", "shape": [n, m]}``;
- a ``numpy.random.Generator`` as ``{"__generator__": its bit generator's state dict}``;
- dicts and tuples of the game's parameters as ``{"__dict__": [[key, value], ...]}`` and
  ``{"__tuple__": [...]}``; numpy scalars as Python numbers.

Every snapshot carries ``"format": SNAPSHOT_FORMAT``; a reader refuses any other version.

Reading a snapshot trusts nothing in it: the expected structure comes from the reader (a fresh
state of the same game is the template of field names, dtypes and shapes), never from the data.
In particular the data never chooses code: a generator is rebuilt only with a bit generator from
:data:`BIT_GENERATORS`, by name, never by looking a name up on ``numpy.random``. Anything
unexpected raises ``ValueError`` saying where: JSON ``true``/``false`` where a number belongs,
integers too long to be any field's value, lists nested deeper than a field's shape (however deep:
nothing here recurses on the data, and JSON text too deep for Python's parser is named as such),
rewards beyond what the game can give.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

#: Version of the snapshot layout; bumped whenever a snapshot written before would be read wrong.
SNAPSHOT_FORMAT = 1

#: The only bit generators a snapshot may ask for (cardzoo itself uses PCG64 only).
BIT_GENERATORS: dict[str, type[np.random.BitGenerator]] = {"PCG64": np.random.PCG64}

_INT64 = (-(2**63), 2**63 - 1)

#: the most digits an integer in a snapshot can have: the largest values are PCG64's 128-bit
#: state and increment (39 digits). Longer integers in JSON text are not converted (Python
#: refuses beyond 4,300 digits, in a message that cannot name the field; and converting is slow).
MAX_INT_DIGITS = 40

_FLOAT64_MAX = float(np.finfo(np.float64).max)


# ----------------------------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------------------------


def encode(value: Any) -> Any:
    """``value`` as JSON-serialisable data (see the module docstring)."""
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str, "shape": value.shape}
    if isinstance(value, np.random.Generator):
        return encode_generator(value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {"__dict__": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    return value


def encode_generator(rng: np.random.Generator) -> dict[str, Any]:
    """A generator as data: its bit generator's state (read back by :func:`decode_generator`)."""
    return {"__generator__": rng.bit_generator.state}


# ----------------------------------------------------------------------------------------------
# Reading: the envelope
# ----------------------------------------------------------------------------------------------


def invalid(what: str, message: str) -> ValueError:
    return ValueError(f"invalid {what}: {message}")


class LongInteger:
    """An integer of JSON text too long to be a snapshot's value (more than
    :data:`MAX_INT_DIGITS` digits): kept unconverted, so the field it is in can be named."""

    def __init__(self, digits: int):
        self.digits = digits

    def __repr__(self) -> str:
        return f"an integer of {self.digits} digits"


def _parse_int(text: str) -> int | LongInteger:
    digits = len(text.lstrip("-"))
    return int(text) if digits <= MAX_INT_DIGITS else LongInteger(digits)


def describe(value: Any) -> str:
    """A short description of an untrusted value for a message: never its full ``repr`` (a
    deeply nested list cannot be printed, a 5,000-digit integer cannot be turned into text)."""
    if isinstance(value, (list, tuple, Mapping)):
        return f"a {type(value).__name__} of {len(value)} items"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        fits = abs(int(value)) < 10**MAX_INT_DIGITS
        return str(value) if fits else f"an integer of more than {MAX_INT_DIGITS} digits"
    if isinstance(value, (str, bytes)):
        return f"{value!r:.60}"
    if isinstance(value, (bool, float, np.bool_, np.floating, LongInteger)) or value is None:
        return repr(value)
    return f"a {type(value).__name__}"


def preview(value: Any, limit: int = 200) -> str:
    """Untrusted snapshot data as JSON text for a message, cut at ``limit`` characters (or
    :func:`describe` when it cannot be written: nested too deeply, huge integers)."""
    try:
        return json.dumps(value, default=describe)[:limit]
    except (ValueError, TypeError, RecursionError):
        return describe(value)


def _field_nested_too_deeply(text: str) -> str:
    """Where JSON text nests deeper than Python's parser can follow: the last key before the
    first ``[`` or ``{`` beyond depth 100 (read without recursion; strings are skipped)."""
    depth = 0
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]', text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > 100:
                keys = re.findall(r'"((?:[^"\\]|\\.)*)"\s*:', text[: match.start()])
                return f"field {keys[-1]!r:.60}" if keys else "the top level"
        elif token in "]}":
            depth -= 1
    return "some field"


def snapshot_data(snapshot: Any, what: str) -> Mapping:
    """The snapshot as a mapping: a dict as ``snapshot()`` returned it (after a JSON round trip
    or not), or its JSON text (``str``, or UTF-8 ``bytes``)."""
    if isinstance(snapshot, (bytes, bytearray)):
        try:
            snapshot = bytes(snapshot).decode("utf-8")
        except UnicodeDecodeError as error:
            raise invalid(what, f"bytes that are not UTF-8 JSON text ({error})") from None
    if isinstance(snapshot, str):
        try:
            snapshot = json.loads(snapshot, parse_int=_parse_int)
        except json.JSONDecodeError as error:
            raise invalid(what, f"not JSON ({error})") from None
        except RecursionError:
            where = _field_nested_too_deeply(snapshot)
            raise invalid(
                what,
                f"not JSON that can be read: lists or dicts nested too deeply for Python's "
                f"parser, at {where} (a snapshot nests at most a few levels)",
            ) from None
    if not isinstance(snapshot, Mapping):
        raise invalid(
            what,
            f"expected a dict (as snapshot() returns) or its JSON text, "
            f"got {type(snapshot).__name__}",
        )
    return snapshot


def check_keys(data: Mapping, expected: tuple[str, ...], what: str) -> None:
    """``ValueError`` unless ``data`` has exactly the keys ``expected``."""
    missing = [key for key in expected if key not in data]
    unknown = sorted(describe(key) for key in data if key not in expected)
    if missing or unknown:
        parts = [f"missing {missing}"] if missing else []
        parts += [f"unknown [{', '.join(unknown)}]"] if unknown else []
        raise invalid(what, f"keys {', '.join(parts)}; expected exactly {list(expected)}")


def check_format(data: Mapping, what: str) -> None:
    """``ValueError`` unless ``data["format"]`` is the version this code reads."""
    version = data.get("format")
    if type(version) is not int or version != SNAPSHOT_FORMAT:
        raise invalid(
            what,
            f"format {describe(version)}; "
            f"this version of cardzoo reads snapshot format {SNAPSHOT_FORMAT}",
        )


def same_data(first: Any, second: Any) -> bool:
    """Whether two pieces of snapshot data are identical as JSON (``True`` differs from ``1``)."""
    try:
        return json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return False


def decode_int(value: Any, what: str, low: int = _INT64[0], high: int = _INT64[1]) -> int:
    """An integer (never a bool) in ``[low, high]``."""
    if isinstance(value, LongInteger):
        raise invalid(what, f"{describe(value)} is out of range {low}..{high}")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise invalid(what, f"expected an integer, got {describe(value)}")
    if not low <= value <= high:
        raise invalid(what, f"{describe(value)} is out of range {low}..{high}")
    return int(value)


def decode_number(value: Any, what: str, bound: float = _FLOAT64_MAX) -> float:
    """A finite int or float (never a bool) in ``[-bound, bound]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise invalid(what, f"expected a number, got {describe(value)}")
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        raise invalid(what, f"{value} is not a finite number")
    if not -bound <= value <= bound:  # compared exactly: an int too large for a float is out
        raise invalid(what, f"{describe(value)} is out of range {-bound:g}..{bound:g}")
    return float(value)


# ----------------------------------------------------------------------------------------------
# Reading: generators
# ----------------------------------------------------------------------------------------------


def decode_generator(value: Any, what: str) -> np.random.Generator:
    """The generator :func:`encode_generator` wrote. Only bit generators in
    :data:`BIT_GENERATORS` are rebuilt, from a state checked key by key."""
    if not isinstance(value, Mapping) or list(value) != ["__generator__"]:
        raise invalid(what, f"expected {{'__generator__': state}}, got {describe(value)}")
    state = value["__generator__"]
    name = state.get("bit_generator") if isinstance(state, Mapping) else None
    if not isinstance(name, str) or name not in BIT_GENERATORS:
        raise invalid(
            what,
            f"bit generator {describe(name)} is not allowed; allowed: {list(BIT_GENERATORS)}",
        )
    _check_pcg64_state(state, what)
    bit_generator = BIT_GENERATORS[name]()
    try:
        bit_generator.state = dict(state)
    except (TypeError, ValueError, KeyError, OverflowError) as error:
        raise invalid(what, f"bad generator state ({error})") from None
    return np.random.Generator(bit_generator)


def _check_pcg64_state(state: Mapping, what: str) -> None:
    check_keys(state, ("bit_generator", "state", "has_uint32", "uinteger"), what)
    inner = state["state"]
    if not isinstance(inner, Mapping):
        raise invalid(what, f"generator state must be a dict, got {describe(inner)}")
    check_keys(inner, ("state", "inc"), what)
    decode_int(inner["state"], f"{what} state", 0, 2**128 - 1)
    increment = decode_int(inner["inc"], f"{what} inc", 0, 2**128 - 1)
    if increment % 2 == 0:
        raise invalid(what, "a PCG64 increment is always odd")
    decode_int(state["has_uint32"], f"{what} has_uint32", 0, 1)
    decode_int(state["uinteger"], f"{what} uinteger", 0, 2**32 - 1)


# ----------------------------------------------------------------------------------------------
# Reading: state fields, against a template
# ----------------------------------------------------------------------------------------------

#: what a field of a template state is: ("array", dtype, shape), ("generator",), ("int",), ...
FieldSpec = tuple


def field_spec(value: Any) -> FieldSpec:
    """What a snapshot must hold for a field whose value in a fresh state is ``value``."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"state arrays must be bool, int or float, not {value.dtype}")
        return ("array", value.dtype, value.shape)
    if isinstance(value, np.random.Generator):
        return ("generator",)
    if isinstance(value, (bool, np.bool_)):
        return ("bool",)
    if isinstance(value, (int, np.integer)):
        return ("int",)
    if isinstance(value, (float, np.floating)):
        return ("float",)
    # Fields that are None (or anything else) in a fresh state would leave the snapshot reader
    # without a type to check against.
    raise TypeError(f"a state field cannot be restored from a {type(value).__name__}")


def decode_field(value: Any, spec: FieldSpec, what: str) -> Any:
    """The value of one state field from snapshot data, checked against its ``spec``."""
    kind = spec[0]
    if kind == "array":
        return decode_array(value, spec[1], spec[2], what)
    if kind == "generator":
        return decode_generator(value, what)
    if kind == "bool":
        if not isinstance(value, (bool, np.bool_)):
            raise invalid(what, f"expected true or false, got {describe(value)}")
        return bool(value)
    if kind == "int":
        return decode_int(value, what)
    return decode_number(value, what)


def decode_array(value: Any, dtype: np.dtype, shape: tuple[int, ...], what: str) -> np.ndarray:
    """An array of exactly ``dtype`` and ``shape`` whose values all fit that dtype (no silent
    rounding or wrapping, no ``true``/``false`` for numbers)."""
    if not isinstance(value, Mapping) or set(value) != {"__ndarray__", "dtype", "shape"}:
        raise invalid(what, f"expected an encoded array, got {describe(value)}")
    if value["dtype"] != dtype.str:
        raise invalid(what, f"dtype {describe(value['dtype'])}, expected {dtype.str!r}")
    given = value["shape"]
    is_shape = isinstance(given, (list, tuple)) and all(_is_int(size) for size in given)
    if not is_shape or list(given) != list(shape):
        if isinstance(given, (list, tuple)) and len(given) <= 8:
            shown = f"[{', '.join(describe(size) for size in given)}]"
        else:
            shown = describe(given)
        raise invalid(what, f"shape {shown}, expected {list(shape)}")
    values = _flat_values(value["__ndarray__"], shape, what)
    _check_values_fit(values, dtype, what)
    return np.array(values, dtype).reshape(shape)


def _is_int(value: Any) -> bool:
    """An integer, and not ``True``/``False`` (which Python counts as 1 and 0)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _flat_values(data: Any, shape: tuple[int, ...], what: str) -> list:
    """The values of nested lists of exactly ``shape``, in order. Read level by level, never
    recursively: no depth of nesting can exhaust Python's stack."""
    level = [data]
    for depth, size in enumerate(shape):
        items = []
        for item in level:
            if not isinstance(item, (list, tuple)) or len(item) != size:
                raise invalid(
                    what, f"data is not nested lists of shape {list(shape)} (at depth {depth})"
                )
            items.extend(item)
        level = items
    if any(isinstance(item, (list, tuple, Mapping)) for item in level):
        raise invalid(what, f"data is nested deeper than its shape {list(shape)}")
    return level


def _check_values_fit(values: list, dtype: np.dtype, what: str) -> None:
    if dtype.kind == "b":
        if not all(isinstance(v, (bool, np.bool_)) for v in values):
            raise invalid(what, "expected true/false values only")
        return
    numbers = (int, np.integer) if dtype.kind in "iu" else (int, float, np.integer, np.floating)
    for v in values:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers):
            kind = "integers" if dtype.kind in "iu" else "numbers"
            raise invalid(what, f"expected {kind}, got {describe(v)}")
    if not values:
        return
    if dtype.kind in "iu":
        limits = np.iinfo(dtype)
        if min(values) < limits.min or max(values) > limits.max:
            raise invalid(
                what, f"values {describe(min(values))}..{describe(max(values))} do not fit {dtype}"
            )
    else:
        largest = float(np.finfo(dtype).max)  # abs(nan) <= largest is False too
        if not all(abs(v) <= largest for v in values):
            raise invalid(what, f"expected finite numbers that fit {dtype}")
