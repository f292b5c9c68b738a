"""One term's postings in a segment's scan forms, in numpy passes: a fresh process's first use of a term.

Why it exists: with no cache file, a term's first use is a question to
every load segment (ADR 0005, 0011), and at 1M items that is ~250
segments a term, several terms a query. The earlier path asked each
segment twice -- a C-level ``in`` to rule the term out (a pass over the
form, ~180-330 us a segment for a term it does not hold: most of a rare
term's cost), then, when present, machine-word compares, a sort of the
matches, a binary search per match for its text (~30 ns a match) and a
cut at each new text (another 300-700 us a segment for a common term).
Here one set of word compares does both: an absent term costs the
compares alone (no match, nothing else runs), and a present one's matches
go to their texts through a table (the text of every 3rd latin byte and
every 2nd CJK character) and to per-text counts by one ``bincount`` (no
sort). The views and tables are made once per segment, at the load (the
CJK form's UTF-16 copy was made on the first CJK query before).

The answer is exactly the search's (:func:`wikimem.index.scan.locate` +
:func:`wikimem.index.scan.count_located`): a latin term's needle
`` tok `` (tokens stand between double blanks, so its matches never
overlap), a CJK term's two-character key, every match counted (a
doubled bigram's overlapping matches too, as the pure path's lookahead
does). A CJK form with characters outside the Basic Multilingual Plane
(UTF-16 code units are then not characters) or a needle outside it is
left to the pure path: :meth:`FormViews.postings` returns ``None``.
"""

from __future__ import annotations

from typing import Any

from wikimem.index.scan import ScannedTexts

__all__ = ["FormViews"]


class FormViews:
    """A segment's forms as numpy word views, made once, searched for any term.

    Holds views of the segment's immutable ``bytes`` (the latin form and
    the CJK form's UTF-16 copy: no other copy of the forms) and the two
    text tables (~0.4 MB a segment of ~4,000 texts).
    """

    __slots__ = ("_cjk_texts", "_cjk_words", "_latin", "_latin_texts", "_latin_words", "_n_texts", "_np", "_units")

    def __init__(self, np: Any, scanned: ScannedTexts) -> None:
        self._np = np
        self._latin = scanned.latin
        self._latin_words: dict[int, list[Any]] = {}
        n = self._n_texts = len(scanned.lengths)
        ids = np.arange(n, dtype=np.uint16 if n <= 0xFFFF else np.uint32)
        # The text of every 3rd latin byte (2, 5, 8, ...) and every 2nd CJK character (1, 3, 5, ...):
        # a match (>= 3 bytes / 2 characters, never a break) holds one of them, of its own text.
        self._latin_texts = _every(np, ids, scanned.latin_starts, 2, 3)
        self._cjk_texts = _every(np, ids, scanned.cjk_starts, 1, 2)
        units = scanned.cjk.encode("utf-16-le")
        # Surrogate pairs: code units are not characters; the pure path counts that form.
        self._units: bytes | None = units if len(units) == 2 * len(scanned.cjk) else None
        self._cjk_words: list[Any] = []
        if self._units is not None:
            self._cjk_words = [np.frombuffer(units, "<u4", count=(len(units) - off) // 4, offset=off) for off in (0, 2)]

    def postings(self, latin: bool, word: str, base: int) -> tuple[bytes, bytes] | None:
        """Doc ids (texts + ``base``, ascending) holding the term and its counts there, as int32 bytes.

        ``latin, word``: :func:`wikimem.index.scan.term_form`'s answer. Empty
        bytes when no text holds it; ``None`` when this path cannot answer
        (the CJK form or ``word`` outside the BMP): search it the pure way.
        """
        np = self._np
        if latin:
            parts = [at // 3 for at in self._latin_matches(f" {word} ".encode())]
            texts_of = self._latin_texts
        else:
            if self._units is None or max(map(ord, word)) > 0xFFFF:
                return None
            key = ord(word[0]) | ord(word[1]) << 16
            # Word i of either view (at byte offset 0 or 2) starts at character 2i or 2i + 1: half is i.
            parts = [np.flatnonzero(words == key) for words in self._cjk_words]
            texts_of = self._cjk_texts
        parts = [p for p in parts if len(p)]
        if not parts:
            return b"", b""
        # Texts of all matches by a table (a binary search each cost ~30 ns a match), in any order:
        # a count per text needs none.
        texts = texts_of[parts[0] if len(parts) == 1 else np.concatenate(parts)]
        counts = np.bincount(texts, minlength=self._n_texts)
        docs = np.flatnonzero(counts)
        return (docs + base).astype(np.int32).tobytes(), counts[docs].astype(np.int32).tobytes()

    def _latin_matches(self, needle: bytes) -> list[Any]:
        """Byte offsets of every match of ``needle`` in the latin form (not sorted; ``[]``: none).

        The needle's first 4 (or 2) bytes as one word against the form
        viewed as words at every byte offset below the word size, then the
        needle's other bytes checked only where the word matched (once, on
        all views' candidates: each numpy call costs a few us, and a term
        is ~4 of them a segment).
        """
        np = self._np
        hay = self._latin
        width, kind = (4, "<u4") if len(needle) >= 4 else (2, "<u2")
        views = self._latin_words.get(width)
        if views is None:
            views = self._latin_words[width] = [
                np.frombuffer(hay, kind, count=(len(hay) - off) // width, offset=off) for off in range(width)
            ]
        key = int.from_bytes(needle[:width], "little")
        parts = [hits * width + off for off, hits in enumerate(np.flatnonzero(words == key) for words in views) if len(hits)]
        if not parts or len(needle) == width:
            return parts
        positions = parts[0] if len(parts) == 1 else np.concatenate(parts)
        raw = np.frombuffer(hay, dtype=np.uint8)
        for j in range(width, len(needle)):
            positions = positions[positions + j < len(hay)]
            positions = positions[raw[positions + j] == needle[j]]
        return [positions]


def _every(np: Any, ids: Any, starts: Any, first: int, step: int) -> Any:
    """The text of each ``step``-th unit of a form from ``first`` on (text i spans ``starts[i]..starts[i+1]``, its break included)."""
    spans = np.diff(np.frombuffer(starts, dtype=np.int32))
    return np.repeat(ids, spans)[first::step].copy()
