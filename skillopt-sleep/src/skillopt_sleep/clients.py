"""Model clients for a night, built from installed backends through the registry.

Both roles share one :class:`~skillopt.calls.Ledger` carrying the night's hard limits
(calls, tokens, USD), so the budget counts real usage reported by the backends. The
backend name is resolved exactly as ``skillopt run`` does (``auto`` picks the first
configured backend, which is the embedded ``local`` model when nothing else is set);
an unknown name is an error listing the installed ones, never a silent fallback.
"""

from __future__ import annotations

import attrs
from skillopt.api import Ledger, ModelClient, ModelConfig, RoleConfig, RunConfig

from skillopt_sleep.options import SleepOptions


@attrs.frozen(kw_only=True)
class NightClients:
    target: object
    optimizer: object
    ledger: Ledger
    names: dict[str, str] = attrs.field(factory=dict)

    @property
    def model_key(self) -> str:
        return ",".join(f"{role}={name}" for role, name in sorted(self.names.items()))


def run_config(opts: SleepOptions) -> RunConfig:
    backend_opts = dict(opts.backend_options)
    model = ModelConfig(
        backend=opts.backend or "auto",
        model=opts.model,
        optimizer=RoleConfig(backend=opts.optimizer_backend, model=opts.optimizer_model, options=backend_opts),
        target=RoleConfig(options=backend_opts),
        cache="read-write" if opts.use_cache else "off",
    )
    return RunConfig(model=model)


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
        clients, _reasons = build_clients(cfg, ledger=ledger)
    except PluginError as exc:
        raise ConfigError(f"--backend: {exc}") from None
    names = {role: f"{c.backend.name}:{c.model or ''}" for role, c in clients.items()}
    return NightClients(target=clients["target"], optimizer=clients["optimizer"], ledger=ledger, names=names)


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
