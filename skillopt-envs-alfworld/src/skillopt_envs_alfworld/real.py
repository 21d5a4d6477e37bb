"""Optional adapter for the real ALFWorld games (TextWorld ``game.tw-pddl`` files).

Selected by ``env.source = "alfworld"`` or by setting ``env.data_path`` (the
``$ALFWORLD_DATA`` root). Splits come from upstream SkillOpt's path manifest, bundled in
``data/alfworld_path_split`` (ids and relative game paths only, no game content). Nothing
here imports ``alfworld`` or ``textworld`` until a split is loaded, and then a missing
package or missing game files is one clear error saying what to install or download.

Unlike upstream, the game path is resolved against the data root *before*
``traj_data.json`` is read, so the optimizer's hidden reference is not silently empty.
The real engine only reports ``won``, so hard = soft = won here.
"""

from __future__ import annotations

import json
import os
from importlib import resources, util
from pathlib import Path
from typing import Any

from skillopt.api import ConfigError, Score, Task

MANIFEST = "alfworld_path_split"
TASK_TYPE_NAMES = {
    "pick_and_place_simple": "pick_and_place",
    "pick_two_obj_and_place": "pick_two",
    "look_at_obj_in_light": "look_at_obj_in_light",
    "pick_clean_then_place_in_recep": "pick_clean_then_place",
    "pick_heat_then_place_in_recep": "pick_heat_then_place",
    "pick_cool_then_place_in_recep": "pick_cool_then_place",
}
INSTALL_HINT = (
    "`pip install alfworld` (it pulls textworld[pddl] and fast-downward-textworld, which builds from source "
    "and needs CMake and a C++ compiler)"
)
DOWNLOAD_HINT = "run `alfworld-download` (it fetches the game files into $ALFWORLD_DATA, default ~/.cache/alfworld)"


def data_root(data_path: str) -> Path:
    raw = data_path or os.environ.get("ALFWORLD_DATA", "") or "~/.cache/alfworld"
    return Path(os.path.expandvars(raw)).expanduser()


def missing_packages() -> list[str]:
    return [name for name in ("alfworld", "textworld") if util.find_spec(name) is None]


def manifest_rows(split: str) -> list[dict[str, Any]]:
    node = resources.files("skillopt_envs_alfworld").joinpath("data", MANIFEST, split, "items.json")
    return json.loads(node.read_text(encoding="utf-8"))


def load_split(split: str, root: Path) -> list[Task]:
    """Tasks of ``split`` whose game files exist under the data root; else one clear error."""
    rows = manifest_rows(split)
    problems = []
    packages = missing_packages()
    if packages:
        problems.append(f"the Python package(s) {', '.join(packages)} are not installed: {INSTALL_HINT}")
    absent = [row["gamefile"] for row in rows if not (root / row["gamefile"]).is_file()]
    if absent:
        where = f"{root}" + ("" if root.is_dir() else " (which does not exist)")
        problems.append(
            f"{len(absent)} of the {len(rows)} '{split}' game files are missing under {where}, e.g. {absent[0]}: "
            f"{DOWNLOAD_HINT}, or point env.data_path at the folder holding json_2.1.1/"
        )
    if problems:
        raise ConfigError("the real ALFWorld games cannot be used: " + "; and ".join(problems) + ".")
    return [to_task(row, root, split) for row in rows]


def to_task(row: dict[str, Any], root: Path, split: str) -> Task:
    gamefile = root / row["gamefile"]
    task_type = TASK_TYPE_NAMES.get(row["task_type"], row["task_type"])
    return Task(
        id=str(row["id"]).replace(":", "-"),  # upstream's "train:0000" is not a valid folder name everywhere
        inputs={},
        gold={"gamefile": str(gamefile)},
        task_type=task_type,
        reference=reference_text(gamefile.parent / "traj_data.json"),
        split=split,
    )


def reference_text(traj_path: Path) -> str:
    """Task descriptions, PDDL parameters and the high-level plan from ``traj_data.json``."""
    if not traj_path.is_file():
        return ""
    try:
        data = json.loads(traj_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    lines = []
    anns = (data.get("turk_annotations") or {}).get("anns") or []
    descs = [a.get("task_desc", "") for a in anns if a.get("task_desc")]
    if descs:
        lines.append("Human task descriptions: " + " | ".join(descs))
    params = {k: v for k, v in (data.get("pddl_params") or {}).items() if v not in ("", None, False)}
    if params:
        lines.append("PDDL parameters: " + ", ".join(f"{k}={v}" for k, v in sorted(params.items())))
    steps = []
    for step in (data.get("plan") or {}).get("high_pddl") or []:
        action = (step.get("discrete_action") or {})
        if action.get("action") and action.get("action") != "NoOp":
            steps.append(f"{action['action']}({', '.join(map(str, action.get('args') or []))})")
    if steps:
        lines.append(f"Expert high-level plan ({len(steps)} steps): " + "; ".join(steps))
    if anns and anns[0].get("high_descs"):
        lines.append("Step annotations: " + " ".join(anns[0]["high_descs"]))
    return "\n".join(lines)


class RealGame:
    """One real ALFWorld game behind the simulator's interface (intro/admissible/step/won)."""

    def __init__(self, gamefile: str, max_steps: int):
        try:
            import textworld
            import textworld.gym
            from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos
        except ImportError as error:
            raise ConfigError(f"playing a real ALFWorld game needs the alfworld package ({error}): {INSTALL_HINT}") from None

        infos = textworld.EnvInfos(won=True, admissible_commands=True, extras=["gamefile"])
        env_id = textworld.gym.register_games(
            [gamefile], infos, batch_size=1, asynchronous=False, max_episode_steps=max_steps + 1,
            wrappers=[AlfredDemangler(shuffle=False), AlfredInfos],
        )
        self._env = textworld.gym.make(env_id)
        observations, state = self._env.reset()
        self._intro = observations[0]
        self._state = state
        self.steps = 0

    def intro(self) -> str:
        return self._intro

    def admissible(self) -> list[str]:
        return [c for c in self._state["admissible_commands"][0] if c != "help"]

    def step(self, command: str) -> str:
        self.steps += 1
        observations, _, _, self._state = self._env.step([command or "nothing"])
        return observations[0]

    @property
    def won(self) -> bool:
        return bool(self._state["won"][0])

    def close(self) -> None:
        self._env.close()


def task_sentence(intro: str) -> str:
    marker = "Your task is to: "
    return marker + intro.split(marker, 1)[1].strip() if marker in intro else ""


def score(task: Task, prediction: str, max_steps: int) -> Score:
    """Replay on the real engine: hard = soft = won (the engine reports nothing finer)."""
    game = RealGame(task.gold["gamefile"], max_steps)
    try:
        actions = [line.strip() for line in (prediction or "").splitlines() if line.strip()]
        invalid = sum(game.step(a) == "Nothing happens." for a in actions)
        won = game.won
    finally:
        game.close()
    feedback = f"{'Won' if won else 'Not won'} after {len(actions)} steps."
    if not won and len(actions) >= max_steps:
        feedback += f" The step budget of {max_steps} ran out."
    if invalid:
        feedback += f" {invalid} of the {len(actions)} commands were invalid (\"Nothing happens.\")."
    return Score(hard=float(won), soft=float(won), feedback=feedback,
                 metrics={"steps": float(len(actions)), "invalid_actions": float(invalid)})
