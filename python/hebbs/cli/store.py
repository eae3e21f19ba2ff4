"""Where a command's memories are: the store directory of ``--db`` (a :class:`hebbs.Hebbs`
opened in this process) or the server of ``--url`` (a :class:`hebbs.HebbsClient`, sending
``--api-key``). The two have the same methods, so every command is one function on a
:data:`Store`, whichever it gets.

``--db`` defaults to ``$HEBBS_DB``, ``--url`` to ``$HEBBS_URL`` and ``--api-key`` to
``$HEBBS_API_KEY``; a flag wins over the variables. ``--db`` with ``--url``, both variables
without either flag, and ``--api-key`` without a URL are usage errors: a command never guesses
which store it writes to.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Union

from hebbs.cli import values
from hebbs.cli.errors import UsageError
from hebbs.engine import Hebbs

if TYPE_CHECKING:
    from hebbs.client import HebbsClient

#: What a command runs on: an open store or a server's client (the same methods).
Store = Union[Hebbs, "HebbsClient"]

#: Environment variable naming the database directory when ``--db`` is not given.
DB_ENV: Final = "HEBBS_DB"
#: Database directory when neither ``--db`` nor :data:`DB_ENV` is given.
DEFAULT_DB: Final = "./hebbs-data"
#: Environment variable naming the server when ``--url`` is not given.
URL_ENV: Final = "HEBBS_URL"
#: Environment variable holding the API key when ``--api-key`` is not given.
API_KEY_ENV: Final = "HEBBS_API_KEY"
#: How error messages name the two ways to choose a store.
DB_OR_URL: Final = "--db/--url"


@dataclass(frozen=True)
class Location:
    """A store directory (``url`` None, with the organization's store directory when
    ``recall --organization`` names one) or a server and the key to send it."""

    db: str
    url: str | None = None
    api_key: str | None = None
    organization: str | None = None


def database_path(args: argparse.Namespace) -> str:
    """``--db``, else ``$HEBBS_DB``, else ``./hebbs-data``."""
    given: str | None = args.db
    return given or os.environ.get(DB_ENV) or DEFAULT_DB


def locate(args: argparse.Namespace) -> Location:
    """The store a data command runs on, from its flags and the environment."""
    db_flag: str | None = args.db
    url_flag: str | None = args.url
    key_flag: str | None = args.api_key
    if db_flag and url_flag:
        raise UsageError(DB_OR_URL, "give --db or --url, not both")
    url = url_flag
    if url is None and not db_flag:
        url = _env_url()
        if url is not None and os.environ.get(DB_ENV):
            raise UsageError(
                DB_OR_URL, f"${DB_ENV} and ${URL_ENV} are both set: give --db or --url"
            )
    organization: str | None = getattr(args, "organization", None)
    if url is None:
        if key_flag is not None:
            raise UsageError("--api-key", "is sent to a server: give it with --url")
        return Location(database_path(args), organization=organization)
    if organization is not None:
        reason = "is a --db option: a server finds the organization from the API key"
        raise UsageError("--organization", reason)
    api_key = key_flag if key_flag is not None else _env_key()
    return Location(database_path(args), url, api_key)


def _env_url() -> str | None:
    found = os.environ.get(URL_ENV)
    if not found:
        return None
    try:
        return values.url(found)
    except argparse.ArgumentTypeError as error:
        raise UsageError(f"${URL_ENV}", str(error)) from None


def _env_key() -> str | None:
    found = os.environ.get(API_KEY_ENV)
    if not found:
        return None
    try:
        return values.api_key(found)
    except argparse.ArgumentTypeError as error:
        raise UsageError(f"${API_KEY_ENV}", str(error)) from None


@contextmanager
def opened(location: Location) -> Iterator[Store]:
    """The store at ``location``, closed afterwards."""
    if location.url is None:
        with Hebbs.open(location.db, organization=location.organization) as engine:
            yield engine
        return
    try:
        from hebbs.client import HebbsClient
    except ImportError as error:
        raise UsageError(
            "--url", f"a server needs the client extra: pip install 'hebbs[client]' ({error})"
        ) from None
    with HebbsClient(location.url, location.api_key) as client:
        yield client
