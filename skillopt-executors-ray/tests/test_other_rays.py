"""The ``ray`` executor beside other Rays on the machine, and against a cluster with token
authentication through Ray Client.

- A local Ray (``engine.ray_address=''``) is the run's own even when another cluster is
  running: the session's test cluster (conftest.py) writes its address where ``ray.init()``
  looks (``/tmp/ray/ray_current_cluster``), and joining it refused the run's ``num_cpus``
  with "cannot reach the Ray cluster".
- Ray Client (``ray://``) to a cluster started with ``RAY_AUTH_MODE=token``: a driver that
  has the token (``RAY_AUTH_TOKEN``) but not ``RAY_AUTH_MODE`` timed out after 90 s with
  "ray client connection timeout"; it connects and the run finishes.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter

import pytest
from raykit import driver_env, run_command, run_skillopt
from searchqa_model import SearchQAModelServer

#: a failure is run again twice (pytest-rerunfailures): on a loaded 2-core machine a Ray beside
#: another failed about 1 run in 3 and passed when run again; a real fault fails all three
pytestmark = [pytest.mark.ray, pytest.mark.flaky(reruns=2, reruns_delay=5)]


def test_a_local_ray_is_the_runs_own_beside_a_running_cluster(tmp_path, ray_cluster):
    """The session's two-node cluster (2 CPUs) is the one a plain ``ray.init()`` would join;
    the run starts its own one-CPU Ray instead, so one worker actor serves the rollouts."""
    server = SearchQAModelServer(tmp_path / "data").start()
    try:
        done = run_skillopt(tmp_path / "run", server, "engine.executor=ray", "executors.ray.local_cpus=1",
                            "train.batch_size=4", "train.max_steps=1")
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    target = Counter(pid for clue, pid in server.senders if clue != "optimizer")
    assert len(target) == 1 and done.pid not in target  # one actor of the run's own 1-CPU Ray, not the cluster's two


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def token_cluster():
    """A one-node Ray with token authentication and a Ray Client server on 127.0.0.1
    (``ray start --head --block`` in its own process group and temp dir, stopped by
    killing that group): ``(ray:// address, token)``."""
    pytest.importorskip("ray")
    token = secrets.token_hex(16)
    gcs, client = _free_port(), _free_port()
    temp = tempfile.mkdtemp(prefix="rt", dir="/tmp")  # short: Ray's socket paths live under it
    env = dict(os.environ, RAY_TMPDIR=temp, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=token, RAY_USAGE_STATS_ENABLED="0",
               RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0",
               # the client server Ray starts per connection imports Ray first: 30 s is not
               # enough on a loaded 2-core machine ("Starting Ray client server failed")
               RAY_CLIENT_SERVER_CHECK_CHANNEL_TIMEOUT_S="150")
    ray_cli = [sys.executable, "-c", "from ray.scripts.scripts import main; main()"]
    head = subprocess.Popen([*ray_cli, "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={gcs}",
                             f"--ray-client-server-port={client}", "--num-cpus=1", "--include-dashboard=false",
                             "--disable-usage-stats"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert head.poll() is None, head.communicate()[1][-2000:]
            try:
                socket.create_connection(("127.0.0.1", client), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the token cluster's client server did not listen within 90 s"
                time.sleep(0.5)
        yield f"ray://127.0.0.1:{client}", token
    finally:
        os.killpg(head.pid, signal.SIGKILL)
        head.communicate()
        subprocess.run(["rm", "-rf", temp], check=False)


def test_ray_client_to_a_token_cluster_sends_the_token_the_driver_has(tmp_path, token_cluster):
    address, token = token_cluster
    server = SearchQAModelServer(tmp_path / "data").start()
    out = tmp_path / "run"
    env = driver_env(tmp_path / "home")
    env.pop("RAY_AUTH_MODE")  # the driver has the token, and no RAY_AUTH_MODE (docs/ray.md's case)
    env["RAY_AUTH_TOKEN"] = token
    command = run_command(out, server, "engine.executor=ray", f"engine.ray_address={address}", "train.batch_size=4",
                          "train.max_steps=1")
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180, check=False)
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr[-3000:]
    assert (out / "best_skill.md").is_file()
    assert any(clue != "optimizer" for clue, _pid in server.senders)  # rollouts ran on the cluster
