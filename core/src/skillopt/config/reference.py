"""What every config key means: the source of ``skillopt config keys`` and of
``docs/configuration.md`` (a test keeps both in step with the schema)."""

from __future__ import annotations

from typing import Any

from skillopt.config.schema import RunConfig
from skillopt.serde import attrs_class_of, field_types

ROLE_HELP = {
    "backend": "backend of this role ('' = model.backend)",
    "model": "model / deployment of this role ('' = model.model, else the backend's default)",
    "base_url": "endpoint of this role ('' = model.base_url)",
    "api_key": "key of this role (prefer api_key_env, an env var or `skillopt keys set`; redacted everywhere)",
    "api_key_env": "name of the env var holding this role's key",
    "api_version": "Azure OpenAI api-version of this role ('' = model.api_version)",
    "auth_mode": "Azure OpenAI auth of this role ('' = model.auth_mode)",
    "temperature": "sampling temperature of this role (None = model.temperature / provider default)",
    "max_tokens": "max output tokens of this role's calls (overrides the engine's per-call value)",
    "reasoning_effort": "reasoning effort for reasoning models ('' = model.reasoning_effort for the optimizer)",
    "timeout_s": "per-call timeout of this role in seconds (None = model.timeout_s)",
    "max_in_flight": "calls in flight for this role's backend (None = model.max_in_flight)",
    "hedge_after": "hedged requests of this role: off or a percentile such as p90 ('' = model.hedge_after)",
    "options": "backend-specific options, merged over model.options",
}

HELP = {
    "model.backend": "backend for both roles; 'auto' = the first configured provider, else the embedded local model",
    "model.model": "model for both roles ('' = the backend's default)",
    "model.base_url": "endpoint for OpenAI-compatible servers and Azure",
    "model.api_key": "key for both roles (prefer api_key_env or `skillopt keys set`; redacted everywhere)",
    "model.api_key_env": "name of the env var holding the key",
    "model.api_version": "Azure OpenAI api-version for both roles",
    "model.auth_mode": "Azure OpenAI auth for both roles: api_key or entra",
    "model.local_path": "GGUF file for the local backend ('' = bundled SmolLM2-135M-Instruct)",
    "model.temperature": "sampling temperature (None = provider default; the local backend uses 0)",
    "model.reasoning_effort": "reasoning effort of optimizer calls on reasoning models",
    "model.timeout_s": "per-call timeout in seconds",
    "model.options": "backend-specific options shared by both roles (e.g. {n_ctx = 4096}, {structured = \"json_object\"})",
    "model.cache": "call cache: read-write, off, or replay (answer only from the cache)",
    "model.max_retries": "retries of rate-limited or transient failures (auth and bad requests never retry)",
    "model.max_retry_wait_s": "the longest one retry waits when a provider's Retry-After asks for more (seconds); "
                              "a wait of a second or more is said on the console",
    "model.schema_retries": "re-asks when a reply breaks the requested JSON schema",
    "model.max_in_flight": "calls in flight per backend endpoint, shared by every thread of the run",
    "model.hedge_after": "hedged requests: off, or a percentile (p75, p90, ...) of the latencies each role's calls "
                         "showed in this run (after 8 replies): a call still out past it is sent once more and the "
                         "first reply wins; both copies are billed and count against budgets and max_in_flight",
    "model.prices": "USD per million tokens by model: {\"gpt-x\" = {input_per_mtok = 1.0, output_per_mtok = 4.0}}",
    "train.num_epochs": "passes over the train split",
    "train.train_size": "expected train split size (0 = infer; a mismatch is an error)",
    "train.batch_size": "items rolled out per micro-batch",
    "train.accumulation": "micro-batches per step (more trajectories feed one update)",
    "train.seed": "seed of shuffles, batches and per-item rollout seeds",
    "train.max_steps": "stop after this many steps (0 = no limit)",
    "gradient.minibatch_size": "trajectories per analyst call",
    "gradient.merge_batch_size": "fan-in k of the hierarchical merge (>= 2)",
    "gradient.analyst_workers": "parallel analyst and merge calls",
    "gradient.failure_only": "reflect on failures only (no success analysts)",
    "gradient.max_trajectory_chars": "characters of one trajectory shown to an analyst (at most: a long task prompt keeps its question and the passages holding the gold answer, the prediction or the question's rare words)",
    "gradient.min_failure_edits": "edits a failure analyst must propose (0 = it may propose none; small models need 1)",
    "gradient.flat_merge": "when all patches fit in one merge (<= merge_batch_size), merge failure and success patches in one call (one level) instead of a tree per kind plus a final merge (two levels)",
    "optimizer.learning_rate": "maximum edits per step (the edit budget B)",
    "optimizer.min_learning_rate": "floor of the linear and cosine schedules",
    "optimizer.lr_scheduler": "constant, linear, cosine, or autonomous (no clipping)",
    "optimizer.lr_control_mode": "fixed (schedule), autonomous (the optimizer picks the count), none (no clipping)",
    "optimizer.warmup_steps": "linear warmup from min_learning_rate over this many steps",
    "optimizer.skill_update_mode": "edit policy: patch, rewrite, full-rewrite (or any installed policy)",
    "optimizer.use_slow_update": "epoch-end longitudinal guidance block at the end of the skill",
    "optimizer.slow_update_samples": "train items compared under last epoch's and this epoch's skill",
    "optimizer.slow_update_gate_with_selection": "gate the slow update (else force-accept and re-measure its score)",
    "optimizer.longitudinal_pair_policy": "slow-update pairs: mixed, changed (top up with changed items), unchanged",
    "optimizer.use_meta_skill": "optimizer-side guidance learnt across epochs (never in the deployed skill)",
    "optimizer.use_skill_aware_reflection": "route execution lapses to a gated appendix instead of body edits",
    "optimizer.skill_aware_appendix_source": "who may write appendix notes: both or failure_only",
    "optimizer.skill_aware_consolidate_threshold": "consolidate the appendix above this many notes (0 = never)",
    "optimizer.max_skill_chars": "refuse candidates longer than this (0 = no limit)",
    "search.strategy": "search strategy plugin: hill (one current skill, the paper's), pareto (a pool of skills on the "
                       "per-item Pareto front of val, parents drawn by the items they win, merged at epoch ends) or "
                       "frontier (a pool on the front of search.objectives)",
    "search.pool_size": "pareto, frontier: skills the pool keeps at most",
    "search.proposals": "candidates each step proposes from its analysts' patches; more than 1 races them on the gate's "
                        "val items (paired, successive halving) and gates the winner; the losers go to the rejected-edit "
                        "ledger (1 = one candidate, the paper's)",
    "search.sampler": "how a step's proposals differ (a sampler plugin): minibatches (each merged from its own share of "
                      "the analysts' minibatches) or edit-subsets (one merge; the ranked edits, then other subsets)",
    "search.objectives": "what kept skills are measured on: accuracy (val gate score), skill_tokens (its length, ~4 "
                         "characters a token), rollout_tokens (the target's tokens per val rollout); frontier keeps their front",
    "search.select": "how the final skill is picked among the kept ones (a pool's members, hill's every accepted skill): "
                     "best (most accurate), smallest (shortest within select_epsilon of the best) or weighted "
                     "(largest sum of select_weights x objective); on evaluation.selection_split when set",
    "search.select_epsilon": "smallest: accuracy it may give up against the best",
    "search.select_weights": "weighted: objective -> weight (give token objectives negative weights)",
    "evaluation.selection_split": "a split no gate decision uses, on which the final skill is picked: '' (none), carved "
                                  "(selection_items val items taken out of the gate's, seeded) or an items file in the "
                                  "env's format; the summary says so; the lift CI stays on test",
    "evaluation.selection_items": "items of the selection split (0 = a third of val when carved; all of a file)",
    "optimizer.rejected_ledger": "remember rejected candidates across runs (per env and its settings, target model and "
                                 "initial skill, under the user data dir): analysts see them and an identical candidate "
                                 "under the same gate is not scored again",
    "optimizer.ignore_rejected": "start without earlier runs' rejections (--ignore-rejected): analysts are not shown them "
                                 "and no candidate is refused; this run's rejections are still recorded",
    "optimizer.rejected_shown": "rejected edits from earlier runs shown to analysts (0 = none)",
    "optimizer.max_skill_tokens": "the skill's length budget in tokens (~4 characters each), told to every optimizer "
                                  "stage; the gate refuses a candidate over it unless it shortens an over-budget skill "
                                  "(0 = no budget)",
    "optimizer.rewrite_max_tokens": "output cap of calls that write a whole skill (rewrite, full-rewrite)",
    "optimizer.rewrite_reasoning_effort": "reasoning effort of those calls ('' = the optimizer's)",
    "optimizer.block_answer_leaks": "refuse edits that copy a training item's gold answer into the skill",
    "evaluation.use_gate": "gate candidates on val (false = force-accept, still measured)",
    "evaluation.gate": "gate plugin: paired (default: paired test in looks) or strict (the paper's: higher mean)",
    "evaluation.gate_metric": "hard, soft or mixed",
    "evaluation.gate_mixed_weight": "weight of soft in the mixed metric",
    "evaluation.gate_repeats": "rollouts per val item in the gate's first look (the paired gate averages repeats)",
    "evaluation.gate_max_repeats": "paired gate: repeats per item it may add while undecided (racing; 1 = one look)",
    "evaluation.gate_min_items": "fewest val items valid on both sides for a decision (0 = half of them); fewer is no decision",
    "evaluation.gate_min_margin": "minimum gain over the current skill to accept",
    "evaluation.attribution_rollouts": "after an accepted step, val rollouts spent finding which edit changed which "
                                       "item (leave-one-out on the flipped items; a leave-one-out skill the gate already scored, as in a step of one "
                                       "edit, costs none; 0 = off)",
    "evaluation.gate_race_rounds": "paired gate: the candidate's first pass runs in this many rounds of val items, "
                                   "stopping early on a clear loser or winner (1 = every item at once; a round is at least max(8, env.workers) items)",
    "evaluation.gate_race_futility": "paired gate: an early round rejects when the candidate is worse with a one-sided "
                                     "p-value of at most this times the share of items seen (higher saves more calls "
                                     "and loses more real gains)",
    "evaluation.gate_confidence": "paired gate: 1 - false-accept rate it allows, split over its looks",
    "evaluation.gate_no_regression": "paired gate: reject if any val item gets worse",
    "evaluation.use_semantic_density": "add a leading-word density bonus to the gate score",
    "evaluation.semantic_density_weight": "weight of that bonus",
    "evaluation.leading_words": "words counted by the density bonus",
    "evaluation.sel_env_num": "val items used by the gate (0 = all; else a seeded stratified subset)",
    "evaluation.test_env_num": "test items of the final evaluation (0 = all)",
    "evaluation.eval_test": "evaluate initial, best and final skills on test at the end",
    "evaluation.final_recheck": "recheck the best skill against the initial one on fresh val samples at the end; keep the initial unless confirmed",
    "budget.max_cost_usd": "stop cleanly once this many USD are spent",
    "budget.max_calls": "stop cleanly after this many requests to the providers (retries included; holds across kills)",
    "budget.max_tokens": "stop cleanly after this many tokens",
    "env.name": "the env (see `skillopt envs`)",
    "env.skill_init": "starting skill: a file, or an Agent Skills folder (SKILL.md, references/*.md, scripts/*) ('' = the env's packaged initial.md)",
    "env.data_path": "the env's real data (file or folder; '' = its bundled sample)",
    "env.split_dir": "folder with train/val/test item files",
    "env.limit": "use only the first N items of each split (0 = all)",
    "env.workers": "parallel rollouts (evaluations running side by side share them)",
    "env.exec_timeout": "seconds an env may spend on one rollout (the engine adds the model calls' retry time before it gives up)",
    "env.max_completion_tokens": "max tokens of a target reply (None = the env's default)",
    "engine.executor": "where rollouts run: threads (built in, this process) or an installed executor such as ray (skillopt-executors-ray, docs/ray.md); a run may resume under another",
    "engine.ray_address": "Ray cluster of the ray executor: '' = start a local Ray, auto = the cluster this machine joined (ray start), ray://HOST:10001 = a remote one",
    "engine.lookahead": "start work as soon as its inputs exist (the baseline beside step 1's rollouts, the next step's rollouts once the gate's decision is settled by the val answers in hand, attribution beside the next step, the final tests once the last step is decided): same results, fewer sequential waves; off under a hard budget",
    "gates": "typed settings of gate plugins, [gates.NAME] (the selected gate's defaults filled in)",
    "edit_policies": "typed settings of edit-policy plugins, [edit_policies.NAME] (the selected policy's defaults filled in)",
    "backends": "typed settings of backend plugins, [backends.NAME]",
    "observers": "typed settings of observer plugins, [observers.NAME]",
    "executors": "typed settings of executor plugins, [executors.NAME] (the selected executor's defaults filled in)",
    "strategies": "typed settings of search-strategy plugins, [strategies.NAME] (the selected strategy's defaults filled in)",
    "tracking": "experiment trackers to log this run to, by observer name (`mlflow`, `wandb`); a tracker also runs when its own environment variable asks for it",
    "out_dir": "run directory ('' = a new timestamped folder under the user data dir)",
    "preset": "env preset applied under your settings ('' = the env's choice: small on the local model)",
}


def schema_keys(cls: type = RunConfig, prefix: str = "") -> list[tuple[str, Any, Any]]:
    """(dotted key, type, default) for every leaf key of the schema."""
    import attrs

    out = []
    defaults = {f.name: f.default for f in attrs.fields(cls)}
    for name, tp in field_types(cls).items():
        sub = attrs_class_of(tp)
        if sub is not None:
            out += schema_keys(sub, f"{prefix}{name}.")
            continue
        default = defaults[name]
        if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
            default = default.factory()
        out.append((prefix + name, tp, default))
    return out


def help_for(key: str) -> str:
    if key in HELP:
        return HELP[key]
    parts = key.split(".")
    if len(parts) == 3 and parts[0] == "model" and parts[1] in ("optimizer", "target"):
        return ROLE_HELP.get(parts[2], "")
    return ""


def type_name(tp: Any) -> str:
    if isinstance(tp, type):
        return tp.__name__
    text = str(tp).replace("typing.", "")
    return text.replace("NoneType", "None")


def render_markdown() -> str:
    lines = [
        "# Configuration keys",
        "",
        "Generated from the schema (`python -m skillopt.config.reference > docs/configuration.md`).",
        "Set keys in a TOML file (`--config`, one `[section]` per prefix) or with",
        "`--set section.key=value`. Defaults are upstream SkillOpt's paper settings except the gate (`paired`;",
        "`--preset paper` restores the paper's `strict`); an env may",
        "ship presets (`--preset`) and declares its own `env.*` keys (`skillopt config show --env NAME`).",
        "Numbers are checked when the config is read: a float key refuses `nan` and `inf` (`null` means",
        "unset where the type allows None), timeouts must be above zero, budgets at least 0 (0 spends nothing),",
        "token and in-flight limits at least 1, temperatures and prices at least 0. A config file (`--config`, and each `_base_` of",
        "a YAML one) must be a regular file of at most 1 MiB holding at most 100,000 values (YAML aliases",
        "expanded) nested at most 32 deep; a `_base_` chain may be 32 files deep and read 128 files in all.",
        "",
        "| key | type | default | meaning |",
        "|---|---|---|---|",
    ]
    for key, tp, default in schema_keys():
        shown = f'"{default}"' if isinstance(default, str) else repr(default)
        lines.append(f"| `{key}` | {type_name(tp).replace('|', 'or')} | `{shown}` | {help_for(key)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_markdown(), end="")
