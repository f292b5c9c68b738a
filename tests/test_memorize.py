"""memorize (one LLM call, fail-open) and the append_diary tool (strict)."""

from __future__ import annotations

import json

import pytest

from wikimem.diary import Diary
from wikimem.memorize import (
    DIARY_PROMPT,
    DIARY_TOOL_DESCRIPTION,
    LLM,
    diary_tool,
    handle_diary_tool,
    memorize,
    parse_diary_entries,
)

WHEN = {"ts": "2026-07-21T08:30:00+00:00", "tz": "UTC"}


class FakeLLM:
    def __init__(self, reply: str | Exception) -> None:
        self.reply = reply
        self.calls: list[list[dict[str, str]]] = []

    def chat(self, messages):
        self.calls.append(messages)
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply


@pytest.fixture()
def diary(tmp_path) -> Diary:
    return Diary(tmp_path)


def test_makes_exactly_one_call_with_system_prompt_and_the_turn(diary):
    llm = FakeLLM("[]")
    memorize(diary, "I adopted a cat today.", llm=llm, character="Mia")
    assert len(llm.calls) == 1
    assert llm.calls[0] == [
        {"role": "system", "content": DIARY_PROMPT.format(character="Mia")},
        {"role": "user", "content": "I adopted a cat today."},
    ]


def test_default_character_is_the_assistant(diary):
    llm = FakeLLM("[]")
    memorize(diary, "hi", llm=llm)
    assert "the assistant" in llm.calls[0][0]["content"]


def test_each_entry_is_appended_and_returned(diary):
    reply = json.dumps([{"content": "The user adopted a cat."}, {"content": "The user is tired."}])
    items = memorize(diary, "turn", llm=FakeLLM(reply), **WHEN)
    assert [i.content for i in items] == ["The user adopted a cat.", "The user is tired."]
    assert [i.content for i in diary.day("2026-07-21")] == [i.content for i in items]


def test_owner_and_source_conv_are_recorded(diary):
    items = memorize(diary, "t", llm=FakeLLM('[{"content": "x"}]'), owner="user:xnne",
                     source_conv="conv_1", **WHEN)
    stored = diary.day("2026-07-21")[0]
    assert (items[0].owner, stored.owner, stored.source_conv) == ("user:xnne", "user:xnne", "conv_1")


def test_append_kwargs_reach_the_diary(diary):
    items = memorize(diary, "t", llm=FakeLLM('[{"content": "x"}]'), date="2026-01-02", time="23:59")
    assert (items[0].date, items[0].time) == ("2026-01-02", "23:59")


def test_fenced_json_is_unwrapped(diary):
    reply = 'Sure!\n```json\n[{"content": "The user likes tea."}]\n```'
    assert [i.content for i in memorize(diary, "t", llm=FakeLLM(reply), **WHEN)] == [
        "The user likes tea."]


def test_a_bare_object_is_accepted(diary):
    items = memorize(diary, "t", llm=FakeLLM('{"content": "The user runs."}'), **WHEN)
    assert [i.content for i in items] == ["The user runs."]


@pytest.mark.parametrize("reply", ["Nothing worth remembering.", "[{'content': 'x'}",
                                   "", "null", "42", '"just a string"', '[{"text": "x"}]'])
def test_prose_or_malformed_replies_memorize_nothing(diary, reply):
    assert memorize(diary, "t", llm=FakeLLM(reply), **WHEN) == []
    assert diary.dates() == []


def test_an_empty_array_memorizes_nothing(diary):
    assert memorize(diary, "t", llm=FakeLLM("[]")) == []


def test_a_failing_llm_memorizes_nothing_and_does_not_raise(diary):
    assert memorize(diary, "t", llm=FakeLLM(TimeoutError("model down"))) == []


def test_an_entry_the_diary_rejects_is_skipped_and_the_rest_kept(diary):
    reply = json.dumps([{"content": "ok one"}, {"content": "bad\n## heading"}, {"content": "ok two"}])
    items = memorize(diary, "t", llm=FakeLLM(reply), **WHEN)
    assert [i.content for i in items] == ["ok one", "ok two"]


def test_a_custom_prompt_replaces_the_default(diary):
    llm = FakeLLM("[]")
    memorize(diary, "t", llm=llm, prompt="Diary of {character}.", character="Rin")
    assert llm.calls[0][0]["content"] == "Diary of Rin."


def test_a_message_list_turn_is_rendered_as_role_lines(diary):
    llm = FakeLLM("[]")
    memorize(diary, [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
             llm=llm)
    assert llm.calls[0][1]["content"] == "user: hi\nassistant: yo"


def test_parse_accepts_strings_and_wrapped_arrays():
    assert parse_diary_entries('["a", {"content": " b "}]') == ["a", "b"]
    assert parse_diary_entries('{"entries": [{"content": "c"}]}') == ["c"]


def test_diary_prompt_formats_with_a_character_and_asks_for_json():
    text = DIARY_PROMPT.format(character="Mia")
    assert "Mia" in text and "{character}" not in text
    assert '[{"content":' in text and "[]" in text


def test_fake_llm_satisfies_the_llm_protocol():
    assert isinstance(FakeLLM("[]"), LLM)


# ------------------------------------------------------------------ the tool
def test_diary_tool_is_an_openai_function_schema():
    assert diary_tool() == {
        "type": "function",
        "function": {
            "name": "append_diary",
            "description": DIARY_TOOL_DESCRIPTION,
            "parameters": {
                "type": "object",
                "properties": {"content": diary_tool()["function"]["parameters"]["properties"]["content"]},
                "required": ["content"],
                "additionalProperties": False,
            },
        },
    }
    assert diary_tool()["function"]["parameters"]["properties"]["content"]["type"] == "string"


def test_diary_tool_schema_is_json_serialisable():
    json.dumps(diary_tool())


def test_handle_diary_tool_appends_from_a_json_string(diary):
    item = handle_diary_tool(diary, '{"content": "The user moved to Osaka."}', **WHEN)
    assert item.content == "The user moved to Osaka."
    assert diary.day("2026-07-21")[0].content == "The user moved to Osaka."


def test_handle_diary_tool_accepts_a_dict_and_append_kwargs(diary):
    item = handle_diary_tool(diary, {"content": "x"}, owner="agent", **WHEN)
    assert (item.owner, item.date, item.time) == ("agent", "2026-07-21", "08:30")


@pytest.mark.parametrize(
    "args, message",
    [
        ("{not json", "JSON"),
        ('["content"]', "object"),
        ("{}", "content"),
        ('{"content": 5}', "content"),
        ('{"content": "x", "mood": "happy"}', "mood"),
    ],
)
def test_handle_diary_tool_rejects_bad_arguments(diary, args, message):
    with pytest.raises(ValueError, match=message):
        handle_diary_tool(diary, args)
    assert diary.dates() == []


def test_handle_diary_tool_rejects_empty_content(diary):
    with pytest.raises(ValueError):
        handle_diary_tool(diary, {"content": "   "})
