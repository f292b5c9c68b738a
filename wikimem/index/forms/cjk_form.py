"""The cold load's CJK scan form in numpy, straight from the UTF-8 bytes, for the common case.

Why it exists: the pure path (:func:`wikimem.index.forms.scan._cjk_runs`) blanks
ASCII with a byte table, collapses blanks, decodes, splits the runs,
joins them and marks one-character runs with a regex -- several passes
over every character, a large share of a Chinese store's cold load --
then the counts encode the form again as UTF-32 to count its blanks.
Chinese prose is mostly ideographs from U+4000 on (UTF-8 lead bytes
E4-E9, three bytes each, less U+4DC0-U+4DFF, which is not CJK) and the two commonest marks ，and 。 -- the case the pure path's own fast
branch takes. For it, every character's place and code point come from
vector passes over the bytes, and the form is written as UTF-16 code
units (one a character in that range): each run preceded by a double
blank, a one-character run followed by its mark, the document break a run
of its own, a double blank at the end. The same string as the pure path,
by construction; tests compare them.

Anything else (kana, Hangul, other marks or symbols, invalid UTF-8, the
two characters that lowercase to ASCII) returns ``None``: the pure path.
"""

from __future__ import annotations

from typing import Any

__all__ = ["cjk_form"]

_BLANK = 32
_ONE_CHAR_RUN = 1
#: The two marks of the fast path, as UTF-8: separators, like any non-CJK character.
_MARKS = ("，".encode(), "。".encode())


def cjk_form(np: Any, joined: bytes) -> tuple[str, Any] | None:
    """The CJK form of ``joined`` (texts joined by ``b" \\x00 "``, a blank at both ends) and its UTF-16 code units.

    ``None`` when a byte is off the fast path (see the module doc).
    """
    codes = np.frombuffer(joined, dtype=np.uint8)
    n = len(codes)
    lead = (codes >= 0xE4) & (codes <= 0xE9)
    leads = np.flatnonzero(lead)
    marks = 0
    for mark in _MARKS:
        at = np.flatnonzero(codes == mark[0])
        if len(at) and (at[-1] + 2 >= n or not np.all((codes[at + 1] == mark[1]) & (codes[at + 2] == mark[2]))):
            return None
        marks += len(at)
    if len(leads) and leads[-1] + 2 >= n:
        return None
    b0, b1, b2 = codes[leads], codes[leads + 1], codes[leads + 2]
    if not np.all(((b1 & 0xC0) == 0x80) & ((b2 & 0xC0) == 0x80)) or np.any((b0 == 0xE4) & (b1 == 0xB7)):
        return None  # not a three-byte character, or a hexagram (U+4DC0-U+4DFF)
    # Every byte >= 0x80 is one of those characters' three: nothing else non-ASCII, valid UTF-8.
    chars = len(leads) + marks
    if np.count_nonzero(codes >= 0x80) != 3 * chars or np.count_nonzero((codes & 0xC0) == 0x80) != 2 * chars:
        return None
    # The elements of the form in order: the characters and the breaks.
    element = np.flatnonzero(lead | (codes == 0))
    char = codes[element] != 0
    points = np.zeros(len(element), dtype=np.uint16)
    points[char] = ((b0.astype(np.uint16) & 0x0F) << 12) | ((b1.astype(np.uint16) & 0x3F) << 6) | (b2 & 0x3F)
    # A character right after another (three bytes on) continues its run; anything else starts one.
    follows = np.zeros(len(element), dtype=bool)
    follows[1:] = char[1:] & char[:-1] & (element[1:] - element[:-1] == 3)
    starts = ~follows
    single = char & starts
    single[:-1] &= ~follows[1:]
    width = 1 + 2 * starts + single
    at = np.zeros(len(element), dtype=np.int64)
    np.cumsum(width[:-1], out=at[1:])
    at += 2 * starts
    units = np.full(int(width.sum()) + 2, _BLANK, dtype=np.uint16)
    units[at] = points
    units[at[single] + 1] = _ONE_CHAR_RUN
    return units.tobytes().decode("utf-16-le"), units
