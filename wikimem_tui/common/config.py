"""The user's keymap: binding ids → keys, read once at startup and checked before use.

Every binding carries a stable ``id`` (as in posting), so remapping is a TOML
file of ``id = "key"`` lines and never depends on the default keys or on
the order of bindings. A broken or missing file must not stop the app: the
defaults stay and the problem is reported, not raised.

Nothing is applied silently. Textual's own keymap handling drops a binding
whose key another id takes over, without a word; so before the keymap
reaches the App, every entry is checked against the bindings the app really
has (collected from its widget and screen classes, so new bindings are known
without a list to maintain): an unknown id, a key name Textual cannot
produce, or a key that would shadow another binding where both can be
active is reported and that entry is left out (the default stays). The
report is a notification at start-up and ``wikimem-tui --check-config``.

Lookup order: an explicit path (tests, ``App(config=…)``, ``--config``), then
``$WIKIMEM_TUI_CONFIG``, then ``$XDG_CONFIG_HOME/wikimem-tui/keymap.toml``
(``~/.config`` when XDG_CONFIG_HOME is unset).
"""

from __future__ import annotations

import difflib
import importlib
import os
import pkgutil
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from wikimem_tui.core.words import count

__all__ = ["BoundKey", "KeymapConfig", "check_config_main", "check_keymap", "config_path", "known_bindings",
           "load_keymap"]

ENV_VAR = "WIKIMEM_TUI_CONFIG"
_MODIFIERS = {"ctrl", "shift", "alt", "meta", "super", "hyper"}


@dataclass
class KeymapConfig:
    """What was loaded: the keymap to apply plus every problem worth a notification."""

    keymap: dict[str, str] = field(default_factory=dict)
    path: Path | None = None
    problems: list[str] = field(default_factory=list)
    """One line per problem; the entries they name are not in ``keymap``."""

    @property
    def error(self) -> str | None:
        """All problems as one message (None when the file is clean or absent)."""
        if not self.problems:
            return None
        where = f"keymap {self.path}" if self.path else "keymap"
        return f"{where}: " + "; ".join(self.problems)


@dataclass(frozen=True)
class BoundKey:
    """One default binding: where it lives, its id, key(s) and what it does."""

    owner: str
    """The class that declares it (``WikimemApp``, ``TopicTree``…)."""
    scope: str
    """``"global"`` (App and Screen: active wherever the focus is), ``owner``, or ``"modal <owner>"``."""
    binding_id: str
    keys: tuple[str, ...]
    description: str
    action: str = ""
    """What the key runs (``quit``; an ``app.`` prefix dropped): two bindings running the same never clash."""


def config_path(explicit: Path | str | None = None) -> Path:
    """Where the keymap file is looked for (it need not exist)."""
    if explicit is not None:
        return Path(explicit)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(xdg) / "wikimem-tui" / "keymap.toml"


def _flatten(table: dict[str, object], prefix: str = "") -> dict[str, object]:
    """``calendar.today = "x"`` unquoted is a nested table in TOML; the id is ``calendar.today`` all the same."""
    flat: dict[str, object] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _read(path: Path) -> tuple[dict[str, str], list[str]]:
    """The file's ``id = "key"`` pairs (a ``[keymap]`` table or top-level) and what could not be read."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:  # deep [[[ recurses
        return {}, [str(exc)]
    table = data.get("keymap", data)
    if not isinstance(table, dict):
        return {}, ["[keymap] must be a table"]
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, keys in _flatten(table).items():
        if isinstance(keys, str) and keys.strip():
            keymap[str(binding_id)] = ",".join(k.strip() for k in keys.split(",") if k.strip())
        else:
            problems.append(f"{binding_id}: the value must be a key string such as \"ctrl+g\"")
    return keymap, problems


def load_keymap(explicit: Path | str | None = None) -> KeymapConfig:
    """Read and check the keymap; only entries without a problem are kept for the App."""
    path = config_path(explicit)
    if not path.exists():
        return KeymapConfig(path=None)
    if not path.is_file():
        return KeymapConfig(path=path, problems=[f"{path} is not a file"])
    keymap, problems = _read(path)
    good, found = check_keymap(keymap)
    return KeymapConfig(keymap=good, path=path, problems=problems + found)


# -- what the app binds ---------------------------------------------------------------


def known_bindings() -> list[BoundKey]:
    """Every binding the app's own classes declare, plus Textual's App and Screen ones (tab, ctrl+q).

    Imports every ``wikimem_tui`` module, then walks the Textual classes they
    define, so a widget added next month is checked without a list here.
    """
    import wikimem_tui
    from textual.app import App
    from textual.binding import Binding
    from textual.dom import DOMNode
    from textual.screen import ModalScreen, Screen

    for module in pkgutil.walk_packages(wikimem_tui.__path__, "wikimem_tui."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)

    def subclasses(cls: type) -> list[type]:
        out: list[type] = []
        sub: type
        for sub in cls.__subclasses__():
            out.append(sub)
            out.extend(subclasses(sub))
        return out

    ours = sorted({c for c in subclasses(DOMNode) if c.__module__.startswith("wikimem_tui")},
                  key=lambda c: (c.__module__, c.__qualname__))
    found: list[BoundKey] = []
    seen_screen = False
    for cls in ours:
        is_global = issubclass(cls, App)
        for klass in cls.__mro__:
            if "BINDINGS" not in vars(klass) or (klass is Screen and seen_screen):
                continue
            if not klass.__module__.startswith("wikimem_tui") and klass not in (App, Screen):
                continue  # a text box's or a tree's own editing keys: a global key may overlap them
            seen_screen = seen_screen or klass is Screen
            scope = "global" if is_global or klass is Screen else cls.__qualname__
            if issubclass(cls, ModalScreen) and klass is not Screen:
                scope = f"modal {cls.__qualname__}"  # the App's keys are off there: no clash with them
            for binding in Binding.make_bindings(vars(klass)["BINDINGS"]):
                if binding.system:
                    continue
                found.append(BoundKey(cls.__qualname__, scope, binding.id or "", (normalize_key(binding.key),),
                                      binding.description or binding.action, binding.action.removeprefix("app.")))
    return found


def normalize_key(key: str) -> str:
    """A key as Textual names it (``?`` → ``question_mark``), so two spellings compare equal."""
    key = key.strip()
    if len(key) == 1 and not key.isalnum():
        from textual.keys import KEY_NAME_REPLACEMENTS

        try:
            name = unicodedata.name(key).lower().replace("-", "_").replace(" ", "_")
        except ValueError:
            return key
        return KEY_NAME_REPLACEMENTS.get(name, name)
    return key


def valid_key(key: str) -> bool:
    """Whether Textual can ever report ``key`` (modifiers + a character, a named key or a character name)."""
    from textual.keys import KEY_NAME_REPLACEMENTS, Keys

    *mods, base = key.split("+")
    if not base or any(m not in _MODIFIERS for m in mods):
        return False
    if len(base) == 1 or base in {k.value for k in Keys} or base in KEY_NAME_REPLACEMENTS.values():
        return True
    try:
        unicodedata.lookup(base.replace("_", " "))
    except KeyError:
        return False
    return True


def check_keymap(keymap: dict[str, str], bindings: list[BoundKey] | None = None) -> tuple[dict[str, str], list[str]]:
    """Split ``keymap`` into the entries safe to apply and one message per problem.

    Two bindings clash when they end up on the same key and can be active
    together: both global (App/Screen), both in one widget class, or one
    global and one in a widget (the widget's would shadow the global one
    wherever it has the focus). Only clashes the keymap *creates* are
    problems; the defaults' own deliberate overlaps (escape in several panes)
    are not, and neither are two bindings that run the same action (``quit``
    on ctrl+q, which Textual's own binding already quits with).
    """
    bindings = known_bindings() if bindings is None else bindings
    ids = {b.binding_id for b in bindings if b.binding_id}
    good: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, keys in keymap.items():
        if binding_id not in ids:
            close = difflib.get_close_matches(binding_id, sorted(ids), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            problems.append(f"unknown binding id {binding_id!r}{hint}")
            continue
        bad = [k for k in keys.split(",") if not valid_key(normalize_key(k))]
        if bad:
            problems.append(f"{binding_id} = {keys!r}: not a key name: {', '.join(bad)}")
            continue
        good[binding_id] = keys

    def effective(b: BoundKey) -> set[str]:
        if b.binding_id in good:
            return {normalize_key(k) for k in good[b.binding_id].split(",")}
        return set(b.keys)

    # A refused entry puts its binding back on its default key, which may be the very key another
    # entry took: check again until no entry is refused.
    while True:
        clashing: dict[str, list[str]] = {}
        for mapped in [b for b in bindings if b.binding_id in good]:
            for other in bindings:
                same_action = mapped.action == other.action and (  # one method runs, whichever binding fires
                    mapped.owner == other.owner or mapped.scope == other.scope == "global")
                if other.binding_id == mapped.binding_id or (mapped.action and same_action):
                    continue
                modal = mapped.scope.startswith("modal") or other.scope.startswith("modal")
                together = mapped.scope == other.scope or (not modal and "global" in (mapped.scope, other.scope))
                shared = effective(mapped) & effective(other)
                if together and shared:
                    where = "everywhere" if other.scope == "global" else f"in {other.owner}"
                    note = (f"{', '.join(sorted(shared))} would also be {other.description!r} "
                            f"({other.binding_id or 'no id'}) {where}")
                    if note not in clashing.setdefault(mapped.binding_id, []):
                        clashing[mapped.binding_id].append(note)
        if not clashing:
            return good, problems
        for binding_id, notes in clashing.items():
            problems.append(f"{binding_id} = {good.pop(binding_id)!r} not applied: " + "; ".join(notes))


def check_config_main(explicit: Path | str | None = None) -> int:
    """``wikimem-tui --check-config [--config PATH]``: print the problems; 0 when clean, 1 otherwise."""
    path = config_path(explicit)
    if not path.exists():
        if explicit is not None:
            print(f"keymap {path}: no such file")
            return 1
        print(f"keymap {path}: no file (the default keys are in use)")
        return 0
    loaded = load_keymap(path)
    if not loaded.problems:
        print(f"keymap {path}: ok ({count(len(loaded.keymap), 'binding')} remapped)")
        return 0
    print(f"keymap {path}: {count(len(loaded.problems), 'problem')}"
          " (those entries are not applied; the defaults stay):")
    for problem in loaded.problems:
        print(f"  {problem}")
    return 1
