"""The cold load's reads: ``read_regular``'s sized ``os.read`` and the loader's one-split reading of a file.

``read_regular`` reads with ``os.read`` sized by the open's ``fstat``: a
file that changed size since, or a filesystem that returns fewer bytes
than asked, must still be read whole. The loader splits a file at its
headings and the metadata line before each in one regex pass: every
file it reads in bulk must give the parser's items and terms, and the
cases at the edges of that split (the last block's metadata, blanks and
empty fields around it) are pinned here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wikimem.disk import tolerant
from wikimem.disk.tolerant import read_regular

from test_loader import _assert_read_like_the_parser, _store_file

_TEXT = ("## a\n\nsea 海边\n\n<!-- wikimem: owner=x | source=c | ts=t -->\n" * 3).encode() + bytes(range(2, 256))


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "wiki" / "f.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_short_reads_are_read_to_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, _TEXT)
    real = os.read
    calls = []

    def parts(fd: int, n: int) -> bytes:
        calls.append(n)
        return real(fd, min(n, 7))

    monkeypatch.setattr(tolerant.os, "read", parts)
    assert read_regular(path) == _TEXT
    assert len(calls) > len(_TEXT) // 7


@pytest.mark.parametrize("reported", [0, 5, len(_TEXT) - 1, len(_TEXT) + 100])
def test_a_size_changed_since_the_fstat_still_reads_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reported: int
) -> None:
    path = _write(tmp_path, _TEXT)
    real = os.fstat

    def stale(fd: int) -> os.stat_result:
        st = real(fd)
        fields = list(st)
        fields[6] = reported  # st_size, as if the file grew or shrank after the fstat
        return os.stat_result(fields)

    monkeypatch.setattr(tolerant.os, "fstat", stale)
    assert read_regular(path) == _TEXT


def test_an_empty_and_a_missing_file(tmp_path: Path) -> None:
    assert read_regular(_write(tmp_path, b"")) == b""
    assert read_regular(tmp_path / "wiki" / "none.md") is None


_META = "<!-- wikimem: owner=x | source=c | ts=t -->"


@pytest.mark.parametrize(
    ("text", "bulk"),
    [
        (f"# f\n\n## a\n\none\n\n{_META}\n\n## b\n\ntwo\n\n{_META}\n", True),
        (f"## a\n\none\n\n{_META}\n## b\n\ntwo\n\n{_META}", True),  # no blank before a heading, none at the end
        (f"## a\n\none\n\n{_META} \t\n\x0b\n\n## b\n\ntwo\n\n{_META}  \n\n\n", True),  # blanks after the metadata
        (f"## a\n\none\n\n## b\n\ntwo\n\n{_META}\n", True),  # a block without metadata
        ("## a\n\none\n\n<!-- wikimem: owner=x -->\n\n## b\n\n<!-- wikimem: ts=t -->\n", True),  # a block of metadata only
        ("## a\n\none\n\n<!-- wikimem:  -->\n", False),  # no fields: content to the parser
        ("## a\n\none\n\n<!-- wikimem: ts=t | owner=x -->\n\n## b\n\ntwo\n", False),  # fields out of order
        (f"## a\n\n{_META}\nafter\n\n## b\n\ntwo\n", False),  # metadata not on the last line
        (f"## a\n\none\n\n{_META}\n{_META}\n", False),  # two metadata lines
        (f"## a\n\none <!-- x --> two\n\n{_META}\n", False),  # another comment
        (f"## <!-- wikimem: owner=x -->\n\none\n\n{_META}\n", False),  # a heading that looks like metadata
        ("no heading at all\n", False),
    ],
)
def test_the_split_reads_a_file_like_the_parser_or_declines_it(tmp_path: Path, text: str, bulk: bool) -> None:
    store, path = _store_file(tmp_path, text)
    assert _assert_read_like_the_parser(store, path) is bulk  # bulk: items, names, lengths and postings as parsed
