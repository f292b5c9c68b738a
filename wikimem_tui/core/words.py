"""Counts in words: ``1 day``, ``2 days``, ``1 entry``, ``3 entries``.

One place for the plural so no label says "1 days" or hides behind
"item(s)": every count the app shows goes through ``count``. English only,
like the rest of the interface; nouns that do not follow the ``-s`` /
consonant ``-y`` → ``-ies`` rules pass their plural.
"""

from __future__ import annotations

__all__ = ["count", "plural"]


def plural(noun: str, n: int, irregular: str | None = None) -> str:
    """``noun`` as it reads after the number ``n``."""
    if n == 1:
        return noun
    if irregular is not None:
        return irregular
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def count(n: int, noun: str, irregular: str | None = None, *, grouped: bool = False) -> str:
    """``n`` and its noun (``grouped``: thousands separated, ``1,024 items``)."""
    return (f"{n:,}" if grouped else str(n)) + " " + plural(noun, n, irregular)
