"""Runs of segments' CJK forms joined into one array: a CJK term's first use in a few numpy calls a run.

Why it exists: a fresh process's first use of a CJK term compares the
pair against every segment's UTF-16 form (two 32-bit views, one mask, one
``flatnonzero``, the matches' texts and doc ids: ADR 0012, 0015) -- about
ten numpy calls a segment, ~240 segments a term at 1M items, and a query
of six or eight characters is five to seven terms: ~10,000 calls, whose
fixed cost (a few us each, more on a loaded machine) was a third or more
of the worst first use of the ten fixed queries (ADR 0018). A chunk joins
:data:`SEGMENTS` consecutive segments' code units once, at the load (a
copy the segments' views then share, their own dropped), with their
texts and doc ids, so a term is searched there in the same few calls for
all of them, and a second copy from the second unit on, so that the odd
pairs are aligned 32-bit words too (numpy compared the misaligned view
2.7x slower): +2 bytes a CJK code unit, ~77 MB at 1M. The element work is
the same compares as before; the answer is exactly the per-segment
search's (tests compare them).

Each segment's units are padded to an even count (one blank: a blank is
in no term) so that every segment starts on a 32-bit word of the chunk:
the views stay aligned and a segment's own views are slices of them. A
pair never spans two segments (every form ends and starts with blanks).
"""

from __future__ import annotations

from typing import Any

__all__ = ["SEGMENTS", "CjkChunk", "pair_texts"]

#: Segments a chunk joins (~1.3 MB of code units at 1M items: still in a core's cache for a query's terms).
SEGMENTS = 4
#: A chunk's texts are numbered in 16 bits.
_MAX_TEXTS = 0xFFFF
_BLANK_UNIT = b" \x00"


def pair_texts(np: Any, even: Any, odd: Any, texts: Any, pair: str) -> Any:
    """The ``texts`` entry of every match of a two-character key in a form's two 32-bit views (one a match).

    Word i of either view (at byte offset 0 or 2) starts at character
    2i or 2i + 1, and both matches hold character 2i + 1: the table's
    i-th entry. Two different characters cannot match both views at one
    i, so one mask (their union) is searched -- half the elements; a
    doubled pair ("哈哈" in "哈哈哈") keeps both masks (both may match).
    """
    key = ord(pair[0]) | ord(pair[1]) << 16
    if pair[0] == pair[1]:
        parts = [np.flatnonzero(words == key) for words in (even, odd)]
        return texts[np.concatenate(parts)]
    hit = even == key
    hit[: len(odd)] |= odd == key
    return texts[np.flatnonzero(hit)]


class CjkChunk:
    """Consecutive segments' CJK code units as one form: its views, each every-2nd unit's text, each text's doc id."""

    __slots__ = ("_base", "_data", "_data_odd", "_docs", "_even", "_np", "_odd", "_shares", "_texts", "first", "stop")

    def __init__(self, np: Any, first: int, parts: list[tuple[int, int, bytes, Any]]) -> None:
        """``parts``: each segment's (first doc id, text count, UTF-16 units, every-2nd unit's text), from segment ``first`` on.

        Rebinding the segments' views to the joined units is the caller's
        (:meth:`shares`): this holds the only copy afterwards.
        """
        self._np, self.first, self.stop = np, first, first + len(parts)
        joined: list[bytes] = []
        tables: list[Any] = []
        docs: list[Any] = []
        shift = 0
        #: Per segment: (its first unit in the chunk, its unit count, its texts' first number).
        self._shares: list[tuple[int, int, int]] = []
        unit = 0
        for base, n_texts, units, table in parts:
            joined.append(units)
            size = len(units) // 2
            if size % 2:
                joined.append(_BLANK_UNIT)
            self._shares.append((unit, size, shift))
            unit += size + size % 2
            tables.append(table.astype(np.uint16) + np.uint16(shift))
            docs.append(np.arange(base, base + n_texts, dtype=np.int64))
            shift += n_texts
        data = b"".join(joined)
        # The units again from the second on, so that the odd pairs are aligned words too: a compare of a
        # misaligned view took 2.7x an aligned one's time (numpy copies it to aligned buffers as it goes).
        self._data, self._data_odd = data, data[2:] + _BLANK_UNIT
        self._even = np.frombuffer(data, "<u4", count=len(data) // 4)
        self._odd = np.frombuffer(self._data_odd, "<u4", count=(len(data) - 2) // 4)
        self._texts = np.concatenate(tables)
        self._docs = np.concatenate(docs)
        # Segments of consecutive doc ids (a cold load's): a text's doc id is the first one plus its number.
        first_doc = parts[0][0] if parts else 0
        self._base: int | None = first_doc if int(self._docs[-1]) == first_doc + len(self._docs) - 1 else None

    def doc_ids(self, pair: str) -> Any:
        """The doc id of every match of the pair in the chunk's segments (int64, one a match)."""
        if max(map(ord, pair)) > 0xFFFF:  # a chunk's forms are in the BMP: no match (and no 32-bit key)
            return self._docs[:0]
        texts = pair_texts(self._np, self._even, self._odd, self._texts, pair)
        if self._base is not None:  # an add, not a gather of 8 bytes a match
            return self._np.add(texts, self._base, dtype=self._np.int64)
        return self._docs[texts]

    def shares(self) -> list[tuple[Any, Any, Any, int]]:
        """Each segment's (even view, odd view, texts table, its texts' first number): slices of the chunk's."""
        np, data, out = self._np, self._data, []
        for unit, size, shift in self._shares:
            even = np.frombuffer(data, "<u4", count=size // 2, offset=2 * unit)
            odd = np.frombuffer(self._data_odd, "<u4", count=(size - 1) // 2, offset=2 * unit) if size else even[:0]
            out.append((even, odd, self._texts[unit // 2 : unit // 2 + (size + 1) // 2], shift))
        return out


def texts_fit(counts: list[int]) -> bool:
    """Whether segments of these text counts can be numbered in one chunk."""
    return sum(counts) <= _MAX_TEXTS
