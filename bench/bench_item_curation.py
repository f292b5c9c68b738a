"""The item area's curation screens on a big store: audit, retraction and git history.

Claims, each against a reference measured in the same run on the same store:

* audit / retraction read from a snapshot kept warm between questions, so
  after an edit they cost the edit, not the store: ``CurationReader`` after
  one changed file vs ``wikimem.audit(path, …)``, which reads every file
  each time (what the screens would cost without the warm snapshot); the
  first (cold) question pays the full read once;
* history costs git plus one parse per commit: ``item_history`` (``git log
  --follow`` + one ``git cat-file --batch`` + the block parser) vs the bare
  ``git log --follow`` of the same file (the floor any git-backed history
  pays).

Both run in thread workers in the app, so none of this blocks the UI; the
figures say how long the user waits for the screen to fill. The machine is
shared by several engineers: absolute times drift, compare the ratios.
Nothing is asserted.

    python bench/bench_item_curation.py                  # 100k items
    python bench/bench_item_curation.py --items 20000 --commits 100
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import generate  # noqa: E402

from wikimem import MemoryStore, audit, draft_promotion  # noqa: E402
from wikimem_tui.core.curation_reads import CurationReader  # noqa: E402
from wikimem_tui.core.git_history import item_history  # noqa: E402
from wikimem_tui.core.changes import StoreChange  # noqa: E402


def timed(fn: Callable[[], Any], repeat: int = 3) -> float:
    """Median seconds of ``repeat`` runs."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def curate(store: MemoryStore) -> tuple[str, str]:
    """A promoted item (with its evidence) and an item citing it, in the first RecallFile."""
    entry = store.diary.append("The bench entry everything rests on.", date="2026-06-01", time="10:00", owner="agent")
    draft = draft_promotion([entry])
    file = store.files()[0]
    store.add(file, "bench-claim", draft.content, owner="agent")
    store.add(file, "bench-child", f"Rests on the claim.\n(evidence: [[{file}:bench-claim]])", owner="agent")
    return file, "bench-claim"


def library(root: Path) -> dict[str, float]:
    store = MemoryStore(root)
    file, name = curate(store)
    reader = CurationReader(root)
    out: dict[str, float] = {}
    out["reference: wikimem.audit(path) (reads every file)"] = timed(lambda: audit(root, file, name), 1)
    out["audit, cold (first question)"] = timed(lambda: reader.audit(file, name), 1)
    other = store.items(file)[0]
    n = [0]

    def edit_then_audit() -> None:
        n[0] += 1
        store.add(file, other.name, other.content + f" (edit {n[0]})", owner="agent")
        reader.changed(StoreChange(frozenset({file})))
        reader.audit(file, name)

    out["audit after 1 changed file"] = timed(edit_then_audit)
    out["retraction of the entry, warm"] = timed(lambda: reader.retraction(entry=("2026-06-01", "10:00")))
    return out


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-06-01T10:00:00+00:00", "GIT_COMMITTER_DATE": "2026-06-01T10:00:00+00:00"}
    subprocess.run(["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
                    "-c", "commit.gpgsign=false", *args], check=True, capture_output=True, env=env)


def history(root: Path, commits: int) -> dict[str, float]:
    store = MemoryStore(root)
    file = store.files()[0]
    item = store.items(file)[0]
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "wiki")
    git(root, "commit", "-q", "-m", "all")
    for n in range(commits):  # every other commit changes the item, the rest its neighbour (collapsed)
        target = item if n % 2 == 0 else store.items(file)[1]
        store.add(file, target.name, target.content + f" v{n}", owner="agent")
        git(root, "commit", "-q", "-am", f"commit {n}")
    path = f"wiki/{file}.md"
    out = {
        "reference: git log --follow alone": timed(lambda: subprocess.run(
            ["git", "-C", str(root), "log", "--follow", "--format=%H", "--", path], capture_output=True, check=True)),
        f"item_history over {commits + 1} commits": timed(lambda: item_history(root, file, item.name)),
    }
    versions = len(item_history(root, file, item.name).versions)
    print(f"  ({versions} distinct versions of {file}:{item.name} in {commits + 1} commits of a "
          f"{(root / path).stat().st_size // 1024} KiB RecallFile)")
    return out


def report(title: str, figures: dict[str, float]) -> None:
    print(title)
    reference = next(v for k, v in figures.items() if k.startswith("reference"))
    for label, seconds in figures.items():
        print(f"  {label:<52} {seconds * 1000:9.1f} ms   {seconds / reference:6.2f}x reference")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--commits", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wikimem-bench-") as tmp:
        root = Path(tmp) / "memory"
        start = time.perf_counter()
        counts = generate(root, args.items)
        print(f"store: {counts} (generated in {time.perf_counter() - start:.1f} s)")
        report("audit and retraction (library level, what the screens' workers run)", library(root))
        report("history (git in a subprocess, as the history screen's worker runs it)", history(root, args.commits))


if __name__ == "__main__":
    main()
