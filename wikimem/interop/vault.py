"""The memory as an Obsidian vault: one note per item, links that Obsidian resolves.

Obsidian resolves a link to a note, so each item becomes
``<file>/<item>.md`` and each link to it, in either spelling, the note link
``[[file/item]]`` (the path keeps two files' items of one name apart), with
the item's provenance as frontmatter. Diary days are copied under
``diary/`` with their links rewritten the same way.

The folder is the export's own: it must be empty or hold an earlier export
(its ``.wikimem-vault`` list of notes and their digests), whose notes are
replaced; files someone added are left alone, and a note edited since stops
the export before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from wikimem.disk.atomic import atomic_write
from wikimem.disk.links import LinkRef, map_links

if TYPE_CHECKING:
    from wikimem.store import MemoryStore

__all__ = ["MARKER", "export_vault", "note_name"]

MARKER = ".wikimem-vault"
_UNSAFE_RE = re.compile(r'[/\\:*?"<>|\[\]^#\x00-\x1f\x7f]')


def note_name(name: str) -> str:
    """An item name as an Obsidian note name (see the module docstring)."""
    out = _UNSAFE_RE.sub("-", name).strip().lstrip(".") or "-"
    return out[:120]


def _frontmatter(fields: dict[str, str | None]) -> str:
    # JSON strings are YAML double-quoted scalars: no value can break out of its line.
    lines = [f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in fields.items() if v is not None]
    return "---\n" + "\n".join(lines) + "\n---\n\n"


def export_vault(store: MemoryStore, folder: Path) -> list[str]:
    """Write the vault into ``folder``; returns the notes written (relative paths). ``ValueError`` when not ours."""
    previous: dict[str, str | None] = {}
    if folder.exists():
        marker = folder / MARKER
        if marker.is_file():
            previous = _listed(folder, marker)
            _refuse_edited(folder, previous)
        elif any(folder.iterdir()):
            raise ValueError(f"{folder} is not empty and holds no earlier export: choose an empty folder")
    items = store.items()
    notes: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    for item in items:
        # A stem of wiki/ is untrusted too (``wiki/...md`` is a RecallFile named ".."): made a name the same way.
        base = f"{note_name(item.file)}/{note_name(item.name)}"
        path, n = base, 2
        while path.lower() in taken:  # two names that one case-insensitive file system would merge
            path, n = f"{base} {n}", n + 1
        taken.add(path.lower())
        notes[(item.file, item.name)] = path

    def link(ref: LinkRef) -> str | None:
        address = ref.target
        if address is None:  # a link to a whole RecallFile: map_links never hands one over
            return None
        path = notes.get((address.file, address.name), f"{note_name(address.file)}/{note_name(address.name)}")
        return f"[[{path}|{ref.label}]]" if ref.label is not None else f"[[{path}]]"

    written: dict[str, str] = {}

    def write(rel: str, text: str) -> None:
        atomic_write(folder / rel, text)
        written[rel] = _digest(text.encode("utf-8"))

    for item in items:
        rel = notes[(item.file, item.name)] + ".md"
        body = _frontmatter({"wikimem_file": item.file, "wikimem_item": item.name, "owner": item.owner,
                             "source_conv": item.source_conv, "ts": item.ts})
        write(rel, body + map_links(item.content, link, here=item.file) + "\n")
    for date in store.diary.dates():
        entries = store.diary.day(date)
        if not entries:
            continue
        parts = [f"# {date}\n"]
        for e in entries:
            said = " · ".join(v for v in (e.owner, e.source_conv, e.ts) if v)
            parts.append(f"## {e.time}\n\n{map_links(e.content, link)}\n" + (f"\n*{said}*\n" if said else ""))
        write(f"diary/{date}.md", "\n".join(parts))
    for rel in set(previous) - set(written):
        stale = folder / rel
        if not Path(rel).is_absolute() and ".." not in Path(rel).parts and stale.is_file():  # never out of the vault
            stale.unlink()
    atomic_write(folder / MARKER, json.dumps(dict(sorted(written.items())), ensure_ascii=False, indent=1) + "\n")
    return list(written)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _listed(folder: Path, marker: Path) -> dict[str, str | None]:
    """The earlier export's notes and the digest each was written with (None: a marker that kept none)."""
    try:
        listed = json.loads(marker.read_text("utf-8"))
    except (OSError, ValueError):
        listed = None
    if isinstance(listed, list) and all(isinstance(p, str) for p in listed):
        return dict.fromkeys(listed)
    if isinstance(listed, dict) and all(isinstance(p, str) and isinstance(d, str) for p, d in listed.items()):
        return dict(listed)
    raise ValueError(f"{folder}: its {MARKER} is damaged; export into an empty folder")


def _refuse_edited(folder: Path, previous: dict[str, str | None]) -> None:
    """A note changed since the export wrote it is the person's work (edited in Obsidian): refuse to write over it.

    The export rewrites or removes every note it wrote before; an edit made
    in the vault would be lost without a word, so nothing is written.
    """
    edited = []
    for rel, digest in sorted(previous.items()):
        note = folder / rel
        if digest is None or Path(rel).is_absolute() or ".." in Path(rel).parts or not note.is_file():
            continue
        try:
            if _digest(note.read_bytes()) != digest:
                edited.append(rel)
        except OSError:
            edited.append(rel)
    if edited:
        shown = ", ".join(edited[:3]) + (f" and {len(edited) - 3} more" if len(edited) > 3 else "")
        raise ValueError(f"{folder}: {shown} changed since the last export; nothing written (copy the edits "
                         f"into the memory, or export into an empty folder)")
