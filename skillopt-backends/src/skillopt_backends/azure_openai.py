"""``azure-openai``: Azure OpenAI deployments through the ``openai`` SDK's AzureOpenAI.

Settings: endpoint (``model.base_url`` or AZURE_OPENAI_ENDPOINT, the resource URL),
deployment (``model.model`` or AZURE_OPENAI_DEPLOYMENT), api-version
(``model.api_version``, OPENAI_API_VERSION, else a GA default). Two auth modes:
``api_key`` (default; AZURE_OPENAI_API_KEY or ``skillopt keys set azure-openai``) and
``entra`` (Microsoft Entra ID: AZURE_OPENAI_AD_TOKEN, else azure-identity's
DefaultAzureCredential). Entra tokens are only ever sent to Azure hosts (or a
loopback test server): upstream once sent managed-identity tokens to any endpoint.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

import attrs
from skillopt.api import AuthError, ConfigError, Usage, hookimpl, register_secret

from skillopt_backends import prices
from skillopt_backends.credentials import KeySpec, ResolvedKey, key_available, require_key
from skillopt_backends.errors import ErrorContext
from skillopt_backends.http_pool import shared_http_client
from skillopt_backends.openai_chat import OpenAIChatBackend
from skillopt_backends.openai_compatible import is_loopback

DEFAULT_API_VERSION = "2024-10-21"
ENTRA_SCOPE = "https://cognitiveservices.azure.com/.default"
AZURE_HOST_SUFFIXES = (
    ".openai.azure.com",
    ".cognitiveservices.azure.com",
    ".services.ai.azure.com",
    ".openai.azure.us",
    ".openai.azure.cn",
)
AUTH_MODES = {
    "": "api_key",
    "api_key": "api_key",
    "api-key": "api_key",
    "key": "api_key",
    "entra": "entra",
    "entra_id": "entra",
    "aad": "entra",
    "azure_ad": "entra",
    "managed_identity": "entra",
    "token": "entra",
}


class AzureOpenAIBackend(OpenAIChatBackend):
    """Azure OpenAI (API key or Entra ID token)."""

    name = "azure-openai"
    summary = "Azure OpenAI deployments (api key or Entra ID), endpoint + deployment + api-version"
    default_model = ""
    key_name = "azure-openai"
    key_spec = KeySpec(name=key_name, env_vars=("AZURE_OPENAI_API_KEY",))
    auto_priority = 20
    auto_reason = "AZURE_OPENAI_ENDPOINT and an Azure OpenAI credential found"

    @classmethod
    def configured(cls) -> bool:
        return bool(os.environ.get("AZURE_OPENAI_ENDPOINT")) and (
            key_available(cls.key_spec) or bool(os.environ.get("AZURE_OPENAI_AD_TOKEN"))
        )

    # ------------------------------------------------------------ settings

    @property
    def auth_mode(self) -> str:
        raw = (self.settings.auth_mode or "").strip().lower()
        if raw not in AUTH_MODES:
            raise ConfigError(f"model.{self.settings.role}.auth_mode must be api_key or entra, got {raw!r}")
        return AUTH_MODES[raw]

    @property
    def api_version(self) -> str:
        return (
            self.settings.api_version
            or os.environ.get("OPENAI_API_VERSION")
            or os.environ.get("AZURE_OPENAI_API_VERSION")
            or DEFAULT_API_VERSION
        )

    def endpoint(self) -> str:
        url = (self.settings.base_url or os.environ.get("AZURE_OPENAI_ENDPOINT", "")).strip().rstrip("/")
        role = self.settings.role
        if not url:
            raise ConfigError(
                f"azure-openai ({role}) needs the resource endpoint, e.g. https://NAME.openai.azure.com: "
                f"--base-url, model.{role}.base_url, or AZURE_OPENAI_ENDPOINT"
            )
        path = urlsplit(url).path
        if "/openai/" in path + "/" or path.endswith(("/chat/completions", "/v1")):
            raise ConfigError(
                f"model.{role}.base_url for azure-openai is the resource URL only (https://NAME.openai.azure.com), "
                f"without /openai/deployments/... or /v1: {url!r}"
            )
        return url

    def _resolve_model(self) -> str:
        deployment = self.settings.model or os.environ.get("AZURE_OPENAI_DEPLOYMENT", "")
        if not deployment:
            role = self.settings.role
            raise ConfigError(
                f"azure-openai ({role}) needs a deployment name: --model DEPLOYMENT, model.{role}.model, or AZURE_OPENAI_DEPLOYMENT"
            )
        return deployment

    def _resolve_key(self) -> ResolvedKey | None:
        if self.auth_mode == "entra":
            self._check_entra_host()
            token = os.environ.get("AZURE_OPENAI_AD_TOKEN", "")
            if token:
                register_secret(token)
                return ResolvedKey(value=token, source="AZURE_OPENAI_AD_TOKEN")
            return None  # a token provider from azure-identity, built with the client
        return require_key(self.settings, self.key_spec, backend=self.name)

    def _check_entra_host(self) -> None:
        url = self.endpoint()
        host = (urlsplit(url).hostname or "").lower()
        azure = host.endswith(AZURE_HOST_SUFFIXES) and url.startswith("https://")
        if not (azure or is_loopback(url) or self.settings.options.get("allow_any_host")):
            raise ConfigError(
                f"azure-openai ({self.settings.role}): refusing to send an Entra ID token to {host or url}, which is not an "
                f"Azure OpenAI host over https; fix the endpoint, or set model.{self.settings.role}.options.allow_any_host=true "
                "for a trusted proxy"
            )

    # ------------------------------------------------------------ client

    def identity(self) -> dict[str, Any]:
        data = super().identity()
        data.update(api_version=self.api_version, deployment=self.model_name, auth_mode=self.auth_mode)
        return data

    def _new_client(self) -> Any:
        import openai

        common = dict(
            azure_endpoint=self.endpoint(),
            api_version=self.api_version,
            max_retries=0,
            timeout=self.settings.timeout_s,
            http_client=shared_http_client("openai"),
        )
        if self.auth_mode == "api_key":
            return openai.AzureOpenAI(api_key=self.key.value, **common)
        if self.key is not None:
            return openai.AzureOpenAI(azure_ad_token=self.key.value, **common)
        return openai.AzureOpenAI(azure_ad_token_provider=self._token_provider(), **common)

    def _token_provider(self):
        try:
            from azure.identity import DefaultAzureCredential, get_bearer_token_provider
        except ImportError:
            raise AuthError(
                "azure-openai: auth_mode=entra needs azure-identity (pip install 'skillopt-backends[azure]') "
                "or a token in AZURE_OPENAI_AD_TOKEN",
                backend=self.name,
            ) from None
        scope = str(self.settings.options.get("token_scope") or ENTRA_SCOPE)
        return get_bearer_token_provider(DefaultAzureCredential(), scope)

    def price(self, model: str, usage: Usage) -> float | None:
        """Priced by the model Azure reports (e.g. gpt-4o-2024-08-06), not the deployment name."""
        return prices.cost_usd(model, usage)

    def error_context(self, timeout: float | None = None) -> ErrorContext:
        ctx = super().error_context(timeout)
        if self.auth_mode == "entra":
            fix = "set AZURE_OPENAI_AD_TOKEN to a valid token, or sign in so DefaultAzureCredential finds one (az login)"
            ctx = attrs.evolve(ctx, key_help=fix)
        return ctx


@hookimpl
def skillopt_register_backends(register):
    register(AzureOpenAIBackend)
