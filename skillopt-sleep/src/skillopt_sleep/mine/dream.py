"""Dreaming: rephrased copies of tonight's real train tasks, so a night's few requests
teach more than their exact wording.

Each real train task gets up to N variants tagged ``origin="dream"`` (id
``dream:<parent>:<k>``, ``parent`` set) that inherit its checks, rubric, lessons and
context. They join the train split only: they never enter val or test, never reach a
gate score, and are never archived for recall.

With an optimizer model the variants are paraphrases: one schema-constrained call per
task, through the night's client (so the ledger and budgets count it), with the engine
sentinel in the prompt (so the optimizer's own transcripts are never harvested). Every
variant, from the model or not, must share a content word with the original and look
like it to each textual check (:func:`check_profile`): a paraphrase that names the
command the answer is checked for would make the task trivial, one that mentions a
forbidden tool would change it. Missing or rejected variants are filled with
deterministic rephrasings — the request verbatim in a different frame, picked per task
and seed — which keep the checks valid by construction. (Upstream had three fixed
frames and no model path.)
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import attrs

from skillopt.api import BudgetExceeded, Cancelled, CompletionRequest, Message, SkillOptError
from skillopt_sleep.mine.cluster import features
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.redaction import clip
from skillopt_sleep.replay.judging import run_check
from skillopt_sleep.sentinel import is_engine_text, mark

MAX_VARIANT_CHARS = 800
TEXTUAL_OPS = ("contains", "not_contains", "regex", "not_regex", "tool_called")
FRAMES = (
    "Quick one: {request}",
    "Before I open the pull request: {request}",
    "{request}\n\n(Same conventions as usual in this repo.)",
    "I need this done now. {request}",
    "Can you take care of this? {request}",
    "Picking this back up from yesterday: {request}",
    "For the release branch: {request}",
    "Another one for you. {request}",
)


def dream_schema(n: int) -> dict:
    return {
        "type": "object",
        "properties": {"variants": {"type": "array", "items": {"type": "string"}, "maxItems": n}},
        "required": ["variants"],
    }


@attrs.frozen(kw_only=True)
class Dreams:
    tasks: tuple[SleepTask, ...] = ()
    from_model: int = 0
    rephrased: int = 0
    rejected: int = 0
    pending: int = 0
    notes: tuple[str, ...] = ()


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def check_profile(task: SleepTask, text: str) -> tuple[bool, ...]:
    """What each textual check says about ``text`` read as if it were an answer."""
    return tuple(run_check(c, text)[0] for c in task.checks if c.op in TEXTUAL_OPS)


def acceptable(task: SleepTask, text: str, taken: Sequence[str]) -> bool:
    """A usable variant: new, not engine text, on the same topic (one shared content
    word at least), and indistinguishable from the original to every textual check
    (no leaked answer, no new forbidden tool)."""
    if len(text.strip()) < 8 or is_engine_text(text):
        return False
    seen = {_norm(task.intent), *(_norm(t) for t in taken)}
    if _norm(text) in seen:
        return False
    if not features(text)[0] & features(task.intent)[0]:
        return False  # shares no content word with the request: another job, not a rephrasing
    return check_profile(task, text) == check_profile(task, task.intent)


def rephrasings(task: SleepTask, n: int, seed: int, taken: Sequence[str] = ()) -> list[str]:
    """Up to ``n`` deterministic variants: the request verbatim in rotating frames."""
    start = int(hashlib.sha256(f"{seed}:{task.id}".encode()).hexdigest(), 16) % len(FRAMES)
    out: list[str] = []
    for k in range(len(FRAMES)):
        if len(out) >= n:
            break
        text = FRAMES[(start + k) % len(FRAMES)].format(request=task.intent.strip())
        if acceptable(task, text, [*taken, *out]):
            out.append(text)
    return out


def _describe_checks(task: SleepTask) -> str:
    lines = [f"- {run_check(c, '')[1]}" for c in task.checks]
    if task.rubric:
        lines.append(f"- judged by: {clip(task.rubric, 300)}")
    return "\n".join(lines) or "- (none)"


def dream_request(task: SleepTask, n: int, *, project_name: str, seed: int) -> CompletionRequest:
    system = mark(
        "You rephrase a developer's request to their coding agent, to test that the agent follows the project's "
        "conventions however the request is worded. Every variant asks for exactly the same job with the same scope, "
        "in the developer's voice, so the same checks judge the answer. Vary wording, order and register; add no "
        "requirement and drop none; never name a command, flag or tool the answer is checked for unless the "
        "original request names it."
    )
    user = (
        f"Project: {project_name or '(unnamed)'}\n\n## Request\n{clip(task.intent, MAX_VARIANT_CHARS)}\n\n"
        f"## How answers are checked (do not reveal this in the variants)\n{_describe_checks(task)}\n\n"
        f'Reply with JSON {{"variants": [...]}} holding {n} different rephrasings of the request.'
    )
    return CompletionRequest(
        messages=(Message(role="system", content=system), Message(role="user", content=user)),
        max_tokens=min(1500, 150 + 160 * n),
        json_schema=dream_schema(n),
        role="optimizer",
        stage="sleep-dream",
        temperature=0.8,
        seed=seed,
    )


def model_variants(client, task: SleepTask, n: int, *, project_name: str, seed: int) -> tuple[list[str], int, str]:
    """(accepted paraphrases, how many were rejected, a note when the call failed).
    A pending handoff prompt and a spent budget propagate."""
    from skillopt_sleep.replay.handoff import HandoffPending

    try:
        completion = client.complete(dream_request(task, n, project_name=project_name, seed=seed))
    except (BudgetExceeded, Cancelled, HandoffPending):
        raise
    except SkillOptError as exc:
        return [], 0, clip(f"dreaming failed on {task.id}: {type(exc).__name__}: {exc}", 300)
    raw = (completion.parsed or {}).get("variants") or []
    out: list[str] = []
    rejected = 0
    for item in raw if isinstance(raw, list) else []:
        text = clip(str(item).strip(), MAX_VARIANT_CHARS)
        if len(out) < n and acceptable(task, text, out):
            out.append(text)
        else:
            rejected += 1
    return out, rejected, ""


def variant(task: SleepTask, text: str, k: int) -> SleepTask:
    return attrs.evolve(task, id=f"dream:{task.id}:{k}", intent=text, origin="dream", parent=task.id, split="train")


def dream(train: Sequence[SleepTask], n: int, *, client=None, seed: int = 42, project_name: str = "") -> Dreams:
    """``n`` variants per real train task; ``client`` (the optimizer) or none for the
    deterministic path. Tasks whose prompt is waiting for a handoff answer are counted
    in ``pending`` (the caller stops the round) and get no variants yet."""
    from skillopt_sleep.replay.handoff import HandoffPending

    out: list[SleepTask] = []
    from_model = rephrased = rejected = pending = 0
    notes: list[str] = []
    for task in train:
        if n <= 0 or task.split != "train" or task.origin == "dream":
            continue
        texts: list[str] = []
        if client is not None:
            try:
                texts, dropped, note = model_variants(client, task, n, project_name=project_name, seed=seed)
            except HandoffPending:
                pending += 1
                continue
            rejected += dropped
            if note:
                notes.append(note)
        from_model += len(texts)
        fill = rephrasings(task, n - len(texts), seed, taken=texts)
        rephrased += len(fill)
        out += [variant(task, text, k) for k, text in enumerate([*texts, *fill], 1)]
    return Dreams(
        tasks=tuple(out), from_model=from_model, rephrased=rephrased, rejected=rejected, pending=pending, notes=tuple(notes)
    )
