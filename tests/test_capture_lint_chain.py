"""Lint of captures, and the audit chain from a promoted item down to the session log."""

from __future__ import annotations

from pathlib import Path

import pytest

from capture_logs import CC_ONE, CC_TWO, UTC, fake_home, write_tree  # noqa: F401
from wikimem import MemoryStore
from wikimem.capture import capture
from wikimem.curation import capture_chain, draft_promotion, entry_cards, reconcile_queue
from wikimem.lint import Linter, lint


@pytest.fixture
def captured(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    logs = write_tree(tmp_path / "logs")
    memory = tmp_path / "memory"
    capture(memory, "claude-code", [tmp_path / "logs" / "claude-code"], tz=UTC)
    return memory, logs


def _findings(memory: Path) -> list:  # type: ignore[type-arg]
    """Lint's findings but ``orphan`` (a promoted item nothing links to yet is not what these tests are about)."""
    return [f for f in lint(memory).findings if f.code != "orphan"]


def _codes(memory: Path) -> list[tuple[str, str, str | None]]:
    return [(f.code, f.location.path, f.location.item) for f in _findings(memory)]


def test_a_card_whose_session_log_is_gone_is_info(captured: tuple[Path, dict[str, Path]]) -> None:
    memory, logs = captured
    logs["cc_one"].unlink()
    (finding,) = lint(memory).findings
    assert (finding.code, finding.severity, finding.location.item) == ("capture-session-gone", "info", f"claude-code-{CC_ONE}")
    assert str(logs["cc_one"]) in finding.message and "only record" in finding.message


def test_an_entry_citing_a_missing_card_or_snapshot_is_a_warning(captured: tuple[Path, dict[str, Path]]) -> None:
    memory, _ = captured
    snapshot = memory / "captures" / "2026-07-13.capture.json"
    snapshot.write_text(snapshot.read_text("utf-8").replace(f"claude-code-{CC_TWO}", "claude-code-renamed"), "utf-8")
    findings = [f for f in lint(memory).findings if f.code == "capture-card-missing"]
    assert [(f.severity, f.location.path, f.location.item) for f in findings] == [("warning", "diary/2026-07-13.md", "15:02")]
    lines = (memory / "diary" / "2026-07-13.md").read_text("utf-8").splitlines()
    assert f"has no card claude-code-{CC_TWO}" in findings[0].message
    assert lines[(findings[0].location.line or 0) - 1].startswith("(capture: captures/2026-07-13.capture.json#")
    snapshot.unlink()
    assert [c for c, _, _ in _codes(memory)].count("capture-card-missing") == 2


def test_an_unreadable_snapshot_is_an_error_and_its_entries_are_not_reported_twice(
        captured: tuple[Path, dict[str, Path]]) -> None:
    memory, _ = captured
    (memory / "captures" / "2026-07-13.capture.json").write_text('{"format": 1, "cards": 3}', "utf-8")
    assert _codes(memory) == [("capture-unreadable", "captures/2026-07-13.capture.json", None)]


def test_a_secret_in_the_wiki_the_diary_or_a_snapshot_is_an_error_that_never_repeats_it(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    store = MemoryStore(memory)
    store.add("ops", "deploy", "Deploy with AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    store.add("ops", "fine", "the password is in the vault, ask Ada")
    store.diary.append("pasted ghp_Zq8vN2xK4mR7tY1wB5cD9fH3jL6pS0aE2gU4 by mistake", ts="2026-07-13T10:00:00+00:00")
    findings = [f for f in lint(memory).findings if f.code == "secret-in-memory"]
    assert [(f.severity, f.location.path, f.location.item) for f in findings] == [
        ("error", "diary/2026-07-13.md", "10:00"), ("error", "wiki/ops.md", "deploy")]
    assert all("ghp_" not in f.message and "wJalr" not in f.message for f in findings)


def test_lint_rechecks_only_what_changed(captured: tuple[Path, dict[str, Path]]) -> None:
    memory, logs = captured
    linter = Linter(memory)
    assert linter.run().findings == []
    MemoryStore(memory).add("ops", "key", "token: sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv")
    assert [f.code for f in linter.run().findings if f.code != "orphan"] == ["secret-in-memory"]
    MemoryStore(memory).remove("ops", "key")
    logs["cc_two"].unlink()
    assert [f.code for f in linter.run().findings] == ["capture-session-gone"]


def _promote(memory: Path, *, derived: bool = False) -> None:
    store = MemoryStore(memory)
    entries = [q.entry for q in reconcile_queue(store) if q.derived == derived]
    draft = draft_promotion(entries)
    store.add("shop", "checkout prices", draft.content, source_conv=draft.source_conv)


def test_the_chain_runs_from_a_promoted_item_to_the_session_log(captured: tuple[Path, dict[str, Path]]) -> None:
    memory, logs = captured
    _promote(memory)
    chain = capture_chain(memory, "shop", "checkout prices")
    (step,) = chain.steps
    assert step.evidence.evidence.target == "diary 2026-07-13 09:14" and step.evidence.status == "independent"
    assert step.entry is not None and step.entry.owner == "agent:claude-code"
    (link,) = step.cards
    assert link.card is not None and link.card["id"] == f"claude-code-{CC_ONE}" and link.session_exists
    assert link.session_state == f"session log {logs['cc_one']}"
    assert chain.sessions == [str(logs["cc_one"])]
    assert _findings(memory) == []


def test_the_chain_says_when_the_session_log_no_longer_exists(captured: tuple[Path, dict[str, Path]]) -> None:
    memory, logs = captured
    _promote(memory)
    logs["cc_one"].unlink()
    (link,) = capture_chain(memory, "shop", "checkout prices").steps[0].cards
    assert link.card is not None and not link.session_exists
    assert link.session_state.endswith("no longer exists (the card is the only record left)")


def test_the_chain_says_where_it_breaks_at_the_card(captured: tuple[Path, dict[str, Path]]) -> None:
    memory, _ = captured
    _promote(memory)
    (memory / "captures" / "2026-07-13.capture.json").unlink()
    (link,) = capture_chain(memory, "shop", "checkout prices").steps[0].cards
    assert link.card is None and link.session_state == "captures/2026-07-13.capture.json does not exist"


def test_a_derived_entry_promoted_is_echo_all_the_way_down(captured: tuple[Path, dict[str, Path]]) -> None:
    memory, _ = captured
    _promote(memory, derived=True)
    (step,) = capture_chain(memory, "shop", "checkout prices").steps
    assert step.evidence.status == "derived" and step.cards[0].card["derived"] is True  # type: ignore[index]
    assert [f.code for f in _findings(memory)] == ["evidence-echo"]


def test_a_source_line_naming_a_captured_session_reaches_its_card(captured: tuple[Path, dict[str, Path]]) -> None:
    memory, logs = captured
    MemoryStore(memory).add("shop", "rounding", f"Half up.\n(evidence: source claude-code:{CC_TWO})")
    (step,) = capture_chain(memory, "shop", "rounding").steps
    assert step.entry is None and step.cards[0].session_path == str(logs["cc_two"])


def test_entry_cards_for_an_entry_that_was_not_captured_is_empty(captured: tuple[Path, dict[str, Path]]) -> None:
    memory, _ = captured
    entry = MemoryStore(memory).diary.append("by hand", ts="2026-07-13T11:00:00+00:00")
    assert entry_cards(memory, entry) == []
    with pytest.raises(KeyError):
        capture_chain(memory, "shop", "nothing")


def test_the_chain_carries_the_plain_audit_and_finds_cards_by_evidence_line(
        captured: tuple[Path, dict[str, Path]]) -> None:
    memory, _ = captured
    _promote(memory)
    chain = capture_chain(memory, "shop", "checkout prices")
    assert chain.audit is not None and chain.audit.item == chain.item
    (ref,) = chain.audit.evidence
    assert [c.card["id"] for c in chain.cards_of(ref.line) if c.card] == [f"claude-code-{CC_ONE}"]
    assert chain.cards_of(ref.line + 100) == []
