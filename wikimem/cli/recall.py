"""``wikimem recall QUERY``: print what an agent is handed for a query (hooks, shell agents).

The text is :func:`wikimem.agent_text`, the very text the MCP server's
``recall`` tool returns, so a hook and an MCP client see the same memory.
Exit 1 with nothing on stdout when nothing was recalled (a hook then adds
nothing to the prompt). The whole diary is searched beside the wiki: what
the agent logged is evidence for its plain questions. ``--fail-open`` turns
every failure into exit 0 with nothing on stdout, so a broken memory never
blocks the agent's prompt.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from wikimem.cli.args import as_of_day, int_at_least, pinned_today
from wikimem.cli.embed import EmbedSetupError, add_embed_options, embed_for_a_while, embedder_from
from wikimem.cli.io import Output, read_hook_input
from wikimem.cli.write import BAD_INPUT, NOT_FOUND, Failure, fail
from wikimem.timeparse import parse_window
from wikimem.store import MemoryStore

__all__ = ["register", "run_recall"]

def register(commands: Any, table: dict[str, Callable[..., int]],
             add_store_option: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``recall`` to the parser and the command table."""
    recall = commands.add_parser("recall", help="print what an agent is handed for a query (hits + links)")
    recall.add_argument("query", metavar="QUERY", nargs="?", help="the query (or --from-hook)")
    recall.add_argument("--budget", type=int_at_least(0), default=800, metavar="N",
                        help="token budget (default 800; 0: the first item only)")
    recall.add_argument("--limit", type=int_at_least(1), default=10, metavar="N", help="ranked hits (default 10)")
    recall.add_argument("--time-range", metavar="A[..B]",
                        help="diary window: YYYY-MM-DD, YYYY-MM-DD..YYYY-MM-DD, or time words "
                             "('last week', 2026-07, 'in May 2023'; counted from --today)")
    recall.add_argument("--today", type=as_of_day, metavar="YYYY-MM-DD",
                        help="the day relative time words ('last week', 昨天) count from (default: today)")
    recall.add_argument("--owner", metavar="O", help="only items whose owner is O")
    recall.add_argument("--source", metavar="S", help="only items whose source_conv is S (ending in ':': a prefix)")
    recall.add_argument("--after", metavar="WHEN", help="only items written at or after WHEN (YYYY-MM-DD or ISO time)")
    recall.add_argument("--before", metavar="WHEN", help="only items written before WHEN (YYYY-MM-DD or ISO time)")
    recall.add_argument("--tag", action="append", default=[], metavar="TAG",
                        help="only items of RecallFiles whose frontmatter tags hold TAG (repeatable: all of them)")
    recall.add_argument("--no-diary", dest="search_diary", action="store_false",
                        help="search the diary only inside a time window (default: the whole diary)")
    recall.add_argument("--from-hook", action="store_true",
                        help="read the query from a hook's JSON on stdin (its 'prompt' field)")
    recall.add_argument("--fail-open", action="store_true",
                        help="on any failure print nothing and exit 0 (for hooks)")
    recall.add_argument("--json", action="store_true", help="print one JSON document: text and rows")
    add_embed_options(recall, what="recall")
    add_store_option(recall)
    table["recall"] = run_recall


def _hook_query() -> str:
    try:
        payload = read_hook_input()
    except ValueError as exc:
        raise Failure(BAD_INPUT, str(exc)) from None
    prompt = payload.get("prompt") if isinstance(payload, dict) else None
    if not isinstance(prompt, str):
        raise Failure(BAD_INPUT, "hook input has no 'prompt' string")
    return prompt


def _recall(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    from wikimem.ranking.agent_text import agent_rows, agent_text
    from wikimem.ranking.where import Where
    from wikimem.retrieval import MemoryIndex

    if args.from_hook == (args.query is not None):
        raise Failure(BAD_INPUT, "give a QUERY or --from-hook (not both)")
    query = _hook_query() if args.from_hook else args.query
    span = None
    if args.time_range is not None:
        span = parse_window(args.time_range, today=args.today)
        if span is None:
            raise Failure(BAD_INPUT, f"bad --time-range: {args.time_range!r} "
                                     f"(use YYYY-MM-DD, YYYY-MM-DD..YYYY-MM-DD or time words like 'last week')")
    try:
        where = Where(args.owner, args.source, args.after, args.before, tuple(args.tag))
        embedder = embedder_from(args)
    except (ValueError, EmbedSetupError) as exc:
        raise Failure(BAD_INPUT, str(exc)) from None
    # The vector cache is written: the next recall embeds only what changed.
    index = MemoryIndex(store, today=pinned_today(args.today), embedder=embedder, vector_sync="manual")
    said: list[str] = []
    if embedder is not None:
        embed_for_a_while(index, said.append)
    result = index.retrieve(query, limit=args.limit, budget_tokens=args.budget, time_range=span,
                            search_diary=args.search_diary, where=where)
    if embedder is not None and not result.embedding_used and not said:
        said.append(f"warning: embeddings ({embedder!r}) unavailable for this query; ranked with BM25 only")
    for line in said:
        out.error(f"wikimem recall: {line}")
    if args.json:
        out.json({"ok": True, "query": query, "text": agent_text(result), "items": agent_rows(result),
                  "budget_tokens": result.budget_tokens, "budget_used": result.budget_used,
                  "unresolved_links": result.unresolved_links,
                  "time_range": list(result.time_range) if result.time_range else None})
        return 0 if result.items else NOT_FOUND
    if not result.items:
        out.error("wikimem: nothing recalled")
        return NOT_FOUND
    out.write(agent_text(result))  # terminal-safe: control characters escaped (--json keeps them exact)
    return 0


def run_recall(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """Run ``recall``; with ``--fail-open`` every failure is exit 0 and an empty stdout."""
    try:
        code = _recall(store, args, out)
    except Failure as exc:
        code = fail(args, out, exc.code, str(exc)) if not args.fail_open else _quiet(out, str(exc))
    except (OSError, ValueError) as exc:  # an unreadable store, a bad name deep down
        code = fail(args, out, BAD_INPUT, str(exc)) if not args.fail_open else _quiet(out, str(exc))
    return 0 if args.fail_open else code


def _quiet(out: Output, message: str) -> int:
    out.error(f"wikimem recall: {message} (fail-open: nothing recalled)")
    return 0
