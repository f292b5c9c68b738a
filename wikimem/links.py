"""Wiki-links: ``[[file:name]]`` addresses of one item, written inside content.

The parser is deliberately forgiving in one way and strict in another: it
never raises on odd text (content is hand-edited and LLM-written), but a link
is only a link when both halves are present and clean, so a malformed one is
plain text rather than a half-guessed address.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["WikiLink", "parse_wiki_links", "rewrite_link"]

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


def rewrite_link(text: str, old: WikiLink, new_link: str) -> str:
    """Replace every link to ``old`` in ``text`` (however it is spaced) with ``new_link``."""

    def swap(match: re.Match[str]) -> str:
        if (match.group(1).strip(), match.group(2).strip()) == (old.file, old.name):
            return new_link
        return match.group(0)

    return _LINK_RE.sub(swap, text)


def parse_wiki_links(text: str) -> list[WikiLink]:
    """Every well-formed link in ``text``, in order of appearance.

    Whitespace around each part is trimmed and an empty part makes the link
    malformed (``[[:x]]``, ``[[x:]]``, ``[[x]]`` are ignored). Duplicates are
    kept: callers that need a set make one.
    """
    links: list[WikiLink] = []
    for match in _LINK_RE.finditer(text):
        file, name = match.group(1).strip(), match.group(2).strip()
        if file and name:
            links.append(WikiLink(file, name))
    return links
