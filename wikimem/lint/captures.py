"""Lint of what capture keeps: the Evidence Snapshots, the entries that cite them, and secrets anywhere.

Four checks (codes and their meaning in ``wikimem.lint.findings.CODES``):
``capture-unreadable``, ``capture-card-missing``, ``capture-session-gone``
and ``secret-in-memory`` (memory is recalled into prompts, synced and
committed: a credential must not live there; the message names the kind,
never the secret).

Incremental like the rest of lint: a memory file's refs and secrets are
recomputed only when lint re-read it, snapshots when their ``(mtime,
size)`` changes; the cross-checks are recomputed each run from those small
indexes, and session paths are stat-ed each run (a log deleted by its agent
changes nothing lint would otherwise notice).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from wikimem.capture.card import session_log_path
from wikimem.capture.entry import find_card_refs
from wikimem.capture.redact import find_secrets, may_hold_secret
from wikimem.capture.snapshot import SnapshotError, list_snapshots, read_snapshot
from wikimem.lint.findings import Finding, make_finding
from wikimem.lint.scan import FileFacts
from wikimem.lint.snapshot import Snapshot
from wikimem.store import path_stat

__all__ = ["CaptureCheck"]

Ref = tuple[str, int, str, str, str]  # path, line, entry heading, snapshot date, card id


class _Day:
    """One snapshot as lint last read it."""

    def __init__(self, signature: tuple[int, int] | None, cards: dict[str, str | None], problem: str | None,
                 secrets: list[Finding]) -> None:
        self.signature = signature
        self.cards = cards  # card id -> its session path
        self.problem = problem
        self.secrets = secrets


class CaptureCheck:
    """The capture findings of one memory directory, kept warm for re-runs."""

    def __init__(self) -> None:
        self._refs: dict[str, list[Ref]] = {}
        self._secrets: dict[str, list[Finding]] = {}
        self._days: dict[str, _Day] = {}

    def run(self, snapshot: Snapshot, touched: Iterable[str]) -> list[Finding]:
        """Findings for the snapshots and for the memory files; ``touched`` were re-read since the last run."""
        for path in touched:
            facts = snapshot.files.get(path)
            self._scan_file(path, facts)
        self._refresh_days(snapshot.root)
        found: list[Finding] = []
        for path in sorted(self._secrets):
            found += self._secrets[path]
        for date in sorted(self._days):
            day = self._days[date]
            where = f"captures/{date}.capture.json"
            if day.problem is not None:
                found.append(make_finding("capture-unreadable", where, f"{day.problem}: capture will not rewrite "
                                          "it (it may be the only record of its sessions); repair it by hand"))
                continue
            found += day.secrets
            for cid, session in sorted(day.cards.items()):
                log = session_log_path(session)
                if log and not os.path.exists(log):
                    found.append(make_finding("capture-session-gone", where, f"its session log {session} "
                                              "no longer exists; the card is the only record left", item=cid))
        for path in sorted(self._refs):
            for _, line, heading, date, cid in self._refs[path]:
                cited = self._days.get(date)
                if cited is not None and cited.problem is not None:
                    continue  # the snapshot's own finding says it
                if cited is None:
                    why = f"captures/{date}.capture.json does not exist"
                elif cid not in cited.cards:
                    why = f"captures/{date}.capture.json has no card {cid}"
                else:
                    continue
                found.append(make_finding("capture-card-missing", path, f"the entry cites evidence card {cid}, but {why}",
                                          line=line, item=heading))
        return found

    def _scan_file(self, path: str, facts: FileFacts | None) -> None:
        self._refs.pop(path, None)
        self._secrets.pop(path, None)
        if facts is None:
            return
        refs: list[Ref] = []
        secrets: list[Finding] = []
        # One look at the whole file first: most files hold no card reference and nothing secret-like.
        whole = "\n".join(item.content for item in facts.items + facts.shadowed)
        cited = facts.kind == "diary" and "(capture:" in whole
        suspect = may_hold_secret(whole)
        # Every block as written: a repeated heading's first block is hidden from reads, not from the file.
        for item in (facts.items + facts.shadowed) if cited or suspect else ():
            content = item.content
            if cited:
                for ref in find_card_refs(content):
                    refs.append((path, item.first + ref.line, item.name, ref.date, ref.card_id))
            if suspect:
                kinds = sorted({s.kind for s in find_secrets(content, strict=True)})
                if kinds:
                    secrets.append(make_finding("secret-in-memory", path, f"a secret-looking {', '.join(kinds)} in "
                                                "this item: delete or redact it (memory is recalled into prompts "
                                                "and committed)", line=item.line, item=item.name))
        if refs:
            self._refs[path] = refs
        if secrets:
            self._secrets[path] = secrets

    def _refresh_days(self, root: Path) -> None:
        dates = set(list_snapshots(root))
        for date in list(self._days):
            if date not in dates:
                del self._days[date]
        for date in dates:
            signature = path_stat(root / "captures" / f"{date}.capture.json")
            day = self._days.get(date)
            if day is not None and day.signature == signature and signature is not None:
                continue
            self._days[date] = _read_day(root, date, signature)


def _read_day(root: Path, date: str, signature: tuple[int, int] | None) -> _Day:
    where = f"captures/{date}.capture.json"
    try:
        snap = read_snapshot(root, date)
    except SnapshotError as exc:
        return _Day(signature, {}, str(exc), [])
    cards = {cid: card.get("path") if isinstance(card.get("path"), str) else None for cid, card in snap.cards.items()}
    secrets: list[Finding] = []
    text = (snap.origin or b"").decode("utf-8", errors="replace")
    if may_hold_secret(text):
        for cid, card in snap.cards.items():
            body = json.dumps(card, ensure_ascii=False)
            kinds = sorted({s.kind for s in find_secrets(body, strict=True)})
            if kinds:
                line = 1 + text.count("\n", 0, max(0, text.find(json.dumps(cid))))
                secrets.append(make_finding("secret-in-memory", where, f"a secret-looking {', '.join(kinds)} in card "
                                            f"{cid}: edit the snapshot to redact it", line=line, item=cid))
    return _Day(signature, cards, None, secrets)
