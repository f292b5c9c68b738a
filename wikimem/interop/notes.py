"""A folder of markdown notes (an Obsidian vault, a basic-memory project) as wiki items.

A note is one topic, so it becomes one item (most notes have no ``## `` list
to split on): named by its frontmatter ``title`` or file name, in the
RecallFile of its top folder (``people/Lin.md`` -> ``people:Lin``), its
``## `` headings one level down. Links are mapped to ``[[file:name]]`` when
the note is in the folder (found as Obsidian finds it, case-insensitively),
and to their text otherwise; an embed is named, not copied. Hidden folders
(``.obsidian``, ``.trash``) are not notes.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

from wikimem.disk.frontmatter import meta_of, read_frontmatter
from wikimem.interop.plan import ImportPlan, SourceError
from wikimem.models import RecallItem
from wikimem.interop.source_file import read_text
from wikimem.interop.text import clean, item_name, provenance, slug, storable, to_ts

__all__ = ["frontmatter", "read_notes"]

_LINK_RE = re.compile(r"(!?)\[\[([^\[\]\n]+)\]\]")


def frontmatter(text: str) -> tuple[dict[str, str | list[str]], str]:
    """The ``---`` frontmatter's flat keys (scalars and lists) and the body after it.

    Read as a RecallFile's frontmatter is read (:func:`wikimem.disk.frontmatter.read_frontmatter`):
    anything it does not understand is skipped, never an error.
    """
    text = clean(text)
    fields, body = read_frontmatter(text)
    return fields, text[body:]


@dataclass
class _Note:
    path: Path
    rel: str
    meta: dict[str, str | list[str]]
    body: str
    file: str
    name: str


def _notes(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise SourceError(f"{folder}: not a folder of notes")
    found = [p for p in sorted(folder.rglob("*.md"))
             if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)]
    if not found:
        raise SourceError(f"{folder}: no .md notes in it")
    return found


def read_notes(folder: Path, *, source: str) -> ImportPlan:
    """The plan for a folder of notes (``source``: ``obsidian`` or ``basic-memory``)."""
    plan = ImportPlan(source)
    notes: list[_Note] = []
    for path in _notes(folder):
        rel = path.relative_to(folder).as_posix()
        meta, body = frontmatter(read_text(path))
        parts = rel.split("/")
        file = slug(parts[0], "notes") if len(parts) > 1 else "notes"
        title = meta.get("title")
        name = item_name(title if isinstance(title, str) and title.strip() else path.stem) or "note"
        notes.append(_Note(path, rel, meta, body, file, name))
    index: dict[str, _Note] = {}
    for note in notes:  # later keys never replace earlier ones: the first note of a name wins, as in Obsidian
        keys = [note.rel[:-3], note.path.stem, note.name]
        for key in ("title", "permalink"):
            value = note.meta.get(key)
            keys += [value] if isinstance(value, str) else list(value or [])
        keys += meta_of(note.meta).aliases
        for key in keys:
            index.setdefault(key.strip().lower(), note)

    def link(match: re.Match[str]) -> str:
        embed, inner = match.group(1), match.group(2)
        written, _, label = inner.partition("|")
        target = written.split("#", 1)[0].split("^", 1)[0].strip()
        if embed:
            return f"[embedded: {target or inner}]"
        found = (index.get(target.lower()) or index.get(target.lower().removesuffix(".md"))) if target else None
        # A same-note heading ([[#Budget]]) has no note part: its heading is the text it shows.
        shown = (label or target or written.rsplit("#", 1)[-1].lstrip("^")).strip()
        if found is None:
            return shown
        address = f"[[{found.file}:{found.name}]]"
        return address if not label.strip() or label.strip() == found.name else f"{label.strip()} ({address})"

    for note in notes:
        body = note.body.strip()
        first, _, rest = body.partition("\n")
        if first.startswith("# ") and first[2:].strip().lower() in (note.name.lower(), note.path.stem.lower()):
            body = rest  # the title again, as Obsidian and basic-memory repeat it
        text = _LINK_RE.sub(link, body).strip()
        tags = meta_of(note.meta).tags  # read as a RecallFile's tags are (recall --tag, export digest --tag)
        if tags:
            text += "\n\ntags: " + ", ".join(tags)
        content = storable(text)
        if not content:
            plan.notes.append(f"{note.rel}: empty")
            continue
        ts = None
        for key in ("updated", "modified", "date", "created"):
            ts = to_ts(note.meta.get(key))
            if ts is not None:
                break
        if ts is None:
            try:
                ts = dt.datetime.fromtimestamp(note.path.stat().st_mtime, dt.timezone.utc).isoformat()
            except OSError as exc:
                raise SourceError(f"cannot read {note.path}: {exc.strerror or exc}") from None
        permalink = note.meta.get("permalink")
        key = permalink if source == "basic-memory" and isinstance(permalink, str) and permalink else note.rel
        plan.items.append(RecallItem(note.file, note.name, content, f"import:{source}",
                                      provenance(f"{source}:{key}"), ts))
    return plan
