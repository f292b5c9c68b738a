"""Files that exist but cannot be read: skipped by reads with a word, refused by writes, never "deleted".

Covers a file without read permission, a FIFO named like a memory file (it
would block a reader forever), and a symlink pointing out of the memory
directory. Tests run as root here, where ``chmod 000`` blocks nothing, so a
permission denial is injected at the ``open`` calls (``os.open``, ``io.open``
and the builtin: every way the code has ever opened a file), exactly as the
kernel would refuse it; :func:`test_a_real_chmod_000` does the real thing when
the suite runs as another user.
"""

from __future__ import annotations

import builtins
import errno
import io
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import SAFETY_NET
from wikimem import MemoryIndex, MemoryStore
from wikimem.cli import main
from wikimem.disk.baseline import BASELINE_FILE
from wikimem.lint.drift import accept_current_state
from wikimem.lint import lint
from wikimem.disk.tolerant import UnreadableError


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    root = tmp_path / "memory"
    store = MemoryStore(root)
    store.add("people", "alice", "Alice likes oat milk.")
    store.add("secret", "plan", "The hidden beach plan.")
    store.diary.append("Walked to the beach.", date="2026-07-20", time="09:00")
    store.diary.append("Swam at the beach.", date="2026-07-22", time="10:00")
    return store


@pytest.fixture
def deny(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], None]:
    """``deny(path)``: opening ``path`` fails with EACCES from now on, as after ``chmod 000``."""
    denied: set[str] = set()
    real_os_open, real_io_open = os.open, io.open

    def refused(target: Any) -> bool:
        return not isinstance(target, int) and os.path.realpath(os.fspath(target)) in denied

    def os_open(target: Any, *args: Any, **kwargs: Any) -> int:
        if refused(target):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(target))
        return real_os_open(target, *args, **kwargs)

    def io_open(target: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(target):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(target))
        return real_io_open(target, *args, **kwargs)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(io, "open", io_open)
    monkeypatch.setattr(builtins, "open", io_open)
    return lambda path: denied.add(os.path.realpath(path))


def finishes(fn: Callable[[], Any], fifo: Path | None = None) -> Any:
    """``fn()``'s result; fails (instead of hanging the suite) when it blocks past the safety net, e.g. on a FIFO."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(SAFETY_NET)
    if thread.is_alive():
        if fifo is not None:  # let the blocked open return so the thread ends
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        raise AssertionError(f"{fn} blocked for {SAFETY_NET:g} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def cli(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> tuple[int, str, str]:
    code = main(["-s", str(root), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- permission denied ----------------------------------------------------------


def test_reads_skip_an_unreadable_recall_file_with_one_warning(store: MemoryStore, deny, caplog) -> None:
    deny(store.file_path("secret"))
    with caplog.at_level(logging.WARNING, logger="wikimem"):
        assert [i.name for i in store.items()] == ["alice"]
        assert store.get("secret", "plan") is None
        store.items()
    warnings = [r.getMessage() for r in caplog.records if "secret.md" in r.getMessage()]
    assert len(warnings) == 1 and "permission denied" in warnings[0]


def test_a_write_to_an_unreadable_file_is_refused_and_changes_nothing(store: MemoryStore, deny) -> None:
    path = store.file_path("secret")
    before = path.read_bytes()
    deny(path)
    mtime = path.stat().st_mtime_ns
    with pytest.raises(UnreadableError, match="permission denied"):
        store.add("secret", "more", "would replace what could not be read")
    assert store.journal.entries()[-1].get("item") != "more"
    assert (path.stat().st_mtime_ns, path.stat().st_size) == (mtime, len(before))


def test_retrieval_works_around_an_unreadable_file(store: MemoryStore, deny) -> None:
    deny(store.file_path("secret"))
    result = MemoryIndex(store, use_jieba=False).retrieve("beach plan alice oat")
    assert [(e.item.file, e.item.name) for e in result.items] == [("people", "alice")]


@pytest.mark.parametrize("command", [["ls"], ["grep", "plan"], ["explain", "beach"], ["graph"],
                                     ["graph", "--format", "json"]])
def test_cli_commands_skip_an_unreadable_file_and_say_so(store: MemoryStore, deny, capsys, command) -> None:
    deny(store.file_path("secret"))
    code, out, err = cli(capsys, store.root, *command)
    assert code in (0, 1)
    assert "secret.md" in err and "cannot be read (permission denied)" in err
    assert "hidden" not in out


def test_cli_show_of_an_unreadable_file_is_a_store_error(store: MemoryStore, deny, capsys) -> None:
    deny(store.file_path("secret"))
    code, out, err = cli(capsys, store.root, "show", "secret")
    assert (code, out) == (2, "")
    assert "wiki/secret.md cannot be read (permission denied)" in err


def test_lint_reports_an_unreadable_file_as_unreadable_not_deleted(store: MemoryStore, deny) -> None:
    deny(store.file_path("secret"))
    findings = lint(store.root).findings
    assert [(f.code, f.severity, f.location.path) for f in findings if f.location.path == "wiki/secret.md"] == [
        ("unreadable", "error", "wiki/secret.md")]
    assert not any(f.code == "drift" for f in findings)  # before: "deleted on disk, but ..."


def test_lint_fix_never_accepts_an_unreadable_file_as_deleted(store: MemoryStore, deny, capsys) -> None:
    day = store.diary.path("2026-07-22")
    os.utime(day, (day.stat().st_mtime + 600,) * 2)  # drift elsewhere, so --fix writes the baseline
    deny(store.file_path("secret"))
    assert cli(capsys, store.root, "lint", "--fix")[0] == 1  # the unreadable error stays
    baseline = json.loads((store.root / BASELINE_FILE).read_text("utf-8"))["files"]
    assert "diary/2026-07-22.md" in baseline
    assert "wiki/secret.md" not in baseline


def test_accepting_the_whole_state_keeps_an_unreadable_files_entry(store: MemoryStore, deny) -> None:
    accept_current_state(store.root)
    accepted = json.loads((store.root / BASELINE_FILE).read_text("utf-8"))["files"]["wiki/secret.md"]
    deny(store.file_path("secret"))
    accept_current_state(store.root)
    after = json.loads((store.root / BASELINE_FILE).read_text("utf-8"))["files"]["wiki/secret.md"]
    assert after == accepted and after["sha256"] is not None


def test_diary_reads_skip_an_unreadable_day(store: MemoryStore, deny) -> None:
    deny(store.diary.path("2026-07-22"))
    assert [e.date for e in store.diary.window("2026-07-01", "2026-07-31")] == ["2026-07-20"]
    assert store.diary.counts() == {"2026-07-20": 1}


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file; the injected tests cover it")
def test_a_real_chmod_000(store: MemoryStore) -> None:
    path = store.file_path("secret")
    path.chmod(0)
    try:
        assert [i.name for i in store.items()] == ["alice"]
        assert [f.code for f in lint(store.root).findings if f.location.path == "wiki/secret.md"] == ["unreadable"]
    finally:
        path.chmod(0o644)


# -- FIFOs: only regular files are read ------------------------------------------


@pytest.fixture
def day_fifo(store: MemoryStore) -> Iterator[Path]:
    fifo = store.diary.path("2026-07-21")
    os.mkfifo(fifo)
    yield fifo


def test_a_fifo_named_like_a_day_does_not_hang_windowed_queries(store: MemoryStore, day_fifo: Path) -> None:
    entries = finishes(lambda: store.diary.window("2026-07-19", "2026-07-23"), day_fifo)
    assert [e.date for e in entries] == ["2026-07-20", "2026-07-22"]
    result = finishes(lambda: MemoryIndex(store, use_jieba=False).retrieve(
        "beach", time_range=("2026-07-19", "2026-07-23")), day_fifo)
    assert {"2026-07-20", "2026-07-22"} <= {e.item.file for e in result.items}
    assert finishes(store.diary.counts, day_fifo) == {"2026-07-20": 1, "2026-07-22": 1}


def test_an_append_to_a_fifo_day_is_refused(store: MemoryStore, day_fifo: Path) -> None:
    with pytest.raises(UnreadableError, match="FIFO"):
        finishes(lambda: store.diary.append("x", date="2026-07-21", time="08:00"), day_fifo)


def test_lint_reports_a_fifo_in_wiki_and_diary(store: MemoryStore, day_fifo: Path) -> None:
    os.mkfifo(store.file_path("pipe"))
    found = finishes(lambda: lint(store.root), day_fifo).findings
    assert sorted((f.code, f.location.path) for f in found if f.code == "unreadable") == [
        ("unreadable", "diary/2026-07-21.md"), ("unreadable", "wiki/pipe.md")]


def test_cli_explain_with_a_window_over_a_fifo_day_finishes(store: MemoryStore, day_fifo: Path, capsys) -> None:
    code, out, err = finishes(lambda: cli(capsys, store.root, "explain", "beach", "--time-range",
                                          "2026-07-19..2026-07-23"), day_fifo)
    assert code == 0 and "2026-07-22:10:00" in out  # the reference CLI spelling of a diary row
    assert "2026-07-21.md" in err and "FIFO" in err


# -- symlinks out of the memory directory ----------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "elsewhere.md"
    path.write_text("# elsewhere\n\n## token\n\nsk-outside-the-memory\n", "utf-8")
    return path


def test_a_recall_file_symlinked_out_of_the_memory_is_not_read(store: MemoryStore, outside: Path) -> None:
    store.file_path("leak").symlink_to(outside)
    assert store.items("leak") == []
    result = MemoryIndex(store, use_jieba=False).retrieve("outside memory token")
    assert all(e.item.file != "leak" for e in result.items)
    assert [f.code for f in lint(store.root).findings if f.location.path == "wiki/leak.md"] == ["unreadable"]


def test_a_write_through_an_outside_symlink_is_refused(store: MemoryStore, outside: Path) -> None:
    store.file_path("leak").symlink_to(outside)
    before = outside.read_bytes()
    with pytest.raises(UnreadableError, match="outside the memory directory"):
        store.add("leak", "token", "replaced")
    assert outside.read_bytes() == before and store.file_path("leak").is_symlink()


def test_a_symlink_inside_the_memory_is_followed(store: MemoryStore) -> None:
    store.file_path("alias").symlink_to(store.file_path("people"))
    assert [i.content for i in store.items("alias")] == ["Alice likes oat milk."]


def test_the_journal_is_not_read_or_appended_through_an_outside_symlink(store: MemoryStore, tmp_path: Path) -> None:
    elsewhere = tmp_path / "other.jsonl"
    elsewhere.write_text('{"ts": "2026-01-01T00:00:00+00:00", "action": "add", "file": "x", "item": "y"}\n', "utf-8")
    store.journal.path.unlink()
    store.journal.path.symlink_to(elsewhere)
    before = elsewhere.read_bytes()
    assert store.journal.entries() == []
    wiki_before = store.file_path("people").read_bytes()
    with pytest.raises(UnreadableError, match="outside the memory directory"):
        store.add("people", "bob", "Bob.")
    with pytest.raises(UnreadableError):
        store.diary.append("x", date="2026-07-23", time="08:00")
    assert elsewhere.read_bytes() == before
    assert store.file_path("people").read_bytes() == wiki_before  # refused before it landed
    assert not store.diary.path("2026-07-23").exists()
    assert [f.code for f in lint(store.root).findings if f.location.path == "journal.jsonl"] == ["unreadable"]


def test_a_fifo_journal_blocks_no_reader_and_no_writer(store: MemoryStore) -> None:
    store.journal.path.unlink()
    os.mkfifo(store.journal.path)
    fifo = store.journal.path
    assert finishes(store.journal.entries, fifo) == []
    with pytest.raises(UnreadableError, match="FIFO"):
        finishes(lambda: store.add("people", "bob", "Bob."), fifo)
    found = finishes(lambda: lint(store.root), fifo).findings
    assert [f.code for f in found if f.location.path == "journal.jsonl"] == ["unreadable"]
    assert not any(f.code == "drift" for f in found)  # nothing can be judged without the journal


def test_a_link_into_an_unreadable_file_says_so(store: MemoryStore, deny) -> None:
    store.add("people", "bob", "Knows the [[secret:plan]].")
    deny(store.file_path("secret"))
    found = [f for f in lint(store.root).findings if f.code == "dangling-link"]
    assert len(found) == 1 and "cannot be read" in found[0].message


def test_a_fifo_vector_keys_file_is_no_cache(store: MemoryStore) -> None:
    pytest.importorskip("numpy")
    from wikimem.vectors import VectorCache

    keys = store.root / "vectors.keys.jsonl"
    os.mkfifo(keys)
    assert finishes(lambda: VectorCache(store.root).load(), keys) == ([], None)
    found = finishes(lambda: lint(store.root), keys).findings
    assert [f.code for f in found if f.location.path == "vectors.keys.jsonl"] == ["vector-cache-torn"]
