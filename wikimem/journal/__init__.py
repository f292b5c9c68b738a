"""journal.jsonl: the append-only answer to "what happened to my memory".

One JSON object per mutation, one line each, non-ASCII kept raw so the file
reads well in a pager. An append is whole or absent
(``wikimem.disk.atomic.append_whole``): written on an ``O_APPEND`` descriptor
until every byte is out, and cut back to where it started when the disk is
full, so a reader never keeps half a line the writer gave up on. Reading is
tolerant: a line that is not a JSON object (a torn tail, a hand edit) is
skipped and reported by ``wikimem lint`` (``journal-bad-line``).

The journal is read and appended only as a regular file inside the memory
directory: a ``journal.jsonl`` that is a symlink pointing outside it, a FIFO
or any other non-regular file is refused (reads see no entries, appends
raise ``wikimem.disk.tolerant.UnreadableError``), so memory activity never leaks
to, or blocks on, something else. A symlink to a file inside the memory
directory is followed.

The reference's module path stays (``from wikimem.journal import Journal``);
each concept is its own module here: :mod:`~wikimem.journal.log` writes lines
and reads them all back (:class:`Journal`); :mod:`~wikimem.journal.follow` is
the one reader for whoever follows the journal as it grows (lint, the app's
journal pane), :class:`JournalFollower`, whole lines from where it stopped,
starting over when the file was replaced, truncated or rewritten; and
:mod:`~wikimem.journal.latest` keeps the latest line about each memory file
(:class:`LatestLines`), which is what drift is judged against.
"""

from __future__ import annotations

from wikimem.journal.follow import JournalFollower, JournalRead
from wikimem.journal.latest import BadLine, LatestLines, entry_problem, latest_lines
from wikimem.journal.log import JOURNAL_FILE, Journal, logged_entry_id

__all__ = ["JOURNAL_FILE", "BadLine", "Journal", "JournalFollower", "JournalRead", "LatestLines", "entry_problem",
           "latest_lines", "logged_entry_id"]
