"""Terminal output for the CLI that never crashes on what it prints.

Memory is mostly non-ASCII and the CLI runs where the locale is ``C``, so
stdout is switched to UTF-8 before the first write. A reader that closes
the pipe early (``wikimem grep x | head``) is a normal way to stop, not an
error worth a traceback.

Memory text is untrusted, and a terminal interprets escape sequences and
shows bidi overrides and zero-width characters as reordered or invisible
text, so every hidden character (``wikimem.disk.hidden``, the rule the app
shares) is written as a visible ``\\xNN``/``\\uNNNN`` escape, to a terminal
and a pipe alike. JSON output is data for a program, never neutralized:
:func:`json_text` writes such characters as JSON's own ``\\uXXXX`` escapes,
which a parser turns back into the exact text.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from wikimem.disk.hidden import show_hidden

__all__ = ["MAX_HOOK_INPUT", "Output", "PipeState", "counted", "decode_argv", "json_text", "neutralize",
           "prepare_stdout", "quiet_broken_pipe", "read_hook_input", "warnings_to"]

#: The most bytes of an agent hook's JSON input read (a hook's input is a few hundred bytes).
MAX_HOOK_INPUT = 1 << 20


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and its noun as a summary line reads it (``1 item``, ``2 items``, ``1 diary entry``), never ``item(s)``."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def neutralize(text: str) -> str:
    """``text`` with every hidden character (the library's one rule, ``wikimem.disk.hidden``) as a visible escape."""
    return show_hidden(text)


# What json.dumps(ensure_ascii=False) leaves raw but a terminal acts on: C0
# (newline is the indent's own; inside strings JSON escapes it), DEL, C1, and
# lone surrogates (a file name's undecodable bytes), which no encoder writes.
_JSON_RAW_RE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(payload: object, *, indent: int | None = None) -> str:
    """``payload`` as JSON: non-ASCII raw, control characters as ``\\uXXXX`` escapes (valid, exact, inert)."""
    text = json.dumps(payload, ensure_ascii=False, indent=indent)
    return _JSON_RAW_RE.sub(_escape, text) if _JSON_RAW_RE.search(text) else text


def prepare_stdout() -> None:
    """Make stdout UTF-8 (unencodable → replaced) and stderr never raise."""
    stdout = sys.stdout
    encoding = (getattr(stdout, "encoding", None) or "").lower().replace("_", "-")
    if encoding not in ("utf-8", "utf8") and hasattr(stdout, "reconfigure"):
        try:
            stdout.reconfigure(encoding="utf-8", errors="replace")
        except (ValueError, OSError):  # already written to, or not a text stream
            pass
    if hasattr(sys.stderr, "reconfigure"):
        try:
            sys.stderr.reconfigure(errors="backslashreplace")
        except (ValueError, OSError):
            pass


def decode_argv(argv: list[str]) -> list[str]:
    """Arguments as UTF-8 even when the locale made Python decode them as ASCII.

    Under ``LC_ALL=C`` a Chinese query arrives as surrogate escapes of its
    UTF-8 bytes; it would then match nothing. Bytes that are not UTF-8 keep
    their escapes (they are a path in some other encoding, not a query).
    """
    fixed = []
    for arg in argv:
        try:
            fixed.append(arg.encode(sys.getfilesystemencoding(), "surrogateescape").decode("utf-8"))
        except (UnicodeEncodeError, UnicodeDecodeError):
            fixed.append(arg)
    return fixed


def read_hook_input() -> Any:
    """The JSON an agent's hook hands its command on stdin; ``ValueError`` saying why when it is not usable.

    One reader for every hook verb (``recall --from-hook``, ``capture
    --hook``): at most :data:`MAX_HOOK_INPUT` bytes, parsed by the tolerant
    reader (too deep or not UTF-8 is "not JSON", a lone surrogate becomes
    U+FFFD), never a traceback.
    """
    from wikimem.disk.tolerant import parse_json

    stream = getattr(sys.stdin, "buffer", sys.stdin)  # bytes from a real stdin, text from a test's StringIO
    raw = stream.read(MAX_HOOK_INPUT + 1)
    if len(raw) > MAX_HOOK_INPUT:
        raise ValueError("hook input is larger than 1 MiB")
    try:
        return parse_json(raw or "null", repair=True)
    except ValueError as exc:  # UnicodeDecodeError is one
        raise ValueError(f"hook input is not JSON: {str(exc)[:200]}") from None


class Output:
    """Writes to whatever ``sys.stdout``/``sys.stderr`` are *now* (tests swap them)."""

    def write(self, text: str) -> None:
        """Write ``text`` (callers include the final newline)."""
        sys.stdout.write(neutralize(text))

    def line(self, text: str = "") -> None:
        """Write one line."""
        sys.stdout.write(neutralize(text) + "\n")

    def json(self, payload: object, *, indent: int | None = None) -> None:
        """Write ``payload`` as one JSON document and a newline (see :func:`json_text`)."""
        sys.stdout.write(json_text(payload, indent=indent) + "\n")

    def error(self, message: str) -> None:
        """One line on stderr (stdout is flushed first so the order is kept)."""
        try:
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):
            pass
        sys.stderr.write(neutralize(message) + "\n")
        sys.stderr.flush()

    def flush(self) -> None:
        """Flush stdout (a closed pipe surfaces here rather than at exit)."""
        sys.stdout.flush()


@dataclass
class PipeState:
    """Whether the reader went away, and the exit code to report if so."""

    broken: bool = False
    code: int = 0


@contextmanager
def quiet_broken_pipe() -> Iterator[PipeState]:
    """Swallow ``BrokenPipeError`` and keep the interpreter's final flush quiet."""
    state = PipeState()
    try:
        yield state
    except BrokenPipeError:
        state.broken = True
        # Point the stdout descriptor at /dev/null: Python flushes sys.stdout
        # again at exit, and that flush would print "Exception ignored ...".
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass


class _Warnings(logging.Handler):
    """The library's WARNINGs (a file skipped as unreadable, a cache of another model) as stderr lines."""

    def __init__(self, out: Output) -> None:
        super().__init__(logging.WARNING)
        self.out = out

    def emit(self, record: logging.LogRecord) -> None:
        self.out.error(f"wikimem: warning: {record.getMessage()}")  # neutralized: paths are untrusted


@contextmanager
def warnings_to(out: Output) -> Iterator[None]:
    """Show the library's warnings on ``out``'s stderr for the duration of one command."""
    logger = logging.getLogger("wikimem")
    handler = _Warnings(out)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
