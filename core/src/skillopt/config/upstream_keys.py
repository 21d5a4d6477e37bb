"""Every key of microsoft/SkillOpt's configs, in every release, and what it becomes here.

The table covers the YAML keys of v0.1.0, v0.2.0 and every later revision, the keys its
config loader maps (``skillopt/config.py``), its legacy flat names (``batch_size``,
``edit_budget`` …, also the flags of ``scripts/train.py``), the Codex aliases its loader
folds (``codex_path``, ``sandbox`` …), the pre-release ``teacher``/``student`` role names
and the keys of open upstream pull requests we follow (``model.claude_trace_to_optimizer``).
A key is one of three things:

* mapped: ``ours`` names our key. ``model.ROLE.x`` means "``x`` of every role that runs the
  backend family ``family``" (``role`` narrows it to one role);
* accepted and ignored: ``ours`` is None and the value is one of ``accept`` (upstream's
  shipped value, or ``ANY`` when upstream ignores the key itself);
* refused: any other value, with the ``instead`` sentence saying what to write.

:mod:`skillopt.config.upstream_map` applies it; :mod:`skillopt.config.upstream_doc` prints it.
"""

from __future__ import annotations

from typing import Any

import attrs

#: ``accept`` value meaning "every value" (upstream ignores the key too)
ANY = ("<any value>",)
#: the role models upstream's base config ships: a role on a non-OpenAI backend reads them as "unset"
SENTINEL_MODELS = ("gpt-5.4", "gpt-5.5")


@attrs.frozen
class Rule:
    """One upstream key (dotted, as in its structured YAML)."""

    upstream: str
    #: our dotted key; ``model.ROLE.`` = each role of ``family``; ``special:NAME`` = a handler
    ours: str | None
    #: upstream backend families the key configures ('' = not backend-specific)
    family: tuple[str, ...] = ()
    #: only this role ('' = every role of the family)
    role: str = ""
    #: for ``ours=None``: values accepted and ignored (``ANY``: all)
    accept: tuple[Any, ...] = ()
    #: for ``ours=None``: the refusal's advice (what to write instead)
    instead: str = ""
    note: str = ""
    #: ``int`` / ``float`` / ``bool``: upstream's base config ships some numbers as strings
    cast: str = ""


SAME = (
    "train.num_epochs", "train.train_size", "train.batch_size", "train.accumulation", "train.seed", "train.max_steps",
    "gradient.minibatch_size", "gradient.merge_batch_size", "gradient.analyst_workers", "gradient.failure_only",
    "optimizer.learning_rate", "optimizer.min_learning_rate", "optimizer.lr_scheduler", "optimizer.lr_control_mode",
    "optimizer.skill_update_mode", "optimizer.use_slow_update", "optimizer.slow_update_samples",
    "optimizer.slow_update_gate_with_selection", "optimizer.longitudinal_pair_policy", "optimizer.use_meta_skill",
    "optimizer.use_skill_aware_reflection", "optimizer.skill_aware_appendix_source",
    "optimizer.skill_aware_consolidate_threshold", "evaluation.use_gate", "evaluation.gate_metric",
    "evaluation.gate_mixed_weight", "evaluation.use_semantic_density", "evaluation.semantic_density_weight",
    "evaluation.leading_words", "evaluation.sel_env_num", "evaluation.test_env_num", "evaluation.eval_test",
    "model.reasoning_effort", "env.name", "env.split_dir", "env.data_path", "env.exec_timeout", "env.workers", "env.limit",
    "env.max_completion_tokens",
)

AZURE = ("openai_chat",)
QWEN = ("qwen_chat",)
MINIMAX = ("minimax_chat",)
CODEX = ("codex_exec",)
CLAUDE_CODE = ("claude_code_exec",)
CURSOR = ("cursor_exec",)
COPILOT = ("copilot_chat", "copilot_exec")

_ROLES = (("", ""), ("optimizer_", "optimizer"), ("target_", "target"))
_AZURE_FIELDS = (
    ("endpoint", "model.ROLE.base_url", ""),
    ("api_version", "model.ROLE.api_version", ""),
    ("api_key", "model.ROLE.api_key", "better: AZURE_OPENAI_API_KEY"),
    ("auth_mode", "model.ROLE.auth_mode", "azure_cli, managed_identity (aad, azure_ad), api_key; openai_compatible makes the role `openai-compatible`"),
    ("ad_scope", "model.ROLE.options.token_scope", "the shipped scope is ours"),
    ("managed_identity_client_id", "model.ROLE.options.managed_identity_client_id", "a user-assigned identity"),
)
_QWEN_FIELDS = (
    ("base_url", "model.ROLE.base_url", ""),
    ("api_key", "model.ROLE.api_key", "better: QWEN_CHAT_API_KEY"),
    ("temperature", "model.ROLE.temperature", ""),
    ("timeout_seconds", "model.ROLE.timeout_s", ""),
    ("max_tokens", "model.ROLE.max_tokens", ""),
)

RULES: tuple[Rule, ...] = (
    *(Rule(key, key) for key in SAME),
    Rule("optimizer.edit_budget", "optimizer.learning_rate", note="upstream's flat name"),
    Rule("optimizer.min_edit_budget", "optimizer.min_learning_rate", note="upstream's flat name"),
    Rule("optimizer.meta_learning_rate", None, accept=ANY, note="mapped to `meta_edit_budget` upstream, which nothing reads"),
    Rule("optimizer.meta_edit_budget", None, accept=ANY, note="read nowhere upstream"),
    Rule("optimizer.use_meta_reflect", None, accept=(False,), instead="it was removed upstream before v0.1.0; remove it",
         note="pre-release"),
    Rule("gradient.max_analyst_rounds", None, accept=ANY, note="retired upstream, which warns and ignores it"),
    Rule("gradient.use_deep_reflect", None, accept=(False,), instead="it was removed upstream before v0.1.0; remove it",
         note="pre-release"),
    Rule("gradient.deep_reflect_failures", None, accept=ANY, note="pre-release; read only with use_deep_reflect"),
    Rule("gradient.deep_reflect_successes", None, accept=ANY, note="pre-release; read only with use_deep_reflect"),
    Rule("train.steps_per_epoch", None, accept=ANY, note="upstream computes it from train_size and batch_size, overwriting any value"),
    *(Rule(f"train.mem0_{key}", None, accept=(value,), note="open upstream PR #118, never released",
           instead="SkillOpt uploads nothing to a memory service; remove the train.mem0_* keys")
      for key, value in (("enabled", False), ("api_key", ""), ("namespace", ""), ("retrieval_enabled", False),
                         ("retrieval_limit", 5), ("timeout_seconds", 5.0), ("max_chars", 4000))),
    # ---- roles and backends (resolved together: see upstream_map.resolve_roles)
    Rule("model.backend", "special:backends", note="upstream's shorthand: fills the roles still at `openai_chat` (table below)"),
    Rule("model.optimizer_backend", "special:backends", note="`openai_chat` (shipped) = whatever `model.backend` says"),
    Rule("model.target_backend", "special:backends", note="as for the optimizer; exec harnesses become `options.mode = \"agent\"`"),
    Rule("model.optimizer", "model.optimizer.model", note="a deployment; `gpt-5.4`/`gpt-5.5` on a Claude/Qwen/MiniMax/Cursor/Copilot role = that backend's default, as upstream"),
    Rule("model.target", "model.target.model", note="as for the optimizer"),
    Rule("model.rewrite_reasoning_effort", "optimizer.rewrite_reasoning_effort"),
    Rule("model.rewrite_max_completion_tokens", "optimizer.rewrite_max_tokens"),
    # ---- Azure OpenAI (openai_chat roles), shared and per role; legacy azure_* names below them
    *(Rule(f"model.{prefix}azure_openai_{key}", ours, family=AZURE, role=role, note=note)
      for prefix, role in _ROLES for key, ours, note in _AZURE_FIELDS),
    *(Rule(f"model.azure_{key}", f"model.ROLE.{ours}", family=AZURE, note="legacy name, used when azure_openai_* is blank")
      for key, ours in (("endpoint", "base_url"), ("api_version", "api_version"), ("api_key", "api_key"))),
    # ---- Qwen (qwen_chat roles: `openai-compatible` with options.provider = "qwen")
    *(Rule(f"model.{prefix}qwen_chat_{key}", ours, family=QWEN, role=role, note=note)
      for prefix, role in _ROLES for key, ours, note in _QWEN_FIELDS),
    *(Rule(f"model.{prefix}qwen_chat_{key}", "special:qwen_thinking", family=QWEN, role=role,
           note="`enabled`/`disabled` send `chat_template_kwargs.enable_thinking` (options.thinking_mode); `server_default` sends nothing"
           if key == "thinking_mode" else "legacy boolean of thinking_mode; a conflict with it is refused")
      for prefix, role in _ROLES for key in ("thinking_mode", "enable_thinking")),
    # ---- MiniMax (minimax_chat roles: `openai-compatible` with options.provider = "minimax")
    Rule("model.minimax_region", "model.ROLE.options.region", family=MINIMAX, note="global_en → api.minimax.io, cn_zh → api.minimaxi.com; a base URL wins"),
    Rule("model.minimax_base_url", "model.ROLE.base_url", family=MINIMAX),
    Rule("model.minimax_api_key", "model.ROLE.api_key", family=MINIMAX, note="better: MINIMAX_API_KEY"),
    Rule("model.minimax_model", "model.ROLE.model", family=MINIMAX, note="the MiniMax roles' model (upstream shares one)"),
    Rule("model.minimax_temperature", "model.ROLE.temperature", family=MINIMAX, cast="float"),
    Rule("model.minimax_max_tokens", "model.ROLE.max_tokens", family=MINIMAX, cast="int"),
    Rule("model.minimax_enable_thinking", "model.ROLE.options.thinking", family=MINIMAX, cast="bool",
         note="sent as `thinking.type` adaptive/disabled; always adaptive for MiniMax-M2*"),
    *(Rule(f"model.{role}_minimax_{key}", ours, family=MINIMAX, role=role)
      for role in ("optimizer", "target") for key, ours in (("base_url", "model.ROLE.base_url"), ("api_key", "model.ROLE.api_key"))),
    # ---- Codex (codex_exec roles: `codex-cli`; the target in agent mode)
    Rule("model.codex_exec_path", "model.ROLE.options.path", family=CODEX, accept=("codex",), note="`codex` (shipped) = find it on PATH"),
    Rule("model.codex_exec_sandbox", "model.ROLE.options.sandbox", family=CODEX, note="read-only, workspace-write, danger-full-access"),
    Rule("model.codex_exec_profile", None, family=CODEX, accept=("",),
         instead="profiles are not passed to Codex here; set the role's model and reasoning_effort keys, or CODEX_HOME"),
    Rule("model.codex_exec_full_auto", None, accept=ANY, note="deprecated and ignored upstream"),
    Rule("model.codex_exec_reasoning_effort", "model.ROLE.reasoning_effort", family=CODEX, accept=("none",), note="`none` (shipped) sends none"),
    Rule("model.codex_exec_use_sdk", None, family=CODEX, accept=("auto", "cli", "", None),
         instead="the Codex CLI is what runs here (no SDK path); write `auto` or `cli`"),
    Rule("model.codex_exec_network_access", None, family=CODEX, accept=(False, None),
         instead="rollouts run without network access here; remove it"),
    Rule("model.codex_exec_web_search", None, family=CODEX, accept=(False, None),
         instead="rollouts run without web search here; remove it"),
    Rule("model.codex_exec_approval_policy", None, family=CODEX, accept=("never", ""),
         instead="a headless run never asks for approval here; write `never`"),
    Rule("model.codex_trace_to_optimizer", "model.target.options.trace_to_optimizer", family=CODEX, role="target",
         note="the agent's tool calls and results reach reflection (on by default)"),
    # ---- Claude Code (claude_code_exec roles: `claude-cli` in agent mode)
    Rule("model.claude_code_exec_path", "model.ROLE.options.path", family=CLAUDE_CODE, accept=("claude",), note="`claude` (shipped) = find it on PATH"),
    Rule("model.claude_code_exec_profile", None, family=CLAUDE_CODE, accept=("",),
         instead="profiles are not passed to Claude Code here; set the role's model and reasoning_effort keys, or CLAUDE_CONFIG_DIR"),
    Rule("model.claude_code_exec_use_sdk", None, family=CLAUDE_CODE, accept=("auto", "cli", "", None),
         instead="the Claude Code CLI is what runs here (no Agent SDK path); write `auto` or `cli`"),
    Rule("model.claude_code_exec_effort", "model.ROLE.reasoning_effort", family=CLAUDE_CODE, note="sent as `--effort`"),
    Rule("model.claude_code_exec_max_thinking_tokens", None, family=CLAUDE_CODE, accept=(16384,),
         instead="set the role's reasoning_effort (Claude Code's --effort sizes its thinking)"),
    Rule("model.claude_trace_to_optimizer", "model.target.options.trace_to_optimizer", family=CLAUDE_CODE, role="target",
         note="upstream PR #238; the agent's tool calls and results reach reflection (on by default)"),
    # ---- Cursor (cursor_exec roles: `cursor-cli` in agent mode)
    Rule("model.cursor_exec_path", "model.ROLE.options.path", family=CURSOR),
    Rule("model.cursor_exec_sandbox", None, family=CURSOR, accept=("", "enabled"),
         instead="the Cursor agent always runs sandboxed here; write `enabled` or remove it"),
    # ---- Copilot (copilot_chat / copilot_exec roles: `copilot-cli`)
    Rule("model.copilot_exec_path", "model.ROLE.options.path", family=COPILOT),
    Rule("model.copilot_exec_home", "model.ROLE.options.home", family=COPILOT, note="COPILOT_HOME of the CLI"),
    Rule("model.copilot_exec_allow_all_tools", "model.ROLE.options.allow_all_tools", family=("copilot_exec",), accept=(False, None),
         note="opt-in: `--allow-all-tools` for the agent (tools stay scoped by `options.available_tools`)"),
    Rule("model.copilot_chat_optimizer_model", "model.optimizer.model", family=("copilot_chat",), role="optimizer"),
    Rule("model.copilot_chat_target_model", "model.target.model", family=("copilot_chat",), role="target"),
    Rule("model.copilot_chat_timeout", "model.ROLE.timeout_s", family=("copilot_chat",), accept=(0, None), note="seconds; 0 (shipped) = the default"),
    # ---- env section (an env's own keys pass to its [env] section)
    Rule("env.skill_init", "env.skill_init", note="an upstream repository path that does not exist here means the env's own initial skill"),
    Rule("env.out_root", "out_dir"),
    Rule("env.split_mode", None, accept=("split_dir", "ratio"), instead="give env.split_dir (or env.data_path) instead",
         note="implied: `env.split_dir` or `env.data_path`, whichever is set"),
    Rule("env.split_output_dir", None, accept=("",), instead="splits are not written out here; remove it"),
    *(Rule(f"human_feedback.{key}", None, accept=(value,),
           instead="there is no interactive human gate here (`skillopt sleep` stages skills for review); remove the human_feedback section")
      for key, value in (("enabled", False), ("timeout_seconds", 0), ("on_timeout", "fallback_to_gate"), ("max_retries_per_step", 3))),
)

BY_KEY: dict[str, Rule] = {rule.upstream: rule for rule in RULES}

#: upstream's legacy flat names (its flat YAML format, ``scripts/train.py`` flags and flat
#: ``--cfg-options``) → the structured key; any other flat name is an ``env.`` key, as upstream
FLAT: dict[str, str] = {
    "model_backend": "model.backend", "backend": "model.backend",
    "optimizer_model": "model.optimizer", "target_model": "model.target",
    "edit_budget": "optimizer.learning_rate", "min_edit_budget": "optimizer.min_learning_rate",
    "meta_edit_budget": "optimizer.meta_learning_rate",
    "env": "env.name", "skill_init": "env.skill_init", "out_root": "env.out_root",
    **{rule.upstream.split(".", 1)[1]: rule.upstream for rule in RULES
       if rule.upstream.split(".")[0] in ("model", "train", "gradient", "optimizer", "evaluation")
       and rule.upstream not in ("model.optimizer", "model.target", "model.backend", "train.max_steps")},
}
#: Codex aliases upstream's loader folds into the canonical keys (in the model section or flat)
CODEX_ALIASES = {"codex_path": "codex_exec_path", "codex_cli_bin": "codex_exec_path", "codex_bin": "codex_exec_path",
                 "sandbox": "codex_exec_sandbox", "codex_sandbox": "codex_exec_sandbox"}
#: pre-release role names (before 2026-05-24): teacher = optimizer, student = target
ROLE_RENAMES = {"teacher": "optimizer", "student": "target"}

#: upstream backend names → its canonical names (``normalize_backend_name``)
UPSTREAM_BACKENDS = {
    **dict.fromkeys(("azure", "azure_openai", "azure-openai"), "azure_openai"), "openai_chat": "openai_chat",
    **dict.fromkeys(("openai", "codex"), "codex"), "codex_exec": "codex_exec",
    **dict.fromkeys(("claude", "claude_chat", "anthropic"), "claude_chat"), "claude_code_exec": "claude_code_exec",
    **dict.fromkeys(("cursor", "cursor_agent", "cursor_exec"), "cursor_exec"),
    **dict.fromkeys(("copilot", "copilot_cli", "github_copilot", "copilot_chat"), "copilot_chat"), "copilot_exec": "copilot_exec",
    **dict.fromkeys(("qwen", "qwen_chat"), "qwen_chat"), **dict.fromkeys(("minimax", "minimax_chat"), "minimax_chat"),
    **dict.fromkeys(("openai_compatible", "openai_compatible_chat", "openai-compatible", "compat"), "openai_compatible"),
}
#: ``model.backend`` shorthand → (optimizer, target) for roles still at ``openai_chat`` (upstream's train/eval scripts)
SHORTHAND = {
    "claude_chat": ("claude_chat", "claude_chat"), "codex": ("codex_exec", "codex_exec"), "codex_exec": ("codex_exec", "codex_exec"),
    "claude_code_exec": ("openai_chat", "claude_code_exec"), "cursor_exec": ("openai_chat", "cursor_exec"),
    "copilot_chat": ("copilot_chat", "copilot_chat"), "copilot_exec": ("openai_chat", "copilot_exec"),
    "qwen_chat": ("openai_chat", "qwen_chat"), "minimax_chat": ("openai_chat", "minimax_chat"),
    "openai_compatible": ("openai_compatible", "openai_compatible"),
}
#: upstream canonical backend of a role → (our backend, options the role gets)
OURS: dict[str, tuple[str, dict[str, Any]]] = {
    "openai_chat": ("azure-openai", {}), "azure_openai": ("azure-openai", {}),
    "openai_compatible": ("openai-compatible", {}),
    "qwen_chat": ("openai-compatible", {"provider": "qwen"}), "minimax_chat": ("openai-compatible", {"provider": "minimax"}),
    "claude_chat": ("claude-cli", {}), "claude_code_exec": ("claude-cli", {"mode": "agent"}),
    "codex_exec": ("codex-cli", {}), "cursor_exec": ("cursor-cli", {"mode": "agent"}),
    "copilot_chat": ("copilot-cli", {}), "copilot_exec": ("copilot-cli", {"mode": "agent"}),
}
#: azure_openai_auth_mode values → ours (``openai_compatible`` switches the role's backend instead)
AUTH_MODES = {"azure_cli": "azure_cli", "managed_identity": "managed_identity", "aad": "managed_identity",
              "azure_ad": "managed_identity", "api_key": "api_key", "key": "api_key"}
COMPAT_AUTH = ("openai_compatible", "compat", "openai")
