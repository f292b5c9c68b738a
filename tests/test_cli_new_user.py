"""What a new user's first tries at the CLI met: ``add`` refusing its content as an argument, undocumented positionals.

``diary append TEXT`` takes its text as an argument, so a first
``wikimem add prefs tea "Jasmine tea."`` was refused with "one of the
arguments --content --content-file is required".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from test_cli_write import mem, run  # noqa: F401  (mem: the fixture)
from wikimem import MemoryStore


def test_add_takes_its_content_as_an_argument_like_diary_append(mem: Path, capsys) -> None:  # noqa: F811
    code, out, err = run(capsys, "-s", str(mem), "add", "notes", "tea", "Jasmine tea.", "--new")
    assert (code, out, err) == (0, "wrote notes:tea\n", "")
    item = MemoryStore(mem).get("notes", "tea")
    assert item is not None and item.content == "Jasmine tea."


def test_add_refuses_two_contents_and_none(mem: Path, capsys) -> None:  # noqa: F811
    before = (mem / "journal.jsonl").read_bytes()
    code, _, err = run(capsys, "-s", str(mem), "add", "notes", "tea", "Jasmine tea.", "--content", "Green tea.")
    assert code == 2 and "not allowed with" in err
    code, _, err = run(capsys, "-s", str(mem), "add", "notes", "tea")
    assert code == 2 and "CONTENT --content --content-file" in err
    assert (mem / "journal.jsonl").read_bytes() == before and MemoryStore(mem).get("notes", "tea") is None


@pytest.mark.parametrize("verb", ["add", "remove", "move"])
def test_the_write_verbs_say_what_file_and_name_are(verb: str, capsys) -> None:
    code, out, _ = run(capsys, verb, "--help")
    words = " ".join(out.split())  # argparse wraps to the terminal's width
    assert code == 0 and "FILE the RecallFile: wiki/FILE.md" in words and "NAME the item's name: its heading" in words


def test_a_missing_command_lists_every_command_help_lists(capsys) -> None:
    """The list was written out by hand and had lost ``capture``; it is read from the parser now."""
    from wikimem.cli import build_parser

    code, _, err = run(capsys)
    listed = err.split("a command is required (", 1)[1].split(";", 1)[0].split(", ")
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    assert code == 2 and listed == list(sub.choices) and "capture" in listed
    assert "wikimem --help" in err


@pytest.mark.parametrize("argv, words", [
    (["show", "--help"], ["FILE a RecallFile (wiki/FILE.md), or a diary day YYYY-MM-DD",
                          "NAME one item of it (its heading)"]),
    (["grep", "--help"], ["PATTERN a Python regular expression"]),
    (["explain", "--help"], ["QUERY the query, as an agent would ask it", "--limit N ranked hits (default 10)"]),
    (["graph", "--help"], ["a mermaid flowchart (default) or JSON"]),
    (["--help"], ["'wikimem COMMAND --help' shows a command's arguments", "Exit codes: 0 ok"]),
])
def test_every_argument_a_new_user_meets_in_help_says_what_it_is(argv: list[str], words: list[str], capsys) -> None:
    code, out, _ = run(capsys, *argv)
    flat = " ".join(out.split())  # argparse wraps to the terminal's width
    assert code == 0 and all(w in flat for w in words), flat


def _parsers(parser):  # the parser and every sub-command's, depth first
    yield parser
    for action in parser._actions:
        if action.__class__.__name__ == "_SubParsersAction":
            for sub in action.choices.values():
                yield from _parsers(sub)


def test_every_option_of_every_command_has_help_text() -> None:
    """``diary append --help`` listed ``--date``, ``--time`` and ``--owner`` with nothing beside them."""
    from wikimem.cli import build_parser

    bare = [f"{parser.prog} {action.option_strings[0]}" for parser in _parsers(build_parser())
            for action in parser._actions if action.option_strings and not action.help]
    assert bare == []
