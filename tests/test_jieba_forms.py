"""jieba on the fast path: coded scan forms, the segmentation cache and the packed dictionary hold to ``tokenize()``.

The oracle is ``tokenize(text, use_jieba=True)`` item by item: the bulk
load with word codes must give the same doc lengths, postings and
rankings, whatever the cache holds (nothing, a corrupt or foreign file, a
stale segmentation) and after writes.
"""

from __future__ import annotations

import logging
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from wikimem import MemoryStore
from wikimem.index.forms import segmentation_cache
from wikimem.index.corpus.wiki import WikiCorpus
from wikimem.index.forms.scan import scanned_occurrences
from wikimem.index.forms.words import WordForms
from wikimem.index.search.form_search import FormViews
from wikimem.models import RecallItem
from wikimem.retrieval import MemoryIndex
import wikimem.tokenize  # noqa: F401 -- the module (the package face's name is the function)

tokenize_module = sys.modules["wikimem.tokenize"]

jieba = pytest.importorskip("jieba")

pytestmark = pytest.mark.usefixtures("index_path")

# Chinese words and phrases, kana, Hangul, latin, Extension A and B, compatibility
# ideographs, iteration marks, private-use characters (separators), punctuation.
_PIECES = [
    "我们", "喜欢", "数据库", "的", "设计方案", "北京大学", "研究生命", "起源", "海边", "哈哈哈", "中华人民共和国",
    "今天天气很好", "他说", "了", "。", "，", "、", "！", " ", "\n", "カタカナ", "ひらがな", "한국어", "日本語を",
    "abc", "Deploy", "x1", "9", "é", "İ", "\u3400\u3401", "\U00020000\U00020001", "\uf900", "々", "〇",
    "\ue000", "\uf000\ue001", "・", "龘龘", "小明硕士毕业于中国科学院计算所",
]


def _texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 25))) for _ in range(count)]


_REAL: list[Any] = []


def oracle(text: str) -> list[str]:
    """``tokenize(text, use_jieba=True)`` with jieba's own cut and dictionary (a tokenizer of its own, not ``jieba.dt``)."""
    if not _REAL:
        real = jieba.Tokenizer()
        real.initialize()
        _REAL.append(real)
    tokens: list[str] = tokenize_module._jieba_tokens(text.lower(), _REAL[0].lcut)
    return tokens


def _corpora(files: dict[str, list[str]], words: WordForms | None = None) -> tuple[WikiCorpus, WikiCorpus]:
    plain = WikiCorpus(oracle)
    words = words if words is not None else WordForms(None, "wiki")
    fast = WikiCorpus(oracle, words.scan_texts, words=words)
    for file, texts in files.items():
        items = [RecallItem(file, f"n{i}", text) for i, text in enumerate(texts)]
        plain.load_file(file, items, None)
        fast.load_file(file, items, None)
    return plain, fast


def _vocabulary(texts: list[str]) -> set[str]:
    return set().union(*(oracle(t) for t in texts))


def test_coded_forms_give_every_term_the_oracle_postings_and_lengths() -> None:
    plain, fast = _corpora({"a": _texts(1, 300)})
    texts = [fast.text(item) for _, item in fast.live()]  # name and content, as indexed
    assert list(fast.index._dl) == [len(oracle(t)) for t in texts]
    vocabulary = _vocabulary(texts)
    assert any(len(t) > 2 and "\u4e00" <= t[0] <= "\u9fff" for t in vocabulary)  # jieba words, not bigrams
    counts = [Counter(oracle(t)) for t in texts]
    for term in vocabulary:
        want = [(d, c[term]) for d, c in enumerate(counts) if c[term]]
        docs, tfs = fast.index.forms.postings(term) or ([], [])
        assert list(zip(docs, tfs)) == want, term


def test_coded_forms_rank_exactly_like_the_tokenized_load() -> None:
    plain, fast = _corpora({"a": _texts(2, 150), "b": _texts(3, 150)})
    assert fast.index.total_len == plain.index.total_len
    for query in (Counter(oracle(q)) for q in _texts(4, 60)):
        if query:
            assert fast.index.search(query, 10) == plain.index.search(query, 10)


def test_words_no_text_holds_and_private_use_terms_are_found_nowhere() -> None:
    _, fast = _corpora({"a": ["我们喜欢海边 \ue000\uf000"]})
    for term in ("天气", "\ue000\uf000", "\ue000", "海边的", "龘"):
        docs, _ = fast.index.forms.postings(term) or ([], [])
        assert list(docs) == [], term


def test_a_run_of_codes_holds_each_word_once_and_no_pair_across_two_codes() -> None:
    """The warm-up's sample and the numpy views read a run of codes word by word, never a pair across two codes."""
    _, fast = _corpora({"a": _texts(8, 200)})
    segments = fast.index.forms
    scanned = segments.scanned(0)
    assert any(len(run) > 2 and "\ue000" <= run[0] <= "\uefff" for run in scanned.cjk.split())  # several words a run
    per_doc: list[Counter[str]] = [Counter() for _ in scanned.lengths]
    for term, docs in scanned_occurrences(0, scanned).items():
        for doc in docs:
            per_doc[doc][term] += 1
    texts = [fast.text(item) for _, item in fast.live()]
    form_term = segments.form_term
    assert form_term is not None
    assert per_doc == [Counter(map(form_term, oracle(t))) for t in texts]
    np = pytest.importorskip("numpy")
    pairs = FormViews(np, scanned)._pairs
    assert pairs is not None
    assert not any(0xF000 <= key <= 0xF8FF for key in pairs._keys.tolist())  # no row starts at a code's second character


def test_coded_forms_stay_exact_after_adds_and_removals() -> None:
    plain, fast = _corpora({"a": _texts(5, 100)})
    later = _texts(6, 30) + ["只在这里出现的新词 zzunseen"]
    for corpus in (plain, fast):
        corpus.update_file("a", [RecallItem("a", f"m{i}", t) for i, t in enumerate(_texts(5, 100)[10:] + later)], None)
    for query in [Counter(oracle(q)) for q in _texts(7, 40)] + [Counter(oracle("只在这里出现的新词 zzunseen"))]:
        if query:
            assert fast.index.search(query, 10) == plain.index.search(query, 10)


def _store(root: Path, texts: list[str]) -> MemoryStore:
    store = MemoryStore(root)
    for i, text in enumerate(texts):
        store.add(f"topic{i % 3}", f"item{i}", text or "空")
    return store


def _rankings(index: MemoryIndex, queries: list[str]) -> list[list[tuple[str, float]]]:
    """Each query's hits and scores; equal scores in name order (doc ids, which break ties, differ after writes)."""
    out = []
    for query in queries:
        hits = sorted(((r.item.name, round(r.score, 9)) for r in index.retrieve(query, limit=10).items),
                      key=lambda hit: (-hit[1], hit[0]))
        if len(hits) == 10:  # a tie at the cut may keep either document
            hits = [hit for hit in hits if hit[1] != hits[-1][1]]
        out.append(hits)
    return out


def _plain_rankings(store: MemoryStore, queries: list[str]) -> list[list[tuple[str, float]]]:
    """The oracle: the same store indexed item by item with jieba (no word forms)."""
    index = MemoryIndex(store, use_jieba=True)
    index._words = index._diary_words = None  # the item-by-item path: no word forms, no bigram scanner
    setattr(index, "_scan", lambda words: None)  # noqa: B010 -- the index's scanner hook, replaced for the oracle
    return _rankings(index, queries)


_QUERIES = ["数据库的设计方案", "我们喜欢海边", "中华人民共和国 deploy", "カタカナ 한국어", "研究生命起源"]


def test_a_store_ranks_like_the_oracle_first_ever_and_from_the_cache(tmp_path: Path) -> None:
    store = _store(tmp_path / "s", _texts(8, 60))
    want = _plain_rankings(store, _QUERIES)
    first = MemoryIndex(store, use_jieba=True)
    assert _rankings(first, _QUERIES) == want
    path = segmentation_cache.cache_path(store.root, "wiki")
    assert path.exists()
    again = MemoryIndex(store, use_jieba=True)
    assert _rankings(again, _QUERIES) == want


def test_a_load_from_the_cache_writes_it_again_only_with_what_changed(tmp_path: Path) -> None:
    """Two files of the very same texts, a rebuild, then one edit: the cache is rewritten once, whole."""
    store = _store(tmp_path / "s", _texts(8, 30))
    (store.root / "wiki" / "twin.md").write_bytes((store.root / "wiki" / "topic0.md").read_bytes())
    want = _plain_rankings(store, _QUERIES)
    assert _rankings(MemoryIndex(store, use_jieba=True), _QUERIES) == want  # segments, writes the cache
    path = segmentation_cache.cache_path(store.root, "wiki")
    written = path.stat().st_mtime_ns, path.read_bytes()
    index = MemoryIndex(store, use_jieba=True)
    assert _rankings(index, _QUERIES) == want  # from the cache, the twin too: nothing to write
    index.rebuild()
    assert _rankings(index, _QUERIES) == want  # a rebuild reads the cache again (the forms were let go)
    assert (path.stat().st_mtime_ns, path.read_bytes()) == written
    store.add("topic1", "new-item", "我们喜欢去海边玩 新的句子")
    edited = MemoryIndex(store, use_jieba=True)
    assert _rankings(edited, _QUERIES) == _plain_rankings(store, _QUERIES)
    made_by = WordForms(store.root, "wiki")._made_by
    seg = segmentation_cache.read(path, store.root, made_by)
    assert seg is not None and len(seg.files) == 3  # topic0..2 (topic1 as edited; the twin is topic0 by content)
    assert _rankings(MemoryIndex(store, use_jieba=True), _QUERIES) == _plain_rankings(store, _QUERIES)


def _break(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "corrupt":
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    elif how == "truncated":
        path.write_bytes(bytes(data[: len(data) // 3]))
    elif how == "garbage":
        path.write_bytes(os.urandom(4096))
    elif how == "empty":
        path.write_bytes(b"")


@pytest.mark.parametrize("how", ["corrupt", "truncated", "garbage", "empty"])
def test_a_broken_cache_reads_as_none_and_the_load_is_right(tmp_path: Path, how: str) -> None:
    store = _store(tmp_path / "s", _texts(9, 40))
    want = _plain_rankings(store, _QUERIES)
    MemoryIndex(store, use_jieba=True).build()
    path = segmentation_cache.cache_path(store.root, "wiki")
    _break(path, how)
    assert segmentation_cache.read(path, store.root, WordForms(store.root, "wiki")._made_by) is None
    assert _rankings(MemoryIndex(store, use_jieba=True), _QUERIES) == want
    assert segmentation_cache.read(path, store.root, WordForms(store.root, "wiki")._made_by) is not None  # rewritten


def test_a_cache_of_another_store_or_segmenter_is_not_read(tmp_path: Path) -> None:
    store = _store(tmp_path / "s", _texts(10, 20))
    MemoryIndex(store, use_jieba=True).build()
    path = segmentation_cache.cache_path(store.root, "wiki")
    made_by = WordForms(store.root, "wiki")._made_by
    assert segmentation_cache.read(path, store.root, made_by) is not None
    assert segmentation_cache.read(path, tmp_path / "other", made_by) is None
    assert segmentation_cache.read(path, store.root, made_by + "|another jieba") is None


def test_a_cache_that_swaps_another_stores_content_in_is_not_trusted(tmp_path: Path) -> None:
    """A cache copied from another store (same segmenter) reads as none here: it names its store."""
    one = _store(tmp_path / "one", ["我们喜欢海边"])
    two = _store(tmp_path / "two", ["数据库的设计方案"])
    MemoryIndex(one, use_jieba=True).build()
    path_two = segmentation_cache.cache_path(two.root, "wiki")
    path_two.write_bytes(segmentation_cache.cache_path(one.root, "wiki").read_bytes())
    assert _rankings(MemoryIndex(two, use_jieba=True), ["数据库"]) == _plain_rankings(two, ["数据库"])


def test_an_edit_between_processes_is_segmented_again(tmp_path: Path) -> None:
    store = _store(tmp_path / "s", _texts(11, 30))
    MemoryIndex(store, use_jieba=True).build()
    store.add("topic0", "fresh", "小明硕士毕业于中国科学院计算所")
    queries = [*_QUERIES, "计算所", "小明"]
    assert _rankings(MemoryIndex(store, use_jieba=True), queries) == _plain_rankings(store, queries)


def test_an_unwritable_cache_folder_is_logged_and_the_load_is_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    store = _store(tmp_path / "s", _texts(12, 30))
    with caplog.at_level(logging.INFO, logger="wikimem.index.forms.segmentation_cache"):
        got = _rankings(MemoryIndex(store, use_jieba=True), _QUERIES)
    assert got == _plain_rankings(store, _QUERIES)
    assert any("was not written" in r.getMessage() for r in caplog.records)


def test_writes_and_external_edits_are_found_with_jieba(tmp_path: Path) -> None:
    store = _store(tmp_path / "s", _texts(13, 30))
    index = MemoryIndex(store, use_jieba=True)
    index.build()
    store.add("topic1", "added", "研究生命起源的科学家")
    assert "added" in [r.item.name for r in index.retrieve("生命起源", limit=5).items]
    path = store.wiki_dir / "topic2.md"
    path.write_text(path.read_text("utf-8").replace("item2", "renamed") + "\n## edited\n\n北京大学的图书馆\n", "utf-8")
    assert index.refresh() == ["topic2"]
    assert "edited" in [r.item.name for r in index.retrieve("图书馆", limit=5).items]
    assert _rankings(index, ["图书馆", *_QUERIES]) == _plain_rankings(store, ["图书馆", *_QUERIES])
    index.rebuild()  # a load with the edited file's segmentation made in this process
    assert _rankings(index, ["图书馆", *_QUERIES]) == _plain_rankings(store, ["图书馆", *_QUERIES])


# -- the packed dictionary ----------------------------------------------------------------------------


def _runs_of(texts: list[str]) -> list[str]:
    from wikimem.tokenize import IDEOGRAPHS  # noqa: PLC0415

    import re  # noqa: PLC0415

    return [m.group() for t in texts for m in re.finditer(f"[{IDEOGRAPHS}]+", t)]


def test_the_packed_dictionary_cuts_exactly_like_jieba(tmp_path: Path) -> None:
    """The oracle: jieba.lcut with its own dictionary, in a process of its own; the packed cut in another."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    try:
        from synth import Generator  # type: ignore[import-not-found]  # noqa: PLC0415
    finally:
        sys.path.pop(0)
    gen = Generator(3)
    texts = [gen.text(True, 1, 4) for _ in range(400)] + _texts(14, 200) + [
        "小明硕士毕业于中国科学院计算所后在日本京都大学深造", "他来到了网易杭研大厦", "我来到北京清华大学",
        "乒乓球拍卖完了", "工信处女干事每月经过下属科室都要亲口交代24口交换机等技术性器件的安装工作",
    ]
    runs = sorted(set(_runs_of(texts)))
    data = tmp_path / "runs.txt"
    data.write_text("\n".join(runs), "utf-8")
    script = (
        "import sys, json\n"
        "import wikimem.tokenize; t = sys.modules['wikimem.tokenize']\n"
        "runs = open(sys.argv[1], encoding='utf-8').read().split('\\n')\n"
        "import jieba\n"
        "if sys.argv[2] == 'jieba':\n"
        "    jieba.initialize(); cut = jieba.lcut\n"
        "else:\n"
        "    cut = t._cut(jieba); assert cut is not jieba.lcut and not jieba.dt.initialized, 'not the packed cut'\n"
        "print(json.dumps([cut(r) for r in runs], ensure_ascii=False))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    # The first process packs the dictionary (it loads jieba's), the next reads the packed one.
    subprocess.run([sys.executable, "-c", "import sys, jieba, wikimem.tokenize; sys.modules['wikimem.tokenize']._cut(jieba)"], env=env, check=True)
    want = subprocess.run([sys.executable, "-c", script, str(data), "jieba"], env=env, check=True, capture_output=True, text=True)
    got = subprocess.run([sys.executable, "-c", script, str(data), "packed"], env=env, check=True, capture_output=True, text=True)
    assert got.stdout == want.stdout
    assert len(runs) > 500


def test_a_broken_packed_dictionary_reads_as_none(tmp_path: Path) -> None:
    from wikimem import jieba_dict  # noqa: PLC0415

    path = tmp_path / "d.dict"
    assert jieba_dict.write(path, "fp", {"我": 3, "我们": 5, "我们的": 0}, 8)
    found = jieba_dict.read(path, "fp")
    assert found is not None
    packed, total = found
    assert total == 8 and packed.get("我们") == 5 and "我们的" in packed and packed.get("你") is None
    assert jieba_dict.read(path, "another") is None
    for how in ("corrupt", "truncated", "garbage", "empty"):
        jieba_dict.write(path, "fp", {"我": 3}, 3)
        _break(path, how)
        assert jieba_dict.read(path, "fp") is None, how


def test_jieba_customised_in_the_process_is_respected(tmp_path: Path) -> None:
    """add_word in the process: the query and the load both see the new word (jieba itself, no shared cache)."""
    store = _store(tmp_path / "s", ["蓝翔挖掘机学校很有名", "别的内容"])
    MemoryIndex(store, use_jieba=True).build()  # a cache made with the default dictionary
    script = (
        "import sys, jieba\n"
        "from wikimem import MemoryStore, tokenize\n"
        "from wikimem.retrieval import MemoryIndex\n"
        "jieba.add_word('挖掘机学校', 10**7)\n"
        "assert '挖掘机学校' in tokenize('蓝翔挖掘机学校很有名', use_jieba=True)\n"
        "index = MemoryIndex(MemoryStore(sys.argv[1]), use_jieba=True)\n"
        "print([r.item.name for r in index.retrieve('挖掘机学校', limit=3).items])\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", script, str(store.root)], env=env, check=True, capture_output=True,
                         text=True)
    assert out.stdout.strip() == "['item0']"


def test_a_word_added_after_a_text_was_tokenized_changes_its_tokens(tmp_path: Path) -> None:
    """The cut words of a run are remembered, but never across a change of jieba's dictionary."""
    script = (
        "import jieba\n"
        "from wikimem import tokenize\n"
        "before = tokenize('蓝翔挖掘机学校很有名', use_jieba=True)\n"
        "assert '挖掘机学校' not in before, before\n"
        "assert tokenize('蓝翔挖掘机学校很有名', use_jieba=True) == before\n"
        "jieba.add_word('挖掘机学校', 10**7)\n"
        "after = tokenize('蓝翔挖掘机学校很有名', use_jieba=True)\n"
        "assert '挖掘机学校' in after, after\n"
        "jieba.add_word('很有名', 10**7)\n"  # jieba's own cut both times: only its total moved
        "again = tokenize('蓝翔挖掘机学校很有名', use_jieba=True)\n"
        "assert again[-1] == '很有名', again\n"
        "import sys\n"
        "from wikimem import MemoryStore\n"
        "from wikimem.retrieval import MemoryIndex\n"
        "index = MemoryIndex(MemoryStore(sys.argv[1]), use_jieba=True)\n"
        "terms = index.retrieve('大数据平台很稳').query_tokens\n"
        "assert '大数据平台' not in terms, terms\n"
        "jieba.add_word('大数据平台', 10**7)\n"  # the query's analysis is remembered: not across this
        "terms = index.retrieve('大数据平台很稳').query_tokens\n"
        "assert '大数据平台' in terms, terms\n"
        "print('ok')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "XDG_CACHE_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "m")], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_invalid_utf8_is_refused_by_the_scan_and_indexed_item_by_item() -> None:
    words = WordForms(None, "wiki")
    assert words.scan_files([b"ok", b"\xff\xfe \xe4\xb8"], 2) is None
    plain, fast = _corpora({"a": ["nul \x00 inside 我们喜欢", *_texts(17, 10)], "b": _texts(18, 10)})
    for query in (Counter(oracle(q)) for q in [*_texts(19, 20), "我们喜欢 nul"]):
        if query:
            assert fast.index.search(query, 10) == plain.index.search(query, 10)


def test_a_text_with_a_character_lowercasing_to_ascii_is_indexed_like_tokenize() -> None:
    texts = ["İstanbul 我们", "KELVIN \u212a 喜欢", "plain 海边"]
    plain, fast = _corpora({"a": texts})
    for query in (Counter(oracle(q)) for q in ["i̇stanbul", "kelvin k", "我们", "海边 plain"]):
        assert fast.index.search(query, 10) == plain.index.search(query, 10)
    assert list(fast.index._dl) == list(plain.index._dl)
