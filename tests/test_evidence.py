"""Evidence lines and the derived marker: parse, render, round trip through the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from wikimem import MemoryStore
from wikimem.disk.blocks import parse_blocks
from wikimem.disk.marks import (
    DERIVED_MARKER,
    Evidence,
    find_evidence,
    is_derived,
    mark_derived,
    parse_evidence,
    strip_derived,
)
from wikimem.disk.links import WikiLink


def test_the_apps_existing_promotion_line_still_parses() -> None:
    ev = parse_evidence("(evidence: diary 2026-07-21 14:30, owner user:x)")
    assert ev == Evidence("diary", "2026-07-21", "14:30", owner="user:x")
    assert ev.render() == "(evidence: diary 2026-07-21 14:30, owner user:x)"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("(evidence: diary 2026-07-21 14:30)", Evidence("diary", "2026-07-21", "14:30")),
        ("(evidence: diary 2026-07-21 14:30, owner user:x, source conv_1)",
         Evidence("diary", "2026-07-21", "14:30", owner="user:x", source="conv_1")),
        ("(evidence: [[people:Alice]])", Evidence("wiki", link=WikiLink("people", "Alice"))),
        ("  (evidence: [[ people :  Alice   B ]], source c9)  ",
         Evidence("wiki", link=WikiLink("people", "Alice B"), source="c9")),
        ("(evidence: source conv_0721)", Evidence("source", source="conv_0721")),
        ("(evidence: source conv_1, owner agent)", Evidence("source", owner="agent", source="conv_1")),
        ("(evidence: diary 2026-07-21 14:30, owner Smith, J. (ops))",
         Evidence("diary", "2026-07-21", "14:30", owner="Smith, J. (ops)")),
    ],
)
def test_parse_and_render_round_trip(line: str, expected: Evidence) -> None:
    ev = parse_evidence(line)
    assert ev == expected
    assert parse_evidence(ev.render()) == ev


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("(evidence: diary 2026-02-30 14:30)", "no such day"),
        ("(evidence: diary 2026-07-21 25:00)", "invalid time"),
        ("(evidence: yesterday)", "neither"),
        ("(evidence: owner x)", "names no diary entry"),
        ("(evidence: diary 2026-07-21 14:30", "not closed"),
        ("(evidence: )", "empty"),
        ("(evidence: [[a:b]], owner x, owner y)", "repeats"),
        ("(evidence: [[a:b]] [[c:d]])", "neither"),
    ],
)
def test_malformed_lines_say_why(line: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse_evidence(line)


def test_renderer_refuses_values_that_would_not_parse_back() -> None:
    with pytest.raises(ValueError):
        Evidence.diary("2026-07-21", "14:30", owner="a, source b")


def test_find_evidence_keeps_malformed_lines_with_the_reason() -> None:
    content = "Claim.\n(evidence: diary 2026-07-21 14:30)\n(evidence: nope)\nmore"
    lines = find_evidence(content)
    assert [(e.index, e.evidence is not None, e.error is not None) for e in lines] == [(1, True, False), (2, False, True)]


def test_derived_marker_detection() -> None:
    assert is_derived(f"Answer.\n{DERIVED_MARKER}")
    assert is_derived("Answer.\n  <!--   wikimem-derived   -->  \nmore")
    assert not is_derived(f"Quoted inline {DERIVED_MARKER} is not a marker line")
    assert not is_derived("<!-- wikimem: owner=x -->")
    assert mark_derived("Answer.") == f"Answer.\n{DERIVED_MARKER}"
    assert mark_derived(mark_derived("Answer.")) == mark_derived("Answer.")
    assert strip_derived(mark_derived("Answer.")) == "Answer."


def test_a_block_ending_in_the_marker_round_trips_and_is_not_metadata(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    content = mark_derived("Recall said: prefers tea.")
    store.add("notes", "tea", content, owner="agent", ts="2026-07-20T09:00:00+00:00")
    assert store.get("notes", "tea").content == content  # type: ignore[union-attr]
    text = (tmp_path / "wiki" / "notes.md").read_text("utf-8")
    assert text.endswith(f"{DERIVED_MARKER}\n\n<!-- wikimem: owner=agent | ts=2026-07-20T09:00:00+00:00 -->\n")
    # With no provenance at all the marker is the block's last line, still content.
    block = parse_blocks(f"## x\n\nAnswer.\n\n{DERIVED_MARKER}\n").blocks[0]
    assert (block.content, block.owner, block.ts) == (f"Answer.\n\n{DERIVED_MARKER}", None, None)
    entry = store.diary.append(content, date="2026-07-21", time="10:00")
    assert store.diary.day("2026-07-21")[0].content == entry.content == content
