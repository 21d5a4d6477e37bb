"""Building trainers on the toy env with scripted models (see toy.py for what they stand for)."""

from __future__ import annotations

from pathlib import Path

import attrs
from toy import ToyEnv, toy_optimizer, toy_target

from skillopt.calls import Ledger, ModelClient
from skillopt.config.schema import RunConfig
from skillopt.engine.session import build_executor
from skillopt.engine.trainer import Trainer
from skillopt.registry import get
from skillopt.scripted import ScriptedBackend


def make_config(**sections) -> RunConfig:
    """RunConfig with toy-sized defaults; keyword args are {section: {key: value}}."""
    cfg = RunConfig()
    base = {
        "train": {"num_epochs": 2, "batch_size": 8},
        "gradient": {"minibatch_size": 4, "analyst_workers": 4},
        "optimizer": {"use_slow_update": False, "use_meta_skill": False},
    }
    for name, values in sections.items():
        base.setdefault(name, {}).update(values)
    for name, values in base.items():
        if name == "env":
            continue
        cfg = attrs.evolve(cfg, **{name: attrs.evolve(getattr(cfg, name), **values)})
    env_values = {"workers": 4, **base.get("env", {})}
    return attrs.evolve(cfg, env=ToyEnv.Config(**env_values))


def make_trainer(out: Path, *, target_script=None, optimizer_script=None, num_epochs=None, ledger=None, observers=None, **sections) -> Trainer:
    if num_epochs is not None:
        sections.setdefault("train", {})["num_epochs"] = num_epochs
    cfg = make_config(**sections)
    ledger = ledger or Ledger()
    t = ModelClient(ScriptedBackend(script=target_script or toy_target), role="target", ledger=ledger, cache=None, cache_mode="off")
    o = ModelClient(ScriptedBackend(script=optimizer_script or toy_optimizer()), role="optimizer", ledger=ledger, cache=None, cache_mode="off")
    policy = get("edit_policies", cfg.optimizer.skill_update_mode).obj()
    gate = get("gates", cfg.evaluation.gate).obj(cfg.evaluation)
    return Trainer(cfg=cfg, env=ToyEnv(cfg.env), target=t, optimizer=o, policy=policy, gate=gate, out_dir=out, ledger=ledger,
                   observers=observers, executor=build_executor(cfg))


def cached_trainer(out, cache_file):
    """The toy run with the call cache on (a repeated run is answered from it) and a list
    price on the scripted models (a provider's stand-in), so the cache saves real money."""
    from skillopt.calls import CallCache

    trainer = make_trainer(out, num_epochs=1, train={"max_steps": 2})
    price = lambda model, usage: (usage.prompt_tokens + usage.completion_tokens) * 1e-6
    for role, script in (("target", toy_target), ("optimizer", toy_optimizer())):
        client = ModelClient(ScriptedBackend(script=script), role=role, ledger=trainer.ledger, cache=CallCache(cache_file),
                             pricer=price)
        setattr(trainer, role, client)
    trainer.runner.client = trainer.target
    return trainer
