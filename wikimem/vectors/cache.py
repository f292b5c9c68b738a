"""The content-hash vector cache: derived state that costs money to rebuild.

Design constraints, in order:

* **Never trust corruption.** A keys file that is not JSON, names a missing
  matrix, or disagrees with it on rows or width is "no cache", never a
  partially right one. Deleting the files is always safe.
* **Incremental.** A row is keyed by the sha256 of the embedded text; an
  unchanged hash is reused with no embedding call, and a sync that changes
  nothing writes nothing.
* **Atomic and Windows-safe.** Each write goes to a new ``vectors-NNNNNN.npy``
  *before* the keys file that names it is replaced, so a crash leaves the old
  pair or the new pair. A live index may still map an older version, so old
  versions are removed best-effort, and only those older than the one written.
* **Safe between processes.** The write, the sweep and the mapping of the new
  matrix happen under the store lock of the cache's folder, and a reader whose
  keys name a matrix a concurrent sync just swept reads the keys again instead
  of taking the cache for torn. Embedding itself runs outside the lock.
* **Read-only is in memory.** ``VectorCache(root, persist=False)`` reuses the
  rows on disk but keeps what a sync produces in this object only.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from wikimem.disk.blocks import atomic_writer, fsync_dir, store_lock
from wikimem.disk.store_dir import ForeignFolderError, foreign_folder
from wikimem.disk.tolerant import is_regular, parse_json, read_regular
from wikimem.vectors.embedders import Embedder, model_id
from wikimem.vectors.plan import (
    Entry,
    Progress,
    SyncCancelled,
    SyncPlan,
    content_hash,
    embed_text,
    estimate_seconds,
)
from wikimem.vectors.rows import DegenerateVectors, EmbedRun, gather, merge_keys

# content_hash and embed_text are re-exported: the cache's key is their product.
__all__ = ["DIARY_VECTORS_DIR", "KEYS_FILE", "VectorCache", "cache_mismatch", "content_hash", "embed_text"]

KEYS_FILE = "vectors.keys.jsonl"
#: Sub-directory of the store root holding the diary's own cache pair.
DIARY_VECTORS_DIR = "diary-vectors"
_VERSION_RE = re.compile(r"^vectors-(\d{6,})\.npy$")

Key = dict[str, str]


_REMEDY = "ranking with BM25 only (delete vectors-*.npy and vectors.keys.jsonl to re-embed)"
#: Reads of the keys file when the matrix it names was swept meanwhile (a concurrent sync).
_READ_TRIES = 10


def cache_mismatch(header: dict[str, Any], embedder: object, *, dim: int | None = None) -> str | None:
    """A warning when the cache was stamped by another model, or has another width, else ``None``.

    An unstamped (legacy) header or an embedder without ``.model`` cannot be
    judged, so neither counts as a mismatch of models. ``dim`` is the width
    the embedder returns now (known once it has embedded something): the
    same model name at another width -- a redeployed endpoint, another
    model behind the same name -- is no more comparable than another model.
    """
    cached = header.get("model") if isinstance(header, dict) else None
    current = model_id(embedder)
    if isinstance(cached, str) and cached and current is not None and cached != current:
        return f"vector cache was built with model {cached!r} but the embedder is {current!r}; {_REMEDY}"
    width = header.get("dim") if isinstance(header, dict) else None
    if dim is not None and isinstance(width, int) and not isinstance(width, bool) and width != dim:
        name = cached if isinstance(cached, str) and cached else current
        model = repr(name) if name is not None else "(unnamed)"
        return (f"vector cache was built with model {model} at {width} dimensions but the embedder now returns "
                f"{dim}; {_REMEDY}")
    return None


def _np() -> Any:
    import numpy  # lazy: only the embedding extra needs it

    return numpy


class VectorCache:
    """One keys file + one matrix in ``root`` (the store root, or ``diary-vectors/``).

    ``persist=False``: read what is on disk, never write there (see the
    module docstring); what a sync makes is held in memory instead.
    """

    def __init__(self, root: str | os.PathLike[str], *, persist: bool = True) -> None:
        self.root = Path(root)
        self.keys_path = self.root / KEYS_FILE
        #: False: syncs keep their result in memory and nothing under ``root`` is touched.
        self.persist = persist
        #: What the last in-memory write made (``persist=False`` only): None = not
        #: written yet (read the disk), ``()`` = cleared, else (header, keys, matrix).
        self._memory: tuple[()] | tuple[dict[str, Any], list[Key], Any] | None = None

    def __repr__(self) -> str:
        return f"VectorCache({str(self.root)!r})" if self.persist else f"VectorCache({str(self.root)!r}, persist=False)"

    # ------------------------------------------------------------------ read
    def _read(self) -> tuple[dict[str, Any], list[Key], Any] | None:
        """(header, keys, memmapped matrix), or ``None`` when absent or not trustworthy."""
        memory = self._memory
        if memory is not None:
            return memory or None
        for _ in range(_READ_TRIES):
            state = self._read_disk()
            if state is not _SWEPT:
                return state  # type: ignore[return-value]
        return None  # still naming a missing matrix: torn

    def _read_disk(self) -> tuple[dict[str, Any], list[Key], Any] | None | object:
        """One read of the pair; ``_SWEPT`` when the named matrix is gone (read the keys again)."""
        if self._leads_out() is not None:
            return None
        try:
            data = read_regular(self.keys_path)  # regular files only: a FIFO would block the query
            if data is None:
                return None
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        lines = [line for line in text.splitlines() if line.strip()]
        if not lines:
            return None
        try:
            header = parse_json(lines[0])
            keys = parse_json("[" + ",".join(lines[1:]) + "]")  # one parse, not one per row
        except ValueError:
            return None
        vectors_file = header.get("vectors_file") if isinstance(header, dict) else None
        if not isinstance(vectors_file, str) or not _VERSION_RE.fullmatch(vectors_file):
            return None  # a name this cache writes, in its own folder: never a path
        for key in keys:
            if not isinstance(key, dict) or not all(
                isinstance(key.get(field), str) for field in ("file", "name", "hash")
            ):
                return None
        try:
            if not is_regular(self.root / vectors_file, root=self.root):
                return _SWEPT
            matrix = _np().load(self.root / vectors_file, mmap_mode="r", allow_pickle=False)
        except FileNotFoundError:
            return _SWEPT
        except Exception:  # noqa: BLE001 - a crafted header raises MemoryError or TokenError, not ValueError
            return None
        if matrix.ndim != 2 or matrix.shape[0] != len(keys) or matrix.dtype.kind != "f":
            return None
        dim = header.get("dim")
        if isinstance(dim, int) and not isinstance(dim, bool) and dim != matrix.shape[1]:
            return None
        clean = [{"file": k["file"], "name": k["name"], "hash": k["hash"]} for k in keys]
        return header, clean, matrix

    def load(self) -> tuple[list[Key], Any]:
        """``(keys, matrix)`` with the matrix memory-mapped; ``([], None)`` when absent/torn."""
        state = self._read()
        if state is None:
            return [], None
        return state[1], state[2]

    def header(self) -> dict[str, Any]:
        """The header line of a valid cache, ``{}`` when absent or torn."""
        state = self._read()
        return dict(state[0]) if state is not None else {}

    # ------------------------------------------------------------------ plan
    def plan(self, entries: Sequence[Entry], embedder: Embedder, *, dim: int | None = None) -> SyncPlan:
        """What :meth:`sync` of the same entries would embed, without embedding.

        Hashes the texts and reads the keys file; the time estimate is the
        embedder's own (``estimate_seconds``, e.g. a local model timing a few
        of these very texts), ``None`` when it has none. A merge sync embeds
        the same texts, so one plan serves both. ``dim``: as for :meth:`sync`.
        """
        state = self._read()
        header, old_keys, old_matrix = state if state is not None else ({}, [], None)
        mismatch = cache_mismatch(header, embedder, dim=dim) if old_matrix is not None else None
        cached = {k["hash"] for k in old_keys} if old_matrix is not None and mismatch is None else set()
        hashes = [content_hash(text) for _, text in entries]
        missing = list({h: text for h, (_, text) in zip(hashes, entries) if h not in cached}.values())
        return SyncPlan(
            entries=len(entries),
            to_embed=len(missing),
            reused=sum(1 for h in hashes if h in cached),
            chars=sum(map(len, missing)),
            est_seconds=estimate_seconds(embedder, missing),
            mismatch=mismatch,
        )

    # ----------------------------------------------------------------- write
    def sync(
        self,
        entries: Sequence[Entry],
        embedder: Embedder,
        *,
        batch_size: int = 64,
        merge: bool = False,
        progress: Progress | None = None,
        should_stop: Callable[[], bool] | None = None,
        dim: int | None = None,
    ) -> tuple[list[Key], Any]:
        """Make the cache hold exactly ``entries`` (or add them, with ``merge``).

        ``entries`` is ``[((file, name), text), …]``. Rows whose hash is already
        cached are reused; only new texts are embedded, in batches. Returns
        ``(keys, matrix)`` as :meth:`load` would. Embedding errors propagate and
        leave the cache untouched. ``merge=True`` (the diary) keeps cached rows for
        keys not in ``entries``; without it (the wiki) empty ``entries`` remove the
        cache.

        ``progress(done, total)`` is called before the first batch and after each.
        ``should_stop()`` is asked before each batch; once it says yes, what was
        embedded so far is written (a valid cache) and :class:`SyncCancelled` is
        raised, so the next sync embeds only the rest. ``dim``, when the caller
        knows the embedder's width, replaces a cache of another width as one of
        another model is. Rows with no direction are not written:
        :class:`~wikimem.vectors.DegenerateVectors` is raised after the good rows are.
        """
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        state = self._read()
        header, old_keys, old_matrix = state if state is not None else ({}, [], None)
        if not entries and not merge:
            if state is not None or (self.persist and self.keys_path.exists()):
                self.clear()
            return [], None
        new_keys = [
            {"file": file, "name": name, "hash": content_hash(text)}
            for (file, name), text in entries
        ]
        texts = {key["hash"]: text for key, (_, text) in zip(new_keys, entries)}
        # Rows from another model live in another space: reuse nothing then.
        reusable = old_matrix is not None and cache_mismatch(header, embedder, dim=dim) is None
        where: dict[str, tuple[Any, int]] = {}  # hash -> (source matrix, row)
        if reusable:
            where = {key["hash"]: (old_matrix, i) for i, key in enumerate(old_keys)}
            if merge:
                new_keys = merge_keys(old_keys, new_keys)
        missing = list(dict.fromkeys(k["hash"] for k in new_keys if k["hash"] not in where))
        if not missing and new_keys == old_keys:
            return old_keys, old_matrix
        run = EmbedRun(embedder, batch_size, progress, should_stop)
        rejected: set[str] = set()  # hashes whose rows have no direction: never cached
        try:
            fresh = run.embed([texts[h] for h in missing])
            if fresh is not None and where and old_matrix is not None and fresh.shape[1] != old_matrix.shape[1]:
                # The width changed: nothing old is reusable. (A query never gets
                # here for a known model: it checks the width first, see Semantic.)
                rejected = {missing[i] for i in run.rejected}
                where = run.placed(missing, fresh)
                new_keys = [k for k in new_keys if k["hash"] in texts]
                missing = list(dict.fromkeys(k["hash"] for k in new_keys
                                             if k["hash"] not in where and k["hash"] not in rejected))
                fresh = run.embed([texts[h] for h in missing])
        except SyncCancelled:
            partial = run.partial()
            if partial is not None:  # else nothing new: the cache on disk is as good as it was
                if where and partial.shape[1] != next(iter(where.values()))[0].shape[1]:
                    where = {}
                where.update(run.placed(missing, partial))
                self._write_kept(new_keys, where, embedder, header, old_matrix)
            raise
        if fresh is not None:
            rejected |= {missing[i] for i in run.rejected}
            where.update(run.placed(missing, fresh))
        if not new_keys:  # merge of nothing into an unusable cache: leave it be
            return old_keys, old_matrix
        if rejected:  # keep the good rows, then say the query cannot use this sync
            self._write_kept(new_keys, where, embedder, header, old_matrix)
            raise DegenerateVectors(len(rejected), len(texts))
        return self._write(new_keys, gather(new_keys, where),
                           self._model(embedder, header, new_keys, where, old_matrix))

    def _write_kept(self, keys: list[Key], where: dict[str, tuple[Any, int]], embedder: Embedder,
                    header: dict[str, Any], old_matrix: Any) -> None:
        """Write the ``keys`` that have a row (a cancelled or partly rejected sync keeps its work)."""
        kept = [k for k in keys if k["hash"] in where]
        if kept:
            self._write(kept, gather(kept, where), self._model(embedder, header, kept, where, old_matrix))

    @staticmethod
    def _model(embedder: Embedder, header: dict[str, Any], keys: list[Key],
               where: dict[str, tuple[Any, int]], old_matrix: Any) -> str | None:
        """The model to stamp: the embedder's, else the old stamp if old rows survive."""
        reused = any(where[k["hash"]][0] is old_matrix for k in keys)
        return model_id(embedder) or (header.get("model") if reused else None)

    def _leads_out(self) -> str | None:
        """Where the diary's cache folder leads when that is outside the memory (never read or written then)."""
        return foreign_folder(self.root.parent, self.root.name) if self.root.name == DIARY_VECTORS_DIR else None

    def _write(self, keys: list[Key], matrix: Any, model: str | None) -> tuple[list[Key], Any]:
        np = _np()
        if not self.persist:
            kept = np.ascontiguousarray(matrix, dtype=np.float32)
            self._memory = (_header("(memory)", model, kept.shape[1]), list(keys), kept)
            return list(keys), kept
        outside = self._leads_out()
        if outside is not None:
            raise ForeignFolderError(self.root.name, outside)
        self.root.mkdir(parents=True, exist_ok=True)
        # Write, sweep and map under the lock: another process's sweep must not
        # remove this matrix between its write and its load (see the module docstring).
        with store_lock(self.root):
            version = max(self._versions(), default=0) + 1
            while True:  # reserve the name (a writer that bypasses the lock must not pick it too)
                name = f"vectors-{version:06d}.npy"
                try:
                    with open(self.root / name, "x"):
                        break
                except FileExistsError:
                    version += 1
            try:
                with atomic_writer(self.root / name) as fh:
                    np.save(fh, np.ascontiguousarray(matrix, dtype=np.float32), allow_pickle=False)
                lines = [json.dumps(_header(name, model, matrix.shape[1]), ensure_ascii=False)]
                lines += [json.dumps(k, ensure_ascii=False) for k in keys]
                with atomic_writer(self.keys_path) as fh:
                    fh.write(("\n".join(lines) + "\n").encode("utf-8"))
            except BaseException:
                with contextlib.suppress(OSError):
                    (self.root / name).unlink()
                raise
            fsync_dir(self.root)
            loaded = np.load(self.root / name, mmap_mode="r", allow_pickle=False)
            self._sweep(keep=version)
        return keys, loaded

    def clear(self) -> None:
        """Remove the keys file and every matrix version (best-effort); in memory when not persisting."""
        if not self.persist:
            self._memory = ()
            return
        if not self.root.is_dir():
            return
        with store_lock(self.root):
            with contextlib.suppress(OSError):
                self.keys_path.unlink()
            self._sweep(keep=None)

    def _versions(self) -> Iterable[int]:
        try:
            names = os.listdir(self.root)
        except OSError:
            return []
        return [int(m.group(1)) for m in map(_VERSION_RE.match, names) if m]

    def _sweep(self, keep: int | None) -> None:
        for version in self._versions():
            if keep is None or version < keep:
                # Best-effort: Windows refuses while a live index maps it.
                with contextlib.suppress(OSError):
                    (self.root / f"vectors-{version:06d}.npy").unlink()


#: What ``_read_disk`` returns when the keys name a matrix that is gone.
_SWEPT = object()


def _header(vectors_file: str, model: str | None, dim: int) -> dict[str, Any]:
    """The keys file's first line. No model name -> no "model" key at all (the reference's layout)."""
    if model is None:
        return {"vectors_file": vectors_file, "dim": int(dim)}
    return {"vectors_file": vectors_file, "model": model, "dim": int(dim)}
