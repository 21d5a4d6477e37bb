"""Each bundled env reads the ``env:`` section of microsoft/SkillOpt's config for it.

The YAML below has the keys upstream's ``configs/<env>/default.yaml`` set for each
benchmark (values of our own); every one must map to the env's schema or be declared
as not used (``Env.upstream_keys``), so a user's upstream config runs unchanged.
"""

from __future__ import annotations

import json

import pytest

ENV_SECTIONS = {
    "searchqa": "name: searchqa\n  split_mode: split_dir\n  max_turns: 1\n  workers: 24\n  limit: 0\n",
    "livemathematicianbench": "name: livemathematicianbench\n  max_turns: 1\n  exec_timeout: 300\n  workers: 64\n"
                              "  shuffle_choices: true\n  use_theorem: false\n  use_sketch: false\n",
    "spreadsheetbench": "name: spreadsheetbench\n  data_root: spreadsheet_release\n  mode: multi\n  max_turns: 30\n"
                        "  exec_timeout: 600\n  workers: 24\n",
    "officeqa": "name: officeqa\n  data_dirs:\n    - officeqa_docs\n  workers: 4\n  max_tool_turns: 24\n  limit: 0\n",
    "docvqa": "name: docvqa\n  max_turns: 1\n  workers: 16\n  image_detail: auto\n  limit: 0\n",
    "alfworld": "name: alfworld\n  max_steps: 50\n  workers: 8\n  max_api_workers: 8\n  limit: 0\n",
}
EXPECTED = {"searchqa": "searchqa", "livemathematicianbench": "livemath", "spreadsheetbench": "spreadsheetbench",
            "officeqa": "officeqa", "docvqa": "docvqa", "alfworld": "alfworld"}


@pytest.mark.parametrize("upstream_env", sorted(ENV_SECTIONS))
def test_the_upstream_config_of_each_bundled_env_resolves(run_cli, tmp_path, upstream_env):
    path = tmp_path / "default.yaml"
    path.write_text("train:\n  batch_size: 40\noptimizer:\n  learning_rate: 4\n  use_meta_reflect: false\n"
                    "env:\n  " + ENV_SECTIONS[upstream_env] + "  skill_init: skillopt/envs/x/skills/initial.md\n")
    result = run_cli("config", "show", "--config", str(path), "--backend", "scripted", "--json")
    assert result.exit_code == 0, result.output
    cfg = json.loads(result.stdout)
    assert cfg["env"]["name"] == EXPECTED[upstream_env] and cfg["evaluation"]["gate"] == "strict"
    if upstream_env == "spreadsheetbench":
        assert cfg["env"]["data_path"] == "spreadsheet_release" and cfg["env"]["max_turns"] == 30
    if upstream_env == "officeqa":
        assert cfg["env"]["data_dirs"] == ["officeqa_docs"] and cfg["env"]["max_tool_turns"] == 24
