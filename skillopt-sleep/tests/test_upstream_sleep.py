"""Upstream's Sleep command lines: ``--backend mock``, its compatible-endpoint variables
(``AZURE_OPENAI_AUTH_MODE=openai_compatible``), and its experiment module, through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


def _args(project, fixtures_dir, *extra):
    """test_cli's night on the fixture home, with upstream's backend name."""
    return ("--project", str(project), "--source", "auto", "--lookback-hours", "0", "--backend", "mock",
            "--backend-option", f"rules={fixtures_dir / 'persona-rules.json'}", "--min-val", "1", "--json", *extra)


@pytest.fixture
def compat_server():
    """A Chat Completions server on 127.0.0.1 (a gateway that takes extra request fields):
    schema requests get a minimal valid instance, others a short text."""
    from skillopt.api import minimal_instance

    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
            schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
            text = json.dumps(minimal_instance(schema)) if schema else "Run the tests with `uv run pytest`."
            reply = json.dumps({"id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
                                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/v1", seen
    server.shutdown()
    server.server_close()


def test_backend_mock_is_our_scripted(fixture_home, fixtures_dir, run_cli):
    _home, project = fixture_home
    res = run_cli("sleep", "dry-run", *_args(project, fixtures_dir))
    assert res.exit_code == 0, res.output
    assert "--backend mock is upstream's name; SkillOpt's is scripted" in " ".join(res.stderr.split())
    assert json.loads(res.stdout)["report"]["backends"]["target"].startswith("scripted")


def test_upstreams_sleep_endpoint_family_reaches_the_compatible_server(fixture_home, run_cli, compat_server, monkeypatch):
    _home, project = fixture_home
    url, seen = compat_server
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", url)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "sk-gateway-0123456789")
    monkeypatch.setenv("AZURE_OPENAI_AUTH_MODE", "openai_compatible")
    monkeypatch.setenv("SKILLOPT_SLEEP_CHAT_EXTRA_BODY", '{"provider_option": true}')
    monkeypatch.setenv("SKILLOPT_SLEEP_COMPAT_MAX_TOKENS", "777")
    res = run_cli("sleep", "dry-run", "--project", str(project), "--lookback-hours", "0", "--backend", "azure_openai",
                  "--model", "deepseek-chat", "--min-val", "1", "--max-tasks", "3", "--json")
    assert res.exit_code == 0, res.output
    assert seen, "no call reached the endpoint"
    assert {c["path"] for c in seen} == {"/v1/chat/completions"}  # a plain OpenAI client: no Azure deployment path
    assert {c["body"]["model"] for c in seen} == {"deepseek-chat"} and {c["auth"] for c in seen} == {"Bearer sk-gateway-0123456789"}
    assert all(c["body"]["provider_option"] is True and c["body"]["max_tokens"] == 777 for c in seen)


@pytest.mark.parametrize("argv, says", [
    (["-m", "skillopt_sleep.experiments.run_experiment", "--persona", "researcher", "--assert-improves"],
     "upstream's persona 'researcher' is not bundled; this experiment's personas are pythonista, webdev"),
    (["-m", "skillopt_sleep.experiments", "--persona", "researcher"], "unknown persona 'researcher' (upstream's persona"),
    (["-m", "skillopt_sleep.experiments.run_experiment", "--persona", "pythonista", "--backend", "claude"],
     "the experiment runs on scripted stand-ins for the models"),
])
def test_upstreams_experiment_commands_answer_in_one_line(argv, says):
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and says in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
