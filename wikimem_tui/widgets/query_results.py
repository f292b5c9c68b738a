"""How an explained retrieval reads on screen: table rows, the summary, what a row opens.

Pure functions (no widget state) so the panel stays a controller and the
rendering can be tested without an App. Every name, term and link here comes
from memory text an LLM wrote, so all of it is drawn as ``Text`` with control
characters made visible, never parsed as markup.

Narrow tables (``fit_columns``): below ``COMPACT_BELOW`` columns the bm25
and cos columns fold away (width 0) so ``file:name`` and the matched terms
keep their room; ``score`` (the fused score, equal to bm25 when there is no
embedding) stays. The columns are kept, not removed, because rows always
carry all eight cells; a wide table looks exactly as before.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import DataTable

from wikimem import RetrievalResult, RetrievedItem
from wikimem_tui.messages import OpenDiaryDay, OpenItem
from wikimem_tui.safe import safe_line

__all__ = ["COMPACT_BELOW", "agent_text", "fit_columns", "is_diary_row", "open_message_for", "row_cells",
           "summary_lines"]

#: Tables narrower than this hide the low-value columns (the query pane is 84 wide at 120x40: unchanged).
COMPACT_BELOW = 82
#: Diagnostic columns a narrow table folds away: ``score`` already holds their fusion.
LOW_VALUE = ("bm25", "cos")


_HHMM = re.compile(r"[0-2][0-9]:[0-5][0-9]")


def is_diary_row(entry: RetrievedItem, result: RetrievalResult) -> bool:
    """Whether ``entry`` is a diary entry (``as_recall_item``: file = the day, name = ``HH:MM``).

    Decided from where such rows can come from, not from the name's shape: a
    hand-edited wiki item may well be called ``a:b``. The diary is searched
    only inside the result's time window and only ranked hits come from it,
    so a diary row is a hit whose file is a real ISO date inside that window
    and whose name is a time.
    """
    if entry.source != "hit" or result.time_range is None:
        return False
    day, name = entry.item.file, entry.item.name
    try:
        if dt.date.fromisoformat(day).isoformat() != day:
            return False
    except ValueError:
        return False
    start, end = result.time_range
    return start <= day <= end and _HHMM.fullmatch(name) is not None


def open_message_for(entry: RetrievedItem, result: RetrievalResult) -> Message:
    """OpenDiaryDay for a diary row, OpenItem for everything else."""
    item = entry.item
    if is_diary_row(entry, result):
        return OpenDiaryDay(item.file, item.name)
    return OpenItem(item.file, item.name)


def agent_text(result: RetrievalResult) -> str:
    """The result as the text an agent is handed: every row kept within the budget, in order.

    One markdown section per row (``## file:name``, or ``## diary DAY HH:MM``
    for a diary entry; a link row says which hit pulled it in), then the
    content verbatim. Dropped rows are left out: that is what the budget is
    for. Plain text for the clipboard, never rendered.
    """
    parts = []
    for entry in result.items:
        item = entry.item
        if is_diary_row(entry, result):
            head = f"## diary {item.file} {item.name}"
        else:
            head = f"## {item.file}:{item.name}"
        if entry.source == "link" and entry.via:
            head += f" (linked from {entry.via})"
        parts.append(f"{head}\n{item.content.strip()}\n")
    return "\n".join(parts)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _address(entry: RetrievedItem) -> str:
    return f"{entry.item.file}:{entry.item.name}"


def fit_columns(table: DataTable[Any], width: int) -> bool:
    """Fold the low-value columns away when ``width`` is narrow, unfold them when wide.

    Returns True when the table is compact. Column content widths keep being
    measured while folded, so unfolding restores the exact wide layout.
    """
    compact = width < COMPACT_BELOW
    changed = False
    for column in table.columns.values():
        if column.label.plain in LOW_VALUE and column.auto_width == compact:
            column.auto_width, column.width = not compact, 0
            changed = True
    if changed and table.row_count:
        # A same-value update is the public way to make the table re-measure and re-render.
        row_key = next(iter(table.rows))
        column_key = next(iter(table.columns))
        table.update_cell(row_key, column_key, table.get_cell(row_key, column_key), update_width=True)
    elif changed:
        table.refresh()
    return compact


def summary_lines(result: RetrievalResult, *, embedder_configured: bool) -> list[Text]:
    """Budget, dropped rows, unresolved links, the time gate and the ranking used."""
    budget = "no limit" if result.budget_tokens is None else str(result.budget_tokens)
    lines = [Text(f"budget: used {result.budget_used} / {budget}")]
    if result.dropped:
        dropped = Text(f"dropped {len(result.dropped)}: ", style="yellow")
        parts = [
            safe_line(f"{_address(e)} ({e.source}, ~{e.tokens_est} tok)") for e in result.dropped
        ]
        lines.append(dropped + Text(", ").join(parts))
    if result.unresolved_links:
        unresolved = Text("unresolved links: ", style="red")
        lines.append(unresolved + safe_line(", ".join(result.unresolved_links)))
    if result.time_range is None:
        gate = "time gate: none (whole store)"
    else:
        start, end = result.time_range
        gate = f"time gate: {start if start == end else f'{start}..{end}'}"
        gate += f"  [{result.time_range_source}]"
        if result.time_range_widened:
            gate += " (widened: window was empty)"
    lines.append(Text(gate))
    if result.embedding_used:
        lines.append(Text("ranking: BM25 + cosine (fused) · embedding: on", style="green"))
    elif embedder_configured:
        lines.append(Text("ranking: embedding: failed → BM25 only", style="bold red"))
    else:
        lines.append(Text("ranking: BM25 (embedding: off)"))
    return lines


def row_cells(rank: str, entry: RetrievedItem, style: str = "") -> list[Text]:
    """One table row: rank, source, scores, tokens, address, matched terms or ``via``."""
    link = entry.source == "link"
    tail = f"via {entry.via}" if link else ", ".join(entry.matched_terms)
    return [
        Text(rank, style=style),
        Text(entry.source, style=f"{style} {'cyan' if link else 'green'}".strip()),
        Text(_num(entry.score), style=style, justify="right"),
        Text(_num(entry.bm25_score), style=style, justify="right"),
        Text(_num(entry.cos_score), style=style, justify="right"),
        Text(str(entry.tokens_est), style=style, justify="right"),
        safe_line(("  " if link else "") + _address(entry), style),
        safe_line(tail, f"{style} {'italic' if link else ''}".strip()),
    ]
