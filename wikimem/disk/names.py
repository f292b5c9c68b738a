"""Name and value validation: the strict half of "tolerant reads, strict writes".

Every rule here exists so that what a write accepts reads back unchanged:
a RecallFile name must be a usable filename and link prefix, an item name a
heading and link target, content must not contain anything the block parser
would read as structure. Each check raises ``ValueError`` with a message that
names the problem, before a single byte is written.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

from wikimem.disk.blocks import is_block_heading, parse_meta_line
from wikimem.disk.limits import check_content_size
from wikimem.disk.store_dir import FILE_NAME_PATTERN

__all__ = [
    "CANONICAL_TS_RE",
    "windows_reserved",
    "utc_now_iso",
    "normalize_item_name",
    "parse_ts",
    "sanitize_item_name",
    "suggest_file_name",
    "validate_content",
    "validate_date",
    "validate_file",
    "validate_meta_value",
    "is_time",
    "validate_time",
]

#: What the library writes: ISO-8601, UTC, whole seconds, ``+00:00`` (what :func:`parse_ts` returns).
CANONICAL_TS_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\+00:00")


def utc_now_iso() -> str:
    """Now, ISO-8601 UTC at second precision: the ``ts`` of the journal, the store and the side files."""
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


_FILE_RE = re.compile(FILE_NAME_PATTERN)
# Device names Windows refuses as a file name whatever the extension or case
# ("nul.md" opens the null device): a store synced there would lose the file.
_WINDOWS_RESERVED_RE = re.compile(r"(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?", re.IGNORECASE)
_WS_RE = re.compile(r"\s+")
# [0-9], not \d: \d also matches non-ASCII digits ("1٣:0٥" is not a time).
_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIME_RE = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")
_FORBIDDEN_IN_NAME = ("[[", "]]", ":", "|", "#")
# Left after whitespace runs collapse: C0 and C1 controls, DEL, and the bidi
# embeddings/overrides/isolates/marks that reorder what a terminal shows. A
# heading holding them would be an address nobody can type or see.
_CONTROL_IN_NAME_RE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# A git conflict marker line: a file holding one is mid-merge, and every
# write to it is refused (wikimem.disk.splice), so content must not plant one.
_CONFLICT_MARKER_RE = re.compile(r"(?:<{7}|>{7})(?: .*)?")


def validate_file(name: str) -> str:
    """Return ``name`` if it is a valid RecallFile name, else raise ``ValueError``.

    The name is the file stem and the link prefix, so it is kept to a
    lowercase ASCII slug that is safe on every filesystem and in a link;
    the device names Windows reserves (``con``, ``nul``, ``com1``…) are
    refused too, or a store synced to Windows could not hold the file.
    """
    if not isinstance(name, str) or not _FILE_RE.fullmatch(name):
        hint = suggest_file_name(name) if isinstance(name, str) else None
        raise ValueError(
            f"invalid RecallFile name {name!r}: must match [a-z0-9_][a-z0-9_-]*"
            + (f" (lowercase letters, digits, '_' and '-'); try {hint!r}" if hint else "")
        )
    if windows_reserved(name):
        raise ValueError(
            f"invalid RecallFile name {name!r}: a device name Windows reserves "
            "(con, prn, aux, nul, com1-9, lpt1-9), so the file could not exist on Windows"
        )
    return name


def suggest_file_name(name: str) -> str | None:
    """The accepted form of a would-be RecallFile name (``"My Notes.md"`` -> ``"my-notes"``), or ``None``.

    Said in the refusal, never applied silently: a file name is an address
    that links and other agents use, so the caller decides.
    """
    stem = name[:-3] if name.lower().endswith(".md") else name
    stem = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode("ascii")  # "Ünï" -> "Uni"
    slug = re.sub(r"[^a-z0-9_-]+", "-", stem.strip().lower()).strip("-")
    return slug if slug and _FILE_RE.fullmatch(slug) and slug != name and not windows_reserved(slug) else None


def windows_reserved(name: str) -> bool:
    """True for a file name (stem or with its extension, any case) that Windows reserves for a device."""
    return _WINDOWS_RESERVED_RE.fullmatch(name) is not None


def normalize_item_name(name: str) -> str:
    """Collapse whitespace runs to one space and trim; no validation."""
    return _WS_RE.sub(" ", name).strip()


def sanitize_item_name(name: str) -> str:
    """Return the cleaned item name, or raise ``ValueError`` if it cannot be one.

    Whitespace runs (newlines included) collapse to one space, because the
    name is a single heading line. ``[[``, ``]]``, ``:``, ``|`` and ``#``
    are refused: they would break wiki-links or the heading itself. Control
    characters (NUL, ESC, DEL, C1) and bidi overrides are refused too: a
    name is shown and typed as an address, and those would hide or reorder
    it.
    """
    if not isinstance(name, str):
        raise ValueError(f"invalid item name {name!r}: must be a string")
    cleaned = normalize_item_name(name)
    if not cleaned:
        raise ValueError("invalid item name: empty")
    for bad in _FORBIDDEN_IN_NAME:
        if bad in cleaned:
            raise ValueError(f"invalid item name {cleaned!r}: must not contain {bad!r}")
    control = _CONTROL_IN_NAME_RE.search(cleaned)
    if control is not None:
        raise ValueError(
            f"invalid item name {cleaned!r}: must not contain the control character "
            f"U+{ord(control.group()):04X}"
        )
    return cleaned


def validate_content(content: str) -> str:
    """Return the content as it will be stored (line endings unified, stripped).

    Rejects what would not survive a write/read round trip: empty content, a
    line that would start a new block, a trailing line that would be read as
    the metadata comment, and text that cannot be encoded as UTF-8; a git
    conflict marker line, which would make the file refuse every write; and
    content over the size limit (:mod:`wikimem.disk.limits`).
    """
    if not isinstance(content, str):
        raise ValueError("invalid content: must be a string")
    check_content_size(content)
    text = content.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise ValueError("invalid content: empty")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"invalid content: not encodable as UTF-8 ({exc.reason})") from None
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if is_block_heading(line):
            raise ValueError(
                f"invalid content: line {number} starts a new block ({line[:40]!r}): '## ' at the start of a "
                f"line is the item delimiter; write it as {'#' + line.lstrip()[:40]!r} (a sub-heading inside the "
                "item) or store that part as an item of its own"
            )
        if _CONFLICT_MARKER_RE.fullmatch(line):
            raise ValueError(
                f"invalid content: line {number} is a git conflict marker ({line[:40]!r}): "
                "the file would read as mid-merge and refuse every later write"
            )
    if parse_meta_line(lines[-1]) is not None:
        raise ValueError(
            "invalid content: the last line would be read as a wikimem metadata comment"
        )
    return text


def validate_meta_value(key: str, value: str | None) -> str | None:
    """Return a provenance value as it will be written (``|`` becomes ``/``).

    Newlines and comment delimiters would tear the one-line metadata
    comment, so they are refused rather than silently mangled.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"invalid {key}: must be a string")
    cleaned = value.strip().replace("|", "/")
    if "\n" in cleaned or "\r" in cleaned:
        raise ValueError(f"invalid {key} {value!r}: must be a single line")
    if "-->" in cleaned or "<!--" in cleaned:
        raise ValueError(f"invalid {key} {value!r}: must not contain a comment delimiter")
    return cleaned or None


def parse_ts(ts: str | dt.datetime) -> str:
    """Normalise a timestamp to ISO-8601 UTC at second precision (``+00:00``).

    A naive timestamp is taken to be UTC already: that is what every ts this
    library writes is, and guessing a local zone would shift it silently.
    """
    if isinstance(ts, dt.datetime):
        moment = ts
    elif isinstance(ts, str):
        try:
            moment = dt.datetime.fromisoformat(ts.strip())
        except ValueError:
            raise ValueError(f"invalid ts {ts!r}: not an ISO-8601 timestamp") from None
    else:
        raise ValueError(f"invalid ts {ts!r}: must be an ISO-8601 string or datetime")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    try:
        moment = moment.astimezone(dt.timezone.utc).replace(microsecond=0)
    except OverflowError:  # e.g. 9999-12-31T23:00-05:00 is past year 9999 in UTC
        raise ValueError(f"invalid ts {ts!r}: out of range in UTC") from None
    return moment.isoformat()


def validate_date(date: str) -> str:
    """Return ``date`` if it is a real zero-padded ``YYYY-MM-DD`` date."""
    if not isinstance(date, str) or not _DATE_RE.fullmatch(date):
        raise ValueError(f"invalid date {date!r}: expected YYYY-MM-DD")
    try:
        dt.date.fromisoformat(date)
    except ValueError:
        raise ValueError(f"invalid date {date!r}: no such day") from None
    return date


def is_time(text: str) -> bool:
    """True when ``text`` is a zero-padded 24-hour ``HH:MM`` (00:00–23:59)."""
    return _TIME_RE.fullmatch(text) is not None


def validate_time(time: str) -> str:
    """Return ``time`` if it is a zero-padded 24-hour ``HH:MM`` (00:00–23:59)."""
    if not isinstance(time, str) or not is_time(time):
        raise ValueError(f"invalid time {time!r}: expected HH:MM between 00:00 and 23:59")
    return time
