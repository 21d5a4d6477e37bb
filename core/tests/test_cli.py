"""The ``skillopt`` CLI: listing, config, keys, errors, and import hygiene."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys


def test_help_imports_no_env_or_backend_module():
    """Command plugins are imported (they attach sub-commands); env, backend and executor
    plugin modules, and the heavy libraries they use (Ray's among them), must not be."""
    code = (
        "import sys\n"
        "from importlib import metadata\n"
        "from skillopt.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "plugins = {ep.value.split(':')[0] for d in metadata.distributions() for ep in d.entry_points\n"
        "           if ep.group in ('skillopt.envs', 'skillopt.backends', 'skillopt.executors')\n"
        "           and ep.value.split(':')[0] != 'skillopt.scripted'}\n"
        "heavy = ('llama_cpp', 'openai', 'anthropic', 'openpyxl', 'datasets', 'httpx', 'ray')\n"
        "bad = sorted(m for m in sys.modules if m in plugins or m.split('.')[0] in heavy)\n"
        "print('IMPORTED', bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "IMPORTED []" in out.stdout, out.stdout + out.stderr
    assert "run" in out.stdout and "backends" in out.stdout


def test_run_with_an_unknown_env_lists_the_installed_ones(run_cli, toy_registered):
    result = run_cli("run", "--env", "nosuchenv")
    assert result.exit_code != 0
    assert "unknown env 'nosuchenv'" in result.output and "Installed envs:" in result.output and "toy" in result.output


def test_run_without_env_says_how_to_pick_one(run_cli, toy_registered):
    result = run_cli("run")
    assert result.exit_code != 0 and "--env" in result.output


def test_config_typo_names_the_key(run_cli, toy_registered):
    result = run_cli("config", "show", "--env", "toy", "--set", "train.batchsize=3")
    assert result.exit_code != 0
    assert "train.batchsize" in result.output and "train.batch_size" in result.output


def test_config_show_is_resolved_typed_and_redacted(run_cli, toy_registered):
    result = run_cli("config", "show", "--env", "toy", "--set", "model.api_key=sk-live-secret-value-123456789", "--set", "env.n_val=3", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["env"]["n_val"] == 3 and data["env"]["name"] == "toy"
    assert "sk-live-secret" not in result.output
    toml = run_cli("config", "show", "--env", "toy", "--set", "train.seed=9")
    assert "[train]" in toml.stdout and "seed = 9" in toml.stdout


def test_config_show_output_reads_back_as_a_config_file(run_cli, toy_registered, tmp_path):
    shown = run_cli("config", "show", "--env", "toy", "--set", "train.seed=9").stdout
    path = tmp_path / "c.toml"
    path.write_text(shown)
    again = run_cli("config", "show", "--config", str(path), "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["train"]["seed"] == 9


def test_envs_backends_plugins_list_distributions_as_json(run_cli):
    plugins = json.loads(run_cli("plugins", "--json").stdout)
    rows = {(r["kind"], r["name"]): r for r in plugins}
    assert rows[("gates", "paired")]["distribution"] == "skillopt-core"
    assert rows[("edit_policies", "patch")]["version"]
    backends = json.loads(run_cli("backends", "--json").stdout)
    assert {"name", "distribution", "version", "status"} <= set(backends[0])
    envs = run_cli("envs", "--json")
    assert envs.exit_code == 0 and isinstance(json.loads(envs.stdout), list)


def test_keys_file_is_private_and_values_are_never_listed(run_cli, skillopt_home):
    result = run_cli("keys", "set", "openai", "--value", "sk-abcdefghijklmnopqrstuvwx")
    assert result.exit_code == 0
    path = skillopt_home / "config" / "keys.json"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    listed = run_cli("keys", "list", "--json")
    assert json.loads(listed.stdout) == ["openai"] and "sk-abc" not in listed.output
    from skillopt.keys import get_key

    assert get_key("openai", ("SKILLOPT_TEST_UNSET_VAR",)) == "sk-abcdefghijklmnopqrstuvwx"


def test_skillopt_home_overrides_every_user_dir(skillopt_home):
    from skillopt import paths

    for d in (paths.config_dir(), paths.data_dir(), paths.cache_dir(), paths.state_dir()):
        assert str(d).startswith(str(skillopt_home))


def test_run_trains_with_the_scripted_backend_and_resumes(run_cli, toy_registered, tmp_path):
    out = tmp_path / "run"
    args = ["run", "--env", "toy", "--backend", "scripted", "--out", str(out), "--epochs", "1", "--batch-size", "8", "--json",
            "--set", "optimizer.use_slow_update=false"]
    first = run_cli(*args)
    assert first.exit_code == 0, first.output
    said = " ".join(first.output.split())
    assert "plan: 2 steps: ≤ " in said and "≈ $0.00 for prompts" in said  # the ceiling, said before spending
    assert said.count("toy data: bundled sample") == 1  # the estimate and the training share one env
    summary = json.loads(first.stdout)
    assert summary["status"] == "finished" and (out / "best_skill.md").is_file()
    assert json.loads((out / "config.json").read_text())["env"]["name"] == "toy"
    again = run_cli(*args)
    assert again.exit_code == 0 and json.loads(again.stdout)["steps_completed"] == summary["steps_completed"]
    changed = run_cli(*args[:-2], "--seed", "7")
    assert changed.exit_code != 0 and "train.seed: 42 -> 7" in changed.output and "--force-config" in changed.output
    forced = run_cli(*args[:-2], "--seed", "7", "--force-config")
    assert forced.exit_code == 0, forced.output


def test_eval_scores_one_skill_file(run_cli, toy_registered, tmp_path):
    skill = tmp_path / "skill.md"
    skill.write_text("- RULE-upper\n")
    result = run_cli("eval", "--env", "toy", "--skill", str(skill), "--split", "test", "--backend", "scripted", "--out", str(tmp_path / "e"), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["split"] == "test" and data["n"] == 8 and data["hard"] == 0.0  # the scripted reply is not an answer
    assert (tmp_path / "e" / "eval_summary.json").is_file()
    bad = run_cli("eval", "--env", "toy", "--skill", str(skill), "--split", "dev", "--backend", "scripted")
    assert bad.exit_code != 0 and "unknown split 'dev'" in bad.output


def test_help_is_plain_text_and_a_built_in_command_runs_from_its_own_app():
    """Help is plain text (rich's help renderer cost half of ``skillopt --help``), and
    ``skillopt run --help`` builds only ``run`` (no command plugin is scanned or imported),
    still named ``skillopt run``."""
    code = (
        "import sys\n"
        "from skillopt.cli import main\n"
        "for argv in (['run', '--help'], ['config', '--help']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        "print('SCANNED', 'skillopt.plugins' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "Usage: skillopt run [OPTIONS]" in out.stdout and "Usage: skillopt config [OPTIONS] COMMAND" in out.stdout
    assert "╭" not in out.stdout  # no rich panels
    assert "SCANNED False" in out.stdout  # the plugin host was never built
    top = subprocess.run([sys.executable, "-c", "from skillopt.cli import main\nmain(['--help'])"], capture_output=True, text=True, timeout=60)
    assert "╭" not in top.stdout and "run" in top.stdout and "Usage: skillopt [OPTIONS] COMMAND" in top.stdout
