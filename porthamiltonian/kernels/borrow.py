"""Borrowed views: array views in compiled code that hold no reference to their array's memory.

Why (issue 33, the Go1's right-hand side): numba counts the references to every array it
allocates, with an atomic increment or decrement each time a view is made, an array is passed
to a function that is not inlined (`porthamiltonian.kernels._njit.separate`) and used there in
a branch, returned, or put in a tuple. The Go1 on four compliant feet made 3,830 such counts
per evaluation of its right-hand side (1,750 increments, 2,080 decrements; counted with an
instrumented numba runtime), and `perf` put 53 % of the evaluation's time in numba's
``NRT_incref`` and ``NRT_decref``: about 5 ns each on the 2-core machine.

A view made here is numba's array with no memory-info pointer, as numba's own
``carray`` of a raw pointer: numba's reference counting skips it (``NRT_incref(NULL)``
returns at once), and so every view numba later takes of it. It is valid only while the
array it views is alive, and nothing keeps that array alive for it. The rule, therefore:
borrow only from an array that outlives every use of the view, which the generated
right-hand side guarantees by borrowing only from its own arguments (the state, the inputs
and the packed constants, which its caller holds for the whole call) and by returning no
borrowed array (everything it returns is allocated in it: `porthamiltonian.compile.jit`).

Called from Python (and with numba's JIT disabled), `span` is the plain slice.
"""

from __future__ import annotations

from numba import types
from numba.extending import intrinsic, overload
from numba.np.arrayobj import make_array, populate_array


def span(a, start, stop):
    """``a[start:stop]`` of a C-contiguous 1-D array, borrowed in compiled code (module
    docstring): the generated right-hand sides' slices of their arguments. The bounds are
    not checked: ``0 <= start <= stop <= a.shape[0]`` is the caller's (the generator's)."""
    return a[start:stop]


@intrinsic
def _span(typingctx, a, start, stop):
    if not (isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C"):
        return None

    def codegen(context, builder, sig, args):
        src = make_array(a)(context, builder, args[0])
        lo = context.cast(builder, args[1], sig.args[1], types.intp)
        hi = context.cast(builder, args[2], sig.args[2], types.intp)
        out = make_array(a)(context, builder)
        populate_array(out, data=builder.gep(src.data, [lo]), shape=[builder.sub(hi, lo)],
                       strides=[src.itemsize], itemsize=src.itemsize, meminfo=None)
        return out._getvalue()

    return a(a, start, stop), codegen


@overload(span, jit_options={"cache": True})
def _span_overload(a, start, stop):
    if isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C":
        return lambda a, start, stop: _span(a, start, stop)
    return None

