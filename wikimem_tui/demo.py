"""``--demo``: a throwaway copy of the bundled demo memory.

The bundled files are package data and must never be written to (they may
sit in a read-only site-packages), so the app always works on a copy in a
fresh temporary directory. The demo's diary was written for late November
2026; given ``today``, the copy moves every diary day by the same number of
days so that its last entry is yesterday: the calendar then opens on a month
with entries and "昨天" / "上周" queries find them, whenever the demo is run.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import tempfile
from importlib import resources
from pathlib import Path

from wikimem import accept_current_state

__all__ = ["demo_source", "make_demo_copy"]

_DAY_FILE = re.compile(r"(\d{4}-\d{2}-\d{2})\.md")
_TS = re.compile(r"ts=(\d{4}-\d{2}-\d{2})T")


def demo_source() -> Path:
    """Where the bundled demo memory lives (``wikimem/demo``)."""
    return Path(str(resources.files("wikimem") / "demo"))


def make_demo_copy(parent: Path | None = None, *, today: dt.date | None = None) -> Path:
    """Copy the demo's ``wiki/``, ``diary/`` and ``journal.jsonl`` into a new temp dir.

    With ``today``, diary days are shifted so the newest one is yesterday
    (file names, titles, metadata ``ts`` and the journal's ``date`` fields
    move together). Returns the new memory directory.
    """
    source = demo_source()
    target = Path(tempfile.mkdtemp(prefix="wikimem-demo-", dir=parent)) / "memory"
    target.mkdir()
    for name in ("wiki", "diary"):
        if (source / name).is_dir():
            shutil.copytree(source / name, target / name)
    if (source / "journal.jsonl").is_file():
        shutil.copy2(source / "journal.jsonl", target / "journal.jsonl")
    if today is not None:
        _shift_diary(target, today)
    accept_current_state(target, by="wikimem-tui --demo")  # the copy is the demo as shipped: no drift
    return target


def _shift_diary(root: Path, today: dt.date) -> None:
    days = sorted(m.group(1) for p in (root / "diary").glob("*.md") if (m := _DAY_FILE.fullmatch(p.name)))
    if not days:
        return
    delta = (today - dt.timedelta(days=1)) - dt.date.fromisoformat(days[-1])
    if not delta:
        return

    def moved(day: str) -> str:
        return (dt.date.fromisoformat(day) + delta).isoformat()

    # Read every day before writing any: a shift of a day or two lands on
    # names that still hold other days.
    texts = {day: (root / "diary" / f"{day}.md").read_text(encoding="utf-8") for day in days}
    for day in days:
        (root / "diary" / f"{day}.md").unlink()
    for day, text in texts.items():
        text = text.replace(f"# {day}\n", f"# {moved(day)}\n", 1)
        text = _TS.sub(lambda m: f"ts={moved(m.group(1))}T", text)
        (root / "diary" / f"{moved(day)}.md").write_text(text, encoding="utf-8")
    journal = root / "journal.jsonl"
    if journal.is_file():
        lines = []
        for line in journal.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry.get("action") == "diary" and "date" in entry:
                entry["date"] = moved(entry["date"])
            lines.append(json.dumps(entry, ensure_ascii=False))
        journal.write_text("\n".join(lines) + "\n", encoding="utf-8")
