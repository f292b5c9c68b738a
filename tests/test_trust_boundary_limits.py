"""One write, and one message to the server, have a documented size limit (``wikimem.disk.limits``).

Without one a single request stored a 50 MB item and the app that opened
the memory held 760 MB. Each refusal names its limit and writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wikimem import Diary, MemoryStore
from wikimem.disk import limits
from wikimem.disk.limits import MAX_CONTENT_BYTES


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    MemoryStore(tmp_path).add("notes", "a", "first")
    return tmp_path


def test_an_item_over_the_limit_is_refused_naming_it(memory: Path) -> None:
    before = _tree(memory)
    with pytest.raises(ValueError, match=r"more than the limit of 1 MiB \(1,048,576 bytes\)"):
        MemoryStore(memory).add("notes", "big", "x" * (MAX_CONTENT_BYTES + 1))
    with pytest.raises(ValueError, match="limit of 1 MiB"):
        MemoryStore(memory).add("notes", "big", "é" * (MAX_CONTENT_BYTES // 2 + 1))  # counted in UTF-8 bytes
    assert _tree(memory) == before
    MemoryStore(memory).add("notes", "edge", "x" * MAX_CONTENT_BYTES)  # the limit itself is allowed


def test_a_diary_entry_over_the_limit_is_refused(memory: Path) -> None:
    with pytest.raises(ValueError, match="limit of 1 MiB"):
        Diary(memory).append("x" * (MAX_CONTENT_BYTES + 1), date="2026-01-01", time="09:00")
    assert not (memory / "diary").exists()


def test_a_file_may_not_grow_past_the_file_limit(memory: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 4096)
    store = MemoryStore(memory)
    store.add("notes", "b", "y" * 3000)
    before = _tree(memory)
    with pytest.raises(ValueError, match=r"wiki/notes.md would be .* bytes, more than the limit"):
        store.add("notes", "c", "z" * 3000)
    assert _tree(memory) == before
    store.remove("notes", "b")  # shrinking a file over the limit stays possible
    monkeypatch.setattr(limits, "MAX_FILE_BYTES", 10)
    store.remove("notes", "a")


def test_the_cli_refuses_with_exit_2(memory: Path, capsys: Any) -> None:
    from wikimem.cli import main

    big = memory.parent / "big.txt"
    big.write_text("x" * (MAX_CONTENT_BYTES + 1))
    code = main(["-s", str(memory), "add", "notes", "big", "--content-file", str(big)])
    err = capsys.readouterr().err
    assert code == 2 and "limit of 1 MiB" in err
