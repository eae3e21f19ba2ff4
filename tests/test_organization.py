"""Organization memory: a member's ``recall(..., include_organization=True)`` also searches the
organization's store and answers it separately as ``organization_memory``, embedded
(``Hebbs.open(path, organization=...)``) and through a server (membership by the key store),
without ever reaching further than the one organization."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path

import pytest

from hebbs import ConflictError, Hebbs, HebbsClient, InvalidValueError
from hebbs.cli import main
from hebbs.cli.errors import EXIT_CONFLICT
from hebbs.embedder import Embedder
from hebbs.service.keys import KeyStore
from remote import Server, Store

#: What the organization remembers.
POLICIES = (
    "company policy: every production deploy needs two reviewers",
    "company policy: refunds above 500 euros need a manager's approval",
)
#: What the member remembers.
TEAM = (
    "our team deploys the billing service on Fridays",
    "the team's standup is at nine",
)
#: Opens a member store whose organization remembers the given contents.
OpenMember = Callable[[Sequence[str]], Store]


def contents(results: Sequence[object]) -> set[str]:
    return {result.memory.content for result in results}  # type: ignore[attr-defined]


def fill(store: Store, texts: Sequence[str], entity: str) -> None:
    store.remember_many([{"content": text, "entity_id": entity} for text in texts])


def tenant() -> str:
    return f"t-{uuid.uuid4().hex[:16]}"


def member_key(server: Server, organization_texts: Sequence[str]) -> tuple[str, str, str]:
    """A key of a new tenant that is a member of a new organization remembering
    ``organization_texts``, the tenant's name and the organization's."""
    writer, key, organization, member = server.new_organization()
    with HebbsClient(server.url, writer) as client:
        fill(client, organization_texts, "policy")
    return key, member, organization


@pytest.fixture(params=["embedded", "remote"])
def open_member(
    request: pytest.FixtureRequest, tmp_path: Path, embedder: Embedder
) -> Iterator[OpenMember]:
    """Opens a member store (embedded, or a tenant on the session's server) whose organization
    remembers the given contents."""
    with ExitStack() as stack:

        def embedded(texts: Sequence[str]) -> Store:
            with Hebbs.open(tmp_path / "org", embedder=embedder) as organization:
                fill(organization, texts, "policy")
            member = Hebbs.open(
                tmp_path / "member", embedder=embedder, organization=tmp_path / "org"
            )
            return stack.enter_context(member)

        def remote(texts: Sequence[str]) -> Store:
            server: Server = request.getfixturevalue("hebbs_server")
            key, _, _ = member_key(server, texts)
            return stack.enter_context(HebbsClient(server.url, key))

        yield embedded if request.param == "embedded" else remote


def test_recall_answers_the_organization_separately(open_member: OpenMember) -> None:
    member = open_member(POLICIES)
    fill(member, TEAM, "team")
    output = member.recall("who reviews a production deploy?", top_k=5, include_organization=True)
    assert output.organization_memory is not None
    assert contents(output.organization_memory.results) == set(POLICIES)
    best = output.organization_memory.results[0].memory.content
    assert best == POLICIES[0]
    assert not contents(output.results) & set(POLICIES)
    alone = member.recall("who reviews a production deploy?", top_k=5)
    assert alone.organization_memory is None
    assert contents(alone.results) == contents(output.results)


def test_a_failure_in_the_organization_leaves_the_member_answer(
    open_member: OpenMember,
) -> None:
    member = open_member(POLICIES)
    seed = member.remember("the deploy failed because of a missing review", entity_id="team")
    output = member.recall(
        strategies=["causal", "similarity"],
        cue="deploy review",
        seed_memory_id=seed.id,
        include_organization=True,
    )
    assert seed.id in {result.memory.id for result in output.results}
    organization = output.organization_memory
    assert organization is not None
    failed = {error.strategy for error in organization.strategy_errors}
    assert "causal" in failed
    assert contents(organization.results) <= set(POLICIES)


def test_without_an_organization_the_flag_is_refused(store: Store) -> None:
    store.remember("a memory", entity_id="e")
    with pytest.raises(InvalidValueError) as caught:
        store.recall("memory", include_organization=True)
    assert caught.value.field == "include_organization"


def test_the_organization_session_records_nothing(tmp_path: Path, embedder: Embedder) -> None:
    with Hebbs.open(tmp_path / "org", embedder=embedder) as organization:
        fill(organization, POLICIES, "policy")
    with Hebbs.open(tmp_path / "m", embedder=embedder, organization=tmp_path / "org") as member:
        member.recall("deploy reviewers", include_organization=True, session_id="chat-1")
    with Hebbs.open(tmp_path / "org", embedder=embedder) as organization:
        assert organization.get_chat_context("chat-1") == []


def access(store: Store, ids: Sequence[object]) -> list[tuple[int, int]]:
    """The access count and last access time of each of ``ids``, as ``store`` holds them."""
    found = [store.get(id) for id in ids]  # type: ignore[arg-type]
    return [(memory.access_count, memory.last_accessed_at) for memory in found]


def test_a_members_recall_writes_nothing_to_the_organization(hebbs_server: Server) -> None:
    key, _, organization = member_key(hebbs_server, POLICIES)
    keys = KeyStore(hebbs_server.data)
    try:
        reader, _ = keys.create(organization, "read")
    finally:
        keys.close()
    with (
        HebbsClient(hebbs_server.url, reader) as owner,
        HebbsClient(hebbs_server.url, key) as member,
    ):
        shared = [memory.id for memory in owner.list_memories().memories]
        before = access(owner, shared)
        own = [
            memory.id
            for memory in member.remember_many(
                [{"content": text, "entity_id": "team"} for text in TEAM]
            )
        ]
        for _ in range(3):
            output = member.recall("deploy reviews", top_k=5, include_organization=True)
            assert output.organization_memory is not None
            answered = output.organization_memory.results
            assert {result.memory.id for result in answered} == set(shared)
            assert [(r.memory.access_count, r.memory.last_accessed_at) for r in answered] == [
                before[shared.index(r.memory.id)] for r in answered
            ]
        assert access(owner, shared) == before
        assert [count for count, _ in access(member, own)] == [3, 3]


def test_an_embedded_member_writes_nothing_to_the_organization(
    tmp_path: Path, embedder: Embedder
) -> None:
    with Hebbs.open(tmp_path / "org", embedder=embedder) as organization:
        fill(organization, POLICIES, "policy")
        shared = [memory.id for memory in organization.list_memories().memories]
        before = access(organization, shared)
    with Hebbs.open(tmp_path / "m", embedder=embedder, organization=tmp_path / "org") as member:
        fill(member, TEAM, "team")
        output = member.recall("deploy reviews", top_k=5, include_organization=True)
        assert output.organization_memory is not None
        assert len(output.organization_memory.results) == len(POLICIES)
        assert all(result.memory.access_count == 1 for result in output.results)
    with Hebbs.open(tmp_path / "org", embedder=embedder) as organization:
        assert access(organization, shared) == before


def test_membership_never_reaches_a_third_tenant(hebbs_server: Server) -> None:
    key, _, organization = member_key(hebbs_server, POLICIES)
    third = tenant()
    keys = KeyStore(hebbs_server.data)
    try:
        writer, _ = keys.create(third, "write")
        keys.join(organization, third)
    finally:
        keys.close()
    with HebbsClient(hebbs_server.url, writer) as client:
        fill(client, ["the third tenant's secret deploy notes"], "secret")
    with HebbsClient(hebbs_server.url, key) as client:
        output = client.recall("secret deploy notes", top_k=10, include_organization=True)
    seen = contents(output.results) | contents(output.organization_memory.results)  # type: ignore[union-attr]
    assert "the third tenant's secret deploy notes" not in seen


def test_leaving_ends_the_access_on_the_next_request(hebbs_server: Server) -> None:
    key, member, _ = member_key(hebbs_server, POLICIES)
    with HebbsClient(hebbs_server.url, key) as client:
        assert client.recall("deploy", include_organization=True).organization_memory is not None
        keys = KeyStore(hebbs_server.data)
        try:
            assert keys.leave(member)
        finally:
            keys.close()
        with pytest.raises(InvalidValueError) as caught:
            client.recall("deploy", include_organization=True)
        assert caught.value.field == "include_organization"


def test_a_tenant_joins_one_organization_at_a_time(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path)
    try:
        keys.join("alice", "acme")
        keys.join("alice", "acme")
        with pytest.raises(ConflictError, match="leave it first") as moved:
            keys.join("alice", "globex")
        assert moved.value.field == "organization"
        with pytest.raises(ValueError, match="its own organization"):
            keys.join("bob", "bob")
        with pytest.raises(ValueError, match="invalid organization"):
            keys.join("bob", "../acme")
        assert keys.organization("alice") == "acme"
        assert keys.leave("alice")
        assert not keys.leave("alice")
        assert keys.organization("alice") is None
    finally:
        keys.close()


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = main([*argv, "--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out if code == 0 else captured.err)


def test_cli_keys_and_recall(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = str(tmp_path / "server")
    code, made = run_cli(
        capsys,
        "keys",
        "create",
        "--db",
        data,
        "--tenant",
        "alice",
        "--scope",
        "read",
        "--org",
        "acme",
    )
    assert code == 0
    assert made["organization"] == "acme"
    code, refused = run_cli(
        capsys, "keys", "join", "--db", data, "--tenant", "alice", "--org", "globex"
    )
    assert code == EXIT_CONFLICT
    assert refused["error"]["field"] == "--org"  # type: ignore[index]
    assert refused["error"]["kind"] == "conflict"  # type: ignore[index]
    code, listed = run_cli(capsys, "keys", "list", "--db", data)
    assert [key["organization"] for key in listed["keys"]] == ["acme"]  # type: ignore[index]
    code, left = run_cli(capsys, "keys", "leave", "--db", data, "--tenant", "alice")
    assert code == 0
    assert left["organization"] is None

    org, own = str(tmp_path / "org"), str(tmp_path / "own")
    assert run_cli(capsys, "remember", "--db", org, POLICIES[0])[0] == 0
    assert run_cli(capsys, "remember", "--db", own, TEAM[0])[0] == 0
    code, answer = run_cli(
        capsys,
        "recall",
        "--db",
        own,
        "deploy reviewers",
        "--include-organization",
        "--organization",
        org,
    )
    assert code == 0
    organization = answer["organization_memory"]
    assert [r["memory"]["content"] for r in organization["results"]] == [POLICIES[0]]  # type: ignore[index]
    assert [r["memory"]["content"] for r in answer["results"]] == [TEAM[0]]  # type: ignore[index]
    code, failed = run_cli(capsys, "recall", "--db", own, "deploy", "--include-organization")
    assert code == 2
    assert failed["error"]["field"] == "--include-organization"  # type: ignore[index]
