"""Malformed metadata comments: what the user meant, and whether it can be recovered.

The block parser takes only an exact metadata line and leaves anything else
as content, silently: the right read (never guess), but a hand-typed
``<!-- wikimem owner=me -->`` then loses its provenance without a word.
Lint says what is wrong with every line that starts like a wikimem comment
and recovers the fields when that is unambiguous; unknown or repeated keys
and a ts that is not ISO-8601 need a person.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wikimem.disk.names import CANONICAL_TS_RE, parse_ts, validate_meta_value

__all__ = ["MetaDiagnosis", "check_ts", "diagnose_comment", "is_wikimem_comment"]

_COMMENT_RE = re.compile(r"<!--\s*wikimem", re.I)
# The two content markers that merely look like comments: never metadata.
_MARKER_RE = re.compile(r"<!--\s*wikimem-(derived|review)\b")
_ALIASES = {"owner": "owner", "source": "source", "source_conv": "source", "ts": "ts"}
_FIELD = {"owner": "owner", "source": "source_conv", "ts": "ts"}


@dataclass(frozen=True)
class MetaDiagnosis:
    """What is wrong with one comment line, and the fields it meant.

    ``fields`` (model names: ``owner``, ``source_conv``, ``ts``) is set only
    when every problem is mechanical, i.e. when ``--fix`` may rewrite it.
    """

    problems: tuple[str, ...]
    fields: dict[str, str | None] | None


def is_wikimem_comment(line: str) -> bool:
    """A line that starts like a wikimem comment but is not one of the content markers."""
    text = line.strip()
    return text.startswith("<!--") and _COMMENT_RE.match(text) is not None and not _MARKER_RE.match(text)


def check_ts(ts: str) -> tuple[str | None, str | None]:
    """``(problem, canonical)``: the canonical form, and a problem when ``ts`` is not it."""
    if CANONICAL_TS_RE.fullmatch(ts):
        return None, ts
    try:
        canonical = parse_ts(ts)
    except ValueError:
        return f"ts {ts!r} is not an ISO-8601 timestamp", None
    return f"ts {ts!r} is not in the canonical form {canonical!r}", canonical


def diagnose_comment(line: str) -> MetaDiagnosis:
    """Diagnose a line for which :func:`is_wikimem_comment` is true."""
    text = line.strip()
    problems: list[str] = []
    fixable = True
    head = _COMMENT_RE.match(text)
    assert head is not None
    if "wikimem" not in text[: head.end()]:
        problems.append("'wikimem' must be lowercase")
    rest = text[head.end():]
    if rest.startswith(":"):
        rest = rest[1:]
    else:
        problems.append("missing ':' after 'wikimem'")
    if rest.endswith("-->"):
        rest = rest[:-3]
    else:
        problems.append("not closed with '-->'")
    body = rest.strip()
    separator = "|"
    if "|" not in body and ";" in body:
        problems.append("fields are separated by ';' instead of '|'")
        separator = ";"
    fields: dict[str, str | None] = {}
    for part in (p.strip() for p in body.split(separator)):
        if not part:
            continue
        key, eq, value = part.partition("=")
        key = key.strip()
        canonical = _ALIASES.get(key.lower())
        if not eq:
            problems.append(f"field {part[:40]!r} has no '='")
            fixable = False
        elif canonical is None:
            problems.append(f"unknown key {key!r} (known: owner, source, ts)")
            fixable = False
        elif _FIELD[canonical] in fields:
            problems.append(f"key {canonical!r} appears twice")
            fixable = False
        else:
            if key != canonical:
                problems.append(f"key {key!r} should be {canonical!r}")
            fields[_FIELD[canonical]] = value.strip() or None
    if not fields and fixable:
        problems.append("no fields")
        fixable = False
    ts = fields.get("ts")
    if ts is not None:
        problem, normal = check_ts(ts)
        if problem:
            problems.append(problem)
        if normal is None:
            fixable = False
        fields["ts"] = normal
    for key in ("owner", "source_conv"):
        try:
            fields[key] = validate_meta_value(key, fields.get(key))
        except ValueError as exc:
            problems.append(str(exc))
            fixable = False
    return MetaDiagnosis(tuple(problems), fields if fixable else None)
