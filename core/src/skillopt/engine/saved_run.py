"""What a resume trusts: the saved state and the skill files it points at, checked
before anything in the run directory is written.

A skill file is checked against the hash the state recorded when it was saved, so a
damaged or hand-edited file is named instead of silently trained on; ``best_skill.md``,
the one copy a user is told to take away, is restored from its versioned twin.
"""

from __future__ import annotations

from skillopt.engine.rundir import RESTART_ADVICE, RunDir, RunFileError, move_aside, read_json, read_text_file
from skillopt.engine.state import TrainState
from skillopt.records import skill_hash
from skillopt.redact import MASK
from skillopt.serde import from_data


def load_state(rundir: RunDir) -> TrainState | None:
    """The saved run state, or None when the run has not got past its baseline."""
    saved = read_json(rundir.state, expect=dict)
    if not saved or not saved.get("current_skill_path"):
        return None
    try:
        return from_data(saved, TrainState)
    except Exception as exc:  # noqa: BLE001 - cattrs raises several kinds on wrong shapes
        raise RunFileError(f"{rundir.state} does not hold a run state ({type(exc).__name__}); move it aside "
                           "(the run then restarts from its baseline, re-using every saved result) or restore it") from None


def read_skill(rundir: RunDir, path: str, expect_hash: str = "") -> str:
    """The skill saved at ``path`` (relative to the run), checked against ``expect_hash``."""
    file = rundir.root / path
    text = read_text_file(file)
    if expect_hash and skill_hash(text) != expect_hash and MASK not in text:  # a masked secret changes the hash
        raise RunFileError(f"{file} is not the skill this run saved there (it was edited or damaged); "
                           + RESTART_ADVICE)
    return text


def best_skill(rundir: RunDir, state: TrainState, *, restore: bool = True) -> str:
    """``best_skill.md``; a damaged one is rewritten from ``skills/skill_vNNNN.md`` of the
    best step when that copy has the recorded hash (only read from it without ``restore``)."""
    try:
        return read_skill(rundir, rundir.best_skill.name, state.best_hash)
    except RunFileError as exc:
        copy = rundir.skill_version(state.best_step)
        try:
            text = read_skill(rundir, copy.relative_to(rundir.root).as_posix(), state.best_hash)
        except RunFileError:
            raise exc from None
        from skillopt.report import warn

        if not restore:
            warn(f"{exc.args[0].split(';')[0]}; using its copy {copy.name}")
            return text
        aside = move_aside(rundir.best_skill) if rundir.best_skill.exists() else None
        rundir.write_skill(rundir.best_skill, text)
        warn(f"{exc.args[0].split(';')[0]}; restored it from {copy.name}" + (f" (the damaged copy is {aside.name})" if aside else ""))
        return text


def initial_skill(rundir: RunDir, state: TrainState) -> str:
    return read_skill(rundir, rundir.skill_version(0).relative_to(rundir.root).as_posix(), state.initial_hash)


def check_saved_skills(rundir: RunDir, state: TrainState) -> str:
    """Every skill a resume needs (current, initial, best), checked; returns the current one.
    A folder skill's unpacked folders of the current and best skill are rewritten when a
    kill left them behind their text."""
    current = read_skill(rundir, state.current_skill_path, state.current_hash)
    initial_skill(rundir, state)
    best = best_skill(rundir, state)
    rundir.write_view(rundir.root / state.current_skill_path, current)
    rundir.write_view(rundir.best_skill, best)
    return current
