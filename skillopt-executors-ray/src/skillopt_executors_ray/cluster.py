"""Reaching Ray: importing it, joining or starting a cluster, with one-line errors.

A missing ``ray`` or an unreachable address is a configuration problem the user fixes
in one step, so each becomes a :class:`~skillopt.api.ConfigError` naming the package to
install or the address that did not answer, instead of Ray's own traceback.
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
    """Join the cluster at ``address`` ('' = start a local one). Returns True when this
    call connected (its caller disconnects), False when Ray was already initialised in
    this process (an embedding application's)."""
    ray = import_ray()
    if ray.is_initialized():
        return False
    check_reachable(address)
    options: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False, "configure_logging": True}
    if address:
        options["address"] = address
    else:
        options.update(include_dashboard=False, num_cpus=local_cpus or os.cpu_count() or 1)
    try:
        ray.init(**options)
    except (ConnectionError, TimeoutError, RuntimeError, ValueError) as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [type(exc).__name__]
        first = lines[0] + (f" {lines[-1]}" if lines[0].endswith(":") and len(lines) > 1 else "")  # Ray's reason is often last
        where = f"engine.ray_address={address!r}" if address else "a local Ray (engine.ray_address='')"
        raise ConfigError(f"cannot reach the Ray cluster at {where}: {first}") from None
    return True


def disconnect() -> None:
    ray = import_ray()
    if ray.is_initialized():
        ray.shutdown()
