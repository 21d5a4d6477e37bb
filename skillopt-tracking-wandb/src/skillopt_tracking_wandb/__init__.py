"""Log SkillOpt runs to Weights & Biases: the resolved config (redacted) as the W&B
config, every step's scores, edits, budget, tokens and cost at that step, the run's
headline numbers in the W&B summary, and the skill versions, best skill, history and
summary as an artifact.

A tracker: it runs when the run names it (``tracking = ["wandb"]``) or when
``WANDB_PROJECT`` is set. Offline by default: no account and no network, the W&B run is
written under the run directory's ``wandb/`` folder, and ``wandb sync`` uploads it later.
A resumed run continues the same W&B run id (kept in ``tracking/wandb.json``) and never
logs a step twice. Each step is durable once logged: the observer waits until its row is
in the run's ``.wandb`` file (:mod:`skillopt_tracking_wandb.durable`), so a run killed
mid-step keeps every step it had logged. wandb is imported only when a run uses it; its
console capture is off, so SkillOpt's progress display is left alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

import attrs

from skillopt.api import hookimpl, remember, step_metrics, summary_metrics, summary_tags, to_data, tracker_memory, warn
from skillopt_tracking_wandb import durable

#: an observer that sends runs to a store of its own: on only when asked (see the docstring)
TRACKER = True
NAME = "wandb"


@attrs.frozen(kw_only=True)
class Config:
    #: W&B project ('' = WANDB_PROJECT, else skillopt-ENV)
    project: str = ""
    #: W&B entity (team or user; '' = your default)
    entity: str = ""
    #: ``offline`` (files only, sync later) or ``online``
    mode: str = attrs.field(default="offline", validator=attrs.validators.in_(("offline", "online")))
    #: where W&B writes its files ('' = the run directory)
    dir: str = ""


def enabled_by_environment() -> bool:
    """W&B users name their project with ``WANDB_PROJECT``."""
    return bool(os.environ.get("WANDB_PROJECT"))


_runs: dict[str, Any] = {}
_lock = threading.Lock()


def _run(run, config: Config | None):
    """The W&B run of this SkillOpt run, started (or resumed under its remembered id) once."""
    import wandb

    config = config or Config()
    key = str(run.out_dir)
    with _lock:
        if key in _runs:
            return _runs[key]
        memory = tracker_memory(run.out_dir, NAME)
        run_id = memory.get("run_id") or hashlib.sha256(str(Path(run.out_dir).resolve()).encode()).hexdigest()[:12]
        folder = Path(config.dir or run.out_dir)
        folder.mkdir(parents=True, exist_ok=True)
        settings = wandb.Settings(console="off", silent=True, x_disable_stats=True, disable_git=True, save_code=False,
                                  disable_job_creation=True, x_disable_machine_info=True,
                                  x_transaction_log_flush_interval=durable.FLUSH_INTERVAL_S)
        started = wandb.init(project=config.project or os.environ.get("WANDB_PROJECT") or f"skillopt-{run.env}",
                             entity=config.entity or None, name=Path(run.out_dir).name, id=run_id, resume="allow",
                             mode=config.mode, dir=str(folder), config=json.loads(json.dumps(run.config, default=str)),
                             job_type=run.mode,
                             tags=[run.env, run.mode], settings=settings, reinit="create_new")
        if not memory.get("run_id"):
            remember(run.out_dir, NAME, run_id=run_id, last_step=0, files=str(Path(started.dir).parent))
        _runs[key] = started
        return started


@hookimpl
def skillopt_run_started(run, config):
    _run(run, config)


@hookimpl
def skillopt_step_finished(run, step, config):
    """The step's numbers at its number; a step already logged (replayed on a resume) is
    skipped, as W&B requires steps to increase."""
    if step.step <= int(tracker_memory(run.out_dir, NAME).get("last_step", 0)):
        return
    started = _run(run, config)
    started.log(step_metrics(step), step=step.step, commit=True)  # commit: W&B holds a row open until the next step
    if not durable.wait_until_written(Path(started.settings.sync_file), step.step):
        warn(f"wandb: step {step.step} is not in {started.settings.sync_file} after {durable.WAIT_S:.0f} s; "
             "a kill now may lose it (`wandb sync` uploads what the file holds)")
    remember(run.out_dir, NAME, last_step=step.step)


@hookimpl
def skillopt_run_finished(run, summary, config):
    import wandb

    started = _run(run, config)
    data = summary if isinstance(summary, dict) else to_data(summary)
    started.summary.update({**summary_metrics(data), **summary_tags(data), "status": str(data.get("status", "finished"))})
    out = Path(run.out_dir)
    files = [p for p in (out / "summary.json", out / "eval_summary.json", out / "history.json", out / "best_skill.md") if p.is_file()]
    files += sorted((out / "skills").glob("skill_v*.md"))
    if files:
        artifact = wandb.Artifact(f"skills-{started.id}", type="skillopt-run")
        for file in files:
            artifact.add_file(str(file), name=str(file.relative_to(out)))
        started.log_artifact(artifact)
    started.finish(exit_code=0 if data.get("status", "finished") == "finished" else 1)
    with _lock:
        _runs.pop(str(run.out_dir), None)
        idle = not _runs and wandb.run is None
    if idle:  # finish() returns before W&B's writer has flushed the run file: end the session so it is whole now
        wandb.teardown()
