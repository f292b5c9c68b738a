"""The fusion methods measured and not chosen (bench/fusions.py): dbsf and rrf.

They left the library in issue 14 with their tests: the rrf and dbsf cases
of tests/test_fusion.py are here, and every property the library's methods
must have is run on these too (through ``MemoryIndex(fusion=<function>)``
as well, which is how bench/quality.py measures them).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

import pytest
import test_fusion
from test_fusion import BM25, COS, order

from bench.fusions import FUSIONS, RRF_K, dbsf, method, rrf
from wikimem import MemoryIndex, MemoryStore
from wikimem.ranking.fusion import FUSIONS as LIBRARY_FUSIONS
from wikimem.ranking.fusion import fuse

BENCH_ONLY = sorted(set(FUSIONS) - set(LIBRARY_FUSIONS))


def test_the_bench_keeps_dbsf_and_rrf_beside_the_librarys_methods():
    assert BENCH_ONLY == ["dbsf", "rrf"]
    assert {name: FUSIONS[name] for name in LIBRARY_FUSIONS} == LIBRARY_FUSIONS


def test_rrf_is_weighted_reciprocal_rank():
    fused = fuse(rrf, BM25, COS, 0.25)
    assert fused[2] == pytest.approx(0.25 / (RRF_K + 2) + 0.75 / (RRF_K + 1))
    assert fused[4] == pytest.approx(0.75 / (RRF_K + 2))


def test_dbsf_scores_lie_within_unit_interval():
    fused = fuse(dbsf, BM25, COS, 0.5)
    assert all(0.0 <= v <= 1.0 for v in fused.values())


def _properties() -> Iterable[str]:
    return [name for name in dir(test_fusion) if name.startswith("test_") and "method" in
            getattr(test_fusion, name).__code__.co_varnames[:1]]


@pytest.mark.parametrize("name", BENCH_ONLY)
@pytest.mark.parametrize("prop", _properties())
def test_every_method_property_holds(name: str, prop: str):
    getattr(test_fusion, prop)(FUSIONS[name])


def test_every_property_is_found():
    assert len(_properties()) >= 7  # a rename in test_fusion.py must not silently drop them


@pytest.mark.parametrize("name", BENCH_ONLY)
def test_fusion_does_not_mutate_its_inputs(name: str):
    bm25, cos = dict(BM25), dict(COS)
    fuse(FUSIONS[name], bm25, cos, 0.5)
    assert (bm25, cos) == (BM25, COS)


@pytest.mark.parametrize("name", BENCH_ONLY)
def test_non_finite_scores_are_ignored(name: str):
    assert all(math.isfinite(v) for v in fuse(FUSIONS[name], {1: math.inf, 2: 1.0}, {2: 0.5}, 0.5).values())


def test_method_names_the_librarys_own_and_hands_over_the_benchs():
    assert method("zscore") == "zscore" and method("minmax") == "minmax"
    assert method("rrf") is rrf
    with pytest.raises(SystemExit, match="dbsf"):
        method("magic")


def test_memory_index_ranks_with_a_bench_fusion(tmp_path: Path):
    pytest.importorskip("numpy")
    from test_retrieval_embed import ConceptEmbedder  # noqa: PLC0415 - needs numpy

    calls: list[float] = []

    def recorded(bm25, cos, weight):
        calls.append(weight)
        return rrf(bm25, cos, weight)

    store = MemoryStore(tmp_path)
    store.add("prefs", "coffee", "只喝手冲咖啡。")
    store.add("work", "job", "Robotics company, busy weeks.")
    index = MemoryIndex(store, use_jieba=False, embedder=ConceptEmbedder(), fusion=recorded, fusion_weight=0.3)
    result = index.retrieve("coffee 咖啡")
    assert result.embedding_used and calls == [0.3]
    assert result.items[0].item.name == "coffee"
