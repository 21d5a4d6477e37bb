"""Making a logged step durable: wait until its row is in the run's ``.wandb`` file.

W&B's service process buffers what ``run.log`` sends and writes its transaction log (the
``.wandb`` file ``wandb sync`` uploads) every ``x_transaction_log_flush_interval`` seconds
(15 by default). A training run killed in between (a kill -9, an out-of-memory kill, a
stopped container: the service dies with it) lost every step since the last write: the
step-1 row of a run killed during step 2 was gone. The observer asks for frequent writes
and, after logging a step, reads the file back until that step's row is there, so what
the run directory says was logged is in the file too.
"""

from __future__ import annotations

import json
import struct
import time
from collections.abc import Iterator
from pathlib import Path

#: how often the service writes its transaction log (seconds) when this plugin runs it
FLUSH_INTERVAL_S = 0.05
#: how long to wait for a step's row before going on without the guarantee
WAIT_S = 10.0

_BLOCK = 32 * 1024
_HEADER = 7  # the file's ``:W&B`` header, and each chunk's ``crc u32, length u16, type u8``
_FULL, _FIRST, _MIDDLE, _LAST = 1, 2, 3, 4


def _payloads(data: bytes) -> Iterator[bytes]:
    """The records' bytes in a ``.wandb`` file: LevelDB's log layout (32 KiB blocks of
    chunks; a record crossing a block is split FIRST, MIDDLE…, LAST). A torn tail (the
    service mid-write) ends the scan."""
    pos, pending = _HEADER, b""
    while pos + _HEADER <= len(data):
        room = _BLOCK - pos % _BLOCK
        if room < _HEADER:  # a block's tail too short for a chunk header is padding
            pos += room
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos:pos + _HEADER])
        if pos + _HEADER + length > len(data):
            return
        chunk = data[pos + _HEADER:pos + _HEADER + length]
        pos += _HEADER + length
        if kind == _FULL:
            pending = b""
            yield chunk
        elif kind == _FIRST:
            pending = chunk
        elif kind == _MIDDLE:
            pending += chunk
        elif kind == _LAST:
            yield pending + chunk
            pending = b""
        else:  # zero padding to the end of the block
            pos += room - _HEADER - length


def logged_steps(path: Path) -> set[int]:
    """The ``_step`` of every history row written to the ``.wandb`` file at ``path``."""
    from wandb.proto import wandb_internal_pb2

    try:
        data = path.read_bytes()
    except OSError:
        return set()
    steps = set()
    for payload in _payloads(data):
        record = wandb_internal_pb2.Record()
        try:
            record.ParseFromString(payload)
        except Exception:  # noqa: BLE001 - a torn record: not written yet
            break
        if record.WhichOneof("record_type") == "history":
            for item in record.history.item:
                if (item.key or "/".join(item.nested_key)) == "_step":
                    steps.add(int(json.loads(item.value_json)))
    return steps


def wait_until_written(path: Path, step: int, *, timeout_s: float = WAIT_S) -> bool:
    """Block until step ``step``'s row is in the file (True), or ``timeout_s`` passed."""
    deadline = time.monotonic() + timeout_s
    while True:
        if step in logged_steps(path):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(FLUSH_INTERVAL_S / 2)
