"""Foreign text made storable: names, file names, timestamps and content from other tools' files.

Everything an importer reads was written by another program and obeys none
of this format's rules, so it is made to fit here, in one place, the same
way for every source: content that could start a block or read as metadata
is demoted or escaped (nothing is lost to the reader), names lose what a
heading, a link or a file system cannot hold, and a time that is neither an
epoch nor ISO-8601 is no time.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

from wikimem.disk.blocks import is_block_heading, parse_meta_line
from wikimem.disk.names import parse_ts, windows_reserved

__all__ = ["clean", "defuse_links", "item_name", "provenance", "slug", "storable", "to_ts"]

_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_CONFLICT_RE = re.compile(r"(?:<{7}|>{7}|={7})(?: .*)?")
_NAME_DROP_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069#]")
_WS_RE = re.compile(r"\s+")
_SLUG_RE = re.compile(r"[^a-z0-9_]+")


def clean(text: str) -> str:
    """``text`` that UTF-8 can hold: lone surrogates as U+FFFD, NUL dropped, line ends unified."""
    text = text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")
    return _SURROGATE_RE.sub("\ufffd", text)


def storable(text: str) -> str:
    """``text`` as block content that reads back the same: see the module docstring."""
    lines = clean(text).strip().split("\n")
    out = [("#" + line) if is_block_heading(line) else ("\\" + line) if _CONFLICT_RE.fullmatch(line) else line
           for line in lines]
    if out and parse_meta_line(out[-1]) is not None:
        out[-1] = "\\" + out[-1]
    return "\n".join(out).strip()


def defuse_links(text: str) -> str:
    """``[[`` made inert (``[ [``): a link in a conversation is text someone typed, not a link of this memory."""
    return text.replace("[[", "[ [")


def slug(text: str, default: str) -> str:
    """A RecallFile name made from ``text`` (``default`` when nothing of it is left)."""
    ascii_text = unicodedata.normalize("NFKD", clean(text)).encode("ascii", "ignore").decode("ascii")
    ascii_text = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", ascii_text).lower()  # camelCase -> camel-case
    out = _SLUG_RE.sub("-", ascii_text).strip("-")[:60].strip("-")
    # A device name Windows reserves ("con") is no RecallFile name: one such folder or type would refuse the import.
    return f"{out}-{default}" if windows_reserved(out) else out or default


def item_name(text: str, *, limit: int = 80) -> str | None:
    """An item name made from ``text``: forbidden characters out, whitespace collapsed, cut at ``limit``."""
    name = clean(text).replace(":", " -").replace("|", "/")
    name = _WS_RE.sub(" ", _NAME_DROP_RE.sub(" ", name)).strip()
    name = name.replace("[", "(").replace("]", ")")  # a bracket in a name would break every link to it
    if len(name) > limit:
        cut = name[:limit].rsplit(" ", 1)[0] if " " in name[:limit] else name[:limit]
        name = cut.rstrip(" -/.,;") + "…"
    return name or None


def provenance(text: str) -> str:
    """A one-line ``source_conv``/``owner`` value made from ``text`` (comment delimiters and newlines out)."""
    value = _WS_RE.sub(" ", clean(text)).replace("<!--", "<! --").replace("-->", "-- >").strip()
    return value[:200]


def to_ts(value: object) -> str | None:
    """An epoch number or ISO-8601 string as this format's ``ts`` (UTC seconds), else ``None``."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        if isinstance(value, (int, float)):
            seconds = float(value) / (1000.0 if abs(value) > 1e11 else 1.0)
            return parse_ts(dt.datetime.fromtimestamp(seconds, dt.timezone.utc))
        if isinstance(value, str) and value.strip():
            text = value.strip()
            if text.endswith(("Z", "z")):
                text = text[:-1] + "+00:00"
            return parse_ts(text)
    except (ValueError, OverflowError, OSError):
        return None
    return None
