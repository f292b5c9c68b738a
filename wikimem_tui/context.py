"""Compatibility names: the Backend lives in ``backend.py``, the Catalogue in ``catalogue.py``.

Kept so modules written against the old single ``context`` module still
import; new code imports from the two modules directly.
"""

from __future__ import annotations

from wikimem_tui.backend import Backend, default_owner, evidence_line, promotion_content, promotion_detail
from wikimem_tui.catalogue import Catalogue

__all__ = ["Backend", "Catalogue", "default_owner", "evidence_line", "promotion_content", "promotion_detail"]
