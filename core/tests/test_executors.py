"""Choosing an executor: unknown names, what to install, and resuming under another one."""

from __future__ import annotations

import pytest

from skillopt import plugins


@pytest.fixture
def without_ray(monkeypatch):
    """This machine as if ``skillopt-executors-ray`` were not installed (its entry points unseen)."""
    scan = plugins._scan

    def hidden():
        return {group: [ep for ep in eps if ep.distribution != "skillopt-executors-ray"] for group, eps in scan().items()}

    monkeypatch.setattr(plugins, "_scan", hidden)


def test_the_ray_executor_without_its_package_says_what_to_install(tmp_path, run_cli, without_ray, toy_registered):
    out = tmp_path / "run"
    result = run_cli("run", "--env", "toy", "--backend", "scripted", "--out", str(out), "--set", "engine.executor=ray")
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == ["error: the executor 'ray' is not installed: pip install skillopt-executors-ray "
                     "(installed executors: threads)"]
    assert not out.exists()  # refused before anything was written


def test_a_misspelt_executor_names_the_installed_ones(tmp_path, run_cli, without_ray, toy_registered):
    result = run_cli("run", "--env", "toy", "--backend", "scripted", "--out", str(tmp_path / "run"),
                     "--set", "engine.executor=thread")
    assert result.exit_code != 0 and "unknown executor 'thread' in config section 'executors'" in result.output
    assert "Did you mean 'executors.threads'?" in result.output


def test_where_rollouts_run_does_not_block_a_resume():
    from skillopt.config.loading import config_diff, config_fingerprint

    before = {"engine": {"executor": "threads", "ray_address": ""}, "executors": {}, "train": {"seed": 1}}
    after = {"engine": {"executor": "ray", "ray_address": "auto"}, "executors": {"ray": {"actors": 4}}, "train": {"seed": 1}}
    older = {"train": {"seed": 1}}  # a run directory written before executors existed
    assert config_fingerprint(before) == config_fingerprint(after) == config_fingerprint(older)
    assert config_diff(before, after) == []
    assert config_fingerprint({**after, "train": {"seed": 2}}) != config_fingerprint(after)
