"""The segment cache: every term of each segment, written by warm(), read segment by segment, never trusted blindly."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from wikimem import MemoryIndex, MemoryStore
from wikimem.index import inversion, vectorized, warmup
from wikimem.index.scan import scan_texts, scanned_occurrences
from wikimem.index.segment_cache import SEGMENTS_NAME, SegmentCache, term_key

np = pytest.importorskip("numpy")

_LONG = "x" * 60  # longer than inversion.LONGEST: searched, never tabled
_WORDS = ["sea", "beach", "coffee", "tea", "morning", "a1", "海边", "喜欢", "哈哈哈", "日本", "我", "café", "𠀀𠀁", _LONG]
_QUERIES = ["sea", "coffee morning", "a1", "海边", "喜欢 tea", "哈哈", "我", "日本 beach", "zzz", "w9 w3", "café", "𠀀", _LONG]


@pytest.fixture(autouse=True)
def _tables_for_small_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    # One segment per file, tables even for these few items, the numpy path on.
    monkeypatch.setattr("wikimem.index.corpus.SEGMENT_DOCS", 1)
    monkeypatch.setattr("wikimem.index.derived.CACHE_MIN_DOCS", 1)
    monkeypatch.setattr(vectorized, "SCAN_MIN", 0)
    vectorized.switch(True)
    yield
    vectorized.switch(None)


def _store(root: Path, seed: int = 1, files: int = 6, per_file: int = 9, words: list[str] = _WORDS) -> MemoryStore:
    rng = random.Random(seed)
    store = MemoryStore(root)
    for f in range(files):
        for i in range(per_file):
            text = " ".join(rng.choice(words + [f"w{rng.randrange(12)}"]) for _ in range(rng.randint(1, 12)))
            store.add(f"f{f}", f"item-{f}-{i}", text)
    return store


def _index(store: MemoryStore, mode: str = "readwrite") -> MemoryIndex:
    index = MemoryIndex(store, use_jieba=False, postings_cache=mode)
    index.build()
    return index


def _scores(index: MemoryIndex) -> list[dict[str, float]]:
    return [
        {e.item.name: round(e.score, 9) for e in index.retrieve(q, limit=1000, expand_links=False).items}
        for q in _QUERIES
    ]


def _every_term(index: MemoryIndex) -> list[str]:
    inv = index.indexed().corpus.index
    terms: set[str] = set()
    for at in range(inv.segments):
        terms.update(scanned_occurrences(0, inv.forms.scanned(at)))
    return sorted(terms) + ["zzz", "哈哈", "我", "𠀀", "𠀀𠀁", "café", _LONG, "a", ""]


def _plain(store: MemoryStore) -> MemoryIndex:
    return _index(store, "off")


def test_warm_writes_the_tables_and_a_later_build_finds_every_term_exactly(tmp_path: Path) -> None:
    store = _store(tmp_path)
    MemoryIndex(store, use_jieba=False).warm()
    assert (tmp_path / SEGMENTS_NAME).exists()
    cached, plain = _index(store), _plain(store)
    tables = cached.indexed().corpus.index.forms.tables
    assert tables is not None and tables.covered() == cached.indexed().corpus.index.segments == 6
    assert plain.indexed().corpus.index.forms.tables is None
    cached.indexed().corpus.index.cache = None  # the tables alone
    for term in _every_term(plain):
        assert cached.indexed().corpus.index.segment_postings(term) == plain.indexed().corpus.index.segment_postings(term), term
    assert not tables.broken
    assert _scores(cached) == _scores(plain)


def test_an_edited_file_loses_only_its_own_segment_and_the_next_warm_inverts_only_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(tmp_path)
    MemoryIndex(store, use_jieba=False).warm()
    store.add("f0", "new-one", "sea sea 海边 extra")  # f0 grows: every later segment's doc ids move
    index = _index(store)
    tables = index.indexed().corpus.index.forms.tables
    assert tables is not None and tables.covered() == 5
    assert _scores(index) == _scores(_plain(store))
    inverted = []
    real = warmup.invert
    monkeypatch.setattr(warmup, "invert", lambda np_, scanned: inverted.append(1) or real(np_, scanned))
    index.warm()
    assert len(inverted) == 1
    again = _index(store)
    assert again.indexed().corpus.index.forms.tables is not None and again.indexed().corpus.index.forms.tables.covered() == 6
    assert _scores(again) == _scores(_plain(store))


def test_a_truncated_or_foreign_file_is_no_cache(tmp_path: Path) -> None:
    store = _store(tmp_path)
    MemoryIndex(store, use_jieba=False).warm()
    path = tmp_path / SEGMENTS_NAME
    data = path.read_bytes()
    for broken in (data[:-3], data[: len(data) // 2], b"", b"not a cache at all", data[:-8] + b"WMSEG999"):
        path.write_bytes(broken)
        index = _index(store)
        assert index.indexed().corpus.index.forms.tables is None
        assert _scores(index) == _scores(_plain(store))


@pytest.mark.parametrize("where", ["postings", "keys"])
def test_corrupt_bytes_fall_back_to_searching(tmp_path: Path, where: str) -> None:
    store = _store(tmp_path)
    MemoryIndex(store, use_jieba=False).warm()
    path = tmp_path / SEGMENTS_NAME
    data = bytearray(path.read_bytes())
    footer_at = len(data) - 16 - int.from_bytes(data[-16:-8], "little")
    step = 5 if where == "postings" else 3
    start = 0 if where == "keys" else footer_at // 2
    for i in range(start, footer_at, step):  # same size, footer intact
        data[i] ^= 0x55
    path.write_bytes(bytes(data))
    index = _index(store)
    assert index.indexed().corpus.index.forms.tables is not None  # the footer still matches...
    assert _scores(index) == _scores(_plain(store))  # ...the bytes do not
    assert index.indexed().corpus.index.forms.tables.broken


def test_a_stopped_warm_leaves_the_old_file_and_no_temp_file(tmp_path: Path) -> None:
    store = _store(tmp_path)
    MemoryIndex(store, use_jieba=False).warm()
    path = tmp_path / SEGMENTS_NAME
    before = path.read_bytes()
    store.add("f3", "new-one", "tea")
    index = _index(store)
    calls = []
    index.warm(should_stop=lambda: calls.append(1) or len(calls) > 2)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(f".{SEGMENTS_NAME}")] == []


def test_read_mode_reads_but_never_writes_and_off_does_neither(tmp_path: Path) -> None:
    store = _store(tmp_path)
    MemoryIndex(store, use_jieba=False, postings_cache="read").warm()
    assert not (tmp_path / SEGMENTS_NAME).exists()
    MemoryIndex(store, use_jieba=False).warm()
    assert _index(store, "read").indexed().corpus.index.forms.tables is not None
    assert _index(store, "off").indexed().corpus.index.forms.tables is None


def test_without_the_numpy_path_nothing_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vectorized.switch(False)
    store = _store(tmp_path)
    MemoryIndex(store, use_jieba=False).warm()
    assert not (tmp_path / SEGMENTS_NAME).exists()


def test_forms_the_tables_cannot_hold_are_left_to_the_search() -> None:
    tabbed = scan_texts(["sea tea", "morning"])
    assert tabbed is not None
    tabbed = tabbed._replace(latin=tabbed.latin.replace(b"tea", b"t\tea"))
    assert inversion.invert(np, tabbed)[0] is None
    wide = scan_texts(["𠀀𠀁 海边"])
    assert wide is not None and inversion.invert(np, wide)[1] is None
    long = scan_texts([f"sea {_LONG}"])
    assert long is not None
    latin = inversion.invert(np, long)[0]
    assert latin is not None and latin.covers == inversion.LONGEST and b"sea" in latin.keys.tolist()


def test_term_keys_follow_locate() -> None:
    assert term_key("") is None and term_key("a b") is None and term_key("café") is None
    assert term_key("sea") == (True, b"sea")
    assert term_key("我") == (False, ord("我") | 1 << 16)
    assert term_key("海边") == (False, ord("海") | ord("边") << 16)
    assert term_key("三个字") is None
    assert term_key("𠀀") == (False, -1)


def test_open_ignores_a_fifo(tmp_path: Path) -> None:
    path = tmp_path / SEGMENTS_NAME
    os.mkfifo(path)
    assert SegmentCache.open(path, ["x"], np) is None


def test_a_warm_over_a_damaged_file_inverts_again_instead_of_copying_the_damage(tmp_path: Path) -> None:
    store = _store(tmp_path)
    MemoryIndex(store, use_jieba=False).warm()
    path = tmp_path / SEGMENTS_NAME
    data = bytearray(path.read_bytes())
    for i in range(0, 64, 3):  # the first segment's latin keys
        data[i] ^= 0x55
    path.write_bytes(bytes(data))
    store.add("f5", "new-one", "tea")  # one segment to invert; the others would be copied
    MemoryIndex(store, use_jieba=False).warm()
    index = _index(store)
    tables = index.indexed().corpus.index.forms.tables
    assert tables is not None and tables.covered() == 6
    assert all(tables.half(at, True) is not None for at in range(6))  # not a copy of the damaged, dropped half
    plain = _plain(store)
    for term in _every_term(plain):
        assert index.indexed().corpus.index.segment_postings(term) == plain.indexed().corpus.index.segment_postings(term), term
    assert not tables.broken
