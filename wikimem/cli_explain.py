"""``wikimem explain``: why a query recalls what it recalls, as plain text.

The layout is part of the CLI contract (scripts and tests parse it), so it
is spelled out line by line in ``format_explain`` and kept literal: the
table header is exactly ``#  src  score  bm25  cos  ~tok  item`` and every
row joins its fields with the same two spaces. Rows are deliberately *not*
padded into columns: padding would have to change the contract's header
whenever a value is wider than its header word (``link`` under ``src``, a
five-character ``0.532`` under ``cos``), and a fixed two-space join is what
a ``split()`` or a substring check on either line relies on.

Embeddings are optional and expensive to set up (numpy, a model or an HTTP
endpoint), so ``wikimem.vectors`` is imported only when ``--embed`` is given;
a failing endpoint degrades to BM25 exactly as in the library, with a note on
stderr so stdout keeps the documented layout.
"""

from __future__ import annotations

import argparse
from typing import Any

from wikimem.cli_io import Output
from wikimem.models import RetrievalResult, RetrievedItem
from wikimem.store import MemoryStore
from wikimem.timeparse import parse_date_span
from wikimem.tokenize import tokenize

__all__ = ["TABLE_HEADER", "format_explain", "run_explain"]

TABLE_HEADER = "#  src  score  bm25  cos  ~tok  item"

def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _address(entry: RetrievedItem) -> str:
    return f"{entry.item.file}:{entry.item.name}"


def _row(position: int, entry: RetrievedItem) -> str:
    fields = [
        str(position),
        entry.source,
        _number(entry.score),
        _number(entry.bm25_score),
        _number(entry.cos_score),
        str(entry.tokens_est),
        _address(entry),
    ]
    if entry.source == "link":
        tail = f"  (via {entry.via})"
    else:
        tail = f"  [{', '.join(entry.matched_terms)}]"
    return "  ".join(fields) + tail


def _time_gate(result: RetrievalResult) -> str:
    if result.time_range is None:
        return "time gate: none (whole store)"
    start, end = result.time_range
    span = start if start == end else f"{start}..{end}"
    line = f"time gate: {span}  [{result.time_range_source}]"
    if result.time_range_widened:
        line += " (widened: window was empty)"
    return line


def format_explain(query: str, tokens: list[str], result: RetrievalResult) -> list[str]:
    """The report's lines, in the documented order (the caller prints them)."""
    lines = [
        f"query: {query}",
        f"query tokens: {', '.join(tokens) if tokens else '(none)'}",
        "ranking: BM25 + cosine (fused)" if result.embedding_used
        else "ranking: BM25 (embedding: off)",
        _time_gate(result),
        TABLE_HEADER,
    ]
    lines.extend(_row(position, entry) for position, entry in enumerate(result.items, 1))
    budget = "no limit" if result.budget_tokens is None else str(result.budget_tokens)
    lines.append(f"budget: used {result.budget_used} / {budget}")
    if result.dropped:
        lines.append(f"dropped {len(result.dropped)}:")
        lines.extend(
            f"  {_address(entry)} ({entry.source}, ~{entry.tokens_est} tok)"
            for entry in result.dropped
        )
    if result.unresolved_links:
        lines.append(f"unresolved links: {', '.join(result.unresolved_links)}")
    return lines


class _SetupError(Exception):
    """An option that cannot be honoured: usage error, exit code 2."""


def _embedder(args: argparse.Namespace) -> Any:
    """The ``--embed`` embedder, built only when asked for (numpy, a model)."""
    if not args.embed:
        return None
    try:
        from wikimem.vectors import make_embedder
    except ImportError as exc:
        raise _SetupError(f"embeddings unavailable: {exc}") from None
    try:
        return make_embedder(args.embed, model=args.embed_model, api_key_env=args.embed_key_env)
    except (ValueError, KeyError, ImportError, OSError, RuntimeError) as exc:
        raise _SetupError(f"bad --embed: {exc}") from None


def _index(store: MemoryStore, args: argparse.Namespace) -> Any:
    """A fresh index over ``store`` with the command line's knobs."""
    from wikimem.retrieval import MemoryIndex

    kwargs: dict[str, Any] = {"use_jieba": args.use_jieba, "embedder": _embedder(args)}
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
    result = index.retrieve(
        args.query,
        limit=args.limit,
        budget_tokens=args.budget,
        expand_links=not args.no_links,
        explain=True,
        time_range=time_range,
    )
    if args.embed and not result.embedding_used:
        out.error("note: embeddings unavailable for this query; ranked with BM25 only")
    if not result.items:
        out.line("no results")
        return 1
    for line in format_explain(args.query, tokenize(args.query, use_jieba=args.use_jieba), result):
        out.line(line)
    return 0
