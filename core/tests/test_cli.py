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
    from skillopt.testing import register_backend

    register_backend("openai-stand-in", key_name="openai")  # a provider backend (skillopt-backends') reading 'openai'
    result = run_cli("keys", "set", "openai", "--value", "sk-abcdefghijklmnopqrstuvwx")
    assert result.exit_code == 0
    path = skillopt_home / "config" / "keys.json"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    listed = run_cli("keys", "list", "--json")
    assert json.loads(listed.stdout) == ["openai"] and "sk-abc" not in listed.output
    from skillopt.keys import get_key

    assert get_key("openai", ("SKILLOPT_TEST_UNSET_VAR",)) == "sk-abcdefghijklmnopqrstuvwx"


def test_keys_set_refuses_a_name_no_backend_reads_and_an_empty_key(run_cli, skillopt_home):
    """A provider backend declares the keys-file entry it reads (``Backend.key_name``);
    ``keys set`` stores only those names, and never an empty key."""
    from skillopt.api import Backend, hookimpl
    from skillopt.plugins import get_host

    class AcmeBackend(Backend):
        name = "acme"
        key_name = "acme"

        def complete(self, request):
            raise NotImplementedError

    class Plugin:
        @hookimpl
        def skillopt_register_backends(self, register):
            register(AcmeBackend)

    get_host().register(Plugin(), name="acme-backend-plugin")
    path = skillopt_home / "config" / "keys.json"
    typo = run_cli("keys", "set", "acmee", "--value", "sk-acme-0123456789abcdef")
    assert typo.exit_code == 2 and not path.exists()
    [line] = typo.stderr.strip().splitlines()
    assert "no installed backend reads a key named 'acmee'" in line and "acme" in line.split("known providers:")[1]
    for empty in ("", "   "):
        refused = run_cli("keys", "set", "acme", "--value", empty)
        assert refused.exit_code == 2 and "empty" in refused.stderr and not path.exists()
    prompted = run_cli("keys", "set", "acme", input="\n")
    assert prompted.exit_code == 2 and not path.exists()
    stored = run_cli("keys", "set", "acme", "--value", "sk-acme-0123456789abcdef")
    assert stored.exit_code == 0 and json.loads(run_cli("keys", "list", "--json").stdout) == ["acme"]


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


def test_a_run_on_a_model_too_small_to_learn_says_so_in_its_first_and_last_lines(run_cli, toy_registered, tmp_path):
    """The README's main job ends with a lift of +0.000 on the embedded 135M model, and a
    newcomer reads "it does not work". A backend whose model only checks the pipeline says
    so (the local backend on its bundled GGUF; here a scripted stand-in declaring the same
    note), and the run prints it first and last, naming the command for a real model."""
    from skillopt.api import hookimpl
    from skillopt.plugins import get_host
    from skillopt.scripted import ScriptedBackend

    class PipelineCheckOnly(ScriptedBackend):
        """Stands in for the embedded local model: a model too small to learn the task."""

        name = "tiny-local"

        def pipeline_check_note(self, env):
            return f"tiny [135M] only checks the pipeline; to train: OPENAI_API_KEY=<key> skillopt run --env {env} --backend openai"

    class Plugin:
        @hookimpl
        def skillopt_register_backends(self, register):
            register(PipelineCheckOnly)

    get_host().register(Plugin(), name="tiny-plugin")
    result = run_cli("run", "--env", "toy", "--backend", "tiny-local", "--out", str(tmp_path / "run"), "--epochs", "1",
                     "--set", "train.max_steps=1", "--json")
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    note = "note: tiny [135M] only checks the pipeline; to train: OPENAI_API_KEY=<key> skillopt run --env toy --backend openai"
    assert lines[0] == note and lines[-1] == note, result.stderr
    assert "done (finished)" in result.stderr  # the final line is still there, just before it
    plain = run_cli("run", "--env", "toy", "--backend", "scripted", "--out", str(tmp_path / "plain"), "--epochs", "1",
                    "--set", "train.max_steps=1")
    assert "only checks the pipeline" not in plain.output  # a model that can learn gets no note


def test_a_run_whose_val_set_is_too_small_for_the_gate_says_so_in_its_first_lines(run_cli, toy_registered, tmp_path):
    result = run_cli("run", "--env", "toy", "--backend", "scripted", "--out", str(tmp_path / "run"), "--epochs", "1",
                     "--set", "train.max_steps=1", "--set", "env.n_val=4")
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    said = next(i for i, line in enumerate(lines) if "cannot accept any candidate on 4 val items" in line)
    assert "evaluation.gate=strict" in lines[said] and "at least 5" in lines[said]
    assert said < next(i for i, line in enumerate(lines) if line.startswith("baseline val"))  # before anything is scored
    fine = run_cli("run", "--env", "toy", "--backend", "scripted", "--out", str(tmp_path / "fine"), "--epochs", "1",
                   "--set", "train.max_steps=1")
    assert "cannot accept" not in fine.output


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


def test_usage_lines_name_the_arguments_the_readme_names(run_cli):
    """The README's command synopsis and each command's usage line agree on the
    positional argument (``export RUN|FILE|DIR``: a run, a skill file or a skill folder)."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Commands", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    named = {m.group(1): m.group(2) for m in re.finditer(r"^skillopt (\w+) ([A-Z][A-Z|]*)\b", block, re.MULTILINE)}
    assert named.get("export") == "RUN|FILE|DIR" and "blame" in named
    for command, argument in named.items():
        usage = next(line for line in run_cli(command, "--help").stdout.splitlines() if "Usage:" in line)
        assert argument in usage, (command, argument, usage)


def test_the_cli_module_and_its_help_import_no_heavy_library():
    """``import skillopt.cli`` and ``skillopt --help`` stay lean (what is imported, not a
    timing: benchmarks/cli_start.py times them): no SDK, no HTTP client, no cattrs (its
    code generation), and no rich (the help is plain text; rich's markup module is
    imported only to escape the help of a command about to render it with rich)."""
    heavy = ("openai", "anthropic", "httpx", "cattrs", "rich", "pydantic", "llama_cpp")
    code = (  # noqa: UP031 - the code's own braces would need doubling in a format string
        "import sys\n"
        "import skillopt.cli\n"
        "print('IMPORT', sorted({m.split('.')[0] for m in sys.modules} & set(%r)))\n"
        "from skillopt.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('HELP', sorted({m.split('.')[0] for m in sys.modules} & set(%r)))\n"
    ) % (heavy, heavy)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "IMPORT []" in out.stdout and "HELP []" in out.stdout, out.stdout[-400:] + out.stderr


def test_the_skillopt_process_collects_the_young_generation_less_often():
    """The ``skillopt`` program runs its command with the young generation collected every
    7,000 allocations, not CPython's 700 (its start allocates objects that all live to the
    end: see ``tune_collector``), the collector still on; ``main`` alone leaves it as set."""
    code = (
        "import gc\n"
        "from skillopt import cli\n"
        "seen = []\n"
        "cli.main = lambda: seen.append((gc.get_threshold()[0], gc.isenabled()))\n"
        "print('BEFORE', gc.get_threshold()[0])\n"
        "cli.console_main()\n"
        "print('SEEN', seen)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "BEFORE 700" in out.stdout and "SEEN [(7000, True)]" in out.stdout, out.stdout + out.stderr
