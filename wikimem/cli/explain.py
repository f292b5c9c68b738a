"""``wikimem explain``: why a query recalls what it recalls, as plain text.

The words and the layout (a CLI contract) live in :mod:`wikimem.ranking.explain`;
this module only turns the command line into a ``retrieve`` (or
``why_not``) call. ``wikimem.vectors`` is imported only when ``--embed`` is
given; a failing endpoint degrades to BM25 with a note on stderr, so stdout
keeps the documented layout.
"""

from __future__ import annotations

import argparse
from typing import Any

from wikimem.cli.args import as_of_day, pinned_today
from wikimem.cli.embed import EmbedSetupError, embedder_from
from wikimem.cli.io import Output
from wikimem.ranking.explain import TABLE_HEADER, explain_lines, format_explain, why_not_lines
from wikimem.store import MemoryStore
from wikimem.timeparse import parse_date_span

__all__ = ["TABLE_HEADER", "add_arguments", "format_explain", "run_explain"]


def _floor(text: str) -> float | None | str:
    """``--cos-floor``: a cosine in [-1, 1], ``none`` or ``auto``."""
    lowered = text.strip().lower()
    if lowered in ("none", "off"):
        return None
    if lowered == "auto":
        return "auto"
    try:
        value = float(lowered)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a cosine, 'none' or 'auto': {text!r}") from None
    if not -1.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a cosine lies within [-1, 1], got {text!r}")
    return value


def add_arguments(explain: argparse.ArgumentParser) -> None:
    """This project's extra ``explain`` options (the contract's are in ``cli``)."""
    explain.add_argument(
        "--cos-floor", type=_floor, default="auto", metavar="C|none|auto",
        help="relevance floor (with --embed): the least cosine a candidate without a BM25 "
        "match needs; 'auto' (default) uses the floor calibrated for the model",
    )
    explain.add_argument("--today", type=as_of_day, metavar="YYYY-MM-DD",
                         help="the day relative time words ('last week', 昨天) count from (default: today)")
    explain.add_argument(
        "--why", metavar="FILE:NAME",
        help="explain one item's fate instead: which stage removed it, or where it is "
        "(a diary entry is DAY:HH:MM as the table names it, or 'diary DAY HH:MM' as recall does)",
    )
    explain.add_argument(
        "--diary", dest="search_diary", action="store_true",
        help="search the whole diary beside the wiki, as the agent's recall does "
        "(default: the diary only inside a time window)",
    )


class _SetupError(Exception):
    """An option that cannot be honoured: usage error, exit code 2."""


def _embedder(args: argparse.Namespace) -> Any:
    """The ``--embed`` embedder, built only when asked for (numpy, a model)."""
    try:
        return embedder_from(args)
    except EmbedSetupError as exc:
        raise _SetupError(str(exc)) from None


def _index(store: MemoryStore, args: argparse.Namespace) -> Any:
    """A fresh index over ``store`` with the command line's knobs."""
    from wikimem.retrieval import MemoryIndex

    kwargs: dict[str, Any] = {
        "use_jieba": args.use_jieba,
        "embedder": _embedder(args),
        "cos_floor": getattr(args, "cos_floor", "auto"),
        "analyzer": getattr(args, "analyzer", None),
        "today": pinned_today(getattr(args, "today", None)),
    }
    if args.fusion_weight is not None:
        kwargs["fusion_weight"] = args.fusion_weight
    if args.fusion is not None:
        kwargs["fusion"] = args.fusion
    try:
        return MemoryIndex(store, **kwargs)
    except ValueError as exc:  # e.g. an unknown fusion name
        raise _SetupError(f"bad --fusion: {exc}") from None


def run_explain(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """Run one explained retrieval; exit code 1 when nothing was recalled."""
    time_range = None
    if args.time_range is not None:
        time_range = parse_date_span(args.time_range)
        if time_range is None:
            out.error(f"bad --time-range: {args.time_range!r} (use YYYY-MM-DD or YYYY-MM-DD..YYYY-MM-DD)")
            return 2
    try:
        index = _index(store, args)
    except _SetupError as exc:
        out.error(str(exc))
        return 2
    knobs: dict[str, Any] = {
        "limit": args.limit,
        "budget_tokens": args.budget,
        "expand_links": not args.no_links,
        "time_range": time_range,
        "search_diary": getattr(args, "search_diary", False),
    }
    why_target = getattr(args, "why", None)
    if why_target is not None:
        return _run_why(index, args, why_target, knobs, out)
    result = index.retrieve(args.query, explain=True, **knobs)
    if args.embed and not result.embedding_used:
        out.error("note: embeddings unavailable for this query; ranked with BM25 only")
    if not result.items:
        out.line("no results")
        return 1
    for line in explain_lines(args.query, result):
        out.line(line)
    return 0


def _diary_target(target: str) -> tuple[str, str, str] | None:
    """``diary DAY HH:MM[#n]`` (a diary row as the table names it, pasted back) as ``(DAY, ":", HH:MM[#n])``."""
    words = target.split()
    if len(words) == 3 and words[0] == "diary":
        return words[1], ":", words[2]
    return None


def _run_why(index: Any, args: argparse.Namespace, target: str, knobs: dict[str, Any], out: Output) -> int:
    """``--why FILE:NAME``: exit 0 when recalled, 1 when not (or missing)."""
    file, sep, name = _diary_target(target) or target.partition(":")
    if not sep or not file or not name:
        out.error(f"bad --why: {target!r} (use FILE:NAME, or DAY:HH:MM or 'diary DAY HH:MM' for a diary entry)")
        return 2
    why = index.why_not(args.query, file.strip(), name.strip(), **knobs)
    if args.embed and not why.embedding_used:
        out.error("note: embeddings unavailable for this query; ranked with BM25 only")
    for line in [f"query: {args.query}", *why_not_lines(why, reference=True)]:
        out.line(line)
    return 0 if why.recalled else 1
