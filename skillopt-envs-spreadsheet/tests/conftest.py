"""Shared fixtures: the skillopt testing plugin, real workbooks, one sandbox per session."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # for sheet_helpers (the root config adds other test dirs)

from sheet_helpers import write_xlsx

from skillopt.testing import run_cli, scripted_client, skillopt_home  # noqa: F401  (pytest_plugins lives in the root conftest)


@pytest.fixture
def xlsx(tmp_path):
    def make(name: str, sheets: dict[str, list[list]]) -> Path:
        return write_xlsx(tmp_path / name, sheets)

    return make


@pytest.fixture(scope="session")
def sandbox():
    from skillopt_envs_spreadsheet.sandbox import Limits, Sandbox

    return Sandbox(Limits(wall_s=20, cpu_s=10))


@pytest.fixture(scope="session")
def namespaces_available():
    from skillopt_envs_spreadsheet.sandbox import namespace_prefix

    return bool(namespace_prefix("auto"))


def pytest_configure(config):
    # registered here too, so the tests run outside the monorepo (only skillopt-core installed)
    config.addinivalue_line("markers", "local_model: runs the real embedded SmolLM2 model through llama.cpp")
    config.addinivalue_line("markers", "slow: takes more than a few seconds")
