"""Health pane: cheap consistency checks over the memory, each finding jumps to its place.

This is a stand-in data source until ``wikimem lint`` exists: it computes only
what the public API can tell (dangling links, names that would not pass
validation, journal lines that are not JSON). ``collect_findings`` is the one
function to replace; the pane only needs ``Finding`` rows. Checks read every
file, so they run in a thread worker and never on the event loop.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Static

from wikimem import sanitize_item_name, validate_file
from wikimem_tui.messages import OpenItem, StoreChange
from wikimem_tui.safe import safe_line
from wikimem_tui.widgets.journal_reader import JournalFollower

__all__ = ["Finding", "HealthPane", "collect_findings"]

SEVERITY_STYLES = {"error": "bold red", "warning": "yellow", "info": "blue"}


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@dataclass(frozen=True)
class Finding:
    """One problem: stable code, severity, where, what; ``file``/``name`` to open it."""

    code: str
    severity: str
    location: str
    message: str
    file: str | None = None
    name: str | None = None


def collect_findings(backend: Any) -> list[Finding]:
    """Run every check; errors first, then by location."""
    store = backend.store
    findings: list[Finding] = []
    items = store.items()
    known = {(item.file, item.name) for item in items}
    for file in store.files():
        try:
            validate_file(file)
        except ValueError as exc:
            findings.append(Finding("bad-file-name", "error", f"wiki/{file}.md", str(exc)))
    for item in items:
        where = f"{item.file}:{item.name}"
        try:
            if sanitize_item_name(item.name) != item.name:
                raise ValueError("name is not normalized (whitespace)")
        except ValueError as exc:
            findings.append(Finding("bad-item-name", "error", where, str(exc), item.file, item.name))
        for link in item.links:
            try:
                target = (link.file, sanitize_item_name(link.name))
            except ValueError:
                target = (link.file, link.name)
            if target not in known:
                message = f"links to {link.render()}, which does not exist"
                findings.append(
                    Finding("dangling-link", "warning", where, message, item.file, item.name)
                )
    _, rows = JournalFollower(backend.journal_path).poll()
    for row in rows:
        if row.malformed:
            findings.append(
                Finding("journal-not-json", "warning", f"journal.jsonl:{row.lineno}", row.raw[:120])
            )
    order = {"error": 0, "warning": 1, "info": 2}
    findings.sort(key=lambda f: (order.get(f.severity, 3), f.location))
    return findings


class HealthPane(Widget):
    """Findings table; enter/click on one opens the item it is about."""

    DEFAULT_CSS = """
    HealthPane { height: 1fr; }
    HealthPane #health-status { height: 1; color: $text-muted; }
    HealthPane #health-findings { height: 1fr; }
    HealthPane #health-detail { height: auto; max-height: 4; background: $boost; padding: 0 1; }
    """

    BINDINGS = [Binding("r", "recheck", "Re-check", id="health.recheck")]

    class Checked(Message):
        """Findings computed by the worker."""

        def __init__(self, findings: list[Finding], ms: float, error: str = "") -> None:
            super().__init__()
            self.findings, self.ms, self.error = findings, ms, error

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.findings: list[Finding] = []
        """The findings on screen."""
        self.show_timing = True
        """Show how long the checks took (snapshot tests turn it off)."""
        self._stale = True

    def compose(self) -> ComposeResult:
        yield Static(Text("checking…"), id="health-status", markup=False)
        yield DataTable(id="health-findings", cursor_type="row")
        yield Static(Text("↑/↓ highlight a finding to read it whole here · enter opens its item", style="dim"),
                     id="health-detail", markup=False)

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("severity", "code", "location", "message")

    def on_show(self) -> None:
        # Checks read every file: run them when the pane is looked at, not at
        # launch, where they would compete with the index build for the GIL.
        if self._stale:
            self.action_recheck()

    def refresh_from_store(self, change: StoreChange | None = None) -> None:
        """Re-run the checks after any change (now if on screen, else when next shown)."""
        self._stale = True
        if self.is_on_screen:
            self.action_recheck()

    def action_recheck(self) -> None:
        """Run the checks again (in a worker)."""
        self._stale = False
        self.query_one("#health-status", Static).update(Text("checking…"))
        self._check()

    @work(thread=True, exclusive=True, group="health")
    def _check(self) -> None:
        started = time.perf_counter()
        try:
            findings = collect_findings(self.app.backend)  # type: ignore[attr-defined]
        except Exception as exc:  # a broken store must not break the pane
            self.post_message(self.Checked([], 0.0, f"checks failed: {exc!r}"))
            return
        self.post_message(self.Checked(findings, (time.perf_counter() - started) * 1000))

    def on_health_pane_checked(self, message: Checked) -> None:
        message.stop()
        self.findings = message.findings
        table = self.query_one(DataTable)
        table.clear()
        for i, f in enumerate(message.findings):
            table.add_row(
                Text(f.severity, style=SEVERITY_STYLES.get(f.severity, "")),
                Text(f.code),
                safe_line(f.location),
                safe_line(f.message),
                key=str(i),
            )
        counts = {s: sum(1 for f in message.findings if f.severity == s) for s in SEVERITY_STYLES}
        timing = f" · checked in {message.ms:.0f} ms" if self.show_timing else ""
        status = message.error or (
            f"{_count(len(message.findings), 'finding')} ({_count(counts['error'], 'error')}, "
            f"{_count(counts['warning'], 'warning')}){timing}"
        )
        self.query_one("#health-status", Static).update(Text(status))

    @on(DataTable.RowHighlighted, "#health-findings")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The whole finding below the table: its columns cut long locations and messages."""
        event.stop()
        key = event.row_key.value
        if key is None or not key.isdigit() or int(key) >= len(self.findings):
            return
        f = self.findings[int(key)]
        text = Text.assemble((f.severity, SEVERITY_STYLES.get(f.severity, "")), " ", (f.code, "bold"), " ",
                             safe_line(f.location, "cyan"), "\n")
        text.append_text(safe_line(f.message))
        self.query_one("#health-detail", Static).update(text)

    @on(DataTable.RowSelected, "#health-findings")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        if key is None:
            return
        finding = self.findings[int(key)]
        if finding.file is not None and finding.name is not None:
            self.post_message(OpenItem(finding.file, finding.name))
