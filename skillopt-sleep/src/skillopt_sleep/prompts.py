"""The prompts a night sends, and the developer's overrides of them.

Each prompt has a name, a default text and the placeholders it must keep: the data
the call needs (``{failures}`` for reflection, ``{skill}`` for a replay …). A developer
may replace any of them in one TOML file under the user config directory
(``<config dir>/sleep-prompts.toml``; ``SKILLOPT_SLEEP_PROMPTS`` names another file)::

    reflect_system = \"\"\"You keep this team's agent rules. Prefer short imperative lines.\"\"\"
    reflect_user = \"\"\"Project {project}. Team rules: {preferences}
    Rules so far:
    {rules}
    What went wrong:
    {failures}\"\"\"

The file is checked before a night starts: an unknown prompt name, an unknown
``{placeholder}``, a missing required one, or a value that is not text is refused with
one line naming it (exit 2), so a typo never silently falls back to the default.
Only ``{name}`` with a known placeholder name is substituted; other braces (JSON
examples) are left alone. Whatever the text, the engine sentinel is still added to
every system prompt (sleep's own replays stay out of tomorrow's harvest) and the
reply format (the JSON schema) is still enforced.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import attrs

from skillopt.api import ConfigError

FILE_NAME = "sleep-prompts.toml"
ENV_VAR = "SKILLOPT_SLEEP_PROMPTS"
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@attrs.frozen(kw_only=True)
class Prompt:
    name: str
    text: str
    #: placeholders the text must contain (the call's data)
    required: tuple[str, ...] = ()
    #: placeholders it may contain
    optional: tuple[str, ...] = ()
    about: str = ""


DEFAULTS: dict[str, Prompt] = {
    p.name: p
    for p in (
        Prompt(
            name="attempt_system",
            about="system prompt of a replay: the agent under test, with the documents it follows",
            text=(
                "You are the developer's coding agent in the project {project}. "
                "Follow the skill and the project memory below: they are this developer's conventions.\n\n"
                "## Skill\n{skill}\n\n## Project memory\n{memory}"
            ),
            required=("skill", "memory"),
            optional=("project",),
        ),
        Prompt(
            name="judge_system",
            about="system prompt of the rubric judge (tasks without deterministic checks)",
            text=(
                "You are a strict grader of a coding agent's answer to a developer's request. "
                'Judge only against the rubric. Reply with JSON {"score": 0..1, "reason": "..."}.'
            ),
        ),
        Prompt(
            name="reflect_system",
            about="system prompt of failure reflection (the LLM reflector)",
            text=(
                "You maintain the learned rules a coding agent follows in one project. Propose general, durable "
                "conventions that would have avoided the failures below. Never quote a request verbatim, never mention "
                "graders or checks, keep each rule one line starting with '- '."
            ),
        ),
        Prompt(
            name="reflect_user",
            about="the failures shown to the reflector, with the developer's --preferences",
            text=(
                "Project: {project}\n\n## The developer's preferences (follow them)\n{preferences}\n\n"
                "## Current learned rules\n{rules}\n\n## Failures\n{failures}"
            ),
            required=("rules", "failures", "preferences"),
            optional=("project",),
        ),
        Prompt(
            name="contrast_system",
            about="system prompt of contrastive reflection (--dream-rollouts K > 1)",
            text=(
                "You maintain the learned rules a coding agent follows in one project. The same request was attempted "
                "several times under the same rules: some attempts were GOOD, some BAD. Propose general, durable rules "
                "that explain what the GOOD attempts did and the BAD ones did not, so the agent does it every time. "
                "Never quote a request verbatim, never mention graders, checks or scores, keep each rule one line "
                "starting with '- '."
            ),
        ),
        Prompt(
            name="contrast_user",
            about="the GOOD vs BAD attempts shown to the contrastive reflector, with the developer's --preferences",
            text=(
                "Project: {project}\n\n## The developer's preferences (follow them)\n{preferences}\n\n"
                "## Current learned rules\n{rules}\n\n## GOOD vs BAD attempts\n{attempts}"
            ),
            required=("rules", "attempts", "preferences"),
            optional=("project",),
        ),
    )
}

NO_PREFERENCES = "(none given)"


def path() -> Path:
    """Where the overrides are read from."""
    given = os.environ.get(ENV_VAR)
    if given:
        return Path(given).expanduser()
    from skillopt.api import config_dir

    return config_dir() / FILE_NAME


def validate(data: object, where: str) -> dict[str, str]:
    """The overrides in ``data`` (parsed TOML), or ConfigError naming the problem."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected name = \"text\" pairs")
    out: dict[str, str] = {}
    for name, text in data.items():
        prompt = DEFAULTS.get(name)
        if prompt is None:
            raise ConfigError(f"{where}: unknown prompt {name!r} (known: {', '.join(DEFAULTS)})")
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(f"{where}: prompt {name!r} must be non-empty text")
        used = set(_PLACEHOLDER.findall(text))
        allowed = set(prompt.required) | set(prompt.optional)
        unknown = sorted(used - allowed)
        if unknown:
            hint = f"it may use {', '.join('{' + p + '}' for p in sorted(allowed))}" if allowed else "it takes none"
            raise ConfigError(f"{where}: prompt {name!r} has unknown placeholder {{{unknown[0]}}}; {hint}")
        missing = [p for p in prompt.required if p not in used]
        if missing:
            raise ConfigError(
                f"{where}: prompt {name!r} must contain {', '.join('{' + p + '}' for p in missing)} "
                f"(the data this call needs)"
            )
        out[name] = text
    return out


_lock = threading.Lock()
_cache: dict[str, tuple[float, dict[str, str]]] = {}


def overrides() -> dict[str, str]:
    """The developer's valid overrides ({} when the file does not exist); re-read when it changes."""
    import tomllib

    file = path()
    try:
        mtime = file.stat().st_mtime
    except FileNotFoundError:
        if os.environ.get(ENV_VAR):
            raise ConfigError(f"{ENV_VAR}={file}: no such file") from None
        return {}
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read it ({exc.strerror or exc})") from None
    key = str(file)
    with _lock:
        cached = _cache.get(key)
        if cached and cached[0] == mtime:
            return cached[1]
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: cannot read it ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML ({exc})") from None
    found = validate(data, str(file))
    with _lock:
        _cache[key] = (mtime, found)
    return found


def render(name: str, **values: str) -> str:
    """Prompt ``name`` (the developer's text if overridden) with its placeholders filled."""
    text = overrides().get(name) or DEFAULTS[name].text
    return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), text)


def preferences_text(value: str) -> str:
    return value.strip() or NO_PREFERENCES


def starter() -> str:
    """A prompt file holding every default: copy it, keep the prompts to change, delete the rest."""
    lines = [
        f"# skillopt sleep prompt overrides ({FILE_NAME}): every default is below. Keep the prompts",
        "# you change and delete the others; required placeholders must stay. Checked before each night.",
        "",
    ]
    quote = "'" * 3  # TOML literal strings: no escapes to get wrong
    for p in DEFAULTS.values():
        keep = ", ".join("{" + r + "}" for r in p.required) or "none"
        lines += [f"# {p.about} (required placeholders: {keep})", f"{p.name} = {quote}{p.text}{quote}", ""]
    return "\n".join(lines)
