"""Writing the diary from a conversation: at most one LLM call, owned by the host.

* **The host owns the model.** wikimem never talks to an LLM itself; the host
  passes anything with ``chat(messages) -> str`` and decides when to call
  :func:`memorize`.
* **Fail-open.** Memorizing is a side effect of a conversation and must never
  break it: a failing or malformed answer yields ``[]`` (logged), and an
  entry the diary refuses is skipped.
* **Tool-call alternative.** :func:`diary_tool` / :func:`handle_diary_tool`
  are strict (``ValueError``), because the caller sends the error back to
  the model so it can correct itself.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Protocol, runtime_checkable

from wikimem.diary import Diary
from wikimem.models import DiaryItem
from wikimem.disk.tolerant import parse_json

log = logging.getLogger(__name__)

__all__ = [
    "DIARY_PROMPT",
    "DIARY_TOOL_DESCRIPTION",
    "LLM",
    "diary_tool",
    "handle_diary_tool",
    "memorize",
    "parse_diary_entries",
]


@runtime_checkable
class LLM(Protocol):
    """The host's chat model: OpenAI-style messages in, the reply text out."""

    def chat(self, messages: list[dict[str, str]]) -> str: ...


DIARY_PROMPT = """\
You are {character}, keeping a private diary about the user you are talking \
with. Read the conversation turn below and write down what is worth \
remembering about the user later.

Write each entry in the third person about the user ("The user …"), in the \
language the user spoke. Record what the user said, felt, did, planned or \
decided, and facts about their life, people, preferences and plans. Keep one \
fact or event per entry, short and self-contained: it must make sense when \
read alone months from now. Turn relative times into what they mean \
("tomorrow" → the date or weekday when the turn gives it, otherwise keep the \
words); never invent dates, names or details that are not in the turn.

Do not record small talk, greetings, your own replies, instructions to you, \
or anything the user only asked about without saying something about \
themselves. If a fact clearly belongs to a known memory page, you may link \
it as [[file:name]], but only with a file and name you have actually been \
shown; never make one up.

Answer with JSON only: an array of objects with a single "content" string, \
for example
[{{"content": "The user adopted a cat named Miso and is anxious about her first vet visit."}}]
When nothing is worth remembering, answer with an empty array: []"""

DIARY_TOOL_DESCRIPTION = (
    "Append one entry to your diary about the user. Use it when the user "
    "shares something worth remembering later: what they said, felt, did, "
    "planned or decided, or a fact about their life, people or preferences. "
    "Write one self-contained fact or event per call, in the third person "
    "('The user …'), in the user's language, without inventing details. "
    "Do not record small talk or your own replies. You may link a known "
    "memory page as [[file:name]], but only one you have actually seen. "
    "The entry is timestamped automatically."
)

_FENCE_RE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.S)
_LIST_KEYS = ("entries", "items", "diary", "memories")


def _render_turn(turn: Any) -> str:
    """The user message: the turn itself, or ``role: content`` lines for a message list."""
    if isinstance(turn, str):
        return turn
    if isinstance(turn, (list, tuple)):
        lines = []
        for message in turn:
            if isinstance(message, dict):
                lines.append(f"{message.get('role', 'user')}: {message.get('content', '')}")
            else:
                lines.append(str(message))
        return "\n".join(lines)
    return str(turn)


def parse_diary_entries(reply: Any) -> list[str]:
    """The ``content`` strings of an LLM reply; ``[]`` for anything unusable.

    Accepted: a JSON array of ``{"content": str}`` objects (bare strings in
    the array also count), a single such object, an object wrapping the array
    under ``entries``/``items``/``diary``/``memories``, any of them inside a
    Markdown code fence. Everything else (prose, malformed JSON) is ``[]``.
    """
    if not isinstance(reply, str):
        return []
    text = reply.strip()
    fence = _FENCE_RE.search(text)
    if fence:
        text = fence.group(1).strip()
    try:
        data = parse_json(text, repair=True)  # a thousand "[": not JSON; a lone surrogate: U+FFFD
    except ValueError:
        return []
    if isinstance(data, dict):
        wrapped = [data[k] for k in _LIST_KEYS if isinstance(data.get(k), list)]
        data = wrapped[0] if wrapped and "content" not in data else [data]
    if not isinstance(data, list):
        return []
    contents = []
    for entry in data:
        content = entry.get("content") if isinstance(entry, dict) else entry
        if isinstance(content, str) and content.strip():
            contents.append(content.strip())
    return contents


def memorize(
    diary: Diary,
    turn: Any,
    *,
    llm: LLM,
    character: str = "the assistant",
    prompt: str | None = None,
    owner: str | None = None,
    source_conv: str | None = None,
    **append_kwargs: Any,
) -> list[DiaryItem]:
    """Ask ``llm`` once what ``turn`` is worth remembering and append it to ``diary``.

    ``prompt`` replaces :data:`DIARY_PROMPT` (it may use ``{character}``);
    ``append_kwargs`` (``ts``, ``date``, ``time``, ``tz``) go to
    ``Diary.append``. Returns the appended items; never raises.
    """
    template = DIARY_PROMPT if prompt is None else prompt
    try:
        system = template.format(character=character)
    except (KeyError, IndexError, ValueError):
        system = template  # a custom prompt with stray braces is used verbatim
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": _render_turn(turn)},
    ]
    try:
        reply = llm.chat(messages)
    except Exception:  # the host's model failing must not break its conversation
        log.warning("memorize: the LLM call failed; nothing memorized", exc_info=True)
        return []
    contents = parse_diary_entries(reply)
    if not contents:
        log.debug("memorize: nothing to remember in the LLM reply %.200r", reply)
    items = []
    for content in contents:
        try:
            items.append(
                diary.append(content, owner=owner, source_conv=source_conv, **append_kwargs)
            )
        except (ValueError, OSError) as exc:
            log.warning("memorize: skipped a diary entry: %s", exc)
    return items


def diary_tool() -> dict[str, Any]:
    """OpenAI function-calling schema of ``append_diary(content)``."""
    return {
        "type": "function",
        "function": {
            "name": "append_diary",
            "description": DIARY_TOOL_DESCRIPTION,
            "parameters": {
                "type": "object",
                "properties": {
                    "content": {
                        "type": "string",
                        "description": "The diary entry: one self-contained fact or event "
                        "about the user, in the third person.",
                    }
                },
                "required": ["content"],
                "additionalProperties": False,
            },
        },
    }


def handle_diary_tool(diary: Diary, args: str | bytes | dict[str, Any], **append_kwargs: Any) -> DiaryItem:
    """Validate an ``append_diary`` call's arguments and append the entry.

    ``args`` is the call's JSON string (or the decoded dict). Raises
    ``ValueError`` on invalid JSON, a non-object, a missing or non-string
    ``content``, or unexpected keys; ``Diary.append`` rejects empty content.
    """
    if isinstance(args, (str, bytes, bytearray)):
        try:
            args = parse_json(args, repair=True)
        except ValueError as exc:
            raise ValueError(f"append_diary arguments are not valid JSON: {exc}") from None
    if not isinstance(args, dict):
        raise ValueError("append_diary arguments must be a JSON object")
    extra = sorted(str(k) for k in args if k != "content")
    if extra:
        raise ValueError(f"append_diary got unexpected arguments: {', '.join(extra)}")
    content = args.get("content")
    if not isinstance(content, str):
        raise ValueError("append_diary needs a 'content' string")
    return diary.append(content, **append_kwargs)
