"""A RecallFile's frontmatter: kept byte for byte by every write, its ``tags`` and ``aliases`` read.

A RecallFile that is also an Obsidian note often starts with a YAML block.
The store never writes it and never loses it (it is prose before the first
``## `` heading). This module reads the keys other tools give meaning to,
with the YAML subset those tools write (a scalar, a flow list, a block
list), and nothing here raises: the file is untrusted, hand-edited text,
and a full YAML parser would be a dependency for two keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["FileMeta", "meta_of", "read_file_meta", "read_frontmatter"]

_OPEN_RE = re.compile(r"\A\ufeff?---[ \t]*\r?\n")
_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.M)
_KEY_RE = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$")
_ITEM_RE = re.compile(r"^[ \t]*-(?:[ \t]+(.*?))?[ \t]*$")
#: A frontmatter longer than this is not read (it is someone's document, not a header).
MAX_FRONTMATTER = 64 * 1024
_KEYS = {"tags": "tags", "tag": "tags", "aliases": "aliases", "alias": "aliases"}


@dataclass(frozen=True)
class FileMeta:
    """What a RecallFile's frontmatter says about it: its tags and the other names it goes by."""

    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1].strip()
    if " #" in value:  # a YAML comment after a plain scalar
        value = value.split(" #", 1)[0].strip()
    return value


def _split(value: str | list[str], key: str) -> list[str]:
    """One key's value as a list: a list as it is, a scalar as one value (tags split on commas and spaces)."""
    if isinstance(value, list):
        return value
    return re.split(r"[,\s]+", value) if key == "tags" else [value]


def _clean(key: str, values: list[str]) -> tuple[str, ...]:
    if key == "tags":
        values = [value.lstrip("#").strip() for value in values]
    return tuple(dict.fromkeys(value for value in values if value and "\n" not in value))


def read_frontmatter(text: str) -> tuple[dict[str, str | list[str]], int]:
    """The flat keys of the frontmatter at the very start of ``text``, and the offset its body starts at.

    A key maps to its scalar (quotes taken off, a trailing comment dropped)
    or to a list: a flow list ``[a, b]``, or the ``- a`` lines under it.
    ``({}, 0)`` when ``text`` opens with no (closed) frontmatter. Nested
    YAML is not read: its lines are passed over.
    """
    opened = _OPEN_RE.match(text)
    if opened is None:
        return {}, 0
    closed = _CLOSE_RE.search(text, opened.end(), opened.end() + MAX_FRONTMATTER)
    if closed is None:
        return {}, 0
    out: dict[str, str | list[str]] = {}
    current: str | None = None
    for line in text[opened.end():closed.start()].splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = _ITEM_RE.match(line)
        if item is not None:
            if current is not None:
                value = out[current]
                if not isinstance(value, list):  # "key:" (or "key: a") and then "- b" lines
                    value = out[current] = [value] if value else []
                value.append(_scalar(item.group(1) or ""))
            continue
        key = _KEY_RE.match(line)
        current = key.group(1) if key is not None else None
        if key is not None and current is not None:
            raw = key.group(2)
            out[current] = ([_scalar(part) for part in raw[1:-1].split(",") if part.strip()]
                            if raw.startswith("[") and raw.endswith("]") else _scalar(raw))
    end = closed.end()
    return out, end + 1 if text.startswith("\n", end) else end


def read_file_meta(text: str) -> FileMeta:
    """The tags and aliases of the frontmatter at the very start of ``text`` (empty when there is none)."""
    return meta_of(read_frontmatter(text)[0])


def meta_of(fields: dict[str, str | list[str]]) -> FileMeta:
    """The tags and aliases among frontmatter ``fields`` (:func:`read_frontmatter`'s), by the rules above."""
    found: dict[str, list[str]] = {"tags": [], "aliases": []}
    for key, value in fields.items():
        kind = _KEYS.get(key.lower())
        if kind is not None:
            found[kind].extend(_split(value, kind))
    return FileMeta(tags=_clean("tags", found["tags"]), aliases=_clean("aliases", found["aliases"]))
