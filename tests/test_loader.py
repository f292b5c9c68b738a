"""The bulk file reader must read every file exactly as the store's parser does, or decline it."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest

from wikimem import MemoryIndex, MemoryStore
from wikimem.disk import loader
from wikimem.disk.loader import block_names, read_file_blocks
from wikimem.index.corpus import item_at
from wikimem.index.scan import scan_joined, scan_postings
from wikimem.tokenize import tokenize

# Lines a hand-edited or damaged RecallFile may hold, besides what the store writes.
_LINES = [
    "## sea", "## sea", "##  two   spaces ", "## tab\there", "##no-space", "### sub", "## ", " ## indented",
    "plain text", "Mixed CASE words 42", "海边 的 风", "哈哈哈", "İstanbul \u212a", "Ａ full-width", "",
    "<!-- wikimem: owner=agent:x | source=conv_1 | ts=2026-01-01T00:00:00+00:00 -->",
    "<!-- wikimem: owner=a -->", "  <!-- wikimem: owner=a | source=b | ts=c -->", "<!-- just a comment -->",
    "<!-- wikimem: owner= | source= | ts= -->", "text <!-- inline --> more", "[[f:item]] link", "\ufeff## bom",
    "## sea  ", "##  sea", "## sea\u3000", "## sea\xa0", "<!-- wikimem: ts=c | owner=a -->", "<!-- wikimem: bogus=1 -->",
]


def _random_file(rng: random.Random) -> str:
    lines = [rng.choice(_LINES) for _ in range(rng.randint(0, 25))]
    newline = rng.choice(["\n", "\n", "\r\n"])
    return rng.choice(["", "# title\n\n", "\ufeff# title\n"]) + newline.join(lines) + rng.choice(["", "\n"])


_CONTENT = ["plain text", "Mixed CASE words 42", "海边 的 风", "哈哈哈", "İstanbul \u212a", "Ａ full-width", "[[f:x]]", "", "### sub"]
_FIELDS = [("owner", "agent:x"), ("source", "conv_1"), ("ts", "2026-01-01T00:00:00+00:00")]


def _clean_file(rng: random.Random) -> str:
    """A file as the store writes it, with a hand's liberties the parser accepts."""
    blocks = []
    for i in range(rng.randint(1, 12)):
        heading = rng.choice([f"item {i}", f"  item\t{i}  ", f"条目 {i}", f"x{i}"])
        body = "\n".join(rng.choice(_CONTENT) for _ in range(rng.randint(0, 4)))
        fields = [f"{k}={v}" for k, v in _FIELDS if rng.random() < 0.6]
        meta = f"\n\n<!-- wikimem: {' | '.join(fields)} -->" if fields else ""
        blocks.append(f"## {heading}\n\n{body}{meta}" + rng.choice(["\n", "\n\n", "\n \n"]))
    text = rng.choice(["", "# title\n\n", "\ufeff# title\n\nprose before\n"]) + "\n".join(blocks)
    return text.replace("\n", "\r\n") if rng.random() < 0.2 else text


def _store_file(tmp_path: Path, text: str | bytes) -> tuple[MemoryStore, Path]:
    store = MemoryStore(tmp_path)
    path = store.file_path("f")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return store, path


def _assert_read_like_the_parser(store: MemoryStore, path: Path) -> bool:
    read = read_file_blocks(path)
    if read is None:
        return False
    blocks, joined = read
    items = store.file_items("f")
    scanned = scan_joined(joined, len(items))
    assert scanned is not None
    n = len(blocks.starts) - 1
    assert [item_at("f", blocks, i) for i in range(n)] == items
    assert block_names(blocks.data) == [item.name for item in items]
    counts = [Counter(tokenize(f"{item.name}\n{item.content}", use_jieba=False)) for item in items]
    assert list(scanned.lengths) == [sum(c.values()) for c in counts]
    for term in set().union(*counts):
        found = scan_postings(term, scanned)
        assert found is not None, term
        assert dict(zip(*found)) == {i: c[term] for i, c in enumerate(counts) if c[term]}, term
    return True


@pytest.mark.parametrize("seed", range(40))
def test_a_store_like_file_is_read_in_bulk_exactly_as_the_parser_reads_it(tmp_path: Path, seed: int) -> None:
    store, path = _store_file(tmp_path, _clean_file(random.Random(seed)))
    assert _assert_read_like_the_parser(store, path)


@pytest.mark.parametrize("seed", range(40))
def test_a_damaged_file_is_read_exactly_as_the_parser_reads_it_or_declined(tmp_path: Path, seed: int) -> None:
    store, path = _store_file(tmp_path, _random_file(random.Random(seed)))
    _assert_read_like_the_parser(store, path)


def test_files_the_store_writes_are_read_in_bulk(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("f", "likes the sea", "Loves 海边 and İstanbul.\n\nSecond paragraph [[f:other]].", owner="agent:x", source_conv="c1")
    store.add("f", "other", "no provenance at all")
    store.add("f", "哈哈", "哈哈哈 \u212a", owner="user")
    assert _assert_read_like_the_parser(store, store.file_path("f"))


@pytest.mark.parametrize(
    "text",
    [
        "## a\n\nx\n\n## a\n\ny\n",  # repeated heading: last wins, the parser's job
        "## a  b\n\nx\n\n## a b\n\ny\n",  # two headings, one name once whitespace collapses
        "## a\u3000b\n\nx\n\n## a b\n\ny\n",  # the same with an ideographic space
        "## a\n\nx\n\n<!-- wikimem: ts=c | owner=a -->\n",  # metadata fields out of order
        "## a\n\nx\n\n<!-- wikimem: bogus=1 -->\n",  # not the store's metadata
        "## a\n\n<!-- a comment -->\n",  # a comment that is not the store's metadata
        "## a\n\n  <!-- wikimem: owner=a | source=b | ts=c -->\n",  # indented metadata
        "## a\n\nnul \x00 inside\n",
        "## a\n\nmark \x01 inside\n",
        b"## a\n\nbad \xff utf-8\n",
        "no heading at all\n",
        "",
    ],
)
def test_files_needing_the_parser_are_declined(tmp_path: Path, text: str | bytes) -> None:
    store, path = _store_file(tmp_path, text)
    read = read_file_blocks(path)
    # Invalid UTF-8 is only found when the search forms are made.
    assert read is None or scan_joined(read[1], read[0].count) is None


def test_metadata_not_on_the_last_line_stays_content(tmp_path: Path) -> None:
    meta = "<!-- wikimem: owner=agent:x | source=conv_1 | ts=2026-01-01T00:00:00+00:00 -->"
    store, path = _store_file(tmp_path, f"## a\n\n{meta}\nafter\n\n## b\n\nbody\n\n{meta}\n\n\n")
    assert read_file_blocks(path) is None or _assert_read_like_the_parser(store, path)


def test_a_missing_file_is_declined(tmp_path: Path) -> None:
    assert read_file_blocks(tmp_path / "wiki" / "nope.md") is None


def _hits(index: MemoryIndex, query: str) -> list[tuple[str, str, float, list[str]]]:
    result = index.retrieve(query, limit=50)
    return [(e.item.file, e.item.name, round(e.score, 9), e.matched_terms) for e in result.items]


def test_an_index_loaded_in_bulk_answers_like_one_loaded_item_by_item(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(3)
    store = MemoryStore(tmp_path)
    words = ["sea", "beach", "coffee", "海边", "喜欢", "哈哈哈", "日本", "我", "Tea"]
    for f in range(4):
        for i in range(15):
            content = " ".join(rng.choice(words) for _ in range(rng.randint(1, 8)))
            link = f" [[f{rng.randrange(4)}:item-{rng.randrange(15)}]]" if rng.random() < 0.3 else ""
            store.add(f"f{f}", f"item-{i}", content + link, owner="agent")
    queries = ["sea", "coffee 海边", "哈哈", "我 tea", "日本 beach sea", "item"]
    bulk = MemoryIndex(store, use_jieba=False)
    bulk.build()
    assert bulk.indexed().corpus.index.segments >= 1  # the bulk path ran (only it makes segments)
    expected = [_hits(bulk, q) for q in queries]
    monkeypatch.setattr("wikimem.index.corpus.read_file_blocks", lambda path: None)
    assert [_hits(MemoryIndex(store, use_jieba=False), q) for q in queries] == expected
    # Writes after a bulk load: the written file becomes item objects, the rest stays lazy.
    # (Doc ids now differ from a fresh load's, so ties may order differently.)
    store.add("f1", "item-3", "volcano sea")
    store.remove("f2", "item-4")
    fresh = MemoryIndex(store, use_jieba=False)
    for q in [*queries, "volcano"]:
        assert _scores(bulk, q) == _scores(fresh, q)


def _scores(index: MemoryIndex, query: str) -> dict[tuple[str, str], float]:
    result = index.retrieve(query, limit=100, expand_links=False)
    return {(e.item.file, e.item.name): round(e.score, 9) for e in result.items}


def test_a_file_with_invalid_utf8_sends_its_group_to_the_parser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = MemoryStore(tmp_path)
    store.add("a", "one", "sea coffee")
    store.add("c", "three", "sea tea")
    path = store.file_path("b")
    path.write_bytes("## two\n\nsea ".encode() + b"\xff\xfe broken " + "海边\n".encode())
    index = MemoryIndex(store, use_jieba=False)
    assert set(_scores(index, "sea")) == {("a", "one"), ("b", "two"), ("c", "three")}
    monkeypatch.setattr("wikimem.index.corpus.read_file_blocks", lambda path: None)
    assert _scores(index, "broken 海边") == _scores(MemoryIndex(store, use_jieba=False), "broken 海边")
    assert index.retrieve("broken").items[0].item.content == "sea \ufffd\ufffd broken 海边"


def test_the_possessive_metadata_pattern_accepts_what_the_plain_one_does() -> None:
    """The fast pattern (possessive values, a lookbehind for " | ") against the plain grammar."""
    v = rb"=[^|\n]*"
    one = rb"(?:owner" + v + rb"(?: \| source" + v + rb")?(?: \| ts" + v + rb")?|source" + v + rb"(?: \| ts" + v + rb")?|ts" + v + rb")"
    plain = re.compile(one + rb"(?:\n" + one + rb")*")
    rng = random.Random(7)
    pieces = [b"owner=", b"source=", b"ts=", b" | ", b"|", b" ", b"  ", b"a", b"\n", b"="]
    cases = [b"owner=a | source=b | ts=c", b"owner= | source=", b"owner=| source=x", b"owner=x  | ts=y", b"ts=a | owner=b",
             b"source=a | source=b", b"owner=a|source=b", b"owner=a\n\nts=b", b"", b"source=a  | ts=b  "]
    cases += [b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 9))) for _ in range(50_000)]
    accepted = 0
    for case in cases:
        want = plain.fullmatch(case) is not None
        assert (loader._META_FIELDS.fullmatch(case) is not None) == want, case
        accepted += want
    assert accepted > 1000  # both kinds of case are exercised


def test_the_heading_precheck_keeps_a_byte_of_every_odd_space() -> None:
    """Headings the byte-table precheck clears can hold none of the sequences it skips searching for."""
    for odd in loader._ODD_SPACES:
        assert odd.translate(None, loader._NO_ODD_SPACE_BYTE), odd
    assert not "sea-trip-2026\n海边计划".encode().translate(None, loader._NO_ODD_SPACE_BYTE)
