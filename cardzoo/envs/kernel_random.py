"""The kernels' random numbers: numpy's own generator, bit for bit, and a fast one for playouts.

A kernel (:mod:`cardzoo.envs.kernels`) draws from a generator held in a small int64 array (or
list) of :data:`SIZE` numbers, of one of two kinds:

- :data:`NUMPY`: ``numpy.random.Generator(PCG64)`` reproduced exactly, so that a game played by
  a kernel deals and reshuffles the very cards the numpy engine deals for the same seed. Its
  128-bit state is kept in 16-bit limbs (least significant first), so every product fits in an
  int64 and the plain Python copy gives the same numbers as the compiled one. :func:`seed_numpy`
  seeds it as ``numpy.random.default_rng(seed)`` does (``SeedSequence``, then PCG64's
  initialisation); :func:`below` draws as numpy's ``random_interval`` (the draw of
  ``Generator.shuffle`` and ``Generator.permutation``); :func:`integers` draws as
  ``Generator.integers(count)`` (Lemire's method: the draw of ``integers`` and ``choice``);
  :func:`next_seed` is ``Generator.integers(2**63)``; :func:`numpy_state` and
  :func:`set_numpy_state` convert to and from ``bit_generator.state``.
- :data:`XORSHIFT`: xorshift32, cheap, for the search playouts, which need many numbers and no
  particular stream.

A third kind, :data:`WAITING`, stands for a numpy generator held elsewhere and not loaded yet: an
engine that steps one game on its kernel (:mod:`cardzoo.envs.packed`) loads the game's own
``numpy.random.Generator`` only for the rare step that draws (a deal, a reshuffle). A draw from a
waiting generator gives 0 and turns it into :data:`MISSED`; the engine then undoes the step and
runs it again with the generator loaded. **Decision:** in plain Python, 128-bit arithmetic on
16-bit limbs costs about 15 microseconds a number (a deal, a millisecond), so a plain engine
(one game, :mod:`cardzoo.envs.packed`, or many, :mod:`cardzoo.envs.batch`) passes the
``numpy.random.Generator`` itself, and the plain copy's :func:`shuffle`, :func:`integers`,
:func:`next_seed` and :func:`seed_numpy` let numpy draw with it (or seed it): the very draws
(the tests hold both to numpy), at C speed. numpy's ``random_interval`` (the draw of
:func:`below`) is not public, but its bit generator's ``next_uint32`` is, through ``ctypes``:
the plain :func:`below` runs :func:`interval`'s few lines of rejection on it (a tenth of the
emulation's cost).

:func:`shuffle` is numpy's Fisher-Yates for either kind. **Decision:** the generator reproduces
numpy's published algorithms (``SeedSequence``, PCG64, ``random_interval``, Lemire's bounded
integers); the tests hold it
equal to numpy on many seeds. Numba's on-disk cache does not notice a change in this module from
a kernel that calls it: a change here (there is no reason for one while numpy keeps its streams)
needs the cached kernels cleared (``__pycache__/*.nbi``, ``*.nbc``); the tests that compare
compiled and plain kernels would show stale ones.
"""

import numpy

from cardzoo.envs.kernels import kernel_jit

#: PLAIN: True in the copy loaded as plain Python (see :mod:`cardzoo.envs.kernels`; compiled, its
#: functions take ``kernels.COMPILE_OPTIONS`` as every kernel's do)
PLAIN, jit = kernel_jit(__name__)

# The generator array: its kind, xorshift's state, PCG64's state and increment (8 limbs of 16
# bits each, least significant first), numpy's buffered half of a 64-bit draw, and room for
# seeding.
KIND, XORSHIFT_STATE, STATE, INC, HAS_UINT32, UINTEGER, WORK = 0, 1, 2, 10, 18, 19, 20
SIZE = 28
XORSHIFT, NUMPY, WAITING, MISSED = 0, 1, 2, 3

M16, M32 = 0xFFFF, 0xFFFFFFFF
#: PCG64's multiplier 0x2360ED051FC65DA44385DF649FCCF645 in 16-bit limbs, least significant first
MULTIPLIER = (0xF645, 0x9FCC, 0xDF64, 0x4385, 0x5DA4, 0x1FC6, 0xED05, 0x2360)
# SeedSequence's hashing constants
INIT_A, MULT_A, INIT_B, MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
MIX_MULT_L, MIX_MULT_R = 0xCA01F9DD, 0x4973F715
POOL_SIZE = 4


# --- xorshift32 ---------------------------------------------------------------------------------


@jit
def seed_xorshift(rng, seed):
    """A xorshift32 generator from ``seed`` (1 .. 2**32 - 1)."""
    rng[KIND] = XORSHIFT
    rng[XORSHIFT_STATE] = seed


@jit
def next_xorshift(rng):
    x = rng[XORSHIFT_STATE]
    x ^= (x << 13) & M32
    x ^= x >> 17
    x ^= (x << 5) & M32
    rng[XORSHIFT_STATE] = x
    return x


# --- numpy's PCG64 ------------------------------------------------------------------------------


@jit
def pcg_step(rng):
    """state = state * MULTIPLIER + inc (mod 2**128)."""
    # Column sums of the product first, from the top: column c needs the old limbs 0..c only.
    for column in range(7, -1, -1):
        total = 0
        for limb in range(column + 1):
            total += rng[STATE + limb] * MULTIPLIER[column - limb]
        rng[STATE + column] = total
    carry = 0
    for limb in range(8):
        total = rng[STATE + limb] + rng[INC + limb] + carry
        rng[STATE + limb] = total & M16
        carry = total >> 16


@jit
def next_halves(rng):
    """The next 64-bit output of PCG64 (XSL-RR) as its (high, low) 32-bit halves."""
    pcg_step(rng)
    low = (rng[STATE] ^ rng[STATE + 4]) | ((rng[STATE + 1] ^ rng[STATE + 5]) << 16)
    high = (rng[STATE + 2] ^ rng[STATE + 6]) | ((rng[STATE + 3] ^ rng[STATE + 7]) << 16)
    rotation = rng[STATE + 7] >> 10  # the state's top 6 bits
    if rotation >= 32:
        low, high = high, low
        rotation -= 32
    if rotation > 0:
        low, high = (
            ((low >> rotation) | (high << (32 - rotation))) & M32,
            ((high >> rotation) | (low << (32 - rotation))) & M32,
        )
    return high, low


@jit
def next_uint32(rng):
    """numpy's ``next_uint32``: the low half of a 64-bit output, its high half the next time."""
    if rng[HAS_UINT32]:
        rng[HAS_UINT32] = 0
        return rng[UINTEGER]
    high, low = next_halves(rng)
    rng[HAS_UINT32] = 1
    rng[UINTEGER] = high
    return low


@jit
def interval(rng, largest):
    """numpy's ``random_interval``: uniform in 0..largest (< 2**32) by masked rejection."""
    if largest == 0:
        return 0
    mask = largest
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    value = next_uint32(rng) & mask
    while value > largest:
        value = next_uint32(rng) & mask
    return value


@jit
def lemire(rng, count):
    """numpy's ``buffered_bounded_lemire_uint32``: uniform in 0..count-1 (1 < count < 2**32),
    the high half of a 32-bit draw times ``count``, drawn again while the low half falls below
    ``(2**32 - count) % count``. The 64-bit product is taken in 16-bit pieces, so that no product
    leaves an int64."""
    threshold = -1  # worked out at the first low half below count only, as numpy does
    while True:
        draw = next_uint32(rng)
        low, high = (draw & M16) * count, (draw >> 16) * count
        leftover = (low + ((high & M16) << 16)) & M32
        if leftover >= count:
            break
        if threshold < 0:
            threshold = (M32 + 1 - count) % count
        if leftover >= threshold:
            break
    return ((low >> 16) + high) >> 16


@jit
def next_seed(rng):
    """``Generator.integers(2**63)`` (Lemire's method with a power of two: the top 63 bits)."""
    high, low = next_halves(rng)
    return (high << 31) | (low >> 1)


# --- seeding as numpy.random.default_rng(seed) -------------------------------------------------


@jit
def times(a, b):
    """a * b mod 2**32, in 16-bit pieces so that no product leaves an int64."""
    return (a * (b & M16) + ((a * (b >> 16)) & M16) * 65536) & M32


@jit
def hashmix(value, hash_const):
    """SeedSequence's hashmix: the mixed value and the next hash constant."""
    value ^= hash_const
    hash_const = times(hash_const, MULT_A)
    value = times(value, hash_const)
    return value ^ (value >> 16), hash_const


@jit
def mix(x, y):
    result = (times(MIX_MULT_L, x) - times(MIX_MULT_R, y)) & M32
    return result ^ (result >> 16)


@jit
def set_limbs(rng, start, high_word_high, high_word_low, low_word_high, low_word_low):
    """Limbs start..start+7 from a 128-bit number given as four 32-bit words, highest first."""
    words = (low_word_low, low_word_high, high_word_low, high_word_high)
    for index in range(4):
        rng[start + 2 * index] = words[index] & M16
        rng[start + 2 * index + 1] = words[index] >> 16


@jit
def seed_numpy(rng, seed):
    """The generator of ``numpy.random.default_rng(seed)``, ``seed`` in 0 .. 2**63 - 1."""
    pool = WORK  # SeedSequence's pool of four 32-bit words
    entropy_low, entropy_high = seed & M32, seed >> 32
    entropy_size = 2 if entropy_high else 1
    hash_const = INIT_A
    for index in range(POOL_SIZE):
        word = entropy_low if index == 0 else (entropy_high if index < entropy_size else 0)
        rng[pool + index], hash_const = hashmix(word, hash_const)
    for source in range(POOL_SIZE):
        for target in range(POOL_SIZE):
            if source != target:
                hashed, hash_const = hashmix(rng[pool + source], hash_const)
                rng[pool + target] = mix(rng[pool + target], hashed)
    # generate_state(4, uint64): eight 32-bit words, two per uint64, low word first.
    words = WORK + POOL_SIZE
    hash_const = INIT_B
    for index in range(8):
        value = rng[pool + index % POOL_SIZE] ^ hash_const
        hash_const = times(hash_const, MULT_B)
        value = times(value, hash_const)
        value ^= value >> 16
        if index < POOL_SIZE:
            rng[words + index] = value
        else:  # the pool is read again: the last four words reuse its slots once read
            rng[pool + index - POOL_SIZE] = value
    # words: seed[0] low, high, seed[1] low, high; pool: inc[0] low, high, inc[1] low, high.
    # PCG64: state 0, inc = (inc << 1) | 1, step, state += seed, step.
    set_limbs(rng, INC, rng[pool + 1], rng[pool], rng[pool + 3], rng[pool + 2])
    carry = 1
    for limb in range(8):
        doubled = rng[INC + limb] * 2 + carry
        rng[INC + limb] = doubled & M16
        carry = doubled >> 16
    for limb in range(8):
        rng[STATE + limb] = 0
    pcg_step(rng)
    set_limbs(rng, WORK, rng[words + 1], rng[words], rng[words + 3], rng[words + 2])
    carry = 0
    for limb in range(8):
        total = rng[STATE + limb] + rng[WORK + limb] + carry
        rng[STATE + limb] = total & M16
        carry = total >> 16
    pcg_step(rng)
    rng[KIND] = NUMPY
    rng[HAS_UINT32] = 0
    rng[UINTEGER] = 0


# --- either kind --------------------------------------------------------------------------------


@jit
def below(rng, count):
    """A number in 0..count-1 (count >= 1): numpy's draw, or xorshift's high bits (its low bits
    are the weak ones); 0 from a generator not loaded (:data:`WAITING`), which is then
    :data:`MISSED`."""
    kind = rng[KIND]
    if kind == NUMPY:
        return interval(rng, count - 1)
    if kind == XORSHIFT:
        return (next_xorshift(rng) * count) >> 32
    rng[KIND] = MISSED
    return 0


@jit
def integers(rng, count):
    """A number in 0..count-1 (1 <= count <= 2**32): ``Generator.integers(count)`` of numpy's
    generator, :func:`below` for the other kinds; 0 for count 1, drawing nothing (as numpy)."""
    if count == 1:
        return 0
    if rng[KIND] != NUMPY:
        return below(rng, count)
    if count == M32 + 1:
        return next_uint32(rng)
    return lemire(rng, count)


@jit
def shuffle(values, start, size, rng):
    """``values[start:start + size]`` shuffled in place as numpy's ``Generator.shuffle`` does."""
    for i in range(size - 1, 0, -1):
        j = below(rng, i + 1)
        values[start + i], values[start + j] = values[start + j], values[start + i]


_shuffle_as_written = shuffle


def _plain_shuffle(values, start, size, rng):
    """:func:`shuffle` as the plain copy runs it: given a ``numpy.random.Generator`` itself, its
    own Fisher-Yates, which draws what :func:`shuffle` draws from the same generator."""
    if hasattr(rng, "bit_generator"):
        values[start : start + size] = rng.permutation(values[start : start + size]).tolist()
    else:
        _shuffle_as_written(values, start, size, rng)


_integers_as_written = integers


def _plain_integers(rng, count):
    """:func:`integers` as the plain copy runs it: given a ``numpy.random.Generator`` itself,
    its own ``integers`` (the very draw)."""
    if hasattr(rng, "bit_generator"):
        return int(rng.integers(count))
    return _integers_as_written(rng, count)


_below_as_written = below


def _plain_below(rng, count):
    """:func:`below` as the plain copy runs it: given a ``numpy.random.Generator`` itself,
    :func:`interval`'s masked rejection on numpy's own ``next_uint32``, called through its bit
    generator's ``ctypes`` interface (a C call of a few hundred nanoseconds, where the
    emulation takes microseconds): the very draws, the buffered half included."""
    if not hasattr(rng, "bit_generator"):
        return _below_as_written(rng, count)
    largest = int(count) - 1
    if largest == 0:
        return 0
    mask = (1 << largest.bit_length()) - 1
    bits = rng.bit_generator.ctypes
    draw, state = bits.next_uint32, bits.state
    value = draw(state) & mask
    while value > largest:
        value = draw(state) & mask
    return value


_next_seed_as_written = next_seed


def _plain_next_seed(rng):
    """:func:`next_seed` as the plain copy runs it: given a ``numpy.random.Generator`` itself,
    its own ``integers(2**63)`` (the very draw)."""
    if hasattr(rng, "bit_generator"):
        return int(rng.integers(2**63))
    return _next_seed_as_written(rng)


_seed_numpy_as_written = seed_numpy


def _plain_seed_numpy(rng, seed):
    """:func:`seed_numpy` as the plain copy runs it: a ``numpy.random.Generator`` given itself is
    moved to the state of ``numpy.random.default_rng(seed)`` (numpy seeds it, at C speed)."""
    if hasattr(rng, "bit_generator"):
        rng.bit_generator.state = numpy.random.PCG64(seed).state
    else:
        _seed_numpy_as_written(rng, seed)


if PLAIN:
    below = _plain_below
    shuffle = _plain_shuffle
    integers = _plain_integers
    next_seed = _plain_next_seed
    seed_numpy = _plain_seed_numpy


# --- numpy's state, for the engines and the tests (plain Python only) ---------------------------


def numpy_state(rng) -> dict:
    """``bit_generator.state`` of a :data:`NUMPY` generator (give it to a ``PCG64``)."""
    state = sum(int(rng[STATE + limb]) << (16 * limb) for limb in range(8))
    inc = sum(int(rng[INC + limb]) << (16 * limb) for limb in range(8))
    return {
        "bit_generator": "PCG64",
        "state": {"state": state, "inc": inc},
        "has_uint32": int(rng[HAS_UINT32]),
        "uinteger": int(rng[UINTEGER]),
    }


def set_numpy_state(rng, state: dict) -> None:
    """Make ``rng`` the :data:`NUMPY` generator at ``state`` (a PCG64 ``bit_generator.state``)."""
    if state.get("bit_generator") != "PCG64":
        raise ValueError(f"a PCG64 state is needed, got {state.get('bit_generator')!r}")
    for limb in range(8):
        rng[STATE + limb] = (state["state"]["state"] >> (16 * limb)) & M16
        rng[INC + limb] = (state["state"]["inc"] >> (16 * limb)) & M16
    rng[KIND] = NUMPY
    rng[HAS_UINT32] = state["has_uint32"]
    rng[UINTEGER] = state["uinteger"]
