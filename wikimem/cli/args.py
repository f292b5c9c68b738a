"""Argument types shared by the verbs' parsers: one wording for every "not a number" the CLI says."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["int_at_least", "port_number"]


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
