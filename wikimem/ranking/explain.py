"""The words that explain a retrieval, written once for every front end.

Design constraint: the CLI's ``wikimem explain`` and an app's query pane
must say the same thing about the same result, so every sentence lives here
and both call these functions (:func:`explain_lines`, or its parts for a
front end that lays the table out itself, and :func:`why_not_lines`).

The layout is part of the CLI contract (scripts and tests parse it): lines
``query:``, ``query tokens:``, ``ranking:`` and ``time gate:`` first, in
that order; then this project's extra lines only when they apply; then the
table with the header words ``#  src  score  bm25  cos  ~tok  item`` and one
field under each, at least two spaces apart (a parser splits on runs of two
or more; an item name may hold one space). A link row says ``(via <hit
name>)`` and, when the linked item is itself a ranked hit, ``hit #N``, so it
is never mistaken for an unranked neighbour. A diary row keeps the reference
CLI's spelling, ``2026-07-21:14:30``. Why aligned:
``docs/adr/0020-explain-table.md``; why that name: ``docs/adr/0023-whole-diary-recall.md``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from wikimem.index.terms.analyzer import FALLBACK_NOTE
from wikimem.models import RetrievalResult, RetrievedItem
from wikimem.ranking.why_not import WhyNot

__all__ = [
    "TABLE_HEADER",
    "analyzer_line",
    "explain_lines",
    "footer_lines",
    "format_explain",
    "header_lines",
    "ranking_line",
    "row_fields",
    "row_line",
    "row_note",
    "table_lines",
    "why_not_lines",
]

TABLE_HEADER = "#  src  score  bm25  cos  ~tok  item"


def number(value: float | None) -> str:
    """A score as explain prints it: three decimals, ``-`` when absent."""
    return "-" if value is None else f"{value:.3f}"


def address(entry: RetrievedItem, *, reference: bool = False) -> str:
    """``file:name``; a diary row as recall and the app name it, ``diary DAY HH:MM``, or (``reference``) ``DAY:HH:MM``.

    ``reference`` is explain's text: the reference CLI's spelling, which
    scripts parse. A later entry of a shared minute adds its ordinal
    (``diary 2026-07-21 14:30#2``, ``2026-07-21:14:30#2``;
    ``wikimem.disk.entry_id``), so two rows of one minute never read the
    same; a minute's first entry is the reference's text byte for byte.
    """
    if entry.entry_id is not None:
        if reference:
            return f"{entry.item.file}:{entry.entry_id.key}"
        return f"diary {entry.item.file} {entry.entry_id.key}"
    return f"{entry.item.file}:{entry.item.name}"


def display_width(text: str) -> int:
    """Terminal cells ``text`` takes: wide and full-width characters two, combining marks none.

    The core has no dependencies, so this is the East Asian Width table
    from ``unicodedata``: enough to line up Chinese, Japanese and Korean
    names with Latin ones (emoji sequences may still be off by a cell).
    """
    return sum(0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in "WF" else 1
               for char in text)


def _pad(text: str, width: int, right: bool = False) -> str:
    gap = " " * max(0, width - display_width(text))
    return gap + text if right else text + gap


#: A diary entry's "file" (its day) and "name" (``HH:MM[#n]``), as ``why_not`` tells them from wiki items.
_DIARY_FILE, _DIARY_NAME = re.compile(r"\d{4}-\d{2}-\d{2}"), re.compile(r"\d{2}:\d{2}(?:#\d+)?")
#: The columns printed right-aligned: the numbers.
_RIGHT = frozenset({"score", "bm25", "cos", "~tok"})


def table_lines(result: RetrievalResult) -> list[str]:
    """The header and one row per item, their columns aligned (each row's note after the item column)."""
    words = TABLE_HEADER.split()
    rows = [row_fields(position, entry, reference=True) + [row_note(entry, result.typed_terms)]
            for position, entry in enumerate(result.items, 1)]
    widths = [max([display_width(word)] + [display_width(row[i]) for row in rows]) for i, word in enumerate(words)]
    out = []
    for row in [[*words, ""], *rows]:
        cells = [_pad(cell, width, word in _RIGHT) for cell, width, word in zip(row, widths, words)]
        out.append("  ".join([*cells, row[-1]]).rstrip())
    return out


def row_fields(position: int, entry: RetrievedItem, *, reference: bool = False) -> list[str]:
    """The table cells of one row, in header order (``reference``: a diary row as explain's text names it, see :func:`address`)."""
    return [
        str(position),
        entry.source,
        number(entry.score),
        number(entry.bm25_score),
        number(entry.cos_score),
        str(entry.tokens_est),
        address(entry, reference=reference),
    ]


def _terms(entry: RetrievedItem, typed: Mapping[str, str] | None) -> str:
    words = entry.matched_terms if not typed else [typed.get(term, term) for term in entry.matched_terms]
    return f"[{', '.join(words)}]"


def row_note(entry: RetrievedItem, typed: Mapping[str, str] | None = None) -> str:
    """What follows a row's cells: its matched terms (and file context), or where a link came from.

    ``typed`` (a result's ``typed_terms``) shows each matched term as the
    query typed it (``sunrise``, not the stem ``sunris``): a person reads
    the words they wrote, as the reference, which did not stem, printed them.
    """
    if entry.source != "link":
        return _terms(entry, typed) + _context(entry)
    note = f"(via {entry.via})"
    if entry.rank is not None:
        note += f"  hit #{entry.rank} {_terms(entry, typed)}{_context(entry)}"
    return note


def _context(entry: RetrievedItem) -> str:
    """File context's share of the score (:mod:`wikimem.ranking.context`), and the neighbour it came from."""
    if entry.context_score <= 0:
        return ""
    return f"  context +{number(entry.context_score)} next to {entry.context_via}"


def row_line(position: int, entry: RetrievedItem) -> str:
    """One table row alone: its fields two spaces apart (the CLI aligns them with the others: :func:`table_lines`)."""
    return "  ".join(row_fields(position, entry, reference=True)) + "  " + row_note(entry)


def _time_gate(result: RetrievalResult) -> str:
    if result.time_range is None:
        return "time gate: none (whole store)"
    start, end = result.time_range
    span = start if start == end else f"{start}..{end}"
    line = f"time gate: {span}  [{result.time_range_source}]"
    if result.time_range_widened:
        line += " (widened: window was empty)"
    return line


def _cos_floor(result: RetrievalResult) -> str | None:
    if not result.embedding_used:
        return None
    below = f"; {result.below_floor} below it" if result.below_floor else ""
    if result.cos_floor is None and result.cos_floor_source == "off":
        return f"cos floor: off (positive cosine only){below}"
    if result.cos_floor is None:
        return f"cos floor: none known for this model (positive cosine only; set --cos-floor){below}"
    return (
        f"cos floor: {result.cos_floor:.3f} [{result.cos_floor_source}] "
        f"for candidates without a BM25 match{below}"
    )


def ranking_line(result: RetrievalResult, embedding: str | None = None) -> str:
    """How the rows were ranked; ``embedding`` says why an embedder that is configured did not rank them."""
    if result.embedding_used:
        return "ranking: BM25 + cosine (fused)"
    return f"ranking: BM25 (embedding: {embedding or 'off'})"


def header_lines(
    query: str, result: RetrievalResult, tokens: list[str] | None = None, *, embedding: str | None = None
) -> list[str]:
    """The lines before the table: the query, its scored tokens, the ranking and gates.

    ``embedding``: see :func:`ranking_line` (e.g. an app whose vectors are
    still being embedded says so instead of "off").
    """
    shown = result.query_tokens if tokens is None else tokens
    lines = [
        f"query: {query}",
        f"query tokens: {', '.join(shown) if shown else '(none)'}",
        ranking_line(result, embedding),
        _time_gate(result),
    ]
    if result.time_words:
        lines.append(f"time words: {', '.join(result.time_words)} (chose the window; not scored)")
    analyzer = analyzer_line(result)
    if analyzer is not None:
        lines.append(analyzer)
    floor = _cos_floor(result)
    if floor is not None:
        lines.append(floor)
    return lines


def analyzer_line(result: RetrievalResult) -> str | None:
    """Which analyzer made the query's terms and what it changed; None when it changed nothing.

    ``query tokens`` lists the terms as scored (stems); this line maps them
    back to the words typed, so a stem like ``coffe`` is never a mystery.
    """
    if not result.analyzer:
        return None
    notes = []
    if result.stemmed:
        notes.append("stemmed " + ", ".join(f"{token}->{term}" for token, term in result.stemmed.items()))
    if result.stop_words:
        notes.append("stop words dropped: " + ", ".join(dict.fromkeys(result.stop_words)))
    if not notes and FALLBACK_NOTE not in result.analyzer:
        return None
    return "analyzer: " + "; ".join([result.analyzer, *notes])


def footer_lines(result: RetrievalResult) -> list[str]:
    """The lines after the table: budget, what it dropped, unresolved links."""
    budget = "no limit" if result.budget_tokens is None else str(result.budget_tokens)
    lines = [f"budget: used {result.budget_used} / {budget}"]
    if result.dropped:
        lines.append(f"dropped {len(result.dropped)}:")
        lines.extend(f"  {address(entry, reference=True)} ({entry.source}, ~{entry.tokens_est} tok)" for entry in result.dropped)
    if result.unresolved_links:
        lines.append(f"unresolved links: {', '.join(result.unresolved_links)}")
    return lines


def explain_lines(query: str, result: RetrievalResult, tokens: list[str] | None = None) -> list[str]:
    """The whole report for ``result`` (retrieved with ``explain=True``), line by line.

    ``tokens`` overrides the ``query tokens`` line (default: the tokens
    that were scored, ``result.query_tokens``).
    """
    return [
        *header_lines(query, result, tokens),
        *table_lines(result),
        *footer_lines(result),
    ]


def format_explain(query: str, tokens: list[str], result: RetrievalResult) -> list[str]:
    """:func:`explain_lines` under its original name and signature."""
    return explain_lines(query, result, tokens)


def why_not_lines(why: WhyNot, *, reference: bool = False) -> list[str]:
    """:meth:`MemoryIndex.why_not`'s answer as text: the verdict, then the evidence.

    A diary entry is ``diary DAY HH:MM`` as recall names it, or (``reference``,
    explain's text) ``DAY:HH:MM``.
    """
    diary = _DIARY_FILE.fullmatch(why.file) and _DIARY_NAME.fullmatch(why.name)
    named = f"diary {why.file} {why.name}" if diary and not reference else f"{why.file}:{why.name}"
    lines = [f"item: {named}", f"verdict: {why.stage} -- {why.reason}"]
    if why.stage == "missing":
        return lines
    rank = "-" if why.bm25_rank is None else f"#{why.bm25_rank}"
    lines.append(f"bm25: {number(why.bm25_score)} (rank {rank})")
    if why.context_score > 0:
        lines.append(f"file context: +{number(why.context_score)} (next to {why.context_via})")
    if why.embedding_used:
        lines.append(f"cos: {number(why.cos_score)}")
    if why.score is not None:
        lines.append(f"score: {number(why.score)}")
    words = _typed(why.result)
    lines.append(f"matched tokens: {_readable(why.matched_terms, words)}")
    lines.append(f"missing tokens: {_readable(why.missing_terms, words)}")
    return lines


def _typed(result: RetrievalResult) -> dict[str, list[str]]:
    """Stem -> the query words it came from (only where the analyzer changed them)."""
    words: dict[str, list[str]] = {}
    for token, term in result.stemmed.items():
        words.setdefault(term, []).append(token)
    return words


def _readable(terms: list[str], words: dict[str, list[str]]) -> str:
    """Terms as scored, each stem followed by the query words it stands for: ``coffe (coffee)``."""
    if not terms:
        return "(none)"
    return ", ".join(f"{t} ({'/'.join(words[t])})" if t in words else t for t in terms)
