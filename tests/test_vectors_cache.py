"""The content-hash vector cache: incremental, atomic, never trusts corruption."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")

from wikimem.vectors import (  # noqa: E402
    DIARY_VECTORS_DIR,
    VectorCache,
    cache_mismatch,
    content_hash,
    embed_text,
    model_id,
)


class StubEmbedder:
    """Deterministic vectors derived from each text's hash; records every call."""

    def __init__(self, model: str | None = "stub-v1", dim: int = 8) -> None:
        if model is not None:
            self.model = model
        self.dim = dim
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        out = []
        for text in texts:
            digest = hashlib.sha256(text.encode()).digest()
            out.append([(b - 127.5) / 127.5 for b in digest[: self.dim]])
        return out

    @property
    def embedded(self) -> list[str]:
        return [t for call in self.calls for t in call]


def entries(*pairs: tuple[str, str, str]):
    return [((file, name), embed_text(name, content)) for file, name, content in pairs]


BASE = entries(("prefs", "sea", "likes the sea"), ("prefs", "tea", "drinks green tea"))


def versions(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob("vectors-*.npy"))


def test_content_hash_is_sha256_hex_of_utf8():
    assert content_hash("海边\nx") == hashlib.sha256("海边\nx".encode()).hexdigest()


def test_embedded_text_is_name_newline_content():
    assert embed_text("sea", "likes the sea") == "sea\nlikes the sea"


def test_first_sync_writes_versioned_matrix_and_keys_with_header(tmp_path):
    keys, matrix = VectorCache(tmp_path).sync(BASE, StubEmbedder())
    lines = [json.loads(line) for line in (tmp_path / "vectors.keys.jsonl").read_text().splitlines()]
    assert lines[0] == {"vectors_file": "vectors-000001.npy", "model": "stub-v1", "dim": 8}
    assert lines[1:] == keys == [
        {"file": "prefs", "name": "sea", "hash": content_hash("sea\nlikes the sea")},
        {"file": "prefs", "name": "tea", "hash": content_hash("tea\ndrinks green tea")},
    ]
    assert versions(tmp_path) == ["vectors-000001.npy"]
    assert matrix.shape == (2, 8) and matrix.dtype == np.float32


def test_load_returns_a_memory_mapped_matrix_in_key_order(tmp_path):
    stub = StubEmbedder()
    VectorCache(tmp_path).sync(BASE, stub)
    keys, matrix = VectorCache(tmp_path).load()
    assert isinstance(matrix, np.memmap)
    assert [k["name"] for k in keys] == ["sea", "tea"]
    np.testing.assert_allclose(matrix, np.asarray(stub.embed([t for _, t in BASE]), np.float32))


def test_keys_path_is_the_keys_file_in_root(tmp_path):
    assert VectorCache(tmp_path).keys_path == tmp_path / "vectors.keys.jsonl"


def test_unchanged_sync_makes_no_embedding_call_and_writes_no_file(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    before = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    stub = StubEmbedder()
    keys, matrix = cache.sync(BASE, stub)
    assert stub.calls == []
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == before
    assert len(keys) == 2 and matrix.shape == (2, 8)


def test_changed_entry_embeds_only_the_new_text(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    stub = StubEmbedder()
    changed = entries(("prefs", "sea", "likes the sea"), ("prefs", "tea", "now drinks coffee"))
    cache.sync(changed, stub)
    assert stub.embedded == ["tea\nnow drinks coffee"]


def test_new_version_is_written_and_old_versions_are_swept(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    cache.sync(BASE[:1], StubEmbedder())
    assert versions(tmp_path) == ["vectors-000002.npy"]
    assert cache.header()["vectors_file"] == "vectors-000002.npy"


def test_removing_an_entry_rewrites_rows_without_embedding(tmp_path):
    cache = VectorCache(tmp_path)
    first = StubEmbedder()
    _, full = cache.sync(BASE, first)
    sea_row = np.array(full[0])
    stub = StubEmbedder()
    keys, matrix = cache.sync(BASE[:1], stub)
    assert stub.calls == []
    assert [k["name"] for k in keys] == ["sea"]
    np.testing.assert_array_equal(matrix[0], sea_row)


def test_reordered_entries_follow_entry_order(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    keys, matrix = cache.sync(list(reversed(BASE)), StubEmbedder())
    assert [k["name"] for k in keys] == ["tea", "sea"]
    np.testing.assert_allclose(matrix[0], StubEmbedder().embed([BASE[1][1]])[0], rtol=1e-6)


def test_sync_embeds_in_batches_of_batch_size(tmp_path):
    many = entries(*[("f", f"n{i}", f"text {i}") for i in range(5)])
    stub = StubEmbedder()
    VectorCache(tmp_path).sync(many, stub, batch_size=2)
    assert [len(call) for call in stub.calls] == [2, 2, 1]


def test_identical_texts_are_embedded_once(tmp_path):
    twins = [(("a", "x"), "same"), (("b", "x"), "same")]
    stub = StubEmbedder()
    keys, matrix = VectorCache(tmp_path).sync(twins, stub)
    assert stub.embedded == ["same"]
    assert matrix.shape[0] == 2


def test_empty_entries_clear_the_cache(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    assert cache.sync([], StubEmbedder()) == ([], None)
    assert not cache.keys_path.exists() and versions(tmp_path) == []
    assert cache.load() == ([], None)


def test_absent_cache_loads_as_empty(tmp_path):
    cache = VectorCache(tmp_path / "nowhere")
    assert cache.load() == ([], None)
    assert cache.header() == {}


def test_empty_sync_on_absent_cache_writes_nothing(tmp_path):
    VectorCache(tmp_path).sync([], StubEmbedder())
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "damage",
    ["bad_json", "missing_matrix", "row_mismatch", "garbage_matrix", "path_escape", "dim_mismatch"],
)
def test_torn_or_corrupt_cache_is_treated_as_absent(tmp_path, damage):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    lines = cache.keys_path.read_text().splitlines()
    header = json.loads(lines[0])
    if damage == "bad_json":
        cache.keys_path.write_text(lines[0] + "\n{not json\n")
    elif damage == "missing_matrix":
        (tmp_path / header["vectors_file"]).unlink()
    elif damage == "row_mismatch":
        cache.keys_path.write_text("\n".join(lines[:2]) + "\n")
    elif damage == "garbage_matrix":
        (tmp_path / header["vectors_file"]).write_bytes(b"not an npy file")
    elif damage == "path_escape":
        header["vectors_file"] = "../" + header["vectors_file"]
        cache.keys_path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    else:
        header["dim"] = 99
        cache.keys_path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert cache.load() == ([], None)
    assert cache.header() == {}


def test_torn_cache_is_rebuilt_on_next_sync(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    (tmp_path / cache.header()["vectors_file"]).unlink()
    stub = StubEmbedder()
    keys, matrix = cache.sync(BASE, stub)
    assert len(stub.embedded) == 2 and matrix.shape == (2, 8)
    assert cache.load()[1] is not None


def test_embedder_failure_propagates_and_leaves_cache_untouched(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    before = cache.keys_path.read_text()

    class Broken:
        model = "stub-v1"

        def embed(self, texts):
            raise ConnectionError("endpoint down")

    with pytest.raises(ConnectionError):
        cache.sync(entries(("prefs", "new", "something new")), Broken())
    assert cache.keys_path.read_text() == before
    assert versions(tmp_path) == ["vectors-000001.npy"]


def test_embedder_returning_wrong_row_count_raises_value_error(tmp_path):
    class Short(StubEmbedder):
        def embed(self, texts):
            return super().embed(texts)[:-1]

    with pytest.raises(ValueError):
        VectorCache(tmp_path).sync(BASE, Short())
    assert not (tmp_path / "vectors.keys.jsonl").exists()


def test_no_temp_files_are_left_behind(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    cache.sync(BASE[:1], StubEmbedder())
    # The store lock's file (the write takes the lock) is no temp file.
    names = sorted(p.name for p in tmp_path.iterdir() if p.name != ".wikimem.lock")
    assert names == ["vectors-000002.npy", "vectors.keys.jsonl"]


def test_sync_creates_a_missing_cache_directory(tmp_path):
    cache = VectorCache(tmp_path / DIARY_VECTORS_DIR)
    cache.sync(BASE, StubEmbedder())
    assert (tmp_path / "diary-vectors" / "vectors.keys.jsonl").exists()


# ------------------------------------------------------------ model stamp
def test_model_id_is_the_embedders_model_or_none():
    assert model_id(StubEmbedder("bge-m3")) == "bge-m3"
    assert model_id(StubEmbedder(None)) is None


def test_cache_mismatch_names_both_models_and_bm25_only():
    message = cache_mismatch({"model": "bge-m3"}, StubEmbedder("text-embedding-3-small"))
    assert message is not None
    assert message.startswith("vector cache was built with model")
    assert "bge-m3" in message and "text-embedding-3-small" in message
    assert "BM25 only" in message


def test_cache_mismatch_is_none_for_the_same_model():
    assert cache_mismatch({"model": "stub-v1"}, StubEmbedder("stub-v1")) is None


def test_embedder_without_model_is_unknown_not_a_mismatch():
    assert cache_mismatch({"model": "bge-m3"}, StubEmbedder(None)) is None


def test_legacy_header_without_model_is_not_a_mismatch():
    assert cache_mismatch({"vectors_file": "vectors-000001.npy"}, StubEmbedder()) is None
    assert cache_mismatch({}, StubEmbedder()) is None


def _write_legacy(tmp_path: Path) -> VectorCache:
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    lines = cache.keys_path.read_text().splitlines()
    cache.keys_path.write_text(
        "\n".join([json.dumps({"vectors_file": "vectors-000001.npy"}), *lines[1:]]) + "\n"
    )
    return cache


def test_legacy_header_keeps_working_without_a_write(tmp_path):
    cache = _write_legacy(tmp_path)
    stub = StubEmbedder()
    keys, matrix = cache.sync(BASE, stub)
    assert stub.calls == [] and matrix.shape == (2, 8)
    assert "model" not in cache.header()


def test_legacy_header_is_stamped_on_the_next_write(tmp_path):
    cache = _write_legacy(tmp_path)
    stub = StubEmbedder()
    cache.sync(BASE[:1], stub)
    assert stub.calls == []
    assert cache.header()["model"] == "stub-v1" and cache.header()["dim"] == 8


def test_unknown_model_embedder_keeps_the_cached_stamp(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder("stub-v1"))
    cache.sync(BASE[:1], StubEmbedder(None))
    assert cache.header()["model"] == "stub-v1"


def test_explicit_sync_with_another_model_re_embeds_everything(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder("old"))
    stub = StubEmbedder("new")
    cache.sync(BASE, stub)
    assert len(stub.embedded) == 2
    assert cache.header()["model"] == "new"


def test_width_change_under_unknown_model_re_embeds_everything(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder(None, dim=8))
    stub = StubEmbedder(None, dim=4)
    _, matrix = cache.sync([*BASE, *entries(("prefs", "new", "x"))], stub)
    assert matrix.shape == (3, 4) and len(stub.embedded) == 3


# ------------------------------------------------------------------ merge
def test_merge_keeps_rows_not_in_entries(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE[:1], StubEmbedder(), merge=True)
    stub = StubEmbedder()
    keys, matrix = cache.sync(BASE[1:], stub, merge=True)
    assert [k["name"] for k in keys] == ["sea", "tea"]
    assert stub.embedded == [BASE[1][1]] and matrix.shape == (2, 8)


def test_merge_of_an_already_cached_window_writes_nothing(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder(), merge=True)
    mtime = cache.keys_path.stat().st_mtime_ns
    stub = StubEmbedder()
    keys, _ = cache.sync(BASE[1:], stub, merge=True)
    assert stub.calls == [] and len(keys) == 2
    assert cache.keys_path.stat().st_mtime_ns == mtime


def test_merge_replaces_a_key_whose_text_changed(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder(), merge=True)
    edited = entries(("prefs", "sea", "now fears the sea"))
    keys, _ = cache.sync(edited, StubEmbedder(), merge=True)
    assert [(k["name"], k["hash"]) for k in keys] == [
        ("sea", content_hash("sea\nnow fears the sea")),
        ("tea", content_hash(BASE[1][1])),
    ]


def test_merge_keeps_repeated_diary_headings_apart(tmp_path):
    day = [(("2026-07-21", "09:00"), "coffee"), (("2026-07-21", "09:00"), "walk")]
    keys, matrix = VectorCache(tmp_path).sync(day, StubEmbedder(), merge=True)
    assert [k["hash"] for k in keys] == [content_hash("coffee"), content_hash("walk")]
    assert matrix.shape[0] == 2


def test_merge_with_no_entries_leaves_the_cache(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder(), merge=True)
    keys, matrix = cache.sync([], StubEmbedder(), merge=True)
    assert len(keys) == 2 and matrix is not None


def test_header_of_a_valid_cache_is_its_first_line(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    assert cache.header() == json.loads(cache.keys_path.read_text().splitlines()[0])


def test_a_leftover_reserved_version_is_swept_by_a_later_sync(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    (tmp_path / "vectors-000002.npy").write_bytes(b"")  # a writer killed mid-way
    cache.sync(BASE[:1], StubEmbedder())
    assert versions(tmp_path) == ["vectors-000003.npy"]
    assert os.path.getsize(tmp_path / "vectors-000003.npy") > 0


def test_a_failed_write_keeps_the_previous_cache_whole(tmp_path, monkeypatch):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder())
    real_replace = os.replace

    def failing_replace(src, dst):
        if str(dst).endswith("vectors.keys.jsonl"):
            raise OSError("disk full")
        return real_replace(src, dst)

    monkeypatch.setattr("wikimem.vectors.cache.os.replace", failing_replace)
    with pytest.raises(OSError):
        cache.sync(BASE[:1], StubEmbedder())
    monkeypatch.undo()
    keys, matrix = VectorCache(tmp_path).load()
    assert [k["name"] for k in keys] == ["sea", "tea"] and matrix.shape == (2, 8)
    names = sorted(p.name for p in tmp_path.iterdir() if p.name != ".wikimem.lock")  # the store lock's file
    assert names == ["vectors-000001.npy", "vectors.keys.jsonl"]


def test_header_of_an_unnamed_embedder_has_no_model_key(tmp_path):
    cache = VectorCache(tmp_path)
    cache.sync(BASE, StubEmbedder(model=None))
    header = cache.header()
    assert "model" not in header
    assert header["dim"] == 8 and header["vectors_file"].startswith("vectors-")
    first = cache.keys_path.read_text(encoding="utf-8").splitlines()[0]
    assert "model" not in json.loads(first)
