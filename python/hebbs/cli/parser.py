"""The argparse definition of the ``hebbs`` command line: global options, one subparser per
command, and a parser class that raises :class:`~hebbs.cli.errors.UsageError` instead of
exiting, so that :func:`hebbs.cli.main` decides the exit code and the output format."""

from __future__ import annotations

import argparse
from typing import Final, NoReturn, get_args

from hebbs import __version__
from hebbs._native import (
    DEFAULT_ANALOGICAL_ALPHA,
    DEFAULT_CAUSAL_DEPTH,
    DEFAULT_EF_SEARCH,
    DEFAULT_FORGET_LIMIT,
    DEFAULT_GRAPH_CONTEXT,
    DEFAULT_IMPORTANCE,
    DEFAULT_LIST_LIMIT,
    DEFAULT_LIST_PAGE,
    DEFAULT_PRIME_MAX_MEMORIES,
    DEFAULT_RERANK_TOP_N,
    DEFAULT_TOP_K,
    MAX_CAUSAL_DEPTH,
    MAX_EF_SEARCH,
    MAX_TOP_K,
    ScoringWeights,
)
from hebbs.api.recall import QualityName, RerankName
from hebbs.cli import values
from hebbs.cli.commands import ENTITY_STRATEGY, SEED_STRATEGY
from hebbs.cli.errors import UsageError
from hebbs.cli.fields import COMMAND_REQUESTS, add_generated_flags
from hebbs.cli.store import API_KEY_ENV, DB_ENV, DEFAULT_DB, URL_ENV
from hebbs.consolidate.constants import (
    DEFAULT_CONTRADICTION_SIMILARITY,
    DEFAULT_DEDUP_THRESHOLD,
    RESOLUTIONS,
)
from hebbs.reflect.constants import (
    DEFAULT_MIN_CLUSTER_SIZE,
    DEFAULT_MIN_CONFIDENCE,
    DEFAULT_REFLECT_MAX_MEMORIES,
    DEFAULT_SESSION_TTL_S,
)
from hebbs.server.settings import DEFAULT_GRPC_PORT, DEFAULT_HOST, DEFAULT_PORT, DEFAULT_UI_PORT
from hebbs.service.keys import SCOPES

#: What ``recall --quality`` and ``--rerank`` accept: the request model's names.
QUALITY_PRESETS: Final = get_args(QualityName)
RERANK_STAGES: Final = get_args(RerankName)

#: Name of the program in help and error messages.
PROG: Final = "hebbs"

_EXAMPLES = f"""\
examples:
  {PROG} remember "Acme asked for a 15% discount" --entity-id acme --importance 0.8 \\
      --context '{{"channel": "email", "topic": "pricing"}}'
  {PROG} remember "Discount approved" --entity-id acme --edge ID:caused_by:0.9
  {PROG} recall "what did Acme want on price?" --top-k 5
  {PROG} recall --strategy temporal --entity-id acme --since 7d
  {PROG} recall "latest on pricing" --weights {values.format_weights(values.RECENCY_WEIGHTS)}
  {PROG} recall --strategy causal --seed ID --direction causes --edge-type caused_by
  {PROG} recall "launch slipped" --strategy analogical --cue-context '{{"outcome": "delay"}}'
  {PROG} prime acme "pricing call"
  {PROG} recall "INC4711 invoice export" --strategy hybrid --min-relevance 0.3
  {PROG} recall 'INC\\d{{4}}' --regex
  {PROG} recall "refund" --filter '{{"context.channel": "email"}}'
  {PROG} get ID
  {PROG} recall "pricing" --url http://127.0.0.1:{DEFAULT_PORT} --api-key hb_...
  {PROG} list --entity-id acme --kind insight --limit 20
  {PROG} revise ID --content "Discount approved at 12%"
  {PROG} forget ID
  {PROG} forget --entity-id acme --purge
  {PROG} forget --older-than 90d --importance-below 0.3
  {PROG} demo
  {PROG} keys create --db ./data --tenant acme --scope write --expires 30d
  {PROG} serve --db ./data --port {DEFAULT_PORT} --grpc-port {DEFAULT_GRPC_PORT}
  {PROG} mcp --db ./memory
  {PROG} export --db ./memory > dump.jsonl
  {PROG} import --db ./copy dump.jsonl
  {PROG} import --db ./memory --from-chroma ./chroma --collection notes
  {PROG} cluster serve --config cluster.toml
  {PROG} cluster add-shard --config cluster.toml c
  {PROG} cluster remove-shard --config cluster.toml c
"""


class CliParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise :class:`UsageError` instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError("", message, prog=self.prog)


def build_parser() -> CliParser:
    """The parser of the whole command line."""
    parser = CliParser(
        prog=PROG,
        description="hebbs: an embeddable memory engine for AI agents.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    _add_global_options(parser, db_help=_db_help(), in_subcommand=False, remote=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_remember(commands)
    _add_recall(commands)
    _add_get(commands)
    _add_revise(commands)
    _add_forget(commands)
    _add_health(commands)
    _add_prime(commands)
    _add_sessions(commands)
    _add_reflection(commands)
    _add_index(commands)
    _add_demo(commands)
    _add_serve(commands)
    _add_ui(commands)
    _add_keys(commands)
    _add_mcp(commands)
    _add_export(commands)
    _add_import(commands)
    _add_cluster(commands)
    for command in COMMAND_REQUESTS:
        add_generated_flags(commands.choices[command], command)
    return parser


def _db_help() -> str:
    return f"database directory (default: ${DB_ENV}, else {DEFAULT_DB})"


def _add_global_options(
    parser: argparse.ArgumentParser, *, db_help: str, in_subcommand: bool, remote: bool
) -> None:
    """``--db`` and ``--json``, and with ``remote`` ``--url`` and ``--api-key``, accepted before
    and after the command name. In a subcommand their default is SUPPRESS so that a value given
    before the command is kept."""
    db_default = argparse.SUPPRESS if in_subcommand else None
    json_default = argparse.SUPPRESS if in_subcommand else False
    parser.add_argument("--db", metavar="PATH", default=db_default, help=db_help)
    if remote:
        parser.add_argument(
            "--url",
            metavar="URL",
            type=values.url,
            default=db_default,
            help=f"run on the hebbs server at URL instead of --db (default: ${URL_ENV})",
        )
        parser.add_argument(
            "--api-key",
            metavar="KEY",
            type=values.api_key,
            default=db_default,
            help=f"the server's API key, sent with --url (default: ${API_KEY_ENV})",
        )
    parser.add_argument(
        "--json",
        action="store_true",
        default=json_default,
        help="print machine-readable JSON instead of text",
    )


def _subparser(
    commands: argparse._SubParsersAction[CliParser],
    name: str,
    summary: str,
    *,
    remote: bool = True,
) -> CliParser:
    """A command's parser with the global options; ``remote`` False for the commands that work
    on a directory only (``serve``, ``keys``), which take no ``--url``."""
    sub = commands.add_parser(name, help=summary, description=summary)
    _add_global_options(sub, db_help=_db_help(), in_subcommand=True, remote=remote)
    return sub


def _add_remember(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(commands, "remember", "store one memory and print its id")
    sub.add_argument(
        "--dedup",
        action="store_true",
        help="return an existing near-duplicate of the same entity instead of storing",
    )
    sub.add_argument(
        "--dedup-threshold",
        metavar="F",
        type=values.relevance,
        help=f"cosine of a duplicate with --dedup (default {DEFAULT_DEDUP_THRESHOLD})",
    )
    sub.add_argument("content", metavar="CONTENT", type=values.unicode_text, help="the memory text")
    sub.add_argument(
        "--entity-id", metavar="E", type=values.unicode_text, help="entity the memory belongs to"
    )
    sub.add_argument(
        "--importance",
        metavar="F",
        type=values.importance,
        help=f"importance in 0..1 (default {DEFAULT_IMPORTANCE})",
    )
    sub.add_argument(
        "--context",
        metavar="JSON",
        type=values.context_object,
        help='structured metadata, a JSON object such as \'{"channel": "email"}\'',
    )
    sub.add_argument(
        "--edge",
        metavar="TARGET:TYPE[:CONFIDENCE]",
        dest="edges",
        action="append",
        type=values.edge_spec,
        default=[],
        help=f"an edge to memory TARGET (repeatable); TYPE is one of "
        f"{', '.join(values.EDGE_TYPES)} (CamelCase works too); CONFIDENCE in 0..1",
    )
    sub.add_argument(
        "--created-at",
        metavar="T",
        type=values.timestamp,
        help="creation time (imports): ISO 8601, microseconds since the epoch, or 7d ago",
    )
    sub.add_argument(
        "--session",
        metavar="S",
        type=values.unicode_text,
        help="the conversation this memory came from",
    )
    sub.add_argument(
        "--kind",
        metavar="KIND",
        choices=values.MEMORY_KINDS,
        help="what the memory is: episode (default), insight, document or proposition",
    )


def _add_recall(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(commands, "recall", "recall memories ranked by the composite score")
    sub.add_argument(
        "cue",
        metavar="CUE",
        nargs="?",
        type=values.unicode_text,
        help="what to recall (optional for temporal recall)",
    )
    sub.add_argument(
        "--strategy",
        dest="strategies",
        metavar="NAME",
        action="append",
        type=values.strategy,
        default=[],
        help=f"{' or '.join(values.STRATEGIES)} (repeatable; default: the default pipeline "
        f"with a CUE (hybrid, late-interaction re-rank, composite order), else "
        f"{SEED_STRATEGY} with --seed, else {ENTITY_STRATEGY} with --entity-id)",
    )
    sub.add_argument(
        "--top-k",
        metavar="N",
        type=values.positive_int,
        default=DEFAULT_TOP_K,
        help=f"results to return, 1..{MAX_TOP_K} (default {DEFAULT_TOP_K})",
    )
    sub.add_argument(
        "--entity-id",
        metavar="E",
        type=values.unicode_text,
        help="entity scope: required by temporal, restricts similarity",
    )
    _add_time_window(sub, "temporal: created")
    _add_ranking(sub)
    sub.add_argument(
        "--include-superseded",
        action="store_true",
        help="also return memories a revision superseded",
    )
    sub.add_argument(
        "--seed",
        metavar="ID",
        type=values.unicode_text,
        help="causal: the memory the walk starts from (default: the one nearest the CUE); "
        "analogical: the memory whose structure to match",
    )
    sub.add_argument(
        "--max-depth",
        metavar="N",
        type=values.positive_int,
        default=DEFAULT_CAUSAL_DEPTH,
        help=f"causal: most hops, 1..{MAX_CAUSAL_DEPTH} (default {DEFAULT_CAUSAL_DEPTH})",
    )
    sub.add_argument(
        "--edge-type",
        dest="edge_types",
        metavar="TYPE",
        action="append",
        type=values.edge_type,
        default=[],
        help="causal: follow only this edge type (repeatable; default: all)",
    )
    sub.add_argument(
        "--direction",
        metavar="DIR",
        type=values.direction,
        default=values.DEFAULT_DIRECTION,
        help=f"causal: {', '.join(values.DIRECTIONS)} (default {values.DEFAULT_DIRECTION})",
    )
    sub.add_argument(
        "--alpha",
        metavar="A",
        type=values.alpha,
        default=DEFAULT_ANALOGICAL_ALPHA,
        help="analogical: weight of embedding against structural similarity, 0..1 "
        f"(default {DEFAULT_ANALOGICAL_ALPHA})",
    )
    sub.add_argument(
        "--min-relevance",
        metavar="R",
        type=values.relevance,
        help="relevance floor in 0..1: weaker candidates are dropped and counted",
    )
    sub.add_argument(
        "--graph-context",
        metavar="N",
        type=values.count,
        default=DEFAULT_GRAPH_CONTEXT,
        help=f"attach each result's N strongest relationships (default {DEFAULT_GRAPH_CONTEXT})",
    )
    sub.add_argument(
        "--quality",
        metavar="PRESET",
        choices=QUALITY_PRESETS,
        help="fast: hybrid without the re-rank stage; best: the default pipeline ranked by "
        "relevance alone (docs/hybrid.md)",
    )
    sub.add_argument(
        "--rerank",
        metavar="STAGE",
        choices=RERANK_STAGES,
        help="re-rank stage over the ranked head: none or late_interaction",
    )
    sub.add_argument(
        "--rerank-top-n",
        metavar="N",
        type=values.count,
        default=DEFAULT_RERANK_TOP_N,
        help=f"candidates the re-rank stage re-scores (default {DEFAULT_RERANK_TOP_N})",
    )
    sub.add_argument(
        "--regex",
        action="store_true",
        help="treat CUE as a regular expression and scan content and context (bounded)",
    )
    sub.add_argument(
        "--session",
        metavar="S",
        type=values.unicode_text,
        help="record the results as touched by this conversation",
    )
    sub.add_argument(
        "--filter",
        metavar="JSON",
        type=values.context_object,
        help="only memories this filter selects (docs/filters.md), e.g. "
        '\'{"context.channel": "email", "context.priority": {"$gte": 2}}\'',
    )
    sub.add_argument(
        "--cue-context",
        metavar="JSON",
        type=values.context_object,
        help="analogical: the structure to match, e.g. "
        '\'{"entities": ["a", "b"], "action": "launch", "outcome": "delay"}\'',
    )
    sub.add_argument(
        "--include-organization",
        action="store_true",
        help="also recall from the organization's memory (answered as organization_memory)",
    )
    sub.add_argument(
        "--organization",
        metavar="PATH",
        help="with --db: the organization's store directory, for --include-organization",
    )


def _add_time_window(sub: CliParser, scope: str) -> None:
    """``--since`` and ``--until``, the request's ``time_range``; ``scope`` starts their help."""
    sub.add_argument("--since", metavar="T", type=values.timestamp, help=f"{scope} at or after T")
    sub.add_argument("--until", metavar="T", type=values.timestamp, help=f"{scope} at or before T")


def _add_ranking(sub: CliParser) -> None:
    """The options recall and prime share: the composite weights, the search width and the
    embedding of each result."""
    sub.add_argument(
        "--weights",
        metavar="R:REC:IMP:REINF",
        type=values.weights,
        help="composite-score weights of relevance, recency, importance and reinforcement "
        f"(default {_default_weights()}; recency-biased: "
        f"{values.format_weights(values.RECENCY_WEIGHTS)})",
    )
    sub.add_argument(
        "--ef-search",
        metavar="N",
        type=values.positive_int,
        help=f"HNSW candidate list size for this call, at most {MAX_EF_SEARCH} "
        f"(default {DEFAULT_EF_SEARCH})",
    )
    sub.add_argument(
        "--with-embedding", action="store_true", help="also print each result's embedding"
    )


def _default_weights() -> str:
    """The composite-score weights a recall uses without ``--weights``, read off
    ``ScoringWeights()``."""
    defaults = ScoringWeights()
    return values.format_weights(
        (
            defaults.w_relevance,
            defaults.w_recency,
            defaults.w_importance,
            defaults.w_reinforcement,
        )
    )


def _add_sessions(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(commands, "chat-context", "the memories a conversation touched, in order")
    sub.add_argument(
        "session", metavar="SESSION", type=values.unicode_text, help="the conversation id"
    )
    _add_limit(sub)
    _add_limit(_subparser(commands, "orphans", "memories with no edges, newest first"))
    _add_list(commands)


def _add_index(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(
        commands, "index", "index Markdown and text files or folders (--db only)", remote=False
    )
    sub.add_argument("paths", metavar="PATH", nargs="+", help="a file or a folder")
    sub.add_argument("--no-progress", action="store_true", help="no progress bar")


def _add_reflection(commands: argparse._SubParsersAction[CliParser]) -> None:
    """``reflect``, ``insights``, ``reflect-prepare`` and ``reflect-commit``."""
    scope_help = "only entity E's memories (default: the whole store)"
    reflect = _subparser(commands, "reflect", "consolidate new memories into insights")
    prepare = _subparser(
        commands, "reflect-prepare", "the clusters and prompts for a host's own model"
    )
    for sub in (reflect, prepare):
        sub.add_argument("--entity-id", metavar="E", type=values.unicode_text, help=scope_help)
        sub.add_argument(
            "--max-memories",
            metavar="N",
            type=values.positive_int,
            help=f"most new memories to read (default {DEFAULT_REFLECT_MAX_MEMORIES})",
        )
        sub.add_argument(
            "--min-cluster-size",
            metavar="N",
            type=values.positive_int,
            help=f"smallest cluster reflected on (default {DEFAULT_MIN_CLUSTER_SIZE})",
        )
    reflect.add_argument(
        "--min-confidence",
        metavar="F",
        type=values.relevance,
        help=f"store insights of at least this confidence (default {DEFAULT_MIN_CONFIDENCE})",
    )
    reflect.add_argument(
        "--since", metavar="TIME", type=values.timestamp, help="only memories created since TIME"
    )
    prepare.add_argument(
        "--ttl",
        metavar="DURATION",
        type=values.duration,
        help=f"how long the session waits for its commit (default {DEFAULT_SESSION_TTL_S:g} s)",
    )
    insights = _subparser(commands, "insights", "the insights with confidence and sources")
    insights.add_argument("--entity-id", metavar="E", type=values.unicode_text, help=scope_help)
    insights.add_argument(
        "--min-confidence", metavar="F", type=values.relevance, help="at least this confidence"
    )
    insights.add_argument(
        "--include-stale", action="store_true", help="also insights whose sources were revised"
    )
    found = _subparser(commands, "contradictions", "similar memories of one entity that disagree")
    found.add_argument("--entity-id", metavar="E", type=values.unicode_text, help=scope_help)
    found.add_argument(
        "--threshold",
        metavar="F",
        type=values.relevance,
        help=f"least cosine of a pair (default {DEFAULT_CONTRADICTION_SIMILARITY})",
    )
    found.add_argument("--limit", metavar="N", type=values.positive_int, help="most pairs")
    confirm = _subparser(commands, "confirm-contradiction", "record that NEWER contradicts OLDER")
    confirm.add_argument("older", metavar="OLDER", type=values.unicode_text, help="older memory id")
    confirm.add_argument("newer", metavar="NEWER", type=values.unicode_text, help="newer memory id")
    confirm.add_argument(
        "--resolution",
        choices=RESOLUTIONS,
        default=RESOLUTIONS[0],
        help="link: a contradicts edge; revise: the older revised with the newer's content",
    )
    commit = _subparser(commands, "reflect-commit", "store a host's insights for a session")
    commit.add_argument(
        "session", metavar="SESSION", type=values.unicode_text, help="reflect-prepare's session"
    )
    commit.add_argument(
        "insights",
        metavar="INSIGHTS",
        help='JSON array of {"content", "sources", "confidence"}, or - to read it from stdin',
    )


def _add_list(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(
        commands, "list", "one page of the stored memories, oldest first, and the next cursor"
    )
    sub.add_argument(
        "--entity-id",
        metavar="E",
        type=values.unicode_text,
        help="only entity E's memories, in created_at order (default: all, in id order)",
    )
    sub.add_argument(
        "--kind", metavar="KIND", choices=values.MEMORY_KINDS, help="episode, insight or revision"
    )
    sub.add_argument(
        "--cursor",
        metavar="C",
        type=values.unicode_text,
        help="continue after the previous page's next cursor (32 hex digits)",
    )
    sub.add_argument(
        "--limit",
        metavar="N",
        type=values.positive_int,
        default=DEFAULT_LIST_PAGE,
        help=f"most memories on the page (default {DEFAULT_LIST_PAGE})",
    )
    sub.add_argument(
        "--include-superseded",
        action="store_true",
        help="also list memories a revision superseded",
    )
    sub.add_argument(
        "--filter",
        metavar="JSON",
        type=values.context_object,
        help="only memories this filter selects (docs/filters.md)",
    )


def _add_limit(sub: CliParser) -> None:
    sub.add_argument(
        "--limit",
        metavar="N",
        type=values.positive_int,
        default=DEFAULT_LIST_LIMIT,
        help=f"most memories to list (default {DEFAULT_LIST_LIMIT})",
    )


def _add_prime(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(
        commands, "prime", "an entity's recent memories blended with those nearest a cue"
    )
    sub.add_argument(
        "entity_id", metavar="ENTITY", type=values.unicode_text, help="the entity to prime for"
    )
    sub.add_argument(
        "cue",
        metavar="CUE",
        nargs="?",
        type=values.unicode_text,
        help="what the agent is about to do",
    )
    sub.add_argument(
        "--max-memories",
        metavar="N",
        type=values.positive_int,
        default=DEFAULT_PRIME_MAX_MEMORIES,
        help=f"results to return (default {DEFAULT_PRIME_MAX_MEMORIES})",
    )
    sub.add_argument(
        "--filter",
        metavar="JSON",
        type=values.context_object,
        help="only memories this filter selects (docs/filters.md)",
    )
    _add_time_window(sub, "only memories created")
    _add_ranking(sub)


def _add_get(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(commands, "get", "print every field of one memory")
    sub.add_argument(
        "id", metavar="ID", type=values.unicode_text, help="the memory id (32 hex digits)"
    )
    sub.add_argument(
        "--with-embedding", action="store_true", help="also print the stored embedding"
    )


def _add_revise(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(commands, "revise", "store a revision that supersedes a memory")
    sub.add_argument(
        "id", metavar="ID", type=values.unicode_text, help="the memory to revise (32 hex digits)"
    )
    sub.add_argument(
        "--content",
        metavar="TEXT",
        type=values.unicode_text,
        help="the new text (embedded again)",
    )
    sub.add_argument(
        "--importance", metavar="F", type=values.importance, help="the new importance in 0..1"
    )
    sub.add_argument(
        "--context", metavar="JSON", type=values.context_object, help="the new context object"
    )
    sub.add_argument("--entity-id", metavar="E", type=values.unicode_text, help="the new entity")


def _add_forget(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(
        commands,
        "forget",
        "forget memories (and what derives from them); selectors are AND-combined",
    )
    sub.add_argument(
        "ids",
        metavar="ID",
        nargs="*",
        type=values.unicode_text,
        help="memories to forget (32 hex digits)",
    )
    sub.add_argument(
        "--entity-id", metavar="E", type=values.unicode_text, help="everything about entity E"
    )
    sub.add_argument(
        "--older-than",
        metavar="T",
        type=values.timestamp,
        help="created before T: ISO 8601, microseconds since the epoch, or 7d ago",
    )
    sub.add_argument(
        "--importance-below",
        metavar="F",
        type=values.importance,
        help="importance below F (0..1)",
    )
    sub.add_argument(
        "--kind", metavar="KIND", choices=values.MEMORY_KINDS, help="episode, insight or revision"
    )
    sub.add_argument(
        "--filter",
        metavar="JSON",
        type=values.context_object,
        help="only memories this filter selects (docs/filters.md)",
    )
    sub.add_argument(
        "--purge",
        action="store_true",
        help="also compact the store so the erased bytes leave the disk",
    )
    sub.add_argument(
        "--limit",
        metavar="N",
        type=values.positive_int,
        default=DEFAULT_FORGET_LIMIT,
        help=f"most memories per call (default {DEFAULT_FORGET_LIMIT}); run again to continue",
    )


def _add_health(commands: argparse._SubParsersAction[CliParser]) -> None:
    _subparser(commands, "health", "print serving state, version, memory count and uptime")


def _add_demo(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = commands.add_parser(
        "demo",
        help="remember a bundled sample and show what recall does with it",
        description="Remembers a bundled sample of an agent's conversations in one batch, "
        "then runs recall queries that show similarity on a paraphrase, an entity's timeline, "
        "entity-scoped similarity, and pure-relevance against recency-biased weights above a "
        "relevance floor.",
    )
    _add_global_options(
        sub,
        db_help="store the sample here, an empty or new directory "
        "(default: a temporary directory, removed afterwards)",
        in_subcommand=True,
        remote=False,
    )


def _add_serve(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(
        commands, "serve", "serve the REST API over --db (tenants and API keys)", remote=False
    )
    sub.add_argument(
        "--host",
        metavar="HOST",
        type=values.host,
        default=DEFAULT_HOST,
        help=f"address to listen on (default: {DEFAULT_HOST})",
    )
    sub.add_argument(
        "--port",
        metavar="N",
        type=values.port,
        default=DEFAULT_PORT,
        help=f"port to listen on, 0 for any free one (default {DEFAULT_PORT})",
    )
    sub.add_argument(
        "--grpc-port",
        metavar="N",
        type=values.port,
        help=f"also serve gRPC (package hebbs.v1) on this port (usually {DEFAULT_GRPC_PORT})",
    )
    sub.add_argument(
        "--no-auth",
        action="store_true",
        help="serve the one tenant 'default' without API keys (loopback hosts only)",
    )
    sub.add_argument(
        "--tls-cert", metavar="FILE", type=values.existing_file, help="serve HTTPS: certificate"
    )
    sub.add_argument(
        "--tls-key", metavar="FILE", type=values.existing_file, help="serve HTTPS: private key"
    )


def _add_ui(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(
        commands,
        "ui",
        "open the memory explorer over the store --db in the browser (loopback, no keys)",
        remote=False,
    )
    sub.add_argument(
        "--port",
        metavar="N",
        type=values.port,
        default=DEFAULT_UI_PORT,
        help=f"port to listen on at 127.0.0.1, 0 for any free one (default {DEFAULT_UI_PORT})",
    )
    sub.add_argument(
        "--no-browser", action="store_true", help="print the page's address, open no browser"
    )


def _add_keys(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(
        commands, "keys", "create, list and revoke the server's API keys", remote=False
    )
    actions = sub.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    create = _subparser(
        actions, "create", "create an API key and print it (shown only once)", remote=False
    )
    create.add_argument(
        "--tenant",
        metavar="T",
        type=values.tenant,
        required=True,
        help="the tenant the key belongs to (a-z, 0-9, _ and -)",
    )
    create.add_argument(
        "--scope",
        metavar="SCOPE",
        choices=SCOPES,
        required=True,
        help=f"{', '.join(SCOPES)}: each includes the ones before",
    )
    create.add_argument(
        "--expires",
        metavar="DURATION",
        type=values.duration,
        help="lifetime such as 30d, 12h or 90m (default: never expires)",
    )
    create.add_argument(
        "--org",
        metavar="ORG",
        type=values.tenant,
        help="the organization (a tenant) whose memory the tenant may read",
    )
    join = _subparser(
        actions, "join", "make a tenant a member of an organization (read access)", remote=False
    )
    join.add_argument("--tenant", metavar="T", type=values.tenant, required=True)
    join.add_argument("--org", metavar="ORG", type=values.tenant, required=True)
    leave = _subparser(actions, "leave", "end a tenant's organization membership", remote=False)
    leave.add_argument("--tenant", metavar="T", type=values.tenant, required=True)
    _subparser(actions, "list", "list the API keys (never the keys themselves)", remote=False)
    revoke = _subparser(actions, "revoke", "revoke an API key", remote=False)
    revoke.add_argument(
        "key_id", metavar="KEY_ID", type=values.unicode_text, help="the key_id to revoke"
    )


def _add_mcp(commands: argparse._SubParsersAction[CliParser]) -> None:
    _subparser(
        commands,
        "mcp",
        "serve the memory tools to an MCP host on stdin/stdout (over --db or --url)",
    )


def _add_export(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(
        commands, "export", "write the store of --db to stdout as JSON Lines", remote=False
    )
    sub.add_argument(
        "--no-embeddings",
        action="store_true",
        help="leave the vectors out (an import embeds the contents again)",
    )


def _add_import(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(
        commands,
        "import",
        "load an export (validated whole first) or a Chroma collection into --db",
        remote=False,
    )
    sub.add_argument(
        "file",
        metavar="FILE",
        nargs="?",
        type=values.existing_file,
        help="a file written by hebbs export",
    )
    sub.add_argument(
        "--from-chroma",
        metavar="PATH",
        type=values.existing_dir,
        help="a Chroma persistent directory to import from",
    )
    sub.add_argument(
        "--collection", metavar="NAME", type=values.name, help="the Chroma collection to import"
    )
    sub.add_argument(
        "--entity-key",
        metavar="KEY",
        type=values.name,
        help="with --from-chroma: the metadata key whose value becomes the entity_id",
    )
    sub.add_argument(
        "--reembed",
        action="store_true",
        help="with --from-chroma: embed the documents with the store's model, not Chroma's vectors",
    )
    sub.add_argument(
        "--chroma-python",
        metavar="PYTHON",
        type=values.existing_file,
        help="with --from-chroma: an interpreter that has chromadb (default: this one)",
    )


def _add_cluster(commands: argparse._SubParsersAction[CliParser]) -> None:
    sub = _subparser(
        commands, "cluster", "tenants sharded over hebbs servers on Ray Serve", remote=False
    )
    actions = sub.add_subparsers(dest="cluster_command", metavar="ACTION", required=True)
    for name, summary in (
        ("serve", "deploy the cluster of --config and serve until interrupted"),
        ("add-shard", "add shard NAME to the running cluster, moving the tenants it now owns"),
        ("remove-shard", "remove shard NAME, moving its tenants to their new owners"),
        ("shards", "print the running cluster's shards"),
    ):
        action = _subparser(actions, name, summary, remote=False)
        action.add_argument(
            "--config",
            metavar="FILE",
            type=values.existing_file,
            required=True,
            help="the cluster's TOML file (docs/cluster.md)",
        )
        if name in ("add-shard", "remove-shard"):
            action.add_argument("name", metavar="NAME", type=values.tenant, help="the shard")
