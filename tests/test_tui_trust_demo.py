"""``--demo`` cleans up its temporary copy: on exit, on error, and after a run that was killed.

The app's run is replaced (no terminal here); the copy's life around it is
the real one, and the killed run is a real process killed with SIGKILL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import SAFETY_NET
from wikimem_tui import __main__ as cli
from wikimem_tui.app import WikimemApp


@pytest.fixture
def tmp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temp dir the demo copies go to."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setenv("TMPDIR", str(root))
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def copies(tmp_root: Path) -> list[Path]:
    return sorted(tmp_root.glob("wikimem-demo-*"))


def test_the_demo_copy_is_removed_when_the_app_exits(tmp_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Path] = []

    def run(self: WikimemApp) -> None:
        seen.append(self.backend.root)
        assert (self.backend.root / "wiki").is_dir()  # the copy is there while the app runs

    monkeypatch.setattr(WikimemApp, "run", run)
    assert cli.main(["--demo"]) == 0
    assert seen and not seen[0].exists() and copies(tmp_root) == []


def test_the_demo_copy_is_removed_when_the_app_fails(tmp_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def run(self: WikimemApp) -> None:
        raise RuntimeError("the app crashed")

    monkeypatch.setattr(WikimemApp, "run", run)
    with pytest.raises(RuntimeError, match="crashed"):
        cli.main(["--demo"])
    assert copies(tmp_root) == []


def test_a_copy_left_by_a_killed_run_is_removed_by_the_next_and_a_live_one_is_kept(
        tmp_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hold = ("import sys; from wikimem_tui.core.demo import demo_copy\n"  # a demo run until its stdin closes
            "with demo_copy() as root:\n    print(root, flush=True); sys.stdin.read()\n")
    env = {**os.environ, "TMPDIR": str(tmp_root)}
    killed, live = (subprocess.Popen([sys.executable, "-c", hold], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env) for _ in range(2))
    try:
        assert killed.stdout is not None and live.stdout is not None
        killed_root, live_root = Path(killed.stdout.readline().strip()), Path(live.stdout.readline().strip())
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=SAFETY_NET)
        assert killed_root.is_dir()  # a kill leaves it behind…
        monkeypatch.setattr(WikimemApp, "run", lambda self: None)
        assert cli.main(["--demo"]) == 0
        assert not killed_root.exists()  # …and the next demo run removes it
        assert live_root.is_dir()  # while another demo still running keeps its copy
    finally:
        live.kill()
        live.wait(timeout=SAFETY_NET)
        killed.kill()
