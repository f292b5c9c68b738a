"""Rows of one segment grouped by a 16-bit key, made once at the load: a term's first use looks its rows up.

Why it exists: without it a term's first use asks every segment's forms
with a pass over all of them, a cost that follows the store's size
whatever the term's matches. Grouping each segment's rows by their key
(a latin token's fingerprint, a CJK character) with one stable radix
sort at the load makes that pass a binary search among the segment's
distinct keys and a slice: the cost follows the term's candidates, not
the store (ADR 0022; first-use times are measured by
``bench/bench_goals.py``).

The sort is stable, so a key's rows keep their order (positions ascend
within a group: :meth:`wikimem.index.search.form_search.FormViews` relies on it
to read no word past the form).
"""

from __future__ import annotations

from typing import Any

__all__ = ["KeyGroups"]


class KeyGroups:
    """Rows sorted by a 16-bit key (stable), each key's rows one slice of every column."""

    __slots__ = ("_keys", "_np", "_starts", "columns")

    def __init__(self, np: Any, keys: Any, *columns: Any) -> None:
        """Group ``columns`` (arrays as long as ``keys``) by ``keys`` (16-bit: numpy sorts them by radix)."""
        self._np = np
        order = np.argsort(keys, kind="stable")
        ordered = keys[order]
        # Where each distinct key's rows begin, and the end: one slice a key.
        edges = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
        self._keys = ordered[np.concatenate(([0], edges))] if len(ordered) else ordered
        self._starts = np.concatenate(([0], edges, [len(ordered)])).astype(np.int64)
        #: The columns in key order (a caller may replace them by others made from them, in the same order).
        self.columns = tuple(column[order] for column in columns)

    def group(self, key: int) -> int:
        """The index of ``key``'s group (the order of :meth:`span` and :meth:`uniform`), or -1 when no row has it."""
        keys = self._keys
        at = int(self._np.searchsorted(keys, key))
        return at if at < len(keys) and int(keys[at]) == key else -1

    def span(self, group: int) -> tuple[int, int]:
        """The slice ``lo, hi`` of a group's rows in :attr:`columns`."""
        return int(self._starts[group]), int(self._starts[group + 1])

    def rows(self, key: int) -> tuple[int, int]:
        """The slice ``lo, hi`` of ``key``'s rows in :attr:`columns` (empty when no row has it)."""
        at = self.group(key)
        return (0, 0) if at < 0 else self.span(at)

    def uniform(self, column: Any) -> Any:
        """Whether all of each group's rows (in key order) hold one value of ``column``: one byte a group.

        A group often holds one value alone (a CJK character followed by
        the same one everywhere in a segment: a word code's two halves),
        and its rows then need no compare with a term's.
        """
        np = self._np
        starts = self._starts
        changes = np.flatnonzero(column[1:] != column[:-1])
        changes += 1
        # A group is one value when no change falls strictly inside it.
        return np.searchsorted(changes, starts[1:], "left") == np.searchsorted(changes, starts[:-1], "right")

    def heads(self) -> Any:
        """Each row's group's first row (in key order): what a row is compared with to tell its group's keys apart."""
        np = self._np
        starts = self._starts
        return np.repeat(starts[:-1], np.diff(starts))

