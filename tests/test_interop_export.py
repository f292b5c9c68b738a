"""``wikimem export``: a JSON document that ``import json`` restores exactly, an Obsidian vault, a digest."""

from __future__ import annotations

import json
import re
import shutil
from importlib import resources
from pathlib import Path

import pytest

from wikimem import MemoryStore
from wikimem.cli import main
from wikimem.interop.vault import MARKER

FIXTURES = Path(__file__).parent / "fixtures" / "import"


def _files(root: Path, *parts: str) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for part in parts
            for p in sorted((root / part).rglob("*") if (root / part).is_dir() else [root / part]) if p.is_file()}


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(Path(str(resources.files("wikimem") / "demo")), root)
    return root


def _round_trip(source: Path, tmp_path: Path) -> tuple[bytes, bytes, Path]:
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    restored = tmp_path / "restored"
    restored.mkdir()
    assert main(["-s", str(source), "export", "json", str(first)]) == 0
    assert main(["-s", str(restored), "import", "json", str(first)]) == 0
    assert main(["-s", str(restored), "export", "json", str(second)]) == 0
    return first.read_bytes(), second.read_bytes(), restored


def test_export_then_import_into_an_empty_store_gives_the_same_memory(demo: Path, tmp_path: Path) -> None:
    first, second, restored = _round_trip(demo, tmp_path)
    assert first == second
    assert _files(restored, "wiki", "diary", "journal.jsonl") == _files(demo, "wiki", "diary", "journal.jsonl")
    doc = json.loads(first)
    assert doc["format"] == "wikimem-export" and doc["items"] and doc["diary"] and doc["journal"]
    assert {"from", "to", "resolved"} <= set(doc["links"][0])
    assert all({"entry", "ordinal", "ts"} <= set(e) for e in doc["diary"])


@pytest.mark.parametrize("source,path", [
    ("chatgpt", "chatgpt/conversations.json"), ("claude", "claude/conversations.json"),
    ("mcp-memory", "mcp-memory/memory.json"), ("mem0", "mem0/memories.json"), ("claude-md", "memory-bank"),
    ("obsidian", "vault"), ("basic-memory", "basic-memory"),
])
def test_each_import_round_trips_through_export(source: str, path: str, tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    assert main(["-s", str(memory), "import", source, str(FIXTURES / path)]) == 0
    first, second, restored = _round_trip(memory, tmp_path)
    assert first == second
    assert _files(restored, "wiki", "diary", "journal.jsonl") == _files(memory, "wiki", "diary", "journal.jsonl")


def test_import_json_into_a_store_that_holds_something_merges_and_keeps_its_history(demo: Path,
                                                                                   tmp_path: Path) -> None:
    doc = tmp_path / "doc.json"
    assert main(["-s", str(demo), "export", "json", str(doc)]) == 0
    other = tmp_path / "other"
    other.mkdir()
    MemoryStore(other).add("mine", "note", "Mine.")
    assert main(["-s", str(other), "import", "json", str(doc)]) == 0
    lines = (other / "journal.jsonl").read_text("utf-8").splitlines()
    assert json.loads(lines[0])["item"] == "note"
    assert all(json.loads(line).get("detail") == "imported from json" for line in lines[1:])
    before = _files(other, "wiki", "diary", "journal.jsonl")
    assert main(["-s", str(other), "import", "json", str(doc)]) == 0
    assert _files(other, "wiki", "diary", "journal.jsonl") == before


@pytest.mark.parametrize("spelling", ["reference", "obsidian"])
def test_the_vault_has_a_note_per_item_and_its_links_reach_notes(demo: Path, tmp_path: Path, spelling: str) -> None:
    if spelling == "obsidian":  # the same links written [[file#name]] (and one [[#name]] of the same file)
        respelled = MemoryStore(demo)
        assert respelled.respell_links("obsidian")
        respelled.add("people", "lin-note", "See [[#lin]] and [[people#priya|her]].")
    vault = tmp_path / "vault"
    assert main(["-s", str(demo), "export", "vault", str(vault)]) == 0
    store = MemoryStore(demo)
    for item in store.items():
        note = vault / item.file / f"{item.name}.md"
        text = note.read_text("utf-8")
        assert text.startswith(f'---\nwikimem_file: "{item.file}"\nwikimem_item: "{item.name}"\n')
        assert "[[" not in text or ":" not in "".join(re.findall(r"\[\[([^\]]*)\]\]", text))
    resolved = dangling = 0
    for item in store.items():
        note_text = (vault / item.file / f"{item.name}.md").read_text("utf-8")
        for target in re.findall(r"\[\[([^\]|]*)(?:\|[^\]]*)?\]\]", note_text):  # a label kept or not
            if (vault / f"{target}.md").is_file():
                resolved += 1
            else:
                dangling += 1
    links = [link for item in store.items() for link in item.links]
    missing = sum(1 for link in links if store.get(link.file, link.name) is None)
    assert (resolved, dangling) == (len(links) - missing, missing)  # every link that resolves here resolves there
    assert resolved > 0
    # A second export replaces its own notes; a folder that is not an export is refused.
    assert main(["-s", str(demo), "export", "vault", str(vault)]) == 0
    assert json.loads((vault / MARKER).read_text("utf-8"))
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "mine.md").write_text("mine", "utf-8")
    assert main(["-s", str(demo), "export", "vault", str(foreign)]) == 2
    assert [p.name for p in foreign.iterdir()] == ["mine.md"]


def test_the_digest_is_regenerated_and_never_written_over_a_hand_kept_file(demo: Path, tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "CLAUDE.md"
    argv = ["-s", str(demo), "export", "digest", str(out), "--items", "people:lin", "--file", "preferences"]
    assert main(argv) == 0
    text = out.read_text("utf-8")
    assert text.startswith("<!-- generated by wikimem by `wikimem -s ") and "export digest" in text.splitlines()[0]
    assert "\n## people:lin\n" in text and text.count("\n## preferences:") == len(MemoryStore(demo).items("preferences"))
    assert main(argv) == 0 and out.read_text("utf-8") == text
    hand = tmp_path / "AGENTS.md"
    hand.write_text("# my own notes\n", "utf-8")
    capsys.readouterr()
    assert main(["-s", str(demo), "export", "digest", str(hand), "--file", "preferences"]) == 2
    assert "not generated by wikimem" in capsys.readouterr().err
    assert hand.read_text("utf-8") == "# my own notes\n"
    assert main(["-s", str(demo), "export", "digest", str(hand), "--file", "preferences", "--force"]) == 0
    assert main(["-s", str(demo), "export", "digest", str(out), "--items", "people:nobody"]) == 2
    assert main(["-s", str(demo), "export", "digest", str(out)]) == 1


def test_the_digest_takes_the_files_a_frontmatter_tag_names(demo: Path, tmp_path: Path) -> None:
    path = demo / "wiki" / "preferences.md"
    path.write_text("---\ntags: [pinned, taste]\n---\n" + path.read_text("utf-8"), "utf-8")
    out = tmp_path / "CLAUDE.md"
    assert main(["-s", str(demo), "export", "digest", str(out), "--tag", "#pinned"]) == 0
    text = out.read_text("utf-8")
    assert text.count("\n## preferences:") == len(MemoryStore(demo).items("preferences"))
    assert "\n## people:" not in text and "--tag '#pinned'" in text.splitlines()[0]
    assert main(["-s", str(demo), "export", "digest", str(out), "--tag", "nothing-tagged"]) == 2


def test_a_recallfile_named_dot_dot_cannot_lead_the_vault_out_of_its_folder(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    (memory / "wiki").mkdir(parents=True)
    (memory / "wiki" / "...md").write_text("# ..\n\n## escape\n\nOut of the vault?\n", "utf-8")
    vault = tmp_path / "out" / "vault"
    assert main(["-s", str(memory), "export", "vault", str(vault)]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["vault"]
    assert all(vault in p.resolve().parents for p in vault.rglob("*"))


def test_the_digest_reads_tags_as_recall_does(demo: Path, tmp_path: Path) -> None:
    # One frontmatter reader: `tags: pinned, taste` (Obsidian's comma list) tags the file for recall --tag,
    # so it does for the digest too.
    path = demo / "wiki" / "preferences.md"
    path.write_text("---\ntags: pinned, taste\n---\n" + path.read_text("utf-8"), "utf-8")
    assert MemoryStore(demo).file_meta("preferences").tags == ("pinned", "taste")
    out = tmp_path / "CLAUDE.md"
    assert main(["-s", str(demo), "export", "digest", str(out), "--tag", "taste"]) == 0
    assert out.read_text("utf-8").count("\n## preferences:") == len(MemoryStore(demo).items("preferences"))


def test_a_digest_on_stdout_shows_hidden_characters_as_every_text_output_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = MemoryStore(tmp_path / "memory")
    store.add("notes", "colour", "red \x1b]52;c;aGk=\x07 text")
    capsys.readouterr()
    assert main(["-s", str(store.root), "export", "digest", "-", "--file", "notes"]) == 0
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\x07" not in printed and "\\x1b]52;c;aGk=\\x07" in printed


def test_the_vault_keeps_a_links_label(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "memory")
    store.add("people", "lin", "A friend.")
    store.add("notes", "tea", "Ask [[people#lin|Lin]] and [[people:lin]].")
    vault = tmp_path / "vault"
    assert main(["-s", str(store.root), "export", "vault", str(vault)]) == 0
    assert "Ask [[people/lin|Lin]] and [[people/lin]]." in (vault / "notes" / "tea.md").read_text("utf-8")


def test_the_text_summary_names_what_it_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It said ``exported 1 items, 1 diary, 2 journal``: the JSON keys, not words."""
    store = MemoryStore(tmp_path / "memory")
    store.add("people", "Bob", "Bob drinks coffee.")
    store.diary.append("Met Bob.", date="2026-07-21", time="09:00")
    assert main(["-s", str(store.root), "export", "json", str(tmp_path / "out.json")]) == 0
    assert capsys.readouterr().out == f"exported 1 item, 1 diary entry, 2 journal lines to {tmp_path / 'out.json'}\n"


def test_a_note_edited_in_the_vault_is_never_written_over(demo: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A re-export replaced a note edited in Obsidian without a word; now it refuses and writes nothing."""
    vault = tmp_path / "vault"
    assert main(["-s", str(demo), "export", "vault", str(vault)]) == 0
    note = next(vault.glob("people/*.md"))
    note.write_text("my own words, written in Obsidian\n", "utf-8")
    before = _files(vault, ".")
    capsys.readouterr()
    assert main(["-s", str(demo), "export", "vault", str(vault)]) == 2
    assert f"{note.relative_to(vault).as_posix()} changed since the last export" in capsys.readouterr().err
    assert _files(vault, ".") == before and before
    note.unlink()  # moved aside: the export goes on and writes the note again
    assert main(["-s", str(demo), "export", "vault", str(vault)]) == 0 and note.is_file()


def test_export_json_replaces_an_earlier_export_but_no_other_file(demo: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``export json notes.md`` replaced the file without a word; the digest already refused."""
    out = tmp_path / "memory-export.json"
    assert main(["-s", str(demo), "export", "json", str(out)]) == 0
    assert main(["-s", str(demo), "export", "json", str(out)]) == 0  # its own earlier export: replaced
    mine = tmp_path / "notes.md"
    mine.write_text("my notes\n", "utf-8")
    capsys.readouterr()
    assert main(["-s", str(demo), "export", "json", str(mine)]) == 2
    assert "not an earlier 'wikimem export json'" in capsys.readouterr().err
    assert mine.read_text("utf-8") == "my notes\n"
    assert main(["-s", str(demo), "export", "json", str(mine), "--force"]) == 0
    assert json.loads(mine.read_text("utf-8"))["format"] == "wikimem-export"
