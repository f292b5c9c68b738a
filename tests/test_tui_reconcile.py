"""The reconcile queue: what waits for review, promotion after a look at similar items, review marks.

Each test asserts what the user sees (rows, status, the promote screen,
notifications) and what is on disk afterwards (the wiki file, the journal
line, ``reviewed.json``), never a private attribute as the only proof.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, OptionList, Select, Static

from conftest import make_app, notices, ready, screen_text, wait_for
from pane_harness import PaneApp
from test_tui_panes_snapshots import NOW
from wikimem import DiaryItem, MemoryIndex, MemoryStore, RecallItem
from wikimem.lint import Snapshot
from wikimem_tui.core.backend import Backend
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.queue.promote import PromoteScreen
from wikimem_tui.queue.promote_text import similarity_text
from wikimem_tui.queue.reconcile import ReconcilePane
from wikimem_tui.queue.reconcile_list import row_cells
from wikimem_tui.queue.reconcile_model import parse_days
from wikimem_tui.queue.reconcile_writer import promotion_owner

TS = "2026-07-21T06:30:00+00:00"
TODAY = dt.date(2026, 7, 22)
SIZE = (120, 40)
DERIVED = "The user likes swimming at the beach, says the recall answer.\n<!-- wikimem-derived -->"


def queue_store(root: Path, *, read_only: bool = False) -> Backend:
    """Five diary entries, one of them cited by a wiki item, one derived; two owners."""
    store = MemoryStore(root)
    store.add("places", "beach", "Sandy beach by the harbour. The user swims there in the cold water.",
              owner="user:xnne", source_conv="conv_beach", ts=TS)
    store.add("prefs", "tea", "Jasmine tea in the afternoon.\n(evidence: diary 2026-07-08 18:00, owner agent)",
              owner="agent", ts=TS)
    diary = store.diary
    diary.append("Drank jasmine tea.", date="2026-07-08", time="18:00", owner="agent", ts=TS)
    diary.append("Rain all day.", date="2026-07-08", time="19:00", owner="agent", ts=TS)
    diary.append("Coffee with [red]Ana[/red].", date="2026-07-21", time="09:00", owner="agent",
                 source_conv="conv_0721", ts=TS)
    diary.append("Went swimming at the beach again; the water was cold.", date="2026-07-21", time="14:30",
                 owner="agent", source_conv="conv_0721", ts=TS)
    diary.append(DERIVED, date="2026-07-22", time="08:10", owner="tui:me", ts=TS)
    return Backend(root=root, store=store, index=MemoryIndex(store, use_jieba=False), owner="tui:test",
                   read_only=read_only, clock=lambda: NOW, today=lambda: TODAY)


class QueueApp(PaneApp):
    """The queue alone (the harness records the days it asks to open)."""

    def __init__(self, backend: Backend) -> None:
        super().__init__(backend, ReconcilePane)


def pane(app: Any) -> ReconcilePane:
    return app.query_one(ReconcilePane)


def rows(app: Any) -> list[str]:
    """Each row as the list draws it (at 200 cells), runs of spaces collapsed."""
    view = pane(app).rows_view
    return [" ".join("".join(text for text, _ in row_cells(q, view.selected, 200)).split()) for q in view.rows]


def status(app: Any) -> str:
    return str(app.query_one("#queue-status", Static).render())


async def loaded(pilot: Any, loads: int = 1) -> None:
    await wait_for(pilot, lambda: pane(pilot.app).loads >= loads and not pane(pilot.app)._loading)


async def promote_screen(pilot: Any, *keys: str) -> PromoteScreen:
    """Press ``keys`` in the list then ``p``; return the promote screen once its similar items are in."""
    pane(pilot.app).rows_view.focus()
    await pilot.press(*keys, "p")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, PromoteScreen) and pilot.app.screen.similar_ready)
    await wait_for(pilot)
    return pilot.app.screen  # type: ignore[return-value]


def wiki_bytes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "wiki").glob("*.md"))}


def journal_lines(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / "journal.jsonl").read_text(encoding="utf-8").splitlines()]


async def test_the_queue_lists_uncited_entries_newest_first_with_the_derived_badge(tmp_path: Path) -> None:
    async with QueueApp(queue_store(tmp_path)).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert rows(pilot.app) == [
            "2026-07-22 08:10 tui:me ↺ derived The user likes swimming at the beach, says the recall answer.",
            "2026-07-21 14:30 agent Went swimming at the beach again; the water was cold.",
            "2026-07-21 09:00 agent Coffee with [red]Ana[/red].",  # markup shown literally
            "2026-07-08 19:00 agent Rain all day.",
        ]  # 2026-07-08 18:00 is cited by prefs:tea
        assert status(pilot.app).startswith("4 entries waiting · 1 derived")
        detail = str(pilot.app.query_one("#queue-detail", Static).render())
        assert "<!-- wikimem-derived -->" in detail and "not independent evidence" in detail


async def test_days_and_owner_filter_the_queue(tmp_path: Path) -> None:
    async with QueueApp(queue_store(tmp_path)).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        days = pilot.app.query_one("#queue-days", Input)
        days.value = "2026-07-21"
        await loaded(pilot, 2)
        assert [r[:16] for r in rows(pilot.app)] == ["2026-07-21 14:30", "2026-07-21 09:00"]
        days.value = "2026-07-22..2026-07-08"  # reversed bounds are swapped
        await loaded(pilot, 3)
        assert len(rows(pilot.app)) == 4
        days.value = "2026-07-21.."
        await loaded(pilot, 4)
        assert [r[:10] for r in rows(pilot.app)] == ["2026-07-22", "2026-07-21", "2026-07-21"]
        days.value = "July"
        await wait_for(pilot)
        assert "days: 'July' is not a day (YYYY-MM-DD) or a month (YYYY-MM)" in status(pilot.app)
        assert len(rows(pilot.app)) == 3  # the last good filter stays
        days.value = ""
        await loaded(pilot, 5)
        pilot.app.query_one("#queue-owner", Select).value = "tui:me"
        await wait_for(pilot)
        assert rows(pilot.app) == [
            "2026-07-22 08:10 tui:me ↺ derived The user likes swimming at the beach, says the recall answer."]


def test_the_day_range_box_reads_days_months_and_open_ends() -> None:
    assert parse_days("") == (None, None)
    assert parse_days("2026-07-21") == ("2026-07-21", "2026-07-21")
    assert parse_days("2026-02") == ("2026-02-01", "2026-02-28")
    assert parse_days("2026-07..2026-08") == ("2026-07-01", "2026-08-31")
    assert parse_days("2026-08..2026-07") == ("2026-07-01", "2026-08-31")
    assert parse_days("..2026-07-21") == (None, "2026-07-21")
    for bad in ("2026-13", "yesterday", "2026-07-01..2026-07-02..2026-07-03"):
        with pytest.raises(ValueError):
            parse_days(bad)


async def test_promoting_shows_similar_items_before_anything_is_written_then_extends_the_picked_one(
    tmp_path: Path,
) -> None:
    backend = queue_store(tmp_path)
    before = wiki_bytes(tmp_path)
    async with QueueApp(backend).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await promote_screen(pilot, "down")  # the 14:30 swim
        assert [f"{i.file}:{i.name}" for i in screen.similar][0] == "places:beach"
        assert "places:beach" in screen_text(pilot.app) and "bm25" in screen_text(pilot.app)
        assert wiki_bytes(tmp_path) == before  # nothing written while the user looks
        similar = screen.query_one("#rp-similar", OptionList)
        similar.focus()
        similar.highlighted = 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.target == ("places", "beach"))
        assert "extends places:beach · keeps its owner user:xnne and source conv_beach" in screen_text(pilot.app)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(pilot.app.screen, PromoteScreen))
        await loaded(pilot, 2)
    item = backend.store.get("places", "beach")
    assert item is not None
    assert item.content == ("Sandy beach by the harbour. The user swims there in the cold water.\n\n"
                            "Went swimming at the beach again; the water was cold.\n"
                            "(evidence: diary 2026-07-21 14:30, owner agent, source conv_0721)")
    assert (item.owner, item.source_conv) == ("user:xnne", "conv_beach")  # provenance untouched
    last = journal_lines(tmp_path)[-1]
    assert (last["action"], last["by"], last["detail"]) == ("update", "tui:test", "promoted from diary 2026-07-21 14:30")


async def test_a_new_item_belongs_to_the_entries_owner_when_they_share_one_else_to_the_app(tmp_path: Path) -> None:
    backend = queue_store(tmp_path)
    async with QueueApp(backend).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await promote_screen(pilot, "down", "space", "space")  # 14:30 and 09:00, both agent's
        screen.query_one("#rp-file", Input).value = "events"
        screen.query_one("#rp-name", Input).value = "july-21"
        await wait_for(pilot, lambda: screen.target == ("events", "july-21"))
        assert "new item events:july-21 · owner agent (the entries' owner) · source conv_0721" in screen_text(pilot.app)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not isinstance(pilot.app.screen, PromoteScreen))
        await loaded(pilot, 2)
        assert [r[:16] for r in rows(pilot.app)] == ["2026-07-22 08:10", "2026-07-08 19:00"]  # now cited
        assert any("promoted 2 entries to events:july-21" in n for n in notices(pilot.app))
    item = backend.store.get("events", "july-21")
    assert item is not None and (item.owner, item.source_conv) == ("agent", "conv_0721")
    assert item.content.count("(evidence: diary 2026-07-21") == 2
    mixed = [DiaryItem("2026-07-21", "09:00", "a", owner="agent"), DiaryItem("2026-07-22", "08:10", "b", owner="tui:me")]
    assert promotion_owner(mixed, None, "tui:test") == ("tui:test", None)
    existing = RecallItem("f", "n", "x", owner=None, source_conv=None)
    assert promotion_owner(mixed[:1], existing, "tui:test") == (None, None)  # untouched, even when unset


async def test_promoting_only_derived_entries_warns_before_writing(tmp_path: Path) -> None:
    async with QueueApp(queue_store(tmp_path)).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await promote_screen(pilot)  # the first row: the derived entry
        text = screen_text(pilot.app)
        assert "⚠ every selected entry is derived" in text and "anti-echo" in text
        preview = str(pilot.app.screen.query_one("#rp-preview", Static).render())
        assert "wikimem-derived" not in preview  # the evidence line says where it came from
        assert "(evidence: diary 2026-07-22 08:10, owner tui:me)" in preview


async def test_an_item_changed_on_disk_after_the_preview_is_not_overwritten(tmp_path: Path) -> None:
    backend = queue_store(tmp_path)
    async with QueueApp(backend).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await promote_screen(pilot, "down")
        screen.query_one("#rp-file", Input).value = "places"
        screen.query_one("#rp-name", Input).value = "beach"
        await wait_for(pilot, lambda: screen.target == ("places", "beach"))
        other = MemoryStore(tmp_path)  # an agent writes meanwhile
        other.add("places", "beach", "Rebuilt after the storm.", owner="agent", ts=TS)
        await pilot.press("ctrl+s")
        await wait_for(pilot)
        assert isinstance(pilot.app.screen, PromoteScreen)
        error = str(screen.query_one("#rp-error", Static).render())
        assert "places:beach changed on disk since the preview" in error
        assert "Rebuilt after the storm." in str(screen.query_one("#rp-preview", Static).render())
        assert backend.store.get("places", "beach").content == "Rebuilt after the storm."  # type: ignore[union-attr]
        await pilot.press("ctrl+s")  # the user looked again: now it goes through
        await wait_for(pilot, lambda: not isinstance(pilot.app.screen, PromoteScreen))
        await wait_for(pilot)
    content = backend.store.get("places", "beach").content  # type: ignore[union-attr]
    assert content.startswith("Rebuilt after the storm.\n\nWent swimming")


async def test_an_invalid_target_is_refused_inline_and_nothing_is_written(tmp_path: Path) -> None:
    backend = queue_store(tmp_path)
    before = wiki_bytes(tmp_path)
    async with QueueApp(backend).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await promote_screen(pilot)
        screen.query_one("#rp-file", Input).value = "Bad File"
        screen.query_one("#rp-name", Input).value = "x"
        await wait_for(pilot)  # the preview of what was typed: drawn later, it would clear the refusal
        await pilot.press("ctrl+s")
        await wait_for(pilot)
        assert "not promoted: invalid" in str(screen.query_one("#rp-error", Static).render())
        await pilot.press("escape")
        await wait_for(pilot)
        assert not isinstance(pilot.app.screen, PromoteScreen)
    assert wiki_bytes(tmp_path) == before


async def test_a_refusal_right_after_typing_stays_when_the_typing_preview_comes_late(tmp_path: Path) -> None:
    """ctrl+s before the pause in typing drew its preview: that preview, drawn after, must not wipe the refusal.

    The preview's timer is held (paused, its callback kept), so the order is
    the one a fast ctrl+s gets, on any machine: the refusal first, then the
    preview -- once as a callback already queued when ctrl+s came, once as a
    timer that only fires after it.
    """
    backend = queue_store(tmp_path)
    before = wiki_bytes(tmp_path)
    async with QueueApp(backend).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = await promote_screen(pilot)
        held: list[tuple[Any, Any]] = []
        set_timer = screen.set_timer

        def hold(delay: float, callback: Any, **kwargs: Any) -> Any:  # noqa: ANN401
            timer = set_timer(delay, callback, **kwargs)
            timer.pause()
            held.append((timer, callback))
            return timer

        screen.set_timer = hold  # type: ignore[method-assign]
        screen.query_one("#rp-file", Input).value = "Bad File"
        screen.query_one("#rp-name", Input).value = "x"
        await wait_for(pilot, lambda: len(held) == 2, "the typing's preview timers")
        await pilot.press("ctrl+s")
        error = screen.query_one("#rp-error", Static)
        await wait_for(pilot, lambda: "not promoted: invalid" in str(error.render()), "the refusal")
        held[-1][1]()  # the preview as a callback that was already queued when ctrl+s came
        for timer, _ in held:
            timer.resume()  # and as a timer firing only now
        await wait_for(pilot)
        assert "not promoted: invalid" in str(error.render())
        assert "not a valid target" in str(screen.query_one("#rp-target", Static).render())  # it shows what is typed
        screen.query_one("#rp-file", Input).value = "places"  # typing again: its preview is the newest outcome
        await wait_for(pilot, lambda: len(held) == 3, "the new typing's preview timer")
        held[-1][0].resume()
        await wait_for(pilot, lambda: screen.target == ("places", "x"), "the preview of what is typed now")
        assert str(error.render()) == ""
    assert wiki_bytes(tmp_path) == before


async def test_x_marks_reviewed_not_promoted_and_u_takes_it_back(tmp_path: Path) -> None:
    async with QueueApp(queue_store(tmp_path)).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        pane(pilot.app).rows_view.focus()
        await pilot.press("down", "x")
        await loaded(pilot, 2)
        assert [r[:16] for r in rows(pilot.app)] == ["2026-07-22 08:10", "2026-07-21 09:00", "2026-07-08 19:00"]
        records = json.loads((tmp_path / "reviewed.json").read_text(encoding="utf-8"))["entries"]
        assert [(r["date"], r["time"], r["by"]) for r in records] == [("2026-07-21", "14:30", "tui:test")]
        assert any("marked reviewed, not promoted (u undoes)" in n for n in notices(pilot.app))
        await pilot.press("u")
        await loaded(pilot, 3)
        assert len(rows(pilot.app)) == 4
        assert json.loads((tmp_path / "reviewed.json").read_text(encoding="utf-8"))["entries"] == []


async def test_v_shows_reviewed_entries_badged_and_x_unmarks_one(tmp_path: Path) -> None:
    async with QueueApp(queue_store(tmp_path)).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        pane(pilot.app).rows_view.focus()
        await pilot.press("space", "space", "x")  # two selected: both marked
        await loaded(pilot, 2)
        assert len(rows(pilot.app)) == 2
        await pilot.press("v")
        await loaded(pilot, 3)
        assert rows(pilot.app)[1] == "2026-07-21 14:30 agent ✓ reviewed Went swimming at the beach again; the water was cold."
        assert "2 reviewed shown" in status(pilot.app)
        pane(pilot.app).rows_view.cursor = 1
        await pilot.press("x")
        await loaded(pilot, 4)
        assert rows(pilot.app)[1] == "2026-07-21 14:30 agent Went swimming at the beach again; the water was cold."


async def test_read_only_refuses_promotion_and_marks_and_writes_nothing(tmp_path: Path) -> None:
    backend = queue_store(tmp_path, read_only=True)
    files = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    async with QueueApp(backend).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert "read-only: promoting and marking are refused" in status(pilot.app)
        pane(pilot.app).rows_view.focus()
        await pilot.press("space", "p")
        await wait_for(pilot)
        assert not isinstance(pilot.app.screen, PromoteScreen)
        await pilot.press("x", "u")
        await wait_for(pilot)
        said = notices(pilot.app)
        assert any("read-only: promotion refused, nothing written" in n for n in said)
        assert any("read-only: 'reviewed, not promoted' mark refused" in n for n in said)
        assert any("read-only: undo of the mark refused" in n for n in said)
        with pytest.raises(PermissionError, match="read-only"):
            pane(pilot.app).writer.dismiss([pane(pilot.app).entries[0].entry])
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == files
    assert not (tmp_path / "reviewed.json").exists()


async def test_a_store_change_re_reads_only_the_changed_files_in_a_worker_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = queue_store(tmp_path)
    calls: list[tuple[list[str], bool]] = []
    real = Snapshot.refresh

    def spy(self: Snapshot, changed: Any = ()) -> set[str]:
        calls.append((list(changed), threading.current_thread() is threading.main_thread()))
        return real(self, changed)

    monkeypatch.setattr(Snapshot, "refresh", spy)
    async with QueueApp(backend).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        backend.store.diary.append("A new entry.", date="2026-07-22", time="09:30", owner="agent", ts=TS)
        pane(pilot.app).refresh_from_store(StoreChange(diary_dates=frozenset({"2026-07-22"})))
        await loaded(pilot, 2)
        assert rows(pilot.app)[0] == "2026-07-22 09:30 agent A new entry."
    assert calls == [([], False), (["diary/2026-07-22.md"], False)]


async def test_enter_opens_the_entry_in_its_day(tmp_path: Path) -> None:
    async with QueueApp(queue_store(tmp_path)).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        pane(pilot.app).rows_view.focus()
        await pilot.press("down", "enter")
        await wait_for(pilot)
        assert pilot.app.opened == [("diary", "2026-07-21", "14:30")]


def test_the_similarity_query_leaves_out_the_marker_and_evidence_lines() -> None:
    entries = [DiaryItem("2026-07-22", "08:10", DERIVED + "\n(evidence: diary 2026-07-01 10:00)")]
    assert similarity_text(entries) == "The user likes swimming at the beach, says the recall answer."


async def test_in_the_app_R_opens_the_queue_and_a_promotion_refreshes_the_other_views(backend: Backend) -> None:
    app = make_app(backend)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("R")
        await wait_for(pilot, lambda: pane(app).loads >= 1)
        assert app.query_one("#panes").active == "tab-queue"
        assert len(rows(app)) == 3
        await promote_screen(pilot)  # 2026-07-21 09:15 "Planned the week."
        app.screen.query_one("#rp-file", Input).value = "work"
        app.screen.query_one("#rp-name", Input).value = "weekly-plan"
        await wait_for(pilot)  # the preview of the new target is drawn
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.catalogue is not None and app.catalogue.has("work", "weekly-plan"))
        await wait_for(pilot, lambda: len(rows(app)) == 2)


async def test_the_queue_works_at_80x24_in_the_app(backend: Backend) -> None:
    app = make_app(backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("R")
        await wait_for(pilot, lambda: pane(app).loads >= 1)
        assert "Planned the week." in screen_text(app)
        await promote_screen(pilot)
        text = screen_text(app)
        assert "Promote 1 diary entry" in text and "Promote ^s" in text


def test_queue_pane_snapshot(tmp_path: Path, snap_compare: Any) -> None:
    app = QueueApp(queue_store(tmp_path))

    async def ready_(pilot: Any) -> None:
        await loaded(pilot)
        pane(pilot.app).rows_view.focus()
        await pilot.press("down", "space")

    assert snap_compare(app, terminal_size=SIZE, run_before=ready_)


def test_queue_pane_snapshot_80x24(tmp_path: Path, snap_compare: Any) -> None:
    app = QueueApp(queue_store(tmp_path))

    async def ready_(pilot: Any) -> None:
        await loaded(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=ready_)


def test_promote_screen_snapshot(tmp_path: Path, snap_compare: Any) -> None:
    app = QueueApp(queue_store(tmp_path))
    app.cursor_blink = False  # type: ignore[attr-defined]

    async def opened(pilot: Any) -> None:
        await loaded(pilot)
        screen = await promote_screen(pilot, "down")
        for box in screen.query(Input):
            box.cursor_blink = False
        screen.query_one("#rp-file", Input).value = "places"
        screen.query_one("#rp-name", Input).value = "beach"
        await wait_for(pilot, lambda: screen.target == ("places", "beach"))

    assert snap_compare(app, terminal_size=SIZE, run_before=opened)


# -- the derived badge ---------------------------------------------------------------------


def test_badge_for_marks_only_content_carrying_the_marker_on_its_own_line() -> None:
    from wikimem_tui.common.badges import BADGE, badge_for

    assert badge_for("Likes tea.\n<!-- wikimem-derived -->") is not None
    assert str(badge_for("<!--wikimem-derived-->\nLikes tea.")) == BADGE
    assert badge_for("Likes tea. <!-- wikimem-derived --> inline is not the marker") is None
    assert badge_for("Likes tea.") is None


def tree_labels(app: Any) -> list[str]:
    from wikimem_tui.tree.topic_tree import TopicTree

    tree = app.query_one(TopicTree).node_tree
    out: list[str] = []
    stack = list(tree.root.children)
    while stack:
        node = stack.pop(0)
        out.append(str(node.label))
        stack[:0] = list(node.children)
    return out


async def test_derived_items_and_days_carry_the_badge_in_the_tree_and_it_follows_changes(backend: Backend) -> None:
    from wikimem_tui.common.messages import StoreChanged
    from wikimem_tui.tree.topic_tree import TopicTree

    backend.store.add("notes", "echoed", "The user likes tea, says an answer.\n<!-- wikimem-derived -->", ts=TS)
    backend.store.diary.append(DERIVED, date="2026-07-20", time="20:00", owner="agent", ts=TS)
    app = make_app(backend)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        topic = app.query_one(TopicTree)
        await wait_for(pilot, lambda: ("notes", "echoed") in topic.derived.items)
        topic.reveal("notes", "echoed")
        for node in topic.node_tree.root.children:
            if str(node.label).startswith("diary"):
                node.expand()
        await wait_for(pilot)
        labels = tree_labels(app)
        assert "echoed  ↺ derived" in labels
        assert "[bold]loud[/bold]" in labels  # not derived: no badge
        assert "2026-07-20 (3) ↺ 1 derived" in labels and "2026-07-21 (1)" in labels
        backend.store.add("preferences", "tea", "Jasmine tea.\n<!-- wikimem-derived -->", ts=TS)
        app.post_message(StoreChanged(StoreChange(frozenset({"preferences"}))))
        await wait_for(pilot, lambda: ("preferences", "tea") in topic.derived.items)
        topic.reveal("preferences", "tea")
        await wait_for(pilot)
        assert "tea  ↺ derived" in tree_labels(app)
