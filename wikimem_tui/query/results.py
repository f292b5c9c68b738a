"""How an explained retrieval reads on screen: table rows, the summary, what a row opens.

Pure functions (no widget state) so the panel stays a controller and the
rendering can be tested without an App. Every name, term and link here comes
from memory text an LLM wrote, so all of it is drawn as ``Text`` with control
characters made visible, never parsed as markup.

The words are ``wikimem.explain``'s, the very ones ``wikimem explain``
prints: the table's cells and notes (a link row that is also a hit says
``(via X)  hit #N [terms]``), the query tokens, the time words that chose the
window, the cosine floor, the budget. This module only lays them out and
colours them; it writes no sentence of its own about a result.

Narrow tables (``table.ResultsTable``): below ``COMPACT_BELOW`` columns the
bm25 and cos columns fold away so ``file:name`` and the matched terms keep
their room; ``score`` (the fused score, equal to bm25 when there is no
embedding) stays. Rows always carry all eight cells; a wide table shows them
all.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping

from rich.text import Text
from textual.message import Message

from wikimem import (
    TABLE_HEADER, RetrievalResult, RetrievedItem, agent_text, footer_lines, header_lines, row_fields, row_note,
)
from wikimem_tui.common.messages import OpenDiaryDay, OpenItem
from wikimem_tui.common.safe import clean_line, safe_line
from wikimem_tui.core.words import count

__all__ = ["COLUMNS", "COMPACT_BELOW", "LOW_VALUE", "for_agent", "hit_counts", "is_diary_row", "open_message_for",
           "row_cells", "summary_lines"]

#: The table's columns: explain's header, then the note (matched terms, or where a link came from).
COLUMNS = (*TABLE_HEADER.split(), "terms / via")

#: Tables narrower than this hide the low-value columns (the query pane is 84 wide at 120x40: unchanged).
COMPACT_BELOW = 82
#: Diagnostic columns a narrow table folds away: ``score`` already holds their fusion.
LOW_VALUE = ("bm25", "cos")


_HHMM = re.compile(r"[0-2][0-9]:[0-5][0-9]")


def is_diary_row(entry: RetrievedItem, result: RetrievalResult) -> bool:
    """Whether ``entry`` is a diary entry (``as_recall_item``: file = the day, name = ``HH:MM``).

    Retrieval marks its diary rows with their identity (``entry_id``), which
    settles it. A row without one (built by hand, or by an older library) is
    decided from where such rows can come from, not from the name's shape: a
    hand-edited wiki item may well be called ``a:b``. The diary is searched
    only inside the result's time window and only ranked hits come from it,
    so a diary row is a hit whose file is a real ISO date inside that window
    and whose name is a time.
    """
    if entry.entry_id is not None:
        return True
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


def diary_key(entry: RetrievedItem) -> str:
    """A diary row's ``HH:MM[#n]``: which entry of its minute it is (``14:30#2`` for the second)."""
    return entry.entry_id.key if entry.entry_id is not None else entry.item.name


def open_message_for(entry: RetrievedItem, result: RetrievalResult) -> Message:
    """OpenDiaryDay for a diary row (that very entry highlighted), OpenItem for everything else."""
    item = entry.item
    if is_diary_row(entry, result):
        return OpenDiaryDay(item.file, diary_key(entry))
    return OpenItem(item.file, item.name)


#: Colours of summary lines, by how the line starts (explain's words).
_LINE_STYLES = (
    ("ranking: BM25 + cosine", "green"),
    ("time words:", "cyan"),
    ("cos floor:", "cyan"),
    ("dropped ", "yellow"),
    ("  ", "yellow"),  # one dropped row per line, under "dropped N:"
    ("unresolved links:", "red"),
)


def hit_counts(result: RetrievalResult) -> str:
    """The status line's count: hits (matched the query), rows only a link added, and hits shown as a link row.

    A hit that another hit links to is placed under it with ``link`` in the
    source column: counting it only among the hits read as "0 linked" beside
    a ``link`` row, so the placement is named.
    """
    hits = sum(1 for entry in result.items if entry.rank is not None or entry.source == "hit")
    placed = sum(1 for entry in result.items if entry.rank is not None and entry.source == "link")
    added = len(result.items) - hits
    shown = f" ({placed} shown as a link)" if placed else ""
    return f"{count(hits, 'hit')}{shown}, {added} added by links"


def summary_lines(result: RetrievalResult, *, embedding: str | None = None, failed: bool = False) -> list[Text]:
    """explain's lines around its table (less the query itself, which is in the box above).

    ``embedding`` replaces "off" in the ranking line when an embedder is
    configured but did not rank this query (vectors not ready yet, or
    ``failed``: then the line is red).
    """
    lines = header_lines("", result, embedding=embedding)[1:] + footer_lines(result)
    out = []
    for line in lines:
        style = next((s for start, s in _LINE_STYLES if line.startswith(start)), "")
        if line.startswith("ranking: BM25 (") and embedding:
            style = "bold red" if failed else "yellow"
        out.append(safe_line(line, style))
    return out


def row_cells(position: int | str, entry: RetrievedItem, style: str = "",
              typed: Mapping[str, str] | None = None) -> list[Text]:
    """One table row as explain prints it: its cells (``#`` is the row's place), then its note.

    ``typed``: the result's ``typed_terms``, so matched terms read as the query typed them.
    """
    link = entry.source == "link"
    cells = row_fields(1, entry)
    cells[0] = str(position)
    number, src, score, bm25, cos, tokens, address = cells
    right = [Text(value, style=style, justify="right") for value in (score, bm25, cos, tokens)]
    return [
        Text(number, style=style),
        Text(src, style=f"{style} {'cyan' if link else 'green'}".strip()),
        *right,
        # The two cells that may wrap (``ResultsTable`` gives them the rows they need).
        Text(clean_line(("  " if link else "") + address), style=style, end="", overflow="fold"),
        Text(clean_line(row_note(entry, typed)), style=f"{style} {'italic' if link else ''}".strip(), end="", overflow="fold"),
    ]


def for_agent(result: RetrievalResult | None) -> tuple[str | None, str]:
    """What an agent would be handed for this result (hits and links within the budget), and the note saying so.

    ``(None, why not)`` when there is nothing to copy.
    """
    if result is None or not result.items:
        return None, "nothing to copy: run a query first"
    rows = len(result.items)
    return agent_text(result), f"copied {count(rows, 'row')} (~{result.budget_used} tokens) for an agent"
