"""Per-token vectors for late interaction: which tokens take part, their int8 form, and the one
forward pass that gives a text's pooled vector and its token vectors together.

- :func:`punctuation_ids` / :func:`keep_mask` -- ``[CLS]``, ``[SEP]`` and vocabulary entries
  made only of punctuation or symbols are left out of the match (the model still sees them, so
  the kept tokens are contextualised by them); a text with no token left keeps all of its
  tokens. Measured on LoCoMo in docs/hybrid.md.
- :func:`pool_tokens` -- fewer token vectors a memory (``token_pool_factor``): a text's kept
  tokens clustered by Ward's criterion into ``ceil(n / factor)`` groups, each the unit mean of
  its members (the token pooling of Clavie et al., 2024), so a store keeps a half or a third
  of the token vectors; measured in docs/hybrid.md.
- :func:`quantize_int8` -- one float32 scale per token, codes ``round(x / scale)`` with
  ``scale = max|x| / INT8_LIMIT``: the layout the engine's ``token_vectors`` column family
  stores (``dimension + 4`` bytes a token).
- :func:`token_embedder` -- the embedder that can give token vectors (an
  :class:`~hebbs.embedder.OnnxEmbedder`, also behind a
  :class:`~hebbs.embedder.BatchingEmbedder`), or None.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, Protocol

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from tokenizers import Tokenizer

    from .protocol import Embedder


class TokenEmbedder(Protocol):
    """An embedder that gives each text's token vectors from its embedding pass."""

    def embed_with_tokens(
        self, texts: Sequence[str], *, query: bool = False
    ) -> tuple[NDArray[np.float32], list[NDArray[np.float32]]]: ...


#: Largest magnitude of an int8 code.
INT8_LIMIT: Final = 127
#: Smallest scale, so an all-zero token vector still quantises.
_MIN_PEAK: Final = np.float32(1e-12)
_CONTINUATION = "##"  # WordPiece marks a word's later pieces with it


def punctuation_ids(tokenizer: Tokenizer) -> NDArray[np.int64]:
    """Ids of the vocabulary entries made only of punctuation or symbol characters."""
    ids = [
        token_id
        for token, token_id in tokenizer.get_vocab(with_added_tokens=False).items()
        if _is_punctuation(token.removeprefix(_CONTINUATION))
    ]
    return np.array(sorted(ids), dtype=np.int64)


def keep_mask(
    ids: list[int],
    special: list[int],
    punctuation: NDArray[np.int64],
    *,
    skip_special: bool = True,
    skip_punctuation: bool = True,
) -> NDArray[np.bool_]:
    """Which of a text's tokens take part in the match (see the module docs)."""
    keep = np.ones(len(ids), dtype=bool)
    if skip_special:
        keep &= ~np.asarray(special, dtype=bool)
    if skip_punctuation:
        keep &= ~np.isin(np.asarray(ids, dtype=np.int64), punctuation)
    return keep


def pool_tokens(vectors: NDArray[np.float32], factor: int) -> NDArray[np.float32]:
    """``ceil(n / factor)`` unit vectors standing for a text's ``n`` unit token vectors: the
    tokens are merged bottom-up, two groups at a time, the pair whose merge adds the least
    squared distance to their means (Ward's criterion); each group becomes its mean scaled to
    unit length, in the order of the group's first token."""
    matrix = np.asarray(vectors, dtype=np.float32)
    count = len(matrix)
    groups = -(-count // factor)
    if groups >= count:
        return matrix
    means = matrix.astype(np.float64)
    sizes = np.ones(count)
    alive = np.ones(count, dtype=bool)
    cost = np.stack([_merge_costs(means[i], sizes[i], means, sizes) for i in range(count)])
    np.fill_diagonal(cost, np.inf)
    for _ in range(count - groups):
        first, second = sorted(int(i) for i in np.unravel_index(np.argmin(cost), cost.shape))
        total = sizes[first] + sizes[second]
        means[first] = (means[first] * sizes[first] + means[second] * sizes[second]) / total
        sizes[first] = total
        alive[second] = False
        row = _merge_costs(means[first], total, means, sizes)
        row[~alive] = np.inf
        row[first] = np.inf
        cost[first, :] = cost[:, first] = row
        cost[second, :] = cost[:, second] = np.inf
    pooled: NDArray[np.float32] = means[alive].astype(np.float32)
    pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), _MIN_PEAK)
    return pooled


def _merge_costs(
    mean: NDArray[np.float64], size: float, means: NDArray[np.float64], sizes: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Ward's cost of merging the group (``mean``, ``size``) with each of ``means``:
    ``a * b / (a + b) * |mean_a - mean_b|^2``, the growth of the squared distances to the
    groups' means."""
    costs: NDArray[np.float64] = sizes * size / (sizes + size) * ((means - mean) ** 2).sum(axis=1)
    return costs


def quantize_int8(vectors: NDArray[np.float32]) -> tuple[NDArray[np.int8], NDArray[np.float32]]:
    """``(codes, scales)`` of a ``[tokens, dimension]`` matrix (see the module docs)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    peaks = np.abs(matrix).max(axis=1) if matrix.size else np.zeros(len(matrix), np.float32)
    scales = (np.maximum(peaks, _MIN_PEAK) / np.float32(INT8_LIMIT)).astype(np.float32)
    codes = np.rint(matrix / scales[:, np.newaxis]).astype(np.int8)
    return codes, scales


def dequantize_int8(codes: NDArray[np.int8], scales: NDArray[np.float32]) -> NDArray[np.float32]:
    """The float32 matrix that :func:`quantize_int8`'s output stands for."""
    decoded: NDArray[np.float32] = codes.astype(np.float32) * scales[:, np.newaxis]
    return decoded


def token_embedder(embedder: Embedder) -> TokenEmbedder | None:
    """``embedder`` if it gives token vectors: an :class:`OnnxEmbedder`, or a batching wrapper
    of one (whose token passes are then batched across threads too)."""
    from .batching import BatchingEmbedder
    from .onnx_embedder import OnnxEmbedder

    if isinstance(embedder, BatchingEmbedder):
        return embedder if isinstance(embedder.inner, OnnxEmbedder) else None
    return embedder if isinstance(embedder, OnnxEmbedder) else None


def _is_punctuation(piece: str) -> bool:
    return bool(piece) and all(unicodedata.category(char)[0] in "PS" for char in piece)
