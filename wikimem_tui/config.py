"""The user's keymap: binding ids → keys, read once at startup.

Every App binding carries a stable ``id`` (as in posting), so remapping is a
TOML file of ``id = "key"`` lines and never depends on the default keys or on
the order of bindings. A broken or missing file must not stop the app: the
defaults stay and the problem is reported, not raised.

Lookup order: an explicit path (tests, ``App(config_path=…)``), then
``$WIKIMEM_TUI_CONFIG``, then ``$XDG_CONFIG_HOME/wikimem-tui/keymap.toml``
(``~/.config`` when XDG_CONFIG_HOME is unset).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["KeymapConfig", "config_path", "load_keymap"]

ENV_VAR = "WIKIMEM_TUI_CONFIG"


@dataclass
class KeymapConfig:
    """What was loaded: the keymap plus any problem worth a notification."""

    keymap: dict[str, str] = field(default_factory=dict)
    path: Path | None = None
    error: str | None = None


def config_path(explicit: Path | str | None = None) -> Path:
    """Where the keymap file is looked for (it need not exist)."""
    if explicit is not None:
        return Path(explicit)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(xdg) / "wikimem-tui" / "keymap.toml"


def load_keymap(explicit: Path | str | None = None) -> KeymapConfig:
    """Read the keymap; a ``[keymap]`` table or top-level ``id = "key"`` pairs.

    Values must be strings (comma-separated keys allowed, as Textual accepts);
    anything else is skipped and reported.
    """
    path = config_path(explicit)
    if not path.is_file():
        return KeymapConfig(path=None)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return KeymapConfig(path=path, error=f"keymap {path}: {exc}")
    table = data.get("keymap", data)
    if not isinstance(table, dict):
        return KeymapConfig(path=path, error=f"keymap {path}: [keymap] must be a table")
    keymap: dict[str, str] = {}
    bad: list[str] = []
    for binding_id, keys in table.items():
        if isinstance(keys, str) and keys.strip():
            keymap[str(binding_id)] = keys.strip()
        else:
            bad.append(str(binding_id))
    error = f"keymap {path}: ignored non-string entries: {', '.join(bad)}" if bad else None
    return KeymapConfig(keymap=keymap, path=path, error=error)
