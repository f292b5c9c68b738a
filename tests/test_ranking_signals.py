"""Query expansion and link context (wikimem.ranking.feedback / .link_context): re-rank, never admit, say why."""

from __future__ import annotations

from pathlib import Path

from wikimem import MemoryIndex, MemoryStore
from wikimem.models import RetrievalResult
from wikimem.ranking.explain import explain_lines, row_note, why_not_lines


def _names(result: RetrievalResult) -> list[str]:
    return [e.item.name for e in result.items]


def _espresso(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path / "memory")
    # The top hits for "espresso" (the five feedback documents) all speak of grinders and burrs;
    # the answer shares those words, the decoy (shorter, so BM25 puts it above the answer) does not.
    for name in ("g1", "g2", "g3", "g4", "g5"):
        store.add("coffee", name, "espresso grinder burr beans")
    store.add("coffee", "decoy", "espresso served in a cup")
    store.add("coffee", "answer", "espresso needs a fine burr grinder setting")
    store.add("other", "noise", "the grinder of the mill by the river")  # added terms only: never admitted
    for i in range(6):
        store.add("other", f"pad{i}", f"unrelated filler text number {i} about the weather")
    return store


def test_expansion_lifts_the_item_sharing_the_top_hits_words_and_says_so(tmp_path: Path) -> None:
    store = _espresso(tmp_path)
    plain = MemoryIndex(store, use_jieba=False, analyzer="none").retrieve("espresso", expand_links=False)
    fed = MemoryIndex(store, use_jieba=False, analyzer="none", feedback=True).retrieve(
        "espresso", expand_links=False, explain=True)
    assert _names(plain).index("decoy") < _names(plain).index("answer")  # BM25: the shorter item first
    assert _names(fed).index("answer") < _names(fed).index("decoy")
    assert "grinder" in fed.feedback_terms and "espresso" not in fed.feedback_terms
    answer = fed.items[_names(fed).index("answer")]
    assert answer.feedback_score > 0 and "grinder" in answer.feedback_terms
    assert abs(answer.score - (answer.bm25_score + answer.feedback_score)) < 1e-9
    assert "expansion +" in row_note(answer) and "grinder" in row_note(answer)
    assert any(line.startswith("expansion: added ") and "grinder" in line for line in explain_lines("espresso", fed))
    assert "noise" not in _names(fed)  # it matches added terms only
    assert all(e.bm25_score > 0 for e in fed.items)


def test_expansion_off_changes_nothing_and_prints_no_line(tmp_path: Path) -> None:
    store = _espresso(tmp_path)
    result = MemoryIndex(store, use_jieba=False, analyzer="none").retrieve("espresso", expand_links=False, explain=True)
    assert result.feedback_terms == {} and all(e.feedback_score == 0 for e in result.items)
    assert not any(line.startswith("expansion:") for line in explain_lines("espresso", result))


def test_why_not_names_the_expansion(tmp_path: Path) -> None:
    store = _espresso(tmp_path)
    why = MemoryIndex(store, use_jieba=False, analyzer="none", feedback=True).why_not(
        "espresso", "coffee", "answer", limit=1, expand_links=False)
    assert why.stage == "limit" and "query expansion" in why.reason
    assert why.feedback_score > 0 and "grinder" in why.feedback_terms
    assert any(line.startswith("query expansion: +") and "grinder" in line for line in why_not_lines(why))


def _linked(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path / "memory")
    store.add("decisions", "paint", "we chose blue paint for the kitchen walls, see [[reasons:light]]")
    store.add("reasons", "light", "the blue was chosen for the light")  # linked from the strong hit
    store.add("reasons", "other", "the blue of the sky")  # the same BM25 for "blue", no link
    store.add("reasons", "backlink", "[[decisions:paint]] blue")  # links *to* the strong hit
    return store


def test_a_candidate_linked_to_or_from_a_strong_hit_ranks_higher_and_says_so(tmp_path: Path) -> None:
    store = _linked(tmp_path)
    query = "blue paint kitchen walls"
    plain = MemoryIndex(store, use_jieba=False, analyzer="none").retrieve(query, expand_links=False)
    linked = MemoryIndex(store, use_jieba=False, analyzer="none", link_context=True).retrieve(
        query, expand_links=False, explain=True)
    assert _names(plain).index("other") < _names(plain).index("light")  # shorter: BM25 alone puts it first
    assert _names(linked).index("light") < _names(linked).index("other")
    light = linked.items[_names(linked).index("light")]
    assert light.link_score > 0 and light.link_via == "decisions:paint"
    assert "link +" in row_note(light) and "linked with decisions:paint" in row_note(light)
    back = linked.items[_names(linked).index("backlink")]
    assert back.link_via == "decisions:paint"  # its own link counts, both ways
    paint = linked.items[_names(linked).index("paint")]
    assert paint.link_score > 0 and paint.link_via in ("reasons:light", "reasons:backlink")
    assert linked.items[_names(linked).index("other")].link_score == 0


def test_links_never_admit_an_item_without_a_match(tmp_path: Path) -> None:
    store = _linked(tmp_path)
    store.add("reasons", "silent", "nothing in common [[decisions:paint]]")
    result = MemoryIndex(store, use_jieba=False, analyzer="none", link_context=True).retrieve(
        "kitchen walls", expand_links=False)
    assert "silent" not in _names(result)
    assert all(e.bm25_score > 0 for e in result.items)


def test_why_not_names_the_link_context(tmp_path: Path) -> None:
    why = MemoryIndex(_linked(tmp_path), use_jieba=False, analyzer="none", link_context=True).why_not(
        "blue paint kitchen walls", "reasons", "light", limit=1, expand_links=False)
    assert why.link_score > 0 and why.link_via == "decisions:paint"
    assert "link context" in why.reason
    assert any(line.startswith("link context: +") and "decisions:paint" in line for line in why_not_lines(why))
