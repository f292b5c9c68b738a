"""Capture benchmark: how long ``wikimem capture`` takes over many sessions, against the cost of reading them.

Generates ``--sessions`` synthetic Claude Code logs shaped like real ones
(requests, replies split over lines, thinking, tool calls with inputs and
multi-KB outputs, a torn tail on some, a secret or two) spread over
``--days`` days, then times, each in a fresh memory directory:

* the first capture (read, summarize, redact, write every card and entry);
* a second capture of the same logs (nothing changed: a log whose size and
  hash match its card is not parsed);
* a capture after 10% of the sessions grew by one exchange (follow-ups);
* a dry run of a first capture.

``--one-id 5000,40000`` times instead one session per count whose reply
is that many lines of one ``message.id`` (an agent streaming one long
answer): the lines of one reply are joined once, so the time per line
must not grow with the count (joining and redacting the whole reply on
every line made it quadratic in practice).

The reference, in the same process: reading every log and ``json.loads``
of every line (the least any JSONL reader pays). Each figure is printed
with its ratio to it. Prints figures, asserts nothing.
``python bench/bench_capture.py --sessions 200``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wikimem.capture import capture  # noqa: E402

#: Figures of the previous round (none: this is the first round with capture).
PREVIOUS: dict[str, float] = {}


def _session(rng: random.Random, day: int, exchanges: int) -> tuple[str, str]:
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    lines = []
    minute = rng.randrange(8 * 60, 20 * 60)
    for n in range(exchanges):
        ts = f"2026-07-{day:02d}T{(minute + n) // 60 % 24:02d}:{(minute + n) % 60:02d}:00Z"
        ask = f"Request {n}: please look at module_{rng.randrange(100)} and fix the failing case " * rng.randrange(1, 4)
        if rng.random() < 0.05:
            ask += " (token ghp_" + "".join(rng.choice("abcdefghijklmnop0123456789") for _ in range(36)) + ")"
        lines.append({"type": "user", "sessionId": sid, "cwd": "/home/ada/shop", "gitBranch": "main", "timestamp": ts,
                      "uuid": f"u{n}", "message": {"role": "user", "content": ask}})
        mid = f"msg_{n}"
        lines.append({"type": "assistant", "timestamp": ts, "message": {"id": mid, "content": [
            {"type": "thinking", "thinking": "Let me think. " * 40}]}})
        lines.append({"type": "assistant", "timestamp": ts, "message": {"id": mid, "content": [
            {"type": "text", "text": "I will run the tests first. " * rng.randrange(1, 6)},
            {"type": "tool_use", "name": rng.choice(["Bash", "Read", "Edit", "Grep"]), "input": {"command": "pytest -q"}}]}})
        lines.append({"type": "user", "timestamp": ts, "message": {"role": "user", "content": [
            {"type": "tool_result", "content": "output line\n" * rng.randrange(50, 400)}]}})
        lines.append({"type": "assistant", "timestamp": ts, "message": {"id": f"{mid}b", "content": [
            {"type": "text", "text": "Fixed: the fixture was stale. " * rng.randrange(2, 12)}]}})
    text = "".join(json.dumps(x) + "\n" for x in lines)
    if rng.random() < 0.1:
        text += '{"type":"user","message":{"content":"half'
    return sid, text


def _write(root: Path, count: int, days: int, seed: int) -> list[Path]:
    rng = random.Random(seed)
    paths = []
    for i in range(count):
        sid, text = _session(rng, 1 + i % days, rng.randrange(3, 30))
        path = root / f"-home-ada-p{i % 7}" / f"{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
        paths.append(path)
    return paths


def _reference(paths: list[Path]) -> float:
    start = time.perf_counter()
    for path in paths:
        with open(path, "rb") as handle:
            for line in handle:
                try:
                    json.loads(line)
                except ValueError:
                    pass
    return time.perf_counter() - start


def _timed(label: str, fn, reference: float, rows: list[tuple[str, float]]) -> None:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    seconds = time.perf_counter() - start
    rows.append((label, seconds))
    before = PREVIOUS.get(label)
    was = f"  (previous round {before * 1000:.0f} ms)" if before else "  (previous round: none, first round)"
    print(f"{label:<34} {seconds * 1000:8.0f} ms  {seconds / reference:6.1f}x reference{was}")


#: Seconds per count of ``--one-id`` before the reply was joined once (the same machine, the same lines).
PREVIOUS_ONE_ID: dict[int, float] = {5000: 5.10, 40000: 46.12}


def _one_id(base: Path, counts: list[int]) -> None:
    """One session per count: a request, then ``count`` assistant lines of one message id."""
    sid = "00000000-0000-4000-8000-000000000001"
    for count in counts:
        path = base / f"one-id-{count}" / f"{sid}.jsonl"
        path.parent.mkdir(parents=True)
        lines = [{"type": "user", "sessionId": sid, "timestamp": "2026-07-01T10:00:00Z",
                  "message": {"role": "user", "content": "Explain the build."}}]
        lines += [{"type": "assistant", "sessionId": sid, "timestamp": "2026-07-01T10:00:01Z",
                   "message": {"id": "msg_1", "content": [{"type": "text", "text": f"Step {n}: compile the module. "}]}}
                  for n in range(count)]
        path.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
        reference = min(_reference([path]) for _ in range(3))
        start = time.perf_counter()
        report = capture(base / f"memory-{count}", "claude-code", [path], tz="UTC")
        seconds = time.perf_counter() - start
        assert len(report.entries) == 1
        before = PREVIOUS_ONE_ID.get(count)
        was = f"  (before: {before:.1f} s, {before / seconds:.0f}x slower)" if before else ""
        print(f"{count:>7} lines of one message id: {seconds:7.2f} s  {seconds / count * 1e6:6.0f} us/line  "
              f"{seconds / reference:6.1f}x reference{was}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--days", type=int, default=20)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--one-id", default="", help="comma-separated line counts: time one long reply instead")
    args = parser.parse_args()
    if args.one_id:
        with tempfile.TemporaryDirectory() as tmp:
            _one_id(Path(tmp), [int(n) for n in args.one_id.split(",")])
        return
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        logs = base / "logs"
        paths = _write(logs, args.sessions, args.days, args.seed)
        size = sum(p.stat().st_size for p in paths)
        print(f"{args.sessions} sessions over {args.days} days, {size / 1e6:.1f} MB of logs")
        reference = min(_reference(paths) for _ in range(3))
        print(f"{'reference: read + json.loads':<34} {reference * 1000:8.0f} ms")
        rows: list[tuple[str, float]] = []
        memory = base / "memory"
        _timed("first capture", lambda: capture(memory, "claude-code", [logs], tz="UTC"), reference, rows)
        _timed("second capture (unchanged)", lambda: capture(memory, "claude-code", [logs], tz="UTC"), reference, rows)
        rng = random.Random(args.seed + 1)
        for path in rng.sample(paths, max(1, len(paths) // 10)):
            text = path.read_text("utf-8")
            if not text.endswith("\n"):
                text = text[: text.rindex("\n") + 1]
            _, more = _session(rng, 28, 1)
            path.write_text(text + more, "utf-8")
        _timed("capture after 10% grew", lambda: capture(memory, "claude-code", [logs], tz="UTC"), reference, rows)
        _timed("dry run of a first capture",
               lambda: capture(base / "dry", "claude-code", [logs], tz="UTC", dry_run=True), reference, rows)
        first = rows[0][1]
        print(f"first capture: {first / args.sessions * 1000:.1f} ms per session, "
              f"{size / 1e6 / first:.0f} MB/s of logs")


if __name__ == "__main__":
    main()
