"""Each lint check, one planted problem at a time, against a store lint finds clean."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import time
from importlib import resources
from pathlib import Path

import pytest

from tests.test_lint_fixtures import (
    clean_store,
    found,
    plant,
    sha,
    vector_hash,
    write_keys,
    write_npy,
)
from wikimem.disk.baseline import accept
from wikimem.lint.drift import accept_current_state
from wikimem.lint import CODES, Linter, lint
from wikimem.lint.scan import ItemFacts


@pytest.fixture
def root(tmp_path: Path) -> Path:
    clean_store(tmp_path)
    return tmp_path


def codes(root: Path, **kwargs: object) -> list[str]:
    return [row[0] for row in found(root, **kwargs)]


def test_the_clean_store_has_no_findings(root: Path) -> None:
    assert found(root) == []


def test_every_code_has_a_severity_explanation_and_fix() -> None:
    for code, info in CODES.items():
        assert info.severity in ("error", "warning", "info"), code
        assert info.what and info.fix, code


# -- names and blocks -------------------------------------------------------------


def test_bad_file_name(root: Path) -> None:
    plant(root, "wiki/My Notes.md", "# notes\n\n## x\n\nLinks [[people:Alice]].\n")
    rows = found(root)
    assert ("bad-file-name", "wiki/My Notes.md", None, None) in rows


def test_bad_item_name(root: Path) -> None:
    plant(root, "wiki/work.md", "# work\n\n## apollo\n\nLead is [[people:Alice]].\n\n## a: b\n\ntext\n")
    assert ("bad-item-name", "wiki/work.md", 7, "a: b") in found(root)


def test_duplicate_heading_names_both_lines(root: Path) -> None:
    plant(root, "wiki/work.md", "# work\n\n## apollo\n\nold [[people:Alice]]\n\n## apollo\n\nnew [[people:Alice]]\n")
    report = lint(root)
    (finding,) = [f for f in report.findings if f.code == "duplicate-heading"]
    assert (finding.severity, finding.location.line, finding.location.item) == ("error", 3, "apollo")
    assert [loc.line for loc in finding.related] == [7]


def test_invalid_utf8_reports_the_line(root: Path) -> None:
    plant(root, "wiki/work.md", b"# work\n\n## apollo\n\nLead \xff is [[people:Alice]].\n")
    assert ("invalid-utf8", "wiki/work.md", 5, None) in found(root)


def test_empty_content_does_not_round_trip(root: Path) -> None:
    plant(root, "wiki/work.md", "# work\n\n## apollo\n\n<!-- wikimem: owner=a -->\n\n## next\n\n[[people:Alice]] x\n")
    assert ("round-trip", "wiki/work.md", 3, "apollo") in found(root)


def test_second_metadata_comment_does_not_round_trip(root: Path) -> None:
    text = ("# work\n\n## apollo\n\nLead is [[people:Alice]].\n<!-- wikimem: owner=a -->\n\n"
            "<!-- wikimem: owner=b -->\n")
    plant(root, "wiki/work.md", text)
    assert ("round-trip", "wiki/work.md", 6, "apollo") in found(root)


def test_heading_in_an_open_code_fence_is_reported_once(root: Path) -> None:
    text = "# work\n\n## apollo\n\n[[people:Alice]]\n```\nprint(1)\n## not a heading\n\nmore\n```\n"
    plant(root, "wiki/work.md", text)
    rows = [r for r in found(root) if r[0] == "heading-in-fence"]
    assert rows == [("heading-in-fence", "wiki/work.md", 3, "apollo")]


@pytest.mark.parametrize(
    ("comment", "fixable", "says"),
    [
        ("<!-- wikimem owner=agent | ts=2026-07-20T09:00:00+00:00 -->", True, "missing ':'"),
        ("<!-- wikimem: owner=agent | tz=UTC -->", False, "unknown key 'tz'"),
        ("<!-- wikimem: owner=agent | ts=yesterday -->", False, "not an ISO-8601"),
        ("<!-- wikimem: owner=a | owner=b -->", False, "appears twice"),
        ("<!-- WIKIMEM: Owner=agent; source_conv=c1 -->", True, "separated by ';'"),
        ("<!-- wikimem: owner=agent", True, "not closed"),
    ],
)
def test_malformed_meta_says_what_was_meant(root: Path, comment: str, fixable: bool, says: str) -> None:
    plant(root, "wiki/work.md", f"# work\n\n## apollo\n\nLead is [[people:Alice]].\n\n{comment}\n")
    (finding,) = [f for f in lint(root).findings if f.code == "malformed-meta"]
    assert (finding.location.line, finding.location.item, finding.fixable) == (7, "apollo", fixable)
    assert says in finding.message


def test_a_valid_comment_with_a_non_canonical_ts_is_fixable(root: Path) -> None:
    plant(root, "wiki/work.md", "# work\n\n## apollo\n\n[[people:Alice]]\n\n<!-- wikimem: ts=2026-07-20T11:00:00+02:00 -->\n")
    (finding,) = [f for f in lint(root).findings if f.code == "malformed-meta"]
    assert finding.fixable and "2026-07-20T09:00:00+00:00" in finding.message


def test_markers_are_not_malformed_metadata(root: Path) -> None:
    plant(root, "wiki/work.md", "# work\n\n## apollo\n\n[[people:Alice]]\n<!-- wikimem-derived -->\n")
    assert "malformed-meta" not in codes(root)


# -- diary ------------------------------------------------------------------------------


def test_bad_day_file(root: Path) -> None:
    plant(root, "diary/2026-02-30.md", "# 2026-02-30\n\n## 10:00\n\nno such day\n")
    assert ("bad-day-file", "diary/2026-02-30.md", None, None) in found(root)


def test_bad_diary_heading(root: Path) -> None:
    plant(root, "diary/2026-07-21.md", "# 2026-07-21\n\n## 9:5\n\nsloppy\n")
    assert ("bad-diary-heading", "diary/2026-07-21.md", 3, "9:5") in found(root)


def test_diary_order(root: Path) -> None:
    plant(root, "diary/2026-07-21.md", "# 2026-07-21\n\n## 10:00\n\nlater\n\n## 09:00\n\nearlier\n")
    assert found(root) == [("diary-order", "diary/2026-07-21.md", 7, "09:00")]


def test_repeated_diary_minutes_are_fine(root: Path) -> None:
    plant(root, "diary/2026-07-21.md", "# 2026-07-21\n\n## 09:00\n\none\n\n## 09:00\n\ntwo\n")
    assert found(root) == []


# -- links ---------------------------------------------------------------------------------


def test_dangling_link_from_wiki_and_from_diary(root: Path) -> None:
    plant(root, "wiki/work.md", "# work\n\n## apollo\n\nLead is [[people:Alice]].\nSee [[work:ghost]].\n")
    plant(root, "diary/2026-07-21.md", "# 2026-07-21\n\n## 09:00\n\nAsked about [[people:Nobody]].\n")
    rows = [r for r in found(root) if r[0] == "dangling-link"]
    assert rows == [("dangling-link", "diary/2026-07-21.md", 5, "09:00"), ("dangling-link", "wiki/work.md", 6, "apollo")]


def test_malformed_link(root: Path) -> None:
    plant(root, "wiki/work.md", "# work\n\n## apollo\n\nLead is [[people:Alice]] and [[Bob:a:b]].\n")
    assert found(root) == [("malformed-link", "wiki/work.md", 5, "apollo")]


def test_obsidian_links_are_links_not_malformed(root: Path) -> None:
    plant(root, "wiki/people.md", "# people\n\n## Alice\n\nLead.\n\n## Bob\n\nSee [[#Alice|her]].\n")
    plant(root, "wiki/work.md", "# work\n\n## apollo\n\nLead is [[people#Alice]], [[People#Bob|Bob]].\n"
          "Team: [[people]].\nOld notes: [[Archive]].\nAlso [[people#Carol]].\n")
    rows = found(root)
    # [[people]] is the RecallFile; [[Archive]] names a file that does not exist; Carol is not an item.
    # Alice and Bob are linked to (Bob by a link spelled with another case), apollo is not: an orphan.
    assert rows == [("dangling-link", "wiki/work.md", 7, "apollo"), ("dangling-link", "wiki/work.md", 8, "apollo"),
                    ("orphan", "wiki/work.md", 3, "apollo")]
    messages = [f.message for f in lint(root).findings]
    assert any("[[archive]]" in m for m in messages) and any("[[people:Carol]]" in m for m in messages)


def test_orphan_is_info_and_diary_links_count(root: Path) -> None:
    MemoryStoreAdd = __import__("wikimem").MemoryStore(root).add
    MemoryStoreAdd("work", "lonely", "Nobody links here.", ts="2026-07-20T09:00:00+00:00")
    report = lint(root)
    assert [(f.code, f.severity, f.location.item) for f in report.findings] == [("orphan", "info", "lonely")]
    __import__("wikimem").MemoryStore(root).diary.append("Thought of [[work:lonely]].", date="2026-07-21", time="10:00")
    assert found(root) == []


# -- near-duplicates --------------------------------------------------------------------------


def test_exact_duplicate_content_under_two_names(root: Path) -> None:
    store = __import__("wikimem").MemoryStore(root)
    store.add("work", "apollo copy", "Project  apollo ships in Q4. Lead is [[people:Alice]].", ts="2026-07-20T09:00:00+00:00")
    store.diary.append("[[work:apollo copy]]", date="2026-07-21", time="10:00")
    report = lint(root)
    (finding,) = report.findings
    assert (finding.code, finding.location.item, finding.related[0].item) == ("near-duplicate", "apollo copy", "apollo")
    assert "the same content" in finding.message


@pytest.mark.parametrize("edit", ["start", "end", "middle"])
def test_near_duplicate_with_a_small_edit(root: Path, edit: str) -> None:
    base = ("The deployment pipeline runs nightly at two, builds every service image, runs the "
            "integration suite against staging and pages the on-call engineer on failure.")
    changed = {
        "start": "A deployment pipeline " + base[len("The deployment pipeline "):],
        "end": base.replace("on failure.", "when it fails."),
        "middle": base.replace("integration suite", "integration tests"),
    }[edit]
    store = __import__("wikimem").MemoryStore(root)
    store.add("ops", "pipeline", base + " [[people:Alice]]", ts="2026-07-20T09:00:00+00:00")
    store.add("ops", "nightly build", changed + " [[people:Alice]]", ts="2026-07-20T09:00:00+00:00")
    store.diary.append("[[ops:pipeline]] [[ops:nightly build]]", date="2026-07-21", time="10:00")
    rows = [(r[0], r[3]) for r in found(root)]
    assert rows == [("near-duplicate", "nightly build")]


def test_different_items_sharing_a_long_link_are_not_duplicates(root: Path) -> None:
    store = __import__("wikimem").MemoryStore(root)
    store.add("ops", "one", "Rotate the keys every month. [[people:Alice]]", ts="2026-07-20T09:00:00+00:00")
    store.add("ops", "two", "Backups are kept for a year. [[people:Alice]]", ts="2026-07-20T09:00:00+00:00")
    store.diary.append("[[ops:one]] [[ops:two]]", date="2026-07-21", time="10:00")
    assert found(root) == []


def test_exact_copies_far_apart_in_a_crowded_group_are_paired(root: Path) -> None:
    """More than WINDOW items share both ends; the two identical ones are still paired."""
    store = __import__("wikimem").MemoryStore(root)
    opening = "Standing notes from the weekly planning meeting with the whole team: "
    ending = " Next meeting as usual, same room, same time, bring the numbers."
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november".split()
    store.add("aa", "first", opening + "the copy. " * 20 + ending, ts="2026-07-20T09:00:00+00:00")
    for n in range(6):
        middle = " ".join(words[(n * 5 + k * 7) % len(words)] + str(k * n) for k in range(30))
        store.add("mm", f"n{n}", opening + middle + ending, ts="2026-07-20T09:00:00+00:00")
    store.add("zz", "last", opening + "the copy. " * 20 + ending, ts="2026-07-20T09:00:00+00:00")
    rows = [(f.location.item, f.related[0].item) for f in lint(root).findings if f.code == "near-duplicate"]
    assert rows == [("last", "first")]


# -- journal, vector cache ------------------------------------------------------------------------


def test_a_damaged_reviewed_json_is_reported(root: Path) -> None:
    (root / "reviewed.json").write_text('{"version": 1, "entries": [{"date": 7}]}', "utf-8")
    (finding,) = lint(root).findings
    assert (finding.code, finding.severity, finding.location.path) == ("reviewed-damaged", "warning", "reviewed.json")
    assert "every entry needs string date, time and hash" in finding.message
    (root / "reviewed.json").write_text('{"version": 1, "entries": []}', "utf-8")
    assert found(root) == []


def test_journal_lines_that_are_not_entries(root: Path) -> None:
    with open(root / "journal.jsonl", "a", encoding="utf-8") as handle:
        handle.write("not json\n[1, 2]\n{\"ts\": \"x\"}\n{\"torn\": ")
    rows = [r for r in found(root) if r[0] == "journal-bad-line"]
    assert [r[2] for r in rows] == [4, 5, 6, 7]


def test_journal_rescan_reads_only_what_was_appended(root: Path) -> None:
    linter = Linter(root)
    linter.run()
    offset = linter.journal.offset
    with open(root / "journal.jsonl", "a", encoding="utf-8") as handle:
        handle.write("oops\n")
    report = linter.run()
    assert [(f.code, f.location.line) for f in report.findings] == [("journal-bad-line", 4)]
    assert linter.journal.offset == offset + len("oops\n")


def test_vector_cache_torn_when_the_matrix_is_missing(root: Path) -> None:
    write_keys(root, {"vectors_file": "vectors-000001.npy", "model": "m", "dim": 4}, [])
    assert found(root) == [("vector-cache-torn", "vectors.keys.jsonl", None, None)]


def test_vector_cache_torn_when_rows_disagree(root: Path) -> None:
    write_npy(root / "vectors-000001.npy", 3, 4)
    key = {"file": "people", "name": "Alice", "hash": "x"}
    write_keys(root, {"vectors_file": "vectors-000001.npy", "model": "m", "dim": 4}, [key])
    (finding,) = lint(root).findings
    assert finding.code == "vector-cache-torn" and "3 rows" in finding.message


def test_vector_cache_truncated_matrix_is_torn(root: Path) -> None:
    write_npy(root / "vectors-000001.npy", 1, 4)
    path = root / "vectors-000001.npy"
    path.write_bytes(path.read_bytes()[:-3])
    write_keys(root, {"vectors_file": "vectors-000001.npy", "model": "m", "dim": 4},
               [{"file": "people", "name": "Alice", "hash": "x"}])
    assert codes(root) == ["vector-cache-torn"]


def test_vector_cache_model_and_stale_rows(root: Path) -> None:
    alice = "Colleague. Works on [[work:apollo]]."
    write_npy(root / "vectors-000001.npy", 2, 4)
    write_keys(root, {"vectors_file": "vectors-000001.npy", "model": "m1", "dim": 4}, [
        {"file": "people", "name": "Alice", "hash": vector_hash("Alice", alice)},
        {"file": "work", "name": "apollo", "hash": "stale"},
    ])
    assert codes(root) == ["vector-cache-stale"]
    assert codes(root, model="m1") == ["vector-cache-stale"]
    assert sorted(codes(root, model="m2")) == ["vector-cache-model", "vector-cache-stale"]


def test_wiki_and_diary_caches_from_different_models(root: Path) -> None:
    alice, apollo = "Colleague. Works on [[work:apollo]].", "Project Apollo ships in Q4. Lead is [[people:Alice]]."
    write_npy(root / "vectors-000001.npy", 2, 4)
    write_keys(root, {"vectors_file": "vectors-000001.npy", "model": "m1", "dim": 4}, [
        {"file": "people", "name": "Alice", "hash": vector_hash("Alice", alice)},
        {"file": "work", "name": "apollo", "hash": vector_hash("apollo", apollo)},
    ])
    write_npy(root / "diary-vectors/vectors-000001.npy", 0, 4)
    write_keys(root / "diary-vectors", {"vectors_file": "vectors-000001.npy", "model": "m2", "dim": 4}, [])
    assert found(root) == [("vector-cache-model", "diary-vectors/vectors.keys.jsonl", None, None)]


# -- drift ---------------------------------------------------------------------------------------


def _age(path: Path, seconds: float) -> None:
    """Set ``path``'s mtime ``seconds`` into the future: an edit after its journal line."""
    stamp = time.time() + seconds
    os.utime(path, (stamp, stamp))


def test_drift_when_a_file_changes_after_its_journal_line(root: Path) -> None:
    path = root / "wiki" / "work.md"
    path.write_text(path.read_text("utf-8").replace("Q4", "Q1"), "utf-8")
    _age(path, 60)
    assert found(root) == [("drift", "wiki/work.md", None, None)]


def test_drift_for_a_file_never_journaled_and_one_deleted_behind_the_librarys_back(root: Path) -> None:
    (root / "diary" / "2026-07-19.md").write_text("# 2026-07-19\n\n## 10:00\n\nhand written\n", "utf-8")
    (root / "diary" / "2026-07-20.md").unlink()
    rows = found(root)
    assert ("drift", "diary/2026-07-19.md", None, None) in rows
    assert ("drift", "diary/2026-07-20.md", None, None) in rows


def test_accepted_drift_is_quiet_until_the_content_changes_again(root: Path) -> None:
    path = root / "wiki" / "work.md"
    path.write_text(path.read_text("utf-8").replace("Q4", "Q1"), "utf-8")
    _age(path, 60)
    accept(root, {"wiki/work.md": sha(path)})
    assert found(root) == []
    path.write_text(path.read_text("utf-8").replace("Q1", "Q2"), "utf-8")
    _age(path, 120)
    assert found(root) == [("drift", "wiki/work.md", None, None)]


def _copy_with_new_mtimes(source: Path, target: Path) -> Path:
    """What ``cp -r`` or a fresh clone does: same bytes, every file newer than the journal."""
    shutil.copytree(source, target)
    for path in [*target.glob("wiki/*.md"), *target.glob("diary/*.md")]:
        _age(path, 3600)
    return target


def test_a_file_whose_hash_is_the_accepted_one_is_never_drift_whatever_its_mtime(root: Path, tmp_path: Path) -> None:
    path = root / "wiki" / "work.md"
    path.write_text(path.read_text("utf-8").replace("Q4", "Q1"), "utf-8")
    accept(root, {"wiki/work.md": sha(path)})
    copy = _copy_with_new_mtimes(root, tmp_path / "copy")
    assert sorted(r[1] for r in found(copy)) == ["diary/2026-07-20.md", "wiki/people.md"]  # not accepted
    accept_current_state(copy, by="test")
    assert found(copy) == []


def test_accept_current_state_accepts_edits_deletions_and_forgets_what_nobody_knows(root: Path) -> None:
    (root / "wiki" / "work.md").write_text("# work\n\n## apollo\n\nnow [[people:Alice]]\n", "utf-8")
    _age(root / "wiki" / "work.md", 60)
    (root / "diary" / "2026-07-20.md").unlink()  # journaled as written, deleted by hand
    accept(root, {"diary/2026-01-01.md": None})  # an old acceptance of a file nobody knows any more
    assert "drift" in codes(root)
    text = accept_current_state(root, by="test", ts="2026-07-22T08:00:00+00:00")
    files = json.loads(text)["files"]
    assert set(files) == {"wiki/people.md", "wiki/work.md", "diary/2026-07-20.md", "diary/2026-01-01.md"}
    assert files["diary/2026-07-20.md"]["sha256"] is None and files["wiki/work.md"]["by"] == "test"
    assert found(root) == []


def test_the_bundled_demo_lints_without_drift_after_a_copy(tmp_path: Path) -> None:
    copy = _copy_with_new_mtimes(Path(str(resources.files("wikimem") / "demo")), tmp_path / "demo")
    assert "drift" not in codes(copy)


def test_the_apps_demo_copy_lints_without_drift_after_its_days_move(tmp_path: Path) -> None:
    from wikimem_tui.core.demo import make_demo_copy

    copy = make_demo_copy(tmp_path, today=dt.date(2031, 2, 3))
    assert "drift" not in codes(copy)
    assert "drift" not in codes(_copy_with_new_mtimes(copy, tmp_path / "again"))


def test_a_library_write_after_a_hand_edit_is_not_drift(root: Path) -> None:
    store = __import__("wikimem").MemoryStore(root)
    store.add("work", "apollo", "Ships in Q1. Lead is [[people:Alice]].")
    assert found(root) == []


def test_removing_the_last_item_is_not_drift(root: Path) -> None:
    store = __import__("wikimem").MemoryStore(root)
    store.add("work", "tmp", "temporary [[people:Alice]]")
    store.remove("work", "apollo")
    store.add("work", "apollo", "again [[people:Alice]]")
    store.add("misc", "x", "[[work:apollo]] [[work:tmp]]")
    store.remove("misc", "x")
    assert [r[0] for r in found(root)] == ["orphan"]


# -- incremental ----------------------------------------------------------------------------------


def test_rerun_rereads_only_changed_files(root: Path) -> None:
    linter = Linter(root)
    assert linter.run().findings == []
    before = dict(linter.snapshot.files)
    __import__("wikimem").MemoryStore(root).add("work", "ghost link", "See [[work:ghost]] [[people:Alice]]")
    report = linter.run()
    assert [f.code for f in report.findings] == ["dangling-link", "orphan"]
    assert linter.snapshot.files["wiki/people.md"] is before["wiki/people.md"]
    assert linter.snapshot.files["wiki/work.md"] is not before["wiki/work.md"]


def test_rerun_with_named_files_rereads_them_even_with_the_same_stat(root: Path) -> None:
    linter = Linter(root)
    linter.run()
    path = root / "wiki" / "work.md"
    stat = path.stat()
    path.write_text(path.read_text("utf-8").replace("Q4", "Q5"), "utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert linter.run().findings == []  # same size and mtime: not seen
    facts = linter.snapshot.files["wiki/work.md"]
    linter.run(changed=[path])
    assert linter.snapshot.files["wiki/work.md"] is not facts


def test_the_readme_documents_every_code_with_its_severity() -> None:
    readme = (Path(__file__).resolve().parents[1] / "docs" / "reference" / "lint-codes.md").read_text("utf-8")
    rows = {line.split("|")[1].strip(" `"): line.split("|")[2].strip()
            for line in readme.splitlines() if line.startswith("| `")}
    assert {code: rows.get(code) for code in CODES} == {code: info.severity for code, info in CODES.items()}


def test_vector_format_constants_match_the_cache_module() -> None:
    pytest.importorskip("numpy")
    from wikimem.lint import vector_cache as lint_vectors
    from wikimem.vectors import cache

    assert (lint_vectors.KEYS_FILE, lint_vectors.DIARY_VECTORS_DIR) == (cache.KEYS_FILE, cache.DIARY_VECTORS_DIR)
    item = ItemFacts("n", 1, 3, "c", None, None, None)
    assert lint_vectors._hash(item, "n") == cache.content_hash(cache.embed_text("n", "c"))


def test_npy_header_reader_agrees_with_numpy(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    from wikimem.lint.vector_cache import read_npy_header

    np.save(tmp_path / "m.npy", np.zeros((3, 5), dtype=np.float32))
    shape, itemsize, offset = read_npy_header(tmp_path / "m.npy")
    assert (shape, itemsize) == ((3, 5), 4)
    assert (tmp_path / "m.npy").stat().st_size == offset + 3 * 5 * 4


def test_rerun_keeps_duplicates_across_diary_changes_and_redoes_them_for_wiki_changes(root: Path) -> None:
    store = __import__("wikimem").MemoryStore(root)
    linter = Linter(root)
    store.add("work", "copy", "Project Apollo ships in Q4. Lead is [[people:Alice]].")
    store.diary.append("[[work:copy]]", date="2026-07-21", time="10:00")
    assert [f.code for f in linter.run().findings] == ["near-duplicate"]
    store.diary.append("Another day.", date="2026-07-22", time="10:00")
    assert [f.code for f in linter.run().findings] == ["near-duplicate"]
    store.add("work", "copy", "Something else entirely, linked to [[people:Alice]].")
    assert linter.run().findings == []
