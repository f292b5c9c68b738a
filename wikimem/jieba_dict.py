"""jieba's dictionary in a form that loads in milliseconds, to segment a query as jieba does.

Why it exists: jieba reads its whole prefix dictionary (half a million
words and prefixes, a marshalled dict) before its first cut, which costs
a prompt hook -- a fresh process per prompt that segments one short
query -- more than the rest of its recall. The same entries, sorted and
packed (the keys in one string, their offsets and frequencies in two
arrays), load in a few milliseconds and answer a lookup by binary search:
slower per lookup than a dict, which a query's few dozen lookups do not
notice.

Exactness: the cut itself is jieba's own code (a ``jieba.Tokenizer``
whose dictionary is the packed one: its DAG, route and HMM for unknown
words run unchanged), so the words are ``jieba.lcut``'s as long as the
entries are those of jieba's default dictionary. They are written from a
process that loaded that dictionary itself, and kept by a fingerprint of
jieba's files in the user's cache folder; a missing, corrupt or foreign
file reads as none. A process that loaded or changed jieba's dictionary
(``add_word``, ``load_userdict``, ``set_dictionary``) uses jieba itself.
"""

from __future__ import annotations

import hashlib
import logging
import os
from array import array
from bisect import bisect_left
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wikimem.disk.sealed import read_sealed, write_sealed

__all__ = ["PackedDictionary", "dictionary_path", "packed_cut", "read", "write"]

log = logging.getLogger(__name__)

FORMAT = "wikimem-jieba-dict-1"


def dictionary_path(fingerprint: str, *, base: Path | None = None) -> Path:
    """Where the packed dictionary for jieba's files ``fingerprint`` is kept (the user's cache folder)."""
    if base is None:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = (Path(xdg) if xdg else Path.home() / ".cache") / "wikimem" / "jieba"
    return base / f"{hashlib.sha256(fingerprint.encode()).hexdigest()[:32]}.dict"


class PackedDictionary:
    """jieba's ``FREQ`` (word or prefix -> frequency) as sorted packed entries; what a ``jieba.Tokenizer`` reads."""

    def __init__(self, keys: str, offsets: array[int], freqs: array[int]) -> None:
        self._keys = keys
        self._offsets = offsets  # key i is keys[offsets[i]:offsets[i + 1] - 1]
        self._freqs = freqs

    def __len__(self) -> int:
        return len(self._freqs)

    def key(self, at: int) -> str:
        """The ``at``-th key in sorted order."""
        return self._keys[self._offsets[at] : self._offsets[at + 1] - 1]

    def _at(self, word: str) -> int:
        at = bisect_left(_Keys(self), word)
        return at if at < len(self._freqs) and self.key(at) == word else -1

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._at(word) >= 0

    def __getitem__(self, word: str) -> int:
        at = self._at(word)
        if at < 0:
            raise KeyError(word)
        return self._freqs[at]

    def get(self, word: str, default: int | None = None) -> int | None:
        at = self._at(word)
        return self._freqs[at] if at >= 0 else default


class _Keys:
    """The sorted keys as a sequence, for :func:`bisect.bisect_left`."""

    __slots__ = ("_packed",)

    def __init__(self, packed: PackedDictionary) -> None:
        self._packed = packed

    def __len__(self) -> int:
        return len(self._packed)

    def __getitem__(self, at: int) -> str:
        return self._packed.key(at)


def pack(freq: dict[str, int]) -> tuple[str, array[int], array[int]]:
    """jieba's ``FREQ`` as the packed entries: keys joined by newlines, their offsets, their frequencies."""
    keys = sorted(freq)
    offsets = array("I", [0])
    offsets.extend(_accumulate_lengths(keys))
    return "\n".join(keys) + "\n", offsets, array("q", map(freq.__getitem__, keys))


def _accumulate_lengths(keys: list[str]) -> list[int]:
    out, at = [], 0
    for key in keys:
        at += len(key) + 1
        out.append(at)
    return out


def write(path: Path, fingerprint: str, freq: dict[str, int], total: int) -> bool:
    """Keep jieba's loaded default dictionary packed at ``path``; False (logged) when it could not be written."""
    keys, offsets, freqs = pack(freq)
    try:
        write_sealed(path, (FORMAT, fingerprint, total, keys, offsets.tobytes(), freqs.tobytes()))
        return True
    except OSError as exc:
        log.info("jieba's packed dictionary %s was not written (%s)", path, exc)
        return False


def read(path: Path, fingerprint: str) -> tuple[PackedDictionary, int] | None:
    """The packed dictionary at ``path`` and jieba's total when whole and made for ``fingerprint``; else ``None``."""
    loaded = read_sealed(path)
    if not (isinstance(loaded, tuple) and len(loaded) == 6):
        return None
    form, made_for, total, keys, offsets_bytes, freqs_bytes = loaded
    if form != FORMAT or made_for != fingerprint or type(total) is not int or total <= 0:
        return None
    if type(keys) is not str or type(offsets_bytes) is not bytes or type(freqs_bytes) is not bytes:
        return None
    offsets, freqs = array("I"), array("q")
    try:
        offsets.frombytes(offsets_bytes)
        freqs.frombytes(freqs_bytes)
    except ValueError:
        return None
    if len(offsets) != len(freqs) + 1 or offsets[0] != 0 or offsets[-1] != len(keys):
        return None
    return PackedDictionary(keys, offsets, freqs), total


def packed_cut(jieba: Any, packed: PackedDictionary, total: int) -> Callable[[str], list[str]]:
    """``jieba.lcut`` over the packed dictionary: jieba's own cut (DAG, route, HMM) reading it."""
    tokenizer = jieba.Tokenizer()
    tokenizer.FREQ = packed
    tokenizer.total = total
    tokenizer.initialized = True
    cut: Callable[[str], list[str]] = tokenizer.lcut
    return cut
