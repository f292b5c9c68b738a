"""Issue 13, finding 5: two diary entries in one minute are two entries, everywhere.

A day file keeps every repeated ``## HH:MM``; an entry's identity is its day,
its minute and its ordinal among that minute's entries (``wikimem.disk.entry_id``).
Each test sets up two entries at 14:30 on one day and checks one consumer:
reading, evidence lines, lint, the reconcile queue, promotion, audit,
retraction, ``reviewed.json`` and retrieval.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wikimem import DiaryItem, Evidence, MemoryIndex, MemoryStore, parse_evidence
from wikimem.curation import audit, draft_promotion, reconcile_queue, retraction
from wikimem.disk.entry_id import EntryId, ordinals, parse_entry_id, split_ordinal
from wikimem.disk.marks import DERIVED_MARKER
from wikimem.ranking.explain import address
from wikimem.lint import lint
from wikimem.disk.reviewed import REVIEWED_FILE, dismiss, load_dismissed, undismiss

TS = "2026-07-21T06:30:00+00:00"
DAY = "2026-07-21"


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    """Two entries at 14:30 (the second appended later), one at 09:00."""
    store = MemoryStore(tmp_path)
    diary = store.diary
    diary.append("Swam at the harbour beach.", date=DAY, time="14:30", owner="agent", ts=TS)
    diary.append("Coffee in the morning.", date=DAY, time="09:00", owner="agent", ts=TS)
    diary.append("Bought a new harbour map.", date=DAY, time="14:30", owner="user:x", source_conv="conv_2", ts=TS)
    return store


def _promote(store: MemoryStore, entry: DiaryItem, name: str) -> None:
    draft = draft_promotion([entry])
    store.add("facts", name, draft.content, source_conv=draft.source_conv, ts=TS)


def _queued(store: MemoryStore) -> list[str]:
    return [q.entry.entry_id.render() for q in reconcile_queue(store)]


# -- the identity --------------------------------------------------------------------


def test_reading_a_day_numbers_the_entries_of_each_minute(store: MemoryStore) -> None:
    day = store.diary.day(DAY)
    assert [(e.time, e.ordinal, e.content[:6]) for e in day] == [
        ("09:00", 1, "Coffee"), ("14:30", 1, "Swam a"), ("14:30", 2, "Bought")]
    assert [e.entry_id.render() for e in day] == [f"{DAY} 09:00", f"{DAY} 14:30", f"{DAY} 14:30#2"]
    assert [e.entry_id for e in store.diary.window(DAY, DAY)] == [e.entry_id for e in day]


def test_append_returns_the_new_entry_with_its_ordinal_and_never_renumbers(store: MemoryStore) -> None:
    before = [e.entry_id for e in store.diary.day(DAY)]
    third = store.diary.append("Sunset walk.", date=DAY, time="14:30", ts=TS)
    assert third.entry_id == EntryId(DAY, "14:30", 3)
    after = store.diary.day(DAY)
    assert [e.entry_id for e in after][:3] == before and after[3] == third


def test_the_written_form_reads_back_and_the_first_entry_has_no_suffix() -> None:
    assert EntryId(DAY, "14:30").render() == "2026-07-21 14:30"
    assert EntryId(DAY, "14:30", 2).render() == "2026-07-21 14:30#2"
    assert parse_entry_id("2026-07-21 14:30#2") == EntryId(DAY, "14:30", 2)
    assert parse_entry_id("2026-07-21 14:30#1") == parse_entry_id("2026-07-21 14:30") == EntryId(DAY, "14:30", 1)
    assert split_ordinal("08:05#12") == ("08:05", 12)
    for bad in ("14:30#0", "14:30#x", "24:00", "14:30#-1"):
        with pytest.raises(ValueError):
            split_ordinal(bad)
    assert ordinals(["09:00", "14:30", "14:30", "09:00", "lunch"]) == [1, 1, 2, 2, 1]
    assert sorted([EntryId(DAY, "14:30", 2), EntryId(DAY, "09:00"), EntryId(DAY, "14:30")]) == [
        EntryId(DAY, "09:00"), EntryId(DAY, "14:30"), EntryId(DAY, "14:30", 2)]


def test_a_diary_item_built_the_reference_way_is_the_first_of_its_minute() -> None:
    entry = DiaryItem(DAY, "14:30", "c", "o", "s", TS)
    assert entry.ordinal == 1 and entry.entry_id == EntryId(DAY, "14:30")


# -- evidence lines --------------------------------------------------------------------


def test_evidence_lines_name_the_entry_and_old_lines_keep_parsing() -> None:
    second = parse_evidence("(evidence: diary 2026-07-21 14:30#2, owner user:x, source conv_2)")
    assert (second.date, second.time, second.ordinal, second.owner, second.source) == (
        DAY, "14:30", 2, "user:x", "conv_2")
    assert second.entry_id == EntryId(DAY, "14:30", 2)
    assert parse_evidence(second.render()) == second
    assert second.target == "diary 2026-07-21 14:30#2" and second.cited == ("diary", DAY, "14:30#2")
    old = parse_evidence("(evidence: diary 2026-07-21 14:30, owner user:x)")
    assert old.ordinal == 1 and old.cited == ("diary", DAY, "14:30")
    assert old.render() == "(evidence: diary 2026-07-21 14:30, owner user:x)"  # unchanged bytes
    assert parse_evidence("(evidence: diary 2026-07-21 14:30#1)") == parse_evidence("(evidence: diary 2026-07-21 14:30)")
    with pytest.raises(ValueError, match="counts from 1"):
        parse_evidence("(evidence: diary 2026-07-21 14:30#0)")
    with pytest.raises(ValueError):
        Evidence.diary(DAY, "14:30", ordinal=0)


def test_lint_resolves_a_citation_to_one_entry_of_the_minute(store: MemoryStore) -> None:
    store.add("facts", "third", "Claim.\n(evidence: diary 2026-07-21 14:30#3)", ts=TS)
    store.add("facts", "second", "Claim.\n(evidence: diary 2026-07-21 14:30#2)", ts=TS)
    missing = [f for f in lint(store.root).findings if f.code == "evidence-missing"]
    assert [(f.location.item, f.message.split(",")[0]) for f in missing] == [
        ("third", "cites diary 2026-07-21 14:30#3")]


def test_a_derived_entry_makes_only_its_own_citation_an_echo(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.diary.append("Alice likes tea.", date=DAY, time="14:30", ts=TS)
    store.diary.append(f"Recall: Alice likes tea.\n{DERIVED_MARKER}", date=DAY, time="14:30", ts=TS)
    store.add("facts", "from-first", "Tea.\n(evidence: diary 2026-07-21 14:30)", ts=TS)
    store.add("facts", "from-second", "Tea.\n(evidence: diary 2026-07-21 14:30#2)", ts=TS)
    echoes = [f.location.item for f in lint(tmp_path).findings if f.code == "evidence-echo"]
    assert echoes == ["from-second"]


# -- the reconcile queue and promotion -------------------------------------------------------------


def test_promoting_one_entry_of_a_minute_leaves_the_other_queued(store: MemoryStore) -> None:
    first, second = [e for e in store.diary.day(DAY) if e.time == "14:30"]
    assert _queued(store) == [f"{DAY} 14:30#2", f"{DAY} 14:30", f"{DAY} 09:00"]
    _promote(store, second, "map")
    assert "(evidence: diary 2026-07-21 14:30#2, owner user:x, source conv_2)" in store.get("facts", "map").content
    assert _queued(store) == [f"{DAY} 14:30", f"{DAY} 09:00"]
    _promote(store, first, "swim")
    assert "(evidence: diary 2026-07-21 14:30, owner agent)" in store.get("facts", "swim").content
    assert _queued(store) == [f"{DAY} 09:00"]


def test_the_queue_rows_carry_their_ordinal(store: MemoryStore) -> None:
    rows = reconcile_queue(store)
    assert [(q.entry.time, q.entry.ordinal) for q in rows] == [("14:30", 2), ("14:30", 1), ("09:00", 1)]


def test_the_promotion_detail_names_each_entry() -> None:
    entries = [DiaryItem(DAY, "14:30", "a"), DiaryItem(DAY, "14:30", "b", ordinal=2)]
    draft = draft_promotion(entries)
    assert draft.detail == "promoted from diary 2026-07-21 14:30, 2026-07-21 14:30#2"
    assert [ev.render() for ev in draft.evidence] == [
        "(evidence: diary 2026-07-21 14:30)", "(evidence: diary 2026-07-21 14:30#2)"]


# -- audit and retraction -----------------------------------------------------------------------


def test_audit_shows_the_cited_entry_only(store: MemoryStore) -> None:
    store.add("facts", "map", "A map.\n(evidence: diary 2026-07-21 14:30#2)", ts=TS)
    store.add("facts", "swim", "Swims.\n(evidence: diary 2026-07-21 14:30)", ts=TS)
    (ref,) = audit(store, "facts", "map").evidence
    assert [e.content for e in ref.entries] == ["Bought a new harbour map."]
    assert (ref.entries[0].ordinal, ref.minute, ref.status) == (2, 2, "independent")
    (ref,) = audit(store, "facts", "swim").evidence
    assert [e.content for e in ref.entries] == ["Swam at the harbour beach."]


def test_retracting_one_entry_of_a_minute_lists_only_what_cites_it(store: MemoryStore) -> None:
    store.add("facts", "map", "A map.\n(evidence: diary 2026-07-21 14:30#2)", ts=TS)
    store.add("facts", "swim", "Swims.\n(evidence: diary 2026-07-21 14:30)", ts=TS)
    assert [d.name for d in retraction(store, entry=EntryId(DAY, "14:30", 2))] == ["map"]
    assert [d.name for d in retraction(store, entry=(DAY, "14:30", 2))] == ["map"]
    assert [d.name for d in retraction(store, entry=(DAY, "14:30"))] == ["swim"]  # a pair: the first entry
    (dep,) = retraction(store, entry=EntryId(DAY, "14:30", 2))
    assert dep.via == ("diary 2026-07-21 14:30#2",)


# -- reviewed.json ------------------------------------------------------------------------------


def test_dismissing_one_of_two_same_text_entries_leaves_the_other(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.diary.append("ok", date=DAY, time="14:30", ts=TS)
    store.diary.append("ok", date=DAY, time="14:30", ts=TS)
    first, second = store.diary.day(DAY)
    dismiss(tmp_path, [second], by="tui:me", ts=TS)
    record = json.loads((tmp_path / REVIEWED_FILE).read_text(encoding="utf-8"))["entries"][0]
    assert (record["time"], record["ordinal"]) == ("14:30", 2)
    assert [q.entry.ordinal for q in reconcile_queue(tmp_path)] == [1]
    assert [q.dismissed for q in reconcile_queue(tmp_path, include_dismissed=True)] == [True, False]
    assert dismiss(tmp_path, [second]) == []  # already dismissed: the first decision stays
    assert undismiss(tmp_path, [first]) == 0
    assert undismiss(tmp_path, [second]) == 1


def test_an_old_record_without_an_ordinal_matches_by_content_within_its_minute(store: MemoryStore) -> None:
    first, second = [e for e in store.diary.day(DAY) if e.time == "14:30"]
    from wikimem.disk.reviewed import entry_hash

    old = {"version": 1, "entries": [{"date": DAY, "time": "14:30", "hash": entry_hash(second.content)}]}
    (store.root / REVIEWED_FILE).write_text(json.dumps(old), encoding="utf-8")
    assert load_dismissed(store.root)[0].ordinal is None
    assert _queued(store) == [f"{DAY} 14:30", f"{DAY} 09:00"]
    assert undismiss(store.root, [second]) == 1


# -- retrieval and explain ------------------------------------------------------------------------


def test_two_entries_of_a_minute_are_two_distinct_retrieval_rows(store: MemoryStore) -> None:
    result = MemoryIndex(store, use_jieba=False).retrieve("harbour", time_range=(DAY, DAY), explain=True)
    diary_rows = [row for row in result.items if row.entry_id is not None]
    assert sorted(row.entry_id for row in diary_rows) == [EntryId(DAY, "14:30"), EntryId(DAY, "14:30", 2)]
    assert sorted(address(row) for row in diary_rows) == ["diary 2026-07-21 14:30", "diary 2026-07-21 14:30#2"]
    assert all(row.item.name == "14:30" for row in diary_rows)  # as_recall_item: name = HH:MM, as the spec says


def test_why_names_the_second_entry_of_a_minute(store: MemoryStore) -> None:
    index = MemoryIndex(store, use_jieba=False)
    why = index.why_not("map", DAY, "14:30#2", time_range=(DAY, DAY))
    assert (why.name, why.recalled) == ("14:30#2", True)
    why = index.why_not("map", DAY, "14:30", time_range=(DAY, DAY))
    assert why.recalled is False  # the first entry says nothing about a map


def test_show_prints_one_entry_of_a_shared_minute(store: MemoryStore, capsys: pytest.CaptureFixture[str]) -> None:
    from wikimem.cli import main

    assert main(["-s", str(store.root), "show", DAY, "14:30#2"]) == 0
    out = capsys.readouterr().out
    assert "Bought a new harbour map." in out and "Swam" not in out
    assert main(["-s", str(store.root), "show", DAY, "14:30"]) == 0
    assert capsys.readouterr().out.count("## 14:30") == 2  # the minute: both entries
    assert main(["-s", str(store.root), "show", DAY, "14:30#3"]) == 1


def test_an_entry_key_names_the_entry_wherever_a_pair_is_taken(store: MemoryStore) -> None:
    store.add("facts", "map", "A map.\n(evidence: diary 2026-07-21 14:30#2)", ts=TS)
    assert [d.name for d in retraction(store, entry=(DAY, "14:30#2"))] == ["map"]
    assert retraction(store, entry=(DAY, "14:30#1")) == []
