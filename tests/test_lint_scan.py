"""The fast per-file scan against plain oracles: the block parser, the link parser, line by line.

``scan_file`` finds heading lines from ``str.find`` hops and links by its
own regex; these tests hold it to the slow, obvious answer on randomly
built files full of the odd things hand edits produce.
"""

from __future__ import annotations

import random

import pytest

from wikimem.disk.blocks import parse_blocks
from wikimem.disk.links import find_links, parse_wiki_links
from wikimem.lint.scan import link_targets, scan_file
from wikimem.disk.names import normalize_item_name

PIECES = [
    "plain text", "[[people:Alice]]", "[[ people : Bob  Smith ]]", "[[x]]", "[[:y]]", "[[a:b:c]]", "[[a:]]",
    "```", "~~~", "## not at line start", "<!-- wikimem-derived -->", "<!-- wikimem owner=x -->",
    "(evidence: diary 2026-07-21 10:00)", "(evidence: nonsense)", "中文内容", "\t tabs \t", "", "   ",
]
HEADINGS = ["alice", "  spaced   out ", "a: b", "", "10:00", "9:5", "#hash", "dup", "dup", "x\u202ey"]
METAS = [
    "", "<!-- wikimem: owner=a | source=c | ts=2026-07-20T09:00:00+00:00 -->",
    "<!-- wikimem: ts=2026-07-20T11:00:00+02:00 -->", "<!-- wikimem: owner=a -->", "<!-- wikimem: ts=yesterday -->",
]


def _random_file(rng: random.Random) -> str:
    parts = [rng.choice(["# title\n", "", "\ufeff# bom\n", "preamble [[p:q]]\n"])]
    for _ in range(rng.randrange(8)):
        heading = rng.choice(HEADINGS)
        body = "\n".join(rng.choice(PIECES) for _ in range(rng.randrange(4)))
        gap = rng.choice(["\n", "\n\n", "\n\n\n", "\n  \n"])
        parts.append(f"## {heading}{gap}{body}\n{rng.choice(['', chr(10)])}{rng.choice(METAS)}\n")
    text = rng.choice(["", "\n"]).join(parts)
    return text.replace("\n", "\r\n") if rng.random() < 0.2 else text


def _heading_lines(text: str) -> list[int]:
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [n for n, line in enumerate(lines, 1) if line.startswith("## ")]


@pytest.mark.parametrize("seed", range(300))
def test_scan_agrees_with_the_parser_and_with_counting_lines(seed: int) -> None:
    rng = random.Random(seed)
    text = _random_file(rng)
    kind = rng.choice(["wiki", "diary"])
    facts = scan_file(f"{kind}/f.md", kind, "2026-07-21" if kind == "diary" else "f", text.encode(), (0, 0))
    blocks = parse_blocks(text).blocks
    lines = _heading_lines(text)
    assert len(lines) == len(blocks)
    expected = [(b.heading, line, b.content, b.owner, b.source_conv, b.ts) for b, line in zip(blocks, lines)]
    if kind == "wiki":  # repeated headings collapse: the last one wins, at the first's place
        kept: dict[str, tuple[object, ...]] = {}
        for row in expected:
            kept[row[0]] = row
        expected = list(kept.values())
    assert [(i.name, i.line, i.content, i.owner, i.source_conv, i.ts) for i in facts.items] == expected
    normal = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for item in facts.items:
        if item.links or item.evidence or "<!--" in item.content:  # items looked at one by one
            first = next((n for n in range(item.line + 1, len(normal) + 1) if normal[n - 1].strip()), None)
            assert item.first == first, (item.name, text)
            assert item.links == link_targets(item.content, None if kind == "diary" else "f")
    for finding in facts.findings:
        if finding.message.startswith("metadata comment:"):  # a ts not in canonical form: on its line
            line = finding.location.line
            assert line is not None and "ts=" in normal[line - 1], (finding, text)


@pytest.mark.parametrize("text", [
    "[[a:b]] [[ a : b ]] [[a:  b   c]] [[a:\tb]] [[:b]] [[a:]] [[a]] [[a:b:c]] [[[a:b]]] [[a:b]]]",
    "[[ 中文 : 名 字 ]] [[x:y\u3000z]] [[x:y\nz]] [[x:[y]] [[x:y]]",
    "", "no links", "[[]]", "[[:]]",
    "[[a#b]] [[a#b|label]] [[#b]] [[A.md#b  c]] [[wiki/a]] [[a|x]] [[a#]] [[#]] [[a#^blk]] [[a#h1#h2]] [[a:b]]",
    "time: 10:30 [[a]] and [[a:b]]", "[[x#y:z]] [[|x]] [[a#b|]]",
])
def test_link_targets_are_what_the_link_parser_finds(text: str) -> None:
    expected = tuple((ref.file, "" if ref.name is None else normalize_item_name(ref.name))
                     for ref in find_links(text, here="here"))
    assert link_targets(text, "here") == expected
    # A text with reference links only reads exactly as the reference parser reads it.
    if all(ref.spelling == "reference" for ref in find_links(text, here="here")):
        assert expected == tuple((link.file, normalize_item_name(link.name)) for link in parse_wiki_links(text))
