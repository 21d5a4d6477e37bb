"""What a user sees before any Ray worker exists: the listing, and one-line errors for a
missing Ray, an unreachable cluster and a key that would have to travel."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from skillopt_executors_ray.cluster import check_reachable

RUN = ["run", "--env", "searchqa", "--backend", "scripted", "--set", "env.limit=4", "--set", "engine.executor=ray"]


def skillopt(tmp_path: Path, *args: str, prelude: str = "") -> subprocess.CompletedProcess:
    """``skillopt ARGS`` in a fresh interpreter (``prelude`` runs first: a machine without Ray)."""
    code = f"{prelude}\nfrom skillopt.cli import main; main()"
    env = {"PATH": "/usr/bin:/bin", "SKILLOPT_HOME": str(tmp_path / "home"), "HOME": str(tmp_path)}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=120, check=False)


def error_lines(done: subprocess.CompletedProcess) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.startswith("error:")]


def test_plugins_lists_the_ray_executor_with_its_distribution(run_cli):
    rows = json.loads(run_cli("plugins", "--json").stdout)
    ray = [r for r in rows if r["kind"] == "executors" and r["name"] == "ray"]
    assert [(r["distribution"], r["status"]) for r in ray] == [("skillopt-executors-ray", "ok")]


def test_listing_and_help_do_not_import_ray(tmp_path):
    code = ("import sys; from skillopt.registry import get; get('executors', 'ray'); "
            "from skillopt.cli import make_app; make_app(); print('ray' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "False"


def test_without_ray_the_run_says_which_package_to_install(tmp_path):
    done = skillopt(tmp_path, *RUN, "--out", str(tmp_path / "run"), prelude="import sys; sys.modules['ray'] = None")
    assert done.returncode != 0
    assert len(error_lines(done)) == 1 and "pip install skillopt-executors-ray" in error_lines(done)[0]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("address", ["127.0.0.1:1", "ray://127.0.0.1:1"])
def test_an_unreachable_cluster_is_one_line_naming_the_address(tmp_path, address):
    done = skillopt(tmp_path, *RUN, "--set", f"engine.ray_address={address}", "--out", str(tmp_path / "run"))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert error_lines(done) and f"cannot reach the Ray cluster at engine.ray_address='{address}'" in error_lines(done)[0]


def test_an_address_that_is_not_one_is_named():
    from skillopt.api import ConfigError

    with pytest.raises(ConfigError, match=r"engine.ray_address='headnode' is not an address"):
        check_reachable("headnode")
    check_reachable("")  # a local Ray: nothing to reach yet
    check_reachable("auto")


def test_a_key_written_in_the_config_is_refused_not_shipped(tmp_path):
    key = "sk-literal-key-0123456789abcdef"
    done = skillopt(tmp_path, *RUN, "--set", f"model.api_key={key}", "--out", str(tmp_path / "run"))
    assert done.returncode != 0
    assert "keys are never sent to workers" in error_lines(done)[0] and "model.api_key_env" in error_lines(done)[0]
    assert key not in done.stderr + done.stdout


@pytest.fixture
def refusing_ray(monkeypatch, tmp_path):
    """``ray.init`` replaced by one raising what Ray raises (the error text given), with no
    cluster token anywhere (no RAY_AUTH_TOKEN, no ~/.ray/auth_token)."""
    import ray

    from skillopt_executors_ray import cluster

    for var in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_MODE", "RAY_ADDRESS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(cluster, "check_reachable", lambda address: None)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    seen = {}

    def refuse(error):
        def init(**options):
            seen.update(options)
            raise error
        monkeypatch.setattr(ray, "init", init)
        return seen

    return refuse


def test_a_ray_client_timeout_names_token_authentication(refusing_ray):
    from skillopt.api import ConfigError
    from skillopt_executors_ray.cluster import connect

    refusing_ray(ConnectionError("ray client connection timeout"))
    with pytest.raises(ConfigError) as caught:
        connect("ray://head:10001")
    message = str(caught.value)
    assert message.startswith("cannot reach the Ray cluster at engine.ray_address='ray://head:10001': ray client connection timeout")
    assert "token authentication" in message and "RAY_AUTH_TOKEN" in message and "RAY_AUTH_MODE=token" in message


def test_a_local_ray_is_started_not_joined_and_its_failure_says_so(refusing_ray):
    from skillopt.api import ConfigError
    from skillopt_executors_ray.cluster import connect

    seen = refusing_ray(RuntimeError("Failed to start the GCS server"))
    with pytest.raises(ConfigError, match=r"^could not start a local Ray \(engine.ray_address=''\): Failed to start the GCS"):
        connect("", local_cpus=1)
    assert seen["address"] == "local" and seen["num_cpus"] == 1  # never an existing cluster's address
