"""The on-disk block format (SPEC §1, seeds/wikimem-on-disk-format.txt).

Reads are tolerant: a hand-edited file never raises. Writes are strict: the
exact bytes follow the seed's layout, the whole file is replaced atomically,
and bad input raises ``ValueError`` with nothing written.
"""

from __future__ import annotations

import datetime as dt
import os
import random
from pathlib import Path

import pytest

from wikimem import Diary, MemoryStore
from wikimem.disk.blocks import Block, render_block

SEED_TS = "2026-07-10T03:00:00+00:00"


def write_wiki(root: Path, file: str, data: str | bytes) -> Path:
    """Hand-write a RecallFile, as a human with an editor would."""
    path = root / "wiki" / f"{file}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (the advisory lock file aside) and its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != ".wikimem.lock"
    }


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path)


@pytest.fixture
def seeded(store: MemoryStore) -> MemoryStore:
    """A store that already holds one item, so "nothing written" is observable."""
    store.add("preferences", "likes-the-sea", "喜欢海边。", owner="user:xnne", ts=SEED_TS)
    return store


# -- tolerant reads -----------------------------------------------------------


def test_item_without_metadata_comment_has_none_provenance(store: MemoryStore) -> None:
    write_wiki(store.root, "notes", "# notes\n\n## plain\n\nJust text.\n")
    (item,) = store.items("notes")
    assert (item.name, item.content) == ("plain", "Just text.")
    assert (item.owner, item.source_conv, item.ts) == (None, None, None)


def test_metadata_comment_fields_are_read_with_source_as_source_conv(store: MemoryStore) -> None:
    write_wiki(
        store.root,
        "notes",
        "# notes\n\n## a\n\ntext\n\n"
        "<!-- wikimem: owner=user:xnne | source=conv_1 | ts=2026-07-10T03:00:00+00:00 -->\n",
    )
    item = store.get("notes", "a")
    assert item is not None
    assert (item.owner, item.source_conv, item.ts) == ("user:xnne", "conv_1", SEED_TS)
    assert item.content == "text"


def test_prose_before_first_heading_belongs_to_no_item(store: MemoryStore) -> None:
    write_wiki(store.root, "notes", "# notes\n\nSome preamble prose.\n\n## a\n\nbody\n")
    assert [(i.name, i.content) for i in store.items("notes")] == [("a", "body")]


@pytest.mark.parametrize(
    "comment",
    [
        "<!-- wikimem: colour=blue -->",  # unknown key
        "<!-- wikimem: just words -->",  # not key=value
        "<!-- wikimem: owner=a | owner=b -->",  # key repeated
        "<!-- wikimem: -->",  # no fields at all
        "<!-- wikimem owner=a -->",  # no colon after wikimem
        "<!-- owner=a -->",  # not a wikimem comment
        "<!-- wikimem: owner=a",  # unterminated
    ],
)
def test_malformed_metadata_comment_is_content(store: MemoryStore, comment: str) -> None:
    write_wiki(store.root, "notes", f"# notes\n\n## a\n\nbody\n\n{comment}\n")
    item = store.get("notes", "a")
    assert item is not None
    assert item.content == f"body\n\n{comment}"
    assert (item.owner, item.source_conv, item.ts) == (None, None, None)


def test_repeated_heading_in_wiki_reads_last_occurrence(store: MemoryStore) -> None:
    write_wiki(store.root, "notes", "# notes\n\n## a\n\nfirst\n\n## b\n\nother\n\n## a\n\nsecond\n")
    assert [(i.name, i.content) for i in store.items("notes")] == [("a", "second"), ("b", "other")]
    assert store.get("notes", "a").content == "second"  # type: ignore[union-attr]


def test_repeated_heading_in_wiki_survives_a_write_to_another_item_and_refuses_one_to_itself(
    store: MemoryStore,
) -> None:
    # SPEC §5 (issue 13) overrides §1's "collapses on the next write": no
    # write may change a block it does not address.
    from wikimem import LossyWriteError

    before = b"# notes\n\n## a\n\nfirst\n\n## a\n\nsecond\n"
    path = write_wiki(store.root, "notes", before)
    store.add("notes", "c", "new", ts=SEED_TS)
    assert path.read_bytes().startswith(before)
    with pytest.raises(LossyWriteError, match="'a' heads 2 blocks"):
        store.add("notes", "a", "third", ts=SEED_TS)
    assert path.read_bytes().startswith(before)


def test_invalid_utf8_is_decoded_with_replacement_characters(store: MemoryStore) -> None:
    write_wiki(store.root, "notes", b"# notes\n\n## a\n\nbad \xff\xfe bytes\n")
    assert store.get("notes", "a").content == "bad \ufffd\ufffd bytes"  # type: ignore[union-attr]


def test_crlf_line_endings_are_accepted(store: MemoryStore) -> None:
    write_wiki(
        store.root,
        "notes",
        "# notes\r\n\r\n## a\r\n\r\nline one\r\nline two\r\n\r\n<!-- wikimem: owner=me -->\r\n",
    )
    item = store.get("notes", "a")
    assert item is not None
    assert (item.content, item.owner) == ("line one\nline two", "me")


def test_utf8_byte_order_mark_is_accepted(store: MemoryStore) -> None:
    write_wiki(store.root, "notes", "\ufeff## a\n\nbody\n")
    assert [(i.name, i.content) for i in store.items("notes")] == [("a", "body")]


def test_missing_file_reads_as_empty(store: MemoryStore, tmp_path: Path) -> None:
    assert store.items("nothing") == []
    assert store.get("nothing", "a") is None
    assert Diary(tmp_path).day("2026-07-21") == []


def test_triple_hash_line_is_content_not_a_new_block(store: MemoryStore) -> None:
    write_wiki(store.root, "notes", "## a\n\nintro\n### detail\nmore\n")
    assert [(i.name, i.content) for i in store.items("notes")] == [("a", "intro\n### detail\nmore")]


def test_hand_typed_heading_whitespace_collapses_like_a_sanitized_name(store: MemoryStore) -> None:
    write_wiki(store.root, "notes", "##   two    words  \n\nbody\n")
    assert [i.name for i in store.items("notes")] == ["two words"]
    store.add("notes", "two words", "replaced", ts=SEED_TS)
    assert [(i.name, i.content) for i in store.items("notes")] == [("two words", "replaced")]


def test_empty_metadata_value_reads_as_unset(store: MemoryStore) -> None:
    write_wiki(store.root, "notes", "## a\n\nbody\n\n<!-- wikimem: owner= | source=c1 -->\n")
    item = store.get("notes", "a")
    assert item is not None
    assert (item.owner, item.source_conv) == (None, "c1")


def test_seed_example_file_reads_as_documented(store: MemoryStore) -> None:
    write_wiki(
        store.root,
        "preferences",
        "# preferences\n\n## likes-the-sea\n\n"
        "喜欢海边，提到过想去海边玩。[[daily_life:beach-trip-plan]]\n\n"
        "<!-- wikimem: owner=user:xnne | source=conv_20260710 | ts=2026-07-10T03:00:00+00:00 -->\n\n"
        "## 手冲咖啡\n\n只喝手冲咖啡，从不加糖。\n",
    )
    first, second = store.items("preferences")
    assert first.content == "喜欢海边，提到过想去海边玩。[[daily_life:beach-trip-plan]]"
    assert (first.owner, first.source_conv, first.ts) == ("user:xnne", "conv_20260710", SEED_TS)
    assert [link.render() for link in first.links] == ["[[daily_life:beach-trip-plan]]"]
    assert (second.name, second.content, second.owner) == ("手冲咖啡", "只喝手冲咖啡，从不加糖。", None)


# -- strict, byte-exact writes ------------------------------------------------


def test_written_file_follows_the_seed_layout_byte_for_byte(store: MemoryStore) -> None:
    store.add(
        "preferences",
        "likes-the-sea",
        "  喜欢海边，提到过想去海边玩。[[daily_life:beach-trip-plan]]\n\n",
        owner="user:xnne",
        source_conv="conv_20260710",
        ts=SEED_TS,
    )
    store.add("preferences", "手冲咖啡", "只喝手冲咖啡，从不加糖。", ts="2026-07-12T01:20:00+00:00")
    assert (store.root / "wiki" / "preferences.md").read_bytes() == (
        "# preferences\n"
        "\n"
        "## likes-the-sea\n"
        "\n"
        "喜欢海边，提到过想去海边玩。[[daily_life:beach-trip-plan]]\n"
        "\n"
        "<!-- wikimem: owner=user:xnne | source=conv_20260710 | ts=2026-07-10T03:00:00+00:00 -->\n"
        "\n"
        "## 手冲咖啡\n"
        "\n"
        "只喝手冲咖啡，从不加糖。\n"
        "\n"
        "<!-- wikimem: ts=2026-07-12T01:20:00+00:00 -->\n"
    ).encode("utf-8")


def test_metadata_comment_is_omitted_when_no_field_is_set() -> None:
    assert render_block(Block("a", "body")) == "## a\n\nbody\n"


def test_metadata_comment_lists_only_the_fields_that_are_set(store: MemoryStore) -> None:
    store.add("notes", "a", "body", owner="me", ts=SEED_TS)
    text = (store.root / "wiki" / "notes.md").read_text(encoding="utf-8")
    assert text.endswith(f"\n<!-- wikimem: owner=me | ts={SEED_TS} -->\n")
    assert "source=" not in text


def test_pipe_in_owner_and_source_is_written_as_slash(store: MemoryStore) -> None:
    item = store.add("notes", "a", "body", owner="team|alice", source_conv="conv|1", ts=SEED_TS)
    text = (store.root / "wiki" / "notes.md").read_text(encoding="utf-8")
    assert f"<!-- wikimem: owner=team/alice | source=conv/1 | ts={SEED_TS} -->" in text
    assert (item.owner, item.source_conv) == ("team/alice", "conv/1")
    assert store.get("notes", "a") == item


@pytest.mark.parametrize(
    "given",
    [
        "2026-07-10T11:00:00+08:00",
        "2026-07-10T03:00:00.987654+00:00",
        "2026-07-10T03:00:00Z",
        "2026-07-09T23:00:00-04:00",
        dt.datetime(2026, 7, 10, 3, 0, 0, 500, tzinfo=dt.timezone.utc),
    ],
)
def test_ts_is_normalized_to_utc_second_precision(store: MemoryStore, given: str | dt.datetime) -> None:
    item = store.add("notes", "a", "body", ts=given)
    assert item.ts == SEED_TS
    assert store.get("notes", "a").ts == SEED_TS  # type: ignore[union-attr]


def test_naive_ts_is_taken_as_utc(store: MemoryStore) -> None:
    assert store.add("notes", "a", "body", ts="2026-07-10T03:00:00").ts == SEED_TS


def test_ts_defaults_to_now_in_utc(store: MemoryStore) -> None:
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    item = store.add("notes", "a", "body")
    after = dt.datetime.now(dt.timezone.utc)
    assert item.ts is not None and item.ts.endswith("+00:00") and "." not in item.ts
    assert before <= dt.datetime.fromisoformat(item.ts) <= after


def test_write_leaves_no_temp_files(store: MemoryStore) -> None:
    for n in range(5):
        store.add("notes", f"item-{n}", f"body {n}", ts=SEED_TS)
    store.remove("notes", "item-0")
    store.diary.append("event", ts=SEED_TS, tz="UTC")
    assert sorted(p.name for p in (store.root / "wiki").iterdir()) == ["notes.md"]
    assert sorted(p.name for p in (store.root / "diary").iterdir()) == ["2026-07-10.md"]


def test_write_replaces_the_whole_file_with_os_replace_from_the_same_directory(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.add("notes", "a", "first", ts=SEED_TS)
    calls: list[tuple[Path, Path]] = []
    real_replace = os.replace

    def spy(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls.append((Path(src), Path(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    store.add("notes", "b", "second", ts=SEED_TS)
    target = store.root / "wiki" / "notes.md"
    assert len(calls) == 1
    assert calls[0][1] == target and calls[0][0].parent == target.parent


def test_failed_replace_keeps_the_old_file_and_leaves_no_temp_file(
    seeded: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(seeded.root)

    def broken(src: object, dst: object) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        seeded.add("preferences", "other", "body", ts=SEED_TS)
    assert snapshot(seeded.root) == before


def test_hand_written_preamble_is_kept_on_write(store: MemoryStore) -> None:
    path = write_wiki(store.root, "notes", "# My notes\n\nKept by hand.\n\n## a\n\nbody\n")
    store.add("notes", "b", "more", ts=SEED_TS)
    assert path.read_text(encoding="utf-8").startswith("# My notes\n\nKept by hand.\n\n## a\n\nbody\n\n## b\n")


# -- strict writes: bad input raises and writes nothing -----------------------


@pytest.mark.parametrize("file", ["", "Preferences", "-lead", "a b", "a/b", "../x", "a.md", "café", "a.b", "x\n"])
def test_bad_file_name_is_rejected_and_nothing_written(seeded: MemoryStore, file: str) -> None:
    before = snapshot(seeded.root)
    with pytest.raises(ValueError, match=r"(?i)name"):
        seeded.add(file, "a", "body")
    assert snapshot(seeded.root) == before


@pytest.mark.parametrize("name", ["", "   ", "\n\t", "a[[b", "a]]b", "work:job", "a|b", "#tag", "c# code"])
def test_bad_item_name_is_rejected_and_nothing_written(seeded: MemoryStore, name: str) -> None:
    before = snapshot(seeded.root)
    with pytest.raises(ValueError, match=r"(?i)name"):
        seeded.add("preferences", name, "body")
    assert snapshot(seeded.root) == before


@pytest.mark.parametrize(
    "content",
    [
        "",
        "  \n\t \n",
        "## looks like a heading",
        "intro\n## sneaky new block\nmore",
        "intro\r\n## sneaky new block",
        "text\n<!-- wikimem: owner=x -->",
        "text\n\n<!-- wikimem: ts=2026-07-10T03:00:00+00:00 -->\n\n",
    ],
)
def test_content_that_would_not_round_trip_is_rejected_and_nothing_written(
    seeded: MemoryStore, content: str
) -> None:
    before = snapshot(seeded.root)
    with pytest.raises(ValueError, match=r"(?i)content"):
        seeded.add("preferences", "likes-the-sea", content)
    with pytest.raises(ValueError, match=r"(?i)content"):
        seeded.diary.append(content, ts=SEED_TS)
    assert snapshot(seeded.root) == before


@pytest.mark.parametrize(
    "ts",
    ["yesterday", "", "2026-13-01T00:00:00+00:00", "2026-07-10 25:00", "9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+01:00"],
)
def test_bad_ts_is_rejected_and_nothing_written(seeded: MemoryStore, ts: str) -> None:
    before = snapshot(seeded.root)
    with pytest.raises(ValueError, match=r"(?i)\bts\b|time"):
        seeded.add("preferences", "likes-the-sea", "body", ts=ts)
    assert snapshot(seeded.root) == before


@pytest.mark.parametrize("owner", ["two\nlines", "ends -->", "<!-- opens"])
def test_provenance_that_would_tear_the_comment_is_rejected_and_nothing_written(
    seeded: MemoryStore, owner: str
) -> None:
    before = snapshot(seeded.root)
    with pytest.raises(ValueError, match="owner"):
        seeded.add("preferences", "likes-the-sea", "body", owner=owner)
    assert snapshot(seeded.root) == before


# -- round trip ---------------------------------------------------------------

TRICKY_CONTENTS = [
    "# a markdown title\n\n* bullet\n* list\n\n```python\nprint('## not a heading')\n```",
    "### a sub-heading is fine\ntext under it",
    "<!-- not wikimem -->",
    "before\n<!-- not wikimem -->",
    "<!-- wikimem: owner=x -->\nmetadata-looking line that is not the last",
    "text\n<!-- wikimem: colour=blue -->",
    "links [[x:y]] and [[ people : 林 ]] and a broken [[x]]",
    "中文内容，没有空格。还有标点！",
    "emoji 🎉🧠 and ZWJ 👩‍💻",
    "para one\n\n\n\npara two",
    "trailing spaces   \nnext line\t\nend",
    "  leading spaces on the first line are stripped",
    "inner\n    indented code\n  ## indented hashes are not a heading",
    "##no-space-is-not-a-heading",
    "#",
    "-->",
    "a\u2028line separator and a\x85next line and a\x0cform feed",
    "tabs\tinside\tline",
    "x" * 20_000,
]


@pytest.mark.parametrize("content", TRICKY_CONTENTS)
def test_wiki_reads_back_exactly_what_add_accepted(store: MemoryStore, content: str) -> None:
    item = store.add("notes", "tricky", content, ts=SEED_TS)
    assert item.content == content.strip()
    assert store.get("notes", "tricky") == item


@pytest.mark.parametrize("content", TRICKY_CONTENTS)
def test_diary_reads_back_exactly_what_append_accepted(tmp_path: Path, content: str) -> None:
    diary = Diary(tmp_path)
    entry = diary.append(content, ts=SEED_TS, tz="UTC")
    assert entry.content == content.strip()
    assert diary.day(entry.date) == [entry]


def test_crlf_and_cr_line_endings_in_content_are_stored_as_lf(store: MemoryStore) -> None:
    item = store.add("notes", "a", "one\r\ntwo\rthree", ts=SEED_TS)
    assert item.content == "one\ntwo\nthree"
    assert store.get("notes", "a") == item


def test_random_mixtures_of_tricky_lines_round_trip(store: MemoryStore) -> None:
    rng = random.Random(20260710)
    fragments = [line for text in TRICKY_CONTENTS[:-1] for line in text.split("\n")] + ["", " ", "\t"]
    for n in range(150):
        lines = [rng.choice(fragments) for _ in range(rng.randint(1, 12))]
        content = "\n".join(["start", *lines, "end"])
        item = store.add("mix", f"case {n % 7}", content, ts=SEED_TS)
        assert item.content == content.strip()
        assert store.get("mix", f"case {n % 7}") == item


def test_provenance_values_round_trip(store: MemoryStore) -> None:
    item = store.add("notes", "a", "body", owner="user:林 = 管理员", source_conv="conv 2026/07 #3", ts=SEED_TS)
    assert (item.owner, item.source_conv) == ("user:林 = 管理员", "conv 2026/07 #3")
    assert store.get("notes", "a") == item


def test_rewriting_an_unchanged_file_is_byte_stable(store: MemoryStore) -> None:
    store.add("notes", "a", "first", owner="me", ts=SEED_TS)
    store.add("notes", "b", "second", ts=SEED_TS)
    path = store.root / "wiki" / "notes.md"
    before = path.read_bytes()
    store.add("notes", "a", "first", owner="me", ts=SEED_TS)
    assert path.read_bytes() == before
