"""Finding a provider key, and saying exactly where to put one when it is missing.

Order: the role's settings (``model.api_key`` or the variable named by
``model.api_key_env``, already resolved by the core), then the provider's env vars,
then the user keys file (``skillopt keys set NAME``). We remember *where* the key came
from, never the key, so an auth failure can name the thing to fix.
"""

from __future__ import annotations

import attrs

from skillopt.api import AuthError, BackendSettings, get_key, register_secret, stored_keys


@attrs.frozen(kw_only=True)
class KeySpec:
    """Where a provider's key may live."""

    name: str
    """Name in the keys file (``skillopt keys set <name>``)."""
    env_vars: tuple[str, ...]

    def how_to_set(self, role: str = "") -> str:
        where = f"model.{role}.api_key_env" if role else "model.api_key_env"
        env = " or ".join(self.env_vars)
        return f"set {env}, or run `skillopt keys set {self.name}`, or name another variable with {where}"


@attrs.frozen(kw_only=True)
class ResolvedKey:
    value: str = attrs.field(repr=False)
    source: str
    """Human-readable origin: ``OPENAI_API_KEY``, ``keys file entry 'openai'``, ``model.api_key``."""


def find_key(settings: BackendSettings, spec: KeySpec) -> ResolvedKey | None:
    if settings.api_key:
        register_secret(settings.api_key)
        source = settings.api_key_env or f"model.{settings.role}.api_key"
        return ResolvedKey(value=settings.api_key, source=source)
    import os

    for var in spec.env_vars:
        value = os.environ.get(var)
        if value:
            register_secret(value)
            return ResolvedKey(value=value, source=var)
    value = get_key(spec.name)
    if value:
        return ResolvedKey(value=value, source=f"keys file entry '{spec.name}'")
    return None


def require_key(settings: BackendSettings, spec: KeySpec, *, backend: str) -> ResolvedKey:
    key = find_key(settings, spec)
    if key is None:
        raise AuthError(f"{backend} ({settings.role}): no API key found; {spec.how_to_set(settings.role)}", backend=backend)
    return key


def key_available(spec: KeySpec) -> bool:
    """Is a key for ``spec`` present (env or keys file)? Used by ``auto`` selection."""
    import os

    return any(os.environ.get(var) for var in spec.env_vars) or bool(stored_keys().get(spec.name))


def display_url(url: str) -> str:
    """``url`` without user info or query string, for identities and messages: some
    gateways take a key as ``https://user:key@host`` or ``?api-key=``."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
