"""What a run will spend, before it spends it: an upper bound on calls per stage, and
token and cost estimates from the env's real prompts.

Call counts follow the engine's plan exactly (steps, batches, minibatches, the k-ary
merge tree, gate and test evaluations) and take the worst case wherever the path
depends on replies: every step proposes edits and is gated, every merge level runs,
ranking is always needed, every epoch boundary runs. Schema re-asks and retries are
not counted. Calls per rollout are measured by running the env's own rollout on a few
items against a model that answers nothing, which drives multi-turn envs to their turn
limit (their worst case). Prompt tokens come from those real prompts' text at four
characters a token (images are not counted); replies are counted at their caps,
reported apart because that ceiling is far above what models usually write.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import attrs

from skillopt.envs import ChatModel, RolloutContext
from skillopt.records import Completion, CompletionRequest, Usage
from skillopt.skillfolder.target import for_target

if TYPE_CHECKING:
    from skillopt.config.schema import RunConfig
    from skillopt.envs import Env
    from skillopt.records import Task

SAMPLE_ITEMS = 4
CHARS_PER_TOKEN = 4
#: fixed instructions of an optimizer prompt (system prompt, schema, section headers)
OPTIMIZER_OVERHEAD_CHARS = 4000
DEFAULT_OPTIMIZER_REPLY = 2048


@attrs.frozen(kw_only=True)
class Estimate:
    steps: int
    target_calls: dict[str, int]
    optimizer_calls: dict[str, int]
    calls_per_rollout: int
    target_prompt_tokens: int
    target_completion_tokens_max: int
    optimizer_prompt_tokens: int
    optimizer_completion_tokens_max: int
    #: per role: USD of the prompts, and of the replies if every one ran to its cap
    prompt_cost_usd: dict[str, float | None]
    reply_cost_usd_max: dict[str, float | None]

    @property
    def total_calls(self) -> int:
        return sum(self.target_calls.values()) + sum(self.optimizer_calls.values())


class _Recorder(ChatModel):
    """A model that answers nothing and remembers every request."""

    def __init__(self) -> None:
        self.requests: list[CompletionRequest] = []

    def complete(self, request: CompletionRequest) -> Completion:
        self.requests.append(request)
        return Completion(text="", usage=Usage(), model="estimate")


def measure_rollouts(env: Env, tasks: list[Task], skill: str) -> tuple[int, float, int | None]:
    """(max calls per rollout, mean prompt characters per call, largest max_tokens asked)."""
    calls, chars, caps = [], [], []
    for task in tasks[:SAMPLE_ITEMS]:
        model = _Recorder()
        try:
            text, _ = for_target(env, skill, model)
            env.rollout(task, text, model, RolloutContext(seed=0, training=True, timeout_s=30.0))
        except Exception:  # noqa: BLE001 - an env may reject an empty reply; what it asked still counts
            pass
        calls.append(max(1, len(model.requests)))
        for r in model.requests:
            chars.append(sum(len(m.content) for m in r.messages))
            caps.append(r.max_tokens)
    return max(calls, default=1), (sum(chars) / len(chars)) if chars else 0.0, max(caps, default=None)


def _merge_calls(patches: int, k: int) -> int:
    """Merge calls of a k-ary tree over ``patches`` leaves (groups of one pass through)."""
    calls = 0
    while patches > 1:
        groups = math.ceil(patches / k)
        calls += patches // k + (1 if patches % k > 1 else 0)
        patches = groups
    return calls


def plan_calls(cfg: RunConfig, *, n_train: int, n_val: int, n_test: int, per_rollout: int, policy: str,
               repeats: tuple[int, int] | None = None) -> tuple[int, dict[str, int], dict[str, int]]:
    """(steps, target calls by stage, optimizer calls by stage), worst case. ``repeats``:
    the gate's :meth:`~skillopt.gates.Gate.repeat_plan` (first look, most), by default
    ``evaluation.gate_repeats`` once."""
    t, g, o, e = cfg.train, cfg.gradient, cfg.optimizer, cfg.evaluation
    steps_per_epoch = max(1, math.ceil(n_train / (t.batch_size * t.accumulation)))
    steps = t.num_epochs * steps_per_epoch
    if t.max_steps:
        steps = min(steps, t.max_steps)
    epochs_run = min(t.num_epochs, math.ceil(steps / steps_per_epoch))
    batch = min(t.batch_size, n_train)
    n_gate = min(e.sel_env_num, n_val) if e.sel_env_num else n_val
    first, most = repeats or (e.gate_repeats, e.gate_repeats)
    most = max(first, most)
    val = n_gate * first * per_rollout
    # a racing gate may add repeats up to ``most`` for the candidate and the current skill
    gate_step = n_gate * (most + (most - first)) * per_rollout
    test = (min(e.test_env_num, n_test) if e.test_env_num else n_test) * per_rollout
    boundaries = max(0, epochs_run - 1) if (o.use_slow_update or o.use_meta_skill) else 0

    target = {
        "rollout": steps * t.accumulation * batch * per_rollout,
        "gate": val + steps * gate_step + (boundaries * gate_step if o.use_slow_update else 0),
        "slow_update": boundaries * 2 * min(o.slow_update_samples, n_train) * per_rollout,
        "final_eval": (val + 3 * test) if e.eval_test else 0,
        # an accepted step's attribution, at most its budget (every step counted: the worst case)
        "attribution": steps * e.attribution_rollouts * per_rollout if policy not in ("rewrite", "full-rewrite") else 0,
    }
    per_micro = math.ceil(batch / g.minibatch_size)
    fail_patches = t.accumulation * per_micro
    succ_patches = 0 if g.failure_only else t.accumulation * per_micro
    # failures and successes split one batch: ceil(f/m) + ceil(s/m) <= ceil(batch/m) + 1
    analysts = t.accumulation * (per_micro if g.failure_only else min(per_micro + 1, 2 * per_micro))
    optimizer = {
        "reflect": steps * analysts,
        "merge": steps * (_merge_calls(fail_patches, g.merge_batch_size) + _merge_calls(succ_patches, g.merge_batch_size)
                          + (1 if succ_patches else 0)),
        "select": steps * ((1 if policy != "full-rewrite" else 0) + (1 if o.lr_control_mode == "autonomous" else 0)),
        "apply": steps * ((1 if policy in ("rewrite", "full-rewrite") else 0) + (1 if o.use_skill_aware_reflection else 0)),
        "slow_update": boundaries if o.use_slow_update else 0,
        "meta_skill": boundaries if o.use_meta_skill else 0,
    }
    return steps, {k: v for k, v in target.items() if v}, {k: v for k, v in optimizer.items() if v}


def estimate(cfg: RunConfig, env: Env, *, pricers: dict[str, Any] | None = None) -> Estimate:
    """The run's ceiling; ``pricers`` maps a role to ``usage -> USD or None``."""
    from skillopt.config.schema import canonical_update_mode
    from skillopt.gates import build_gate

    train, val, test = env.tasks("train"), env.tasks("val"), env.tasks("test")
    skill = env.initial_skill()
    per_rollout, prompt_chars, cap = measure_rollouts(env, train or val, skill)
    steps, target, optimizer = plan_calls(
        cfg, n_train=len(train), n_val=len(val), n_test=len(test), per_rollout=per_rollout,
        policy=canonical_update_mode(cfg.optimizer.skill_update_mode), repeats=build_gate(cfg).repeat_plan(),
    )
    n_target, n_opt = sum(target.values()), sum(optimizer.values())
    reply_cap = cfg.model.target.max_tokens or cap or 1024
    trajectory = min(cfg.gradient.max_trajectory_chars, prompt_chars * per_rollout + reply_cap * CHARS_PER_TOKEN)
    skill_chars = max(len(skill), cfg.optimizer.max_skill_chars or 0, 4 * (cfg.optimizer.max_skill_tokens or 0))
    analyst_chars = OPTIMIZER_OVERHEAD_CHARS + skill_chars + cfg.gradient.minibatch_size * trajectory
    usage = {
        "target": Usage(prompt_tokens=int(n_target * prompt_chars / CHARS_PER_TOKEN), completion_tokens=n_target * reply_cap),
        "optimizer": Usage(
            prompt_tokens=int(n_opt * analyst_chars / CHARS_PER_TOKEN),
            completion_tokens=n_opt * (cfg.model.optimizer.max_tokens or DEFAULT_OPTIMIZER_REPLY),
        ),
    }
    price = {role: (pricers or {}).get(role, lambda _u: None) for role in ("target", "optimizer")}
    prompt_cost = {role: price[role](Usage(prompt_tokens=u.prompt_tokens)) for role, u in usage.items()}
    reply_cost = {role: price[role](Usage(completion_tokens=u.completion_tokens)) for role, u in usage.items()}
    return Estimate(
        steps=steps,
        target_calls=target,
        optimizer_calls=optimizer,
        calls_per_rollout=per_rollout,
        target_prompt_tokens=usage["target"].prompt_tokens,
        target_completion_tokens_max=usage["target"].completion_tokens,
        optimizer_prompt_tokens=usage["optimizer"].prompt_tokens,
        optimizer_completion_tokens_max=usage["optimizer"].completion_tokens,
        prompt_cost_usd=prompt_cost,
        reply_cost_usd_max=reply_cost,
    )


def pricers_for(cfg: RunConfig, backends: dict[str, Any]) -> dict[str, Any]:
    """Per role, ``usage -> USD or None``: ``model.prices`` when it names the model, else
    the backend's list price."""
    from skillopt.engine.models import make_pricer

    configured = make_pricer(cfg)
    pricers: dict[str, Any] = {}
    for role, backend in backends.items():
        model = backend.identity().get("model", "")
        if configured and model and configured(model, Usage(prompt_tokens=1)) is not None:
            pricers[role] = lambda u, m=model: configured(m, u)
        else:
            pricers[role] = backend.list_price
    return pricers


def describe(found: Estimate, budget_usd: float | None = None) -> str:
    """One line: steps, call bounds, tokens, and the cost floor and ceiling when priced."""
    prompts = found.target_prompt_tokens + found.optimizer_prompt_tokens
    replies = found.target_completion_tokens_max + found.optimizer_completion_tokens_max
    prompt_cost, reply_cost = found.prompt_cost_usd, found.reply_cost_usd_max
    if all(c is not None for c in [*prompt_cost.values(), *reply_cost.values()]):
        floor = sum(v for v in prompt_cost.values() if v is not None)
        ceiling = floor + sum(v for v in reply_cost.values() if v is not None)
        money = f"≈ ${floor:,.2f} for prompts, ≤ ${ceiling:,.2f} if every reply hit its cap"
        if budget_usd is not None and floor > budget_usd:
            money += f" (prompts alone exceed --max-cost {budget_usd:g}: the run will stop at the budget, resumable)"
    else:
        money = "cost unknown for the " + " and ".join(r for r, c in prompt_cost.items() if c is None) + " model"
    target, optimizer = sum(found.target_calls.values()), sum(found.optimizer_calls.values())
    return (
        f"{found.steps} step{'s' if found.steps != 1 else ''}: ≤ {target:,} target + {optimizer:,} optimizer calls ({found.calls_per_rollout} per "
        f"rollout); prompts ≈ {prompts / 1e6:.2f}M tokens, replies ≤ {replies / 1e6:.2f}M; {money}"
    )
