from __future__ import annotations

from skillopt.testing import run_cli, scripted_client, skillopt_home  # noqa: F401  (isolated SKILLOPT_HOME per test)


def pytest_configure(config):
    config.addinivalue_line("markers", "local_model: runs the real embedded SmolLM2 model through llama.cpp")
