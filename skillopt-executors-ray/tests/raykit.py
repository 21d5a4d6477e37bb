"""Running ``skillopt run`` as a Ray driver against the test cluster (see conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import attrs
from searchqa_model import API_KEY, MODEL, SearchQAModelServer

#: what both the cluster's processes and the drivers see
CLUSTER_ENV = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_AUTH_MODE": "disabled",  # nothing listens beyond 127.0.0.1; and nothing is written to ~/.ray
    "RAY_USAGE_STATS_ENABLED": "0",
    # the workers' own key for the loopback model: a worker reads its environment, nothing is shipped
    "OPENAI_COMPATIBLE_API_KEY": API_KEY,
}


def run_command(out: Path, server: SearchQAModelServer, *extra: str) -> list[str]:
    """``skillopt run`` of the scripted SearchQA workload (16/12/8 items, one epoch of two steps)."""
    settings = {
        "model.model": MODEL, "model.base_url": f"{server.url}/v1", "model.max_retries": 1, "env.split_dir":
        str(out.parent / "data"), "env.workers": 6, "train.num_epochs": 1, "train.batch_size": 8, "gradient.minibatch_size": 4,
        "optimizer.use_slow_update": "false", "optimizer.use_meta_skill": "false", "evaluation.gate": "strict",
    }
    command = [sys.executable, "-c", "from skillopt.cli import main; main()", "run", "--env", "searchqa",
               "--backend", "openai-compatible", "--json", "--out", str(out)]
    for key, value in settings.items():
        command += ["--set", f"{key}={value}"]
    for value in extra:
        command += ["--set", value]
    return command


def driver_env(home: Path) -> dict[str, str]:
    env = dict(os.environ, SKILLOPT_HOME=str(home), **CLUSTER_ENV)
    env.pop("OPENAI_COMPATIBLE_BASE_URL", None)
    return env


@attrs.frozen
class Finished:
    """A finished ``skillopt run``: the driver's pid, exit status and output."""

    pid: int
    returncode: int
    stdout: str
    stderr: str


def start_skillopt(out: Path, server: SearchQAModelServer, *extra: str) -> subprocess.Popen:
    """``skillopt run`` started in the background (a driver the test may kill)."""
    return subprocess.Popen(run_command(out, server, *extra), env=driver_env(out.parent / "home"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def run_skillopt(out: Path, server: SearchQAModelServer, *extra: str, timeout: float = 120) -> Finished:
    proc = start_skillopt(out, server, *extra)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    return Finished(pid=proc.pid, returncode=proc.returncode, stdout=stdout, stderr=stderr)
