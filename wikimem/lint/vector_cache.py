"""Vector cache checks, without numpy: torn, stamped with another model, stale.

Lint must run where the embedding extra is not installed, so the cache is
read as the files it is: the keys file is JSON lines, and a ``.npy`` file
is a short text header (``descr``, ``fortran_order``, ``shape``) followed by
the raw matrix, whose size the header fixes. That is enough to tell every
way ``VectorCache`` would refuse the cache (bad JSON, missing or truncated
matrix, row or width mismatch) without loading a single vector. The format
constants mirror ``wikimem.vectors.cache``; a test keeps them in step.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import struct
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from wikimem.lint.findings import Finding, make_finding
from wikimem.lint.scan import ItemFacts
from wikimem.models import item_text
from wikimem.lint.snapshot import Snapshot
from wikimem.disk.tolerant import UnreadableError, open_regular, parse_json, read_regular

__all__ = ["DIARY_VECTORS_DIR", "KEYS_FILE", "VectorCheck", "read_npy_header", "vector_findings"]

KEYS_FILE = "vectors.keys.jsonl"
DIARY_VECTORS_DIR = "diary-vectors"
_VERSION_RE = re.compile(r"^vectors-(\d{6,})\.npy$")
_NPY_MAGIC = b"\x93NUMPY"
#: numpy.load's own limit (``max_header_size``): a longer header is no cache numpy would read.
_MAX_HEADER = 10_000


def read_npy_header(path: Path) -> tuple[tuple[int, ...], int, int]:
    """``(shape, itemsize, data_offset)`` of a float ``.npy`` file; ``ValueError`` if it is not one."""
    handle = open_regular(path)  # a FIFO named like a matrix must not block lint
    if handle is None:
        raise FileNotFoundError(path)
    with handle:
        head = handle.read(12)
        if len(head) < 10 or not head.startswith(_NPY_MAGIC):
            raise ValueError("not a .npy file")
        major = head[6]
        if major == 1:
            (length,), start = struct.unpack("<H", head[8:10]), 10
        elif major in (2, 3):
            (length,), start = struct.unpack("<I", head[8:12]), 12
        else:
            raise ValueError(f"unknown .npy version {major}")
        if length > _MAX_HEADER:
            raise ValueError(f"a {length}-byte .npy header (numpy refuses more than {_MAX_HEADER})")
        handle.seek(start)
        raw = handle.read(length)
    try:
        header = ast.literal_eval(raw.decode("latin-1"))
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        # A hostile header overflows the parser (MemoryError) rather than failing to parse.
        raise ValueError(f"unreadable .npy header ({type(exc).__name__}: {exc})") from None
    if not isinstance(header, dict):
        raise ValueError("the .npy header is not a dict")
    descr, shape = header.get("descr"), header.get("shape")
    if not isinstance(descr, str) or not re.fullmatch(r"[<>=|]?f[248]", descr):
        raise ValueError(f"matrix dtype {descr!r} is not float")
    if not isinstance(shape, tuple) or not all(isinstance(n, int) for n in shape):
        raise ValueError("matrix shape is unreadable")
    return shape, int(descr[-1]), start + length


def _read_keys(folder: Path) -> tuple[dict[str, Any], list[dict[str, str]]] | str:
    """``(header, keys)`` of the keys file, or why it is unusable."""
    try:
        data = read_regular(folder / KEYS_FILE)
        if data is None:
            return "the keys file is missing"
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "the keys file is not UTF-8"
    except UnreadableError as exc:
        return f"the keys file cannot be read ({exc.reason})"
    except OSError as exc:
        return f"the keys file cannot be read ({exc.strerror})"
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return "the keys file is empty"
    try:
        header = parse_json(lines[0])
        keys = parse_json("[" + ",".join(lines[1:]) + "]")
    except ValueError:
        return "the keys file is not JSON lines"
    if not isinstance(header, dict) or not isinstance(header.get("vectors_file"), str):
        return "the keys file's header names no vectors file"
    if len(keys) != len(lines) - 1 or not all(
        isinstance(k, dict) and all(isinstance(k.get(f), str) for f in ("file", "name", "hash")) for k in keys
    ):
        return "a key line is not {file, name, hash}"
    return header, keys


def _check_matrix(folder: Path, header: dict[str, Any], rows: int) -> str | None:
    name = header["vectors_file"]
    if Path(name).name != name or not name.endswith(".npy"):
        return f"the header names {name!r}, which is not a matrix file in this folder"
    path = folder / name
    try:
        shape, itemsize, offset = read_npy_header(path)
        size = path.stat().st_size
    except FileNotFoundError:
        return f"the matrix {name} is missing"
    except (OSError, ValueError) as exc:
        return f"the matrix {name} is unreadable ({exc})"
    if len(shape) != 2:
        return f"the matrix {name} is not 2-D (shape {shape})"
    if shape[0] != rows:
        return f"the matrix {name} has {shape[0]} rows but the keys file lists {rows}"
    dim = header.get("dim")
    if isinstance(dim, int) and not isinstance(dim, bool) and dim != shape[1]:
        return f"the matrix {name} is {shape[1]} wide but the header says dim {dim}"
    if size < offset + shape[0] * shape[1] * itemsize:
        return f"the matrix {name} is truncated ({size} bytes for shape {shape})"
    return None


def _hash(item: ItemFacts, name: str) -> str:
    """The cache key of an item's row (kept on its facts: computed once per read)."""
    if item.vector_hash is None:
        item.vector_hash = hashlib.sha256(item_text(name, item.content).encode()).hexdigest()
    return item.vector_hash


def _signature(folder: Path) -> tuple[object, ...] | None:
    """What the cache in ``folder`` looks like from outside: ``None`` when there is none."""
    try:
        st = os.stat(folder / KEYS_FILE)
        keys: object = (st.st_mtime_ns, st.st_size)
    except OSError:
        keys = None
    try:
        versions = sorted(n for n in os.listdir(folder) if _VERSION_RE.match(n))
    except OSError:
        versions = []
    if keys is None and not versions:
        return None
    stats: list[tuple[str, int | None, int | None]] = []
    for name in versions:
        try:
            st = os.stat(folder / name)
            stats.append((name, st.st_mtime_ns, st.st_size))
        except OSError:
            stats.append((name, None, None))
    return keys, tuple(stats)


class _Folder:
    """One cache pair (the wiki's at the root, the diary's in ``diary-vectors/``)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.signature: tuple[object, ...] | None = None
        self.problem: Finding | None = None
        self.header: dict[str, Any] = {}
        self.rows = 0
        self.by_file: dict[str, list[tuple[str, str]]] = {}
        self.stale: dict[str, tuple[int, int]] = {}

    def refresh(self, folder: Path) -> bool:
        """Re-read the keys file if the cache changed on disk; True when it did."""
        signature = _signature(folder)
        if signature == self.signature and signature is not None:
            return False
        self.signature, self.problem, self.header, self.rows, self.by_file = signature, None, {}, 0, {}
        self.stale = {}
        if signature is None:
            return True
        keys_rel = f"{self.label}{KEYS_FILE}"
        if signature[0] is None:
            versions = signature[1]
            self.problem = make_finding(
                "vector-cache-torn", f"{self.label}{versions[-1][0]}",  # type: ignore[index]
                "a vector matrix without its keys file: the cache is ignored and rebuilt "
                "(every row re-embedded) on the next sync")
            return True
        keys = _read_keys(folder)
        problem = keys if isinstance(keys, str) else _check_matrix(folder, keys[0], len(keys[1]))
        if problem is not None:
            self.problem = make_finding("vector-cache-torn", keys_rel, f"{problem}: the cache is ignored and "
                                        "rebuilt (every row re-embedded) on the next sync")
            return True
        assert not isinstance(keys, str)
        self.header, rows = keys
        self.rows = len(rows)
        for row in rows:
            self.by_file.setdefault(row["file"], []).append((row["name"], row["hash"]))
        return True

    def recount(self, files: Iterable[str], current: Callable[[str, str], Iterable[str] | None]) -> None:
        """Re-judge the rows of ``files`` against the current hashes."""
        for file in files:
            changed = gone = 0
            for name, digest in self.by_file.get(file, ()):
                hashes = current(file, name)
                if hashes is None:
                    gone += 1
                elif digest not in hashes:
                    changed += 1
            if changed or gone:
                self.stale[file] = (changed, gone)
            else:
                self.stale.pop(file, None)

    @property
    def model(self) -> str | None:
        model = self.header.get("model")
        return model if isinstance(model, str) and model else None

    @property
    def dim(self) -> int | None:
        dim = self.header.get("dim")
        return dim if isinstance(dim, int) and not isinstance(dim, bool) else None

    def findings(self, model: str | None, dim: int | None = None) -> list[Finding]:
        if self.problem is not None:
            return [self.problem]
        if self.signature is None:
            return []
        keys_rel = f"{self.label}{KEYS_FILE}"
        out: list[Finding] = []
        stamped = self.model
        if model is not None and stamped is not None and stamped != model:
            out.append(make_finding(
                "vector-cache-model", keys_rel, f"built with model {stamped!r} but the embedder in use is "
                f"{model!r}: ranking falls back to BM25 only until the cache is deleted and re-embedded"))
        elif dim is not None and self.dim is not None and self.dim != dim:
            out.append(make_finding(
                "vector-cache-model", keys_rel, f"built with model {stamped!r} at {self.dim} dimensions but the "
                f"embedder in use returns {dim}: ranking falls back to BM25 only until the cache is deleted and "
                "re-embedded"))
        changed = sum(c for c, _ in self.stale.values())
        gone = sum(g for _, g in self.stale.values())
        if changed or gone:
            out.append(make_finding(
                "vector-cache-stale", keys_rel, f"{changed} row(s) for changed content and {gone} for items "
                f"that no longer exist, of {self.rows}: the next sync re-embeds what changed"))
        return out


class VectorCheck:
    """The vector cache checks, kept between runs.

    The keys files are re-read only when a cache file changed on disk, and
    rows are re-judged only for the RecallFiles and days that changed, so
    a re-lint after an edit does not hash the store again.
    """

    def __init__(self) -> None:
        self._wiki = _Folder("")
        self._diary = _Folder(f"{DIARY_VECTORS_DIR}/")

    def run(self, snapshot: Snapshot, touched: Iterable[str], *, model: str | None = None,
            dim: int | None = None) -> list[Finding]:
        """Findings for the wiki cache (store root) and the diary cache (``diary-vectors/``).

        ``touched`` are the memory paths re-read since the last run; ``model``
        and ``dim`` describe the embedder in use, when known.
        """
        wiki, diary = snapshot.wiki, snapshot.diary

        def wiki_hashes(file: str, name: str) -> Iterable[str] | None:
            item = wiki.get((file, name))
            return None if item is None else (_hash(item, name),)

        def diary_hashes(date: str, time: str) -> Iterable[str] | None:
            entries = diary.get((date, time))
            return None if entries is None else {_hash(entry, time) for entry in entries}

        touched = list(touched)
        for folder, where, current, prefix in (
            (self._wiki, snapshot.root, wiki_hashes, "wiki/"),
            (self._diary, snapshot.root / DIARY_VECTORS_DIR, diary_hashes, "diary/"),
        ):
            if folder.refresh(where):
                folder.recount(list(folder.by_file), current)
            else:
                files = [p[len(prefix):-3] for p in touched if p.startswith(prefix)]
                folder.recount([f for f in files if f in folder.by_file], current)
        findings = self._wiki.findings(model, dim) + self._diary.findings(model, dim)
        wiki_folder, diary_folder = self._wiki, self._diary
        if wiki_folder.problem is None and diary_folder.problem is None and wiki_folder.signature \
                and diary_folder.signature:
            keys_file = f"{DIARY_VECTORS_DIR}/{KEYS_FILE}"
            if model is None and wiki_folder.model and diary_folder.model and wiki_folder.model != diary_folder.model:
                findings.append(make_finding(
                    "vector-cache-model", keys_file, f"built with model {diary_folder.model!r} but the wiki cache "
                    f"with {wiki_folder.model!r}: one of them is from another model"))
            elif dim is None and wiki_folder.dim and diary_folder.dim and wiki_folder.dim != diary_folder.dim:
                findings.append(make_finding(
                    "vector-cache-model", keys_file, f"{diary_folder.dim} dimensions wide but the wiki cache "
                    f"{wiki_folder.dim}, under the model name {diary_folder.model or wiki_folder.model!r}: one of them is from "
                    "another model (or another version of it); ranking with the other falls back to BM25 only"))
        return findings


def vector_findings(snapshot: Snapshot, *, model: str | None = None, dim: int | None = None) -> list[Finding]:
    """The vector cache findings of ``snapshot``, checked once."""
    return VectorCheck().run(snapshot, (), model=model, dim=dim)
