"""``OpenAIProvider``: OpenAI-compatible chat completions (``POST {base_url}/chat/completions``),
which OpenAI and the local servers (Ollama, vLLM, llama.cpp, LM Studio) all speak. JSON mode
(``response_format: json_object``) is requested; the schema is in the system message."""

from __future__ import annotations

from typing import Any

from .constants import DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL
from .http_provider import HttpProvider, Messages


class OpenAIProvider(HttpProvider):
    """Chat completions at ``base_url`` (default ``https://api.openai.com/v1``) with ``model``
    (default ``gpt-4o-mini``); ``api_key`` as a bearer token, optional for local servers.
    See :class:`~hebbs.llm.http_provider.HttpProvider` for the retry, timeout and
    concurrency arguments."""

    name = "openai"
    path = "/chat/completions"

    def __init__(
        self,
        base_url: str = DEFAULT_OPENAI_BASE_URL,
        model: str = DEFAULT_OPENAI_MODEL,
        api_key: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(base_url=base_url, model=model, api_key=api_key, **options)

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def request_body(self, system: str, messages: Messages) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, *messages],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "response_format": {"type": "json_object"},
        }

    def answer_text(self, body: Any) -> str:
        content = body["choices"][0]["message"]["content"]
        if not isinstance(content, str):
            raise TypeError("choices[0].message.content is not a string")
        return content
