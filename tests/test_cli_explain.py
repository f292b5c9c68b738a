"""``wikimem explain``: the report's line order, table layout, time gate and errors.

All queries run with ``--no-jieba`` so the tokens (character bigrams) are the
same on every machine, whether or not jieba is installed, and with
``--analyzer stop`` (stdlib only) so English words are not stemmed on one
machine and left alone on another (the stemming analyzer's explain lines
are tested in ``test_analyzer.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_cli_fixtures import run, store_dir  # noqa: F401 (store_dir is a fixture)
from wikimem import MemoryIndex, MemoryStore

HEADER = "#  src  score  bm25  cos  ~tok  item"


def explain(capsys, root: Path, *args: str) -> tuple[int, list[str], str]:
    code, out, err = run(capsys, "-s", str(root), "explain", *args, "--no-jieba", "--analyzer", "stop")
    return code, out.splitlines(), err


class _FakeEmbedder:
    """Deterministic 3-d vectors: a sea axis, a coffee axis and a constant."""

    model = "fake-3d"

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [[float("海" in t or "sea" in t), float("咖啡" in t or "coffee" in t), 0.1] for t in texts]


class _BrokenEmbedder:
    model = "broken"

    def embed(self, texts: list[str]) -> list[list[float]]:
        raise ConnectionError("endpoint down")


def _use_embedder(monkeypatch, embedder: object) -> None:
    import wikimem.vectors as vectors

    monkeypatch.setattr(vectors, "make_embedder", lambda spec, **kw: embedder)


def squeezed(line: str) -> str:
    """A table line with its alignment taken out: fields two spaces apart, as one row alone prints."""
    return re.sub(r" {2,}", "  ", line)


def rows(lines: list[str]) -> list[str]:
    """The table rows (squeezed): everything between the header and the budget line."""
    start = [squeezed(line) for line in lines].index(HEADER) + 1
    end = next(i for i, line in enumerate(lines) if line.startswith("budget: "))
    return [squeezed(line) for line in lines[start:end]]


def test_report_lines_come_in_the_documented_order(store_dir: Path, capsys) -> None:
    code, lines, _ = explain(capsys, store_dir, "coffee sugar")
    assert code == 0
    assert [*lines[:4], squeezed(lines[4])] == [
        "query: coffee sugar",
        "query tokens: coffee, sugar",
        "ranking: BM25 (embedding: off)",
        "time gate: none (whole store)",
        HEADER,
    ]
    assert re.fullmatch(r"budget: used \d+ / no limit", lines[-2])
    assert lines[-1] == "unresolved links: [[work:old-job]]"


def test_rows_match_the_library_result_field_by_field(store_dir: Path, capsys) -> None:
    code, lines, _ = explain(capsys, store_dir, "想去")
    result = MemoryIndex(MemoryStore(store_dir), use_jieba=False).retrieve("想去", explain=True)
    expected = []
    for position, entry in enumerate(result.items, 1):
        cos = "-" if entry.cos_score is None else f"{entry.cos_score:.3f}"
        tail = (f"  (via {entry.via})" if entry.source == "link"
                else f"  [{', '.join(entry.matched_terms)}]")
        expected.append(
            f"{position}  {entry.source}  {entry.score:.3f}  {entry.bm25_score:.3f}  {cos}  "
            f"{entry.tokens_est}  {entry.item.file}:{entry.item.name}{tail}"
        )
    assert code == 0 and rows(lines) == expected
    assert lines[-1] == f"budget: used {result.budget_used} / no limit"


def test_hit_row_shows_matched_terms(store_dir: Path, capsys) -> None:
    hit = rows(explain(capsys, store_dir, "coffee sugar")[1])[0]
    assert re.fullmatch(r"1  hit  \d+\.\d{3}  \d+\.\d{3}  -  \d+  preferences:coffee  \[coffee, sugar\]", hit)


def test_link_row_names_the_hit_that_pulled_it_in(store_dir: Path, capsys) -> None:
    table = rows(explain(capsys, store_dir, "想去")[1])
    assert table[0].endswith("  preferences:likes-the-sea  [想去]")
    link_row = r"2  link  \S+  \S+  -  \d+  daily_life:beach-trip-plan  \(via likes-the-sea\)"
    assert re.fullmatch(link_row, table[1])


def test_no_links_drops_the_link_rows(store_dir: Path, capsys) -> None:
    code, lines, _ = explain(capsys, store_dir, "想去", "--no-links")
    assert code == 0 and len(rows(lines)) == 1 and "(via " not in "\n".join(lines)


def test_limit_caps_the_hits(store_dir: Path, capsys) -> None:
    table = rows(explain(capsys, store_dir, "海边", "--limit", "1", "--no-links")[1])
    assert len(table) == 1


def test_budget_reports_what_was_dropped(store_dir: Path, capsys) -> None:
    code, lines, _ = explain(capsys, store_dir, "想去", "--budget", "1")
    assert code == 0
    assert len(rows(lines)) == 1  # the first entry always survives
    start = lines.index("dropped 1:")
    assert re.fullmatch(r"budget: used \d+ / 1", lines[start - 1])
    assert re.fullmatch(r"  daily_life:beach-trip-plan \(link, ~\d+ tok\)", lines[start + 1])


def test_unresolved_links_are_listed(store_dir: Path, capsys) -> None:
    assert explain(capsys, store_dir, "coffee")[1][-1] == "unresolved links: [[work:old-job]]"


def test_no_unresolved_line_when_every_link_resolves(store_dir: Path, capsys) -> None:
    assert not any(line.startswith("unresolved") for line in explain(capsys, store_dir, "想去")[1])


def test_explicit_single_date_is_a_one_day_window(store_dir: Path, capsys) -> None:
    code, lines, _ = explain(capsys, store_dir, "日出", "--time-range", "2026-07-22")
    assert code == 0
    assert lines[3] == "time gate: 2026-07-22  [explicit]"
    assert any("  2026-07-22:06:10  " in row for row in rows(lines))


def test_explicit_range_prints_both_bounds(store_dir: Path, capsys) -> None:
    lines = explain(capsys, store_dir, "咖啡", "--time-range", "2026-07-22..2026-07-25")[1]
    assert lines[3] == "time gate: 2026-07-22..2026-07-25  [explicit]"
    assert any("  2026-07-25:10:00  " in row for row in rows(lines))


def test_reversed_range_is_normalized(store_dir: Path, capsys) -> None:
    lines = explain(capsys, store_dir, "咖啡", "--time-range", "2026-07-25..2026-07-22")[1]
    assert lines[3] == "time gate: 2026-07-22..2026-07-25  [explicit]"


def test_empty_window_says_it_widened(store_dir: Path, capsys) -> None:
    lines = explain(capsys, store_dir, "", "--time-range", "2026-07-23")[1]
    assert lines[3].startswith("time gate: 2026-07-2")
    assert lines[3].endswith("  [explicit] (widened: window was empty)")


def test_empty_query_with_a_window_lists_the_day_newest_first(store_dir: Path, capsys) -> None:
    code, lines, _ = explain(capsys, store_dir, "", "--time-range", "2026-07-22")
    assert code == 0 and lines[1] == "query tokens: (none)"
    items = [row.split("  ")[6] for row in rows(lines)]
    assert items == ["2026-07-22:21:00", "2026-07-22:06:10"]


def test_a_date_in_the_query_is_a_parsed_window(store_dir: Path, capsys) -> None:
    lines = explain(capsys, store_dir, "2026-07-25 咖啡")[1]
    assert lines[3] == "time gate: 2026-07-25  [parsed]"


@pytest.mark.parametrize("bad", ["2026-13-01", "yesterday", "2026-07-22..", "07/22", "2026-07-22..x"])
def test_malformed_time_range_is_exit_2(store_dir: Path, capsys, bad: str) -> None:
    code, lines, err = explain(capsys, store_dir, "海边", "--time-range", bad)
    assert (code, lines) == (2, []) and err.startswith("bad --time-range")


def test_no_results_prints_no_results_and_exits_1(store_dir: Path, capsys) -> None:
    assert run(capsys, "-s", str(store_dir), "explain", "zzzqqq", "--no-jieba") == (1, "no results\n", "")


def test_punctuation_only_query_has_no_results(store_dir: Path, capsys) -> None:
    assert explain(capsys, store_dir, "，。！?")[:2] == (1, ["no results"])


def test_budget_line_shows_the_cap(store_dir: Path, capsys) -> None:
    lines = explain(capsys, store_dir, "coffee", "--budget", "500")[1]
    assert re.fullmatch(r"budget: used \d+ / 500", lines[-2])


def test_jieba_flags_are_mutually_exclusive(store_dir: Path, capsys) -> None:
    code, _, err = run(capsys, "-s", str(store_dir), "explain", "x", "--jieba", "--no-jieba")
    assert code == 2 and "not allowed with" in err


@pytest.mark.parametrize("option", [["--limit", "0"], ["--budget", "-1"], ["--fusion-weight", "2"]])
def test_out_of_range_numbers_are_usage_errors(store_dir: Path, capsys, option: list[str]) -> None:
    assert run(capsys, "-s", str(store_dir), "explain", "x", *option)[0] == 2


def test_bad_embed_spec_is_exit_2(store_dir: Path, capsys) -> None:
    code, out, err = run(capsys, "-s", str(store_dir), "explain", "coffee", "--embed", "ftp://nowhere")
    assert (code, out) == (2, "") and err.startswith("bad --embed")


def test_embed_switches_ranking_to_fused_with_cosine_column(store_dir: Path, capsys, monkeypatch) -> None:
    _use_embedder(monkeypatch, _FakeEmbedder())
    code, lines, _ = explain(capsys, store_dir, "coffee", "--embed", "local", "--no-links")
    assert code == 0 and lines[2] == "ranking: BM25 + cosine (fused)"
    assert re.fullmatch(r"1  hit  \S+  \S+  \d\.\d{3}  \d+  preferences:coffee  \[coffee\]", rows(lines)[0])


def test_failing_embedder_falls_back_to_bm25_with_a_note(store_dir: Path, capsys, monkeypatch) -> None:
    _use_embedder(monkeypatch, _BrokenEmbedder())
    code, lines, err = explain(capsys, store_dir, "coffee", "--embed", "local")
    assert code == 0 and lines[2] == "ranking: BM25 (embedding: off)"
    assert "BM25 only" in err


def test_named_fusion_is_used(store_dir: Path, capsys, monkeypatch) -> None:
    _use_embedder(monkeypatch, _FakeEmbedder())
    code, lines, _ = explain(capsys, store_dir, "coffee", "--embed", "local", "--fusion", "minmax")
    assert code == 0 and lines[2] == "ranking: BM25 + cosine (fused)"


def test_unknown_fusion_is_exit_2(store_dir: Path, capsys) -> None:
    code, out, err = run(capsys, "-s", str(store_dir), "explain", "coffee", "--fusion", "nope")
    assert (code, out) == (2, "") and err.startswith("bad --fusion")


def test_demo_beach_plan_shows_its_own_rank_in_its_link_place(capsys) -> None:
    from importlib import resources

    demo = Path(str(resources.files("wikimem") / "demo"))
    code, lines, _ = explain(capsys, demo, "想去海边玩")
    row = rows(lines)[1]
    assert code == 0 and row.startswith("2  link  5.929  5.929  -  ")
    assert row.endswith("daily_life:beach-trip-plan  (via likes-the-sea)  hit #2 [去海, 想去, 海边]")


def test_why_names_the_stage_and_exits_1_when_not_recalled(store_dir: Path, capsys) -> None:
    code, lines, _ = explain(capsys, store_dir, "coffee sugar", "--why", "preferences:likes-the-sea")
    assert code == 1
    assert lines[:2] == ["query: coffee sugar", "item: preferences:likes-the-sea"]
    assert lines[2].startswith("verdict: not_candidate -- ")
    assert "missing tokens: coffee, sugar" in lines


def test_why_of_a_recalled_item_exits_0(store_dir: Path, capsys) -> None:
    code, lines, _ = explain(capsys, store_dir, "coffee sugar", "--why", "preferences:coffee")
    assert code == 0 and lines[2] == "verdict: recalled -- recalled at position 1 (hit #1)"


@pytest.mark.parametrize("bad", ["nocolon", ":x", "x:"])
def test_malformed_why_is_exit_2(store_dir: Path, capsys, bad: str) -> None:
    code, lines, err = explain(capsys, store_dir, "coffee", "--why", bad)
    assert (code, lines) == (2, []) and err.startswith("bad --why")


def test_cos_floor_is_shown_and_applied(store_dir: Path, capsys, monkeypatch) -> None:
    _use_embedder(monkeypatch, _FakeEmbedder())
    code, lines, _ = explain(capsys, store_dir, "sea", "--embed", "local", "--cos-floor", "0.9", "--no-links")
    assert code == 0
    assert lines[4].startswith("cos floor: 0.900 [explicit] for candidates without a BM25 match")
    assert all("coffee" not in row for row in rows(lines))


def test_unknown_model_says_it_has_no_floor(store_dir: Path, capsys, monkeypatch) -> None:
    _use_embedder(monkeypatch, _FakeEmbedder())
    code, lines, _ = explain(capsys, store_dir, "sea", "--embed", "local")
    assert code == 0 and lines[4].startswith("cos floor: none known for this model (positive cosine only;")


def test_floor_turned_off_says_so(store_dir: Path, capsys, monkeypatch) -> None:
    _use_embedder(monkeypatch, _FakeEmbedder())
    code, lines, _ = explain(capsys, store_dir, "sea", "--embed", "local", "--cos-floor", "none")
    assert code == 0 and lines[4].startswith("cos floor: off (positive cosine only)")


@pytest.mark.parametrize("bad", ["2", "-1.5", "high"])
def test_bad_cos_floor_is_exit_2(store_dir: Path, capsys, bad: str) -> None:
    assert run(capsys, "-s", str(store_dir), "explain", "x", "--cos-floor", bad)[0] == 2


def test_why_takes_a_diary_row_as_the_table_names_it(store_dir: Path, capsys) -> None:
    args = ("日出", "--time-range", "2026-07-22")
    named = next(row.split("  ")[6] for row in rows(explain(capsys, store_dir, *args)[1]) if "2026-07-22:" in row)
    assert named == "2026-07-22:06:10"  # the reference CLI's spelling
    code, lines, _ = explain(capsys, store_dir, *args, "--why", named)
    assert code == 0 and lines[1] == "item: 2026-07-22:06:10"
    assert explain(capsys, store_dir, *args, "--why", "diary 2026-07-22 06:10")[1][1:] == lines[1:]  # recall's form too


def test_diary_option_searches_the_whole_diary(store_dir: Path, capsys) -> None:
    assert explain(capsys, store_dir, "日出")[0] in (0, 1)
    without = [row.split("  ")[6] for row in rows(explain(capsys, store_dir, "日出")[1])]
    code, lines, _ = explain(capsys, store_dir, "日出", "--diary")
    named = [row.split("  ")[6] for row in rows(lines)]
    assert code == 0 and "2026-07-22:06:10" in named and "2026-07-22:06:10" not in without
    code, lines, _ = explain(capsys, store_dir, "日出", "--diary", "--why", "2026-07-22:06:10")
    assert code == 0 and lines[2].startswith("verdict: recalled")
