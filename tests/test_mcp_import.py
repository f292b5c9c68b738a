"""The MCP SDK is loaded only by ``wikimem mcp``: never by ``import wikimem``, the CLI's other verbs or the tools' logic."""

from __future__ import annotations

from test_import_hygiene import loaded_after


def test_the_cli_and_its_other_verbs_load_no_mcp(tmp_path) -> None:  # type: ignore[no-untyped-def]
    code = (
        "from wikimem.cli import build_parser, main\n"
        "build_parser()\n"
        f"main(['init', {str(tmp_path / 'm')!r}])\n"
        f"main(['-s', {str(tmp_path / 'm')!r}, 'add', 'a', 'b', '--content', 'c'])\n"
        f"main(['-s', {str(tmp_path / 'm')!r}, 'recall', 'c'])\n"
    )
    assert "mcp" not in loaded_after(code)


def test_the_tools_logic_loads_no_mcp() -> None:
    assert "mcp" not in loaded_after("import wikimem.server, wikimem.server.memory")


def test_the_agent_text_loads_no_mcp() -> None:
    assert loaded_after("from wikimem import agent_text, agent_rows") == []
