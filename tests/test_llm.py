"""The LLM providers against a real local HTTP server that answers like both APIs
(``fake_llm.py``): request shapes, retries on 429 / 5xx honouring Retry-After, timeouts, the
JSON repair, typed errors, the concurrency limit, and keys kept out of logs."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from pydantic import BaseModel

from fake_llm import FakeLLM, start
from hebbs.errors import InvalidValueError, LLMError
from hebbs.llm import (
    AnthropicProvider,
    LLMTask,
    OfflineProvider,
    OpenAIProvider,
    make_provider,
    provider_from_env,
)
from hebbs.llm.http_provider import HttpProvider, retry_after

KEY = "sk-test-SECRET-do-not-log-1234"


class Answer(BaseModel):
    insights: list[dict[str, Any]]


TASK = LLMTask("reflect.propose", "system text", "Memories:\n[m1] one\n[m2] two\n")


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    server = start()
    yield server
    server.close()


def _providers(url: str, **options: Any) -> list[HttpProvider]:
    return [
        OpenAIProvider(base_url=url, model="m", api_key=KEY, backoff=0.01, **options),
        AnthropicProvider(base_url=url, model="m", api_key=KEY, backoff=0.01, **options),
    ]


def test_both_apis_answer_with_the_schema_and_send_their_own_shapes(fake: FakeLLM) -> None:
    openai, anthropic = _providers(fake.url)
    for provider in (openai, anthropic):
        answer = provider.complete(TASK, Answer)
        assert answer.insights[0]["sources"] == ["m1", "m2"]
        assert provider.calls == 1
    chat, messages = fake.seen
    assert chat.path == "/v1/chat/completions"
    assert chat.headers["Authorization"] == f"Bearer {KEY}"
    assert chat.body["response_format"] == {"type": "json_object"}
    assert chat.body["messages"][0]["role"] == "system"
    assert "JSON schema" in chat.body["messages"][0]["content"]
    assert messages.path == "/v1/messages"
    assert messages.headers["x-api-key"] == KEY
    assert messages.headers["anthropic-version"]
    assert "JSON schema" in messages.body["system"]
    assert messages.body["messages"][0]["role"] == "user"


def test_429_is_retried_after_the_delay_the_server_asks(fake: FakeLLM) -> None:
    provider = _providers(fake.url)[0]
    fake.script.append(("status", 429, {"Retry-After": "0.3"}))
    provider.complete(TASK, Answer)
    first, second = fake.seen
    assert second.at - first.at >= 0.25
    assert provider.calls == 2


def test_5xx_are_retried_then_reported_with_the_status(fake: FakeLLM) -> None:
    provider = _providers(fake.url, max_retries=2)[1]
    fake.script.extend([("status", 500), ("status", 503)])
    provider.complete(TASK, Answer)
    assert provider.calls == 3
    fake.script.extend([("status", 502)] * 3)
    with pytest.raises(LLMError) as caught:
        provider.complete(TASK, Answer)
    assert caught.value.status == 502
    assert caught.value.provider == "anthropic"
    assert "3 attempts" in str(caught.value)


def test_a_refused_request_is_not_retried(fake: FakeLLM) -> None:
    provider = _providers(fake.url)[0]
    fake.script.append(("status", 400))
    with pytest.raises(LLMError) as caught:
        provider.complete(TASK, Answer)
    assert caught.value.status == 400
    assert len(fake.seen) == 1


def test_a_slow_answer_times_out_and_is_retried(fake: FakeLLM) -> None:
    provider = _providers(fake.url, timeout=0.2, max_retries=1)[0]
    fake.script.extend([("slow", 1.0), ("model",)])
    provider.complete(TASK, Answer)
    assert provider.calls == 2
    fake.script.extend([("slow", 1.0), ("slow", 1.0)])
    with pytest.raises(LLMError, match="timed out"):
        provider.complete(TASK, Answer)


def test_malformed_json_is_repaired_once_then_reported(fake: FakeLLM) -> None:
    for provider in _providers(fake.url):
        fake.seen.clear()
        fake.script.append(("malformed",))
        assert provider.complete(TASK, Answer).insights
        assert len(fake.seen) == 2
        repair = fake.seen[1].body["messages"]
        assert repair[-2]["role"] == "assistant"
        assert "not valid" in repair[-1]["content"]
        fake.script.extend([("malformed",), ("malformed",)])
        with pytest.raises(LLMError, match="unusable JSON twice"):
            provider.complete(TASK, Answer)


def test_a_body_that_is_not_json_is_a_typed_error(fake: FakeLLM) -> None:
    provider = _providers(fake.url)[0]
    fake.script.append(("text", "<html>bad gateway</html>"))
    with pytest.raises(LLMError, match="not JSON"):
        provider.complete(TASK, Answer)
    fake.script.append(("text", '{"unexpected": true}'))
    with pytest.raises(LLMError, match="unknown shape"):
        provider.complete(TASK, Answer)


def test_the_concurrency_limit_holds_across_threads(fake: FakeLLM) -> None:
    provider = _providers(fake.url, concurrency=2)[0]
    fake.script.extend([("slow", 0.2)] * 6)
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(lambda _: provider.complete(TASK, Answer), range(6)))
    assert fake.max_in_flight == 2


def test_the_key_is_never_logged_shown_or_quoted(
    fake: FakeLLM, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    provider = _providers(fake.url, max_retries=1)[0]
    fake.script.extend([("status", 500), ("status", 500)])
    with pytest.raises(LLMError) as caught:
        provider.complete(TASK, Answer)
    assert caplog.records, "the retry was logged"
    assert all(KEY not in record.getMessage() for record in caplog.records)
    assert KEY not in repr(provider)
    assert KEY not in str(caught.value)


def test_retry_after_reads_seconds_and_dates() -> None:
    assert retry_after("2") == 2.0
    assert retry_after(None) is None
    assert retry_after("garbage") is None
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


def test_providers_are_configured_by_arguments_or_environment(fake: FakeLLM) -> None:
    assert isinstance(provider_from_env({}), OfflineProvider)
    env = {
        "HEBBS_LLM_PROVIDER": "anthropic",
        "HEBBS_LLM_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": KEY,
        "HEBBS_LLM_MODEL": "claude-x",
    }
    provider = provider_from_env(env)
    assert isinstance(provider, AnthropicProvider)
    assert provider.model == "claude-x"
    provider.complete(TASK, Answer)
    assert fake.seen[-1].headers["x-api-key"] == KEY
    with pytest.raises(InvalidValueError) as caught:
        make_provider("gpt")
    assert caught.value.field == "provider"
    with pytest.raises(InvalidValueError) as caught:
        OpenAIProvider(base_url="ftp://x")
    assert caught.value.field == "base_url"


def test_the_offline_provider_refuses_tasks_it_does_not_know() -> None:
    with pytest.raises(LLMError, match="cannot answer"):
        OfflineProvider().complete(LLMTask("summarise", "", ""), Answer)
