"""Recall filters on what is stored (SPEC §10): owner, source, when it was written, a RecallFile's tags.

A filter decides membership, never a score, and it is applied inside the
search: the top ``limit`` is the best of what it keeps, however deep in the
ranking those items sit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wikimem import MemoryIndex, MemoryStore, Where
from wikimem.cli import main


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path / "m")
    for i in range(30):  # many better matches by another owner, written earlier
        store.add("notes", f"tea {i}", "Tea tea tea, green tea and black tea.", owner="agent:other",
                  ts="2026-01-01T09:00:00+00:00")
    store.add("notes", "mine", "Jasmine tea in the morning.", owner="agent:me", source_conv="chatgpt:abc",
              ts="2026-07-21T09:00:00+00:00")
    store.add("travel", "tea house", "A tea house in Kyoto.", owner="agent:me", ts="2026-07-22T09:00:00+00:00")
    path = store.file_path("travel")
    path.write_text("---\ntags: [trips, japan]\n---\n" + path.read_text("utf-8"), "utf-8")
    store.diary.append("Had tea with Ada.", date="2026-07-21", time="15:00", owner="agent:me",
                       ts="2026-07-21T15:00:00+00:00")
    return store


def names(store: MemoryStore, query: str, **kwargs: object) -> list[str]:
    result = MemoryIndex(store).retrieve(query, search_diary=True, **kwargs)  # type: ignore[arg-type]
    return [f"{e.item.file}:{e.item.name}" for e in result.items if e.source == "hit"]


def test_an_owner_filter_keeps_the_best_of_that_owner_however_deep(store: MemoryStore) -> None:
    assert names(store, "tea", limit=3)[:3] != ["notes:mine", "travel:tea house", "2026-07-21:15:00"]
    got = names(store, "tea", limit=3, where=Where(owner="agent:me"))
    assert sorted(got) == sorted(["notes:mine", "travel:tea house", "2026-07-21:15:00"])


def test_source_exact_and_prefix(store: MemoryStore) -> None:
    assert names(store, "tea", where=Where(source_conv="chatgpt:abc")) == ["notes:mine"]
    assert names(store, "tea", where=Where(source_conv="chatgpt:")) == ["notes:mine"]
    assert names(store, "tea", where=Where(source_conv="chatgpt")) == []


def test_written_after_and_before(store: MemoryStore) -> None:
    got = names(store, "tea", where=Where(after="2026-07-21", before="2026-07-22T00:00:00+00:00"))
    # The diary entry's ts is the moment it names (a backfilled entry is dated when it happened).
    assert sorted(got) == ["2026-07-21:15:00", "notes:mine"]
    assert names(store, "tea", where=Where(after="2026-07-22")) == ["travel:tea house"]
    with pytest.raises(ValueError, match="bad after"):
        Where(after="last monday")


def test_tags_come_from_the_recallfiles_frontmatter(store: MemoryStore) -> None:
    assert names(store, "tea", where=Where(tags=("#japan",))) == ["travel:tea house"]
    assert names(store, "tea", where=Where(tags=("japan", "food"))) == []


def test_an_empty_filter_keeps_everything(store: MemoryStore) -> None:
    assert not Where()
    assert names(store, "tea", where=Where()) == names(store, "tea")


def test_the_cli_and_mcp_take_the_filters(store: MemoryStore, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-s", str(store.root), "recall", "tea", "--owner", "agent:me", "--tag", "trips", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["items"]
    assert [(r["file"], r["name"]) for r in rows] == [("travel", "tea house")]
    assert main(["-s", str(store.root), "recall", "tea", "--after", "yesterday-ish"]) == 2
    assert "bad after" in capsys.readouterr().err
    pytest.importorskip("mcp")
    from wikimem.server.memory import AgentMemory, BadInput

    memory = AgentMemory(store.root)
    found = memory.recall("tea", source_conv="chatgpt:", limit=5)
    assert [row["name"] for row in found["items"]] == ["mine"]
    with pytest.raises(BadInput, match="bad before"):
        memory.recall("tea", before="soon")
