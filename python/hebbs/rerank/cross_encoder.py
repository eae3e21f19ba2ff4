"""``CrossEncoderReranker``: a BERT-style cross-encoder exported to ONNX, run with onnxruntime.

The query and each document are tokenised together as a pair (``[CLS] query [SEP] document
[SEP]``, with segment ids 0 and 1), truncated longest-first to ``max_length``, and the model's
relevance logit is the score. No cross-encoder ships on PyPI, so the files come from the user
(for example an ms-marco MiniLM or BGE re-ranker exported with optimum). onnxruntime and
tokenizers are imported when the re-ranker is built.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hebbs._inputs import invalid
from hebbs.embedder.constants import DEFAULT_SPIN
from hebbs.embedder.onnx_embedder import _make_session, _model_inputs, load_tokenizer
from hebbs.errors import RerankError

from .constants import DEFAULT_CROSS_ENCODER_BATCH_SIZE, DEFAULT_CROSS_ENCODER_MAX_LENGTH
from .protocol import check_input, empty_scores

_LOGITS_OUTPUT = "logits"
_INPUT_IDS = "input_ids"
_ATTENTION_MASK = "attention_mask"
_TOKEN_TYPE_IDS = "token_type_ids"
_MIN_MAX_LENGTH = 4  # [CLS] q [SEP] d [SEP] needs room for at least one token of each text
_TWO_CLASSES = 2  # a [batch, 2] output is (not relevant, relevant)
_MATRIX = 2  # rank of a [batch, classes] output


class CrossEncoderReranker:
    """Scores (query, document) pairs with an ONNX cross-encoder.

    ``model_path`` is the ``.onnx`` file; it must take ``input_ids`` and optionally
    ``attention_mask`` and ``token_type_ids`` and return ``[batch]``, ``[batch, 1]`` (a
    relevance logit) or ``[batch, 2]`` (not-relevant / relevant logits; the score is their
    difference) as ``logits`` or its first output. ``tokenizer_path`` is the model's
    ``tokenizer.json``. Pairs are run in batches of ``batch_size``, sorted by length so each
    batch pads little. The score is the raw logit: higher is more relevant; apply a sigmoid for
    a probability. ``threads`` and ``spin`` set onnxruntime's intra-op threads as for
    :class:`~hebbs.embedder.OnnxEmbedder`.

    Safe to share between threads.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        tokenizer_path: str | os.PathLike[str],
        *,
        max_length: int = DEFAULT_CROSS_ENCODER_MAX_LENGTH,
        batch_size: int = DEFAULT_CROSS_ENCODER_BATCH_SIZE,
        threads: int | None = None,
        spin: bool = DEFAULT_SPIN,
    ) -> None:
        _check_count("max_length", max_length, _MIN_MAX_LENGTH)
        _check_count("batch_size", batch_size, 1)
        if threads is not None:
            _check_count("threads", threads, 1)
        self.model_path = Path(model_path)
        self.tokenizer_path = Path(tokenizer_path)
        for field, path in (
            ("model_path", self.model_path),
            ("tokenizer_path", self.tokenizer_path),
        ):
            if not path.is_file():
                raise invalid(field, f"file not found: {path}")
        self.max_length = max_length
        self.batch_size = batch_size
        try:
            self._tokenizer = load_tokenizer(self.tokenizer_path, max_length)
            self._session = _make_session(self.model_path, threads, spin)
            self._input_types = _model_inputs(self._session, self.model_path)
        except Exception as error:
            raise RerankError(f"cannot load the cross-encoder: {error}") from error
        self._output_name = _logits_output(self._session, self.model_path)

    def __repr__(self) -> str:
        return (
            f"CrossEncoderReranker(model_path={str(self.model_path)!r}, "
            f"max_length={self.max_length}, batch_size={self.batch_size})"
        )

    def rerank(self, query: str, documents: Sequence[str]) -> NDArray[np.float32]:
        """Relevance logits of ``documents`` for ``query``; see :class:`Reranker`."""
        query, texts = check_input(query, documents)
        if not texts:
            return empty_scores()
        scores = np.empty(len(texts), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            scores[batch] = self._score_batch(query, [texts[i] for i in batch])
        return scores

    def _score_batch(self, query: str, texts: list[str]) -> NDArray[np.float32]:
        encodings = self._tokenizer.encode_batch([(query, text) for text in texts])
        columns = {
            _INPUT_IDS: [e.ids for e in encodings],
            _ATTENTION_MASK: [e.attention_mask for e in encodings],
            _TOKEN_TYPE_IDS: [e.type_ids for e in encodings],
        }
        feeds = {name: np.asarray(columns[name], dtype=t) for name, t in self._input_types.items()}
        try:
            (output,) = self._session.run([self._output_name], feeds)
        except Exception as error:
            raise RerankError(f"the cross-encoder failed: {error}") from error
        return _relevance(np.asarray(output, dtype=np.float32), len(texts))


def _relevance(logits: NDArray[np.float32], count: int) -> NDArray[np.float32]:
    """One score per pair from a ``[batch]``, ``[batch, 1]`` or ``[batch, 2]`` output."""
    if logits.ndim == 1 and logits.shape[0] == count:
        return logits
    if logits.ndim == _MATRIX and logits.shape[0] == count:
        if logits.shape[1] == 1:
            return logits[:, 0]
        if logits.shape[1] == _TWO_CLASSES:
            difference: NDArray[np.float32] = logits[:, 1] - logits[:, 0]
            return difference
    raise RerankError(
        f"the cross-encoder returned shape {logits.shape} for {count} pairs; expected "
        f"[{count}], [{count}, 1] or [{count}, 2]"
    )


def _logits_output(session: Any, model: Path) -> str:
    outputs = session.get_outputs()
    if not outputs:
        raise RerankError(f"{model}: the model has no outputs")
    chosen = next((node for node in outputs if node.name == _LOGITS_OUTPUT), outputs[0])
    return str(chosen.name)


def _check_count(field: str, value: object, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise invalid(field, f"must be an int of at least {minimum}, got {value!r}")
