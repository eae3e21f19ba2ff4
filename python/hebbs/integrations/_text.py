"""What the adapters share about the text a framework's item becomes: a memory's ``content``
is at most ``MAX_CONTENT_BYTES`` of UTF-8, so a longer text is cut there (the item itself is
kept whole in the memory's context)."""

from __future__ import annotations

from hebbs._native import MAX_CONTENT_BYTES


def content_text(text: str) -> str:
    """``text`` cut to at most ``MAX_CONTENT_BYTES`` bytes of UTF-8, on a character boundary."""
    encoded = text.encode("utf-8")
    if len(encoded) <= MAX_CONTENT_BYTES:
        return text
    return encoded[:MAX_CONTENT_BYTES].decode("utf-8", errors="ignore")
