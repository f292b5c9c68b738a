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
import json
import os
import re
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from wikimem.lint.findings import Finding, make_finding
from wikimem.lint.snapshot import Snapshot

__all__ = ["DIARY_VECTORS_DIR", "KEYS_FILE", "read_npy_header", "vector_findings"]

KEYS_FILE = "vectors.keys.jsonl"
DIARY_VECTORS_DIR = "diary-vectors"
_VERSION_RE = re.compile(r"^vectors-(\d{6,})\.npy$")
_NPY_MAGIC = b"\x93NUMPY"


def read_npy_header(path: Path) -> tuple[tuple[int, ...], int, int]:
    """``(shape, itemsize, data_offset)`` of a float ``.npy`` file; ``ValueError`` if it is not one."""
    with open(path, "rb") as handle:
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
        handle.seek(start)
        raw = handle.read(length)
    try:
        header = ast.literal_eval(raw.decode("latin-1"))
    except (ValueError, SyntaxError) as exc:
        raise ValueError(f"unreadable .npy header ({exc})") from None
    descr, shape = header.get("descr") if isinstance(header, dict) else None, header.get("shape")
    if not isinstance(descr, str) or not re.fullmatch(r"[<>=|]?f[248]", descr):
        raise ValueError(f"matrix dtype {descr!r} is not float")
    if not isinstance(shape, tuple) or not all(isinstance(n, int) for n in shape):
        raise ValueError("matrix shape is unreadable")
    return shape, int(descr[-1]), start + length


def _read_keys(folder: Path) -> tuple[dict[str, Any], list[dict[str, str]]] | str:
    """``(header, keys)`` of the keys file, or why it is unusable."""
    try:
        text = (folder / KEYS_FILE).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return "the keys file is not UTF-8"
    except OSError as exc:
        return f"the keys file cannot be read ({exc.strerror})"
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return "the keys file is empty"
    try:
        header = json.loads(lines[0])
        keys = json.loads("[" + ",".join(lines[1:]) + "]")
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


def _hash(name: str, content: str) -> str:
    return hashlib.sha256(f"{name}\n{content}".encode()).hexdigest()


def _stale(keys: list[dict[str, str]], current: dict[tuple[str, str], Iterable[str]]) -> tuple[int, int]:
    """``(changed, gone)`` rows among ``keys`` against the current hashes per key."""
    changed = gone = 0
    for key in keys:
        hashes = current.get((key["file"], key["name"]))
        if hashes is None:
            gone += 1
        elif key["hash"] not in hashes:
            changed += 1
    return changed, gone


def _folder_findings(snapshot: Snapshot, folder: Path, label: str, model: str | None,
                     current: dict[tuple[str, str], Iterable[str]]) -> tuple[list[Finding], str | None]:
    keys_rel = f"{label}{KEYS_FILE}"
    has_keys = (folder / KEYS_FILE).exists()
    try:
        versions = [n for n in os.listdir(folder) if _VERSION_RE.match(n)]
    except OSError:
        versions = []
    if not has_keys:
        if versions:
            return [make_finding("vector-cache-torn", f"{label}{sorted(versions)[-1]}",
                                 "a vector matrix without its keys file: the cache is ignored and rebuilt "
                                 "(every row re-embedded) on the next sync")], None
        return [], None
    keys = _read_keys(folder)
    problem = keys if isinstance(keys, str) else _check_matrix(folder, keys[0], len(keys[1]))
    if problem is not None:
        return [make_finding("vector-cache-torn", keys_rel, f"{problem}: the cache is ignored and rebuilt "
                             "(every row re-embedded) on the next sync")], None
    assert not isinstance(keys, str)
    header, rows = keys
    findings: list[Finding] = []
    stamped = header.get("model") if isinstance(header.get("model"), str) and header.get("model") else None
    if model is not None and stamped is not None and stamped != model:
        findings.append(make_finding(
            "vector-cache-model", keys_rel, f"built with model {stamped!r} but the embedder in use is "
            f"{model!r}: ranking falls back to BM25 only until the cache is deleted and re-embedded"))
    changed, gone = _stale(rows, current)
    if changed or gone:
        findings.append(make_finding(
            "vector-cache-stale", keys_rel, f"{changed} row(s) for changed content and {gone} for items "
            f"that no longer exist, of {len(rows)}: the next sync re-embeds what changed"))
    return findings, stamped


def vector_findings(snapshot: Snapshot, *, model: str | None = None) -> list[Finding]:
    """Findings for the wiki cache (store root) and the diary cache (``diary-vectors/``)."""
    root = snapshot.root
    if not (root / KEYS_FILE).exists() and not (root / DIARY_VECTORS_DIR).is_dir() and not any(
        _VERSION_RE.match(n) for n in _listdir(root)
    ):
        return []
    wiki: dict[tuple[str, str], Iterable[str]] = {
        key: (_hash(key[1], item.content),) for key, item in snapshot.wiki.items()
    }
    diary: dict[tuple[str, str], Iterable[str]] = {
        key: {_hash(key[1], e.content) for e in entries} for key, entries in snapshot.diary.items()
    }
    findings, wiki_model = _folder_findings(snapshot, root, "", model, wiki)
    more, diary_model = _folder_findings(snapshot, root / DIARY_VECTORS_DIR, f"{DIARY_VECTORS_DIR}/", model, diary)
    findings += more
    if model is None and wiki_model and diary_model and wiki_model != diary_model:
        findings.append(make_finding(
            "vector-cache-model", f"{DIARY_VECTORS_DIR}/{KEYS_FILE}", f"built with model {diary_model!r} "
            f"but the wiki cache with {wiki_model!r}: one of them is from another model"))
    return findings


def _listdir(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []
