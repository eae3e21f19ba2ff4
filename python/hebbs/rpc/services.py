"""The protocol's four services, one handler per method, registered from one table
(:data:`METHODS`) as grpcio generic handlers: no generated service stubs.

Each handler authenticates the call (``authorization: Bearer <key>`` metadata, the scope the
method needs, the key's rate limit), leases the key's tenant store for the call and runs the
:class:`hebbs.Hebbs` method, whose request models check the converted arguments as for any
caller. Failures are gRPC statuses: ``INVALID_ARGUMENT`` (with the field), ``UNAUTHENTICATED``,
``PERMISSION_DENIED``, ``NOT_FOUND``, ``FAILED_PRECONDITION`` (the REST 409 ``conflict``, with
the field: gRPC keeps it for a call not to retry until the state changes, as revising the newest
revision instead of a superseded one; ``ABORTED`` would invite retrying the same call, which
fails the same way), ``RESOURCE_EXHAUSTED`` (rate limited), ``UNAVAILABLE``,
``UNIMPLEMENTED`` (reflection, policies) and ``INTERNAL``; the trailing metadata carries
``error-code`` and ``field`` as the REST body would. Request bytes that do not decode as the
method's message are ``INVALID_ARGUMENT`` on ``body`` (:class:`Undecodable`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Final

import grpc
from google.protobuf.message import DecodeError

from hebbs._inputs import invalid
from hebbs._native import DEFAULT_LIST_PAGE
from hebbs.api import (
    ForgetDecayedRequest,
    ForgetRequest,
    GetRequest,
    HealthRequest,
    ListMemoriesRequest,
    PrimeRequest,
    RecallRequest,
    RememberRequest,
    ReviseRequest,
    parse,
)
from hebbs.engine import Hebbs
from hebbs.errors import HebbsError
from hebbs.rpc import convert
from hebbs.rpc import hebbs_pb2 as pb
from hebbs.rpc.subscriptions import FeedSubscriptions
from hebbs.service.auth import AuthConfig, Caller, KeyWatch, authenticate_header
from hebbs.service.errors import BODY_FIELD, ApiError, from_engine
from hebbs.service.tenants import TenantStores

#: gRPC status of each HTTP status the REST server would answer.
STATUS_CODES: Final = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.NOT_FOUND,
    409: grpc.StatusCode.FAILED_PRECONDITION,
    413: grpc.StatusCode.RESOURCE_EXHAUSTED,
    429: grpc.StatusCode.RESOURCE_EXHAUSTED,
    501: grpc.StatusCode.UNIMPLEMENTED,
    503: grpc.StatusCode.UNAVAILABLE,
}
#: Insights returned by ``GetInsights`` when ``max_results`` is not given.
DEFAULT_MAX_INSIGHTS: Final = DEFAULT_LIST_PAGE
#: What the reflection methods answer until hebbs has a reflection pipeline.
NO_REFLECTION: Final = "reflection is not available on this server yet"


def not_implemented(message: str) -> ApiError:
    return ApiError(501, "not_implemented", message)


class Context:
    """What a handler works with: the servicer state, the gRPC context and the caller."""

    def __init__(self, state: RpcState, grpc_context: grpc.ServicerContext) -> None:
        self.state = state
        self.grpc = grpc_context
        self.caller: Caller | None = None

    def authenticate(self, scope: str, tenant_id: str | None) -> Caller:
        metadata = dict(self.grpc.invocation_metadata())
        header = metadata.get("authorization")
        caller = authenticate_header(
            self.state.auth, header if isinstance(header, str) else None, scope
        )
        if tenant_id and tenant_id != caller.tenant:
            raise ApiError(403, "forbidden", "tenant_id must be the API key's own tenant")
        self.caller = caller
        return caller

    @contextmanager
    def store(self, scope: str, request: Any) -> Iterator[Hebbs]:
        tenant_id = request.tenant_id if _has(request, "tenant_id") else None
        caller = self.authenticate(scope, tenant_id)
        with self.state.tenants.lease(caller.tenant) as engine:
            yield engine


def _has(message: Any, name: str) -> bool:
    return name in message.DESCRIPTOR.fields_by_name and message.HasField(name)


@dataclass
class RpcState:
    """What every call shares: the tenants' stores, the key check, the open subscriptions."""

    tenants: TenantStores
    auth: AuthConfig
    subscriptions: FeedSubscriptions


def remember(ctx: Context, request: Any) -> Any:
    with ctx.store("write", request) as engine:
        given = parse(RememberRequest, convert.remember_arguments(request))
        return pb.RememberResponse(memory=convert.memory_message(engine.run(given)))


def get(ctx: Context, request: Any) -> Any:
    with ctx.store("read", request) as engine:
        found = engine.run(parse(GetRequest, {"id": bytes(request.memory_id)}))
        return pb.GetResponse(memory=convert.memory_message(found))


def recall(ctx: Context, request: Any) -> Any:
    with ctx.store("read", request) as engine:
        given = parse(RecallRequest, convert.recall_arguments(request))
        return convert.recall_response(engine.run(given))


def prime(ctx: Context, request: Any) -> Any:
    with ctx.store("read", request) as engine:
        given = parse(PrimeRequest, convert.prime_arguments(request))
        return convert.prime_response(engine.run(given))


def revise(ctx: Context, request: Any) -> Any:
    """A revision, then its edges (``add_edges`` on the new revision, after checking them)."""
    edges = convert.revise_edges(request)
    with ctx.store("write", request) as engine:
        old = None
        if request.context_mode == pb.CONTEXT_MODE_MERGE:
            old = engine.get(bytes(request.memory_id)).context
        revised = engine.run(parse(ReviseRequest, convert.revise_arguments(request, old)))
        if edges:
            engine.add_edges(revised.id, edges)
            revised = engine.get(revised.id)
        return pb.ReviseResponse(memory=convert.memory_message(revised))


def forget(ctx: Context, request: Any) -> Any:
    arguments = convert.forget_arguments(request)
    with ctx.store("write", request) as engine:
        if request.HasField("decay_score_floor"):
            if arguments:
                raise invalid("decay_score_floor", "give it alone: it forgets by decay only")
            given = parse(ForgetDecayedRequest, {"floor": request.decay_score_floor})
            return convert.forget_response(engine.run(given))
        return convert.forget_response(engine.run(parse(ForgetRequest, arguments)))


def set_policy(ctx: Context, request: Any) -> Any:
    ctx.authenticate("admin", request.tenant_id if request.HasField("tenant_id") else None)
    raise not_implemented(
        "hebbs sets its forgetting policy when a store opens (auto_forget_floor), not per call"
    )


def subscribe(ctx: Context, request: Any) -> Iterator[Any]:
    """The handshake, then the pushes, until the client goes or the subscription is closed;
    ``UNAUTHENTICATED`` within :data:`~hebbs.service.auth.KEY_RECHECK_S` seconds of the key's
    revocation or expiry."""
    with ctx.store("read", request) as engine:
        assert ctx.caller is not None
        tenant = ctx.caller.tenant
        key = KeyWatch(ctx.state.auth, ctx.caller)
        subscription = ctx.state.subscriptions.open(tenant, engine, request)
        try:
            yield subscription.handshake()
            while ctx.grpc.is_active() and not subscription.closed.is_set():
                refused = key.refusal()
                if refused is not None:
                    raise refused
                push = subscription.next()
                if push is not None:
                    yield push
        finally:
            ctx.state.subscriptions.discard(tenant, subscription)


def feed(ctx: Context, request: Any) -> Any:
    caller = ctx.authenticate("read", request.tenant_id if request.HasField("tenant_id") else None)
    subscription = ctx.state.subscriptions.find(caller.tenant, request.subscription_id)
    if not request.text.strip():
        raise invalid("text", "must not be empty")
    subscription.feed(request.text)
    return pb.FeedResponse()


def close_subscription(ctx: Context, request: Any) -> Any:
    caller = ctx.authenticate("read", request.tenant_id if request.HasField("tenant_id") else None)
    ctx.state.subscriptions.close(caller.tenant, request.subscription_id)
    return pb.CloseSubscriptionResponse()


def get_insights(ctx: Context, request: Any) -> Any:
    """The stored insights (kind ``insight``), of ``entity_id`` when given, newest last;
    ``min_confidence`` keeps those whose importance reaches it."""
    limit = request.max_results if request.HasField("max_results") else DEFAULT_MAX_INSIGHTS
    with ctx.store("read", request) as engine:
        entity = request.entity_id if request.HasField("entity_id") else None
        given = {"entity_id": entity, "kind": "insight", "limit": limit}
        page = engine.run(parse(ListMemoriesRequest, given))
    insights = [
        memory
        for memory in page.memories
        if not request.HasField("min_confidence") or memory.importance >= request.min_confidence
    ]
    return pb.GetInsightsResponse(insights=[convert.memory_message(m) for m in insights])


def reflection(ctx: Context, request: Any) -> Any:
    """Reflect, ReflectPrepare, ReflectCommit and the contradiction methods."""
    ctx.authenticate("write", request.tenant_id if request.HasField("tenant_id") else None)
    raise not_implemented(NO_REFLECTION)


def health(ctx: Context, request: Any) -> Any:
    with ctx.store("read", request) as engine:
        return convert.health_response(engine.run(HealthRequest()))


@dataclass(frozen=True)
class Method:
    """One RPC: its service, name, request message and handler; ``stream`` for
    server-streaming."""

    service: str
    name: str
    request: Any
    response: Any
    handler: Callable[[Context, Any], Any]
    stream: bool = False


#: Every method of the protocol.
METHODS: Final[tuple[Method, ...]] = (
    Method("MemoryService", "Remember", pb.RememberRequest, pb.RememberResponse, remember),
    Method("MemoryService", "Get", pb.GetRequest, pb.GetResponse, get),
    Method("MemoryService", "Recall", pb.RecallRequest, pb.RecallResponse, recall),
    Method("MemoryService", "Prime", pb.PrimeRequest, pb.PrimeResponse, prime),
    Method("MemoryService", "Revise", pb.ReviseRequest, pb.ReviseResponse, revise),
    Method("MemoryService", "Forget", pb.ForgetRequest, pb.ForgetResponse, forget),
    Method("MemoryService", "SetPolicy", pb.SetPolicyRequest, pb.SetPolicyResponse, set_policy),
    Method(
        "SubscribeService",
        "Subscribe",
        pb.SubscribeRequest,
        pb.SubscribePushMessage,
        subscribe,
        stream=True,
    ),
    Method("SubscribeService", "Feed", pb.FeedRequest, pb.FeedResponse, feed),
    Method(
        "SubscribeService",
        "CloseSubscription",
        pb.CloseSubscriptionRequest,
        pb.CloseSubscriptionResponse,
        close_subscription,
    ),
    Method("ReflectService", "Reflect", pb.ReflectRequest, pb.ReflectResponse, reflection),
    Method(
        "ReflectService", "GetInsights", pb.GetInsightsRequest, pb.GetInsightsResponse, get_insights
    ),
    Method(
        "ReflectService",
        "ReflectPrepare",
        pb.ReflectPrepareRequest,
        pb.ReflectPrepareResponse,
        reflection,
    ),
    Method(
        "ReflectService",
        "ReflectCommit",
        pb.ReflectCommitRequest,
        pb.ReflectCommitResponse,
        reflection,
    ),
    Method(
        "ReflectService",
        "ContradictionPrepare",
        pb.ContradictionPrepareRequest,
        pb.ContradictionPrepareResponse,
        reflection,
    ),
    Method(
        "ReflectService",
        "ContradictionCommit",
        pb.ContradictionCommitRequest,
        pb.ContradictionCommitResponse,
        reflection,
    ),
    Method("HealthService", "Check", pb.HealthCheckRequest, pb.HealthCheckResponse, health),
)


@dataclass(frozen=True)
class Undecodable:
    """What a method's handler gets for request bytes that are not a message of its type (or
    nest past the protobuf decoder's depth limit): grpcio would answer its own ``INTERNAL``
    for a deserializer that raises, so the deserializer returns this and the handler answers
    ``INVALID_ARGUMENT`` naming the body, after the key check."""

    reason: str


def _decoder(message_type: Any) -> Callable[[bytes], Any]:
    """``message_type.FromString``, an :class:`Undecodable` where it fails."""

    def decode(data: bytes) -> Any:
        try:
            return message_type.FromString(data)
        except DecodeError as error:
            name = message_type.DESCRIPTOR.full_name
            return Undecodable(f"the request is not a valid {name} message ({error})")

    return decode


def _checked(ctx: Context, request: Any) -> Any:
    """``request``, or the answer to an undecodable one: the caller's key is checked first
    (any valid key), so a caller without one learns nothing of the method."""
    if isinstance(request, Undecodable):
        ctx.authenticate("read", None)
        raise ApiError(400, "invalid_input", f"invalid body: {request.reason}", field=BODY_FIELD)
    return request


def _abort(context: grpc.ServicerContext, error: ApiError) -> None:
    trailers = [("error-code", error.error_code)]
    if error.field:
        trailers.append(("field", error.field))
    context.set_trailing_metadata(tuple(trailers))
    code = STATUS_CODES.get(error.status, grpc.StatusCode.INTERNAL)
    context.abort(code, error.message)


def _failure(error: ApiError | HebbsError) -> ApiError:
    return error if isinstance(error, ApiError) else from_engine(error)


def _unary(method: Method, state: RpcState) -> Callable[[Any, grpc.ServicerContext], Any]:
    def handle(request: Any, context: grpc.ServicerContext) -> Any:
        try:
            ctx = Context(state, context)
            return method.handler(ctx, _checked(ctx, request))
        except (ApiError, HebbsError) as error:
            _abort(context, _failure(error))
            raise AssertionError("abort returns only by raising") from error

    return handle


def _streaming(
    method: Method, state: RpcState
) -> Callable[[Any, grpc.ServicerContext], Iterator[Any]]:
    def handle(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        try:
            ctx = Context(state, context)
            yield from method.handler(ctx, _checked(ctx, request))
        except (ApiError, HebbsError) as error:
            _abort(context, _failure(error))

    return handle


def handlers(state: RpcState) -> list[grpc.GenericRpcHandler]:
    """One generic handler per service, from :data:`METHODS`."""
    services: dict[str, dict[str, grpc.RpcMethodHandler[Any, Any]]] = {}
    for method in METHODS:
        if method.stream:
            handler = grpc.unary_stream_rpc_method_handler(
                _streaming(method, state),
                request_deserializer=_decoder(method.request),
                response_serializer=method.response.SerializeToString,
            )
        else:
            handler = grpc.unary_unary_rpc_method_handler(
                _unary(method, state),
                request_deserializer=_decoder(method.request),
                response_serializer=method.response.SerializeToString,
            )
        services.setdefault(method.service, {})[method.name] = handler
    return [
        grpc.method_handlers_generic_handler(f"{pb.DESCRIPTOR.package}.{service}", table)
        for service, table in services.items()
    ]
