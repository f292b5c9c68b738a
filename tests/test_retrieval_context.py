"""File context (wikimem.ranking.context): a hit's neighbours in its file re-rank it, never admit it."""

from __future__ import annotations

from pathlib import Path

from wikimem import MemoryIndex, MemoryStore
from wikimem.ranking.explain import row_note, why_not_lines


def _store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path / "memory")
    # A chat kept in order: the question's words are in the turn before the answer.
    store.add("kitchen", "asked", "which colour should we paint the kitchen walls")
    store.add("kitchen", "answer", "we settled on the blue paint in the end")
    store.add("kitchen", "later", "the plumber comes on monday")
    # Elsewhere, an item that shares the one word the answer has, and nothing around it.
    store.add("garage", "other", "paint for a fence")
    store.add("garage", "tools", "a hammer and nails")
    store.add("notes", "unrelated", "kitchen walls colour")  # another file: not a neighbour of the answer
    return store


def test_a_neighbour_that_matches_lifts_the_item_above_one_that_matches_alone(tmp_path: Path) -> None:
    store = _store(tmp_path)
    plain = MemoryIndex(store, use_jieba=False).retrieve("what paint colour for the kitchen walls", expand_links=False)
    context = MemoryIndex(store, use_jieba=False, context=True).retrieve(
        "what paint colour for the kitchen walls", expand_links=False, explain=True)
    def place(result, name: str) -> int:
        return [e.item.name for e in result.items].index(name)
    assert place(plain, "other") < place(plain, "answer")  # BM25 alone: the fence item first
    assert place(context, "answer") < place(context, "other")
    answer = context.items[place(context, "answer")]
    assert answer.context_score > 0 and answer.context_via == "kitchen:asked"
    assert answer.score == answer.bm25_score + answer.context_score
    assert "context +" in row_note(answer) and "next to kitchen:asked" in row_note(answer)


def test_context_never_admits_an_item_without_a_match(tmp_path: Path) -> None:
    store = _store(tmp_path)
    result = MemoryIndex(store, use_jieba=False, context=True).retrieve("kitchen walls colour", expand_links=False)
    names = [e.item.name for e in result.items]
    assert "later" not in names and "answer" not in names  # next to a strong match, but no match of its own
    assert all(e.bm25_score > 0 for e in result.items)


def test_neighbours_stop_at_the_file_and_follow_its_order_after_writes(tmp_path: Path) -> None:
    store = _store(tmp_path)
    index = MemoryIndex(store, use_jieba=False, context=True)
    index.retrieve("paint")
    assert sorted(index.indexed().neighbours("kitchen", "answer", 2)) == ["asked", "later"]
    store.remove("kitchen", "later")
    store.add("kitchen", "after", "paint the door too")
    index.retrieve("paint")
    assert index.indexed().neighbours("kitchen", "answer", 1) == ["asked", "after"]


def test_why_not_names_the_file_context(tmp_path: Path) -> None:
    store = _store(tmp_path)
    why = MemoryIndex(store, use_jieba=False, context=True).why_not(
        "what paint colour for the kitchen walls", "kitchen", "answer", limit=1, expand_links=False)
    assert why.context_score > 0 and why.context_via == "kitchen:asked"
    assert any(line.startswith("file context: +") for line in why_not_lines(why))
