"""Lint speed on a synthetic store, against a plain full read measured in the same run.

The goals (issue 8): a full ``wikimem lint`` of a 100k-item store in under
3 s on this machine, within ~1.5-2x of a plain full read; and a re-lint
after one changed file (what the app's Health pane does after each edit)
under ~100 ms. Absolute times drift on a shared 2-core machine, so each
figure is printed next to the reference every engine of this project is
measured against: reading the whole store once (``MemoryStore.items()``
plus every diary day), which any lint must at least do, timed in the same
run. CPU seconds of this process are printed too: on a loaded machine they
are the steadier figure. The store gets a journal with one line per item
(as if every item had been written through the library) so the journal
check and drift run at full size too.

Re-lints are measured for three edits, each undone afterwards: an item
appended to one RecallFile, a link from one item to an orphan in another
file (so that file's orphan findings change), and a new diary day.

    python bench/bench_lint.py                 # 100k items (builds the store once)
    python bench/bench_lint.py --items 10000 --out /tmp/lint10k
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.synth import generate  # noqa: E402
from wikimem import MemoryStore  # noqa: E402
from wikimem.lint import Linter, lint  # noqa: E402

GOAL_SECONDS = 3.0
RELINT_GOAL = 0.1


def _journal(root: Path) -> int:
    """One ``add`` line per item, stamped a day after the files were written."""
    store = MemoryStore(root)
    lines = []
    for file in store.files():
        for item in store.items(file):
            lines.append(json.dumps({"ts": "2099-01-01T00:00:00+00:00", "action": "add", "file": file,
                                     "item": item.name}, ensure_ascii=False))
    (root / "journal.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def _plain_read(root: Path) -> tuple[float, float]:
    gc.collect()  # each figure pays for its own garbage only
    wall, cpu = time.perf_counter(), time.process_time()
    store = MemoryStore(root)
    store.items()
    for date in store.diary.dates():
        store.diary.day(date)
    return time.perf_counter() - wall, time.process_time() - cpu


def _timed(fn: Callable[[], object]) -> tuple[float, float]:
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def _edits(root: Path) -> list[tuple[str, Path, bytes | None, str]]:
    """``(label, path, original bytes or None, new text)`` of the edits re-lints are timed after."""
    files = sorted((root / "wiki").glob("*.md"))
    first, other = files[0], files[len(files) // 2]
    target = MemoryStore(root).items(other.stem)[0]
    day = root / "diary" / "2099-12-31.md"
    text = first.read_text("utf-8")
    return [
        ("one item appended to a RecallFile", first, first.read_bytes(), text + "\n## bench edit\n\nOne more item.\n"),
        ("a link to an orphan in another file", first, first.read_bytes(),
         text.replace("\n\n<!--", f" [[{target.file}:{target.name}]]\n\n<!--", 1)),
        ("a new diary day", day, None, "# 2099-12-31\n\n## 10:00\n\nA new day.\n"),
    ]


def _relints(root: Path, repeat: int) -> list[tuple[str, float, float]]:
    linter = Linter(root)
    linter.run()
    out = []
    for label, path, original, text in _edits(root):
        walls, cpus = [], []
        for _ in range(repeat):
            try:
                path.write_text(text, encoding="utf-8")
                wall, cpu = _timed(lambda: linter.run([path]))
                walls.append(wall)
                cpus.append(cpu)
            finally:  # the store stays the same for the next run
                if original is None:
                    path.unlink(missing_ok=True)
                else:
                    path.write_bytes(original)
            linter.run([path])
        out.append((label, statistics.median(walls), statistics.median(cpus)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--out", type=Path, help="store directory (reused when it exists)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    root = args.out or Path(tempfile.gettempdir()) / f"wikimem-bench-lint-{args.items}"
    if not (root / "wiki").is_dir():
        print(f"building {args.items} items in {root} ...", file=sys.stderr)
        generate(root, args.items, seed=1)
        _journal(root)
    reads, lints = [], []
    report = None
    for _ in range(args.repeat):
        reads.append(_plain_read(root))
        gc.collect()
        start = time.perf_counter(), time.process_time()
        report = lint(root)
        lints.append((time.perf_counter() - start[0], time.process_time() - start[1]))
    assert report is not None
    relints = _relints(root, args.repeat)
    read = statistics.median(r[0] for r in reads), statistics.median(r[1] for r in reads)
    full = statistics.median(r[0] for r in lints), statistics.median(r[1] for r in lints)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"store: {args.items} items, {len(report.findings)} findings {report.counts}; load average {load}")
    print(f"plain full read (reference): {read[0]:.2f} s wall, {read[1]:.2f} s cpu")
    verdict = "ok" if full[0] <= GOAL_SECONDS else "MISS"
    print(f"lint, full run:              {full[0]:.2f} s wall, {full[1]:.2f} s cpu  = {full[0] / read[0]:.1f}x the "
          f"read (cpu {full[1] / read[1]:.1f}x); goal < {GOAL_SECONDS:.0f} s: {verdict}")
    for label, wall, cpu in relints:
        verdict = "ok" if wall <= RELINT_GOAL else "MISS"
        print(f"re-lint after {label}: {wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms cpu "
              f"= {wall / full[0]:.1%} of a full run; goal < {RELINT_GOAL * 1000:.0f} ms: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
