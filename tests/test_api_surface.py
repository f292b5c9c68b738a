"""The public API is a compatibility contract (SPEC §2): names and signatures.

Existing users must be able to switch without changing code, so every
top-level name exists and every documented parameter keeps its name, kind
and default. Extra parameters are allowed only when optional.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import pytest

import wikimem

SPEC_NAMES = [
    "MemoryStore", "MemoryIndex", "Journal", "Diary", "RecallItem", "DiaryItem", "WikiLink",
    "RetrievalResult", "RetrievedItem", "TimeRange", "LLM", "tokenize", "est_tokens",
    "parse_wiki_links", "parse_time_range", "validate_file", "sanitize_item_name",
    "as_recall_item", "memorize", "diary_tool", "handle_diary_tool", "DIARY_PROMPT",
    "DIARY_TOOL_DESCRIPTION",
    "ConflictError",  # this project's checked writes (SPEC §2), exported
]

REQUIRED = inspect.Parameter.empty
POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def assert_signature(
    func: Callable[..., Any],
    positional: list[tuple[str, Any]],
    keyword: list[tuple[str, Any]] = (),  # type: ignore[assignment]
    *,
    var_keyword: bool = False,
) -> None:
    """``positional``/``keyword`` are ``(name, default)`` pairs, ``REQUIRED`` for none."""
    params = [p for p in inspect.signature(func).parameters.values() if p.name != "self"]
    got_positional = [(p.name, p.default) for p in params if p.kind in POSITIONAL]
    assert got_positional[: len(positional)] == positional
    assert all(default is not REQUIRED for _, default in got_positional[len(positional):])
    by_name = {p.name: p for p in params}
    for name, default in keyword:
        assert name in by_name, f"missing keyword parameter {name!r}"
        assert by_name[name].kind is inspect.Parameter.KEYWORD_ONLY, name
        assert by_name[name].default == default, name
    spec_names = {name for name, _ in [*positional, *keyword]}
    extra_required = [
        p.name for p in params
        if p.name not in spec_names and p.default is REQUIRED and p.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    assert extra_required == []
    if var_keyword:
        assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def field_names(cls: type) -> list[str]:
    assert dataclasses.is_dataclass(cls)
    return [f.name for f in dataclasses.fields(cls)]


@pytest.mark.parametrize("name", SPEC_NAMES)
def test_spec_name_is_exported(name: str) -> None:
    assert name in wikimem.__all__
    assert getattr(wikimem, name) is not None


def test_unknown_attribute_raises_attribute_error() -> None:
    with pytest.raises(AttributeError):
        wikimem.no_such_name  # noqa: B018


# -- storage ------------------------------------------------------------------


def test_memory_store_signatures() -> None:
    store = wikimem.MemoryStore
    assert_signature(store.__init__, [("root", REQUIRED)])
    assert_signature(store.files, [])
    assert_signature(store.items, [("file", None)])
    assert_signature(store.get, [("file", REQUIRED), ("name", REQUIRED)])
    assert_signature(
        store.add,
        [("file", REQUIRED), ("name", REQUIRED), ("content", REQUIRED)],
        [("owner", None), ("source_conv", None), ("ts", None)],
    )
    assert_signature(store.remove, [("file", REQUIRED), ("name", REQUIRED)], [("owner", None)])


def test_checked_writes_take_an_optional_expected() -> None:
    from wikimem.store import UNCHECKED

    for method in (wikimem.MemoryStore.add, wikimem.MemoryStore.remove, wikimem.MemoryStore.move):
        param = inspect.signature(method).parameters["expected"]
        assert param.kind is inspect.Parameter.KEYWORD_ONLY and param.default is UNCHECKED


def test_memory_store_exposes_revision_journal_and_diary(tmp_path: Any) -> None:
    store = wikimem.MemoryStore(tmp_path)
    assert isinstance(store.revision, int)
    assert isinstance(store.journal, wikimem.Journal)
    assert isinstance(store.diary, wikimem.Diary)


def test_diary_signatures() -> None:
    diary = wikimem.Diary
    assert_signature(diary.__init__, [("root", REQUIRED)], [("journal", None)])
    assert_signature(
        diary.append,
        [("content", REQUIRED)],
        [("ts", None), ("date", None), ("time", None), ("owner", None), ("source_conv", None), ("tz", None)],
    )
    assert_signature(diary.day, [("date", REQUIRED)])
    assert_signature(diary.window, [("start", REQUIRED), ("end", REQUIRED)])
    assert_signature(diary.dates, [])


def test_journal_signatures() -> None:
    journal = wikimem.Journal
    assert_signature(journal.__init__, [("path", REQUIRED)])
    assert_signature(
        journal.append,
        [("action", REQUIRED)],
        [("file", REQUIRED), ("name", REQUIRED), ("owner", None), ("source_conv", None), ("detail", None)],
    )
    assert_signature(
        journal.append_diary, [], [("date", REQUIRED), ("time", REQUIRED), ("owner", None), ("source_conv", None)]
    )
    assert_signature(journal.entries, [])


def test_name_and_link_helper_signatures() -> None:
    assert_signature(wikimem.validate_file, [("name", REQUIRED)])
    assert_signature(wikimem.sanitize_item_name, [("name", REQUIRED)])
    assert_signature(wikimem.parse_wiki_links, [("text", REQUIRED)])


def test_recall_item_fields_and_defaults() -> None:
    assert field_names(wikimem.RecallItem) == ["file", "name", "content", "owner", "source_conv", "ts"]
    item = wikimem.RecallItem("f", "n", "c")
    assert (item.owner, item.source_conv, item.ts) == (None, None, None)
    assert item.links == []


def test_diary_item_fields_and_defaults() -> None:
    # The reference's six fields, in order; this project's ordinal (issue 13) comes last, with a default.
    assert field_names(wikimem.DiaryItem) == ["date", "time", "content", "owner", "source_conv", "ts", "ordinal"]
    entry = wikimem.DiaryItem("2026-07-21", "14:30", "c")
    assert (entry.owner, entry.source_conv, entry.ts, entry.ordinal) == (None, None, None, 1)
    assert entry.links == []


def test_wikilink_is_a_frozen_dataclass_of_file_and_name() -> None:
    assert field_names(wikimem.WikiLink) == ["file", "name"]
    assert wikimem.WikiLink.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_time_range_is_a_pair_of_iso_date_strings() -> None:
    assert wikimem.TimeRange == tuple[str, str]


def test_retrieval_result_fields() -> None:
    assert set(field_names(wikimem.RetrievalResult)) >= {
        "items", "budget_tokens", "budget_used", "embedding_used", "dropped", "unresolved_links",
        "time_range", "time_range_source", "time_range_widened",
    }


def test_retrieved_item_fields() -> None:
    assert set(field_names(wikimem.RetrievedItem)) >= {
        "item", "source", "score", "bm25_score", "cos_score", "via", "matched_terms", "tokens_est",
    }


# -- retrieval, time parsing and memorize (lazily loaded) ----------------------


def test_tokenize_signatures() -> None:
    assert_signature(wikimem.tokenize, [("text", REQUIRED)], [("use_jieba", None)])
    assert_signature(wikimem.est_tokens, [("text", REQUIRED)])


def test_memory_index_signatures() -> None:
    index = wikimem.MemoryIndex
    assert_signature(
        index.__init__,
        [("store", REQUIRED)],
        [("use_jieba", None), ("embedder", None), ("vectors_dir", None), ("fusion_weight", 0.5),
         ("binary_threshold", 10_000)],
    )
    assert_signature(
        index.retrieve,
        [("query", REQUIRED)],
        [("limit", 10), ("budget_tokens", None), ("expand_links", True), ("explain", False),
         ("time_range", None), ("tz", None)],
    )
    assert_signature(index.rebuild, [])


def test_parse_time_range_signature() -> None:
    assert_signature(wikimem.parse_time_range, [("text", REQUIRED)], [("tz", None), ("today", None)])


def test_as_recall_item_signature() -> None:
    assert_signature(wikimem.as_recall_item, [("entry", REQUIRED)])


def test_memorize_signatures() -> None:
    assert_signature(
        wikimem.memorize,
        [("diary", REQUIRED), ("turn", REQUIRED)],
        [("llm", REQUIRED), ("character", "the assistant"), ("prompt", None), ("owner", None),
         ("source_conv", None)],
        var_keyword=True,
    )
    assert_signature(wikimem.diary_tool, [])
    assert_signature(wikimem.handle_diary_tool, [("diary", REQUIRED), ("args", REQUIRED)], var_keyword=True)


def test_prompts_are_strings_and_the_diary_prompt_takes_a_character() -> None:
    assert isinstance(wikimem.DIARY_TOOL_DESCRIPTION, str) and wikimem.DIARY_TOOL_DESCRIPTION.strip()
    assert "{character}" in wikimem.DIARY_PROMPT
    assert wikimem.DIARY_PROMPT.format(character="Mika")


def test_llm_protocol_has_chat() -> None:
    assert callable(getattr(wikimem.LLM, "chat", None))


# -- curation (this project's addition) -------------------------------------------

CURATION_NAMES = [
    "DERIVED_MARKER", "Evidence", "Finding", "LintReport", "Linter", "Location", "accept_current_state", "audit",
    "clear_review_marks", "dismiss", "draft_promotion", "is_derived", "mark_derived", "mark_for_review",
    "parse_evidence", "reconcile_queue", "retraction", "review_reasons", "undismiss",
]


@pytest.mark.parametrize("name", CURATION_NAMES)
def test_curation_name_is_exported(name: str) -> None:
    assert name in wikimem.__all__
    assert getattr(wikimem, name) is not None


def test_curation_signatures() -> None:
    assert_signature(wikimem.Linter.__init__, [("root", REQUIRED)], [("model", None)])
    assert_signature(wikimem.Linter.run, [("changed", ())])
    assert_signature(wikimem.reconcile_queue, [("source", REQUIRED)],
                     [("start", None), ("end", None), ("owner", None), ("include_dismissed", False)])
    assert_signature(wikimem.draft_promotion, [("entries", REQUIRED), ("existing", None)])
    assert_signature(wikimem.audit, [("source", REQUIRED), ("file", REQUIRED), ("name", REQUIRED)])
    assert_signature(wikimem.retraction, [("source", REQUIRED)],
                     [("entry", None), ("item", None), ("follow_links", False)])
    assert_signature(wikimem.mark_for_review, [("content", REQUIRED), ("reason", REQUIRED)])
    assert_signature(wikimem.is_derived, [("text", REQUIRED)])
    assert_signature(wikimem.parse_evidence, [("line", REQUIRED)])
    assert_signature(wikimem.dismiss, [("root", REQUIRED), ("entries", REQUIRED)],
                     [("by", None), ("note", None), ("ts", None)])
    assert_signature(wikimem.accept_current_state, [("root", REQUIRED)], [("by", "lint"), ("ts", None)])


def test_finding_and_location_fields() -> None:
    assert field_names(wikimem.Finding) == ["code", "severity", "location", "message", "related", "fixable"]
    assert field_names(wikimem.Location) == ["path", "line", "item"]
    # ordinal (issue 13): which entry of a shared minute a diary line cites; last, with a default.
    assert field_names(wikimem.Evidence) == ["kind", "date", "time", "link", "owner", "source", "ordinal"]


def test_path_stat_is_the_change_signature_the_store_uses(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """One definition of "changed since read": the store, lint and the app all call it."""
    store = wikimem.MemoryStore(tmp_path)
    assert wikimem.path_stat(tmp_path / "nothing-here") is None
    store.add("prefs", "sea", "likes the sea")
    path = store.file_path("prefs")
    st = path.stat()
    assert wikimem.path_stat(path) == (st.st_mtime_ns, st.st_size) == store.file_stat("prefs")
