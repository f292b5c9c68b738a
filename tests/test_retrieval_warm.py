"""warm(): postings packed ahead of queries give the same results, whatever runs meanwhile."""

from __future__ import annotations

import random
import threading
from collections import Counter
from pathlib import Path

import pytest

from wikimem import MemoryIndex, MemoryStore
from wikimem.index.corpus import WikiCorpus
from wikimem.index.scan import scanned_occurrences
from wikimem.index.warmup import warm_up
from wikimem.models import RecallItem
from wikimem.index.scan import scan_texts
from wikimem.tokenize import tokenize

_WORDS = ["sea", "beach", "coffee", "tea", "morning", "hike", "a1", "海边", "喜欢", "哈哈哈", "日本", "我"]
_QUERIES = ["sea", "coffee morning", "hike a1", "海边", "喜欢 tea", "哈哈", "我", "日本 beach", "zzz", "w9 w3"]


@pytest.fixture(autouse=True)
def _small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # Pack every raw term, a few per lock hold, so tiny stores take every path.
    monkeypatch.setattr("wikimem.index.warmup.WARM_MIN_OCCURRENCES", 1)
    monkeypatch.setattr("wikimem.index.warmup._WARM_CHUNK", 5)
    # One index segment per file, so that a term's postings span several.
    monkeypatch.setattr("wikimem.index.corpus.SEGMENT_DOCS", 1)


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS + [f"w{rng.randrange(12)}"]) for _ in range(rng.randint(1, 12)))


def _store(root: Path, seed: int = 1, files: int = 6, per_file: int = 8) -> MemoryStore:
    rng = random.Random(seed)
    store = MemoryStore(root)
    for f in range(files):
        for i in range(per_file):
            store.add(f"f{f}", f"item-{f}-{i}", _text(rng))
    return store


def _scores(index: MemoryIndex) -> list[dict[str, float]]:
    """Every query's hits (name -> score): order among equal scores depends on doc ids."""
    return [
        {e.item.name: round(e.score, 9) for e in index.retrieve(q, limit=1000, expand_links=False).items}
        for q in _QUERIES
    ]


def _fresh_scores(store: MemoryStore) -> list[dict[str, float]]:
    return _scores(MemoryIndex(store, use_jieba=False))


def test_folded_segment_counts_every_term_like_tokenize() -> None:
    texts = ["Sea sea beach", "哈哈哈 我 日本語", "", "a1 b2 海边 x", "々〇 ひらがな 한국어", "İstanbul Ａb é-k \u212a 哈哈.哈"]
    scanned = scan_texts(texts)
    assert scanned is not None
    per_doc: list[Counter[str]] = [Counter() for _ in texts]
    for term, occurrences in scanned_occurrences(0, scanned).items():
        for doc in occurrences:
            per_doc[doc][term] += 1
    assert per_doc == [Counter(tokenize(t, use_jieba=False)) for t in texts]


def test_warm_leaves_every_result_unchanged(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    before = _scores(index)
    index.warm()
    assert _scores(index) == before == _fresh_scores(store)


def test_warm_builds_the_index_first_when_needed(tmp_path: Path) -> None:
    index = MemoryIndex(_store(tmp_path), use_jieba=False)
    index.warm()
    assert index.ready


def test_warm_reports_progress_up_to_its_total(tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    MemoryIndex(_store(tmp_path, files=3), use_jieba=False).warm(lambda done, total: calls.append((done, total)))
    total = calls[0][1]
    assert total > 1  # one step per common term, plus the raw terms
    assert calls == [(done, total) for done in range(total + 1)]


def test_terms_queried_before_warm_are_not_duplicated(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.retrieve("sea 海边 coffee")  # packs these terms from every segment
    index.warm()
    assert _scores(index) == _fresh_scores(store)


def test_writes_between_warm_chunks_stay_consistent(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    rng = random.Random(5)
    step = [0]

    def write_between_chunks(done: int, total: int) -> None:
        step[0] += 1
        store.add("f1", f"new-{step[0]}", _text(rng) + " sea 海边")
        store.remove(f"f{step[0] % 6}", f"item-{step[0] % 6}-{step[0] % 8}")
        index.retrieve(_QUERIES[step[0] % len(_QUERIES)])  # applies the write mid warm-up

    index.warm(write_between_chunks)
    assert _scores(index) == _fresh_scores(store)


def test_warm_moves_on_to_a_corpus_rebuilt_meanwhile(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    calls: list[tuple[int, int]] = []
    first = index.indexed().corpus

    def rebuild_once(done: int, total: int) -> None:
        calls.append((done, total))
        if len(calls) == 2:
            store.add("f9", "late", "sea late arrival")
            index.rebuild()

    index.warm(rebuild_once)
    assert index.indexed().corpus is not first
    assert [done for done, _ in calls].count(0) == 2  # started over on the new corpus...
    assert calls[-1][0] == calls[-1][1]  # ...and finished it
    assert _scores(index) == _fresh_scores(store)


def test_should_stop_ends_warm_early_and_keeps_results(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False)
    calls: list[tuple[int, int]] = []
    index.warm(lambda done, total: calls.append((done, total)), should_stop=lambda: len(calls) >= 2)
    assert [done for done, _ in calls] == [0, 1]
    assert calls[0][1] > 2  # stopped before the end
    assert _scores(index) == _fresh_scores(store)


def test_should_stop_is_asked_inside_one_terms_search_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One term's search spans every segment (~250 at 1M items): a pausing app must not wait for all of them."""
    monkeypatch.setattr("wikimem.index.segments._STOP_EVERY", 2)
    store = _store(tmp_path, files=12)  # 12 segments (one per file)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    progress: list[int] = []
    asked: list[int] = []
    index.warm(lambda done, total: progress.append(done), should_stop=lambda: asked.append(len(progress)) or len(asked) >= 3)
    # Asked by warm() before starting, by the warm-up before the first term, then inside that
    # term's search (after its 2nd segment: stop), and by warm() once more before giving up.
    assert progress == [0]  # stopped inside the first term's search, before it was adopted
    assert len(asked) == 4
    assert _scores(index) == _fresh_scores(store)


def test_warm_in_a_thread_while_another_thread_writes_and_queries(tmp_path: Path) -> None:
    store = _store(tmp_path, files=12, per_file=10)
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    done = threading.Event()
    errors: list[BaseException] = []

    def hammer() -> None:
        rng = random.Random(9)
        try:
            for i in range(120):
                store.add(f"f{i % 12}", f"hammer-{i}", _text(rng))
                if i % 3 == 0 and i < 60:  # each (file, item) once
                    store.remove(f"f{i % 12}", f"item-{i % 12}-{i % 10}")
                index.retrieve(_QUERIES[i % len(_QUERIES)])
                if done.is_set() and i > 20:
                    break
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)

    thread = threading.Thread(target=hammer)
    thread.start()
    try:
        index.warm()
    finally:
        done.set()
        thread.join()
    assert not errors
    assert _scores(index) == _fresh_scores(store)


def test_warm_packs_an_index_built_token_by_token() -> None:
    # jieba mode (or unscannable files): no segments, only raw occurrences.
    rng = random.Random(3)
    corpora = [WikiCorpus(lambda text: tokenize(text, use_jieba=False)) for _ in range(2)]
    items = [RecallItem("f", f"item-{i}", _text(rng), "me", None, "2026-01-01T00:00:00Z") for i in range(40)]
    for corpus in corpora:
        corpus.load_file("f", items, None)
    warmed, plain = corpora
    assert warm_up(lambda: warmed, threading.Lock(), lambda done, total: None, lambda: False)
    for query in _QUERIES:
        terms = Counter(tokenize(query, use_jieba=False))
        assert warmed.index.search(terms, 50) == plain.index.search(terms, 50)
