"""Checked writes (SPEC §2): ``expected=`` is compared under the store lock.

A check done before taking the lock is decoration: another process can
write in between. These tests pin the library half of that promise — the
comparison happens against the file re-read under the lock, a mismatch
raises ``ConflictError`` carrying the current version and writes nothing
(no file change, no journal line) — and prove it with a second process
writing the same item in a tight loop.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import random
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import wikimem
from conftest import SAFETY_NET
from wikimem import ConflictError, MemoryStore

TS = "2026-07-10T03:00:00+00:00"


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    s = MemoryStore(tmp_path / "m")
    s.add("prefs", "sea", "likes the sea", owner="user:xnne", source_conv="conv_1", ts=TS)
    return s


def _snapshot(store: MemoryStore) -> tuple[bytes, bytes]:
    return store.file_path("prefs").read_bytes(), store.journal.path.read_bytes()


def test_conflict_error_is_exported_and_not_a_value_error() -> None:
    assert wikimem.ConflictError is ConflictError
    assert "ConflictError" in wikimem.__all__
    assert not issubclass(ConflictError, ValueError)  # input was fine; the world moved


def test_add_with_the_content_last_read_writes(store: MemoryStore) -> None:
    item = store.add("prefs", "sea", "loves the sea", expected="likes the sea", ts=TS)
    assert item.content == "loves the sea"
    assert store.get("prefs", "sea").content == "loves the sea"


def test_add_with_stale_expected_raises_and_writes_nothing(store: MemoryStore) -> None:
    store.add("prefs", "sea", "likes the sea and mountains", ts=TS)  # "another writer"
    before = _snapshot(store)
    with pytest.raises(ConflictError) as info:
        store.add("prefs", "sea", "my edit", expected="likes the sea", ts=TS)
    assert _snapshot(store) == before
    err = info.value
    assert (err.file, err.name) == ("prefs", "sea")
    assert err.expected == "likes the sea"
    assert err.current == "likes the sea and mountains"
    assert err.item is not None and err.item.content == err.current


def test_expected_none_means_must_not_exist_yet(store: MemoryStore) -> None:
    store.add("prefs", "new", "fresh", expected=None, ts=TS)
    assert store.get("prefs", "new").content == "fresh"
    before = _snapshot(store)
    with pytest.raises(ConflictError) as info:
        store.add("prefs", "new", "again", expected=None, ts=TS)
    assert info.value.current == "fresh" and "exists already" in str(info.value)
    assert _snapshot(store) == before


def test_expected_content_but_item_gone_is_a_conflict(store: MemoryStore) -> None:
    store.remove("prefs", "sea")
    with pytest.raises(ConflictError) as info:
        store.add("prefs", "sea", "my edit", expected="likes the sea", ts=TS)
    assert info.value.current is None and info.value.item is None
    assert store.get("prefs", "sea") is None


def test_omitting_expected_keeps_the_reference_behaviour(store: MemoryStore) -> None:
    store.add("prefs", "sea", "changed elsewhere", ts=TS)
    store.add("prefs", "sea", "last writer wins", ts=TS)
    assert store.get("prefs", "sea").content == "last writer wins"


def test_remove_checked(store: MemoryStore) -> None:
    before = _snapshot(store)
    with pytest.raises(ConflictError):
        store.remove("prefs", "sea", expected="something else")
    assert _snapshot(store) == before
    assert store.remove("prefs", "sea", expected="likes the sea", detail="why") is True
    assert store.get("prefs", "sea") is None
    assert store.journal.entries()[-1]["detail"] == "why"


def test_remove_expected_none_of_a_missing_item_is_a_no_op(store: MemoryStore) -> None:
    assert store.remove("prefs", "nothing", expected=None) is False
    with pytest.raises(ConflictError):
        store.remove("prefs", "sea", expected=None)


def test_move_checked(store: MemoryStore) -> None:
    store.add("other", "ref", "see [[prefs:sea]]", ts=TS)
    with pytest.raises(ConflictError):
        store.move("prefs", "sea", new_name="ocean", expected="stale")
    assert store.get("prefs", "sea") is not None and store.get("prefs", "ocean") is None
    assert store.get("other", "ref").content == "see [[prefs:sea]]"
    moved = store.move("prefs", "sea", new_name="ocean", expected="likes the sea", detail="renamed by test")
    assert moved.name == "ocean" and moved.owner == "user:xnne"
    assert store.get("other", "ref").content == "see [[prefs:ocean]]"
    details = {e.get("detail", "") for e in store.journal.entries()[-3:]}
    assert "renamed by test" in details


def test_add_by_is_journaled_and_keeps_the_items_owner(store: MemoryStore) -> None:
    store.add("prefs", "sea", "edited", owner="user:xnne", source_conv="conv_1", ts=TS,
              expected="likes the sea", by="tui:me")
    item = store.get("prefs", "sea")
    assert (item.owner, item.source_conv) == ("user:xnne", "conv_1")
    last = store.journal.entries()[-1]
    assert (last["action"], last["owner"], last["by"]) == ("update", "user:xnne", "tui:me")
    store.add("prefs", "plain", "no by", ts=TS)
    assert "by" not in store.journal.entries()[-1]


def test_locked_groups_checked_writes(store: MemoryStore) -> None:
    with store.locked():
        current = store.get("prefs", "sea")
        store.add("prefs", "sea", "one", expected=current.content, ts=TS)
        store.add("prefs", "two", "two", expected=None, ts=TS)
    assert [i.name for i in store.items("prefs")] == ["sea", "two"]


# -- a second process writing in a tight loop -------------------------------------------------


def _hammer(root: str, stop: Any, ready: Any) -> None:
    """Write as fast as an agent could, with a jittered pause between writes.

    Without any pause a loaded machine can let the agent win every race (the
    test then never sees one of ours land); the pause is random so our read
    and write still overlap its writes in every possible order.
    """
    store = MemoryStore(root)
    jitter = random.Random(7)
    n = 0
    while not stop.is_set():
        store.add("prefs", "sea", f"agent write {n}", ts=TS, detail=json.dumps([f"agent write {n}", None]))
        n += 1
        if n == 5:
            ready.set()
        time.sleep(jitter.random() * 0.002)


@pytest.mark.skipif(sys.platform == "win32", reason="uses fork")
def test_checked_writes_never_overwrite_a_concurrent_writer(tmp_path: Path) -> None:
    """Read, then write with expected=: ours lands on exactly what we read, or ConflictError.

    Every journal line carries (new content, content it expected) in its
    detail; the journal is appended under the same lock as the file write,
    so replaying it in order gives the content each write replaced. A check
    made outside the lock would let an agent write slip in between, and the
    replay would catch our write replacing a version it never saw.
    """
    root = tmp_path / "m"
    store = MemoryStore(root)
    store.add("prefs", "sea", "start", ts=TS)
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    stop, ready = ctx.Event(), ctx.Event()
    proc = ctx.Process(target=_hammer, args=(str(root), stop, ready))
    proc.start()
    ok = conflicts = 0
    try:
        assert ready.wait(SAFETY_NET), "the agent never made its first writes"
        # Until both outcomes were seen often enough (bounded, so a broken lock fails, not hangs).
        for i in range(20_000):
            if ok >= 20 and conflicts >= 20:
                break
            seen = store.get("prefs", "sea").content
            new = f"app edit {i}"
            try:
                store.add("prefs", "sea", new, expected=seen, ts=TS, by="tui:t", detail=json.dumps([new, seen]))
                ok += 1
            except ConflictError as exc:
                assert exc.current != seen
                conflicts += 1
    finally:
        stop.set()
        proc.join(SAFETY_NET)
    assert proc.exitcode == 0
    assert ok >= 20 and conflicts >= 20, (ok, conflicts)
    current = "start"
    checked = 0
    for entry in store.journal.entries()[1:]:
        new, expected = json.loads(entry["detail"])
        if entry.get("by") == "tui:t":
            assert expected == current, f"{new!r} overwrote {current!r}, but had read {expected!r}"
            checked += 1
        current = new
    assert checked == ok
    assert store.get("prefs", "sea").content == current
