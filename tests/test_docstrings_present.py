"""Docstrings say why in the present: no measured figure, no session, no issue number.

A docstring outlives the run that measured it: a timing quoted there is
wrong after the next change and nobody re-measures it, and "issue 16" or
"session 28" sends the reader to a tracker instead of telling them the
reason. Figures live in ``bench/`` (scripts that print them) and
``docs/benchmarks.md``; history lives in git and ``bench/rounds/``.

Every module of ``wikimem/`` and ``wikimem_tui/`` is parsed (never
imported); the docstrings of modules, classes and functions are checked
line by line. What fails:

* a measured figure: a number with a unit of time, size, rate, ratio or
  share (``40 ms``, ``1.3 s``, ``460 MB``, ``3x``, ``40%``, ``items/s``);
* a session or round (``session 28``, ``this round``, ``round 3``);
* an issue number (``issue 16``, ``#16``).

What passes, because it states a constraint rather than a measurement:

* binary sizes and widths: ``1 MiB``, ``16-bit key``, ``8 bytes``;
* a figure next to the word that makes it a rule: a limit, a timeout, a
  goal, a budget, a default, "at most", "more than", "within", "under",
  "every" (``a 10 s timeout``, ``within the 1 s goal``, ``at most 64 KB``);
* text in double backticks or double quotes: a literal, an example of
  output (``"120 of 5,000 items to embed (~2 min)"``, ``#2`` as an entry
  suffix).

Deliberate exceptions are listed in ``EXCEPTIONS`` with their reason.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("wikimem", "wikimem_tui")

_NUMBER = r"\d+(?:[.,]\d+)*"
_UNIT = (r"(?:ms|us|µs|ns|s|secs?|seconds?|min|minutes?|h|hours?|KB|kB|MB|GB|TB"
         r"|bytes/s|MB/s|GB/s|items/s|docs/s|/s|x|×|%)")
#: A number (or a range of two) with a unit of measure; not part of a word, a version, an escape or a name.
FIGURE = re.compile(rf"(?<![\w.\\#/-]){_NUMBER}(?:\s?[-–]\s?{_NUMBER})?\s?{_UNIT}(?![\w/])")
SESSION = re.compile(r"\bsessions? \d+\b|\b(?:this|last|previous|next|that|a later|an earlier) round\b"
                     r"|\bround \d+\b", re.IGNORECASE)
ISSUE = re.compile(r"\bissues? #?\d+\b|(?<![\w&/#])#\d+\b", re.IGNORECASE)
#: Words that make a figure a rule, not a measurement: before it ("at most 64 KB") or after it ("a 10 s timeout").
_RULE_NOUNS = r"limits?|timeout|goals?|budget|deadline|default|debounce|interval|cap|maximum|minimum|threshold"
BEFORE = re.compile(rf"\b(?:{_RULE_NOUNS}|at most|up to|within|under|no more than|more than|less than|beyond|every|at least|limited to|capped at)\b",
                    re.IGNORECASE)
AFTER = re.compile(rf"^\W*(?:\w+\W+)?(?:{_RULE_NOUNS})\b", re.IGNORECASE)
_BEFORE, _AFTER = 30, 20
#: Text a figure may stand in: a literal or a quoted example.
LITERAL = re.compile(r"``.*?``|\"[^\"\n]*\"")

#: (path relative to the repository, the offending text) -> why it stays.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("wikimem/server/stdio_drain.py", "issue #2678"):
        "an upstream project's issue (modelcontextprotocol/python-sdk): the bug the drain works around, "
        "cited as one cites an RFC",
    ("wikimem/ranking/floor.py", "99%"):
        "the calibration rule's quantile (the cosine that 99% of unrelated pairs stay below): a definition, "
        "not a measurement",
}


def _is_constraint(line: str, start: int, end: int) -> bool:
    return bool(BEFORE.search(line[max(0, start - _BEFORE):start]) or AFTER.search(line[end:end + _AFTER]))


def line_offences(line: str) -> list[tuple[str, str]]:
    """(kind, text) for each figure, session or issue number in one docstring line."""
    plain = LITERAL.sub('""', line)
    found = [("figure", m.group(0)) for m in FIGURE.finditer(plain) if not _is_constraint(plain, m.start(), m.end())]
    found += [("session", m.group(0)) for m in SESSION.finditer(plain)]
    found += [("issue", m.group(0)) for m in ISSUE.finditer(plain)]
    return found


def _docstrings(tree: ast.Module) -> list[tuple[int, str]]:
    """(first line, text) of the module's docstring and of every class's and function's."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text is not None:
                first = node.body[0]
                assert isinstance(first, ast.Expr)
                out.append((first.value.lineno, text))
    return out


def offenders(root: Path = ROOT) -> list[str]:
    """``path:line: kind 'text': the line`` for every docstring offence under the packages."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            for lineno, text in _docstrings(ast.parse(path.read_text("utf-8"), filename=rel)):
                for offset, line in enumerate(text.split("\n")):
                    for kind, what in line_offences(line):
                        if (rel, what) not in EXCEPTIONS:
                            found.append(f"{rel}:{lineno + offset}: {kind} {what!r}: {line.strip()}")
    return found


@pytest.mark.parametrize("line", [
    "A cold load took 1.3 s against 0.35 s.",
    "at 1M items the index was ready at 15-26 s",
    "costs ~40 ms to import",
    "writes ~460 MB next to the markdown",
    "the frame was 3-8x slower",
    "1.4x less in batches",
    "progress came at 40% of the work",
    "answered 26.9 s later under load",
    "it indexes 5,000 items/s",
    "this was measured in session 28",
    "as last round showed",
    "the capture action (issue 16)",
    "fixed in #16",
])
def test_a_measurement_fails(line: str) -> None:
    assert line_offences(line), line


@pytest.mark.parametrize("line", [
    "a 16-bit key per token",
    "frames are refused past a 1 MiB limit",
    "each entry is 8 bytes",
    "the hook's 10 s timeout",
    "well within the 1 s goal",
    "the 1 s \"external write visible\" goal",
    "progress every 10%",
    "a cache drifting more than 2% is recomputed",
    "at most 64 KB a read",
    "RFC 8259 JSON",
    "the 100k-item store and the 1M one",
    "``\"45 s\"``, ``\"12 min\"``: the precision an estimate deserves",
    "the second entry of a minute is ``#2``",
    'the plan prints "120 of 5,000 items to embed (~2 min)"',
    "a round trip to the server",
    "UTF-16 code units; hex 0x1f",
    "a Claude Code session 3f2a9c1e",
])
def test_a_constraint_passes(line: str) -> None:
    assert not line_offences(line), line_offences(line)


def test_docstrings_carry_no_figure_session_or_issue() -> None:
    found = offenders()
    print("\n".join(found))
    assert not found, f"{len(found)} docstring lines carry a figure, a session or an issue number:\n" + "\n".join(found)
