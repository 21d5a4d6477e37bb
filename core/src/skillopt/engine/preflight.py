"""``skillopt check``: everything a run needs, tried in seconds before hours are spent.

A misnamed deployment, an expired key, a model that ignores JSON schemas or an env whose
data is missing otherwise shows up after the baseline evaluation has already been paid
for. Each check is independent and says what to fix; the probe calls are tiny, bypass
the cache (a cached answer proves nothing about the endpoint today) and are counted.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.errors import SkillOptError
from skillopt.records import CompletionRequest, Message

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from skillopt.calls import ModelClient
    from skillopt.config.schema import RunConfig
    from skillopt.envs import Env

PROBE_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}, "word": {"type": "string"}},
    "required": ["ok", "word"],
    "additionalProperties": False,
}


@attrs.frozen(kw_only=True)
class Check:
    name: str
    ok: bool
    detail: str
    seconds: float = 0.0
    facts: dict[str, Any] = attrs.field(factory=dict)


#: what a check computes: (its one-line detail, facts for --json)
Found = tuple[str, dict[str, Any]]


def _timed(name: str, fn: Callable[[], Found]) -> Check:
    started = time.monotonic()
    try:
        detail, facts = fn()
    except SkillOptError as exc:
        return Check(name=name, ok=False, detail=str(exc), seconds=time.monotonic() - started)
    return Check(name=name, ok=True, detail=detail, seconds=time.monotonic() - started, facts=facts)


def run_checks(*, config_file: Path | None, assignments: list[str], flags: dict[str, Any], call: bool = True) -> list[Check]:
    """Config, env data, each role's backend, and (unless ``call`` is false) a text and a
    structured probe per distinct backend identity."""
    from skillopt.engine.session import resolve_run_config

    checks: list[Check] = []
    resolved: dict[str, Any] = {}

    def config() -> Found:
        cfg, env_cls = resolve_run_config(config_file=config_file, assignments=assignments, flags=flags)
        resolved.update(cfg=cfg, env_cls=env_cls)
        return f"env {cfg.env.name}" + (f", preset {cfg.preset}" if cfg.preset else ""), {"preset": cfg.preset}

    checks.append(_timed("config", config))
    if not checks[-1].ok:
        return checks
    cfg, env_cls = resolved["cfg"], resolved["env_cls"]
    # one env for the data check and the estimate: an env says where its data comes from
    # once per instance, and `check` should say it once
    opened: list[Any] = []
    try:
        return _env_checks(checks, cfg, env_cls, opened, call)
    finally:
        for env in opened:
            env.close()


def _env_checks(checks: list[Check], cfg: RunConfig, env_cls: type[Env], opened: list[Any], call: bool) -> list[Check]:
    def env_data() -> Found:
        opened.append(env_cls(cfg.env))
        env = opened[0]
        sizes = {split: len(env.tasks(split)) for split in ("train", "val", "test")}
        skill = env.initial_skill()
        empty = [s for s, n in sizes.items() if n == 0]
        if empty:
            raise SkillOptError(f"no items in the {', '.join(empty)} split(s) of env {cfg.env.name}")
        from skillopt.skillfolder import SkillFolder, skill_of

        value = skill_of(skill)
        shape = f"a folder of {len(value.files)} files, " if isinstance(value, SkillFolder) else ""
        return ", ".join(f"{s} {n}" for s, n in sizes.items()) + f"; initial skill {shape}{len(skill)} chars", {"items": sizes}

    checks.append(_timed("env data", env_data))
    if checks[-1].ok:
        checks.append(_timed("gate", lambda: _gate_power(cfg, checks[1].facts["items"]["val"])))
    backend_checks, backends = _backend_checks(cfg, call=call)
    checks.extend(backend_checks)
    if checks[1].ok:
        checks.append(_timed("estimate", lambda: _estimate(cfg, opened[0], backends)))
    return checks


def _estimate(cfg: RunConfig, env: Env, backends: dict[str, Any]) -> Found:
    from skillopt.engine.estimate import describe, estimate, pricers_for

    found = estimate(cfg, env, pricers=pricers_for(cfg, backends))
    return describe(found, cfg.budget.max_cost_usd), attrs.asdict(found)


def _backend_checks(cfg: RunConfig, *, call: bool) -> tuple[list[Check], dict[str, Any]]:
    from skillopt.calls import Ledger, ModelClient, RetryPolicy
    from skillopt.engine.models import backend_name, role_settings
    from skillopt.registry import get

    checks: list[Check] = []
    backends: dict[str, Any] = {}
    probed: dict[str, list[Check]] = {}
    for role in ("target", "optimizer"):
        built: dict[str, Any] = {}

        def build(role: str = role, built: dict[str, Any] = built) -> Found:
            name, reason = backend_name(cfg, role)
            comp = get("backends", name)
            backend = comp.obj(role_settings(cfg, role, comp.name, comp.obj))
            built["backend"] = backend
            identity = backend.identity()
            where = ", ".join(f"{k} {v}" for k, v in identity.items() if k != "backend" and v and isinstance(v, str))
            return f"{comp.name} ({where})" + (f"; {reason}" if reason else ""), {"backend": comp.name, "identity": identity}

        check = _timed(f"{role} backend", build)
        checks.append(check)
        if not check.ok:
            continue
        backend = backends[role] = built["backend"]
        if not call:
            continue
        key = repr(sorted(backend.identity().items()))
        if key in probed:  # both roles on one endpoint and model: probe it once
            checks.extend(attrs.evolve(c, name=f"{role} {c.name.split(' ', 1)[1]}", detail=c.detail + " (same as target)") for c in probed[key])
            backend.close()
            continue
        client = ModelClient(backend, role=role, ledger=Ledger(), cache=None, cache_mode="off", retry=RetryPolicy(max_retries=max(2, min(cfg.model.max_retries, 3)), max_delay_s=10.0,
                                                                                                    max_retry_after_s=min(10.0, cfg.model.max_retry_wait_s)),
                             schema_retries=cfg.model.schema_retries)
        try:
            probed[key] = [_text_probe(client, role), _schema_probe(client, role)]
        finally:
            client.close()
        checks.extend(probed[key])
    return checks, backends


def _text_probe(client: ModelClient, role: str) -> Check:
    def probe() -> Found:
        request = CompletionRequest(
            messages=(Message(role="user", content="Reply with the single word OK."),), max_tokens=16, role=role, stage="preflight"
        )
        done = client.complete(request)
        if not done.text.strip():
            raise SkillOptError("the model answered with empty text")
        cost = f", ${done.cost_usd:.6f}" if done.cost_usd else ""
        reply = " ".join(done.text.split())[:40]
        return (
            f"answered {reply!r} in {done.latency_s:.2f}s ({done.usage.prompt_tokens}+{done.usage.completion_tokens} tokens{cost}, model {done.model})",
            {"latency_s": done.latency_s, "model": done.model, "cost_usd": done.cost_usd},
        )

    return _timed(f"{role} text call", probe)


def _schema_probe(client: ModelClient, role: str) -> Check:
    def probe() -> Found:
        request = CompletionRequest(
            messages=(Message(role="user", content='Reply with JSON: {"ok": true, "word": "ready"}.'),),
            max_tokens=48, json_schema=PROBE_SCHEMA, role=role, stage="preflight",
        )
        done = client.complete(request)  # a reply breaking the schema is re-asked, then a SchemaError
        return f"schema-valid JSON {done.parsed}", {"parsed": done.parsed}

    return _timed(f"{role} structured call", probe)


def _gate_power(cfg: RunConfig, val_split: int) -> Found:
    """Whether the gate can accept anything on the val items the run will use (of a val
    split of ``val_split`` items, as the env data check counted them)."""
    from skillopt.engine.gate_power import gated_items, race_rounds, too_few_items
    from skillopt.engine.session import build_gate

    gate = build_gate(cfg)
    n = gated_items(cfg, val_split)
    problem = too_few_items(cfg, gate, n)
    if problem:
        raise SkillOptError(problem)
    if not cfg.evaluation.use_gate:
        return "off (evaluation.use_gate=false): every candidate is force-accepted", {"val_items": n}
    need = gate.min_items_to_accept(race_rounds(cfg, gate, n))
    needs = f"; it can accept from {need} items" if need else ""
    return f"{gate.name} on {n} val items{needs}", {"val_items": n, "min_items_to_accept": need}
