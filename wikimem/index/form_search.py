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

A latin term does not scan the form (ADR 0015): the load keeps a 16-bit
fingerprint, the position and the text of every latin token (8 bytes a
token, where the form is ~7), a first use compares 2 bytes a token -- at 1M
items ~24 MB instead of four word views of ~82 MB -- and checks only the
tokens whose fingerprint is the term's against its bytes. A CJK term
searches one mask, the union of its two word views' compares (a match
of two different characters is in one of them): half the elements for
the ``flatnonzero`` that was the larger share of its cost.

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

__all__ = ["FormViews", "counted", "dense", "fingerprint", "latin_tokens"]

_BLANK = 32
#: An odd 32-bit multiplier (Knuth's): its product's top bits mix every input bit.
_MIX = 0x9E3779B1


class FormViews:
    """A segment's forms as numpy arrays, made once, searched for any term.

    Holds the latin form's token table (a 16-bit fingerprint, the
    position and the text of each token: 8 bytes a token, ~0.4 MB a
    segment of ~4,000 texts), views of the segment's immutable ``bytes``
    (the latin form, the CJK form's UTF-16 copy: no other copy of the
    forms) and the CJK text table (~0.3 MB a segment).
    """

    __slots__ = ("_at", "_cjk_texts", "_cjk_words", "_fingerprints", "_n_texts", "_np", "_token_texts", "_units", "_words")

    def __init__(self, np: Any, scanned: ScannedTexts) -> None:
        self._np = np
        n = self._n_texts = len(scanned.lengths)
        ids = np.arange(n, dtype=np.uint16 if n <= 0xFFFF else np.uint32)
        # The text of every 2nd CJK character (1, 3, 5, ...): a match (2 characters, never a break)
        # holds one of them, of its own text; a latin token's text is in its table.
        self._cjk_texts = _every(np, ids, scanned.cjk_starts, 1, 2)
        self._words, self._at, self._fingerprints, self._token_texts = latin_tokens(np, scanned.latin, ids)
        units = scanned.cjk.encode("utf-16-le")
        # Surrogate pairs: code units are not characters; the pure path counts that form.
        self._units: bytes | None = units if len(units) == 2 * len(scanned.cjk) else None
        self._cjk_words: list[Any] = []
        if self._units is not None:
            self._cjk_words = [np.frombuffer(units, "<u4", count=(len(units) - off) // 4, offset=off) for off in (0, 2)]

    @property
    def n_texts(self) -> int:
        """How many texts the segment holds (its matches' text ids are below it)."""
        return self._n_texts

    def postings(self, latin: bool, word: str, base: int) -> tuple[bytes, bytes] | None:
        """Doc ids (texts + ``base``, ascending) holding the term and its counts there, as int32 bytes.

        ``latin, word``: :func:`wikimem.index.scan.term_form`'s answer. Empty
        bytes when no text holds it; ``None`` when this path cannot answer
        (the CJK form or ``word`` outside the BMP): search it the pure way.
        """
        texts = self.matches(latin, word)
        if texts is None:
            return None
        if not len(texts):
            return b"", b""
        return counted(self._np, texts, self._n_texts, base)

    def matches(self, latin: bool, word: str) -> Any:
        """The text of each match of the term (numpy, in no order: one entry a match); ``None`` as :meth:`postings`.

        What a search of many segments gathers before one count over all
        of them (:meth:`wikimem.index.segments.Segments.postings_many`: a
        count per segment was ~10 numpy calls, ~20 us, ~250 times a term).
        """
        if latin:
            return self._latin_matches(word.encode())
        if self._units is None or max(map(ord, word)) > 0xFFFF:
            return None
        return self._cjk_matches(word)

    def _latin_matches(self, word: bytes) -> Any:
        """The texts of every match of ``b" word "`` in the latin form (one a token equal to ``word``).

        The tokens whose fingerprint is the word's (a pass over 2 bytes a
        token, not over the form), then each checked against the word's
        bytes, a machine word at a time (a fingerprint is 16 bits: ~1 in
        65,536 tokens of other words shares it).
        """
        np = self._np
        tokens = np.flatnonzero(self._fingerprints == fingerprint(word))
        if not len(tokens):
            return self._token_texts[tokens]
        at = self._at[tokens]
        # Blank, word, two blanks: every token is followed by two blanks, so the last word read is in the form.
        padded = b" " + word + b"  "
        words = self._words
        steps = (*range(0, len(padded) - 4, 4), len(padded) - 4)
        if at[-1] > len(words) - 1 - steps[-1]:  # a shorter token near the form's end: its last word is past it
            return self._token_texts[tokens[self._checked_near_end(at, padded, steps)]]
        # Positions ascend, so no word read is past the form: each step one gather and one compare, no cut.
        ok = words[at] == int.from_bytes(padded[:4], "little")
        for j in steps[1:]:
            ok &= words[np.add(at, j)] == int.from_bytes(padded[j : j + 4], "little")
        return self._token_texts[tokens if ok.all() else tokens[ok]]

    def _checked_near_end(self, at: Any, padded: bytes, steps: tuple[int, ...]) -> Any:
        """Which of the candidates at ``at`` equal ``padded`` word by word, when some start too near the form's end to read all its words."""
        np = self._np
        words = self._words
        last = len(words) - 1
        keep = np.arange(len(at))
        for j in steps:
            keep = keep[at[keep] <= last - j]
            keep = keep[words[at[keep] + j] == int.from_bytes(padded[j : j + 4], "little")]
        return keep

    def _cjk_matches(self, pair: str) -> Any:
        """The texts of every match of a two-character key in the CJK form (one a match, overlapping ones too).

        Word i of either view (at byte offset 0 or 2) starts at character
        2i or 2i + 1, and both matches hold character 2i + 1: the table's
        i-th text. Two different characters cannot match both views at one
        i, so one mask (their union) is searched -- half the elements.
        """
        np = self._np
        key = ord(pair[0]) | ord(pair[1]) << 16
        even, odd = self._cjk_words
        if pair[0] == pair[1]:  # "哈哈" in "哈哈哈": both views may match at one i
            parts = [np.flatnonzero(words == key) for words in (even, odd)]
            return self._cjk_texts[np.concatenate(parts)]
        hit = even == key
        hit[: len(odd)] |= odd == key
        return self._cjk_texts[np.flatnonzero(hit)]


def latin_tokens(np: Any, latin: bytes, ids: Any) -> tuple[Any, Any, Any, Any]:
    """The latin form's words at every byte offset, and each token's blank before it, fingerprint and text.

    Tokens stand between double blanks (the break is a token of its own):
    each starts where a blank is followed by a non-blank, and when every
    gap is exactly two blanks (a count of the blanks says so: the forms
    :mod:`wikimem.index.scan` makes), a token's last byte is two before
    the next one's blank -- one mask and one ``flatnonzero`` of the starts
    alone, the largest share of this cost. Its fingerprint mixes its first
    two bytes (a blank after a one-byte token), its last byte and its
    length, laid out as one 32-bit key -- byte gathers (an unaligned
    word's cost ~4x a byte's), then a multiply and a shift in place.
    :func:`fingerprint` reads the same bytes from a term. ``ids``: the
    texts (one break fewer than them in the form).
    """
    raw = np.frombuffer(latin, dtype=np.uint8)
    words = np.ndarray((max(len(latin) - 3, 0),), dtype="<u4", buffer=latin, strides=(1,))
    blank = raw == _BLANK
    before = np.flatnonzero(blank[:-1] > blank[1:])
    n = len(before)
    if n and latin[:2] == latin[-2:] == b"  " and np.count_nonzero(blank) == 2 * (n + 1):
        last = np.empty_like(before)
        np.subtract(before[1:], 2, out=last[:-1])
        last[-1] = len(latin) - 3
    else:  # a gap of more blanks: each token's end found the same way as its start
        last = np.flatnonzero(blank[:-1] < blank[1:])
    key = np.empty((n, 4), dtype=np.uint8)
    key[:, 0], key[:, 1], key[:, 2] = raw[1:][before], raw[2:][before], raw[last]
    np.subtract(last, before, out=key[:, 3], casting="unsafe")  # the length's low byte, no temporary
    # Text i's tokens run to its break (the only token whose first byte is 0), that one included.
    breaks = np.flatnonzero(key[:, 0] == 0)
    texts = np.repeat(ids, np.diff(np.concatenate(([-1], breaks, [n - 1]))))
    mixed = key.view("<u4").ravel()
    np.multiply(mixed, _MIX, out=mixed)
    np.right_shift(mixed, 16, out=mixed)
    return words, before.astype(np.int32), mixed.astype(np.uint16), texts


def dense(matches: int, span: int) -> bool:
    """Whether ``matches`` ids among ``span`` are counted by one ``bincount`` of the span (else a sort: no 8 MB of counts for a rare term's few matches among 1M ids)."""
    return matches * 8 >= span


def counted(np: Any, ids: Any, span: int, base: int = 0) -> tuple[bytes, bytes]:
    """Each id of ``ids`` (one entry a match, in no order, below ``span`` past their least) plus ``base``, and its count, ascending, as int32 bytes.

    ``ids``: doc ids, or a segment's text ids (16-bit, ``base`` its first
    doc id: no int64 copy of them). One ``bincount`` when the matches are
    :func:`dense` in their span, else a sort.
    """
    ids = np.asarray(ids)
    if not dense(len(ids), span):
        held, counts = np.unique(ids, return_counts=True)
    else:
        low = int(ids.min())
        per_id = np.bincount(ids - low if low else ids)
        held = np.flatnonzero(per_id)
        counts = per_id[held]
        base += low
    return np.add(held, base, dtype=np.int32).tobytes(), counts.astype(np.int32).tobytes()


def fingerprint(word: bytes) -> int:
    """A token's 16-bit fingerprint as :func:`latin_tokens` computes it in the form."""
    second = word[1] if len(word) > 1 else _BLANK
    key = word[0] | second << 8 | word[-1] << 16 | (len(word) & 0xFF) << 24
    return ((key * _MIX) & 0xFFFFFFFF) >> 16


def _every(np: Any, ids: Any, starts: Any, first: int, step: int) -> Any:
    """The text of each ``step``-th unit of a form from ``first`` on (text i spans ``starts[i]..starts[i+1]``, its break included)."""
    spans = np.diff(np.frombuffer(starts, dtype=np.int32))
    return np.repeat(ids, spans)[first::step].copy()
