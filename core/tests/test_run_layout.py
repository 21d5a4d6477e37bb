"""The run directory's files are a contract: every path the README lists exists after a
run, and every file the first layout documented is at its path or listed in
docs/run-layout.md with the path it moved to (toy env, scripted models; see toy.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from engine_helpers import make_trainer
from test_epoch import epoch_script
from toy import folder_optimizer, write_toy_folder

ROOT = Path(__file__).resolve().parents[2]

#: the run directory as the first release's README documented it (git history of README.md,
#: before the stage pipeline moved the step files): what plugins and their tests were told
FIRST_LAYOUT = """
config.json  history.json  runtime_state.json  summary.json  best_skill.md  score_book.json
skills/skill_v0000.md ...            one file per step (the current skill)
steps/step_0001/rollout/             results.jsonl + predictions/<item>/conversation.json
steps/step_0001/patches/             minibatch_fail_000.json, minibatch_succ_000.json ...
steps/step_0001/merged_patch.json  ranked_edits.json  edit_apply_report.json
steps/step_0001/candidate_skill.md  selection_eval/  gate_verdict.json  step_record.json
slow_update/epoch_02/  meta_skill/epoch_02/  test_eval_baseline/  test_eval/  test_eval_final/
"""

#: what a README line's description says when the path exists only in some runs
ONLY_FOLDER = "a folder skill only"


def first_layout_paths() -> list[str]:
    """Every path of :data:`FIRST_LAYOUT`: a line's other names sit beside its first path
    when that is a file in a folder (``steps/step_0001/merged_patch.json  ranked_edits.json``),
    at the top otherwise (``slow_update/epoch_02/  meta_skill/epoch_02/``)."""
    out = []
    for line in FIRST_LAYOUT.strip().splitlines():
        listed = line.split("   ")[0].split()  # a wide gap starts the description
        head = listed[0]
        base = head.rsplit("/", 1)[0] + "/" if "/" in head and not head.endswith("/") else ""
        out.append(head)
        out += [base + name for name in listed[1:] if name != "..."]
    return out


def readme_paths() -> list[tuple[str, str]]:
    """(path, description) of each line of the README's run-directory block."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"The run directory holds everything needed to inspect and resume it.*?```text\n(.*?)```", text, re.S).group(1)
    rows = []
    for line in block.splitlines():
        path, _, description = line.partition(" ")
        rows.append((path, description.strip().removeprefix("...").strip()))  # "skill_v0000.md ..." stands for them all
    return rows


def moved_to() -> dict[str, list[str]]:
    """docs/run-layout.md's table: a first-layout path -> the paths it may be at now."""
    text = (ROOT / "docs" / "run-layout.md").read_text(encoding="utf-8")
    table = {}
    for old, new in re.findall(r"^\| `([^`]+)` \| (.+) \|$", text, re.M):
        table[old] = re.findall(r"`([^`]*/[^`]*)`", new)  # the paths in the cell (a field name has no slash)
    return table


def autonomous_epochs():
    """The epoch script (slow update, meta skill), choosing 4 edits per step itself."""
    base = epoch_script()

    def script(request):
        if request.stage == "lr_autonomous":
            return {"learning_rate": 4, "reasoning": "all the rules"}
        return base(request)

    return script


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A file-skill run that reaches every stage (an accepted step, two epochs with slow
    update and meta skill, autonomous edit budgets) and a folder-skill run."""
    from skillopt.config.loading import redacted_config_data
    from skillopt.engine.rundir import write_json

    root = tmp_path_factory.mktemp("layout")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SKILLOPT_HOME", str(root / "home"))  # the cross-run ledger goes here, not to the user's
        return _train(root, redacted_config_data, write_json)


def _train(root, redacted_config_data, write_json):
    plain = make_trainer(root / "plain", optimizer_script=autonomous_epochs(), num_epochs=2,
                         optimizer={"use_slow_update": True, "use_meta_skill": True, "slow_update_samples": 8,
                                    "lr_control_mode": "autonomous"})
    write_json(root / "plain" / "config.json", redacted_config_data(plain.cfg))  # what `skillopt run` writes first
    plain.train()
    folder = make_trainer(root / "folder", optimizer_script=folder_optimizer(), num_epochs=1,
                          env={"n_val": 16, "skill_init": str(write_toy_folder(root / "toy-skill"))},
                          optimizer={"learning_rate": 8, "min_learning_rate": 8})
    write_json(root / "folder" / "config.json", redacted_config_data(folder.cfg))
    folder.train()
    return root / "plain", root / "folder"


def test_the_runs_reach_every_stage(runs):
    plain, folder = runs
    history = json.loads((plain / "history.json").read_text())
    assert history[0]["action"] == "accept_new_best" and json.loads((folder / "history.json").read_text())[0]["action"].startswith("accept")


def test_every_file_the_readme_lists_exists_after_a_run(runs):
    plain, folder = runs
    rows = readme_paths()
    assert len(rows) >= 25 and all(path for path, _ in rows)
    for path, description in rows:
        where = folder if description.startswith(ONLY_FOLDER) else plain
        assert (where / path).exists(), f"{path} (README: {description}) is not in a finished run"


def test_every_file_the_first_layout_documented_is_kept_or_its_move_is_documented(runs):
    plain, _ = runs
    table = moved_to()
    paths = first_layout_paths()
    assert "steps/step_0001/gate_verdict.json" in paths and "test_eval_final/" in paths and len(paths) == 21
    for path in paths:
        if (plain / path).exists():
            continue
        assert path in table, f"{path} was documented by the first layout, is gone, and docs/run-layout.md does not say where it went"
        assert any((plain / new).exists() for new in table[path]), f"{path} moved to {table[path]}, none of which exists"


def test_the_first_layouts_gate_verdict_is_still_the_bare_verdict(runs):
    plain, _ = runs
    for folder in (plain / "steps" / "step_0001", plain / "slow_update" / "epoch_02"):
        verdict = json.loads((folder / "gate_verdict.json").read_text())
        assert verdict == json.loads((folder / "gate" / "result.json").read_text())["result"]["verdict"]
        assert verdict["action"] in ("accept", "reject", "force_accept") and "current_score" in verdict
    assert json.loads((plain / "summary.json").read_text())["run_layout"] == 2
