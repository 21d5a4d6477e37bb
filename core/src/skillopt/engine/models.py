"""Building the two role clients (target, optimizer) from the run config."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from skillopt.backends import Backend, BackendSettings
from skillopt.calls import CallCache, HedgePolicy, Ledger, ModelClient, RetryPolicy
from skillopt.config.schema import RunConfig, merge_connection
from skillopt.errors import ConfigError
from skillopt.records import Usage
from skillopt.redact import register_secret

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable

    from skillopt.config.schema import ModelConfig, RoleConfig


def backend_name(cfg: RunConfig, role: str) -> tuple[str, str]:
    """The backend a role uses and, when chosen automatically, why."""
    name = getattr(cfg.model, role).backend or cfg.model.backend or "auto"
    if name != "auto":
        return name, ""
    from skillopt.registry import get_registry

    candidates = [c for c in get_registry().load_all("backends") if c.obj.auto_priority is not None]
    candidates.sort(key=lambda c: c.obj.auto_priority)
    for comp in candidates:
        try:
            ready = comp.obj.configured()
        except Exception:  # noqa: BLE001 - a broken probe just means "not this one"
            ready = False
        if ready:
            reason = comp.obj.auto_reason or f"{comp.name} is configured"
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
    merged = merge_connection(m, rc, role)
    merged.update(api_key=api_key, api_key_env=key_env, max_tokens=rc.max_tokens,
                  timeout_s=merged["timeout_s"] if merged["timeout_s"] is not None else m.timeout_s)
    _from_environment(merged, rc, m, role, backend_cls)
    merged["model"] = merged["model"] or backend_cls.default_model
    return BackendSettings(
        **merged,
        name=name,
        role=role,
        local_path=m.local_path,
        config=_typed(cfg, name, backend_cls),
    )


def _from_environment(merged: dict[str, Any], rc: RoleConfig, m: ModelConfig, role: str, backend_cls: type[Backend]) -> None:
    """The backend's variable family fills what the config leaves unset (precedence:
    :mod:`skillopt.config.environ`)."""
    from skillopt.config.environ import fill_role
    from skillopt.config.schema import ModelConfig

    spec = backend_cls.env_vars(role, dict(merged["options"]))
    if not spec:
        return
    unset = {field for field in ("model", "base_url", "api_version", "auth_mode", "reasoning_effort", "api_key") if not merged[field]}
    unset |= {field for field in ("temperature",) if merged[field] is None}
    if rc.timeout_s is None and m.timeout_s == ModelConfig().timeout_s:
        unset.add("timeout_s")
    if rc.max_tokens is None:
        unset.add("max_tokens")
    unset |= {field for field in spec if field.startswith("options.") and field[8:] not in merged["options"]}
    merged["options"] = dict(merged["options"])
    used = fill_role(merged, unset, spec)
    if "api_key" in used:
        register_secret(merged["api_key"])
        merged["api_key_env"] = used["api_key"]


def _typed(cfg: RunConfig, name: str, backend_cls: type[Backend]) -> Any:
    from skillopt.plugin_config import settings_for

    cls = backend_cls.Config
    if cls is None:
        return None
    return settings_for(cfg, "backends", name, cls) or cls()


def make_pricer(cfg: RunConfig) -> Callable[[str, Usage], float | None] | None:
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


def _in_flight(configured: int, backend_limit: int | None) -> int:
    """The configured limit, never above what the backend says it can serve at once."""
    return min(configured, backend_limit) if backend_limit else configured


def configured_in_flight(cfg: RunConfig, role: str) -> int:
    """``model.ROLE.max_in_flight``, else ``model.max_in_flight``: calls in flight to the
    role's endpoint, from every thread (and every worker) of the run."""
    return getattr(cfg.model, role).max_in_flight or cfg.model.max_in_flight


def build_backend(cfg: RunConfig, role: str) -> tuple[Backend, str]:
    """The role's backend with its resolved settings, and why it was chosen (auto)."""
    from skillopt.registry import get

    name, reason = backend_name(cfg, role)
    comp = get("backends", name)
    return comp.obj(role_settings(cfg, role, comp.name, comp.obj)), reason


def client_options(cfg: RunConfig, role: str, backend: Backend) -> dict[str, Any]:
    """The :class:`ModelClient` settings of a role, besides its ledger and cache."""
    return {
        "cache_mode": cfg.model.cache,
        "max_in_flight": _in_flight(configured_in_flight(cfg, role), type(backend).max_concurrency),
        "retry": RetryPolicy(max_retries=cfg.model.max_retries, max_retry_after_s=cfg.model.max_retry_wait_s),
        "schema_retries": cfg.model.schema_retries,
        "pricer": make_pricer(cfg),
        "seed": cfg.train.seed,
        "hedge": HedgePolicy.parse(getattr(cfg.model, role).hedge_after or cfg.model.hedge_after),
    }


def build_clients(cfg: RunConfig, *, ledger: Ledger, roles: tuple[str, ...] = ("target", "optimizer"),
                  cancel: threading.Event | None = None) -> tuple[dict[str, ModelClient], dict[str, str]]:
    """One :class:`ModelClient` per role, sharing the ledger, cache and limits."""
    cache = open_cache(cfg)
    clients: dict[str, ModelClient] = {}
    reasons: dict[str, str] = {}
    for role in roles:
        backend, reasons[role] = build_backend(cfg, role)
        clients[role] = ModelClient(backend, role=role, ledger=ledger, cache=cache, cancel=cancel,
                                    **client_options(cfg, role, backend))
    return clients, reasons
