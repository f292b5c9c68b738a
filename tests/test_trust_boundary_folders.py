"""A memory's folders are its own; its file names survive Windows; paths it holds stay in it.

A memory from elsewhere (``git pull``, an archive, a shared folder) may make
``wiki/`` a symlink to a folder outside it: writes are refused with a clear
error, reads skip it with a warning, lint reports ``folder-outside``. The
cache keys and capture cards it holds name paths too: none leads a read out.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from wikimem import Diary, MemoryStore, validate_file
from wikimem.disk.store_dir import ForeignFolderError

posix = pytest.mark.skipif(sys.platform == "win32", reason="symlinks")


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    MemoryStore(root).add("notes", "a", "first")
    return root


def _lead_out(memory: Path, folder: str, outside: Path) -> None:
    outside.mkdir(exist_ok=True)
    if (memory / folder).exists():
        for child in (memory / folder).iterdir():
            child.rename(outside / child.name)
        (memory / folder).rmdir()
    (memory / folder).symlink_to(outside, target_is_directory=True)


@posix
def test_a_write_through_a_wiki_folder_leading_out_is_refused(memory: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    _lead_out(memory, "wiki", outside)
    before = sorted(p.name for p in outside.iterdir())
    with pytest.raises(ForeignFolderError, match=r"wiki/ is a symlink to .*outside the memory directory"):
        MemoryStore(memory).add("notes", "b", "second")
    assert sorted(p.name for p in outside.iterdir()) == before


@posix
def test_a_diary_folder_leading_out_is_neither_written_nor_read(memory: Path, tmp_path: Path, caplog: Any) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "2026-01-01.md").write_text("## 09:00\nsomeone else's private notes\n")
    (memory / "diary").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ForeignFolderError):
        Diary(memory).append("x", date="2026-01-02", time="10:00")
    assert not (outside / "2026-01-02.md").exists()
    with caplog.at_level(logging.WARNING, logger="wikimem"):
        assert Diary(memory).dates() == []
        assert Diary(memory).day("2026-01-01") == []
    assert any("diary/ is a symlink" in r.getMessage() for r in caplog.records)


@posix
def test_the_store_does_not_read_a_wiki_folder_leading_out(memory: Path, tmp_path: Path) -> None:
    _lead_out(memory, "wiki", tmp_path / "elsewhere")
    store = MemoryStore(memory)
    assert store.files() == []
    assert store.get("notes", "a") is None


@posix
def test_a_symlinked_folder_inside_the_memory_is_its_own(memory: Path) -> None:
    (memory / "wiki").rename(memory / "pages")
    (memory / "wiki").symlink_to("pages", target_is_directory=True)
    MemoryStore(memory).add("notes", "b", "second")
    assert MemoryStore(memory).get("notes", "a") is not None


@posix
@pytest.mark.parametrize("folder", ["wiki", "diary", "captures", "diary-vectors"])
def test_lint_reports_a_folder_leading_out(memory: Path, tmp_path: Path, folder: str) -> None:
    from wikimem.lint import lint

    _lead_out(memory, folder, tmp_path / "elsewhere")
    found = [f for f in lint(memory).findings if f.code == "folder-outside"]
    assert [f.location.path for f in found] == [f"{folder}/"]


@posix
def test_the_cli_says_why_a_write_is_refused(memory: Path, tmp_path: Path, capsys: Any) -> None:
    from wikimem.cli import main

    _lead_out(memory, "wiki", tmp_path / "elsewhere")
    assert main(["-s", str(memory), "add", "notes", "b", "second"]) == 2
    assert "wiki/ is a symlink to" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["con", "prn", "aux", "nul", "com1", "com9", "lpt1", "lpt9"])
def test_windows_reserved_names_are_refused_with_the_reason(name: str) -> None:
    with pytest.raises(ValueError, match="Windows reserves"):
        validate_file(name)


@pytest.mark.parametrize("name", ["console", "nul_", "com10", "com0", "lpt", "auxiliary", "con-notes"])
def test_names_that_only_start_like_a_device_stay_valid(name: str) -> None:
    assert validate_file(name) == name


def test_lint_flags_an_existing_reserved_name_and_reads_stay_tolerant(memory: Path) -> None:
    from wikimem.lint import lint

    (memory / "wiki" / "nul.md").write_text("## x\nkept\n")
    assert MemoryStore(memory).get("nul", "x") is not None
    found = [f for f in lint(memory).findings if f.code == "bad-file-name"]
    assert found and "Windows reserves" in found[0].message


@posix
def test_a_cache_key_header_cannot_name_a_matrix_outside_its_folder(memory: Path) -> None:
    np = pytest.importorskip("numpy")
    from wikimem.vectors.cache import VectorCache

    np.save(memory / "vectors-000001.npy", np.ones((1, 3), dtype=np.float32))  # the wiki cache's, in the memory
    cache = memory / "diary-vectors"
    cache.mkdir()
    (cache / "vectors-000001.npy").symlink_to(memory / "vectors-000001.npy")
    header = {"vectors_file": "vectors-000001.npy", "dim": 3}
    (cache / "vectors.keys.jsonl").write_text(json.dumps(header) + "\n" + json.dumps({"file": "d", "name": "n", "hash": "h"}) + "\n")
    assert VectorCache(cache).load()[0] == []  # a symlink out of the cache folder is not its matrix
    for name in ("../vectors-000001.npy", "x.npy", "/tmp/vectors-000001.npy"):
        header["vectors_file"] = name
        (cache / "vectors.keys.jsonl").write_text(json.dumps(header) + "\n")
        assert VectorCache(cache).load()[0] == []


@posix
def test_a_card_path_is_never_looked_up_unless_it_is_a_session_log(memory: Path, monkeypatch: Any) -> None:
    from wikimem.curation.chain import CardReader

    snapshot = {"format": 1, "date": "2026-01-01", "cards": [
        {"id": "c1", "agent": "claude-code", "session": "s", "path": "//attacker.example/share/x"},
        {"id": "c2", "agent": "claude-code", "session": "t", "path": "/etc/passwd"},
        {"id": "c3", "agent": "claude-code", "session": "u", "path": "/home/ada/../../etc/x.jsonl"},
    ]}
    (memory / "captures").mkdir()
    (memory / "captures" / "2026-01-01.capture.json").write_text(json.dumps(snapshot))
    asked: list[str] = []
    real = os.path.exists
    monkeypatch.setattr(os.path, "exists", lambda p: asked.append(str(p)) or real(p))
    reader = CardReader(memory)
    for cid in ("c1", "c2", "c3"):
        link = reader.by_id(cid)
        assert link is not None
        assert not link.session_exists
    assert not any("attacker" in p or "passwd" in p or "etc/x" in p for p in asked)


@posix
@pytest.mark.parametrize(("folder", "name", "asked"), [("wiki", "secret.md", "secret"),
                                                       ("diary", "2026-01-01.md", "2026-01-01")])
def test_mcp_read_file_does_not_read_through_a_folder_leading_out(memory: Path, tmp_path: Path, folder: str,
                                                                  name: str, asked: str) -> None:
    from wikimem.server.memory import AgentMemory, NotFound

    outside = tmp_path / "elsewhere"
    _lead_out(memory, folder, outside)
    (outside / name).write_text("## 09:00\nsomeone else's private notes\n")
    with pytest.raises(NotFound, match="outside the memory directory"):
        AgentMemory(memory, read_only=True).read_file(asked)


@posix
def test_file_meta_does_not_read_through_a_wiki_folder_leading_out(memory: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    _lead_out(memory, "wiki", outside)
    (outside / "private.md").write_text("---\ntags: [someone-elses]\n---\n## a\nx\n")
    assert MemoryStore(memory).file_meta("private").tags == ()
