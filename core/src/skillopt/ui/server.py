"""The dashboard's HTTP server: a JSON API over run directories, a live event stream,
and one static page.

Upstream's Gradio UI listened on every interface with no authentication while able to
start processes with the user's credentials. Here: loopback by default; every API call
needs the session token printed at start (a header, or ``?token=`` for the event
stream, which browsers cannot give headers); a request whose ``Host`` is not the
address we listen on is refused (DNS rebinding); state-changing calls are POSTs with a
JSON body and the token header, which a cross-site form cannot send.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from skillopt.redact import redact_data, redact_text
from skillopt.ui import routes, runs, static
from skillopt.ui.launch import Launcher

LOOPBACK = ("127.0.0.1", "localhost", "::1")
_EVENTS = re.compile(r"^/api/runs/([^/]+)/events$")
MAX_BODY = 64 * 1024
#: seconds a connection may stay silent while we read its request or its body: a client
#: that declares more than it sends is answered 400 instead of holding a thread for ever
IO_TIMEOUT_S = 15.0
_DIGITS = re.compile(r"[0-9]{1,12}")
#: scripts and styles come from this server only; nothing inline, nothing from elsewhere
CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'"


class Dashboard:
    """What the handler needs: where runs are, the token, the launcher."""

    def __init__(self, roots: list[Path], launch_root: Path, *, token: str | None = None, poll_s: float = 1.0,
                 startup_timeout_s: float = 30.0) -> None:
        self.index = runs.RunIndex(roots)
        self.launcher = Launcher(launch_root, startup_timeout_s=startup_timeout_s)
        self.token = token or secrets.token_urlsafe(24)
        self.poll_s = poll_s
        self.allowed_hosts: set[str] = set()
        self.stopping = threading.Event()

    def authorised(self, header: str | None, query_token: str | None) -> bool:
        given = ""
        if header and header.lower().startswith("bearer "):
            given = header[7:].strip()
        elif query_token:
            given = query_token
        return bool(given) and hmac.compare_digest(given.encode(), self.token.encode())


def make_server(dashboard: Dashboard, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer((host, port), _handler_for(dashboard))
    server.daemon_threads = True
    bound = server.server_address[1]
    names = {"127.0.0.1", "localhost", "[::1]"}
    if host not in LOOPBACK:  # reachable from elsewhere: the names this machine answers to, never "any Host"
        import socket

        names |= {host if ":" not in host else f"[{host}]", socket.gethostname(), socket.getfqdn()}
        names.discard("0.0.0.0")
        names.discard("[::]")
    dashboard.allowed_hosts = {f"{h}:{bound}" for h in names if h}
    return server


def _handler_for(dashboard: Dashboard) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "skillopt-dashboard"
        timeout = IO_TIMEOUT_S  # socketserver sets it on the connection: no read waits for ever

        def log_message(self, *args: Any) -> None:  # keep the terminal for progress
            pass

        # ------------------------------------------------------------ plumbing

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Security-Policy", CSP)
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, data: Any) -> None:
            if status >= 400 and isinstance(data, dict):
                data = redact_data(data)
            self._send(status, json.dumps(data, default=str).encode(), "application/json")

        def _error(self, status: int, message: str) -> None:
            self._json(status, {"error": redact_text(message)})

        def _host_ok(self) -> bool:
            if dashboard.allowed_hosts and self.headers.get("Host", "") not in dashboard.allowed_hosts:
                self._error(403, "unexpected Host header")
                return False
            return True

        def _gate(self, query: dict[str, list[str]]) -> bool:
            """Host and token checks; answers the refusal itself."""
            if not self._host_ok():
                return False
            if not dashboard.authorised(self.headers.get("Authorization"), next(iter(query.get("token") or []), None)):
                self._error(401, "missing or wrong token: use the URL `skillopt ui` printed")
                return False
            return True

        # ------------------------------------------------------------ GET

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if not url.path.startswith("/api/"):
                if not self._host_ok():
                    return None
                found = static.asset(url.path)
                if found is None:
                    return self._error(404, "not found")
                return self._send(200, *found)
            if not self._gate(query):
                return None
            m = _EVENTS.match(url.path)
            if m:
                run_id = unquote(m.group(1))
                launched = dashboard.launcher.launches().get(run_id)
                path = dashboard.index.get(run_id) or (launched.run_dir if launched else None)
                return self._events(run_id, path) if path else self._error(404, f"no run named {run_id}")
            status, data = routes.get(dashboard, url.path, query)
            return self._json(status, data)

        def _events(self, run_id: str, path: Path) -> None:
            """Server-sent events: the run's overview each time it writes progress or its
            lock changes hands (a killed run writes nothing, but its lock is released)."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            last: tuple[Any, ...] | None = None
            idle = 0.0
            while not dashboard.stopping.is_set():
                sig = runs.signature(path) if runs.is_run_dir(path) else None  # a launch still starting: wait for it
                if sig is not None and sig != last:
                    last = sig
                    data = routes.decorate(dashboard, runs.overview(run_id, path), path)
                    data["history_len"] = len(runs.steps_of(runs.read_json(path / "history.json")))
                    message = f"event: progress\ndata: {json.dumps(data, default=str)}\n\n"
                elif idle >= 15:
                    message, idle = ": keep-alive\n\n", 0.0
                else:
                    time.sleep(dashboard.poll_s)
                    idle += dashboard.poll_s
                    continue
                try:
                    self.wfile.write(message.encode())
                    self.wfile.flush()
                except OSError:
                    return

        # ------------------------------------------------------------ POST

        def do_POST(self) -> None:
            url = urlsplit(self.path)
            if not self._gate({}):  # POSTs take the token only as a header
                return None
            if "application/json" not in (self.headers.get("Content-Type") or ""):
                return self._error(415, "send JSON")
            raw = self._body()
            if raw is None:
                return None
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self._error(400, "malformed JSON")
            status, data = routes.post(dashboard, url.path, body)
            return self._json(status, data)

        def _body(self) -> bytes | None:
            """The request body, exactly ``Content-Length`` bytes; or None once a refusal is
            answered (no length 411, a length that is not a plain number 400, too large 413, a
            body that stops short 400 after ``IO_TIMEOUT_S`` of silence)."""
            self.close_connection = True  # a refused body may still be on the wire: never read it as a request
            declared = self.headers.get("Content-Length")
            if declared is None or self.headers.get("Transfer-Encoding"):
                self._error(411, "send the body with a Content-Length")
                return None
            if not _DIGITS.fullmatch(declared.strip()):
                self._error(400, f"Content-Length is not a number of bytes: {declared.strip()[:40]!r}")
                return None
            length = int(declared)
            if length > MAX_BODY:
                self._error(413, f"request too large (at most {MAX_BODY} bytes)")
                return None
            try:
                raw = self.rfile.read(length)
            except TimeoutError:
                raw = b""
            if len(raw) < length:
                self._error(400, f"the body stopped after {len(raw)} of the {length} bytes its Content-Length declares")
                return None
            return raw

    return Handler
