"""``wikimem init [DIR] [--git]``: a new memory directory, optionally its own git repository.

Creates ``wiki/``, ``diary/`` and an empty ``journal.jsonl`` and never
touches a file that exists: running it twice changes nothing.

With ``--git``: a ``.gitignore`` that leaves out the derived files (all
rebuilt on demand) but keeps everything a person or an agent wrote,
``captures/`` included (records, not caches), and a ``.gitattributes`` that
merges ``journal.jsonl`` by union, so two clones that both appended merge
without a conflict. Inside an existing work tree: the two files, no nested
repository. A new repository gets its first commit only when git knows who
the user is: init never invents an author, never runs the user's hooks,
and a commit that cannot be made is a note, never a failed init.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wikimem.cli.io import Output
from wikimem.cli.write import BAD_INPUT, fail
from wikimem.disk.atomic import atomic_write
from wikimem.disk.intent import INTENT_DIR
from wikimem.disk.links import LINK_STYLES
from wikimem.disk.settings import SETTINGS_FILE, Settings, read_settings, settings_text
from wikimem.disk.lock import LOCK_NAME

__all__ = ["GITATTRIBUTES", "GITIGNORE", "register", "run_init"]

#: The derived files of a memory directory, as .gitignore patterns (anchored to the memory's root).
GITIGNORE = [
    "# wikimem: derived files, rebuilt on demand (wikimem init --git)",
    f"/{LOCK_NAME}",
    f"/{INTENT_DIR}/",
    ".*.tmp",
    "/vectors-*.npy",
    "/vectors.keys.jsonl",
    "/diary-vectors/",
]
#: Two clones' journal lines merge by union: both sides kept, no conflict.
GITATTRIBUTES = ["# wikimem: the journal is append-only; merge both sides' lines", "journal.jsonl merge=union"]


def register(commands: Any, table: dict[str, Callable[..., int]],
             add_store_option: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``init`` to the parser; it runs without an existing store (``standalone``)."""
    init = commands.add_parser("init", help="create a memory directory (with --git: a repository for it)")
    init.add_argument("dir", metavar="DIR", nargs="?",
                      help="where (default: --store, then $WIKIMEM_STORE, then the current directory)")
    init.add_argument("--git", action="store_true",
                      help="make it a git repository that ignores derived files and merges the journal by union")
    init.add_argument("--links", choices=LINK_STYLES, metavar="SPELLING",
                      help="how the library writes links: reference ([[file:name]]) or obsidian ([[file#name]]); "
                           f"kept in {SETTINGS_FILE}")
    init.add_argument("--json", action="store_true", help="print one JSON document")
    add_store_option(init)
    init.set_defaults(standalone=run_init)


def _target(args: argparse.Namespace) -> Path:
    raw = args.dir or getattr(args, "store", None) or os.environ.get("WIKIMEM_STORE") or os.getcwd()
    return Path(raw).expanduser()


def _merge_lines(path: Path, lines: list[str], created: list[str]) -> None:
    """Give ``path`` the ``lines`` it lacks (``lines[0]`` is their comment), appended: its own bytes stay."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise OSError(f"{path.name} exists and is not a regular file")
    old = path.read_bytes() if path.exists() else b""
    have = set(old.decode("utf-8", "replace").splitlines())
    missing = [line for line in lines[1:] if line not in have]
    if not missing:
        return
    head = [lines[0]] if lines[0] not in have else []
    gap = b"" if not old else (b"\n" if old.endswith(b"\n") else b"\n\n")
    with open(path, "ab") as handle:
        handle.write(gap + ("\n".join(head + missing) + "\n").encode("utf-8"))
    created.append(path.name)


def _in_work_tree(path: Path, git: str) -> str | None:
    done = subprocess.run([git, "-C", str(path), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def run_init(args: argparse.Namespace, out: Output) -> int:
    """Create the layout (and, with --git, the repository files); exit 2 when it cannot."""
    root = _target(args)
    created: list[str] = []
    try:
        if root.exists() and not root.is_dir():
            return fail(args, out, BAD_INPUT, f"not a directory: {root}")
        if not root.exists():
            root.mkdir(parents=True)
            created.append(".")
        for sub in ("wiki", "diary"):
            if not (root / sub).is_dir():
                (root / sub).mkdir()
                created.append(f"{sub}/")
        journal = root / "journal.jsonl"
        if not journal.exists():
            journal.touch()
            created.append("journal.jsonl")
        if args.links is not None:
            _write_settings(root, Settings(link_spelling=args.links), created)
        git_info: dict[str, Any] | None = None
        if args.git:
            git_info = _init_git(root, created)
    except OSError as exc:
        return fail(args, out, BAD_INPUT, f"cannot initialize {root}: {exc.strerror or exc}")
    except _GitError as exc:
        return fail(args, out, BAD_INPUT, str(exc))
    if args.json:
        out.json({"ok": True, "root": str(root), "created": created, "git": git_info})
        return 0
    out.line(f"memory directory: {root}" + ("" if created else " (already initialized: nothing changed)"))
    for path in created:
        if path != ".":
            out.line(f"  created {path}")
    if git_info is not None:
        where = git_info["repository"]
        out.line(f"  git repository: {where}" + (" (new)" if git_info["new"] else ""))
        if git_info["commit"]:
            out.line(f"  first commit: {git_info['commit'][:10]} (history starts here)")
        elif git_info["note"]:
            out.line(f"  no first commit: {git_info['note']}")
        again = " again whenever you want a version kept" if git_info["commit"] else ""
        out.line(f"  next: commit{again}: git -C {root} add -A && git -C {root} commit -m 'memory'")
    return 0


def _write_settings(root: Path, settings: Settings, created: list[str]) -> None:
    """Write ``wikimem.toml`` when absent; one that says the same is left alone, one that says otherwise refused."""
    path = root / SETTINGS_FILE
    if path.exists() or path.is_symlink():
        if read_settings(root) == (settings, None):
            return
        raise OSError(f"{SETTINGS_FILE} exists and says otherwise; edit it by hand")
    atomic_write(path, settings_text(settings))
    created.append(SETTINGS_FILE)


class _GitError(Exception):
    """git is missing or failed."""


def _init_git(root: Path, created: list[str]) -> dict[str, Any]:
    git = shutil.which("git")
    if git is None:
        raise _GitError("--git needs git on PATH; the memory directory was created without a repository")
    top = _in_work_tree(root, git)
    new = top is None
    if new:
        done = subprocess.run([git, "init", "-q", str(root)], capture_output=True, text=True)
        if done.returncode != 0:
            raise _GitError(f"git init failed: {done.stderr.strip()}")
        created.append(".git/")
        top = str(root.resolve())
    _merge_lines(root / ".gitignore", GITIGNORE, created)
    _merge_lines(root / ".gitattributes", GITATTRIBUTES, created)
    commit, note = _first_commit(root, git) if new else (None, "")
    return {"repository": top, "new": new, "commit": commit, "note": note or None}


_IDENTITY = (("user.name", "GIT_AUTHOR_NAME"), ("user.email", "GIT_AUTHOR_EMAIL"))


def _first_commit(root: Path, git: str) -> tuple[str | None, str]:
    """Commit everything init made in the new repository: ``(commit id, "")``, or ``(None, why not)``."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([git, "-C", str(root), *argv], capture_output=True, text=True, env=env,
                              stdin=subprocess.DEVNULL, timeout=60, check=False)

    for key, variable in _IDENTITY:
        if not os.environ.get(variable) and not run("config", key).stdout.strip():
            return None, (f"git has no {key} here (git config --global {key} '…'), so init made no commit")
    try:
        done = run("add", "-A")
        if done.returncode == 0:
            done = run("commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "wikimem init: an empty memory")
        if done.returncode == 0:
            done = run("rev-parse", "HEAD")
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"git commit did not finish: {exc}"
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        return None, f"git commit failed: {said[-1] if said else f'exit {done.returncode}'}"
    return done.stdout.strip(), ""
