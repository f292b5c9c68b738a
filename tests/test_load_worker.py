"""The cold load's second process: the same index with it or without it, and nothing lost when it fails."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import pytest

from wikimem import MemoryIndex, MemoryStore
from wikimem.index import load_groups, scan_worker, vectorized
from wikimem.index.scan import DOC_BREAK, scan_joined
from wikimem.index import segments as segments_module
from wikimem.index.segments import Segments

np = pytest.importorskip("numpy")

_WORDS = ["sea", "beach", "coffee", "tea", "morning", "a1", "海边", "喜欢", "哈哈哈", "日本", "我", "café", "𠀀𠀁", "x" * 40]
_QUERIES = ["sea", "coffee morning", "a1", "海边", "喜欢 tea", "哈哈", "我", "日本 beach", "zzz", "w9 w3", "café", "𠀀"]


@pytest.fixture(autouse=True)
def _small_segments(monkeypatch: pytest.MonkeyPatch) -> None:
    # One segment per file and the numpy path (views included) even for these few items.
    monkeypatch.setattr("wikimem.index.corpus.SEGMENT_DOCS", 1)
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
    # A file only the block parser reads (a repeated heading): the groups before it are applied first.
    (store.root / "f4.md").write_text("## twice\nsea tea\n\n## twice\ncoffee 海边\n\n## once\nmorning\n", "utf-8")
    return store


class _Seen:
    """What the loads of a test did: groups by the child and here, segments given views made there."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.by_child = self.here = self.views_from_child = 0
        close, add = load_groups.GroupScans.close, Segments.add

        def closed(scans: load_groups.GroupScans) -> None:
            self.by_child += scans.by_child
            self.here += scans.here
            close(scans)

        def added(segments: Segments, base: int, scanned: Any, key: Any, views: Any = None) -> None:
            self.views_from_child += views is not None
            add(segments, base, scanned, key, views)

        monkeypatch.setattr(load_groups.GroupScans, "close", closed)
        monkeypatch.setattr(Segments, "add", added)


def _loaded(store: MemoryStore, monkeypatch: pytest.MonkeyPatch, worker: str) -> tuple[list[Any], list[Any], list[Any]]:
    """Every segment's forms, every query's scores and the postings of every query term, after a load."""
    monkeypatch.setenv("WIKIMEM_LOAD_WORKER", worker)
    index = MemoryIndex(store, use_jieba=False, postings_cache="off")
    index.build()
    inv = index.indexed().corpus.index
    forms = [tuple(map(bytes, (s.latin, s.cjk.encode(), s.latin_starts, s.cjk_starts, s.lengths)))
             for s in (inv.forms.scanned(at) for at in range(inv.segments))]
    scores = [[(e.item.file, e.item.name, round(e.score, 9)) for e in index.retrieve(q, limit=1000, expand_links=False).items]
              for q in _QUERIES]
    terms = sorted({t for q in _QUERIES for t in index.analyze_query(q).terms})
    found = inv.forms.postings_many(terms)
    postings = [(t, list(found[t][0]), list(found[t][1])) for t in terms]
    return forms, scores, postings


def test_a_load_with_the_second_process_equals_one_without(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _Seen(monkeypatch)
    alone = _loaded(store, monkeypatch, "0")
    assert seen.by_child == 0
    both = _loaded(store, monkeypatch, "1")
    assert both == alone
    assert seen.by_child >= 1 and seen.views_from_child == seen.by_child
    assert alone[1][0]  # the queries find something: the comparison is not of empty lists


def test_a_child_that_dies_mid_load_leaves_its_groups_to_the_parent(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = _loaded(store, monkeypatch, "0")
    seen = _Seen(monkeypatch)
    # It answers one group, then exits: the group it was sent next is scanned here.
    monkeypatch.setattr(scan_worker, "CHILD_CODE", scan_worker.CHILD_CODE.replace("serve()", "serve(limit=1)"))
    assert _loaded(store, monkeypatch, "1") == alone
    assert seen.by_child == 1 and seen.here >= 1


@pytest.mark.parametrize("broken", ["exits", "no interpreter"])
def test_a_child_that_never_starts_costs_nothing_but_its_help(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    alone = _loaded(store, monkeypatch, "0")
    seen = _Seen(monkeypatch)
    if broken == "exits":
        monkeypatch.setattr(scan_worker, "CHILD_CODE", "raise SystemExit(3)")
    else:
        monkeypatch.setattr(scan_worker.sys, "executable", str(store.root / "no-such-python"))
    assert _loaded(store, monkeypatch, "1") == alone
    assert seen.by_child == 0 and seen.here >= 1


def _frames(*messages: object) -> io.BytesIO:
    out = io.BytesIO()
    for message in messages:
        scan_worker._write(out, message)
    out.seek(0)
    return out


def _answers(stream: io.BytesIO) -> list[Any]:
    stream.seek(0)
    answers = []
    while True:
        try:
            answers.append(scan_worker._read(stream))
        except EOFError:
            return answers


def test_the_child_refuses_another_analyzer_and_scans_as_the_parent_would() -> None:
    out = io.BytesIO()
    scan_worker.serve(_frames(("start", "stem", "snowball-english:0.0")), out)
    [(kind, why)] = _answers(out)
    assert kind == "error" and "fingerprint" in why

    texts = ["Sea and tea 海边", "哈哈哈 x1", ""]
    joined = DOC_BREAK.join(texts).encode()
    out = io.BytesIO()
    # A group, one that cannot be scanned (three texts said, two given), a request that breaks, then the pipe's end.
    scan_worker.serve(_frames(("start", None, "raw"), ("scan", joined, 3, None, True), ("scan", joined, 2, None, False),
                              ("scan", None, 1, None, False)), out)
    ready, (kind, scanned, views), refused, broke = _answers(out)
    assert ready[0] == "ready" and kind == "scanned"
    assert scanned == scan_joined(joined, 3) and views is not None
    assert views.postings(True, "sea", 0) is not None
    assert refused == ("scanned", None, None)
    assert broke[0] == "error"


def test_a_cut_frame_is_the_end_of_the_pipe() -> None:
    whole = _frames(("start", None, "raw")).getvalue()
    with pytest.raises(EOFError):
        scan_worker._read(io.BytesIO(whole[:-1]))
    with pytest.raises(EOFError):
        scan_worker._read(io.BytesIO(whole[:3]))


@pytest.mark.parametrize("thread", ["1", "0"])
def test_a_view_that_cannot_be_made_leaves_its_segment_to_the_pure_search(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch, thread: str
) -> None:
    alone = _loaded(store, monkeypatch, "0")
    monkeypatch.setenv("WIKIMEM_VIEW_THREAD", thread)
    made = []
    real = segments_module.FormViews

    def flaky(np_module: Any, scanned: Any) -> Any:
        made.append(scanned)
        if len(made) == 3:
            raise MemoryError("no room for this segment's views")
        return real(np_module, scanned)

    monkeypatch.setattr(segments_module, "FormViews", flaky)
    assert _loaded(store, monkeypatch, "0") == alone
    assert len(made) >= 3  # the third segment's views failed: it was searched without them
