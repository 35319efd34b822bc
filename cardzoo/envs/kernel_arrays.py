"""The kernels' runs of numbers (copied, filled, spelled out from bits), fast in both forms.

A kernel (:mod:`cardzoo.envs.kernels`) copies runs of a packed row into an observation vector, or
within the row, clears an observation or a mask, and writes legal actions given as bits out into
a mask, or lists them (:func:`set_bits_into`). Written as slices, one source line does each,
and plain Python runs a slice in one step; but numba compiles a slice assignment between arrays
into a general routine, about three times slower than a loop. So the kernels call these
functions, which have one meaning and a body for each form: compiled, a loop over views,
inlined into the kernel that calls it; plain, the slice assignment. The vector environments
check a whole batch's actions against their masks here too (:func:`first_illegal`: one
compiled loop, or a few numpy calls).

**Decision (masks kept in plain Python).** A mask depends on nothing but the legal actions'
bits (or a kernel's code of them), which repeat (Nobody Wants It and Believe It or Not meet a
few hundred; Minus Two's codes are many more, and its table starts again from none now and
then); spelling one out costs plain Python a microsecond or more (Minus Two's 293 actions,
several), copying a finished one a slice.
So the plain form of :func:`bits_into` (and of a kernel's own mask of a code, through
:func:`kept` and :func:`put_kept`) makes each mask once, keeps it as an int8 array and copies
it (into an array at C speed; the masks of the vector games are arrays); the compiled form
writes the bits out, which costs it less than a look-up. A single game on its kernel
(:class:`~cardzoo.envs.packed.KernelGame`, compiled or plain) keeps its masks through
:func:`kept` too: its own table, this module's limit.

**Decision:** these functions are as stable as the slices they stand for. Numba's on-disk cache
does not notice a change in this module from a kernel that calls it (as for
:mod:`cardzoo.envs.kernel_random`): a change here needs the cached kernels cleared
(``__pycache__/*.nbi``, ``*.nbc``).
"""

from cardzoo.envs.kernels import kernel_jit

#: PLAIN: True in the copy loaded as plain Python (see :mod:`cardzoo.envs.kernels`)
PLAIN, jit = kernel_jit(__name__)

if PLAIN:
    import numpy

    #: the runs :func:`kept` keeps in one table before it starts again from none
    KEPT = 20_000

    def copy_run(out, at, source, start, count):
        """``out[at : at + count] = source[start : start + count]`` (``out`` and ``source`` may
        be one array, the runs apart)."""
        out[at : at + count] = source[start : start + count]

    def copy_rotated(out, at, source, start, n, first):
        """The ``n`` numbers from ``source[start]`` into ``out[at:]``, from number ``first`` on
        and then those before it: a seat-relative field (``first``: the observer's seat)."""
        later = n - first
        out[at : at + later] = source[start + first : start + n]
        out[at + later : at + n] = source[start : start + first]

    def fill(out, at, count, value):
        """``out[at : at + count] = value``."""
        out[at : at + count] = [value] * count

    def bits_into(out, at, bits, count):
        """``out[at + a] = (bits >> a) & 1`` for each ``a < count`` (a mask from legal actions
        as bits); returns how many are 1."""
        found = _BIT_RUNS.get((bits, count))
        if found is None:
            found = kept(_BIT_RUNS, (bits, count), count, spell_out, bits)
        return put_kept(out, at, found)

    _BIT_RUNS: dict = {}

    def set_bits_into(out, bits):
        """The positions of the set bits of ``bits`` (>= 0) into ``out[0:]``, in increasing
        order (legal actions given as bits, listed); returns how many. Plain Python visits the
        set bits alone."""
        bits, count = int(bits), 0
        while bits:
            low = bits & -bits  # the lowest set bit
            out[count] = low.bit_length() - 1
            bits ^= low
            count += 1
        return count

    def spell_out(run, bits):
        """``run[a] = 1`` for each bit ``a`` of ``bits`` below ``len(run)``, into a zeroed
        array ``run``; returns how many there are (a writer for :func:`kept`; plain Python
        only): the set bits listed by :func:`set_bits_into`, only the 1s written."""
        positions = [0] * len(run)
        count = set_bits_into(positions, int(bits) & ((1 << len(run)) - 1))
        run[positions[:count]] = 1
        return count

    def kept(table, key, size, write, *args):
        """The run of ``size`` numbers that ``write(run, *args)`` writes into a zeroed int8
        array for ``key`` (returning a count), made at the first call for ``key`` and kept in
        ``table`` (up to :data:`KEPT` runs): ``(int8 array, count)`` (plain Python only).
        **Decision:** the writers write the 1s of a mask alone into an array of zeros; making
        the array from a list of every number cost Minus Two's engine a sixth of its speed."""
        found = table.get(key)
        if found is None:
            if len(table) >= KEPT:
                table.clear()
            run = numpy.zeros(size, numpy.int8)
            found = table[key] = (run, write(run, *args))
        return found

    def first_illegal(masks, actions, ignored):
        """The first game b whose ``actions[b]`` is not a 1 of ``masks[b]`` (out of range
        included) and is not ``ignored[b]``; -1 if there is none (the vector environments'
        check of a whole batch's actions)."""
        width = masks.shape[1]
        unsigned = actions.view(numpy.uint64)  # a negative action is above every width
        inside = numpy.minimum(unsigned, width - 1).view(numpy.int64)
        inside += numpy.arange(0, len(masks) * width, width)
        legal = masks.reshape(-1).take(inside) == 1
        legal &= unsigned < width
        bad = numpy.flatnonzero(~(legal | ignored))
        return int(bad[0]) if bad.size else -1

    def put_kept(out, at, found):
        """A run :func:`kept` into ``out[at:]`` (an array, or a list: a search's scratch);
        returns its count (plain Python only)."""
        run = found[0]
        out[at : at + len(run)] = run.tolist() if type(out) is list else run
        return found[1]

else:
    from cardzoo.envs.kernels import COMPILE_OPTIONS, numba

    # Inlined into the kernel that calls them (numba's own inlining: a call to another compiled
    # function costs about 7 ns, as much as copying a dozen numbers), and each loop over views
    # indexed from 0, which the compiler vectorises: an index into the row counted from a
    # runtime start might be negative, and its wraparound check kept the loop scalar (a Minus
    # Two observation took 150 ns with such loops called, 64 ns with these).
    inlined = numba.njit(inline="always", **COMPILE_OPTIONS)

    @inlined
    def copy_run(out, at, source, start, count):
        target, run = out[at : at + count], source[start : start + count]
        for index in range(count):
            target[index] = run[index]

    @inlined
    def copy_rotated(out, at, source, start, n, first):
        later = n - first
        copy_run(out, at, source, start + first, later)
        copy_run(out, at + later, source, start, first)

    @inlined
    def fill(out, at, count, value):
        target = out[at : at + count]
        for index in range(count):
            target[index] = value

    @inlined
    def set_bits_into(out, bits):
        count, position = 0, 0
        while bits:
            if bits & 1:
                out[count] = position
                count += 1
            bits >>= 1
            position += 1
        return count

    @inlined
    def bits_into(out, at, bits, count):
        target, total = out[at : at + count], 0
        for a in range(count):
            bit = (bits >> a) & 1
            target[a] = bit
            total += bit
        return total

    @numba.njit(**COMPILE_OPTIONS)
    def first_illegal(masks, actions, ignored):
        width = masks.shape[1]
        for b in range(len(actions)):
            action = actions[b]
            if ignored[b]:
                continue
            if action < 0 or action >= width or masks[b, action] != 1:
                return b
        return -1
