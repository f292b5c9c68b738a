"""``wikimem.capture``: agent sessions become evidence (SPEC §8).

*External agent sessions -> a bounded Evidence Snapshot -> the diary ->
reviewed concepts.* Capture reads the agents' own session logs tolerantly,
writes one Evidence Card per session and one diary entry per session or
grown part, in one recoverable write. Deterministic and offline: no model
is called, and secrets are redacted before anything is written.
"""

from __future__ import annotations

from wikimem.capture.card import CAPS, CARD_CAP, build_card, card_id, summarize
from wikimem.capture.claude_code import read_claude_code
from wikimem.capture.codex import read_codex
from wikimem.capture.discover import AGENTS, default_roots, session_files
from wikimem.capture.entry import CAPTURES_DIR, CardRef, find_card_refs, render_card_ref, snapshot_name
from wikimem.capture.redact import Secret, find_secrets, may_hold_secret, redact, redact_joined
from wikimem.capture.report import CaptureReport, PlannedEntry
from wikimem.capture.run import capture, owner_of, source_of
from wikimem.capture.session import Event, Session
from wikimem.capture.snapshot import DaySnapshot, SnapshotError, list_snapshots, read_snapshot

__all__ = [
    "AGENTS", "CAPS", "CAPTURES_DIR", "CARD_CAP", "CaptureReport", "CardRef", "DaySnapshot", "Event",
    "PlannedEntry", "Secret", "Session", "SnapshotError", "build_card", "capture", "card_id", "default_roots",
    "find_card_refs", "find_secrets", "list_snapshots", "may_hold_secret", "owner_of", "read_claude_code", "read_codex",
    "read_snapshot", "redact", "redact_joined", "render_card_ref", "session_files", "snapshot_name", "source_of",
    "summarize",
]
