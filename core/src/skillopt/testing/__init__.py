"""Testing helpers for plugin authors (an opt-in pytest plugin).

Add ``pytest_plugins = ["skillopt.testing"]`` to your ``conftest.py`` to get:

* ``skillopt_home`` (autouse): ``SKILLOPT_HOME`` points at a temp dir and loaded
  plugins are forgotten between tests, so tests never touch the user's files;
* ``scripted_client``: a factory for a :class:`~skillopt.calls.ModelClient` around
  the deterministic :class:`ScriptedBackend`;
* ``run_cli``: invoke the ``skillopt`` CLI in-process;
* :func:`register_backend`: an in-process backend declaring what a provider backend
  declares (``small_model``, ``key_name``), so a plugin's tests need only the core and
  the plugin, not ``skillopt-backends``.

the contract checkers :func:`check_env_contract` and :func:`check_backend_contract`, and for
a real-model end-to-end test :func:`run_skillopt` with the :data:`requires_local_model` mark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from skillopt.scripted import ScriptedBackend, minimal_instance, request_text
from skillopt.testing.contracts import ContractError, check_backend_contract, check_env_contract
from skillopt.testing.local import CliRun, finished_run, local_model_available, requires_local_model, run_skillopt
from skillopt.testing.samples import check_sample_regenerates

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from typer.testing import Result

    from skillopt.calls import ModelClient
    from skillopt.scripted import Script

__all__ = [
    "CliRun",
    "ContractError",
    "ScriptedBackend",
    "check_backend_contract",
    "check_env_contract",
    "check_sample_regenerates",
    "finished_run",
    "local_model_available",
    "minimal_instance",
    "register_backend",
    "request_text",
    "requires_local_model",
    "run_skillopt",
]


@pytest.fixture(autouse=True)
def skillopt_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private ``SKILLOPT_HOME`` (config, keys, call cache, runs, sleep state) per test,
    and a fresh runtime (plugin host, registry, limiters, reporter: :mod:`skillopt.runtime`)
    before and after it: a test never reads or writes the user's files, and a plugin one
    test registers is gone in the next. Yields the path."""
    home = tmp_path_factory.mktemp("skillopt-home")
    monkeypatch.setenv("SKILLOPT_HOME", str(home))
    monkeypatch.delenv("SKILLOPT_DISABLE_PLUGINS", raising=False)
    from skillopt.runtime import reset

    reset()
    yield home
    reset()


@pytest.fixture
def scripted_client() -> Callable[..., ModelClient]:
    """A factory ``make(script=None, *, role="target", ledger=None, **client_kw)`` of
    :class:`~skillopt.api.ModelClient` around the deterministic scripted backend, with
    the real call pipeline (ledger, retries, schema re-asks) but no cache. ``script`` is
    ``request -> reply`` (a string, a dict for structured calls, or an exception to
    raise); the default answers every structured call with the smallest valid object."""
    from skillopt.calls import Ledger, ModelClient

    def make(script: Script | None = None, *, role: str = "target", ledger: Ledger | None = None, **kw: Any) -> ModelClient:
        return ModelClient(ScriptedBackend(script=script), role=role, ledger=ledger or Ledger(), cache=None, cache_mode="off", **kw)

    return make


@pytest.fixture
def run_cli() -> Callable[..., Result]:
    """``invoke(*args, input=None)`` runs ``skillopt ARGS`` in-process (a fresh app with
    the plugins of the current host, so in-process test plugins are seen) and returns
    typer's ``Result`` (``exit_code``, ``stdout``, ``output``). Exceptions propagate."""
    from typer.testing import CliRunner

    def invoke(*args: str, input: str | None = None) -> Result:
        from skillopt.cli import make_app

        return CliRunner().invoke(make_app(), list(args), input=input, catch_exceptions=False)

    return invoke


def register_backend(name: str, *, small_model: bool = False, key_name: str = "") -> type:
    """Register (in this process, for the current test) a backend named ``name`` that
    stands in for a provider's: it declares ``small_model`` (a model on this machine's
    CPU, as ``local`` does: envs pick their ``small`` preset) and the keys-file entry
    ``key_name`` it reads, and answers like :class:`ScriptedBackend`. Returns its class."""
    from skillopt.hookspecs import hookimpl
    from skillopt.plugins import get_host

    stand_in = type(f"StandIn_{name.replace('-', '_')}", (ScriptedBackend,),
                    {"name": name, "small_model": small_model, "key_name": key_name,
                     "__doc__": f"stand-in backend {name!r} (tests)"})

    class Plugin:
        @hookimpl
        def skillopt_register_backends(self, register: Callable[..., Any]) -> None:
            register(stand_in)

    get_host().register(Plugin(), name=f"stand-in-backend-{name}")
    return stand_in
