"""``scripted``: a deterministic stand-in for a model, for engine and plugin tests.

It is not a model. It answers from a script: a Python callable given in code, or a
JSON rules file (``--set model.options.rules=rules.json``) mapping a stage and a regex
over the request text to a reply; ``model.options.delay_s`` makes each call take that
long, standing in for a slow model (progress displays, stopping a run mid-way). Schema requests with no matching rule get the
smallest valid instance of the schema, so a run completes deterministically.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt.backends import Backend, BackendSettings
from skillopt.hookspecs import hookimpl
from skillopt.records import Completion, CompletionRequest, Usage

if TYPE_CHECKING:
    from skillopt.hookspecs import Register


Reply = str | dict[str, Any] | list[Any] | BaseException
Script = Callable[[CompletionRequest], Reply]


def minimal_instance(schema: dict[str, Any]) -> Any:
    """The smallest value that satisfies ``schema`` (required keys only)."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        props = schema.get("properties", {})
        return {key: minimal_instance(props.get(key, {})) for key in schema.get("required", [])}
    if kind == "array":
        return [minimal_instance(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    if kind == "string":
        return "x" * schema.get("minLength", 0)
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


def request_text(request: CompletionRequest) -> str:
    return "\n".join(f"[{m.role}] {m.content}" for m in request.messages)


def read_rules(path: Path) -> list[dict[str, Any]]:
    """The rules of a rules file: a JSON list of ``{"stage", "match", "reply"}`` objects.

    ``stage`` is a stage name (``rollout``, ``reflect``, ``merge``, ``select``, ``apply``,
    ``slow_update``, ``meta_skill``) or ``*``; ``match`` a regex searched in the request
    rendered as ``[role] content`` lines; ``reply`` the text, or for a structured call the
    JSON object, to return. Rules are tried in order; no match gives the minimal reply."""
    from skillopt.errors import ConfigError

    try:
        rules = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"model.options.rules: cannot read {path}: {exc}") from None
    if not isinstance(rules, list) or not all(isinstance(r, dict) and "reply" in r for r in rules):
        raise ConfigError(f"model.options.rules: {path} must be a JSON list of {{stage, match, reply}} objects")
    return rules


def rules_script(path: Path) -> Script:
    """A script from a rules file (see :func:`read_rules`; first match wins)."""
    rules = read_rules(path)

    def script(request: CompletionRequest) -> Reply:
        text = request_text(request)
        for rule in rules:
            if rule.get("stage", "*") not in ("*", request.stage):
                continue
            if re.search(rule.get("match", ""), text, re.DOTALL):
                reply: Reply = rule["reply"]
                return reply
        return default_script(request)

    return script


def default_script(request: CompletionRequest) -> Reply:
    if request.json_schema is not None:
        instance: dict[str, Any] = minimal_instance(request.json_schema)
        return instance
    return "scripted reply"


class ScriptedBackend(Backend):
    """Deterministic fake backend (tests and plugin development; not a model)."""

    name = "scripted"
    summary = "deterministic scripted replies for tests (not a model)"
    default_model = "scripted"
    auto_priority = None
    small_model = True  # stands in for the embedded model in tests: envs pick ``small``

    def __init__(self, settings: BackendSettings | None = None, script: Script | None = None) -> None:
        super().__init__(settings or BackendSettings(name="scripted", model="scripted"))
        rules = self.settings.options.get("rules")
        self.script = script or (rules_script(Path(rules)) if rules else default_script)
        self.delay_s = float(self.settings.options.get("delay_s", 0) or 0)
        self.requests: list[CompletionRequest] = []
        self._lock = threading.Lock()

    def complete(self, request: CompletionRequest) -> Completion:
        with self._lock:
            self.requests.append(request)
        if self.delay_s:
            time.sleep(self.delay_s)
        reply = self.script(request)
        if isinstance(reply, BaseException):
            raise reply
        text = reply if isinstance(reply, str) else json.dumps(reply)
        prompt = sum(len(m.content) for m in request.messages) // 4 + 1
        return Completion(
            text=text,
            usage=Usage(prompt_tokens=prompt, completion_tokens=len(text) // 4 + 1),
            model=self.settings.model or "scripted",
            finish_reason="stop",
        )

    def list_price(self, usage: Usage) -> float:
        return 0.0  # not a model: free

    def identity(self) -> dict[str, Any]:
        """The rules file's content is part of the cache identity: editing the rules must
        not replay answers cached under the old ones."""
        ident = super().identity()
        rules = self.settings.options.get("rules")
        if rules:
            import hashlib

            try:
                ident["rules_sha256"] = hashlib.sha256(Path(rules).read_bytes()).hexdigest()[:16]
            except OSError:
                ident["rules_sha256"] = "unreadable"
        return ident

    def stages(self) -> list[str]:
        with self._lock:
            return [r.stage for r in self.requests]


@hookimpl
def skillopt_register_backends(register: Register[type[Backend]]) -> None:
    register(ScriptedBackend)
