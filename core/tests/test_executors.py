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


def test_spare_threads_reuse_an_idle_thread_and_start_one_when_all_are_busy():
    """A rollout is handed to a thread that waits for work (starting one per item kept the
    submitting batch waiting for each start); a busy thread is never handed a second item."""
    import threading

    from skillopt.executors.threads import SpareThreads

    spare = SpareThreads("test-spare", idle_s=5.0)
    ran: list[int] = []
    done = threading.Event()
    spare.run(lambda: (ran.append(threading.get_ident()), done.set()))
    assert done.wait(5)
    for _ in range(50):  # the thread files itself as idle right after its task
        if spare._idle:
            break
        threading.Event().wait(0.01)
    done.clear()
    spare.run(lambda: (ran.append(threading.get_ident()), done.set()))
    assert done.wait(5)
    assert ran[0] == ran[1]  # the idle thread took the second task

    release, both = threading.Event(), threading.Barrier(3, timeout=5)
    spare.run(lambda: (both.wait(), release.wait(5)))
    spare.run(lambda: (both.wait(), release.wait(5)))
    both.wait()  # two tasks blocked at once: each got its own thread
    release.set()


def test_an_idle_spare_thread_ends_after_its_idle_time():
    import threading
    import time

    from skillopt.executors.threads import SpareThreads

    spare = SpareThreads("test-idle-end", idle_s=0.05)
    done = threading.Event()
    spare.run(done.set)
    assert done.wait(5)
    deadline = time.monotonic() + 5
    while any(t.name == "test-idle-end" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not any(t.name == "test-idle-end" for t in threading.enumerate())
    assert spare._idle == []
