"""LoCoMo evidence recall of hebbs: recall@5 and @10 per question category, as a table.

Reads ``../shared/data/locomo/locomo_dev7.json`` (CC BY-NC 4.0, evaluation only; never copied
into the project), builds one hebbs store per conversation in a temp dir and scores every
setting of ``locomo/settings.py`` on the questions of categories 1-4, the gold set being the
evidence turn ids. ``--latency`` also measures end-to-end recall + late-interaction p50.

    .venv/bin/python benches/locomo_eval.py [--top-n 50] [--cross-encoder-model M.onnx
        --cross-encoder-tokenizer tokenizer.json] [--rerank-url URL [--rerank-model NAME]]
        [--serve-rerank] [--latency 5000,100000 [--no-eval]]
        [--one-call [--questions N] [--experiments] [--passes 2] [--calls TEXT]
        [--token-pool-factor 1]]
        [--stage-latency 5000,100000] [--calibration]

``--one-call`` runs the evaluation of one ``recall()`` a question instead (``locomo/one_call.py``):
ingest like a user, then one ``recall(question, top_k=10, ...)`` per question and call, each
call on its own copy of the stores, the questions asked ``--passes`` times in a row (default 2:
the second pass shows what reinforcement does); ``--questions N`` keeps the first N questions
of each conversation (a dev subset while iterating), ``--calls TEXT`` the calls whose name
contains TEXT.

``--calibration`` fits the default recall's calibration of the stage score and replays the
reinforcement rules over two passes (``locomo/calibration.py``).

``--serve-rerank`` starts a local ``/rerank`` service backed by the late-interaction re-ranker
(``locomo/rerank_service.py``) and adds the HTTP re-ranker row against it: it must reproduce
the ``RRF + late interaction`` row at the same top-N.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import ExitStack
from pathlib import Path

from hebbs.api.requests import DEFAULT_TOKEN_POOL_FACTOR
from hebbs.embedder import default_embedder
from hebbs.rerank import (
    DEFAULT_RERANK_TOP_N,
    CrossEncoderReranker,
    HttpReranker,
    LateInteractionReranker,
    Reranker,
    TokenVectorCache,
)
from locomo import calibration, data, latency, one_call, rerank_service, stage_latency
from locomo.metrics import Tally, table
from locomo.settings import BEST_TOP_N, Query, Setting, settings
from locomo.store import open_store


def main() -> None:
    args = _parse()
    conversations = data.load(args.data)
    if args.calibration:
        calibration.report(conversations)
        return
    if args.one_call:
        one_call.evaluate(
            conversations,
            args.questions,
            args.experiments,
            args.passes,
            args.calls,
            args.token_pool_factor,
        )
        return
    if args.stage_latency:
        stage_latency.report(conversations, [int(n) for n in args.stage_latency.split(",")])
        return
    if not args.no_eval:
        with ExitStack() as stack:
            if args.serve_rerank:
                served = LateInteractionReranker(default_embedder(), cache=TokenVectorCache())
                args.rerank_url = stack.enter_context(rerank_service.serve(served))
            evaluate(conversations, settings(args.top_n, *_external_rerankers(args)))
    if args.latency:
        sizes = [int(n) for n in args.latency.split(",")]
        latency.report(conversations, sizes, [args.top_n, BEST_TOP_N])


def evaluate(conversations: list[data.Conversation], table_settings: dict[str, Setting]) -> None:
    """Scores every setting on every question and prints the table."""
    embedder = default_embedder()
    cache = TokenVectorCache()
    reranker = LateInteractionReranker(embedder, cache=cache)
    idf_reranker = LateInteractionReranker(embedder, cache=cache, query_weighting="idf")
    tallies = {name: Tally() for name in table_settings}
    seconds: dict[str, float] = defaultdict(float)
    turns = questions = 0
    with tempfile.TemporaryDirectory(prefix="hebbs-locomo-") as root:
        for conversation in conversations:
            started = time.perf_counter()
            store = open_store(conversation, embedder, reranker, idf_reranker, Path(root))
            seconds["(ingest + token cache)"] += time.perf_counter() - started
            vectors = embedder.embed_query([q.text for q in conversation.questions])
            for question, vector in zip(conversation.questions, vectors):
                query = Query(question.text, vector, store)
                for name, run in table_settings.items():
                    started = time.perf_counter()
                    ranked = run(store, query)
                    seconds[name] += time.perf_counter() - started
                    dia_ids = [conversation.turns[i].dia_id for i in ranked[:10]]
                    tallies[name].add(question.category, question.gold, dia_ids)
            turns += len(conversation.turns)
            questions += len(conversation.questions)
            store.engine.close()
            print(f"{conversation.sample_id}: {len(conversation.turns)} turns", file=sys.stderr)
    tokens = cache.nbytes / max(len(cache), 1)
    print(f"\n{len(conversations)} conversations, {turns} memories, {questions} questions")
    print(f"token cache (int8): {cache.nbytes / 1e6:.1f} MB, {tokens:,.0f} bytes per memory\n")
    print(table([(name, tallies[name]) for name in table_settings]))
    print("\nseconds spent per setting (first-stage rankings are shared, counted once):")
    for name, spent in seconds.items():
        print(f"  {name}: {spent:.1f}")


def _external_rerankers(args: argparse.Namespace) -> tuple[Reranker | None, Reranker | None]:
    cross: Reranker | None = None
    if args.cross_encoder_model is not None:
        cross = CrossEncoderReranker(args.cross_encoder_model, args.cross_encoder_tokenizer)
    http: Reranker | None = None
    if args.rerank_url is not None:
        http = HttpReranker(args.rerank_url, model=args.rerank_model)
    return cross, http


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=data.DEFAULT_DATA)
    parser.add_argument("--top-n", type=int, default=DEFAULT_RERANK_TOP_N)
    parser.add_argument("--cross-encoder-model", type=Path)
    parser.add_argument("--cross-encoder-tokenizer", type=Path)
    parser.add_argument("--rerank-url")
    parser.add_argument("--rerank-model")
    parser.add_argument(
        "--serve-rerank",
        action="store_true",
        help="serve the late-interaction re-ranker locally and point --rerank-url at it",
    )
    parser.add_argument("--latency", help="memory counts for the p50 latency, e.g. 5000,100000")
    parser.add_argument("--no-eval", action="store_true", help="only the latency part")
    parser.add_argument(
        "--one-call", action="store_true", help="issue 14: one recall() per question"
    )
    parser.add_argument(
        "--stage-latency", help="issue 14: recall p50 with the core re-rank stage, e.g. 100000"
    )
    parser.add_argument("--questions", type=int, help="with --one-call: questions per conversation")
    parser.add_argument(
        "--experiments", action="store_true", help="with --one-call: the default's variants too"
    )
    parser.add_argument(
        "--passes", type=int, default=2, help="with --one-call: times the questions are asked"
    )
    parser.add_argument(
        "--token-pool-factor",
        type=int,
        default=DEFAULT_TOKEN_POOL_FACTOR,
        help="with --one-call: the stores' token_pool_factor (token vectors a memory)",
    )
    parser.add_argument(
        "--calls", help="with --one-call: only the calls whose name has one of these (a,b)"
    )
    parser.add_argument(
        "--calibration",
        action="store_true",
        help="the stage score's calibration and the reinforcement rules (locomo/calibration.py)",
    )
    args = parser.parse_args()
    if (args.cross_encoder_model is None) != (args.cross_encoder_tokenizer is None):
        parser.error("--cross-encoder-model and --cross-encoder-tokenizer go together")
    if args.serve_rerank and args.rerank_url is not None:
        parser.error("--serve-rerank and --rerank-url exclude each other")
    return args


if __name__ == "__main__":
    main()
