"""`hebbs.client`: a hebbs server (``hebbs serve``) with the embedded API's methods.

:class:`HebbsClient` has the methods of :class:`hebbs.Hebbs` and :class:`AsyncHebbsClient` the
coroutines of :class:`hebbs.AsyncHebbs`: the same names, parameters, defaults, checks, return
types and exceptions, so moving an agent from embedded to server changes one line::

    mem = hebbs.Hebbs.open("./memory")            # embedded
    mem = hebbs.HebbsClient("http://127.0.0.1:6381", api_key)   # server

Needs the ``client`` extra (``pip install hebbs[client]``, which brings ``httpx``). See
``docs/client.md`` for the endpoints, the error table and the timeouts.
"""

from hebbs.client.aio import AsyncHebbsClient
from hebbs.client.errors import ERROR_CLASSES
from hebbs.client.routing import Route
from hebbs.client.settings import CONNECT_TIMEOUT_S, DEFAULT_TIMEOUT_S
from hebbs.client.subscription import AsyncRemoteSubscription, RemoteSubscription
from hebbs.client.sync import HebbsClient

__all__ = [
    "CONNECT_TIMEOUT_S",
    "DEFAULT_TIMEOUT_S",
    "ERROR_CLASSES",
    "AsyncHebbsClient",
    "AsyncRemoteSubscription",
    "HebbsClient",
    "RemoteSubscription",
    "Route",
]
