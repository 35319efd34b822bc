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
unexpected raises ``ValueError`` saying where.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

#: Version of the snapshot layout; bumped whenever a snapshot written before would be read wrong.
SNAPSHOT_FORMAT = 1

#: The only bit generators a snapshot may ask for (cardzoo itself uses PCG64 only).
BIT_GENERATORS: dict[str, type[np.random.BitGenerator]] = {"PCG64": np.random.PCG64}

_INT64 = (-(2**63), 2**63 - 1)


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
            snapshot = json.loads(snapshot)
        except (json.JSONDecodeError, RecursionError) as error:
            raise invalid(what, f"not JSON ({error})") from None
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
    unknown = sorted((key for key in data if key not in expected), key=repr)
    if missing or unknown:
        parts = [f"missing {missing}"] if missing else []
        parts += [f"unknown {unknown}"] if unknown else []
        raise invalid(what, f"keys {', '.join(parts)}; expected exactly {list(expected)}")


def check_format(data: Mapping, what: str) -> None:
    """``ValueError`` unless ``data["format"]`` is the version this code reads."""
    version = data.get("format")
    if type(version) is not int or version != SNAPSHOT_FORMAT:
        raise invalid(
            what,
            f"format {version!r}; this version of cardzoo reads snapshot format {SNAPSHOT_FORMAT}",
        )


def same_data(first: Any, second: Any) -> bool:
    """Whether two pieces of snapshot data are identical as JSON (``True`` differs from ``1``)."""
    try:
        return json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return False


def decode_int(value: Any, what: str, low: int = _INT64[0], high: int = _INT64[1]) -> int:
    """An integer (never a bool) in ``[low, high]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise invalid(what, f"expected an integer, got {value!r:.80}")
    if not low <= value <= high:
        raise invalid(what, f"{value} is out of range {low}..{high}")
    return int(value)


def decode_number(value: Any, what: str) -> float:
    """A finite int or float (never a bool)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise invalid(what, f"expected a number, got {value!r:.80}")
    if not math.isfinite(value):
        raise invalid(what, f"{value} is not a finite number")
    return float(value)


# ----------------------------------------------------------------------------------------------
# Reading: generators
# ----------------------------------------------------------------------------------------------


def decode_generator(value: Any, what: str) -> np.random.Generator:
    """The generator :func:`encode_generator` wrote. Only bit generators in
    :data:`BIT_GENERATORS` are rebuilt, from a state checked key by key."""
    if not isinstance(value, Mapping) or list(value) != ["__generator__"]:
        raise invalid(what, f"expected {{'__generator__': state}}, got {value!r:.80}")
    state = value["__generator__"]
    name = state.get("bit_generator") if isinstance(state, Mapping) else None
    if not isinstance(name, str) or name not in BIT_GENERATORS:
        raise invalid(
            what, f"bit generator {name!r:.80} is not allowed; allowed: {list(BIT_GENERATORS)}"
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
        raise invalid(what, f"generator state must be a dict, got {inner!r:.80}")
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
            raise invalid(what, f"expected true or false, got {value!r:.80}")
        return bool(value)
    if kind == "int":
        return decode_int(value, what)
    return decode_number(value, what)


def decode_array(value: Any, dtype: np.dtype, shape: tuple[int, ...], what: str) -> np.ndarray:
    """An array of exactly ``dtype`` and ``shape`` whose values all fit that dtype (no silent
    rounding or wrapping)."""
    if not isinstance(value, Mapping) or set(value) != {"__ndarray__", "dtype", "shape"}:
        raise invalid(what, f"expected an encoded array, got {value!r:.80}")
    if value["dtype"] != dtype.str:
        raise invalid(what, f"dtype {value['dtype']!r:.40}, expected {dtype.str!r}")
    if not isinstance(value["shape"], (list, tuple)) or list(value["shape"]) != list(shape):
        raise invalid(what, f"shape {value['shape']!r:.80}, expected {list(shape)}")
    try:
        raw = np.array(value["__ndarray__"])  # numpy infers the type from the values
    except (TypeError, ValueError, OverflowError, RecursionError) as error:
        raise invalid(what, f"array data ({error})") from None
    if raw.shape != shape:
        raise invalid(what, f"data of shape {list(raw.shape)}, expected {list(shape)}")
    if raw.size:
        _check_values_fit(raw, dtype, what)
    return raw.astype(dtype)


def _check_values_fit(raw: np.ndarray, dtype: np.dtype, what: str) -> None:
    if dtype.kind == "b":
        if raw.dtype.kind != "b":
            raise invalid(what, f"expected true/false values, got {raw.dtype} values")
        return
    if dtype.kind in "iu":
        if raw.dtype.kind not in "iu":
            raise invalid(what, f"expected integers, got {raw.dtype} values")
        limits = np.iinfo(dtype)
        if raw.min() < limits.min or raw.max() > limits.max:
            raise invalid(what, f"values {raw.min()}..{raw.max()} do not fit {dtype}")
        return
    if raw.dtype.kind not in "iuf" or not np.isfinite(raw.astype(np.float64)).all():
        raise invalid(what, f"expected finite numbers, got {raw.dtype} values")
