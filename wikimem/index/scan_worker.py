"""A second process that scans a large cold load's groups (and makes their numpy views) while this one reads on.

Why it exists: a 1M-item cold load is ~6 s on one core -- reading the files
(~1.5 s), scanning them into forms (~3 s: :func:`wikimem.index.scan.scan_joined`)
and grouping the forms' rows for first use (~1 s: :mod:`wikimem.index.form_search`).
The groups are independent, so a child process can scan some while this
one reads and scans the others (a thread cannot: the scans are C-level
byte work that holds the GIL). Its answers are the very forms and views
this process would have made (the same code, the same analyzer: it checks
the analyzer's fingerprint first), applied strictly in load order by
:class:`wikimem.index.load_groups.GroupScans`.

Why not :mod:`multiprocessing`: its spawn start re-imports the caller's
``__main__`` (a script without a main guard would run again) and its fork
start copies a process that may hold threads and locks. The child is a
plain ``python -c`` importing this module from the same tree, speaking
length-prefixed pickle frames over its own stdin/stdout (trusted: our own
child, nothing else writes that pipe); its stderr is discarded. It exits
when its stdin closes, so a killed parent leaves no child behind.

Any failure -- no interpreter, a child that dies or answers nonsense --
is the caller's cue to scan here and stop using the child; nothing is lost.
"""

from __future__ import annotations

import os
import pickle
import queue
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

__all__ = ["ScanWorker", "serve"]

_HEAD = struct.Struct("<Q")
#: The tree this module was imported from: the child imports the same code.
_ROOT = str(Path(__file__).resolve().parents[2])
#: What the child runs (tests replace it to make a child that dies).
CHILD_CODE = "import sys; sys.path.insert(0, {root!r}); from wikimem.index.scan_worker import serve; serve()"


def _write(stream: IO[bytes], message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEAD.pack(len(data)))
    stream.write(data)
    stream.flush()


def _read(stream: IO[bytes]) -> Any:
    """One frame's message; EOFError when the other side is gone (or cut a frame short)."""
    head = stream.read(_HEAD.size)
    if len(head) != _HEAD.size:
        raise EOFError("the other process closed the pipe")
    size = _HEAD.unpack(head)[0]
    data = stream.read(size)
    if len(data) != size:
        raise EOFError("a frame was cut short")
    return pickle.loads(data)  # noqa: S301 -- our own child's frames on our own pipe


class ScanWorker:
    """The parent's end: one child, one request at a time, answers read on a thread of their own."""

    def __init__(self, analyzer: str | None, fingerprint: str) -> None:
        """Start the child (it loads the analyzer ``analyzer`` and checks its ``fingerprint``); raises OSError when it cannot start."""
        code = CHILD_CODE.format(root=_ROOT)
        self._child = subprocess.Popen(  # noqa: S603 -- our own interpreter and code
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self._answers: dict[int, Any] = {}
        #: Scan answers in (requests 1, 2, ...: request 0 is the start), and whether the start's "ready" came.
        self._answered = 0
        self._up = False
        self._ready = threading.Condition()
        self._dead = False
        assert self._child.stdin is not None and self._child.stdout is not None
        for pipe in (self._child.stdin, self._child.stdout):
            _widen(pipe)
        self._requests = self._child.stdin
        #: Frames to send, written on a thread of their own: a write to a busy child waits there, not in the load.
        self._outbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        threading.Thread(target=self._listen, args=(self._child.stdout,), name="wikimem-scan-answers", daemon=True).start()
        threading.Thread(target=self._post, name="wikimem-scan-requests", daemon=True).start()
        self._asked = 1
        self._send(("start", analyzer, fingerprint))

    def started(self) -> bool:
        """Wait until the child is up (True) or gone (False)."""
        with self._ready:
            self._ready.wait_for(lambda: self._up or self._dead)
            return not self._dead

    def wants(self, depth: int) -> bool:
        """Whether the child is up with fewer than ``depth`` requests unanswered (ready for another)."""
        with self._ready:
            return self._up and not self._dead and self._asked - 1 - self._answered < depth

    def ask(self, joined: bytes, n_texts: int, made: int | None, views: bool) -> int | None:
        """Send one group: its request number for :meth:`answer`, or None when the child is gone.

        ``made``: this load's form count so far (the child's numpy switch
        takes the same path); ``views``: make the group's numpy views too.
        """
        at = self._asked
        self._asked += 1
        return at if self._send(("scan", joined, n_texts, made, views)) else None

    def answered(self, at: int) -> bool:
        """Whether request ``at``'s answer is in (or the child is gone: :meth:`answer` will not wait)."""
        with self._ready:
            return at in self._answers or self._dead

    def answer(self, at: int) -> Any:
        """Request ``at``'s answer, waiting for it (once: it is not kept); ``None`` when the child is gone before it."""
        with self._ready:
            self._ready.wait_for(lambda: at in self._answers or self._dead)
            return self._answers.pop(at, None)

    def close(self) -> None:
        """End the child (it exits on its stdin's end, once the requests sent are answered) and reap it."""
        self._outbox.put(None)
        try:
            self._child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._child.kill()
            self._child.wait()

    def _send(self, message: object) -> bool:
        if self._dead:
            return False
        self._outbox.put(message)
        return True

    def _post(self) -> None:
        """Write the outbox's frames in order; None closes the child's stdin."""
        while True:
            message = self._outbox.get()
            try:
                if message is None:
                    self._requests.close()
                    return
                _write(self._requests, message)
            except (OSError, ValueError):
                self._gone()
                return

    def _listen(self, answers: IO[bytes]) -> None:
        try:
            if _read(answers)[0] != "ready":  # the analyzer differs there: its forms would too
                raise ValueError("the scan process did not start")
            with self._ready:
                self._up = True
                self._ready.notify_all()
            while True:
                message = _read(answers)
                with self._ready:
                    self._answers[self._answered + 1] = message
                    self._answered += 1
                    self._ready.notify_all()
        except Exception:  # noqa: BLE001 -- EOF, a broken frame: the child is no use any more
            self._gone()

    def _gone(self) -> None:
        with self._ready:
            self._dead = True
            self._ready.notify_all()


def _widen(pipe: IO[bytes]) -> None:
    """Give a pipe 1 MiB (Linux): a group's frame then moves in a few system calls, not one per 64 KiB."""
    try:
        import fcntl  # noqa: PLC0415 -- POSIX only

        fcntl.fcntl(pipe.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError):
        pass  # the default size works, in more calls


def serve(stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None, limit: int | None = None) -> None:
    """The child's loop: a start frame, then scan requests until stdin ends (``limit``: answer that many, then exit -- for tests)."""
    from wikimem.disk.loader import made_forms  # noqa: PLC0415 -- the child's own imports
    from wikimem.index.analyzer import Analyzer  # noqa: PLC0415
    from wikimem.index.form_search import FormViews  # noqa: PLC0415
    from wikimem.index.scan import scan_joined  # noqa: PLC0415

    requests = stdin if stdin is not None else sys.stdin.buffer
    answers = stdout if stdout is not None else sys.stdout.buffer
    if stdout is None:
        sys.stdout = sys.stderr  # nothing else may write the answers' pipe
    _, name, fingerprint = _read(requests)
    analyzer = Analyzer(name) if name is not None else None
    mine = analyzer.fingerprint if analyzer is not None else "raw"
    if mine != fingerprint:
        _write(answers, ("error", f"analyzer fingerprint {mine!r}, not {fingerprint!r}"))
        return
    terms = analyzer.latin_terms if analyzer is not None and analyzer.stems else None
    _write(answers, ("ready", os.getpid()))
    done = 0
    while limit is None or done < limit:
        try:
            _, joined, n_texts, made, want_views = _read(requests)
        except EOFError:
            return
        made_forms.size = made
        try:
            scanned = scan_joined(joined, n_texts, terms)
            views = None
            if want_views and scanned is not None:
                import numpy as np  # noqa: PLC0415 -- asked for views: the parent has numpy on

                views = FormViews(np, scanned)
            _write(answers, ("scanned", scanned, views))
        except Exception as exc:  # noqa: BLE001 -- said to the parent, which scans the group itself
            _write(answers, ("error", repr(exc)))
        done += 1
