"""How each backend phrases a request on the wire, checked on what the provider
server received (the servers also refuse what the real services refuse, so a
mis-phrased request fails here the way it would in production)."""

from __future__ import annotations

import base64

import pytest
from backend_testkit import client_for
from servers.base import Reply

from skillopt.errors import BadRequestError, ConfigError
from skillopt.records import CompletionRequest, Message

OPEN_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string", "minLength": 1}}, "required": ["answer"]}
STRICT_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}


def ask(text: str = "Say hello.", **kw) -> CompletionRequest:
    return CompletionRequest(messages=(Message(role="user", content=text),), **kw)


# --------------------------------------------------------------------------- OpenAI


def test_classic_model_gets_max_tokens_and_temperature_but_no_effort(make_openai, openai_server):
    make_openai().complete(ask(max_tokens=50, temperature=0.2, reasoning_effort="high", seed=7, stop=("END",)))
    body = openai_server.last().body
    assert body["max_tokens"] == 50 and body["temperature"] == 0.2 and body["seed"] == 7 and body["stop"] == ["END"]
    assert "reasoning_effort" not in body and "max_completion_tokens" not in body


@pytest.mark.parametrize("model", ["gpt-5.4-mini", "o3-mini"])
def test_reasoning_model_gets_max_completion_tokens_and_effort_never_temperature(make_openai, openai_server, model):
    make_openai(model=model).complete(ask(max_tokens=50, temperature=0.0, reasoning_effort="low"))
    body = openai_server.last().body
    assert body["max_completion_tokens"] == 50 and body["reasoning_effort"] == "low"
    assert "max_tokens" not in body and "temperature" not in body


def test_optimizer_default_effort_reaches_only_reasoning_models(make_openai, openai_server):
    """The core gives the optimizer reasoning_effort=medium by default; a classic model
    must not receive it (the real API answers 400)."""
    for model, sent in (("gpt-4o-mini", False), ("gpt-5.4-mini", True)):
        client_for(make_openai(model=model, reasoning_effort="medium"), role="optimizer").complete(ask(max_tokens=20))
        assert ("reasoning_effort" in openai_server.last().body) is sent


def test_json_schema_response_format_is_strict_only_when_the_schema_allows(make_openai, openai_server):
    backend = make_openai()
    backend.complete(ask(json_schema=STRICT_SCHEMA))
    fmt = openai_server.last().body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True and fmt["json_schema"]["schema"] == STRICT_SCHEMA
    backend.complete(ask(json_schema=OPEN_SCHEMA))
    assert openai_server.last().body["response_format"]["json_schema"]["strict"] is False


def test_images_are_sent_as_data_urls(make_openai, openai_server, tmp_path):
    png = tmp_path / "dot.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    make_openai().complete(CompletionRequest(messages=(Message(role="user", content="What is this?", images=(str(png),)),)))
    parts = openai_server.last().body["messages"][0]["content"]
    assert parts[0] == {"type": "text", "text": "What is this?"}
    assert parts[1]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode()
    assert "detail" not in parts[1]["image_url"]  # left to the provider unless asked
    make_openai().complete(
        CompletionRequest(messages=(Message(role="user", content="Read it.", images=(str(png),), image_detail="high"),))
    )
    assert openai_server.last().body["messages"][0]["content"][1]["image_url"]["detail"] == "high"
    with pytest.raises(BadRequestError, match="image file not found"):
        make_openai().complete(
            CompletionRequest(messages=(Message(role="user", content="?", images=(str(tmp_path / "nope.png"),)),))
        )


# --------------------------------------------------------------------------- openai-compatible


def test_compatible_structured_none_puts_the_schema_in_the_prompt(make_compat_scripted, openai_server):
    make_compat_scripted(options={"structured": "none"}).complete(ask(json_schema=STRICT_SCHEMA))
    body = openai_server.last().body
    assert "response_format" not in body
    assert body["messages"][0]["role"] == "system" and '"answer"' in body["messages"][0]["content"]


def test_compatible_sends_effort_only_when_told_the_server_takes_it(make_compat_scripted, openai_server):
    make_compat_scripted(model="local-model").complete(ask(reasoning_effort="high"))
    body = openai_server.last().body
    assert "reasoning_effort" not in body and "max_tokens" in body  # self-hosted: no name-based guessing
    make_compat_scripted(model="gpt-5.4-mini", options={"reasoning": True}).complete(ask(reasoning_effort="high"))
    body = openai_server.last().body
    assert body["reasoning_effort"] == "high" and "max_completion_tokens" in body


def test_compatible_rejects_bad_structured_mode(make_compat_scripted):
    with pytest.raises(ConfigError, match="options.structured"):
        make_compat_scripted(options={"structured": "grammar"})


@pytest.mark.local_model
def test_real_llama_server_without_json_schema_gets_an_actionable_error(make_compat_llama, llama_server):
    client = client_for(make_compat_llama(options={}))  # default json_schema: llama.cpp's server lacks it
    with pytest.raises(BadRequestError, match=r"options\.structured=json_object"):
        client.complete(ask('Reply with JSON {"answer": "..."}', json_schema=STRICT_SCHEMA, max_tokens=16))


@pytest.mark.local_model
def test_real_llama_server_model_is_discovered(llama_server):
    from backend_testkit import settings

    from skillopt_backends.openai_compatible import OpenAICompatibleBackend

    backend = OpenAICompatibleBackend(settings("openai-compatible", base_url=llama_server.base_url))
    assert backend.model_name == "smollm2"


# --------------------------------------------------------------------------- Azure


def test_azure_uses_deployment_path_api_version_and_api_key_header(make_azure, azure_server):
    completion = make_azure().complete(ask())
    rec = azure_server.last()
    assert rec.path == "/openai/deployments/chat/chat/completions"
    assert rec.query["api-version"] == ["2024-10-21"]
    assert rec.headers["api-key"] == azure_server.api_key and "authorization" not in rec.headers
    assert completion.model == "gpt-4o-mini-2024-07-18" and completion.cost_usd > 0  # priced by the served model


def test_azure_reasoning_deployment_and_api_version_setting(make_azure, azure_server):
    make_azure(model="thinker", api_version="2025-04-01-preview", options={"reasoning": True}).complete(ask(max_tokens=30))
    rec = azure_server.last()
    assert rec.query["api-version"] == ["2025-04-01-preview"] and rec.body["max_completion_tokens"] == 30


def test_azure_entra_token_mode(make_azure, azure_server, monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_AD_TOKEN", azure_server.ad_token)
    backend = make_azure(api_key="", auth_mode="entra")
    backend.complete(ask())
    rec = azure_server.last()
    assert rec.headers["authorization"] == f"Bearer {azure_server.ad_token}" and "api-key" not in rec.headers
    assert backend.identity()["auth_mode"] == "entra" and azure_server.ad_token not in str(backend.identity())


def test_azure_refuses_to_send_entra_tokens_to_other_hosts(make_azure, monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_AD_TOKEN", "entra-token-0123456789")
    with pytest.raises(ConfigError, match="refusing to send an Entra ID token"):
        make_azure(api_key="", auth_mode="entra", base_url="https://evil.example.com")
    make_azure(api_key="", auth_mode="entra", base_url="https://contoso.openai.azure.com")  # fine


@pytest.mark.parametrize(
    "bad", ["https://x.openai.azure.com/openai/deployments/chat/chat/completions", "https://x.openai.azure.com/v1"]
)
def test_azure_endpoint_must_be_the_resource_url(make_azure, bad):
    with pytest.raises(ConfigError, match="resource URL only"):
        make_azure(base_url=bad)


# --------------------------------------------------------------------------- Anthropic


def test_anthropic_system_goes_top_level_and_turns_merge(make_anthropic, anthropic_server):
    request = CompletionRequest(
        messages=(
            Message(role="system", content="Be brief."),
            Message(role="user", content="First."),
            Message(role="user", content="Second."),
        ),
        max_tokens=40,
        temperature=0.0,
        stop=("END",),
    )
    make_anthropic().complete(request)
    body = anthropic_server.last().body
    assert body["system"] == "Be brief." and body["stop_sequences"] == ["END"] and body["max_tokens"] == 40
    assert [m["role"] for m in body["messages"]] == ["user"] and len(body["messages"][0]["content"]) == 2
    assert "temperature" not in body  # API 2026-10-21 rejects sampling parameters


def test_anthropic_json_output_format_for_current_models(make_anthropic, anthropic_server):
    completion = client_for(make_anthropic()).complete(ask(json_schema=OPEN_SCHEMA))
    body = anthropic_server.last().body
    sent = body["output_config"]["format"]["schema"]
    assert sent["additionalProperties"] is False and "minLength" not in sent["properties"]["answer"]  # transformed
    assert "tools" not in body
    assert completion.parsed == {"answer": "ok"}


def test_anthropic_forced_tool_for_older_models(make_anthropic, anthropic_server):
    backend = make_anthropic(model="claude-sonnet-4-20250514")
    completion = client_for(backend).complete(ask(json_schema=OPEN_SCHEMA))
    body = anthropic_server.last().body
    assert body["tool_choice"] == {"type": "tool", "name": "reply"} and body["tools"][0]["input_schema"] == OPEN_SCHEMA
    assert completion.parsed == {"answer": "ok"}
    anthropic_server.script(Reply(data={"value": ["a", "b"]}))
    listed = client_for(backend).complete(ask(json_schema={"type": "array", "items": {"type": "string"}}))
    assert listed.parsed == ["a", "b"]  # non-object schemas are wrapped in {"value": ...} and unwrapped


def test_anthropic_effort_only_where_the_model_takes_it(make_anthropic, anthropic_server):
    make_anthropic().complete(ask(reasoning_effort="minimal", max_tokens=20))
    assert anthropic_server.last().body["output_config"] == {"effort": "low"}
    make_anthropic(model="claude-haiku-4-5").complete(ask(reasoning_effort="high", max_tokens=20))
    assert "output_config" not in anthropic_server.last().body


def test_anthropic_images_become_base64_blocks(make_anthropic, anthropic_server, tmp_path):
    jpg = tmp_path / "photo.jpg"
    jpg.write_bytes(b"\xff\xd8\xff fake jpeg")
    make_anthropic().complete(CompletionRequest(messages=(Message(role="user", content="Describe.", images=(str(jpg),)),)))
    block = anthropic_server.last().body["messages"][0]["content"][1]
    assert block["source"] == {"type": "base64", "media_type": "image/jpeg", "data": base64.b64encode(jpg.read_bytes()).decode()}


def test_anthropic_schema_the_api_cannot_take_says_what_to_set(make_anthropic, anthropic_server):
    untyped = {"type": "object", "properties": {"anything": {}}, "required": ["anything"]}
    with pytest.raises(BadRequestError, match=r"options\.structured=tool"):
        make_anthropic().complete(ask(json_schema=untyped))
    assert anthropic_server.count == 0
    anthropic_server.script(Reply(data={"anything": [1, "two"]}))
    as_tool = make_anthropic(model="claude-haiku-4-5", options={"structured": "tool"})  # still takes forced tools
    assert as_tool.complete(ask(json_schema=untyped)).parsed == {"anything": [1, "two"]}
