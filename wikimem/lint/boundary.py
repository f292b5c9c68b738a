"""Findings of the trust boundary: what a memory from elsewhere tried, and was refused.

A memory arrives by ``git pull``, an archive or a shared folder. What the
library refuses there (a planted intent record, a folder of the format that
is a symlink leading out) must not be refused silently, or the user never
learns that the memory they opened tried it: each is an error here, every
run (one ``listdir`` and a few ``lstat`` calls).
"""

from __future__ import annotations

import os

from wikimem.disk.intent import quarantined
from wikimem.disk.store_dir import ForeignFolderError, foreign_folders
from wikimem.lint.findings import Finding, make_finding

__all__ = ["boundary_findings"]


def boundary_findings(root: str | os.PathLike[str]) -> list[Finding]:
    """``intent-quarantined`` for each record moved aside, ``folder-outside`` for each folder leading out."""
    found = [make_finding(
        "intent-quarantined", name, "an intent record the next write refused, never applied: it named a file "
        "outside the memory or one no write touches (a memory from elsewhere may carry a planted one); look "
        "at it, then delete it") for name in quarantined(root)]
    found += [make_finding("folder-outside", f"{folder}/", str(ForeignFolderError(folder, target)))
              for folder, target in foreign_folders(root)]
    return found
