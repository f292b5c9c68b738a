"""Wiki-links (SPEC §1): ``[[file:name]]`` inside content.

The parser never raises, and a link is only a link when both halves are
present and clean: a malformed candidate is plain text.
"""

from __future__ import annotations

import dataclasses

import pytest

from wikimem import DiaryItem, RecallItem, WikiLink, parse_wiki_links


def test_well_formed_link_is_parsed() -> None:
    assert parse_wiki_links("see [[daily_life:beach-trip-plan]]") == [WikiLink("daily_life", "beach-trip-plan")]


def test_links_come_back_in_order_of_appearance_with_duplicates_kept() -> None:
    text = "[[b:2]] then [[a:1]][[b:2]]"
    assert parse_wiki_links(text) == [WikiLink("b", "2"), WikiLink("a", "1"), WikiLink("b", "2")]


def test_whitespace_around_each_part_is_trimmed() -> None:
    assert parse_wiki_links("[[  people :  lin wei  ]]") == [WikiLink("people", "lin wei")]


def test_non_ascii_names_are_links() -> None:
    assert parse_wiki_links("喜欢[[preferences:手冲咖啡]]。") == [WikiLink("preferences", "手冲咖啡")]


def test_single_brackets_around_a_link_do_not_hide_it() -> None:
    assert parse_wiki_links("[note] ([[a:b]]) [x]") == [WikiLink("a", "b")]


@pytest.mark.parametrize(
    "text",
    [
        "[[:x]]",
        "[[x:]]",
        "[[x]]",
        "[[ : ]]",
        "[[a:b:c]]",
        "[[a[x]:b]]",
        "[[a:b]c]]",
        "[[a:[b]]]",
        "[[a\n:b]]",
        "[[a:b\n]]",
        "[a:b]",
        "[[a:b]",
        "[[a:b",
    ],
)
def test_malformed_link_is_ignored(text: str) -> None:
    assert parse_wiki_links(text) == []


def test_a_malformed_link_does_not_swallow_a_good_one_after_it() -> None:
    assert parse_wiki_links("[[x]] [[a:b:c]] [[:y]] [[ok:yes]]") == [WikiLink("ok", "yes")]


@pytest.mark.parametrize("text", ["", "[[", "]]", "[[[[", "]]]][[[[", ":" * 50, "[[" * 1000 + ":" + "]]" * 1000])
def test_parser_never_raises_on_odd_text(text: str) -> None:
    assert isinstance(parse_wiki_links(text), list)


def test_wikilink_render_gives_the_written_form() -> None:
    assert WikiLink("people", "lin").render() == "[[people:lin]]"


def test_rendered_link_parses_back_to_itself() -> None:
    link = WikiLink("preferences", "手冲咖啡")
    assert parse_wiki_links(link.render()) == [link]


def test_wikilink_is_frozen() -> None:
    link = WikiLink("a", "b")
    with pytest.raises(dataclasses.FrozenInstanceError):
        link.name = "c"  # type: ignore[misc]


def test_wikilink_is_a_hashable_value() -> None:
    assert WikiLink("a", "b") == WikiLink("a", "b")
    assert len({WikiLink("a", "b"), WikiLink("a", "b"), WikiLink("a", "c")}) == 2


def test_recall_item_links_are_the_links_in_its_content() -> None:
    item = RecallItem("work", "deadline", "see [[work:current-job]] and [[work:q4-demo]] not [[x]]")
    assert item.links == [WikiLink("work", "current-job"), WikiLink("work", "q4-demo")]


def test_diary_item_links_are_the_links_in_its_content() -> None:
    entry = DiaryItem("2026-07-21", "14:30", "换了工作。[[work:current-job]]")
    assert entry.links == [WikiLink("work", "current-job")]
