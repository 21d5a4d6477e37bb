"""Acceptance through the CLI on a realistic fixture home (seven agents, planted secrets).

``--backend scripted`` with ``fixtures/persona-rules.json`` stands in for a coding
model that follows the conventions written in the skill/memory it is shown (regex
rules over the prompt: with "uv run" in the documents it runs tests through uv).
"""

import hashlib
import json
import re
import subprocess
import sys


def _args(project, fixtures_dir, *extra):
    return (
        "--project",
        str(project),
        "--source",
        "auto",
        "--lookback-hours",
        "0",
        "--backend",
        "scripted",
        "--backend-option",
        f"rules={fixtures_dir / 'persona-rules.json'}",
        "--min-val",
        "1",
        "--json",
        *extra,
    )


def _tree(root):
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".skillopt-sleep" not in p.parts
    }


def _grep(roots, secrets):
    leaks = []
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                leaks += [(str(path), s) for s in secrets if s.encode() in data]
    return leaks


def test_dry_run_auto_finds_sessions_and_stores_no_secret(fixture_home, fixtures_dir, run_cli, skillopt_home, planted_secrets):
    _home, project = fixture_home
    res = run_cli("sleep", "dry-run", *_args(project, fixtures_dir))
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    harvest = out["report"]["harvest"]
    assert harvest["sessions"] == 7
    assert set(harvest["per_source"]) == {"claude-code", "codex", "copilot-cli", "vscode-copilot", "cursor", "opencode", "pi"}
    assert all(n == 1 for n in harvest["per_source"].values())
    assert out["staging"] is None
    assert not _grep([skillopt_home, project], planted_secrets), "a planted secret reached a file"
    assert not any(s in res.stdout for s in planted_secrets)


def test_run_adopt_rollback_round_trips_live_files(fixture_home, fixtures_dir, run_cli, skillopt_home, planted_secrets):
    _home, project = fixture_home
    before = _tree(project)
    res = run_cli("sleep", "run", *_args(project, fixtures_dir))
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["status"] == "accepted", out["reason"]
    assert _tree(project) == before, "run writes nothing live"
    assert not _grep([skillopt_home, project], planted_secrets)

    diff = json.loads(run_cli("sleep", "diff", "--project", str(project), "--json").stdout)
    assert any("+- " in d["diff"] for d in diff["diffs"])

    res = run_cli("sleep", "adopt", "--project", str(project), "--json")
    assert res.exit_code == 0, res.output
    assert _tree(project) != before
    status = json.loads(run_cli("sleep", "status", "--project", str(project), "--json").stdout)
    assert status["nights"] == 1 and status["adopted"] == [diff["night"]]

    res = run_cli("sleep", "rollback", "--project", str(project), "--json")
    assert res.exit_code == 0, res.output
    assert _tree(project) == before, "rollback restores the live files byte for byte"
    assert json.loads(run_cli("sleep", "status", "--project", str(project), "--json").stdout)["adopted"] == []


def test_adopt_with_nothing_staged_is_a_clear_error(tmp_path, run_cli):
    res = run_cli("sleep", "adopt", "--project", str(tmp_path))
    assert res.exit_code == 2 and "nothing staged" in res.output


def test_handoff_exits_3_with_prompts(fixture_home, run_cli):
    _home, project = fixture_home
    res = run_cli("sleep", "run", "--project", str(project), "--lookback-hours", "0", "--backend", "handoff", "--json")
    assert res.exit_code == 3, res.output
    out = json.loads(res.stdout)
    assert out["status"] == "handoff_pending" and out["prompts"] > 0


def test_tasks_file_must_be_reviewed(fixture_home, fixtures_dir, run_cli, tmp_path):
    _home, project = fixture_home
    tasks = tmp_path / "tasks.json"
    assert run_cli("sleep", "harvest", "--project", str(project), "--lookback-hours", "0", "--output", str(tasks)).exit_code == 0
    res = run_cli("sleep", "run", *_args(project, fixtures_dir, "--tasks-file", str(tasks)))
    assert res.exit_code == 2 and "reviewed" in res.output
    data = json.loads(tasks.read_text())
    data["reviewed"] = True
    data["tasks"][0]["checks"] = [{"op": "regex", "value": "(", "why": "typo"}]
    tasks.write_text(json.dumps(data))
    res = run_cli("sleep", "run", *_args(project, fixtures_dir, "--tasks-file", str(tasks)))
    assert res.exit_code == 2 and "malformed regex" in res.output


def test_python_module_entry_point(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "skillopt_sleep", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "adopt" in proc.stdout


def test_auto_adopt_is_opt_in_and_undoable(fixture_home, fixtures_dir, run_cli):
    _home, project = fixture_home
    before = _tree(project)
    out = json.loads(run_cli("sleep", "run", *_args(project, fixtures_dir, "--auto-adopt")).stdout)
    assert out["status"] == "accepted" and out["adopted"] is True
    assert _tree(project) != before
    assert run_cli("sleep", "rollback", "--project", str(project)).exit_code == 0
    assert _tree(project) == before


def test_a_night_shows_its_backends_stages_and_replays_on_stderr(fixture_home, fixtures_dir, run_cli, planted_secrets):
    _home, project = fixture_home
    res = run_cli("sleep", "dry-run", *_args(project, fixtures_dir))
    assert res.exit_code == 0, res.output
    json.loads(res.stdout)  # stdout stays one JSON document
    err = res.stderr
    assert "backends: optimizer scripted" in err and "target scripted" in err
    assert "harvest: 7 session(s)" in err
    assert "; 300 s per call" in err, "the per-call deadline is shown (scripted stands in for the embedded model)"
    flat = " ".join(err.split())  # rich wraps long lines
    assert re.search(r"mine: \d+ intent\(s\) in \d+ cluster\(s\), \d+ recurring; \d+ task\(s\) with \d+ check\(s\) a generic answer fails", flat)
    out = json.loads(res.stdout)
    assert f"tasks: {out['report']['mining']['tasks']} (" in err
    assert "replay baseline-val: 4 attempt(s), mixed 0.00" in err  # every replay: attempts, score, seconds
    assert "gate edit 1: " in err and ": accept (" in err
    assert not any(s in err for s in planted_secrets)


def test_the_night_summary_rounds_scores_and_never_prints_none(fixture_home, fixtures_dir, run_cli):
    _home, project = fixture_home
    args = [a for a in _args(project, fixtures_dir) if a != "--json"]
    res = run_cli("sleep", "dry-run", *args)
    assert res.exit_code == 0, res.output
    assert "  backends: optimizer scripted scripted, target scripted scripted" in res.output, "the summary names the backend"
    summary = next(line for line in res.output.splitlines() if "sessions" in line and " val " in line)
    assert re.search(r"val (\d\.\d\d|not measured) → (\d\.\d\d|not measured),", summary), summary
    assert "None" not in res.output


def test_skipped_lines_and_unreadable_stores_are_reported_to_people(fixture_home, fixtures_dir, run_cli):
    """Regression: corrupt JSONL lines were skipped without a count, and a broken SQLite
    store's warning appeared only with --json."""
    home, project = fixture_home
    rollout = next((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    with rollout.open("a", encoding="utf-8") as fh:
        fh.write('{"timestamp": "2025-09-15T10:03:00Z", "type": "event_msg", "payload": {"type": "agent_mess\n[1, 2]\n')
    store = home / ".local" / "share" / "opencode" / "opencode.db"
    store.write_bytes(b"this is not a sqlite database" * 40)
    night_args = [a for a in _args(project, fixtures_dir) if a != "--json"]
    for command, args in (("harvest", ["--project", str(project), "--lookback-hours", "0"]), ("dry-run", night_args)):
        res = run_cli("sleep", command, *args)
        assert res.exit_code == 0, res.output
        assert "codex: 2 line(s) were not JSON and were skipped" in res.stderr, res.stderr
        assert "unreadable: opencode: DatabaseError" in res.stderr, res.stderr


def test_the_local_backend_hint_names_this_commands_flags(fixture_home, run_cli, tmp_path):
    """Regression: the local backend's hint said `--set model.local_path=…`, which
    `skillopt sleep run` does not accept; here it names `--model /path/to/model.gguf`,
    and that flag does pick the GGUF file."""
    _home, project = fixture_home
    base = ("sleep", "dry-run", "--project", str(project), "--lookback-hours", "0", "--backend", "local")
    res = run_cli(*base, "--model", "gpt-4o")
    assert res.exit_code == 2, res.output
    assert "--model /path/to/model.gguf" in res.output and "--set" not in res.output and "model.local_path" not in res.output
    missing = tmp_path / "mine.gguf"
    res = run_cli(*base, "--model", str(missing))
    assert res.exit_code == 2 and f"--model: no such GGUF file: {missing}" in " ".join(res.output.split()), res.output
