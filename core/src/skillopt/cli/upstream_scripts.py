"""``skillopt-train`` and ``skillopt-eval``: upstream's ``scripts/train.py`` and
``scripts/eval_only.py`` command lines, run by ``skillopt run`` / ``skillopt eval``.

Every flag of every upstream revision of those scripts is taken: ``--config``,
``--cfg-options a=1 b=2`` (several pairs after one flag), and the legacy flat flags
(``--batch_size 8``, ``--backend codex``, ``--out_root DIR`` …), each turned into the
``--cfg-options`` pair upstream makes of it (``train.batch_size=8``; a name upstream does
not map is an ``env.`` key, as upstream), after the user's own pairs so that a flag wins,
as upstream. The YAML file is then read by :mod:`skillopt.config.upstream`, which maps
or refuses every key. ``skillopt-eval --split`` takes upstream's names (``valid_seen`` =
val, ``valid_unseen`` = test, ``all`` = each split in turn).
"""

from __future__ import annotations

import argparse
import sys

#: the flat flags of every revision of upstream's train.py and eval_only.py (besides --config, --cfg-options, --skill, --split)
LEGACY_FLAGS = (
    "accumulation", "analyst_workers", "azure_api_key", "azure_api_version", "azure_endpoint", "azure_openai_ad_scope",
    "azure_openai_api_key", "azure_openai_api_version", "azure_openai_auth_mode", "azure_openai_endpoint",
    "azure_openai_managed_identity_client_id", "backend", "batch_size", "claude_code_exec_effort",
    "claude_code_exec_max_thinking_tokens", "claude_code_exec_path", "claude_code_exec_profile",
    "claude_code_exec_use_sdk", "codex_exec_approval_policy", "codex_exec_full_auto", "codex_exec_network_access",
    "codex_exec_path", "codex_exec_profile", "codex_exec_reasoning_effort", "codex_exec_sandbox", "codex_exec_use_sdk",
    "codex_exec_web_search", "codex_trace_to_optimizer", "copilot_chat_optimizer_model", "copilot_chat_target_model",
    "copilot_chat_timeout", "copilot_exec_allow_all_tools", "copilot_exec_home", "copilot_exec_path",
    "cursor_exec_path", "cursor_exec_sandbox", "data_path", "data_root", "edit_budget", "env", "eval_test",
    "failure_only", "image_detail", "judge_max_completion_tokens", "judge_model", "judge_retries", "limit",
    "longitudinal_pair_policy", "lr_control_mode", "lr_scheduler", "max_analyst_rounds", "max_api_workers",
    "max_steps", "max_turns", "merge_batch_size", "min_edit_budget", "minibatch_size", "minimax_api_key",
    "minimax_base_url", "minimax_enable_thinking", "minimax_max_tokens", "minimax_model", "minimax_region",
    "minimax_temperature", "mode", "num_epochs", "optimizer_azure_openai_ad_scope", "optimizer_azure_openai_api_key",
    "optimizer_azure_openai_api_version", "optimizer_azure_openai_auth_mode", "optimizer_azure_openai_endpoint",
    "optimizer_azure_openai_managed_identity_client_id", "optimizer_backend", "optimizer_model",
    "optimizer_qwen_chat_api_key", "optimizer_qwen_chat_base_url", "optimizer_qwen_chat_enable_thinking",
    "optimizer_qwen_chat_max_tokens", "optimizer_qwen_chat_temperature", "optimizer_qwen_chat_thinking_mode",
    "optimizer_qwen_chat_timeout_seconds", "out_root", "qwen_chat_api_key", "qwen_chat_base_url",
    "qwen_chat_enable_thinking", "qwen_chat_max_tokens", "qwen_chat_temperature", "qwen_chat_thinking_mode",
    "qwen_chat_timeout_seconds", "reasoning_effort", "rewrite_max_completion_tokens", "rewrite_reasoning_effort",
    "seed", "sel_env_num", "shuffle_choices", "skill_aware_appendix_source", "skill_aware_consolidate_threshold",
    "skill_init", "skill_update_mode", "slow_update_samples", "split_dir", "split_mode", "split_output_dir",
    "split_ratio", "split_seed", "steps_per_epoch", "target_azure_openai_ad_scope", "target_azure_openai_api_key",
    "target_azure_openai_api_version", "target_azure_openai_auth_mode", "target_azure_openai_endpoint",
    "target_azure_openai_managed_identity_client_id", "target_backend", "target_model", "target_qwen_chat_api_key",
    "target_qwen_chat_base_url", "target_qwen_chat_enable_thinking", "target_qwen_chat_max_tokens",
    "target_qwen_chat_temperature", "target_qwen_chat_thinking_mode", "target_qwen_chat_timeout_seconds",
    "test_env_num", "train_size", "use_gate", "use_meta_skill", "use_sketch", "use_skill_aware_reflection",
    "use_slow_update", "use_theorem", "workers",
)
#: flags upstream parses as booleans (``true``/``1``/``yes``, anything else false)
BOOL_FLAGS = frozenset((
    "codex_exec_full_auto", "codex_exec_network_access", "codex_exec_web_search", "codex_trace_to_optimizer",
    "copilot_exec_allow_all_tools", "eval_test", "failure_only", "minimax_enable_thinking",
    "optimizer_qwen_chat_enable_thinking", "qwen_chat_enable_thinking", "shuffle_choices",
    "target_qwen_chat_enable_thinking", "use_gate", "use_meta_skill", "use_sketch", "use_skill_aware_reflection",
    "use_slow_update", "use_theorem",
))
RETIRED = {"max_analyst_rounds": "gradient.max_analyst_rounds was retired upstream and is ignored; remove it"}
SPLITS = {"train": ("train",), "valid_seen": ("val",), "valid_unseen": ("test",), "val": ("val",), "test": ("test",),
          "all": ("train", "val", "test")}


def _parser(prog: str, *, eval_: bool) -> argparse.ArgumentParser:
    what = "scripts/eval_only.py" if eval_ else "scripts/train.py"
    parser = argparse.ArgumentParser(
        prog=prog, description=f"microsoft/SkillOpt's {what} flags, run by `skillopt {'eval' if eval_ else 'run'}` "
                               "(docs/migrating.md).")
    parser.add_argument("--config", required=True, help="an upstream YAML config (or one of ours)")
    parser.add_argument("--cfg-options", nargs="+", default=[], help="section.key=value overrides (several after one flag)")
    if eval_:
        parser.add_argument("--skill", required=True, help="the skill file (or Agent Skills folder) to evaluate")
        parser.add_argument("--split", default="all", choices=sorted(SPLITS), help="upstream's split names; all = each split")
    for flag in LEGACY_FLAGS:
        parser.add_argument(f"--{flag}", help=argparse.SUPPRESS if flag in RETIRED else None)
    return parser


def _pairs(args: argparse.Namespace) -> list[str]:
    """The user's --cfg-options, then one pair per legacy flag given (so a flag wins)."""
    pairs = list(args.cfg_options)
    for flag in LEGACY_FLAGS:
        value = getattr(args, flag)
        if value is None:
            continue
        if flag in RETIRED:
            sys.stderr.write(f"warning: --{flag}: {RETIRED[flag]}\n")
            continue
        if flag in BOOL_FLAGS:
            value = "true" if str(value).strip().lower() in ("true", "1", "yes") else "false"
        pairs.append(f"{flag}={value}")
    return pairs


def _skillopt(argv: list[str]) -> int:
    from skillopt.cli import main

    try:
        main(argv)
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    return 0


def train_main(argv: list[str] | None = None) -> int:
    """``skillopt-train --config FILE [--cfg-options k=v …] [--batch_size N …] [--out_root DIR]``."""
    args = _parser("skillopt-train", eval_=False).parse_args(argv)
    pairs = _pairs(args)
    return _skillopt(["run", "--config", args.config, *(["--cfg-options", *pairs] if pairs else [])])


def eval_main(argv: list[str] | None = None) -> int:
    """``skillopt-eval --config FILE --skill FILE [--split valid_unseen] [--cfg-options k=v …]``."""
    args = _parser("skillopt-eval", eval_=True).parse_args(argv)
    pairs = _pairs(args)
    code = 0
    for split in SPLITS[args.split]:
        code = _skillopt(["eval", "--config", args.config, *(["--cfg-options", *pairs] if pairs else []),
                          "--skill", args.skill, "--split", split]) or code
    return code


def train_console() -> None:
    sys.exit(train_main())


def eval_console() -> None:
    sys.exit(eval_main())
