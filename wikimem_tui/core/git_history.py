"""An item's past versions, read from git: real git, never a re-implementation, never a shell.

A memory directory kept in git (``git init`` in it, or in a repository
around it) already holds every version of every RecallFile; this module
asks git for them and finds one item's block at each revision with the
library's own block parser (``wikimem.blocks.parse_blocks``, the wiki's
"last heading wins" rule applied), so what is shown is exactly what the
store would have read back then.

How: ``git log --follow`` lists the commits that touched ``wiki/<file>.md``
(following renames of the file, with the path it had at each commit), then
one ``git cat-file --batch`` process hands back the file at every one of
them. Consecutive revisions where the item is the same (content, owner and
source; ``ts`` alone does not make a version) collapse into one version,
dated by the commit that introduced it.

Everything runs git with an argument list (no shell), ``--`` before paths,
no pager, no prompts, no optional locks (a read must not take the index
lock an editor or the user's own ``git commit`` needs) and a timeout. Git's
output (author names, subjects) is untrusted text like memory content: the
screen renders it through ``wikimem_tui.common.safe``. Nothing here imports
Textual; the screen calls :func:`item_history` from a thread worker.
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from wikimem import RecallItem, parse_blocks

__all__ = [
    "ENABLE_HINT",
    "MAX_COMMITS",
    "GitUnavailable",
    "History",
    "Version",
    "diff_lines",
    "item_history",
]

#: How many commits of a RecallFile are read at most (an agent committing every minute makes long logs).
MAX_COMMITS = 1000
#: What to do when the memory directory is not in a git work tree.
ENABLE_HINT = (
    "History comes from git. To keep it, make the memory directory a repository and commit it:\n"
    "    cd {root} && git init && git add -A && git commit -m 'memory'\n"
    "then commit again whenever you want a version kept (a cron job or your agent's wrapper can do it)."
)
_TIMEOUT = 60.0
_RS, _US = "\x1e", "\x1f"


class GitUnavailable(Exception):
    """No history can be read: git is missing, the directory is not in a work tree, or git failed.

    The message is a complete sentence for the user; ``hint`` says how to
    enable history when that is the reason.
    """

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True)
class Version:
    """One distinct version of the item, as the commit that introduced it left it.

    ``commits`` counts the commits this version survived unchanged (1: only
    the one that wrote it); ``path`` is the file's path at that commit,
    relative to the repository (it differs from today's after a rename).
    """

    rev: str
    author: str
    date: str
    subject: str
    item: RecallItem
    path: str
    commits: int = 1

    @property
    def short(self) -> str:
        """The abbreviated commit id shown on screen."""
        return self.rev[:10]


@dataclass(frozen=True)
class History:
    """The item's versions, newest first, and what git said about the file."""

    repo: Path
    path: str
    versions: list[Version]
    commits_read: int
    truncated: bool = False
    """True when the file has more than ``MAX_COMMITS`` commits and the oldest were not read."""
    unborn: bool = False
    """True when the repository has no commit at all yet (a fresh ``git init``): no history, not an error."""


def _git(cwd: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """Run ``git args`` in ``cwd``; its stdout, or ``GitUnavailable`` with git's own words."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat", "LC_ALL": "C"}
    argv = ["git", "-C", str(cwd), "-c", "core.quotepath=off", "-c", "log.showSignature=false", *args]
    try:
        done = subprocess.run(argv, input=stdin, capture_output=True, env=env, timeout=_TIMEOUT, check=False)
    except subprocess.TimeoutExpired as exc:
        raise GitUnavailable(f"git {args[0]} took longer than {_TIMEOUT:.0f} s; gave up") from exc
    except OSError as exc:
        raise GitUnavailable(f"cannot run git: {exc}") from exc
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise GitUnavailable(f"git {args[0]} failed: {said[-1] if said else f'exit {done.returncode}'}")
    return done.stdout


def _work_tree(root: Path) -> Path:
    """The top of the git work tree holding ``root``; ``GitUnavailable`` (with the hint) otherwise."""
    if shutil.which("git") is None:
        raise GitUnavailable("git is not installed, so there is no history to show",
                             "Install git (e.g. apt-get install git), then " + ENABLE_HINT.format(root=root))
    try:
        inside = _git(root, "rev-parse", "--is-inside-work-tree").decode().strip()
    except GitUnavailable as exc:
        if "not a git repository" in str(exc):
            raise GitUnavailable(f"{root} is not inside a git work tree, so there is no history to show",
                                 ENABLE_HINT.format(root=root)) from exc
        raise
    if inside != "true":
        raise GitUnavailable(f"{root} is inside a git directory but not a work tree", ENABLE_HINT.format(root=root))
    return Path(_git(root, "rev-parse", "--show-toplevel").decode("utf-8", errors="replace").strip())


def _has_commits(top: Path) -> bool:
    """Whether HEAD names a commit: a fresh repository's has none, and ``git log`` there only says "fatal"."""
    try:
        _git(top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except GitUnavailable:
        return False
    return True


def _log(top: Path, path: str) -> list[tuple[str, str, str, str, str]]:
    """``(rev, author, date, subject, path at that commit)`` newest first, following renames."""
    out = _git(top, "log", "--follow", f"--max-count={MAX_COMMITS + 1}", "--name-only",
               f"--format={_RS}%H{_US}%an{_US}%aI{_US}%s", "--", path)
    rows: list[tuple[str, str, str, str, str]] = []
    current = path
    for record in out.decode("utf-8", errors="replace").split(_RS)[1:]:
        header, _, names = record.partition("\n")
        fields = header.split(_US)
        if len(fields) != 4:
            continue
        touched = [line for line in names.splitlines() if line.strip()]
        if touched:  # a merge lists no path: it keeps the one of the commit after it
            current = touched[-1]
        rows.append((fields[0], fields[1], fields[2], fields[3], current))
    return rows


def _blobs(top: Path, specs: list[str]) -> list[bytes | None]:
    """The contents of ``rev:path`` for each spec, from one ``git cat-file --batch``; None: missing."""
    if not specs:
        return []
    out = _git(top, "cat-file", "--batch", stdin="".join(f"{spec}\n" for spec in specs).encode())
    blobs: list[bytes | None] = []
    pos = 0
    for _spec in specs:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            blobs.append(out[pos : pos + size])
            pos += size + 1  # the content is followed by a newline
        else:  # "<spec> missing", or not a blob
            blobs.append(None)
    return blobs


def _find(text: bytes, file: str, name: str) -> RecallItem | None:
    """The item ``name`` in one revision of the file (the last of a repeated heading, as the store reads it)."""
    wanted = " ".join(name.split())
    found = None
    for block in parse_blocks(text.decode("utf-8", errors="replace")).blocks:
        if block.heading == wanted:
            found = block
    if found is None:
        return None
    return RecallItem(file, found.heading, found.content, found.owner, found.source_conv, found.ts)


def _same(a: RecallItem, b: RecallItem) -> bool:
    return (a.content, a.owner, a.source_conv) == (b.content, b.owner, b.source_conv)


def item_history(root: Path | str, file: str, name: str) -> History:
    """Every distinct committed version of ``file:name`` under the memory directory ``root``, newest first.

    ``GitUnavailable`` when there is no history to read (its ``hint`` says
    how to enable it when that is the reason).
    """
    root = Path(root)
    top = _work_tree(root)
    target = (root / "wiki" / f"{file}.md").resolve()
    try:
        path = target.relative_to(top.resolve()).as_posix()
    except ValueError as exc:
        raise GitUnavailable(f"{target} is outside the git work tree {top}") from exc
    if not _has_commits(top):
        return History(top, path, [], 0, unborn=True)
    commits = _log(top, path)
    truncated = len(commits) > MAX_COMMITS
    commits = commits[:MAX_COMMITS]
    blobs = _blobs(top, [f"{rev}:{at}" for rev, _a, _d, _s, at in commits])
    versions: list[Version] = []
    run: list[tuple[tuple[str, str, str, str, str], RecallItem]] = []

    def close_run() -> None:
        if run:
            (rev, author, date, subject, at), item = run[-1]  # the oldest commit of the run wrote it
            versions.append(Version(rev, author, date, subject, item, at, len(run)))
            run.clear()

    for commit, blob in zip(commits, blobs):
        item = _find(blob, file, name) if blob is not None else None
        if item is None:  # absent at this commit (not yet written, or deleted): ends a run
            close_run()
            continue
        if run and not _same(run[-1][1], item):
            close_run()
        run.append((commit, item))
    close_run()
    return History(top, path, versions, len(commits), truncated)


def diff_lines(old: str | None, new: str | None, old_label: str, new_label: str) -> list[str]:
    """A unified diff from ``old`` to ``new`` (None: the item does not exist there), without line ends."""
    return list(difflib.unified_diff((old or "").splitlines(), (new or "").splitlines(),
                                     old_label, new_label, lineterm="", n=2))
