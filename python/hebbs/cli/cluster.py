"""The ``cluster`` commands: ``cluster serve --config cluster.toml`` deploys the cluster of the
config on Ray Serve and serves until interrupted; ``cluster add-shard --config cluster.toml
NAME`` joins that running cluster and adds shard NAME (moving the tenants it now owns);
``cluster remove-shard --config cluster.toml NAME`` moves shard NAME's tenants to their new
owners and removes it; ``cluster shards`` prints the shard list. They need the ``ray`` extra
(``pip install 'hebbs[ray]'``; docs/cluster.md)."""

from __future__ import annotations

import argparse
import signal
import threading
from types import FrameType
from typing import Any, Final

from hebbs.cli.commands import CommandOutput
from hebbs.cli.errors import UsageError

#: What ``cluster serve`` prints once the cluster has stopped.
STOPPED: Final = "cluster stopped"


def _cluster(args: argparse.Namespace) -> Any:
    from hebbs.cluster.config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except (ConfigError, OSError) as error:
        raise UsageError("--config", str(error)) from None
    try:
        from hebbs.cluster.deploy import Cluster
    except ImportError as error:
        raise UsageError(
            "", f"cluster needs the ray extra: pip install 'hebbs[ray]' ({error})"
        ) from None
    return Cluster(config)


def serve(args: argparse.Namespace) -> CommandOutput:
    """Deploys the cluster, prints its URL, serves until SIGINT or SIGTERM, then stops it."""
    cluster = _cluster(args)
    stop = threading.Event()

    def interrupted(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, interrupted) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        cluster.start()
        try:
            print(
                f"hebbs cluster serving at {cluster.url} (shards {', '.join(cluster.shards())})",
                flush=True,
            )
            stop.wait()
        finally:
            cluster.stop()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return CommandOutput({"stopped": True}, STOPPED)


def _move(args: argparse.Namespace, action: str) -> CommandOutput:
    """Runs the cluster's ``action`` (``add_shard`` or ``remove_shard``) on shard
    ``args.name``: prints what moved."""
    cluster = _cluster(args).join()
    try:
        try:
            report: dict[str, Any] = getattr(cluster, action)(args.name)
        except ValueError as error:
            raise UsageError("NAME", str(error)) from None
    finally:
        cluster.stop()
    moved = report["moved"]
    lines = [f"shards: {', '.join(report['shards'])}", f"moved {len(moved)} tenants"]
    lines += [
        f"  {t}: {m['from']} -> {m['to']} ({m['memories']} memories)" for t, m in moved.items()
    ]
    return CommandOutput(report, "\n".join(lines))


def add_shard(args: argparse.Namespace) -> CommandOutput:
    """Adds shard ``args.name`` to the running cluster: prints what moved."""
    return _move(args, "add_shard")


def remove_shard(args: argparse.Namespace) -> CommandOutput:
    """Removes shard ``args.name`` from the running cluster: prints what moved."""
    return _move(args, "remove_shard")


def shards(args: argparse.Namespace) -> CommandOutput:
    """The running cluster's shard list."""
    cluster = _cluster(args).join()
    try:
        found: list[str] = cluster.shards()
    finally:
        cluster.stop()
    return CommandOutput({"shards": found}, "\n".join(found))


#: ``cluster`` subcommand → its function.
SUBCOMMANDS: Final = {
    "serve": serve,
    "add-shard": add_shard,
    "remove-shard": remove_shard,
    "shards": shards,
}


def cluster(args: argparse.Namespace) -> CommandOutput:
    return SUBCOMMANDS[args.cluster_command](args)
