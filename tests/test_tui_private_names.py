"""No class of the app may reuse a private name of the Textual classes it extends.

Textual's underscore names are its own machinery: a subclass that defines
``_scroll_to`` (the reconcile queue did) is called back by Textual with
Textual's arguments and crashes; one that assigns ``self._running`` (the
Health pane did) or ``self._name`` (the promote screen did) silently
rewrites the message loop's state or the DOM node's name. Nothing warns at
definition time, so this test walks every class of ``wikimem_tui``:

* class level: the names in the class's own ``__dict__`` that start with
  ``_`` (dunders aside) must not be attributes of any Textual class in its
  MRO, except the bookkeeping Textual's own metaclass writes into every
  subclass (found by making a bare subclass of the same base, not listed
  by hand);
* instance level: the ``self._x = …`` assignments in the class's source
  must not assign a name Textual's classes in its MRO assign or define.

Deliberate overrides must be listed in ``ALLOWED`` with the reason and the
place Textual documents them; there are none today.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
import types
from functools import cache

from textual.scroll_view import ScrollView

import wikimem_tui

#: ``(class qualname, name) -> why`` for overrides Textual documents as extension points.
#: Empty on purpose: the app uses only Textual's public hooks (``on_*``, ``watch_*``,
#: ``action_*``, ``render_line``, ``compose``); an entry here needs the Textual docs page
#: that invites the override, e.g. ``_on_*`` handlers if one is ever intended.
ALLOWED: dict[tuple[str, str], str] = {}


def _app_classes() -> list[type]:
    modules = [wikimem_tui] + [importlib.import_module(info.name)
                               for info in pkgutil.walk_packages(wikimem_tui.__path__, "wikimem_tui.")]
    seen: dict[type, None] = {}
    for module in modules:
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__.startswith("wikimem_tui"):
                seen.setdefault(cls, None)
    return list(seen)


def _is_textual(cls: type) -> bool:
    return cls.__module__.split(".")[0] == "textual"


def _textual_bases(cls: type) -> list[type]:
    return [base for base in cls.__mro__[1:] if _is_textual(base)]


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@cache
def _bookkeeping(base: type) -> frozenset[str]:
    """Names Textual itself writes into every subclass of ``base`` (bindings, CSS, reactives caches)."""
    probe = types.new_class("Probe", (base,), {})
    return frozenset(vars(probe))


@cache
def _assigned_self_names(cls: type) -> frozenset[str]:
    """Private names assigned as ``self._x`` anywhere in the class body's source."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return frozenset()
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            for sub in ast.walk(target):
                if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                        and sub.value.id == "self" and _private(sub.attr)):
                    out.add(sub.attr)
    return frozenset(out)


def _clashes(cls: type) -> list[str]:
    """Every private Textual name ``cls`` redefines or reassigns, less the ``ALLOWED`` ones."""
    bases = _textual_bases(cls)
    if not bases:
        return []
    framework = _bookkeeping(bases[0])
    theirs_cls = {name for base in bases for name in dir(base) if _private(name)}
    theirs_self = set().union(*(_assigned_self_names(base) for base in bases))
    found = [(name, "defines ") for name in vars(cls)
             if _private(name) and name not in framework and name in theirs_cls]
    found += [(name, "assigns self.") for name in sorted(_assigned_self_names(cls))
              if name in theirs_self or name in theirs_cls]
    where = f"{cls.__module__}.{cls.__qualname__}"
    return [f"{where} {how}{name} (Textual's own)"
            for name, how in found if (cls.__qualname__, name) not in ALLOWED]


class _Shadow(ScrollView):
    """What the checker must catch: the queue's old ``_scroll_to`` and the Health pane's old flag."""

    def _scroll_to(self, index: int) -> None:  # type: ignore[override]
        pass

    def setup(self) -> None:
        self._running = True


def test_the_walk_sees_the_app_and_its_textual_bases() -> None:
    classes = _app_classes()
    names = {cls.__qualname__ for cls in classes}
    assert {"WikimemApp", "QueueList", "PromoteScreen", "HealthPane"} <= names
    assert any(base.__name__ == "ScrollView" for base in _textual_bases(
        next(c for c in classes if c.__qualname__ == "QueueList")))


def test_the_checker_catches_a_shadowed_private_method_and_attribute() -> None:
    found = _clashes(_Shadow)
    assert any("defines _scroll_to" in line for line in found)
    assert any("assigns self._running" in line for line in found)


def test_no_app_class_overrides_a_private_textual_name() -> None:
    clashes = [line for cls in _app_classes() for line in _clashes(cls)]
    assert clashes == []
