"""The target's side of a task: prompts, code extraction and the single/multi-turn loop.

``single``: one call; the first fenced code block is the solution. ``multi``: up to
``max_turns`` calls; each candidate runs on case 1 and a traceback goes back to the
model; in training rollouts only, a run that succeeds but is wrong gets right/WRONG
marks per answer cell (never the expected values). Either way the FINAL code is then
re-run on every case for the score (upstream could score case 1 with an older version).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import attrs

from skillopt.api import CompletionRequest, ContextLengthError, Message, Rollout, Task, Turn, Usage
from skillopt_envs_spreadsheet.grading import cell_feedback, grade, run_case, to_score, verification_report

SYSTEM_PROMPT = """You solve spreadsheet tasks by writing Python code that edits .xlsx workbooks with openpyxl.
Follow the skill below.

## Skill
{skill}"""

USER_PROMPT = """## Task
{instruction}

Instruction type: {instruction_type}
Answer position (the cells that are checked): {answer_position}

## Input workbook preview
{preview}

## How to answer
Reply with one complete Python script in a single ```python code block. It runs as written, with two variables already defined:
- INPUT_PATH: the input .xlsx file (do not reassign it)
- OUTPUT_PATH: where to save the resulting workbook (do not reassign it)
Load INPUT_PATH with openpyxl, make the change, and save the whole workbook to OUTPUT_PATH.
Cached cell values are graded and formulas are not recalculated, so write computed values.
The same script also runs on other workbooks with the same layout but different data: compute from the data, never hard-code answers.
Available: the Python standard library and openpyxl. There is no network."""

NO_CODE = "I found no ```python code block in your reply. Reply with the complete script in one ```python block."
RUN_ERROR = "Your script failed on the input workbook:\n```\n{error}\n```\nFix it and reply with the complete corrected script."
WRONG = "Your script ran, but the result is not correct yet. {cells}\nFix it and reply with the complete corrected script."

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n(.*?)(?:\n[ \t]*```|\Z)", re.DOTALL)


def extract_code(text: str) -> str:
    """The first ```python block, else the first untagged block; "" when there is none.
    An unclosed fence (a reply cut off at max_tokens) runs to the end of the text."""
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(text or "")]
    for lang, body in blocks:
        if lang in ("python", "py", "python3"):
            return body.strip("\n")
    for lang, body in blocks:
        if not lang:
            return body.strip("\n")
    return ""


def user_prompt(task: Task, preview: str) -> str:
    return USER_PROMPT.format(
        instruction=task.inputs["instruction"],
        instruction_type=task.inputs.get("instruction_type", ""),
        answer_position=task.inputs["answer_position"],
        preview=preview,
    )


@attrs.define
class Conversation:
    messages: list[Message]
    turns: list[Turn]
    usage: Usage = Usage()

    def ask(self, model, *, max_tokens: int, seed: int) -> str:
        request = CompletionRequest(messages=tuple(self.messages), max_tokens=max_tokens, seed=seed, role="target", stage="rollout")
        completion = model.complete(request)
        self.usage = self.usage + completion.usage
        self.add("assistant", completion.text)
        return completion.text

    def add(self, role: str, content: str, kind: str = "message") -> None:
        if kind == "message":
            self.messages.append(Message(role=role, content=content))
        self.turns.append(Turn(role=role, content=content, kind=kind))


def solve(env, task: Task, skill: str, model, ctx) -> Rollout:
    """Run one task in the configured mode and grade the final code on every case."""
    cfg = env.config
    started = time.monotonic()
    deadline = started + ctx.timeout_s
    system = SYSTEM_PROMPT.format(skill=skill.strip() or "(empty)")
    user = user_prompt(task, env.preview(task))
    conv = Conversation(messages=[Message(role="system", content=system)], turns=[Turn(role="system", content=system)])
    conv.add("user", user)
    max_tokens = cfg.max_completion_tokens or 1024
    cases = [tuple(c) for c in task.gold["cases"]]
    position = task.gold["answer_position"]
    code, turns_used, trial_errors = "", 0, 0
    max_turns = 1 if cfg.mode == "single" else cfg.max_turns
    slowest_call = slowest_case = 0.0  # measured, to leave time for the final grading
    for turn in range(1, max_turns + 1):
        if ctx.cancel is not None and ctx.cancel.is_set():
            break
        needed = slowest_call + slowest_case * (len(cases) + 1) + 2.0
        if turn > 1 and time.monotonic() + needed > deadline:
            conv.add("system", f"stopped after {turn - 1} turns: the rollout deadline is near", kind="note")
            break
        call_started = time.monotonic()
        try:
            reply = conv.ask(model, max_tokens=max_tokens, seed=ctx.seed + turn - 1)
            slowest_call = max(slowest_call, time.monotonic() - call_started)
        except ContextLengthError:
            if turn == 1:
                raise
            conv.add("system", "stopped: the conversation no longer fits the model's context", kind="note")
            break
        turns_used = turn
        found = extract_code(reply)
        if found:
            code = found
        if turn == max_turns:
            break
        if not found:
            conv.add("user", NO_CODE)
            continue
        first = run_case(env.sandbox, code, Path(cases[0][0]), Path(cases[0][1]), position, index=1, cancel=ctx.cancel)
        slowest_case = max(slowest_case, first.run.duration_s + 0.5)
        if not first.run.ok:
            trial_errors += 1
            conv.add("user", RUN_ERROR.format(error=first.run.feedback(cfg.feedback_chars)))
            continue
        if not ctx.training or first.passed:
            break
        conv.add("user", WRONG.format(cells=cell_feedback(first)))
    keep = Path(ctx.workdir) / "case1_output.xlsx" if ctx.workdir is not None else None
    results = grade(env.sandbox, code, cases, position, keep_first=keep, cancel=ctx.cancel)
    score = to_score(results, feedback_chars=cfg.feedback_chars)
    metrics = {**score.metrics, "turns": float(turns_used), "trial_errors": float(trial_errors),
               "training_feedback": 1.0 if ctx.training and cfg.mode == "multi" else 0.0}
    score = attrs.evolve(score, metrics=metrics)
    conv.add("system", verification_report(results), kind="evaluation")
    if ctx.workdir is not None:
        _save(Path(ctx.workdir), code, user, env.sandbox.describe())
    return Rollout(
        task_id=task.id, task_type=task.task_type, turns=tuple(conv.turns), prediction=code, score=score,
        usage=conv.usage, duration_s=time.monotonic() - started,
    )


def _save(folder: Path, code: str, user: str, isolation: str) -> None:
    """The final code, the prompt and the isolation it ran under, next to the engine's
    conversation.json (for people)."""
    from skillopt.api import write_atomic

    for name, text in (("solution.py", code), ("target_user_prompt.txt", user), ("sandbox.txt", isolation + "\n")):
        write_atomic(folder / name, text)
