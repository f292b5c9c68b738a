"""Obsidian's link spellings (SPEC §10): links everywhere the reference's ``[[file:name]]`` is.

``[[file#name]]``, ``[[file#name|label]]``, ``[[#name]]`` (same file) and
``[[file]]`` (the RecallFile) are read by :func:`wikimem.find_links` and
followed by expansion, backlinks, the graph, lint and the move's rewrite;
``parse_wiki_links`` keeps the reference's exact answers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wikimem import LinkRef, MemoryIndex, MemoryStore, RecallItem, WikiLink, find_links, parse_wiki_links, render_link
from wikimem.cli import main
from wikimem.lint import lint


@pytest.mark.parametrize(("text", "expected"), [
    ("[[travel#beach trip]]", [("travel", "beach trip", "obsidian", None)]),
    ("[[travel#beach trip|the trip]]", [("travel", "beach trip", "obsidian", "the trip")]),
    ("[[Travel.md#beach trip]]", [("travel", "beach trip", "obsidian", None)]),
    ("[[wiki/travel#beach trip]]", [("travel", "beach trip", "obsidian", None)]),
    ("[[travel]] [[travel|trips]]", [("travel", None, "obsidian", None), ("travel", None, "obsidian", "trips")]),
    ("[[#beach trip]]", [("here", "beach trip", "obsidian", None)]),
    ("[[travel#2026#beach trip]]", [("travel", "beach trip", "obsidian", None)]),  # nested headings: the last
    ("[[travel#^block-id]]", [("travel", None, "obsidian", None)]),  # a block reference: the note
    ("[[a:b]] [[a#b]]", [("a", "b", "reference", None), ("a", "b", "obsidian", None)]),
    ("[[a#]] [[#]] [[]] [[|x]] [[:x]] [[a:b:c]]", []),
])
def test_find_links_reads_both_spellings(text: str, expected: list[tuple[object, ...]]) -> None:
    assert [(r.file, r.name, r.spelling, r.label) for r in find_links(text, here="here")] == expected


def test_a_same_file_link_needs_to_know_its_file() -> None:
    assert find_links("[[#x]]") == []
    assert find_links("[[#x]]", here="f")[0].target == WikiLink("f", "x")


def test_parse_wiki_links_keeps_the_reference_answers() -> None:
    text = "[[a:b]] [[a#b]] [[a]] [[#b]]"
    assert parse_wiki_links(text) == [WikiLink("a", "b")]


def test_a_link_renders_in_its_own_spelling() -> None:
    refs = find_links("[[a:b]] [[a#b|B]] [[#b]] [[a]]", here="a")
    assert [r.render() for r in refs] == ["[[a:b]]", "[[a#b|B]]", "[[#b]]", "[[a]]"]
    assert render_link(WikiLink("a", "b"), "obsidian") == "[[a#b]]"
    assert render_link(WikiLink("a", "b")) == "[[a:b]]"
    with pytest.raises(ValueError):
        render_link(WikiLink("a", "b"), "wiki")
    assert isinstance(refs[0], LinkRef)


def test_item_links_include_obsidian_item_links_not_file_links() -> None:
    item = RecallItem("notes", "x", "see [[a:b]], [[c#d|D]], [[#e]] and [[f]]")
    assert item.links == [WikiLink("a", "b"), WikiLink("c", "d"), WikiLink("notes", "e")]


@pytest.fixture
def vault(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path / "m")
    store.add("travel", "beach trip", "Sand and sun in July.")
    store.add("travel", "packing", "Pack for [[#beach trip|the trip]]: towels.")
    store.add("people", "ada", "Ada planned [[travel#beach trip]]. Also see [[travel]].")
    return store


def test_expansion_follows_obsidian_links(vault: MemoryStore) -> None:
    result = MemoryIndex(vault).retrieve("towels")
    assert [(e.item.file, e.item.name, e.source) for e in result.items] == [
        ("travel", "packing", "hit"), ("travel", "beach trip", "link")]


def test_unresolved_obsidian_links_are_reported_as_written(vault: MemoryStore) -> None:
    vault.add("people", "ben", "Ben wants [[travel#mountains|hills]].")
    result = MemoryIndex(vault).retrieve("Ben wants")
    assert "[[travel#mountains|hills]]" in result.unresolved_links


def test_move_rewrites_each_link_in_its_own_spelling(vault: MemoryStore) -> None:
    vault.add("people", "ben", "Ben read [[travel:beach trip]].")
    vault.move("travel", "beach trip", new_file="trips", new_name="seaside")
    assert vault.get("people", "ada").content == "Ada planned [[trips#seaside]]. Also see [[travel]]."
    assert vault.get("people", "ben").content == "Ben read [[trips:seaside]]."
    # The same-file link from the old file now names the new file, its label kept.
    assert vault.get("travel", "packing").content == "Pack for [[trips#seaside|the trip]]: towels."


def test_a_moved_item_keeps_its_same_file_links_pointing_home(vault: MemoryStore) -> None:
    vault.move("travel", "packing", new_file="lists")
    assert vault.get("lists", "packing").content == "Pack for [[travel#beach trip|the trip]]: towels."


def test_rename_within_a_file_keeps_a_same_file_link_relative(vault: MemoryStore) -> None:
    vault.move("travel", "beach trip", new_name="seaside")
    assert vault.get("travel", "packing").content == "Pack for [[#seaside|the trip]]: towels."


def test_lint_counts_obsidian_links_and_flags_dangling_ones(vault: MemoryStore) -> None:
    vault.add("people", "ben", "Ben: [[Travel#beach trip|trip]], [[archive]], [[travel#nope]].")
    findings = [(f.code, f.location.item, f.message) for f in lint(vault.root).findings]
    codes = [(code, item) for code, item, _ in findings if code != "orphan"]
    assert codes == [("dangling-link", "ben"), ("dangling-link", "ben")]
    assert not any(code == "malformed-link" for code, _, _ in findings)
    orphans = {item for code, item, _ in findings if code == "orphan"}
    assert "beach trip" not in orphans  # linked to by Obsidian links only


def test_graph_has_obsidian_edges(vault: MemoryStore, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-s", str(vault.root), "graph", "--format", "json"]) == 0
    edges = json.loads(capsys.readouterr().out)["edges"]
    assert {"source": "people:ada", "target": "travel:beach trip"} in edges
    assert {"source": "travel:packing", "target": "travel:beach trip"} in edges


def test_mcp_backlinks_see_obsidian_links(vault: MemoryStore) -> None:
    from wikimem.server.backlinks import Backlinks

    wiki, _ = Backlinks(vault).of("travel", "beach trip")
    assert wiki == [{"file": "people", "name": "ada"}, {"file": "travel", "name": "packing"}]


def test_evidence_may_cite_an_item_in_obsidian_spelling() -> None:
    from wikimem import parse_evidence

    evidence = parse_evidence("(evidence: [[travel#beach trip]], owner user:x)")
    assert evidence.link == WikiLink("travel", "beach trip")


# -- the memory's setting and respelling ---------------------------------------------------------


def test_init_links_writes_the_setting_and_respell_follows_it(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "m"
    assert main(["init", str(root), "--links", "obsidian"]) == 0
    store = MemoryStore(root)
    assert store.settings.link_spelling == "obsidian"
    store.add("travel", "beach trip", "Sun.")
    store.add("people", "ada", "Planned [[travel:beach trip]], [[people:ada]] and [[travel]].")
    capsys.readouterr()
    assert main(["-s", str(root), "respell-links", "--dry-run", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == [{"file": "people", "name": "ada"}]
    assert store.get("people", "ada").content.startswith("Planned [[travel:beach trip]]")  # dry run: nothing written
    assert main(["-s", str(root), "respell-links"]) == 0
    assert store.get("people", "ada").content == "Planned [[travel#beach trip]], [[people#ada]] and [[travel]]."
    journal = [line for line in store.journal.entries() if line.get("detail") == "links respelled (obsidian)"]
    assert [(line["action"], line["item"]) for line in journal] == [("update", "ada")]
    # Back again: the meaning is the same either way, so the round trip is exact.
    assert store.respell_links("reference") == [("people", "ada")]
    assert store.get("people", "ada").content == "Planned [[travel:beach trip]], [[people:ada]] and [[travel]]."
    assert store.respell_links("reference") == []


def test_respell_to_reference_keeps_what_it_cannot_spell(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m")
    store.add("notes", "x", "A [[notes#y|label]] and [[#y]] and [[notes]].")
    store.respell_links("reference")
    assert store.get("notes", "x").content == "A [[notes#y|label]] and [[notes:y]] and [[notes]]."


def test_init_refuses_a_setting_that_says_otherwise(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "m"
    assert main(["init", str(root), "--links", "obsidian"]) == 0
    assert main(["init", str(root), "--links", "obsidian"]) == 0  # the same again: nothing changes
    assert main(["init", str(root), "--links", "reference"]) == 2
    assert "says otherwise" in capsys.readouterr().err


@pytest.mark.parametrize("text", ['[links]\nspelling = "wiki"\n', "not toml ][", '[links]\nspelling = 3\n',
                                  "links = 1\n", "\udcff".encode("utf-8", "surrogatepass").decode("latin-1")])
def test_a_broken_settings_file_means_the_defaults_and_a_lint_finding(tmp_path: Path, text: str) -> None:
    store = MemoryStore(tmp_path / "m")
    store.add("notes", "x", "a [[notes:x]]")
    (store.root / "wikimem.toml").write_text(text, "utf-8")
    assert store.settings.link_spelling == "reference"
    assert [f.code for f in lint(store.root).findings if f.code != "orphan"] == ["bad-settings"]


def test_a_settings_file_that_is_a_symlink_out_of_the_memory_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.toml"
    outside.write_text('[links]\nspelling = "obsidian"\n', "utf-8")
    store = MemoryStore(tmp_path / "m")
    store.add("notes", "x", "text")
    (store.root / "wikimem.toml").symlink_to(outside)
    assert store.settings.link_spelling == "reference"
    assert [f.code for f in lint(store.root).findings if f.code != "orphan"] == ["bad-settings"]


# -- frontmatter ---------------------------------------------------------------------------------

FRONT = "---\ntags: [travel, \"#summer\"]\naliases:\n  - Trips\n  - beach trips\nother: [x]\n---\n# travel\n\n## beach trip\n\nSun.\n"


@pytest.mark.parametrize(("text", "tags", "aliases"), [
    (FRONT, ("travel", "summer"), ("Trips", "beach trips")),
    ("---\ntags: a, b #comment\nalias: x\n---\n", ("a", "b"), ("x",)),
    ("---\ntag:\n- a\n-\n- a\n---\n", ("a",), ()),
    ("\ufeff---\ntags: 'q'\n---\n", ("q",), ()),
    ("# title\n---\ntags: a\n---\n", (), ()),  # not at the very start: not frontmatter
    ("---\ntags: a\n", (), ()),  # never closed
    ("---\n" + "x: y\n" * 20000 + "tags: a\n---\n", (), ()),  # too long to be a header
    ("---\n: [\n\udcff\n---\n", (), ()),
])
def test_frontmatter_tags_and_aliases(text: str, tags: tuple[str, ...], aliases: tuple[str, ...]) -> None:
    from wikimem.disk.frontmatter import read_file_meta

    assert read_file_meta(text) == __import__("wikimem").FileMeta(tags, aliases)


def test_the_store_reads_frontmatter_and_keeps_it_byte_for_byte(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m")
    store.add("travel", "x", "x")  # makes wiki/
    store.file_path("travel").write_text(FRONT, "utf-8")
    assert store.file_meta("travel").tags == ("travel", "summer")
    store.add("travel", "packing", "Towels.")
    assert store.file_path("travel").read_text("utf-8").startswith(FRONT)
    assert store.file_meta("people").tags == ()


def test_a_link_to_an_alias_is_not_dangling(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m")
    store.add("travel", "x", "x")
    store.file_path("travel").write_text(FRONT, "utf-8")
    store.add("people", "ada", "Ada: [[Trips]], [[beach trips|the trips]], [[nowhere]].")
    dangling = [f.message for f in lint(store.root).findings if f.code == "dangling-link"]
    assert len(dangling) == 1 and "[[nowhere]]" in dangling[0]


async def test_the_app_shows_a_files_tags_and_aliases(tmp_path: Path) -> None:
    from conftest import make_app, make_backend, started, wait_for
    from textual.widgets import Static

    from wikimem_tui.common.messages import OpenRecallFile

    store = MemoryStore(tmp_path)
    store.add("travel", "x", "x")
    store.file_path("travel").write_text(FRONT.replace("Trips", "[bold]Trips[/bold]"), "utf-8")
    async with started(make_app(make_backend(tmp_path))) as pilot:
        pilot.app.post_message(OpenRecallFile("travel"))
        meta = pilot.app.query_one("#item-meta", Static)
        expected = "1 item  ·  tags: #travel, #summer  ·  also: [bold]Trips[/bold], beach trips"
        assert await wait_for(pilot, lambda: str(meta.render()) == expected)
