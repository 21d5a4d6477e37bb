"""Building the two role clients (target, optimizer) from the run config."""

from __future__ import annotations

import os

from skillopt.backends import Backend, BackendSettings
from skillopt.calls import CallCache, Ledger, ModelClient, RetryPolicy
from skillopt.config.schema import RunConfig
from skillopt.errors import ConfigError
from skillopt.records import Usage
from skillopt.redact import register_secret


def backend_name(cfg: RunConfig, role: str) -> tuple[str, str]:
    """The backend a role uses and, when chosen automatically, why."""
    name = getattr(cfg.model, role).backend or cfg.model.backend or "auto"
    if name != "auto":
        return name, ""
    from skillopt.registry import get_registry

    candidates = [c for c in get_registry().load_all("backends") if getattr(c.obj, "auto_priority", None) is not None]
    candidates.sort(key=lambda c: c.obj.auto_priority)
    for comp in candidates:
        try:
            ready = comp.obj.configured()
        except Exception:  # noqa: BLE001 - a broken probe just means "not this one"
            ready = False
        if ready:
            reason = getattr(comp.obj, "auto_reason", "") or f"{comp.name} is configured"
            return comp.name, reason
    raise ConfigError(
        "no model backend is available: install skillopt-backends "
        "(pip install -e ./skillopt-backends) or name one with --backend"
    )


def role_settings(cfg: RunConfig, role: str, name: str, backend_cls: type[Backend]) -> BackendSettings:
    m, rc = cfg.model, getattr(cfg.model, role)
    key_env = rc.api_key_env or m.api_key_env
    api_key = rc.api_key or m.api_key or (os.environ.get(key_env, "") if key_env else "")
    if key_env and not api_key:
        raise ConfigError(f"model.{role}.api_key_env names {key_env}, but that environment variable is not set")
    register_secret(api_key)
    return BackendSettings(
        name=name,
        role=role,
        model=rc.model or m.model or backend_cls.default_model,
        base_url=rc.base_url or m.base_url,
        api_key=api_key,
        api_key_env=key_env,
        api_version=rc.api_version or m.api_version,
        auth_mode=rc.auth_mode or m.auth_mode,
        temperature=rc.temperature if rc.temperature is not None else m.temperature,
        max_tokens=rc.max_tokens,
        reasoning_effort=rc.reasoning_effort or (m.reasoning_effort if role == "optimizer" else ""),
        timeout_s=rc.timeout_s if rc.timeout_s is not None else m.timeout_s,
        local_path=m.local_path,
        options={**m.options, **rc.options},
    )


def make_pricer(cfg: RunConfig):
    prices = cfg.model.prices
    if not prices:
        return None

    def price(model: str, usage: Usage) -> float | None:
        entry = prices.get(model)
        if entry is None:  # dated snapshots ("gpt-4o-2024-08-06") use the longest matching prefix
            prefixes = [name for name in prices if model.startswith(name)]
            if not prefixes:
                return None
            entry = prices[max(prefixes, key=len)]
        return (usage.prompt_tokens * entry.get("input_per_mtok", 0.0) + usage.completion_tokens * entry.get("output_per_mtok", 0.0)) / 1e6

    return price


def open_cache(cfg: RunConfig) -> CallCache | None:
    if cfg.model.cache == "off":
        return None
    from skillopt import paths

    return CallCache(paths.cache_dir() / "calls.sqlite3")


def build_clients(cfg: RunConfig, *, ledger: Ledger, roles=("target", "optimizer"), cancel=None) -> tuple[dict[str, ModelClient], dict[str, str]]:
    """One :class:`ModelClient` per role, sharing the ledger, cache and limits."""
    from skillopt.registry import get

    cache = open_cache(cfg)
    clients: dict[str, ModelClient] = {}
    reasons: dict[str, str] = {}
    for role in roles:
        name, reason = backend_name(cfg, role)
        comp = get("backends", name)
        settings = role_settings(cfg, role, comp.name, comp.obj)
        backend = comp.obj(settings)
        rc = getattr(cfg.model, role)
        clients[role] = ModelClient(
            backend,
            role=role,
            ledger=ledger,
            cache=cache,
            cache_mode=cfg.model.cache,
            max_in_flight=rc.max_in_flight or cfg.model.max_in_flight,
            retry=RetryPolicy(max_retries=cfg.model.max_retries),
            schema_retries=cfg.model.schema_retries,
            pricer=make_pricer(cfg),
            cancel=cancel,
            seed=cfg.train.seed,
        )
        reasons[role] = reason
    return clients, reasons
