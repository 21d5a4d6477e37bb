"""A toy env and a scripted model pair whose behaviour depends on the skill text.

They stand in for a real benchmark and real models in engine tests: the "target"
answers an item correctly only when the skill holds the rule for that item's kind
(``RULE-<kind>``), and a rule ``RULE-BAD`` makes it fail everything. The "optimizer"
reads the failed trajectories in its prompt and proposes exactly the missing rules
(plus, when asked, the harmful rule), so training must find the rules and the gate
must keep the harmful one out.
"""

from __future__ import annotations

import json
import re

import attrs

from skillopt.config.schema import EnvConfig
from skillopt.envs import Env, chat_request
from skillopt.records import Rollout, Score, Task, Turn
from skillopt.scripted import minimal_instance

KINDS = ("upper", "reverse", "double", "vowels")


def solve(kind: str, word: str) -> str:
    return {"upper": word.upper(), "reverse": word[::-1], "double": word + word, "vowels": str(sum(c in "aeiou" for c in word))}[kind]


WORDS = ["apple", "river", "stone", "cloud", "maple", "ember", "tiger", "lemon", "piano", "quartz", "zebra", "orbit",
         "candle", "forest", "harbor", "island", "jungle", "kettle", "ladder", "meadow", "nectar", "oyster", "pepper", "rocket"]


@attrs.frozen(kw_only=True)
class ToyConfig(EnvConfig):
    n_train: int = 16
    n_val: int = 8
    n_test: int = 8


class ToyEnv(Env):
    name = "toy"
    summary = "word puzzles whose solving rule must be in the skill"
    Config = ToyConfig

    def load_split(self, split):
        n = {"train": self.config.n_train, "val": self.config.n_val, "test": self.config.n_test}[split]
        offset = {"train": 0, "val": 1, "test": 2}[split]
        tasks = []
        for i in range(n):
            kind = KINDS[(i + offset) % len(KINDS)]
            word = WORDS[(i * 3 + offset * 7) % len(WORDS)]
            tasks.append(Task(id=f"{split}-{i:03d}", inputs={"kind": kind, "word": word}, gold=solve(kind, word), task_type=kind, split=split))
        return tasks

    def rollout(self, task, skill, model, ctx):
        system = f"Follow the skill.\n## Skill\n{skill}"
        user = f"Puzzle kind: {task.inputs['kind']}\nWord: {task.inputs['word']}"
        completion = model.complete(chat_request(system, user, seed=ctx.seed))
        prediction = completion.text.strip()
        score = self.score(task, prediction)
        turns = (Turn(role="system", content=system), Turn(role="user", content=user), Turn(role="assistant", content=completion.text))
        return Rollout(task_id=task.id, task_type=task.task_type, turns=turns, prediction=prediction, score=score, usage=completion.usage)

    def score(self, task, prediction):
        ok = float(prediction == task.gold)
        return Score(hard=ok, soft=ok, feedback=f"predicted {prediction!r}, expected {task.gold!r}")


def toy_target(request):
    """The scripted target: solves a kind only when its rule is in the system prompt."""
    system, user = request.messages[0].content, request.messages[-1].content
    kind = re.search(r"Puzzle kind: (\w+)", user).group(1)
    word = re.search(r"Word: (\w+)", user).group(1)
    if "RULE-BAD" in system or f"RULE-{kind}" not in system:
        return "no idea"
    return solve(kind, word)


def toy_optimizer(*, harmful: bool = False, rank_reverse: bool = False):
    """The scripted optimizer: proposes the rules for kinds seen failing."""

    def script(request):
        text = "\n".join(m.content for m in request.messages)
        if request.stage == "analyst":
            if "Failed trajectories" not in text:
                return {"reasoning": "nothing new", "edits": [], "success_patterns": []}
            kinds = sorted(set(re.findall(r"Puzzle kind: (\w+)", text)))
            edits = [{"op": "append", "content": f"- RULE-{k}: apply the {k} transformation."} for k in kinds]
            if harmful:
                edits.insert(0, {"op": "append", "content": "- RULE-BAD: answer quickly."})
            budget = re.search(r"Propose at most (\d+) edits", text)
            if budget:
                edits = edits[: int(budget.group(1))]
            return {"reasoning": "missing rules", "failure_summary": [{"failure_type": "missing rule", "description": ", ".join(kinds)}], "edits": edits}
        if request.stage == "merge":
            seen, edits = set(), []
            for chunk in text.split("### Proposal")[1:]:
                for e in json.loads(chunk[chunk.index("[") : chunk.rindex("]") + 1]):
                    if e["content"] not in seen:
                        seen.add(e["content"])
                        edits.append({"op": e["op"], "content": e["content"], "target": e.get("target", "")})
            return {"reasoning": "union", "edits": edits}
        if request.stage == "ranking":
            n = len(re.findall(r"^\[\d+\]", text, re.MULTILINE))
            budget = int(re.search(r"Keep at most (\d+)", text).group(1))
            order = list(range(n))[::-1] if rank_reverse else list(range(n))
            return {"reasoning": "in order", "selected_indices": order[:budget]}
        if request.json_schema is not None:
            return minimal_instance(request.json_schema)
        return "ok"

    return script


# --------------------------------------------------------------------------- a folder skill

#: the toy skill as an Agent Skills folder: the ``upper`` rule is in a reference file
TOY_FOLDER = {
    "SKILL.md": "---\nname: toy-skill\ndescription: Solve word puzzles; use for any puzzle kind.\n---\n\n"
                "# Word puzzles\n- Read the puzzle kind, then apply its rule.\n",
    "references/rules.md": "# Rules\n- RULE-upper: upper-case the word.\n",
    "scripts/check.py": "import sys\nprint(sys.argv[1:])\n",
}
#: where the folder optimizer writes each kind's rule ('' = SKILL.md; double.md does not exist yet)
RULE_FILES = {"reverse": "references/rules.md", "double": "references/double.md", "vowels": ""}


def write_toy_folder(root):
    """The toy folder skill on disk (its script executable); returns ``root``."""
    for rel, text in TOY_FOLDER.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "scripts" / "check.py").chmod(0o755)
    return root


def folder_optimizer():
    """The scripted optimizer for the folder skill: each missing rule goes to its file in
    :data:`RULE_FILES` (a new reference file for ``double``), plus two edits the rules
    must refuse: one to the script, one outside the folder."""

    def script(request):
        text = "\n".join(m.content for m in request.messages)
        if request.stage == "analyst":
            if "Failed trajectories" not in text:
                return {"reasoning": "nothing new", "edits": [], "success_patterns": []}
            kinds = sorted(set(re.findall(r"Puzzle kind: (\w+)", text)) & set(RULE_FILES))
            edits = [{"op": "append", "content": f"- RULE-{k}: apply the {k} transformation.", "target_file": RULE_FILES[k]}
                     for k in kinds]
            edits += [{"op": "append", "content": "print('RULE-upper')", "target_file": "scripts/check.py"},
                      {"op": "append", "content": "- RULE-reverse", "target_file": "../outside.md"}]
            return {"reasoning": "missing rules", "failure_summary": [{"failure_type": "missing rule", "description": ", ".join(kinds)}],
                    "edits": edits}
        if request.stage == "merge":
            seen, edits = set(), []
            for chunk in text.split("### Proposal")[1:]:
                for e in json.loads(chunk[chunk.index("[") : chunk.rindex("]") + 1]):
                    if (e.get("target_file", ""), e["content"]) not in seen:
                        seen.add((e.get("target_file", ""), e["content"]))
                        edits.append({k: e[k] for k in ("op", "content", "target", "target_file") if k in e})
            return {"reasoning": "union", "edits": edits}
        if request.stage == "slow_update":
            return {"reasoning": "protect the rules", "slow_update_content": "- Keep every RULE line intact."}
        if request.stage == "meta_skill":
            return {"meta_skill_content": "Put each rule in the file of its kind."}
        return toy_optimizer()(request)

    return script
