"""A burst of external writes gives one toast per interval, not one per write."""

from __future__ import annotations

from collections.abc import Callable

from wikimem_tui.core.live_notice import LiveNotices
from wikimem_tui.core.changes import StoreChange


class Clock:
    def __init__(self) -> None:
        self.now = 100.0
        self.timers: list[tuple[float, Callable[[], None]]] = []

    def set_timer(self, delay: float, callback: Callable[[], None]) -> object:
        self.timers.append((self.now + delay, callback))
        return object()

    def advance(self, seconds: float) -> None:
        self.now += seconds
        due = [t for t in self.timers if t[0] <= self.now]
        self.timers = [t for t in self.timers if t[0] > self.now]
        for _, callback in due:
            callback()


def change(file: str) -> StoreChange:
    return StoreChange(frozenset({file}), frozenset(), journal=True, external=True)


def test_first_change_is_announced_at_once_and_a_burst_is_merged() -> None:
    clock, shown = Clock(), []
    live = LiveNotices(shown.append, clock.set_timer, every=1.0, clock=lambda: clock.now)
    live.add(change("notes"))
    assert shown == ["changed on disk: wiki: notes"]
    for i in range(7):  # an agent writing every 0.25 s (binary-exact steps)
        clock.advance(0.25)
        live.add(change("notes" if i % 2 else "people"))
    # t = 100.25 .. 101.75: the interval ending at 101.0 merged the first three.
    assert shown[1] == "changed on disk: wiki: notes, people (3 changes)"
    assert len(shown) == 2
    clock.advance(0.25)  # t = 102.0: the next interval ends
    assert shown[2] == "changed on disk: wiki: notes, people (4 changes)"
    clock.advance(10.0)
    assert len(shown) == 3  # nothing pending: no empty toast


def test_a_change_after_a_quiet_spell_is_announced_at_once() -> None:
    clock, shown = Clock(), []
    live = LiveNotices(shown.append, clock.set_timer, every=2.0, clock=lambda: clock.now)
    live.add(change("a"))
    clock.advance(5.0)
    live.add(StoreChange(frozenset(), frozenset({"2026-07-21"}), journal=True, external=True))
    assert shown == ["changed on disk: wiki: a", "changed on disk: diary: 2026-07-21"]
