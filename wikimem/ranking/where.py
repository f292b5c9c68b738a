"""Which stored items a recall may hand back: by who wrote them, where from, when, and their file's tags.

An agent that already knows what it wants asks with a filter instead of
hoping the ranking puts it first. The filter decides membership only, never
a score, and is applied inside the search, so the top ``limit`` is the best
of the items it keeps, not the survivors of a cut
(:func:`wikimem.ranking.pipeline.gated_search` asks the index for more
until enough pass). ``source_conv`` ending in ``:`` is a prefix; an item
without a ``ts`` is left out by ``after``/``before``; a diary entry has no
tags, so a tag filter leaves the diary out.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from wikimem.models import RecallItem

__all__ = ["Where", "ts_bound"]


def ts_bound(name: str, value: str | None) -> str | None:
    """A bound as the store's ``ts`` spelling (UTC), so string order is time order; ``ValueError`` if malformed."""
    if value is None:
        return None
    try:
        if len(value) == 10:
            return dt.date.fromisoformat(value).isoformat()
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"bad {name} {value!r}: use YYYY-MM-DD or an ISO time (2026-07-21T09:00:00+00:00)") from None
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return moment.astimezone(dt.timezone.utc).replace(microsecond=0).isoformat()


@dataclass(frozen=True)
class Where:
    """A recall filter (see the module doc); every field unset keeps everything."""

    owner: str | None = None
    source_conv: str | None = None
    after: str | None = None
    before: str | None = None
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "after", ts_bound("after", self.after))
        object.__setattr__(self, "before", ts_bound("before", self.before))
        object.__setattr__(self, "tags", tuple(tag.strip().lstrip("#") for tag in self.tags if tag.strip()))

    def __bool__(self) -> bool:
        return any((self.owner, self.source_conv, self.after, self.before, self.tags))

    def keeps(self, item: RecallItem, diary: bool, tags_of: Callable[[str], tuple[str, ...]]) -> bool:
        """Whether ``item`` (a diary entry's when ``diary``) passes; ``tags_of(file)`` reads a file's tags."""
        if self.owner is not None and item.owner != self.owner:
            return False
        if self.source_conv is not None:
            source = item.source_conv or ""
            wanted = self.source_conv
            if not (source == wanted or (wanted.endswith(":") and source.startswith(wanted))):
                return False
        if self.after is not None or self.before is not None:
            ts = item.ts
            if ts is None or (self.after is not None and ts < self.after) or (
                    self.before is not None and ts >= self.before):
                return False
        if self.tags:
            if diary:
                return False
            have = tags_of(item.file)
            return all(tag in have for tag in self.tags)
        return True
