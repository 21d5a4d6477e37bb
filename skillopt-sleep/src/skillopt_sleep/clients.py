"""Model clients for a night, built from installed backends through the registry.

Both roles share one :class:`~skillopt.calls.Ledger` carrying the night's hard limits
(calls, tokens, USD), so the budget counts real usage reported by the backends. The
backend name is resolved exactly as ``skillopt run`` does (``auto`` picks the first
configured backend, which is the embedded ``local`` model when nothing else is set);
an unknown name is an error listing the installed ones, never a silent fallback. The
night says which backend each role got and why (:meth:`NightClients.describe`).

The per-call deadline fits the backend: a model on this machine's CPU (a backend that
declares ``small_model``) gets the core's small-model deadline (300 s; a replay of a
few hundred tokens on two cores takes minutes, and 2 of 5 hit the old 120 s), an agent
run in ``mode=agent`` 600 s (it reads files before it answers), any other the core's
120 s; ``--timeout`` overrides.
"""

from __future__ import annotations

import attrs

from skillopt.api import Ledger, ModelClient, ModelConfig, RoleConfig, RunConfig
from skillopt_sleep.options import SleepOptions

AGENT_MODE_TIMEOUT_S = 600.0


@attrs.frozen(kw_only=True)
class NightClients:
    target: object
    optimizer: object
    ledger: Ledger
    names: dict[str, str] = attrs.field(factory=dict)
    #: why ``auto`` chose each role's backend ('' when it was named)
    reasons: dict[str, str] = attrs.field(factory=dict)
    #: the per-call deadline the night's calls get, in seconds (None = the backend's own)
    call_timeout_s: float | None = None

    @property
    def model_key(self) -> str:
        return ",".join(f"{role}={name}" for role, name in sorted(self.names.items()))

    def describe(self) -> str:
        """``target local SmolLM2… (auto: no provider credentials found…), optimizer …``."""
        parts = []
        for role, name in sorted(self.names.items()):
            backend, _, model = name.partition(":")
            why = self.reasons.get(role)
            parts.append(f"{role} {backend}" + (f" {model}" if model else "") + (f" (auto: {why})" if why else ""))
        deadline = f"; {self.call_timeout_s:g} s per call" if self.call_timeout_s else ""
        return ", ".join(parts) + deadline


def call_timeout(backend_cls, options: dict, given: float | None) -> float:
    """The per-call deadline for a backend class (see the module docstring)."""
    from skillopt.api import SMALL_LOCAL, ModelConfig

    if given:
        return float(given)
    if getattr(backend_cls, "small_model", False):
        return float(SMALL_LOCAL["model"]["target"]["timeout_s"])
    if options.get("mode") == "agent":
        return AGENT_MODE_TIMEOUT_S
    return ModelConfig().timeout_s


def upstream_compat_settings(backend_opts: dict) -> tuple[dict, int | None]:
    """Upstream Sleep's compatible-endpoint controls: SKILLOPT_SLEEP_CHAT_EXTRA_BODY (JSON request
    fields; ``--backend-option extra_body=…`` wins) and SKILLOPT_SLEEP_COMPAT_MAX_TOKENS (the reply cap)."""
    import json
    import os

    from skillopt.api import ConfigError

    extra = os.environ.get("SKILLOPT_SLEEP_CHAT_EXTRA_BODY", "").strip()
    if extra and "extra_body" not in backend_opts:
        try:
            backend_opts = {**backend_opts, "extra_body": json.loads(extra)}
        except json.JSONDecodeError as exc:
            raise ConfigError(f"SKILLOPT_SLEEP_CHAT_EXTRA_BODY is not a JSON object ({exc.msg})") from None
    cap = os.environ.get("SKILLOPT_SLEEP_COMPAT_MAX_TOKENS", "").strip()
    if cap and not cap.isdigit():
        raise ConfigError(f"SKILLOPT_SLEEP_COMPAT_MAX_TOKENS={cap!r} is not a whole number of tokens")
    return backend_opts, int(cap) if cap else None


def run_config(opts: SleepOptions) -> RunConfig:
    backend_opts, max_tokens = upstream_compat_settings(dict(opts.backend_options))
    model = ModelConfig(
        backend=opts.backend or "auto",
        model=opts.model,
        optimizer=RoleConfig(backend=opts.optimizer_backend, model=opts.optimizer_model, options=backend_opts,
                             max_tokens=max_tokens),
        target=RoleConfig(options=backend_opts, max_tokens=max_tokens),
        cache="read-write" if opts.use_cache else "off",
    )
    cfg = RunConfig(model=model)
    from skillopt.api import ConfigError, PluginError, backend_for_role, get_component

    try:
        name, _reason = backend_for_role(cfg, "target")
        backend_cls = get_component("backends", name).obj
    except PluginError as exc:
        raise ConfigError(f"--backend: {exc}") from None
    timeout = call_timeout(backend_cls, backend_opts, opts.timeout_s)
    return attrs.evolve(cfg, model=attrs.evolve(model, timeout_s=timeout))


def build(opts: SleepOptions, *, handoff_dir=None) -> NightClients:
    from skillopt.api import build_clients

    cfg = run_config(opts)
    if handoff_dir is not None:
        options = {**opts.backend_options, "dir": str(handoff_dir)}
        cfg = attrs.evolve(
            cfg,
            model=attrs.evolve(
                cfg.model,
                optimizer=attrs.evolve(cfg.model.optimizer, options=options),
                target=attrs.evolve(cfg.model.target, options=options),
            ),
        )
    from skillopt.api import ConfigError, PluginError

    ledger = Ledger(max_cost_usd=opts.max_cost_usd, max_calls=opts.max_calls, max_tokens=opts.max_tokens)
    try:
        clients, reasons = build_clients(cfg, ledger=ledger)
    except PluginError as exc:
        raise ConfigError(f"--backend: {exc}") from None
    names = {role: f"{c.backend.name}:{c.model or ''}" for role, c in clients.items()}
    return NightClients(
        target=clients["target"],
        optimizer=clients["optimizer"],
        ledger=ledger,
        names=names,
        reasons={role: why for role, why in reasons.items() if why},
        call_timeout_s=cfg.model.timeout_s,
    )


def from_backends(target_backend, optimizer_backend=None, *, opts: SleepOptions | None = None) -> NightClients:
    """Clients around backend objects given in code (experiments and tests)."""
    ledger = Ledger(
        max_cost_usd=opts.max_cost_usd if opts else None,
        max_calls=opts.max_calls if opts else None,
        max_tokens=opts.max_tokens if opts else None,
    )
    target = ModelClient(target_backend, role="target", ledger=ledger, cache=None, cache_mode="off")
    optimizer = ModelClient(optimizer_backend or target_backend, role="optimizer", ledger=ledger, cache=None, cache_mode="off")
    return NightClients(
        target=target,
        optimizer=optimizer,
        ledger=ledger,
        names={"target": target_backend.name, "optimizer": (optimizer_backend or target_backend).name},
    )


def backend_name(clients: NightClients, role: str = "optimizer") -> str:
    return clients.names.get(role, "").split(":", 1)[0]

