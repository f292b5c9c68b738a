"""One term's postings in a segment's scan forms, in numpy passes: a fresh process's first use of a term.

Why it exists: a term's first use is a question to every load segment
(ADR 0005), several terms a query, and a pass over each segment's forms
would cost the whole store's text whatever the term's matches. So the
load groups each segment's rows by a 16-bit key
(:mod:`wikimem.index.search.key_groups`): latin tokens by fingerprint,
each with its position, its text and whether it is its group's first
token byte for byte; CJK positions by character, each with the next
character and its text. A first use is a binary search among a
segment's keys and a slice -- its cost follows the term's candidates,
not the store -- and a common latin word's matches are its group's
marked rows, with no read of the form. Matches come out ascending (the
sort is stable) and are counted by runs (:func:`runs`).

The answer is exactly the search's (:func:`wikimem.index.forms.scan.locate` +
:func:`wikimem.index.forms.scan.count_located`): a latin term's needle
`` tok `` (tokens stand between double blanks, so its matches never
overlap), a CJK term's two-character key, every match counted (a
doubled bigram's overlapping matches too, as the pure path's lookahead
does). A CJK form with characters outside the Basic Multilingual Plane
(UTF-16 code units are then not characters) or a needle outside it is
left to the pure path: :meth:`FormViews.postings` returns ``None``.
"""

from __future__ import annotations

from array import array
from typing import Any

from wikimem.index.search.key_groups import KeyGroups
from wikimem.index.forms.scan import WORD_SECOND, ScannedTexts

__all__ = ["FormViews", "cjk_pairs", "fingerprint", "latin_tokens", "runs"]

_BLANK = 32
_CODE_SECOND, _CODE_SECOND_LAST = map(ord, WORD_SECOND)
#: Tokens of at most this many bytes are told apart by two machine words (:func:`latin_groups`).
_SHORT = 16
#: An odd 32-bit multiplier (Knuth's): its product's top bits mix every input bit.
_MIX = 0x9E3779B1


class FormViews:
    """A segment's forms as numpy arrays, made once, searched for any term.

    Holds the latin tokens grouped by fingerprint (position, text and the
    equal-to-first mark: 7 bytes a token), a word view of the segment's
    immutable latin ``bytes`` (no copy) and the CJK pairs grouped by
    their first character (next character and text: 4 bytes a CJK
    character): memory that grows with the segment's text, kept for the
    life of the index so no later first use reads the forms again.
    """

    __slots__ = ("_latin", "_np", "_pairs", "_tokens", "_uniform", "_words")

    def __init__(self, np: Any, scanned: ScannedTexts) -> None:
        self._np = np
        n = len(scanned.lengths)
        ids = np.arange(n, dtype=np.uint16 if n <= 0xFFFF else np.uint32)
        self._latin = scanned.latin
        self._words, self._tokens = latin_groups(np, scanned.latin, ids)
        units = scanned.cjk.encode("utf-16-le")
        # Surrogate pairs: code units are not characters; the pure path counts that form.
        self._pairs = cjk_pairs(np, units, ids, scanned.cjk_starts) if len(units) == 2 * len(scanned.cjk) else None
        #: Whether each CJK group's rows have one next character (:meth:`KeyGroups.uniform`).
        self._uniform = self._pairs.uniform(self._pairs.columns[0]) if self._pairs is not None else None

    def postings(self, latin: bool, word: str, base: int) -> tuple[bytes, bytes] | None:
        """Doc ids (texts + ``base``, ascending) holding the term and its counts there, as int32 bytes.

        ``latin, word``: :func:`wikimem.index.forms.scan.term_form`'s answer. Empty
        bytes when no text holds it; ``None`` when this path cannot answer
        (the CJK form or ``word`` outside the BMP): search it the pure way.
        """
        texts = self.matches(latin, word)
        if texts is None:
            return None
        docs, tfs = runs(self._np, [texts] if len(texts) else [], [base])
        return docs.tobytes(), tfs.tobytes()

    def matches(self, latin: bool, word: str) -> Any:
        """The text of each match of the term (numpy, ascending: one entry a match); ``None`` as :meth:`postings`.

        What a search of many segments gathers before one count over all
        of them (:meth:`wikimem.index.search.segments.Segments.postings_many`):
        a count per segment would pay a dozen numpy calls' overhead once
        for every segment a term is asked of.
        Ascending because a key's rows keep their order in the groups
        (a stable sort of rows in form order: :mod:`wikimem.index.search.key_groups`).
        """
        if latin:
            return self._latin_matches(word.encode())
        if self._pairs is None or max(map(ord, word)) > 0xFFFF:
            return None
        return self._cjk_matches(word)

    def _latin_matches(self, word: bytes) -> Any:
        """The texts of every match of ``b" word "`` in the latin form (one a token equal to ``word``).

        The tokens whose fingerprint is the word's are one slice of the
        groups (:func:`latin_groups`: no pass over the segment). When the
        group's first token is the word, its rows marked equal to that one
        are the matches, with no read of the form; the others (another
        word with the same 16-bit fingerprint: ~1 in 65,536 tokens) are
        checked against the word's bytes, a machine word at a time.
        """
        np = self._np
        lo, hi = self._tokens.rows(fingerprint(word))
        at_all, texts_all, same_all = self._tokens.columns
        at, texts, same = at_all[lo:hi], texts_all[lo:hi], same_all[lo:hi]
        if not len(at):
            return texts
        head = int(at[0]) + 1
        if same[0] and self._latin[head : head + len(word) + 1] == word + b" ":
            return texts if same.all() else texts[same]
        others = ~same
        at, texts = at[others], texts[others]
        if not len(at):
            return texts
        # Blank, word, two blanks: every token is followed by two blanks, so the last word read is in the form.
        padded = b" " + word + b"  "
        words = self._words
        steps = (*range(0, len(padded) - 4, 4), len(padded) - 4)
        if at[-1] > len(words) - 1 - steps[-1]:  # a shorter token near the form's end: its last word is past it
            return texts[self._checked_near_end(at, padded, steps)]
        # Positions ascend, so no word read is past the form: each step one gather and one compare, no cut.
        ok = words[at] == int.from_bytes(padded[:4], "little")
        for j in steps[1:]:
            ok &= words[np.add(at, j)] == int.from_bytes(padded[j : j + 4], "little")
        return texts if ok.all() else texts[ok]

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

        The positions holding the key's first character are one slice of
        the groups (:func:`cjk_pairs`), each with the character after it
        and its text: the matches are those whose next character is the
        key's second -- a doubled bigram's overlapping ones included, as
        every position is a row of its own. When a group's rows all have
        one character next (a common word's code, mostly), its first row
        tells whether they all match or none does, with no compare.
        """
        assert self._pairs is not None and self._uniform is not None  # matches() asked for a BMP form
        after, texts = self._pairs.columns
        at = self._pairs.group(ord(pair[0]))
        if at < 0:
            return texts[:0]
        lo, hi = self._pairs.span(at)
        if self._uniform[at]:
            return texts[lo:hi] if after[lo] == ord(pair[1]) else texts[:0]
        return texts[lo:hi][after[lo:hi] == ord(pair[1])]


def _words(np: Any, latin: bytes) -> Any:
    """The latin form's 4-byte little-endian word at every byte offset (a view: no copy)."""
    return np.ndarray((max(len(latin) - 3, 0),), dtype="<u4", buffer=latin, strides=(1,))


def cjk_pairs(np: Any, units: bytes, ids: Any, starts: array[int]) -> KeyGroups:
    """The CJK form's pairs grouped by their first character: each with the next character and its text.

    ``units``: the form as UTF-16 (one unit a character: no surrogates).
    A row is every position of a CJK character (above the blank: blanks,
    breaks and the one-character mark are below it) whose next character
    is not a blank -- the positions a needle can match (a needle holds no
    blank; a one-character term's second character is the mark), less
    those where a word code's second character meets the next code (no
    term starts with it: :func:`wikimem.index.forms.scan.words_form`). 4 bytes
    a row, about one row per CJK character of the store: the form's own
    UTF-16 copy is not kept.
    """
    codes = np.frombuffer(units, dtype=np.uint16)
    after = codes[1:]
    row = (codes[:-1] > _BLANK) & (after != _BLANK)
    row &= (codes[:-1] < _CODE_SECOND) | (codes[:-1] > _CODE_SECOND_LAST)  # a pair across two word codes: no term's
    at = np.flatnonzero(row)
    # Rows per text: text i spans starts[i]..starts[i+1] (its break included), and rows ascend.
    per_text = np.diff(np.searchsorted(at, np.frombuffer(starts, dtype=np.int32)))
    return KeyGroups(np, codes[at], after[at], np.repeat(ids, per_text))


def _latin_rows(np: Any, latin: bytes, ids: Any) -> tuple[Any, Any, Any, Any, Any]:
    """The latin form's words at every byte offset, and each token's blank before it, fingerprint and text.

    Tokens stand between double blanks (the break is a token of its own):
    each starts where a blank is followed by a non-blank, and when every
    gap is exactly two blanks (a count of the blanks says so: the forms
    :mod:`wikimem.index.forms.scan` makes), a token's last byte is two before
    the next one's blank -- one mask and one ``flatnonzero`` of the starts
    alone, the largest share of this cost. Its fingerprint mixes its first
    two bytes (a blank after a one-byte token), its last byte and its
    length, laid out as one 32-bit key -- byte gathers (cheaper than
    gathers of unaligned words), then a multiply and a shift in place.
    :func:`fingerprint` reads the same bytes from a term. ``ids``: the
    texts (one break fewer than them in the form).
    """
    raw = np.frombuffer(latin, dtype=np.uint8)
    words = _words(np, latin)
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
    return words, before.astype(np.int32), mixed.astype(np.uint16), texts, last - before


def latin_tokens(np: Any, latin: bytes, ids: Any) -> tuple[Any, Any, Any, Any]:
    """:func:`_latin_rows` without the sizes."""
    return _latin_rows(np, latin, ids)[:4]


def latin_groups(np: Any, latin: bytes, ids: Any) -> tuple[Any, KeyGroups]:
    """The latin form's words at every byte offset, and its tokens grouped by fingerprint: position, text, same.

    ``same``: whether a token is its group's first one, byte for byte --
    read as two machine words masked to its length (a token of at most 16
    bytes of ``[a-z0-9]`` has no zero byte: the words *are* the token, as
    in :mod:`wikimem.index.terms.stem_table`); a longer token is never marked,
    and a group led by one has no row marked. A common word's group in a
    segment is mostly, often only, that word: its matches are then a
    slice with no read of the form.
    """
    words, at, prints, texts, sizes = _latin_rows(np, latin, ids)
    groups = KeyGroups(np, prints, at, texts, sizes)
    at, texts, sizes = groups.columns
    padded = latin + bytes(_SHORT)
    eights = np.ndarray((len(latin) + 8,), dtype="<u8", buffer=padded, strides=(1,))
    masks = np.array([(1 << 8 * k) - 1 for k in range(9)], dtype=np.uint64)
    first = eights[at + 1] & masks[np.minimum(sizes, 8)]
    second = eights[at + 9] & masks[np.clip(sizes - 8, 0, 8)]
    head = groups.heads()
    short = sizes <= _SHORT
    same = short & short[head] & (first == first[head]) & (second == second[head])
    groups.columns = (at, texts, same)
    return words, groups


def runs(np: Any, parts: list[Any], bases: list[int]) -> tuple[Any, Any]:
    """Each distinct id of ``parts`` plus its part's base, and its count (int32 numpy arrays, ascending).

    ``parts``: the matches of a term in several segments (texts, one
    entry a match, ascending within a part, each part's ids before the
    next part's once its ``base`` is added). Counted together, not part by
    part -- a part a segment, and a large store's common term is asked
    of every segment: one concatenation of the segments' small ids and one
    pass over runs of equal ids count them all, and the bases are added to
    the distinct ids only. A part's first id starts a run of its own.
    """
    if not parts:
        return np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int32)
    ids = parts[0] if len(parts) == 1 else np.concatenate(parts)
    n = len(ids)
    ends = np.cumsum(np.fromiter(map(len, parts), dtype=np.int64, count=len(parts)))
    new = np.empty(n + 1, dtype=bool)
    np.not_equal(ids[1:], ids[:-1], out=new[1:n])
    new[ends[:-1]] = True  # each part's first id (an equal id in another segment is another doc)
    new[0] = new[n] = True
    starts = np.flatnonzero(new)
    firsts = starts[:-1]
    runs_in = np.diff(np.searchsorted(firsts, np.concatenate(([0], ends))))
    docs = np.add(ids[firsts], np.repeat(np.asarray(bases, dtype=np.int32), runs_in), dtype=np.int32)
    tfs = np.subtract(starts[1:], firsts, out=np.empty(len(firsts), dtype=np.int32), casting="unsafe")
    return docs, tfs


def fingerprint(word: bytes) -> int:
    """A token's 16-bit fingerprint as :func:`latin_tokens` computes it in the form."""
    second = word[1] if len(word) > 1 else _BLANK
    key = word[0] | second << 8 | word[-1] << 16 | (len(word) & 0xFF) << 24
    return ((key * _MIX) & 0xFFFFFFFF) >> 16
