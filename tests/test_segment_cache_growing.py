"""A warm-up's segment tables serve first uses as soon as each segment is inverted (ADR 0017)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikimem import MemoryIndex
from wikimem.index.segment_cache import SEGMENTS_NAME, SegmentCache

# _tables_for_small_stores: the same autouse fixture (one segment per file, tables for a few items, numpy on).
from test_segment_cache import _every_term, _index, _plain, _scores, _store, _tables_for_small_stores  # noqa: F401

np = pytest.importorskip("numpy")


def _held(index: MemoryIndex) -> list[int]:
    tables = index.indexed().corpus.index.forms.tables
    assert tables is not None
    return [at for at in range(index.indexed().corpus.index.segments) if tables.holds(at)]


def test_segments_inverted_so_far_answer_from_memory_while_the_file_is_written(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index, plain = _index(store), _plain(store)
    terms = _every_term(plain)
    seen: list[tuple[list[int], bool]] = []

    def should_stop() -> bool:
        """Asked before each segment: the ones before it must already serve every term exactly."""
        inv = index.indexed().corpus.index
        tables = inv.forms.tables
        if isinstance(tables, SegmentCache) and not (tmp_path / SEGMENTS_NAME).exists():
            held = _held(index)
            cache, inv.cache = inv.cache, None
            exact = all(inv.segment_postings(t) == plain.indexed().corpus.index.segment_postings(t) for t in terms)
            inv.cache = cache
            seen.append((held, exact))
        return False

    index.warm(should_stop=should_stop)
    helds = [held for held, _ in seen]
    assert helds[0] == [] and helds[-1] == list(range(5))  # asked before segments 0..5: 0..4 held by the last
    assert all(len(b) == len(a) + 1 for a, b in zip(helds, helds[1:]))  # one more after each inversion
    assert all(exact for _, exact in seen)
    tables = index.indexed().corpus.index.forms.tables
    assert tables is not None and tables.covered() == 6
    assert _scores(index) == _scores(plain)


def test_a_warm_stopped_midway_gives_the_index_its_old_tables_back(tmp_path: Path) -> None:
    store = _store(tmp_path)
    MemoryIndex(store, use_jieba=False).warm()
    store.add("f3", "new-one", "tea 海边")  # one segment to invert again
    index = _index(store)
    before = index.indexed().corpus.index.forms.tables
    assert before is not None and before.covered() == 5
    calls: list[int] = []
    index.warm(should_stop=lambda: calls.append(1) or len(calls) > 5)  # after f3's segment was inverted
    assert index.indexed().corpus.index.forms.tables is before
    assert _scores(index) == _scores(_plain(store))


def test_kept_segments_are_served_from_the_old_file_while_the_others_are_inverted(tmp_path: Path) -> None:
    store = _store(tmp_path)
    MemoryIndex(store, use_jieba=False).warm()
    store.add("f2", "new-one", "sea coffee")
    index, plain = _index(store), _plain(store)
    assert _held(index) == [0, 1, 3, 4, 5]
    during: list[list[int]] = []

    def should_stop() -> bool:
        if not during or during[-1] != _held(index):
            during.append(_held(index))
        return False

    index.warm(should_stop=should_stop)
    assert during[0] == [0, 1, 3, 4, 5] and [0, 1, 2, 3, 4, 5] in during  # f2's segment held before the file is
    assert _scores(index) == _scores(plain)
