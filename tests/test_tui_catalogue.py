"""The catalogue's fast read (heading lines, one link regex) equals the parser's, file by file."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from wikimem import MemoryStore
from wikimem_tui.core.catalogue import Catalogue, Key, norm

# Content and heading lines a RecallFile may hold: store-written, hand-edited, hostile.
_LINES = [
    "## sea", "## sea", "## a [[f1:sea]] heading", "##  two   spaces ", "## tab\there", "### sub [[f2:x]]",
    "plain text", "see [[f1:sea]] and [[ f2 : two spaces ]]", "[[f1:sea]][[f1:sea]]", "[[:x]] [[x:]] [[x]]",
    "[[a:b:c]]", "海边 [[日记:海边]]", "bad \udcff? no", "<!-- wikimem: owner=a | source=[[f1:sea]] -->",
    "<!-- wikimem: owner=agent:x | source=conv_1 | ts=2026-01-01T00:00:00+00:00 -->", "<!-- just a comment [[f1:sea]] -->",
    "", "", "[[f3:Tab\tName]]", "prose [[f1:sea]] before a heading",
    "obsidian [[f1#sea]] [[#sea|here]] [[F2.md#two  spaces]] [[f3]] [[#]] [[f1#^blk]]", "[[wiki/f1#sea|the sea]]",
]


def _random_file(rng: random.Random) -> str:
    lines = [rng.choice(_LINES) for _ in range(rng.randint(0, 30))]
    text = rng.choice(["", "# title\n\n", "# title\n\n[[f1:sea]] preamble\n\n"]) + "\n".join(lines) + "\n"
    return text.replace("\udcff", "\ufffd")


def _store_written(rng: random.Random, store: MemoryStore, file: str) -> None:
    for i in range(rng.randint(1, 12)):
        links = " ".join(rng.choice(["[[f{}:item {}]]", "[[f{}#item {}]]", "[[f{}#item {}|label]]"]).format(
            rng.randrange(4), rng.randrange(12)) for _ in range(rng.randint(0, 3)))
        store.add(file, f"item {i}", f"text {i} {links}".strip(), source_conv=rng.choice([None, "conv_1"]))


def _reference(store: MemoryStore) -> tuple[dict[str, list[str]], dict[Key, list[Key]]]:
    """What the catalogue held before: every item parsed into an object."""
    names, links = {}, {}
    for file in store.files():
        items = store.items(file)
        names[file] = [item.name for item in items]
        for item in items:
            links[(file, norm(item.name))] = [(ln.file, norm(ln.name)) for ln in item.links]
    return names, links


@pytest.mark.parametrize("seed", range(30))
def test_catalogue_names_and_links_equal_the_parsers(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    store = MemoryStore(tmp_path)
    for f in range(4):
        if rng.random() < 0.5:
            _store_written(rng, store, f"f{f}")
        else:
            store.wiki_dir.mkdir(parents=True, exist_ok=True)
            data = _random_file(rng).encode("utf-8")
            if rng.random() < 0.2:
                data = data.replace(b"\n", b"\r\n")
            store.file_path(f"f{f}").write_bytes(data)
    catalogue = Catalogue.build(store)
    names, links = _reference(store)
    assert catalogue.names == names
    for (file, name), targets in links.items():
        assert catalogue.has(file, name)
        assert catalogue.links_of(file, name) == targets, (file, name)
    backlinks: dict[Key, list[Key]] = {}
    for source, targets in links.items():
        for target in dict.fromkeys(targets):
            if target != source:
                backlinks.setdefault(target, []).append(source)
    assert {k: sorted(v) for k, v in catalogue.backlinks.items()} == {k: sorted(v) for k, v in backlinks.items()}


@pytest.mark.parametrize("seed", range(10))
def test_an_update_equals_a_full_build_and_leaves_the_old_catalogue_alone(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    store = MemoryStore(tmp_path)
    for f in range(5):
        _store_written(rng, store, f"f{f}")
    before = Catalogue.build(store)
    snapshot = (repr(before.names), repr(before.links), repr(before.backlinks))
    changed = {f"f{rng.randrange(6)}" for _ in range(3)}
    for file in changed:
        if rng.random() < 0.3 and file in store.files():
            store.file_path(file).unlink()
        else:
            _store_written(rng, store, file)
    after = before.updated(store, changed)
    full = Catalogue.build(store)
    assert after.names == full.names and after.links == full.links
    assert {k: sorted(v) for k, v in after.backlinks.items()} == {k: sorted(v) for k, v in full.backlinks.items()}
    assert (repr(before.names), repr(before.links), repr(before.backlinks)) == snapshot


def test_an_update_rereads_only_the_changed_file_and_drops_its_old_links(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("a", "one", "to [[b:two]]")
    store.add("b", "two", "back to [[a:one]]")
    before = Catalogue.build(store)
    assert before.backlinks_of("b", "two") == [("a", "one")]
    store.add("a", "one", "no link now")
    store.add("c", "three", "[[b:two]]")
    after = before.updated(store, {"a", "c"})
    assert after.backlinks_of("b", "two") == [("c", "three")]
    assert after.links_of("a", "one") == [] and after.has("a", "one") and after.count("c") == 1
    assert before.backlinks_of("b", "two") == [("a", "one")]  # the old one is never mutated
