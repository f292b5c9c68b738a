"""Argument types shared by the verbs' parsers: one wording for every "not a number" the CLI says."""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Callable

from wikimem.disk.names import validate_date

__all__ = ["as_of_day", "int_at_least", "pinned_today", "port_number"]


def int_at_least(minimum: int) -> Callable[[str], int]:
    """An argparse ``type`` accepting integers ``>= minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}: {text!r}")
        return value

    return parse


def port_number(text: str) -> int:
    """A TCP port, 0..65535 (0: the system picks a free one)."""
    value = int_at_least(0)(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"not a port: {text!r} (0..65535; 0 picks a free one)")
    return value


def as_of_day(text: str) -> dt.date:
    """``--today``: a real ``YYYY-MM-DD`` day, the "as of" day relative time words resolve against."""
    try:
        return dt.date.fromisoformat(validate_date(text.strip()))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a day: {text!r} (use YYYY-MM-DD)") from None


def pinned_today(day: dt.date | None) -> Callable[[], dt.date] | None:
    """``MemoryIndex(today=…)`` for a ``--today`` value: that day on every call, or None (the real today)."""
    return None if day is None else (lambda: day)
