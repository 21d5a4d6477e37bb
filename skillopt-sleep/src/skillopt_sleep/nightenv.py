"""A night as an env of the training engine: ``NightEnv``.

The engine trains one skill on an env's splits; a night has mined tasks and two live
documents. So the env's splits are the mined tasks (by their split), a rollout is one
replay of a task under the documents (:func:`skillopt_sleep.replay.attempt`: text only,
no shell), its score is the checks' and the judge's, and the skill is one *folder
skill* holding what a night may change: the skill document's learned rules as
``SKILL.md``'s body and the memory document's learned rules as ``references/memory.md``.
An edit names its document with ``target_file``; :func:`docs_of` maps a folder back to
the agent's files, touching only their learned blocks (text the developer wrote
outside them never changes). The reflector's prompts are the env's optimizer-prompt
overrides, with the engine sentinel, so a model reflector speaks as a night does.
"""

from __future__ import annotations

from collections.abc import Sequence

from skillopt.api import DataSource, Env, EnvConfig, Rollout, Score, SkillFile, SkillFolder, Task, Turn
from skillopt_sleep import documents
from skillopt_sleep.documents import Doc
from skillopt_sleep.mine.tasks import SleepTask
from skillopt_sleep.redaction import clip
from skillopt_sleep.replay import ANSWER_EXCERPT, attempt, attempt_request
from skillopt_sleep.replay.judging import score_checks

SKILL_FILE = "SKILL.md"
MEMORY_FILE = "references/memory.md"
#: which folder file holds which document's learned rules
FILE_OF = {"skill": SKILL_FILE, "memory": MEMORY_FILE}
ROLE_OF = {file: role for role, file in FILE_OF.items()}
FRONT = (
    "---\n"
    f"name: {documents.SKILL_NAME}\n"
    "description: The learned rules of this project's skill (SKILL.md) and agent memory (references/memory.md).\n"
    "---\n"
)
#: the engine's optimizer prompts a night replaces with its own (sleep prompt -> engine prompt)
PROMPTS = {"analyst_failure": "reflect_system", "analyst_success": "reflect_system"}


def folder_of(docs: Sequence[Doc]) -> str:
    """The folder skill (canonical text) holding each document's learned rules."""
    rules = {d.role: d.rules() for d in docs}
    files = [SkillFile(path=SKILL_FILE, content=FRONT + rules.get("skill", ""))]
    if rules.get("memory", "").strip():  # an empty reference is no file: an append creates it
        files.append(SkillFile(path=MEMORY_FILE, content=rules["memory"]))
    return SkillFolder.of(files).text()


def rules_of(skill: str) -> dict[str, str]:
    """Each document role's learned rules in the folder skill ``skill``."""
    folder = SkillFolder.parse(skill, "night skill")
    memory = folder.file(MEMORY_FILE)
    return {"skill": folder.body.strip("\n"), "memory": memory.content.strip("\n") if memory is not None else ""}


def docs_of(base: Sequence[Doc], skill: str) -> list[Doc]:
    """``base`` with the learned blocks the folder skill ``skill`` holds (their other text as it was)."""
    rules = rules_of(skill)
    return [documents.with_rules_text(doc, rules.get(doc.role, "")) for doc in base]


#: train task ids of the K rollouts a contrast needs: ``ID~rK`` (``NightEnv`` splits them back)
REPEAT_MARK = "~r"


def split_id(task_id: str) -> tuple[str, int]:
    """(the mined task's id, the attempt number) of a train item."""
    base, mark, n = task_id.rpartition(REPEAT_MARK)
    return (base, int(n)) if mark and n.isdigit() else (task_id, 0)


#: a night's replay seeds: the night's ``--seed`` plus 1000 per phase plus the attempt, as
#: a night always drew them (gates on val, the fresh re-check, test); train is phase 0.
#: Kept on purpose: with the engine's derived seeds (``derive_seed``, one per item) the
#: bundled experiments decide exactly the same (``--homes all`` and the personas, byte for
#: byte), but a sampling agent's val baseline can draw a "lucky" seed, and the contrast
#: night (tests/test_contrast.py) then ties at baseline and accepts nothing.
SALT = {"": 0, "train": 0, "val": 0, "val_recheck": 1, "test": 2}


def night_seed(seed: int, split: str, attempt: int) -> int | None:
    """The seed of one replay (None: a split a night never evaluates; the engine's seed is used)."""
    return seed + 1000 * SALT[split] + attempt if split in SALT else None


class NightEnv(Env):
    """Tonight's mined tasks, replayed under the documents a folder skill maps to."""

    name = "sleep-night"
    summary = "a night of skillopt sleep: mined tasks replayed under the skill and memory documents"

    def __init__(self, tasks: Sequence[SleepTask], docs: Sequence[Doc], *, judge=None, project_name: str = "",
                 rollouts: int = 1, seed: int = 42, as_night: bool = False, config: EnvConfig | None = None):
        """``judge``: the client scoring rubric tasks (the night's optimizer; None = checks only);
        ``rollouts``: attempts per train task (K > 1: the train split holds each task K
        times, ``ID~rK``, each its own sample, for a contrastive reflection); ``as_night``:
        replays as ``skillopt sleep run`` draws them (see :meth:`rollout`): train once, under
        the starting documents; every replay with the night's own seeds."""
        super().__init__(config)
        self.sleep_tasks = {t.id: t for t in tasks}
        self.docs = tuple(docs)
        self.judge = judge
        self.project_name = project_name
        self.rollouts = max(1, rollouts)
        self.seed = seed
        self.as_night = as_night
        #: train replays asked this night (see :meth:`rollout`)
        self.train_replays: dict[str, Rollout] = {}

    def data_source(self) -> DataSource:
        return DataSource(kind="real", description=f"{len(self.sleep_tasks)} task(s) mined from your sessions")

    def load_split(self, split: str) -> list[Task]:
        mine = [t for t in self.sleep_tasks.values() if t.split == split]
        if split == "train" and self.rollouts > 1:
            return [Task(id=f"{t.id}{REPEAT_MARK}{k}", inputs={"intent": t.intent}, task_type=t.origin or "mined", split=split)
                    for t in mine for k in range(self.rollouts)]
        return [Task(id=t.id, inputs={"intent": t.intent}, task_type=t.origin or "mined", split=split) for t in mine]

    def initial_skill(self) -> str:
        return folder_of(self.docs)

    def render_skill(self, folder: SkillFolder, *, installed: bool) -> str:
        """The canonical text itself: :meth:`rollout` maps it back to the documents, and
        the replay prompt shows them as the agent would read them."""
        return folder.text()

    def rollout(self, task: Task, skill: str, model, ctx) -> Rollout:
        """One replay: raises on a failed call or an empty reply (missing data, never a 0).

        With ``as_night`` (a night), a *train* replay is the night's evidence of how the agent did with the documents
        the developer had: it runs under the night's starting documents whatever the
        step's skill (its conversation shows them), with one seed per item for the whole
        night, and is asked once (every step reads the same replays, as a night's single
        reflection did). Val and test replays run under the skill they score. Seeds are the
        night's own (:func:`night_seed`), so the fresh re-check draws other samples than
        the gates and a night decides as it did before it ran on the engine. Without
        ``as_night`` every replay runs under the skill it is given, with the engine's seed."""
        task_id, attempt = split_id(task.id)
        sleep_task = self.sleep_tasks[task_id]
        if task.split == "train" and self.as_night:
            if task.id not in self.train_replays:
                self.train_replays[task.id] = self.replay(task, sleep_task, list(self.docs), model,
                                                          night_seed(self.seed, "train", attempt) or 0)
            return self.train_replays[task.id]
        seed = night_seed(self.seed, ctx.split, ctx.repeat) if self.as_night else None
        return self.replay(task, sleep_task, docs_of(self.docs, skill), model, ctx.seed if seed is None else seed)

    def replay(self, task: Task, sleep_task: SleepTask, docs: list[Doc], model, seed: int) -> Rollout:
        answer, score = attempt(sleep_task, docs, model, self.judge, project_name=self.project_name, seed=seed)
        request = attempt_request(sleep_task, docs, project_name=self.project_name, seed=seed)
        turns = tuple(Turn(role=m.role, content=m.content) for m in request.messages) + (Turn(role="assistant", content=answer),)
        return Rollout(task_id=task.id, task_type=task.task_type, turns=turns, prediction=clip(answer, ANSWER_EXCERPT),
                       score=score)

    def score(self, task: Task, prediction: str) -> Score:
        """The deterministic checks alone (the judge needs a model; :meth:`rollout` asks it)."""
        return score_checks(self.sleep_tasks[split_id(task.id)[0]].checks, prediction)

    def prompt(self, name: str) -> str | None:
        """The night's reflector prompt (the developer's override if any) for the engine's analysts."""
        from skillopt_sleep import prompts
        from skillopt_sleep.sentinel import mark

        own = PROMPTS.get(name)
        return mark(prompts.render(own)) if own else None
