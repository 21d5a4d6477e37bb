"""Rendering trajectories and history for optimizer prompts.

The skill is sent once per call (upstream repeats it inside every trajectory), each
section is capped in characters, and item ids never reach the optimizer. A long task prompt
is shown as its question and the passages that explain the verdict (``focus``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from skillopt.policies.focus import focus
from skillopt.records import Rollout, Task

if TYPE_CHECKING:
    from skillopt.policies import OptimizerContext


def clip(text: str, limit: int) -> str:
    """Keep the head and tail of long text, marking the cut."""
    if len(text) <= limit:
        return text
    half = max(limit // 2 - 20, 10)
    return f"{text[:half]}\n[... {len(text) - 2 * half} characters omitted ...]\n{text[-half:]}"


def answer_anchors(rollout: Rollout, task: Task | None) -> list[str]:
    """The strings whose passages explain a verdict: the prediction and the gold answer(s)."""
    anchors = [rollout.prediction]
    gold = task.gold if task is not None else None
    if isinstance(gold, str | int | float):
        anchors.append(str(gold))
    elif isinstance(gold, list | tuple):
        anchors += [str(g) for g in gold if isinstance(g, str | int | float)]
    return anchors


def render_trajectory(index: int, rollout: Rollout, task: Task | None, max_chars: int) -> str:
    lines = [f"### Trajectory {index} (task type: {rollout.task_type}; status: {rollout.status})"]
    turns = list(rollout.turns)
    first_user = next((t for t in turns if t.role == "user"), None)
    if first_user is not None:
        lines.append("**Task as the target saw it:**")
        focused = focus(first_user.content, answer_anchors(rollout, task), max_chars // 2)
        lines.append(clip(first_user.content, max_chars // 2) if focused is None else focused)
    rest = [t for t in turns if t is not first_user and t.role != "system" and t.kind != "evaluation"]
    if rest:
        lines.append("**Target transcript:**")
        body = "\n".join(f"[{t.kind if t.kind != 'message' else t.role}] {t.content}" for t in rest)
        lines.append(clip(body, max_chars // 2))
    if rollout.error:
        lines.append(f"**Error:** {clip(rollout.error, 500)}")
    lines.append(f"**Evaluation:** hard={rollout.score.hard:.2f} soft={rollout.score.soft:.2f}. {rollout.score.feedback}")
    if task is not None and task.reference:
        lines.append("**Hidden reference (never shown to the target):**")
        lines.append(clip(task.reference, max_chars // 3))
    return "\n".join(lines)


def skill_section(skill: str) -> str:
    return "## Current skill\n<skill>\n" + (skill.strip() or "(empty)") + "\n</skill>"


def skill_block(ctx: OptimizerContext, skill: str | None = None) -> str:
    """The skill section, and its length budget when ``optimizer.max_skill_tokens`` is set."""
    from skillopt.skillbudget import budget_note

    text = ctx.skill if skill is None else skill
    return join_sections(skill_section(text), files_note(text), budget_note(text, ctx.config.optimizer.max_skill_tokens))


def files_note(skill: str) -> str:
    """For a folder skill: its files and the rules an edit or a rewrite of them follows."""
    from skillopt.skillfolder import MAIN, SkillFolder, is_script, skill_of

    folder = skill_of(skill)
    if not isinstance(folder, SkillFolder):
        return ""
    paths = [f.path + (" (read-only)" if is_script(f.path) else "") for f in folder.files]
    return (
        "## Skill files\n"
        f"This skill is a folder of files, each shown after its line `<!-- skillopt:file PATH -->`: {', '.join(paths)}. "
        f"Every edit names its file in `target_file` ({MAIN} when empty). Edits may change {MAIN} (not its front matter, "
        "which names the skill) and references/*.md; an `append` to a new references/NAME.md creates that file (NAME of "
        "letters, digits, '.', '_' or '-'). scripts/* are read-only. Rules the target always needs belong in "
        f"{MAIN}; longer material it needs only for some tasks belongs in a reference file. A whole-skill rewrite "
        f"writes {MAIN}'s body (or the folder in the same form, to change reference files too); the front matter, the "
        "scripts and any reference it leaves out stay as they are."
    )


def budget_section(budget: int | None, noun: str = "edits") -> str:
    if budget is None:
        return f"## Edit budget\nNo fixed budget: propose only the {noun} the evidence warrants."
    return f"## Edit budget\nPropose at most {budget} {noun}."


def history_section(history: str) -> str:
    return "## Step history (this epoch)\n" + history if history.strip() else ""


def meta_section(meta: str) -> str:
    if not meta.strip():
        return ""
    return "## Optimizer meta skill\nGuidance learnt in earlier epochs; prefer it when evidence is ambiguous.\n" + meta


def join_sections(*sections: str) -> str:
    return "\n\n".join(s for s in sections if s and s.strip())


def as_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1)
