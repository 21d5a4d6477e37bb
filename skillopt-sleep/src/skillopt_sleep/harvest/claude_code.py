"""Claude Code: ``~/.claude/projects/<slug>/<sessionId>.jsonl`` (or ``$CLAUDE_CONFIG_DIR``).

One JSON record per line. ``user``/``assistant`` records carry ``message`` (Anthropic
message shape: a string or typed blocks), ``cwd``, ``gitBranch``, ``timestamp``.
Tool calls are ``tool_use`` blocks in assistant messages; their results come back as
``tool_result`` blocks in the next user record: ``is_error`` marks a failure, and a
failed Bash result's text opens with ``Exit code N`` (the record's ``toolUseResult``
keeps ``stdout``/``stderr``). Sidechain (subagent)
records, ``isMeta`` records, summaries and file-history snapshots are not the
developer's conversation and are skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from skillopt.api import Harvester, Session, hookimpl
from skillopt_sleep.harvest.builder import SessionBuilder
from skillopt_sleep.harvest.fields import block_text, edit_target, is_edit_tool, is_shell_tool
from skillopt_sleep.harvest.files import files_under, iter_jsonl
from skillopt_sleep.harvest.outcome import exit_status


class ClaudeCodeHarvester(Harvester):
    name = "claude-code"
    summary = "Claude Code transcripts (~/.claude/projects/**/*.jsonl)"
    root_env_var = "SKILLOPT_SLEEP_CLAUDE_CODE_ROOTS"
    memory_file = "CLAUDE.md"
    skill_dir = ".claude/skills"

    def default_roots(self) -> list[Path]:
        base = os.environ.get("CLAUDE_CONFIG_DIR")
        return [Path(base).expanduser() / "projects" if base else Path.home() / ".claude" / "projects"]

    def sessions(self, roots: list[Path], since: datetime | None = None) -> Iterator[Session]:
        for path in files_under(roots, ["**/*.jsonl"], since=since):
            if "subagents" in path.parts or path.name.startswith("agent-"):
                continue
            session = parse_file(path, since)
            if session is not None:
                yield session


def parse_file(path: Path, since: datetime | None = None) -> Session | None:
    b = SessionBuilder("claude-code", path.stem, path)
    for rec in iter_jsonl(path):
        kind = rec.get("type")
        if kind not in ("user", "assistant") or rec.get("isSidechain") or rec.get("isMeta"):
            continue
        b.set_project(rec.get("cwd"))
        if rec.get("gitBranch") and "branch" not in b.metadata:
            b.metadata["branch"] = rec["gitBranch"]
        if rec.get("sessionId"):
            b.session_id = str(rec["sessionId"])
        when = rec.get("timestamp")
        message = rec.get("message") or {}
        content = message.get("content")
        if kind == "user":
            _user_record(b, content, rec, when)
        else:
            if message.get("model") and "model" not in b.metadata:
                b.metadata["model"] = message["model"]
            _assistant_record(b, content, when)
    return b.build(since)


def _user_record(b: SessionBuilder, content, rec: dict, when) -> None:
    if isinstance(content, str):
        b.user(content, when)
        return
    if not isinstance(content, list):
        return
    texts = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            texts.append(block.get("text") or "")
        elif block.get("type") == "tool_result":
            output = block_text(block.get("content"))
            name = b.tool_name_for(block.get("tool_use_id"))
            extra = rec.get("toolUseResult") if isinstance(rec.get("toolUseResult"), dict) else {}
            if not output and extra:
                output = "\n".join(str(extra.get(k) or "") for k in ("stdout", "stderr")).strip()
            error = bool(block.get("is_error"))
            # a failed Bash result opens with "Exit code N"; a successful one says nothing, and
            # Claude Code flags every non-zero exit as an error, so no flag means status 0
            code = 0 if is_shell_tool(name) and not error and exit_status(output) is None else None
            b.tool_result(name, output=output, exit_code=code, failed=error, when=when)
    if texts:
        b.user("\n".join(texts), when)


def _assistant_record(b: SessionBuilder, content, when) -> None:
    if isinstance(content, str):
        b.assistant(content, when)
        return
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            b.assistant(block.get("text") or "", when)
        elif block.get("type") == "tool_use":
            args = block.get("input") if isinstance(block.get("input"), dict) else {}
            name = str(block.get("name") or "")
            call_id = str(block.get("id") or "")
            if is_edit_tool(name):
                safe = b.edit(name, *edit_target(args), call_id=call_id, when=when)
            else:
                detail = args.get("command") or args.get("file_path") or args.get("path") or args.get("pattern") or ""
                safe = b.tool_call(name, str(detail), call_id=call_id, when=when)
            if safe == "Skill" and isinstance(args.get("skill"), str):
                b.metadata.setdefault("skills_used", [])
                if args["skill"] not in b.metadata["skills_used"]:
                    b.metadata["skills_used"].append(args["skill"][:64])


@hookimpl
def skillopt_register_harvesters(register):
    register(ClaudeCodeHarvester)
