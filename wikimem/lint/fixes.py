"""``wikimem lint --fix``: the few repairs that are safe to make mechanically.

Three kinds, nothing else: a malformed metadata comment whose fields can all
be recovered is rewritten as the metadata it meant; diary entries out of
``HH:MM`` order are sorted (stable, as ``Diary.append`` sorts them); drift
is accepted into ``lint-baseline.json``. A fix is first *planned* as the
exact new text of each file, so ``--dry-run`` prints the very diff that
``--fix`` would write. Applying goes through the library's write path under
the store lock and refuses a file that changed since it was planned. The
diary has no API to rewrite an entry (it is append-only evidence), so a day
is written the way ``Diary.append`` writes one and journaled as a ``diary``
line with ``detail = "lint fix: …"``.

What a rewrite would lose is decided by the store's own rule
(``wikimem.disk.splice.problems``): such a fix is left alone, with that
rule's reason.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wikimem.disk.atomic import STALE_TEMP_SECONDS
from wikimem.disk.blocks import Block, read_text
from wikimem.errors import ConflictError
from wikimem.diary import sort_by_time
from wikimem.disk.intent import FileChange, commit
from wikimem.journal import Journal
from wikimem.disk.splice import RawFile, join_segments, problems, render, replace_block, split_raw
from wikimem.disk.baseline import BASELINE_FILE, accept, render_baseline
from wikimem.disk.names import utc_now_iso
from wikimem.lint.findings import Finding, LintReport
from wikimem.lint.linter import Linter
from wikimem.lint.meta import check_ts, diagnose_comment, is_wikimem_comment
from wikimem.disk.names import sanitize_item_name, validate_content
from wikimem.store import MemoryStore

__all__ = ["FileFix", "FixPlan", "apply_fixes", "plan_fixes"]

DETAIL = "lint fix: "


@dataclass
class FileFix:
    """The planned new text of one file, and why.

    ``items`` (wiki only) lists ``(name, new block, content read)`` for the
    checked store writes;
    ``time`` (diary only) is the heading the journal line names.
    ``before``/``after`` are text for the diff; ``raw_before``/``raw_after``
    the exact bytes (``None``: not planned as bytes, the baseline).
    """

    path: str
    before: str
    after: str
    reasons: list[str]
    items: list[tuple[str, Block, str]] = field(default_factory=list)
    time: str | None = None
    raw_before: bytes | None = None
    raw_after: bytes | None = None


@dataclass
class FixPlan:
    """Every planned file change, plus the fixable findings left alone and why."""

    files: list[FileFix] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    accepted: dict[str, str | None] = field(default_factory=dict)
    stamp: str = ""
    by: str = "lint"
    #: Stale temp files to remove (relative path -> the mtime they were planned at).
    temps: dict[str, float] = field(default_factory=dict)

    def diff(self) -> str:
        """A unified diff of every planned change (``a/`` and ``b/`` relative paths), then the temps removed."""
        out: list[str] = []
        for fix in self.files:
            out.extend(difflib.unified_diff(
                _lines(fix.before), _lines(fix.after), f"a/{fix.path}", f"b/{fix.path}"))
        out.extend(f"deleted file {path} (a stale temp file)\n" for path in sorted(self.temps))
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)

    @property
    def empty(self) -> bool:
        """True when there is nothing to write."""
        return not self.files and not self.temps


def _lines(text: str) -> list[str]:
    """``text``'s lines with their ``\\n``; not ``splitlines()``, which also breaks at U+0085 and U+2028."""
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    return out + [lines[-1]] if lines[-1] else out


def _meta_fix(block: Block) -> tuple[Block, str] | None:
    """The block with its malformed metadata repaired, or None when that needs a person."""
    lines = block.content.split("\n")
    if lines and is_wikimem_comment(lines[-1]):
        diagnosis = diagnose_comment(lines[-1])
        if diagnosis.fields is None:
            return None
        fields = diagnosis.fields
        content = "\n".join(lines[:-1]).strip()
        return Block(block.heading, content, fields.get("owner"), fields.get("source_conv"), fields.get("ts")), \
            f"{block.heading}: metadata comment rewritten as metadata"
    if block.ts is not None:
        _, canonical = check_ts(block.ts)
        if canonical is not None and canonical != block.ts:
            return Block(block.heading, block.content, block.owner, block.source_conv, canonical), \
                f"{block.heading}: ts {block.ts!r} written as {canonical!r}"
    return None


def _read_raw(path: Path) -> RawFile | None:
    try:
        return split_raw(path.read_bytes())
    except OSError:
        return None


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


def _lossy(plan: FixPlan, path: str, raw: RawFile, headings: list[str], *, unique: bool = True) -> bool:
    """Skip (with the store's own reasons) a fix whose write would lose data; True when skipped."""
    found = problems(raw, headings, unique=unique)
    if found:
        plan.skipped.append(f"{path}: a write would lose data: " + "; ".join(found) + "; fix that first")
    return bool(found)


def _plan_wiki(root: Path, path: str, findings: list[Finding], plan: FixPlan, now: str) -> None:
    facts_note = f"{path}: "
    raw = _read_raw(root / path)
    if raw is None:
        return
    before = raw.data()
    stem = path[5:-3]
    reasons: list[str] = []
    items: list[tuple[str, Block, str]] = []
    fixes: list[tuple[int, Block]] = []
    wanted = {f.location.item for f in findings}
    for i, segment in enumerate(raw.blocks):
        block = segment.block
        if block.heading not in wanted:
            continue
        fixed = _meta_fix(block)
        if fixed is None:
            continue
        try:
            sanitize_item_name(block.heading)
        except ValueError as exc:
            plan.skipped.append(f"{facts_note}{exc}")
            continue
        new, why = fixed
        try:
            new.content = validate_content(new.content)
        except ValueError as exc:
            plan.skipped.append(f"{facts_note}{block.heading}: {exc}")
            continue
        if new.ts is None:  # the store stamps every write; say so in the plan
            new.ts = now
        fixes.append((i, new))
        items.append((block.heading, new, block.content))
        reasons.append(why)
    if not items or _lossy(plan, path, raw, [name for name, _, _ in items]):
        return
    for i, new in fixes:  # exactly what the store's add will splice in
        replace_block(raw, stem, i, new)
    plan.files.append(FileFix(path, _text(before), _text(raw.data()), reasons, items,
                              raw_before=before, raw_after=raw.data()))


def _plan_diary(root: Path, path: str, findings: list[Finding], plan: FixPlan) -> None:
    raw = _read_raw(root / path)
    if raw is None:
        return
    eol = raw.eol()
    blocks = raw.parsed()
    segments = {id(b): s.raw for b, s in zip(blocks, raw.blocks)}
    reasons: list[str] = []
    rendered: list[str] = []
    metas = {f.location.item for f in findings if f.code == "malformed-meta"}
    for i, block in enumerate(blocks):
        if block.heading in metas:
            fixed = _meta_fix(block)
            if fixed is not None and fixed[0].content:
                blocks[i], why = fixed
                segments[id(blocks[i])] = render(blocks[i], eol)
                rendered.append(block.heading)
                reasons.append(why)
    ordered = sort_by_time(blocks)
    moved = next((b.heading for a, b in zip(blocks, ordered) if a is not b), None)
    if moved is not None:
        reasons.append("entries sorted by HH:MM")
    if not reasons or _lossy(plan, path, raw, rendered, unique=False):
        return
    before = raw.data()
    after = join_segments(raw.preamble, [segments[id(b)] for b in ordered], eol)
    plan.files.append(FileFix(path, _text(before), _text(after), reasons, time=moved or ordered[0].heading,
                              raw_before=before, raw_after=after))


def plan_fixes(linter: Linter, report: LintReport, *, by: str = "lint",
               clock: Callable[[], dt.datetime] | None = None) -> FixPlan:
    """Plan the fixes for the fixable findings of ``report`` (from ``linter``'s last run)."""
    root = linter.root
    now = (clock() if clock else dt.datetime.now(dt.timezone.utc)).astimezone(dt.timezone.utc)
    stamp = now.replace(microsecond=0).isoformat() if clock else utc_now_iso()
    plan = FixPlan(stamp=stamp, by=by)
    by_path: dict[str, list[Finding]] = {}
    for finding in report.findings:
        if finding.fixable and finding.code != "drift":
            by_path.setdefault(finding.location.path, []).append(finding)
    for path, findings in sorted(by_path.items()):
        facts = linter.snapshot.files.get(path)
        if facts is None:
            continue
        if facts.conflicted:
            plan.skipped.append(f"{path}: git conflict markers: the file is mid-merge; resolve the conflict first")
            continue
        if facts.kind == "wiki":
            if not facts.valid:
                plan.skipped.append(f"{path}: the file name is not writable")
                continue
            _plan_wiki(root, path, findings, plan, stamp)
        else:
            _plan_diary(root, path, findings, plan)
    plan.temps = {path: mtime for path, mtime in linter.snapshot.temps.items()
                  if now.timestamp() - mtime > STALE_TEMP_SECONDS}
    rewritten = {fix.path for fix in plan.files}
    accepted = {p: sha for p, sha in linter.drifted.items() if p not in rewritten}
    if accepted:
        if linter.baseline.damaged:  # an unreadable baseline is damaged: never read it here
            plan.skipped.append(f"{BASELINE_FILE}: {linter.baseline.damaged}; drift not accepted")
        else:
            before = read_text(root / BASELINE_FILE) or ""
            after = render_baseline(linter.baseline, accepted, by=by, ts=stamp)
            plan.files.append(FileFix(BASELINE_FILE, before, after, [f"accepted the current state of {p}"
                                                                    for p in sorted(accepted)]))
            plan.accepted = accepted
    return plan


def apply_fixes(linter: Linter, plan: FixPlan) -> tuple[list[str], list[str]]:
    """Write ``plan``; returns ``(done, refused)`` descriptions, one per file reason."""
    root = linter.root
    store = MemoryStore(root)
    done: list[str] = []
    refused: list[str] = []
    for fix in plan.files:
        try:
            if fix.path == BASELINE_FILE:
                accept(root, plan.accepted, by=plan.by, ts=plan.stamp, expected=fix.before)
            elif fix.path.startswith("wiki/"):
                _apply_wiki(store, fix, plan.by)
            else:
                _apply_diary(store, fix)
        except (ValueError, ConflictError) as exc:
            refused.append(f"{fix.path}: {exc}")
            continue
        done.extend(f"{fix.path}: {reason}" for reason in fix.reasons)
    if plan.temps:
        with store.locked():  # no write of the memory files is under way: none owns a temp file
            for path, mtime in sorted(plan.temps.items()):
                try:
                    if os.stat(root / path, follow_symlinks=False).st_mtime != mtime:
                        refused.append(f"{path}: changed since the fix was planned; not removed (run lint again)")
                        continue
                    os.unlink(root / path)
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    refused.append(f"{path}: {exc.strerror or exc}")
                    continue
                done.append(f"{path}: removed a stale temp file")
    return done, refused


def _unchanged(root: Path, fix: FileFix) -> None:
    try:
        now: bytes | None = (root / fix.path).read_bytes()
    except FileNotFoundError:
        now = None
    if now != fix.raw_before:
        raise ValueError("changed on disk since the fix was planned; nothing written (run lint again)")


def _apply_wiki(store: MemoryStore, fix: FileFix, by: str) -> None:
    file = fix.path[5:-3]
    with store.locked():
        _unchanged(store.root, fix)
        for (name, block, old), reason in zip(fix.items, fix.reasons):
            store.add(file, name, block.content, owner=block.owner, source_conv=block.source_conv,
                      ts=block.ts, detail=DETAIL + reason.partition(": ")[2], expected=old, by=by)


def _apply_diary(store: MemoryStore, fix: FileFix) -> None:
    with store.locked():
        _unchanged(store.root, fix)
        line = Journal.encode(Journal.diary_entry(date=fix.path[6:-3], time=fix.time or "00:00",
                                                  detail=DETAIL + "; ".join(fix.reasons)))
        commit(store.root, [FileChange(store.root / fix.path, fix.raw_before, fix.raw_after)],
               store.journal.path, line)
