"""A memory's own settings: ``wikimem.toml`` at its root, read tolerantly, never required.

A memory arrives by ``git pull`` or an archive, so the file is untrusted: it
is read as a regular file inside the memory, and only known keys with known
values are taken; anything else is reported (``bad-settings``) and the
defaults apply, so a broken file can never stop the memory from being read
or written. The keys: docs/reference/file-format.md.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from wikimem.disk.links import LINK_STYLES
from wikimem.disk.tolerant import read_regular

__all__ = ["SETTINGS_FILE", "Settings", "read_settings", "settings_text"]

#: The settings file, at the memory's root.
SETTINGS_FILE = "wikimem.toml"


@dataclass(frozen=True)
class Settings:
    """What a memory's ``wikimem.toml`` says (defaults where it is silent, absent or broken)."""

    #: How the library spells the links it writes: ``"reference"`` or ``"obsidian"``.
    link_spelling: str = "reference"


def read_settings(root: str | os.PathLike[str]) -> tuple[Settings, str | None]:
    """``(settings, problem)``: the memory's settings, and why the file was not (wholly) taken, if it was not."""
    path = Path(root) / SETTINGS_FILE
    try:
        data = read_regular(path, root=root)
    except OSError as exc:
        return Settings(), f"{SETTINGS_FILE} cannot be read: {exc}"
    if data is None:
        return Settings(), None
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        return Settings(), f"{SETTINGS_FILE} is not valid TOML ({exc}); the defaults apply"
    links = table.get("links", {})
    spelling = links.get("spelling", "reference") if isinstance(links, dict) else None
    if spelling not in LINK_STYLES:
        return Settings(), (f"{SETTINGS_FILE}: [links] spelling must be one of "
                            f"{', '.join(repr(s) for s in LINK_STYLES)}; the default applies")
    return Settings(link_spelling=spelling), None


def settings_text(settings: Settings) -> str:
    """The file's text for ``settings`` (what ``wikimem init --links`` writes)."""
    return (f"# wikimem settings for this memory (docs/guide/storage.md)\n[links]\n"
            f"spelling = \"{settings.link_spelling}\"\n")
