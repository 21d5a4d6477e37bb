"""Every file of a run directory, damaged the usual ways, either heals or stops the run
with a one-paragraph error naming it, and loses nothing.

The base run is the toy env with the toy model pair (toy.py: a target that solves a
puzzle only when the skill holds its rule, an optimizer that proposes the missing rules)
stopped by its call budget in the middle of step 2's gate, after step 1 was accepted:
every kind of file a resume reads is there, finished and half-written. Each case damages
one file (a torn write, a foreign encoding, an empty file, a JSON value of the wrong
shape or holding items of the wrong shape, a hand edit of a skill) and resumes:

* files the run cannot be trusted without (its config, its state, the skills the state
  points at) stop the run with an error naming the file, and not one byte of the run
  directory changes;
* every other file heals (rebuilt, recomputed from its saved inputs, or skipped with a
  warning) and the resumed run ends exactly as the undamaged one does; the damaged bytes
  are kept (in place, or moved aside as ``NAME.damaged-*``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from skillopt.api import hookimpl
from skillopt.scripted import ScriptedBackend

RUN = ("--env", "toy", "--backend", "toy-pair", "--epochs", "1", "--set", "train.batch_size=4", "--set", "train.max_steps=2",
       "--set", "env.n_val=16", "--json")

#: files a resume refuses to go on without; every other file heals
REFUSED = {"config.json", "runtime_state.json", "skills/skill_v0000.md", "skills/skill_v0001.md"}
#: outputs rewritten whole at every end of a run (nothing in them is read back)
REWRITTEN = {"summary.json", "run.lock"}


def toy_pair_script():
    from toy import toy_optimizer, toy_target

    optimizer = toy_optimizer()

    def script(request):
        if request.stage in ("analyst", "merge", "ranking") or "Puzzle kind:" not in request.messages[-1].content:
            return optimizer(request)
        return toy_target(request)

    return script


class ToyPair(ScriptedBackend):
    """Both roles of toy.py's scripted model pair behind one backend name, so the CLI
    drives them like any provider."""

    name = "toy-pair"

    def __init__(self, settings=None, script=None):
        super().__init__(settings, script=toy_pair_script())


def register_toy_pair() -> None:
    from toy import ToyEnv

    from skillopt.plugins import get_host

    class Plugin:
        @hookimpl
        def skillopt_register_envs(self, register):
            register(ToyEnv)

        @hookimpl
        def skillopt_register_backends(self, register):
            register(ToyPair)

    get_host().register(Plugin(), name="toy-pair-plugin")


def cli(*args: str):
    from typer.testing import CliRunner

    from skillopt.cli import make_app

    return CliRunner().invoke(make_app(), list(args), catch_exceptions=False)


def outcome(run: Path) -> dict:
    summary = json.loads((run / "summary.json").read_text())
    history = json.loads((run / "history.json").read_text())
    return {"status": summary["status"], "val": summary["val"], "test": summary["test"], "best_step": summary["best_step"],
            "best_skill": (run / "best_skill.md").read_text(), "actions": [(h.get("step"), h.get("action")) for h in history]}


def checksums(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The stopped run, and the outcome of resuming it undamaged."""
    from skillopt.runtime import reset

    root = tmp_path_factory.mktemp("corrupt")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SKILLOPT_HOME", str(root / "home"))
        reset()
        register_toy_pair()
        (root / "initial.md").write_text("# Puzzles\n\n- Answer with the transformed word only.\n", encoding="utf-8")
        args = (*RUN, "--set", f"env.skill_init={root / 'initial.md'}")
        # baseline 16, step 1: rollout 4, reflect 1, gate 16, attribution 24; step 2: rollout 4, reflect 2, then its gate
        stopped = cli("run", "--out", str(root / "base"), *args, "--max-calls", "85")
        assert stopped.exit_code == 3 and json.loads(stopped.stdout)["status"] == "budget_exhausted", stopped.output
        shutil.copytree(root / "base", root / "reference")
        resumed = cli("run", "--out", str(root / "reference"), *args)
        assert resumed.exit_code == 0, resumed.output
        reset()
    expected = outcome(root / "reference")
    assert expected["actions"] == [(1, "accept_new_best"), (2, "reject")]  # the base really is mid-step 2
    assert not (root / "base" / "steps" / "step_0002" / "step_record.json").exists()
    return root / "base", expected, args


def damaged_versions(path: Path):
    raw = path.read_bytes()
    yield "torn", raw[: len(raw) // 2]
    yield "latin-1", b"\xff\xfe" + raw[2:]
    yield "empty", b""
    if path.suffix == ".json":
        yield "wrong shape", b"[1, 2]\n" if raw.lstrip().startswith(b"{") else b'{"a": 1}\n'
        if raw.lstrip().startswith(b"["):
            yield "wrong items", b"[1, 2]\n"  # the right container, holding no records
    if path.suffix == ".md":
        yield "hand edit", raw + b"\n- a line nobody trained\n"


def run_files(base: Path) -> list[str]:
    """Every file of the base run; of the per-item conversation files one per folder."""
    out = []
    for p in sorted(base.rglob("*")):
        rel = p.relative_to(base).as_posix()
        if p.is_file() and not ("/predictions/" in rel and not rel.endswith("-000/conversation.json")):
            out.append(rel)
    return out


def test_the_matrix_covers_every_kind_of_run_file(base):
    files = set(run_files(base[0]))
    assert REFUSED <= files
    for needed in ("history.json", "score_book.json", "usage.jsonl", "best_skill.md", "steps/step_0001/step_record.json",
                   "steps/step_0002/gate/results.jsonl", "steps/step_0002/apply/result.json", "gate_baseline/results.jsonl"):
        assert needed in files


FILES = ["config.json", "runtime_state.json", "history.json", "score_book.json", "usage.jsonl", "best_skill.md", "run.lock",
         "summary.json", "skills/skill_v0000.md", "skills/skill_v0001.md", "gate_baseline/results.jsonl",
         "steps/step_0001/step_record.json", "steps/step_0001/apply/result.json", "steps/step_0001/gate/result.json",
         "steps/step_0001/attribution.json",
         "steps/step_0001/rollout/results.jsonl", "steps/step_0002/rollout/results.jsonl",
         "steps/step_0002/reflect/minibatch_fail_000.json", "steps/step_0002/reflect/minibatch_succ_000.json",
         "steps/step_0002/merge/result.json", "steps/step_0002/select/result.json", "steps/step_0002/apply/result.json",
         "steps/step_0002/apply/candidate_skill.md", "steps/step_0002/gate/results.jsonl"]


@pytest.mark.parametrize("rel", FILES)
def test_a_damaged_run_file_heals_or_is_named_and_nothing_is_lost(base, rel, tmp_path, skillopt_home):
    base_dir, expected, args = base
    register_toy_pair()
    for kind, data in damaged_versions(base_dir / rel):
        case = tmp_path / kind.replace(" ", "-")
        shutil.copytree(base_dir, case)
        (case / rel).write_bytes(data)
        before = checksums(case)
        listed = cli("runs", "--runs-dir", str(tmp_path), "--json")
        assert listed.exit_code == 0 and case.name in {r["id"] for r in json.loads(listed.stdout)}, (kind, listed.output)
        shown = cli("runs", "show", str(case))
        assert "Traceback" not in shown.output, (kind, shown.output)
        assert checksums(case) == before, (kind, "looking at a run changed it")

        resumed = cli("run", "--out", str(case), *args)
        said = " ".join(resumed.output.split())
        assert "Traceback" not in resumed.output
        if rel in REFUSED:
            assert resumed.exit_code == 2, (kind, said)
            assert str(case / rel) in said and ("restore it" in said or "move it aside" in said), (kind, said)
            assert checksums(case) == before, (kind, "a refused resume wrote to the run")
        else:
            assert resumed.exit_code == 0, (kind, said)
            assert outcome(case) == expected, (kind, said)
            if rel not in REWRITTEN and data:
                kept = [p for p in case.rglob(Path(rel).name + "*") if p.is_file() and p.read_bytes().startswith(data)]
                assert kept, (kind, "the damaged bytes were lost")
        shutil.rmtree(case)


def test_a_damaged_best_skill_is_restored_from_its_versioned_copy(base, tmp_path, skillopt_home):
    base_dir, expected, args = base
    register_toy_pair()
    case = tmp_path / "run"
    shutil.copytree(base_dir, case)
    (case / "best_skill.md").write_text("- half a rule", encoding="utf-8")
    resumed = cli("run", "--out", str(case), *args)
    assert resumed.exit_code == 0
    assert "best_skill.md is not the skill this run saved there" in resumed.output and "restored it from skill_v0001.md" in resumed.output
    assert (case / "best_skill.md").read_text() == expected["best_skill"]
    assert [p.read_text() for p in case.glob("best_skill.md.damaged-*")] == ["- half a rule"]


def test_a_damaged_line_in_a_log_is_named_and_the_item_redone(base, tmp_path, skillopt_home):
    base_dir, expected, args = base
    register_toy_pair()
    case = tmp_path / "run"
    shutil.copytree(base_dir, case)
    log = case / "steps" / "step_0002" / "gate" / "results.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join([lines[0], b'{"key": "val-0\xff\n', *lines[1:]]))
    resumed = cli("run", "--out", str(case), *args)
    assert resumed.exit_code == 0 and outcome(case) == expected
    assert f"{log}: line 2 is damaged and was skipped" in " ".join(resumed.output.split())


def test_export_never_installs_a_damaged_best_skill(base, tmp_path, skillopt_home):
    base_dir, expected, _ = base
    case = tmp_path / "run"
    shutil.copytree(base_dir, case)
    (case / "best_skill.md").write_bytes(b"\xff\xfe garbage")
    exported = cli("export", str(case), "--to", "agents", "--project", str(tmp_path / "proj"), "--json")
    assert exported.exit_code == 0, exported.output
    installed = [p.read_text() for p in (tmp_path / "proj").rglob("SKILL.md")]
    assert len(installed) == 1 and installed[0].strip().endswith(expected["best_skill"].strip().splitlines()[-1])
    assert "using its copy skill_v0001.md" in exported.output
    (case / "skills" / "skill_v0001.md").write_text("edited", encoding="utf-8")
    refused = cli("export", str(case), "--to", "agents", "--project", str(tmp_path / "proj2"))
    assert refused.exit_code != 0 and "best_skill.md is not UTF-8 text" in " ".join(refused.output.split())
    assert not (tmp_path / "proj2").exists()


@pytest.mark.parametrize("damage", [b'[{"step": 1, "bud', b'{"step": 1}', b"\xff\xfe[]"])
def test_a_damaged_learning_rate_log_is_kept_aside_and_started_afresh(tmp_path, damage, capsys):
    from skillopt.engine.reporting import append_lr_decision
    from skillopt.engine.rundir import RunDir

    (tmp_path / "lr_history.json").write_bytes(damage)
    append_lr_decision(RunDir(tmp_path), 2, {"budget": 3})
    assert json.loads((tmp_path / "lr_history.json").read_text()) == [{"step": 2, "budget": 3}]
    assert [p.read_bytes() for p in tmp_path.glob("lr_history.json.damaged-*")] == [damage]
    assert "lr_history.json" in capsys.readouterr().err
