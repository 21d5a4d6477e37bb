"""Every upstream release's configs and key names run here (issue 27).

The inventory below is every key of microsoft/SkillOpt's configs from v0.1.0 through
its head (bdfdc30): the YAML keys of every revision of ``configs/``, the keys its loader
maps (``skillopt/config.py``), and upstream PR #238's ``model.claude_trace_to_optimizer``,
each with the value upstream ships (or, for keys no shipped file sets, a typical one).
FLAGS are the flags of every revision of ``scripts/train.py`` and ``scripts/eval_only.py``.
The real files are read from ``../shared/reference/upstream-configs`` beside the
repository when it is there (the test skips, saying so, when it is not;
``SKILLOPT_UPSTREAM_CONFIGS`` names another copy, e.g. for a git worktree).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillopt.config.upstream import option_pairs, read_yaml_layers
from skillopt.config.upstream_keys import ANY, BY_KEY, RULES
from skillopt.config.upstream_map import translate
from skillopt.errors import ConfigError

REFERENCE = Path(os.environ.get("SKILLOPT_UPSTREAM_CONFIGS")
                 or Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "upstream-configs")
REAL = sorted(REFERENCE.rglob("*.yaml")) if REFERENCE.is_dir() else []
needs_reference = pytest.mark.skipif(not REAL, reason=f"upstream's real configs are not at {REFERENCE} (../shared beside the repo)")

INVENTORY = {
    'env.name': 'searchqa', 'env.out_root': 'runs/x', 'env.skill_init': 'skillopt/envs/searchqa/skills/initial.md',
    'evaluation.eval_test': True, 'evaluation.gate_metric': 'soft', 'evaluation.gate_mixed_weight': 0.5,
    'evaluation.leading_words': 'MUST,NEVER', 'evaluation.sel_env_num': 0, 'evaluation.semantic_density_weight': 0.05,
    'evaluation.test_env_num': 0, 'evaluation.use_gate': True, 'evaluation.use_semantic_density': False,
    'gradient.analyst_workers': 16, 'gradient.failure_only': False, 'gradient.max_analyst_rounds': 3,
    'gradient.merge_batch_size': 8, 'gradient.minibatch_size': 8, 'model.azure_api_key': '',
    'model.azure_api_version': '2024-12-01-preview', 'model.azure_endpoint': '',
    'model.azure_openai_ad_scope': 'https://cognitiveservices.azure.com/.default', 'model.azure_openai_api_key': '',
    'model.azure_openai_api_version': '2024-12-01-preview', 'model.azure_openai_auth_mode': '',
    'model.azure_openai_endpoint': '', 'model.azure_openai_managed_identity_client_id': '',
    'model.backend': 'azure_openai', 'model.claude_code_exec_effort': 'medium',
    'model.claude_code_exec_max_thinking_tokens': 16384, 'model.claude_code_exec_path': 'claude',
    'model.claude_code_exec_profile': '', 'model.claude_code_exec_use_sdk': 'auto',
    'model.claude_trace_to_optimizer': True, 'model.codex_cli_bin': 'codex', 'model.codex_exec_approval_policy': 'never',
    'model.codex_exec_full_auto': False, 'model.codex_exec_network_access': False, 'model.codex_exec_path': 'codex',
    'model.codex_exec_profile': '', 'model.codex_exec_reasoning_effort': 'none',
    'model.codex_exec_sandbox': 'workspace-write', 'model.codex_exec_use_sdk': 'auto',
    'model.codex_exec_web_search': False, 'model.codex_path': 'codex', 'model.codex_sandbox': 'workspace-write',
    'model.codex_trace_to_optimizer': True, 'model.copilot_chat_optimizer_model': '',
    'model.copilot_chat_target_model': '', 'model.copilot_chat_timeout': 0, 'model.copilot_exec_allow_all_tools': False,
    'model.copilot_exec_home': '', 'model.copilot_exec_path': '', 'model.cursor_exec_path': '',
    'model.cursor_exec_sandbox': '', 'model.minimax_api_key': '', 'model.minimax_base_url': '',
    'model.minimax_enable_thinking': 'false', 'model.minimax_max_tokens': '8000', 'model.minimax_model': 'MiniMax-M2.7',
    'model.minimax_region': '', 'model.minimax_temperature': '0.7', 'model.optimizer': 'gpt-5.5',
    'model.optimizer_azure_openai_ad_scope': 'https://cognitiveservices.azure.com/.default',
    'model.optimizer_azure_openai_api_key': '', 'model.optimizer_azure_openai_api_version': '2024-12-01-preview',
    'model.optimizer_azure_openai_auth_mode': '', 'model.optimizer_azure_openai_endpoint': '',
    'model.optimizer_azure_openai_managed_identity_client_id': '', 'model.optimizer_backend': 'openai_chat',
    'model.optimizer_minimax_api_key': '', 'model.optimizer_minimax_base_url': '',
    'model.optimizer_qwen_chat_api_key': '', 'model.optimizer_qwen_chat_base_url': 'http://127.0.0.1:8000/v1',
    'model.optimizer_qwen_chat_enable_thinking': False, 'model.optimizer_qwen_chat_max_tokens': 4096,
    'model.optimizer_qwen_chat_temperature': 0.7, 'model.optimizer_qwen_chat_thinking_mode': '',
    'model.optimizer_qwen_chat_timeout_seconds': 300, 'model.qwen_chat_api_key': '',
    'model.qwen_chat_base_url': 'http://127.0.0.1:8000/v1', 'model.qwen_chat_enable_thinking': False,
    'model.qwen_chat_max_tokens': 4096, 'model.qwen_chat_temperature': 0.7, 'model.qwen_chat_thinking_mode': '',
    'model.qwen_chat_timeout_seconds': 300, 'model.reasoning_effort': 'medium',
    'model.rewrite_max_completion_tokens': 64000, 'model.rewrite_reasoning_effort': '',
    'model.sandbox': 'workspace-write', 'model.target': 'gpt-5.5',
    'model.target_azure_openai_ad_scope': 'https://cognitiveservices.azure.com/.default',
    'model.target_azure_openai_api_key': '', 'model.target_azure_openai_api_version': '2024-12-01-preview',
    'model.target_azure_openai_auth_mode': '', 'model.target_azure_openai_endpoint': '',
    'model.target_azure_openai_managed_identity_client_id': '', 'model.target_backend': 'openai_chat',
    'model.target_minimax_api_key': '', 'model.target_minimax_base_url': '', 'model.target_qwen_chat_api_key': '',
    'model.target_qwen_chat_base_url': 'http://127.0.0.1:8000/v1', 'model.target_qwen_chat_enable_thinking': False,
    'model.target_qwen_chat_max_tokens': 4096, 'model.target_qwen_chat_temperature': 0.7,
    'model.target_qwen_chat_thinking_mode': '', 'model.target_qwen_chat_timeout_seconds': 300,
    'optimizer.learning_rate': 4, 'optimizer.longitudinal_pair_policy': 'mixed', 'optimizer.lr_control_mode': 'fixed',
    'optimizer.lr_scheduler': 'cosine', 'optimizer.meta_learning_rate': 4, 'optimizer.min_learning_rate': 2,
    'optimizer.skill_aware_appendix_source': 'both', 'optimizer.skill_aware_consolidate_threshold': 0,
    'optimizer.skill_update_mode': 'patch', 'optimizer.slow_update_gate_with_selection': False,
    'optimizer.slow_update_samples': 20, 'optimizer.use_meta_skill': True, 'optimizer.use_skill_aware_reflection': False,
    'optimizer.use_slow_update': True, 'train.accumulation': 1, 'train.batch_size': 40, 'train.num_epochs': 4,
    'train.seed': 42, 'train.steps_per_epoch': 0, 'train.train_size': 0,
}
FLAGS = (
    'accumulation', 'analyst_workers', 'azure_api_key', 'azure_api_version', 'azure_endpoint', 'azure_openai_ad_scope',
    'azure_openai_api_key', 'azure_openai_api_version', 'azure_openai_auth_mode', 'azure_openai_endpoint',
    'azure_openai_managed_identity_client_id', 'backend', 'batch_size', 'claude_code_exec_effort',
    'claude_code_exec_max_thinking_tokens', 'claude_code_exec_path', 'claude_code_exec_profile',
    'claude_code_exec_use_sdk', 'codex_exec_approval_policy', 'codex_exec_full_auto', 'codex_exec_network_access',
    'codex_exec_path', 'codex_exec_profile', 'codex_exec_reasoning_effort', 'codex_exec_sandbox', 'codex_exec_use_sdk',
    'codex_exec_web_search', 'codex_trace_to_optimizer', 'copilot_chat_optimizer_model', 'copilot_chat_target_model',
    'copilot_chat_timeout', 'copilot_exec_allow_all_tools', 'copilot_exec_home', 'copilot_exec_path', 'cursor_exec_path',
    'cursor_exec_sandbox', 'data_path', 'data_root', 'edit_budget', 'env', 'eval_test', 'failure_only', 'image_detail',
    'judge_max_completion_tokens', 'judge_model', 'judge_retries', 'limit', 'longitudinal_pair_policy',
    'lr_control_mode', 'lr_scheduler', 'max_analyst_rounds', 'max_api_workers', 'max_steps', 'max_turns',
    'merge_batch_size', 'min_edit_budget', 'minibatch_size', 'minimax_api_key', 'minimax_base_url',
    'minimax_enable_thinking', 'minimax_max_tokens', 'minimax_model', 'minimax_region', 'minimax_temperature', 'mode',
    'num_epochs', 'optimizer_azure_openai_ad_scope', 'optimizer_azure_openai_api_key',
    'optimizer_azure_openai_api_version', 'optimizer_azure_openai_auth_mode', 'optimizer_azure_openai_endpoint',
    'optimizer_azure_openai_managed_identity_client_id', 'optimizer_backend', 'optimizer_model',
    'optimizer_qwen_chat_api_key', 'optimizer_qwen_chat_base_url', 'optimizer_qwen_chat_enable_thinking',
    'optimizer_qwen_chat_max_tokens', 'optimizer_qwen_chat_temperature', 'optimizer_qwen_chat_thinking_mode',
    'optimizer_qwen_chat_timeout_seconds', 'out_root', 'qwen_chat_api_key', 'qwen_chat_base_url',
    'qwen_chat_enable_thinking', 'qwen_chat_max_tokens', 'qwen_chat_temperature', 'qwen_chat_thinking_mode',
    'qwen_chat_timeout_seconds', 'reasoning_effort', 'rewrite_max_completion_tokens', 'rewrite_reasoning_effort', 'seed',
    'sel_env_num', 'shuffle_choices', 'skill_aware_appendix_source', 'skill_aware_consolidate_threshold', 'skill_init',
    'skill_update_mode', 'slow_update_samples', 'split_dir', 'split_mode', 'split_output_dir', 'split_ratio',
    'split_seed', 'steps_per_epoch', 'target_azure_openai_ad_scope', 'target_azure_openai_api_key',
    'target_azure_openai_api_version', 'target_azure_openai_auth_mode', 'target_azure_openai_endpoint',
    'target_azure_openai_managed_identity_client_id', 'target_backend', 'target_model', 'target_qwen_chat_api_key',
    'target_qwen_chat_base_url', 'target_qwen_chat_enable_thinking', 'target_qwen_chat_max_tokens',
    'target_qwen_chat_temperature', 'target_qwen_chat_thinking_mode', 'target_qwen_chat_timeout_seconds', 'test_env_num',
    'train_size', 'use_gate', 'use_meta_skill', 'use_sketch', 'use_skill_aware_reflection', 'use_slow_update',
    'use_theorem', 'workers',
)

#: what upstream's configs/searchqa/default.yaml (over its _base_) becomes here
SEARCHQA = {
    "env": {"name": "searchqa", "split_dir": "data/searchqa_split", "split_seed": 42, "exec_timeout": 120, "limit": 0,
            "max_completion_tokens": 16384, "workers": 24},
    "evaluation": {"gate": "strict", "use_gate": True, "eval_test": True, "sel_env_num": 0, "test_env_num": 0},
    "gradient": {"analyst_workers": 16, "failure_only": False, "merge_batch_size": 8, "minibatch_size": 8},
    "model": {"backend": "azure-openai", "reasoning_effort": "medium",
              "optimizer": {"api_version": "2024-12-01-preview", "model": "gpt-5.5"},
              "target": {"api_version": "2024-12-01-preview", "model": "gpt-5.5"}},
    "optimizer": {"learning_rate": 4, "min_learning_rate": 2, "lr_scheduler": "cosine", "lr_control_mode": "fixed",
                  "longitudinal_pair_policy": "mixed", "rewrite_max_tokens": 64000, "skill_aware_appendix_source": "both",
                  "skill_aware_consolidate_threshold": 0, "skill_update_mode": "patch", "slow_update_gate_with_selection": False,
                  "slow_update_samples": 20, "use_meta_skill": True, "use_skill_aware_reflection": False, "use_slow_update": True},
    "train": {"accumulation": 1, "batch_size": 40, "num_epochs": 4, "seed": 42, "train_size": 400},
}


@needs_reference
@pytest.mark.parametrize("path", REAL, ids=[p.relative_to(REFERENCE).as_posix() for p in REAL])
def test_every_real_upstream_config_loads(run_cli, path):
    env = read_yaml_layers(path).get("env", {}).get("name")
    extra = () if env else ("--env", "searchqa")  # _base_ and features/ name no env: they are inherited from
    shown = run_cli("config", "show", "--config", str(path), *extra, "--json")
    assert shown.exit_code == 0, shown.output
    cfg = json.loads(shown.stdout)
    assert cfg["evaluation"]["gate"] == "strict" and cfg["model"]["backend"] == "azure-openai"
    assert cfg["model"]["target"]["model"] == "gpt-5.5" and cfg["train"]["num_epochs"] == 4
    if path.parent.name == "features":
        assert cfg["evaluation"]["gate_metric"] == "soft"


@needs_reference
def test_the_real_searchqa_config_maps_to_the_expected_one(run_cli):
    path = next(p for p in REAL if p.parent.name == "searchqa")
    raw, notes = translate(read_yaml_layers(path), where=str(path))
    assert raw == SEARCHQA
    assert "env.max_turns (not used by searchqa)" in notes and "env.split_mode" in notes
    from skillopt.config.upstream import _load_once

    _load_once.cache_clear()  # the ignored-keys line is said once per process and file
    shown = run_cli("config", "show", "--config", str(path))
    assert shown.exit_code == 0, shown.output
    assert 'backend = "azure-openai"' in shown.stdout and "train_size = 400" in shown.stdout
    said = " ".join(shown.output.split())
    assert "key(s) of backends no role runs (" in said and "codex_exec" in said


def test_every_upstream_key_name_goes_through_the_mapper():
    for key, value in INVENTORY.items():
        section, leaf = key.split(".", 1)
        raw, notes = translate({section: {leaf: value}, "model": {"backend": "azure_openai"}} if section != "model"
                               else {section: {leaf: value}}, where="t.yaml")
        known = key in BY_KEY or key.startswith("env.") or any(note.startswith(key) for note in notes)
        assert known or leaf in ("codex_path", "codex_cli_bin", "codex_sandbox", "sandbox"), key
    documented = Path(__file__).resolve().parents[2].joinpath("docs", "upstream-configs.md").read_text()
    for key in INVENTORY:
        if not key.startswith("env.") or key in BY_KEY:
            assert f"`{key}`" in documented or key.rsplit(".", 1)[1] in documented, key


@pytest.mark.parametrize("rule", [r for r in RULES if r.ours is None and r.accept != ANY], ids=lambda r: r.upstream)
def test_a_key_we_cannot_honour_is_refused_by_name_with_what_to_write(rule):
    section, leaf = rule.upstream.split(".", 1)
    family = {"codex_exec": "codex", "claude_code_exec": "claude_code_exec", "cursor_exec": "cursor_exec"}
    data = {section: {leaf: "something-else"}}
    if rule.family:
        data.setdefault("model", {})["backend"] = family.get(rule.family[0], rule.family[0])
        data["model"][leaf] = "something-else"
    with pytest.raises(ConfigError) as raised:
        translate(data, where="t.yaml")
    assert rule.upstream in str(raised.value) and rule.instead in str(raised.value)


def test_every_legacy_flag_is_a_known_key():
    for flag in FLAGS:
        ((dotted, _),) = option_pairs((f"{flag}=1",))
        assert dotted in BY_KEY or dotted.startswith("env."), flag
    assert option_pairs(("batch_size=8", "edit_budget=3", "codex_path=/x", "max_steps=9")) == [
        ("train.batch_size", "8"), ("optimizer.edit_budget", "3"), ("model.codex_exec_path", "/x"), ("env.max_steps", "9")]


def test_an_unknown_key_is_refused_by_name():
    with pytest.raises(ConfigError, match="upstream key 'model.brand_new_knob' has no SkillOpt equivalent.*remove it"):
        translate({"model": {"brand_new_knob": 1}}, where="t.yaml")
    with pytest.raises(ConfigError, match="did you mean 'model.minimax_region'"):
        translate({"model": {"minimax_regoin": "cn_zh"}}, where="t.yaml")
    with pytest.raises(ConfigError, match="upstream section 'launcher'"):
        translate({"launcher": {"script": "x"}}, where="t.yaml")


def test_the_backend_shorthand_fills_only_roles_at_openai_chat_as_upstream():
    raw, _ = translate({"model": {"backend": "claude_code_exec", "optimizer": "gpt-5.5", "target": "gpt-5.5",
                                  "optimizer_backend": "openai_chat", "target_backend": "openai_chat",
                                  "claude_code_exec_path": "/opt/claude", "claude_code_exec_effort": "high"}}, where="t.yaml")
    assert raw["model"]["backend"] == "azure-openai"  # the optimizer stays on Azure, as upstream
    assert raw["model"]["target"] == {"backend": "claude-cli", "options": {"mode": "agent", "path": "/opt/claude"},
                                      "reasoning_effort": "high"}  # gpt-5.5 was a placeholder: the CLI's own model
    qwen, _ = translate({"model": {"backend": "qwen", "target": "gpt-5.5", "qwen_chat_base_url": "http://127.0.0.1:8000/v1",
                                   "qwen_chat_thinking_mode": "disabled", "azure_openai_endpoint": "https://x.openai.azure.com"}},
                        where="t.yaml")
    assert qwen["model"]["target"] == {"backend": "openai-compatible", "base_url": "http://127.0.0.1:8000/v1",
                                       "options": {"provider": "qwen", "thinking_mode": "disabled"}}
    assert qwen["model"]["optimizer"] == {"base_url": "https://x.openai.azure.com"}  # the Azure endpoint: Azure roles only
    explicit, _ = translate({"model": {"backend": "codex", "target_backend": "openai_chat"}}, where="t.yaml",
                            explicit=frozenset({"model.target_backend"}))
    assert explicit["model"]["backend"] == "codex-cli" and explicit["model"]["target"]["backend"] == "azure-openai"


def test_qwen_thinking_conflicts_and_minimax_region_and_thinking():
    with pytest.raises(ConfigError, match="contradicts"):
        translate({"model": {"target_backend": "qwen_chat", "qwen_chat_enable_thinking": True,
                             "qwen_chat_thinking_mode": "disabled"}}, where="t.yaml")
    raw, _ = translate({"model": {"backend": "minimax", "target": "gpt-5.5", "minimax_region": "cn_zh",
                                  "minimax_enable_thinking": "false", "minimax_model": "MiniMax-M3",
                                  "minimax_temperature": "0.7", "minimax_max_tokens": "8000"}}, where="t.yaml")
    assert raw["model"]["target"] == {"backend": "openai-compatible", "model": "MiniMax-M3", "temperature": 0.7, "max_tokens": 8000,
                                      "options": {"provider": "minimax", "region": "cn_zh", "thinking": "disabled"}}


def test_the_legacy_flat_format_and_pre_release_role_names():
    raw, _ = translate({"env": "searchqa", "batch_size": 8, "edit_budget": 3, "codex_path": "/opt/codex", "backend": "codex",
                        "model": {"teacher": "o3"}, "split_dir": "data/s"}, where="t.yaml")
    assert raw["train"]["batch_size"] == 8 and raw["optimizer"]["learning_rate"] == 3
    assert raw["model"]["optimizer"] == {"model": "o3", "options": {"path": "/opt/codex"}}
    assert raw["model"]["target"]["options"] == {"mode": "agent", "path": "/opt/codex"}
    assert raw["env"] == {"name": "searchqa", "split_dir": "data/s"}


def test_cfg_options_take_several_pairs_after_one_flag(run_cli, tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("env:\n  name: searchqa\ntrain:\n  batch_size: 40\n")
    shown = run_cli("config", "show", "--config", str(path), "--cfg-options", "batch_size=8", "train.seed=7",
                    "model.target=my-deploy", "--json")
    assert shown.exit_code == 0, shown.output
    cfg = json.loads(shown.stdout)
    assert cfg["train"]["batch_size"] == 8 and cfg["train"]["seed"] == 7 and cfg["model"]["target"]["model"] == "my-deploy"
