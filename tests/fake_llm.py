"""A real HTTP server on 127.0.0.1, started by the tests, that answers like both LLM APIs:
``POST /v1/chat/completions`` (OpenAI-compatible) and ``POST /v1/messages`` (Anthropic).

By default it plays a model: to a proposal prompt it answers one insight citing every memory
label it reads (``[m1] ...``), to a validation prompt it accepts every proposal, to an indexing
prompt one proposition per section. ``script``
queues behaviours for the next requests, one each: ``("status", code, headers)``, ``("slow",
seconds)``, ``("malformed",)`` (an answer that is not the schema's JSON), ``("text", body)``
(HTTP 200 with a body that is not JSON) or ``("answer", dict)``. Every request is recorded with
its time, path, headers and body; ``max_in_flight`` is the most requests it served at once.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: Seconds between the server's checks for shutdown (``close`` waits up to this long).
POLL_S = 0.02

_LABEL = re.compile(r"^\[([^\]]+)\] ", re.MULTILINE)


@dataclass
class Seen:
    at: float
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class FakeLLM:
    server: ThreadingHTTPServer
    script: deque[tuple[Any, ...]] = field(default_factory=deque)
    seen: list[Seen] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


_SECTION = re.compile(
    r"^\[section (\d+)\] [^\n]*\n(.*?)(?=\n\n\[section |\n\nAnswer as)", re.M | re.S
)


def model_answer(system: str, prompt: str) -> dict[str, Any]:
    """What the fake model answers to one of reflection's or indexing's prompts (indexing: one
    proposition per section, its text upper-cased, its first word the main entity)."""
    if prompt.startswith("Sections:"):
        propositions = [
            {
                "section": int(i),
                "text": text.upper(),
                "entities": [text.split()[0]],
                "main_entity": text.split()[0],
            }
            for i, text in _SECTION.findall(prompt)
        ]
        return {"propositions": propositions, "relations": []}
    if "Proposals:" in prompt:
        count = len(re.findall(r"^\d+\. ", prompt, re.MULTILINE))
        return {"verdicts": [{"index": i, "verdict": "accepted"} for i in range(count)]}
    labels = _LABEL.findall(prompt.split("Existing insights:")[0])
    memories = [m for m in labels if not m.startswith("i")]
    return {
        "insights": [
            {
                "content": f"A pattern across {len(memories)} memories",
                "sources": memories,
                "confidence": 0.8,
            }
        ]
    }


def _text_of(path: str, body: dict[str, Any]) -> tuple[str, str]:
    if path.endswith("/messages"):
        return body.get("system", ""), body["messages"][-1]["content"]
    system = body["messages"][0]["content"]
    user = next(m for m in body["messages"] if m["role"] == "user")["content"]
    return system, user


def _wrap(path: str, text: str) -> dict[str, Any]:
    if path.endswith("/messages"):
        return {"type": "message", "role": "assistant", "content": [{"type": "text", "text": text}]}
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}


def start() -> FakeLLM:
    fake: FakeLLM

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            with fake.lock:
                fake.seen.append(Seen(time.monotonic(), self.path, dict(self.headers), body))
                step = fake.script.popleft() if fake.script else ("model",)
                fake.in_flight += 1
                fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
            try:
                self._answer(step, body)
            finally:
                with fake.lock:
                    fake.in_flight -= 1

        def _answer(self, step: tuple[Any, ...], body: dict[str, Any]) -> None:
            kind = step[0]
            if kind == "status":
                payload = json.dumps({"error": {"message": f"fake {step[1]}"}}).encode()
                self._send(step[1], payload, step[2] if len(step) > 2 else None)
                return
            if kind == "text":
                self._send(200, step[1].encode())
                return
            if kind == "slow":
                time.sleep(step[1])
            system, prompt = _text_of(self.path, body)
            if kind == "malformed":
                text = '{"insights": [{"content": "", "sources": "m1"}'
            elif kind == "answer":
                text = json.dumps(step[1])
            else:
                text = json.dumps(model_answer(system, prompt))
            self._send(200, json.dumps(_wrap(self.path, text)).encode())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    fake = FakeLLM(server)
    threading.Thread(target=server.serve_forever, args=(POLL_S,), daemon=True).start()
    return fake
