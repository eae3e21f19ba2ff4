"""The HTTP/1.1 protocol ``hebbs serve`` runs under uvicorn: uvicorn's httptools protocol with
the server's limits on what comes before the body, and the documented JSON error body for a
request the HTTP parser refuses before the app sees it.

uvicorn answers such a request (a malformed request line, a control character such as NUL in a
header, a request target past httptools' own 65,535 bytes) with a plain-text ``400 Invalid HTTP
request received.`` and closes the connection. This protocol answers the same 400 with
``{"error_code": "invalid_input", "message": ..., "field": "request"}``. It also refuses a
request target (path and query) longer than :data:`MAX_TARGET_BYTES` and header lines adding up
to more than :data:`MAX_HEADER_BYTES`, which uvicorn would otherwise read without bound.

After the 400 the connection closes the way web servers do it (nginx's "lingering close"): the
answer is sent and the server's side shut down for writing, and what the client still sends
is read and dropped until it closes its side or :data:`LINGER_S` pass. A socket closed with
unread bytes in it is reset instead (a TCP RST), and the reset can reach the client before it
read the answer: a client still sending a long request would then see "connection reset"
instead of the 400.
"""

from __future__ import annotations

from typing import Any, Final

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from hebbs.jsonwire import JSON_MEDIA_TYPE, dumps
from hebbs.service.errors import error_body

#: The longest request target (path and query string) read, in bytes.
MAX_TARGET_BYTES: Final = 16 * 1024
#: The most bytes of header names and values one request may send.
MAX_HEADER_BYTES: Final = 64 * 1024
#: Seconds a refused connection keeps reading (and dropping) what its client still sends.
LINGER_S: Final = 5.0
#: The field an error of the HTTP parser names: the request line or headers.
REQUEST_FIELD: Final = "request"
#: What an error of the parser says when no limit of ours was passed.
MALFORMED: Final = (
    "not a valid HTTP/1.1 request (a malformed request line or header, such as a control "
    "character in a header value)"
)


class RequestTooLarge(Exception):
    """Raised in a parser callback when a limit above is passed; httptools then stops and
    uvicorn answers 400 through :meth:`HebbsHttpProtocol.send_400_response`."""


class HebbsHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits and JSON 400 above."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_bytes = 0
        self._refusal = MALFORMED
        self._refused = False

    def data_received(self, data: bytes) -> None:
        if not self._refused:
            super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._header_bytes = 0

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > MAX_TARGET_BYTES:
            self._refuse(f"the request target is longer than {MAX_TARGET_BYTES} bytes")

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_bytes += len(name) + len(value)
        if self._header_bytes > MAX_HEADER_BYTES:
            self._refuse(f"the headers are longer than {MAX_HEADER_BYTES} bytes")
        super().on_header(name, value)

    def _refuse(self, reason: str) -> None:
        self._refusal = reason
        raise RequestTooLarge(reason)

    def send_400_response(self, msg: str) -> None:
        """The 400 uvicorn sends for what the parser refused, as the documented JSON body."""
        body = dumps(
            error_body("invalid_input", f"invalid request: {self._refusal}", REQUEST_FIELD)
        )
        head = [b"HTTP/1.1 400 Bad Request\r\n"]
        for name, value in self.server_state.default_headers:
            head.append(name + b": " + value + b"\r\n")
        head.append(b"content-type: " + JSON_MEDIA_TYPE.encode("ascii") + b"\r\n")
        head.append(b"content-length: " + str(len(body)).encode("ascii") + b"\r\n")
        head.append(b"connection: close\r\n\r\n")
        self._refused = True
        self.transport.write(b"".join(head) + body)
        if self.transport.can_write_eof():
            self.transport.write_eof()
            self.loop.call_later(LINGER_S, self.transport.close)
        else:
            self.transport.close()
