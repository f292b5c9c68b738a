"""What the promote flow says about an entry and a similar item, and what it searches with.

Memory text is untrusted: every line is built literally (``safe_line``),
cut to one line, with the derived badge where the text carries the marker,
so the queue's detail line, the promote screen's entry list and its similar
items read the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets.option_list import Option

from wikimem import DiaryItem, RetrievedItem, is_derived, is_derived_line, is_evidence_line
from wikimem_tui.common.badges import clip_words, derived_badge, first_line
from wikimem_tui.common.safe import clean_line, safe_line

__all__ = ["entry_summary", "similar_option", "similarity_text"]


def entry_summary(entry: DiaryItem, *, width: int = 70) -> Text:
    """``DATE HH:MM[#n] owner [derived] first line``, literal and on one line (``#n``: the entry's identity)."""
    text = Text(clean_line(entry.entry_id.render()), style="bold", end="")
    if entry.owner:
        text.append("  ")
        text.append_text(safe_line(entry.owner, "dim"))
    if is_derived(entry.content):
        text.append("  ")
        text.append_text(derived_badge())
    text.append("  ")
    text.append_text(safe_line(clip_words(clean_line(first_line(entry.content)), width)))
    return text


def similarity_text(entries: Sequence[DiaryItem]) -> str:
    """What the entries say, without the derived marker and evidence lines (they would match every promoted item)."""
    lines = [
        line for entry in entries for line in entry.content.splitlines()
        if not is_derived_line(line) and not is_evidence_line(line)
    ]
    return "\n".join(lines)


def similar_option(row: RetrievedItem, width: int = 200) -> Option:
    """Two lines: the address with its scores, then the item's first line cut to ``width`` cells with ``…``.

    Cut here, not by the list: an option list wraps a long prompt onto as
    many lines as it needs, and one chatty item would push the others away.
    """
    item = row.item
    text = safe_line(f"{item.file}:{item.name}", "bold cyan")
    text.append(f"   score {row.score:.3f}", style="dim")
    if row.bm25_score is not None:
        text.append(f" · bm25 {row.bm25_score:.2f}", style="dim")
    if row.cos_score is not None:
        text.append(f" · cos {row.cos_score:.2f}", style="dim")
    if is_derived(item.content):
        text.append("  ")
        text.append_text(derived_badge())
    text.append("\n  ")
    text.append_text(safe_line(clip_words(clean_line(first_line(item.content)), width), "dim"))
    text.no_wrap, text.overflow = True, "ellipsis"
    return Option(text)
