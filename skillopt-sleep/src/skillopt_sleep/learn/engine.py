"""A night's learning through the training engine: the run config a night's options
mean, and one call of :func:`skillopt.api.train` on a :class:`~skillopt_sleep.nightenv.NightEnv`.

What each option becomes: the gate and its settings are the engine's
(``evaluation.gate*``, with ``--min-val-items`` as ``gate_min_items``, no race and no
extra looks, as a night never had them); the night's search is ``one-edit`` with one
step an epoch and as many epochs as ``--edit-budget``, plus one (each step puts the
strongest edit not tried yet to the gate; the last one is for all usable edits
together when none passed alone); the reflection is the ``sleep-rules`` policy over all
of train at once; the fresh final check is ``evaluation.final_recheck``; the test split,
when there is one, is the engine's final evaluation. Nothing the engine adds costs a
night calls it never made: no attribution replays, no slow update, no meta skill.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs

from skillopt.api import EvaluationConfig, RunConfig
from skillopt_sleep.documents import Doc
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.options import SleepOptions

#: a night reflects on every train replay at once (a lesson's support is pooled across tasks)
ALL_AT_ONCE = 100_000


def evaluation_config(opts: SleepOptions, *, has_test: bool = False) -> EvaluationConfig:
    """The engine's gate settings a night's options mean."""
    return EvaluationConfig(
        gate=opts.gate, gate_metric=opts.gate_metric, gate_no_regression=opts.no_regression,
        gate_min_margin=opts.min_margin, gate_confidence=opts.confidence, gate_repeats=opts.repeats,
        gate_max_repeats=opts.repeats, gate_min_items=opts.min_val_items, gate_race_rounds=1,
        attribution_rollouts=0, eval_test=has_test, final_recheck=True,
    )


def check_gate(opts: SleepOptions) -> None:
    """Build the gate ``--gate`` names, as the engine will: an unknown one (or settings it
    refuses) stops the night at its start, with one line."""
    from skillopt.api import ConfigError, PluginError, get_component

    try:
        get_component("gates", opts.gate).obj(evaluation_config(opts))
    except PluginError as exc:
        raise ConfigError(f"--gate: {exc}") from None


def night_config(opts: SleepOptions, *, has_test: bool, once: bool = True) -> RunConfig:
    """``once``: the night reflects once (every step is asked to reflect, to hand out the
    next proposal of its queue); otherwise each step reflects on its own train failures."""
    cfg = RunConfig()
    return attrs.evolve(
        cfg,
        train=attrs.evolve(cfg.train, num_epochs=max(1, opts.edit_budget) + 1, batch_size=ALL_AT_ONCE, seed=opts.seed),
        gradient=attrs.evolve(cfg.gradient, minibatch_size=ALL_AT_ONCE, failure_only=not once),
        optimizer=attrs.evolve(cfg.optimizer, skill_update_mode="sleep-rules", use_slow_update=False,
                               use_meta_skill=False, rejected_ledger=False),
        evaluation=evaluation_config(opts, has_test=has_test),
        search=attrs.evolve(cfg.search, strategy="one-edit"),
        env=attrs.evolve(cfg.env, workers=opts.workers),
    )


def learn(opts: SleepOptions, tasks: Sequence[SleepTask], docs: Sequence[Doc], clients, out_dir: Path, *,
          reflectors: tuple[str, ...] = ("heuristic",), reporter=None, rollouts: int = 1,
          editable: tuple[str, ...] = ("skill", "memory"), once: bool = False):
    """Train tonight's documents on ``tasks`` in ``out_dir`` (or resume the run there);
    returns the run's summary. ``rollouts``: train attempts per task (K > 1 with the LLM
    reflector: contrastive reflection); ``editable``: the document roles it may change;
    ``once``: a night's single reflection — train replayed once under the starting
    documents, its proposals tried in order, then all usable ones together (what
    ``skillopt sleep run`` does: the decisions and the calls of a night as they always
    were); without it each step replays train under the current documents and reflects
    on its failures."""
    from skillopt.api import train
    from skillopt_sleep.learn.policy import SleepRules
    from skillopt_sleep.nightenv import NightEnv

    project = Path(opts.project_path).name
    env = NightEnv(tasks, docs, judge=clients.optimizer, project_name=project, rollouts=rollouts, seed=opts.seed,
                   as_night=once)
    policy = SleepRules(tasks=tasks, budget=opts.edit_budget, reflectors=reflectors, project_name=project,
                        preferences=opts.preferences, rollouts=rollouts, metric=opts.gate_metric, editable=editable, once=once)
    cfg = night_config(opts, has_test=any(t.split == "test" for t in tasks), once=once)
    return train(cfg, env, target=clients.target, optimizer=clients.optimizer, out_dir=out_dir, ledger=clients.ledger,
                 policy=policy, reporter=reporter)
