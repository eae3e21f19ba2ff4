"""The ``serve``, ``ui`` and ``keys`` commands: run the REST server over ``--db``, open the
memory explorer over one store, and manage the server's API keys (``keys create`` prints a new
key once; ``keys list``; ``keys revoke KEY_ID``)."""

from __future__ import annotations

import argparse
import socket
import threading
import time
import webbrowser
from typing import Final

from hebbs._inputs import conflict
from hebbs.cli.commands import CommandOutput
from hebbs.cli.errors import UsageError
from hebbs.errors import ConflictError, NotFoundError
from hebbs.service.keys import KeyInfo, KeyStore

#: What ``serve`` prints when the server has stopped.
STOPPED: Final = "server stopped"
#: Seconds ``ui`` waits for the server to listen before it opens the browser.
BROWSER_DELAY_S: Final = 0.5


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


def ui(args: argparse.Namespace, store_dir: str) -> CommandOutput:
    """Serves the explorer over the one store ``store_dir`` on 127.0.0.1 without keys (it is
    the tenant ``default``), opens it in the browser, and serves until interrupted. The socket
    listens before the address is printed, so the page can be opened at once."""
    try:
        import uvicorn

        from hebbs.server.serve import config
        from hebbs.server.settings import DEFAULT_HOST
    except ImportError as error:
        raise UsageError(
            "", f"ui needs the server extra: pip install 'hebbs[server]' ({error})"
        ) from None
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((DEFAULT_HOST, args.port))
        listener.listen()
    except OSError as error:
        listener.close()
        where = f"{DEFAULT_HOST}:{args.port}"
        raise UsageError("--port", f"cannot listen on {where}: {error}") from None
    port = listener.getsockname()[1]
    url = f"http://{DEFAULT_HOST}:{port}/ui/"
    print(f"hebbs explorer of {store_dir}: {url}", flush=True)
    if not args.no_browser:
        threading.Timer(BROWSER_DELAY_S, webbrowser.open, [url]).start()
    settings = config(store_dir, host=DEFAULT_HOST, port=port, auth=False, store=store_dir)
    try:
        uvicorn.Server(settings).run(sockets=[listener])
    finally:
        listener.close()
    return CommandOutput({"stopped": True, "url": url}, STOPPED)


def keys(args: argparse.Namespace, data_dir: str) -> CommandOutput:
    """Runs ``keys create``, ``keys list``, ``keys revoke``, ``keys join`` or ``keys leave``."""
    store = KeyStore(data_dir)
    try:
        if args.keys_command == "create":
            return _create(args, store)
        if args.keys_command == "revoke":
            return _revoke(args, store)
        if args.keys_command == "join":
            return _join(args, store)
        if args.keys_command == "leave":
            return _leave(args, store)
        return _list(store)
    finally:
        store.close()


def _create(args: argparse.Namespace, store: KeyStore) -> CommandOutput:
    try:
        key, info = store.create(
            args.tenant, args.scope, expires_in_s=args.expires, organization=args.org
        )
    except ValueError as error:
        raise UsageError("--org", str(error)) from None
    except ConflictError as error:
        raise conflict("--org", error.reason) from None
    payload = {
        "key": key,
        "key_id": info.key_id,
        "tenant": info.tenant,
        "scope": info.scope,
        "organization": info.organization,
    }
    expiry = "never" if info.expires_at is None else _utc(info.expires_at)
    text = (
        f"key:     {key}\nkey_id:  {info.key_id}\ntenant:  {info.tenant}\n"
        f"scope:   {info.scope}\nexpires: {expiry}\n"
        + ("" if info.organization is None else f"member:  {info.organization}\n")
        + "The key is shown only now: store it safely."
    )
    return CommandOutput(payload, text)


def _join(args: argparse.Namespace, store: KeyStore) -> CommandOutput:
    try:
        store.join(args.tenant, args.org)
    except ValueError as error:
        raise UsageError("--org", str(error)) from None
    except ConflictError as error:
        raise conflict("--org", error.reason) from None
    payload = {"tenant": args.tenant, "organization": args.org}
    return CommandOutput(payload, f"{args.tenant} is a member of {args.org}")


def _leave(args: argparse.Namespace, store: KeyStore) -> CommandOutput:
    if not store.leave(args.tenant):
        raise NotFoundError(f"tenant {args.tenant} is a member of no organization")
    payload = {"tenant": args.tenant, "organization": None}
    return CommandOutput(payload, f"{args.tenant} left its organization")


def _list(store: KeyStore) -> CommandOutput:
    found = store.list()
    header = f"{'KEY_ID':<21}  {'TENANT':<20}  {'SCOPE':<5}  {'ORGANIZATION':<20}  {'CREATED':<20}"
    lines = [f"{header}  STATE"]
    now = time.time()
    for info in found:
        lines.append(
            f"{info.key_id:<21}  {info.tenant:<20}  {info.scope:<5}  "
            f"{info.organization or '-':<20}  {_utc(info.created_at):<20}  {_state(info, now)}"
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
        "organization": info.organization,
    }


def _state(info: KeyInfo, now: float) -> str:
    if info.revoked_at is not None:
        return f"revoked {_utc(info.revoked_at)}"
    if info.expires_at is not None:
        return f"{'expired' if info.expired(now) else 'expires'} {_utc(info.expires_at)}"
    return "active"


def _utc(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds))
