"""The DocVQA env: one chat call per question about a page, scored by ANLS.

The page reaches the target as an image, as OCR text lines, or both (``env.input``). With
``env.max_turns > 1`` the target is asked again only while its reply lacks an
``<answer>`` tag, as upstream does; the answer is read from the last reply.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

import attrs
from attrs import validators as v

from skillopt.api import (
    ChatModel,
    CompletionRequest,
    ConfigError,
    Env,
    EnvConfig,
    Message,
    Rollout,
    RolloutContext,
    Score,
    Task,
    Turn,
    Usage,
    hookimpl,
    read_rows,
    split_file,
)
from skillopt_envs_docvqa import data, prompting, scoring
from skillopt_envs_docvqa.items import DocItem
from skillopt_envs_docvqa.presets import PRESETS
from skillopt_envs_docvqa.upstream import load_csv

#: upstream's completion budget (room for reasoning models); the small preset sets 48
DEFAULT_MAX_TOKENS = 16384
#: how much of the page text the optimizer sees as the hidden reference
REFERENCE_CHARS = 2000
#: how feedback names each fallback of answer extraction
FALLBACKS = {
    "answer-line": "its 'Answer:' line",
    "statement": "the end of its last sentence ('The ... is X')",
    "last-line": "its last line",
    "empty": "nothing: the reply was empty",
}


@attrs.frozen(kw_only=True)
class DocVQAConfig(EnvConfig):
    """``env.*`` keys of DocVQA, on top of the ones every env has."""

    #: how the page reaches the target: image (data URL), ocr (text lines) or both
    input: str = attrs.field(default="image", validator=v.in_(prompting.INPUT_MODES))
    #: upstream's image detail hint (auto, low, high); forwarded when the core can carry it
    image_detail: str = attrs.field(default="auto", validator=v.in_(("auto", "low", "high")))
    #: the folder relative image/OCR paths resolve against first (then the items file's folder)
    data_dir: str = ""
    #: calls per item; extra calls happen only while the reply has no <answer> tag
    max_turns: int = attrs.field(default=1, validator=v.ge(1))
    #: page text beyond this many characters is cut at a line boundary
    max_ocr_chars: int = attrs.field(default=6000, validator=v.ge(200))
    temperature: float | None = None


class DocVQAEnv(Env):
    """DocVQA: extractive answers to questions about a document page (ANLS)."""

    name: ClassVar[str] = "docvqa"
    summary: ClassVar[str] = "DocVQA: questions about document page images, extractive answers (ANLS); synthetic pages bundled"
    Config: ClassVar[type[EnvConfig]] = DocVQAConfig
    presets: ClassVar[dict[str, dict[str, Any]]] = PRESETS
    config: DocVQAConfig
    sample_description: ClassVar[str] = "bundled synthetic pages (CC0-1.0, not the real DocVQA benchmark)"

    def __init__(self, config: DocVQAConfig | None = None):
        super().__init__(config)
        if self.config.data_path:
            raise ConfigError(
                "env.data_path is not used by docvqa: point env.split_dir at a folder with one file per split "
                "(upstream CSVs train.csv/val.csv/test.csv, or train/items.json ...)."
            )
        self._folder = data.bundled_root()  # what relative paths of the rows being read resolve against

    # ------------------------------------------------------------------ data

    def load_split(self, split: str) -> list[Task]:
        """``env.split_dir`` or the bundled set: a split's upstream CSV if it has one, else item rows."""
        root = self.data_source().path or data.bundled_root()
        found = data.csv_file(root, split)
        if found is not None:
            return [self.item_task(item, split) for item in load_csv(found, self.config.data_dir)]
        path = split_file(root, split)
        self._folder = path.parent  # load_split runs under the base class's lock
        return self.tasks_from_rows(read_rows(path), split, str(path))

    def to_task(self, row: dict[str, Any], split: str) -> Task:
        return self.item_task(data.item_from_row(row, self._folder, self.config.data_dir), split)

    def item_task(self, item: DocItem, split: str) -> Task:
        mode = self.config.input
        if mode in ("ocr", "both") and item.ocr is None:
            raise ConfigError(
                f"item {item.id}: env.input={mode!r} needs the page's OCR text, and none was found for {item.image} "
                "(give an 'ocr'/'layout' field, an 'ocr_path' column, or a sidecar <image>.layout.json / <image>.ocr.txt); "
                "or set env.input=image for a vision target."
            )
        inputs: dict[str, Any] = {"question": item.question, "doc_id": item.doc_id}
        if mode in ("image", "both"):
            inputs["image"] = str(item.image)
        if mode in ("ocr", "both"):
            inputs["ocr"] = item.ocr
        reference = ""
        if item.ocr:
            page = prompting.clip_ocr(item.ocr, REFERENCE_CHARS)
            reference = f"Page {item.doc_id} as OCR text lines (what the page says):\n{page}"
        return Task(id=item.id, inputs=inputs, gold=list(item.answers), task_type=item.topic, reference=reference, split=split)

    # ------------------------------------------------------------------ rollout and score

    def request_messages(self, task: Task, skill: str) -> tuple[Message, Message]:
        """The system and user messages of the first call (the image, if any, on the user one)."""
        cfg = self.config
        system = prompting.system_prompt(skill)
        user = prompting.user_prompt(task.inputs["question"], mode=cfg.input, ocr=task.inputs.get("ocr"), max_ocr_chars=cfg.max_ocr_chars)
        extra: dict[str, Any] = {}
        if cfg.input in ("image", "both"):
            extra["images"] = (prompting.image_data_url(task.inputs["image"]),)
            if cfg.image_detail != "auto":  # forwarded as the image's detail level where the provider has one
                extra["image_detail"] = cfg.image_detail
        return Message(role="system", content=system), Message(role="user", content=user, **extra)

    def rollout(self, task: Task, skill: str, model: ChatModel, ctx: RolloutContext) -> Rollout:
        cfg = self.config
        system, user = self.request_messages(task, skill)
        messages: list[Message] = [system, user]
        shown_user = user.content
        if user.images:
            shown_user += f"\n[page image attached: {task.inputs['doc_id'] or 'page'} ({len(user.images[0]) // 1024} KiB data URL)]"
        turns = [Turn(role="system", content=system.content), Turn(role="user", content=shown_user)]
        usage = Usage()
        started = time.monotonic()
        reply, finish = "", "stop"
        for attempt in range(cfg.max_turns):
            request = CompletionRequest(
                messages=tuple(messages),
                max_tokens=cfg.max_completion_tokens or DEFAULT_MAX_TOKENS,
                temperature=cfg.temperature,
                seed=ctx.seed,
                role="target",
                stage="rollout",
            )
            completion = model.complete(request)
            reply, finish = completion.text or "", completion.finish_reason
            usage = usage + completion.usage
            turns.append(Turn(role="assistant", content=reply))
            if "<answer>" in reply.lower() or attempt + 1 == cfg.max_turns:
                break
            nudge = prompting.refine_prompt()
            messages += [Message(role="assistant", content=reply), Message(role="user", content=nudge)]
            turns.append(Turn(role="user", content=nudge))
        extracted = scoring.extract_answer(reply)
        score = self.score(task, extracted.answer)
        notes = []
        if extracted.method not in ("tag", "open-tag"):
            notes.append(f"The reply had no <answer> tag; the answer was taken from {FALLBACKS[extracted.method]}.")
        if finish == "length":
            notes.append("The reply was cut off at the token limit.")
        if notes:
            score = attrs.evolve(score, feedback=" ".join([score.feedback, *notes]))
        turns.append(Turn(role="system", kind="evaluation", content=f"[EVALUATION RESULT] extracted answer ({extracted.method}): {extracted.answer!r}. {score.feedback}"))
        return Rollout(
            task_id=task.id,
            task_type=task.task_type,
            turns=tuple(turns),
            prediction=extracted.answer,
            score=score,
            usage=usage,
            duration_s=time.monotonic() - started,
        )

    def score(self, task: Task, prediction: str) -> Score:
        """hard = normalised exact match against any accepted answer; soft = ANLS (tau 0.5)."""
        golds = task.gold
        anls = scoring.anls(prediction, golds)
        em = scoring.exact_match(prediction, golds)
        return Score(
            hard=em,
            soft=anls,
            feedback=scoring.explain(prediction, golds, anls, em),
            metrics={"anls": anls, "em": em, "anls_upstream": scoring.anls(prediction, golds, upstream=True)},
        )


@hookimpl
def skillopt_register_envs(register) -> None:
    register(DocVQAEnv)
