"""The jieba segmentation of a store's files, kept between processes, never trusted.

Why it exists: segmenting Chinese with jieba runs in pure Python, so a
process that segmented every file of a large store on each cold load (a
prompt hook starts one per prompt) would spend most of its time redoing
what the last one did. The answer is derived from the file contents and the
dictionary only, so it is kept per store in the user's cache folder
(``$XDG_CACHE_HOME/wikimem/segmentation``, else ``~/.cache/...``): derived,
per-user data, not the user's notes, so never inside the memory folder.

What it holds (:class:`Segmentation`): the word table (code ``i`` is word
``i``, see :mod:`wikimem.index.forms.words`) and, per file content (a digest
of the bytes), the CJK scan form of the file's texts with their ideograph
runs replaced by word codes. The header names the format, the store and the segmenter's
fingerprint; a digest covers the payload. A file that is missing, corrupt,
foreign (another store, format or dictionary) or of the wrong shape reads
as "no cache"; a write goes to a temporary file replaced atomically, and a
failed write is logged, never raised: the index is right without it.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from wikimem.disk.sealed import read_sealed, write_sealed

__all__ = ["FORMAT", "Segmentation", "cache_path", "read", "write"]

log = logging.getLogger(__name__)

FORMAT = "wikimem-segmentation-3"


@dataclass
class Segmentation:
    """A word table and coded file texts (see the module doc), as read or to be written."""

    fingerprint: str
    words: list[str] = field(default_factory=list)
    #: digest of a file's texts -> their CJK form with word codes, and whether they hold a character lowercasing to ASCII.
    files: dict[bytes, tuple[str, bool]] = field(default_factory=dict)


def cache_path(store_root: Path, part: str, *, base: Path | None = None) -> Path:
    """The cache file of ``part`` (``"wiki"``, ``"diary"``) of the store at ``store_root``, named by its resolved path."""
    if base is None:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = (Path(xdg) if xdg else Path.home() / ".cache") / "wikimem" / "segmentation"
    name = hashlib.sha256(os.fsencode(store_root.resolve())).hexdigest()[:32]
    return base / f"{name}.{part}.seg"


def _identity(store_root: Path) -> str:
    return os.fsdecode(store_root.resolve())


def read(path: Path, store_root: Path, fingerprint: str) -> Segmentation | None:
    """The segmentation at ``path`` when it is whole and made for this store and segmenter; else ``None``."""
    loaded = read_sealed(path)
    if not (isinstance(loaded, tuple) and len(loaded) == 5):
        return None
    form, store, made_by, words, files = loaded
    if form != FORMAT or store != _identity(store_root) or made_by != fingerprint:
        return None
    if type(words) is not list or not set(map(type, words)) <= {str} or len(set(words)) != len(words):
        return None
    if type(files) is not dict or not set(map(type, files)) <= {bytes} or not all(map(_entry, files.values())):
        return None
    return Segmentation(fingerprint, words, files)


def _entry(value: object) -> bool:
    return type(value) is tuple and len(value) == 2 and type(value[0]) is str and type(value[1]) is bool


def write(path: Path, store_root: Path, seg: Segmentation) -> bool:
    """Write ``seg`` at ``path`` atomically; False (logged) when it could not be written."""
    try:
        write_sealed(path, (FORMAT, _identity(store_root), seg.fingerprint, seg.words, seg.files))
        return True
    except OSError as exc:
        log.info("the segmentation cache %s was not written (%s); the next load segments again", path, exc)
        return False
