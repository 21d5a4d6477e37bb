"""``docs/api.md``: the reference of :mod:`skillopt.api`, generated from the code.

Every public name is rendered from its definition: attrs records as field tables
(types, defaults, the ``#:`` comment above each field), enums with each value's
meaning, base classes with their class attributes and methods, functions with their
signatures. A test keeps the file in step (``python -m skillopt.apidoc > docs/api.md``).
"""

from __future__ import annotations

import enum
import inspect
import re
from typing import Any, cast

import attrs

from skillopt.fielddocs import field_docs

HEADER = """# `skillopt.api` reference

Generated from the code (`python -m skillopt.apidoc > docs/api.md`). Plugins import only
`skillopt.api`; every other module of `skillopt` is private. How to write each kind of
plugin: [tutorials/](tutorials/); the hooks: [plugin-hooks.md](plugin-hooks.md); every
config key: [configuration.md](configuration.md).
"""

FILES = """## Files of a run directory

`summary.json` is a `RunSummary` (below) as JSON. `history.json` is a list of entries: a
`StepRecord` with `"kind": "step"` per finished step, and `{"kind": "config_change", ...}`
(a `ConfigChange`: `after_step`, `changes`) when a run was resumed with `--force-config`.
`steps/step_NNNN/` holds one folder per stage (`rollout`, `reflect`, `merge`, `select`,
`apply`, `gate`) and `step_record.json` (a step of several proposals keeps its merges,
rankings and applications under `proposals/gN/` and `proposals/pN/`, and its race in
`race/`); `selection/` the final pick, when one was made; `skills/skill_vNNNN.md` every skill version;
`best_skill.md` the best one; `usage.jsonl` one line per provider call; `config.json` the
resolved config, secrets redacted.
"""


def _first_paragraph(doc: str | None) -> str:
    text = inspect.cleandoc(doc or "")
    return text.split("\n\n", 1)[0].replace("\n", " ").strip()


def _type(tp: Any) -> str:
    if isinstance(tp, str):
        text = tp
    elif isinstance(tp, type):
        text = tp.__name__
    else:
        text = str(tp).replace("typing.", "")
    text = re.sub(r"\b(?:[a-z_][a-z0-9_]*\.)+([A-Za-z_]\w*)", r"\1", text)  # skillopt.results.X -> X
    return text.replace("NoneType", "None").replace("|", "or")


def _default(field: attrs.Attribute[Any]) -> str:
    default = field.default
    if default is attrs.NOTHING:
        return "required"
    if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
        default = cast(Any, default).factory()
    text = repr(default)
    return f"`{text}`" if len(text) <= 40 else "`…`"


def _config_help(cls: type) -> dict[str, str]:
    """Config sections are documented once, in :mod:`skillopt.config.reference`."""
    from skillopt.config import schema
    from skillopt.config.reference import HELP, ROLE_HELP

    if cls is schema.RoleConfig:
        return dict(ROLE_HELP)
    prefix = {schema.RunConfig: "", schema.ModelConfig: "model.", schema.EvaluationConfig: "evaluation.",
              schema.EnvConfig: "env."}.get(cls)
    if prefix is None:
        return {}
    return {f.name: HELP.get(prefix + f.name, "") or ("the [" + f.name + "] section" if not prefix else "")
            for f in attrs.fields(cls)}


def _record(name: str, cls: type) -> list[str]:
    lines = [f"### `{name}`", "", _first_paragraph(cls.__doc__), ""]
    docs = {**field_docs(cls), **{k: v for k, v in _config_help(cls).items() if v}}
    try:  # types as objects whatever was imported before (string annotations otherwise)
        attrs.resolve_types(cls)
    except (NameError, TypeError):
        pass
    lines += ["| field | type | default | meaning |", "|---|---|---|---|"]
    for field in attrs.fields(cls):
        lines.append(f"| `{field.name}` | {_type(field.type)} | {_default(field)} | {docs.get(field.name, '')} |")
    props = [(n, v) for n, v in vars(cls).items() if isinstance(v, property) and not n.startswith("_")]
    for pname, prop in props:
        lines.append(f"| `{pname}` (property) | | | {_first_paragraph(prop.__doc__)} |")
    return lines + [""]


def _enum(name: str, cls: type[enum.Enum]) -> list[str]:
    docs = field_docs(cls)
    lines = [f"### `{name}`", "", _first_paragraph(cls.__doc__), "", "| value | meaning |", "|---|---|"]
    for member in cls:
        lines.append(f"| `{member.value}` | {docs.get(member.name, '')} |")
    return lines + [""]


def _class(name: str, cls: type) -> list[str]:
    lines = [f"### `{name}`", "", _first_paragraph(cls.__doc__), ""]
    docs = field_docs(cls)
    attrs_rows = [(n, docs[n]) for n in docs if not n.startswith("_") and n in dir(cls)]
    if attrs_rows:
        lines += ["| class attribute | meaning |", "|---|---|"]
        lines += [f"| `{n}` | {d} |" for n, d in attrs_rows]
        lines.append("")
    methods = []
    # a Protocol's __init__ is typing's placeholder; a callable protocol is described by its __call__
    dunder = "__call__" if getattr(cls, "_is_protocol", False) else "__init__"
    for mname, member in vars(cls).items():
        if mname.startswith("_") and mname != dunder:
            continue
        func = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
        if not inspect.isfunction(func):
            continue
        sig = _signature(func)
        abstract = " *(implement)*" if getattr(func, "__isabstractmethod__", False) else ""
        methods.append(f"- `{mname}{sig}`{abstract}: {_first_paragraph(func.__doc__)}")
    if methods:
        lines += methods + [""]
    return lines


_ADDRESS = re.compile(r"<(?:function|built-in function|bound method) ([\w.]+)(?: of [^>]*)?(?: at 0x[0-9a-f]+)?>")


def _signature(func: Any) -> str:
    """The signature with object reprs (``<function f at 0x…>``) shown by name: stable text."""
    try:
        sig = str(inspect.signature(func)).replace("'", "")
    except (TypeError, ValueError):
        return "(...)"
    return _ADDRESS.sub(lambda m: m.group(1), sig)


def _function(name: str, func: Any) -> list[str]:
    sig = _signature(func)
    return [f"### `{name}{sig}`", "", _first_paragraph(func.__doc__), ""]


def _value(name: str, value: Any) -> list[str]:
    text = repr(value)
    return [f"### `{name}`", "", f"`{text if len(text) <= 100 else text[:97] + '...'}`", ""]


def render(name: str, obj: Any) -> list[str]:
    if isinstance(obj, type) and issubclass(obj, enum.Enum):
        return _enum(name, obj)
    if isinstance(obj, type) and attrs.has(obj):
        return _record(name, obj)
    if isinstance(obj, type):
        return _class(name, obj)
    if callable(obj) and not isinstance(obj, type):
        if hasattr(obj, "__wrapped__") or inspect.isfunction(obj) or inspect.isbuiltin(obj):
            return _function(name, obj)
        return [f"### `{name}`", "", _first_paragraph(getattr(obj, "__doc__", "")), ""]
    return _value(name, obj)


def _schemas() -> list[str]:
    """The JSON schema of every optimizer call, as a scripted backend or a custom optimizer
    model must answer it (the examples use a budget of 4 edits)."""
    import json

    from skillopt.policies import schemas as sc

    calls = [
        ("reflect", "patch, failure minibatch", sc.analyst_patch_schema("failure", 4, False)),
        ("reflect", "patch, success minibatch", sc.analyst_patch_schema("success", 4, False)),
        ("merge", "patch", sc.merged_patch_schema()),
        ("ranking", "patch and rewrite, when more edits than the budget survive the merge", sc.ranking_schema(6, 4)),
        ("reflect", "rewrite", sc.analyst_rewrite_schema("failure", 4)),
        ("merge", "rewrite", sc.merged_suggestions_schema()),
        ("rewrite / merge", "rewrite (the new skill), full-rewrite", sc.new_skill_schema()),
        ("lr_autonomous", "optimizer.lr_control_mode = autonomous", sc.lr_schema()),
        ("slow_update", "epoch boundary", sc.text_block_schema("slow_update_content")),
        ("meta_skill", "epoch boundary", sc.text_block_schema("meta_skill_content")),
        ("appendix_consolidate", "skill-aware reflection", sc.notes_schema()),
    ]
    lines = ["## Optimizer reply schemas", "",
             "Each optimizer call carries one of these JSON schemas (`CompletionRequest.json_schema`); each",
             "heading names the request's `stage` (what the scripted backend's rules match on) and when it is",
             "used. A reply that breaks its schema is re-asked `model.schema_retries` times, then counted as a",
             "failure, never adopted.", ""]
    for stage, used, schema in calls:
        lines += [f"### `{stage}`: {used}", "", "```json", json.dumps(schema, sort_keys=True), "```", ""]
    return lines


def render_markdown() -> str:
    import skillopt.api as api

    lines = [HEADER]
    for title, names in api.groups().items():
        lines += [f"## {title}", ""]
        for name in names:
            lines += render(name, getattr(api, name))
    lines += _schemas()
    lines.append(FILES)
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(render_markdown(), end="")
