"""The postings cache: written by warm(), read by a later build of the same files, never trusted blindly."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from wikimem import MemoryIndex, MemoryStore
from wikimem.index.postings_cache import CACHE_NAME, PostingsCache

_WORDS = ["sea", "beach", "coffee", "tea", "morning", "hike", "a1", "海边", "喜欢", "哈哈哈", "日本", "我"]
_QUERIES = ["sea", "coffee morning", "hike a1", "海边", "喜欢 tea", "哈哈", "我", "日本 beach", "zzz", "w9 w3"]


@pytest.fixture(autouse=True)
def _small_segments(monkeypatch: pytest.MonkeyPatch) -> None:
    # One segment per file, so cached postings span several segments; a
    # cache even for these few items.
    monkeypatch.setattr("wikimem.index.corpus.SEGMENT_DOCS", 1)
    monkeypatch.setattr("wikimem.index.derived.CACHE_MIN_DOCS", 1)


def _store(root: Path, seed: int = 1, files: int = 5, per_file: int = 9) -> MemoryStore:
    rng = random.Random(seed)
    store = MemoryStore(root)
    for f in range(files):
        for i in range(per_file):
            text = " ".join(rng.choice(_WORDS + [f"w{rng.randrange(12)}"]) for _ in range(rng.randint(1, 12)))
            store.add(f"f{f}", f"item-{f}-{i}", text)
    return store


def _scores(index: MemoryIndex) -> list[dict[str, float]]:
    return [
        {e.item.name: round(e.score, 9) for e in index.retrieve(q, limit=1000, expand_links=False).items}
        for q in _QUERIES
    ]


def _warmed(store: MemoryStore) -> Path:
    MemoryIndex(store, use_jieba=False).warm()
    path = store.root / CACHE_NAME
    assert path.exists()
    return path


def test_warm_writes_the_cache_and_a_later_build_reads_every_term_exactly(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _warmed(store)
    cached = MemoryIndex(store, use_jieba=False)
    cached.build()
    cache = cached.indexed().corpus.index.cache
    assert cache is not None and len(cache) > 5
    plain = MemoryIndex(store, use_jieba=False, postings_cache="off")
    plain.build()
    assert plain.indexed().corpus.index.cache is None
    for term in cache._terms:
        assert cache.get(term) == plain.indexed().corpus.index.segment_postings(term), term
    assert _scores(cached) == _scores(plain)


def test_an_edited_file_invalidates_the_cache(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _warmed(store)
    store.add("f2", "new-one", "sea sea 海边")
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    assert index.indexed().corpus.index.cache is None
    assert _scores(index) == _scores(MemoryIndex(store, use_jieba=False, postings_cache="off"))


def test_a_truncated_cache_is_absent(tmp_path: Path) -> None:
    store = _store(tmp_path)
    path = _warmed(store)
    path.write_bytes(path.read_bytes()[:-3])
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    assert index.indexed().corpus.index.cache is None
    assert _scores(index) == _scores(MemoryIndex(store, use_jieba=False, postings_cache="off"))


def test_a_corrupt_term_falls_back_to_scanning(tmp_path: Path) -> None:
    store = _store(tmp_path)
    path = _warmed(store)
    data = bytearray(path.read_bytes())
    header = data.index(b"\n") + 1
    for i in range(header, len(data), 7):  # flip bytes all over the payload, same size
        data[i] ^= 0x55
    path.write_bytes(bytes(data))
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    assert index.indexed().corpus.index.cache is not None  # the header still matches...
    assert _scores(index) == _scores(MemoryIndex(store, use_jieba=False, postings_cache="off"))  # ...the bytes do not


def test_writes_after_a_cached_load_are_merged_like_scanned_postings(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _warmed(store)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    assert index.indexed().corpus.index.cache is not None
    store.add("f1", "late", "sea coffee 海边 海边")
    store.remove("f3", "item-3-2")
    store.add("f0", "item-0-1", "morning tea")  # replaced content
    assert _scores(index) == _scores(MemoryIndex(store, use_jieba=False, postings_cache="off"))


def test_writes_during_warm_never_reach_the_cache(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    first_packed = " ".join(index.indexed().corpus.index.forms.sample_common(0.01, 3))
    steps = [0]

    def write_meanwhile(done: int, total: int) -> None:
        steps[0] += 1
        if steps[0] == 4:  # these terms are packed now: the write appends to their arrays
            store.add("f9", "late", first_packed)
            index.retrieve("sea")  # applies the write to the index

    index.warm(write_meanwhile)
    cache = PostingsCache.open(tmp_path / CACHE_NAME, index.indexed().corpus.fingerprint)
    assert cache is not None
    end = index.indexed().corpus.index.load_end
    for term in cache._terms:
        docs, _ = cache.get(term)
        assert not docs or docs[-1] < end, term


def test_read_mode_reads_but_never_writes_and_off_does_neither(tmp_path: Path) -> None:
    store = _store(tmp_path)
    MemoryIndex(store, use_jieba=False, postings_cache="read").warm()
    MemoryIndex(store, use_jieba=False, postings_cache="off").warm()
    assert not (tmp_path / CACHE_NAME).exists()
    _warmed(store)
    reader = MemoryIndex(store, use_jieba=False, postings_cache="read")
    reader.build()
    assert reader.indexed().corpus.index.cache is not None
    off = MemoryIndex(store, use_jieba=False, postings_cache="off")
    off.build()
    assert off.indexed().corpus.index.cache is None


def test_a_second_warm_over_a_valid_cache_writes_nothing(tmp_path: Path) -> None:
    store = _store(tmp_path)
    path = _warmed(store)
    before = path.stat().st_mtime_ns, path.stat().st_ino
    MemoryIndex(store, use_jieba=False).warm()
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == before


def test_a_small_store_gets_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("wikimem.index.derived.CACHE_MIN_DOCS", 1000)
    store = _store(tmp_path)
    MemoryIndex(store, use_jieba=False).warm()
    assert not (tmp_path / CACHE_NAME).exists()


def test_unknown_mode_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="postings_cache"):
        MemoryIndex(MemoryStore(tmp_path), postings_cache="yes")
