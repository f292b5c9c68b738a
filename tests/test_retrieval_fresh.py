"""The index stays fresh: in-process writes update one file, other edits need refresh()."""

from __future__ import annotations

import gc
import os
import subprocess
import threading
import sys
import weakref
from pathlib import Path

import pytest

import wikimem.index.corpus.wiki
from conftest import SAFETY_NET
from wikimem import MemoryIndex, MemoryStore


def _names(index: MemoryIndex, query: str) -> list[str]:
    return [e.item.name for e in index.retrieve(query).items]


def _store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    store.add("notes", "coffee", "flat white every morning")
    store.add("notes", "tea", "jasmine tea in the afternoon")
    return store


def _edit(path: Path, old: str, new: str) -> None:
    stat = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    # Same-size edits within one mtime tick must still look changed.
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_constructing_an_index_touches_no_files(tmp_path: Path) -> None:
    index = MemoryIndex(MemoryStore(tmp_path / "nowhere"), use_jieba=False)
    assert not index.ready and not (tmp_path / "nowhere").exists()


def test_first_retrieve_builds_the_index(tmp_path: Path) -> None:
    index = MemoryIndex(_store(tmp_path), use_jieba=False)
    assert _names(index, "jasmine") == ["tea"]
    assert index.ready and len(index) == 2


def test_build_reports_progress_per_file(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.add("people", "alice", "colleague")
    calls: list[tuple[int, int]] = []
    MemoryIndex(store, use_jieba=False).build(progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 2), (1, 2), (2, 2)]


def test_added_item_is_found_without_a_rebuild(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    store.add("notes", "cocoa", "hot cocoa in winter")
    assert _names(index, "cocoa") == ["cocoa"]


def test_replaced_item_is_found_by_its_new_content_only(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    store.add("notes", "tea", "green tea with lunch")
    assert _names(index, "jasmine") == []
    assert _names(index, "lunch") == ["tea"]


def test_removed_item_disappears_without_a_rebuild(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    store.remove("notes", "tea")
    assert _names(index, "jasmine") == []


def test_removing_the_last_item_of_a_file_drops_the_file(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.add("solo", "only", "unique zebra")
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    store.remove("solo", "only")
    assert _names(index, "zebra") == []


def test_provenance_change_is_visible_without_changing_ranking(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    store.add("notes", "tea", "jasmine tea in the afternoon", owner="user:x")
    assert index.retrieve("jasmine").items[0].item.owner == "user:x"


def test_external_edit_is_invisible_until_refresh(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    _edit(store.file_path("notes"), "jasmine", "oolong")
    assert _names(index, "oolong") == []
    assert index.refresh() == ["notes"]
    assert _names(index, "oolong") == ["tea"]


def test_refresh_with_nothing_changed_reports_nothing(tmp_path: Path) -> None:
    index = MemoryIndex(_store(tmp_path), use_jieba=False)
    index.build()
    assert index.refresh() == []


def test_refresh_picks_up_new_and_deleted_files(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    other = MemoryStore(tmp_path)  # no listener on this one: an "other process"
    other.add("extra", "zebra", "striped zebra")
    store.file_path("notes").unlink()
    assert index.refresh() == ["extra", "notes"]
    assert _names(index, "zebra") == ["zebra"] and _names(index, "jasmine") == []


def test_refresh_files_rereads_the_named_files(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    _edit(store.file_path("notes"), "jasmine", "oolong")
    assert index.refresh_files(["notes"]) == ["notes"]
    assert _names(index, "oolong") == ["tea"]


def test_rebuild_rescans_after_an_external_edit(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    _edit(store.file_path("notes"), "jasmine", "oolong")
    index.rebuild()
    assert _names(index, "oolong") == ["tea"]


def test_revision_moved_without_a_listener_call_falls_back_to_refresh(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    index.close()  # stop hearing writes, so only the revision tells
    store.add("notes", "cocoa", "hot cocoa in winter")
    assert _names(index, "cocoa") == ["cocoa"]


def test_replaced_index_is_not_kept_alive_by_the_store(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    ref = weakref.ref(index)
    del index
    gc.collect()
    assert ref() is None
    store.add("notes", "cocoa", "hot cocoa")  # the dead index's listener goes quietly


def test_retrieval_imports_no_numpy_without_an_embedder(tmp_path: Path) -> None:
    _store(tmp_path)
    code = (
        "import sys\n"
        "from wikimem import MemoryIndex, MemoryStore\n"
        f"MemoryIndex(MemoryStore({str(tmp_path)!r}), use_jieba=False).retrieve('tea')\n"
        "bad = [m for m in ('numpy', 'httpx', 'jieba') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    assert out.stdout.strip() == ""


def test_query_during_a_worker_build_waits_for_it_instead_of_building_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    started, release = threading.Event(), threading.Event()

    def progress(done: int, total: int) -> None:
        if done == 0:
            started.set()
            release.wait(SAFETY_NET)  # the timer below releases it

    worker = threading.Thread(target=index.build, kwargs={"progress": progress})
    worker.start()
    assert started.wait(SAFETY_NET), "the build never started"
    reads: list[str] = []
    original = store.file_items
    store.file_items = lambda file: (reads.append(file), original(file))[1]  # type: ignore[method-assign]
    # A cold load reads a file in bulk (wikimem.disk.loader) unless it needs the parser.
    bulk_read = wikimem.index.corpus.wiki.read_file_blocks
    monkeypatch.setattr("wikimem.index.corpus.wiki.read_file_blocks", lambda path: (reads.append(path.stem), bulk_read(path))[1])
    timer = threading.Timer(0.05, release.set)
    timer.start()
    assert _names(index, "jasmine") == ["tea"]
    worker.join()
    assert reads == ["notes"]  # read once, by the worker's build
