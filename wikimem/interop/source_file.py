"""Reading a source file: JSON (also inside an export's zip or folder) and UTF-8 text, refused whole when bad.

An export arrives as the archive the service mailed (``conversations.json``
inside a zip), as that archive unpacked, or as the one file; all three are
accepted. Anything that is not what it claims -- invalid UTF-8, broken or
too deeply nested JSON, a missing file -- is a :class:`SourceError` that
names the file and the place, raised before anything is written.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from wikimem.interop.plan import SourceError

__all__ = ["load_json", "load_json_lines", "read_text"]


def _bytes(path: Path, inner: str | None) -> tuple[bytes, str]:
    """The bytes of ``path`` (or of ``inner`` in it, when it is a folder or a zip) and the name to show."""
    try:
        if path.is_dir():
            if inner is None or not (path / inner).is_file():
                raise SourceError(f"{path}: a folder without {inner or 'the expected file'}")
            path = path / inner
        elif inner is not None and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if n == inner or n.endswith("/" + inner)]
                if not names:
                    raise SourceError(f"{path}: the archive holds no {inner}")
                return archive.read(sorted(names, key=len)[0]), f"{path}:{names[0]}"
        return path.read_bytes(), str(path)
    except (OSError, zipfile.BadZipFile) as exc:
        raise SourceError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None


def _decode(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"{shown} is not UTF-8 (byte {exc.start}): nothing imported") from None


def load_json(path: Path, *, inner: str | None = None) -> Any:
    """The JSON document at ``path`` (``inner``: the file to take from a folder or zip)."""
    data, shown = _bytes(path, inner)
    text = _decode(data, shown)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(f"{shown} is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}): "
                          f"nothing imported") from None
    except RecursionError:
        raise SourceError(f"{shown}: JSON nested too deeply to read: nothing imported") from None


def load_json_lines(path: Path) -> list[Any]:
    """One JSON value per non-blank line of ``path``; a bad line refuses the file, naming the line."""
    data, shown = _bytes(path, None)
    out = []
    for number, line in enumerate(_decode(data, shown).splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise SourceError(f"{shown}: line {number} is not JSON ({exc.msg}): nothing imported") from None
        except RecursionError:
            raise SourceError(f"{shown}: line {number} nested too deeply to read: nothing imported") from None
    return out


def read_text(path: Path) -> str:
    """The UTF-8 text of ``path``."""
    data, shown = _bytes(path, None)
    return _decode(data, shown)
