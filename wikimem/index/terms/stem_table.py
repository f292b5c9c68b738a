"""The cold load's stem map in numpy: a segment's latin form made of index terms with no Python step per token.

Why it exists: a stemming analyzer maps every latin token of a cold load
to its index term. The pure path (:meth:`wikimem.index.terms.analyzer._Stems.mapped`)
does it with C-level steps, but still one ``str`` object, one set insert
and one dict lookup per token, then a join: on a large store the largest
part of a cold load, growing with every token. Here tokens are never made
objects:

* a token of at most 16 bytes of ``[a-z0-9]`` has no zero byte, so its
  bytes read as two little-endian machine words masked to its length *are*
  the token: an exact key, no hash to trust;
* the keys are looked up in an open-addressing table (vector probes) of
  every token seen so far -- kept across segments and builds, as the memo
  is -- which holds each token's term as two words and a length; only the
  distinct tokens it has not seen go to the Python stemmer (through the
  analyzer's memo: the same terms as the pure path by construction);
* the form is the rows' term words written end to end, each followed by
  the double blank (:func:`_rows_joined`): ``b"  " + b"  ".join(terms) + b"  "``,
  byte for byte.

Numbers -- most of a store's distinct tokens (ids, dates), never changed
by the stemmer -- are found by a vector test of their bytes, stay
themselves and never enter the table. Tokens over 16 bytes, or whose term
is, are rare (hashes, run-together words): a placeholder row each, then
filled in by one split and join with their terms from a dict.

Only used where numpy is on and the forms are large
(:func:`wikimem.index.forms.scan.scan_joined` decides); tests hold every form,
start and count equal to the pure path's.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Callable
from itertools import chain
from typing import Any

__all__ = ["StemTable"]

#: Tokens (and terms) up to this many bytes are two machine words; longer ones go through a dict.
_SHORT = 16
#: Odd multipliers of the table's hash (the slot is the product's top bits).
_MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F
#: Past the input's end: the word read at the last token's start + 8 stays inside the buffer.
_PAD = bytes(24)
_BLANK = 32
#: A row's placeholder for a long token or term (``scan_joined`` refuses texts holding it).
_LONG = 1
#: Slots of a new table (a power of two); it doubles when half full.
_FIRST_BITS = 14


class StemTable:
    """Every short token seen so far -> its term, in numpy arrays; long tokens -> terms in a dict.

    ``stem`` maps a token to its term and must leave numbers and tokens
    under three characters as they are (the analyzer's memo does: they are
    never looked up here). Thread-safe: lookups and learning run under one
    lock; a form is built from rows copied out under it.
    """

    def __init__(self, np: Any, stem: Callable[[str], str]) -> None:
        self._np = np
        self._stem = stem
        self._lock = threading.Lock()
        u64 = np.uint64
        self._masks = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=u64)
        self._mix1, self._mix2 = u64(_MIX1), u64(_MIX2)
        self._letters = u64(0x4040404040404040)  # bit 6 of each byte: set in a-z, clear in 0-9 and the padding
        # A row is 24 bytes: the term (16, zero padded), the double blank, 6 dropped (the last: the term's length).
        self._bits = 0
        self._held = 0
        self._w1: Any = None  # the table's arrays: see _grow
        self._w2: Any = None
        self._out: Any = None
        self._grow(_FIRST_BITS)
        #: Tokens over _SHORT bytes, or whose term is -> term.
        self._long: dict[bytes, bytes] = {}

    def __len__(self) -> int:
        """Distinct tokens held (numbers are never held)."""
        return self._held + len(self._long)

    def form(self, latin: bytes) -> tuple[bytes, array[int], Any] | None:
        """``latin`` (blank-separated tokens, ``b"\\x00"`` breaking texts) as the scan form of its terms.

        Returns the form ``b"  term  term  \\x00  term  "``, each text's start
        in it (with the end + 1 as a sentinel, as
        :func:`wikimem.index.forms.scan._starts` makes them) and each text's
        latin token count plus one (numpy ints), as the pure path counts
        them from blanks. ``None`` when ``latin`` holds no token or does not
        start and end with a blank (``scan_joined`` always makes it so).
        """
        np = self._np
        n = len(latin)
        if n < 2 or latin[0] != _BLANK or latin[-1] != _BLANK or _LONG in latin:
            return None
        codes = np.frombuffer(latin + _PAD, dtype=np.uint8)
        token = codes[:n] != _BLANK
        edges = np.flatnonzero(token[1:] != token[:-1]) + 1
        if not len(edges):
            return None
        starts, ends = edges[0::2], edges[1::2]
        lengths = ends - starts
        # The machine word at every byte offset (unaligned reads), masked to each token's length.
        words = np.ndarray((n + 9,), dtype="<u8", buffer=codes, strides=(1,))
        masks = self._masks
        w1 = words[starts] & masks[np.minimum(lengths, 8)]
        w2 = np.zeros(len(starts), dtype=np.uint64)
        wide = np.flatnonzero(lengths > 8)
        w2[wide] = words[starts[wide] + 8] & masks[np.minimum(lengths[wide] - 8, 8)]
        rows = np.empty((len(starts), 3), dtype=np.uint64)  # each token as itself first
        rows[:, 0], rows[:, 1], rows[:, 2] = w1, w2, _tail(np, lengths)
        # Only a token with a letter and 3-16 bytes can change (numbers, the break and
        # one- or two-letter words never do: ``may_stem``); only those are looked up.
        can = np.flatnonzero((((w1 | w2) & self._letters) != 0) & (lengths > 2) & (lengths <= _SHORT))
        cw1, cw2 = w1[can], w2[can]
        with self._lock:
            slot = self._find(cw1, cw2)
            missed = np.flatnonzero(slot < 0)
            if len(missed):
                bits = self._bits
                self._learn(latin, starts[can[missed]], ends[can[missed]], cw1[missed], cw2[missed])
                if bits == self._bits:
                    slot[missed] = self._find(cw1[missed], cw2[missed])
                else:  # grown: every slot moved
                    slot = self._find(cw1, cw2)
            # Whole rows as one 24-byte item each: a 1-D take and put (cheaper than a 2-D fancy index).
            row = np.dtype((np.void, 24))
            np.put(rows.view(row).ravel(), can, np.take(self._out.view(row).ravel(), slot))
        long = np.flatnonzero(lengths > _SHORT)
        rows[long, 0], rows[long, 1], rows[long, 2] = _LONG, 0, _tail(np, 1)
        size = (rows[:, 2] >> np.uint64(56)).astype(np.int64)
        body = _rows_joined(np, rows, size)
        special = np.flatnonzero(rows[:, 0] == _LONG)
        if len(special):
            terms = self._long_terms(latin, starts[special].tolist(), ends[special].tolist())
            pieces = body.split(bytes([_LONG]))
            body = b"".join(chain.from_iterable(zip(pieces, terms))) + pieces[-1]
            size[special] = np.array(list(map(len, terms)))
        form = b"  " + body
        at = np.empty(len(size), dtype=np.int64)
        at[0] = 2
        np.cumsum(size[:-1] + 2, out=at[1:])
        at[1:] += 2
        breaks = np.flatnonzero(w1 == 0)  # the break "\\x00" is the only token whose first word is 0
        text_starts = array("i", [0])
        text_starts.frombytes((at[breaks] + 1).astype(np.int32).tobytes())
        text_starts.append(len(form) + 1)
        counts = np.diff(np.concatenate(([-1], breaks, [len(starts)])))
        return form, text_starts, counts

    # -- the table: open addressing, linear probes, every step a vector one --

    def _grow(self, bits: int) -> None:
        """A table of ``2**bits`` slots holding what the old one held (an empty slot's first word is 0)."""
        np = self._np
        old = (self._w1, self._w2, self._out) if self._bits else None
        self._bits = bits
        slots = 1 << bits
        self._w1 = np.zeros(slots, dtype=np.uint64)
        self._w2 = np.zeros(slots, dtype=np.uint64)
        # Each slot's row: its term's two words, then the double blank with the term's length in the top byte.
        # One more row, never held: where a lookup's -1 lands.
        self._out = np.zeros((slots + 1, 3), dtype=np.uint64)
        self._held = 0
        if old is not None:
            w1, w2, out = old
            used = np.flatnonzero(w1 != 0)
            self._put(w1[used], w2[used], out[used])

    def _slots(self, w1: Any, w2: Any) -> Any:
        np = self._np
        mixed = (w1 * self._mix1) ^ (w2 * self._mix2)
        return (mixed >> np.uint64(64 - self._bits)).astype(np.int64)

    def _find(self, w1: Any, w2: Any) -> Any:
        """Each key's slot, or -1 when the table does not hold it."""
        np = self._np
        at = self._slots(w1, w2)
        first = self._w1[at]
        held = first != 0  # the break's key (0) matches an empty slot's: never held
        same = (first == w1) & held & (self._w2[at] == w2)
        found = np.where(same, at, -1)
        pending = np.flatnonzero(held & ~same)
        pending = pending[w1[pending] != 0]  # (an empty slot would match the break's key below)
        mask = (1 << self._bits) - 1
        at, w1, w2 = (at[pending] + 1) & mask, w1[pending], w2[pending]
        while len(pending):
            first = self._w1[at]
            same = (first == w1) & (self._w2[at] == w2)
            found[pending[same]] = at[same]
            probe = (first != 0) & ~same
            pending, at, w1, w2 = pending[probe], (at[probe] + 1) & mask, w1[probe], w2[probe]
        return found

    def _put(self, w1: Any, w2: Any, out: Any) -> None:
        """Insert keys the table does not hold (distinct, first word not 0), with their rows."""
        np = self._np
        at = self._slots(w1, w2)
        mask = (1 << self._bits) - 1
        self._held += len(w1)
        while len(at):
            free = self._w1[at] == 0
            # One key per free slot in this probe pass: the first to ask for it.
            _, first = np.unique(at[free], return_index=True)
            won = np.flatnonzero(free)[first]
            where = at[won]
            self._w1[where], self._w2[where], self._out[where] = w1[won], w2[won], out[won]
            left = np.ones(len(at), dtype=bool)
            left[won] = False
            at, w1, w2, out = at[left], w1[left], w2[left], out[left]
            at = np.where(self._w1[at] != 0, (at + 1) & mask, at)

    def _learn(self, latin: bytes, starts: Any, ends: Any, w1: Any, w2: Any) -> None:
        """Put these short tokens (none held; repeats allowed) into the table, with their terms."""
        np = self._np
        order = np.lexsort((w2, w1))
        first = np.ones(len(order), dtype=bool)
        first[1:] = (w1[order][1:] != w1[order][:-1]) | (w2[order][1:] != w2[order][:-1])
        new = order[first]
        stem = self._stem
        tokens = [latin[s:e] for s, e in zip(starts[new].tolist(), ends[new].tolist())]
        terms = [stem(token.decode("ascii")).encode("ascii") for token in tokens]
        out = np.zeros((len(new), 3), dtype=np.uint64)
        out[:, :2] = np.frombuffer(b"".join(t[:_SHORT].ljust(_SHORT, b"\0") for t in terms), dtype="<u8").reshape(-1, 2)
        size = np.array(list(map(len, terms)), dtype=np.int64)
        for token, term in zip(tokens, terms):
            if len(term) > _SHORT:  # a placeholder in the row, filled from the dict
                self._long[token] = term
        long = size > _SHORT
        out[long, 0], out[long, 1], size[long] = _LONG, 0, 1
        out[:, 2] = _tail(np, size)
        if 2 * (self._held + len(new)) > 1 << self._bits:
            bits = self._bits
            while 2 * (self._held + len(new)) > 1 << bits:
                bits += 1
            self._grow(bits)
        self._put(w1[new], w2[new], out)

    def _long_terms(self, latin: bytes, starts: list[int], ends: list[int]) -> list[bytes]:
        """The terms of the long tokens (or tokens with long terms) at these offsets, learnt on first sight."""
        known = self._long
        terms = []
        for s, e in zip(starts, ends):
            token = latin[s:e]
            term = known.get(token)
            if term is None:
                term = known[token] = self._stem(token.decode("ascii")).encode("ascii")
            terms.append(term)
        return terms


def _rows_joined(np: Any, rows: Any, size: Any) -> bytes:
    """Each row's term (its first ``size`` bytes) and the double blank after it, end to end.

    Written, not selected: each term's two words are stored at its place
    in the output (unaligned 8-byte writes), the second only for terms
    over 8 bytes and before all first ones; then the two blanks. A word
    runs past its term into the next term's place, and that term's own
    first word, written later (a fancy assignment writes in index order),
    covers it; what a word leaves past the last term is cut off. A
    compress of the 24-byte rows through a mask of each row's kept bytes
    would make, then read, every token's 24 mask bytes.
    """
    n = len(size)
    at = np.zeros(n, dtype=np.int64)
    np.cumsum(size[:-1] + 2, out=at[1:])
    total = int(at[-1] + size[-1] + 2) if n else 0
    out = np.empty(total + 16, dtype=np.uint8)
    words = np.ndarray((total + 9,), dtype="<u8", buffer=out, strides=(1,))
    wide = np.flatnonzero(size > 8)
    words[at[wide] + 8] = rows[wide, 1]
    words[at] = rows[:, 0]
    out[at + size] = _BLANK
    out[at + size + 1] = _BLANK
    joined: bytes = out[:total].tobytes()
    return joined


def _tail(np: Any, size: Any) -> Any:
    """A row's third word: the double blank after the term (bytes 16-17), the term's length in its top byte (dropped)."""
    return (np.asarray(size, dtype=np.uint64) << np.uint64(56)) | np.uint64(_BLANK * 257)
