"""Redaction benchmark: recall per kind, false positives on ordinary text, and throughput -- before and after.

The corpus (``bench/redact_corpus.py``) plants fake secrets of every kind,
generated at run time from their shapes, in every form that applies (bare,
``NAME_API_TOKEN = "…"``, ``export …=``, JSON, YAML, a URL's query and
userinfo, prose, a working directory, a branch name), and holds 300-odd
ordinary texts that must come out unaltered (git SHAs, UUIDs, base64 of
prose, hex colors, English and Chinese prose, code, paths, URLs, versions,
timestamps, lockfile hashes). Two more ordinary texts: this repository's own
code and docs (tests and the few docs that show a fake key left out), and
the Python standard library's modules.

"Before" is ``git show <ref>:wikimem/capture/redact.py`` (default ``main``)
imported as a temporary module in the same process; "after" is the working
tree's. Throughput is MB/s of ``redact`` over the ordinary texts joined,
over the repository's text, and text by text (what capture redacts: many
short texts), ordinary ones and the ones holding secrets, best of
``--repeat``. Prints figures, asserts nothing.
``python bench/bench_redact.py [--before main] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.redact_corpus import caught, ordinary_texts, planted  # noqa: E402

#: Docs that show a fake key on purpose (they would count as found, rightly).
_SHOWS_KEYS = {"docs/guide/capture.md", "docs/benchmarks.md"}


def _before(ref: str) -> ModuleType | None:
    try:
        source = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:wikimem/capture/redact.py"],
                                capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    path = Path(tempfile.mkdtemp()) / "redact_before.py"
    path.write_text(source, "utf-8")
    spec = importlib.util.spec_from_file_location("redact_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["redact_before"] = module
    spec.loader.exec_module(module)
    return module


def _repo_text() -> str:
    files = sorted(p for pattern in ("wikimem/**/*.py", "wikimem_tui/**/*.py", "docs/**/*.md", "bench/*.py", "*.md")
                   for p in ROOT.glob(pattern)
                   if p.name not in ("redact.py", "redact_corpus.py", "bench_redact.py")
                   and p.relative_to(ROOT).as_posix() not in _SHOWS_KEYS)
    return "\n".join(p.read_text("utf-8", errors="replace") for p in files)


def _stdlib_text() -> str:
    """The Python standard library's own modules (its tests left out): real code nobody wrote for this bench."""
    root = Path(sysconfig.get_paths()["stdlib"])
    skip = {"test", "tests", "idlelib", "site-packages", "lib2to3"}
    files = sorted(p for p in root.rglob("*.py") if not skip & set(p.relative_to(root).parts))
    return "\n".join(p.read_text("utf-8", errors="replace") for p in files)


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _recall(module: ModuleType) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]], list[str]]:
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_form: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed: list[str] = []
    for p in planted():
        ok = caught(p.secret, module.redact(p.text))
        for table, key in ((by_kind, p.kind.name), (by_form, p.form)):
            table[key][0] += ok
            table[key][1] += 1
        if not ok:
            missed.append(f"{p.kind.name} ({p.form}): {p.text[:90]!r}")
    return ({k: (v[0], v[1]) for k, v in by_kind.items()}, {k: (v[0], v[1]) for k, v in by_form.items()}, missed)


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.1f}%)" if b else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default="main", help="git ref of the redaction to compare with")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kinds", action="store_true", help="print recall for every kind, not only the misses")
    args = parser.parse_args()
    after = importlib.import_module("wikimem.capture.redact")
    before = _before(args.before)
    modules = [("before", before), ("after", after)] if before is not None else [("after", after)]
    ordinary = ordinary_texts()
    repo = _repo_text()
    stdlib = _stdlib_text()
    joined = "\n".join(ordinary)
    secretive = [p.text for p in planted()]
    kinds_self = {p.kind.name for p in planted() if p.kind.self_identifying}
    print(f"corpus: {len(planted())} planted secrets of {len({p.kind.name for p in planted()})} kinds "
          f"({len(kinds_self)} self-identifying), {len(ordinary)} ordinary texts; "
          f"repository text {len(repo) / 1e6:.2f} MB; Python standard library {len(stdlib) / 1e6:.1f} MB")
    rows: dict[str, dict[str, str]] = {}
    for label, module in modules:
        assert module is not None
        by_kind, by_form, missed = _recall(module)
        total = sum(v[0] for v in by_kind.values()), sum(v[1] for v in by_kind.values())
        selfish = [v for k, v in by_kind.items() if k in kinds_self]
        bare = by_form.get("bare", (0, 0))
        altered = [(t, module.redact(t)) for t in ordinary if module.redact(t) != t]
        repo_found = module.find_secrets(repo)
        stdlib_found = module.find_secrets(stdlib)
        mbs = {
            "ordinary, joined": len(joined.encode()) / 1e6 / _best(lambda: module.redact(joined), args.repeat),
            "ordinary, one by one": len(joined.encode()) / 1e6
            / _best(lambda: [module.redact(m) for m in ordinary], args.repeat),
            "with secrets, one by one": sum(len(m.encode()) for m in secretive) / 1e6
            / _best(lambda: [module.redact(m) for m in secretive], args.repeat),
            "repository": len(repo.encode()) / 1e6 / _best(lambda: module.redact(repo), args.repeat),
            "standard library": len(stdlib.encode()) / 1e6 / _best(lambda: module.redact(stdlib), 1),
        }
        rows[label] = {
            "recall, all forms": _pct(*total),
            "kinds fully caught": f"{sum(1 for v in by_kind.values() if v[0] == v[1])}/{len(by_kind)}",
            "self-identifying, all forms": _pct(sum(v[0] for v in selfish), sum(v[1] for v in selfish)),
            "pasted bare": _pct(*bare),
            **{f"  form {form}": _pct(*v) for form, v in sorted(by_form.items())},
            "ordinary texts altered": f"{len(altered)}/{len(ordinary)}",
            "repository spans found": str(len(repo_found)),
            "standard library spans found": str(len(stdlib_found)),
            **{f"MB/s {name}": f"{value:.1f}" for name, value in mbs.items()},
        }
        print(f"\n== {label} ({'git ' + args.before if label == 'before' else 'working tree'})")
        print(f"missed: {len(missed)}")
        for line in missed[:12 if label == "after" else 6]:
            print(f"  {line}")
        if altered:
            print(f"ordinary texts altered: {len(altered)}, e.g.")
            for text, out in altered[:8]:
                print(f"  {text[:70]!r}\n    -> {out[:90]!r}")
        for name, text, spans in (("repository", repo, repo_found), ("standard library", stdlib, stdlib_found)):
            if spans:
                print(f"{name} spans found, e.g.")
            for s in spans[:6]:
                line_start = text.rfind("\n", 0, s.start) + 1
                print(f"  {s.kind}: {text[line_start:text.find(chr(10), s.end)][:100]!r}")
        if args.kinds or label == "after":
            weak = sorted((k, v) for k, v in by_kind.items() if v[0] < v[1] or args.kinds)
            for kind, (a, b) in weak:
                print(f"  kind {kind}: {a}/{b}")
    print()
    labels = list(rows)
    print(f"{'':32s}" + "".join(f"{label:>22s}" for label in labels)
          + ("      ratio" if len(labels) == 2 else ""))
    for key in rows[labels[-1]]:
        line = f"{key:32s}" + "".join(f"{rows[label][key]:>22s}" for label in labels)
        if key.startswith("MB/s") and len(labels) == 2:
            line += f"  {float(rows['after'][key]) / float(rows['before'][key]):8.1f}x"
        print(line)


if __name__ == "__main__":
    main()
