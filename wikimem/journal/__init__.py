"""journal.jsonl: the append-only answer to "what happened to my memory".

One JSON object per mutation, one line each, non-ASCII kept raw so the file
reads well in a pager. An append is whole or absent
(``wikimem.disk.atomic.append_whole``); reading skips a line that is not a
JSON object, which ``wikimem lint`` reports (``journal-bad-line``). The
journal is read and appended only as a regular file inside the memory
directory, so memory activity never leaks to, or blocks on, something else.

The reference's module path stays (``from wikimem.journal import Journal``);
:mod:`~wikimem.journal.log` writes and reads back, :mod:`~wikimem.journal.follow`
follows the file as it grows, :mod:`~wikimem.journal.latest` keeps the
latest line about each memory file (what drift is judged against).
"""

from __future__ import annotations

from wikimem.journal.follow import JournalFollower, JournalRead
from wikimem.journal.latest import BadLine, LatestLines, entry_problem, latest_lines
from wikimem.journal.log import JOURNAL_FILE, Journal, logged_entry_id

__all__ = ["JOURNAL_FILE", "BadLine", "Journal", "JournalFollower", "JournalRead", "LatestLines", "entry_problem",
           "latest_lines", "logged_entry_id"]
