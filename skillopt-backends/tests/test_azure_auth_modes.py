"""Upstream's ``AZURE_OPENAI_AUTH_MODE`` values through the real CLI and azure-identity.

* ``managed_identity``: azure-identity's ManagedIdentityCredential asks the identity
  endpoint named by ``IDENTITY_ENDPOINT``/``IDENTITY_HEADER`` (App Service's protocol),
  here a token server on 127.0.0.1; the token then authorizes the Azure OpenAI calls.
* ``azure_cli``: azure-identity's AzureCliCredential runs ``az account get-access-token``;
  ``az`` is a stand-in executable on PATH that prints the CLI's JSON (the library offers
  no endpoint to point elsewhere). It stands for the Azure CLI program, not our code.
* ``openai_compatible``: upstream's compatibility mode, a plain OpenAI client on the
  endpoint.
"""

from __future__ import annotations

import json
import stat
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("azure.identity", reason="azure-identity is the optional [azure] extra of skillopt-backends")

TOKEN = "entra-token-0123456789"  # what the scripted Azure server accepts (conftest)
IDENTITY_VARS = ("IDENTITY_ENDPOINT", "IDENTITY_HEADER", "MSI_ENDPOINT", "MSI_SECRET", "IMDS_ENDPOINT", "AZURE_CLIENT_ID",
                 "AZURE_OPENAI_AUTH_MODE", "AZURE_OPENAI_MANAGED_IDENTITY_CLIENT_ID", "TARGET_DEPLOYMENT", "OPTIMIZER_DEPLOYMENT",
                 "AZURE_OPENAI_TARGET_AUTH_MODE", "TARGET_AZURE_OPENAI_AUTH_MODE", "SKILLOPT_NO_DOTENV")


@pytest.fixture
def clean(monkeypatch, tmp_path):
    for name in IDENTITY_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TARGET_DEPLOYMENT", "chat")
    monkeypatch.setenv("OPTIMIZER_DEPLOYMENT", "chat")


@pytest.fixture
def identity_endpoint(monkeypatch):
    """An App Service managed-identity endpoint on 127.0.0.1 that records each token request."""
    asked: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            asked.append({"path": self.path, "header": self.headers.get("X-IDENTITY-HEADER")})
            body = json.dumps({"access_token": TOKEN, "expires_on": str(int(time.time()) + 3600),
                               "resource": "https://cognitiveservices.azure.com", "token_type": "Bearer"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("IDENTITY_ENDPOINT", f"http://127.0.0.1:{server.server_port}/msi/token")
    monkeypatch.setenv("IDENTITY_HEADER", "identity-header-secret")
    yield asked
    server.shutdown()
    server.server_close()


def check(run_cli, *args):
    result = run_cli("check", "--env", "searchqa", "--preset", "small", "--backend", "azure-openai", *args, "--json")
    assert result.exit_code == 0, result.output
    return result


def test_managed_identity_gets_its_token_from_the_identity_endpoint(clean, run_cli, azure_server, identity_endpoint, monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", azure_server.url)
    monkeypatch.setenv("AZURE_OPENAI_AUTH_MODE", "managed_identity")
    monkeypatch.setenv("AZURE_OPENAI_MANAGED_IDENTITY_CLIENT_ID", "user-assigned-id")
    check(run_cli)
    assert identity_endpoint and "client_id=user-assigned-id" in identity_endpoint[0]["path"]
    assert identity_endpoint[0]["header"] == "identity-header-secret"
    calls = [r for r in azure_server.requests if r.method == "POST"]
    assert calls and all(r.headers.get("authorization") == f"Bearer {TOKEN}" and "api-key" not in r.headers for r in calls)
    assert all(r.path == "/openai/deployments/chat/chat/completions" for r in calls)


def test_azure_cli_mode_runs_az_for_the_token(run_cli, azure_server, clean, monkeypatch, tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "az-calls.txt"
    az = bindir / "az"
    az.write_text(f"#!{sys.executable}\nimport json, sys, time\nopen({str(log)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
                  f"print(json.dumps({{'accessToken': {TOKEN!r}, 'expiresOn': '2099-01-01 00:00:00.000000', "
                  "'expires_on': int(time.time()) + 3600, 'subscription': 's', 'tenant': 't', 'tokenType': 'Bearer'}))\n")
    az.chmod(az.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bindir}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", azure_server.url)
    monkeypatch.setenv("TARGET_AZURE_OPENAI_AUTH_MODE", "azure_cli")  # the role variable
    monkeypatch.setenv("AZURE_OPENAI_AUTH_MODE", "api_key")  # the shared one, which the role variable beats
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", azure_server.api_key)
    check(run_cli)
    assert "account get-access-token" in log.read_text() and "cognitiveservices.azure.com" in log.read_text()
    calls = [r for r in azure_server.requests if r.method == "POST"]
    with_token = [r for r in calls if r.headers.get("authorization") == f"Bearer {TOKEN}"]
    with_key = [r for r in calls if r.headers.get("api-key") == azure_server.api_key]
    assert with_token and with_key and len(with_token) + len(with_key) == len(calls)  # target by az, optimizer by key


def test_openai_compatible_mode_is_a_plain_openai_client_on_the_endpoint(run_cli, openai_server, clean, monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", openai_server.base_url)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", openai_server.api_key)
    monkeypatch.setenv("AZURE_OPENAI_AUTH_MODE", "openai_compatible")
    monkeypatch.setenv("TARGET_DEPLOYMENT", "gpt-4o-mini")
    monkeypatch.setenv("OPTIMIZER_DEPLOYMENT", "local-model")
    check(run_cli)
    calls = [r for r in openai_server.requests if r.method == "POST"]
    assert {r.path for r in calls} == {"/v1/chat/completions"} and {r.body["model"] for r in calls} == {"gpt-4o-mini", "local-model"}


def test_an_unknown_auth_mode_is_refused_with_the_modes(run_cli, clean, monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://x.openai.azure.com")
    monkeypatch.setenv("AZURE_OPENAI_AUTH_MODE", "kerberos")
    result = run_cli("check", "--env", "searchqa", "--preset", "small", "--backend", "azure-openai", "--no-call")
    assert result.exit_code != 0 and "azure_cli, managed_identity" in " ".join(result.output.split())
