"""Everything one night needs to know, validated up front.

Bad values fail before any harvest or model call, with a message naming the option
(upstream silently ran its mock backend for an unknown name and ignored a malformed
config file).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import attrs

from skillopt.api import ConfigError

MINERS = ("auto", "heuristic", "llm")
REFLECTORS = ("auto", "heuristic", "llm")
GATE_METRICS = ("hard", "soft", "mixed")
MAX_DREAM_FACTOR = 8
MAX_DREAM_ROLLOUTS = 16
MAX_PREFERENCES = 4000


@attrs.frozen(kw_only=True)
class SleepOptions:
    project: Path
    sources: tuple[str, ...] = ("auto",)
    roots: dict[str, tuple[Path, ...]] = attrs.field(factory=dict)
    scope: str = "invoked"
    lookback_hours: float = 168.0
    agent: str = ""
    target_skill_path: str = ""
    memory: str = "auto"
    # models
    backend: str = "auto"
    model: str = ""
    optimizer_backend: str = ""
    optimizer_model: str = ""
    backend_options: dict[str, Any] = attrs.field(factory=dict)
    use_cache: bool = True
    workers: int = 4
    #: per-call deadline in seconds (None = fitted to the backend, see clients.call_timeout)
    timeout_s: float | None = None
    # learning
    miner: str = "auto"
    reflector: str = "auto"
    edit_budget: int = 4
    #: the developer's house rules, shown to the LLM reflector (text, already read from a file if one was named)
    preferences: str = ""
    recall_k: int = 0
    dream_factor: int = 0  # synthetic rephrasings per real train task (train only)
    dream_rollouts: int = 1  # train replays per task; > 1 turns on contrastive reflection
    gate: str = "strict"
    gate_metric: str = "mixed"
    no_regression: bool = False
    min_margin: float = 0.0
    confidence: float = 0.9
    repeats: int = 1
    min_val_items: int = 2
    val_fraction: float = 0.34
    test_fraction: float = 0.0
    seed: int = 42
    # budgets
    max_sessions: int = 200
    max_tasks: int = 40
    max_calls: int | None = None
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    #: also consolidate every skill tonight's sessions used, each from its own SKILL.md (see fanout)
    fan_out: bool = False
    # what to do with the result
    auto_adopt: bool = False

    def __attrs_post_init__(self) -> None:
        problems = []
        if self.scope not in ("invoked", "all"):
            problems.append(f"--scope must be invoked or all, not {self.scope!r}")
        if self.miner not in MINERS:
            problems.append(f"--miner must be one of {', '.join(MINERS)}, not {self.miner!r}")
        if self.reflector not in REFLECTORS:
            problems.append(f"--reflector must be one of {', '.join(REFLECTORS)}, not {self.reflector!r}")
        if self.gate_metric not in GATE_METRICS:
            problems.append(f"--gate-metric must be one of {', '.join(GATE_METRICS)}, not {self.gate_metric!r}")
        for name in ("edit_budget", "repeats", "min_val_items", "max_sessions", "max_tasks", "workers"):
            if getattr(self, name) < 1:
                problems.append(f"--{name.replace('_', '-')} must be at least 1")
        if self.timeout_s is not None and self.timeout_s <= 0:
            problems.append("--timeout must be positive (seconds per model call)")
        for name in ("max_calls", "max_tokens", "max_cost_usd"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                problems.append(f"--{name.replace('_', '-').replace('-usd', '')} must be positive")
        if not (0 < self.val_fraction < 1) or not (0 <= self.test_fraction < 1) or self.val_fraction + self.test_fraction >= 1:
            problems.append("--val-fraction must be in (0, 1), --test-fraction in [0, 1), and their sum below 1")
        if self.recall_k < 0:
            problems.append("--recall-k must be >= 0")
        if not 0 <= self.dream_factor <= MAX_DREAM_FACTOR:
            problems.append(f"--dream-factor must be between 0 and {MAX_DREAM_FACTOR}")
        if not 1 <= self.dream_rollouts <= MAX_DREAM_ROLLOUTS:
            problems.append(f"--dream-rollouts must be between 1 and {MAX_DREAM_ROLLOUTS}")
        if len(self.preferences) > MAX_PREFERENCES:
            problems.append(f"--preferences is {len(self.preferences)} characters; keep it under {MAX_PREFERENCES}")
        if self.lookback_hours < 0:
            problems.append("--lookback-hours must be >= 0 (0 = all history)")
        if problems:
            raise ConfigError("; ".join(problems))

    @property
    def project_path(self) -> Path:
        return Path(self.project).expanduser().resolve()


def read_preferences(value: str | None) -> str:
    """``--preferences``: the text itself, or the content of the file it names. Secrets
    are scrubbed like transcript text: the preferences go to the optimizer model."""
    from skillopt_sleep.redaction import clip

    if not value or not value.strip():
        return ""
    path = Path(value).expanduser()
    try:
        is_file = path.is_file()
    except OSError:  # a long text is not a path
        is_file = False
    if is_file:
        try:
            value = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"--preferences: cannot read {path} ({exc})") from None
    return clip(value.strip(), MAX_PREFERENCES + 1)


_OPTION_KEY = re.compile(r"(?:--set\s+)?(?:the setting\s+)?model\.(?:target|optimizer)\.options\.(\w+)(?:=…|=\.\.\.)?")
_TIMEOUT_KEY = re.compile(r"(?:raise\s+)?model\.(?:target|optimizer)\.timeout_s")
_LOCAL_PATH = re.compile(r"(?:--set\s+)?model\.local_path(?:=|:\s*)")
_ROLE_MODEL = re.compile(r"\(for a per-role model use model\.(?:target|optimizer)\.model\)")


def in_sleep_terms(message: str) -> str:
    """A backend's hint in the words of ``skillopt sleep``: backends name config keys
    (``model.target.options.path``, ``model.target.timeout_s``, ``model.local_path``),
    which ``skillopt run`` sets with ``--set``; this command sets them with
    ``--backend-option KEY=…``, ``--timeout`` and ``--model /path/model.gguf`` (the local
    backend runs a GGUF named as the model), per role with ``--optimizer-model``."""
    message = _OPTION_KEY.sub(lambda m: f"--backend-option {m.group(1)}=…", message)
    message = _LOCAL_PATH.sub(lambda m: "--model " if m.group(0).startswith("--set") or m.group(0).endswith("=") else "--model: ", message)
    message = _ROLE_MODEL.sub("(for the optimizer's model use --optimizer-model)", message)
    return _TIMEOUT_KEY.sub(lambda m: "raise --timeout" if m.group(0).startswith("raise") else "--timeout", message)
