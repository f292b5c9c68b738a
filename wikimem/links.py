"""Wiki-links, at the reference library's path: ``from wikimem.links import WikiLink, parse_wiki_links``.

A ``[[file:name]]`` link is part of the file format, so its grammar lives
with the rest of it in :mod:`wikimem.disk.links` (the evidence lines in
:mod:`wikimem.disk.marks` cite wiki items by link, and ``disk`` imports
nothing above it). This module is the documented face of that grammar.
"""

from __future__ import annotations

from wikimem.disk.links import WikiLink, parse_wiki_links

__all__ = ["WikiLink", "parse_wiki_links"]
