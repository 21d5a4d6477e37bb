"""The LiveMathematicianBench env: one chat call per multiple-choice question.

Data comes from the core's chain: ``env.split_dir`` (normalised items per split),
``env.data_path`` (the upstream monthly files, selected by the upstream ID manifests:
:meth:`LiveMathEnv.load_data_path`), or the bundled generated sample. Choices are shuffled
per item by ``(shuffle_seed, id)`` when the tasks are loaded, so the gold label lives on the
Task and ``score`` stays a pure function of the task and the reply.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import attrs

from skillopt.api import (
    ChatModel,
    ConfigError,
    Env,
    EnvConfig,
    Rollout,
    RolloutContext,
    Score,
    Task,
    Turn,
    chat_request,
    hookimpl,
)
from skillopt_envs_math.answers import answer_segment, parse_choice
from skillopt_envs_math.items import MathItem, item_from_row
from skillopt_envs_math.presets import PRESETS

DEFAULT_MAX_TOKENS = 512

SYSTEM_PROMPT = (
    "You answer multiple-choice mathematics questions about theorems. Exactly one choice is correct. "
    "Follow the skill below. Reason briefly, then give only the letter of the chosen option inside "
    "<answer></answer>, for example <answer>C</answer>."
)


@attrs.frozen(kw_only=True)
class LiveMathConfig(EnvConfig):
    """``env.*`` keys of the livemath env (the common ones come from EnvConfig)."""

    manifest_dir: str = ""
    shuffle_choices: bool = True
    shuffle_seed: int = 42
    use_theorem: bool = False
    use_sketch: bool = False


def clip(text: str, limit: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LiveMathEnv(Env):
    """LiveMathematicianBench-style multiple-choice mathematics (A–G), one call per item."""

    name = "livemath"
    upstream_keys: ClassVar[dict[str, str | tuple[Any, ...] | None]] = {"max_turns": None}  # one call per item
    summary = "multiple-choice theorem questions (LiveMathematicianBench); generated sample bundled"
    Config = LiveMathConfig
    presets: ClassVar[dict[str, dict[str, Any]]] = PRESETS
    config: LiveMathConfig
    sample_description: ClassVar[str] = "bundled generated sample (CC0-1.0, not the real LiveMathematicianBench)"

    # ------------------------------------------------------------------ data

    def to_task(self, row: dict[str, Any], split: str) -> Task:
        """A normalised item row (bundled sample, ``env.split_dir``) as a task."""
        item_id = str(row.get("id") or "").strip()
        if not item_id:
            raise ConfigError("the row has no 'id'")
        return self.item_task(item_from_row(row, item_id=item_id), split)

    def load_data_path(self, path: Path, split: str) -> list[Task]:
        """``env.data_path``: the upstream monthly files, the split chosen by the ID manifests."""
        from skillopt_envs_math import upstream

        manifest = None
        if self.config.manifest_dir:
            manifest = Path(self.config.manifest_dir).expanduser()
            if not manifest.is_dir():
                raise ConfigError(f"env.manifest_dir: no such directory: {manifest}")
        return [self.item_task(item, split) for item in upstream.load_split(path, split, manifest)]

    def item_task(self, item: MathItem, split: str) -> Task:
        """The task of one item, its choices shuffled by ``(shuffle_seed, id)`` unless turned off."""
        if self.config.shuffle_choices:
            item = item.shuffled(self.config.shuffle_seed)
        inputs: dict[str, Any] = {
            "question": item.question,
            "choices": [{"label": c.label, "text": c.text} for c in item.choices],
        }
        if self.config.use_theorem and item.theorem:
            inputs["theorem"] = item.theorem
        if self.config.use_sketch and item.sketch:
            inputs["sketch"] = item.sketch
        return Task(
            id=item.id,
            inputs=inputs,
            gold={"label": item.correct_label, "text": item.correct.text},
            task_type=item.task_type,
            reference=reference_text(item),
            split=split,
        )

    # ------------------------------------------------------------------ rollout

    def rollout(self, task: Task, skill: str, model: ChatModel, ctx: RolloutContext) -> Rollout:
        system = system_prompt(skill)
        user = user_prompt(task)
        max_tokens = self.config.max_completion_tokens or DEFAULT_MAX_TOKENS
        completion = model.complete(chat_request(system, user, max_tokens=max_tokens, seed=ctx.seed))
        reply = completion.text or ""
        score = self.score(task, reply)
        picked = parse_choice(reply, _choice_map(task))
        turns = (
            Turn(role="system", content=system),
            Turn(role="user", content=user),
            Turn(role="assistant", content=reply),
            Turn(role="system", kind="evaluation", content=f"[EVALUATION RESULT] {score.feedback}"),
        )
        return Rollout(
            task_id=task.id,
            task_type=task.task_type,
            turns=turns,
            prediction=picked or reply,
            score=score,
            usage=completion.usage,
        )

    def score(self, task: Task, prediction: str) -> Score:
        """hard = soft = 1 iff the label read from ``prediction`` is the (shuffled) gold label."""
        choices = _choice_map(task)
        gold = task.gold["label"]
        picked = parse_choice(prediction or "", choices)
        ok = float(picked == gold)
        gold_part = f'the correct choice is {gold} ("{clip(choices[gold])}")'
        if picked is None:
            segment = answer_segment(prediction or "")
            if not (prediction or "").strip():
                why = "the reply was empty"
            elif segment is not None:
                why = f"its <answer> held {clip(segment, 80)!r}"
            else:
                why = "it had no <answer> tag and no explicit 'answer is X'"
            feedback = f"No choice label could be read from the reply ({why}); {gold_part}."
        elif ok:
            feedback = f'Correct: chose {picked} ("{clip(choices[picked])}").'
        else:
            feedback = f'Wrong: chose {picked} ("{clip(choices[picked])}"); {gold_part}.'
        metrics = {"parsed": float(picked is not None), "n_choices": float(len(choices))}
        return Score(hard=ok, soft=ok, feedback=feedback, metrics=metrics)


# ---------------------------------------------------------------------- prompt pieces


def system_prompt(skill: str) -> str:
    return f"{SYSTEM_PROMPT}\n\n## Skill\n{skill.strip() or '(empty)'}"


def user_prompt(task: Task) -> str:
    choices = task.inputs["choices"]
    parts = [
        "## Question\n" + task.inputs["question"],
        "## Choices\n" + "\n".join(f"{c['label']}. {c['text']}" for c in choices),
    ]
    if task.inputs.get("theorem"):
        parts.append("## Theorem\n" + task.inputs["theorem"])
    if task.inputs.get("sketch"):
        parts.append("## Proof sketch\n" + task.inputs["sketch"])
    first, last = choices[0]["label"], choices[-1]["label"]
    parts.append(f"Reply with one letter from {first} to {last} inside <answer></answer>.")
    return "\n\n".join(parts)


def reference_text(item: MathItem) -> str:
    """What the optimizer sees as the hidden reference: theorem, proof sketch, types."""
    parts = []
    if item.theorem_types:
        parts.append("Theorem type: " + ", ".join(item.theorem_types))
    if item.theorem:
        parts.append("Theorem: " + item.theorem)
    if item.sketch:
        parts.append("Proof sketch: " + item.sketch)
    return "\n".join(parts)


def _choice_map(task: Task) -> dict[str, str]:
    return {c["label"]: c["text"] for c in task.inputs["choices"]}


@hookimpl
def skillopt_register_envs(register) -> None:
    register(LiveMathEnv, aliases=("math", "livemathematicianbench"))
