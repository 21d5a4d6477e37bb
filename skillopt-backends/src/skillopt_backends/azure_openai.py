"""``azure-openai``: Azure OpenAI deployments through the ``openai`` SDK's AzureOpenAI.

Settings: endpoint (``model.base_url`` or AZURE_OPENAI_ENDPOINT, the resource URL),
deployment (``model.model``, TARGET_DEPLOYMENT / OPTIMIZER_DEPLOYMENT or
AZURE_OPENAI_DEPLOYMENT), api-version (``model.api_version``, AZURE_OPENAI_API_VERSION,
OPENAI_API_VERSION, else a GA default); each variable also per role, as upstream
(``TARGET_AZURE_OPENAI_ENDPOINT`` or ``AZURE_OPENAI_TARGET_ENDPOINT`` before
``AZURE_OPENAI_ENDPOINT``). Auth modes (``auth_mode``, AZURE_OPENAI_AUTH_MODE):

* ``api_key``: AZURE_OPENAI_API_KEY or ``skillopt keys set azure-openai``;
* ``azure_cli``: the Azure CLI's login (``az login``), through azure-identity;
* ``managed_identity`` (``aad``, ``azure_ad``): the machine's managed identity
  (``options.managed_identity_client_id`` for a user-assigned one);
* ``entra``: AZURE_OPENAI_AD_TOKEN, else azure-identity's DefaultAzureCredential;
* ``openai_compatible``: upstream's compatibility mode, a plain OpenAI client on the
  endpoint (any OpenAI-compatible server; the key optional, no api-version);
* unset: ``api_key`` when a key is found, else ``azure_cli`` (upstream's default) when
  the ``az`` command is installed.

Entra tokens (every mode but ``api_key`` and ``openai_compatible``) are only ever sent
to Azure hosts over https (or a loopback test server): upstream once sent
managed-identity tokens to any endpoint.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

import attrs

from skillopt.api import AuthError, ConfigError, Usage, hookimpl, register_secret
from skillopt_backends import prices
from skillopt_backends.credentials import KeySpec, ResolvedKey, find_key, key_available, require_key
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
    "": "",
    "api_key": "api_key",
    "api-key": "api_key",
    "key": "api_key",
    "entra": "entra",
    "entra_id": "entra",
    "token": "entra",
    "azure_cli": "azure_cli",
    "az": "azure_cli",
    "managed_identity": "managed_identity",
    "aad": "managed_identity",
    "azure_ad": "managed_identity",
    "openai_compatible": "openai_compatible",
    "compat": "openai_compatible",
    "openai": "openai_compatible",
}
#: modes that send a Microsoft Entra ID token
TOKEN_MODES = ("entra", "azure_cli", "managed_identity")
_ENV_FIELDS = {"base_url": "ENDPOINT", "api_version": "API_VERSION", "api_key": "API_KEY", "auth_mode": "AUTH_MODE",
               "options.token_scope": "AD_SCOPE", "options.managed_identity_client_id": "MANAGED_IDENTITY_CLIENT_ID"}


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
            or bool(os.environ.get("AZURE_OPENAI_AUTH_MODE"))
        )

    @classmethod
    def env_vars(cls, role: str, options: dict[str, Any]) -> dict[str, tuple[str, ...]]:
        from skillopt.api import role_env_family

        spec = role_env_family(role, "AZURE_OPENAI", _ENV_FIELDS, infix=True)
        spec["model"] = (f"{role.upper()}_DEPLOYMENT", "AZURE_OPENAI_DEPLOYMENT")
        return spec

    # ------------------------------------------------------------ settings

    @property
    def configured_mode(self) -> str:
        """The auth mode the settings name ('' = decided by whether a key is found)."""
        raw = (self.settings.auth_mode or "").strip().lower()
        if raw not in AUTH_MODES:
            raise ConfigError(f"model.{self.settings.role}.auth_mode must be one of api_key, azure_cli, managed_identity, "
                              f"entra, openai_compatible, got {raw!r}")
        return AUTH_MODES[raw]

    @property
    def auth_mode(self) -> str:
        """The mode in use (known once the key is resolved)."""
        return getattr(self, "_mode", "") or self.configured_mode or "api_key"

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
        if self.configured_mode == "openai_compatible":
            if path.endswith("/chat/completions"):
                raise ConfigError(f"model.{role}.base_url is the API root (https://HOST/v1), not /chat/completions: {url!r}")
            return url
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
        mode = self.configured_mode
        if mode == "":  # a key found here wins; else upstream's default, the Azure CLI login, when az is installed
            import shutil

            found = find_key(self.settings, self.key_spec)
            if found or not shutil.which("az"):
                self._mode = "api_key"
                if found:
                    return found
                raise AuthError(f"{self.name} ({self.settings.role}): no API key found; {self.key_spec.how_to_set(self.settings.role)}; "
                                "or install the Azure CLI, `az login`, and set auth_mode azure_cli", backend=self.name)
            mode = "azure_cli"
        self._mode = mode
        if mode == "openai_compatible":
            return find_key(self.settings, self.key_spec)
        if mode in TOKEN_MODES:
            self._check_entra_host()
            token = os.environ.get("AZURE_OPENAI_AD_TOKEN", "") if mode == "entra" else ""
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
        if self.auth_mode == "openai_compatible":
            from skillopt_backends.openai_compatible import NO_KEY

            return openai.OpenAI(api_key=self.key.value if self.key else NO_KEY, base_url=self.endpoint(), max_retries=0,
                                 timeout=self.settings.timeout_s, http_client=shared_http_client("openai"))
        if self.auth_mode == "api_key":
            return openai.AzureOpenAI(api_key=self.key.value, **common)
        if self.key is not None:
            return openai.AzureOpenAI(azure_ad_token=self.key.value, **common)
        return openai.AzureOpenAI(azure_ad_token_provider=self._token_provider(), **common)

    def _credential(self, identity: Any) -> Any:
        if self.auth_mode == "azure_cli":
            return identity.AzureCliCredential()
        if self.auth_mode == "managed_identity":
            client_id = str(self.settings.options.get("managed_identity_client_id") or "").strip()
            return identity.ManagedIdentityCredential(client_id=client_id) if client_id else identity.ManagedIdentityCredential()
        return identity.DefaultAzureCredential()

    def _token_provider(self):
        try:
            import azure.identity as identity
        except ImportError:
            raise AuthError(
                f"azure-openai: auth_mode={self.auth_mode} needs azure-identity (pip install 'skillopt-backends[azure]')"
                + (" or a token in AZURE_OPENAI_AD_TOKEN" if self.auth_mode == "entra" else ""),
                backend=self.name,
            ) from None
        scope = str(self.settings.options.get("token_scope") or ENTRA_SCOPE)
        return identity.get_bearer_token_provider(self._credential(identity), scope)

    def price(self, model: str, usage: Usage) -> float | None:
        """Priced by the model Azure reports (e.g. gpt-4o-2024-08-06), not the deployment name."""
        return prices.cost_usd(model, usage)

    def error_context(self, timeout: float | None = None) -> ErrorContext:
        ctx = super().error_context(timeout)
        fixes = {
            "entra": "set AZURE_OPENAI_AD_TOKEN to a valid token, or sign in so DefaultAzureCredential finds one (az login)",
            "azure_cli": "sign in with `az login` (or set AZURE_OPENAI_API_KEY and auth_mode api_key)",
            "managed_identity": "run on a machine with a managed identity (options.managed_identity_client_id for a user-assigned one)",
        }
        if self.auth_mode in fixes:
            ctx = attrs.evolve(ctx, key_help=fixes[self.auth_mode])
        return ctx


@hookimpl
def skillopt_register_backends(register):
    register(AzureOpenAIBackend)
