"""The server as an agent sees it: ``python -m skillopt_mcp`` spawned by the MCP SDK's
own client (``ClientSession`` over ``stdio_client``), on a project whose fixture
transcripts come from seven agents and carry planted fake secrets.

``backend: scripted`` (the core's deterministic ScriptedBackend) with skillopt-sleep's
persona rules stands in for a coding model; everything else is the real CLI.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import anyio
import pytest

EXPECTED_TOOLS = {
    "sleep_status",
    "sleep_dry_run",
    "sleep_run",
    "sleep_diff",
    "sleep_adopt",
    "sleep_rollback",
    "sleep_harvest",
    "skillopt_envs",
    "skillopt_backends",
    "skillopt_runs",
    "skillopt_run_show",
    "skillopt_export",
}


def _tree(root):
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".skillopt-sleep" not in p.parts
    }


def test_tools_are_listed_with_closed_schemas(mcp_harness):
    async def scenario():
        async with mcp_harness.session() as session:
            return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in anyio.run(scenario)}
    assert set(tools) == EXPECTED_TOOLS
    for name, tool in tools.items():
        schema = mcp_harness.input_schema(tool)
        assert schema["type"] == "object" and schema["additionalProperties"] is False, name
        assert tool.description, name
        if name.startswith("sleep_") or name == "skillopt_export":
            assert "project" in schema["required"], name
            assert schema["properties"]["project"]["type"] == "string"
        else:
            assert "project" not in schema["properties"], name
    for name in ("sleep_adopt", "sleep_rollback"):
        schema = mcp_harness.input_schema(tools[name])
        assert "confirm" in schema["required"] and schema["properties"]["confirm"]["type"] == "boolean"
        annotations = tools[name].annotations
        assert annotations.destructiveHint if hasattr(annotations, "destructiveHint") else annotations.destructive_hint
    for name in ("sleep_run", "sleep_dry_run"):
        props = mcp_harness.input_schema(tools[name])["properties"]
        assert "auto_adopt" not in props, "adoption must never be a side effect of a run"
        assert props["miner"]["enum"] == ["auto", "heuristic", "llm"]
        assert props["max_calls"] == {"type": "integer", "description": props["max_calls"]["description"], "minimum": 1}
    assert set(mcp_harness.input_schema(tools["sleep_diff"])["properties"]) == {"project", "night"}


def test_harvest_dry_run_and_status_on_fixture_transcripts(mcp_harness, agent_home, persona_rules, no_secret):
    _home, project = agent_home
    before = _tree(project)

    async def scenario():
        async with mcp_harness.session() as session:
            harvest = await mcp_harness.call_json(
                session, "sleep_harvest", {"project": str(project), "lookback_hours": 0}
            )
            dry = await mcp_harness.call_json(
                session,
                "sleep_dry_run",
                {
                    "project": str(project),
                    "source": ["auto"],
                    "lookback_hours": 0,
                    "backend": "scripted",
                    "backend_options": {"rules": str(persona_rules)},
                    "min_val": 1,
                },
            )
            status = await mcp_harness.call_json(session, "sleep_status", {"project": str(project)})
            return harvest, dry, status

    (harvest, harvest_text), (dry, dry_text), (status, status_text) = anyio.run(scenario)

    assert harvest["schema"] == "skillopt-sleep-tasks" and harvest["sessions"] == 7
    assert harvest["tasks"] and all(t["checks"] for t in harvest["tasks"])
    assert harvest["project"] == str(project.resolve())

    report = dry["report"]
    assert report["dry_run"] is True and dry["staging"] is None
    assert report["harvest"]["sessions"] == 7
    assert set(report["harvest"]["per_source"]) == {
        "claude-code", "codex", "copilot-cli", "vscode-copilot", "cursor", "opencode", "pi"
    }
    assert report["usage"]["calls"] > 0, "the scripted backend was actually called"

    assert status["project"] == str(project.resolve())
    assert status["nights"] == 0 and status["staged"] == [] and status["adopted"] == []
    assert _tree(project) == before, "harvest and dry-run write nothing into the project"
    for text in (harvest_text, dry_text, status_text):
        no_secret(text)


def test_run_diff_then_adopt_only_with_confirm_then_rollback(mcp_harness, agent_home, persona_rules, no_secret):
    _home, project = agent_home
    before = _tree(project)
    night_args = {
        "project": str(project),
        "lookback_hours": 0,
        "backend": "scripted",
        "backend_options": {"rules": str(persona_rules)},
        "min_val": 1,
    }

    async def scenario():
        outputs = {}
        async with mcp_harness.session() as session:
            outputs["run"] = await mcp_harness.call_json(session, "sleep_run", night_args)
            outputs["diff"] = await mcp_harness.call_json(session, "sleep_diff", {"project": str(project)})
            outputs["no_confirm"] = await mcp_harness.call_error(session, "sleep_adopt", {"project": str(project)})
            outputs["false_confirm"] = await mcp_harness.call_error(
                session, "sleep_adopt", {"project": str(project), "confirm": False}
            )
            outputs["tree_after_refusal"] = _tree(project)
            night = outputs["diff"][0]["night"]
            outputs["adopt"] = await mcp_harness.call_json(
                session, "sleep_adopt", {"project": str(project), "night": night, "confirm": True}
            )
            outputs["tree_after_adopt"] = _tree(project)
            outputs["status"] = await mcp_harness.call_json(session, "sleep_status", {"project": str(project)})
            outputs["rollback_no_confirm"] = await mcp_harness.call_error(
                session, "sleep_rollback", {"project": str(project)}
            )
            outputs["rollback"] = await mcp_harness.call_json(
                session, "sleep_rollback", {"project": str(project), "confirm": True}
            )
        return outputs

    out = anyio.run(scenario)
    run, _ = out["run"]
    assert run["status"] == "accepted", run["reason"]
    assert run["staging"] and run["adopted"] is False
    diff, diff_text = out["diff"]
    assert diff["diffs"] and any(d["diff"] for d in diff["diffs"])
    for refusal in (out["no_confirm"], out["false_confirm"], out["rollback_no_confirm"]):
        assert "confirm: true" in refusal
    assert out["tree_after_refusal"] == before, "a refused adopt must not touch a live file"
    adopt, _ = out["adopt"]
    assert adopt["night"] == diff["night"] and adopt["entries"]
    assert out["tree_after_adopt"] != before
    status, _ = out["status"]
    assert status["adopted"] == [diff["night"]]
    rollback, _ = out["rollback"]
    assert rollback["night"] == diff["night"]
    assert _tree(project) == before, "rollback restores the live files byte for byte"
    for key in ("run", "diff", "adopt", "status", "rollback"):
        no_secret(out[key][1])


def test_bad_calls_are_tool_errors_with_clear_messages(mcp_harness, agent_home, tmp_path, no_secret):
    _home, project = agent_home
    a_file = project / "CLAUDE.md"
    secret_path = tmp_path / "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s00"

    async def scenario():
        errors = {}
        async with mcp_harness.session() as session:
            errors["missing"] = await mcp_harness.call_error(session, "sleep_status", {"project": str(tmp_path / "nope")})
            errors["file"] = await mcp_harness.call_error(session, "sleep_status", {"project": str(a_file)})
            errors["no_project"] = await mcp_harness.call_error(session, "sleep_status", {})
            errors["extra"] = await mcp_harness.call_error(
                session, "sleep_status", {"project": str(project), "auto_adopt": True}
            )
            errors["type"] = await mcp_harness.call_error(
                session, "sleep_run", {"project": str(project), "max_calls": "lots"}
            )
            errors["control"] = await mcp_harness.call_error(
                session, "sleep_run", {"project": str(project), "model": "gpt\n--auto-adopt"}
            )
            errors["night"] = await mcp_harness.call_error(
                session, "sleep_diff", {"project": str(project), "night": "--force"}
            )
            errors["cli"] = await mcp_harness.call_error(session, "sleep_adopt", {"project": str(project), "confirm": True})
            errors["secret"] = await mcp_harness.call_error(session, "sleep_status", {"project": str(secret_path)})
            errors["unknown"] = await mcp_harness.call_error(session, "sleep_everything", {})
            envs = await mcp_harness.call_json(session, "skillopt_envs", {})
            backends = await mcp_harness.call_json(session, "skillopt_backends", {})
        return errors, envs, backends

    errors, (envs, _), (backends, _) = anyio.run(scenario)
    assert "does not exist" in errors["missing"] and "nope" in errors["missing"]
    assert "is not a directory" in errors["file"]
    assert "'project' is a required property" in errors["no_project"]
    assert "'auto_adopt' was unexpected" in errors["extra"]
    assert "max_calls" in errors["type"] and "integer" in errors["type"]
    assert "model" in errors["control"]
    assert "night" in errors["night"]
    # The CLI's own message comes through, without a traceback.
    assert "nothing staged" in errors["cli"] and "exit 2" in errors["cli"]
    assert "unknown tool" in errors["unknown"]
    for text in errors.values():
        assert "Traceback" not in text
        no_secret(text)
    assert "***REDACTED***" in errors["secret"]
    assert isinstance(envs, list) and all({"name", "distribution", "status"} <= set(row) for row in envs)
    assert "scripted" in {row["name"] for row in backends}
    json.dumps(envs)


def test_runs_are_listed_shown_and_exported_through_a_real_mcp_client(mcp_harness, server_env, tmp_path):
    """A run trained by the CLI (SearchQA sample, the scripted stand-in model), then read
    and installed into a project by an MCP client."""
    import subprocess
    import sys

    pytest.importorskip("skillopt_envs_searchqa")
    runs = Path(server_env["SKILLOPT_HOME"]) / "data" / "runs"
    trained = subprocess.run(
        [sys.executable, "-m", "skillopt", "run", "--env", "searchqa", "--backend", "scripted", "--preset", "small",
         "--set", "train.max_steps=1", "--out", str(runs / "sqa-run"), "--json"],
        env=server_env, capture_output=True, text=True, timeout=300,
    )
    assert trained.returncode == 0, trained.stderr[-2000:]
    project = tmp_path / "project"
    project.mkdir()

    async def scenario():
        async with mcp_harness.session() as session:
            listed = await mcp_harness.call_json(session, "skillopt_runs", {})
            shown = await mcp_harness.call_json(session, "skillopt_run_show", {"run": "sqa-run"})
            refused = await mcp_harness.call_error(
                session, "skillopt_export", {"project": str(project), "run": "sqa-run", "to": ["claude-code"]}
            )
            exported = await mcp_harness.call_json(
                session, "skillopt_export",
                {"project": str(project), "run": "sqa-run", "to": ["claude-code", "cursor"], "confirm": True},
            )
            return listed, shown, refused, exported

    (listed, _), (shown, _), refused, (exported, _) = anyio.run(scenario)
    assert [r["id"] for r in listed] == ["sqa-run"] and listed[0]["status"] == "finished"
    assert len(shown["history"]) == 1 and shown["overview"]["env"] == "searchqa"
    assert "confirm" in refused
    assert {e["target"] for e in exported} == {"claude-code", "cursor"}
    skill = project / ".claude" / "skills" / "searchqa-skill" / "SKILL.md"
    best = (runs / "sqa-run" / "best_skill.md").read_text().strip()
    assert skill.is_file() and best.splitlines()[-1] in skill.read_text()
    assert json.loads(json.dumps(exported))[0]["path"].startswith(str(project))


#: (readOnlyHint, destructiveHint, idempotentHint, openWorldHint) of every tool, as a client reads them
ANNOTATIONS = {
    "sleep_status": (False, False, True, False),  # finishes undoing an adoption a crash left half done
    "sleep_dry_run": (True, False, True, True),
    "sleep_run": (False, False, False, True),
    "sleep_diff": (True, False, True, False),
    "sleep_adopt": (False, True, False, False),
    "sleep_rollback": (False, True, False, False),
    "sleep_harvest": (False, False, False, False),  # output creates a file
    "skillopt_envs": (True, False, True, False),
    "skillopt_backends": (True, False, True, False),
    "skillopt_runs": (True, False, True, False),
    "skillopt_run_show": (True, False, True, False),
    "skillopt_export": (False, True, True, False),
}


def _hint(annotations, name):
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in name)
    return getattr(annotations, name) if hasattr(annotations, name) else getattr(annotations, snake)


def test_every_tool_is_annotated_as_what_it_does(mcp_harness):
    async def scenario():
        async with mcp_harness.session() as session:
            return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in anyio.run(scenario)}
    seen = {name: tuple(_hint(tools[name].annotations, hint)
                        for hint in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"))
            for name in tools}
    assert seen == ANNOTATIONS


def test_harvest_writes_only_a_new_file_inside_the_project(mcp_harness, agent_home, tmp_path, no_secret):
    """``output`` was a path anywhere, overwritten without a word, on a tool annotated
    read-only: it now names a new file inside the project, and every other path is a tool
    error that touches nothing."""
    _home, project = agent_home
    unrelated = tmp_path / "unrelated.txt"
    unrelated.write_text("someone else's file\n", encoding="utf-8")
    (project / "notes.md").write_text("keep me\n", encoding="utf-8")
    (project / "link").symlink_to(tmp_path)
    (project / "dangling.json").symlink_to(tmp_path / "nowhere.json")
    before_outside = _tree(tmp_path / "home")
    base = {"project": str(project), "lookback_hours": 0}

    async def scenario():
        out = {}
        async with mcp_harness.session() as session:
            for label, output in {"absolute": str(unrelated), "dotdot": "../unrelated.txt", "through_link": "link/x.json",
                                  "existing": "notes.md", "dangling": "dangling.json", "home": "~/tasks.json"}.items():
                out[label] = await mcp_harness.call_error(session, "sleep_harvest", {**base, "output": output})
            out["ok"] = await mcp_harness.call_json(session, "sleep_harvest", {**base, "output": "review/tasks.json"})
            out["again"] = await mcp_harness.call_error(session, "sleep_harvest", {**base, "output": "review/tasks.json"})
        return out

    out = anyio.run(scenario)
    for label in ("absolute", "dotdot", "through_link", "home"):
        assert "outside the project" in out[label], (label, out[label])
    for label in ("existing", "dangling", "again"):
        assert "already exists" in out[label] and "never overwrites" in out[label], (label, out[label])
    assert unrelated.read_text(encoding="utf-8") == "someone else's file\n"
    assert (project / "notes.md").read_text(encoding="utf-8") == "keep me\n"
    assert not (tmp_path / "x.json").exists() and not (tmp_path / "nowhere.json").exists()
    assert _tree(tmp_path / "home") == before_outside
    written = json.loads((project / "review" / "tasks.json").read_text(encoding="utf-8"))
    harvest, text = out["ok"]
    assert written["schema"] == "skillopt-sleep-tasks" and written["tasks"] == harvest["tasks"]
    no_secret(text)
    no_secret((project / "review" / "tasks.json").read_text(encoding="utf-8"))


def test_a_megabyte_argument_is_answered(mcp_harness, agent_home):
    """A 1 MB argument made the server scrub a 1 MB error message with quadratic patterns
    and never answer; it is now a prompt tool error."""
    _home, project = agent_home
    huge = "0123456789abcdef" * 65_536

    async def scenario():
        async with mcp_harness.session() as session:
            with anyio.fail_after(120):
                status = await mcp_harness.call_error(session, "sleep_status", {"project": huge})
                # the schema error quotes the value: the whole megabyte goes through the scrubber
                run = await mcp_harness.call_error(session, "sleep_run", {"project": str(project), "max_calls": huge})
            return status, run

    status, run = anyio.run(scenario)
    assert "cannot be read" in status and "1,048,576 characters" in status and len(status) < 1000
    assert "max_calls" in run and "integer" in run and "Traceback" not in status + run and len(run) <= 4000
