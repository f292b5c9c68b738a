"""What a new user met at the command line: hidden characters raw in ``show``, a JSON field missing, a lint message wrong.

Each test here failed before its fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_cli_write import mem, run  # noqa: F401  (mem: the fixture)
from wikimem import MemoryStore
from wikimem.cli.io import neutralize
from wikimem_tui.common.safe import clean

#: Bidi overrides and isolates, zero-width characters, the BOM and the word joiner.
HIDDEN = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f\ufeff\u2060"


def test_show_writes_bidi_overrides_and_zero_width_characters_as_escapes(mem: Path, capsys) -> None:  # noqa: F811
    content = "invoice for \u202egpj.exe\u202c and pay\u200bpal, \ufeffBOM, \u2066isolate\u2069"
    MemoryStore(mem).add("notes", "tricky", content)
    code, out, _ = run(capsys, "-s", str(mem), "show", "notes", "tricky")
    assert code == 0
    assert not any(char in out for char in HIDDEN), ascii(out)
    assert "\\u202egpj.exe\\u202c" in out and "pay\\u200bpal" in out and "\\ufeffBOM" in out


def test_json_output_keeps_the_exact_characters(mem: Path, capsys) -> None:  # noqa: F811
    content = "a \u202eb\u200bc"
    MemoryStore(mem).add("notes", "tricky", content)
    code, out, _ = run(capsys, "-s", str(mem), "show", "notes", "tricky", "--json")
    assert code == 0 and json.loads(out)["items"][0]["content"] == content


@pytest.mark.parametrize("text", [
    "plain", "中文 and emoji 👩\u200d💻", "pay\u200dpal", "\x1b[31mred\x07", "x\u202ey", "\u200b", "a\ufeffb",
    "tag\U000e0041", "soft\xadhyphen", "\u2028line", "فار\u200cسی",
])
def test_the_cli_and_the_app_hide_the_same_characters(text: str) -> None:
    """One rule: a character the app shows as an escape is one the CLI escapes, and no other."""
    cli, app = neutralize(text), clean(text)
    assert (cli == text) == (app == text)
    assert {char for char in text if char in cli} == {char for char in text if char in app}
