"""The memory process: the index lives in a child process, the MCP process forwards each tool call to it.

Why two processes: a server's first answer waits for both the MCP SDK's
import (pydantic models, the transports: CPU that only the SDK's process
can spend) and the index build, and one interpreter runs them one after the
other (a build thread gains nothing under the GIL). Started first, before
the SDK is imported, the memory process builds on a second core while the
MCP process imports the SDK, so the first answer waits for the longer of
the two, not their sum. ``WIKIMEM_MCP_PROCESSES=1`` (:data:`PROCESSES_ENV`)
serves from one process instead.

The exchange is JSON lines over the child's stdin and stdout, one per call:
``{"id", "tool", "kwargs"}`` in, ``{"id", "payload"}`` or ``{"id",
"refused"}`` (:meth:`AgentMemory.call`'s reply) or ``{"id", "unexpected"}``
(the traceback on the child's stderr, which is the server's) out. Lines are
ASCII (``ensure_ascii``), so any string, a lone surrogate included, crosses
unchanged. Calls run concurrently in the child as they do in the SDK's
worker threads: one index, kept fresh, safe for concurrent queries.

Lifetimes: the child exits at end of its stdin -- the MCP process closed
it or is gone, however it died -- once its running calls are done. A child
that died is not restarted: what killed it (memory, a signal, a store it
cannot read) would most likely kill the next one after another full build;
every later call is a tool error naming its exit, and the agent can tell
its user to restart the server (a refusal of kind ``unavailable``: the
SDK's generic error for a raised exception would not say why).
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import os
import signal
import subprocess
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["CLOSE_SECONDS", "PROCESSES_ENV", "EmbedSpec", "MemoryProcess", "child_env", "main", "one_process"]

#: ``1``: serve from one process (no memory process); anything else: two.
PROCESSES_ENV = "WIKIMEM_MCP_PROCESSES"
#: How long closing waits for the child to finish its running calls before it is killed.
CLOSE_SECONDS = 30.0
#: As many concurrent calls as the SDK's default worker threads.
_WORKERS = 40


class EmbedSpec(NamedTuple):
    """``--embed``, ``--embed-model``, ``--embed-key-env`` as given: how the child makes its own embedder."""

    spec: str
    model: str | None = None
    key_env: str | None = None


def one_process() -> bool:
    """Whether :data:`PROCESSES_ENV` asks for the one-process server."""
    return os.environ.get(PROCESSES_ENV, "").strip() == "1"


class MemoryProcess:
    """The parent's side: a child serving one memory directory, called like ``AgentMemory.call``."""

    def __init__(self, root: str | Path, *, read_only: bool = False, embed: EmbedSpec | None = None) -> None:
        self.read_only = read_only
        argv = [sys.executable, "-m", __name__, str(root)]
        if read_only:
            argv.append("--read-only")
        if embed is not None:
            argv += ["--embed", embed.spec]
            argv += ["--embed-model", embed.model] if embed.model else []
            argv += ["--embed-key-env", embed.key_env] if embed.key_env else []
        env = child_env(str(Path(__file__).resolve().parents[2]), os.environ)
        self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self._ids = itertools.count(1)
        self._pending: dict[int, Future[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._gone: str | None = None
        self._reader = threading.Thread(target=self._read, name="wikimem-memory-replies", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self._proc.pid

    def in_flight(self) -> int:
        """How many calls wait for their reply."""
        with self._lock:
            return len(self._pending)

    def call(self, tool: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Run ``tool`` in the memory process; once it has exited, a refusal (``unavailable``) saying how."""
        answer: Future[dict[str, Any]] = Future()
        line = json.dumps({"tool": tool, "kwargs": kwargs}).encode()  # ids are added under the lock
        with self._lock:
            if self._gone is not None:
                return _unavailable(self._gone)
            ident = next(self._ids)
            self._pending[ident] = answer
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.write(b'{"id": %d, ' % ident + line[1:] + b"\n")
                self._proc.stdin.flush()
            except OSError:  # the child is gone; the reader says how once it sees the end of its output
                pass
        reply = answer.result()  # no time limit: a first call waits for the build
        if "unexpected" in reply:
            raise RuntimeError(f"the memory process failed: {reply['unexpected']} (traceback in the server's log)")
        return reply

    def _read(self) -> None:
        """Hand each reply to its caller; at the end of the child's output fail every call, now and later."""
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                reply = json.loads(line)
                answer = self._pending.pop(reply.pop("id"))
            except (ValueError, KeyError, TypeError, AttributeError):
                logging.getLogger(__name__).warning("a reply from the memory process that is not one: %r",
                                                    line[:200])
                continue
            answer.set_result(reply)
        code = self._proc.wait()
        with self._lock:
            self._gone = _exit_words(self._proc.pid, code)
            pending, self._pending = self._pending, {}
        for answer in pending.values():
            answer.set_result(_unavailable(self._gone))

    def close(self) -> None:
        """End the child: end of its input, its running calls finish; killed if it does not exit in time."""
        try:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
        except OSError:
            pass
        try:
            self._proc.wait(CLOSE_SECONDS)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._reader.join()


def child_env(tree: str, environ: Mapping[str, str]) -> dict[str, str]:
    """The child's environment: ``tree`` (the folder holding this wikimem) first on its path, unless installed.

    The child must import the very wikimem this process runs, whatever put
    it on ``sys.path`` (a checkout, a test); an installed one is found there
    anyway, and a site-packages folder on ``PYTHONPATH`` would come before
    the standard library.
    """
    env = dict(environ)
    if tree not in _site_folders():
        path = environ.get("PYTHONPATH")
        env["PYTHONPATH"] = tree + (os.pathsep + path if path else "")
    return env


def _site_folders() -> set[str]:
    """The interpreter's site-packages folders (resolved), where an installed wikimem lives."""
    import site

    folders = [*site.getsitepackages(), site.getusersitepackages()]
    return {str(Path(folder).resolve()) for folder in folders}


def _unavailable(message: str) -> dict[str, Any]:
    return {"refused": {"error": "unavailable", "message": message}}


def _exit_words(pid: int, code: int) -> str:
    how = f"exit code {code}"
    if code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    return (f"wikimem's memory process (pid {pid}) ended ({how}); no call can be answered: restart the MCP "
            "server")


def main(argv: list[str] | None = None) -> int:
    """The child: build the index at once, answer calls read from stdin until its end."""
    parser = argparse.ArgumentParser(prog=f"python -m {__name__}")
    parser.add_argument("root")
    parser.add_argument("--read-only", action="store_true")
    parser.add_argument("--embed")
    parser.add_argument("--embed-model")
    parser.add_argument("--embed-key-env")
    args = parser.parse_args(argv)
    # Ctrl-C in a terminal reaches the whole process group: the MCP process decides, this one follows its input.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from wikimem.server.memory import AgentMemory

    def say(message: str) -> None:  # the server's stderr, prefixed like every server message
        sys.stderr.write(f"wikimem mcp: {message}\n")
        sys.stderr.flush()

    embedder = None
    if args.embed:
        from wikimem.vectors import make_embedder

        try:
            embedder = make_embedder(args.embed, model=args.embed_model, api_key_env=args.embed_key_env)
        except (ValueError, KeyError, ImportError, OSError, RuntimeError) as exc:
            say(f"bad --embed: {exc}")
            return 2
    # The replies get stdout to themselves: anything else printing there (a library) goes to stderr.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    memory = AgentMemory(args.root, read_only=args.read_only, embedder=embedder, warn=say)
    memory.start_building()
    write = threading.Lock()

    def answer(ident: Any, tool: str, kwargs: dict[str, Any]) -> None:
        """One call's reply, always: a caller waits for it."""
        try:
            data = _line({"id": ident, **memory.call(tool, kwargs)})
        except Exception as exc:  # noqa: BLE001 - said to the caller, its traceback to the server's log
            logging.getLogger(__name__).exception("%s failed", tool)
            data = _line({"id": ident, "unexpected": f"{type(exc).__name__}: {exc}"})
        with write:
            try:
                out.write(data)
                out.flush()
            except (BrokenPipeError, ValueError):  # the MCP process is gone: nobody to answer
                pass

    with ThreadPoolExecutor(_WORKERS, thread_name_prefix="wikimem-call") as pool:
        for line in sys.stdin.buffer:
            request = json.loads(line)
            pool.submit(answer, request["id"], request["tool"], request["kwargs"])
    return 0


def _line(reply: dict[str, Any]) -> bytes:
    return json.dumps(reply).encode() + b"\n"


if __name__ == "__main__":
    raise SystemExit(main())
