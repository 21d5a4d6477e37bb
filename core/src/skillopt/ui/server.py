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
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from skillopt.errors import SkillOptError
from skillopt.redact import redact_text
from skillopt.ui import runs
from skillopt.ui.launch import Launcher

LOOPBACK = ("127.0.0.1", "localhost", "::1")
_ROUTE = re.compile(r"^/api/runs/([^/]+)(?:/(skills|diff|steps|events|stop|resume|log)(?:/([^/]+))?)?$")
MAX_BODY = 64 * 1024


class Dashboard:
    """What the handler needs: where runs are, the token, the launcher."""

    def __init__(self, roots: list[Path], launch_root: Path, *, token: str | None = None, poll_s: float = 1.0):
        self.index = runs.RunIndex(roots)
        self.launcher = Launcher(launch_root)
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

        def log_message(self, *args: Any) -> None:  # keep the terminal for progress
            pass

        # ------------------------------------------------------------ plumbing

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, data: Any) -> None:
            self._send(status, json.dumps(data, default=str).encode(), "application/json")

        def _error(self, status: int, message: str) -> None:
            self._json(status, {"error": redact_text(message)})

        def _gate(self, query: dict[str, list[str]]) -> bool:
            """Host and token checks; answers the refusal itself."""
            if dashboard.allowed_hosts and self.headers.get("Host", "") not in dashboard.allowed_hosts:
                self._error(403, "unexpected Host header")
                return False
            if not dashboard.authorised(self.headers.get("Authorization"), (query.get("token") or [None])[0]):
                self._error(401, "missing or wrong token: use the URL `skillopt ui` printed")
                return False
            return True

        # ------------------------------------------------------------ GET

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if url.path in ("/", "/index.html"):
                if dashboard.allowed_hosts and self.headers.get("Host", "") not in dashboard.allowed_hosts:
                    return self._error(403, "unexpected Host header")
                page = resources.files("skillopt.ui").joinpath("page.html").read_bytes()
                return self._send(200, page, "text/html; charset=utf-8")
            if not url.path.startswith("/api/"):
                return self._error(404, "not found")
            if not self._gate(query):
                return None
            if url.path == "/api/runs":
                rows = dashboard.index.listing()
                for row in rows:
                    if dashboard.launcher.running(row["id"]):
                        row["status"] = "running"
                        row["launched_here"] = True
                return self._json(200, rows)
            if url.path == "/api/choices":
                return self._json(200, _choices())
            m = _ROUTE.match(url.path)
            if not m:
                return self._error(404, "not found")
            run_id, part, arg = unquote(m.group(1)), m.group(2), m.group(3)
            if part == "log":
                try:
                    path = dashboard.launcher.log_path(run_id)
                except SkillOptError:
                    return self._error(404, f"no run named {run_id}")
                text = path.read_text(encoding="utf-8", errors="replace")[-20000:] if path.is_file() else ""
                return self._json(200, {"log": redact_text(text)})
            path = dashboard.index.get(run_id)
            if path is None:
                return self._error(404, f"no run named {run_id}")
            if part is None:
                data = runs.detail(run_id, path)
                data["overview"]["launched_here"] = dashboard.launcher.running(run_id)
                return self._json(200, data)
            if part == "skills":
                text = runs.skill_text(path, "best" if arg == "best" else _int(arg))
                return self._json(200, {"text": text}) if text is not None else self._error(404, "no such skill version")
            if part == "diff":
                a, b = (query.get("a") or ["0"])[0], (query.get("b") or ["best"])[0]
                diff = runs.skill_diff(path, a if a == "best" else _int(a), b if b == "best" else _int(b))
                return self._json(200, diff) if diff is not None else self._error(404, "no such skill version")
            if part == "steps":
                step = runs.step_detail(path, _int(arg))
                return self._json(200, step) if step is not None else self._error(404, "no such step")
            if part == "events":
                return self._events(run_id, path)
            return self._error(405, "use POST")

        def _events(self, run_id: str, path: Path) -> None:
            """Server-sent events: the run's overview each time it writes progress."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            last: tuple[float, ...] | None = None
            idle = 0.0
            while not dashboard.stopping.is_set():
                sig = runs.signature(path)
                if sig != last:
                    last = sig
                    data = runs.overview(run_id, path)
                    data["history_len"] = len(runs.read_json(path / "history.json") or [])
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

        def do_POST(self) -> None:  # noqa: N802
            url = urlsplit(self.path)
            if not self._gate({}):  # POSTs take the token only as a header
                return None
            if "application/json" not in (self.headers.get("Content-Type") or ""):
                return self._error(415, "send JSON")
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return self._error(413, "request too large")
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                return self._error(400, "malformed JSON")
            if url.path == "/api/check":
                try:
                    return self._json(200, dashboard.launcher.check(body if isinstance(body, dict) else {}))
                except SkillOptError as exc:
                    return self._error(400, str(exc))
            if url.path == "/api/launch":
                try:
                    return self._json(202, dashboard.launcher.launch(body if isinstance(body, dict) else {}))
                except SkillOptError as exc:
                    return self._error(400, str(exc))
            m = _ROUTE.match(url.path)
            if m and m.group(2) == "resume":
                try:
                    return self._json(202, dashboard.launcher.resume(unquote(m.group(1))))
                except SkillOptError as exc:
                    return self._error(409, str(exc))
            if m and m.group(2) == "stop":
                stopped = dashboard.launcher.stop(unquote(m.group(1)))
                return self._json(200, {"stopped": stopped}) if stopped else self._error(409, "not a run this dashboard is running")
            return self._error(404, "not found")

    return Handler


def _int(value: str | None) -> int:
    try:
        return int(value or "")
    except ValueError:
        return -1


def _choices() -> dict[str, Any]:
    """Installed env and backend names (entry-point metadata only), for the launch form."""
    from skillopt.plugins import declared

    return {
        "envs": sorted({ep.name for ep in declared("envs")}),
        "backends": sorted({ep.name for ep in declared("backends")}),
    }
