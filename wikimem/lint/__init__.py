"""``wikimem.lint``: deterministic checks of a memory directory (SPEC §4).

Lint enforces the parts of the memory model a machine can decide. It reads
and never writes; ``--fix`` applies the few mechanical repairs through the
library's write path. Stable finding codes, their severities and fixes are
listed in ``CODES``. The app keeps one :class:`Linter` and re-runs it after
changes; scripts call :func:`lint` or ``wikimem lint --json``.
"""

from __future__ import annotations

from wikimem.lint.findings import CODES, SEVERITIES, CodeInfo, Finding, LintReport, Location, Severity
from wikimem.lint.linter import Linter, lint
from wikimem.lint.snapshot import Snapshot

__all__ = [
    "CODES",
    "SEVERITIES",
    "CodeInfo",
    "Finding",
    "LintReport",
    "Linter",
    "Location",
    "Severity",
    "Snapshot",
    "lint",
]
