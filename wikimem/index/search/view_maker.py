"""A second thread that makes load segments' numpy views while the load reads on.

Why it exists: grouping a segment's rows by key (:mod:`wikimem.index.search.key_groups`)
is a radix sort and a few gathers for every segment, a share of a large
load's CPU. Those are numpy calls that release the GIL, while the load
itself is mostly C-level byte work on the calling thread (reads,
translations, splits): on a second core the two overlap, so the views
cost the load little wall time where made in line they would add to it
(load plus first query measured by ``bench/bench_scale.py``).

One daemon thread serves every index of the process, in submission order;
a job's answer (or its exception) waits in its :class:`~concurrent.futures.Future`.
A process forked while jobs were queued has no such thread: the caller
(:meth:`wikimem.index.search.segments.Segments`) makes in line what is not done.
``WIKIMEM_VIEW_THREAD=0`` makes every job in line (to compare both).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["in_line", "submit"]

T = TypeVar("T")

_lock = threading.Lock()
#: (the pid that started the thread, its job queue), or None before the first job.
_worker: tuple[int, queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]]] | None = None


def in_line() -> bool:
    """Whether jobs run on the caller's thread (``WIKIMEM_VIEW_THREAD=0``)."""
    return os.environ.get("WIKIMEM_VIEW_THREAD", "1") == "0"


def submit(make: Callable[[], T]) -> Future[T]:
    """``make()`` on the view thread; its future (done already when made in line)."""
    done: Future[T] = Future()
    if in_line():
        _run(done, make)
        return done
    _jobs().put((done, make))
    return done


def _jobs() -> queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]]:
    """The job queue of this process's thread, started on first use (and again in a forked child)."""
    global _worker  # noqa: PLW0603 -- one thread a process
    with _lock:
        if _worker is None or _worker[0] != os.getpid():
            jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]] = queue.SimpleQueue()
            threading.Thread(target=_serve, args=(jobs,), name="wikimem-views", daemon=True).start()
            _worker = (os.getpid(), jobs)
        return _worker[1]


def _serve(jobs: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]]) -> None:
    while True:
        done, make = jobs.get()
        _run(done, make)


def _run(done: Future[T], make: Callable[[], T]) -> None:
    if not done.set_running_or_notify_cancel():
        return
    try:
        done.set_result(make())
    except BaseException as exc:  # noqa: BLE001 -- handed to the waiter, who falls back
        done.set_exception(exc)
