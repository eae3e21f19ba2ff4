"""Run by tests/test_grpc.py in a virtual environment of its own holding the reference HEBBS
Python SDK (PyPI ``hebbs==0.4.1``, whose import name is also ``hebbs``): every call of that
SDK's default ``HebbsClient(address, api_key=...)`` against our server, printed as one JSON
transcript on stdout for the test to check against the embedded API.

    python grpc_reference_script.py ADDRESS WRITE_KEY OTHER_TENANT_READ_KEY
    python grpc_reference_script.py --descriptor    (the SDK's FileDescriptorProto, base64)
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from typing import Any

from hebbs.exceptions import HebbsError

from hebbs import HebbsClient, RecallStrategyConfig  # the reference SDK, not ours
from hebbs.types import Edge, EdgeType

#: Pushes a subscription test waits for at most, and seconds for each.
MAX_PUSHES = 10
PUSH_TIMEOUT_S = 10.0
#: Composite weights that make the score the relevance alone (comparable across processes).
RELEVANCE_ONLY = {"w_relevance": 1.0, "w_recency": 0.0, "w_importance": 0.0, "w_reinforcement": 0.0}


def memory(found: Any) -> dict[str, Any]:
    return {
        "id": found.id.hex(),
        "content": found.content,
        "importance": found.importance,
        "context": found.context,
        "entity_id": found.entity_id,
        "created_at": found.created_at,
        "kind": found.kind.value,
    }


def recalled(output: Any) -> dict[str, Any]:
    return {
        "ids": [result.memory.id.hex() for result in output.results],
        "scores": [result.score for result in output.results],
        "strategies": [[d.strategy for d in r.strategy_details] for r in output.results],
        "errors": [error.strategy for error in output.strategy_errors],
    }


async def failure(call: Any) -> str:
    try:
        await call
    except HebbsError as error:
        return type(error).__name__
    return "no error"


async def main(address: str, write_key: str, read_key: str) -> dict[str, Any]:
    """Prints the first transcript (stores and recalls) as a line, waits for a line on stdin
    (the test compares the embedded API's answers meanwhile), then returns the second."""
    out: dict[str, Any] = {}
    async with HebbsClient(address, api_key=write_key) as h:
        ask = await h.remember(
            "Acme asked for a 15% discount on the annual plan",
            importance=0.8,
            context={"channel": "email", "topic": "pricing"},
            entity_id="acme",
        )
        approve = await h.remember(
            "The pricing review approved a 12% discount for Acme",
            entity_id="acme",
            edges=[Edge(target_id=ask.id, edge_type=EdgeType.CAUSED_BY, confidence=0.9)],
        )
        out["remember"] = [memory(ask), memory(approve)]
        out["get"] = memory(await h.get(ask.id))
        out["similarity"] = recalled(
            await h.recall(
                "Acme discount", strategies=["similarity"], scoring_weights=RELEVANCE_ONLY
            )
        )
        out["temporal"] = recalled(
            await h.recall("anything", strategies=["temporal"], entity_id="acme")
        )
        out["causal"] = recalled(
            await h.recall(
                "discount",
                strategies=[RecallStrategyConfig("causal", seed_memory_id=approve.id, max_depth=2)],
            )
        )
        out["analogical"] = recalled(
            await h.recall(
                "price negotiation",
                strategies=["analogical"],
                cue_context={"topic": "pricing"},
                scoring_weights=RELEVANCE_ONLY,
            )
        )
        out["multi"] = recalled(
            await h.recall("discount", strategies=["similarity", "temporal"], entity_id="acme")
        )
        out["weighted"] = recalled(
            await h.recall("discount", scoring_weights={"w_relevance": 0.1, "w_recency": 0.9})
        )
        primed = await h.prime("acme", similarity_cue="pricing", max_memories=5)
        out["prime"] = {
            "ids": [result.memory.id.hex() for result in primed.results],
            "temporal_count": primed.temporal_count,
            "similarity_count": primed.similarity_count,
        }
        print(json.dumps(out), flush=True)
        sys.stdin.readline()
        out = {"ask": ask.id.hex()}

        sub = await h.subscribe(entity_id="acme", confidence_threshold=0.3)
        await sub.feed("a discount for Acme")
        later = await h.remember("Acme signed the discounted renewal", entity_id="acme")
        # The SDK's listen() ends its stream when it times out, so wait for pushes one at a
        # time until the new memory arrives (each wait returns on a push).
        pushes = []
        while len(pushes) < MAX_PUSHES and later.id not in {p.memory.id for p in pushes}:
            pushes.extend(await sub.listen(timeout=PUSH_TIMEOUT_S, max_pushes=1))
        out["subscribe"] = {
            "id": sub.subscription_id,
            "pushed": [push.memory.id.hex() for push in pushes],
            "later": later.id.hex(),
            "sequence": [push.sequence_number for push in pushes],
            "same_id": all(push.subscription_id == sub.subscription_id for push in pushes),
        }
        await sub.close()

        revised = await h.revise(approve.id, content="The pricing review approved 10% for Acme")
        out["revise"] = memory(revised)
        out["insights"] = [m.id.hex() for m in await h.insights(entity_id="acme")]
        out["insights_none"] = [m.id.hex() for m in await h.insights(entity_id="nobody")]
        doomed = await h.remember("Globex uses PDF invoices", entity_id="globex")
        result = await h.forget(entity_id="globex")
        out["forget"] = {
            "id": doomed.id.hex(),
            "forgotten_count": result.forgotten_count,
            "tombstone_count": result.tombstone_count,
        }
        status = await h.health()
        out["health"] = {"serving": status.serving, "memory_count": status.memory_count}
        out["errors"] = {
            "not_found": await failure(h.get(bytes(16))),
            "invalid": await failure(h.remember("x", importance=7.0)),
        }
    async with HebbsClient(address, api_key=read_key) as h:
        out["errors"]["read_key_writes"] = await failure(h.remember("nope"))
        out["errors"]["other_tenant"] = await failure(h.get(bytes.fromhex(out["ask"])))
    async with HebbsClient(address, api_key="hb_wrong") as h:
        out["errors"]["bad_key"] = await failure(h.health())
    return out


def descriptor() -> str:
    from google.protobuf import descriptor_pb2
    from hebbs._generated import hebbs_pb2

    message = descriptor_pb2.FileDescriptorProto()
    hebbs_pb2.DESCRIPTOR.CopyToProto(message)
    return base64.b64encode(message.SerializeToString()).decode()


if __name__ == "__main__":
    if sys.argv[1] == "--descriptor":
        print(descriptor())
    else:
        print(json.dumps(asyncio.run(main(*sys.argv[1:4]))))
