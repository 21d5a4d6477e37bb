"""Every configuration file under agent-plugins/ parses, and names only tools, commands
and options that exist: tool names against the server's catalogue, ``skillopt …``
commands and their flags against the real click commands, the MCP command against
this distribution's console script."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
import typer.main
import yaml

from skillopt_mcp.catalog import TOOL_NAMES, catalog

PLUGINS = Path(__file__).resolve().parents[2]
SKIP_PARTS = {"__pycache__", ".pytest_cache", "src", "tests"}
MODULE_NAMES = {"skillopt_mcp", "skillopt_sleep"}


def config_files(*suffixes: str) -> list[Path]:
    return sorted(
        p
        for p in PLUGINS.rglob("*")
        if p.is_file()
        and p.suffix in suffixes
        and not SKIP_PARTS & set(p.relative_to(PLUGINS).parts)
        and not any(part.endswith(".egg-info") for part in p.parts)
    )


def frontmatter(path: Path) -> dict[str, str]:
    """Single-line ``key: value`` frontmatter (what OpenClaw's parser accepts, and all we write)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines and lines[0] == "---", f"{path}: no frontmatter"
    end = lines.index("---", 1)
    fields = {}
    for line in lines[1:end]:
        key, sep, value = line.partition(":")
        assert sep and re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", key), f"{path}: not a single-line key: {line!r}"
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        fields[key] = value
    return fields


def console_script() -> str:
    project = tomllib.loads((PLUGINS / "mcp-server" / "pyproject.toml").read_text(encoding="utf-8"))
    (name,) = project["project"]["scripts"]
    return name


def sleep_commands():
    from skillopt_sleep.cli import sleep_app

    return typer.main.get_command(sleep_app).commands


def top_commands():
    from skillopt.cli import app

    return typer.main.get_command(app).commands


def options_of(command) -> set[str]:
    return {opt for p in command.params for opt in getattr(p, "opts", [])} | {"--help"}


def test_every_json_and_toml_file_parses():
    found = config_files(".json", ".toml")
    names = {str(p.relative_to(PLUGINS)) for p in found}
    assert {
        ".claude-plugin/marketplace.json",
        "claude-code/.claude-plugin/plugin.json",
        "claude-code/.mcp.json",
        "codex/config.toml",
        "copilot/.vscode/mcp.json",
        "copilot/copilot-cli/mcp-config.json",
        "cursor/.cursor/mcp.json",
        "devin/.devin/config.json",
        "dsh/package.json",
        "mcp-server/pyproject.toml",
    } <= names
    for path in found:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".toml":
            tomllib.loads(text)
        else:
            json.loads(text)
    assert [str(p.relative_to(PLUGINS)) for p in config_files(".yml")] == ["dsh/cordis.patch.yml"]
    for path in config_files(".yml"):
        yaml.safe_load(path.read_text(encoding="utf-8"))


def _dsh_rows() -> list[dict]:
    """The plugin rows the dsh bundle's patch inserts."""
    patch = yaml.safe_load((PLUGINS / "dsh/cordis.patch.yml").read_text(encoding="utf-8"))
    return [row for step in patch for row in step["insert"]]


def _server_entries() -> list[tuple[str, dict]]:
    """(file, server entry) for every MCP registration of the skillopt server."""
    load = lambda rel: json.loads((PLUGINS / rel).read_text(encoding="utf-8"))
    codex = tomllib.loads((PLUGINS / "codex/config.toml").read_text(encoding="utf-8"))
    (dsh,) = [row["config"] for row in _dsh_rows() if row["name"] == "@deepseek-ai/dsh-mcp-client"]
    return [
        ("devin/.devin/config.json", load("devin/.devin/config.json")["mcpServers"]["skillopt"]),
        ("dsh/cordis.patch.yml", dsh),
        ("claude-code/.mcp.json", load("claude-code/.mcp.json")["skillopt"]),
        ("copilot/.vscode/mcp.json", load("copilot/.vscode/mcp.json")["servers"]["skillopt"]),
        ("copilot/copilot-cli/mcp-config.json", load("copilot/copilot-cli/mcp-config.json")["mcpServers"]["skillopt"]),
        ("cursor/.cursor/mcp.json", load("cursor/.cursor/mcp.json")["mcpServers"]["skillopt"]),
        ("codex/config.toml", codex["mcp_servers"]["skillopt"]),
    ]


def test_every_registration_starts_this_server_and_lists_real_tools():
    script = console_script()
    for where, entry in _server_entries():
        assert entry["command"] == script, where
        assert entry.get("args", []) == [], where
        for key in ("tools", "enabled_tools", "disabled_tools"):
            listed = entry.get(key, [])
            assert set(listed) - {"*"} <= set(TOOL_NAMES), f"{where}: unknown tools in {key}"
    vscode = json.loads((PLUGINS / "copilot/.vscode/mcp.json").read_text(encoding="utf-8"))["servers"]["skillopt"]
    assert vscode["type"] == "stdio"
    copilot_cli = json.loads((PLUGINS / "copilot/copilot-cli/mcp-config.json").read_text(encoding="utf-8"))
    assert copilot_cli["mcpServers"]["skillopt"]["type"] in ("local", "stdio")
    codex = tomllib.loads((PLUGINS / "codex/config.toml").read_text(encoding="utf-8"))["mcp_servers"]["skillopt"]
    assert codex["tool_timeout_sec"] >= catalog()["sleep_run"].timeout, "Codex must wait as long as a night may run"
    assert set(codex) <= {"command", "args", "env", "env_vars", "cwd", "startup_timeout_sec", "tool_timeout_sec",
                          "enabled", "enabled_tools", "disabled_tools"}


def test_devin_pre_approves_only_read_only_tools():
    config = json.loads((PLUGINS / "devin/.devin/config.json").read_text(encoding="utf-8"))
    (server,) = config["mcpServers"]
    allowed = config["permissions"]["allow"]
    assert allowed, "the read-only tools are pre-approved"
    tools = catalog()
    for item in allowed:
        assert item.startswith(f"mcp__{server}__"), item
        tool = tools[item[len(f"mcp__{server}__") :]]
        assert tool.read_only and not tool.needs_confirm, f"{item} changes files: it must ask first"


def test_dsh_bundle_manifest_and_patch():
    manifest = json.loads((PLUGINS / "dsh/package.json").read_text(encoding="utf-8"))
    assert manifest["dsh"]["bundle"]["patch"] == "./cordis.patch.yml"
    for shipped in manifest["files"]:
        assert (PLUGINS / "dsh" / shipped).exists(), shipped
    (row,) = _dsh_rows()
    assert row["name"] in manifest["peerDependencies"] and row["config"]["transport"] == "stdio"
    assert row["config"]["serverName"] == "skillopt"


def test_claude_code_plugin_and_marketplace():
    plugin = json.loads((PLUGINS / "claude-code/.claude-plugin/plugin.json").read_text(encoding="utf-8"))
    assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", plugin["name"])
    market = json.loads((PLUGINS / ".claude-plugin/marketplace.json").read_text(encoding="utf-8"))
    assert market["name"] and market["owner"]["name"]
    for entry in market["plugins"]:
        source = (PLUGINS / entry["source"]).resolve()
        assert entry["source"].startswith("./") and (source / ".claude-plugin" / "plugin.json").is_file()
        assert json.loads((source / ".claude-plugin/plugin.json").read_text(encoding="utf-8"))["name"] == entry["name"]
    commands = {p.stem for p in (PLUGINS / "claude-code/commands").glob("*.md")}
    assert {"skillopt-sleep-status", "skillopt-sleep-run", "skillopt-sleep-adopt"} <= commands


def test_claude_code_commands_allow_only_real_tools():
    plugin = json.loads((PLUGINS / "claude-code/.claude-plugin/plugin.json").read_text(encoding="utf-8"))
    (server,) = json.loads((PLUGINS / "claude-code/.mcp.json").read_text(encoding="utf-8"))
    prefix = f"mcp__plugin_{plugin['name']}_{server}__"
    sleep = sleep_commands()
    for path in sorted((PLUGINS / "claude-code/commands").glob("*.md")):
        fields = frontmatter(path)
        assert fields["description"], path
        allowed = [item.strip() for item in fields.get("allowed-tools", "").split(",") if item.strip()]
        assert allowed, path
        for item in allowed:
            if item.startswith("mcp__"):
                assert item.startswith(prefix), f"{path.name}: {item} is not this plugin's server"
                assert item[len(prefix) :] in TOOL_NAMES, f"{path.name}: unknown tool {item}"
            else:
                match = re.fullmatch(r"Bash\(skillopt sleep ([a-z-]+):\*\)", item)
                assert match and match.group(1) in sleep, f"{path.name}: unexpected permission {item}"
        if path.stem == "skillopt-sleep-adopt":
            pre_approved = [item for item in allowed if "sleep_adopt" in item or "sleep adopt" in item]
            assert not pre_approved, "adoption must go through Claude Code's permission prompt"


def test_rules_and_skills_frontmatter():
    rule = frontmatter(PLUGINS / "cursor/.cursor/rules/skillopt-sleep.mdc")
    assert rule["description"] and rule["alwaysApply"] in ("true", "false") and "globs" in rule
    skills = (
        PLUGINS / "openclaw/skillopt-sleep/SKILL.md",
        PLUGINS / "codex/skills/skillopt-sleep/SKILL.md",
        PLUGINS / "devin/.devin/skills/skillopt-sleep/SKILL.md",
        PLUGINS / "dsh/skills/skillopt-sleep/SKILL.md",
    )
    for skill in skills:
        fields = frontmatter(skill)
        assert fields["name"] == skill.parent.name and len(fields["description"]) > 40
    metadata = json.loads(frontmatter(PLUGINS / "openclaw/skillopt-sleep/SKILL.md")["metadata"])
    assert "skillopt" in metadata["openclaw"]["requires"]["bins"]


TOOL_MENTION = re.compile(r"\b(?:mcp__[A-Za-z0-9_]+?__)?((?:sleep|skillopt)_[a-z]+(?:_[a-z]+)*)\b")
CLI_MENTION = re.compile(r"skillopt (sleep )?([a-z][a-z-]*)([^`|\n]*)")
CODE = re.compile(r"```[^\n]*\n(.*?)```|`([^`\n]+)`", re.DOTALL)


def code_spans(path: Path, text: str) -> list[str]:
    """Where a command can be: code blocks and inline code in markdown, the whole text
    of a JSON/TOML file (prose mentions like "what skillopt sleep learned" are skipped)."""
    if path.suffix in (".json", ".toml", ".yml"):
        return [text]
    return [block or inline for block, inline in CODE.findall(text)]


@pytest.mark.parametrize(
    "path", config_files(".md", ".mdc", ".json", ".toml", ".yml"), ids=lambda p: str(p.relative_to(PLUGINS))
)
def test_files_mention_only_real_tools_commands_and_flags(path):
    text = path.read_text(encoding="utf-8")
    for match in TOOL_MENTION.finditer(text):
        word = match.group(1)
        if word in MODULE_NAMES:
            continue
        assert word in TOOL_NAMES, f"{path.name}: {word!r} is not a tool of the server"
    sleep, top = sleep_commands(), top_commands()
    mentions = [m for span in code_spans(path, text) for m in CLI_MENTION.finditer(span)]
    for match in mentions:
        is_sleep, name, rest = match.group(1), match.group(2), match.group(3)
        if not is_sleep and name in ("sleep",):
            continue
        commands = sleep if is_sleep else top
        if not is_sleep and name not in commands:
            continue  # prose like "skillopt command", not a CLI call
        assert name in commands, f"{path.name}: `skillopt {'sleep ' if is_sleep else ''}{name}` does not exist"
        command = commands[name]
        if hasattr(command, "commands"):
            continue  # a group (`skillopt keys set …`)
        for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]*", rest):
            assert flag in options_of(command), f"{path.name}: `{match.group(0).strip()}`: {flag} is not an option"


def test_overview_documents_every_tool():
    overview = (PLUGINS / "README.md").read_text(encoding="utf-8")
    server_readme = (PLUGINS / "mcp-server/README.md").read_text(encoding="utf-8")
    for name in TOOL_NAMES:
        assert f"`{name}`" in overview and f"`{name}`" in server_readme, name
    assert set(TOOL_NAMES) == set(catalog())
    for folder in ("claude-code", "codex", "copilot", "cursor", "devin", "dsh", "openclaw", "mcp-server"):
        assert f"({folder}/)" in overview and (PLUGINS / folder / "README.md").is_file(), folder


def test_claude_code_session_end_hook_stages_and_never_adopts():
    hooks = json.loads((PLUGINS / "claude-code/hooks/hooks.json").read_text(encoding="utf-8"))["hooks"]
    ((entry,),) = [group["hooks"] for group in hooks["SessionEnd"]]
    assert entry["type"] == "command" and entry["timeout"] <= 60, "the hook must return quickly"
    argv = entry["command"].split()
    assert argv[:3] == ["skillopt", "sleep", "session-end"]
    assert "--auto-adopt" not in argv and "adopt" not in argv
    assert set(a for a in argv if a.startswith("--")) <= options_of(sleep_commands()["session-end"])
    assert "--auto-adopt" not in options_of(sleep_commands()["session-end"]), "the hook command cannot adopt at all"
