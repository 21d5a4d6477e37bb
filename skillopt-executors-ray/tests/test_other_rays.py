"""The ``ray`` executor beside another Ray on the machine (Ray Client to a token cluster:
test_ray_client_token.py).

- A local Ray (``engine.ray_address=''``) is the run's own even when another cluster is
  running: the module's test cluster (conftest.py) writes its address where ``ray.init()``
  looks (``/tmp/ray/ray_current_cluster``), and joining it refused the run's ``num_cpus``
  with "cannot reach the Ray cluster".
"""

from __future__ import annotations

from collections import Counter

import pytest
from raykit import run_skillopt
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
