"""Every term of one segment with its postings, in numpy sorts: the segment cache's contents.

Why it exists: without an index, a term's first use searches every
segment's scan forms, and that search is a pass over the forms whatever
the term -- a term in five documents costs as much as one in fifty
thousand (measured at 100k items: 6-22 ms for terms in 1-111 docs, 8-37
ms for terms in 6k-57k). Only a table of a segment's terms makes a first
use a lookup. Building one in pure Python is a bytecode step per token
(scanned_occurrences: ~1 s a segment); here it is a few sorts and
cumulative sums per segment (~45 ms), cheap enough for a warm-up to do for
the whole store. Numpy only (the segment cache is a numpy path; see ADR
0011).

The answer must be exactly what :func:`wikimem.index.scan.locate` plus
:meth:`wikimem.index.form_search.FormViews.postings` find, term by term:

* latin: a term is a run of non-blank bytes between blanks of the latin
  form (the needle `` tok `` matches exactly there); runs holding a
  document break can equal no term and are left out;
* CJK: a term is any two adjacent characters of the CJK form (overlapping
  pairs all count, as a doubled bigram's matches do), the second being
  ``ONE_CHAR_RUN`` for a one-character term; pairs touching a blank or a
  break can equal no term and are left out.

A segment whose forms hold what these rules do not cover (other ASCII
whitespace in the latin form, characters outside the Basic Multilingual
Plane in the CJK form) gets ``None`` for that half, and its terms are
searched as before.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from wikimem.index.scan import DOC_BREAK, ONE_CHAR_RUN, ScannedTexts

__all__ = ["Inverted", "cjk_key", "invert"]

_BLANK = ord(" ")
_BREAK = ord(DOC_BREAK)
_ONE = ord(ONE_CHAR_RUN)
_OTHER_WHITESPACE = (b"\t", b"\n", b"\r", b"\x0b", b"\x0c")
#: Latin runs longer than this stay out of the table (its width is its longest key): such a term is searched.
LONGEST = 48
#: ``covers`` of a table that left nothing out.
ALL = 1 << 30


class Inverted(NamedTuple):
    """One half of a segment's terms: sorted keys, each key's postings range, doc ids (from 0), counts."""

    keys: Any  # numpy: ``S{w}`` (latin terms' bytes) or ``uint32`` (CJK pairs, see :func:`cjk_key`)
    starts: Any  # int32, len(keys) + 1: key i's postings are [starts[i], starts[i + 1])
    docs: Any  # int32, ascending within each key; texts of the segment from 0
    tfs: Any  # int32, > 0
    #: Terms up to this many bytes are all here (a longer one may be in a text: search it).
    covers: int


def cjk_key(pair: str) -> int:
    """The uint32 a two-character pair is stored under: its UTF-16 code units, first one low."""
    return ord(pair[0]) | ord(pair[1]) << 16


def invert(np: Any, scanned: ScannedTexts) -> tuple[Inverted | None, Inverted | None]:
    """The latin and the CJK terms of a segment (``None``: that half is not covered)."""
    return _latin(np, scanned), _cjk(np, scanned)


def _latin(np: Any, scanned: ScannedTexts) -> Inverted | None:
    hay = scanned.latin
    if any(ws in hay for ws in _OTHER_WHITESPACE):
        return None  # bytes.split() would cut there; the needle does not
    raw = np.frombuffer(hay, dtype=np.uint8)
    blank = raw == _BLANK
    # Runs of non-blank bytes: a run starts where a non-blank follows a blank (or the form's start).
    edge = np.diff(blank.view(np.int8), prepend=np.int8(1), append=np.int8(1))
    run_starts = np.flatnonzero(edge == -1)
    run_ends = np.flatnonzero(edge == 1)
    runs = hay.split()
    if len(runs) != len(run_starts):
        return None
    zeros = np.concatenate(([0], np.cumsum(raw == _BREAK)))
    plain = zeros[run_ends] == zeros[run_starts]  # no break inside: a possible term
    short = run_ends - run_starts <= LONGEST
    keep = plain & short
    if not keep.all():
        # A break in a run would also vanish from an ``S`` array (trailing NULs are stripped).
        runs = [run for run, kept in zip(runs, keep.tolist()) if kept]
        run_starts = run_starts[keep]
    covers = ALL if short.all() else LONGEST
    if not runs:
        return _empty(np, "S1", covers)
    texts = np.searchsorted(np.frombuffer(scanned.latin_starts, dtype=np.int32), run_starts, side="right") - 1
    return _group(np, np.array(runs), texts, covers)


def _cjk(np: Any, scanned: ScannedTexts) -> Inverted | None:
    form = scanned.cjk
    wide = form.encode("utf-16-le")
    if len(wide) != 2 * len(form):
        return None  # surrogate pairs: code units are not characters
    units = np.frombuffer(wide, dtype=np.uint16)
    if len(units) < 2:
        return _empty(np, np.uint32, ALL)
    first, second = units[:-1], units[1:]
    ok = (first != _BLANK) & (first != _BREAK) & (first != _ONE) & (second != _BLANK) & (second != _BREAK)
    at = np.flatnonzero(ok)
    keys = first[at].astype(np.uint32) | (second[at].astype(np.uint32) << 16)
    texts = np.searchsorted(np.frombuffer(scanned.cjk_starts, dtype=np.int32), at, side="right") - 1
    return _group(np, keys, texts, ALL)


def _group(np: Any, tokens: Any, texts: Any, covers: int) -> Inverted:
    """Postings of each distinct token: (token, text) pairs sorted, counted, cut at each new token."""
    keys, which = np.unique(tokens, return_inverse=True)
    which = which.ravel()
    order = np.argsort(which, kind="stable")  # stable: texts stay ascending within a token
    which, texts = which[order], texts[order]
    new = np.empty(len(which), dtype=bool)
    new[:1] = True
    new[1:] = (which[1:] != which[:-1]) | (texts[1:] != texts[:-1])
    first = np.flatnonzero(new)
    tfs = np.diff(np.append(first, len(which)))
    starts = np.searchsorted(which[first], np.arange(len(keys) + 1))
    return Inverted(keys, starts.astype(np.int32), texts[first].astype(np.int32), tfs.astype(np.int32), covers)


def _empty(np: Any, dtype: Any, covers: int) -> Inverted:
    none = np.zeros(0, dtype=np.int32)
    return Inverted(np.zeros(0, dtype=dtype), np.zeros(1, dtype=np.int32), none, none, covers)
