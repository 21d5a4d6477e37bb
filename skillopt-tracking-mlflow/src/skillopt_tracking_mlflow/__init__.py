"""Log SkillOpt runs to MLflow: the resolved config (redacted) as params, every step's
scores, edits, budget, tokens and cost as metrics at that step, the initial skill's scores
(val baseline, test initial) at step 0, every skill version from the initial one
(``skills/skill_v0000.md``), the best skill, the history and the summary as artifacts; when
the final skill was picked among the kept ones, the pick's scores as metrics and its
rule, split and origin as ``skillopt.selection_*`` tags.

A tracker: it runs when the run names it (``tracking = ["mlflow"]``, ``--set
tracking=[mlflow]``) or when ``MLFLOW_TRACKING_URI`` is set. Without a URI it writes a
local SQLite store under SkillOpt's data dir (``mlflow ui --backend-store-uri
sqlite:///…/mlflow/mlflow.db`` shows it). A resumed run logs into the same MLflow run
(its id is kept in the run directory's ``tracking/mlflow.json``) and never logs a step
twice. MLflow is imported only when a run uses it.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import attrs

from skillopt.api import (
    data_dir,
    flat_params,
    hookimpl,
    remember,
    step_metrics,
    summary_metrics,
    summary_tags,
    to_data,
    tracker_memory,
)

#: an observer that sends runs to a store of its own: on only when asked (see the docstring)
TRACKER = True
NAME = "mlflow"
#: summary metrics that score the initial skill: charted at step 0, where that skill is
AT_STEP_0 = ("val_baseline", "test_initial_hard")


@attrs.frozen(kw_only=True)
class Config:
    #: MLflow tracking URI ('' = MLFLOW_TRACKING_URI, else a SQLite store in SkillOpt's data dir)
    tracking_uri: str = ""
    #: MLflow experiment ('' = skillopt-ENV)
    experiment: str = ""
    #: the MLflow run's name ('' = the run directory's name)
    run_name: str = ""


def enabled_by_environment() -> bool:
    """MLflow users point their tools at a server with ``MLFLOW_TRACKING_URI``."""
    return bool(os.environ.get("MLFLOW_TRACKING_URI"))


def local_store() -> tuple[str, str]:
    """(tracking URI, artifact root) of the default local store."""
    root = Path(data_dir()) / "mlflow"
    root.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{root / 'mlflow.db'}", (root / "artifacts").as_uri()


def artifact_root(uri: str) -> str | None:
    """Where a new experiment keeps its artifacts: beside a SQLite store's file (MLflow
    would otherwise use ``./mlruns`` under whatever folder the run was started from);
    a server or a file store decides for itself (None)."""
    if not uri.startswith("sqlite:///"):
        return None
    db = Path(uri[len("sqlite:///"):])
    return (db.parent / f"{db.stem}-artifacts").as_uri()


@attrs.define
class Session:
    client: Any
    run_id: str


_sessions: dict[str, Session] = {}
_lock = threading.Lock()


def _session(run, config: Config | None) -> Session:
    """The MLflow run of this SkillOpt run: the one remembered in the run directory (a
    resume), else a new one."""
    from mlflow import MlflowClient

    config = config or Config()
    key = str(run.out_dir)
    with _lock:
        if key in _sessions:
            return _sessions[key]
        uri = config.tracking_uri or os.environ.get("MLFLOW_TRACKING_URI", "")
        if uri:
            artifacts = artifact_root(uri)
        else:
            uri, artifacts = local_store()
        client = MlflowClient(tracking_uri=uri)
        memory = tracker_memory(run.out_dir, NAME)
        run_id = memory.get("run_id") if memory.get("tracking_uri") == uri else None
        if run_id is None:
            name = config.experiment or f"skillopt-{run.env}"
            found = client.get_experiment_by_name(name)
            experiment_id = found.experiment_id if found else client.create_experiment(name, artifact_location=artifacts)
            created = client.create_run(experiment_id, run_name=config.run_name or Path(run.out_dir).name,
                                        tags={"skillopt.env": run.env, "skillopt.mode": run.mode, "skillopt.out_dir": str(run.out_dir)})
            run_id = created.info.run_id
            remember(run.out_dir, NAME, run_id=run_id, tracking_uri=uri, last_step=0)
            _log_params(client, run_id, flat_params(run.config))
        _sessions[key] = Session(client=client, run_id=run_id)
        return _sessions[key]


def _log_params(client, run_id: str, params: dict[str, str]) -> None:
    from mlflow.entities import Param

    items = [Param(key, value) for key, value in params.items()]
    for start in range(0, len(items), 100):  # MLflow takes at most 100 params a batch
        client.log_batch(run_id, params=items[start:start + 100])


def _log_metrics(client, run_id: str, values: dict[str, float], step: int) -> None:
    from mlflow.entities import Metric

    if not values:
        return
    now = int(time.time() * 1000)
    client.log_batch(run_id, metrics=[Metric(key, value, now, step) for key, value in values.items()])


def _artifact(client, run_id: str, file: Path, folder: str | None = None) -> None:
    if file.is_file():
        client.log_artifact(run_id, str(file), folder)


@hookimpl
def skillopt_run_started(run, config):
    session = _session(run, config)
    session.client.set_tag(session.run_id, "skillopt.resumed", str(bool(run.resumed)).lower())
    session.client.update_run(session.run_id, status="RUNNING")


@hookimpl
def skillopt_step_finished(run, step, config):
    """Metrics at the step's number, and the skill the step left current; a step already
    logged (replayed on a resume) is skipped."""
    session = _session(run, config)
    if step.step <= int(tracker_memory(run.out_dir, NAME).get("last_step", 0)):
        return
    _log_metrics(session.client, session.run_id, step_metrics(step), step.step)
    _initial_skill(session, run)
    _artifact(session.client, session.run_id, Path(run.out_dir) / "skills" / f"skill_v{step.step:04d}.md", "skills")
    remember(run.out_dir, NAME, last_step=step.step)


def _initial_skill(session: Session, run) -> None:
    """``skills/skill_v0000.md`` once: it exists from the baseline on (after
    ``run_started``), and a run may stop before its first step."""
    if tracker_memory(run.out_dir, NAME).get("initial_skill"):
        return
    initial = Path(run.out_dir) / "skills" / "skill_v0000.md"
    if initial.is_file():
        _artifact(session.client, session.run_id, initial, "skills")
        remember(run.out_dir, NAME, initial_skill=True)


@hookimpl
def skillopt_run_finished(run, summary, config):
    session = _session(run, config)
    data = summary if isinstance(summary, dict) else to_data(summary)
    last = int(tracker_memory(run.out_dir, NAME).get("last_step", 0))
    metrics = summary_metrics(data)
    _log_metrics(session.client, session.run_id, {k: metrics.pop(k) for k in AT_STEP_0 if k in metrics}, 0)
    _log_metrics(session.client, session.run_id, metrics, last)
    _initial_skill(session, run)
    out = Path(run.out_dir)
    for name in ("summary.json", "eval_summary.json", "history.json", "best_skill.md"):
        _artifact(session.client, session.run_id, out / name)
    status = str(data.get("status", "finished" if run.mode == "eval" else ""))
    session.client.set_tag(session.run_id, "skillopt.status", status)
    for key, text in summary_tags(data).items():  # how the final skill was picked (a selection split, a rule)
        session.client.set_tag(session.run_id, f"skillopt.{key}", text)
    session.client.set_terminated(session.run_id, status="FINISHED" if status == "finished" else "FAILED")
    with _lock:
        _sessions.pop(str(run.out_dir), None)
