"""The vector cache can be neither poisoned nor lost: bad rows, racing processes, slow endpoints, new widths."""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from conftest import SAFETY_NET

np = pytest.importorskip("numpy")
httpx = pytest.importorskip("httpx")

from wikimem import MemoryIndex, MemoryStore  # noqa: E402
from wikimem.lint import lint  # noqa: E402
from wikimem.vectors import DegenerateVectors, HttpEmbedder, VectorCache  # noqa: E402

WARN = "wikimem.retrieval"


class Endpoint:
    """An embedder whose answers the test scripts: ``bad(text)`` gives the poisoned row, or None."""

    def __init__(self, bad=None, dim: int = 3, model: str | None = "m") -> None:
        self.bad = bad
        self.dim = dim
        self.model = model
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        rows = []
        for text in texts:
            row = self.bad(text) if self.bad is not None else None
            rows.append(row if row is not None else
                        [1.0, float("coffee" in text), float("tea" in text), 0.5][: self.dim] + [0.25] * (self.dim - 4))
        return rows


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    store = MemoryStore(tmp_path)
    store.add("drinks", "coffee", "Coffee beans, dark roast.")
    store.add("drinks", "tea", "Green tea leaves.")
    return store


def items_only(text: str) -> bool:
    return "\n" in text  # the embedded text of an item is name + "\n" + content; a query has none


def norms(root: Path) -> list[float]:
    keys, matrix = VectorCache(root).load()
    return [] if matrix is None else np.linalg.norm(np.asarray(matrix, dtype=np.float64), axis=1).tolist()


# -- poisoned rows ------------------------------------------------------------------


@pytest.mark.parametrize("row", [[0.0, 0.0, 0.0], [1e39, 1.0, 0.0], [1e-46, 0.0, 0.0]], ids=["zeros", "overflow", "underflow"])
def test_a_poisoned_answer_is_not_cached_and_that_query_is_bm25_only(store: MemoryStore, caplog, row) -> None:
    once = {"left": 1}
    endpoint = Endpoint(bad=lambda t: row if items_only(t) and once["left"] else None)
    with caplog.at_level(logging.WARNING, logger=WARN):
        first = MemoryIndex(store, use_jieba=False, embedder=endpoint).retrieve("coffee")
    assert not first.embedding_used
    assert [r.getMessage() for r in caplog.records if "not cached" in r.getMessage()]
    assert all(n > 0 and np.isfinite(n) for n in norms(store.root))
    once["left"] = 0  # the endpoint recovers: the next query embeds what was refused, and fuses
    second = MemoryIndex(store, use_jieba=False, embedder=endpoint).retrieve("coffee")
    assert second.embedding_used and second.items[0].item.name == "coffee"
    assert len(norms(store.root)) == 2 and all(n > 0 for n in norms(store.root))


def test_good_rows_of_a_partly_poisoned_sync_are_kept(store: MemoryStore) -> None:
    endpoint = Endpoint(bad=lambda t: [0.0, 0.0, 0.0] if t.startswith("tea\n") else None)
    entries = [(("drinks", i.name), f"{i.name}\n{i.content}") for i in store.items()]
    with pytest.raises(DegenerateVectors, match="1 of 2"):
        VectorCache(store.root).sync(entries, endpoint)
    keys, matrix = VectorCache(store.root).load()
    assert [k["name"] for k in keys] == ["coffee"] and matrix.shape == (1, 3)
    recovered = Endpoint()
    VectorCache(store.root).sync(entries, recovered)
    assert recovered.calls == [["tea\nGreen tea leaves."]]  # only the refused text is embedded again
    assert len(VectorCache(store.root).load()[0]) == 2


def test_a_zero_query_vector_is_bm25_only(store: MemoryStore) -> None:
    endpoint = Endpoint(bad=lambda t: None if items_only(t) else [0.0, 0.0, 0.0])
    result = MemoryIndex(store, use_jieba=False, embedder=endpoint).retrieve("coffee")
    assert not result.embedding_used and result.items[0].item.name == "coffee"


def test_nan_rows_are_refused_as_before(store: MemoryStore) -> None:
    endpoint = Endpoint(bad=lambda t: [float("nan"), 1.0, 1.0] if items_only(t) else None)
    assert not MemoryIndex(store, use_jieba=False, embedder=endpoint).retrieve("coffee").embedding_used
    assert norms(store.root) == []


# -- two processes syncing at once ----------------------------------------------------

SYNCER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from wikimem.vectors import VectorCache
    root, me, rounds = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])

    class Embedder:
        model = "m"
        def embed(self, texts):
            return [[1.0, float(len(t)), float(me + 1)] for t in texts]

    cache = VectorCache(root)
    for i in range(rounds):
        entries = [(("f", f"n{j}"), f"text {me} {i} {j}") for j in range(20)]
        keys, matrix = cache.sync(entries, Embedder())
        assert len(keys) == 20 and matrix.shape == (20, 3), (len(keys), matrix.shape)
        assert float(matrix[0][2]) == me + 1
    print("done")
""")

READER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from wikimem.vectors import VectorCache
    root, stop = Path(sys.argv[1]), Path(sys.argv[2])
    reads = torn = 0
    while not stop.exists():
        keys, matrix = VectorCache(root).load()
        reads += 1
        if matrix is None or len(keys) != matrix.shape[0]:
            torn += 1
    print(reads, torn)
""")


def test_processes_syncing_at_once_never_lose_each_others_matrix(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    (tmp_path / "syncer.py").write_text(SYNCER, "utf-8")
    (tmp_path / "reader.py").write_text(READER, "utf-8")
    first = subprocess.run([sys.executable, str(tmp_path / "syncer.py"), str(root), "9", "1"],
                           capture_output=True, text=True, timeout=SAFETY_NET)
    assert first.returncode == 0, first.stderr
    stop = tmp_path / "stop"
    reader = subprocess.Popen([sys.executable, str(tmp_path / "reader.py"), str(root), str(stop)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    syncers = [subprocess.Popen([sys.executable, str(tmp_path / "syncer.py"), str(root), str(me), "40"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for me in range(3)]
    results = [proc.communicate(timeout=SAFETY_NET) + (proc.returncode,) for proc in syncers]
    stop.touch()
    out, err = reader.communicate(timeout=SAFETY_NET)
    assert [code for _, _, code in results] == [0, 0, 0], [e[-400:] for _, e, _ in results]
    assert reader.returncode == 0, err
    reads, torn = map(int, out.split())
    assert reads > 0 and torn == 0  # a reader whose matrix was swept read the keys again
    keys, matrix = VectorCache(root).load()
    assert len(keys) == 20 and matrix.shape == (20, 3)
    assert len(list(root.glob("vectors-*.npy"))) == 1


# -- a slow-drip endpoint --------------------------------------------------------------


class DripServer:
    """A loopback HTTP server that answers one byte at a time, slowly, for ever (``part``: what it drips)."""

    def __init__(self, part: str) -> None:
        self.part = part
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        body = b'{"data": [{"index": 0, "embedding": [1.0, 2.0, 3.0]}]}' + b" " * 10_000
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
        with conn:
            try:
                conn.recv(65536)
                if self.part == "body":
                    conn.sendall(head)
                for byte in (head + body if self.part == "headers" else body):
                    if self.stop.wait(0.2):
                        return
                    conn.sendall(bytes([byte]))
            except OSError:
                return

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.fixture(params=["headers", "body"])
def drip(request):
    server = DripServer(request.param)
    yield server
    server.close()


def test_the_timeout_is_a_deadline_for_the_whole_call(drip: DripServer) -> None:
    embedder = HttpEmbedder(drip.url, "m", timeout=1.0)
    start = time.monotonic()
    with pytest.raises(httpx.TimeoutException, match="within 1 s"):
        embedder.embed(["a"])
    assert time.monotonic() - start < SAFETY_NET  # about 1 s; before: as long as the drip (half an hour)


def test_retrieve_with_a_dripping_endpoint_returns_bm25_in_time(store: MemoryStore, drip: DripServer) -> None:
    index = MemoryIndex(store, use_jieba=False, embedder=HttpEmbedder(drip.url, "m", timeout=1.0))
    start = time.monotonic()
    result = index.retrieve("coffee")
    assert not result.embedding_used and result.items[0].item.name == "coffee"
    assert time.monotonic() - start < SAFETY_NET  # the embedder's 1 s, not the drip's half hour


# -- a new width under the same model name ------------------------------------------------


def test_a_new_width_under_the_same_model_warns_once_and_ranks_bm25_only(store: MemoryStore, caplog) -> None:
    MemoryIndex(store, use_jieba=False, embedder=Endpoint(dim=3)).retrieve("coffee")
    before = sorted(p.name for p in store.root.glob("vectors*"))
    wider = Endpoint(dim=5)
    index = MemoryIndex(store, use_jieba=False, embedder=wider)
    with caplog.at_level(logging.WARNING, logger=WARN):
        result = index.retrieve("coffee")
        store.add("drinks", "cocoa", "Hot cocoa.")  # an item to embed: a query must not re-embed the store
        again = index.retrieve("coffee tea")
        index.rebuild()
        index.retrieve("tea")
    assert not result.embedding_used and not again.embedding_used
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].startswith("vector cache was built with model 'm' at 3 dimensions") and "BM25 only" in warnings[0]
    status = index.vector_status()
    assert status is not None and not status.ready and "5" in (status.mismatch or "")
    assert sorted(p.name for p in store.root.glob("vectors*")) == before  # the cache on disk is left alone
    assert all(len(call) == 1 for call in wider.calls)  # only queries were embedded


def test_an_explicit_sync_replaces_a_cache_of_another_width(store: MemoryStore) -> None:
    MemoryIndex(store, use_jieba=False, embedder=Endpoint(dim=3)).retrieve("coffee")
    index = MemoryIndex(store, use_jieba=False, embedder=Endpoint(dim=5), vector_sync="manual")
    assert not index.retrieve("coffee").embedding_used  # the width is learnt from this query
    assert index.plan_vectors().to_embed == 2
    index.sync_vectors()
    assert VectorCache(store.root).header()["dim"] == 5
    assert index.retrieve("coffee").embedding_used


def test_lint_reports_a_cache_of_another_width(store: MemoryStore) -> None:
    MemoryIndex(store, use_jieba=False, embedder=Endpoint(dim=3)).retrieve("coffee")
    found = [f for f in lint(store.root, model="m", dim=5).findings if f.code == "vector-cache-model"]
    assert len(found) == 1 and "3 dimensions" in found[0].message and "returns 5" in found[0].message
    assert not [f for f in lint(store.root, model="m", dim=3).findings if f.code == "vector-cache-model"]


def test_lint_reports_wiki_and_diary_caches_of_two_widths(store: MemoryStore) -> None:
    MemoryIndex(store, use_jieba=False, embedder=Endpoint(dim=3)).retrieve("coffee")
    VectorCache(store.root / "diary-vectors").sync([(("2026-07-21", "09:00"), "09:00\nx")], Endpoint(dim=5))
    found = [f for f in lint(store.root).findings if f.code == "vector-cache-model"]
    assert len(found) == 1 and "5 dimensions" in found[0].message
