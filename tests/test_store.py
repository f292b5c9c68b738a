"""MemoryStore (SPEC §2): the wiki, one RecallFile per topic under ``wiki/``.

The markdown files are the only truth: the store caches no content, so what
it returns is what is on disk right now.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wikimem import Diary, Journal, MemoryStore, RecallItem, WikiLink

TS = "2026-07-10T03:00:00+00:00"
DEMO = Path(__file__).resolve().parents[1] / "wikimem" / "demo"


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path / "memory")


def names(items: list[RecallItem]) -> list[tuple[str, str]]:
    return [(item.file, item.name) for item in items]


# -- construction and reading -------------------------------------------------


def test_constructing_a_store_touches_no_files(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    store = MemoryStore(root)
    assert store.files() == [] and store.items() == [] and store.get("a", "b") is None
    assert not root.exists()


def test_constructing_a_store_on_an_existing_directory_creates_nothing(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    MemoryStore(root).items()
    assert list(root.iterdir()) == []


def test_accepts_a_string_root(tmp_path: Path) -> None:
    MemoryStore(str(tmp_path)).add("notes", "a", "body", ts=TS)
    assert (tmp_path / "wiki" / "notes.md").is_file()


def test_files_are_the_sorted_stems_of_wiki_md(store: MemoryStore) -> None:
    for file in ["work", "daily_life", "a-z", "preferences"]:
        store.add(file, "x", "body", ts=TS)
    assert store.files() == ["a-z", "daily_life", "preferences", "work"]


def test_unknown_md_files_outside_wiki_are_not_memory(store: MemoryStore) -> None:
    store.add("notes", "a", "body", ts=TS)
    (store.root / "README.md").write_text("## stray\n\nnot memory\n", encoding="utf-8")
    (store.root / "other").mkdir()
    (store.root / "other" / "x.md").write_text("## stray\n\nnot memory\n", encoding="utf-8")
    (store.root / "wiki" / "nested").mkdir()
    (store.root / "wiki" / "nested" / "deep.md").write_text("## stray\n\nnot memory\n", encoding="utf-8")
    (store.root / "wiki" / "notes.txt").write_text("## stray\n\nnot memory\n", encoding="utf-8")
    store.diary.append("an event", ts=TS, tz="UTC")
    assert store.files() == ["notes"]
    assert names(store.items()) == [("notes", "a")]


def test_items_of_one_file_are_in_file_order(store: MemoryStore) -> None:
    for name in ["zeta", "alpha", "mid"]:
        store.add("notes", name, f"about {name}", ts=TS)
    assert [item.name for item in store.items("notes")] == ["zeta", "alpha", "mid"]


def test_items_without_a_file_walks_files_sorted_then_file_order(store: MemoryStore) -> None:
    store.add("work", "b", "x", ts=TS)
    store.add("people", "z", "x", ts=TS)
    store.add("work", "a", "x", ts=TS)
    store.add("people", "y", "x", ts=TS)
    assert names(store.items()) == [("people", "z"), ("people", "y"), ("work", "b"), ("work", "a")]
    assert store.items(None) == store.items()


def test_items_of_a_missing_file_is_empty(store: MemoryStore) -> None:
    store.add("notes", "a", "body", ts=TS)
    assert store.items("nothing") == []


def test_get_returns_the_item_with_its_provenance(store: MemoryStore) -> None:
    store.add("people", "lin", "大学室友。", owner="user:xnne", source_conv="conv_1", ts=TS)
    assert store.get("people", "lin") == RecallItem("people", "lin", "大学室友。", "user:xnne", "conv_1", TS)


def test_get_normalizes_the_name_first(store: MemoryStore) -> None:
    store.add("notes", "two words", "body", ts=TS)
    assert store.get("notes", "  two \n\t words ") == store.get("notes", "two words") is not None


@pytest.mark.parametrize(("file", "name"), [("notes", "missing"), ("missing", "a"), ("../etc", "a"), ("Bad", "a")])
def test_get_returns_none_for_what_is_not_there(store: MemoryStore, file: str, name: str) -> None:
    store.add("notes", "a", "body", ts=TS)
    assert store.get(file, name) is None


def test_reads_see_out_of_band_edits_at_once(store: MemoryStore) -> None:
    store.add("notes", "a", "body", ts=TS)
    path = store.root / "wiki" / "notes.md"
    path.write_text(path.read_text(encoding="utf-8").replace("body", "edited by hand"), encoding="utf-8")
    assert store.get("notes", "a").content == "edited by hand"  # type: ignore[union-attr]


def test_two_stores_on_one_root_see_each_others_writes(tmp_path: Path) -> None:
    first, second = MemoryStore(tmp_path), MemoryStore(tmp_path)
    first.add("notes", "a", "from first", ts=TS)
    second.add("notes", "b", "from second", ts=TS)
    assert names(first.items()) == names(second.items()) == [("notes", "a"), ("notes", "b")]


# -- add and remove -----------------------------------------------------------


def test_add_returns_the_item_as_stored(store: MemoryStore) -> None:
    item = store.add("notes", " my   item ", "\n  body text  \n", owner="me", source_conv="c", ts=TS)
    assert item == RecallItem("notes", "my item", "body text", "me", "c", TS)


def test_add_creates_the_wiki_directory_and_the_file(store: MemoryStore) -> None:
    store.add("notes", "a", "body", ts=TS)
    assert (store.root / "wiki" / "notes.md").read_text(encoding="utf-8").startswith("# notes\n\n## a\n")


def test_add_appends_a_new_item_at_the_end(store: MemoryStore) -> None:
    store.add("notes", "a", "1", ts=TS)
    store.add("notes", "b", "2", ts=TS)
    assert [item.name for item in store.items("notes")] == ["a", "b"]


def test_add_with_an_existing_name_replaces_it_in_place(store: MemoryStore) -> None:
    for name in ["a", "b", "c"]:
        store.add("notes", name, "old", ts=TS)
    store.add("notes", "b", "new", owner="me", ts=TS)
    assert [(i.name, i.content, i.owner) for i in store.items("notes")] == [
        ("a", "old", None),
        ("b", "new", "me"),
        ("c", "old", None),
    ]


def test_replacing_drops_provenance_that_is_not_given_again(store: MemoryStore) -> None:
    store.add("notes", "a", "old", owner="me", source_conv="c1", ts=TS)
    item = store.add("notes", "a", "new", ts=TS)
    assert (item.owner, item.source_conv) == (None, None)
    assert store.get("notes", "a") == item


def test_remove_deletes_the_item_and_returns_true(store: MemoryStore) -> None:
    store.add("notes", "a", "1", ts=TS)
    store.add("notes", "b", "2", ts=TS)
    assert store.remove("notes", "a") is True
    assert [item.name for item in store.items("notes")] == ["b"]


def test_remove_normalizes_the_name(store: MemoryStore) -> None:
    store.add("notes", "two words", "1", ts=TS)
    store.add("notes", "other", "2", ts=TS)
    assert store.remove("notes", " two\n words ") is True
    assert store.get("notes", "two words") is None


def test_removing_the_last_item_deletes_the_file(store: MemoryStore) -> None:
    store.add("notes", "only", "body", ts=TS)
    assert store.remove("notes", "only") is True
    assert not (store.root / "wiki" / "notes.md").exists()
    assert store.files() == []


def test_removing_a_repeated_heading_is_refused_and_writes_nothing(store: MemoryStore) -> None:
    # Issue 13 (SPEC §5): which of the two did the caller mean? Removing
    # both dropped a block nobody saw (the wiki shows the last one).
    from wikimem import LossyWriteError

    (store.root / "wiki").mkdir(parents=True)
    path = store.root / "wiki" / "notes.md"
    path.write_text("## a\n\none\n\n## b\n\nx\n\n## a\n\ntwo\n", encoding="utf-8")
    before = path.read_bytes()
    with pytest.raises(LossyWriteError, match=r"'a' heads 2 blocks \(lines 1, 9\)"):
        store.remove("notes", "a")
    assert path.read_bytes() == before


@pytest.mark.parametrize(("file", "name"), [("notes", "missing"), ("missing", "a")])
def test_remove_of_nothing_returns_false_and_writes_nothing(store: MemoryStore, file: str, name: str) -> None:
    store.add("notes", "a", "body", ts=TS)
    path = store.root / "wiki" / "notes.md"
    before = (path.read_bytes(), store.journal.path.read_bytes())
    assert store.remove(file, name) is False
    assert (path.read_bytes(), store.journal.path.read_bytes()) == before
    assert not (store.root / "wiki" / "missing.md").exists()


def test_remove_rejects_a_bad_file_name(store: MemoryStore) -> None:
    with pytest.raises(ValueError, match="RecallFile name"):
        store.remove("../notes", "a")


# -- revision -----------------------------------------------------------------


def test_revision_starts_at_zero(store: MemoryStore) -> None:
    assert store.revision == 0


def test_revision_is_bumped_by_every_successful_wiki_write(store: MemoryStore) -> None:
    store.add("notes", "a", "1", ts=TS)
    assert store.revision == 1
    store.add("notes", "a", "2", ts=TS)
    assert store.revision == 2
    store.remove("notes", "a")
    assert store.revision == 3


def test_revision_is_not_bumped_by_a_failed_or_empty_write(store: MemoryStore) -> None:
    store.add("notes", "a", "1", ts=TS)
    with pytest.raises(ValueError):
        store.add("notes", "a:b", "1", ts=TS)
    assert store.remove("notes", "missing") is False
    assert store.revision == 1


def test_revision_is_not_bumped_by_diary_writes(store: MemoryStore) -> None:
    store.diary.append("event", ts=TS, tz="UTC")
    assert store.revision == 0


def test_revision_is_not_bumped_by_out_of_band_edits(store: MemoryStore) -> None:
    store.add("notes", "a", "1", ts=TS)
    (store.root / "wiki" / "hand.md").write_text("## h\n\nby hand\n", encoding="utf-8")
    store.items()
    assert store.revision == 1


def test_revision_is_per_store_instance(tmp_path: Path) -> None:
    first, second = MemoryStore(tmp_path), MemoryStore(tmp_path)
    first.add("notes", "a", "1", ts=TS)
    assert (first.revision, second.revision) == (1, 0)


# -- journal and diary properties ---------------------------------------------


def test_journal_is_a_journal_at_root_journal_jsonl(store: MemoryStore) -> None:
    assert isinstance(store.journal, Journal)
    assert Path(store.journal.path) == store.root / "journal.jsonl"


def test_diary_is_a_diary_of_the_same_root(store: MemoryStore) -> None:
    assert isinstance(store.diary, Diary)
    entry = store.diary.append("event", ts=TS, tz="UTC")
    assert (store.root / "diary" / f"{entry.date}.md").is_file()


def test_diary_is_cached(store: MemoryStore) -> None:
    assert store.diary is store.diary


def test_diary_shares_the_stores_journal(store: MemoryStore) -> None:
    assert store.diary.journal is store.journal
    store.add("notes", "a", "1", ts=TS)
    store.diary.append("event", ts=TS, tz="UTC")
    assert [entry["action"] for entry in store.journal.entries()] == ["add", "diary"]


def test_touching_the_diary_property_creates_no_files(store: MemoryStore) -> None:
    assert store.diary.dates() == []
    assert not store.root.exists()


# -- the bundled demo memory --------------------------------------------------


def test_demo_memory_reads_without_errors() -> None:
    store = MemoryStore(DEMO)
    assert store.files() and all(item.content for item in store.items())
    assert store.diary.dates() and all(store.diary.day(date) for date in store.diary.dates())
    assert store.journal.entries()


def test_demo_memory_files_are_valid_names_and_items_valid_headings() -> None:
    from wikimem import sanitize_item_name, validate_file

    store = MemoryStore(DEMO)
    for item in store.items():
        assert validate_file(item.file) == item.file
        assert sanitize_item_name(item.name) == item.name


def test_every_demo_link_resolves_except_the_intentionally_dangling_one() -> None:
    store = MemoryStore(DEMO)
    entries = [*store.items(), *store.diary.window("1970-01-01", "9999-12-31")]
    dangling = {link for entry in entries for link in entry.links if store.get(link.file, link.name) is None}
    assert dangling == {WikiLink("work", "q4-demo")}
