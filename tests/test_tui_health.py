"""The Health pane is ``wikimem lint``: grouped, filtered, whole, one key from each place, live.

A store with one of each problem planted (through the public API, so the
journal is consistent and no drift finding carries a file time) is linted
by the pane; the tests read what the user sees (the tree rows, the status
and detail lines, notifications) and the messages the pane posts.
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static

from conftest import make_app, notices, ready, screen_text, wait_for
from pane_harness import PaneApp
from test_tui_panes_snapshots import NOW, SIZE
from wikimem import Linter, MemoryStore
from wikimem_tui.core.backend import Backend
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.health.health import HealthPane
from wikimem_tui.health.health_model import FindingFilter, jump_for

TS = "2026-07-21T06:30:00+00:00"
TODAY = dt.date(2026, 7, 22)


def planted(root: Path) -> Backend:
    """One of each: evidence-missing (error), dangling links, near-duplicate, echo, a torn journal line, orphans."""
    store = MemoryStore(root)
    add = store.add
    add("places", "beach", "Sandy. See [[places:harbour]] and [[places:atlantis]].", owner="agent", ts=TS)
    add("places", "harbour", "Boats [bold]not bold[/bold] \x1b[31mnot red. Near [[places:beach]].", owner="agent", ts=TS)
    add("prefs", "likes-the-sea", "The user likes the sea and swims every morning.\n"
        "(evidence: diary 2026-07-01 10:00, owner agent)", owner="user:xnne", ts=TS)
    add("prefs", "sea-lover", "The user likes the sea and swims every morning.", owner="agent", ts=TS)
    add("prefs", "echo", "The user prefers tea.\n(evidence: diary 2026-07-21 09:00, owner agent)", owner="agent", ts=TS)
    diary = store.diary
    diary.append("The user prefers tea, says the recall answer.\n<!-- wikimem-derived -->", date="2026-07-21",
                 time="09:00", owner="agent", ts=TS)
    diary.append("Went swimming at [[places:reef]].", date="2026-07-21", time="14:30", owner="agent", ts=TS)
    with open(root / "journal.jsonl", "a", encoding="utf-8") as fh:
        fh.write("{torn line, not json\n")
    return Backend(root=root, store=store, index=None, owner="tui:test",  # type: ignore[arg-type]
                   clock=lambda: NOW, today=lambda: TODAY)


class HealthApp(PaneApp):
    """The pane alone; records what it asks the app to show (the journal lines besides what it opens)."""

    def __init__(self, backend: Backend) -> None:
        super().__init__(backend, HealthPane)
        self.journal_lines: list[int] = []

    def on_health_pane_show_journal(self, message: HealthPane.ShowJournal) -> None:
        self.journal_lines.append(message.line)


def pane(app: Any) -> HealthPane:
    return app.query_one(HealthPane)


def status(app: Any) -> str:
    return str(app.query_one("#health-status", Static).render())


def detail(app: Any) -> str:
    return str(app.query_one("#health-detail", Static).render())


def rows(app: Any) -> list[str]:
    """The tree's rows as drawn (labels only)."""
    return [str(line.node.label) for line in pane(app).finding_tree._tree_lines]


async def linted(pilot: Any, runs: int = 1) -> None:
    await wait_for(pilot, lambda: pane(pilot.app).runs >= runs and not pane(pilot.app).linting)


async def set_filter(pilot: Any, text: str) -> None:
    """Type ``text`` into the filter box and wait until the tree shows it (it is grouped in a worker)."""
    pilot.app.query_one("#health-filter", Input).value = text
    await wait_for(pilot, lambda: pane(pilot.app).applied == FindingFilter.parse(text))


async def select_row(pilot: Any, startswith: str) -> None:
    """Put the tree's cursor on the first row starting with ``startswith`` and press enter."""
    tree = pane(pilot.app).finding_tree
    tree.focus()
    for i, line in enumerate(tree._tree_lines):
        if str(line.node.label).startswith(startswith):
            tree.cursor_line = i
            break
    else:
        raise AssertionError(f"no row starts with {startswith!r}: {rows(pilot.app)}")
    await wait_for(pilot)
    await pilot.press("enter")
    await wait_for(pilot)


async def test_the_pane_shows_the_linters_findings_grouped_by_severity_and_code(tmp_path: Path) -> None:
    backend = planted(tmp_path)
    async with HealthApp(backend).run_test(size=SIZE) as pilot:
        await linted(pilot)
        expected = Linter(tmp_path).run()
        assert pane(pilot.app).report is not None
        assert pane(pilot.app).report.findings == expected.findings  # the same as `wikimem lint`
        assert status(pilot.app).startswith("1 error · 5 warnings · 3 infos")
        shown = rows(pilot.app)
        assert shown[0] == "errors 1"
        assert shown[1].startswith("evidence-missing 1  an evidence line citing")
        assert "warnings 5" in shown and "infos 3" in shown
        assert any(r.startswith("dangling-link 2") for r in shown)
        assert any(r.startswith("wiki/places.md:5 beach: links to [[places:atlantis]]") for r in shown)
        # info groups stay closed: their rows are not drawn until opened
        assert not any("no item or diary entry links here" in r for r in shown)


async def test_the_filter_narrows_by_words_severity_code_and_path(tmp_path: Path) -> None:
    backend = planted(tmp_path)
    async with HealthApp(backend).run_test(size=SIZE) as pilot:
        await linted(pilot)
        await set_filter(pilot, "atlantis")
        assert [r for r in rows(pilot.app) if ":" in r.split(" ")[0]] == [
            "wiki/places.md:5 beach: links to [[places:atlantis]], which does not exist"]
        assert "showing 1 of 9" in status(pilot.app)
        assert "dangling-link 1/2" in " ".join(rows(pilot.app))
        await set_filter(pilot, "sev:info")
        assert rows(pilot.app)[0] == "infos 3" and len([r for r in rows(pilot.app) if r.startswith(("errors", "warnings"))]) == 0
        await set_filter(pilot, "code:dangling-link path:diary")
        assert [r for r in rows(pilot.app) if r.startswith("diary/")] == [
            "diary/2026-07-21.md:12 14:30: links to [[places:reef]], which does not exist"]
        await set_filter(pilot, "code:danglink")
        assert "no code 'danglink'" in status(pilot.app)
        assert rows(pilot.app) == ["no findings match the filter"]


def test_filter_terms_all_have_to_match() -> None:
    flt = FindingFilter.parse("SEV:warn places")
    assert flt.severities == {"warning"} and flt.words == ("places",)
    assert FindingFilter.parse("sev:bogus").error.startswith("no severity 'bogus'")
    assert not FindingFilter.parse("  ").active


async def test_the_highlighted_finding_is_shown_whole_with_its_fix_even_at_80_columns(tmp_path: Path) -> None:
    backend = planted(tmp_path)
    long_target = "a-very-long-item-name-that-goes-on-and-on-well-past-the-width-of-any-tree-row-" * 2
    backend.store.add("places", "cove", f"See [[places:{long_target}]].", owner="agent", ts=TS)
    async with HealthApp(backend).run_test(size=(80, 24)) as pilot:
        await linted(pilot)
        await select_row(pilot, "wiki/places.md:17 cove")
        message = f"links to [[places:{long_target}]], which does not exist"
        shown = detail(pilot.app)
        assert message in shown.replace("\n", "")
        assert "fix: fix the link or create the item" in shown
        assert "enter opens the item places:cove" in shown
        # every character of the message is on screen, wrapped over several lines
        drawn = "".join(line.strip() for line in screen_text(pilot.app).splitlines())
        assert message.replace(" ", "") in drawn.replace(" ", "")


async def test_a_row_cut_at_the_panes_edge_ends_in_an_ellipsis_and_is_whole_below(tmp_path: Path) -> None:
    backend = planted(tmp_path)
    long_target = "a-very-long-item-name-that-goes-on-and-on-well-past-the-width-of-any-tree-row"
    backend.store.add("places", "cove", f"See [[places:{long_target}]].", owner="agent", ts=TS)
    async with HealthApp(backend).run_test(size=(80, 24)) as pilot:
        await linted(pilot)
        await select_row(pilot, "wiki/places.md:17 cove")
        tree = pane(pilot.app).finding_tree
        [row] = [line for line in screen_text(pilot.app).splitlines() if "places.md:17 cove" in line]
        assert row.rstrip().endswith("…") and len(row.rstrip()) == tree.region.right
        message = f"wiki/places.md:17 cove: links to [[places:{long_target}]], which does not exist"
        assert message.startswith(row.strip().lstrip("└├│ ").removesuffix("…"))
        assert f"links to [[places:{long_target}]], which does not exist" in detail(pilot.app).replace("\n", "")


async def test_a_status_line_wider_than_the_pane_ends_in_an_ellipsis_and_its_tooltip_is_whole(tmp_path: Path) -> None:
    async with HealthApp(planted(tmp_path)).run_test(size=(60, 24)) as pilot:
        pane(pilot.app).show_timing = True  # "· linted HH:MM:SS in N ms (full lint)": wider than 60 columns
        await linted(pilot)
        line = pilot.app.query_one("#health-status", Static)
        [drawn] = [row for row in screen_text(pilot.app).splitlines() if row.startswith(" 1 error")]
        assert drawn.rstrip().endswith("…")
        assert line.tooltip == status(pilot.app) and status(pilot.app).endswith("(full lint)")
        assert status(pilot.app).startswith(drawn.strip().removesuffix("…"))


async def test_enter_opens_the_place_of_a_finding(tmp_path: Path) -> None:
    backend = planted(tmp_path)
    async with HealthApp(backend).run_test(size=SIZE) as pilot:
        await linted(pilot)
        await select_row(pilot, "wiki/places.md:5 beach")
        await select_row(pilot, "diary/2026-07-21.md:12 14:30")
        await select_row(pilot, "journal.jsonl:8")
        assert pilot.app.opened == [("item", "places", "beach"), ("diary", "2026-07-21", "14:30")]
        assert pilot.app.journal_lines == [8]
        assert any("journal.jsonl line 8" in n for n in notices(pilot.app))


async def test_a_heading_the_store_cannot_address_opens_its_file_and_a_cache_finding_says_why(tmp_path: Path) -> None:
    backend = planted(tmp_path)
    (tmp_path / "wiki" / "hand.md").write_text("# hand\n\n## a:b\n\ncolon in the name\n", encoding="utf-8")
    (tmp_path / "vectors.keys.jsonl").write_text("not json at all\n", encoding="utf-8")
    async with HealthApp(backend).run_test(size=SIZE) as pilot:
        await linted(pilot)
        await select_row(pilot, "wiki/hand.md:3 a:b")
        assert pilot.app.opened == [("file", "hand")]
        await set_filter(pilot, "code:vector-cache-torn")
        await select_row(pilot, "vectors.keys.jsonl")
        assert any("vector cache, derived state the app does not open" in n and "delete vectors.keys.jsonl" in n
                   for n in notices(pilot.app))


async def test_a_store_change_re_lints_only_the_changed_files_in_a_worker_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = planted(tmp_path)
    calls: list[tuple[list[str], bool]] = []
    real_run = Linter.run

    def spy(self: Linter, changed: Any = ()) -> Any:
        calls.append((list(changed), threading.current_thread() is threading.main_thread()))
        return real_run(self, changed)

    monkeypatch.setattr(Linter, "run", spy)
    async with HealthApp(backend).run_test(size=SIZE) as pilot:
        pane(pilot.app).show_timing = True
        await linted(pilot)
        assert "(full lint)" in status(pilot.app)
        backend.store.add("places", "atlantis", "Found it.", owner="agent", ts=TS)
        pane(pilot.app).refresh_from_store(StoreChange(wiki_files=frozenset({"places"}), external=False))
        await linted(pilot, runs=2)
        assert calls == [([], False), (["wiki/places.md"], False)]  # never on the UI thread
        assert "(re-lint, 1 changed file)" in status(pilot.app)
        assert not any("atlantis" in r for r in rows(pilot.app))
        assert status(pilot.app).startswith("1 error · 4 warnings")


async def test_the_status_says_when_lint_ran_and_how_long_it_took(tmp_path: Path) -> None:
    backend = planted(tmp_path)
    async with HealthApp(backend).run_test(size=SIZE) as pilot:
        pane(pilot.app).show_timing = True
        await linted(pilot)
        local = NOW.astimezone().strftime("%H:%M:%S")
        assert f"· linted {local} in " in status(pilot.app) and " ms (full lint)" in status(pilot.app)


async def test_r_lints_from_scratch_and_open_groups_and_the_cursor_survive(tmp_path: Path) -> None:
    backend = planted(tmp_path)
    async with HealthApp(backend).run_test(size=SIZE) as pilot:
        pane(pilot.app).show_timing = True
        await linted(pilot)
        tree = pane(pilot.app).finding_tree
        tree.focus()
        await select_row(pilot, "orphan 3")  # enter on a group opens it
        assert any(r.startswith("wiki/prefs.md:16 echo") for r in rows(pilot.app))
        await select_row(pilot, "dangling-link 2")  # and closes an open one
        await pilot.press("down")
        await wait_for(pilot)
        cursor = tree.cursor_node.data if tree.cursor_node else None
        await pilot.press("r")
        await linted(pilot, runs=2)
        assert "(full lint)" in status(pilot.app)
        assert any(r.startswith("wiki/prefs.md:16 echo") for r in rows(pilot.app))  # still open
        assert not any("atlantis" in r for r in rows(pilot.app))  # still closed
        assert tree.cursor_node is not None and tree.cursor_node.data == cursor


async def test_a_failing_lint_is_reported_and_the_pane_keeps_working(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = planted(tmp_path)

    def broken(self: Linter, changed: Any = ()) -> Any:
        raise OSError("disk on fire")

    monkeypatch.setattr(Linter, "run", broken)
    async with HealthApp(backend).run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: pane(pilot.app).runs >= 1)
        assert "lint failed: OSError('disk on fire')" in status(pilot.app)


def test_where_enter_goes_for_each_kind_of_place(tmp_path: Path) -> None:
    planted(tmp_path)
    (tmp_path / "diary" / "2026-02-30.md").write_text("## 10:00\n\nno such day\n", encoding="utf-8")
    (tmp_path / "lint-baseline.json").write_text("{", encoding="utf-8")
    jumps = {f.location.path: jump_for(f) for f in Linter(tmp_path).run().findings}
    assert jumps["diary/2026-02-30.md"].kind == "none" and "not a real date" in jumps["diary/2026-02-30.md"].note
    assert jumps["lint-baseline.json"].kind == "none" and "drift baseline" in jumps["lint-baseline.json"].note
    assert jumps["journal.jsonl"].describe() == "enter shows the journal pane (line 8)"


async def test_in_the_app_h_shows_health_and_a_journal_finding_switches_to_the_journal(backend: Backend) -> None:
    with open(backend.journal_path, "a", encoding="utf-8") as fh:
        fh.write("not json\n")
    app = make_app(backend)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("h")
        await linted(pilot)
        assert app.query_one("#panes").active == "tab-health"
        await set_filter(pilot, "code:journal-bad-line")
        await select_row(pilot, "journal.jsonl:")
        assert app.query_one("#panes").active == "tab-journal"


async def test_the_pane_works_at_80x24_in_the_app(backend: Backend) -> None:
    app = make_app(backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.press("h")
        await linted(pilot)
        text = screen_text(app)
        assert "warning" in text and "dangling-link" in text
        assert "enter opens the item" in text  # the detail line fits under the tree


def test_health_pane_snapshot(tmp_path: Path, snap_compare: Any) -> None:
    app = HealthApp(planted(tmp_path))

    async def checked(pilot: Any) -> None:
        await linted(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=checked)


def test_health_pane_snapshot_80x24(tmp_path: Path, snap_compare: Any) -> None:
    app = HealthApp(planted(tmp_path))

    async def checked(pilot: Any) -> None:
        await linted(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=checked)
