"""Upstream's environment-variable families configure each role, through the real CLI.

Every test runs ``skillopt check`` (one text and one JSON call per role) against
OpenAI-protocol servers on 127.0.0.1 and reads which server each role called and with
which model. Precedence under test: flag > --set > config > role variable > shared
variable > ``.env`` (docs/migrating.md).
"""

from __future__ import annotations

import json
import os

import pytest
from servers.openai_protocol import OpenAIServer

FAMILY = [name for prefix in ("", "OPTIMIZER_", "TARGET_") for name in (
    f"{prefix}OPENAI_COMPATIBLE_BASE_URL", f"{prefix}OPENAI_COMPATIBLE_API_KEY", f"{prefix}OPENAI_COMPATIBLE_MODEL",
    f"{prefix}OPENAI_COMPATIBLE_TEMPERATURE", f"{prefix}QWEN_CHAT_BASE_URL", f"{prefix}QWEN_CHAT_MODEL",
    f"{prefix}QWEN_CHAT_THINKING_MODE", f"{prefix}MINIMAX_BASE_URL", f"{prefix}MINIMAX_API_KEY")] + [
    "AZURE_OPENAI_AUTH_MODE", "MINIMAX_REGION", "MINIMAX_ENABLE_THINKING", "SKILLOPT_NO_DOTENV"]


class ExtensionServer(OpenAIServer):
    """A vLLM-style server: also takes the request fields Qwen and MiniMax add."""

    EXTRA = ("chat_template_kwargs", "thinking")

    def check_body(self, body, *, model):
        super().check_body({k: v for k, v in body.items() if k not in self.EXTRA}, model=model)


@pytest.fixture(scope="module")
def two_servers():
    optimizer = ExtensionServer(api_key="sk-opt-key-0123456789", models=("opt-model", "shared-model")).start()
    target = ExtensionServer(api_key="sk-tgt-key-0123456789", models=("tgt-model", "shared-model")).start()
    yield optimizer, target
    optimizer.stop()
    target.stop()


@pytest.fixture
def servers(two_servers, monkeypatch, tmp_path):
    for name in FAMILY:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env
    saved = dict(os.environ)
    for server in two_servers:
        server.reset()
    yield two_servers
    from skillopt.config import environ

    os.environ.clear()
    os.environ.update(saved)  # what a .env set is gone again
    environ.FROM_DOTENV.clear()


def models_called(server) -> list[str]:
    return [r.body["model"] for r in server.requests if r.method == "POST"]


def check(run_cli, *args):
    result = run_cli("check", "--env", "searchqa", "--preset", "small", "--backend", "openai-compatible", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_role_variables_beat_shared_ones_and_each_role_reaches_its_own_server(run_cli, servers, monkeypatch):
    optimizer, target = servers
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", optimizer.base_url)  # shared: the optimizer keeps it
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", optimizer.api_key)
    monkeypatch.setenv("OPENAI_COMPATIBLE_MODEL", "opt-model")
    monkeypatch.setenv("TARGET_OPENAI_COMPATIBLE_BASE_URL", target.base_url)
    monkeypatch.setenv("TARGET_OPENAI_COMPATIBLE_API_KEY", target.api_key)
    monkeypatch.setenv("TARGET_OPENAI_COMPATIBLE_MODEL", "tgt-model")
    check(run_cli)
    assert set(models_called(optimizer)) == {"opt-model"} and set(models_called(target)) == {"tgt-model"}


def test_config_beats_the_role_variable_and_set_and_flags_beat_config(run_cli, servers, monkeypatch, tmp_path):
    optimizer, target = servers
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", optimizer.base_url)
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", optimizer.api_key)
    monkeypatch.setenv("TARGET_OPENAI_COMPATIBLE_BASE_URL", target.base_url)
    monkeypatch.setenv("TARGET_OPENAI_COMPATIBLE_API_KEY", target.api_key)
    monkeypatch.setenv("OPTIMIZER_OPENAI_COMPATIBLE_MODEL", "opt-model")
    monkeypatch.setenv("TARGET_OPENAI_COMPATIBLE_MODEL", "tgt-model")
    config = tmp_path / "run.toml"
    config.write_text('[model.target]\nmodel = "shared-model"\n')
    check(run_cli, "--config", str(config))
    assert set(models_called(optimizer)) == {"opt-model"} and set(models_called(target)) == {"shared-model"}
    optimizer.reset()
    target.reset()
    check(run_cli, "--config", str(config), "--set", "model.target.model=tgt-model", "--optimizer-model", "shared-model")
    assert set(models_called(optimizer)) == {"shared-model"} and set(models_called(target)) == {"tgt-model"}


def test_dotenv_fills_what_the_environment_lacks_and_ranks_below_it(run_cli, servers, monkeypatch, tmp_path):
    optimizer, target = servers
    (tmp_path / ".env").write_text(
        "# upstream's .env.example style\n"
        f"export OPENAI_COMPATIBLE_BASE_URL={optimizer.base_url}\n"
        f"OPENAI_COMPATIBLE_API_KEY='{optimizer.api_key}'\n"
        "TARGET_OPENAI_COMPATIBLE_MODEL=tgt-model\n"
        'OPENAI_COMPATIBLE_MODEL="opt-model"\n'
    )
    monkeypatch.setenv("OPENAI_COMPATIBLE_MODEL", "shared-model")  # the shell's shared variable beats .env's role one
    check(run_cli)
    assert set(models_called(optimizer)) == {"shared-model"} and not target.requests
    optimizer.reset()
    from skillopt.config import environ

    for name in list(environ.FROM_DOTENV):
        os.environ.pop(name, None)
    environ.FROM_DOTENV.clear()
    result = run_cli("--no-dotenv", "check", "--env", "searchqa", "--backend", "openai-compatible", "--no-call")
    assert result.exit_code != 0 and "OPENAI_COMPATIBLE_BASE_URL" in result.output  # nothing read: no base URL
    assert not optimizer.requests


def test_qwen_thinking_mode_from_the_role_variable_reaches_the_wire(run_cli, servers, monkeypatch):
    optimizer, target = servers
    monkeypatch.setenv("QWEN_CHAT_BASE_URL", target.base_url)
    monkeypatch.setenv("QWEN_CHAT_MODEL", "tgt-model")
    monkeypatch.setenv("QWEN_CHAT_API_KEY", target.api_key)
    monkeypatch.setenv("TARGET_QWEN_CHAT_THINKING_MODE", "disabled")
    monkeypatch.setenv("OPTIMIZER_QWEN_CHAT_THINKING_MODE", "server_default")
    check(run_cli, "--set", "model.options={provider = \"qwen\"}")
    bodies = [r.body for r in target.requests if r.method == "POST"]
    by_role = {("chat_template_kwargs" in b): b for b in bodies}
    assert by_role[True]["chat_template_kwargs"] == {"enable_thinking": False}  # the target's calls
    assert False in by_role  # the optimizer's: server_default sends nothing
    assert sum("chat_template_kwargs" in b for b in bodies) == len(bodies) // 2


def test_minimax_region_thinking_and_extra_body(run_cli, servers, monkeypatch):
    optimizer, target = servers
    monkeypatch.setenv("MINIMAX_API_KEY", target.api_key)
    monkeypatch.setenv("MINIMAX_BASE_URL", target.base_url)  # a base URL wins over the region
    monkeypatch.setenv("MINIMAX_REGION", "cn_zh")
    monkeypatch.setenv("MINIMAX_ENABLE_THINKING", "true")
    check(run_cli, "--set", 'model.options={provider = "minimax", extra_body = {thinking = {budget_tokens = 64}}}',
          "--model", "tgt-model")
    bodies = [r.body for r in target.requests if r.method == "POST"]
    assert bodies and all(b["thinking"] == {"type": "adaptive", "budget_tokens": 64} for b in bodies)


def test_minimax_region_table_and_forced_thinking():
    from skillopt.backends import BackendSettings
    from skillopt_backends.openai_compatible import OpenAICompatibleBackend

    def make(**options):
        return OpenAICompatibleBackend(BackendSettings(name="openai-compatible", model=options.pop("model", ""),
                                                       options={"provider": "minimax", **options}))

    assert make(region="cn_zh").endpoint() == "https://api.minimaxi.com/v1"
    assert make().endpoint() == "https://api.minimax.io/v1" and make().model_name == "MiniMax-M3"
    assert make(model="MiniMax-M2.7", thinking=False).extra_body == {"thinking": {"type": "adaptive"}}  # M2 cannot turn it off
    assert make(thinking="disabled").extra_body == {"thinking": {"type": "disabled"}}
    from skillopt.errors import ConfigError

    with pytest.raises(ConfigError, match="options.region must be one of global_en, cn_zh"):
        make(region="mars")


def test_every_variable_in_env_example_is_read_by_a_backend():
    import re
    from pathlib import Path

    from skillopt.registry import get_registry

    example = (Path(__file__).resolve().parents[2] / ".env.example").read_text()
    named = set(re.findall(r"^#?\s*(?:export\s+)?([A-Z][A-Z0-9_]+)=", example, re.MULTILINE))
    read: set[str] = {"SKILLOPT_SLEEP_CHAT_EXTRA_BODY", "SKILLOPT_SLEEP_COMPAT_MAX_TOKENS"}  # skillopt sleep's (test_upstream_sleep)
    for comp in get_registry().load_all("backends"):
        cls = comp.obj
        read |= set(getattr(getattr(cls, "key_spec", None), "env_vars", ()) or ())
        for role in ("target", "optimizer"):
            for options in ({}, {"mode": "agent"}, {"provider": "qwen"}, {"provider": "minimax"}):
                read |= {name for names in cls.env_vars(role, options).values() for name in names}
    assert named and named <= read, f"named in .env.example but read by no backend: {sorted(named - read)}"
