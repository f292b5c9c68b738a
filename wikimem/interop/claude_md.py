"""Agent instruction files (``CLAUDE.md``, ``MEMORY.md``, a ``memory-bank/`` folder) as wiki items.

Such a file is already a list of topics under ``## `` headings, this
format's item grammar, so each section becomes an item of a RecallFile named
after the file; the text before the first section is an item named after
the title, or ``overview``. A ``## `` line inside a fenced code block is
code. ``source_conv`` finds the section again on the next run.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from wikimem.interop.plan import ImportPlan, SourceError
from wikimem.models import RecallItem
from wikimem.interop.source_file import read_text
from wikimem.interop.text import clean, item_name, provenance, slug, storable

__all__ = ["read_claude_md", "sections"]

OWNER = "import:claude-md"


def sections(text: str) -> tuple[str | None, list[tuple[str | None, str]]]:
    """The ``# `` title and the ``(heading, body)`` sections of a markdown file (``None``: the text before any)."""
    title: str | None = None
    out: list[tuple[str | None, list[str]]] = [(None, [])]
    fence: str | None = None
    for line in clean(text).split("\n"):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        elif fence is None and line.startswith("## "):
            out.append((line[3:].strip(), []))
            continue
        elif fence is None and title is None and line.startswith("# ") and len(out) == 1 and not \
                "".join(out[0][1]).strip():
            title = line[2:].strip()
            continue
        out[-1][1].append(line)
    return title, [(h, "\n".join(body).strip()) for h, body in out]


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        found = sorted(p for p in path.glob("*.md") if p.is_file())
        if not found:
            raise SourceError(f"{path}: no .md files in it")
        return found
    if not path.is_file():
        raise SourceError(f"cannot read {path}: no such file")
    return [path]


def read_claude_md(path: Path) -> ImportPlan:
    """The plan for a ``CLAUDE.md``-style file, or a folder of them (``memory-bank/``)."""
    plan = ImportPlan("claude-md")
    for source in _files(path):
        file = slug(source.stem, "notes")
        try:
            ts = dt.datetime.fromtimestamp(source.stat().st_mtime, dt.timezone.utc).isoformat()
        except OSError as exc:
            raise SourceError(f"cannot read {source}: {exc.strerror or exc}") from None
        title, parts = sections(read_text(source))
        for heading, body in parts:
            if not body.strip():
                continue
            name = item_name(heading) if heading else (item_name(title) if title else None)
            name = name or "overview"
            key = provenance(f"claude-md:{source.name}#{heading or title or 'overview'}")
            plan.items.append(RecallItem(file, name, storable(body), OWNER, key, ts))
    if not plan.items:
        plan.notes.append("no sections with text")
    return plan
