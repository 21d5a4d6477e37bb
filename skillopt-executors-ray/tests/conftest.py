"""A real Ray cluster on 127.0.0.1 for the tests marked ``ray``, and ``skillopt run`` against it.

The cluster is two nodes, a head and a worker, one CPU each, started by this process
(Ray's multi-node test cluster: real GCS, raylets and worker processes) and torn down
after the module; only its own processes are stopped. It uses Ray's loopback-only mode
(``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``: every node and the driver on 127.0.0.1), so it
listens on no other interface, and therefore runs without Ray's token (nothing is read
from or written to ``~/.ray``). Runs are the ``skillopt`` CLI in a fresh interpreter (the driver), so killing
the driver kills only that process.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from raykit import CLUSTER_ENV
from searchqa_model import SearchQAModelServer


@pytest.fixture(scope="module")
def ray_cluster():
    """``address`` of a two-node Ray cluster on 127.0.0.1 (head + one worker node, 1 CPU each),
    one per test module: it is gone before the next module starts its own Rays, so no test
    shares the two cores with an idle cluster it does not use."""
    pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    saved = {k: os.environ.get(k) for k in CLUSTER_ENV}
    os.environ.update(CLUSTER_ENV)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        yield cluster.address
    finally:
        cluster.shutdown()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture
def model_server(tmp_path):
    server = SearchQAModelServer(tmp_path / "data").start()
    yield server
    server.stop()
