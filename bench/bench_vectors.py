"""Vector figures from BENCH.md, each against a reference measured in the same run.

1. Exact tier: cosine top-10 over a 100k × 1024 float32 memory-mapped matrix
   (warm page cache) vs a plain numpy matvec (``M @ q``, no normalisation,
   no top-k) on the same map; plus the default (binary) tier at that size.
2. Binary tier: 1M rows (256 dims by default, ``--dim`` to change; 1M × 1024
   needs 4 GB of float32) — recall@10 against brute-force cosine, and time
   against a brute-force matvec and a bare numpy ``bitwise_count`` Hamming
   scan. The rows are synthetic but clustered (centres + noise; a query is a
   stored row plus noise), because i.i.d. Gaussian rows have no meaningful
   neighbours. Real-data recall of the same tier is printed from the CMRC
   embeddings cached by ``bench/quality.py`` when present.
3. Cache sync with nothing changed: embedding calls and files written.

Matrices are written under ``$TMPDIR`` and removed afterwards.
Usage: ``python bench/bench_vectors.py [--rows-exact 100000] [--rows-binary 1000000] [--dim 256]``
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from goals import goal  # noqa: E402

from wikimem.vectors import MemmapVectorIndex, VectorCache, embed_text  # noqa: E402


RECALL_GOAL = 0.95


def p50s(fns: list, queries, rounds: int = 3) -> list[float]:
    """Median ms per function, interleaved query by query so machine load hits all alike."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(rounds):
        for q in queries:
            for i, fn in enumerate(fns):
                t0 = time.perf_counter()
                fn(q)
                times[i].append(time.perf_counter() - t0)
    return [statistics.median(t) * 1000 for t in times]


def write_memmap(path: Path, rows: int, dim: int, *, clustered: bool, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(rows, dim))
    centres = rng.standard_normal((max(1, rows // 20), dim)).astype(np.float32)
    for start in range(0, rows, 100_000):
        n = min(100_000, rows - start)
        block = rng.standard_normal((n, dim)).astype(np.float32)
        if clustered:
            block = centres[rng.integers(0, len(centres), n)] + 0.35 * block
        m[start:start + n] = block
    m.flush()
    del m
    return np.load(path, mmap_mode="r")


def brute_topk(m: np.ndarray, inv_norms: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    scores = (m @ q) * inv_norms
    top = np.argpartition(-scores, k)[:k]
    return top[np.argsort(-scores[top])]


def bench_exact(tmp: Path, rows: int, dim: int = 1024) -> None:
    print(f"\n## 1. cosine top-10 over {rows:,} x {dim} float32 (memmap, warm)\n")
    m = write_memmap(tmp / "exact.npy", rows, dim, clustered=True)
    rng = np.random.default_rng(1)
    queries = [rng.standard_normal(dim).astype(np.float32) for _ in range(30)]
    exact = MemmapVectorIndex(m, binary_threshold=rows + 1)
    tiered = MemmapVectorIndex(m)  # default threshold 10k -> binary tier
    for q in queries[:3]:  # warm the page cache and BLAS
        m @ q
        exact.search(q, 10)
    ref, ex, bi = p50s(
        [lambda q: m @ q, lambda q: exact.search(q, 10), lambda q: tiered.search(q, 10)], queries
    )
    print("| engine | p50 ms | vs matvec |\n|---|---|---|")
    print(f"| numpy matvec `M @ q` (reference, no top-k) | {ref:.2f} | 1.00 |")
    print(f"| MemmapVectorIndex exact tier (threshold above N) | {ex:.2f} | {ex / ref:.2f} |")
    print(f"| MemmapVectorIndex default (binary tier at 100k) | {bi:.2f} | {bi / ref:.2f} |")
    print("\nBENCH.md goal: cosine top-10 <= numpy matvec")
    goal("exact tier", ex / ref)
    goal("default tiers", bi / ref)
    del exact, tiered, m


def recall_at_10(index: MemmapVectorIndex, m: np.ndarray, queries: list[np.ndarray]) -> float:
    norms = np.linalg.norm(np.asarray(m), axis=1)
    inv = np.where(norms > 0, 1 / np.where(norms > 0, norms, 1), 0).astype(np.float32)
    hits = 0
    for q in queries:
        truth = set(brute_topk(m, inv, q / np.linalg.norm(q), 10).tolist())
        hits += len(truth & {r for r, _ in index.search(q, 10)})
    return hits / (10 * len(queries))


def bench_binary(tmp: Path, rows: int, dim: int) -> None:
    print(f"\n## 2. binary tier, {rows:,} x {dim} float32 (clustered synthetic rows)\n")
    m = write_memmap(tmp / "binary.npy", rows, dim, clustered=True, seed=2)
    t0 = time.perf_counter()
    index = MemmapVectorIndex(m)
    build = time.perf_counter() - t0
    rng = np.random.default_rng(3)
    rows_q = rng.choice(rows, 50, replace=False)
    queries = [np.asarray(m[r]) + 0.3 * rng.standard_normal(dim).astype(np.float32) for r in rows_q]
    assert index._signatures is not None
    sigs = index._signatures
    qsig = np.packbits(queries[0] > 0)
    for q in queries[:3]:
        index.search(q, 10)
        m @ q
    ref_ham, ref_mv, ours = p50s(
        [lambda q: np.bitwise_count(sigs ^ qsig).sum(axis=1), lambda q: m @ q,
         lambda q: index.search(q, 10)],
        queries,
        rounds=1,
    )
    recall = recall_at_10(index, m, queries)
    print(f"signatures built in {build:.1f}s ({index._signatures.nbytes / 2**20:.0f} MiB)\n")
    print("| engine | p50 ms | vs bitwise_count Hamming |\n|---|---|---|")
    print(f"| numpy `bitwise_count` Hamming over packed uint8 (reference) | {ref_ham:.1f} | 1.00 |")
    print(f"| brute-force matvec `M @ q` | {ref_mv:.1f} | {ref_mv / ref_ham:.2f} |")
    print(f"| MemmapVectorIndex binary coarse + exact rerank of 40 | {ours:.1f} | {ours / ref_ham:.2f} |")
    print(f"\nrecall@10 vs brute-force cosine: {recall:.3f} (50 queries)")
    print("BENCH.md goal: binary coarse + exact rerank keeps recall@10 >= 0.95")
    goal(f"synthetic clustered rows, recall {recall:.3f}", RECALL_GOAL / recall if recall else float("inf"))
    del index, m


def bench_real_recall() -> None:
    import wikimem.vectors.search as index_module

    cache = Path("/tmp/wikimem-quality")
    pairs = [(p, next(cache.glob(p.name.rsplit("-p-", 1)[0] + "-q-*.npy"), None))
             for p in sorted(cache.glob("*-p-*.npy"))]
    pairs = [(p, q) for p, q in pairs if q is not None and np.load(p, mmap_mode="r").shape[0] >= 1000]
    if not pairs:
        print("\n(no cached embeddings: run bench/quality.py for real-data recall)")
        return
    print("\n## 2b. binary tier recall@10 on real embeddings (forced binary, 400 real queries)\n")
    print("| embeddings | rows x dim | signs | recall@10 | raw signs |\n|---|---|---|---|---|")
    for p, q in pairs:
        docs, queries = np.load(p), list(np.load(q)[:400])
        index = MemmapVectorIndex(docs, binary_threshold=0)
        saved, index_module._CENTRE_ABOVE = index_module._CENTRE_ABOVE, float("inf")
        try:
            raw = MemmapVectorIndex(docs, binary_threshold=0)
        finally:
            index_module._CENTRE_ABOVE = saved
        recall = recall_at_10(index, docs, queries)
        print(f"| {p.name.rsplit('-p-', 1)[0]} | {docs.shape[0]} x {docs.shape[1]} | "
              f"{'centred' if index._centre is not None else 'raw'} | "
              f"{recall:.3f}{'' if recall >= RECALL_GOAL else ' MISS (< 0.95)'} | "
              f"{recall_at_10(raw, docs, queries):.3f} |")


class CountingEmbedder:
    model = "bench-stub"

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        return [[b / 255 for b in hashlib.sha256(t.encode()).digest()[:32]] for t in texts]


def bench_sync(tmp: Path, n: int = 10_000) -> None:
    print(f"\n## 3. cache sync, {n:,} entries\n")
    entries = [((f"f{i // 200}", f"item {i}"), embed_text(f"item {i}", f"content {i}"))
               for i in range(n)]
    cache_dir = tmp / "cache"
    cache = VectorCache(cache_dir)
    print("| sync | embed calls | files written | ms |\n|---|---|---|---|")
    changed = list(entries)
    changed[5] = (changed[5][0], "changed text")
    for label, batch in (("first (cold)", entries), ("nothing changed", entries), ("one entry changed", changed)):
        embedder = CountingEmbedder()
        before = _files(cache_dir)
        t0 = time.perf_counter()
        cache.sync(batch, embedder)
        ms = (time.perf_counter() - t0) * 1000
        after = _files(cache_dir)
        written = sum(1 for name, sig in after.items() if before.get(name) != sig)
        print(f"| {label} | {embedder.calls} | {written} | {ms:.0f} |")
        if label == "nothing changed":
            noop = (embedder.calls, written)
    print("\nBENCH.md goal: cache sync with nothing changed -> zero embedding calls, no file written: "
          + ("ok" if noop == (0, 0) else f"MISS ({noop[0]} calls, {noop[1]} files)"))


def _files(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Each file's (inode, mtime_ns, size): a file replaced or rewritten changes it."""
    if not folder.exists():
        return {}
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns, p.stat().st_size) for p in folder.iterdir() if p.is_file()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows-exact", type=int, default=100_000)
    parser.add_argument("--rows-binary", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=256)
    args = parser.parse_args()
    print(f"numpy {np.__version__}, bitwise_count: {hasattr(np, 'bitwise_count')}")
    with tempfile.TemporaryDirectory(prefix="wikimem-bench-vectors-") as tmp:
        bench_exact(Path(tmp), args.rows_exact)
        bench_binary(Path(tmp), args.rows_binary, args.dim)
        bench_real_recall()
        bench_sync(Path(tmp))


if __name__ == "__main__":
    main()
