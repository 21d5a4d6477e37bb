"""The run configuration schema.

Defaults equal the paper settings of upstream SkillOpt (``configs/_base_/default.yaml``),
so a config file only states what differs. Enumerated values are validated here, so a
misspelt scheduler or gate metric fails at start-up instead of silently meaning
something else (upstream maps unknown update modes to ``patch``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs
from attrs import validators as v

if TYPE_CHECKING:
    from collections.abc import Callable

LR_SCHEDULERS = ("constant", "linear", "cosine", "autonomous")
LR_CONTROL_MODES = ("fixed", "autonomous", "none")
GATE_METRICS = ("hard", "soft", "mixed")
PAIR_POLICIES = ("mixed", "changed", "unchanged")
APPENDIX_SOURCES = ("both", "failure_only")
CACHE_MODES = ("read-write", "off", "replay")
UPDATE_MODE_ALIASES = {
    "edits": "patch",
    "rewrite_from_suggestions": "rewrite",
    "suggestions": "rewrite",
    "full_rewrite": "full-rewrite",
    "full_rewrite_minibatch": "full-rewrite",
    "minibatch_full_rewrite": "full-rewrite",
}

DEFAULT_LEADING_WORDS = (
    "MUST", "ALWAYS", "NEVER", "DO NOT", "DON'T", "SHOULD", "REQUIRED",
    "IMPORTANT", "CRITICAL", "ENSURE", "AVOID",
)


def _one_of(choices: tuple[str, ...]) -> Callable[..., Any]:
    return v.in_(choices)


def _at_least(n: int) -> Callable[..., Any]:
    return v.ge(n)


def _positive() -> Callable[..., Any]:
    """A number above zero (NaN and infinity are refused by the strict converter)."""
    return v.gt(0)


def _prices(_instance: object, _attribute: attrs.Attribute[Any], value: dict[str, dict[str, float]]) -> None:
    """Prices per million tokens: none negative (a negative price would hide spend)."""
    for model, table in value.items():
        for key, price in table.items():
            if price < 0:
                raise ValueError(f"'prices.{model}.{key}' must be >= 0: {price}")


def parse_hedge_after(spec: str) -> float | None:
    """``model.hedge_after``: ``off`` -> None; ``p75`` -> 75.0. Raises ValueError naming what is accepted."""
    text = spec.strip().lower()
    if text in ("off", "none", "false", ""):
        return None
    if text.startswith("p"):
        try:
            value = float(text[1:])
        except ValueError:
            value = float("nan")
        if 50 <= value < 100:
            return value
    raise ValueError(f"{spec!r} is not off or a percentile from p50 to p99 (p75, p90, ...)")


def _hedge_after(_instance: object, attribute: attrs.Attribute[Any], value: str) -> None:
    """``off``, a percentile ``p50``..``p99`` (or '' on a role: inherit ``model.hedge_after``)."""
    if value == "" and attribute.default == "":
        return
    try:
        parse_hedge_after(value)
    except ValueError as exc:
        raise ValueError(f"'{attribute.name}': {exc}") from None


def _optional(*validators: Callable[..., Any]) -> Callable[..., Any]:
    """``validators`` for a value that may also be None (None = inherit / no limit)."""
    return v.optional(list(validators))


#: what a kept skill is measured on (``search.objectives``); accuracy is maximised, tokens minimised
OBJECTIVES = ("accuracy", "skill_tokens", "rollout_tokens")
#: how the final skill is picked (``search.select``)
SELECT_RULES = ("best", "smallest", "weighted")


def _objectives(_inst: object, attribute: attrs.Attribute[Any], value: tuple[str, ...]) -> None:
    unknown = [o for o in value if o not in OBJECTIVES]
    if unknown or not value:
        raise ValueError(f"'search.{attribute.name}' takes {', '.join(OBJECTIVES)} (got {', '.join(unknown) or 'none'})")


def _weights(_inst: object, attribute: attrs.Attribute[Any], value: dict[str, float]) -> None:
    unknown = [o for o in value if o not in OBJECTIVES]
    if unknown:
        raise ValueError(f"'search.{attribute.name}' weighs {', '.join(OBJECTIVES)} (got {', '.join(unknown)})")


@attrs.frozen(kw_only=True)
class TrainConfig:
    """The outer loop: epochs over the train split, batches, seed."""

    num_epochs: int = attrs.field(default=4, validator=_at_least(1))
    train_size: int = attrs.field(default=0, validator=_at_least(0))
    batch_size: int = attrs.field(default=40, validator=_at_least(1))
    accumulation: int = attrs.field(default=1, validator=_at_least(1))
    seed: int = 42
    max_steps: int = attrs.field(default=0, validator=_at_least(0))


@attrs.frozen(kw_only=True)
class GradientConfig:
    """Reflection: minibatches of trajectories per analyst call and the merge tree."""

    minibatch_size: int = attrs.field(default=8, validator=_at_least(1))
    merge_batch_size: int = attrs.field(default=8, validator=_at_least(2))
    analyst_workers: int = attrs.field(default=16, validator=_at_least(1))
    failure_only: bool = False
    max_trajectory_chars: int = attrs.field(default=6000, validator=_at_least(200))
    min_failure_edits: int = attrs.field(default=0, validator=_at_least(0))
    #: when every patch fits in one merge (at most ``merge_batch_size``), merge failure and
    #: success patches in one call instead of a tree per kind and a final merge of the two
    flat_merge: bool = True


@attrs.frozen(kw_only=True)
class OptimizerConfig:
    """How candidates are built from reflections, and the epoch-boundary updates."""

    learning_rate: int = attrs.field(default=4, validator=_at_least(0))
    min_learning_rate: int = attrs.field(default=2, validator=_at_least(0))
    lr_scheduler: str = attrs.field(default="cosine", validator=_one_of(LR_SCHEDULERS))
    lr_control_mode: str = attrs.field(default="fixed", validator=_one_of(LR_CONTROL_MODES))
    warmup_steps: int = attrs.field(default=0, validator=_at_least(0))
    skill_update_mode: str = "patch"
    use_slow_update: bool = True
    slow_update_samples: int = attrs.field(default=20, validator=_at_least(1))
    slow_update_gate_with_selection: bool = False
    longitudinal_pair_policy: str = attrs.field(default="mixed", validator=_one_of(PAIR_POLICIES))
    use_meta_skill: bool = True
    use_skill_aware_reflection: bool = False
    skill_aware_appendix_source: str = attrs.field(default="both", validator=_one_of(APPENDIX_SOURCES))
    skill_aware_consolidate_threshold: int = attrs.field(default=0, validator=_at_least(0))
    max_skill_chars: int = attrs.field(default=0, validator=_at_least(0))
    max_skill_tokens: int = attrs.field(default=0, validator=_at_least(0))
    rejected_ledger: bool = True
    ignore_rejected: bool = False
    rejected_shown: int = attrs.field(default=8, validator=_at_least(0))
    rewrite_max_tokens: int = attrs.field(default=16000, validator=_at_least(256))
    rewrite_reasoning_effort: str = ""
    block_answer_leaks: bool = True


@attrs.frozen(kw_only=True)
class EvaluationConfig:
    """The validation gate and the final evaluations."""

    use_gate: bool = True
    gate: str = "paired"
    gate_metric: str = attrs.field(default="hard", validator=_one_of(GATE_METRICS))
    gate_mixed_weight: float = attrs.field(default=0.5, validator=[v.ge(0.0), v.le(1.0)])
    gate_repeats: int = attrs.field(default=1, validator=_at_least(1))
    gate_max_repeats: int = attrs.field(default=3, validator=_at_least(1))
    gate_min_items: int = attrs.field(default=0, validator=_at_least(0))
    gate_min_margin: float = attrs.field(default=0.0, validator=v.ge(0.0))
    gate_confidence: float = attrs.field(default=0.95, validator=[v.gt(0.0), v.lt(1.0)])
    gate_no_regression: bool = False
    attribution_rollouts: int = attrs.field(default=24, validator=_at_least(0))
    gate_race_rounds: int = attrs.field(default=5, validator=_at_least(1))
    gate_race_futility: float = attrs.field(default=0.95, validator=[v.gt(0.0), v.lt(1.0)])
    use_semantic_density: bool = False
    semantic_density_weight: float = attrs.field(default=0.05, validator=v.ge(0.0))
    leading_words: tuple[str, ...] = DEFAULT_LEADING_WORDS
    sel_env_num: int = attrs.field(default=0, validator=_at_least(0))
    test_env_num: int = attrs.field(default=0, validator=_at_least(0))
    eval_test: bool = True
    #: at the end, the best skill against the initial one once more on fresh samples of val (other seeds): the
    #: initial skill stays the best unless the gate confirms the gain (a Sleep night's final check)
    final_recheck: bool = False
    #: a split no gate decision uses, on which the final skill is picked among the kept ones: '' (none: the best
    #: gate score wins), ``carved`` (``selection_items`` val items, seeded, taken out of the gate's) or an items file
    selection_split: str = ""
    #: items of the selection split (0 = a third of val when carved; all of a given file)
    selection_items: int = attrs.field(default=0, validator=_at_least(0))


@attrs.frozen(kw_only=True)
class Connection:
    """How to reach one model: the settings a provider adds once, shared by ``[model]``,
    ``[model.optimizer]``, ``[model.target]`` and what a backend receives.

    The merge rule (:func:`merge_connection`): a role's value wins when it is set (not ''
    and not None), else ``[model]``'s; ``options`` merge key by key, the role's on top.
    One exception, from upstream: ``[model].reasoning_effort`` reaches the optimizer only."""

    #: model or deployment name ('' = the backend's ``default_model``)
    model: str = ""
    #: endpoint of OpenAI-compatible servers and Azure ('' = the provider's default)
    base_url: str = ""
    #: the key itself (prefer ``api_key_env`` or ``skillopt keys set``); redacted everywhere
    api_key: str = attrs.field(default="", repr=False)
    #: name of the environment variable holding the key
    api_key_env: str = ""
    #: Azure OpenAI ``api-version``
    api_version: str = ""
    #: Azure OpenAI authentication: ``api_key`` or ``entra``
    auth_mode: str = ""
    #: sampling temperature (None = the provider's default)
    temperature: float | None = attrs.field(default=None, validator=_optional(v.ge(0.0)))
    #: reasoning effort for reasoning models ('' = the provider's default)
    reasoning_effort: str = ""
    #: per-call timeout in seconds (None = inherit)
    timeout_s: float | None = attrs.field(default=None, validator=_optional(_positive()))
    #: backend-specific options (``{n_ctx = 4096}``, ``{structured = "json_object"}``)
    options: dict[str, Any] = attrs.field(factory=dict)


def merge_connection(shared: Connection, role: Connection, role_name: str) -> dict[str, Any]:
    """The connection fields of one role under the merge rule (see :class:`Connection`)."""
    out: dict[str, Any] = {}
    for field in attrs.fields(Connection):
        mine, base = getattr(role, field.name), getattr(shared, field.name)
        if field.name == "options":
            out["options"] = {**base, **mine}
        elif field.name == "reasoning_effort" and role_name != "optimizer":
            out[field.name] = mine
        else:
            out[field.name] = mine if mine not in ("", None) else base
    return out


@attrs.frozen(kw_only=True)
class RoleConfig(Connection):
    """One model role (optimizer or target). Unset values inherit from ``[model]``."""

    backend: str = ""
    max_tokens: int | None = attrs.field(default=None, validator=_optional(_at_least(1)))
    max_in_flight: int | None = attrs.field(default=None, validator=_optional(_at_least(1)))
    #: send a call of this role again once it is out past this percentile of its observed latency ('' = model.hedge_after)
    hedge_after: str = attrs.field(default="", validator=_hedge_after)


@attrs.frozen(kw_only=True)
class ModelConfig(Connection):
    """Backends for both roles plus the shared call pipeline settings."""

    backend: str = "auto"
    local_path: str = ""
    reasoning_effort: str = "medium"
    timeout_s: float = attrs.field(default=120.0, validator=_positive())
    optimizer: RoleConfig = RoleConfig()
    target: RoleConfig = RoleConfig()
    cache: str = attrs.field(default="read-write", validator=_one_of(CACHE_MODES))
    max_retries: int = attrs.field(default=5, validator=_at_least(0))
    max_retry_wait_s: float = attrs.field(default=60.0, validator=v.gt(0))
    schema_retries: int = attrs.field(default=2, validator=_at_least(0))
    max_in_flight: int = attrs.field(default=16, validator=_at_least(1))
    #: hedged requests: ``off`` or a percentile (``p90``) of a role's latencies seen in this run
    hedge_after: str = attrs.field(default="off", validator=_hedge_after)
    prices: dict[str, dict[str, float]] = attrs.field(factory=dict, validator=_prices)


@attrs.frozen(kw_only=True)
class BudgetConfig:
    """Hard limits; the run stops cleanly at a step boundary when one is reached. 0 spends
    nothing (the run stops before its first paid call: ``--max-calls 0`` shows what a run
    would use); a negative or NaN limit is refused."""

    max_cost_usd: float | None = attrs.field(default=None, validator=_optional(_at_least(0)))
    max_calls: int | None = attrs.field(default=None, validator=_optional(_at_least(0)))
    max_tokens: int | None = attrs.field(default=None, validator=_optional(_at_least(0)))


@attrs.frozen(kw_only=True)
class EnvConfig:
    """Keys every env understands; an env plugin subclasses this with its own."""

    name: str = ""
    skill_init: str = ""
    data_path: str = ""
    split_dir: str = ""
    limit: int = attrs.field(default=0, validator=_at_least(0))
    workers: int = attrs.field(default=8, validator=_at_least(1))
    exec_timeout: float = attrs.field(default=120.0, validator=v.gt(0))
    max_completion_tokens: int | None = attrs.field(default=None, validator=_optional(_at_least(1)))


@attrs.frozen(kw_only=True)
class EngineConfig:
    """Where and in what order the engine runs its work. No key changes a run's results,
    so a run may resume under another executor or schedule."""

    #: executor plugin: ``threads`` (built in: threads of this process) or an installed one (``ray``)
    executor: str = "threads"
    #: Ray cluster of the ``ray`` executor: '' = start a local Ray on this machine, ``auto`` =
    #: the cluster this machine joined (``ray start``), ``ray://HOST:10001`` = a remote cluster
    ray_address: str = ""
    #: start work as soon as its inputs exist (the baseline beside step 1's rollouts, the next
    #: step's rollouts once the gate's decision is settled, an accepted step's attribution
    #: beside the next step, the final tests once the last step is decided); the same
    #: results, fewer sequential waves. Off under a hard budget.
    lookahead: bool = True


@attrs.frozen(kw_only=True)
class SearchConfig:
    """How candidates are searched: one current skill, or a pool (``search.strategy``)."""

    #: strategy plugin: ``hill`` (one current skill, the paper's), ``pareto`` (a pool on the per-item front) or
    #: ``frontier`` (a pool on the front of ``search.objectives``)
    strategy: str = "hill"
    #: skills a pool keeps at most
    pool_size: int = attrs.field(default=4, validator=_at_least(1))
    #: candidate skills each step proposes and races on the gate's val items (1 = one, the paper's)
    proposals: int = attrs.field(default=1, validator=_at_least(1))
    #: how a step's proposals differ (``proposals`` > 1), a sampler plugin: ``minibatches`` (each merged from its own
    #: share of the analysts' minibatches) or ``edit-subsets`` (one merge, different subsets of its edits)
    sampler: str = "minibatches"
    #: what kept skills are measured on: ``accuracy`` (val gate score), ``skill_tokens`` (the skill's length),
    #: ``rollout_tokens`` (the target's tokens per val rollout); ``frontier`` keeps the front over them
    objectives: tuple[str, ...] = attrs.field(default=OBJECTIVES, validator=_objectives)
    #: how the final skill is picked among the kept skills: ``best`` (best accuracy), ``smallest`` (the smallest skill
    #: within ``select_epsilon`` of the best accuracy) or ``weighted`` (the largest sum of ``select_weights`` x objective)
    select: str = attrs.field(default="best", validator=_one_of(SELECT_RULES))
    #: accuracy a ``smallest`` pick may give up against the best
    select_epsilon: float = attrs.field(default=0.02, validator=v.ge(0.0))
    #: objective -> weight for ``select = "weighted"`` (tokens count against: give them negative weights)
    select_weights: dict[str, float] = attrs.field(factory=lambda: {"accuracy": 1.0}, validator=_weights)


@attrs.frozen(kw_only=True)
class RunConfig:
    """The whole resolved configuration of one run."""

    model: ModelConfig = ModelConfig()
    train: TrainConfig = TrainConfig()
    gradient: GradientConfig = GradientConfig()
    optimizer: OptimizerConfig = OptimizerConfig()
    evaluation: EvaluationConfig = EvaluationConfig()
    budget: BudgetConfig = BudgetConfig()
    env: EnvConfig = EnvConfig()
    engine: EngineConfig = EngineConfig()
    search: SearchConfig = SearchConfig()
    #: per-plugin typed settings, ``{name: {key: value}}`` (see :mod:`skillopt.plugin_config`)
    gates: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    edit_policies: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    backends: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    observers: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    executors: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    strategies: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    #: tracker observers (``TRACKER = True`` in their module: MLflow, W&B) to switch on for this run
    tracking: list[str] = attrs.field(factory=list)
    out_dir: str = ""
    preset: str = ""


def canonical_update_mode(mode: str) -> str:
    """Map upstream's update-mode aliases to edit-policy plugin names."""
    return UPDATE_MODE_ALIASES.get(mode, mode)
