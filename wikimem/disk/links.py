"""Wiki-links: addresses of an item (or a RecallFile) written inside content.

Two spellings are links: the reference's ``[[file:name]]``, which
:func:`parse_wiki_links` reads exactly as the reference library does and
nothing else (the drop-in contract), and Obsidian's (``[[file#name|label]]``,
``[[#name]]``, ``[[file]]``), so a memory opened as a vault keeps working
links both ways. :func:`find_links` reads both and tells them apart
(:class:`LinkRef`); everything that follows, counts or rewrites links uses
it, so the two spellings mean the same everywhere. An item name can hold
neither ``:`` nor ``#`` nor ``|``, so the two never overlap.

The parser never raises on odd text (content is hand-edited and LLM-written),
but a link is only a link when its parts are present and clean: a malformed
one is plain text rather than a half-guessed address.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from wikimem.disk.names import normalize_item_name

__all__ = ["LINK_STYLES", "LinkRef", "WikiLink", "find_links", "map_links", "parse_wiki_links", "render_link",
           "resolves_to", "respell_links", "rewrite_links", "anchor_relative"]

#: How a link is spelled: the reference's ``[[file:name]]`` or Obsidian's ``[[file#name]]``.
Spelling = Literal["reference", "obsidian"]
LINK_STYLES: tuple[Spelling, ...] = ("reference", "obsidian")

# Neither part may contain "[", "]", ":" or a newline; the file part ends at
# the first colon, so a second colon makes the whole candidate malformed.
_LINK_RE = re.compile(r"\[\[([^\[\]:\n]*):([^\[\]:\n]*)\]\]")
# Anything in double brackets on one line: each spelling is told apart inside.
_ANY_RE = re.compile(r"\[\[([^\[\]\n]*)\]\]")


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


def parse_wiki_links(text: str) -> list[WikiLink]:
    """Every well-formed link in ``text``, in order of appearance.

    Whitespace around each part is trimmed and an empty part makes the link
    malformed (``[[:x]]``, ``[[x:]]``, ``[[x]]`` are ignored). Duplicates are
    kept: callers that need a set make one.
    """
    return [link for link in map(_link, _LINK_RE.finditer(text)) if link is not None]


@dataclass(frozen=True)
class LinkRef:
    """One link as written: where it points, in which spelling, with which label.

    ``name`` is ``None`` for a link to a RecallFile as a whole (``[[file]]``).
    ``relative`` marks a same-file Obsidian link (``[[#name]]``, ``file`` is
    then the file the text belongs to). ``span`` is where the link stands in
    the text it was read from.
    """

    file: str
    name: str | None
    spelling: Spelling
    label: str | None = None
    relative: bool = False
    span: tuple[int, int] = field(default=(0, 0), compare=False)

    @property
    def target(self) -> WikiLink | None:
        """The item it addresses (whitespace-normalized as the store looks it up); ``None`` for a file link."""
        return None if self.name is None else resolves_to(WikiLink(self.file, self.name))

    def render(self) -> str:
        """The link in its own spelling, label included (what a report shows for it)."""
        if self.spelling == "reference":
            return f"[[{self.file}:{self.name}]]"
        head = self.file if self.name is None else f"{'' if self.relative else self.file}#{self.name}"
        return f"[[{head}|{self.label}]]" if self.label is not None else f"[[{head}]]"


def _obsidian_file(part: str) -> str:
    """A note reference as a RecallFile name: folder path and ``.md`` dropped, lowercased as Obsidian matches."""
    part = part.strip().rsplit("/", 1)[-1]
    if part.lower().endswith(".md"):
        part = part[:-3]
    return part.strip().lower()


def _read(inner: str, span: tuple[int, int], here: str | None) -> LinkRef | None:
    """The link one bracket pair spells, or ``None`` when it is malformed (or relative with no ``here``)."""
    if ":" in inner:
        file, colon, name = inner.partition(":")
        file, name = file.strip(), name.strip()
        if ":" in name or not file or not name:
            return None
        return LinkRef(file, name, "reference", None, False, span)
    target, bar, label = inner.partition("|")
    label_text = label.strip() or None if bar else None
    note, sharp, heading = target.partition("#")
    relative = not note.strip()
    if relative and not sharp:
        return None  # "[[]]", "[[|label]]": no address at all
    where = here if relative else _obsidian_file(note)
    if not where:
        return None
    file = where
    if not sharp:
        return LinkRef(file, None, "obsidian", label_text, False, span)
    # A nested heading path ("a#b#c") names its last heading; a block reference ("#^id") the note.
    heading = heading.rsplit("#", 1)[-1].strip()
    if heading.startswith("^"):
        return LinkRef(file, None, "obsidian", label_text, relative, span)
    if not heading:
        return None
    return LinkRef(file, heading, "obsidian", label_text, relative, span)


def find_links(text: str, *, here: str | None = None) -> list[LinkRef]:
    """Every well-formed link in ``text``, in either spelling, in order of appearance.

    ``here`` is the RecallFile the text belongs to: a same-file link
    (``[[#name]]``) points into it, and without it such a link is skipped.
    Duplicates are kept; malformed bracket pairs are not links.
    """
    if "[[" not in text:
        return []
    out = []
    for match in _ANY_RE.finditer(text):
        ref = _read(match.group(1), match.span(), here)
        if ref is not None:
            out.append(ref)
    return out


def render_link(link: WikiLink, style: str = "reference") -> str:
    """``link`` written in ``style``: ``[[file:name]]`` (the reference) or ``[[file#name]]`` (Obsidian)."""
    if style == "obsidian":
        return f"[[{link.file}#{link.name}]]"
    if style != "reference":
        raise ValueError(f"unknown link style {style!r}: one of {', '.join(LINK_STYLES)}")
    return link.render()


def rewrite_links(text: str, old: WikiLink, new: WikiLink, *, here: str | None = None) -> str:
    """Point every link in ``text`` that resolves to ``old`` at ``new``, each in its own spelling.

    A reference link becomes ``[[new.file:new.name]]``; an Obsidian one keeps
    its label and stays relative (``[[#name]]``) when ``new`` is in ``here``.
    Links to the RecallFile as a whole are left alone: the file did not move.
    """
    target = resolves_to(old)

    def swap(ref: LinkRef) -> str | None:
        if ref.target != target:
            return None
        if ref.spelling == "reference":
            return new.render()
        return LinkRef(new.file, new.name, "obsidian", ref.label, ref.relative and new.file == here).render()

    return map_links(text, swap, here=here)


def anchor_relative(text: str, here: str) -> str:
    """``text`` with its same-file links (``[[#name]]``) spelled with ``here``, for text leaving that file.

    An item moved to another RecallFile keeps pointing where it pointed:
    ``[[#name]]`` becomes ``[[here#name]]``, label kept.
    """
    if "[[#" not in text:
        return text
    return map_links(text, lambda ref: LinkRef(ref.file, ref.name, "obsidian", ref.label).render()
                     if ref.relative else None, here=here)


def respell_links(text: str, style: str, *, here: str | None = None) -> str:
    """``text`` with its item links written in ``style`` (``"reference"`` or ``"obsidian"``).

    What has no spelling in the other style is left as written: a link to a
    whole RecallFile (``[[file]]``) and a labelled Obsidian link
    (``[[file#name|label]]``: the reference spelling has no label) stay.
    A same-file link becomes ``[[here:name]]`` in the reference spelling.
    """
    if style not in LINK_STYLES:
        raise ValueError(f"unknown link style {style!r}: one of {', '.join(LINK_STYLES)}")

    def respell(ref: LinkRef) -> str | None:
        if ref.spelling == style or ref.label is not None:
            return None
        return render_link(WikiLink(ref.file, ref.name or ""), style)

    return map_links(text, respell, here=here)


def map_links(text: str, replace: Callable[[LinkRef], str | None], *, here: str | None = None) -> str:
    """``text`` with every item link (either spelling) replaced by ``replace(ref)`` (``None``: left as written).

    The one walk every link rewrite of the library goes through (a move's
    rewrite, a respelling, an export's translation), so each reads links as
    :func:`find_links` does; ``here`` is the RecallFile the text belongs to
    (for ``[[#name]]``). Malformed links and links to a whole RecallFile
    (``ref.name is None``) are never handed over.
    """
    if "[[" not in text:
        return text

    def swap(match: re.Match[str]) -> str:
        ref = _read(match.group(1), match.span(), here)
        new = replace(ref) if ref is not None and ref.name is not None else None
        return new if new is not None else match.group(0)

    return _ANY_RE.sub(swap, text)
