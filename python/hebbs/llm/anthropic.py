"""``AnthropicProvider``: the Anthropic messages API (``POST {base_url}/messages``, headers
``x-api-key`` and ``anthropic-version``); the system prompt carries the schema and the answer
is the concatenated ``text`` blocks of the reply."""

from __future__ import annotations

from typing import Any

from .constants import ANTHROPIC_API_VERSION, DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_ANTHROPIC_MODEL
from .http_provider import HttpProvider, Messages


class AnthropicProvider(HttpProvider):
    """Messages at ``base_url`` (default ``https://api.anthropic.com/v1``) with ``model``;
    ``api_key`` goes in ``x-api-key``. Other arguments as
    :class:`~hebbs.llm.http_provider.HttpProvider`."""

    name = "anthropic"
    path = "/messages"

    def __init__(
        self,
        base_url: str = DEFAULT_ANTHROPIC_BASE_URL,
        model: str = DEFAULT_ANTHROPIC_MODEL,
        api_key: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(base_url=base_url, model=model, api_key=api_key, **options)

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "anthropic-version": ANTHROPIC_API_VERSION}
        if self._api_key is not None:
            headers["x-api-key"] = self._api_key
        return headers

    def request_body(self, system: str, messages: Messages) -> dict[str, Any]:
        return {
            "model": self.model,
            "system": system,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def answer_text(self, body: Any) -> str:
        blocks = body["content"]
        texts = [block["text"] for block in blocks if block.get("type") == "text"]
        if not texts:
            raise KeyError("no text block in content")
        return "".join(texts)
