"""Embeddings in the app: their cost is said before they start, and they never hold a query up.

With an embedder, ``wikimem-tui`` builds its index with
``vector_sync="manual"``: a query never embeds the store. (The library's
default embeds every item inside the first query that needs them: hours
with a local model on a big store, money with an endpoint, and a query pane
frozen meanwhile.) This one-line widget in the query pane runs the sync
instead, in two thread workers:

1. **plan** -- once the index is ready, ``MemoryIndex.plan_vectors`` hashes
   the items, reads the cache's keys and, for a local model, times a few
   texts: "N items to embed (M reused), about T";
2. **ask** -- ``EmbedPlanScreen``: start now, or BM25 only for now. A small
   sync (at most ``AUTO_ITEMS`` items and a known estimate under
   ``AUTO_SECONDS``) starts without asking, and says so;
3. **sync** -- ``MemoryIndex.sync_vectors`` with progress on this line and
   on the App's status line; ``E`` pauses it (``should_stop``: the rows
   embedded so far are kept, the next run resumes). Once the user said yes,
   later writes (the app's own, or the agent's) are embedded the same way,
   one run at a time.

Until the vectors are ready, queries rank with BM25 only and the query
pane's ranking line says why (:meth:`EmbedStatus.ranking_note`). Every
state change posts :class:`EmbedStatus.Changed`, which the query pane reads
(re-run the query when fusion becomes possible) and the App shows.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Literal

from rich.text import Text
from textual import work
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from wikimem import RetrievalResult
from wikimem_tui.core.backend import Backend
from wikimem_tui.query.embed_plan import EmbedPlanScreen, cost_line
from wikimem_tui.core.words import count

__all__ = ["AUTO_ITEMS", "AUTO_SECONDS", "EmbedStatus", "State"]

#: A sync of at most this many items starts without asking...
AUTO_ITEMS = 32
#: ...when its estimate is known and under this many seconds.
AUTO_SECONDS = 10.0
#: Texts per embedding call: a pause takes effect within one batch.
BATCH = 32

State = Literal["waiting", "planning", "asking", "deferred", "syncing", "paused", "failed", "ready"]


def _count(n: int) -> str:
    return count(n, "item", grouped=True)


class EmbedStatus(Static):
    """Plans, asks for and runs the embedding sync; one line says where it stands."""

    DEFAULT_CSS = """
    EmbedStatus { height: 1; color: $text-muted; }
    EmbedStatus.-ready { color: $success; }
    EmbedStatus.-busy { color: $warning; }
    EmbedStatus.-failed { color: $error; }
    """

    class Changed(Message):
        """The embedding state changed (``ready``: queries fuse cosine now)."""

        def __init__(self, ready: bool, text: str) -> None:
            super().__init__()
            self.ready = ready
            self.text = text

    def __init__(self, backend: Backend, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.backend = backend
        """Its index plans and runs the sync; its embedder is what is timed."""
        self.state: State = "waiting"
        """Where the embedding stands (see the module docstring)."""
        self.accepted = False
        """The user said "start now" (or the first sync was small): later writes are embedded too."""
        self.plan: Any = None
        """The last ``SyncPlan`` (None before the first)."""
        self.error = ""
        """What made the last sync fail."""
        self._asked = False
        self._again = False
        self._stop = threading.Event()
        self._done = 0
        self._total = 0
        self._started = 0.0

    # -- what it says -----------------------------------------------------------

    @property
    def ready(self) -> bool:
        """Whether queries fuse cosine now (as far as the app knows)."""
        return self.state == "ready"

    def _progress_text(self) -> str:
        pct = 100 * self._done // self._total if self._total else 0
        text = f"embedding {pct}% ({self._done:,}/{self._total:,})"
        elapsed = time.perf_counter() - self._started
        if self._done and elapsed > 1:
            from wikimem.vectors import format_duration

            text += f", about {format_duration(elapsed / self._done * (self._total - self._done))} left"
        return text

    def status_text(self) -> str:
        """For the App's status line (short)."""
        return {
            "waiting": "waiting for the index",
            "planning": "measuring the cost…",
            "asking": "start embedding? (see the dialog)",
            "deferred": "BM25 only for now · E embeds",
            "syncing": f"{self._progress_text()} · E pauses",
            "paused": f"paused at {self._done:,}/{self._total:,} · E resumes",
            "failed": "failed · E retries",
            "ready": "on",
        }[self.state]

    def ranking_note(self) -> str | None:
        """Why a query was ranked with BM25 only, in the ranking line's words (None when ready)."""
        if self.state == "ready":
            return None
        missing = f"{_count(self.plan.to_embed)} not embedded" if self.plan is not None else "not embedded"
        return {
            "waiting": "not ready: the index is still building",
            "planning": "not ready: measuring what embedding costs",
            "asking": "not ready: waiting for your choice",
            "deferred": f"BM25 only for now: {missing}; E embeds them",
            "syncing": f"not ready: {self._progress_text()}",
            "paused": f"paused at {self._done:,} of {self._total:,}; E resumes",
            "failed": f"failed: {self.error}; E retries",
        }[self.state]

    def summary_note(self, result: RetrievalResult) -> dict[str, Any]:
        """Why this configured embedder did not rank ``result``, as ``summary_lines`` keywords ({} if it did)."""
        if result.embedding_used:
            return {}
        note = self.ranking_note()
        if note is None:  # the vectors are ready: the embedder itself failed on this query
            return {"embedding": "failed for this query, BM25 only", "failed": True}
        return {"embedding": note, "failed": self.state == "failed"}

    def _set(self, state: State) -> None:
        self.state = state
        self.set_class(state == "ready", "-ready")
        self.set_class(state in ("planning", "asking", "syncing"), "-busy")
        self.set_class(state == "failed", "-failed")
        text = self.status_text()
        line = Text("embeddings: ", style="bold")
        line.append(text if state != "failed" else f"failed: {self.error} · E retries")
        if state == "deferred" and self.plan is not None:
            line.append(f" ({cost_line(self.plan)})")
        self.update(line)
        self.post_message(self.Changed(self.ready, text))

    # -- what drives it ---------------------------------------------------------

    def on_mount(self) -> None:
        self._set("waiting")

    def index_ready(self) -> None:
        """The index was (re)built or refreshed: plan the first sync, or keep up with writes."""
        if self.state in ("planning", "asking", "syncing"):
            self._again = self._again or self.accepted
            return
        if not self._asked:
            self._plan(interactive=True)
        elif self.accepted and self.state in ("ready", "waiting"):
            self._plan(interactive=False)

    def store_changed(self) -> None:
        """The app wrote wiki items (the index hears its own writes): embed them if the user agreed."""
        if self._asked:
            self.index_ready()

    def toggle(self) -> None:
        """``E``: pause a running sync (it keeps what it embedded); otherwise plan and offer to start one."""
        if self.state == "syncing":
            self._stop.set()  # the worker stops before its next batch and says "paused"
        elif self.state not in ("planning", "asking"):
            self._plan(interactive=True)

    @work(thread=True, exclusive=True, group="embed-plan", exit_on_error=False)
    def _plan(self, *, interactive: bool) -> None:
        index = self.backend.index
        self.app.call_from_thread(self._set, "planning")
        try:
            plan = index.plan_vectors()
        except Exception as exc:  # e.g. the local model cannot load: say so, stay on BM25
            self.app.call_from_thread(self._failed, exc)
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._planned, plan, interactive)

    def _planned(self, plan: Any, interactive: bool) -> None:
        """Start at once when there is (almost) nothing to embed or the user already agreed; else ask."""
        self.plan = plan
        self._asked = True
        if plan is None:  # no embedder behind this index
            self._set("waiting")
            return
        small = (plan.to_embed <= AUTO_ITEMS and plan.est_seconds is not None
                 and plan.est_seconds <= AUTO_SECONDS and plan.mismatch is None)
        modest = plan.to_embed <= 10 * AUTO_ITEMS and plan.mismatch is None
        if plan.up_to_date or small or (not interactive and self.accepted and modest):
            self.accepted = True
            self._sync()
            return
        self._set("asking")
        model = str(getattr(self.backend.embedder, "model", None) or self.backend.embed_label or "embedder")
        persist = getattr(self.backend.index, "vector_cache", "readwrite") != "read"
        self.app.push_screen(EmbedPlanScreen(plan, model=model, persist=persist), self._answered)

    def _answered(self, start: bool | None) -> None:
        if start:
            self.accepted = True
            self._sync()
        else:
            self._set("deferred")

    def _sync(self) -> None:
        self._stop.clear()
        self._done, self._total, self._started = 0, self.plan.to_embed if self.plan else 0, time.perf_counter()
        self._set("syncing")
        self._run_sync()

    @work(thread=True, exclusive=True, group="embed", exit_on_error=False)
    def _run_sync(self) -> None:
        from wikimem.vectors import SyncCancelled

        worker = get_current_worker()
        shown = [-1]

        def progress(done: int, total: int) -> None:
            pct = 100 * done // total if total else 100
            if pct != shown[0]:  # one UI update per percent, not per batch
                shown[0] = pct
                self.app.call_from_thread(self._progress, done, total)

        def stop() -> bool:
            return worker.is_cancelled or self._stop.is_set()

        try:
            status = self.backend.index.sync_vectors(progress, stop, batch_size=BATCH)
        except SyncCancelled as exc:
            self.app.call_from_thread(self._paused, exc.done, exc.total)
        except Exception as exc:  # endpoint down, model failed: nothing lost, BM25 carries on
            self.app.call_from_thread(self._failed, exc)
        else:
            self.app.call_from_thread(self._synced, status)

    def _progress(self, done: int, total: int) -> None:
        if self.state == "syncing":
            self._done, self._total = done, total
            self._set("syncing")

    def _paused(self, done: int, total: int) -> None:
        self._done, self._total = done, total
        self._set("paused")

    def _failed(self, exc: Exception) -> None:
        self.error = f"{type(exc).__name__}: {exc}"
        self._set("failed")

    def _synced(self, status: Any) -> None:
        self._set("ready" if status is None or status.ready else "deferred")
        if self._again:
            self._again = False
            self.index_ready()
