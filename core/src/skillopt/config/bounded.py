"""Reading a config file with every cost bounded, whatever the path names.

A config path comes from a user, a shared upstream config (``_base_: ../x.yaml``) or a
model's tool call, and each of these once made ``skillopt`` hang or crash: a FIFO or
``/dev/zero`` read forever, a 70 MB TOML of comments parsed for minutes, a 1 KB YAML
alias bomb (9 anchors of 9 references each) expanded into 387 million values, and a
directory raised ``IsADirectoryError``. Here:

* only a regular file is read, opened without blocking (a FIFO cannot stall the open),
  and at most :data:`MAX_CONFIG_BYTES` of it;
* a document may hold at most :data:`MAX_YAML_VALUES` values, a YAML one counted with
  every alias expanded as the code after the load would walk it (the count stops at
  the limit, so the check itself is bounded), nested at most :data:`MAX_DEPTH` deep;
* every refusal is a :class:`~skillopt.errors.ConfigError` naming the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from skillopt.errors import ConfigError

#: the largest config file read (upstream's largest shipped config is under 4 KB)
MAX_CONFIG_BYTES = 1024 * 1024
#: the most values a config may hold (a YAML config: with its aliases expanded)
MAX_YAML_VALUES = 100_000
#: the deepest nesting of sections, tables and lists in a config
MAX_DEPTH = 32


def read_config_bytes(path: Path, what: str = "config file") -> bytes:
    """The bytes of the regular file ``path``, at most :data:`MAX_CONFIG_BYTES`.
    FileNotFoundError passes through (callers word it with their context)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise ConfigError(f"{what} {path} is a directory; pass a file") from None
    except OSError as exc:
        raise ConfigError(f"{what} {path} cannot be opened ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ConfigError(f"{what} {path} is a directory; pass a file")
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"{what} {path} is not a regular file (a pipe, socket or device); pass a file")
        if info.st_size > MAX_CONFIG_BYTES:
            raise ConfigError(f"{what} {path} is {info.st_size:,} bytes; a config file may hold at most "
                              f"{MAX_CONFIG_BYTES:,}")
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while total <= MAX_CONFIG_BYTES:
            chunk = os.read(fd, MAX_CONFIG_BYTES + 1 - total)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > MAX_CONFIG_BYTES:
            raise ConfigError(f"{what} {path} grew past {MAX_CONFIG_BYTES:,} bytes while it was read")
        return b"".join(chunks)
    except OSError as exc:
        raise ConfigError(f"{what} {path} cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def read_config_text(path: Path, what: str = "config file") -> str:
    """:func:`read_config_bytes` decoded as UTF-8, with a refusal naming the byte."""
    data = read_config_bytes(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None


def load_yaml(text: str, where: str) -> Any:
    """``yaml.safe_load`` of ``text``, checked by :func:`check_shape`. YAML syntax errors
    pass through (callers word them)."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except RecursionError:
        raise ConfigError(f"{where}: nested too deeply to read as YAML") from None
    check_shape(data, where)
    return data


def check_shape(data: Any, where: str) -> None:
    """Refuse config data past :data:`MAX_YAML_VALUES` values (shared parts counted each
    time they are reached, as the code reading it would walk them; cyclic data included)
    or nested deeper than :data:`MAX_DEPTH`. The walk stops at the first limit it passes."""
    count, stack = 0, [(data, 1)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > MAX_YAML_VALUES:
            raise ConfigError(f"{where}: expands to more than {MAX_YAML_VALUES:,} values (YAML aliases repeating "
                              "aliases?); a config holds a few hundred")
        if depth > MAX_DEPTH:
            raise ConfigError(f"{where}: nested more than {MAX_DEPTH} levels deep; a config holds sections of keys")
        if isinstance(item, dict):
            stack.extend((value, depth + 1) for value in item.values())
            count += len(item)  # the keys
        elif isinstance(item, (list, tuple)):
            stack.extend((value, depth + 1) for value in item)
