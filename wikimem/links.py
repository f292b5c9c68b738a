"""Wiki-links, at the reference library's path: ``from wikimem.links import WikiLink, parse_wiki_links``.

A ``[[file:name]]`` link is part of the file format, so its grammar lives
with the rest of it in :mod:`wikimem.disk.links` (the evidence lines in
:mod:`wikimem.disk.marks` cite wiki items by link, and ``disk`` imports
nothing above it). This module is the documented face of that grammar:
``parse_wiki_links`` reads the reference spelling exactly as the reference
library does; ``find_links`` reads Obsidian's spellings too.
"""

from __future__ import annotations

from wikimem.disk.links import LINK_STYLES, LinkRef, WikiLink, find_links, parse_wiki_links, render_link

__all__ = ["LINK_STYLES", "LinkRef", "WikiLink", "find_links", "parse_wiki_links", "render_link"]
