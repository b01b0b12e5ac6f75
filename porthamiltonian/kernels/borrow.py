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

Kernels borrow their own arguments the same way (`record`): the caller holds them for the
call, so a kernel that returns nothing made of them may read them without counting; and
views of their own work arrays (`span`, `item`) while those are used later in the function
(numba frees a local after its last use: a local whose last use is the borrowing would be
freed under the view).

`local` is the scratch array of a fixed size that no one else holds: on the stack of the
function (LLVM's ``alloca``), neither allocated nor counted, valid until the function returns;
the rule is the same (return nothing made of it).

The four are numba overloads, compiled into their callers (an intrinsic's few instructions:
no cache entry of their own, nothing for ``porthamiltonian warmup`` to build).

Called from Python (and with numba's JIT disabled), `span` is the plain slice, `record`
the tuple itself and `local` a new array.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core import cgutils
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


@overload(span)
def _span_overload(a, start, stop):
    if isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C":
        return lambda a, start, stop: _span(a, start, stop)
    return None


def item(a, i):
    """``a[i]`` of a C-contiguous array of 2 or more dimensions (a matrix of a stack, a row),
    borrowed in compiled code (module docstring). ``0 <= i < a.shape[0]`` is the caller's."""
    return a[i]


@intrinsic
def _item(typingctx, a, i):
    if not (isinstance(a, types.Array) and a.ndim >= 2 and a.layout == "C"):
        return None
    rt = a.copy(ndim=a.ndim - 1)

    def codegen(context, builder, sig, args):
        src = make_array(a)(context, builder, args[0])
        k = context.cast(builder, args[1], sig.args[1], types.intp)
        shape = cgutils.unpack_tuple(builder, src.shape)
        strides = cgutils.unpack_tuple(builder, src.strides)
        out = make_array(rt)(context, builder)
        data = cgutils.pointer_add(builder, src.data, builder.mul(k, strides[0]))
        populate_array(out, data=builder.bitcast(data, src.data.type), shape=shape[1:], strides=strides[1:],
                       itemsize=src.itemsize, meminfo=None)
        return out._getvalue()

    return rt(a, i), codegen


@overload(item)
def _item_overload(a, i):
    if isinstance(a, types.Array) and a.ndim >= 2 and a.layout == "C":
        return lambda a, i: _item(a, i)
    return None


def record(values):
    """The tuple `values` with each of its arrays borrowed (module docstring) in compiled code:
    a kernel's view of a shared record or an inputs tuple it was given, which it reads in
    branches (each read there an atomic count otherwise) and returns no part of."""
    return values


def _borrowed(context, builder, ty, value):
    src = make_array(ty)(context, builder, value)
    out = make_array(ty)(context, builder)
    populate_array(out, data=src.data, shape=cgutils.unpack_tuple(builder, src.shape),
                   strides=cgutils.unpack_tuple(builder, src.strides), itemsize=src.itemsize, meminfo=None)
    return out._getvalue()


@intrinsic
def _record(typingctx, values):
    if not isinstance(values, types.BaseTuple):
        return None

    def codegen(context, builder, sig, args):
        items = [_borrowed(context, builder, ty, builder.extract_value(args[0], k))
                 if isinstance(ty, types.Array) else builder.extract_value(args[0], k)
                 for k, ty in enumerate(values.types)]
        return context.make_tuple(builder, values, items)

    return values(values), codegen


@overload(record)
def _record_overload(values):
    if isinstance(values, types.BaseTuple):
        return lambda values: _record(values)
    return None


def local(rows, cols=0):
    """A scratch array of float64 on the compiled function's stack (module docstring): shape
    ``(rows,)``, or ``(rows, cols)`` with `cols` > 0; both literal integers. Its values are
    undefined until written. From Python, `numpy.empty` of that shape."""
    return np.empty(rows) if cols == 0 else np.empty((rows, cols))


@intrinsic
def _local(typingctx, rows, cols):
    if not (isinstance(rows, types.IntegerLiteral) and isinstance(cols, types.IntegerLiteral)):
        return None
    shape = (rows.literal_value,) if cols.literal_value == 0 else (rows.literal_value, cols.literal_value)
    if not all(k > 0 for k in shape):
        return None
    rt = types.Array(types.float64, len(shape), "C")

    def codegen(context, builder, sig, args):
        size = 1
        for k in shape:
            size *= k
        data = cgutils.alloca_once(builder, context.get_value_type(types.float64), size=size)
        itemsize = context.get_abi_sizeof(context.get_value_type(types.float64))
        strides = (itemsize,) if len(shape) == 1 else (shape[1] * itemsize, itemsize)
        out = make_array(rt)(context, builder)
        populate_array(out, data=data, shape=[context.get_constant(types.intp, k) for k in shape],
                       strides=[context.get_constant(types.intp, k) for k in strides], itemsize=itemsize,
                       meminfo=None)
        return out._getvalue()

    return rt(rows, cols), codegen


@overload(local, prefer_literal=True)
def _local_overload(rows, cols=0):
    return lambda rows, cols=0: _local(rows, cols)
