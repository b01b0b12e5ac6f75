"""Validation helpers for the API boundary (never called on the hot path)."""

from __future__ import annotations

import numpy as np

from .errors import ParameterError

__all__ = ["as_array", "as_finite_float", "as_spd", "as_symmetric_psd", "as_rotation", "is_real_scalar"]


def is_real_scalar(value):
    """True for a Python or numpy real number (int, float, np.integer, np.floating), or a 0-d
    real array; False for bools (Python and numpy), strings, complex numbers and everything else."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (int, float, np.integer, np.floating)):
        return True
    return isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf"


def as_array(value, name, shape=None, *, dtype=float):
    """Return `value` as a finite float array, checking its shape.

    `shape` may contain None for a free axis. Raises ParameterError naming `name`. With the
    default float dtype, strings and booleans are refused (numpy would convert "2" or True).
    """
    if dtype is float:
        try:
            raw = np.asarray(value)
        except (TypeError, ValueError):
            raw = None  # ragged: reported below by the conversion
        if raw is not None and raw.dtype.kind in "USb":
            kind = "booleans" if raw.dtype.kind == "b" else "strings"
            raise ParameterError(f"`{name}` must be numeric, got {value!r} ({kind} are not numbers)")
    try:
        arr = np.array(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"`{name}` must be numeric, got {value!r} ({exc})") from None
    if shape is not None:
        ok = arr.ndim == len(shape) and all(s is None or s == a for s, a in zip(shape, arr.shape))
        if not ok:
            want = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
            raise ParameterError(f"`{name}` must have shape {want}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError(f"`{name}` must be finite, got {value!r}")
    return arr


def as_finite_float(value, name, *, positive=False, nonnegative=False):
    """Return `value` as a finite float; optionally require > 0 or >= 0.

    Accepts Python and numpy real numbers (and 0-d arrays and other objects with `__float__`);
    refuses booleans and strings, which `float()` would convert silently.
    """
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise ParameterError(f"`{name}` must be a real number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"`{name}` must be a real number, got {value!r}") from None
    if not np.isfinite(x):
        raise ParameterError(f"`{name}` must be finite, got {value!r}")
    if positive and not x > 0:
        raise ParameterError(f"`{name}` must be > 0, got {x!r}")
    if nonnegative and not x >= 0:
        raise ParameterError(f"`{name}` must be >= 0, got {x!r}")
    return x


def as_symmetric_psd(value, name, n=None, *, definite=False, rtol=1e-10, scale=0.0, scale_name=None):
    """Return a symmetric positive (semi)definite matrix; scalars mean multiples of identity.

    The tests are relative, so their verdict does not depend on the units (a 1 g body in SI is
    judged as a 1000 g body in grams): symmetric means every entry of ``A - A^T`` is within
    ``rtol * max|A_ij|``; an eigenvalue is negative (or, when `definite`, not positive) when it
    is below ``-rtol * s`` (or not above ``rtol * s``), with ``s = max(max|eig|, scale)``.
    ``rtol * max|eig|`` is about 1e5 times the round-off of the computed eigenvalues
    (``~ 3 eps max|eig|``), so a matrix accepted as definite has its smallest eigenvalue known
    to about 1e-5 relative and one refused is singular to within a few digits.

    Parameters
    ----------
    value : array_like, shape (n, n) or (n,) or scalar
        The matrix; a vector means a diagonal matrix, a scalar that multiple of the identity.
    name : str
        The argument's name, for the error messages.
    n : int, optional
        The required size.
    definite : bool
        Require positive definite rather than semidefinite.
    rtol : float
        The relative tolerance above.
    scale : float
        A further scale of the eigenvalues, in the matrix's units, for a matrix that is
        combined with larger terms (a body's inertia with m |c|^2 in its spatial inertia): an
        eigenvalue lost in the round-off of those terms counts as zero.
    scale_name : str, optional
        What `scale` is, for the error message.

    Raises
    ------
    ParameterError
        When not square, not symmetric, or with a negative (or, when `definite`, non-positive)
        eigenvalue; the message names `name`, the value and the rule.
    """
    arr = as_array(value, name)
    if arr.ndim == 0:
        if n is None:
            n = 1
        arr = arr * np.eye(n)
    elif arr.ndim == 1 and n is not None and arr.shape == (n,):
        arr = np.diag(arr)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or (n is not None and arr.shape[0] != n):
        want = f"({n}, {n})" if n is not None else "(n, n)"
        raise ParameterError(f"`{name}` must be a square matrix of shape {want}, got shape {arr.shape}")
    if not arr.size:
        return arr
    if not np.allclose(arr, arr.T, rtol=0.0, atol=rtol * float(np.max(np.abs(arr)))):
        raise ParameterError(f"`{name}` must be symmetric, got {arr.tolist()}")
    arr = 0.5 * (arr + arr.T)
    eig = np.linalg.eigvalsh(arr)
    largest = float(np.max(np.abs(eig)))
    s, what = (largest, "its largest |eigenvalue|") if largest >= scale else (scale, scale_name or "the scale")
    tol = rtol * s
    if definite and eig.min() <= tol:
        raise ParameterError(
            f"`{name}` must be positive definite, got smallest eigenvalue {eig.min():.6g}, "
            f"not above {rtol:g} x {s:.6g} ({what}): it is singular to round-off"
        )
    if eig.min() < -tol:
        raise ParameterError(f"`{name}` must be positive semidefinite, got eigenvalue {eig.min():.6g}")
    return arr


def as_spd(value, name, n=None, **kwargs):
    """Return a symmetric positive definite matrix (see `as_symmetric_psd`)."""
    return as_symmetric_psd(value, name, n, definite=True, **kwargs)


def as_rotation(value, name, *, tol=1e-9):
    """Return a 3x3 rotation matrix, checking orthogonality (to `tol`) and det = +1."""
    R = as_array(value, name, (3, 3))
    err = np.max(np.abs(R.T @ R - np.eye(3)))
    if err > tol or np.linalg.det(R) <= 0:
        raise ParameterError(
            f"`{name}` must be a rotation matrix (R^T R = I to {tol:g}, det R = +1); "
            f"got orthogonality error {err:.3g} and det {np.linalg.det(R):.6g}"
        )
    return R
