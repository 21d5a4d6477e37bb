"""microsoft/SkillOpt's YAML configs, read as ours (``skillopt run --config upstream.yaml``).

Someone moving from upstream has a folder of YAML configs (``_base_`` inheritance, six
sections, ~70 backend plumbing keys) and ``--cfg-options k=v`` habits. This module reads
such a file the way upstream does (``_base_`` paths relative to the file, deep merge,
cycles refused; overrides cast bool → int → float → str) and maps every key to ours.
A key with no equivalent is refused by name unless it holds upstream's shipped default
(the base file sets dozens of plumbing keys that change nothing; those are listed as
ignored, never silently dropped). The table (:data:`RULES`) is the documentation:
``python -m skillopt.config.upstream > docs/upstream-configs.md``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import attrs

from skillopt.errors import ConfigError


@attrs.frozen
class Rule:
    """One upstream key: where it goes (None = nowhere) and the value that changes nothing."""

    upstream: str
    ours: str | None
    #: for keys with no equivalent: upstream's shipped value, which is accepted and ignored
    inert: Any = None
    note: str = ""


SAME = ("train.num_epochs", "train.train_size", "train.batch_size", "train.accumulation", "train.seed", "train.max_steps",
        "gradient.minibatch_size", "gradient.merge_batch_size", "gradient.analyst_workers", "gradient.failure_only",
        "optimizer.learning_rate", "optimizer.min_learning_rate", "optimizer.lr_scheduler", "optimizer.lr_control_mode",
        "optimizer.skill_update_mode", "optimizer.use_slow_update", "optimizer.slow_update_samples",
        "optimizer.slow_update_gate_with_selection", "optimizer.longitudinal_pair_policy", "optimizer.use_meta_skill",
        "optimizer.use_skill_aware_reflection", "optimizer.skill_aware_appendix_source",
        "optimizer.skill_aware_consolidate_threshold", "evaluation.use_gate", "evaluation.gate_metric",
        "evaluation.gate_mixed_weight", "evaluation.use_semantic_density", "evaluation.semantic_density_weight",
        "evaluation.leading_words", "evaluation.sel_env_num", "evaluation.test_env_num", "evaluation.eval_test",
        "model.reasoning_effort", "env.name", "env.split_dir", "env.data_path", "env.exec_timeout", "env.workers", "env.limit",
        "env.max_completion_tokens")

_AZURE = {"endpoint": "base_url", "api_version": "api_version", "api_key": "api_key", "auth_mode": "auth_mode"}

RULES: tuple[Rule, ...] = (
    *(Rule(key, key) for key in SAME),
    Rule("optimizer.edit_budget", "optimizer.learning_rate", note="upstream's flat name"),
    Rule("optimizer.min_edit_budget", "optimizer.min_learning_rate", note="upstream's flat name"),
    Rule("optimizer.meta_learning_rate", None, note="read nowhere upstream"),
    Rule("optimizer.meta_edit_budget", None, note="read nowhere upstream"),
    Rule("optimizer.use_meta_reflect", None, inert=False),
    Rule("gradient.max_analyst_rounds", None, inert=3, note="retired upstream (it only warns)"),
    Rule("model.backend", "model.backend", note="backend names mapped (table below)"),
    Rule("model.optimizer", "model.optimizer.model", note="a deployment name"),
    Rule("model.target", "model.target.model", note="a deployment name"),
    Rule("model.optimizer_backend", "model.optimizer.backend", note="`openai_chat` (the shipped default) leaves `model.backend` in charge"),
    Rule("model.target_backend", "model.target.backend", note="as for the optimizer; exec harnesses become agent mode"),
    Rule("model.rewrite_reasoning_effort", "optimizer.rewrite_reasoning_effort"),
    Rule("model.rewrite_max_completion_tokens", "optimizer.rewrite_max_tokens"),
    *(Rule(f"model.{prefix}azure_openai_{key}", f"model.{role}{ours}", note="azure_cli / managed_identity become `entra`" if key == "auth_mode" else "")
      for prefix, role in (("", ""), ("optimizer_", "optimizer."), ("target_", "target.")) for key, ours in _AZURE.items()),
    *(Rule(f"model.{prefix}azure_openai_{key}", None, inert=value)
      for prefix in ("", "optimizer_", "target_")
      for key, value in (("ad_scope", "https://cognitiveservices.azure.com/.default"), ("managed_identity_client_id", ""))),
    Rule("model.codex_exec_path", "model.target.options.path", inert="codex", note="the codex binary of a codex-cli target"),
    Rule("model.claude_code_exec_path", "model.target.options.path", inert="claude", note="the claude binary of a claude-cli target"),
    *(Rule(f"model.codex_exec_{key}", None, inert=value) for key, value in (
        ("sandbox", "workspace-write"), ("profile", ""), ("full_auto", False), ("reasoning_effort", "none"), ("use_sdk", "auto"),
        ("network_access", False), ("web_search", False), ("approval_policy", "never"))),
    *(Rule(f"model.claude_code_exec_{key}", None, inert=value) for key, value in (
        ("profile", ""), ("use_sdk", "auto"), ("effort", "medium"), ("max_thinking_tokens", 16384))),
    Rule("model.codex_trace_to_optimizer", None, inert=True, note="agent traces always reach the analysts here"),
    Rule("env.skill_init", "env.skill_init", note="an upstream repository path that does not exist here means the env's own initial skill"),
    Rule("env.out_root", "out_dir"),
    Rule("env.split_mode", None, inert="split_dir", note="implied: `env.split_dir` or `env.data_path`, whichever is set"),
    Rule("env.split_output_dir", None, inert=""),
    Rule("human_feedback.enabled", None, inert=False),
    Rule("human_feedback.timeout_seconds", None, inert=0),
    Rule("human_feedback.on_timeout", None, inert="fallback_to_gate"),
    Rule("human_feedback.max_retries_per_step", None, inert=3),
)

#: upstream backend names → ours; a second value is the role's ``options.mode``
BACKENDS: dict[str, tuple[str, str]] = {
    **{name: ("azure-openai", "") for name in ("azure_openai", "azure", "azure-openai", "openai_chat")},
    **{name: ("openai-compatible", "") for name in ("openai_compatible", "compat", "openai-compatible", "openai_compatible_chat",
                                                    "qwen", "qwen_chat", "minimax", "minimax_chat")},
    **{name: ("claude-cli", "") for name in ("claude", "claude_chat", "anthropic")},
    **{name: ("codex-cli", "") for name in ("codex", "openai")},
    **{name: ("copilot-cli", "") for name in ("copilot", "copilot_chat", "copilot_cli", "github_copilot")},
    "codex_exec": ("codex-cli", "agent"), "claude_code_exec": ("claude-cli", "agent"), "copilot_exec": ("copilot-cli", "agent"),
    **{name: ("cursor-cli", "agent") for name in ("cursor", "cursor_exec", "cursor_agent")},
}
AUTH_MODES = {"azure_cli": "entra", "managed_identity": "entra", "aad": "entra", "azure_ad": "entra", "api_key": "api_key", "key": "api_key"}
_BY_KEY = {rule.upstream: rule for rule in RULES}


def is_upstream_file(path: Path | None) -> bool:
    return path is not None and Path(path).suffix.lower() in (".yaml", ".yml")


#: the deepest ``_base_`` chain and the most files one config may read through it
MAX_BASE_DEPTH, MAX_BASE_FILES = 32, 128


def read_yaml_layers(path: Path, seen: tuple[Path, ...] = (), _budget: list[int] | None = None) -> dict[str, Any]:
    """The file merged over its ``_base_`` chain (string or list, relative to the file).
    Each file is read bounded (:mod:`skillopt.config.bounded`); a chain deeper than
    :data:`MAX_BASE_DEPTH` or reading more than :data:`MAX_BASE_FILES` files is refused."""
    from skillopt.config.bounded import load_yaml, read_config_text
    from skillopt.config.loading import deep_merge

    budget = [MAX_BASE_FILES] if _budget is None else _budget
    path = Path(path).expanduser().resolve()
    if path in seen:
        raise ConfigError(f"{path}: _base_ inheritance loops back to itself ({' -> '.join(p.name for p in (*seen, path))})")
    if len(seen) >= MAX_BASE_DEPTH:
        raise ConfigError(f"{seen[0]}: its _base_ chain is deeper than {MAX_BASE_DEPTH} files (at {path.name})")
    budget[0] -= 1
    if budget[0] < 0:
        raise ConfigError(f"{seen[0] if seen else path}: its _base_ files read more than {MAX_BASE_FILES} files")
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml is a dependency of skillopt-core
        raise ConfigError("reading YAML configs needs PyYAML: pip install pyyaml") from None
    what = f"the _base_ of {seen[-1]}:" if seen else "--config"
    try:
        data = load_yaml(read_config_text(path, what), str(path)) or {}
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}" + (f" (the _base_ of {seen[-1]})" if seen else "")) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not a readable YAML config ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a YAML config is a mapping of sections, not a {type(data).__name__}")
    bases = data.pop("_base_", None) or []
    bases = [bases] if isinstance(bases, str) else bases
    if not isinstance(bases, list) or not all(isinstance(b, str) and b for b in bases):
        raise ConfigError(f"{path}: _base_ is a path or a list of paths (relative to the file), not {bases!r:.80}")
    merged: dict[str, Any] = {}
    for base in bases:
        merged = deep_merge(merged, read_yaml_layers(path.parent / base, (*seen, path), budget))
    return deep_merge(merged, data)


def cast_option(text: str) -> Any:
    """``--cfg-options`` values as upstream casts them: bool, then int, then float, else str."""
    low = text.strip().lower()
    if low in ("true", "yes"):
        return True
    if low in ("false", "no"):
        return False
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def apply_cfg_options(data: dict[str, Any], options: tuple[str, ...]) -> dict[str, Any]:
    """``k=v`` overrides (dotted keys; a flat key is an ``env.`` key, as upstream)."""
    from skillopt.config.loading import deep_merge

    for option in (part for text in options for part in text.split()):
        key, sep, value = option.partition("=")
        if not sep or not key:
            raise ConfigError(f"--cfg-options expects key=value, got {option!r}")
        parts = key.split(".") if "." in key else ["env", key]
        node: Any = cast_option(value)
        for part in reversed(parts):
            node = {part: node}
        data = deep_merge(data, node)
    return data


def flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and not (prefix == "env." or dotted == "model.prices"):
            out.update(flatten(value, dotted + "."))
        else:
            out[dotted] = value
    return out


def _put(raw: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    node = raw
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value


def translate(data: dict[str, Any], *, where: str) -> tuple[dict[str, Any], list[str]]:
    """(our raw config, notes on what was ignored) from an upstream mapping."""
    raw: dict[str, Any] = {"evaluation": {"gate": "strict"}}  # upstream has one gate
    notes: list[str] = []
    flat = flatten(data)
    if str(flat.get("model.azure_openai_auth_mode", "")) in ("openai_compatible", "compat", "openai") \
            and flat.get("model.backend", "azure_openai") in ("azure_openai", "azure", "azure-openai", "openai_chat"):
        flat["model.backend"] = "openai_compatible"  # upstream's plain OpenAI client behind the Azure name
    env_cls = _env_class(str(flat.get("env.name") or ""))
    for key, value in flat.items():
        rule = _BY_KEY.get(key)
        if rule is None and key.startswith("env."):
            _env_key(raw, key[4:], value, env_cls, notes, where)
            continue
        if rule is None:
            raise ConfigError(f"{where}: upstream key '{key}' has no SkillOpt equivalent (see docs/upstream-configs.md)")
        if rule.ours is None:
            if value != rule.inert and value not in ("", None):
                raise ConfigError(f"{where}: upstream key '{key}' = {value!r} has no SkillOpt equivalent"
                                  + (f" ({rule.note})" if rule.note else "") + "; remove it or set it to "
                                  + f"{rule.inert!r} (see docs/upstream-configs.md)")
            notes.append(key)
            continue
        if rule.inert is not None and value == rule.inert:
            notes.append(key)  # upstream's shipped value: the same as ours
            continue
        value = _value(rule, key, value, env_cls, notes)
        if value is not _SKIP:
            _put(raw, rule.ours, value)
    _roles(raw)
    return raw, notes


_SKIP = object()


def _value(rule: Rule, key: str, value: Any, env_cls, notes: list[str]) -> Any:
    if value in ("", None) and rule.ours not in ("env.name",):
        return _SKIP  # upstream's empty string means "unset"
    if key.endswith("auth_mode"):
        if value in ("openai_compatible", "compat", "openai"):
            return _SKIP  # handled by the backend mapping: a plain OpenAI-compatible client
        return AUTH_MODES.get(str(value), value)
    if key == "env.name" and env_cls is not None:
        return env_cls.name
    if key == "env.skill_init" and not Path(str(value)).expanduser().exists():
        notes.append(f"{key} ({value} is an upstream repository path; the env's own initial skill is used)")
        return _SKIP
    if key == "evaluation.leading_words" and isinstance(value, str):
        return [w.strip() for w in value.split(",") if w.strip()]
    return value


def _roles(raw: dict[str, Any]) -> None:
    """Backend names mapped; ``openai_chat`` roles follow ``model.backend``, as upstream."""
    model = raw.get("model", {})
    if "backend" in model:
        model["backend"] = _backend(model["backend"], model, None)
    for role in ("optimizer", "target"):
        section = model.get(role, {})
        if "backend" in section:
            if section["backend"] == "openai_chat":
                del section["backend"]
            else:
                section["backend"] = _backend(section["backend"], model, role)


def _backend(name: str, model: dict[str, Any], role: str | None) -> str:
    found = BACKENDS.get(str(name))
    if found is None:
        raise ConfigError(f"upstream backend '{name}' has no SkillOpt equivalent; known: {', '.join(sorted(BACKENDS))}")
    ours, mode = found
    if mode:
        for target in ([role] if role else ["optimizer", "target"]):
            model.setdefault(target, {}).setdefault("options", {})["mode"] = mode
    return ours


def _env_class(name: str):
    if not name:
        return None
    from skillopt.errors import PluginError
    from skillopt.registry import get

    try:
        return get("envs", name).obj
    except PluginError:
        return None  # the run names the unknown env with the installed ones


def _env_key(raw: dict[str, Any], key: str, value: Any, env_cls, notes: list[str], where: str) -> None:
    mapped = dict(getattr(env_cls, "upstream_keys", {}) or {})
    if key in mapped:
        if mapped[key] is None:
            notes.append(f"env.{key} (not used by {env_cls.name})")
            return
        key = mapped[key]
    elif key in ("split_ratio", "split_seed") and env_cls is not None and key not in attrs.fields_dict(env_cls.Config):
        notes.append(f"env.{key} (no ratio split in {env_cls.name}: give env.split_dir)")
        return
    _put(raw, f"env.{key}", value)  # the env's own schema names any key it does not know


def load_upstream(path: Path, cfg_options: tuple[str, ...] = ()) -> dict[str, Any]:
    """Our raw config from an upstream YAML file and ``--cfg-options`` overrides (read and
    reported once per process for the same file and overrides)."""
    import copy

    resolved = Path(path).expanduser()
    stamp = resolved.stat().st_mtime_ns if resolved.exists() else 0
    return copy.deepcopy(_load_once(str(resolved), stamp, tuple(cfg_options)))


@functools.lru_cache(maxsize=16)
def _load_once(path: str, _stamp: int, cfg_options: tuple[str, ...]) -> dict[str, Any]:
    data = apply_cfg_options(read_yaml_layers(Path(path)), cfg_options)
    raw, notes = translate(data, where=path)
    if notes:
        from skillopt.report import say

        say(f"upstream config {Path(path).name}: {len(notes)} key(s) with no effect here were ignored: "
            + ", ".join(notes[:6]) + (f", … (+{len(notes) - 6})" if len(notes) > 6 else ""))
    return raw


def render_markdown() -> str:
    lines = ["# Upstream configs", "",
             "`skillopt run --config file.yaml` reads microsoft/SkillOpt's YAML configs: `_base_` inheritance (a path or a list,",
             "relative to the file; deep merge; loops refused), `--cfg-options key=value` overrides cast like upstream's (bool,",
             "int, float, else string; a key without a dot is an `env.` key), and every key mapped as below. A key with no",
             "equivalent is an error naming it, unless it holds upstream's shipped value (listed), which changes nothing and is",
             "reported as ignored. Upstream has one gate, so an upstream config runs with `evaluation.gate = \"strict\"`",
             "(`--gate paired` for ours). `env:` keys go to the env's own `[env]` section; an env declares the upstream keys it",
             "reads under another name or does without (`Env.upstream_keys`).", "",
             "Generated by `python -m skillopt.config.upstream`.", "",
             "| upstream key | SkillOpt key | note |", "|---|---|---|"]
    for rule in RULES:
        ours = f"`{rule.ours}`" if rule.ours else f"— (accepted only as `{rule.inert!r}`)"
        if rule.ours and rule.inert is not None:
            ours += f" (`{rule.inert!r}` is ignored)"
        lines.append(f"| `{rule.upstream}` | {ours} | {rule.note} |")
    lines += ["", "| upstream backend | SkillOpt backend |", "|---|---|"]
    for name, (ours, mode) in BACKENDS.items():
        lines.append(f"| `{name}` | `{ours}`{' (options.mode = agent)' if mode else ''} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(render_markdown(), end="")
