"""Ray Client (``ray://``) to a cluster started with ``RAY_AUTH_MODE=token``.

A driver that has the token (``RAY_AUTH_TOKEN``) but not ``RAY_AUTH_MODE`` timed out after
90 s with "ray client connection timeout"; it connects and the run finishes. This module has
no other cluster beside the token one (conftest.py's cluster lives per module), so the client
server Ray starts per connection shares the two cores with nothing else of the tests'.
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
from pathlib import Path

import pytest
from raykit import driver_env, run_command
from searchqa_model import API_KEY, SearchQAModelServer

#: a failure is run again twice (pytest-rerunfailures), each time on a new token cluster
pytestmark = [pytest.mark.ray, pytest.mark.flaky(reruns=2, reruns_delay=5)]


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
               # the workers' own key for the loopback model (set here: not only while the session cluster lives)
               OPENAI_COMPATIBLE_API_KEY=API_KEY,
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
        yield f"ray://127.0.0.1:{client}", token, Path(temp)
    finally:
        os.killpg(head.pid, signal.SIGKILL)
        head.communicate()
        subprocess.run(["rm", "-rf", temp], check=False)


def _client_server_logs(temp: Path) -> str:
    """The tails of the logs of the client servers Ray started per connection: when one dies,
    Ray's error only names its log file, which is inside the cluster's temp dir."""
    tails = [f"\n--- {log.name}\n{log.read_text(errors='replace')[-2000:]}"
             for log in sorted(temp.glob("**/ray_client_server*.err")) + sorted(temp.glob("**/ray_client_server*.out"))]
    return "".join(tails)


def test_ray_client_to_a_token_cluster_sends_the_token_the_driver_has(tmp_path, token_cluster):
    address, token, temp = token_cluster
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
    assert done.returncode == 0, done.stderr[-3000:] + _client_server_logs(temp)
    assert (out / "best_skill.md").is_file()
    assert any(clue != "optimizer" for clue, _pid in server.senders)  # rollouts ran on the cluster
