"""A stand-in for the Claude Code, Codex, Cursor, Copilot, OpenCode and pi agent CLIs in headless mode.

It stands for the *CLI program*, not for our code: it parses its command line the way
the real CLI does (an option it does not list in ``--help`` is an error, as with the
real ones), reads the prompt from stdin, and prints the real output formats — Claude
Code's ``--output-format json`` result object, Codex's ``exec --json`` event lines,
Cursor's result object, OpenCode's ``run --format json`` events (``text``,
``step_finish`` with tokens and cost, ``error``), pi's ``--mode json`` events
(``message_end`` with the assistant message, its usage and stop reason) — including the
way each reports failures. OpenCode's system text is the prompt of the agent its
``opencode.json`` defines, as the real CLI reads it. Tests script it
through files in a state directory, and it records every invocation there.

Invoked as ``fake_agent.py FLAVOR STATE_DIR <the CLI's own arguments>``.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

VERSIONS = {"claude": "2.0.31 (Claude Code)", "codex": "codex-cli 0.58.0", "cursor": "2025.11.25-4a1c0f2", "copilot": "1.0.36",
            "opencode": "1.0.134", "pi": "0.45.7"}
MODELS = {"claude": "claude-sonnet-4-5-20250929", "codex": "gpt-5-codex", "cursor": "auto", "copilot": "claude-sonnet-4.5",
          "opencode": "anthropic/claude-sonnet-4-5", "pi": "claude-sonnet-4-5"}
# option -> takes a value?
OPTIONS = {
    "claude": {
        "-p": False, "--print": False, "--output-format": True, "--model": True, "--system-prompt": True,
        "--system-prompt-file": True, "--json-schema": True, "--tools": True, "--strict-mcp-config": False,
        "--no-session-persistence": False, "--effort": True, "--verbose": False,
    },
    "codex": {
        "--json": False, "--skip-git-repo-check": False, "--ephemeral": False, "--sandbox": True, "--color": True,
        "--model": True, "-m": True, "--output-schema": True, "--config": True, "-c": True, "--cd": True, "-C": True,
    },
    "cursor": {
        "-p": False, "--print": False, "--output-format": True, "--model": True, "--mode": True,
        "--workspace": True, "--sandbox": True, "--trust": False,
    },
    "copilot": {
        "-p": True, "--prompt": True, "--output-format": True, "--model": True, "--stream": True,
        "--no-custom-instructions": False, "--disable-builtin-mcps": False, "--effort": True, "--allow-all-tools": False,
        "--available-tools": True,
    },
    "opencode": {
        "--format": True, "--model": True, "-m": True, "--agent": True, "--title": True, "--session": True,
        "--continue": False, "--share": False, "--port": True,
    },
    "pi": {
        "-p": False, "--print": False, "--mode": True, "--no-session": False, "--model": True, "--provider": True,
        "--system-prompt": True, "--append-system-prompt": True, "--no-tools": False, "--tools": True,
        "--no-skills": False, "--no-context-files": False, "--no-extensions": False, "--no-prompt-templates": False,
        "--no-themes": False, "--thinking": True,
    },
}
FAILURES = {
    "claude": {
        "auth": "Invalid API key · Please run /login",
        "rate": 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}',
        "overloaded": 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        "context": "Prompt is too long",
        "usage_limit": "Claude AI usage limit reached|1767225600",
    },
    "codex": {
        "auth": "unexpected status 401 Unauthorized: Missing bearer or basic authentication in header",
        "rate": "exceeded retry limit, last status: 429 Too Many Requests",
        "overloaded": "unexpected status 503 Service Unavailable: upstream overloaded",
        "context": "Your input exceeds the context window of this model. Please adjust your input and try again.",
        "usage_limit": "You've hit your usage limit. Upgrade to Pro or try again in 3 days 2 hours.",
    },
    "cursor": {
        "auth": "Error: Authentication required. Please run 'cursor-agent login' first, or set CURSOR_API_KEY environment variable.",
        "rate": "Error: Request failed with status 429: rate limit exceeded",
        "overloaded": "Error: Request failed with status 503: service overloaded",
        "context": "Error: The prompt is too long for the model's context window",
        "usage_limit": "Error: You've hit your usage limit for this billing period",
    },
    "opencode": {
        "auth": "AI_APICallError: 401 Unauthorized: invalid x-api-key",
        "rate": "AI_APICallError: 429 Too Many Requests: rate_limit_error",
        "overloaded": "AI_APICallError: 529 Overloaded: overloaded_error",
        "context": "AI_APICallError: prompt is too long: 212000 tokens > 200000 maximum",
        "usage_limit": "You have reached your usage limit for this billing period",
    },
    "pi": {
        "auth": "401 authentication_error: invalid x-api-key",
        "rate": "429 rate_limit_error: Number of requests has exceeded your rate limit",
        "overloaded": "529 overloaded_error: Overloaded",
        "context": "400 invalid_request_error: prompt is too long: 212000 tokens > 200000 maximum",
        "usage_limit": "Your credit balance is too low: usage limit reached",
    },
    "copilot": {
        "auth": "No authentication information found. Please run /login or set COPILOT_GITHUB_TOKEN.",
        "rate": "Request failed: 429 Too Many Requests (rate limit exceeded)",
        "overloaded": "Request failed: 503 Service Unavailable",
        "context": "prompt token count exceeds the limit: the context window of this model is full",
        "usage_limit": "You have exceeded your monthly quota of premium requests (usage limit reached)",
    },
}


def locked(path: Path):
    handle = open(path.with_suffix(".lock"), "a+")  # noqa: SIM115 - held (locked) until the caller closes it
    fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


def next_action(state: Path) -> dict:
    plan = state / "plan.json"
    with locked(plan):
        steps = json.loads(plan.read_text()) if plan.exists() else []
        if not steps:
            return {}
        plan.write_text(json.dumps(steps[1:]))
        return steps[0]


def record(state: Path, entry: dict) -> None:
    log = state / "calls.jsonl"
    with locked(log):
        with log.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")


def instruction_files() -> dict[str, str]:
    """What each agent reads as project instructions from its working directory."""
    found = {}
    paths = [Path("CLAUDE.md"), Path("AGENTS.md"), Path(".github/copilot-instructions.md"), *sorted(Path(".cursor/rules").glob("*.mdc")),
             Path("opencode.json")]
    for path in paths:
        if path.is_file():
            found[str(path)] = path.read_text()
    return found


def skill_files() -> dict[str, list]:
    """A folder skill's files in the workspace: path -> [text, permission bits]."""
    found = {}
    for folder in ("references", "scripts"):
        for path in sorted(Path(folder).glob("*")):
            if path.is_file():
                found[str(path)] = [path.read_text(), path.stat().st_mode & 0o777]
    return found


def help_text(flavor: str, state: Path) -> str:
    omitted = set(json.loads((state / "help_omits.json").read_text())) if (state / "help_omits.json").exists() else set()
    lines = [f"Usage: {flavor} [options]", "", "Options:"]
    for option, takes in OPTIONS[flavor].items():
        if option not in omitted:
            lines.append(f"  {option}{' <value>' if takes else ''}    (see the docs)")
    return "\n".join(lines)


def parse(flavor: str, args: list[str], state: Path) -> dict:
    omitted = set(json.loads((state / "help_omits.json").read_text())) if (state / "help_omits.json").exists() else set()
    known = {k: v for k, v in OPTIONS[flavor].items() if k not in omitted}
    got: dict = {"positional": []}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("--") and "=" in arg:  # --option=value
            name, _, value = arg.partition("=")
            if name not in known or not known[name]:
                print(f"error: unknown option '{name}'", file=sys.stderr)
                sys.exit(2)
            got.setdefault(name, []).append(value)
            i += 1
            continue
        if arg.startswith("-") and arg != "-":
            if arg not in known:
                print(f"error: unknown option '{arg}'", file=sys.stderr)
                sys.exit(2)
            if known[arg]:
                if i + 1 >= len(args):
                    print(f"error: option '{arg}' argument missing", file=sys.stderr)
                    sys.exit(2)
                got.setdefault(arg, []).append(args[i + 1])
                i += 2
                continue
            got[arg] = True
        else:
            got["positional"].append(arg)
        i += 1
    return got


def value_for(schema: dict, name: str = ""):
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {k: value_for(v, k) for k, v in props.items() if k in schema.get("required", list(props))}
    if kind == "array":  # as few items as the schema allows
        return [value_for(schema.get("items") or {}) for _ in range(int(schema.get("minItems", 0)))]
    if kind == "number":
        return 0.5
    if kind == "integer":
        return 1
    if kind == "boolean":
        return True
    return "Paris" if name == "answer" else "x"


def schema_in(flavor: str, opts: dict, prompt: str) -> dict | None:
    if flavor == "claude" and "--json-schema" in opts:
        return json.loads(opts["--json-schema"][-1])
    if flavor == "codex" and "--output-schema" in opts:
        return json.loads(Path(opts["--output-schema"][-1]).read_text())
    marker = "It must match this JSON schema:\n"
    if marker in prompt:
        return json.loads(prompt.split(marker, 1)[1].split("\n", 1)[0])
    return None


def emit_tool_steps(flavor: str, tools: list[dict]) -> None:
    """The agent's tool calls and results, in the CLI's own event format (before its reply)."""
    for n, tool in enumerate(tools):
        if flavor == "claude":
            use_id = f"toolu_{n:02d}"
            print(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": use_id, "name": tool["name"], "input": tool.get("input", {})}]}}))
            print(json.dumps({"type": "user", "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": use_id, "content": tool.get("output", "")}]}}))
        elif flavor == "codex":
            print(json.dumps({"type": "item.completed", "item": {
                "id": f"item_t{n}", "type": "command_execution", "command": tool.get("command", tool["name"]),
                "aggregated_output": tool.get("output", ""), "exit_code": tool.get("exit_code", 0), "status": "completed"}}))


def emit_success(flavor: str, text: str, data, prompt: str, opts: dict, tools: list | None = None) -> None:
    model = (opts.get("--model") or opts.get("-m") or [MODELS[flavor]])[-1]
    tokens_in, tokens_out = max(1, len(prompt) // 4), max(1, len(text) // 4)
    stream = flavor == "claude" and (opts.get("--output-format") or ["json"])[-1] == "stream-json"
    if stream:
        if "--verbose" not in opts:
            print("Error: When using --print, --output-format=stream-json requires --verbose", file=sys.stderr)
            sys.exit(1)
        print(json.dumps({"type": "system", "subtype": "init", "session_id": "9f0c6a52", "tools": ["Read", "Grep", "Glob"], "model": model}))
        emit_tool_steps(flavor, tools or [])
        print(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]}}))
    if flavor == "codex" and tools:
        print(json.dumps({"type": "thread.started", "thread_id": "t"}))
        emit_tool_steps(flavor, tools)
    if flavor == "claude":
        result = {
            "type": "result", "subtype": "success", "is_error": False, "duration_ms": 812, "duration_api_ms": 790,
            "num_turns": 1, "result": text, "session_id": "9f0c6a52-2b1e-4c61-9d55-0d6f2c8a7e11",
            "total_cost_usd": round(3e-6 * tokens_in + 1.5e-5 * tokens_out, 8),
            "usage": {"input_tokens": tokens_in, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 5,
                      "output_tokens": tokens_out, "service_tier": "standard"},
            "modelUsage": {
                "claude-haiku-4-5-20251001": {"inputTokens": 40, "outputTokens": 2, "costUSD": 0.00005},
                model: {"inputTokens": tokens_in, "outputTokens": tokens_out, "costUSD": 0.001},
            },
            "permission_denials": [], "uuid": "1d1f0b0e-64a4-4c9b-a0a4-8d2b1e6f3c21",
        }
        if data is not None:
            result["structured_output"] = data
        print(json.dumps(result))
    elif flavor == "codex":
        events = [
            {"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"},
            {"type": "turn.started"},
            {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "**Answering directly**"}},
            {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": text}},
            {"type": "turn.completed", "usage": {"input_tokens": tokens_in, "cached_input_tokens": 3, "output_tokens": tokens_out}},
        ]
        print("\n".join(json.dumps(e) for e in events))
    elif flavor == "copilot":
        def event(kind: str, data: dict, n: int) -> str:
            return json.dumps({"type": kind, "data": data, "id": f"evt-{n:03d}", "timestamp": "2026-11-29T10:00:00.000Z",
                               "parentId": f"evt-{n - 1:03d}" if n else None})
        print("\n".join([
            event("session.start", {"sessionId": "5e1f", "copilotVersion": VERSIONS[flavor], "selectedModel": model}, 0),
            event("user.message", {"content": prompt[:200], "attachments": []}, 1),
            event("assistant.turn_start", {"turnId": "0"}, 2),
            event("assistant.message", {"messageId": "msg-1", "content": text, "toolRequests": [], "outputTokens": tokens_out}, 3),
            event("assistant.turn_end", {"turnId": "0"}, 4),
            json.dumps({"type": "result", "sessionId": "5e1f", "exitCode": 0}),
        ]))
    elif flavor == "opencode":
        sid, msg = "ses_6783457c2ffeICANaRjenHkVxv", "msg_987cba88e001nNnKFuCUiZZqZ3"

        def event(kind: str, part: dict, n: int) -> str:
            return json.dumps({"type": kind, "timestamp": 1758919896305 + n, "sessionID": sid,
                               "part": {"id": f"prt_{n:03d}", "messageID": msg, "sessionID": sid, **part}})
        print("\n".join([
            event("step_start", {"type": "step-start"}, 0),
            event("text", {"type": "text", "text": text, "time": {"start": 1, "end": 2}}, 1),
            event("step_finish", {"type": "step-finish", "reason": "stop", "cost": 0.0021,
                                  "tokens": {"input": tokens_in, "output": tokens_out, "reasoning": 0, "cache": {"read": 5, "write": 0}}}, 2),
        ]))
    elif flavor == "pi":
        message = {"role": "assistant", "content": [{"type": "thinking", "thinking": "answer directly"}, {"type": "text", "text": text}],
                   "api": "anthropic-messages", "provider": "anthropic", "model": model,
                   "usage": {"input": tokens_in, "output": tokens_out, "cacheRead": 5, "cacheWrite": 0,
                             "totalTokens": tokens_in + tokens_out + 5, "cost": {"input": 0.001, "output": 0.002, "total": 0.003}},
                   "stopReason": "stop", "timestamp": 1758193209000}
        print("\n".join(json.dumps(e) for e in [
            {"type": "session", "version": 3, "id": "9b2c4d6e", "timestamp": "2025-09-18T11:00:00.000Z", "cwd": os.getcwd()},
            {"type": "agent_start"}, {"type": "turn_start"},
            {"type": "message_start", "message": {"role": "user", "content": [{"type": "text", "text": prompt[:200]}]}},
            {"type": "message_end", "message": {"role": "user", "content": [{"type": "text", "text": prompt[:200]}]}},
            {"type": "message_start", "message": {**message, "content": []}},
            {"type": "message_end", "message": message},
            {"type": "turn_end", "message": message, "toolResults": []},
            {"type": "agent_end", "messages": [message]},
        ]))
    else:
        print(json.dumps({
            "type": "result", "subtype": "success", "is_error": False, "duration_ms": 1403, "duration_api_ms": 1403,
            "result": text, "session_id": "c6b62c6f-7ead-4fd6-9922-e952131177ff", "request_id": "c4a3b5f2-0a77-4d0e",
        }))


def emit_failure(flavor: str, kind: str) -> int:
    if kind == "crash":
        print("TypeError: Cannot read properties of undefined (reading 'content')\n    at main (cli.js:1:1)", file=sys.stderr)
        return 1
    message = FAILURES[flavor].get(kind, kind)
    if flavor == "claude":
        print(json.dumps({"type": "result", "subtype": "success", "is_error": True, "duration_ms": 120, "num_turns": 1,
                          "result": message, "session_id": "x", "total_cost_usd": 0, "usage": {}}))
    elif flavor == "copilot":
        print(json.dumps({"type": "session.error", "data": {"errorType": kind, "message": message}}))
    elif flavor == "opencode":
        print(json.dumps({"type": "step_start", "sessionID": "ses_x", "part": {"type": "step-start"}}))
        print(json.dumps({"type": "error", "sessionID": "ses_x", "error": {"name": "APIError", "data": {"message": message}}}))
    elif flavor == "pi":
        failed = {"role": "assistant", "content": [], "stopReason": "error", "errorMessage": message,
                  "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}}
        print(json.dumps({"type": "agent_start"}))
        print(json.dumps({"type": "message_end", "message": failed}))
        print(json.dumps({"type": "agent_end", "messages": [failed]}))
    elif flavor == "codex":
        print(json.dumps({"type": "thread.started", "thread_id": "t"}))
        print(json.dumps({"type": "turn.started"}))
        print(json.dumps({"type": "error", "message": message}))
        print(json.dumps({"type": "turn.failed", "error": {"message": message}}))
    else:
        print(message, file=sys.stderr)
    return 1


def main() -> int:
    flavor, state, args = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    if args == ["--version"]:
        print(VERSIONS[flavor])
        return 0
    if args in (["--help"], ["exec", "--help"], ["run", "--help"]):
        print(help_text(flavor, state))
        return 0
    sub = {"codex": "exec", "opencode": "run"}.get(flavor)
    if sub:
        if not args or args[0] != sub:
            print(f"error: expected the {sub} subcommand", file=sys.stderr)
            return 2
        args = args[1:]
    opts = parse(flavor, args, state)
    if flavor == "codex" and opts.get("--sandbox", ["read-only"])[-1] not in ("read-only", "workspace-write", "danger-full-access"):
        print("error: invalid value for '--sandbox'", file=sys.stderr)
        return 2
    prompt = opts["-p"][-1] if flavor == "copilot" else sys.stdin.read()
    system = ""
    if "--system-prompt-file" in opts:
        system = Path(opts["--system-prompt-file"][-1]).read_text()
    elif "--system-prompt" in opts:
        system = opts["--system-prompt"][-1]
    elif flavor == "opencode" and "--agent" in opts:  # the agent comes from the workspace's opencode.json
        agents = json.loads(Path("opencode.json").read_text()).get("agent", {}) if Path("opencode.json").is_file() else {}
        if opts["--agent"][-1] not in agents:
            print(f"Error: agent \"{opts['--agent'][-1]}\" not found", file=sys.stderr)
            return 1
        system = agents[opts["--agent"][-1]].get("prompt", "")
    schema = schema_in(flavor, opts, system + "\n" + prompt)
    action = next_action(state)
    record(state, {
        "argv": args, "prompt": prompt, "system": system, "cwd": os.getcwd(), "env": dict(os.environ),
        "files": sorted(str(p) for p in Path(".").rglob("*") if p.is_file()), "schema": schema, "action": action,
        "pid": os.getpid(), "instructions": instruction_files(), "skill_files": skill_files(),
    })
    if action.get("spawn_child"):
        child = subprocess.Popen(["sleep", "60"])
        (state / "child.pid").write_text(str(child.pid))
    if action.get("sleep"):
        time.sleep(action["sleep"])
    if "raw" in action:
        sys.stdout.write(action["raw"])
        return int(action.get("exit", 0))
    if "fail" in action:
        return emit_failure(flavor, action["fail"])
    if "data" in action:
        data = action["data"]
        text = json.dumps(data)
    elif "text" in action:
        data, text = None, action["text"]
    elif schema is not None:
        data = value_for(schema)
        text = json.dumps(data)
    else:
        data, text = None, f"Hello from the fake {flavor} agent."
    native = (flavor == "claude" and "--json-schema" in opts) or (flavor == "codex" and "--output-schema" in opts)
    emit_success(flavor, text, data if (native and flavor == "claude") else None, prompt + system, opts, action.get("tools"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
