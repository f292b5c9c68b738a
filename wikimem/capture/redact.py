"""Secrets never enter the memory: one detector for capture and for lint.

Agent logs are full of credentials: a user pastes an API key, a tool prints
an ``.env``, a command line carries ``--password``. Capture copies a few
hundred characters of text from a log into files that get committed, synced
and recalled into other agents' prompts, so everything it writes -- goal,
outcome, update, cwd, branch, path, tool names -- passes through
:func:`redact` first, and lint's ``secret-in-memory`` uses
:func:`find_secrets` on what is already there.

What counts as a secret (each replaced by ``[REDACTED:<kind>]``):

* provider keys by their shape: ``sk-…`` (OpenAI, Anthropic ``sk-ant-…``),
  ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_``/``github_pat_`` (GitHub),
  ``glpat-`` (GitLab), ``AKIA``/``ASIA``… (AWS access key ids), ``xox?-``
  (Slack) and Slack webhooks, ``AIza`` (Google), ``sk_live_``/``rk_live_``
  (Stripe), ``npm_``, ``hf_``, ``pypi-``, JWTs (``eyJ….….…``);
* PEM private-key blocks (``-----BEGIN … PRIVATE KEY-----`` to its END
  line, or to the end of the text when the END was cut off);
* the value of an assignment whose name says secret (``password=…``,
  ``API_KEY: …``, ``client_secret = "…"``, ``--token …``), and
  ``Authorization: Bearer …``/``Basic …``;
* the password of a URL with credentials (``https://user:pw@host``).

Narrow beats wrong the other way round here: a false positive costs a few
redacted characters, a false negative leaks a credential, so the patterns
err on the side of redacting. A secret split across two content blocks of
one message is caught by :func:`redact_joined`, which looks at the blocks'
concatenation as well as at each block.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Secret", "find_secrets", "may_hold_secret", "redact", "redact_joined"]

_KEYWORD = r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|" \
           r"client[_-]?secret|auth[_-]?token|credentials?|session[_-]?key)"

# (kind, pattern, literals): the pattern runs only on text holding one of the literals (in lower
# case), so the common case -- prose with no secret -- costs a few substring searches, not a regex scan.
_PATTERNS: list[tuple[str, re.Pattern[str], tuple[str, ...]]] = [
    ("private-key", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
                               r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S), ("private key",)),
    ("api-key", re.compile(r"\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}"), ("sk-",)),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"), ("glpat-",)),
    ("aws-key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[A-Z0-9]{16}\b"),
     ("akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa", "abia", "acca")),
    ("slack-token", re.compile(r"\bxox[abposre]-[A-Za-z0-9\-]{10,}"), ("xox",)),
    ("slack-webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+"), ("hooks.slack.com",)),
    ("google-key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), ("aiza",)),
    ("stripe-key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}"), ("_live_", "_test_")),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}"), ("npm_",)),
    ("huggingface-token", re.compile(r"\bhf_[A-Za-z0-9]{30,}"), ("hf_",)),
    ("pypi-token", re.compile(r"\bpypi-[A-Za-z0-9_\-]{40,}"), ("pypi-",)),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), ("eyj",)),
]
# name=value, name: value, "name": "value", --name value (the name keeps; the value goes).
_ASSIGN_RE = re.compile(
    r"(?i)(?P<name>[\"']?\b[A-Za-z0-9_.\-]*" + _KEYWORD + r"[A-Za-z0-9_.\-]*[\"']?)"
    r"(?P<sep>\s*[:=]\s*|\s+(?=[\"']))"
    r"(?P<value><[^>\n]{1,80}>|\"[^\"\n]{3,}\"|'[^'\n]{3,}'|[^\s\"',;)}\]]{3,})")
_FLAG_RE = re.compile(r"(?i)(?P<name>--?" + _KEYWORD + r")(?P<sep>[= ])(?P<value>[^\s\"']{3,}|\"[^\"\n]+\"|'[^'\n]+')")
_AUTH_RE = re.compile(r"(?i)(?P<name>\b(?:bearer|basic|token))(?P<sep>\s+)"
                      r"(?P<value>(?=[A-Za-z0-9._~+/\-]*[0-9])[A-Za-z0-9._~+/\-]{16,}=*)")
_URL_RE = re.compile(r"(?P<name>\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:)(?P<value>[^\s@/]{3,})(?=@)")
_SECRET_WORDS = ("pass", "pwd", "secret", "token", "key", "credential")
_NAMED = (("password", _ASSIGN_RE, _SECRET_WORDS), ("password", _FLAG_RE, _SECRET_WORDS),
          ("authorization", _AUTH_RE, ("bearer", "basic", "token")), ("url-password", _URL_RE, ("://",)))
# Values that name a secret without being one: redacting them would only hide what the text means.
_PLAIN = re.compile(r"(?i)^[\"']?(?:\*+|x+|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|none|null|true|false|"
                    r"required|optional|redacted|\[REDACTED[^\]]*\]?|env|\.\.\.|…)[\"']?$")


# What any secret the patterns find must contain: provider prefixes (as written), a secret word followed
# by a separator (or after "--"), a URL with a password. Ruling these out costs substring searches, no
# regex scan, so a whole file is looked at once before any pattern runs (lint does this for every file).
_PREFIXES = ("sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "AKIA", "ASIA", "AGPA", "AIDA",
             "AROA", "ANPA", "ANVA", "AIPA", "ABIA", "ACCA", "xox", "hooks.slack.com", "AIza", "_live_", "_test_",
             "npm_", "hf_", "pypi-", "eyJ", "PRIVATE KEY")
_WORDS = ("pass", "pwd", "secret", "token", "key", "credential", "bearer", "basic")
_AFTER_RE = re.compile(r"[\w.\-\"']{0,40}?(?:[ \t]*[:=]|\s+[\"']|\s+(?=\S{16}))")
_URL_HINT_RE = re.compile(r"://[^\s/@:]+:[^\s@/]+@")


def may_hold_secret(text: str) -> bool:
    """False when ``text`` certainly holds no secret :func:`find_secrets` would find (cheap: for whole files)."""
    if any(prefix in text for prefix in _PREFIXES):
        return True
    if "://" in text and _URL_HINT_RE.search(text):
        return True
    lower = text.lower()
    for word in _WORDS:
        at = lower.find(word)
        while at != -1:
            if lower[max(0, at - 2):at].endswith("-") or _AFTER_RE.match(lower, at + len(word)):
                return True
            at = lower.find(word, at + 1)
    return False


@dataclass(frozen=True)
class Secret:
    """One secret found: its kind and where it is (``start``/``end`` offsets into the text)."""

    kind: str
    start: int
    end: int


def find_secrets(text: str, *, strict: bool = False) -> list[Secret]:
    """Every secret-looking span of ``text``, in order, overlaps merged.

    ``strict`` (lint) counts a named value (``password=…``) only when it
    looks like a credential -- eight characters or more, not a plain word
    -- since a finding is an error a person must act on, where capture
    redacts anything that might be one.
    """
    found: list[Secret] = []
    lower = text.lower()
    for kind, pattern, literals in _PATTERNS:
        if any(literal in lower for literal in literals):
            found += [Secret(kind, m.start(), m.end()) for m in pattern.finditer(text)]
    for kind, pattern, literals in _NAMED:
        if not any(literal in lower for literal in literals):
            continue
        for m in pattern.finditer(text):
            value = m.group("value")
            if _PLAIN.match(value) or _numeric_count(m.group("name"), value):
                continue
            if strict and (len(value.strip("\"'")) < 8 or value.strip("\"'").isalpha()):
                continue
            found.append(Secret(kind, m.start("value"), m.end("value")))
    found.sort(key=lambda s: (s.start, -s.end))
    merged: list[Secret] = []
    for secret in found:
        if merged and secret.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Secret(last.kind, last.start, max(last.end, secret.end))
        else:
            merged.append(secret)
    return merged


def _numeric_count(name: str, value: str) -> bool:
    """``max_tokens=512``, ``token_count: 3``: a number under a name about tokens counts them."""
    return "token" in name.lower() and value.strip("\"'").isdigit()


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    secrets = find_secrets(text)
    if not secrets:
        return text
    out: list[str] = []
    at = 0
    for secret in secrets:
        out.append(text[at:secret.start])
        out.append(f"[REDACTED:{secret.kind}]")
        at = secret.end
    out.append(text[at:])
    return "".join(out)


def redact_joined(parts: Sequence[str], sep: str = "\n") -> str:
    """``sep.join(parts)``, redacted where a secret spans two parts (a key split over content blocks).

    One part is returned as it is: whatever is kept of it is redacted later
    (the card redacts each field), and redacting every message of a long
    log up front would cost more than the capture itself.

    The parts are looked at joined without a separator too; a secret found
    there that crosses a part boundary redacts the pieces on both sides.
    """
    if len(parts) < 2:
        return sep.join(parts)  # nothing to join: the card redacts what it keeps
    glued = "".join(parts)
    bounds: list[int] = []
    at = 0
    for part in parts:
        at += len(part)
        bounds.append(at)
    cuts: list[list[tuple[int, int]]] = [[] for _ in parts]
    for secret in find_secrets(glued):
        begin = 0
        for index, end in enumerate(bounds):
            lo, hi = max(secret.start, begin), min(secret.end, end)
            crosses = secret.start < begin or secret.end > end
            if lo < hi and crosses:
                cuts[index].append((lo - begin, hi - begin))
            begin = end
    pieces = []
    for part, spans in zip(parts, cuts):
        for lo, hi in sorted(spans, reverse=True):
            part = part[:lo] + "[REDACTED:split]" + part[hi:]
        pieces.append(redact(part))
    return redact(sep.join(pieces))
