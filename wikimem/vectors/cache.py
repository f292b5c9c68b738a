"""The content-hash vector cache: derived state that costs money to rebuild.

Design constraints, in order:

* **Never trust corruption.** A keys file that is not JSON, names a missing
  matrix, or disagrees with it on row count or width is "no cache" — never a
  partially right one. Deleting the files is always safe.
* **Incremental.** A row is keyed by the sha256 of the embedded text
  (``name + "\\n" + content``); an unchanged hash is reused with no embedding
  call, and a sync that changes nothing writes nothing.
* **Atomic and Windows-safe.** Each write goes to a new ``vectors-NNNNNN.npy``
  (temp file + fsync + ``os.replace``) *before* the keys file that names it is
  replaced, so a crash leaves the old pair or the new pair. A live index may
  still memory-map an older version, so old versions are removed best-effort
  and only versions older than the one just written (a concurrent writer's
  newer file is left alone).
* **Read-only is in memory.** ``VectorCache(root, persist=False)`` reads the
  cache on disk (its rows are reused) but keeps whatever a sync produces in
  this object only: nothing is created, written or swept under ``root``. A
  read-only app embeds into it and forgets the vectors when it exits.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from wikimem.blocks import atomic_writer, fsync_dir
from wikimem.tolerant import is_regular, parse_json, read_regular
from wikimem.vectors.embedders import Embedder, model_id, validate_vectors
from wikimem.vectors.plan import (
    Entry,
    Progress,
    SyncCancelled,
    SyncPlan,
    content_hash,
    embed_text,
    estimate_seconds,
)

# content_hash and embed_text are re-exported: the cache's key is their product.
__all__ = ["DIARY_VECTORS_DIR", "KEYS_FILE", "VectorCache", "cache_mismatch", "content_hash", "embed_text"]

KEYS_FILE = "vectors.keys.jsonl"
#: Sub-directory of the store root holding the diary's own cache pair.
DIARY_VECTORS_DIR = "diary-vectors"
_VERSION_RE = re.compile(r"^vectors-(\d{6,})\.npy$")

Key = dict[str, str]


def cache_mismatch(header: dict[str, Any], embedder: object) -> str | None:
    """A warning when the cache was stamped by another model, else ``None``.

    An unstamped (legacy) header or an embedder without ``.model`` cannot be
    judged, so neither counts as a mismatch.
    """
    cached = header.get("model") if isinstance(header, dict) else None
    current = model_id(embedder)
    if not isinstance(cached, str) or not cached or current is None or cached == current:
        return None
    return (
        f"vector cache was built with model {cached!r} but the embedder is {current!r}; "
        "ranking with BM25 only (delete vectors-*.npy and vectors.keys.jsonl to re-embed)"
    )


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
        if not isinstance(vectors_file, str) or Path(vectors_file).name != vectors_file \
                or not vectors_file.endswith(".npy"):
            return None
        for key in keys:
            if not isinstance(key, dict) or not all(
                isinstance(key.get(field), str) for field in ("file", "name", "hash")
            ):
                return None
        try:
            if not is_regular(self.root / vectors_file):
                return None
            matrix = _np().load(self.root / vectors_file, mmap_mode="r", allow_pickle=False)
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
    def plan(self, entries: Sequence[Entry], embedder: Embedder) -> SyncPlan:
        """What :meth:`sync` of the same entries would embed, without embedding.

        Hashes the texts and reads the keys file; the time estimate is the
        embedder's own (``estimate_seconds``, e.g. a local model timing a few
        of these very texts), ``None`` when it has none. A merge sync embeds
        the same texts, so one plan serves both.
        """
        state = self._read()
        header, old_keys, old_matrix = state if state is not None else ({}, [], None)
        mismatch = cache_mismatch(header, embedder) if old_matrix is not None else None
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
    ) -> tuple[list[Key], Any]:
        """Make the cache hold exactly ``entries`` (or add them, with ``merge``).

        ``entries`` is ``[((file, name), text), …]``. Rows whose hash is
        already cached are reused; only new texts are embedded, in batches.
        Returns ``(keys, matrix)`` as :meth:`load` would. Embedding errors
        propagate and leave the cache untouched. ``merge=True`` (the diary)
        keeps cached rows for keys not in ``entries``; without it (the wiki)
        empty ``entries`` remove the cache.

        ``progress(done, total)`` is called before the first batch and after
        each one (texts embedded so far, texts to embed). ``should_stop()``
        is asked before each batch; once it says yes, what was embedded so
        far is written -- a valid cache of the entries whose rows exist --
        and :class:`SyncCancelled` is raised, so the next sync embeds only
        the rest.
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
        reusable = old_matrix is not None and cache_mismatch(header, embedder) is None
        where: dict[str, tuple[Any, int]] = {}  # hash -> (source matrix, row)
        if reusable:
            where = {key["hash"]: (old_matrix, i) for i, key in enumerate(old_keys)}
            if merge:
                new_keys = _merge_keys(old_keys, new_keys)
        missing = list(dict.fromkeys(k["hash"] for k in new_keys if k["hash"] not in where))
        if not missing and new_keys == old_keys:
            return old_keys, old_matrix
        run = _Run(embedder, batch_size, progress, should_stop)
        try:
            fresh = run.embed([texts[h] for h in missing])
            if fresh is not None and where and fresh.shape[1] != old_matrix.shape[1]:
                # The width changed under an unknown model name: nothing old is reusable.
                where = {h: (fresh, i) for i, h in enumerate(missing)}
                new_keys = [k for k in new_keys if k["hash"] in texts]
                missing = list(dict.fromkeys(k["hash"] for k in new_keys if k["hash"] not in where))
                fresh = run.embed([texts[h] for h in missing])
        except SyncCancelled:
            partial = run.partial()
            if partial is not None:  # else nothing new: the cache on disk is as good as it was
                if where and partial.shape[1] != next(iter(where.values()))[0].shape[1]:
                    where = {}
                where.update({h: (partial, i) for i, h in enumerate(missing[:len(partial)])})
                kept = [k for k in new_keys if k["hash"] in where]
                self._write(kept, _gather(kept, where), self._model(embedder, header, kept, where, old_matrix))
            raise
        if fresh is not None:
            where.update({h: (fresh, i) for i, h in enumerate(missing)})
        if not new_keys:  # merge of nothing into an unusable cache: leave it be
            return old_keys, old_matrix
        return self._write(new_keys, _gather(new_keys, where),
                           self._model(embedder, header, new_keys, where, old_matrix))

    @staticmethod
    def _model(embedder: Embedder, header: dict[str, Any], keys: list[Key],
               where: dict[str, tuple[Any, int]], old_matrix: Any) -> str | None:
        """The model to stamp: the embedder's, else the old stamp if old rows survive."""
        reused = any(where[k["hash"]][0] is old_matrix for k in keys)
        return model_id(embedder) or (header.get("model") if reused else None)

    def _write(self, keys: list[Key], matrix: Any, model: str | None) -> tuple[list[Key], Any]:
        np = _np()
        if not self.persist:
            kept = np.ascontiguousarray(matrix, dtype=np.float32)
            self._memory = (_header("(memory)", model, kept.shape[1]), list(keys), kept)
            return list(keys), kept
        self.root.mkdir(parents=True, exist_ok=True)
        version = max(self._versions(), default=0) + 1
        while True:  # reserve the name so a concurrent writer cannot pick it too
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
        self._sweep(keep=version)
        return keys, np.load(self.root / name, mmap_mode="r", allow_pickle=False)

    def clear(self) -> None:
        """Remove the keys file and every matrix version (best-effort); in memory when not persisting."""
        if not self.persist:
            self._memory = ()
            return
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


def _header(vectors_file: str, model: str | None, dim: int) -> dict[str, Any]:
    """The keys file's first line. No model name -> no "model" key at all (the reference's layout)."""
    if model is None:
        return {"vectors_file": vectors_file, "dim": int(dim)}
    return {"vectors_file": vectors_file, "model": model, "dim": int(dim)}


class _Run:
    """The embedding calls of one sync: batches, progress, cooperative stop.

    The rows embedded so far stay available (:meth:`partial`) when a stop
    or an error ends the run, so a cancelled sync keeps its work.
    """

    def __init__(self, embedder: Embedder, batch_size: int, progress: Progress | None,
                 should_stop: Callable[[], bool] | None) -> None:
        self.embedder = embedder
        self.batch_size = batch_size
        self.progress = progress
        self.should_stop = should_stop
        self._rows: list[list[float]] = []

    def embed(self, texts: list[str]) -> Any:
        """One float32 matrix for ``texts`` (``None`` for none); may raise :class:`SyncCancelled`."""
        self._rows = []
        if not texts:
            return None
        total = len(texts)
        if self.progress is not None:
            self.progress(0, total)
        for start in range(0, total, self.batch_size):
            if self.should_stop is not None and self.should_stop():
                raise SyncCancelled(len(self._rows), total)
            batch = texts[start:start + self.batch_size]
            rows = validate_vectors(self.embedder.embed(batch), len(batch))
            if self._rows and len(rows[0]) != len(self._rows[0]):
                raise ValueError(
                    f"embedder returned vectors of different widths {sorted({len(rows[0]), len(self._rows[0])})}"
                )
            self._rows.extend(rows)
            if self.progress is not None:
                self.progress(len(self._rows), total)
        return self.partial()

    def partial(self) -> Any:
        """The rows embedded so far as a float32 matrix (``None`` when none)."""
        if not self._rows:
            return None
        np = _np()
        return np.asarray(self._rows, dtype=np.float32)


def _gather(keys: list[Key], where: dict[str, tuple[Any, int]]) -> Any:
    """Assemble the new matrix, one fancy-indexed read per source matrix."""
    np = _np()
    dim = next(iter(where.values()))[0].shape[1]
    out = np.empty((len(keys), dim), dtype=np.float32)
    plan: dict[int, tuple[Any, list[int], list[int]]] = {}
    for dest, key in enumerate(keys):
        source, row = where[key["hash"]]
        entry = plan.setdefault(id(source), (source, [], []))
        entry[1].append(dest)
        entry[2].append(row)
    for source, dests, rows in plan.values():
        out[np.asarray(dests)] = source[np.asarray(rows)]
    return out


def _merge_keys(old: list[Key], new: list[Key]) -> list[Key]:
    """Old order kept; each ``(file, name)`` present in ``new`` takes ``new``'s rows.

    Diary headings may repeat within a day, so a key group can hold several
    rows; a group is replaced as a whole where it first appeared, and groups
    never cached before are appended. An unchanged window yields ``old``.
    """
    groups: dict[tuple[str, str], list[Key]] = {}
    for key in new:
        groups.setdefault((key["file"], key["name"]), []).append(key)
    merged: list[Key] = []
    placed: set[tuple[str, str]] = set()
    for key in old:
        ident = (key["file"], key["name"])
        if ident not in groups:
            merged.append(key)
        elif ident not in placed:
            placed.add(ident)
            merged.extend(groups[ident])
    for ident, group in groups.items():
        if ident not in placed:
            merged.extend(group)
    return merged
