"""LLM providers for reflection and document indexing, behind one interface
(:class:`LLMProvider`: a :class:`LLMTask` in, a validated pydantic object out).

- :class:`OpenAIProvider`: OpenAI-compatible chat completions (OpenAI, Ollama, vLLM,
  llama.cpp, LM Studio).
- :class:`AnthropicProvider`: the Anthropic messages API.
- :class:`OfflineProvider`: no model and no network: extractive answers.

:func:`make_provider` builds one by name; :func:`provider_from_env` reads
``HEBBS_LLM_PROVIDER``, ``HEBBS_LLM_BASE_URL``, ``HEBBS_LLM_MODEL`` and ``HEBBS_LLM_API_KEY``
(or ``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY``) and falls back to the offline provider.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from hebbs._inputs import invalid

from .anthropic import AnthropicProvider
from .constants import (
    ENV_ANTHROPIC_KEY,
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_MODEL,
    ENV_OPENAI_KEY,
    ENV_PROVIDER,
    PROVIDER_NAMES,
)
from .offline import OfflineProvider
from .openai import OpenAIProvider
from .protocol import LLMProvider, LLMTask


def make_provider(
    name: str,
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    **options: Any,
) -> LLMProvider:
    """The provider called ``name`` (one of ``PROVIDER_NAMES``); the other arguments as the
    provider classes take them, None meaning the class default."""
    if name == "offline":
        return OfflineProvider()
    given = {
        key: value
        for key, value in (("base_url", base_url), ("model", model), ("api_key", api_key))
        if value is not None
    }
    if name == "openai":
        return OpenAIProvider(**given, **options)
    if name == "anthropic":
        return AnthropicProvider(**given, **options)
    raise invalid("provider", f"unknown LLM provider {name!r}; expected one of {PROVIDER_NAMES}")


def provider_from_env(environ: Mapping[str, str] | None = None) -> LLMProvider:
    """The provider the environment configures (see the module docs); offline when
    ``HEBBS_LLM_PROVIDER`` is unset or ``offline``."""
    env = os.environ if environ is None else environ
    name = env.get(ENV_PROVIDER, "offline").strip().lower() or "offline"
    if name not in PROVIDER_NAMES:
        raise invalid(
            ENV_PROVIDER, f"unknown LLM provider {name!r}; expected one of {PROVIDER_NAMES}"
        )
    vendor_key = ENV_ANTHROPIC_KEY if name == "anthropic" else ENV_OPENAI_KEY
    return make_provider(
        name,
        base_url=env.get(ENV_BASE_URL) or None,
        model=env.get(ENV_MODEL) or None,
        api_key=env.get(ENV_API_KEY) or env.get(vendor_key) or None,
    )


__all__ = [
    "AnthropicProvider",
    "LLMProvider",
    "LLMTask",
    "OfflineProvider",
    "OpenAIProvider",
    "make_provider",
    "provider_from_env",
]
