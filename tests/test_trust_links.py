"""Link rewrite rewrites every link that resolves to the item (issue 13, finding 13).

A link resolves after its name's whitespace runs collapse (the store's own
lookup), so ``[[notes:a  b]]``, a tab or an NBSP between the words all reach
``notes:a b``. A rename that rewrites links must rewrite all of them, or the
ones it missed dangle without a word.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wikimem import MemoryStore, WikiLink, parse_wiki_links
from wikimem.disk.links import resolves_to, rewrite_links

SPELLINGS = ["[[notes:a b]]", "[[notes:a  b]]", "[[notes:a\tb]]", "[[notes:a\u00a0b]]", "[[ notes : a b ]]",
             "[[notes:\u3000a b\u2003]]"]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_that_resolves_to_the_item_is_rewritten(spelling: str) -> None:
    (link,) = parse_wiki_links(spelling)
    assert resolves_to(link) == WikiLink("notes", "a b")  # the store's lookup: name normalized, file trimmed
    assert rewrite_links(f"see {spelling}.", WikiLink("notes", "a b"), WikiLink("notes", "c")) == "see [[notes:c]]."


def test_links_that_do_not_resolve_to_the_item_are_left_as_written() -> None:
    text = "[[notes:ab]] [[notes:a b c]] [[note:a b]] [[notes:a b:c]] [[notes:]]"
    assert rewrite_links(text, WikiLink("notes", "a b"), WikiLink("notes", "c")) == text


def test_a_rename_rewrites_every_spelling_of_a_link_to_it(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("notes", "a b", "the target")
    store.add("people", "linker", " and ".join(SPELLINGS))
    store.move("notes", "a b", new_name="renamed")
    assert store.get("people", "linker").content == " and ".join(["[[notes:renamed]]"] * len(SPELLINGS))  # type: ignore[union-attr]
