"""Reaching Ray: importing it, joining or starting a cluster, with one-line errors.

A missing ``ray`` or an unreachable address is a configuration problem the user fixes
in one step, so each becomes a :class:`~skillopt.api.ConfigError` naming the package to
install or the address that did not answer, instead of Ray's own traceback.

An empty address starts a Ray of the run's own (``ray.init(address="local")``), even when
another Ray runs on the machine: a plain ``ray.init()`` joins the cluster ``ray start`` (or
a test's cluster) last wrote to ``/tmp/ray/ray_current_cluster`` (or ``RAY_ADDRESS``), which
refuses the run's ``num_cpus``, or a dead one. A Ray Client address (``ray://``) to a
cluster with token authentication needs the driver in token mode: when a token is there
(``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``) and ``RAY_AUTH_MODE``
is unset, token mode is switched on for this process, as Ray does for a GCS address.
"""

from __future__ import annotations

import logging
import os
import socket
from typing import Any

from skillopt.api import ConfigError

#: seconds to wait for a cluster's port before calling it unreachable
CONNECT_TIMEOUT_S = 5.0


def import_ray() -> Any:
    """The ``ray`` module, or a ConfigError saying what to install."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(
            f"engine.executor=ray needs Ray, which cannot be imported here ({exc}): pip install skillopt-executors-ray"
        ) from None
    return ray


def _host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of ``HOST:PORT`` or ``ray://HOST:PORT``; None for ``auto`` and ''."""
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not sep or not port.isdigit():
        return None
    return host.strip("[]") or "127.0.0.1", int(port)


def check_reachable(address: str) -> None:
    """Fail fast, naming the address, when nothing listens there (Ray would retry for a
    long time before saying less)."""
    target = _host_port(address)
    if target is None:
        if address not in ("", "auto"):
            raise ConfigError(f"engine.ray_address={address!r} is not an address: use '', 'auto', HOST:PORT or ray://HOST:10001")
        return
    try:
        with socket.create_connection(target, timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        raise ConfigError(
            f"cannot reach the Ray cluster at engine.ray_address={address!r} ({exc.strerror or exc}); "
            "start it (ray start --head) or fix the address"
        ) from None


def connect(address: str, *, local_cpus: int = 0) -> bool:
    """Join the cluster at ``address`` ('' = start a Ray of this run's own). Returns True
    when this call connected (its caller disconnects), False when Ray was already
    initialised in this process (an embedding application's)."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    check_reachable(address)
    options: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False, "configure_logging": True}
    token = ""
    if address:
        options["address"] = address
        if address.startswith("ray://"):
            token = client_token_mode()
    else:
        # "local": a new Ray even when RAY_ADDRESS or a running cluster would be joined
        options.update(address="local", include_dashboard=False, num_cpus=local_cpus or os.cpu_count() or 1)
    try:
        ray.init(**options)
    except (ConnectionError, TimeoutError, RuntimeError, ValueError) as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [type(exc).__name__]
        first = lines[0] + (f" {lines[-1]}" if lines[0].endswith(":") and len(lines) > 1 else "")  # Ray's reason is often last
        if not address:
            raise ConfigError(f"could not start a local Ray (engine.ray_address=''): {first}") from None
        hint = ""
        if address.startswith("ray://"):
            hint = ("; if the cluster uses token authentication, give the driver its token (RAY_AUTH_TOKEN or "
                    "~/.ray/auth_token) and set RAY_AUTH_MODE=token" if not token else
                    f"; the driver sent the cluster token from {token} (RAY_AUTH_MODE=token): check that it is this cluster's")
        raise ConfigError(f"cannot reach the Ray cluster at engine.ray_address={address!r}: {first}{hint}") from None
    return True


def client_token_mode() -> str:
    """Switch this process to Ray's token mode when a token is there and ``RAY_AUTH_MODE``
    is unset (a Ray Client connection otherwise sends no token, and a token cluster lets it
    time out). Returns where the token comes from ('' = none, or the mode was set)."""
    mode = os.environ.get("RAY_AUTH_MODE")
    where = token_source()
    if mode is not None:
        return where if mode.lower() == "token" else ""
    if not where:
        return ""
    try:
        from ray._private.authentication.authentication_token_setup import maybe_enable_token_auth_if_token_available
    except ImportError:  # a Ray without token authentication
        return ""
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)
    return where


def token_source() -> str:
    """Where Ray would read a cluster token from: the variable or file that holds one, or ''."""
    from pathlib import Path

    if os.environ.get("RAY_AUTH_TOKEN"):
        return "RAY_AUTH_TOKEN"
    for name, path in (("RAY_AUTH_TOKEN_PATH", os.environ.get("RAY_AUTH_TOKEN_PATH")), ("~/.ray/auth_token", "~/.ray/auth_token")):
        if path and Path(path).expanduser().is_file():
            return name
    return ""


def disconnect() -> None:
    ray = import_ray()
    if ray.is_initialized():
        ray.shutdown()
