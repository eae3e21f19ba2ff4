"""What storing token vectors at write time costs ``remember_many`` (issue 14), as a table.

Over the first LoCoMo turns in batches of 64: the bundled model's ``embed`` against
``embed_with_tokens`` (one forward pass for the pooled vector and the token vectors), the int8
quantisation, and the engine write of a batch without and with the token vectors (vectors
given, so the model is not timed there). Ratios are within one run.

    .venv/bin/python benches/token_write_bench.py [--memories 640]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import hebbs
from hebbs.embedder import default_embedder
from hebbs.embedder.token_vectors import quantize_int8
from locomo import data

BATCH = 64
ROUNDS = 5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=640)
    args = parser.parse_args()
    texts = [t.content for c in data.load(data.DEFAULT_DATA) for t in c.turns][: args.memories]
    embedder = default_embedder()
    batches = [texts[i : i + BATCH] for i in range(0, len(texts), BATCH)]
    embed_s = tokens_s = quantize_s = 0.0
    for batch in batches:
        started = time.perf_counter()
        embedder.embed(batch)
        embed_s += time.perf_counter() - started
        started = time.perf_counter()
        _, tokens = embedder.embed_with_tokens(batch)
        tokens_s += time.perf_counter() - started
        started = time.perf_counter()
        [quantize_int8(matrix) for matrix in tokens]
        quantize_s += time.perf_counter() - started
    vectors, tokens = embedder.embed_with_tokens(texts)
    pairs = [quantize_int8(matrix) for matrix in tokens]
    plain: list[float] = []
    with_tokens: list[float] = []
    with tempfile.TemporaryDirectory() as root, hebbs.Hebbs.open(Path(root) / "db") as mem:
        for _ in range(ROUNDS):
            for i in range(0, len(texts), BATCH):
                rows = [{"content": text} for text in texts[i : i + BATCH]]
                started = time.perf_counter()
                mem._native.remember_many(rows, vectors[i : i + BATCH])
                plain.append(time.perf_counter() - started)
                rows = [
                    {"content": text, "token_vectors": pair}
                    for text, pair in zip(texts[i : i + BATCH], pairs[i : i + BATCH])
                ]
                started = time.perf_counter()
                mem._native.remember_many(rows, vectors[i : i + BATCH])
                with_tokens.append(time.perf_counter() - started)
    per = 1e3 / len(texts)
    write_plain = 1e3 * statistics.median(plain) / BATCH
    write_tokens = 1e3 * statistics.median(with_tokens) / BATCH
    print(f"{len(texts)} LoCoMo memories, batches of {BATCH}; ms per memory\n")
    print("| step | ms per memory | ratio |")
    print("| :--- | ---: | ---: |")
    print(f"| embed (pooled vectors only) | {embed_s * per:.2f} | 1.00 |")
    print(f"| embed_with_tokens (same pass) | {tokens_s * per:.2f} | {tokens_s / embed_s:.2f} |")
    print(f"| int8 quantisation | {quantize_s * per:.3f} | {quantize_s / embed_s:.3f} |")
    print(f"| engine write, no token vectors | {write_plain:.3f} | |")
    print(f"| engine write, with token vectors | {write_tokens:.3f} | |")


if __name__ == "__main__":
    main()
