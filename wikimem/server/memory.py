"""The memory an agent talks to: one store, one index, the tools' logic -- no MCP in here.

A server process owns exactly one :class:`AgentMemory`: one ``MemoryStore``
and one ``MemoryIndex`` (built once, then kept fresh), so a recall costs a
query, not an index build. The MCP layer (:mod:`wikimem.server.tools`) only
turns these methods' plain values and errors into tool results; the logic is
testable without the SDK and shared by every transport.

Freshness. Other processes write the same directory: the app, another
agent, a ``git pull``. Every checked write of the library appends to
``journal.jsonl`` and moves a new file into ``wiki/`` or ``diary/`` (which
changes that directory's stat), so before each call the server compares
three stats (the journal, ``wiki/``, ``diary/``) with the last call's; when
one moved it lets the index re-read the files whose ``(mtime_ns, size)``
changed (``MemoryIndex.refresh``). A hand edit written in place changes
neither, so a full stat sweep also runs when the last one is older than
:data:`SWEEP_SECONDS`. The server's own writes reach the index through the
store's write listener, at once.

Writes go through the store's checked, journaled path only
(``MemoryStore.add/remove(expected=…)``, ``Diary.append``): the check and the
write happen under the store lock, so the app and the agent can never
overwrite a version they did not see. In read-only mode nothing here creates
a file: no vector cache, no lock.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikimem.disk.names import normalize_item_name, sanitize_item_name, validate_date, validate_file
from wikimem.disk.store_dir import ForeignFolderError, foreign_folder, own_folder
from wikimem.disk.tolerant import read_regular
from wikimem.errors import ConflictError
from wikimem.models import DiaryItem, RecallItem, TimeRange
from wikimem.ranking.agent_text import agent_rows, agent_text
from wikimem.ranking.explain import why_not_lines
from wikimem.ranking.where import Where, ts_bound
from wikimem.retrieval import MemoryIndex
from wikimem.server.backlinks import Backlinks
from wikimem.server.vector_sync import VectorSync
from wikimem.store import UNCHECKED, MemoryStore, path_stat
from wikimem.timeparse import parse_window

if TYPE_CHECKING:
    from wikimem.lint import Linter

__all__ = ["SWEEP_SECONDS", "AgentMemory", "BadInput", "NotFound", "diary_json", "item_json", "parse_as_of",
           "parse_span"]

log = logging.getLogger(__name__)

#: Longest time between two full stat sweeps (catches in-place hand edits).
SWEEP_SECONDS = 2.0
#: How many findings ``lint()`` lists (the worst first); the counts cover all.
LINT_WORST = 20
#: Upper bounds an agent cannot exceed (a runaway argument must not stall the server).
MAX_LIMIT, MAX_BUDGET = 200, 100_000


class BadInput(ValueError):
    """The caller's arguments cannot be used (a name, a date, a range): nothing done."""


class NotFound(LookupError):
    """The file or item asked for does not exist: nothing done."""


def item_json(item: RecallItem) -> dict[str, Any]:
    """A wiki item as JSON: ``file, name, content, owner, source_conv, ts``."""
    return dataclasses.asdict(item)


def diary_json(entry: DiaryItem) -> dict[str, Any]:
    """A diary entry as JSON: ``date, time, entry`` (``HH:MM[#n]``), ``content``, provenance."""
    return {"date": entry.date, "time": entry.time, "entry": entry.entry_id.key, "content": entry.content,
            "owner": entry.owner, "source_conv": entry.source_conv, "ts": entry.ts}


def parse_span(value: str | list[str] | tuple[str, ...] | None, *, today: dt.date | None = None) -> TimeRange | None:
    """``"A"``, ``"A..B"``, ``[A, B]`` or time words ("last week", from ``today``) as an inclusive ``(A, B)`` pair.

    ``BadInput`` when malformed. The words are those the CLI's ``--time-range``
    and the app's time box take, so an agent's window reads the same everywhere.
    """
    if value is None or value == "":
        return None
    if isinstance(value, (list, tuple)):
        if len(value) != 2 or not all(isinstance(part, str) for part in value):
            raise BadInput(f"bad time_range {value!r}: give [\"YYYY-MM-DD\", \"YYYY-MM-DD\"]")
        value = f"{value[0]}..{value[1]}"
    span = parse_window(value, today=today) if isinstance(value, str) else None
    if span is None:
        raise BadInput(f"bad time_range {value!r}: use YYYY-MM-DD, YYYY-MM-DD..YYYY-MM-DD or time words like "
                       f"'last week'")
    return span


def parse_as_of(value: str | None) -> dt.date | None:
    """A call's ``today`` (``YYYY-MM-DD``) as a date, None when omitted; ``BadInput`` naming the format."""
    if value is None or value == "":
        return None
    try:
        return dt.date.fromisoformat(validate_date(value.strip() if isinstance(value, str) else value))
    except ValueError:
        raise BadInput(f"bad today {value!r}: use YYYY-MM-DD (the day relative time words count from)") from None


def _checked(file: str, name: str | None = None) -> tuple[str, str | None]:
    """Validated names, or ``BadInput`` saying what is wrong with them."""
    try:
        return validate_file(file), sanitize_item_name(name) if name is not None else None
    except ValueError as exc:
        raise BadInput(str(exc)) from None


def _expected(value: str | None, *, omitted: Any = UNCHECKED) -> Any:
    """The tools' ``expected``: omitted = unchecked, ``""`` = must not exist, else the content last read.

    Stripped like stored content is, so a read's trailing newline is no conflict.
    """
    if value is None:
        return omitted
    return value.strip() or None


class AgentMemory:
    """One memory directory served to agents: the tools as plain methods."""

    def __init__(self, root: str | Path, *, read_only: bool = False,
                 clock: Callable[[], float] = time.monotonic, embedder: Any = None,
                 warn: Callable[[str], None] | None = None) -> None:
        self.root = Path(root)
        self.read_only = read_only
        self.store = MemoryStore(self.root)
        # With an embedder the wiki's vectors are embedded in the background (VectorSync), never
        # inside a recall: until they are ready, and whenever the encoder fails, recall is BM25 only.
        self.index = MemoryIndex(self.store, today=self._today, embedder=embedder, vector_sync="manual",
                                 vector_cache="read" if read_only else "readwrite")
        self.vectors = VectorSync(self.index, warn or log.warning, clock) if embedder is not None else None
        # A call's "as of" day (its ``today`` argument), per thread: calls run concurrently on one index.
        self._as_of = threading.local()
        self.backlinks = Backlinks(self.store)
        #: The lint tool's linter (its snapshot is incremental between calls), made on first use.
        self._linter: Linter | None = None
        self._clock = clock
        self._lock = threading.Lock()
        self._signature: tuple[Any, ...] | None = None
        self._counts: dict[str, tuple[Any, int]] = {}
        self._swept = 0.0

    def start_building(self) -> threading.Thread:
        """Build the index (and the whole diary's) in a background thread, so no ``recall`` pays for either alone.

        A call that arrives first waits for this build instead of starting a
        second one (``MemoryIndex.build`` is safe in a worker thread). A
        failure leaves the index unbuilt: the first call builds (and reports) it.
        No warm-up follows: it would compete with the first calls for the
        interpreter, and a term's first use is cheap enough on its own
        (``bench/bench_goals.py``: MCP spawn to first recall, first use).
        """

        def build() -> None:
            try:
                self.index.build()
            except Exception:  # noqa: BLE001 - the first call rebuilds and raises it where a client sees it
                log.warning("building the index in the background failed; the first call builds it", exc_info=True)
                return
            try:
                self.index.build_diary()  # recall searches the whole diary
            except Exception:  # noqa: BLE001 - the first recall builds it and reports what failed
                log.warning("building the diary's index in the background failed; the first recall builds it",
                            exc_info=True)
            if self.vectors is not None:
                self.vectors.run()

        thread = threading.Thread(target=build, name="wikimem-index-build", daemon=True)
        thread.start()
        return thread

    def call(self, tool: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Run one tool on plain values: ``{"payload": …}``, or ``{"refused": …}`` for an expected refusal.

        A refusal is the structured error the agent acts on (``error`` names
        its kind: ``conflict`` with the current content, ``bad_input``,
        ``not_found``, ``store_error``, and ``message`` says what to fix).
        The reply is JSON whichever process runs it, so the MCP face wraps
        an in-process memory and the memory process alike; anything
        unexpected raises.
        """
        try:
            return {"payload": getattr(self, tool)(**kwargs)}
        except ConflictError as exc:
            return {"refused": {"error": "conflict", "message": str(exc), "file": exc.file, "name": exc.name,
                                "expected": exc.expected if exc.expected is not None else "",
                                "current": exc.current,
                                "current_item": item_json(exc.item) if exc.item is not None else None}}
        except BadInput as exc:
            return _refused("bad_input", str(exc))
        except NotFound as exc:
            return _refused("not_found", str(exc))
        except OSError as exc:  # permissions, a full disk: a write that raised did not land
            return _refused("store_error", f"store error ({exc.strerror or exc}); nothing written")

    # -- freshness ------------------------------------------------------------

    def signature(self) -> tuple[Any, ...]:
        """What changes whenever another process writes through the library (see the module doc)."""
        return (path_stat(self.store.journal.path), path_stat(self.store.wiki_dir),
                path_stat(self.store.diary.dir))

    def sync(self) -> bool:
        """Bring the index up to date with other processes' writes; True when it re-read something."""
        with self._lock:
            signature, now = self.signature(), self._clock()
            if signature == self._signature and now - self._swept < SWEEP_SECONDS:
                return False
            # Taken before the sweep: a write landing during it changes the next signature.
            self._signature, self._swept = signature, now
            return bool(self.index.refresh())

    # -- read tools -----------------------------------------------------------

    def _today(self) -> dt.date:
        """The index's today: this thread's call's ``today`` argument, else the real (local) today."""
        day: dt.date | None = getattr(self._as_of, "day", None)
        return day if day is not None else dt.date.today()

    @contextlib.contextmanager
    def _as_of_day(self, today: str | None) -> Iterator[None]:
        """Resolve relative time words against ``today`` (``YYYY-MM-DD``) during the block; ``BadInput`` if malformed."""
        day = parse_as_of(today)
        self._as_of.day = day
        try:
            yield
        finally:
            self._as_of.day = None

    def recall(self, query: str, budget_tokens: int | None = 800, limit: int = 10,
               time_range: str | list[str] | None = None, today: str | None = None,
               search_diary: bool = True, owner: str | None = None, source_conv: str | None = None,
               after: str | None = None, before: str | None = None,
               tags: list[str] | None = None) -> dict[str, Any]:
        """Hits and link targets within the budget: the agent text plus one row per item.

        ``today`` (``YYYY-MM-DD``) is the day relative time words in the
        query count from: a store of another time asks "last week" of its own.
        ``search_diary`` (default on): the whole diary is searched beside the
        wiki, its rows labelled with their day and time; off, the diary only
        inside a time window (the reference's rule). ``owner``,
        ``source_conv``, ``after``, ``before`` and ``tags`` keep only what
        was stored so (:class:`~wikimem.ranking.where.Where`).
        """
        span = parse_span(time_range, today=parse_as_of(today))
        try:
            where = Where(owner, source_conv, after, before, tuple(tags or ()))
        except (ValueError, TypeError) as exc:
            raise BadInput(str(exc)) from None
        if not 1 <= limit <= MAX_LIMIT:
            raise BadInput(f"bad limit {limit}: between 1 and {MAX_LIMIT}")
        if budget_tokens is not None and not 0 <= budget_tokens <= MAX_BUDGET:
            raise BadInput(f"bad budget_tokens {budget_tokens}: between 0 and {MAX_BUDGET}")
        if not isinstance(search_diary, bool):
            raise BadInput(f"bad search_diary {search_diary!r}: true or false")
        self.sync()
        if self.vectors is not None:
            self.vectors.catch_up()
        with self._as_of_day(today):
            result = self.index.retrieve(query, limit=limit, budget_tokens=budget_tokens, time_range=span,
                                         search_diary=search_diary, where=where)
        return {
            "text": agent_text(result),
            "items": agent_rows(result),
            "budget_tokens": result.budget_tokens,
            "budget_used": result.budget_used,
            "unresolved_links": list(result.unresolved_links),
            "time_range": list(result.time_range) if result.time_range else None,
            "embedding_used": result.embedding_used,
        }

    def read_item(self, file: str, name: str) -> dict[str, Any]:
        """One item: content, provenance, its links (resolved or not) and its backlinks, diary ones too.

        ``file`` may be a diary day (``YYYY-MM-DD``) and ``name`` its ``HH:MM[#n]``.
        """
        self.sync()
        if self._diary_day(file):
            return self._read_entry(file, name)
        file, _ = _checked(file, name)
        files = set(self.store.files())  # listed once: the file asked for and every link's
        if file not in files:
            raise NotFound(f"no such file: {file} (list_files shows the RecallFiles)")
        item = self.store.get(file, name)
        if item is None:
            raise NotFound(f"no item: {file}:{normalize_item_name(name)}")
        links = []
        for link in item.links:
            exists = link.file in files and self.store.get(link.file, link.name) is not None
            links.append({"file": link.file, "name": link.name, "link": link.render(), "exists": exists})
        with self._lock:
            wiki, diary = self.backlinks.of(item.file, item.name)
        return {**item_json(item), "links": links, "backlinks": wiki, "diary_backlinks": diary}

    def _read_entry(self, day: str, name: str) -> dict[str, Any]:
        wanted = name.strip()
        for entry in self.store.diary.day(day):
            if entry.entry_id.key == wanted or f"{entry.time}#{entry.ordinal}" == wanted:
                links = [{"file": link.file, "name": link.name, "link": link.render()} for link in entry.links]
                return {**diary_json(entry), "links": links}
        raise NotFound(f"no diary entry: {day} {wanted}")

    def why_not(self, query: str, file: str, name: str, today: str | None = None) -> dict[str, Any]:
        """Why ``file:name`` is (not) recalled for ``query`` by ``recall`` (the whole diary searched): the stage that removed it, or its place."""
        if not _is_date(file):
            _checked(file, name)
        self.sync()
        with self._as_of_day(today):
            why = self.index.why_not(query, file, name, search_diary=True)  # as recall ranks
        fields = {f.name: getattr(why, f.name) for f in dataclasses.fields(why) if f.name != "result"}
        return {**fields, "text": "\n".join(why_not_lines(why)) + "\n"}

    def lint(self) -> dict[str, Any]:
        """Counts per severity and the worst findings first."""
        with self._lock:
            if self._linter is None:  # made on the lint tool's first call: lint is kept off a server's start
                from wikimem.lint import Linter  # noqa: PLC0415

                self._linter = Linter(self.root)
            report = self._linter.run()
        findings = [finding.to_json() for finding in report.findings[:LINT_WORST]]
        return {"counts": report.counts, "total": len(report.findings), "findings": findings}

    def list_files(self) -> dict[str, Any]:
        """Every RecallFile with its item count (re-counted only when its stat moved), and the diary's days."""
        files = []
        with self._lock:
            names = self.store.files()
            for gone in set(self._counts) - set(names):
                del self._counts[gone]
            for file in names:
                stat = self.store.file_stat(file)
                if file not in self._counts or self._counts[file][0] != stat:
                    self._counts[file] = (stat, len(self.store.file_items(file)))
                files.append({"file": file, "items": self._counts[file][1]})
        dates = self.store.diary.dates()
        return {"files": files, "diary": {"days": len(dates), "first": dates[0] if dates else None,
                                          "last": dates[-1] if dates else None}}

    # -- write tools ----------------------------------------------------------

    def remember(self, file: str, name: str, content: str, owner: str | None = None,
                 source_conv: str | None = None, expected: str | None = None) -> dict[str, Any]:
        """A checked write of ``file:name`` (``ConflictError`` and nothing written on a stale ``expected``)."""
        self._writable()
        file, clean = _checked(file, name)
        assert clean is not None
        try:
            item = self.store.add(file, clean, content, owner=owner, source_conv=source_conv,
                                  expected=_expected(expected))
        except ValueError as exc:  # content, provenance, a lossy file: nothing written
            raise BadInput(str(exc)) from None
        return item_json(item)

    def forget(self, file: str, name: str, expected: str | None = None) -> dict[str, Any]:
        """Remove ``file:name`` (checked when ``expected`` is given); ``NotFound`` when there is none."""
        self._writable()
        file, clean = self._wiki_address(file, name)
        try:
            removed = self.store.remove(file, clean, expected=_expected(expected))
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        if not removed:
            raise NotFound(f"no item: {file}:{clean}")
        return {"file": file, "name": clean, "removed": True}

    def append_diary(self, content: str, date: str | None = None, time: str | None = None,
                     owner: str | None = None, source_conv: str | None = None) -> dict[str, Any]:
        """Append one diary entry (``date``/``time`` default to now, local time)."""
        self._writable()
        try:
            entry = self.store.diary.append(content, date=date, time=time, owner=owner, source_conv=source_conv)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        return diary_json(entry)

    # -- file-style tools: what an agent used to a folder of files asks ----------------

    def list_items(self, file: str) -> dict[str, Any]:
        """The items of one RecallFile (or the entries of one diary day) with their size and first line."""
        self.sync()
        if self._diary_day(file):
            entries = self.store.diary.day(file)
            if not entries:
                raise NotFound(f"no diary entries on {file}")
            return {"file": file, "kind": "diary", "items": [
                {"name": e.entry_id.key, "lines": e.content.count("\n") + 1, "first_line": _first_line(e.content),
                 "owner": e.owner, "ts": e.ts} for e in entries]}
        file, _ = _checked(file)
        items = self.store.file_items(file)
        if not items:
            raise NotFound(f"no such file: {file} (list_files shows the RecallFiles)")
        meta = self.store.file_meta(file)
        return {"file": file, "kind": "wiki", "tags": list(meta.tags), "aliases": list(meta.aliases), "items": [
            {"name": i.name, "lines": i.content.count("\n") + 1, "first_line": _first_line(i.content),
             "owner": i.owner, "ts": i.ts} for i in items]}

    def read_file(self, file: str, start_line: int | None = None, end_line: int | None = None) -> dict[str, Any]:
        """A RecallFile (or diary day) as stored, lines numbered from 1, optionally a range of them."""
        self.sync()
        if self._diary_day(file):
            folder, path = "diary", self.store.diary.path(file)
        else:
            file, _ = _checked(file)
            folder, path = "wiki", self.store.file_path(file)
        try:
            outside = foreign_folder(self.root, folder)  # read_regular judges the file, not its folder
            if outside is not None:
                raise ForeignFolderError(folder, outside)
            data = read_regular(path, root=self.root)
        except OSError as exc:
            raise NotFound(f"{file} cannot be read: {exc}") from None
        if data is None:
            raise NotFound(f"no such file: {file} (list_files shows the RecallFiles and the diary's days)")
        lines = data.decode("utf-8", "replace").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        first = 1 if start_line is None else start_line
        last = len(lines) if end_line is None or end_line == -1 else end_line
        if first < 1 or last < first - 1 or first > max(len(lines), 1):
            raise BadInput(f"bad line range {start_line}..{end_line}: the file has {len(lines)} lines")
        shown = lines[first - 1:last]
        width = len(str(first + len(shown)))
        text = "".join(f"{n:>{width}}\t{line}\n" for n, line in enumerate(shown, first))
        return {"file": file, "lines": len(lines), "start_line": first, "end_line": first + len(shown) - 1,
                "text": text}

    def edit_item(self, file: str, name: str, old_text: str, new_text: str, expected_replacements: int = 1,
                  expected: str | None = None) -> dict[str, Any]:
        """Replace ``old_text`` by ``new_text`` in ``file:name``, only when it occurs exactly ``expected_replacements`` times.

        Checked twice: against ``expected`` (the content as the caller last
        read it) when given, and always against the content this call read,
        under the store lock, so a write landing in between is a conflict,
        never overwritten.
        """
        self._writable()
        if not old_text:
            raise BadInput("old_text is empty: give the passage to replace (or use insert_into_item)")
        if expected_replacements < 1:
            raise BadInput(f"bad expected_replacements {expected_replacements}: at least 1")
        item = self._current(file, name, expected)
        found = item.content.count(old_text)
        if found != expected_replacements:
            raise BadInput(f"old_text occurs {found} time(s) in {item.file}:{item.name}, not {expected_replacements}: "
                           "nothing written (quote more context to make it unique, or set expected_replacements)")
        return self._rewrite(item, item.content.replace(old_text, new_text), {"replacements": found})

    def insert_into_item(self, file: str, name: str, text: str, line: int | None = None,
                         expected: str | None = None) -> dict[str, Any]:
        """Insert ``text`` after line ``line`` of ``file:name``'s content (0: at the top; omitted: at the end)."""
        self._writable()
        if not text.strip():
            raise BadInput("text is empty: nothing to insert")
        item = self._current(file, name, expected)
        lines = item.content.split("\n")
        at = len(lines) if line is None else line
        if not 0 <= at <= len(lines):
            raise BadInput(f"bad line {line}: the content has {len(lines)} lines (0 inserts at the top)")
        content = "\n".join(lines[:at] + text.strip("\n").split("\n") + lines[at:])
        return self._rewrite(item, content, {"inserted_after_line": at})

    def move(self, file: str, name: str, new_file: str | None = None, new_name: str | None = None,
             rewrite_links: bool = True, expected: str | None = None) -> dict[str, Any]:
        """Rename ``file:name`` and/or move it to another RecallFile; every link to it rewritten (checked)."""
        self._writable()
        file, clean = _checked(file, name)
        assert clean is not None
        if new_file is None and new_name is None:
            raise BadInput("give new_file, new_name or both")
        if new_file is not None:
            _checked(new_file)
        if self.store.get(file, clean) is None:
            raise NotFound(f"no item: {file}:{clean}")
        try:
            moved = self.store.move(file, clean, new_file=new_file, new_name=new_name, rewrite_links=rewrite_links,
                                    expected=_expected(expected))
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        return {"from": {"file": file, "name": clean}, **item_json(moved)}

    def recent(self, limit: int = 20, since: str | None = None) -> dict[str, Any]:
        """What changed lately, newest first, from the journal: the last ``limit`` writes (since ``since``)."""
        if not 1 <= limit <= MAX_LIMIT:
            raise BadInput(f"bad limit {limit}: between 1 and {MAX_LIMIT}")
        cutoff = None if since is None else _since(since)
        entries = self.store.journal.recent(limit, since=cutoff)
        return {"since": cutoff, "entries": entries}

    def _diary_day(self, file: str) -> bool:
        """True when ``file`` names a diary day: a date, and no RecallFile is so named (one stat, not a listing)."""
        return _is_date(file) and not (own_folder(self.root, "wiki") and os.path.isfile(self.store.file_path(file)))

    def _wiki_address(self, file: str, name: str) -> tuple[str, str]:
        """``file:name`` validated as a wiki item's; a diary entry's address (read_item reads one) is refused.

        An agent that read an entry and means to change it must learn that
        the diary is append-only, not that ``HH:MM`` is a bad item name.
        """
        if self._diary_day(file):
            raise BadInput(f"{file} {name} is a diary entry: the diary is append-only, never edited or removed "
                           "(append_diary adds an entry; remember puts what it says into a wiki item)")
        file, clean = _checked(file, name)
        assert clean is not None
        return file, clean

    def _current(self, file: str, name: str, expected: str | None) -> RecallItem:
        """The item as it is now, checked against ``expected`` (the caller's last read) when given."""
        file, clean = self._wiki_address(file, name)
        item = self.store.get(file, clean)
        if item is None:
            raise NotFound(f"no item: {file}:{clean}")
        wanted = _expected(expected)
        if wanted is not UNCHECKED and wanted != item.content:
            raise ConflictError(file, clean, wanted, item)
        return item

    def _rewrite(self, item: RecallItem, content: str, extra: dict[str, Any]) -> dict[str, Any]:
        try:
            written = self.store.add(item.file, item.name, content, owner=item.owner, source_conv=item.source_conv,
                                     expected=item.content)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        return {**item_json(written), **extra}

    def _writable(self) -> None:
        if self.read_only:
            raise BadInput("this server is read-only (started with --read-only): nothing written")


def _refused(kind: str, message: str) -> dict[str, Any]:
    return {"refused": {"error": kind, "message": message}}


def _is_date(text: str) -> bool:
    try:
        validate_date(text)
    except (ValueError, TypeError):
        return False
    return True


def _first_line(content: str) -> str:
    line = content.split("\n", 1)[0]
    return line if len(line) <= 120 else line[:119] + "…"


def _since(value: str) -> str:
    """``since`` as the journal's ``ts`` spelling (UTC), from a date or an ISO time; ``BadInput`` otherwise."""
    try:
        bound = ts_bound("since", value)
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    assert bound is not None
    return bound
