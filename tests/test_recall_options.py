"""The recall surfaces' new options: an "as of" day (``--today``, MCP ``today``) and ``--embed``.

Relative time words resolve against the day given, so a store of another
time answers "last week" of its own; a malformed day is a usage error that
names the format. ``--embed`` fuses an encoder's cosine into recall on the
CLI and in the MCP server; an encoder that fails leaves BM25 with a warning,
never a crash; without ``--embed`` nothing of the embedding extra is loaded.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.test_cli_fixtures import run
from tests.test_import_hygiene import loaded_after
from wikimem import MemoryStore
from wikimem.server.memory import AgentMemory, BadInput
from wikimem.server.vector_sync import RETRY_SECONDS

MUSEUM = "Went to the museum with Caroline."


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    store = MemoryStore(root)
    store.add("people", "Caroline", "Caroline paints sunsets by the lake.")
    store.add("people", "Bob", "Bob drinks coffee every morning.")
    store.diary.append(MUSEUM, date="2023-05-08", time="10:00")
    store.diary.append("Fed the ducks at the pond.", date="2023-06-09", time="16:00")
    return root


# -- the "as of" day ----------------------------------------------------------------------


def test_recall_today_anchors_relative_words(mem: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-s", str(mem), "recall", "museum last week", "--today", "2023-05-15")
    assert code == 0 and "## diary 2023-05-08 10:00" in out and MUSEUM in out
    code, out, _ = run(capsys, "-s", str(mem), "recall", "museum last week", "--today", "2023-06-15")
    assert MUSEUM not in out  # a month later "last week" is another window (it holds the ducks, not the museum)


def test_recall_today_also_anchors_a_month_without_a_year(mem: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-s", str(mem), "recall", "museum on May 8th", "--today", "2024-04-01", "--json")
    assert json.loads(out)["time_range"] == ["2023-05-08", "2023-05-08"]


def test_recall_time_range_takes_time_words_and_months_as_the_apps_box_does(
        mem: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--time-range "last week"`` was refused (only YYYY-MM-DD[..B]) while the app's time box took it."""
    code, out, _ = run(capsys, "-s", str(mem), "recall", "museum", "--time-range", "last week",
                       "--today", "2023-05-15", "--json")
    assert code == 0 and json.loads(out)["time_range"] == ["2023-05-08", "2023-05-14"]
    code, out, _ = run(capsys, "-s", str(mem), "recall", "ducks", "--time-range", "2023-06", "--json")
    assert code == 0 and json.loads(out)["time_range"] == ["2023-06-01", "2023-06-30"]
    code, _, err = run(capsys, "-s", str(mem), "recall", "ducks", "--time-range", "someday")
    assert code == 2 and "bad --time-range: 'someday'" in err and "last week" in err


def test_explain_today_sets_the_time_gate(mem: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-s", str(mem), "explain", "museum 3 days ago", "--today", "2023-05-11")
    assert code == 0 and "time gate: 2023-05-08  [parsed]" in out.splitlines()


@pytest.mark.parametrize("verb", ["recall", "explain"])
@pytest.mark.parametrize("bad", ["2023-5-15", "yesterday", "2023-02-30", ""])
def test_a_malformed_today_is_a_usage_error_naming_the_format(mem: Path, capsys: pytest.CaptureFixture[str], verb: str, bad: str) -> None:
    code, out, err = run(capsys, "-s", str(mem), verb, "museum", "--today", bad)
    assert (code, out) == (2, "") and "--today" in err and "YYYY-MM-DD" in err


def test_mcp_recall_and_why_not_take_today(mem: Path) -> None:
    memory = AgentMemory(mem)
    found = memory.recall("museum last week", today="2023-05-15")
    assert found["time_range"] == ["2023-05-08", "2023-05-14"]
    assert [row["label"] for row in found["items"]] == ["diary 2023-05-08 10:00"]
    why = memory.why_not("museum last week", "2023-05-08", "10:00", today="2023-05-15")
    assert why["recalled"] is True
    assert memory.why_not("museum last week", "2023-05-08", "10:00", today="2023-06-15")["recalled"] is False


def test_mcp_today_holds_for_its_own_call_only(mem: Path) -> None:
    memory = AgentMemory(mem)
    assert memory.recall("museum last week", today="2023-05-15")["items"]
    assert memory.recall("museum last week")["time_range"] != ["2023-05-08", "2023-05-14"]


def test_mcp_today_of_concurrent_calls_do_not_mix(mem: Path) -> None:
    memory = AgentMemory(mem)
    days = ("2023-05-09", "2023-06-02")
    alone = {day: memory.recall("museum yesterday", today=day)["time_range"] for day in days}
    assert alone["2023-05-09"] != alone["2023-06-02"]
    windows: dict[str, list[list[str]]] = {day: [] for day in days}
    barrier = threading.Barrier(2)

    def call(today: str) -> None:
        barrier.wait()
        for _ in range(20):
            windows[today].append(memory.recall("museum yesterday", today=today)["time_range"])

    threads = [threading.Thread(target=call, args=(day,)) for day in days]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(window == alone[day] for day in days for window in windows[day])


@pytest.mark.parametrize("bad", ["2023-5-15", "last week", "2023-02-30", "15/05/2023"])
def test_mcp_bad_today_is_bad_input_naming_the_format(mem: Path, bad: str) -> None:
    memory = AgentMemory(mem)
    with pytest.raises(BadInput, match="YYYY-MM-DD"):
        memory.recall("museum", today=bad)
    with pytest.raises(BadInput, match="YYYY-MM-DD"):
        memory.why_not("museum", "people", "Caroline", today=bad)


# -- --embed ------------------------------------------------------------------------------


class _PaintEmbedder:
    """2-d vectors: a painting/drawing axis and a constant (no word in common needed)."""

    model = "fake-paint"

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [[float(any(w in t.lower() for w in ("paint", "draw", "sketch"))), 0.05] for t in texts]


class _DeadEmbedder:
    model = "dead"

    def embed(self, texts: list[str]) -> list[list[float]]:
        raise ConnectionError("endpoint down")


def _use_embedder(monkeypatch: pytest.MonkeyPatch, embedder: object) -> None:
    import wikimem.vectors as vectors

    monkeypatch.setattr(vectors, "make_embedder", lambda spec, **kw: embedder)


def test_recall_embed_finds_what_shares_no_word_with_the_query(mem: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(capsys, "-s", str(mem), "recall", "who likes drawing?")
    assert code == 1 and out == ""  # BM25 alone: no word in common
    _use_embedder(monkeypatch, _PaintEmbedder())
    code, out, err = run(capsys, "-s", str(mem), "recall", "who likes drawing?", "--embed", "local")
    assert code == 0 and out.startswith("## people:Caroline\n") and err == ""


def test_recall_embeds_for_a_while_then_answers_and_the_next_call_goes_on(
    mem: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import wikimem.cli.embed as embed

    _use_embedder(monkeypatch, _PaintEmbedder())
    monkeypatch.setattr(embed, "EMBED_SECONDS", 0.0)  # out of time before the first batch
    code, out, err = run(capsys, "-s", str(mem), "recall", "who likes drawing?", "--embed", "local")
    assert (code, out) == (1, "") and "embedded 0 more of 2 wiki items" in err and "BM25" in err
    monkeypatch.setattr(embed, "EMBED_SECONDS", 120.0)
    code, out, err = run(capsys, "-s", str(mem), "recall", "who likes drawing?", "--embed", "local")
    assert code == 0 and out.startswith("## people:Caroline\n") and err == ""


def test_recall_with_a_failing_encoder_is_bm25_with_a_warning(mem: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _use_embedder(monkeypatch, _DeadEmbedder())
    code, out, err = run(capsys, "-s", str(mem), "recall", "coffee", "--embed", "local")
    assert code == 0 and out.startswith("## people:Bob\n")
    assert "warning" in err and "BM25 only" in err


def test_recall_with_a_dead_endpoint_is_bm25_with_a_warning(mem: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code, out, err = run(capsys, "-s", str(mem), "recall", "coffee", "--embed", f"http://127.0.0.1:{port}/v1",
                         "--embed-model", "m")
    assert code == 0 and out.startswith("## people:Bob\n") and "BM25 only" in err


@pytest.mark.parametrize("verb", [["recall", "coffee"], ["mcp"]])
def test_a_bad_embed_spec_is_a_usage_error(mem: Path, capsys: pytest.CaptureFixture[str], verb: list[str]) -> None:
    code, out, err = run(capsys, "-s", str(mem), *verb, "--embed", "ftp://nowhere")
    assert code == 2 and out == "" and "bad --embed" in err


def test_without_embed_recall_loads_nothing_of_the_embedding_extra(mem: Path) -> None:
    code = (f"from wikimem.cli import main\nmain(['-s', {str(mem)!r}, 'recall', 'coffee'])\n"
            f"from wikimem.server.memory import AgentMemory\nAgentMemory({str(mem)!r}).recall('coffee')")
    assert set(loaded_after(code)).isdisjoint({"numpy", "httpx", "wikimem.vectors"})


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class _GatedEmbedder(_PaintEmbedder):
    """Embeds documents only once the gate opens (a query text passes at once)."""

    def __init__(self) -> None:
        self.gate = threading.Event()

    def embed(self, texts: list[str]) -> list[list[float]]:
        if texts != ["who likes drawing?"]:
            assert self.gate.wait(120.0)  # a safety net, not the thing waited for
        return super().embed(texts)


def test_recall_does_not_wait_for_the_vectors_it_is_bm25_until_they_are_ready(mem: Path) -> None:
    embedder = _GatedEmbedder()
    memory = AgentMemory(mem, embedder=embedder)
    early = memory.recall("who likes drawing?")  # starts the sync, which waits at the gate
    assert early["embedding_used"] is False and early["items"] == []
    assert memory.vectors is not None and memory.vectors.thread is not None
    embedder.gate.set()
    memory.vectors.thread.join()
    assert memory.recall("who likes drawing?")["embedding_used"] is True


def test_the_server_embeds_in_the_background_then_recall_is_fused(mem: Path) -> None:
    said: list[str] = []
    memory = AgentMemory(mem, embedder=_PaintEmbedder(), warn=said.append)
    memory.start_building().join()
    result = memory.recall("who likes drawing?")
    assert result["embedding_used"] is True and result["items"][0]["label"] == "people:Caroline"
    assert len(said) == 1 and "ready: 2 of 2 wiki items embedded" in said[0]


def test_the_server_catches_up_with_items_written_since(mem: Path) -> None:
    memory = AgentMemory(mem, embedder=_PaintEmbedder(), warn=print)
    memory.start_building().join()
    memory.remember("people", "Dana", "Dana sketches birds.")
    assert memory.vectors is not None
    thread = memory.vectors.catch_up()
    assert thread is not None
    thread.join()
    labels = [row["label"] for row in memory.recall("who likes drawing?")["items"]]
    assert "people:Dana" in labels and memory.vectors.catch_up() is None  # nothing left to embed


def test_a_dead_encoder_costs_one_warning_and_a_retry_per_interval(mem: Path) -> None:
    said: list[str] = []
    clock = _Clock()
    memory = AgentMemory(mem, embedder=_DeadEmbedder(), warn=said.append, clock=clock)
    memory.start_building().join()
    result = memory.recall("coffee")
    assert result["embedding_used"] is False and result["items"][0]["label"] == "people:Bob"
    assert len(said) == 1 and "BM25 only" in said[0] and "endpoint down" in said[0]
    assert memory.vectors is not None and memory.vectors.failing
    assert memory.vectors.catch_up() is None  # too soon after the failure
    clock.now += RETRY_SECONDS
    thread = memory.vectors.catch_up()
    assert thread is not None
    thread.join()
    assert len(said) == 1  # still down: said once
    memory.vectors.index.embedder.embed = _PaintEmbedder().embed  # the endpoint is back
    clock.now += RETRY_SECONDS
    thread = memory.vectors.catch_up()
    assert thread is not None
    thread.join()
    assert len(said) == 2 and "ready" in said[1]
    assert memory.recall("coffee")["embedding_used"] is True


def test_a_read_only_server_keeps_its_vectors_in_memory(mem: Path) -> None:
    before = sorted(p.name for p in mem.rglob("*"))
    memory = AgentMemory(mem, embedder=_PaintEmbedder(), read_only=True)
    memory.start_building().join()
    assert memory.recall("who likes drawing?")["embedding_used"] is True
    assert sorted(p.name for p in mem.rglob("*")) == before


class _EmbeddingsHandler(BaseHTTPRequestHandler):
    """An OpenAI-compatible ``POST /v1/embeddings`` giving _PaintEmbedder's vectors."""

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        vectors = _PaintEmbedder().embed(body["input"])
        reply = json.dumps({"data": [{"index": i, "embedding": v} for i, v in enumerate(vectors)]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        pass


async def test_wikimem_mcp_embed_url_fuses_recall_once_ready(mem: Path) -> None:
    pytest.importorskip("mcp")
    from mcp_support import http_client, http_server

    from app_waits import wait_until

    endpoint = ThreadingHTTPServer(("127.0.0.1", 0), _EmbeddingsHandler)
    threading.Thread(target=endpoint.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{endpoint.server_address[1]}/v1"
    try:
        with http_server(mem, "--embed", url, "--embed-model", "paint") as (mcp_url, lines):
            wait_until(lambda: any("recall is fused" in line for line in lines), "the vectors to be ready")
            async with http_client(mcp_url) as client:
                result = await client.call_tool("recall", {"query": "who likes drawing?"})
            assert result.structured_content["embedding_used"] is True
            assert result.content[0].text.startswith("## people:Caroline\n")
            assert any("semantic recall with HttpEmbedder" in line for line in lines)
    finally:
        endpoint.shutdown()
        endpoint.server_close()


async def test_wikimem_mcp_with_a_dead_endpoint_serves_bm25_and_says_so(mem: Path) -> None:
    pytest.importorskip("mcp")
    from mcp_support import http_client, http_server

    from app_waits import wait_until

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with http_server(mem, "--embed", f"http://127.0.0.1:{port}/v1", "--embed-model", "m") as (mcp_url, lines):
        wait_until(lambda: any("BM25 only" in line for line in lines), "the warning")
        async with http_client(mcp_url) as client:
            result = await client.call_tool("recall", {"query": "coffee"})
        assert not result.is_error and result.structured_content["embedding_used"] is False
        assert result.content[0].text.startswith("## people:Bob\n")
