"""``--demo``: a throwaway copy of the bundled demo memory.

The bundled files are package data and must never be written to (they may
sit in a read-only site-packages), so the app always works on a copy in a
fresh temporary directory. The demo's diary was written for late November
2026; given ``today``, the copy moves every diary day by the same number of
days so that its last entry is yesterday: the calendar then opens on a month
with entries and "昨天" / "上周" queries find them, whenever the demo is run.

:func:`demo_copy` is the copy's whole life for ``wikimem-tui --demo``: made
on entry, removed on exit however the app ends (an exception included).
A run that was killed cannot clean up, so each copy's folder names the
process it belongs to (``pid``), and the next demo run removes the copies
whose process is gone -- never one a running demo still uses.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

from wikimem import accept_current_state

__all__ = ["demo_copy", "demo_source", "make_demo_copy", "remove_leftovers"]

_PREFIX = "wikimem-demo-"
_PID_FILE = "pid"

_DAY_FILE = re.compile(r"(\d{4}-\d{2}-\d{2})\.md")
_TS = re.compile(r"ts=(\d{4}-\d{2}-\d{2})T")


def demo_source() -> Path:
    """Where the bundled demo memory lives (``wikimem/demo``)."""
    return Path(str(resources.files("wikimem") / "demo"))


def make_demo_copy(parent: Path | None = None, *, today: dt.date | None = None) -> Path:
    """Copy the demo's ``wiki/``, ``diary/`` and ``journal.jsonl`` into a new temp dir.

    With ``today``, diary days are shifted so the newest one is yesterday
    (file names, titles, metadata ``ts`` and the journal's ``date`` and
    ``ts`` fields move together; a journal ``ts`` stops at now). Returns the new memory directory.
    """
    source = demo_source()
    target = Path(tempfile.mkdtemp(prefix=_PREFIX, dir=parent)) / "memory"
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


@contextmanager
def demo_copy(today: dt.date | None = None) -> Iterator[Path]:
    """A demo copy in the temp dir for the length of the ``with``; removed afterwards, whatever happened.

    Copies left by killed runs are removed first (see the module docstring).
    """
    remove_leftovers()
    root = make_demo_copy(today=today)
    folder = root.parent
    (folder / _PID_FILE).write_text(str(os.getpid()), encoding="ascii")
    try:
        yield root
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def remove_leftovers(parent: Path | None = None) -> list[Path]:
    """Remove the demo copies (ours, in ``parent`` or the temp dir) whose process is gone; returns them."""
    removed: list[Path] = []
    for folder in Path(parent or tempfile.gettempdir()).glob(f"{_PREFIX}*"):
        try:
            if folder.stat().st_uid != os.getuid() or _alive(int((folder / _PID_FILE).read_text("ascii"))):
                continue
        except (OSError, ValueError):
            continue  # not a demo copy this code made (no pid file), or not ours to judge
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    """True when process ``pid`` exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True


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
        # The journal was written after the diary: it moves with it (else it logs an entry days before
        # it happened), but never into the future (the demo was built the day after its last entry).
        start_of_today = dt.datetime.combine(today, dt.time(), dt.timezone.utc)
        latest = max(dt.datetime.now(dt.timezone.utc), start_of_today).replace(microsecond=0)
        lines = []
        for line in journal.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry.get("action") == "diary" and "date" in entry:
                entry["date"] = moved(entry["date"])
            if isinstance(entry.get("ts"), str):
                entry["ts"] = min(dt.datetime.fromisoformat(entry["ts"]) + delta, latest).isoformat()
            lines.append(json.dumps(entry, ensure_ascii=False))
        journal.write_text("\n".join(lines) + "\n", encoding="utf-8")
