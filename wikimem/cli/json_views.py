"""``--json`` on the read verbs (``ls``, ``show``, ``grep``, ``explain``, ``graph``): data for programs.

The text layouts of these verbs are a compatibility contract and stay as
they are; ``--json`` is the form for a hook or an agent that parses the
output: one JSON document on stdout, always (a failure is ``{"ok": false,
"error": …, "message": …}`` with the verb's usual exit code), memory text
byte-exact (control characters as ``\\uXXXX`` escapes, see
:func:`wikimem.cli.io.json_text`). ``lint`` has had ``--json`` all along.

The option is added to the existing sub-parsers and each verb's runner is
wrapped, so the text verbs' modules need not know about JSON.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import Any

from wikimem.cli.io import Output
from wikimem.cli.write import BAD_INPUT, NOT_FOUND, fail
from wikimem.disk.blocks import read_blocks
from wikimem.disk.tolerant import UnreadableError
from wikimem.store import MemoryStore

__all__ = ["register"]

Runner = Callable[[MemoryStore, argparse.Namespace, Output], int]


def _item(item: Any) -> dict[str, Any]:
    return {"file": item.file, "name": item.name, "content": item.content, "owner": item.owner,
            "source_conv": item.source_conv, "ts": item.ts}


def _entry(entry: Any) -> dict[str, Any]:
    return {"date": entry.date, "time": entry.time, "entry": entry.entry_id.key, "content": entry.content,
            "owner": entry.owner, "source_conv": entry.source_conv, "ts": entry.ts}


def ls_json(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """``ls --json``: ``{"files": [{"file", "items"}]}``."""
    out.json({"ok": True, "files": [{"file": f, "items": len(store.items(f))} for f in store.files()]})
    return 0


def show_json(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """``show --json``: a RecallFile's items (or one), or a diary day's entries."""
    file, name = args.file, args.name
    if file not in store.files():
        try:
            entries = store.diary.day(file)
        except ValueError:
            entries = []
        if name is not None:
            wanted = name.strip()
            entries = [e for e in entries if e.entry_id.key == wanted or e.time == wanted
                       or f"{e.time}#{e.ordinal}" == wanted]
        if not entries:
            return fail(args, out, NOT_FOUND, f"no such file: {file}" if name is None else f"no item: {file}:{name}")
        out.json({"ok": True, "date": file, "entries": [_entry(e) for e in entries]})
        return 0
    try:
        read_blocks(store.file_path(file))
    except UnreadableError as exc:  # listed, but nothing of it can be read (see ``show``)
        return fail(args, out, BAD_INPUT, f"wiki/{file}.md {exc.strerror}")
    if name is None:
        items = store.items(file)
    else:
        item = store.get(file, name)
        if item is None:
            return fail(args, out, NOT_FOUND, f"no item: {file}:{name}")
        items = [item]
    out.json({"ok": True, "file": file, "items": [_item(item) for item in items]})
    return 0


def grep_json(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """``grep --json``: every match as ``{file, name, field, line, text}`` (``line`` 1-based in the content)."""
    try:
        regex = re.compile(args.pattern, re.IGNORECASE if args.ignore_case else 0)
    except re.error as exc:
        return fail(args, out, BAD_INPUT, f"bad pattern: {exc}")
    matches: list[dict[str, Any]] = []
    for file in store.files():
        for item in store.items(file):
            if regex.search(item.name):
                matches.append({"file": file, "name": item.name, "field": "name", "line": None, "text": item.name})
            for number, line in enumerate(item.content.splitlines(), 1):
                if regex.search(line):
                    matches.append({"file": file, "name": item.name, "field": "content", "line": number,
                                    "text": line})
    out.json({"ok": True, "matches": matches})
    return 0 if matches else 1


def _row(entry: Any) -> dict[str, Any]:
    from wikimem.ranking.agent_text import agent_label

    return {"label": agent_label(entry), **_item(entry.item), "source": entry.source, "rank": entry.rank,
            "score": entry.score, "bm25": entry.bm25_score, "cos": entry.cos_score, "via": entry.via,
            "matched_terms": entry.matched_terms, "tokens": entry.tokens_est,
            "entry": entry.entry_id.key if entry.entry_id is not None else None}


def explain_json(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """``explain --json``: the retrieval with every score, dropped row and unresolved link (``--why``: the verdict)."""
    import dataclasses

    from wikimem.cli.explain import _index, _SetupError
    from wikimem.disk.days import parse_date_span

    span = None
    if args.time_range is not None:
        span = parse_date_span(args.time_range)
        if span is None:
            return fail(args, out, BAD_INPUT, f"bad --time-range: {args.time_range!r}")
    try:
        index = _index(store, args)
    except _SetupError as exc:
        return fail(args, out, BAD_INPUT, str(exc))
    knobs = {"limit": args.limit, "budget_tokens": args.budget, "expand_links": not args.no_links,
             "time_range": span}
    if getattr(args, "why", None) is not None:
        file, sep, name = args.why.partition(":")
        if not sep or not file or not name:
            return fail(args, out, BAD_INPUT, f"bad --why: {args.why!r} (use FILE:NAME)")
        why = index.why_not(args.query, file.strip(), name.strip(), **knobs)
        fields = {f.name: getattr(why, f.name) for f in dataclasses.fields(why) if f.name != "result"}
        out.json({"ok": True, "query": args.query, "why": fields})
        return 0 if why.recalled else 1
    result = index.retrieve(args.query, explain=True, **knobs)
    out.json({
        "ok": True, "query": args.query, "query_tokens": result.query_tokens, "time_words": result.time_words,
        "embedding_used": result.embedding_used, "analyzer": result.analyzer,
        "time_range": list(result.time_range) if result.time_range else None,
        "time_range_source": result.time_range_source, "time_range_widened": result.time_range_widened,
        "items": [_row(entry) for entry in result.items], "dropped": [_row(entry) for entry in result.dropped],
        "budget_tokens": result.budget_tokens, "budget_used": result.budget_used,
        "unresolved_links": result.unresolved_links,
    })
    return 0 if result.items else 1


def graph_json(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """``graph --json``: the document of ``--format json`` (kept as the reference prints it), with ``ok``."""
    from wikimem.cli.graph import graph_json as document

    out.json({"ok": True, **document(store)}, indent=2)
    return 0


_VIEWS: dict[str, Runner] = {"ls": ls_json, "show": show_json, "grep": grep_json, "explain": explain_json,
                             "graph": graph_json}


def _either(text: Runner, data: Runner) -> Runner:
    text = getattr(text, "text_runner", text)  # the parser is built per call: wrap the text runner once

    def run(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
        return data(store, args, out) if getattr(args, "json", False) else text(store, args, out)

    run.text_runner = text  # type: ignore[attr-defined]
    return run


def register(commands: Any, table: dict[str, Callable[..., int]],
             add_store_option: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``--json`` to the read verbs' parsers and route it to the JSON views."""
    for verb, view in _VIEWS.items():
        commands.choices[verb].add_argument("--json", action="store_true",
                                            help="print one JSON document (memory text byte-exact)")
        table[verb] = _either(table[verb], view)
