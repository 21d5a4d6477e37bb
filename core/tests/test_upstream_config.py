"""microsoft/SkillOpt's YAML configs run here: ``_base_``, ``--cfg-options``, every key mapped or refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillopt.config.upstream import cast_option, read_yaml_layers
from skillopt.config.upstream_doc import render_markdown
from skillopt.config.upstream_map import translate
from skillopt.errors import ConfigError

# the shape of upstream's configs/_base_/default.yaml (its plumbing keys at their shipped values)
BASE = """\
model:
  backend: azure_openai
  optimizer: gpt-5.5
  target: gpt-5.5
  optimizer_backend: openai_chat
  target_backend: openai_chat
  reasoning_effort: medium
  rewrite_reasoning_effort: ""
  rewrite_max_completion_tokens: 64000
  codex_exec_path: codex
  codex_exec_sandbox: workspace-write
  claude_code_exec_max_thinking_tokens: 16384
  codex_trace_to_optimizer: true
  azure_openai_endpoint: ""
  azure_openai_api_version: "2024-12-01-preview"
  azure_openai_auth_mode: azure_cli
  azure_openai_ad_scope: "https://cognitiveservices.azure.com/.default"
train: {num_epochs: 4, train_size: 0, batch_size: 40, accumulation: 1, seed: 42}
gradient: {minibatch_size: 8, merge_batch_size: 8, analyst_workers: 16, max_analyst_rounds: 3, failure_only: false}
optimizer: {learning_rate: 4, min_learning_rate: 2, lr_scheduler: cosine, skill_update_mode: patch, use_slow_update: true}
evaluation: {use_gate: true, sel_env_num: 0, test_env_num: 0, eval_test: true}
env: {name: "", skill_init: "", split_mode: ratio, split_ratio: "2:1:7", split_seed: 42, split_dir: "", exec_timeout: 120, out_root: ""}
human_feedback: {enabled: false, timeout_seconds: 0}
"""

TOY = """\
_base_: ../_base_/default.yaml
train: {num_epochs: 1, batch_size: 8}
optimizer: {learning_rate: 3, skill_update_mode: rewrite_from_suggestions, use_slow_update: false}
env:
  name: toy
  skill_init: skillopt/envs/toy/skills/initial.md
  split_mode: split_dir
  n_val: 4
  workers: 3
"""


@pytest.fixture
def configs(tmp_path) -> Path:
    (tmp_path / "configs" / "_base_").mkdir(parents=True)
    (tmp_path / "configs" / "toy").mkdir()
    (tmp_path / "configs" / "_base_" / "default.yaml").write_text(BASE)
    (tmp_path / "configs" / "toy" / "default.yaml").write_text(TOY)
    return tmp_path / "configs" / "toy" / "default.yaml"


def test_an_upstream_config_resolves_to_our_keys(run_cli, toy_registered, configs):
    shown = run_cli("config", "show", "--config", str(configs), "--json")
    assert shown.exit_code == 0, shown.output
    cfg = json.loads(shown.stdout)
    assert cfg["train"]["num_epochs"] == 1 and cfg["train"]["batch_size"] == 8 and cfg["train"]["seed"] == 42  # child over base
    assert cfg["optimizer"]["learning_rate"] == 3 and cfg["optimizer"]["skill_update_mode"] == "rewrite"
    assert cfg["evaluation"]["gate"] == "strict"  # upstream's only gate
    assert cfg["model"]["backend"] == "azure-openai" and cfg["model"]["optimizer"]["backend"] == ""  # openai_chat follows model.backend
    assert cfg["model"]["optimizer"]["model"] == "gpt-5.5"
    assert cfg["model"]["optimizer"]["auth_mode"] == cfg["model"]["target"]["auth_mode"] == "azure_cli"  # to each Azure role
    assert cfg["optimizer"]["rewrite_max_tokens"] == 64000 and cfg["env"]["n_val"] == 4 and cfg["env"]["workers"] == 3
    assert cfg["env"]["skill_init"] == ""  # an upstream repository path that does not exist here
    said = " ".join(shown.output.split())
    assert "ignored" in said and "gradient.max_analyst_rounds" in said


def test_cfg_options_are_cast_like_upstream_and_a_flat_key_is_an_env_key(run_cli, toy_registered, configs):
    assert cast_option("yes") is True and cast_option("7") == 7 and cast_option("0.5") == 0.5 and cast_option("x") == "x"
    shown = run_cli("config", "show", "--config", str(configs), "--cfg-options", "evaluation.use_gate=no train.seed=7",
                    "--cfg-options", "n_val=6", "--json")
    assert shown.exit_code == 0, shown.output
    cfg = json.loads(shown.stdout)
    assert cfg["evaluation"]["use_gate"] is False and cfg["train"]["seed"] == 7 and cfg["env"]["n_val"] == 6
    toml = configs.parent / "c.toml"
    toml.write_text("[train]\nseed = 1\n")
    refused = run_cli("config", "show", "--env", "toy", "--config", str(toml), "--cfg-options", "train.seed=2")
    assert refused.exit_code != 0 and "--cfg-options overrides an upstream YAML config" in refused.output


@pytest.mark.parametrize("extra, named", [
    ("human_feedback:\n  enabled: true\n", "human_feedback.enabled"),  # no equivalent, not at upstream's default
    ("train:\n  curriculum: easy\n", "train.curriculum"),  # not an upstream key at all
    ("model:\n  backend: codex\n  codex_exec_network_access: true\n", "model.codex_exec_network_access"),
])
def test_a_key_without_an_equivalent_is_refused_by_name(run_cli, toy_registered, configs, extra, named):
    configs.write_text(TOY + extra)
    result = run_cli("config", "show", "--config", str(configs))
    assert result.exit_code != 0 and named in result.output and "no SkillOpt equivalent" in result.output


def test_an_env_key_the_env_does_not_know_is_named_by_the_envs_schema(run_cli, toy_registered, configs):
    configs.write_text(TOY.replace("  workers: 3\n", "  workers: 3\n  max_tool_turns: 5\n"))
    result = run_cli("config", "show", "--config", str(configs))
    assert result.exit_code != 0 and "env.max_tool_turns" in result.output


def test_base_inheritance_takes_lists_and_refuses_loops(tmp_path):
    (tmp_path / "a.yaml").write_text("train: {seed: 1, batch_size: 5}\n")
    (tmp_path / "b.yaml").write_text("train: {seed: 2}\n")
    (tmp_path / "c.yaml").write_text("_base_: [a.yaml, b.yaml]\ntrain: {num_epochs: 3}\n")
    assert read_yaml_layers(tmp_path / "c.yaml")["train"] == {"seed": 2, "batch_size": 5, "num_epochs": 3}
    (tmp_path / "x.yaml").write_text("_base_: y.yaml\n")
    (tmp_path / "y.yaml").write_text("_base_: x.yaml\n")
    with pytest.raises(ConfigError, match="loops back"):
        read_yaml_layers(tmp_path / "x.yaml")
    (tmp_path / "z.yaml").write_text("_base_: missing.yaml\n")
    with pytest.raises(ConfigError, match="the _base_ of"):
        read_yaml_layers(tmp_path / "z.yaml")


def test_backends_map_and_exec_harnesses_become_agent_mode():
    raw, _ = translate({"model": {"backend": "openai_compatible", "target_backend": "claude_code_exec", "target": "claude-sonnet-4-6"}},
                       where="t.yaml")
    assert raw["model"]["backend"] == "openai-compatible"
    assert raw["model"]["target"] == {"backend": "claude-cli", "model": "claude-sonnet-4-6", "options": {"mode": "agent"}}
    compat, _ = translate({"model": {"backend": "azure_openai", "azure_openai_auth_mode": "openai_compatible"}}, where="t.yaml")
    assert compat["model"]["backend"] == "openai-compatible" and "auth_mode" not in compat["model"]
    with pytest.raises(ConfigError, match="upstream backend model.backend = 'nosuch'"):
        translate({"model": {"backend": "nosuch"}}, where="t.yaml")


def test_an_upstream_config_trains(run_cli, toy_registered, configs, tmp_path):
    out = tmp_path / "run"
    result = run_cli("run", "--config", str(configs), "--backend", "scripted", "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    saved = json.loads((out / "config.json").read_text())
    assert saved["evaluation"]["gate"] == "strict" and saved["optimizer"]["learning_rate"] == 3
    assert json.loads(result.stdout)["status"] == "finished"


def test_the_mapping_table_in_docs_is_current():
    doc = Path(__file__).resolve().parents[2] / "docs" / "upstream-configs.md"
    assert doc.read_text() == render_markdown(), "regenerate: python -m skillopt.config.upstream_doc > docs/upstream-configs.md"
