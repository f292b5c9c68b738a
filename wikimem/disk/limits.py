"""How much one write, and one message to the server, may hold: every size limit in one place.

A memory is read whole into every process that opens it, recalled into
prompts and synced, so one oversized write costs every reader. The limits
are far above what a note, a diary entry or a capture day needs, and each
refusal names its limit and writes nothing. A file already larger than
:data:`MAX_FILE_BYTES` (written by hand) can still shrink;
:data:`MAX_MESSAGE_BYTES` leaves room for an item at the content limit even
when JSON escapes every character of it.
"""

from __future__ import annotations

__all__ = ["MAX_CONTENT_BYTES", "MAX_FILE_BYTES", "MAX_MESSAGE_BYTES", "check_content_size", "check_file_size",
           "size_words"]

MAX_CONTENT_BYTES = 1 << 20
MAX_FILE_BYTES = 16 << 20
MAX_MESSAGE_BYTES = 8 << 20


def size_words(size: int) -> str:
    """``1 MiB (1,048,576 bytes)``: a limit as a message names it."""
    mib = size / (1 << 20)
    return f"{mib:g} MiB ({size:,} bytes)"


def check_content_size(text: str, what: str = "content") -> None:
    """Raise ``ValueError`` when ``text`` is more than :data:`MAX_CONTENT_BYTES` in UTF-8."""
    # A character is at least one byte: a longer string is over without encoding it.
    size = len(text) if len(text) > MAX_CONTENT_BYTES else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_CONTENT_BYTES:
        raise ValueError(f"invalid {what}: {size:,} bytes, more than the limit of "
                         f"{size_words(MAX_CONTENT_BYTES)} for one item or diary entry")


def check_file_size(path: str, before: int, after: int) -> None:
    """Raise ``ValueError`` when a write would make a file larger than :data:`MAX_FILE_BYTES`."""
    if after > MAX_FILE_BYTES and after > before:
        raise ValueError(f"{path} would be {after:,} bytes, more than the limit of {size_words(MAX_FILE_BYTES)} "
                         "for one file: nothing written (split it into several files)")
