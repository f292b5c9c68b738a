"""The data types every layer shares.

They are plain dataclasses so that a memory read from disk, a memory about to
be written and a retrieval result are all ordinary values: comparable, easy
to print, free of any handle back to the files they came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from wikimem.disk.days import TimeRange
from wikimem.disk.entry_id import EntryId
from wikimem.disk.links import WikiLink, find_links

__all__ = [
    "DiaryItem",
    "FloorSource",
    "EntryId",
    "RecallItem",
    "RetrievalResult",
    "RetrievedItem",
    "TimeRange",
    "WikiLink",
    "as_recall_item",
]


#: Where a relevance floor came from (``RetrievalResult.cos_floor_source``).
FloorSource = Literal["explicit", "off", "embedder", "calibrated"]


def item_text(name: str, content: str) -> str:
    """An item's searchable text, ``name + "\\n" + content``: what BM25 indexes and what is embedded.

    The one definition: the index, the vector cache's row hashes and lint's
    staleness check all build it here, so they cannot drift apart.
    """
    return f"{name}\n{content}"


class _Linked:
    """The ``links`` property wiki items and diary entries share.

    A plain mixin (no fields) so each dataclass keeps its own positional
    field order: ``RecallItem(file, name, content, …)``,
    ``DiaryItem(date, time, content, …)``.
    """

    content: str

    def _here(self) -> str | None:
        """The RecallFile a same-file link (``[[#name]]``) points into: none for a diary entry."""
        return None

    @property
    def links(self) -> list[WikiLink]:
        """Well-formed item links in the content, in order: ``[[file:name]]`` and Obsidian's ``[[file#name]]``.

        A link to a whole RecallFile (``[[file]]``) addresses no item and is
        not listed (:func:`wikimem.find_links` has it).
        """
        return [WikiLink(ref.file, ref.name) for ref in find_links(self.content, here=self._here())
                if ref.name is not None]


@dataclass
class RecallItem(_Linked):
    """One ``## name`` block of a RecallFile: a single memory in the wiki."""

    file: str
    name: str
    content: str
    owner: str | None = None
    source_conv: str | None = None
    ts: str | None = None

    def _here(self) -> str | None:
        return self.file


@dataclass
class DiaryItem(_Linked):
    """One ``## HH:MM`` block of a day file: an event, never edited by the API.

    ``ordinal`` is this project's addition (last, with a default, so the
    reference's ``DiaryItem(date, time, content, owner, source_conv, ts)``
    still builds one): the entry's 1-based place among the day's entries
    with the same ``HH:MM``, filled in by every read of the diary. With the
    day and the minute it is the entry's identity, :attr:`entry_id`
    (see :mod:`wikimem.disk.entry_id`): two entries of one minute differ in it.
    """

    date: str
    time: str
    content: str
    owner: str | None = None
    source_conv: str | None = None
    ts: str | None = None
    ordinal: int = 1

    @property
    def entry_id(self) -> EntryId:
        """Which entry this is: ``EntryId(date, time, ordinal)``, rendered ``2026-07-21 14:30#2``."""
        return EntryId(self.date, self.time, self.ordinal)


def as_recall_item(entry: DiaryItem) -> RecallItem:
    """A diary entry as a retrievable item: file = the day, name = ``HH:MM``."""
    return RecallItem(entry.date, entry.time, entry.content, entry.owner, entry.source_conv, entry.ts)


@dataclass
class RetrievedItem:
    """One row of a retrieval: the item plus why it is there.

    ``source`` is ``"hit"`` for a ranked match and ``"link"`` for a one-hop
    expansion, whose ``via`` names the hit that pulled it in. ``rank`` is the
    row's place among the ranked hits (``None`` for a pure link target): an
    item appears once, so a hit that an earlier hit links to is shown as that
    hit's ``"link"`` row but keeps its own rank, scores and matched terms.
    """

    item: RecallItem
    source: Literal["hit", "link"]
    score: float
    bm25_score: float = 0.0
    cos_score: float | None = None
    via: str | None = None
    #: What the item's file neighbours added to its lexical score, and the best of them (``file:name``).
    context_score: float = 0.0
    context_via: str | None = None
    matched_terms: list[str] = field(default_factory=list)
    tokens_est: int = 0
    rank: int | None = None
    entry_id: EntryId | None = None
    """Set on a diary row only: which entry of the day it is.

    ``as_recall_item`` names a diary row by day and ``HH:MM``, which two
    entries of one minute share; this tells them apart (and tells a diary
    row from a wiki item, whatever the item's names look like).
    """

    @property
    def is_hit(self) -> bool:
        """Whether the item was ranked (a ``"hit"`` row, or a link row that is also a hit)."""
        return self.rank is not None


@dataclass
class RetrievalResult:
    """Everything ``MemoryIndex.retrieve`` decided, for the caller and for explain.

    The fields after ``time_range_widened`` are this project's additions
    (drop-in compatible: they all have defaults). ``query_tokens`` are the
    tokens that were scored: the query's minus ``time_words``, which chose the
    diary window and so do not also vote as search words. ``cos_floor`` is the
    relevance floor applied to candidates without a BM25 match, from
    ``cos_floor_source``, and ``below_floor`` counts those it removed (set only
    when embeddings ranked the query). ``analyzer``, ``stop_words`` and
    ``stemmed`` say what the English analyzer did to the query.
    """

    items: list[RetrievedItem] = field(default_factory=list)
    budget_tokens: int | None = None
    budget_used: int = 0
    embedding_used: bool = False
    dropped: list[RetrievedItem] = field(default_factory=list)
    unresolved_links: list[str] = field(default_factory=list)
    time_range: TimeRange | None = None
    time_range_source: Literal["explicit", "parsed"] | None = None
    time_range_widened: bool = False
    query_tokens: list[str] = field(default_factory=list)
    time_words: list[str] = field(default_factory=list)
    cos_floor: float | None = None
    cos_floor_source: FloorSource | None = None
    below_floor: int = 0
    analyzer: str = ""
    stop_words: list[str] = field(default_factory=list)
    stemmed: dict[str, str] = field(default_factory=dict)
    #: Each scored term (``query_tokens``: maybe a stem, ``sunris``) -> the word as the query typed it
    #: (``sunrise``, lowercased): what a front end shows a person (:meth:`typed`).
    typed_terms: dict[str, str] = field(default_factory=dict)

    def typed(self, terms: list[str]) -> list[str]:
        """``terms`` (a row's ``matched_terms``, ``query_tokens``) as the query typed them, in order."""
        return [self.typed_terms.get(term, term) for term in terms]
