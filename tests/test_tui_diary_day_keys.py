"""On a diary day the footer leaves out edit and delete (the diary is append-only); pressed, they say why.

A new user saw ``e Edit`` and ``d Delete`` offered on a diary day (dimmed,
which reads "not yet"), and pressing them said "open an item first".
"""

from __future__ import annotations

from conftest import make_app, notices, open_item, started, wait_for
from wikimem_tui.common.messages import OpenDiaryDay


def footer_actions(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [key.action for key in app.query("FooterKey")]


async def test_a_diary_day_hides_edit_and_delete_and_they_say_the_diary_is_append_only(backend) -> None:
    async with started(make_app(backend), (100, 30), notifications=True) as pilot:
        app = pilot.app
        await open_item(pilot, "preferences", "coffee")
        assert await wait_for(pilot, lambda: {"edit", "delete"} <= set(footer_actions(app)), "edit, delete on an item")
        app.post_message(OpenDiaryDay("2026-07-20", None))
        assert await wait_for(pilot, lambda: app.item_area.shown_day is not None, "the diary day")
        assert await wait_for(pilot, lambda: not {"edit", "delete"} & set(footer_actions(app)), "edit, delete gone")
        assert "audit" in footer_actions(app) and "quit" in footer_actions(app)
        app.query_one("#topic-tree").focus()  # where a key that is no command would start the filter
        for key in ("e", "d"):
            await pilot.press(key)
            assert await wait_for(pilot, lambda: any("append-only" in n for n in notices(app)), f"{key} says why")
            app.clear_notifications()
        assert not app.editing and app.item_area.shown_day is not None
        assert app.query_one("#tree-filter").value == ""  # still commands: e and d did not type into the filter
        await open_item(pilot, "preferences", "tea")
        assert await wait_for(pilot, lambda: {"edit", "delete"} <= set(footer_actions(app)), "back on an item")
