"""The kernels' copies of runs of numbers, fast in both of a kernel's forms.

A kernel (:mod:`cardzoo.envs.kernels`) copies runs of a packed row into an observation vector, or
within the row. Written as slices, one source line does it, and plain Python copies a slice in
one step; but numba compiles a slice assignment between arrays into a general routine, about
three times slower than a loop. So the kernels call these functions, which have one meaning
and a body for each form: compiled, a loop over views, inlined into the kernel that calls it;
plain, the slice assignment.

**Decision:** these functions are as stable as the slices they stand for. Numba's on-disk cache
does not notice a change in this module from a kernel that calls it (as for
:mod:`cardzoo.envs.kernel_random`): a change here needs the cached kernels cleared
(``__pycache__/*.nbi``, ``*.nbc``).
"""

from cardzoo.envs.kernels import kernel_jit

#: PLAIN: True in the copy loaded as plain Python (see :mod:`cardzoo.envs.kernels`)
PLAIN, jit = kernel_jit(__name__)

if PLAIN:

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

else:
    from cardzoo.envs.kernels import numba

    # Inlined into the kernel that calls them (numba's own inlining: a call to another compiled
    # function costs about 7 ns, as much as copying a dozen numbers), and each loop over views
    # indexed from 0, which the compiler vectorises: an index into the row counted from a
    # runtime start might be negative, and its wraparound check kept the loop scalar (a Minus
    # Two observation took 150 ns with such loops called, 64 ns with these).
    inlined = numba.njit(cache=True, inline="always")

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
