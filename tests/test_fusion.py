"""Fusion of BM25 and cosine scores: pure functions, weight = BM25's share.

The library's methods (the default and the reference ``minmax``); the
methods measured and not chosen are tested with bench/fusions.py in
tests/test_bench_fusions.py, which also runs every property below on them.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from wikimem.ranking.fusion import DEFAULT_FUSION, FUSIONS, fuse

BM25 = {1: 10.0, 2: 5.0, 3: 0.0}
COS = {2: 0.9, 4: 0.5, 1: 0.1}


def order(scores: dict[int, float]) -> list[int]:
    return sorted(scores, key=lambda d: (-scores[d], d))


def test_minmax_is_the_reference_formula():
    fused = fuse("minmax", BM25, COS, 0.5)
    # bm25 normalised: 1→1, 2→.5, 3→0, 4 missing→0; cos: 2→1, 4→.5, 1→0, 3 missing→0
    assert fused == pytest.approx({1: 0.5, 2: 0.75, 3: 0.0, 4: 0.25})


def test_minmax_weight_is_bm25s_share():
    fused = fuse("minmax", BM25, COS, 0.8)
    assert fused[1] == pytest.approx(0.8 * 1.0 + 0.2 * 0.0)
    assert fused[4] == pytest.approx(0.8 * 0.0 + 0.2 * 0.5)


def test_minmax_missing_signal_counts_as_its_minimum():
    fused = fuse("minmax", {1: 3.0, 2: 1.0}, {3: 0.7, 1: 0.2}, 0.5)
    assert fused[3] == pytest.approx(0.5 * 0.0 + 0.5 * 1.0)
    assert fused[2] == pytest.approx(0.5 * 0.0 + 0.5 * 0.0)


def test_minmax_single_candidate_counts_as_the_top():
    assert fuse("minmax", {7: 2.5}, {}, 0.5) == {7: pytest.approx(0.5)}


@pytest.mark.parametrize("method", sorted(FUSIONS))
def test_weight_one_ranks_by_bm25_alone(method):
    fused = fuse(method, BM25, COS, 1.0)
    assert order(fused)[:2] == [1, 2]


@pytest.mark.parametrize("method", sorted(FUSIONS))
def test_weight_zero_ranks_by_cosine_alone(method):
    fused = fuse(method, BM25, COS, 0.0)
    assert order(fused)[:3] == [2, 4, 1]


@pytest.mark.parametrize("method", sorted(FUSIONS))
def test_every_candidate_of_either_signal_is_scored(method):
    assert set(fuse(method, BM25, COS, 0.5)) == {1, 2, 3, 4}


@pytest.mark.parametrize("method", sorted(FUSIONS))
def test_empty_inputs_fuse_to_nothing(method):
    assert fuse(method, {}, {}, 0.5) == {}


@pytest.mark.parametrize("method", sorted(FUSIONS))
def test_one_empty_signal_keeps_the_others_order(method):
    assert order(fuse(method, {}, COS, 0.5)) == [2, 4, 1]
    assert order(fuse(method, BM25, {}, 0.5))[:2] == [1, 2]


@pytest.mark.parametrize("method", sorted(FUSIONS))
def test_a_document_strong_in_both_signals_wins(method):
    fused = fuse(method, {1: 9.0, 2: 8.0, 3: 1.0}, {2: 0.9, 3: 0.8, 1: 0.1}, 0.5)
    assert order(fused)[0] == 2


@pytest.mark.parametrize("method", sorted(FUSIONS))
def test_non_finite_scores_are_ignored(method):
    fused = fuse(method, {1: math.nan, 2: 1.0}, {2: 0.5}, 0.5)
    assert all(math.isfinite(v) for v in fused.values())


def test_zscore_standardises_each_signal():
    fused = fuse("zscore", {1: 2.0, 2: 0.0}, {1: 0.0, 2: 2.0}, 0.5)
    assert fused == pytest.approx({1: 0.0, 2: 0.0})


def test_the_reference_stays_available_by_name():
    assert "minmax" in FUSIONS


def test_default_fusion_is_a_registered_method():
    assert DEFAULT_FUSION in FUSIONS


def test_unknown_method_raises_value_error_listing_the_choices():
    with pytest.raises(ValueError, match="minmax"):
        fuse("magic", BM25, COS, 0.5)


def test_the_library_carries_only_the_default_and_the_reference():
    assert sorted(FUSIONS) == sorted({"minmax", DEFAULT_FUSION})


def test_a_fusion_function_is_used_as_given():
    def bm25_only(bm25, cos, weight):
        return dict(bm25)

    assert fuse(bm25_only, BM25, COS, 0.5) == BM25


@pytest.mark.parametrize("weight", [-0.1, 1.5, math.nan])
def test_weight_outside_the_unit_interval_raises_value_error(weight):
    with pytest.raises(ValueError):
        fuse("minmax", BM25, COS, weight)


def test_fusion_does_not_mutate_its_inputs():
    bm25, cos = dict(BM25), dict(COS)
    for method in FUSIONS:
        fuse(method, bm25, cos, 0.5)
    assert (bm25, cos) == (BM25, COS)


@pytest.mark.parametrize("module", ["wikimem.ranking.fusion", "wikimem.memorize"])
def test_importing_loads_no_numpy_or_network_code(module):
    code = (
        f"import sys, {module}; "
        "bad = [m for m in ('numpy', 'httpx', 'jieba', 'textual') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert out.stdout.strip() == ""


def test_zscore_lets_a_lone_bm25_hit_count():
    cos = {doc: 0.3 + 0.02 * doc for doc in range(20)}  # doc 19 is the cosine top
    fused = fuse("zscore", {15: 4.2}, cos, 0.5)
    assert order(fused)[0] == 15
