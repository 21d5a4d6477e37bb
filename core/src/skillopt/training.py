"""``skillopt.api.train``: the engine's door for a second client (Sleep's night, a notebook).

``skillopt run`` resolves config files, picks backends and shows progress around the
engine; a client that already holds a config, an env and its model clients needs only
the run itself: the run directory (locked while it runs, its config guarded like a
resume), the gate, the edit policy and the executor from the config, the trainer, and
the :class:`~skillopt.results.RunSummary` it ends with. The caller keeps what it
passed in (it closes its env and clients); what the door built it closes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from skillopt.calls import Ledger, ModelClient
    from skillopt.config.schema import RunConfig
    from skillopt.engine.observers import Observers
    from skillopt.engine.progress import NullReporter
    from skillopt.envs import Env
    from skillopt.gates import Gate
    from skillopt.policies import EditPolicy
    from skillopt.results import RunSummary


def train(
    cfg: RunConfig, env: Env, *, target: ModelClient, optimizer: ModelClient, out_dir: str | Path,
    ledger: Ledger | None = None, reporter: NullReporter | None = None, observers: Observers | None = None,
    policy: EditPolicy | None = None, gate: Gate | None = None, force_config: bool = False,
) -> RunSummary:
    """Train ``env``'s initial skill under ``cfg`` into ``out_dir`` (or resume the run there).

    ``ledger``: the calls' ledger with its budgets (default: the target client's);
    ``reporter``: progress lines (default: none); ``observers``: the run's observers
    (default: none, so a library call fires no installed tracker); ``policy`` and
    ``gate``: instances replacing the ones ``cfg`` names. A run directory holding a run
    with a different config is refused (:class:`~skillopt.errors.ConfigError`) unless
    ``force_config``."""
    from skillopt.config.loading import redacted_config_data
    from skillopt.engine.lock import RunLock
    from skillopt.engine.rundir import RunDir, write_json
    from skillopt.engine.session import build_executor, build_gate, build_policy, guard_resume
    from skillopt.engine.trainer import Trainer

    out = Path(out_dir).expanduser()
    cfg = attrs.evolve(cfg, out_dir=str(out))
    data = redacted_config_data(cfg)
    rundir = RunDir(out).ensure()
    lock = RunLock(rundir.root).acquire()  # a second run on this directory is refused before anything is written
    try:
        fingerprint, changes = guard_resume(rundir, data, force_config)
        write_json(rundir.config, data)
        executor = build_executor(cfg)
        try:
            trainer = Trainer(cfg=cfg, env=env, target=target, optimizer=optimizer, policy=policy or build_policy(cfg),
                              gate=gate or build_gate(cfg), out_dir=out, ledger=ledger, reporter=reporter,
                              observers=observers, config_data=data, executor=executor)
            return trainer.train(fingerprint, config_changes=changes, lock=lock)
        finally:
            executor.close()
    finally:
        lock.release()
