"""An item's history from git: its past versions, a diff against the current text, and restore.

The versions come from ``wikimem_tui.core.git_history`` (real git in a thread
worker: ``git log --follow`` and ``git cat-file``, parsed with the library's
block parser), newest first, consecutive identical versions collapsed. The
highlighted version is compared with the item as it is now (a unified diff,
``-`` the version, ``+`` now) and shown whole with its owner and source.
``r`` (or enter) restores it through ``Backend.restore``: one checked write
(``expected`` = the current text shown), journaled with the commit it came
from, undone by ``ctrl+z``. A deleted item can be brought back the same way.
Without git the screen says how to enable history. Commit subjects and
author names are untrusted text, shown through ``wikimem_tui.common.safe``.
"""

from __future__ import annotations

import difflib
import re

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from wikimem import ConflictError, RecallItem
from wikimem_tui.common.dialog import Dialog
from wikimem_tui.core.backend import Backend, ReadOnlyError
from wikimem_tui.core.git_history import GitUnavailable, History, Version, diff_lines, item_history
from wikimem_tui.common.safe import safe_line, safe_text
from wikimem_tui.common.confirm import ConfirmScreen
from wikimem_tui.core.words import count

__all__ = ["HistoryScreen", "diff_text", "version_label"]


def version_label(version: Version, current: RecallItem | None) -> Text:
    """``date  commit  author  subject`` on one line, and whether it is the current text."""
    text = Text(version.date[:16].replace("T", " "), style="bold", end="")
    text.append("  ")
    text.append(version.short, style="yellow")
    text.append("  ")
    text.append_text(safe_line(version.author[:24], "cyan"))
    text.append("  ")
    text.append_text(safe_line(version.subject[:60]))
    if version.commits > 1:
        text.append(f"  (unchanged through {count(version.commits - 1, 'later commit')})",
                    style="dim")
    if current is not None and _same(version.item, current):
        text.append("  = current", style="bold green")
    return text


def _same(a: RecallItem, b: RecallItem) -> bool:
    return (a.content, a.owner, a.source_conv) == (b.content, b.owner, b.source_conv)


def diff_text(version: Version, current: RecallItem | None) -> Text:
    """The unified diff from ``version`` to the current item, coloured; provenance changes first."""
    out = Text(end="")
    item = version.item
    if current is None:
        out.append("The item does not exist now: restoring brings it back as below.\n", style="bold")
    else:
        for label, old, new in (("owner", item.owner, current.owner), ("source", item.source_conv, current.source_conv)):
            if old != new:
                out.append_text(safe_line(f"{label}: {old or '-'} → now {new or '-'}", "bold"))
                out.append("\n")
    lines = diff_lines(item.content, current.content if current else None, f"version {version.short}", "now")
    if current is not None and not lines:
        out.append("The content is the same as now.\n", style="dim")
    rendered = []
    for line in lines:
        style = ("green" if line.startswith("+") else "red" if line.startswith("-") else
                 "cyan" if line.startswith("@@") else "")
        if line.startswith(("+++", "---")):
            style = "bold"
        rendered.append(safe_line(line, style))
    _mark_changed_words(lines, rendered)
    for text in rendered:
        out.append_text(text)
        out.append("\n")
    return out


_TOKEN_RE = re.compile(r"\s+|\w+|[^\w\s]")


def _mark_changed_words(lines: list[str], rendered: list[Text]) -> None:
    """Where n removed lines are followed by n added ones, highlight the words that changed in each pair.

    A one-line item edited in one word otherwise shows as two long lines to
    compare by eye. Lines holding hidden characters are left plain (their
    shown text is longer than the text, so offsets would not match).
    """
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and lines[j].startswith("-") and not lines[j].startswith("---"):
            j += 1
        k = j
        while k < len(lines) and lines[k].startswith("+") and not lines[k].startswith("+++"):
            k += 1
        if j > i and k - j == j - i:
            for old, new in zip(range(i, j), range(j, k)):
                _highlight_pair(lines[old], lines[new], rendered[old], rendered[new])
        i = max(k, i + 1)


def _highlight_pair(old: str, new: str, old_text: Text, new_text: Text) -> None:
    if old_text.plain != old or new_text.plain != new:
        return
    a, b = _TOKEN_RE.findall(old[1:]), _TOKEN_RE.findall(new[1:])
    starts_a = [1 + sum(len(t) for t in a[:n]) for n in range(len(a) + 1)]
    starts_b = [1 + sum(len(t) for t in b[:n]) for n in range(len(b) + 1)]
    for tag, a1, a2, b1, b2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if a2 > a1:
            old_text.stylize("bold reverse", starts_a[a1], starts_a[a2])
        if b2 > b1:
            new_text.stylize("bold reverse", starts_b[b1], starts_b[b2])


class HistoryScreen(Dialog[RecallItem | None]):
    """Versions of ``file:name`` from git; r restores the highlighted one; dismisses with the item written."""

    HELP_TITLE = "History (git)"

    DEFAULT_CSS = """
    HistoryScreen { align: center middle; }
    HistoryScreen > Vertical { width: 120; max-width: 98%; height: 94%; border: thick $primary; background: $surface;
                               padding: 0 1; }
    HistoryScreen #history-title { text-style: bold; height: auto; }
    HistoryScreen #history-status { color: $text-muted; height: auto; }
    HistoryScreen OptionList { height: auto; max-height: 40%; border: round $panel; }
    HistoryScreen #history-detail { height: 1fr; border: round $panel; }
    HistoryScreen #history-error { color: $error; height: auto; }
    HistoryScreen #history-hint { color: $text-muted; height: auto; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="history.close"),
        Binding("r", "restore", "Restore version", id="history.restore"),
    ]

    def __init__(self, backend: Backend, file: str, name: str) -> None:
        super().__init__()
        self.backend = backend
        self.file, self.item_name = file, name
        self.history: History | None = None
        self.current: RecallItem | None = None
        """The item as it is now (read with the history): a restore's ``expected``."""
        self.versions: list[Version] = []
        self.loaded = False
        """True once git answered (or said why it cannot); tests wait on it."""
        self._restore_asked = False
        """r (or enter) came before git answered: the question is asked as soon as the versions are in."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(safe_line(f"History of {self.file}:{self.item_name}", "bold"), id="history-title")
            yield Static(Text("asking git…", style="italic"), id="history-status")
            yield OptionList(id="history-versions")
            with VerticalScroll(id="history-detail"):
                yield Static(id="history-diff")
            yield Static(id="history-error")
            yield Static(Text("↑/↓ pick a version · r (or enter) restores it (checked, ctrl+z undoes) · "
                              "tab scrolls the diff · escape closes"), id="history-hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._read()

    @work(thread=True, exclusive=True, group="history", exit_on_error=False)
    def _read(self) -> None:
        worker = get_current_worker()
        current = self.backend.store.get(self.file, self.item_name)
        try:
            history: History | GitUnavailable = item_history(self.backend.root, self.file, self.item_name)
        except GitUnavailable as exc:
            history = exc
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, history, current)

    def _show(self, history: History | GitUnavailable, current: RecallItem | None) -> None:
        self._fill(history, current)
        if not self.versions:  # nothing to pick or restore: the keys that would do it are not offered
            self.query_one("#history-hint", Static).update(Text("escape closes"))
            self.refresh_bindings()
        if self._restore_asked:
            self._restore_asked = False
            self.action_restore()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """No restore once git said there is no version to restore."""
        return not (action == "restore" and self.loaded and not self.versions)

    def _fill(self, history: History | GitUnavailable, current: RecallItem | None) -> None:
        self.current = current
        status = self.query_one("#history-status", Static)
        options = self.query_one(OptionList)
        options.clear_options()
        self.loaded = True
        if isinstance(history, GitUnavailable):
            self.history, self.versions = None, []
            options.display = False
            status.update(safe_line(str(history), "bold"))
            self.query_one("#history-diff", Static).update(safe_text(history.hint))
            return
        self.history, self.versions = history, history.versions
        if history.unborn:
            options.display = False
            status.update(Text("No history yet: the repository has no commit.", style="bold"))
            self.query_one("#history-diff", Static).update(safe_text(self._commit_hint(
                "History starts with the first commit of the memory directory")))
            return
        n = len(history.versions)
        where = ("the memory directory" if history.repo.resolve() == self.backend.root.resolve()
                 else str(history.repo))
        line = safe_line(f"{count(n, 'version')} in {count(history.commits_read, 'commit')} of {history.path} "
                         f"(repository: {where})")
        if history.truncated:
            line.append(f" — only the newest {history.commits_read} commits were read", style="yellow")
        if current is not None and (not history.versions or not _same(history.versions[0].item, current)):
            line.append(" — the current text is not committed yet", style="yellow")
        status.update(line)
        for version in history.versions:
            options.add_option(Option(version_label(version, current)))
        if history.versions:
            options.highlighted = 0
            self._show_version(0)
        else:
            options.display = False  # an empty bordered list reads as something failed to load
            self.query_one("#history-diff", Static).update(safe_text(self._commit_hint(
                "git has no committed version of this item yet: commit the memory directory to start its history")))

    def _commit_hint(self, why: str) -> str:
        """``why``, then the command that starts (or continues) the history, to copy."""
        root = self.backend.root
        return (f"{why}:\n    git -C {root} add -A && git -C {root} commit -m 'memory'\n"
                "then commit again whenever you want a version kept.")

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_version(event.option_index)

    def _show_version(self, index: int) -> None:
        if not 0 <= index < len(self.versions):
            return
        version = self.versions[index]
        body = diff_text(version, self.current)
        body.append("\n")
        body.append(f"Version {version.short} in full", style="bold underline")
        body.append("\n")
        item = version.item
        body.append_text(safe_line(f"owner {item.owner or '-'} · source {item.source_conv or '-'} · "
                                   f"ts {item.ts or '-'} · {version.path}", "dim"))
        body.append("\n\n")
        body.append_text(safe_text(item.content))
        self.query_one("#history-diff", Static).update(body)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_restore()

    @work(exclusive=True, group="history-restore")
    async def action_restore(self) -> None:
        """Ask, then write the highlighted version back, checked against the text shown as current."""
        error = self.query_one("#history-error", Static)
        error.update("")
        if not self.loaded:  # a key faster than git: ask once the versions are listed, never drop it
            self._restore_asked = True
            error.update(Text("still asking git for the versions: the restore asks as soon as they are listed",
                              style="italic"))
            return
        index = self.query_one(OptionList).highlighted
        if index is None or not 0 <= index < len(self.versions):
            error.update(Text("no version to restore"))
            return
        version = self.versions[index]
        if self.backend.read_only:
            error.update(Text("read-only (--read-only): restoring would write to the memory; nothing written"))
            return
        if self.current is not None and _same(version.item, self.current):
            error.update(Text("that version is the current text: nothing to restore"))
            return
        question = safe_line(f"Restore {self.file}:{self.item_name} to version {version.short} "
                             f"({version.date[:10]})?")
        question.append("\nOne checked write, journaled; ctrl+z undoes it.", style="dim")
        if not await self.app.push_screen_wait(ConfirmScreen(question, yes="Restore")):
            return
        label = f"version {version.short} from git ({version.date[:10]})"
        try:
            item = self.backend.restore(version.item, expected=self.current.content if self.current else None,
                                        label=label)
        except ConflictError:
            error.update(Text("nothing written: the item changed on disk since it was shown; "
                              "the history is read again — check the diff and restore again"))
            self.loaded = False
            self._read()
            return
        except (ReadOnlyError, ValueError) as exc:
            error.update(safe_line(f"nothing written: {exc}"))
            return
        self.dismiss(item)

    def action_close(self) -> None:
        """Close; nothing was written."""
        self.dismiss(None)
