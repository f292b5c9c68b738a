"""A cold load's groups scanned in load order: by the second process when it is free, else here.

Why it exists: doc ids follow the load order, so a group's segment may be
added only after every group before it, while the scans themselves may run
anywhere (:mod:`wikimem.index.scan_worker`). A group goes to the child when
it has answered everything asked so far, else it is scanned here -- the two
processes share the groups by their speed, with at most one group in the
child. Results are handed back strictly in order; a group the child could
not answer (it died, refused, or was never started) is scanned here when
its turn comes: the same forms either way.

The child is only worth its start (~0.2 s, in parallel) on a large load:
once :data:`START_AFTER` bytes are read and the load looks like it will
read :data:`START_TOTAL` or more. ``WIKIMEM_LOAD_WORKER=0`` never starts it,
``=1`` starts it at the first group (tests of small stores).
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from wikimem.index.form_search import FormViews
from wikimem.index.load_scope import count_made
from wikimem.disk.loader import made_forms
from wikimem.index.scan import LatinTerms, ScannedTexts, scan_joined
from wikimem.index.scan_worker import ScanWorker

__all__ = ["GroupScans", "Scanned"]

log = logging.getLogger(__name__)

#: Bytes read before the child may start, and the load size it is started for.
START_AFTER = 4 << 20
START_TOTAL = 32 << 20
#: Groups the child may hold at once: one being scanned, one waiting (it never idles between two).
DEPTH = 2


class Scanned(NamedTuple):
    """One group's answer, in load order: ``scanned`` None when its texts cannot be scanned (load them one by one)."""

    group: Any
    scanned: ScannedTexts | None
    views: FormViews | None


class GroupScans:
    """Groups in, scans out in the same order (see the module doc)."""

    def __init__(
        self, terms: LatinTerms | None, analyzer: tuple[str | None, str], views_pay: Callable[[int], bool]
    ) -> None:
        """``terms``: the scan's latin map; ``analyzer``: its name and fingerprint, for the child; ``views_pay``: :meth:`wikimem.index.segments.Segments.views_pay`."""
        self._terms = terms
        self._analyzer = analyzer
        self._views_pay = views_pay
        #: (group, joined, n_texts, the child's request number or None, an answer made here).
        self._queue: deque[tuple[Any, bytes, int, int | None, Scanned | None]] = deque()
        self._worker: ScanWorker | None = None
        self._tried = os.environ.get("WIKIMEM_LOAD_WORKER") == "0"
        self._read = 0
        #: Groups the child answered, and the ones scanned here (what a benchmark reports).
        self.by_child = self.here = 0

    def put(self, group: Any, joined: bytes, n_texts: int, done: int, total: int) -> Iterator[Scanned]:
        """Add one group (``done`` of ``total`` files read so far); yields the answers now ready, in order."""
        self._read += len(joined)
        self._maybe_start(done, total)
        worker = self._worker
        asked = None
        if worker is not None and worker.wants(DEPTH):
            asked = worker.ask(joined, n_texts, made_forms.size, self._views_pay(len(joined)))
        if asked is None:
            self._queue.append((group, joined, n_texts, None, self._here(group, joined, n_texts)))
        else:
            self._queue.append((group, joined, n_texts, asked, None))
        yield from self._ready(wait=False)

    def drain(self) -> Iterator[Scanned]:
        """Every answer still to come, in order (waits for the child's)."""
        yield from self._ready(wait=True)

    def close(self) -> None:
        """End the child, if one was started (after :meth:`drain`)."""
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def _maybe_start(self, done: int, total: int) -> None:
        if self._tried:
            return
        forced = os.environ.get("WIKIMEM_LOAD_WORKER") == "1"
        if not forced and (self._read < START_AFTER or self._read * total < START_TOTAL * max(done, 1)):
            return
        self._tried = True
        try:
            self._worker = ScanWorker(*self._analyzer)
        except OSError as exc:
            log.info("no second process for the load's scans (%s): scanning here", exc)
            return
        if forced:  # asked for by name (a test of a small store): wait for it, or the load is over first
            self._worker.started()

    def _ready(self, wait: bool) -> Iterator[Scanned]:
        queue = self._queue
        while queue:
            group, joined, n_texts, asked, made = queue[0]
            if made is None:
                assert asked is not None and self._worker is not None
                if not wait and not self._worker.answered(asked):
                    return
                made = self._from_child(group, joined, n_texts, self._worker.answer(asked))
            queue.popleft()
            yield made

    def _from_child(self, group: Any, joined: bytes, n_texts: int, answer: Any) -> Scanned:
        """The child's answer as a :class:`Scanned`, or the group scanned here when it has none."""
        if isinstance(answer, tuple) and len(answer) == 3 and answer[0] == "scanned":
            _, scanned, views = answer
            if scanned is not None:
                count_made(len(scanned.latin) + len(scanned.cjk))  # as scan_joined here would have
            self.by_child += 1
            return Scanned(group, scanned, views)
        log.info("the load's scan process gave no answer (%r): scanning here", answer)
        return self._here(group, joined, n_texts)

    def _here(self, group: Any, joined: bytes, n_texts: int) -> Scanned:
        self.here += 1
        return Scanned(group, scan_joined(joined, n_texts, self._terms), None)
