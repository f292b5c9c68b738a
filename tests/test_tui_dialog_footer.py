"""A dialog's footer lists the dialog's own keys, not the main screen's (``t Tree``, ``n New`` did nothing there)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import make_app, open_item, started, wait_for
from wikimem_tui.item.audit import AuditScreen

PACKAGE = Path(__file__).resolve().parent.parent / "wikimem_tui"


def drawn_keys(app) -> list[str]:  # type: ignore[no-untyped-def]
    """The footer keys on the active screen, as drawn (what the user sees on the bottom line)."""
    return [key.description for key in app.screen.query("FooterKey") if key.region.height > 0]


async def test_the_audit_dialog_footer_offers_its_own_keys(backend) -> None:
    async with started(make_app(backend), (100, 30)) as pilot:
        app = pilot.app
        await open_item(pilot, "preferences", "coffee")
        await pilot.press("A")
        assert await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen), "the audit dialog")
        assert await wait_for(pilot, lambda: "Close" in drawn_keys(app), "the dialog's footer")
        keys = drawn_keys(app)
        assert "Retract" in keys and not {"Tree", "New", "Go to", "Edit"} & set(keys), keys
        footer = app.screen.query_one("KeysFooter")
        assert footer.region.y == 29  # the bottom line, over the main screen's footer


def test_every_dialog_is_a_dialog_with_a_footer() -> None:
    """No screen of the app is a bare ModalScreen: each would show the main screen's keys beneath it."""
    bare = [f"{path.relative_to(PACKAGE)}:{n}" for path in PACKAGE.rglob("*.py") if path.name != "dialog.py"
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if re.match(r"class \w+\(ModalScreen\b", line)]
    assert bare == []
