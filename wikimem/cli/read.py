"""The read verbs, ``ls``, ``show`` and ``grep``: a memory directory as its files say.

``show`` prints what the strict writer would write now (so the output is a
well-formed RecallFile that says where it came from), ``grep`` searches the
wiki only; the decisions behind both are in :mod:`wikimem.cli`.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import Path

from wikimem.cli.io import Output
from wikimem.disk.blocks import Block, read_blocks, render_file
from wikimem.disk.tolerant import UnreadableError
from wikimem.models import DiaryItem, RecallItem
from wikimem.store import MemoryStore

__all__ = ["grep_lines", "run_grep", "run_ls", "run_show"]


def run_ls(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """``ls``: ``<file>  <count>`` per RecallFile."""
    for file in store.files():
        out.line(f"{file}  {len(store.items(file))}")
    return 0


def _render_items(title: str, items: Sequence[RecallItem | DiaryItem]) -> str:
    """``title`` and the items' blocks, exactly as the strict writer lays them out."""
    blocks = [
        Block(
            item.name if isinstance(item, RecallItem) else item.time,
            item.content,
            owner=item.owner,
            source_conv=item.source_conv,
            ts=item.ts,
        )
        for item in items
    ]
    return render_file(title, blocks)


def _whole_file_title(path: Path, default: str) -> str:
    # The writers keep a hand-written preamble (title, notes) and only give a
    # new file "# name", so the whole-file view does the same.
    try:
        return read_blocks(path).preamble or default
    except UnreadableError:
        return default


def _names_entry(entry: DiaryItem, wanted: str) -> bool:
    """``HH:MM`` names every entry of that minute, ``HH:MM#n`` one (``wikimem.disk.entry_id``)."""
    if "#" not in wanted:
        return entry.time == wanted
    return entry.entry_id.key == wanted or f"{entry.time}#{entry.ordinal}" == wanted


def _show_diary(store: MemoryStore, day: str, time: str | None, out: Output) -> int | None:
    """``show YYYY-MM-DD [HH:MM[#n]]`` for a day that is not also a RecallFile."""
    try:
        entries = store.diary.day(day)
    except ValueError:  # not a date: let the caller report "no such file"
        return None
    if not entries:
        return None
    title = f"# {day}"
    if time is None:
        title = _whole_file_title(store.diary.path(day), title)
    else:
        entries = [entry for entry in entries if _names_entry(entry, time.strip())]
        if not entries:
            out.error(f"no item: {day}:{time}")
            return 1
    out.write(_render_items(title, entries))
    return 0


def run_show(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """``show FILE [NAME]``: a RecallFile, one item of it, or a diary day, as the strict writer lays it out."""
    file: str = args.file
    if file not in store.files():
        code = _show_diary(store, file, args.name, out)
        if code is None:
            out.error(f"no such file: {file}")
            return 1
        return code
    try:
        read_blocks(store.file_path(file))
    except UnreadableError as exc:  # listed, but nothing of it can be shown
        out.error(f"wiki/{file}.md {exc.strerror}")
        return 2
    if args.name is None:
        title = _whole_file_title(store.file_path(file), f"# {file}")
        out.write(_render_items(title, store.items(file)))
        return 0
    item = store.get(file, args.name)
    if item is None:
        out.error(f"no item: {file}:{args.name}")
        return 1
    out.write(_render_items(f"# {file}", [item]))
    return 0


def grep_lines(items: Sequence[RecallItem], regex: re.Pattern[str]) -> list[str]:
    """``file:name:`` prefixed matches: the heading first, then content lines."""
    lines: list[str] = []
    for item in items:
        prefix = f"{item.file}:{item.name}:"
        if regex.search(item.name):
            lines.append(f"{prefix}## {item.name}")
        lines.extend(prefix + line for line in item.content.splitlines() if regex.search(line))
    return lines


def run_grep(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """``grep PATTERN [-i]``: a regex over the wiki's names and content lines."""
    try:
        regex = re.compile(args.pattern, re.IGNORECASE if args.ignore_case else 0)
    except re.error as exc:
        out.error(f"bad pattern: {exc}")
        return 2
    found = False
    for file in store.files():
        for line in grep_lines(store.items(file), regex):
            out.line(line)
            found = True
    return 0 if found else 1
