"""``OnnxEmbedder``: a sentence-embedding model run with onnxruntime and HF tokenizers.

Owns tokenizer set-up (padding and truncation reset in code), the onnxruntime session, batching
with length sorting, pooling (mean or CLS), L2 normalisation and per-token vectors (also from
the same forward pass as the pooled vector, :meth:`OnnxEmbedder.embed_with_tokens`). onnxruntime
and tokenizers are imported when an ``OnnxEmbedder`` is built, not when this module is imported.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import NDArray

from ._arrays import check_texts, empty_matrix, l2_normalize
from .constants import DEFAULT_BATCH_SIZE, DEFAULT_MAX_LENGTH, DEFAULT_SPIN
from .protocol import Embedder
from .token_vectors import keep_mask, punctuation_ids

if TYPE_CHECKING:
    from tokenizers import Tokenizer

Pooling = Literal["mean", "cls"]

_POOLINGS: tuple[Pooling, ...] = ("mean", "cls")
_INPUT_IDS = "input_ids"
_ATTENTION_MASK = "attention_mask"
_TOKEN_TYPE_IDS = "token_type_ids"
_KNOWN_INPUTS = (_INPUT_IDS, _ATTENTION_MASK, _TOKEN_TYPE_IDS)
_HIDDEN_STATE_OUTPUT = "last_hidden_state"
_ONNX_INT_TYPES: dict[str, type[np.signedinteger[Any]]] = {
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
}
_DEFAULT_PAD_TOKEN = "[PAD]"
_ALLOW_SPINNING = "session.intra_op.allow_spinning"
_FORCE_SPINNING_STOP = "session.force_spinning_stop"
_MIN_MAX_LENGTH = 2  # room for the [CLS] and [SEP] special tokens
_HIDDEN_STATE_RANK = 3  # [batch, sequence, dimension]


def load_tokenizer(path: str | Path, max_length: int) -> Tokenizer:
    """Load a ``tokenizer.json`` and reset its padding and truncation.

    Files exported from the hub often fix padding at a constant length; here padding goes to
    the longest text of each batch and truncation to ``max_length`` tokens (special tokens
    included). The pad token and id are kept from the file's padding settings when present.
    """
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    padding = tokenizer.padding
    pad_token = str(padding["pad_token"]) if padding else _DEFAULT_PAD_TOKEN
    pad_id = tokenizer.token_to_id(pad_token)
    if pad_id is None:
        if padding is None:
            raise ValueError(f"tokenizer {path} has no padding settings and no {pad_token} token")
        pad_id = int(padding["pad_id"])
    pad_type_id = int(padding["pad_type_id"]) if padding else 0
    tokenizer.no_padding()
    tokenizer.no_truncation()
    tokenizer.enable_padding(pad_id=pad_id, pad_type_id=pad_type_id, pad_token=pad_token)
    tokenizer.enable_truncation(max_length=max_length)
    return tokenizer


class OnnxEmbedder(Embedder):
    """Embeds texts with a transformer encoder exported to ONNX.

    The model must take ``input_ids`` and optionally ``attention_mask`` and ``token_type_ids``
    (only the inputs it declares are fed) and return per-token hidden states
    ``[batch, sequence, dimension]``, preferably named ``last_hidden_state``.

    Texts are split into batches of ``batch_size`` after sorting by length, so that each batch
    is padded only to its own longest text, and results come back in input order. Texts longer
    than ``max_length`` tokens are truncated. ``document_prefix`` is prepended to every text
    given to :meth:`embed`, ``query_prefix`` to every text given to :meth:`embed_query` (for
    models such as E5 that expect ``"query: "`` / ``"passage: "``). ``threads`` sets
    onnxruntime's intra-op threads (``None``: one a physical core); with ``spin`` (the default,
    :data:`~hebbs.embedder.constants.DEFAULT_SPIN`) they spin-wait between the operators of a
    forward pass and stop when it returns, which is faster on cores that are otherwise idle and
    slower on cores that other processes keep busy (pass ``spin=False`` there).

    Instances are immutable after construction and safe to share between threads.
    """

    def __init__(
        self,
        model: str | Path,
        tokenizer: str | Path,
        pooling: Pooling = "mean",
        query_prefix: str = "",
        document_prefix: str = "",
        max_length: int = DEFAULT_MAX_LENGTH,
        batch_size: int = DEFAULT_BATCH_SIZE,
        threads: int | None = None,
        spin: bool = DEFAULT_SPIN,
    ) -> None:
        if pooling not in _POOLINGS:
            raise ValueError(f"pooling must be one of {_POOLINGS}, got {pooling!r}")
        if max_length < _MIN_MAX_LENGTH:
            raise ValueError(f"max_length must be at least {_MIN_MAX_LENGTH}, got {max_length}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if threads is not None and threads < 1:
            raise ValueError(f"threads must be None or at least 1, got {threads}")
        self.model_path = Path(model)
        self.tokenizer_path = Path(tokenizer)
        for label, path in (("model", self.model_path), ("tokenizer", self.tokenizer_path)):
            if not path.is_file():
                raise FileNotFoundError(f"{label} file not found: {path}")
        self.pooling: Pooling = pooling
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self.max_length = max_length
        self.batch_size = batch_size
        self.threads = threads
        self.spin = spin

        self._tokenizer = load_tokenizer(self.tokenizer_path, max_length)
        self._punctuation: NDArray[np.int64] | None = None
        self._session = _make_session(self.model_path, threads, spin)
        self._input_types = _model_inputs(self._session, self.model_path)
        self._output_name, declared_dimension = _hidden_state_output(self._session, self.model_path)
        if declared_dimension is None:
            declared_dimension = int(self._forward([""])[0].shape[-1])
        self.dimension = declared_dimension

    def __repr__(self) -> str:
        return (
            f"OnnxEmbedder(model={str(self.model_path)!r}, pooling={self.pooling!r}, "
            f"dimension={self.dimension}, max_length={self.max_length}, "
            f"batch_size={self.batch_size})"
        )

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed texts to be stored; see :meth:`Embedder.embed`."""
        return self._embed(check_texts(texts), self.document_prefix)

    def embed_query(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed search queries, with ``query_prefix`` prepended."""
        return self._embed(check_texts(texts), self.query_prefix)

    def token_embeddings(
        self, texts: Sequence[str], *, query: bool = False
    ) -> list[NDArray[np.float32]]:
        """Return, for each text, its per-token vectors as a float32 ``[tokens, dimension]``
        array with unit-norm rows.

        Only the tokens the attention mask keeps are returned (special tokens included, padding
        excluded), so ``len(result[i])`` equals the token count of ``texts[i]`` after
        truncation. ``query`` selects ``query_prefix`` instead of ``document_prefix``.
        """
        prefix = self.query_prefix if query else self.document_prefix
        prepared = _with_prefix(check_texts(texts), prefix)
        result: list[NDArray[np.float32]] = [empty_matrix(self.dimension)] * len(prepared)
        for batch in _length_sorted_batches(prepared, self.batch_size):
            hidden, mask = self._forward([prepared[i] for i in batch])
            for row, index in enumerate(batch):
                result[index] = l2_normalize(hidden[row][mask[row].astype(bool)])
        return result

    def embed_with_tokens(
        self, texts: Sequence[str], *, query: bool = False
    ) -> tuple[NDArray[np.float32], list[NDArray[np.float32]]]:
        """One forward pass per batch gives both: the pooled vectors (what :meth:`embed` or,
        with ``query``, :meth:`embed_query` returns, ``[n, dimension]``) and, per text, the
        unit-norm vectors of the tokens that take part in late interaction (special tokens
        and punctuation left out, see :mod:`hebbs.embedder.token_vectors`)."""
        prepared = _with_prefix(
            check_texts(texts), self.query_prefix if query else self.document_prefix
        )
        pooled = np.empty((len(prepared), self.dimension), dtype=np.float32)
        tokens: list[NDArray[np.float32]] = [empty_matrix(self.dimension)] * len(prepared)
        punctuation = self._punctuation_ids()
        for batch in _length_sorted_batches(prepared, self.batch_size):
            hidden, mask, encodings = self._forward_encoded([prepared[i] for i in batch])
            pooled[batch] = l2_normalize(self._pool(hidden, mask))
            for row, index in enumerate(batch):
                encoding = encodings[row]
                present = mask[row].astype(bool)
                keep = present & keep_mask(encoding.ids, encoding.special_tokens_mask, punctuation)
                tokens[index] = l2_normalize(hidden[row][keep if keep.any() else present])
        return pooled, tokens

    def _punctuation_ids(self) -> NDArray[np.int64]:
        if self._punctuation is None:
            self._punctuation = punctuation_ids(self._tokenizer)
        return self._punctuation

    def _embed(self, texts: list[str], prefix: str) -> NDArray[np.float32]:
        if not texts:
            return empty_matrix(self.dimension)
        prepared = _with_prefix(texts, prefix)
        out = np.empty((len(prepared), self.dimension), dtype=np.float32)
        for batch in _length_sorted_batches(prepared, self.batch_size):
            hidden, mask = self._forward([prepared[i] for i in batch])
            out[batch] = l2_normalize(self._pool(hidden, mask))
        return out

    def _pool(self, hidden: NDArray[np.float32], mask: NDArray[np.int64]) -> NDArray[np.float32]:
        if self.pooling == "cls":
            return np.ascontiguousarray(hidden[:, 0, :])
        weights = mask[:, :, np.newaxis].astype(np.float32)
        summed: NDArray[np.float32] = (hidden * weights).sum(axis=1)
        counts: NDArray[np.float32] = np.maximum(weights.sum(axis=1), np.float32(1e-9))
        return summed / counts

    def _forward(self, texts: list[str]) -> tuple[NDArray[np.float32], NDArray[np.int64]]:
        """Run one padded batch; return hidden states ``[b, s, d]`` and the mask ``[b, s]``."""
        hidden, mask, _ = self._forward_encoded(texts)
        return hidden, mask

    def _forward_encoded(
        self, texts: list[str]
    ) -> tuple[NDArray[np.float32], NDArray[np.int64], list[Any]]:
        """:meth:`_forward`, with the batch's tokenizer encodings."""
        encodings = self._tokenizer.encode_batch(texts)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        columns = {
            _INPUT_IDS: [e.ids for e in encodings],
            _ATTENTION_MASK: mask,
            _TOKEN_TYPE_IDS: [e.type_ids for e in encodings],
        }
        feeds = {name: np.asarray(columns[name], dtype=t) for name, t in self._input_types.items()}
        (output,) = self._session.run([self._output_name], feeds)
        hidden: NDArray[np.float32] = np.asarray(output, dtype=np.float32)
        return hidden, mask, encodings


def _make_session(model: Path, threads: int | None, spin: bool) -> Any:
    """A CPU session with every graph optimisation.

    With ``spin`` the intra-op workers spin-wait between the operators of one forward pass
    (waking a sleeping worker costs tens of microseconds on a virtual machine, and a pass runs
    a few hundred operators) and are told to stop when it returns, so they never spin while the
    recall that follows the pass runs (spinning left on after the pass made the default recall
    no faster, docs/embedder.md). Without it they sleep between operators.
    """
    import onnxruntime as ort  # type: ignore[import-untyped]

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.inter_op_num_threads = 1
    options.add_session_config_entry(_ALLOW_SPINNING, "1" if spin else "0")
    if spin:
        options.add_session_config_entry(_FORCE_SPINNING_STOP, "1")
    if threads is not None:
        options.intra_op_num_threads = threads
    return ort.InferenceSession(
        str(model), sess_options=options, providers=["CPUExecutionProvider"]
    )


def _model_inputs(session: Any, model: Path) -> dict[str, type[np.signedinteger[Any]]]:
    """Map each input the model declares to the integer dtype it expects."""
    types: dict[str, type[np.signedinteger[Any]]] = {}
    for node in session.get_inputs():
        name = str(node.name)
        if name not in _KNOWN_INPUTS:
            raise ValueError(f"{model}: unsupported model input {name!r}; known: {_KNOWN_INPUTS}")
        if node.type not in _ONNX_INT_TYPES:
            raise ValueError(f"{model}: input {name!r} has unsupported type {node.type}")
        types[name] = _ONNX_INT_TYPES[node.type]
    if _INPUT_IDS not in types:
        raise ValueError(f"{model}: the model declares no {_INPUT_IDS!r} input")
    return types


def _hidden_state_output(session: Any, model: Path) -> tuple[str, int | None]:
    """Name of the ``[batch, sequence, dimension]`` output and its dimension if declared."""
    outputs = [node for node in session.get_outputs() if len(node.shape) == _HIDDEN_STATE_RANK]
    if not outputs:
        raise ValueError(f"{model}: no output of shape [batch, sequence, dimension]")
    chosen = next((node for node in outputs if node.name == _HIDDEN_STATE_OUTPUT), outputs[0])
    last = chosen.shape[-1]
    return str(chosen.name), last if isinstance(last, int) else None


def _with_prefix(texts: list[str], prefix: str) -> list[str]:
    return [prefix + text for text in texts] if prefix else texts


def _length_sorted_batches(texts: list[str], batch_size: int) -> list[list[int]]:
    """Indices of ``texts`` grouped into batches, longest first, so padding stays small.

    Character length stands in for token length (as sentence-transformers does); it avoids
    tokenising twice.
    """
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]
