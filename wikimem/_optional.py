"""Optional packages (jieba, the stemmer, numpy, onnxruntime…): asked about without importing them.

``import wikimem`` must load none of them, and a broken environment (a
package whose spec lookup raises) counts as "not installed", never as a
crash, in every place that asks.
"""

from __future__ import annotations

import importlib.util

__all__ = ["importable"]


def importable(name: str) -> bool:
    """Whether ``import name`` can work, answered without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
