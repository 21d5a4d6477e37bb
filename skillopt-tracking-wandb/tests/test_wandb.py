"""A real ``skillopt run`` (SearchQA on the scripted backend) logged to W&B in offline
mode, read back from the offline run file W&B wrote (no account, no network)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

pytest.importorskip("skillopt_envs_searchqa")
from wandb.proto import wandb_internal_pb2

BLOCK = 32 * 1024
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


def read_records(path: Path):
    """The protobuf records of a ``.wandb`` file: a 7-byte ``:W&B`` header, then the
    LevelDB log layout (32 KiB blocks of chunks, each ``crc u32, length u16, type u8``;
    a record spans chunks FIRST..MIDDLE..LAST when it crosses a block)."""
    data = path.read_bytes()
    assert data[:4] == b":W&B", path
    pos, pending = 7, b""
    while pos + 7 <= len(data):
        room = BLOCK - pos % BLOCK
        if room < 7:  # a block's tail too short for a chunk header is padding
            pos += room
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos:pos + 7])
        chunk = data[pos + 7:pos + 7 + length]
        pos += 7 + length
        if kind == FULL:
            pending = b""
            payload = chunk
        elif kind in (FIRST, MIDDLE):
            pending = (b"" if kind == FIRST else pending) + chunk
            continue
        elif kind == LAST:
            payload, pending = pending + chunk, b""
        else:  # zero padding up to the end of the block
            pos += room - 7 - length
            continue
        record = wandb_internal_pb2.Record()
        record.ParseFromString(payload)
        yield record


def history_rows(records):
    rows = []
    for r in records:
        if r.WhichOneof("record_type") == "history":
            rows.append({"/".join(item.nested_key) or item.key: json.loads(item.value_json) for item in r.history.item})
    return rows


def run_args(out, *extra):
    return ("run", "--env", "searchqa", "--backend", "scripted", "--out", str(out), "--set", "env.limit=8",
            "--set", "train.batch_size=4", "--set", "train.max_steps=2", *extra, "--json")


@pytest.fixture(autouse=True)
def no_wandb_environment(monkeypatch):
    for var in ("WANDB_PROJECT", "WANDB_MODE", "WANDB_API_KEY", "WANDB_ENTITY", "WANDB_DIR"):
        monkeypatch.delenv(var, raising=False)


def test_a_run_is_written_offline_and_a_resume_logs_no_step_twice(run_cli, tmp_path):
    out = tmp_path / "capitals-run"
    args = run_args(out, "--set", "tracking=[wandb]", "--set", "observers.wandb.project=skill-training")
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    memory = json.loads((out / "tracking" / "wandb.json").read_text())
    [file] = sorted((out / "wandb").glob("offline-run-*/run-*.wandb"))
    records = list(read_records(file))
    [run] = [r.run for r in records if r.WhichOneof("record_type") == "run"]
    assert run.project == "skill-training" and run.display_name == "capitals-run" and run.run_id == memory["run_id"]
    config = {item.key: json.loads(item.value_json) for item in run.config.update}
    assert config["env"]["name"] == "searchqa" and config["train"]["max_steps"] == 2

    history = [h for h in json.loads((out / "history.json").read_text()) if h.get("kind", "step") == "step"]
    assert [h["step"] for h in history] == [1, 2]
    rows = history_rows(records)
    assert [(row["_step"], row["current_score"], row["edit_budget"]) for row in rows] == \
        [(h["step"], h["current_score"], h["edit_budget"]) for h in history]
    summary = json.loads((out / "summary.json").read_text())
    final = {}
    for r in records:
        if r.WhichOneof("record_type") == "summary":
            final.update({"/".join(u.nested_key) or u.key: json.loads(u.value_json) for u in r.summary.update})
    assert final["test_best_hard"] == summary["test"]["best"]["hard"] and final["status"] == "finished"
    [artifact] = [r.artifact for r in records if r.WhichOneof("record_type") == "artifact"]
    stored = {entry.path for entry in artifact.manifest.contents}
    assert {"best_skill.md", "summary.json", "history.json", "skills/skill_v0001.md", "skills/skill_v0002.md"} <= stored
    assert any(r.WhichOneof("record_type") == "exit" for r in records)

    again = run_cli(*args)  # the finished run again: the engine replays its steps to the observers
    assert again.exit_code == 0, again.output
    files = sorted((out / "wandb").glob("offline-run-*/run-*.wandb"))
    assert len(files) == 2 and all(f.name == f"run-{memory['run_id']}.wandb" for f in files)  # the same W&B run, resumed
    assert history_rows(read_records(files[-1])) == []


def test_off_unless_the_run_or_the_environment_asks(run_cli, tmp_path, monkeypatch):
    quiet = run_cli(*run_args(tmp_path / "quiet"))
    assert quiet.exit_code == 0, quiet.output
    assert not (tmp_path / "quiet" / "wandb").exists()
    monkeypatch.setenv("WANDB_PROJECT", "from-environment")
    asked = run_cli(*run_args(tmp_path / "asked"))
    assert asked.exit_code == 0, asked.output
    [file] = list((tmp_path / "asked" / "wandb").glob("offline-run-*/run-*.wandb")) or [asked.output]
    [run] = [r.run for r in read_records(file) if r.WhichOneof("record_type") == "run"]
    assert run.project == "from-environment"


@pytest.mark.slow
def test_a_step_logged_before_a_kill_is_in_the_file_and_the_resume_adds_the_rest(tmp_path):
    """A real ``kill -9`` of the run's process group (the run and W&B's service with it)
    right after step 1 was logged: step 1's row is in the ``.wandb`` file, and the resumed
    run adds the later steps without repeating it."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "killed-run"
    command = [sys.executable, "-c", "from skillopt.cli import main; main()",
               *run_args(out, "--set", "tracking=[wandb]", "--set", "model.options.delay_s=0.2", "--set", "env.workers=1")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("WANDB_")}
    env["SKILLOPT_HOME"] = str(tmp_path / "home")
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    memory = out / "tracking" / "wandb.json"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if memory.is_file() and json.loads(memory.read_text() or "{}").get("last_step", 0) >= 1:
                break
            time.sleep(0.01)
        assert proc.poll() is None, "the run ended before the test could kill it"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    [file] = sorted((out / "wandb").glob("offline-run-*/run-*.wandb"))
    first = {h["step"]: h for h in json.loads((out / "history.json").read_text()) if h.get("kind", "step") == "step"}
    rows = history_rows(read_records(file))
    assert rows and rows[0]["_step"] == 1 and rows[0]["current_score"] == first[1]["current_score"]

    resumed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert resumed.returncode == 0, resumed.stderr
    history = [h for h in json.loads((out / "history.json").read_text()) if h.get("kind", "step") == "step"]
    files = sorted((out / "wandb").glob("offline-run-*/run-*.wandb"))
    logged = [row["_step"] for f in files for row in history_rows(read_records(f))]
    assert sorted(logged) == [h["step"] for h in history] == [1, 2]


def test_the_final_pick_on_a_selection_split_is_in_the_summary(run_cli, tmp_path):
    out = tmp_path / "picked-run"
    result = run_cli(*run_args(out, "--set", "tracking=[wandb]", "--set", "evaluation.selection_split=carved",
                               "--set", "search.select=smallest"))
    assert result.exit_code == 0, result.output
    pick = json.loads((out / "summary.json").read_text())["selection"]
    [file] = sorted((out / "wandb").glob("offline-run-*/run-*.wandb"))
    final = {}
    for r in read_records(file):
        if r.WhichOneof("record_type") == "summary":
            final.update({"/".join(u.nested_key) or u.key: json.loads(u.value_json) for u in r.summary.update})
    assert final["selection_split"] == "selection" == pick["split"] and final["selection_rule"] == "smallest"
    assert final["selection_origin"] == pick["origin"] and final["selection_accuracy"] == pick["objectives"]["accuracy"]
