"""Frequency response and modal analysis of a linearized system (`Linearization`).

Frequencies are angular, in rad/s (divide by 2 pi for Hz); complex frequencies s in rad/s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError

__all__ = ["Mode", "modes", "transfer_function"]


@dataclass(frozen=True)
class Mode:
    """One eigenvalue of A with its shape.

    Attributes
    ----------
    eigenvalue : complex [1/s]
    natural_frequency : float [rad/s]
        |eigenvalue| (the undamped natural frequency of an underdamped pair).
    damped_frequency : float [rad/s]
        |Im(eigenvalue)|: the frequency of the free oscillation.
    damping_ratio : float
        -Re(eigenvalue) / |eigenvalue| (0 undamped, 1 critical, negative unstable); NaN for
        a zero eigenvalue (a rigid-body or neutral mode).
    shape : dict
        Tangent coordinate name -> complex amplitude (the eigenvector mapped to the tangent
        space by `Linearization.basis`), scaled so that its largest entry is 1.
    """

    eigenvalue: complex
    natural_frequency: float
    damped_frequency: float
    damping_ratio: float
    shape: dict


def modes(lin):
    """Eigenvalues and mode shapes of a `Linearization`, one per complex-conjugate pair.

    Parameters
    ----------
    lin : Linearization

    Returns
    -------
    list of Mode
        Eigenvalues with Im >= 0 (one of each conjugate pair; real ones once), sorted by
        natural frequency, then by real part.

    Notes
    -----
    Eigenvalues of A by LAPACK (`numpy.linalg.eig`). Zero eigenvalues of a system with
    cyclic coordinates (free translation, yaw of a body on a plane) come in Jordan blocks;
    finite differences split such a block into eigenvalues of size sqrt(round-off)
    (~1e-7 1/s), which are reported as they are.
    """
    w, vecs = np.linalg.eig(lin.A)
    out = []
    for k in np.lexsort((w.real, np.abs(w))):
        lam = complex(w[k])
        if lam.imag < 0:
            continue
        shape = lin.basis @ vecs[:, k]
        shape = shape / shape[np.argmax(np.abs(shape))]
        mag = abs(lam)
        out.append(Mode(lam, mag, abs(lam.imag), -lam.real / mag if mag > 0 else float("nan"),
                        dict(zip(lin.tangent_names, shape))))
    return out


def _select(names, wanted, what):
    if wanted is None:
        return list(range(len(names)))
    if isinstance(wanted, str):
        wanted = [wanted]
    out = []
    for name in wanted:
        if name not in names:
            hint = ""
            if what == "inputs":
                hint = (f"; the inputs are the sources declared as inputs: declare it with "
                        f"Se({name!r}, input=True) (an effort) or Sf({name!r}, input=True) (a flow)")
            raise ParameterError(f"`{what}` must name entries of {list(names)}, got {name!r}{hint}")
        out.append(names.index(name))
    return out


def transfer_function(system, s, inputs=None, outputs=None, *, t=0.0, x=None, u=None):
    """Transfer matrix G(s) = C (s I - A)^-1 B + D of a linearized system.

    Parameters
    ----------
    system : Linearization or PHSystem
        A `PHSystem` is linearized at (t, x, u) first (`PHSystem.linearize`).
    s : complex or array_like of complex, shape (k,) [rad/s]
        Complex frequencies; s = 1j * omega for the frequency response.
    inputs : str or list of str, optional
        Input names (`Linearization.input_names`: the paths of `system.inputs`, "path[i]"
        for the components of a multi-dimensional input); default all.
    outputs : str or list of str, optional
        Output names: a collocated output (named like its input: the conjugate variable,
        u . y the supplied power) or a tangent coordinate (`Linearization.tangent_names`,
        e.g. "m.p" or "body.pose.phi[1]"); default all collocated outputs.
    t, x, u : keyword-only
        The expansion point when `system` is a `PHSystem` (`x` required).

    Returns
    -------
    ndarray, shape (k, n_outputs, n_inputs), complex
        (shape (n_outputs, n_inputs) for a scalar s.)

    Raises
    ------
    ParameterError
        Unknown input or output names, non-finite s, `x` missing for a `PHSystem`, or s an
        eigenvalue of A (exactly singular s I - A; near an eigenvalue the response is large,
        as it should be).

    Examples
    --------
    >>> import porthamiltonian as ph
    >>> bg = ph.BondGraph("m")
    >>> import numpy as np
    >>> _ = bg.add(ph.Se("F", input=True), ph.Junction1("v"), ph.I("m", mass=2.0), ph.R("b", 0.5))
    >>> for a, b in (("F", "v"), ("v", "m"), ("v", "b")):
    ...     _ = bg.connect(a, b)
    >>> system = ph.compile(bg)
    >>> G = transfer_function(system, [1j, 2j], x=system.default_state())  # velocity / force
    >>> G.shape
    (2, 1, 1)
    >>> bool(np.allclose(G[:, 0, 0], 1 / (2.0 * np.array([1j, 2j]) + 0.5), rtol=1e-12, atol=0))  # 1/(m s + b)
    True
    """
    lin = system
    if callable(getattr(system, "linearize", None)):   # a PHSystem (a Linearization has no `linearize`)
        if x is None:
            raise ParameterError("`x` (the expansion point) is required when `system` is a PHSystem")
        lin = system.linearize(t, x, u)
    s_arr = np.asarray(s, dtype=complex)
    scalar = s_arr.ndim == 0
    s_arr = np.atleast_1d(s_arr)
    if s_arr.ndim != 1 or not np.all(np.isfinite(s_arr)):
        raise ParameterError(f"`s` must be a finite complex number or 1-D array, got shape {s_arr.shape}")
    cols = _select(list(lin.input_names), inputs, "inputs")
    B, D = lin.B[:, cols], lin.D[:, cols]
    rows_C, rows_D = [], []
    for name in (list(lin.output_names) if outputs is None else ([outputs] if isinstance(outputs, str) else outputs)):
        if name in lin.output_names:
            k = lin.output_names.index(name)
            rows_C.append(lin.C[k])
            rows_D.append(D[k])
        elif name in lin.tangent_names:
            rows_C.append(lin.basis[lin.tangent_names.index(name)])
            rows_D.append(np.zeros(len(cols)))
        else:
            raise ParameterError(f"`outputs` must name collocated outputs {list(lin.output_names)} or tangent "
                                 f"coordinates (e.g. {list(lin.tangent_names[:3])}), got {name!r}")
    C = np.array(rows_C).reshape(len(rows_C), lin.A.shape[0])
    Dm = np.array(rows_D).reshape(len(rows_C), len(cols))
    n = lin.A.shape[0]
    out = np.empty((s_arr.size, C.shape[0], len(cols)), dtype=complex)
    for i, sk in enumerate(s_arr):
        try:
            out[i] = C @ np.linalg.solve(sk * np.eye(n) - lin.A, B) + Dm
        except np.linalg.LinAlgError:
            raise ParameterError(f"`s` = {sk} is an eigenvalue of A: s I - A is singular") from None
    return out[0] if scalar else out
