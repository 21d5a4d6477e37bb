"""Fixtures shared by the core's tests."""

from __future__ import annotations

import pytest

from skillopt.testing import run_cli, scripted_client, skillopt_home  # noqa: F401  (standalone runs)


@pytest.fixture
def toy_env():
    from toy import ToyEnv

    return ToyEnv(ToyEnv.Config(workers=4))
