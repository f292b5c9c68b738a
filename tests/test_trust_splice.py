"""Writes change only what they address (issue 13, findings 1 and 12; SPEC §5).

A write to one item leaves every other block's bytes as they were (repeated
headings, CRLF, bytes that are not UTF-8, odd layouts); what a write would
still lose is refused by one rule, shared with ``lint --fix``, with a
message that says what and where; removing a file's last item keeps
whatever else the file holds.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from wikimem import LossyWriteError, MemoryStore
from wikimem.disk.blocks import parse_blocks
from wikimem.disk.splice import conflict_marker_lines, split_raw

TS = "2026-07-10T03:00:00+00:00"


def plant(root: Path, rel: str, data: bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# -- the segmentation is the parser's --------------------------------------------------------

_PIECES = [b"## ", b"##", b"### ", b" ## ", b"#", b"a", b"b c", b"\n", b"\r\n", b"\r", b"\n\n", b"\xef\xbb\xbf",
           b"\xff", b"\xe2\x82", b"\xc3\xa9", b"<!-- wikimem: owner=x -->", b"<!-- wikimem owner=y", b"x" * 3,
           b"\t", b"\xc2\xa0", b"\x85", b"\xe2\x80\xa8", b"-->", b"|", b"ts=2026-07-10T03:00:00+00:00"]


def _fuzzed(rng: random.Random) -> bytes:
    head = rng.choice([b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf", b"# title\n\n", b"\xef\xbb"])
    return head + b"".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 40)))


def test_the_segments_are_exactly_the_blocks_parse_blocks_reads_on_fuzzed_and_hand_edited_files() -> None:
    rng = random.Random(13)
    samples = [_fuzzed(rng) for _ in range(4000)] + [
        b"", b"## a", b"\xef\xbb\xbf## a\r\n\r\nx\r\n", b"## a\rx\r## b\r", b"# t\n## a\n## a\n", b"x\n\xef\xbb\xbf## no\n",
        b"## a\n\n<!-- wikimem: owner=o | source=s | ts=t -->\n\n\n## b\n", b"\n\n## a\n\n\xff\xfe\n",
    ]
    for data in samples:
        raw = split_raw(data)
        assert raw.data() == data  # nothing lost, nothing added
        whole = parse_blocks(data.decode("utf-8", errors="replace"))
        assert [b.block for b in raw.blocks] == whole.blocks, data
        # each segment alone parses to its block: the splice can move segments freely
        assert [parse_blocks(b.raw.decode("utf-8", errors="replace")).blocks for b in raw.blocks] == \
            [[b] for b in whole.blocks], data
        assert parse_blocks((raw.preamble or b"").decode("utf-8", errors="replace")).blocks == []


# -- a write leaves every block it does not address byte for byte ------------------------------

HAND = (b"# notes\r\n\r\nprose before the first block \xff\r\n\r\n"
        b"## same\r\n\r\nfirst copy\r\n\r\n"
        b"## bad bytes\r\n\r\ncaf\xe9 \xff\xfe\r\n\r\n"
        b"##   spaced    name  \r\n\r\nkept   as\ttyped   \r\n<!--   wikimem: owner=hand   -->\r\n\r\n\r\n"
        b"## same\r\n\r\nsecond copy\r\n\r\n"
        b"## other\r\n\r\nplain\r\n")


@pytest.mark.parametrize("write", ["update", "add", "remove", "rename", "move-in", "move-out"])
def test_a_write_to_one_item_leaves_every_other_block_byte_for_byte(tmp_path: Path, write: str) -> None:
    store = MemoryStore(tmp_path)
    path = plant(tmp_path, "wiki/notes.md", HAND)
    if write == "update":
        store.add("notes", "other", "edited", ts=TS)
    elif write == "add":
        store.add("notes", "new one", "appended", ts=TS)
    elif write == "remove":
        assert store.remove("notes", "other")
    elif write == "rename":
        store.move("notes", "other", new_name="renamed")
    elif write == "move-in":
        store.add("elsewhere", "visitor", "moves in", ts=TS)
        store.move("elsewhere", "visitor", new_file="notes")
    else:
        store.move("notes", "other", new_file="elsewhere")
    data = path.read_bytes()
    untouched = HAND[: HAND.index(b"## other")]
    if write in ("remove", "move-out"):  # the blank line that separated the block went with it
        assert data == untouched[:-2]
        return
    assert data.startswith(untouched)  # the repeated headings, the bad bytes, the CRLF, the odd layout
    tail = data[len(untouched):]
    expected = {"update": b"## other\r\n\r\nedited\r\n\r\n<!-- wikimem: ts=2026-07-10T03:00:00+00:00 -->\r\n",
                "add": b"## other\r\n\r\nplain\r\n\r\n## new one\r\n\r\nappended\r\n\r\n"
                       b"<!-- wikimem: ts=2026-07-10T03:00:00+00:00 -->\r\n",
                "rename": b"## renamed\r\n\r\nplain\r\n",
                "move-in": b"## other\r\n\r\nplain\r\n\r\n## visitor\r\n\r\nmoves in\r\n\r\n"
                           b"<!-- wikimem: ts=2026-07-10T03:00:00+00:00 -->\r\n"}[write]
    assert tail == expected


def test_a_write_to_one_of_two_blocks_with_the_same_heading_is_refused_and_says_where(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    path = plant(tmp_path, "wiki/notes.md", HAND)
    before = tree(tmp_path)
    for write in (lambda: store.add("notes", "same", "x", ts=TS), lambda: store.remove("notes", "same"),
                  lambda: store.move("notes", "same", new_name="unique")):
        with pytest.raises(LossyWriteError) as caught:
            write()
        message = str(caught.value)
        assert "wiki/notes.md" in message and "'same' heads 2 blocks (lines 5, 19)" in message
        assert "$EDITOR" in message and "Nothing written" in message
        assert isinstance(caught.value, ValueError)
    assert tree(tmp_path) == before
    assert path.read_bytes() == HAND


def test_a_write_that_would_turn_bytes_into_replacement_characters_is_refused(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    plant(tmp_path, "wiki/notes.md", HAND)
    before = tree(tmp_path)
    for write in (lambda: store.add("notes", "bad bytes", "x", ts=TS),
                  lambda: store.move("notes", "bad bytes", new_file="elsewhere")):
        with pytest.raises(LossyWriteError, match=r"'bad bytes' holds bytes that are not UTF-8 \(line 11\)"):
            write()
    assert tree(tmp_path) == before


def test_removing_a_block_with_bad_bytes_loses_only_what_was_asked_to_go(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    path = plant(tmp_path, "wiki/notes.md", HAND)
    assert store.remove("notes", "bad bytes")
    assert path.read_bytes() == HAND.replace(b"## bad bytes\r\n\r\ncaf\xe9 \xff\xfe\r\n\r\n", b"")


CONFLICTED = (b"# notes\n\n## a\n\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> branch\n\n"
              b"## b\n\nuntouched\n")


def test_a_file_with_git_conflict_markers_refuses_every_write(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    plant(tmp_path, "wiki/notes.md", CONFLICTED)
    plant(tmp_path, "diary/2026-07-21.md", b"# 2026-07-21\n\n## 09:00\n\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n")
    store.add("other", "visitor", "moves", ts=TS)
    before = tree(tmp_path)
    for write in (lambda: store.add("notes", "c", "new", ts=TS), lambda: store.add("notes", "b", "x", ts=TS),
                  lambda: store.remove("notes", "b"), lambda: store.move("notes", "b", new_file="other"),
                  lambda: store.move("other", "visitor", new_file="notes"),
                  lambda: store.diary.append("x", date="2026-07-21", time="10:00")):
        with pytest.raises(LossyWriteError, match=r"git conflict markers \(lines 5, 7, 9\): the file is mid-merge"):
            write()
    assert tree(tmp_path) == before


def test_a_move_whose_link_rewrite_would_write_a_mid_merge_file_is_refused_whole(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("other", "target", "moves", ts=TS)
    plant(tmp_path, "wiki/notes.md", CONFLICTED.replace(b"untouched", b"see [[other:target]]"))
    before = tree(tmp_path)
    with pytest.raises(LossyWriteError, match="rewriting the links to .* in wiki/notes.md"):
        store.move("other", "target", new_name="renamed")
    assert tree(tmp_path) == before
    store.move("other", "target", new_name="renamed", rewrite_links=False)  # the way out: keep the links
    assert store.get("other", "renamed") is not None


def test_a_setext_underline_alone_is_not_a_conflict_marker() -> None:
    assert conflict_marker_lines(b"Title\n=======\n\ntext\n") == []
    assert conflict_marker_lines(b"a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> x\n") == [2, 4, 6]


def test_a_diary_append_leaves_the_days_other_entries_byte_for_byte(tmp_path: Path) -> None:
    day = b"# 2026-07-21\r\n\r\n## 09:00\r\n\r\ncaf\xe9\r\n\r\n## 09:00\r\n\r\nsame minute\r\n\r\n## 18:00\r\n\r\nlate\r\n"
    path = plant(tmp_path, "diary/2026-07-21.md", day)
    MemoryStore(tmp_path).diary.append("between", date="2026-07-21", time="12:00", ts=TS)
    assert path.read_bytes() == day.replace(
        b"## 18:00", b"## 12:00\r\n\r\nbetween\r\n\r\n<!-- wikimem: ts=2026-07-10T03:00:00+00:00 -->\r\n\r\n## 18:00")


# -- finding 12: the last item's removal keeps what else the file holds --------------------------


@pytest.mark.parametrize(("data", "left"), [
    (b"# notes\n\nHand-written notes about the topic.\n\n## only\n\nx\n",
     b"# notes\n\nHand-written notes about the topic.\n"),
    (b"# My own title\n\n## only\n\nx\n", b"# My own title\n"),
])
def test_removing_the_last_item_keeps_a_file_that_holds_anything_else(tmp_path: Path, data: bytes, left: bytes) -> None:
    store = MemoryStore(tmp_path)
    path = plant(tmp_path, "wiki/notes.md", data)
    assert store.remove("notes", "only")
    assert path.read_bytes() == left
    assert store.items("notes") == []


@pytest.mark.parametrize("data", [b"# notes\n\n## only\n\nx\n", b"## only\n\nx\n", b"\xef\xbb\xbf# notes\r\n\r\n## only\r\n"])
def test_removing_the_last_item_of_a_file_that_is_only_its_title_deletes_it(tmp_path: Path, data: bytes) -> None:
    store = MemoryStore(tmp_path)
    path = plant(tmp_path, "wiki/notes.md", data)
    assert store.remove("notes", "only")
    assert not path.exists()
    assert store.files() == []


def test_an_item_added_to_a_kept_prose_only_file_joins_the_prose(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    path = plant(tmp_path, "wiki/notes.md", b"# notes\n\nprose\n")
    store.add("notes", "a", "x", ts=TS)
    assert path.read_bytes() == b"# notes\n\nprose\n\n## a\n\nx\n\n<!-- wikimem: ts=2026-07-10T03:00:00+00:00 -->\n"


@pytest.mark.parametrize("line", ["<<<<<<< HEAD", ">>>>>>> feature/x", "<<<<<<<"])
def test_content_that_would_plant_a_conflict_marker_is_refused_before_it_makes_the_file_unwritable(
    tmp_path: Path, line: str
) -> None:
    store = MemoryStore(tmp_path)
    with pytest.raises(ValueError, match="git conflict marker"):
        store.add("notes", "a", f"text\n{line}\nmore", ts=TS)
    assert not (tmp_path / "wiki").exists()
    store.add("notes", "a", "<<<<<<<< eight is not a marker\n======= nor is this", ts=TS)
