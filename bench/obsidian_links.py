"""Does an Obsidian vault resolve this memory's links? The bundled demo, respelled, read by a real resolver.

Copies the demo memory, writes its links in Obsidian's spelling
(``MemoryStore.respell_links("obsidian")``, what ``wikimem respell-links
--to obsidian`` does) and opens ``wiki/`` as a vault:

* with `obsidiantools <https://pypi.org/project/obsidiantools/>`_ when it
  is importable (not a dependency of this project: install it beside, e.g.
  ``pip install obsidiantools`` in a scratch venv, and run this script with
  that interpreter and ``PYTHONPATH`` set to the repository): every wiki
  link must name an existing note;
* always with Obsidian's heading rule checked here: ``[[note#heading]]``
  must name a ``## heading`` of that note.

The links the library itself reports as dangling (``wikimem lint``'s
``dangling-link``: the demo keeps one on purpose) are the only ones allowed
to miss. Prints the counts; exits 1 when any other link misses.
``python bench/obsidian_links.py``.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wikimem import MemoryStore  # noqa: E402
from wikimem.lint import lint  # noqa: E402

_HEADING_LINK_RE = re.compile(r"\[\[([^\]|#]*)#([^\]|]*)(?:\|[^\]]*)?\]\]")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        shutil.copytree(Path(str(resources.files("wikimem") / "demo")), root)
        (root / "build_demo.py").unlink(missing_ok=True)
        store = MemoryStore(root)
        changed = store.respell_links("obsidian")
        wiki = root / "wiki"
        dangling = {m.group(0) for f in lint(root).findings if f.code == "dangling-link"
                    for m in re.finditer(r"\[\[[^\]]*\]\]", f.message)}
        print(f"demo memory: {len(store.items())} items, links of {len(changed)} respelled to [[file#item]]")
        print(f"wikimem lint: {len(dangling)} dangling on purpose: {', '.join(sorted(dangling)) or '-'}")
        misses = _headings(wiki)
        print(f"heading links [[note#heading]]: {misses[0]} checked, unresolved: {misses[1] or '-'}")
        notes = _obsidiantools(wiki)
        allowed = {link.replace(":", "#") for link in dangling}
        bad = [link for link in misses[1] if link not in allowed]
        if bad or notes:
            print(f"FAIL: {bad + notes}")
            return 1
        print("every link that is not dangling on purpose resolves")
        return 0


def _headings(wiki: Path) -> tuple[int, list[str]]:
    """How many heading links the vault holds, and those whose note or heading does not exist."""
    checked, missing = 0, []
    for path in sorted(wiki.glob("*.md")):
        for match in _HEADING_LINK_RE.finditer(path.read_text("utf-8")):
            checked += 1
            note = wiki / f"{(match.group(1) or path.stem).strip().lower()}.md"
            heads = set(re.findall(r"^## (.*)$", note.read_text("utf-8"), re.M)) if note.is_file() else set()
            if match.group(2).strip() not in heads:
                missing.append(match.group(0))
    return checked, missing


def _obsidiantools(wiki: Path) -> list[str]:
    """The notes obsidiantools finds linked but absent (``[]`` when it is not installed: said)."""
    try:
        import obsidiantools.api as otools  # type: ignore[import-not-found]
    except ImportError:
        print("obsidiantools: not installed here (see the module doc); skipped")
        return []
    vault = otools.Vault(wiki).connect().gather()
    links = sum(len(v) for v in vault.wikilinks_index.values())
    print(f"obsidiantools: {len(vault.md_file_index)} notes, {links} wikilinks, notes missing: "
          f"{vault.nonexistent_notes or '-'}")
    return list(vault.nonexistent_notes)


if __name__ == "__main__":
    raise SystemExit(main())
