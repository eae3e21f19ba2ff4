"""The protocol's subscriptions: ``Subscribe`` opens a stream whose first message is the
handshake (the subscription id, no memory); ``Feed(subscription_id, text)`` gives it text to
listen for; ``CloseSubscription`` ends it.

hebbs' own subscriptions are standing cues (:meth:`hebbs.Hebbs.subscribe`); a fed text becomes
one: a :class:`FeedSubscription` pushes the stored memories whose similarity to the text reaches
the confidence threshold (each memory at most once per subscription), then opens an engine
subscription on the text, so every later matching memory is pushed as it is remembered (the
last :data:`MAX_FED_CUES` texts stay open). ``entity_id`` and ``kind_filter`` restrict the
pushes, ``time_scope_us`` the stored memories searched, ``output_buffer_size`` the queue (the
oldest push is dropped past it, as in hebbs). ``coarse_threshold`` is a pre-filter hint of the
reference engine; hebbs compares exact similarities and has no use for it.

Subscriptions are kept per tenant: an id of another tenant is ``NOT_FOUND``.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections import OrderedDict
from typing import Any, Final

from hebbs._native import DEFAULT_QUEUE_CAPACITY, Memory
from hebbs.engine import Hebbs
from hebbs.errors import NotFoundError
from hebbs.rpc import hebbs_pb2 as pb
from hebbs.rpc.convert import KIND_NAMES, memory_message, now_us
from hebbs.subscription import Subscription

#: Fed texts whose engine subscriptions stay open per subscription (oldest closed first).
MAX_FED_CUES: Final = 16
#: Stored memories a fed text is matched against (the nearest first).
FEED_RECALL_TOP_K: Final = 50
#: Seconds one wait of a pump thread or the stream blocks before it checks for the end.
WAIT_SLICE_S: Final = 0.5


class FeedSubscription:
    """One open ``Subscribe`` stream: its queue of pushes and the cues fed to it."""

    def __init__(self, id: int, engine: Hebbs, request: Any) -> None:
        self.id = id
        self.engine = engine
        self.entity_id: str | None = request.entity_id if request.HasField("entity_id") else None
        self.kinds = {KIND_NAMES.get(kind) for kind in request.kind_filter}
        self.threshold: float = request.confidence_threshold
        self.time_scope_us: int | None = (
            request.time_scope_us if request.HasField("time_scope_us") else None
        )
        capacity = (
            request.output_buffer_size
            if request.HasField("output_buffer_size") and request.output_buffer_size
            else DEFAULT_QUEUE_CAPACITY
        )
        self.capacity = capacity
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=capacity)
        self._lock = threading.Lock()
        self._seen: set[bytes] = set()
        self._sequence = itertools.count(1)
        self._cues: list[Subscription] = []
        self.closed = threading.Event()

    def handshake(self) -> Any:
        return pb.SubscribePushMessage(subscription_id=self.id, push_timestamp_us=now_us())

    def _offer(self, memory: Memory, confidence: float) -> None:
        if self.kinds and memory.kind.value not in self.kinds:
            return
        with self._lock:
            if memory.id in self._seen:
                return
            self._seen.add(memory.id)
            message = pb.SubscribePushMessage(
                subscription_id=self.id,
                memory=memory_message(memory),
                confidence=confidence,
                push_timestamp_us=now_us(),
                sequence_number=next(self._sequence),
            )
            if self._queue.full():
                self._queue.get_nowait()
            self._queue.put_nowait(message)

    def feed(self, text: str) -> None:
        """Pushes the stored memories matching ``text`` and listens for new ones."""
        cue = self.engine.subscribe(
            text,
            entity_id=self.entity_id,
            confidence_threshold=self.threshold,
            queue_capacity=self.capacity,
        )
        time_range = None
        if self.time_scope_us is not None:
            time_range = (max(now_us() - self.time_scope_us, 0), None)
        found = self.engine.recall(
            text,
            top_k=FEED_RECALL_TOP_K,
            entity_id=self.entity_id,
            time_range=time_range,
        )
        for result in found.results:
            relevance = result.strategy_details[0].relevance if result.strategy_details else 0.0
            if relevance >= self.threshold and (
                self.entity_id is None or result.memory.entity_id == self.entity_id
            ):
                self._offer(result.memory, relevance)
        with self._lock:
            self._cues.append(cue)
            stale = self._cues[:-MAX_FED_CUES]
            del self._cues[:-MAX_FED_CUES]
        for old in stale:
            old.close()
        threading.Thread(target=self._pump, args=(cue,), daemon=True).start()

    def _pump(self, cue: Subscription) -> None:
        while not self.closed.is_set() and not cue.closed:
            push = cue.next(timeout=WAIT_SLICE_S)
            if push is not None:
                self._offer(push.memory, push.confidence)

    def next(self) -> Any | None:
        """The next push, or None after :data:`WAIT_SLICE_S` without one."""
        try:
            return self._queue.get(timeout=WAIT_SLICE_S)
        except queue.Empty:
            return None

    def close(self) -> None:
        self.closed.set()
        with self._lock:
            cues, self._cues = self._cues, []
        for cue in cues:
            cue.close()


class FeedSubscriptions:
    """The open subscriptions of every tenant, by (tenant, id). Safe to share between threads."""

    def __init__(self) -> None:
        self._open: OrderedDict[tuple[str, int], FeedSubscription] = OrderedDict()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def open(self, tenant: str, engine: Hebbs, request: Any) -> FeedSubscription:
        with self._lock:
            subscription = FeedSubscription(next(self._ids), engine, request)
            self._open[(tenant, subscription.id)] = subscription
        return subscription

    def find(self, tenant: str, id: int) -> FeedSubscription:
        with self._lock:
            found = self._open.get((tenant, id))
        if found is None:
            raise NotFoundError(f"no open subscription {id}")
        return found

    def close(self, tenant: str, id: int) -> None:
        with self._lock:
            found = self._open.pop((tenant, id), None)
        if found is None:
            raise NotFoundError(f"no open subscription {id}")
        found.close()

    def discard(self, tenant: str, subscription: FeedSubscription) -> None:
        with self._lock:
            self._open.pop((tenant, subscription.id), None)
        subscription.close()

    def close_all(self) -> None:
        with self._lock:
            found = list(self._open.values())
            self._open.clear()
        for subscription in found:
            subscription.close()
