"""``wikimem import``: each source read in its real shape, written whole or not at all, idempotently.

The fixtures in ``tests/fixtures/import/`` are small files in the shapes the
tools write (ChatGPT's node tree with a regenerated branch, a hidden system
node, a tool node, a multimodal part, null times; Claude's content blocks
with thinking and tool use; the MCP memory server's JSON lines with a
repeated entity; mem0's ``{"results": [...]}``; a CLAUDE.md with a ``##``
inside a code fence and a memory-bank folder).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from wikimem import Diary, MemoryStore
from wikimem.cli import main
from wikimem.disk.atomic import set_step_hook
from wikimem.interop import apply, read_source
from wikimem.interop.conversation import MESSAGE_CAP

FIXTURES = Path(__file__).parent / "fixtures" / "import"


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".wikimem.lock" not in p.name}


def _import(root: Path, *argv: str) -> int:
    return main(["-s", str(root), "import", *argv])


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    root.mkdir()
    return root


def test_chatgpt_follows_the_current_thread_one_entry_per_exchange_dated_by_the_message(memory: Path) -> None:
    assert _import(memory, "chatgpt", str(FIXTURES / "chatgpt" / "conversations.json")) == 0
    june = Diary(memory).day("2024-06-01")
    assert [(e.time, e.ts) for e in june] == [("05:00", "2024-06-01T05:00:00+00:00"),
                                             ("06:00", "2024-06-01T06:00:00+00:00")]
    first, second = june
    assert first.owner == "import:chatgpt"
    assert first.source_conv == "chatgpt:6650a1b2-0000-4000-8000-000000000001"
    assert first.content.startswith('From ChatGPT, "Sunrise trip 🌅":\n\nuser: Where should we go')
    assert "regenerated draft" not in first.content  # a branch the person did not keep
    assert "### Two good choices" in first.content  # a heading in a reply is kept one level down
    assert "[ [travel:beach]]" in first.content and not first.links  # a link in a chat is no link of this memory
    assert "[image]" in second.content and "这个海滩怎么样" in second.content
    assert "search results" not in second.content  # the tool node
    assert "sk-proj-" not in second.content and "[REDACTED:" in second.content
    # No current_node and no message times: the conversation's own time, the thread to the newest leaf.
    (new_year,) = Diary(memory).day("2024-01-01")
    assert new_year.time == "00:00" and "dentist on January 9th" in new_year.content


def test_claude_keeps_what_was_said_not_thinking_or_tools(memory: Path) -> None:
    assert _import(memory, "claude", str(FIXTURES / "claude" / "conversations.json")) == 0
    tea, green = Diary(memory).day("2024-06-02")
    assert (tea.time, tea.ts, tea.source_conv) == ("08:00", "2024-06-02T08:00:01+00:00",
                                                   "claude:c0ffee00-0000-4000-8000-00000000000a")
    assert "assistant: Noted — jasmine tea" in tea.content and "茉莉花茶" in tea.content
    assert "The user likes tea" not in tea.content and "memory" not in tea.content.split("assistant:")[1]
    assert "[attachment: cup.jpg]" in tea.content
    assert green.time == "08:04" and "Green tea in the morning, then." in green.content  # a reply without a time


def test_mcp_memory_entities_become_items_and_relations_links_that_resolve(memory: Path) -> None:
    assert _import(memory, "mcp-memory", str(FIXTURES / "mcp-memory" / "memory.json")) == 0
    store = MemoryStore(memory)
    lin = store.get("person", "Lin")
    assert lin is not None and lin.source_conv == "mcp-memory:Lin" and lin.owner == "import:mcp-memory"
    assert "- Lives in Xiamen" in lin.content and "- Has a cat called Mochi" in lin.content  # repeated entity merged
    assert [link.render() for link in lin.links] == ["[[organization:Acme Corp]]"]
    assert store.get("organization", "Acme Corp") is not None
    assert "- knows Nobody Known" in lin.content  # a relation to no entity stays text
    (project,) = store.items("project-idea")
    assert project.name == "Project - Sunrise/v2 1"  # ':' '|' '#' cannot be in a name
    assert [link.render() for link in project.links] == ["[[person:Lin]]"]


def test_mem0_memories_are_found_again_by_id_when_mem0_rewrote_them(memory: Path, tmp_path: Path) -> None:
    source = FIXTURES / "mem0" / "memories.json"
    assert _import(memory, "mem0", str(source)) == 0
    store = MemoryStore(memory)
    nuts = store.get("mem0", "Is a vegetarian and allergic to nuts")
    assert nuts is not None and nuts.ts == "2024-07-26T06:57:00+00:00"  # -07:00 in the source
    assert nuts.content.endswith("(user_id: alice; categories: food, health)")
    assert store.get("mem0", "喜欢在下午喝茉莉花茶") is not None
    data = json.loads(source.read_text("utf-8"))
    data["results"][0]["memory"] = "Is a vegetarian and allergic to peanuts only"
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(data), "utf-8")
    assert _import(memory, "mem0", str(changed)) == 0
    items = store.items("mem0")
    assert len(items) == 3
    assert store.get("mem0", "Is a vegetarian and allergic to nuts").content.startswith(  # type: ignore[union-attr]
        "Is a vegetarian and allergic to peanuts only")


def test_claude_md_sections_become_items_and_code_fences_are_not_sections(memory: Path) -> None:
    assert _import(memory, "claude-md", str(FIXTURES / "CLAUDE.md")) == 0
    assert _import(memory, "claude-md", str(FIXTURES / "memory-bank")) == 0
    store = MemoryStore(memory)
    assert [i.name for i in store.items("claude")] == ["Project notes for Claude", "Build and test", "Style"]
    build = store.get("claude", "Build and test")
    assert build is not None and "### not a section: inside a code fence" in build.content
    assert "### Naming" in store.get("claude", "Style").content  # type: ignore[union-attr]
    assert build.source_conv == "claude-md:CLAUDE.md#Build and test"
    assert [i.name for i in store.items("product-context")] == ["Why this project exists", "Users"]
    assert [i.name for i in store.items("active-context")] == ["overview"]


@pytest.mark.parametrize("source,path", [
    ("chatgpt", "chatgpt/conversations.json"), ("claude", "claude/conversations.json"),
    ("mcp-memory", "mcp-memory/memory.json"), ("mem0", "mem0/memories.json"), ("claude-md", "CLAUDE.md"),
    ("obsidian", "vault"),
])
def test_a_second_run_writes_nothing(memory: Path, source: str, path: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(memory, source, str(FIXTURES / path)) == 0
    before = _snapshot(memory)
    capsys.readouterr()
    assert _import(memory, source, str(FIXTURES / path), "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and not report["added"] and not report["updated"] and not report["entries"]
    assert report["unchanged"] > 0
    assert _snapshot(memory) == before


def test_dry_run_says_what_it_would_write_and_writes_nothing(memory: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert _import(memory, "chatgpt", str(FIXTURES / "chatgpt" / "conversations.json"), "--dry-run") == 0
    out = capsys.readouterr().out
    assert out.startswith("chatgpt: would write 0 new items, 0 updated, 3 diary entries")
    assert "+ diary 2024-06-01 05:00  user: Where should we go" in out
    assert "would write diary/2024-01-01.md, diary/2024-06-01.md" in out
    assert _snapshot(memory) == {}


def test_the_summary_counts_in_words_one_item_not_item_s(memory: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "CLAUDE.md"
    note.write_text("# Notes\n\n## tea\n\nDrinks jasmine tea.\n", encoding="utf-8")
    assert _import(memory, "claude-md", str(note), "--dry-run") == 0
    assert capsys.readouterr().out.startswith("claude-md: would write 1 new item, 0 updated, 0 diary entries")


def test_a_name_held_by_another_item_is_never_overwritten(memory: Path) -> None:
    store = MemoryStore(memory)
    store.add("person", "Lin", "My own note about Lin.", owner="user:me")
    assert _import(memory, "mcp-memory", str(FIXTURES / "mcp-memory" / "memory.json")) == 0
    assert store.get("person", "Lin").content == "My own note about Lin."  # type: ignore[union-attr]
    imported = store.get("person", "Lin (2)")
    assert imported is not None and imported.source_conv == "mcp-memory:Lin"
    before = _snapshot(memory)
    assert _import(memory, "mcp-memory", str(FIXTURES / "mcp-memory" / "memory.json")) == 0
    assert _snapshot(memory) == before


@pytest.mark.parametrize("source,data,message", [
    ("chatgpt", b'[{"mapping": {}, "title": "x"', "not JSON"),
    ("chatgpt", b'\xff\xfe[]', "not UTF-8"),
    ("chatgpt", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ("chatgpt", b'{"title": "one conversation"}', "not a ChatGPT export"),
    ("claude", b'[{"uuid": "x", "chat_messages": 3}]', "not of a Claude export's shape"),
    ("claude", b'[{"id": "x", "title": "a ChatGPT one", "mapping": {}}]', "not of a Claude export's shape"),
    ("mem0", b'[{"id": 1}]', "not a mem0 export"),
    ("mcp-memory", b'{"type":"entity","name":"A","entityType":"t","observations":["x"]}\n{oops\n', "line 2 is not JSON"),
])
def test_a_bad_file_writes_nothing(memory: Path, tmp_path: Path, source: str, data: bytes, message: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    MemoryStore(memory).add("keep", "me", "Untouched.")
    before = _snapshot(memory)
    bad = tmp_path / "bad.json"
    bad.write_bytes(data)
    assert _import(memory, source, str(bad), "--json") == 2
    captured = capsys.readouterr()
    assert message in captured.err and json.loads(captured.out)["ok"] is False
    assert _snapshot(memory) == before


def test_a_source_with_nothing_in_it_exits_1(memory: Path, tmp_path: Path) -> None:
    empty = tmp_path / "conversations.json"
    empty.write_text("[]", "utf-8")
    assert _import(memory, "chatgpt", str(empty)) == 1
    assert _snapshot(memory) == {}


def test_a_failed_commit_leaves_every_file_as_it_was(memory: Path, capsys: pytest.CaptureFixture[str]) -> None:
    MemoryStore(memory).add("person", "Ada", "Already here.")
    before = _snapshot(memory)

    def fail(name: str) -> None:
        if name == "file-2-written":
            raise OSError(28, "No space left on device")

    set_step_hook(fail)
    try:
        assert _import(memory, "mcp-memory", str(FIXTURES / "mcp-memory" / "memory.json")) == 2
    finally:
        set_step_hook(None)
    assert "nothing written" in capsys.readouterr().err
    assert {k: v for k, v in _snapshot(memory).items() if not k.startswith(".wikimem-intent")} == before


def test_a_huge_conversation_is_imported_with_each_message_capped(memory: Path, tmp_path: Path) -> None:
    messages = []
    for n in range(300):
        for role, text in (("human", f"question {n} " + "词" * (10_000 if n == 7 else 3)), ("assistant", f"answer {n}")):
            messages.append({"uuid": f"{role}{n}", "sender": role, "text": text,
                             "created_at": f"2024-03-{1 + n // 60:02d}T{(n % 60) // 3:02d}:{n % 60:02d}:00Z"})
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([{"uuid": "big", "name": "Big", "created_at": "2024-03-01T00:00:00Z",
                                 "chat_messages": messages}]), "utf-8")
    plan = read_source("claude", path)
    assert len(plan.entries) == 300
    report = apply(MemoryStore(memory), plan)
    assert len(report.entries) == 300
    capped = next(e for _, e in report.entries if "question 7 " in e.content)
    assert f"[… {len('question 7 ') + 10_000 - MESSAGE_CAP} more characters not imported]" in capped.content


def test_the_import_is_journaled_with_the_source(memory: Path) -> None:
    assert _import(memory, "mem0", str(FIXTURES / "mem0" / "memories.json")) == 0
    lines = [json.loads(line) for line in (memory / "journal.jsonl").read_text("utf-8").splitlines()]
    assert [(d["action"], d["source_conv"], d["owner"], d["detail"]) for d in lines][0] == \
        ("add", "mem0:892db2ae-06d9-49e5-8b3e-585ef9b85b8e", "import:mem0", "imported from mem0")
    assert len(lines) == 3


def test_an_export_zip_is_read_like_its_conversations_json(memory: Path, tmp_path: Path) -> None:
    archive = tmp_path / "export.zip"
    shutil.make_archive(str(archive.with_suffix("")), "zip", FIXTURES / "chatgpt")
    assert _import(memory, "chatgpt", str(archive)) == 0
    assert len(Diary(memory).day("2024-06-01")) == 2


def test_an_obsidian_vault_gives_an_item_per_note_with_its_links_mapped(memory: Path) -> None:
    assert _import(memory, "obsidian", str(FIXTURES / "vault")) == 0
    store = MemoryStore(memory)
    assert store.files() == ["notes", "people", "travel"]  # top folders; .obsidian is no note
    lin = store.get("people", "Lin")
    assert lin is not None and lin.content.startswith("Old friend from university.")  # the repeated title dropped
    assert "### Work" in lin.content and lin.content.endswith("tags: friend, xiamen")
    assert lin.ts == "2024-05-01T01:00:00+00:00" and lin.source_conv == "obsidian:people/Lin.md"
    trip = store.get("travel", "Beach trip 2024")  # the frontmatter title names it
    assert trip is not None
    assert trip.content.startswith("Going with [[people:Lin]] (my friend ([[people:Lin]]), see [[people:Lin]])")
    assert "[embedded: sunrise.png]" in trip.content and "then Nowhere Yet." in trip.content
    assert "[[travel:Booking]]" in trip.content
    index = store.get("notes", "Index")
    assert index is not None and [link.render() for link in index.links] == ["[[travel:Beach trip 2024]]",
                                                                            "[[people:Lin]]"]
    assert all(store.get(link.file, link.name) is not None for item in store.items() for link in item.links)


def test_basic_memory_notes_resolve_links_by_title_and_keep_observations(memory: Path) -> None:
    assert _import(memory, "basic-memory", str(FIXTURES / "basic-memory")) == 0
    store = MemoryStore(memory)
    coffee = store.get("projects", "Coffee Brewing Methods")
    assert coffee is not None and coffee.source_conv == "basic-memory:projects/coffee-brewing-methods"
    assert "### Observations\n\n- [method] Pour over gives a cleaner cup #brewing" in coffee.content
    assert "- relates_to Coffee Bean Origins" in coffee.content  # no such note: text
    assert "- pairs_with [[notes:Morning Routine]]" in coffee.content
    before = _snapshot(memory)
    assert _import(memory, "basic-memory", str(FIXTURES / "basic-memory")) == 0
    assert _snapshot(memory) == before


def test_an_import_into_a_damaged_recallfile_is_refused_whole(memory: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    (memory / "wiki").mkdir()
    damaged = "# person\n\n## Ada\n\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> other\n"
    (memory / "wiki" / "person.md").write_text(damaged, "utf-8")
    before = _snapshot(memory)
    assert _import(memory, "mcp-memory", str(FIXTURES / "mcp-memory" / "memory.json")) == 2
    assert "nothing written" in capsys.readouterr().err
    assert _snapshot(memory) == before  # organization.md, which was fine, was not written either


def test_lone_surrogates_and_nul_in_a_message_are_stored_as_replacement_characters(memory: Path,
                                                                                  tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text('[{"uuid": "s", "name": "odd", "chat_messages": [{"sender": "human", '
                    '"created_at": "2024-02-03T04:05:06Z", "text": "half \\ud83d of a smile\\u0000 here"}]}]', "utf-8")
    assert _import(memory, "claude", str(path)) == 0
    (entry,) = Diary(memory).day("2024-02-03")
    assert "user: half \ufffd of a smile here" in entry.content


def test_tz_puts_each_exchange_on_the_day_and_minute_of_that_clock(memory: Path) -> None:
    assert _import(memory, "claude", str(FIXTURES / "claude" / "conversations.json"), "--tz", "Asia/Shanghai") == 0
    tea, _ = Diary(memory).day("2024-06-02")
    assert (tea.time, tea.ts) == ("16:00", "2024-06-02T08:00:01+00:00")


def test_a_nested_transaction_that_raises_takes_back_the_diary_days_it_staged(memory: Path) -> None:
    from wikimem.diary import place_entry
    from wikimem.disk.blocks import Block

    store = MemoryStore(memory)
    with store.transaction():
        with pytest.raises(RuntimeError), store.transaction() as inner:
            raw = inner.day("2024-01-01")
            place_entry(raw, "2024-01-01", Block("09:00", "Never written.", None, None, "2024-01-01T09:00:00+00:00"))
            inner.stage_day("2024-01-01", raw, [])
            raise RuntimeError
        store.add("kept", "this", "Written.")
    assert not (memory / "diary" / "2024-01-01.md").exists()
    assert store.get("kept", "this") is not None


def test_a_same_note_heading_link_keeps_its_text(memory: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Plans.md").write_text("See [[#Budget]] and [[#Budget|the money]].\n\n## Budget\n\nSmall.\n", "utf-8")
    assert _import(memory, "obsidian", str(vault)) == 0
    plans = MemoryStore(memory).get("notes", "Plans")
    assert plans is not None and plans.content.startswith("See Budget and the money.")


def test_claude_attachments_of_another_shape_are_passed_over(memory: Path, tmp_path: Path) -> None:
    source = tmp_path / "conversations.json"
    source.write_text(json.dumps([{"uuid": "u1", "name": "odd", "created_at": "2024-06-02T08:00:00Z",
                                   "chat_messages": [{"sender": "human", "text": "hello there",
                                                      "created_at": "2024-06-02T08:00:00Z",
                                                      "attachments": {"file_name": "a.txt"}, "files": "b.txt"}]}]),
                      "utf-8")
    assert _import(memory, "claude", str(source)) == 0
    (entry,) = Diary(memory).day("2024-06-02")
    assert "hello there" in entry.content


def test_a_source_name_windows_reserves_makes_a_file_name_it_does_not(memory: Path, tmp_path: Path) -> None:
    source = tmp_path / "memory.json"
    source.write_text(json.dumps({"type": "entity", "name": "Lin", "entityType": "Con", "observations": ["x"]}),
                      "utf-8")
    assert _import(memory, "mcp-memory", str(source)) == 0
    assert MemoryStore(memory).files() == ["con-entities"]


def test_a_notes_tags_and_aliases_are_read_as_a_recallfiles_are(memory: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Plans.md").write_text("---\ntags: trip summer\naliases: Holiday\n---\nBeach.\n", "utf-8")
    (vault / "Index.md").write_text("See [[Holiday]].\n", "utf-8")
    assert _import(memory, "obsidian", str(vault)) == 0
    store = MemoryStore(memory)
    plans = store.get("notes", "Plans")
    assert plans is not None and plans.content == "Beach.\n\ntags: trip, summer"
    assert [link.render() for link in store.get("notes", "Index").links] == ["[[notes:Plans]]"]  # type: ignore[union-attr]


def test_chatgpt_leaves_out_what_the_assistant_sent_a_tool(memory: Path, tmp_path: Path) -> None:
    # An assistant message whose recipient is not "all" is a tool call (its memory tool "bio", python, a
    # search): not what was said to the person.
    def node(key: str, parent: str | None, role: str, text: str, recipient: str = "all") -> dict[str, object]:
        return {"id": key, "parent": parent, "children": [],
                "message": {"id": key, "author": {"role": role}, "create_time": 1717218000, "recipient": recipient,
                            "content": {"content_type": "text", "parts": [text]}}}

    mapping = {"u": node("u", None, "user", "Remember I like jasmine tea."),
               "b": node("b", "u", "assistant", "User likes jasmine tea.", recipient="bio"),
               "a": node("a", "b", "assistant", "Noted: jasmine tea.")}
    source = tmp_path / "conversations.json"
    source.write_text(json.dumps([{"id": "c1", "title": "tea", "mapping": mapping, "current_node": "a"}]), "utf-8")
    assert _import(memory, "chatgpt", str(source)) == 0
    (entry,) = Diary(memory).day("2024-06-01")
    assert "Noted: jasmine tea." in entry.content and "User likes jasmine tea." not in entry.content
