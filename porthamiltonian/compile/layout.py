"""StateLayout: names of the entries of the flat state vector.

The state vector x of a compiled system is the concatenation of every element's own state
blocks (in element order), followed by the energy-ledger quadratures (the integrals of
supplied, dissipated and stabilization power, integrated with the state so that the energy
balance is exact to the integration tolerance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ModelError, ParameterError

__all__ = ["StateLayout", "BlockInfo", "LedgerEntry"]


@dataclass(frozen=True)
class BlockInfo:
    """One block of the state vector: owner path, block name, slice, kind, group."""

    element: str
    name: str
    start: int
    stop: int
    kind: str
    group: str

    @property
    def key(self):
        """"element.block" (the name used by `StateLayout` lookups)."""
        return f"{self.element}.{self.name}"

    @property
    def slice(self):
        return slice(self.start, self.stop)


@dataclass(frozen=True)
class LedgerEntry:
    """A ledger quadrature: the integral of one element's power of one kind.

    kind is "supplied" (energy put in by a source or a rheonomic constraint), "dissipated"
    (by a resistor), "stabilization" (absorbed by constraint stabilization/drift), or "lost"
    (removed at the element's events: impacts, contact release, mode switches; this entry has
    zero rate and jumps at events).
    """

    element: str
    kind: str
    index: int


class StateLayout:
    """Names -> slices of the flat state vector.

    Attributes
    ----------
    blocks : tuple of BlockInfo
        Element state blocks in order.
    ledger : tuple of LedgerEntry
        Ledger quadratures, stored at ``x[n_physical:]``.
    size : int
        Total size of x.
    n_physical : int
        Size of the physical part (without the ledger quadratures).
    """

    def __init__(self, blocks, ledger):
        self.blocks = tuple(blocks)
        self.n_physical = self.blocks[-1].stop if self.blocks else 0
        self.ledger = tuple(ledger)
        self.size = self.n_physical + len(self.ledger)
        self._by_key = {b.key: b for b in self.blocks}
        self._by_element: dict[str, list[BlockInfo]] = {}
        for b in self.blocks:
            self._by_element.setdefault(b.element, []).append(b)

    def __getitem__(self, key):
        """Slice of "element.block", or of all blocks of "element"."""
        if key in self._by_key:
            return self._by_key[key].slice
        if key in self._by_element:
            bl = self._by_element[key]
            return slice(bl[0].start, bl[-1].stop)
        import difflib

        element = key.rsplit(".", 1)[0]
        if element in self._by_element:  # right element, wrong block: list its blocks
            own = [b.key for b in self._by_element[element]]
            close = difflib.get_close_matches(key, own, n=1) or own[:1]
        else:
            close = difflib.get_close_matches(key, list(self._by_key) + list(self._by_element), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ModelError(f"the state has no block {key!r}{hint}; blocks are {list(self._by_key)}")

    def __contains__(self, key):
        return key in self._by_key or key in self._by_element

    def element_slice(self, element):
        """Slice of an element's own state (empty slice if it has none)."""
        bl = self._by_element.get(element)
        if not bl:
            return slice(0, 0)
        return slice(bl[0].start, bl[-1].stop)

    def names(self):
        """Names of the entries of x, e.g. "m.p[0]", "ledger.R:b.dissipated"."""
        out = []
        for b in self.blocks:
            n = b.stop - b.start
            out += [f"{b.key}[{i}]" if n > 1 else b.key for i in range(n)]
        out += [f"ledger.{e.element}.{e.kind}" for e in self.ledger]
        return out

    def pack(self, values, base):
        """Return a copy of `base` with blocks overwritten from a mapping "element.block" -> value."""
        x = np.array(base, dtype=float)
        for key, val in values.items():
            sl = self[key]
            arr = np.atleast_1d(np.asarray(val, dtype=float)).reshape(-1)
            if arr.size != sl.stop - sl.start:
                raise ParameterError(
                    f"initial value for {key!r} must have {sl.stop - sl.start} entries, got {arr.size}"
                )
            if not np.all(np.isfinite(arr)):
                raise ParameterError(f"initial value for {key!r} must be finite, got {val!r}")
            x[sl] = arr
        return x

    def unpack(self, x):
        """Mapping "element.block" -> view of x (1-D x) or of its columns (2-D x, shape (n, T))."""
        x = np.asarray(x)
        return {b.key: x[b.start : b.stop] for b in self.blocks}

    def __repr__(self):
        parts = ", ".join(f"{b.key}:{b.start}:{b.stop}" for b in self.blocks)
        return f"StateLayout({parts}; ledger {len(self.ledger)})"
