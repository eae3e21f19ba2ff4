"""Named defaults of the LLM providers, defined once (the docs quote them)."""

from __future__ import annotations

from typing import Final

#: Seconds one HTTP request may take (connect, send, wait, read) before it is retried.
DEFAULT_LLM_TIMEOUT_S: Final = 60.0
#: Retries after the first attempt, on 429, 5xx, timeouts and dropped connections.
DEFAULT_LLM_MAX_RETRIES: Final = 4
#: First backoff in seconds; doubles each retry (with up to 25 % jitter) unless the server's
#: ``Retry-After`` says otherwise.
DEFAULT_LLM_BACKOFF_S: Final = 0.5
#: Longest wait between two attempts, in seconds, whatever ``Retry-After`` asks.
MAX_LLM_BACKOFF_S: Final = 30.0
#: Requests one provider has in flight at once (across threads).
DEFAULT_LLM_CONCURRENCY: Final = 4
#: Tokens a completion may produce.
DEFAULT_LLM_MAX_TOKENS: Final = 1024
#: Sampling temperature: structured extraction wants determinism.
DEFAULT_LLM_TEMPERATURE: Final = 0.0
#: Characters of an unusable answer quoted in an :class:`~hebbs.errors.LLMError`.
LLM_ERROR_PREVIEW: Final = 300

#: Base URLs when none is given.
DEFAULT_OPENAI_BASE_URL: Final = "https://api.openai.com/v1"
DEFAULT_ANTHROPIC_BASE_URL: Final = "https://api.anthropic.com/v1"
#: The ``anthropic-version`` header the messages API needs.
ANTHROPIC_API_VERSION: Final = "2023-06-01"
#: Models when none is given.
DEFAULT_OPENAI_MODEL: Final = "gpt-4o-mini"
DEFAULT_ANTHROPIC_MODEL: Final = "claude-3-5-haiku-latest"

#: Environment variables read by :func:`hebbs.llm.provider_from_env`.
ENV_PROVIDER: Final = "HEBBS_LLM_PROVIDER"
ENV_BASE_URL: Final = "HEBBS_LLM_BASE_URL"
ENV_MODEL: Final = "HEBBS_LLM_MODEL"
ENV_API_KEY: Final = "HEBBS_LLM_API_KEY"
ENV_OPENAI_KEY: Final = "OPENAI_API_KEY"
ENV_ANTHROPIC_KEY: Final = "ANTHROPIC_API_KEY"
#: The provider names :func:`~hebbs.llm.make_provider` knows.
PROVIDER_NAMES: Final = ("offline", "openai", "anthropic")
