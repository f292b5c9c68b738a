"""Whole-diary recall: ``retrieve(search_diary=True)``, its own statistics and freshness, on every agent surface.

The default (no argument) stays the reference's: the diary only inside a
time window. With the argument the whole diary is searched through its own
index, ranked with the diary's own document frequencies and lengths, kept
fresh against appends (heard), hand edits and deleted day files (the stat
sweep of ``refresh()``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wikimem import DiaryItem, MemoryIndex, MemoryStore, RecallItem, RetrievalResult
from wikimem.cli import main
from wikimem.index.terms.analyzer import FUNCTION_WORDS
from wikimem.ranking.agent_text import agent_rows, agent_text
from wikimem.ranking.explain import explain_lines
from wikimem.server.memory import AgentMemory

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    s = MemoryStore(tmp_path / "memory")
    s.add("people", "Alice", "Colleague who likes jasmine tea.")
    s.diary.append("Went to the science museum with Melanie and the kids.", date="2023-07-06", time="14:00")
    s.diary.append("Melanie said she would go to the beach when it is sunny.", date="2023-07-07", time="09:00")
    s.diary.append("Painted a sunrise over the lake.", date="2023-07-08", time="18:30")
    return s


def rows(result: RetrievalResult) -> list[str]:
    return [f"{r.entry_id}" if r.entry_id is not None else f"{r.item.file}:{r.item.name}" for r in result.items]


# -- the drop-in default, and the argument ------------------------------------------------


def test_without_the_argument_the_diary_is_searched_only_in_a_window(store: MemoryStore) -> None:
    index = MemoryIndex(store)
    assert index.retrieve("museum").items == []
    assert rows(index.retrieve("museum", time_range=("2023-07-06", "2023-07-06"))) == ["2023-07-06 14:00"]


def test_search_diary_finds_entries_without_a_time_word_labelled_with_day_and_time(store: MemoryStore) -> None:
    result = MemoryIndex(store).retrieve("museum", search_diary=True)
    assert rows(result) == ["2023-07-06 14:00"]
    row = agent_rows(result)[0]
    assert (row["kind"], row["day"], row["time"], row["label"]) == ("diary", "2023-07-06", "14:00", "diary 2023-07-06 14:00")
    assert agent_text(result).startswith("## diary 2023-07-06 14:00\nWent to the science museum")


def test_wiki_and_diary_hits_share_one_ranking_and_one_budget(store: MemoryStore) -> None:
    store.add("notes", "tea", "Jasmine tea every morning.")
    result = MemoryIndex(store).retrieve("jasmine tea sunrise", search_diary=True, budget_tokens=12)
    assert {r.entry_id is None for r in result.items} | {r.entry_id is None for r in result.dropped} == {True, False}
    assert result.budget_used <= 12 or len(result.items) == 1


def test_a_window_narrows_the_diary_and_never_filters_the_wiki(store: MemoryStore) -> None:
    store.add("notes", "museum", "The science museum opens at nine.")
    result = MemoryIndex(store).retrieve("museum sunrise", search_diary=True, time_range=("2023-07-08", "2023-07-08"))
    assert set(rows(result)) == {"notes:museum", "2023-07-08 18:30"}


def test_a_time_word_narrows_the_diary_too(tmp_path: Path) -> None:
    s = MemoryStore(tmp_path / "m")
    s.diary.append("museum trip", date="2026-07-21", time="10:00")
    s.diary.append("museum again", date="2026-07-10", time="10:00")
    index = MemoryIndex(s, today=lambda: __import__("datetime").date(2026, 7, 22))
    assert rows(index.retrieve("museum yesterday", search_diary=True)) == ["2026-07-21 10:00"]
    assert len(index.retrieve("museum", search_diary=True).items) == 2


def test_two_entries_of_one_minute_are_two_rows(tmp_path: Path) -> None:
    s = MemoryStore(tmp_path / "m")
    s.diary.append("first kayak lesson", date="2026-07-21", time="10:00")
    s.diary.append("second kayak lesson", date="2026-07-21", time="10:00")
    assert sorted(rows(MemoryIndex(s).retrieve("kayak", search_diary=True))) == ["2026-07-21 10:00", "2026-07-21 10:00#2"]


# -- the diary's own statistics --------------------------------------------------------


def test_a_word_in_every_entry_scores_far_below_a_word_in_one(tmp_path: Path) -> None:
    s = MemoryStore(tmp_path / "m")
    for day in range(1, 10):
        s.diary.append("walked the dog", date=f"2026-07-{day:02d}", time="08:00")
    s.diary.append("walked the dog past a heron", date="2026-07-10", time="08:00")
    index = MemoryIndex(s)
    common = index.retrieve("dog", search_diary=True).items[0].bm25_score
    rare = index.retrieve("heron", search_diary=True).items[0].bm25_score
    assert rare > 10 * common
    # The reference path (a window, scored with the wiki's statistics) tells them apart far less.
    window = ("2026-07-01", "2026-07-10")
    assert index.retrieve("heron", time_range=window).items[0].bm25_score < 3 * \
        index.retrieve("dog", time_range=window).items[0].bm25_score


def test_the_wiki_does_not_lend_its_statistics_to_the_diary(tmp_path: Path) -> None:
    s = MemoryStore(tmp_path / "m")
    s.diary.append("heron by the river", date="2026-07-10", time="08:00")
    s.diary.append("rain all day", date="2026-07-11", time="08:00")
    index = MemoryIndex(s)
    before = index.retrieve("heron", search_diary=True).items[0].bm25_score
    for n in range(20):
        s.add("birds", f"heron-{n}", "A heron, a heron and another heron.")
    after = [r for r in index.retrieve("heron", search_diary=True, limit=30).items if r.entry_id is not None]
    assert after[0].bm25_score == pytest.approx(before)


def test_when_did_melanie_go_to_the_museum_ranks_the_museum_entry_first(tmp_path: Path) -> None:
    s = MemoryStore(tmp_path / "m")
    for day in range(1, 24):
        s.diary.append(f"When it rained we did go to the shop and then to the park, day {day}.",
                       date=f"2023-07-{day:02d}", time="09:00")
    s.diary.append("Melanie and I took the kids to the museum.", date="2023-07-24", time="15:00")
    index = MemoryIndex(s)
    for window in (None, ("2023-07-01", "2023-07-31")):
        result = index.retrieve("When did Melanie go to the museum?", search_diary=True, time_range=window)
        assert rows(result)[0] == "2023-07-24 15:00"


# -- function words ---------------------------------------------------------------------


def test_function_words_alone_never_make_a_hit(tmp_path: Path) -> None:
    s = MemoryStore(tmp_path / "m")
    s.add("notes", "a", "I like it when the work is about done and the rest is later.")
    s.add("notes", "b", "The sea at sunrise is the best part of the trip.")
    s.diary.append("What do I like about the evening? The quiet and the tea.", date="2026-07-01", time="20:00")
    index = MemoryIndex(s)
    for search_diary in (False, True):
        result = index.retrieve("what do I like about the sea and sunrise?", search_diary=search_diary)
        assert rows(result) == ["notes:b"]
    # With a window, the reference path keeps the rule too.
    windowed = index.retrieve("what do I like about the sea and sunrise?", time_range=("2026-07-01", "2026-07-01"))
    assert rows(windowed) == ["notes:b"]
    # And so does a window read from the diary's own index.
    assert rows(index.retrieve("what do I like about the sea and sunrise?", search_diary=True,
                               time_range=("2026-07-01", "2026-07-01"))) == ["notes:b"]
    # A query of function words only keeps them.
    assert {"notes:a", "notes:b"} <= set(rows(index.retrieve("the", search_diary=True)))
    assert {"what", "the", "about", "like"} <= FUNCTION_WORDS


def test_matched_terms_are_shown_as_typed(tmp_path: Path) -> None:
    s = MemoryStore(tmp_path / "m")
    s.add("notes", "b", "Coffee at sunrise.")
    result = MemoryIndex(s, analyzer="stem").retrieve("coffee sunrise", explain=True)
    row = result.items[0]
    assert result.typed(row.matched_terms) == ["coffee", "sunrise"]
    table = explain_lines("coffee sunrise", result)
    assert any(line.endswith("[coffee, sunrise]") for line in table)
    assert agent_rows(result)[0]["matched"] == ["coffee", "sunrise"]


# -- freshness --------------------------------------------------------------------------


def test_an_append_in_this_process_is_found_by_the_next_query(store: MemoryStore) -> None:
    index = MemoryIndex(store)
    assert index.retrieve("kayak", search_diary=True).items == []
    store.diary.append("Kayak lesson on the lake.", date="2023-07-09", time="10:00")
    assert rows(index.retrieve("kayak", search_diary=True)) == ["2023-07-09 10:00"]


def test_hand_edits_and_deleted_day_files_are_picked_up_by_refresh(store: MemoryStore) -> None:
    index = MemoryIndex(store)
    assert rows(index.retrieve("museum", search_diary=True)) == ["2023-07-06 14:00"]
    day = store.diary.path("2023-07-06")
    day.write_text(day.read_text("utf-8").replace("science museum", "aquarium"), "utf-8")
    os.utime(day, ns=(1, 1))  # the stat moves whatever the clock's granularity
    index.refresh()
    assert index.retrieve("museum", search_diary=True).items == []
    assert rows(index.retrieve("aquarium", search_diary=True)) == ["2023-07-06 14:00"]
    store.diary.path("2023-07-08").unlink()
    assert index.refresh_diary() == ["2023-07-08"]
    assert index.retrieve("sunrise", search_diary=True).items == []


def test_a_day_file_written_by_another_process_is_picked_up(store: MemoryStore) -> None:
    index = MemoryIndex(store)
    index.retrieve("museum", search_diary=True)
    code = "import sys; from wikimem import Diary; Diary(sys.argv[1]).append('Heron at the pond.', date='2023-07-10', time='07:00')"
    subprocess.run([sys.executable, "-c", code, str(store.root)], check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert index.refresh_diary() == ["2023-07-10"]
    assert rows(index.retrieve("heron", search_diary=True)) == ["2023-07-10 07:00"]


def test_rebuild_reloads_the_diary(store: MemoryStore) -> None:
    index = MemoryIndex(store)
    index.retrieve("museum", search_diary=True)
    index.rebuild()
    assert rows(index.retrieve("museum", search_diary=True)) == ["2023-07-06 14:00"]


# -- why_not ---------------------------------------------------------------------------


def test_why_not_judges_a_diary_entry_against_the_whole_diary(store: MemoryStore) -> None:
    index = MemoryIndex(store)
    assert index.why_not("museum", "2023-07-06", "14:00").stage == "time_gate"
    recalled = index.why_not("museum", "2023-07-06", "14:00", search_diary=True)
    assert recalled.recalled and recalled.bm25_rank == 1  # its place among the diary's entries
    why = index.why_not("museum", "2023-07-08", "18:30", search_diary=True)
    assert why.stage == "not_candidate" and "shares no scored token" in why.reason


# -- the agent surfaces -------------------------------------------------------------------


def test_mcp_recall_searches_the_diary_by_default(store: MemoryStore) -> None:
    memory = AgentMemory(store.root)
    found = memory.recall("When was the museum trip?")
    assert [(r["kind"], r["day"], r["time"]) for r in found["items"]] == [("diary", "2023-07-06", "14:00")]
    assert "## diary 2023-07-06 14:00\n" in found["text"]
    assert memory.recall("When was the museum trip?", search_diary=False)["items"] == []


def test_the_hook_line_prints_the_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(tmp_path / "m")
    assert main(["init", root]) == 0
    assert main(["-s", root, "diary", "append", "Went to the science museum with Melanie and the kids.",
                 "--date", "2023-07-06", "--time", "14:00"]) == 0
    capsys.readouterr()
    assert main(["-s", root, "recall", "When did we go to the museum?"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## diary 2023-07-06 14:00\nWent to the science museum with Melanie and the kids.\n")
    assert main(["-s", root, "recall", "--no-diary", "When did we go to the museum?"]) == 1


def test_the_hook_reads_the_prompt_and_searches_the_diary(tmp_path: Path) -> None:
    root = tmp_path / "m"
    MemoryStore(root).diary.append("Went to the science museum.", date="2023-07-06", time="14:00")
    done = subprocess.run(
        [sys.executable, "-m", "wikimem", "-s", str(root), "recall", "--from-hook", "--json"],
        input=json.dumps({"prompt": "When did we go to the museum?"}), capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)}, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [r["label"] for r in json.loads(done.stdout)["items"]] == ["diary 2023-07-06 14:00"]


# -- with an embedder ----------------------------------------------------------------------


def test_with_an_embedder_the_whole_diary_takes_part_in_fusion(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    from test_retrieval_embed import ConceptEmbedder

    s = MemoryStore(tmp_path / "m")
    s.add("prefs", "coffee", "Only filter coffee.")
    s.diary.append("Swam in the ocean at dawn.", date="2026-07-01", time="06:00")
    s.diary.append("Long day at work.", date="2026-07-02", time="19:00")
    index = MemoryIndex(s, use_jieba=False, embedder=ConceptEmbedder(), cos_floor=0.5)
    result = index.retrieve("beach", search_diary=True)  # no shared word: the vectors bring the entry
    assert result.embedding_used and rows(result)[:1] == ["2026-07-01 06:00"]
    assert result.items[0].cos_score is not None and result.items[0].cos_score > 0.9
    assert (s.root / "diary-vectors" / "vectors.keys.jsonl").exists()
    s.diary.append("Beach volleyball with Sam.", date="2026-07-03", time="17:00")
    assert "2026-07-03 17:00" in rows(index.retrieve("ocean", search_diary=True))
    assert MemoryIndex(s, use_jieba=False, embedder=ConceptEmbedder(), cos_floor=0.5).retrieve("beach").items == []


def test_build_diary_loads_the_whole_diary_ahead_of_the_first_query(store: MemoryStore) -> None:
    index = MemoryIndex(store)
    index.build_diary()
    store.diary.path("2023-07-06").unlink()  # not re-read: the load happened before
    assert rows(index.retrieve("museum", search_diary=True)) == ["2023-07-06 14:00"]
    index.refresh()
    assert index.retrieve("museum", search_diary=True).items == []


def test_a_time_word_whose_window_holds_nothing_filters_nothing(tmp_path: Path) -> None:
    import datetime as dt

    s = MemoryStore(tmp_path / "m")
    s.diary.append("museum trip", date="2026-06-01", time="10:00")
    index = MemoryIndex(s, today=lambda: dt.date(2026, 7, 22))
    result = index.retrieve("museum yesterday", search_diary=True)  # the window (widened) is empty
    assert result.time_range_widened and rows(result) == ["2026-06-01 10:00"]
    assert index.retrieve("museum", search_diary=True, time_range=("2026-07-21", "2026-07-21")).items == []
    assert index.why_not("museum", "2026-06-01", "10:00", search_diary=True,
                         time_range=("2026-07-21", "2026-07-21")).stage == "time_gate"


def test_a_window_after_a_rebuild_reads_each_entry_s_own_vector(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    from test_retrieval_embed import ConceptEmbedder

    s = MemoryStore(tmp_path / "m")
    s.diary.append("Swam in the ocean at dawn.", date="2026-07-01", time="06:00")
    s.diary.append("Long day at work.", date="2026-07-02", time="19:00")
    index = MemoryIndex(s, use_jieba=False, embedder=ConceptEmbedder(), cos_floor=0.5)
    assert rows(index.retrieve("beach", search_diary=True)) == ["2026-07-01 06:00"]  # the whole diary's rows
    s.diary.path("2026-07-01").unlink()
    index.rebuild()  # the diary is numbered anew: the work entry now has the ocean entry's old doc
    assert index.retrieve("beach", search_diary=True, time_range=("2026-07-02", "2026-07-02")).items == []


def test_a_rebuild_during_a_diary_query_still_reloads_the_diary(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from app_waits import SAFETY_NET
    from wikimem.index.corpus.diary import DiaryFiles

    index = MemoryIndex(store)
    index.retrieve("museum", search_diary=True)  # the diary's index is built
    store.diary.append("Kayak lesson.", date="2023-07-09", time="10:00")  # heard: the next query re-reads that day
    reading, loading, release = threading.Event(), threading.Event(), threading.Event()
    read_day = DiaryFiles.file_items

    def slow_read(self: DiaryFiles, day: str) -> list[RecallItem]:
        if threading.current_thread().name == "query":
            reading.set()
            release.wait(SAFETY_NET)
        return read_day(self, day)

    monkeypatch.setattr(DiaryFiles, "file_items", slow_read)
    query = threading.Thread(target=index.retrieve, args=("kayak",), kwargs={"search_diary": True}, name="query")
    query.start()
    assert reading.wait(SAFETY_NET), "the query never re-read the day"
    # A hand edit the stat sweep cannot see (same size, mtime put back): only a rebuild reads it.
    day = store.diary.path("2023-07-06")
    before = day.stat()
    day.write_text(day.read_text("utf-8").replace("museum", "geyser"), "utf-8")
    os.utime(day, ns=(before.st_atime_ns, before.st_mtime_ns))
    build = threading.Thread(target=index.build, kwargs={"progress": lambda done, total: loading.set()})
    build.start()
    assert loading.wait(SAFETY_NET), "the rebuild never started loading"
    release.set()
    query.join(SAFETY_NET)
    build.join(SAFETY_NET)
    assert rows(index.retrieve("geyser", search_diary=True)) == ["2023-07-06 14:00"]


def test_an_import_in_this_process_is_found_by_the_next_query(store: MemoryStore) -> None:
    from wikimem.interop.plan import ImportPlan, apply

    index = MemoryIndex(store)
    assert rows(index.retrieve("museum", search_diary=True)) == ["2023-07-06 14:00"]  # the diary's index is built
    apply(store, ImportPlan("test", entries=[DiaryItem("2023-07-06", "15:00", "Kayak lesson after the museum.")]))
    assert rows(index.retrieve("kayak", search_diary=True)) == ["2023-07-06 15:00"]


def _three_days_of_diary(tmp_path: Path, name: str, wiki_text: str) -> MemoryIndex:
    """A wiki item sharing the question's words, and three diary days: two of them two weeks before 2026-12-05."""
    import datetime as dt

    store = MemoryStore(tmp_path / "m")
    store.add("notes", name, wiki_text)
    store.diary.append("Planted tomatoes in the garden.", date="2026-11-20", time="10:00")
    store.diary.append("Fixed the bike.", date="2026-11-21", time="18:00")
    store.diary.append("Quiet day.", date="2026-12-01", time="09:00")
    return MemoryIndex(store, today=lambda: dt.date(2026, 12, 5))


def test_a_question_of_function_words_and_a_time_word_is_answered_by_its_window(tmp_path: Path) -> None:
    """"what did I do two weeks ago": nothing but the time words names a subject, so the window is the answer."""
    index = _three_days_of_diary(tmp_path, "doing", "What I do on weekends: I do the garden.")
    asked = index.retrieve("what did I do two weeks ago?", search_diary=True)
    assert [str(row.entry_id) for row in asked.items] == ["2026-11-21 18:00", "2026-11-20 10:00"]
    # The reference rule stays where the new argument is not asked for, and a subject still has to match.
    assert all(row.entry_id is None for row in index.retrieve("what did I do two weeks ago?").items)
    assert [str(r.entry_id) for r in index.retrieve("bike two weeks ago", search_diary=True).items] == [
        "2026-11-21 18:00"]


@pytest.mark.parametrize("question", [
    "what happened two weeks ago?", "what went on two weeks ago?", "anything two weeks ago?",
    "what was going on two weeks ago?",
])
def test_a_question_of_what_took_place_and_a_time_word_is_answered_by_its_window(tmp_path: Path,
                                                                                  question: str) -> None:
    """"what happened last week": "happened" asks for the events and names no subject, so the window answers.

    The plainest question a diary is kept for must not need a word of an
    entry to match.
    """
    index = _three_days_of_diary(tmp_path, "history", "What happened in 1990: the wall came down.")
    asked = index.retrieve(question, search_diary=True)
    assert [str(row.entry_id) for row in asked.items] == ["2026-11-21 18:00", "2026-11-20 10:00"]
    # A subject beside them still has to match: the window admits, it does not add hits.
    subject = index.retrieve("what happened to the bike two weeks ago?", search_diary=True)
    assert [str(r.entry_id) for r in subject.items if r.entry_id is not None] == ["2026-11-21 18:00"]


def test_chinese_function_words_are_words_of_function_characters_only() -> None:
    from wikimem.index.terms.analyzer import is_function_word

    assert all(map(is_function_word, ["我", "了", "什么", "做了", "我做", "干嘛", "what", "the"]))
    assert not any(map(is_function_word, ["作者", "哪里", "自行车", "车怎", "", "bike"]))
