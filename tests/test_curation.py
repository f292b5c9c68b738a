"""Curation: evidence checks in lint, the reconcile queue, promotion, audit, retraction, review marks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_lint_fixtures import clean_store, found
from wikimem import DiaryItem, MemoryStore
from wikimem.curation import (
    audit,
    clear_review_marks,
    draft_promotion,
    mark_for_review,
    reconcile_queue,
    retraction,
    review_reasons,
)
from wikimem.disk.marks import DERIVED_MARKER
from wikimem.lint import Snapshot, lint
from wikimem.disk.reviewed import REVIEWED_FILE, dismiss, load_dismissed, undismiss

TS = "2026-07-20T09:00:00+00:00"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    store = clean_store(tmp_path)
    diary = store.diary
    diary.append(f"Recall: Alice likes tea.\n{DERIVED_MARKER}", date="2026-07-21", time="09:00",
                 owner="agent", source_conv="conv_9", ts=TS)
    diary.append("Alice said she moved to Berlin.", date="2026-07-21", time="10:00", owner="user:x",
                 source_conv="conv_7", ts=TS)
    diary.append("Bob joined the team.", date="2026-07-22", time="08:00", owner="user:y", ts=TS)
    add = store.add
    add("facts", "berlin", "Alice lives in Berlin.\n(evidence: diary 2026-07-21 10:00, owner user:x, source conv_7)",
        ts=TS)
    add("facts", "summary", "Alice: Berlin. [[people:Alice]]\n(evidence: [[facts:berlin]])", ts=TS)
    add("facts", "see also", "Related: [[facts:summary]]", ts=TS)
    return tmp_path


def _codes(root: Path, code: str) -> list[tuple[str | None, int | None]]:
    return [(r[3], r[2]) for r in found(root) if r[0] == code]


# -- lint: evidence -------------------------------------------------------------------------


def test_resolving_independent_evidence_is_clean(root: Path) -> None:
    rows = [r[0] for r in found(root)]
    assert not {"evidence-missing", "evidence-echo", "evidence-too-many", "evidence-malformed"} & set(rows)


def test_evidence_missing_for_a_diary_entry_and_a_wiki_item(root: Path) -> None:
    MemoryStore(root).add("facts", "shaky", "Claim.\n(evidence: diary 2026-01-01 10:00)\n(evidence: [[facts:gone]])",
                          ts=TS)
    assert _codes(root, "evidence-missing") == [("shaky", 26), ("shaky", 27)]
    assert _codes(root, "dangling-link") == []  # the evidence finding says it once


def test_evidence_echo_when_all_evidence_is_derived(root: Path) -> None:
    MemoryStore(root).add("facts", "tea", "Alice likes tea.\n(evidence: diary 2026-07-21 09:00)", ts=TS)
    assert _codes(root, "evidence-echo") == [("tea", 26)]
    MemoryStore(root).add("facts", "tea", "Alice likes tea.\n(evidence: diary 2026-07-21 09:00)\n"
                          "(evidence: source conv_7)", ts=TS)
    assert _codes(root, "evidence-echo") == []


def test_a_cited_wiki_item_carrying_the_marker_is_derived_evidence(root: Path) -> None:
    store = MemoryStore(root)
    store.add("facts", "answer", f"Recall answer.\n{DERIVED_MARKER}", ts=TS)
    store.add("facts", "claim", "Claim.\n(evidence: [[facts:answer]])", ts=TS)
    assert _codes(root, "evidence-echo") == [("claim", 33)]


def test_echo_follows_cited_wiki_items_transitively(root: Path) -> None:
    """An item resting only on an item whose own evidence is only derived is an echo too."""
    store = MemoryStore(root)
    store.add("facts", "tea", "Alice likes tea.\n(evidence: diary 2026-07-21 09:00)", ts=TS)
    store.add("facts", "tea summary", "Tea, as noted.\n(evidence: [[facts:tea]])", ts=TS)
    store.add("facts", "tea digest", "Tea again.\n(evidence: [[facts:tea summary]])", ts=TS)
    rows = [(f.location.item, f.message) for f in lint(root).findings if f.code == "evidence-echo"]
    assert [item for item, _ in rows] == ["tea", "tea summary", "tea digest"]
    assert "derived (written from recall answers)" in rows[0][1]
    assert "cites items that themselves rest on derived text" in rows[2][1]
    snapshot = Snapshot.read(root)
    assert [ref.status for ref in audit(snapshot, "facts", "tea digest").evidence] == ["derived"]
    # Independent evidence anywhere down the chain grounds everything above it.
    store.add("facts", "tea", "Alice likes tea.\n(evidence: diary 2026-07-21 09:00)\n(evidence: source conv_7)",
              ts=TS)
    assert _codes(root, "evidence-echo") == []


def test_a_citation_circle_supports_nothing_and_is_judged_the_same_from_either_end(root: Path) -> None:
    store = MemoryStore(root)
    store.add("facts", "egg", "Egg first.\n(evidence: [[facts:hen]])", ts=TS)
    store.add("facts", "hen", "Hen first.\n(evidence: [[facts:egg]])", ts=TS)
    assert sorted(item for item, _ in _codes(root, "evidence-echo")) == ["egg", "hen"]
    store.add("facts", "hen", "Hen first.\n(evidence: [[facts:egg]])\n(evidence: diary 2026-07-21 10:00)", ts=TS)
    assert _codes(root, "evidence-echo") == []  # the circle now rests on something independent


def test_more_than_three_evidence_lines(root: Path) -> None:
    lines = "\n".join(f"(evidence: source conv_{i})" for i in range(4))
    MemoryStore(root).add("facts", "busy", f"Claim.\n{lines}", ts=TS)
    assert _codes(root, "evidence-too-many") == [("busy", 29)]


def test_malformed_evidence_line(root: Path) -> None:
    MemoryStore(root).add("facts", "odd", "Claim.\n(evidence: diary yesterday)", ts=TS)
    assert _codes(root, "evidence-malformed") == [("odd", 26)]


def test_marked_for_review(root: Path) -> None:
    store = MemoryStore(root)
    old = store.get("facts", "berlin")
    assert old is not None
    store.add("facts", "berlin", mark_for_review(old.content, "retracted diary 2026-07-21 10:00"), ts=TS,
              expected=old.content)
    report = [f for f in __import__("wikimem.lint", fromlist=["lint"]).lint(root).findings
              if f.code == "marked-for-review"]
    assert [(f.location.item, f.location.line, f.message) for f in report] == [
        ("berlin", 7, "marked for review: retracted diary 2026-07-21 10:00")]


def test_review_mark_helpers() -> None:
    marked = mark_for_review("Claim.", "  source   retracted ")
    assert marked == "Claim.\n<!-- wikimem-review: source retracted -->"
    assert review_reasons(marked) == ["source retracted"]
    assert clear_review_marks(marked) == "Claim."
    with pytest.raises(ValueError):
        mark_for_review("Claim.", "sneaky --> end")


# -- the reconcile queue ---------------------------------------------------------------------------


def _queue(root: Path, **kwargs: object) -> list[tuple[str, str, bool]]:
    return [(q.entry.date, q.entry.time, q.derived) for q in reconcile_queue(root, **kwargs)]  # type: ignore[arg-type]


def test_queue_lists_uncited_entries_newest_first(root: Path) -> None:
    assert _queue(root) == [("2026-07-22", "08:00", False), ("2026-07-21", "09:00", True),
                            ("2026-07-20", "08:30", False)]


def test_queue_filters_by_days_and_owner(root: Path) -> None:
    assert _queue(root, start="2026-07-21", end="2026-07-20") == [("2026-07-21", "09:00", True),
                                                                   ("2026-07-20", "08:30", False)]
    assert _queue(root, start="2026-07-22") == [("2026-07-22", "08:00", False)]
    assert _queue(root, owner="user:y") == [("2026-07-22", "08:00", False)]
    with pytest.raises(ValueError):
        reconcile_queue(root, start="last week")


def test_dismissed_entries_leave_the_queue_until_edited(root: Path) -> None:
    entry = MemoryStore(root).diary.day("2026-07-22")[0]
    added = dismiss(root, [entry], by="tui:me", note="small talk", ts=TS)
    assert [(d.date, d.time, d.by, d.note) for d in added] == [("2026-07-22", "08:00", "tui:me", "small talk")]
    assert dismiss(root, [entry], by="tui:me") == []  # already dismissed: first decision kept
    assert ("2026-07-22", "08:00", False) not in _queue(root)
    flagged = [q for q in reconcile_queue(root, include_dismissed=True) if q.dismissed]
    assert [(q.entry.date, q.entry.time) for q in flagged] == [("2026-07-22", "08:00")]
    day = root / "diary" / "2026-07-22.md"
    day.write_text(day.read_text("utf-8").replace("Bob joined", "Bob left"), "utf-8")
    assert ("2026-07-22", "08:00", False) in _queue(root)


def test_undismiss_and_the_file_format(root: Path) -> None:
    entry = MemoryStore(root).diary.day("2026-07-22")[0]
    dismiss(root, [entry], by="tui:me", ts=TS)
    data = json.loads((root / REVIEWED_FILE).read_text("utf-8"))
    assert data["version"] == 1 and data["entries"][0]["date"] == "2026-07-22"
    assert len(data["entries"][0]["hash"]) == 16
    assert undismiss(root, [entry]) == 1
    assert load_dismissed(root) == []


def test_a_damaged_reviewed_file_is_never_overwritten(root: Path) -> None:
    (root / REVIEWED_FILE).write_text("{not json", "utf-8")
    entry = MemoryStore(root).diary.day("2026-07-22")[0]
    assert load_dismissed(root) == []
    with pytest.raises(ValueError, match="damaged"):
        dismiss(root, [entry])
    assert (root / REVIEWED_FILE).read_text("utf-8") == "{not json"


# -- promotion -------------------------------------------------------------------------------------------


def test_draft_promotion_keeps_provenance() -> None:
    entry = DiaryItem("2026-07-21", "10:00", "Alice moved to Berlin.", "user:x", "conv_7")
    draft = draft_promotion([entry], existing="Alice is a colleague.")
    assert draft.content == ("Alice is a colleague.\n\nAlice moved to Berlin.\n"
                             "(evidence: diary 2026-07-21 10:00, owner user:x, source conv_7)")
    assert (draft.source_conv, draft.detail, draft.warnings) == ("conv_7", "promoted from diary 2026-07-21 10:00", [])


def test_draft_promotion_warns_when_every_entry_is_derived_and_strips_the_marker() -> None:
    derived = DiaryItem("2026-07-21", "09:00", f"Alice likes tea.\n{DERIVED_MARKER}")
    draft = draft_promotion([derived])
    assert draft.all_derived and "derived" in draft.warnings[0]
    assert DERIVED_MARKER not in draft.content
    assert not draft_promotion([derived, DiaryItem("2026-07-21", "10:00", "real")]).all_derived


def test_draft_promotion_warns_past_three_evidence_lines() -> None:
    entries = [DiaryItem("2026-07-21", f"1{i}:00", f"event {i}") for i in range(4)]
    assert any("more than three" in w for w in draft_promotion(entries).warnings)
    with pytest.raises(ValueError):
        draft_promotion([])


# -- audit and retraction ----------------------------------------------------------------------------------


def test_audit_shows_what_an_item_rests_on_and_what_rests_on_it(root: Path) -> None:
    result = audit(root, "facts", "berlin")
    (ref,) = result.evidence
    assert (ref.status, ref.line) == ("independent", 6)
    assert [(e.date, e.time, e.owner, e.source_conv) for e in ref.entries] == [
        ("2026-07-21", "10:00", "user:x", "conv_7")]
    assert [(d.file, d.name, d.relation) for d in result.rests_on_it] == [("facts", "summary", "evidence")]
    summary = audit(Snapshot.read(root), "facts", "summary")
    assert summary.evidence[0].item is not None and summary.evidence[0].item.name == "berlin"
    assert [(d.name, d.relation) for d in summary.rests_on_it] == [("see also", "link")]
    with pytest.raises(KeyError):
        audit(root, "facts", "nope")


def test_retraction_is_transitive_over_evidence(root: Path) -> None:
    deps = retraction(root, entry=("2026-07-21", "10:00"))
    assert [(d.name, d.depth, d.relation, d.via, d.independent_left) for d in deps] == [
        ("berlin", 1, "evidence", ("diary 2026-07-21 10:00",), 0),
        ("summary", 2, "evidence", ("diary 2026-07-21 10:00", "[[facts:berlin]]"), 0),
    ]
    with_links = retraction(root, item=("facts", "berlin"), follow_links=True)
    assert [(d.name, d.depth, d.relation) for d in with_links] == [("summary", 1, "evidence"),
                                                                   ("see also", 2, "link")]
    with pytest.raises(ValueError):
        retraction(root)


def test_retraction_counts_independent_evidence_left(root: Path) -> None:
    MemoryStore(root).add("facts", "berlin", "Alice lives in Berlin.\n(evidence: diary 2026-07-21 10:00)\n"
                          "(evidence: source conv_8)", ts=TS)
    (first, _) = retraction(root, entry=("2026-07-21", "10:00"))
    assert first.independent_left == 1
