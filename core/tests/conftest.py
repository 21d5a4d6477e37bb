"""Fixtures shared by the core's tests."""

from __future__ import annotations

import pytest

from skillopt.testing import run_cli, scripted_client, skillopt_home  # noqa: F401  (standalone runs)


@pytest.fixture
def toy_env():
    from toy import ToyEnv

    return ToyEnv(ToyEnv.Config(workers=4))


@pytest.fixture
def toy_registered():
    """The toy env registered in-process (a stand-in benchmark, see toy.py); returns its class."""
    from toy import ToyEnv

    from skillopt.api import hookimpl
    from skillopt.plugins import get_host

    class Plugin:
        @hookimpl
        def skillopt_register_envs(self, register):
            register(ToyEnv)

    get_host().register(Plugin(), name="toy-plugin")
    return ToyEnv
