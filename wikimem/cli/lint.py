"""``wikimem lint``: the deterministic checks, for people, scripts and CI.

Exit codes: 1 when there are errors (with ``--strict``, warnings too), 0
otherwise, 2 for usage and store errors. ``--fix`` is the one way lint
writes (``wikimem.lint.fixes``, journaled); after it the store is linted
again and the remaining findings decide the exit code.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TypeVar

from wikimem.cli.io import Output

if TYPE_CHECKING:  # the parser is built for every command; lint loads when it runs
    from wikimem.lint import LintReport
    from wikimem.store import MemoryStore

__all__ = ["add_lint_parser", "run_lint"]


P = TypeVar("P", bound=argparse.ArgumentParser)


def add_lint_parser(commands: argparse._SubParsersAction[P]) -> P:
    """Register the ``lint`` sub-command on ``commands``."""
    lint = commands.add_parser("lint", help="check the memory for problems (exit 1 on errors)")
    lint.add_argument("--json", action="store_true", help="one JSON object: findings and counts")
    lint.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    lint.add_argument("--fix", action="store_true",
                      help="apply the safe mechanical fixes (journaled), then lint again")
    lint.add_argument("--dry-run", action="store_true", help="with --fix: print the diff, write nothing")
    lint.add_argument("--embed-model", metavar="NAME",
                      help="the embedding model in use, to check the vector cache's stamp")
    lint.add_argument("--embed-dim", metavar="N", type=int,
                      help="the width of that model's vectors, to check the vector cache's width")
    lint.add_argument("--owner", default="lint", metavar="WHO",
                      help="who --fix writes as (journal by=, baseline by; default: lint)")
    return lint


def _summary(report: LintReport) -> str:
    counts = report.counts
    parts = [f"{n} {sev}{'' if n == 1 else 's'}" for sev, n in counts.items()]
    return ", ".join(parts) if any(counts.values()) else "no problems found"


def run_lint(store: MemoryStore, args: argparse.Namespace, out: Output) -> int:
    """Run ``wikimem lint`` with parsed ``args``; returns the exit code."""
    from wikimem.lint import Linter
    from wikimem.lint.fixes import apply_fixes, plan_fixes

    if args.dry_run and not args.fix:
        out.error("wikimem lint: error: --dry-run only makes sense with --fix")
        return 2
    linter = Linter(store.root, model=args.embed_model, dim=args.embed_dim)
    report = linter.run()
    payload: dict[str, object] = {}
    if args.fix:
        plan = plan_fixes(linter, report, by=args.owner)
        for note in plan.skipped:
            out.error(f"not fixed: {note}")
        if args.dry_run:
            diff = plan.diff()
            if args.json:
                payload = {"diff": diff, "skipped": plan.skipped}
            else:
                out.write(diff)
                if not diff:
                    out.error("nothing to fix")
                return report.exit_code(strict=args.strict)
        else:
            done, refused = apply_fixes(linter, plan)
            for note in refused:
                out.error(f"not fixed: {note}")
            if not args.json:
                for note in done:
                    out.line(f"fixed {note}")
            payload = {"fixed": done, "skipped": plan.skipped + refused}
            report = linter.run([fix.path for fix in plan.files])
    if args.json:
        out.json({"ok": True, **report.to_json(), **payload}, indent=1)  # ok: it ran; the findings judge the memory
    else:
        for finding in report.findings:
            out.line(finding.render())
        out.line(_summary(report))
    return report.exit_code(strict=args.strict)
