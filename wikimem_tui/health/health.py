"""Health pane: ``wikimem lint`` live, grouped by severity and code, each finding one key from its place.

The findings are exactly the library's (``wikimem.lint.Linter``), so the
pane and ``wikimem lint`` never disagree. One ``Linter`` is kept warm: after
a store change the pane hands it the changed files and it re-reads only
those (plus whatever changed its stat), so a re-lint costs the edit, not the
store. Lint reads files, so it always runs in a thread worker; the Linter is
not thread-safe, so runs are serialised by a lock, and a run superseded by a
newer request drops its result (the newer run includes its changes).
"linting…" follows the lint workers themselves, not the result message: a
run that fails anywhere (not only inside ``Linter.run``) ends with its
error on the status line, never with "linting…" left on for good.

The findings tree (``health_tree``) is filled lazily, so tens of thousands
of findings cost only the groups the user opens. Tree rows are cut at the
pane's width with "…"; the highlighted finding is shown whole, wrapping,
below the tree with what its code means and how to fix it (the status line,
cut with "…" too, is whole in its tooltip). Grouping and wording live
in ``health_model``. Everything from a memory file is untrusted and goes
through ``safe``.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, Static, Tree
from textual.timer import Timer
from textual.worker import Worker, WorkerState, get_current_worker

from wikimem import Linter
from wikimem.lint import SEVERITIES, Finding, LintReport
from wikimem_tui.common.fit_input import FitInput
from wikimem_tui.common.messages import OpenDiaryDay, OpenItem, OpenRecallFile
from wikimem_tui.health.health_model import (
    FindingFilter,
    Group,
    code_detail,
    count_of,
    finding_detail,
    grouped,
    haystack,
    jump_for,
)
from wikimem_tui.health.health_tree import CHUNK, FindingTree, HealthRef
from wikimem_tui.common.incremental import IncrementalRefresh
from wikimem_tui.core.changes import StoreChange
from wikimem_tui.core.words import count

__all__ = ["CHUNK", "HealthPane", "HealthSource"]

#: Seconds of typing pause before the filter applies.
FILTER_DELAY = 0.12

HINT = Text("↑/↓ a finding to read it whole here · enter opens its place · f filter · r re-lint", style="dim")


class HealthSource(Protocol):
    """What the pane reads: the memory directory, the clock (for "linted at"), the embedder in use."""

    root: Path
    @property
    def clock(self) -> Callable[[], dt.datetime]: ...

    embedder: Any


class HealthPane(Widget):
    """Lint findings by severity and code, a filter, the highlighted one in full, enter to go there."""

    HELP_TITLE = "Health (lint)"
    HELP_NOTE = ("Filter: every word must match; sev:error (or sev:warn), code:dangling-link and "
                 "path:wiki/people narrow by field. Enter on a finding opens its item, diary day, "
                 "RecallFile or the journal; on a group it opens or closes it.")

    DEFAULT_CSS = """
    HealthPane { height: 1fr; }
    HealthPane #health-header { dock: top; height: auto; }
    HealthPane #health-status { height: 1; color: $text-muted; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    HealthPane #health-findings { height: 1fr; overflow-x: hidden; }
    HealthPane #health-detail-box { height: auto; max-height: 9; background: $boost; padding: 0 1; }
    HealthPane #health-detail { height: auto; }
    """

    BINDINGS = [
        Binding("f", "filter", "Filter", id="health.filter"),
        Binding("r", "recheck", "Re-lint", id="health.recheck"),
        Binding("escape", "leave_filter", "Clear filter", id="health.clear-filter", show=False),
    ]

    class Linted(Message):
        """A lint run finished in the worker (``report`` None when it failed: ``error`` says why)."""

        def __init__(self, report: LintReport | None, haystacks: list[str], ms: float, when: dt.datetime | None,
                     changed: int, full: bool, error: str = "", flt: FindingFilter | None = None,
                     groups: dict[str, list[Group]] | None = None, counts: dict[str, int] | None = None) -> None:
            super().__init__()
            self.report, self.haystacks, self.ms, self.when = report, haystacks, ms, when
            self.changed, self.full, self.error = changed, full, error
            self.flt, self.groups, self.counts = flt, groups or {}, counts or {}

    class Filtered(Message):
        """The filter worker grouped ``report`` under ``flt``."""

        def __init__(self, report: LintReport, flt: FindingFilter, groups: dict[str, list[Group]]) -> None:
            super().__init__()
            self.report, self.flt, self.groups = report, flt, groups

    class ShowJournal(Message):
        """Enter on a journal finding: the app shows the journal pane (``line`` is 1-based)."""

        def __init__(self, line: int) -> None:
            super().__init__()
            self.line = line

    def __init__(self, backend: HealthSource, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.backend = backend
        """Where to lint (``root``), the clock for "linted at", the embedder whose model the cache must match."""
        self.report: LintReport | None = None
        """The last lint's findings (all of them; the tree shows those passing the filter)."""
        self.filter = FindingFilter()
        """The filter typed (the tree follows it after a pause, grouped in a worker)."""
        self.applied = FindingFilter()
        """The filter the tree shows now."""
        self.show_timing = True
        """Show when lint ran and how long it took (snapshot tests turn it off)."""
        self.runs = 0
        """Lint runs whose result reached the pane (tests wait on it)."""
        self._haystacks: list[str] = []
        self.incremental = IncrementalRefresh(self.reload, lambda: self.is_on_screen)
        """The files changed since the last run, and the lock a run holds (``common/incremental``)."""
        self._linter: Linter | None = None
        self._fresh = False
        self._fresh_lock = threading.Lock()
        """Guards ``_fresh``: set on the UI thread, taken by the lint worker."""
        self.linting = False
        """A lint run is in flight (the status says "linting…"; tests wait on it).

        Not ``_running``: that is MessagePump's own "the message loop runs" flag.
        """
        self._filter_timer: Timer | None = None
        self._last = Text("not linted yet")

    def compose(self) -> ComposeResult:
        # The tree comes first in the DOM (the header is docked above it), so
        # showing the pane focuses the findings, not the filter box.
        yield FindingTree(id="health-findings")
        with Vertical(id="health-header"):
            yield FitInput(placeholder="filter: words · sev:error · code:dangling-link · path:wiki/people",
                        compact=True, id="health-filter")
            yield Static(Text("linting…"), id="health-status", markup=False)
        with VerticalScroll(id="health-detail-box"):
            yield Static(HINT, id="health-detail", markup=False)

    @property
    def finding_tree(self) -> FindingTree:
        """The grouped findings."""
        return self.query_one(FindingTree)

    @property
    def groups(self) -> dict[str, list[Group]]:
        """What the tree shows: severity -> code groups after the filter."""
        return self.finding_tree.groups

    # -- running lint -------------------------------------------------------------

    def action_recheck(self) -> None:
        """Lint from scratch (a new Linter re-reads every file)."""
        with self._fresh_lock:
            self._fresh = True
        self.reload()

    def refresh_from_store(self, change: StoreChange | None = None) -> None:
        """Re-read the changed files: now if the pane is on screen, else when it is next shown."""
        self.incremental.changed(change)

    def on_show(self) -> None:
        self.incremental.shown()

    def reload(self) -> None:
        """Lint again in the worker (the changed files re-read, the rest from the warm Linter)."""
        self.incremental.stale = False
        self.linting = True
        self._show_status()
        self._lint()

    @work(thread=True, exclusive=True, group="health-lint", exit_on_error=False)
    def _lint(self) -> None:
        worker = get_current_worker()
        with self.incremental.run_lock:  # one run at a time: the Linter keeps state between runs
            if worker.is_cancelled:
                return  # a newer request is queued behind us and takes our changes
            changed = self.incremental.take_changed()
            with self._fresh_lock:
                full, self._fresh = self._fresh or self._linter is None, False
            if full:
                self._linter = Linter(self.backend.root, model=_model(self.backend.embedder))
            linter = self._linter
            assert linter is not None
            started = time.perf_counter()
            try:
                report = linter.run(changed)
            except Exception as exc:  # a broken store must not break the pane
                self._linter = None
                self.post_message(self.Linted(None, [], 0.0, None, 0, full, f"lint failed: {exc!r}"))
                return
            ms = (time.perf_counter() - started) * 1000
            # Everything per finding happens here, not on the UI thread: 80k findings take 0.3 s to group.
            haystacks = [haystack(f) for f in report.findings]
            flt = self.filter
            groups = grouped(report.findings, haystacks, flt)
        if not worker.is_cancelled:
            self.post_message(self.Linted(report, haystacks, ms, self.backend.clock(), len(changed), full,
                                          flt=flt, groups=groups, counts=report.counts))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A lint worker ended: "linting…" stays only while another one is on its way."""
        worker = event.worker
        if worker.group != "health-lint" or not worker.is_finished:
            return
        if event.state is WorkerState.ERROR:
            self._last = Text(f"lint failed: {worker.error!r}", style="bold red")
        self.linting = any(w.node is self and w.group == "health-lint" and not w.is_finished for w in self.workers)
        self._show_status()

    def on_health_pane_linted(self, message: Linted) -> None:
        message.stop()
        self.runs += 1
        if message.report is None:
            self._last = Text(message.error, style="bold red")
            self._show_status()
            return
        self.report, self._haystacks = message.report, message.haystacks
        when = ""
        if self.show_timing and message.when is not None:
            local = message.when.astimezone().strftime("%H:%M:%S")
            how = "full lint" if message.full else (
                f"re-lint, {count(message.changed, 'changed file')}"
                if message.changed else "re-lint")
            when = f" · linted {local} in {message.ms:.0f} ms ({how})"
        self._last = Text(" · ".join(count_of(message.counts.get(s, 0), s) for s in SEVERITIES) + when)
        if message.flt == self.filter:
            self._show(message.flt, message.groups)
        else:  # typed while lint ran
            self._refilter()

    def _show_status(self) -> None:
        text = self._last.copy()
        if self.applied.error:
            text = Text(f"filter: {self.applied.error}", style="red")
        elif self.report is not None and self.applied.active:
            shown = sum(len(g.shown) for groups in self.groups.values() for g in groups)
            text.append(f" · showing {shown} of {len(self.report.findings)}", style="bold")
        if self.linting:
            text.append(" · linting…", style="italic")
        status = self.query_one("#health-status", Static)
        status.update(text)
        status.tooltip = text.plain  # cut with "…" on a narrow pane: the whole line on hover

    # -- the tree -------------------------------------------------------------------

    @on(Input.Changed, "#health-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.filter = FindingFilter.parse(event.value)
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(FILTER_DELAY, self._refilter)

    @work(thread=True, exclusive=True, group="health-filter", exit_on_error=False)
    def _refilter(self) -> None:
        """Group the findings under the typed filter off the UI thread."""
        report, haystacks, flt = self.report, self._haystacks, self.filter
        if report is None:
            return
        groups = grouped(report.findings, haystacks, flt)
        if not get_current_worker().is_cancelled:
            self.post_message(self.Filtered(report, flt, groups))

    def on_health_pane_filtered(self, message: Filtered) -> None:
        message.stop()
        if message.report is self.report and message.flt == self.filter:
            self._show(message.flt, message.groups)

    def _show(self, flt: FindingFilter, groups: dict[str, list[Group]]) -> None:
        """Refill the tree with ``groups`` (it keeps opened groups and the cursor)."""
        self.applied = flt
        self.finding_tree.show(groups, "no findings match the filter" if flt.active else "no findings: the memory is clean")
        self._show_status()

    @on(Tree.NodeHighlighted, "#health-findings")
    def _highlighted(self, event: Tree.NodeHighlighted[HealthRef]) -> None:
        """The whole finding (or what a group means) below the tree: rows are cut at the pane's width."""
        event.stop()
        ref = event.node.data
        detail = self.query_one("#health-detail", Static)
        if ref is None or ref.kind in ("none", "more"):
            detail.update(HINT)
        elif ref.kind == "finding" and ref.finding is not None:
            detail.update(finding_detail(ref.finding))
        elif ref.kind == "code":
            detail.update(code_detail(ref.code, self.finding_tree.group(ref)))
        else:
            groups = self.groups.get(ref.severity, [])
            detail.update(Text(f"{count_of(sum(len(g.shown) for g in groups), ref.severity)} in "
                               f"{count(len(groups), 'code')} · enter opens or closes"))

    @on(Tree.NodeSelected, "#health-findings")
    def _selected(self, event: Tree.NodeSelected[HealthRef]) -> None:
        """Enter on a finding (the tree itself opens groups and loads "more…")."""
        event.stop()
        ref = event.node.data
        if ref is not None and ref.kind == "finding" and ref.finding is not None:
            self.open_finding(ref.finding)

    def open_finding(self, finding: Finding) -> None:
        """Go to the finding's place, or say why the app cannot show it."""
        jump = jump_for(finding)
        if jump.kind == "item":
            self.post_message(OpenItem(jump.file, jump.name))
        elif jump.kind == "file":
            self.post_message(OpenRecallFile(jump.file))
        elif jump.kind == "day":
            self.post_message(OpenDiaryDay(jump.date, jump.time))
        elif jump.kind == "journal":
            self.post_message(self.ShowJournal(jump.line))
            self.notify(f"journal.jsonl line {jump.line}: the journal pane lists it as 'line {jump.line}' "
                        "(action filter: malformed)", markup=False)
        else:
            self.notify(jump.note, markup=False)

    # -- the filter box ---------------------------------------------------------------

    def action_filter(self) -> None:
        """Put the focus in the filter box."""
        self.query_one("#health-filter", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape only when there is a filter to leave (else it is the app's)."""
        if action == "leave_filter":
            box = self.query_one("#health-filter", Input)
            return box.has_focus or bool(box.value)
        return True

    def action_leave_filter(self) -> None:
        """Escape: clear the filter and go back to the findings."""
        self.query_one("#health-filter", Input).value = ""
        self.finding_tree.focus()

    @on(Input.Submitted, "#health-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.finding_tree.focus()


def _model(embedder: Any) -> str | None:
    """The embedder's model name, to check the vector cache's stamp (None: unknown)."""
    model = getattr(embedder, "model", None)
    return model if isinstance(model, str) and model else None
