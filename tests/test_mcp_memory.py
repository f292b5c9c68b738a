"""The server's memory without the protocol: freshness rules and the tools' values (no MCP, no process).

The clock is injected, so "the stat sweep runs once the last one is older
than SWEEP_SECONDS" is checked without waiting for it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from conftest import SAFETY_NET
from wikimem import MemoryStore
from wikimem.errors import ConflictError
from wikimem.server.memory import SWEEP_SECONDS, AgentMemory, BadInput, NotFound, parse_span


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    MemoryStore(root).add("people", "Alice", "Likes jasmine tea.")
    return root


def names(memory: AgentMemory, query: str) -> list[str]:
    return [row["label"] for row in memory.recall(query)["items"]]


def test_a_journaled_write_elsewhere_is_seen_at_once(mem: Path) -> None:
    clock = Clock()
    memory = AgentMemory(mem, clock=clock)
    assert names(memory, "espresso") == []
    MemoryStore(mem).add("people", "Bob", "Espresso.")  # another store object: no listener, like another process
    assert names(memory, "espresso") == ["people:Bob"]  # same instant: the signature moved


def test_an_in_place_edit_waits_for_the_sweep_and_no_longer(mem: Path) -> None:
    clock = Clock()
    memory = AgentMemory(mem, clock=clock)
    assert names(memory, "matcha") == []
    signature = memory.signature()
    with open(mem / "wiki" / "people.md", "a", encoding="utf-8") as handle:
        handle.write("\n## Carol\n\nMatcha.\n")
    assert memory.signature() == signature  # neither the journal nor the directory changed
    clock.now += SWEEP_SECONDS / 2
    assert memory.sync() is False
    clock.now += SWEEP_SECONDS
    assert memory.sync() is True
    assert names(memory, "matcha") == ["people:Carol"]


def test_the_servers_own_write_is_seen_without_a_sweep(mem: Path) -> None:
    memory = AgentMemory(mem, clock=Clock())
    memory.recall("x")
    memory.remember("people", "Dan", "Green tea.", expected="")
    assert names(memory, "green") == ["people:Dan"]


def test_expected_semantics(mem: Path) -> None:
    memory = AgentMemory(mem)
    with pytest.raises(ConflictError):
        memory.remember("people", "Alice", "x", expected="")  # "": must not exist
    with pytest.raises(ConflictError):
        memory.remember("people", "Alice", "x", expected="Likes oolong.")
    memory.remember("people", "Alice", "Likes oolong.", expected="Likes jasmine tea.\n")  # stripped like content
    memory.remember("people", "Alice", "Unchecked.")  # omitted: unchecked
    assert MemoryStore(mem).get("people", "Alice").content == "Unchecked."


def test_read_only_refuses_writes(mem: Path) -> None:
    memory = AgentMemory(mem, read_only=True)
    for call in (lambda: memory.remember("a", "b", "c"), lambda: memory.forget("people", "Alice"),
                 lambda: memory.append_diary("x")):
        with pytest.raises(BadInput, match="read-only"):
            call()
    assert MemoryStore(mem).get("people", "Alice") is not None


def test_not_found_and_bad_input(mem: Path) -> None:
    memory = AgentMemory(mem)
    with pytest.raises(NotFound, match="no such file: nowhere"):
        memory.read_item("nowhere", "x")
    with pytest.raises(NotFound, match="no diary entry"):
        memory.read_item("2026-07-20", "10:00")
    with pytest.raises(BadInput, match="between 1 and"):
        memory.recall("tea", limit=10_000)


@pytest.mark.parametrize("value,span", [(None, None), ("", None), ("2026-07-20", ("2026-07-20", "2026-07-20")),
                                        ("2026-07-22..2026-07-20", ("2026-07-20", "2026-07-22")),
                                        (["2026-07-01", "2026-07-02"], ("2026-07-01", "2026-07-02"))])
def test_time_ranges(value: object, span: object) -> None:
    assert parse_span(value) == span  # type: ignore[arg-type]


def test_time_words_in_time_range_count_from_today() -> None:
    """The CLI's --time-range and the app's box take them; the MCP tool refused "last week"."""
    assert parse_span("last week", today=dt.date(2026, 7, 22)) == ("2026-07-13", "2026-07-19")
    assert parse_span("2026-06") == ("2026-06-01", "2026-06-30")


@pytest.mark.parametrize("value", ["july", ["2026-07-01"], [1, 2], "2026-02-30"])
def test_bad_time_ranges(value: object) -> None:
    with pytest.raises(BadInput):
        parse_span(value)  # type: ignore[arg-type]


def test_the_background_build_answers_the_first_call(mem: Path) -> None:
    memory = AgentMemory(mem)
    thread = memory.start_building()
    thread.join(SAFETY_NET)
    assert not thread.is_alive() and memory.index.ready
    assert names(memory, "jasmine") == ["people:Alice"]


def test_the_background_build_builds_the_diary_index_and_leaves_first_uses_to_the_calls(
        mem: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    MemoryStore(mem).add("drinks", "tea", "tea " * 1500)  # common enough that a warm-up would pack it
    MemoryStore(mem).diary.append("tea with Alice", date="2026-11-03", time="10:00")
    memory = AgentMemory(mem)
    warmed: list[bool] = []
    monkeypatch.setattr(memory.index, "warm", lambda **kw: warmed.append(True))
    diary_built: list[bool] = []
    real_diary = memory.index.build_diary
    monkeypatch.setattr(memory.index, "build_diary", lambda: diary_built.append(memory.index.ready) or real_diary())
    thread = memory.start_building()
    thread.join(SAFETY_NET)
    assert not thread.is_alive() and memory.index.ready
    assert diary_built == [True]  # after the wiki's, once: recall searches the whole diary
    assert warmed == []  # no warm-up competes with the first calls for the interpreter
    assert names(memory, "jasmine") == ["people:Alice"]


def test_a_store_that_cannot_be_written_is_a_tool_error_saying_so(mem: Path) -> None:
    pytest.importorskip("mcp")
    from wikimem.server.tools import _call

    class FullDisk(AgentMemory):
        def remember(self, *args: object, **kwargs: object) -> dict[str, object]:
            raise OSError(28, "No space left on device")

    result = _call(FullDisk(mem), "remember", {"file": "a", "name": "b", "content": "c"})
    assert result.is_error
    assert result.content[0].text == "store error (No space left on device); nothing written"
    assert result.structured_content == {"error": "store_error", "message": result.content[0].text}


def test_a_diary_entry_read_is_refused_as_append_only_by_the_item_writes(mem: Path) -> None:
    """read_item reads an entry by its day and HH:MM; the writes that take the same address say why they cannot.

    An agent that read an entry and tries to fix it must learn that the
    diary is append-only, not that its entry's time is a bad item name.
    """
    memory = AgentMemory(mem)
    entry = memory.append_diary("Fed the pelican a sardine.", date="2026-11-03", time="10:00")
    assert memory.read_item("2026-11-03", entry["entry"])["content"] == "Fed the pelican a sardine."
    for write in (lambda: memory.edit_item("2026-11-03", "10:00", "sardine", "herring"),
                  lambda: memory.insert_into_item("2026-11-03", "10:00", "And a herring."),
                  lambda: memory.forget("2026-11-03", "10:00")):
        with pytest.raises(BadInput, match="append-only"):
            write()
    assert memory.read_item("2026-11-03", "10:00")["content"] == "Fed the pelican a sardine."
