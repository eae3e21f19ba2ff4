"""The ``serve`` and ``keys`` commands: run the REST server over ``--db`` and manage its API
keys (``keys create`` prints a new key once; ``keys list``; ``keys revoke KEY_ID``)."""

from __future__ import annotations

import argparse
import time
from typing import Final

from hebbs.cli.commands import CommandOutput
from hebbs.cli.errors import UsageError
from hebbs.errors import NotFoundError
from hebbs.server.keys import KeyInfo, KeyStore

#: What ``serve`` prints when the server has stopped.
STOPPED: Final = "server stopped"


def serve(args: argparse.Namespace, data_dir: str) -> CommandOutput:
    """Serves ``data_dir`` until interrupted."""
    from hebbs.server.serve import check_no_auth

    try:
        check_no_auth(args.host, not args.no_auth)
    except ValueError as error:
        raise UsageError("--no-auth", str(error)) from None
    if (args.tls_cert is None) != (args.tls_key is None):
        raise UsageError("--tls-cert", "give both --tls-cert and --tls-key, or neither")
    try:
        from hebbs.server.serve import serve as run
    except ImportError as error:
        raise UsageError(
            "", f"serve needs the server extra: pip install 'hebbs[server]' ({error})"
        ) from None
    run(
        data_dir,
        host=args.host,
        port=args.port,
        auth=not args.no_auth,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        grpc_port=args.grpc_port,
    )
    return CommandOutput({"stopped": True}, STOPPED)


def keys(args: argparse.Namespace, data_dir: str) -> CommandOutput:
    """Runs ``keys create``, ``keys list`` or ``keys revoke``."""
    store = KeyStore(data_dir)
    try:
        if args.keys_command == "create":
            return _create(args, store)
        if args.keys_command == "revoke":
            return _revoke(args, store)
        return _list(store)
    finally:
        store.close()


def _create(args: argparse.Namespace, store: KeyStore) -> CommandOutput:
    key, info = store.create(args.tenant, args.scope, expires_in_s=args.expires)
    payload = {"key": key, "key_id": info.key_id, "tenant": info.tenant, "scope": info.scope}
    expiry = "never" if info.expires_at is None else _utc(info.expires_at)
    text = (
        f"key:     {key}\nkey_id:  {info.key_id}\ntenant:  {info.tenant}\n"
        f"scope:   {info.scope}\nexpires: {expiry}\n"
        "The key is shown only now: store it safely."
    )
    return CommandOutput(payload, text)


def _list(store: KeyStore) -> CommandOutput:
    found = store.list()
    lines = [f"{'KEY_ID':<21}  {'TENANT':<20}  {'SCOPE':<5}  {'CREATED':<20}  STATE"]
    now = time.time()
    for info in found:
        lines.append(
            f"{info.key_id:<21}  {info.tenant:<20}  {info.scope:<5}  "
            f"{_utc(info.created_at):<20}  {_state(info, now)}"
        )
    return CommandOutput({"keys": [_key_json(info) for info in found]}, "\n".join(lines))


def _revoke(args: argparse.Namespace, store: KeyStore) -> CommandOutput:
    if not store.revoke(args.key_id):
        raise NotFoundError(f"no key {args.key_id}")
    return CommandOutput({"key_id": args.key_id, "revoked": True}, f"revoked {args.key_id}")


def _key_json(info: KeyInfo) -> dict[str, object]:
    return {
        "key_id": info.key_id,
        "tenant": info.tenant,
        "scope": info.scope,
        "created_at": info.created_at,
        "expires_at": info.expires_at,
        "revoked_at": info.revoked_at,
    }


def _state(info: KeyInfo, now: float) -> str:
    if info.revoked_at is not None:
        return f"revoked {_utc(info.revoked_at)}"
    if info.expires_at is not None:
        return f"{'expired' if info.expired(now) else 'expires'} {_utc(info.expires_at)}"
    return "active"


def _utc(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds))
