"""Secrets never reach a file, and corrupt input gets a one-paragraph error that loses nothing.

The toy env and the scripted backend stand in for a benchmark and a model (toy.py); the
scripted backend's rules make the "provider" echo a key back, as real providers do in
"Incorrect API key provided: …" errors."""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path

import pytest

CANARY = "canary-key-7f3a9d2e41b8c6"


def files_containing(root: Path, needle: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def run_args(out: Path, *extra: str) -> tuple[str, ...]:
    return ("run", "--env", "toy", "--backend", "scripted", "--out", str(out), "--epochs", "1", "--set", "train.max_steps=1",
            *extra, "--json")


# --------------------------------------------------------------------------- secrets


def test_a_key_in_the_base_url_is_never_shown_or_stored(run_cli, toy_registered, tmp_path, skillopt_home):
    url = f"https://user:{CANARY}@models.example.com/v1?api-key={CANARY}x&region=eu"
    shown = run_cli("config", "show", "--env", "toy", "--set", f"model.base_url={url}")
    assert shown.exit_code == 0 and CANARY not in shown.output and "region=eu" in shown.output
    result = run_cli(*run_args(tmp_path / "run", "--set", f"model.base_url={url}"))
    assert result.exit_code == 0, result.output
    assert CANARY not in result.output
    assert files_containing(tmp_path / "run", CANARY) == []
    assert "models.example.com" in (tmp_path / "run" / "config.json").read_text()  # the rest stays readable


def test_a_key_the_provider_echoes_is_scrubbed_before_cache_files_and_optimizer(run_cli, toy_registered, tmp_path, skillopt_home):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"stage": "rollout", "match": ".", "reply": f"Incorrect API key provided: {CANARY}"}]))
    result = run_cli(*run_args(tmp_path / "run", "--set", f"model.api_key={CANARY}", "--set", f"model.options.rules={rules}"))
    assert result.exit_code == 0, result.output
    assert files_containing(tmp_path / "run", CANARY) == []
    caches = list((skillopt_home).rglob("calls.sqlite3*"))
    assert caches and files_containing(skillopt_home, CANARY) == []
    for cache in caches:
        assert stat.S_IMODE(cache.stat().st_mode) == 0o600, cache


def test_a_key_given_to_a_dashboard_launch_goes_to_the_child_only(tmp_path, toy_registered):
    from skillopt.ui.launch import Launcher

    launcher = Launcher(tmp_path / "runs")
    started = {}
    launcher._start = lambda run_id, run_dir, argv, append: started.update(argv=argv, env=launcher._secrets) or {
        "id": run_id, "command": ["skillopt", *argv[3:]]}
    reply = launcher.launch({"env": "toy", "backend": "scripted", "set": [f"model.target.api_key={CANARY}"]})
    saved = next((tmp_path / "runs" / ".dashboard-logs").glob("*.argv.json"))
    assert CANARY not in saved.read_text() and CANARY not in json.dumps(reply) and CANARY not in " ".join(started["argv"])
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert "model.target.api_key_env=SKILLOPT_DASHBOARD_MODEL_TARGET_API_KEY" in started["argv"]
    assert started["env"] == {"SKILLOPT_DASHBOARD_MODEL_TARGET_API_KEY": CANARY}


# --------------------------------------------------------------------------- corrupt input


def one_paragraph_error(result) -> str:
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    return " ".join(result.output.split())


def test_bad_config_files_are_named_errors(run_cli, toy_registered, tmp_path):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes("[train]\n# caf\xe9\nseed = 1\n".encode("latin-1"))
    assert "not UTF-8" in one_paragraph_error(run_cli("config", "show", "--env", "toy", "--config", str(bad)))
    assert "is a directory" in one_paragraph_error(run_cli("config", "show", "--env", "toy", "--config", str(tmp_path)))


def test_out_naming_a_file_is_refused(run_cli, toy_registered, tmp_path):
    out = tmp_path / "notes.txt"
    out.write_text("keep me")
    assert "is a file" in one_paragraph_error(run_cli(*run_args(out)))
    assert out.read_text() == "keep me"


def test_skill_files_non_utf8_or_oversized(run_cli, toy_registered, tmp_path):
    latin = tmp_path / "skill.md"
    latin.write_bytes("R\xe9pondre en majuscules".encode("latin-1"))
    assert "not UTF-8" in one_paragraph_error(run_cli("eval", "--env", "toy", "--backend", "scripted", "--skill", str(latin)))
    huge = tmp_path / "huge.md"
    huge.write_text("- rule\n" * 800_000)
    message = one_paragraph_error(run_cli(*run_args(tmp_path / "run", "--set", f"env.skill_init={huge}")))
    assert "at most 200,000 characters" in message


def checksums(root: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.name.startswith(skip)}


def test_a_truncated_history_is_rebuilt_from_the_step_records(run_cli, toy_registered, tmp_path):
    out = tmp_path / "run"
    assert run_cli(*run_args(out)).exit_code == 0
    good = json.loads((out / "history.json").read_text())
    text = (out / "history.json").read_text()
    (out / "history.json").write_text(text[: len(text) // 2])
    again = run_cli(*run_args(out))
    assert again.exit_code == 0, again.output
    assert "Traceback" not in again.output and "rebuilt it from 1 step records" in again.output
    assert json.loads((out / "history.json").read_text()) == good
    assert list(out.glob("history.json.damaged-*"))  # the damaged copy is kept


def test_a_wrongly_shaped_state_file_stops_the_run_clearly_and_hides_no_other_run(run_cli, toy_registered, tmp_path):
    runs = tmp_path / "runs"
    assert run_cli(*run_args(runs / "good")).exit_code == 0
    assert run_cli(*run_args(runs / "bad")).exit_code == 0
    (runs / "bad" / "runtime_state.json").write_text("[1, 2]")
    before = checksums(runs / "bad")
    message = one_paragraph_error(run_cli(*run_args(runs / "bad")))
    assert "runtime_state.json holds a JSON list" in message and "move it aside" in message
    assert checksums(runs / "bad") == before  # nothing was touched
    listed = {r["id"]: r for r in json.loads(run_cli("runs", "--runs-dir", str(runs), "--json").stdout)}
    assert listed["good"]["status"] == "finished" and "bad" in listed


def test_a_damaged_cache_is_moved_aside_and_calls_go_on(tmp_path, capsys):
    from skillopt.api import Completion, CompletionRequest, Message
    from skillopt.calls.cache import CallCache

    path = tmp_path / "cache" / "calls.sqlite3"
    path.parent.mkdir()
    path.write_bytes(b"this is not a database" * 100)
    cache = CallCache(path)
    assert "is damaged" in capsys.readouterr().err
    assert list(path.parent.glob("calls.sqlite3.damaged-*"))
    request = CompletionRequest(messages=(Message(role="user", content="hi"),))
    cache.put("k", {"backend": "x"}, request, Completion(text="answer"))
    assert cache.get("k").text == "answer"
    cache.close()


def test_a_cache_that_breaks_mid_run_is_switched_off_without_losing_the_call(tmp_path, capsys):
    from skillopt.api import Completion, CompletionRequest, Message
    from skillopt.calls.cache import CallCache

    cache = CallCache(tmp_path / "calls.sqlite3")
    cache._conn().execute("DROP TABLE calls")
    request = CompletionRequest(messages=(Message(role="user", content="hi"),))
    cache.put("k", {}, request, Completion(text="paid for"))  # must not raise
    assert cache.get("k") is None and cache.broken
    assert "continuing without it" in capsys.readouterr().err
    cache.close()


# --------------------------------------------------------------------------- dashboard and messages


def test_error_messages_keep_bracketed_text(run_cli, toy_registered, tmp_path):
    bad = tmp_path / "[weird] dir" / "c.toml"
    bad.parent.mkdir()
    bad.write_text("[train]\nbatch_size = [1\n")
    message = one_paragraph_error(run_cli("config", "show", "--env", "toy", "--config", str(bad)))
    assert "[weird] dir" in message


def test_the_dashboard_never_follows_a_link_planted_in_a_run(tmp_path):
    from skillopt.ui.runs import read_json, skill_text

    run = tmp_path / "run"
    (run / "skills").mkdir(parents=True)
    (run / "runtime_state.json").write_text("{}")
    secret = tmp_path / "outside.json"
    secret.write_text(json.dumps({"stolen": True}))
    (run / "summary.json").symlink_to(secret)
    (run / "skills" / "skill_v0001.md").symlink_to(secret)
    (run / "steps").symlink_to(tmp_path)
    assert read_json(run / "summary.json") is None
    assert skill_text(run, 1) is None
    assert read_json(run / "steps" / "outside.json") is None
    (run / "skills" / "skill_v0002.md").write_text("real skill")
    assert skill_text(run, 2) == "real skill"


def test_a_dashboard_bound_beyond_loopback_still_checks_the_host_header(tmp_path):
    import urllib.error
    import urllib.request

    from skillopt.ui.server import Dashboard, make_server

    dashboard = Dashboard([tmp_path], tmp_path, token="t0ken")
    server = make_server(dashboard, host="0.0.0.0", port=0)
    port = server.server_address[1]
    import threading

    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert dashboard.allowed_hosts and f"127.0.0.1:{port}" in dashboard.allowed_hosts
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/runs", headers={"Host": "evil.example:80",
                                                                                       "Authorization": "Bearer t0ken"})
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(request, timeout=10)
        assert err.value.code == 403  # a DNS-rebinding page cannot talk to it
        ok = urllib.request.Request(f"http://127.0.0.1:{port}/api/runs", headers={"Authorization": "Bearer t0ken"})
        with urllib.request.urlopen(ok, timeout=10) as reply:
            assert reply.status == 200
    finally:
        server.shutdown()
        server.server_close()
