"""Every reader of a file or stream from outside the process, against the four hostile inputs.

The inputs: deep nesting (``[`` a hundred thousand times), a lone surrogate
(a string cut in the middle of an emoji: ``"\\udcff"`` in JSON), invalid
UTF-8, and a huge line. The readers: the files of a memory (wiki and diary
markdown, ``journal.jsonl``, capture cards, vector keys, the lint
baseline, intent records), agents' session logs, MCP over stdio and HTTP,
hook input on stdin (``recall --from-hook``, ``capture --hook``) and LLM
replies. Each pair must give a clear error or a skip it reports, never a
traceback, a hang or a lost neighbour: what follows the hostile input is
still read.

The table below is the list: a reader missing from it is a reader nobody
tried to break.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from mcp_support import REPO, SAFETY_NET, alice_memory, server_env

KINDS = ["deep", "surrogate", "invalid-utf8", "huge-line"]

#: JSON text (no newline) holding the hostile input as a string value's place: what each kind puts there.
_JSON_VALUE = {
    "deep": "[" * 100_000 + "]" * 100_000,
    "surrogate": '"cut \\ud83d mid-emoji \\udcff"',
    "invalid-utf8": '"bad \udcff\udcfe bytes"',  # written with surrogateescape: the raw bytes ff fe
    "huge-line": json.dumps("x" * (8 << 20)),
}


def hostile_json(kind: str, template: str) -> bytes:
    """``template`` (JSON text with ``@@`` where a value goes) holding the ``kind`` of hostile value, as bytes."""
    return template.replace("@@", _JSON_VALUE[kind]).encode("utf-8", "surrogateescape")


# -- MCP over stdio --------------------------------------------------------------------------------------------


def _rpc(message: dict[str, object]) -> bytes:
    return (json.dumps(message) + "\n").encode()


_INIT = _rpc({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "pipe", "version": "0"}}}) + \
    _rpc({"jsonrpc": "2.0", "method": "notifications/initialized"})
_AFTER = _rpc({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "list_files", "arguments": {}}})


def _serve(root: Path, requests: bytes) -> dict[object, dict[str, object]]:
    """The answers, by id, of a real ``wikimem mcp`` given ``requests`` and then end of input.

    The server ends once every request read is answered: waiting for it is
    waiting for the answers (the timeout is only a safety net).
    """
    done = subprocess.run([sys.executable, "-m", "wikimem", "-s", str(root), "mcp"], input=_INIT + requests + _AFTER,
                          capture_output=True, env=server_env(), cwd=REPO, timeout=SAFETY_NET)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    rows = [json.loads(line) for line in done.stdout.decode().splitlines() if line.strip()]
    return {row["id"]: row for row in rows if "id" in row}


_CALL = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall","arguments":{"query":@@}}}\n'


@pytest.mark.parametrize("kind", KINDS)
def test_mcp_stdio_answers_every_hostile_request_and_serves_on(tmp_path: Path, kind: str) -> None:
    pytest.importorskip("mcp")
    answers = _serve(alice_memory(tmp_path), hostile_json(kind, _CALL))
    assert answers[9]["result"], answers  # the server is still there for the next request
    answer = answers[2]  # ... and the hostile one was answered, not dropped
    if kind in ("deep", "surrogate"):
        assert answer["error"]["code"] == -32700, answer  # type: ignore[index]
    elif kind == "huge-line":  # over the size limit of one message: refused by name
        assert "limit" in answer["error"]["message"], answer  # type: ignore[index]
    else:  # replaced bytes are a query like any other
        assert "result" in answer, answer


@pytest.mark.parametrize("line, code", [
    ('{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"recall","arguments":{"q":'
     + "[" * 300 + "]" * 300 + "}}}", -32700),  # deep for the SDK's parser, not for Python's
    ('{"jsonrpc":"2.0","id":"x","method":"tools/call","params":5}', -32600),
    ("[1, 2]", -32600),
    ("not json at all", -32700),
], ids=["sdk-deep", "bad-shape", "batch", "not-json"])
def test_mcp_stdio_answers_lines_the_sdk_would_drop(tmp_path: Path, line: str, code: int) -> None:
    pytest.importorskip("mcp")
    answers = _serve(alice_memory(tmp_path), line.encode() + b"\n")
    assert answers[9]["result"]
    refused = answers["x"] if '"id":"x"' in line else answers[None]
    assert refused["error"]["code"] == code  # type: ignore[index]


def test_mcp_refusal_finds_the_id_of_a_line_too_deep_to_parse() -> None:
    pytest.importorskip("mcp")
    from wikimem.server.stdio_drain import refusal

    deep = '{"params":{"id":7,"a":' + "[" * 100_000 + "]" * 100_000 + '},"id":"mine","method":"x"}'
    answer = refusal(deep)
    assert answer is not None and json.loads(answer)["id"] == "mine"
    assert refusal('{"jsonrpc":"2.0","method":"notifications/initialized"}') is None
    assert refusal("   \n") is None


# -- helpers for CLI readers ------------------------------------------------------------------------------------


def wikimem(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """A real ``wikimem`` process (a traceback is a failure: it shows on stderr)."""
    return subprocess.run([sys.executable, "-m", "wikimem", *args], input=stdin, capture_output=True,
                          env=server_env(), cwd=REPO, timeout=SAFETY_NET)


def no_traceback(done: subprocess.CompletedProcess[bytes]) -> str:
    err = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err[-3000:]
    return err


def _session_line(sid: str, kind: str, text: str, minute: int) -> str:
    return json.dumps({"type": kind, "sessionId": sid, "cwd": "/home/ada/shop",
                       "timestamp": f"2026-07-01T10:{minute:02d}:00Z",
                       "message": {"id": f"m{minute}", "role": kind, "content": text}}) + "\n"


def good_session(folder: Path, sid: str = "11111111-2222-4333-8444-555555555555") -> Path:
    """A small Claude Code session: one request, one reply."""
    path = folder / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_session_line(sid, "user", "Fix the checkout test.", 1)
                    + _session_line(sid, "assistant", "Fixed: the fixture was stale.", 2), "utf-8")
    return path


# -- capture cards (captures/*.capture.json) --------------------------------------------------------------------

_CARD_FILE = '{"format": 1, "date": "2026-06-30", "kept": "x", "cards": [{"id": "c1", "path": "/nowhere", "note": @@}]}\n'


@pytest.mark.parametrize("kind", KINDS)
def test_capture_cards(tmp_path: Path, kind: str) -> None:
    root = alice_memory(tmp_path)
    (root / "captures").mkdir()
    (root / "captures" / "2026-06-30.capture.json").write_bytes(hostile_json(kind, _CARD_FILE))
    unreadable = kind != "huge-line"
    for args in (["lint"], ["lint", "--fix"], ["lint", "--json"]):
        done = wikimem("-s", str(root), *args)
        no_traceback(done)
        assert (b"capture-unreadable" in done.stdout) == unreadable, done.stdout[-2000:]
    # Capture of another day's session goes on (the damaged day is not touched), the Stop hook too.
    logs = good_session(tmp_path / "logs")
    done = wikimem("-s", str(root), "capture", "claude-code", str(logs), "--tz", "UTC")
    no_traceback(done)
    assert done.returncode == 0 and b"added 1 diary entry" in done.stdout, done.stdout
    hook = wikimem("-s", str(root), "capture", "claude-code", "--hook",
                   stdin=json.dumps({"transcript_path": str(logs)}).encode())
    assert hook.returncode == 0, no_traceback(hook)


# -- agents' session logs ---------------------------------------------------------------------------------------

_CC_HOSTILE = ('{"type":"assistant","sessionId":"11111111-2222-4333-8444-555555555555",'
               '"timestamp":"2026-07-01T10:01:30Z","message":{"id":"mx","role":"assistant","content":@@}}\n')
_CODEX_HOSTILE = ('{"timestamp":"2026-07-01T10:01:30Z","type":"response_item","payload":{"type":"message",'
                  '"role":"assistant","content":[{"type":"output_text","text":@@}]}}\n')


def _codex_session(folder: Path, middle: bytes) -> Path:
    sid = "0198a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b"
    path = folder / "2026" / "07" / "01" / f"rollout-2026-07-01T10-00-00-{sid}.jsonl"
    path.parent.mkdir(parents=True)

    def line(ts: str, kind: str, payload: dict[str, object]) -> bytes:
        return (json.dumps({"timestamp": ts, "type": kind, "payload": payload}) + "\n").encode()

    path.write_bytes(
        line("2026-07-01T10:00:00Z", "session_meta", {"id": sid, "cwd": "/home/ada/shop"})
        + line("2026-07-01T10:01:00Z", "response_item", {"type": "message", "role": "user",
                                                          "content": [{"type": "input_text", "text": "Fix the checkout test."}]})
        + middle
        + line("2026-07-01T10:02:00Z", "response_item", {"type": "message", "role": "assistant",
                                                          "content": [{"type": "output_text", "text": "Fixed: the fixture was stale."}]}))
    return path


def _claude_session(folder: Path, middle: bytes) -> Path:
    path = good_session(folder)
    first, second = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(first + middle + second)
    return path


_EXPECTED_NOTE = {"deep": "nested too deeply", "surrogate": "lone surrogates", "invalid-utf8": None,
                  "huge-line": "over 4 MiB"}


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
@pytest.mark.parametrize("kind", KINDS)
def test_session_logs(tmp_path: Path, agent: str, kind: str) -> None:
    """The hostile line is skipped or repaired and said by reason; the request and reply around it are captured."""
    root = alice_memory(tmp_path)
    if agent == "codex":
        log = _codex_session(tmp_path / "logs", hostile_json(kind, _CODEX_HOSTILE))
    else:
        log = _claude_session(tmp_path / "logs", hostile_json(kind, _CC_HOSTILE))
    done = wikimem("-s", str(root), "capture", agent, str(log), "--tz", "UTC", "--json")
    no_traceback(done)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    [entry] = report["entries"]
    assert "Fix the checkout test" in entry["content"] and "fixture was stale" in entry["content"], entry
    notes = " ".join(why for note in report["notes"] for why in note["skipped"])
    if _EXPECTED_NOTE[kind]:
        assert _EXPECTED_NOTE[kind] in notes, report["notes"]
    diary = "".join(p.read_text("utf-8") for p in (root / "diary").glob("*.md"))  # written as valid UTF-8
    assert "fixture was stale" in diary
    verbose = wikimem("-s", str(root), "capture", agent, str(log), "--tz", "UTC", "--verbose", "--dry-run")
    no_traceback(verbose)


# -- the files of a memory --------------------------------------------------------------------------------------

#: Markdown bytes of each kind, put into an item's content (a memory file is text, not JSON).
_MARKDOWN = {
    "deep": b"[[" * 50_000 + b"]]" * 10,
    "surrogate": b"cut \xed\xb3\xbf mid-emoji",  # a surrogate encoded as UTF-8: not UTF-8
    "invalid-utf8": b"bad \xff\xfe bytes",
    "huge-line": b"x" * (5 << 20),
}

#: ``relative path -> (template, append?)``: where each JSON file of a memory gets the hostile value.
_MEMORY_JSON = {
    "journal.jsonl": ('{"ts":"2026-07-01T10:00:00+00:00","action":"add","file":"people","item":@@}\n', True),
    "vectors.keys.jsonl": ('{"vectors_file":"vectors-000001.npy","model":"m","dim":4,"note":@@}\n', False),
    "lint-baseline.json": ('{"version":1,"files":{"wiki/people.md":@@}}\n', False),
    "reviewed.json": ('{"version":1,"entries":[{"date":"2026-07-01","time":"10:00","note":@@}]}\n', False),
    ".wikimem-intent/record.json": ('{"files":[{"path":@@,"before":"","after":""}]}', False),
}


def _every_reader_of_the_memory(root: Path) -> None:
    """Read, lint, recall, list and write: each answers (an error is fine, a traceback is not)."""
    for args in (["ls"], ["show", "people"], ["recall", "tea", "--json"], ["lint", "--json"], ["grep", "tea"],
                 ["add", "notes", "after", "Written after the hostile file."]):
        done = wikimem("-s", str(root), *args)
        no_traceback(done)
        assert done.returncode in (0, 1) or args[0] == "lint", (args, done.returncode, done.stderr[-2000:])
    assert b"Written after" in (root / "wiki" / "notes.md").read_bytes()  # the write went through


@pytest.mark.parametrize("where", ["wiki", "diary"])
@pytest.mark.parametrize("kind", KINDS)
def test_memory_markdown(tmp_path: Path, kind: str, where: str) -> None:
    root = alice_memory(tmp_path)
    if where == "wiki":
        path = root / "wiki" / "people.md"
        path.write_bytes(path.read_bytes() + b"\n## Bo\n\n" + _MARKDOWN[kind] + b"\n")
    else:
        path = root / "diary" / "2026-07-01.md"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"# 2026-07-01\n\n## 10:00\n\n" + _MARKDOWN[kind] + b"\n")
    _every_reader_of_the_memory(root)


@pytest.mark.parametrize("where", sorted(_MEMORY_JSON))
@pytest.mark.parametrize("kind", KINDS)
def test_memory_json_files(tmp_path: Path, kind: str, where: str) -> None:
    root = alice_memory(tmp_path)
    template, append = _MEMORY_JSON[where]
    path = root / where
    path.parent.mkdir(exist_ok=True)
    data = hostile_json(kind, template)
    path.write_bytes((path.read_bytes() if append and path.exists() else b"") + data)
    _every_reader_of_the_memory(root)


# -- hook input on stdin ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_recall_from_hook_stdin(tmp_path: Path, kind: str) -> None:
    root = alice_memory(tmp_path)
    stdin = hostile_json(kind, '{"prompt":@@}')
    done = wikimem("-s", str(root), "recall", "--from-hook", stdin=stdin)
    err = no_traceback(done)
    if kind == "surrogate":  # repaired: the query is searched (it finds nothing here: exit 1)
        assert done.returncode in (0, 1) and "not JSON" not in err, err
    else:
        assert done.returncode == 2 and "hook input" in err, err
    quiet = wikimem("-s", str(root), "recall", "--from-hook", "--fail-open", stdin=stdin)
    assert quiet.returncode == 0
    no_traceback(quiet)


@pytest.mark.parametrize("kind", KINDS)
def test_capture_hook_stdin(tmp_path: Path, kind: str) -> None:
    root = alice_memory(tmp_path)
    done = wikimem("-s", str(root), "capture", "claude-code", "--hook", stdin=hostile_json(kind, '{"transcript_path":@@}'))
    err = no_traceback(done)
    assert done.returncode == 1 and "wikimem capture: error:" in err, (done.returncode, err)


# -- LLM and embedding endpoint replies -------------------------------------------------------------------------


class _Reply:
    def __init__(self, text: str) -> None:
        self.text = text

    def chat(self, messages: object) -> str:
        return self.text


@pytest.mark.parametrize("kind", KINDS)
def test_llm_replies(tmp_path: Path, kind: str) -> None:
    from wikimem import MemoryStore, handle_diary_tool, memorize

    store = MemoryStore(tmp_path / "memory")
    reply = hostile_json(kind, '[{"content":@@}]').decode("utf-8", "surrogateescape")  # a client's str
    written = memorize(store.diary, "hi", llm=_Reply(reply))
    for item in written:
        item.content.encode("utf-8")  # whatever was kept is text that can be written
    if kind == "deep":
        assert written == []
    try:
        handle_diary_tool(store.diary, hostile_json(kind, '{"content":@@}'))
    except ValueError:
        pass  # refused, clearly
    for path in (store.root / "diary").glob("*.md"):
        path.read_bytes().decode("utf-8")


@pytest.mark.parametrize("kind", KINDS)
def test_embedding_endpoint_replies(kind: str) -> None:
    import http.server
    import threading

    from wikimem.vectors.embedders import HttpEmbedder

    body = hostile_json(kind, '{"data":[{"index":0,"embedding":[0.5,0.5],"note":@@}]}')

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        embedder = HttpEmbedder(f"http://127.0.0.1:{server.server_address[1]}", model="m", timeout=SAFETY_NET)
        if kind in ("deep", "invalid-utf8"):
            with pytest.raises(ValueError):  # a malformed reply, said as such
                embedder.embed(["tea"])
        else:
            assert embedder.embed(["tea"]) == [[0.5, 0.5]]
        embedder.close()
    finally:
        server.shutdown()
        server.server_close()


# -- MCP over HTTP: request bodies -------------------------------------------------------------------------------


def _post(client: object, url: str, body: bytes, session: str | None) -> tuple[int, list[dict[str, object]]]:
    """POST one body; the status and the JSON-RPC messages of the answer (JSON or an event stream)."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        headers["mcp-session-id"] = session
    response = client.post(url, content=body, headers=headers)  # type: ignore[attr-defined]
    text = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        text = "\n".join(line[5:].strip() for line in text.splitlines() if line.startswith("data:"))
    messages = [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]
    return response.status_code, messages


@pytest.mark.parametrize("kind", KINDS)
def test_mcp_http_bodies(tmp_path: Path, kind: str) -> None:
    pytest.importorskip("mcp")
    import httpx

    from mcp_support import http_server

    with http_server(alice_memory(tmp_path)) as (url, _lines), httpx.Client(timeout=SAFETY_NET) as client:
        init = client.post(url, content=_INIT.splitlines()[0], headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
        session = init.headers.get("mcp-session-id")
        _post(client, url, _INIT.splitlines()[1], session)
        status, answer = _post(client, url, hostile_json(kind, _CALL), session)
        assert status < 500, (status, answer)
        if kind in ("deep", "surrogate"):
            assert status >= 400 or any("error" in m for m in answer), (status, answer)
        status, answer = _post(client, url, _AFTER, session)  # the server goes on
        assert status == 200 and any(m.get("id") == 9 and "result" in m for m in answer), (status, answer)


def test_session_log_whose_path_is_not_utf8(tmp_path: Path) -> None:
    """A card names its log by path, in UTF-8: a path that is not is passed over and said, the rest captured."""
    root = alice_memory(tmp_path)
    logs = tmp_path / "logs"
    good = good_session(logs)
    odd = Path(os.fsdecode(bytes(logs) + b"/proj\xff"))
    good_session(odd, "11111111-2222-4333-8444-555555555556")
    done = wikimem("-s", str(root), "capture", "claude-code", str(logs), "--tz", "UTC", "--json")
    no_traceback(done)
    report = json.loads(done.stdout)
    assert [e["path"] for e in report["entries"]] == [str(good)]
    assert any("not valid UTF-8" in s["reason"] for s in report["skipped"]), report["skipped"]


@pytest.mark.parametrize("kind", ["deep", "surrogate"])
async def test_capture_cards_in_the_health_pane(tmp_path: Path, kind: str) -> None:
    """The app's Health pane lints the memory: a damaged snapshot is a finding there too, not a dead pane."""
    pytest.importorskip("textual")
    from test_tui_health import HealthApp, linted, pane, planted, rows
    from test_tui_panes_snapshots import SIZE

    backend = planted(tmp_path)
    (tmp_path / "captures").mkdir()
    (tmp_path / "captures" / "2026-06-30.capture.json").write_bytes(hostile_json(kind, _CARD_FILE))
    async with HealthApp(backend).run_test(size=SIZE) as pilot:
        await linted(pilot)
        assert pane(pilot.app).report is not None
        assert any("capture-unreadable" in row for row in rows(pilot.app)), rows(pilot.app)
