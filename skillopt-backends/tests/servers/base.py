"""A scripted HTTP server on 127.0.0.1 for provider-protocol tests.

Each protocol (OpenAI, Azure OpenAI, Anthropic) subclasses :class:`ProtocolServer`
and turns scripted *actions* into its exact wire format. Tests queue actions
(``server.script(Fail(429, headers={"Retry-After": "1"}), Reply("hi"))``); with an
empty queue the server answers a deterministic default. Every request is recorded
(path, headers, JSON body), together with the peak number of requests in flight.

This stands in for the provider's service, not for our code: the real SDK clients
talk to it over real sockets.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import attrs


@attrs.frozen
class Reply:
    """A successful answer: ``text``, or ``data`` (JSON content / a tool call)."""

    text: str | None = None
    data: Any = None
    finish: str = "stop"  # "length" for output cut at max_tokens
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    model: str | None = None


@attrs.frozen
class Fail:
    """An error status with the provider's error body."""

    status: int
    message: str = ""
    kind: str = ""  # provider error type / code
    headers: dict[str, str] = attrs.field(factory=dict)
    param: str | None = None


@attrs.frozen
class Slow:
    """Wait ``seconds`` before acting (timeouts, cancellation, concurrency)."""

    seconds: float
    then: Any = None


@attrs.frozen
class Hold:
    """Hold the request until ``release`` is set (at most ``limit_s``), then act: a request
    that stays out exactly as long as the test wants, with no clock involved."""

    release: threading.Event
    then: Any = None
    limit_s: float = 30.0


@attrs.frozen
class Raw:
    """Send these bytes as the body (malformed JSON and the like)."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"


@attrs.frozen
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    at: float


class ProtocolError(Exception):
    """The request broke the protocol: answer with this status and error body."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error", param: str | None = None):
        super().__init__(message)
        self.status, self.message, self.kind, self.param = status, message, kind, param


class ProtocolServer:
    """Base: recording, scripting, threading. Subclasses implement :meth:`handle`."""

    def __init__(self) -> None:
        self._queue: deque = deque()
        self._lock = threading.Lock()
        self.requests: list[Recorded] = []
        self.in_flight = 0
        self.max_in_flight = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                server._serve(self, "GET")

            def do_POST(self) -> None:
                server._serve(self, "POST")

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                import sys

                if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
                    super().handle_error(request, client_address)  # a real bug in a test server

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, name=f"{type(self).__name__}:{self.port}", daemon=True)

    # ------------------------------------------------------------ control

    def start(self) -> ProtocolServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, *actions: Any) -> None:
        with self._lock:
            self._queue.extend(actions)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests = []
            self.max_in_flight = 0

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def last(self) -> Recorded:
        with self._lock:
            return self.requests[-1]

    # ------------------------------------------------------------ serving

    def _serve(self, h: BaseHTTPRequestHandler, method: str) -> None:
        parts = urlsplit(h.path)
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        headers = {k.lower(): v for k, v in h.headers.items()}
        rec = Recorded(method, parts.path, parse_qs(parts.query), headers, body, time.monotonic())
        with self._lock:
            self.requests.append(rec)
            action = self._queue.popleft() if self._queue else None
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            while isinstance(action, (Slow, Hold)):
                if isinstance(action, Hold):
                    action.release.wait(action.limit_s)
                else:
                    time.sleep(action.seconds)
                action = action.then
            status, out_headers, payload = self._respond(rec, action)
            self._send(h, status, out_headers, payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout, cancellation): nothing to answer
        finally:
            with self._lock:
                self.in_flight -= 1

    def _respond(self, rec: Recorded, action: Any) -> tuple[int, dict[str, str], bytes]:
        if isinstance(action, Raw):
            return action.status, {"Content-Type": action.content_type}, action.body
        try:
            self.check(rec)
            if isinstance(action, Fail):
                return (
                    action.status,
                    dict(action.headers),
                    self.error_body(action.status, action.message, action.kind, action.param),
                )
            return 200, {}, json.dumps(self.handle(rec, action)).encode()
        except ProtocolError as err:
            return err.status, {}, self.error_body(err.status, err.message, err.kind, err.param)

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, headers: dict[str, str], payload: bytes) -> None:
        h.send_response(status)
        headers = {"Content-Type": "application/json", **headers}
        for key, value in headers.items():
            h.send_header(key, value)
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)
        h.wfile.flush()

    # ------------------------------------------------------------ protocol hooks

    def check(self, rec: Recorded) -> None:
        """Raise :class:`ProtocolError` when the request breaks the protocol."""

    def handle(self, rec: Recorded, action: Reply | None) -> dict[str, Any]:
        raise NotImplementedError

    def error_body(self, status: int, message: str, kind: str, param: str | None) -> bytes:
        raise NotImplementedError


def word_tokens(text: str) -> int:
    """The fake servers' token count: whitespace-separated words."""
    return len(str(text).split())


def minimal_instance(schema: dict[str, Any]) -> Any:
    """A small value valid under ``schema`` (what a well-behaved model would send)."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        props = schema.get("properties", {})
        return {key: minimal_instance(props.get(key, {})) for key in schema.get("required", [])}
    if kind == "array":
        return [minimal_instance(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if kind == "string":
        return "ok".ljust(schema.get("minLength", 0), "k")
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return None
