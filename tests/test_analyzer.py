"""The English analyzer: stems and query stop words on every path into the index, tokenize() untouched."""

from __future__ import annotations

import importlib.util

import random
from collections import Counter
from pathlib import Path

import pytest

import wikimem.index.analyzer as analyzer_module
from wikimem import MemoryIndex, MemoryStore, tokenize
from wikimem.index.analyzer import STOP_WORDS, Analyzer, _load_stemmer, may_stem
from wikimem.index.corpus import WikiCorpus
from wikimem.ranking.explain import explain_lines, why_not_lines
from wikimem.models import RecallItem
from wikimem.index.postings_cache import CACHE_NAME
from wikimem.index.scan import scan_texts

from tests.test_cli_fixtures import run

pytest.importorskip("snowballstemmer")  # the dev extra installs it; the fallback is tested without it below


def _store(root: Path, items: dict[str, str]) -> MemoryStore:
    store = MemoryStore(root)
    for name, content in items.items():
        store.add("notes", name, content)
    return store


def _hits(index: MemoryIndex, query: str) -> list[str]:
    return [e.item.name for e in index.retrieve(query, expand_links=False).items]


@pytest.fixture
def no_stemmer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``wikimem[en]`` extra is not installed (its import is monkeypatched away)."""
    monkeypatch.setattr(analyzer_module, "_importable", None)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)


# -- the stage itself ---------------------------------------------------------


def test_tokenize_output_is_unchanged_by_the_analyzer() -> None:
    Analyzer("en").terms(["warm", "up"])  # the stemmer is loaded
    assert tokenize("Running at the Cafés, 海边 runs", use_jieba=False) == [
        "running", "at", "the", "caf", "s", "海边", "runs",
    ]


def test_latin_tokens_are_stemmed_and_cjk_tokens_pass_untouched() -> None:
    analyzer = Analyzer("en")
    assert analyzer.terms(["running", "runs", "studies", "海边", "喜欢", "2026"]) == [
        "run", "run", "studi", "海边", "喜欢", "2026",
    ]


def test_query_stop_words_are_dropped_unless_nothing_else_is_left() -> None:
    analyzer = Analyzer("en")
    query = analyzer.query(["lunch", "at", "the", "cafes"])
    assert query.terms == ["lunch", "cafe"] and query.stop_words == ["at", "the"]
    assert query.stemmed == {"cafes": "cafe"}
    only = analyzer.query(["to", "be", "or", "not", "to", "be"])
    assert only.terms == ["to", "be", "or", "not", "to", "be"] and only.stop_words == []


def test_stop_words_are_a_small_standard_list() -> None:
    assert len(STOP_WORDS) == 33 and {"at", "the", "a", "of"} <= STOP_WORDS
    assert not {"what", "you", "my", "how"} & STOP_WORDS  # meaning in a conversation: left to idf


def test_unknown_analyzer_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="analyzer must be one of"):
        MemoryIndex(MemoryStore(tmp_path), analyzer="porter")


def test_stems_are_memoised_per_distinct_token(monkeypatch: pytest.MonkeyPatch) -> None:
    analyzer = Analyzer("stem")
    assert analyzer.effective == "stem"
    calls: list[str] = []
    stems = analyzer._stems
    assert stems is not None
    real = stems._stem
    stems._stem = lambda token: calls.append(token) or real(token)
    analyzer.terms(["walking", "walks", "walking"] * 1000)
    assert sorted(calls) == ["walking", "walks"]


# -- retrieval ----------------------------------------------------------------


def test_a_stop_word_no_longer_scores(tmp_path: Path) -> None:
    store = _store(tmp_path, {"noise": "at at at the at", "lunch": "Lunch with Bob"})
    assert _hits(MemoryIndex(store, analyzer="en"), "lunch at the cafe") == ["lunch"]
    assert _hits(MemoryIndex(store, analyzer="none"), "lunch at the cafe") == ["noise", "lunch"]  # the issue


def test_running_finds_runs(tmp_path: Path) -> None:
    store = _store(tmp_path, {"jog": "She runs every morning", "other": "a quiet evening"})
    result = MemoryIndex(store, analyzer="en").retrieve("running")
    assert [e.item.name for e in result.items] == ["jog"] and result.items[0].matched_terms == ["run"]
    assert _hits(MemoryIndex(store, analyzer="none"), "running") == []
    assert _hits(MemoryIndex(store, analyzer="stop"), "running") == []


def test_a_query_of_stop_words_only_finds_the_items_holding_them(tmp_path: Path) -> None:
    store = _store(tmp_path, {"hamlet": "To be or not to be", "other": "a quiet evening"})
    result = MemoryIndex(store, analyzer="en").retrieve("to be or not to be")
    assert [e.item.name for e in result.items] == ["hamlet"] and result.stop_words == []


def test_writes_after_the_build_are_analyzed(tmp_path: Path) -> None:
    store = _store(tmp_path, {"a": "nothing here"})
    index = MemoryIndex(store, analyzer="en")
    assert _hits(index, "walking") == []
    store.add("notes", "w", "We walked to the lake")
    assert _hits(index, "walking") == ["w"]
    (store.root / "wiki" / "notes.md").write_text("## w\nhe swims daily\n", "utf-8")
    index.refresh_files(["notes"])
    assert _hits(index, "swimming") == ["w"] and _hits(index, "walking") == []


def test_diary_entries_in_a_window_are_analyzed_too(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.diary.append("Went swimming in the lake", date="2026-07-20", time="08:00")
    store.diary.append("Read a book", date="2026-07-20", time="09:00")
    index = MemoryIndex(store, analyzer="en")
    result = index.retrieve("swims", time_range=("2026-07-20", "2026-07-20"))
    assert [e.item.content for e in result.items] == ["Went swimming in the lake"]
    assert result.items[0].matched_terms == ["swim"]


def test_time_words_are_still_removed_before_analysis(tmp_path: Path) -> None:
    import datetime as dt

    store = MemoryStore(tmp_path)
    store.add("notes", "weeks", "weeks of sleeping badly")
    store.diary.append("Slept well after sleeping pills", date="2026-07-14", time="22:00")
    index = MemoryIndex(store, analyzer="en", today=lambda: dt.date(2026, 7, 21))
    result = index.retrieve("last week sleeping")
    assert result.time_words == ["last week"] and result.query_tokens == ["sleep"]


def test_why_not_names_missing_terms_in_their_analyzed_form(tmp_path: Path) -> None:
    store = _store(tmp_path, {"jog": "She runs every morning", "meet": "Meeting at noon"})
    why = MemoryIndex(store, analyzer="en").why_not("running meetings at noon", "notes", "jog")
    assert why.matched_terms == ["run"] and why.missing_terms == ["meet", "noon"]
    assert "missing tokens: meet (meetings), noon" in why_not_lines(why)


# -- the bulk paths -----------------------------------------------------------

_WORDS = ["running", "runs", "run", "ran", "studies", "studying", "the", "at", "Walked", "walking",
          "cafés", "2026", "x1", "海边", "喜欢", "哈哈哈", "日本", "。", " ", "\n", "-"]


def _texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 14))) for _ in range(count)]


def test_bulk_scan_and_item_by_item_index_the_same_analyzed_postings() -> None:
    analyzer = Analyzer("en")
    bigrams = lambda text: tokenize(text, use_jieba=False)  # noqa: E731
    plain = WikiCorpus(bigrams, None, analyzer)
    fast = WikiCorpus(bigrams, scan_texts, analyzer)
    for file, seed in (("a", 1), ("b", 2)):
        items = [RecallItem(file, f"n{i}", text) for i, text in enumerate(_texts(seed, 150))]
        plain.load_file(file, items, None)
        fast.load_file(file, items, None)
    assert fast.index.segments == 2 and plain.index.segments == 0
    assert fast.index.total_len == plain.index.total_len
    vocabulary = {t for i in range(len(plain.items)) for t in plain.tokens(plain.items[i])}
    assert {"run", "studi", "walk"} <= vocabulary and not {"running", "walked"} & vocabulary
    for term in vocabulary:
        assert list(fast.index.segment_postings(term)[0]) == list(plain.index._packed(term).docs), term
    for query in ["running", "studies walked", "the at", "海边 ran", "run run cafés"]:
        terms = Counter(analyzer.query(bigrams(query)).terms)
        assert fast.index.search(terms, 10) == plain.index.search(terms, 10), query


def test_the_store_loader_indexes_analyzed_terms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path, {f"n{i}": text for i, text in enumerate(_texts(3, 80)) if text.strip()})
    bulk = MemoryIndex(store, analyzer="en", use_jieba=False, postings_cache="off")
    bulk.build()
    assert bulk.indexed().corpus.index.segments >= 1  # read by the bulk loader
    monkeypatch.setattr("wikimem.index.corpus.read_file_blocks", lambda path: None)  # every file item by item
    plain = MemoryIndex(store, analyzer="en", use_jieba=False, postings_cache="off")
    for query in ["running", "studies", "walking the 海边", "x1 cafés"]:
        got = [(e.item.name, round(e.score, 9)) for e in bulk.retrieve(query, expand_links=False).items]
        want = [(e.item.name, round(e.score, 9)) for e in plain.retrieve(query, expand_links=False).items]
        assert got == want and got, query


def test_a_postings_cache_built_with_another_analyzer_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("wikimem.index.corpus.SEGMENT_DOCS", 1)
    monkeypatch.setattr("wikimem.index.derived.CACHE_MIN_DOCS", 1)
    monkeypatch.setattr("wikimem.index.warmup.WARM_SHARE", 0.0)
    store = MemoryStore(tmp_path)
    for f in range(3):
        for i in range(6):
            store.add(f"f{f}", f"i{i}", "running dogs walking " * (i % 3 + 1))
    MemoryIndex(store, analyzer="none", use_jieba=False).warm()
    assert (tmp_path / CACHE_NAME).exists()
    raw = MemoryIndex(store, analyzer="none", use_jieba=False)
    raw.build()
    assert raw.indexed().corpus.index.cache is not None  # same analyzer: used
    stop = MemoryIndex(store, analyzer="stop", use_jieba=False)  # stop words are query-side: same index terms
    stop.build()
    assert stop.indexed().corpus.index.cache is not None
    stemmed = MemoryIndex(store, analyzer="en", use_jieba=False)
    stemmed.build()
    assert stemmed.indexed().corpus.index.cache is None and stemmed.indexed().corpus.fingerprint != raw.indexed().corpus.fingerprint
    assert [e.item.name for e in stemmed.retrieve("run", limit=3).items]


# -- explain and the missing extra -------------------------------------------


def test_explain_shows_stems_and_dropped_stop_words(tmp_path: Path) -> None:
    store = _store(tmp_path, {"jog": "She runs in the park"})
    result = MemoryIndex(store, analyzer="en").retrieve("running at the park", explain=True)
    lines = explain_lines("running at the park", result)
    assert lines[1] == "query tokens: run, park"
    assert lines[4] == (
        "analyzer: en (Snowball English stemmer + stop words); stemmed running->run; stop words dropped: at, the"
    )
    plain = MemoryIndex(store, analyzer="none").retrieve("park", explain=True)
    assert not any(line.startswith("analyzer:") for line in explain_lines("park", plain))


def test_cli_explain_takes_an_analyzer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _store(tmp_path, {"jog": "She runs in the park"})
    code, out, _ = run(capsys, "-s", str(tmp_path), "explain", "running", "--no-jieba", "--analyzer", "none")
    assert code == 1 and "no results" in out
    code, out, _ = run(capsys, "-s", str(tmp_path), "explain", "running", "--no-jieba", "--analyzer", "en")
    assert code == 0 and "notes:jog  [running]" in out and "stemmed running->run" in out  # matched as typed


def test_without_the_extra_en_falls_back_to_stop_words_and_says_so(tmp_path: Path, no_stemmer: None) -> None:
    store = _store(tmp_path, {"jog": "She runs every morning", "noise": "at at at", "lunch": "lunch"})
    index = MemoryIndex(store, analyzer="en")
    assert index.analyzer.effective == "stop"
    assert _hits(index, "lunch at noon") == ["lunch"]  # stop words still work
    result = index.retrieve("running", explain=True)
    assert result.items == []  # no stemming
    line = next(line for line in explain_lines("running", result) if line.startswith("analyzer:"))
    assert line == "analyzer: stop (stop words only); 'en' needs the stemmer: pip install 'wikimem[en]'"
    assert MemoryIndex(store, analyzer="stem").analyzer.effective == "none"


def test_latin_terms_of_scan_tokens_equal_the_terms_token_by_token() -> None:
    """The bulk map (set difference, numbers filtered out) against the per-token map, over calls."""
    analyzer = Analyzer("stem")
    assert analyzer.effective == "stem"
    batches = [
        "running 42 walks \x00 2026 running x1 \x00 studies".split(),
        "walks 42 42 studies 7 ran \x00 running runs 0".split(),  # seen words, numbers again
        ["\x00"],
    ]
    for tokens in batches:
        got = list(analyzer.latin_terms(tokens))
        want = [t if t == "\x00" else analyzer.term(t) for t in tokens]
        assert got == want
    stems = analyzer._stems
    assert stems is not None and "runs" in stems and "42" not in stems and "\x00" not in stems


def test_the_stemmed_latin_form_is_made_of_the_terms_text_by_text() -> None:
    """The bulk form, byte for byte, against tokenize() + the analyzer one text at a time."""
    analyzer = Analyzer("stem")
    texts = [*_texts(5, 300), "", "Running 42x 海边 walks", "x1 İstanbul studies", "K\u212aelvin runs"]
    scanned = scan_texts(texts, analyzer.latin_terms)
    assert scanned is not None
    pieces = [" ".join(analyzer.terms([t for t in tokenize(text, use_jieba=False) if t[0] < "\x80"])) for text in texts]
    assert scanned.latin == ("  " + "  \x00  ".join(p.replace(" ", "  ") for p in pieces) + "  ").replace("    ", "  ").encode()
    plain = scan_texts(texts)
    assert plain is not None and scanned.lengths == plain.lengths and scanned.cjk == plain.cjk


def _words_ending_in_every_table_suffix() -> set[str]:
    """Words built to reach each step of the stemmer: short and long stems, every suffix of its tables."""
    from snowballstemmer.english_stemmer import EnglishStemmer  # noqa: PLC0415 - the pure-Python tables

    tables = {entry.s for name, value in vars(EnglishStemmer).items() if name.startswith("a_") for entry in value}
    rng = random.Random(17)
    words = {suffix for suffix in tables if suffix.isalpha()}
    for _ in range(20_000):
        stem = "".join(rng.choice("aeiouybcdlnrstgmpwkx") for _ in range(rng.randint(0, 8)))
        words.add(stem + rng.choice([*tables, "", "x", "a", "o", "k", "z"]) + rng.choice(["", "", "s", "ed", "ing", "ly"]))
    return {w for w in words if w.isalpha()}


def test_a_word_the_ending_check_skips_is_one_the_stemmer_leaves_as_it_is() -> None:
    """The precheck that saves stemmer calls never changes a term: skipped words come back unchanged.

    The words reach every suffix table of the installed stemmer, so a
    release that adds an ending this check does not know fails here.
    """
    stem = _load_stemmer()
    assert stem is not None
    words = _words_ending_in_every_table_suffix()
    skipped = [w for w in words if not may_stem(w)]
    assert len(skipped) > 1000 and any(may_stem(w) for w in words)
    assert [w for w in skipped if stem(w) != w] == []
    analyzer = Analyzer("stem")
    assert analyzer.terms(sorted(words)) == [stem(w) or w for w in sorted(words)]
