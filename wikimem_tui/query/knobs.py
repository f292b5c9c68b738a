"""The query panel's knobs: limit, budget, links, diary, tokenizer, fusion weight, cos floor, time range.

A widget of its own so the panel only hears *meaningful* changes: every
control's raw ``Changed`` event stops here and becomes one of four messages
(query knobs changed, fusion weight changed, cos floor changed, tokenizer
changed -- jieba or the English analyzer, both of which rebuild the index). The cos floor knob (``auto``, ``off`` or a cosine) exists only
when an embedder is configured: without embeddings there is no floor. The
tokenizer knob starts at the index's real mode and a change to the mode
already in force (the knob being set back after a failed switch) is dropped,
so only a user's click or space rebuilds the index. It is a checkbox, not a
dropdown: two modes need no menu, and a menu opened over the status line
and the first result rows.

Reading the knobs is pure (``params``): bad values raise ``ValueError`` with a
message for the status line, and time words resolve against the backend's
pinned ``today``, never the real clock. The fusion weight and the cos floor
apply to the index when typed, so a bad one cannot stop the query: it is
*not used*, the index keeps the value in force, and ``ignored`` says so for
as long as the box holds it -- the box is tinted, its tooltip and every
status line of the panel name the value typed and the one in use.

The diary knob (checked, the default) searches the whole diary beside the
wiki, as the agent's recall does (``retrieve(search_diary=True)``);
unchecked, the diary only inside a time window, as the reference library.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.events import Resize
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label

from wikimem import TimeRange, parse_window
from wikimem_tui.common.fit_input import FitInput

__all__ = ["KnobError", "QueryKnobs", "QueryParams", "parse_floor"]

FLOOR_HELP = "cos floor: auto, off, or a cosine within [-1, 1]"
#: The analyzers (``wikimem.analyzer``) that stem, and each one's twin with stemming toggled (stop words kept as set).
_STEMMING = ("en", "stem")
_STEM_TOGGLED = {"en": "stop", "stem": "none", "stop": "en", "none": "stem"}


def parse_floor(text: str) -> float | str | None:
    """The cos floor knob's value as ``MemoryIndex.set_cos_floor`` takes it; ``ValueError`` if bad."""
    lowered = text.strip().lower()
    if lowered in ("", "auto"):
        return "auto"
    if lowered in ("off", "none"):
        return None
    try:
        value = float(lowered)
    except ValueError:
        raise ValueError(FLOOR_HELP) from None
    if not -1.0 <= value <= 1.0:  # also rejects NaN
        raise ValueError(FLOOR_HELP)
    return value


class KnobError(ValueError):
    """A knob's value stops the query; ``knob`` is the id of its box (marked with ``blocking``)."""

    def __init__(self, knob: str, message: str) -> None:
        super().__init__(message)
        self.knob = knob


def _typed(value: str) -> str:
    """A knob's text as the status line quotes it."""
    return value.strip() or "(empty)"


@dataclass(frozen=True)
class QueryParams:
    """Everything one retrieval is run with (knobs included)."""

    query: str = ""
    limit: int = 10
    budget: int | None = None
    expand_links: bool = True
    time_range: TimeRange | None = None
    #: The whole diary (True, as the agent's recall) or only a time window's entries.
    search_diary: bool = True


class QueryKnobs(Widget):
    """The knob grid under the query box (three columns when narrow)."""

    DEFAULT_CSS = """
    QueryKnobs {
        layout: grid; height: auto; grid-size: 8; grid-columns: 13 15 11 11 11 8 14 1fr; grid-gutter: 0 1;
    }
    QueryKnobs.-embed { grid-size: 9; grid-columns: 13 15 11 11 11 8 14 13 1fr; }
    QueryKnobs.-narrow { grid-size: 3; grid-columns: 14 15 1fr; }
    /* Narrow without the floor knob, time would sit in the 15-cell column and cut its hint: it takes the rest. */
    QueryKnobs .-span { column-span: 2; }
    QueryKnobs Horizontal { height: 1; }
    QueryKnobs Label { padding: 0 1 0 0; color: $text-muted; }
    QueryKnobs Input { width: 1fr; }
    /* Textual's focused checkbox draws a tall border, which in one row hides the label. */
    QueryKnobs Checkbox, QueryKnobs Checkbox:focus { border: none; padding: 0; height: 1; }
    QueryKnobs Checkbox:focus > .toggle--label { text-style: bold reverse; }
    QueryKnobs Input.-ignored { background-tint: $error 35%; }
    """

    class Changed(Message):
        """limit, budget, links or time changed: re-run the query."""

    class FusionChanged(Message):
        """A valid fusion weight was typed (``weight`` is within [0, 1])."""

        def __init__(self, weight: float) -> None:
            super().__init__()
            self.weight = weight

    class FloorChanged(Message):
        """A valid cos floor was typed: a cosine, ``None`` (off) or ``"auto"``."""

        def __init__(self, floor: float | str | None) -> None:
            super().__init__()
            self.floor = floor

    class TokenizerChanged(Message):
        """The user picked another tokenizer or English analyzer than the one in force."""

        def __init__(self, use_jieba: bool, analyzer: str | None = None) -> None:
            super().__init__()
            self.use_jieba = use_jieba
            self.analyzer = analyzer
            """The analyzer asked for (a ``wikimem.analyzer`` name); None: unchanged."""

    class Invalid(Message):
        """A knob holds a value that cannot be used (``text`` says why)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(
        self, *, use_jieba: bool, fusion: float | None, floor: str | None = None, id: str | None = None,
        analyzer: str = "stem",
    ) -> None:
        super().__init__(id=id, classes="-embed" if floor is not None else None)
        self.use_jieba = use_jieba
        """The tokenizer of the index in force (a Select event for it is not a change)."""
        self.analyzer = analyzer
        """The English analyzer of the index in force (``wikimem.analyzer``)."""
        self._fusion = fusion
        self._floor = floor
        self.ignored: dict[str, str] = {}
        """Knob id -> why its typed value is not used and which is (fusion, floor); empty: all in use."""

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Label("limit")
            # Empty is valid (the default); without valid_empty Textual marks it invalid on blur.
            yield FitInput("10", type="integer", valid_empty=True, compact=True, id="query-limit")
        with Horizontal():
            yield Label("budget")
            yield FitInput(placeholder="none", type="integer", valid_empty=True, compact=True, id="query-budget")
        with Horizontal():
            yield Checkbox("links", True, id="query-links", tooltip="add the items hits link to")
        with Horizontal():
            yield Checkbox("diary", True, id="query-diary",
                           tooltip="search the whole diary, as the agent's recall does (checked), "
                                   "or only a time window's entries")
        with Horizontal():
            yield Checkbox("jieba", self.use_jieba, id="query-jieba",
                           tooltip="Chinese tokens: jieba words (checked) or character bigrams (fast, the default)")
        with Horizontal():
            yield Checkbox("stem", self.analyzer in _STEMMING, id="query-analyzer",
                           tooltip="English words: stemmed, so 'running' finds 'runs' (checked), or matched as typed")
        with Horizontal():
            yield Label("fusion")
            enabled = self._fusion is not None
            yield FitInput(
                str(self._fusion) if enabled else "", placeholder="w" if enabled else "off", compact=True,
                id="query-fusion",
                disabled=not enabled, tooltip="BM25's share in the fused score" if enabled else "needs an embedder",
            )
        if self._floor is not None:  # only with embeddings: the floor is a cosine's
            with Horizontal():
                yield Label("floor")
                yield FitInput(self._floor, placeholder="auto", compact=True, id="query-floor",
                            tooltip="cos floor for items without a BM25 match: auto (the model's), off, or a cosine")
        with Horizontal(id="knob-time"):
            yield Label("time")
            yield FitInput(placeholder="last week, A..B, 昨天", compact=True, id="query-time",
                           tooltip="a window: a date, a month, A..B, or words (last week, in May 2023, 昨天)")

    def on_resize(self, event: Resize) -> None:
        """Two lines of knobs when narrow (the result table folds its own columns: ``table``)."""
        narrow = event.size.width < 96
        self.set_class(narrow, "-narrow")
        # Narrow, the time knob lands in the 15-cell middle column unless the floor knob takes that place.
        self.query_one("#knob-time").set_class(narrow and self._floor is None, "-span")

    def params(self, query: str, today: dt.date) -> QueryParams:
        """The knobs' values for ``query``; ``ValueError`` names the bad knob."""
        limit_text = self.query_one("#query-limit", Input).value.strip()
        budget_text = self.query_one("#query-budget", Input).value.strip()
        try:
            limit = int(limit_text or "10")
        except ValueError:
            raise KnobError("query-limit", "limit and budget must be whole numbers") from None
        try:
            budget = int(budget_text) if budget_text else None
        except ValueError:
            raise KnobError("query-budget", "limit and budget must be whole numbers") from None
        if limit < 1:
            raise KnobError("query-limit", "limit and budget must be positive")
        if budget is not None and budget < 1:
            raise KnobError("query-budget", "limit and budget must be positive")
        time_text = self.query_one("#query-time", Input).value.strip()
        time_range = None
        if time_text:
            time_range = parse_window(time_text, today=today)
            if time_range is None:
                raise KnobError("query-time", f"bad time range {time_text!r}: use YYYY-MM-DD, A..B or a time word")
        expand = self.query_one("#query-links", Checkbox).value
        diary = self.query_one("#query-diary", Checkbox).value
        return QueryParams(query=query, limit=limit, budget=budget, expand_links=expand, time_range=time_range,
                           search_diary=diary)

    def blocking(self, knob: str | None) -> None:
        """Tint the box of the knob that stops the query (``KnobError.knob``), untint the others."""
        for box_id in ("query-limit", "query-budget", "query-time"):
            self.query_one(f"#{box_id}", Input).set_class(box_id == knob, "-ignored")

    def set_tokenizer(self, use_jieba: bool, analyzer: str | None = None) -> None:
        """Show ``use_jieba`` (and ``analyzer``) as in force (after a swap, or to undo a failed one)."""
        self.use_jieba = use_jieba
        self.query_one("#query-jieba", Checkbox).value = use_jieba
        if analyzer is not None:
            self.analyzer = analyzer
            self.query_one("#query-analyzer", Checkbox).value = analyzer in _STEMMING

    @on(Input.Changed, "#query-limit, #query-budget, #query-time")
    @on(Checkbox.Changed, "#query-links, #query-diary")
    def _knob_changed(self, event: Message) -> None:
        event.stop()
        self.post_message(self.Changed())

    @on(Input.Changed, "#query-fusion")
    def _fusion_changed(self, event: Input.Changed) -> None:
        event.stop()
        try:
            weight = float(event.value)
        except ValueError:
            weight = -1.0
        if 0.0 <= weight <= 1.0:
            self._fusion = weight
            self._ignore(event.input, None)
            self.post_message(self.FusionChanged(weight))
        else:
            self._ignore(event.input, f"fusion {_typed(event.value)} not used: a weight between 0 and 1 "
                                      f"(ranking with {self._fusion})")

    @on(Input.Changed, "#query-floor")
    def _floor_changed(self, event: Input.Changed) -> None:
        event.stop()
        try:
            floor = parse_floor(event.value)
        except ValueError:
            self._ignore(event.input, f"floor {_typed(event.value)} not used: {FLOOR_HELP} "
                                      f"(ranking with {self._floor or 'auto'})")
            return
        self._floor = event.value.strip() or "auto"
        self._ignore(event.input, None)
        self.post_message(self.FloorChanged(floor))

    def _ignore(self, box: Input, problem: str | None) -> None:
        """Mark ``box`` as holding a value that is not used (``problem`` says why), or as in use."""
        knob = box.id or ""
        was = self.ignored.pop(knob, None)
        if problem is not None:
            self.ignored[knob] = problem
        box.set_class(problem is not None, "-ignored")
        if problem is not None or was is not None:
            box.tooltip = problem
            self.post_message(self.Invalid(problem or ""))

    @on(Checkbox.Changed, "#query-jieba")
    def _tokenizer_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        use_jieba = event.value
        if use_jieba != self.use_jieba:
            self.use_jieba = use_jieba  # asked for; set_tokenizer() undoes it if the swap fails
            self.post_message(self.TokenizerChanged(use_jieba))

    @on(Checkbox.Changed, "#query-analyzer")
    def _analyzer_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        if event.value != (self.analyzer in _STEMMING):
            self.analyzer = _STEM_TOGGLED[self.analyzer]  # asked for; set_tokenizer() undoes a failure
            self.post_message(self.TokenizerChanged(self.use_jieba, self.analyzer))
