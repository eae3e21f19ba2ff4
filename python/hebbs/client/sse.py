"""Server-sent events of ``POST /v1/subscribe``, parsed line by line.

The stream's first event carries ``{"subscription_id": N}``; each later event's data is a
:class:`~hebbs.SubscribePush` in its wire shape (see ``SubscribePush.to_dict``). An event named
``error`` carries the server's error object; comment lines (``:`` keep-alives) are skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hebbs.client.errors import error_from_response
from hebbs.errors import HebbsError, ServerUnavailableError
from hebbs.jsonwire import loads

#: The event name of an error sent on the stream.
ERROR_EVENT = "error"
#: The event name when the server gives none.
DEFAULT_EVENT = "message"


@dataclass(frozen=True)
class Event:
    """One dispatched event: its name and its data decoded from JSON."""

    name: str
    data: Any


class EventParser:
    """Turns the stream's lines into :class:`Event`; feed lines without their line ending."""

    def __init__(self) -> None:
        self._name = DEFAULT_EVENT
        self._data: list[str] = []

    def feed(self, line: str) -> Event | None:
        """The event that ``line`` completes (a blank line ends one), else None."""
        if not line:
            if not self._data:
                self._name = DEFAULT_EVENT
                return None
            text = "\n".join(self._data)
            name = self._name
            self._name, self._data = DEFAULT_EVENT, []
            try:
                return Event(name, loads(text))
            except json.JSONDecodeError as error:
                raise ServerUnavailableError(f"malformed subscription event: {error}") from None
        if line.startswith(":"):
            return None
        key, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if key == "data":
            self._data.append(value)
        elif key == "event":
            self._name = value
        return None


def subscription_id(event: Event | None) -> int:
    """The id the stream's first event announces."""
    data = event.data if event is not None else None
    found = data.get("subscription_id") if isinstance(data, dict) else None
    if not isinstance(found, int) or isinstance(found, bool):
        raise ServerUnavailableError(f"the subscription stream did not start with an id: {data!r}")
    return found


def stream_error(event: Event) -> HebbsError | None:
    """The exception an ``error`` event carries, else None."""
    if event.name != ERROR_EVENT:
        return None
    return error_from_response(500, event.data)
