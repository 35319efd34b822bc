"""The kernels' copies of runs of numbers, fast in both of a kernel's forms.

A kernel (:mod:`cardzoo.envs.kernels`) copies runs of a packed row into an observation vector, or
within the row. Written as slices, one source line does it, and plain Python copies a slice in
one step; but numba compiles a slice assignment between arrays into a general routine, about
three times slower than a loop (a Minus Two observation, made of a dozen runs, took 170 ns
instead of about 60). So the kernels call these functions, which have one meaning and a body
for each form: compiled, a loop; plain, the slice assignment.

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

    @jit
    def copy_run(out, at, source, start, count):
        for index in range(count):
            out[at + index] = source[start + index]

    @jit
    def copy_rotated(out, at, source, start, n, first):
        later = n - first
        for index in range(later):
            out[at + index] = source[start + first + index]
        for index in range(first):
            out[at + later + index] = source[start + index]
