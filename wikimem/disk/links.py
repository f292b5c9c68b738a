"""Wiki-links: ``[[file:name]]`` addresses of one item, written inside content.

The parser is deliberately forgiving in one way and strict in another: it
never raises on odd text (content is hand-edited and LLM-written), but a link
is only a link when both halves are present and clean, so a malformed one is
plain text rather than a half-guessed address.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from wikimem.disk.names import normalize_item_name

__all__ = ["WikiLink", "map_links", "parse_wiki_links", "resolves_to", "rewrite_link"]

# Neither part may contain "[", "]", ":" or a newline; the file part ends at
# the first colon, so a second colon makes the whole candidate malformed.
_LINK_RE = re.compile(r"\[\[([^\[\]:\n]*):([^\[\]:\n]*)\]\]")


@dataclass(frozen=True)
class WikiLink:
    """The address of one item: RecallFile name plus item name."""

    file: str
    name: str

    def render(self) -> str:
        """The link as it is written in content: ``[[file:name]]``."""
        return f"[[{self.file}:{self.name}]]"


def _link(match: re.Match[str]) -> WikiLink | None:
    """The link one match spells (parts trimmed), or ``None`` when a part is empty (malformed)."""
    file, name = match.group(1).strip(), match.group(2).strip()
    return WikiLink(file, name) if file and name else None


def resolves_to(link: WikiLink) -> WikiLink:
    """The address a link resolves to: the item name whitespace-normalized, as the store looks it up.

    ``[[notes:a  b]]``, a tab or an NBSP between the words: all reach
    ``notes:a b``, so all are links to it (for backlinks and for rewrites).
    """
    return WikiLink(link.file, normalize_item_name(link.name))


def rewrite_link(text: str, old: WikiLink, new_link: str) -> str:
    """Replace every link in ``text`` that resolves to ``old`` (however it is spaced) with ``new_link``."""
    target = resolves_to(old)

    def swap(match: re.Match[str]) -> str:
        link = _link(match)
        return new_link if link is not None and resolves_to(link) == target else match.group(0)

    return _LINK_RE.sub(swap, text)


def parse_wiki_links(text: str) -> list[WikiLink]:
    """Every well-formed link in ``text``, in order of appearance.

    Whitespace around each part is trimmed and an empty part makes the link
    malformed (``[[:x]]``, ``[[x:]]``, ``[[x]]`` are ignored). Duplicates are
    kept: callers that need a set make one.
    """
    return [link for link in map(_link, _LINK_RE.finditer(text)) if link is not None]


def map_links(text: str, replace: Callable[[WikiLink], str | None]) -> str:
    """``text`` with every well-formed link replaced by ``replace(link)`` (``None``: left as written).

    For writers that translate links into another tool's spelling (an
    export); malformed links are never handed over.
    """
    def swap(match: re.Match[str]) -> str:
        link = _link(match)
        new = replace(link) if link is not None else None
        return new if new is not None else match.group(0)

    return _LINK_RE.sub(swap, text)
