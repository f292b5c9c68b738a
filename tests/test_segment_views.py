"""A segment whose numpy views cannot be made is searched the pure way: the same forms, postings and results.

A cold load makes each segment's numpy views (on the view thread, or in
line with ``WIKIMEM_VIEW_THREAD=0``); making them can fail (out of memory,
say). The load must then answer every query exactly as a load whose views
were all made: the segment is left to the pure search, nothing is lost.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wikimem import MemoryIndex, MemoryStore
from wikimem.index import vectorized
from wikimem.index.search import segments as segments_module
from wikimem.index.search.form_search import FormViews

np = pytest.importorskip("numpy")

_WORDS = ["sea", "beach", "coffee", "tea", "morning", "a1", "海边", "喜欢", "哈哈哈", "日本", "我", "café", "𠀀𠀁", "x" * 40]
_QUERIES = ["sea", "coffee morning", "a1", "海边", "喜欢 tea", "哈哈", "我", "日本 beach", "zzz", "w9 w3", "café", "𠀀"]


@pytest.fixture(autouse=True)
def _small_segments(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # One segment per file and the numpy path (views included) even for these few items.
    monkeypatch.setattr("wikimem.index.corpus.wiki.SEGMENT_DOCS", 1)
    monkeypatch.setattr(vectorized, "SCAN_MIN", 0)
    vectorized.switch(True)
    yield
    vectorized.switch(None)


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    rng = random.Random(7)
    store = MemoryStore(tmp_path / "memory")
    for f in range(8):
        for i in range(12):
            text = " ".join(rng.choice([*_WORDS, f"w{rng.randrange(12)}"]) for _ in range(rng.randint(1, 14)))
            store.add(f"f{f}", f"item-{f}-{i}", text)
    # A file only the block parser reads (a repeated heading), between bulk-loaded ones.
    (store.root / "f4.md").write_text("## twice\nsea tea\n\n## twice\ncoffee 海边\n\n## once\nmorning\n", "utf-8")
    return store


def _loaded(store: MemoryStore) -> tuple[list[Any], list[Any], list[Any]]:
    """Every segment's forms, every query's scores and the postings of every query term, after a load."""
    index = MemoryIndex(store, use_jieba=False)
    index.build()
    corpus = index.indexed().corpus
    assert corpus is not None
    inv = corpus.index
    forms = [tuple(map(bytes, (s.latin, s.cjk.encode(), s.latin_starts, s.cjk_starts, s.lengths)))
             for s in (inv.forms.scanned(at) for at in range(len(inv.forms)))]
    scores = [[(e.item.file, e.item.name, round(e.score, 9)) for e in index.retrieve(q, limit=1000, expand_links=False).items]
              for q in _QUERIES]
    terms = sorted({t for q in _QUERIES for t in index.analyze_query(q).terms})
    found = inv.forms.postings_many(terms)
    postings = [(t, list(found[t][0]), list(found[t][1])) for t in terms]
    index.close()
    return forms, scores, postings


@pytest.mark.parametrize("thread", ["1", "0"])
def test_a_view_that_cannot_be_made_leaves_its_segment_to_the_pure_search(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch, thread: str
) -> None:
    alone = _loaded(store)
    assert alone[1][0]  # the queries find something: the comparison is not of empty lists
    monkeypatch.setenv("WIKIMEM_VIEW_THREAD", thread)
    made: list[Any] = []
    real = FormViews

    def flaky(np_module: Any, scanned: Any) -> Any:
        made.append(scanned)
        if len(made) == 3:
            raise MemoryError("no room for this segment's views")
        return real(np_module, scanned)

    monkeypatch.setattr(segments_module, "FormViews", flaky)
    assert _loaded(store) == alone
    assert len(made) >= 3
