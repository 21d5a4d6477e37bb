"""``openai``: the OpenAI platform's Chat Completions API through the ``openai`` SDK.

Structured output uses ``response_format`` JSON schema (``strict`` when the schema
allows it); reasoning models (o-series, gpt-5 and later) get ``max_completion_tokens`` and
``reasoning_effort`` and never ``temperature``.
"""

from __future__ import annotations

import os
from typing import Any

from skillopt.api import Usage, hookimpl
from skillopt_backends import prices
from skillopt_backends.credentials import KeySpec, ResolvedKey, key_available, require_key
from skillopt_backends.http_pool import shared_http_client
from skillopt_backends.openai_chat import OpenAIChatBackend

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIBackend(OpenAIChatBackend):
    """OpenAI Chat Completions (api.openai.com, or OPENAI_BASE_URL)."""

    name = "openai"
    summary = "OpenAI Chat Completions via the openai SDK (OPENAI_API_KEY)"
    default_model = "gpt-5.4-mini"
    key_name = "openai"
    key_spec = KeySpec(name=key_name, env_vars=("OPENAI_API_KEY",))
    credential_env_vars = ("OPENAI_API_KEY",)
    auto_priority = 10
    auto_reason = "OpenAI key found"

    @classmethod
    def configured(cls) -> bool:
        return key_available(cls.key_spec)

    def _resolve_key(self) -> ResolvedKey:
        return require_key(self.settings, self.key_spec, backend=self.name)

    def endpoint(self) -> str:
        return (self.settings.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")

    def _new_client(self) -> Any:
        import openai

        return openai.OpenAI(
            api_key=self.key.value,
            base_url=self.endpoint(),
            max_retries=0,
            timeout=self.settings.timeout_s,
            http_client=shared_http_client("openai"),
        )

    def price(self, model: str, usage: Usage) -> float | None:
        return prices.cost_usd(model, usage)


@hookimpl
def skillopt_register_backends(register):
    register(OpenAIBackend)
