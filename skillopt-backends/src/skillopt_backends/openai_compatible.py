"""``openai-compatible``: any server that speaks Chat Completions (vLLM, Ollama,
llama.cpp server, LM Studio, gateways), each role with its own base URL, key and model.

The key is optional (local servers need none) and is looked up only under this
backend's own names, never ``OPENAI_API_KEY``: an OpenAI key must not be sent to an
arbitrary host. Settings the config leaves unset come from upstream's variables
(``TARGET_OPENAI_COMPATIBLE_MODEL``, then ``OPENAI_COMPATIBLE_MODEL``, …;
``QWEN_CHAT_*`` / ``MINIMAX_*`` with ``options.provider``: :mod:`skillopt_backends.providers`). Servers differ in structured-output support, so
``options.structured`` picks ``json_schema`` (default), ``json_object`` or ``none``.
With no model named, the server's ``/models`` list is asked and a single served model
is used.
"""

from __future__ import annotations

import functools
import ipaddress
import os
from typing import Any
from urllib.parse import urlsplit

from skillopt.api import ConfigError, Usage, hookimpl
from skillopt_backends import prices
from skillopt_backends.credentials import KeySpec, ResolvedKey, find_key
from skillopt_backends.http_pool import shared_http_client
from skillopt_backends.openai_chat import OpenAIChatBackend

BASE_URL_ENV = "OPENAI_COMPATIBLE_BASE_URL"
NO_KEY = "sk-no-key-required"


@functools.lru_cache(maxsize=64)
def is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class OpenAICompatibleBackend(OpenAIChatBackend):
    """Any OpenAI-compatible Chat Completions server, by base URL."""

    name = "openai-compatible"
    summary = "any OpenAI-compatible server (vLLM, Ollama, llama.cpp server, LM Studio) by --base-url"
    default_model = ""
    key_name = "openai-compatible"
    key_spec = KeySpec(name=key_name, env_vars=("OPENAI_COMPATIBLE_API_KEY",))
    reasoning_by_name = False
    auto_priority = 40
    auto_reason = f"{BASE_URL_ENV} is set"

    @classmethod
    def configured(cls) -> bool:
        return bool(os.environ.get(BASE_URL_ENV))

    @classmethod
    def env_vars(cls, role: str, options: dict[str, Any]) -> dict[str, tuple[str, ...]]:
        from skillopt_backends.providers import env_family

        return env_family(role, options)

    def __init__(self, settings):
        from skillopt_backends.providers import _flag, provider_of

        self.provider = provider_of(dict(settings.options), settings.role)
        use_mct = settings.options.get("use_max_completion_tokens")
        if self.provider == "qwen" and use_mct not in (None, "") and _flag(use_mct, "use_max_completion_tokens"):
            import attrs

            settings = attrs.evolve(settings, options={**settings.options, "max_tokens_param": "max_completion_tokens"})
        super().__init__(settings)

    def _extra_body(self) -> dict[str, Any]:
        from skillopt_backends.providers import extra_body

        return extra_body(self.provider, dict(self.settings.options), self.model_name, self.settings.role)

    def _resolve_key(self) -> ResolvedKey | None:
        return find_key(self.settings, self.key_spec)

    def endpoint(self) -> str:
        provider = getattr(self, "provider", "")
        url = (self.settings.base_url or ("" if provider else os.environ.get(BASE_URL_ENV, ""))).strip().rstrip("/")
        role = self.settings.role
        if not url and provider:
            from skillopt_backends.providers import QWEN_DEFAULT_URL, minimax_base_url

            url = minimax_base_url(dict(self.settings.options), role) if provider == "minimax" else QWEN_DEFAULT_URL
        if not url:
            raise ConfigError(
                f"openai-compatible ({role}) needs the server's base URL: --base-url http://HOST:PORT/v1, "
                f"model.{role}.base_url, or {BASE_URL_ENV}"
            )
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"model.{role}.base_url must start with http:// or https://, got {url!r}")
        if url.endswith("/chat/completions"):
            raise ConfigError(
                f"model.{role}.base_url should be the API root (e.g. http://localhost:8000/v1), "
                f"not the /chat/completions endpoint: {url!r}"
            )
        return url

    def _resolve_model(self) -> str:
        if self.settings.model:
            return self.settings.model
        if self.provider == "minimax":
            from skillopt_backends.providers import MINIMAX_DEFAULT_MODEL

            return MINIMAX_DEFAULT_MODEL
        return self._discover_model()

    def _discover_model(self) -> str:
        """The one model the server serves (GET /models), for runs that name none."""
        from skillopt_backends.errors import classify_openai

        role, url = self.settings.role, self.endpoint()
        problem = ""
        try:
            client = self._new_client()  # not closed: it holds the shared pool
            served = [m.id for m in client.models.list(timeout=min(self.settings.timeout_s, 15.0))]
        except Exception as exc:  # noqa: BLE001 - reported as a config problem below
            served = []
            problem = str(classify_openai(exc, self.error_context()))
        if len(served) == 1:
            return served[0]
        listing = f"; it serves: {', '.join(served[:10])}" if served else ""
        reason = f" ({problem})" if problem else ""
        raise ConfigError(
            f"openai-compatible ({role}): name the model with --model or model.{role}.model; "
            f"{url}/models did not give a single model{listing}{reason}"
        )

    def _new_client(self) -> Any:
        import openai

        key = self.key.value if self.key else NO_KEY
        return openai.OpenAI(
            api_key=key,
            base_url=self.endpoint(),
            max_retries=0,
            timeout=self.settings.timeout_s,
            http_client=shared_http_client("openai"),
        )

    def price(self, model: str, usage: Usage) -> float | None:
        """A server on this machine costs nothing; elsewhere, the model's list price if known."""
        if is_loopback(self.endpoint()):
            return 0.0
        return prices.cost_usd(model, usage)


@hookimpl
def skillopt_register_backends(register):
    register(OpenAICompatibleBackend)
