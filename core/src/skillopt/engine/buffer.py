"""The step buffer: what earlier steps of this epoch tried, and how it went.

Analysts, the ranking call and the autonomous learning rate read it, so edits the
gate just rejected are not proposed (or picked) again. It is persisted in the run
state, so a resumed run remembers it (upstream loses it on resume).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from skillopt.records import EditResult, Patch

if TYPE_CHECKING:
    from skillopt.records import EditResult, Rollout


@attrs.frozen(kw_only=True)
class BufferEntry:
    step: int
    action: str
    n_total: int
    n_fail: int
    patterns: tuple[str, ...] = ()
    score_before: float | None = None
    score_after: float | None = None
    rejected_edits: tuple[str, ...] = ()
    not_applied: tuple[str, ...] = ()


def summarise_edit(res: EditResult) -> str:
    e = res.edit
    target = f" @ {e.target[:80]!r}" if e.target else ""
    where = f" [{e.target_file}]" if e.target_file else ""
    return f"{e.op}{where}{target}: {e.content[:160]!r}"


def make_entry(step: int, action: str, rollouts: list[Rollout], patches: tuple[Patch, ...], results: list[EditResult] | tuple[EditResult, ...],
               before: float | None, after: float | None) -> BufferEntry:
    patterns = tuple(dict.fromkeys(p for patch in patches if patch.source_type == "failure" for p in patch.patterns))[:6]
    rejected = tuple(summarise_edit(r) for r in results if r.status == "applied") if action == "reject" else ()
    not_applied = tuple(f"{summarise_edit(r)} ({r.detail})" for r in results if r.status not in ("applied",))[:6]
    return BufferEntry(
        step=step,
        action=action,
        n_total=len(rollouts),
        n_fail=sum(1 for ro in rollouts if ro.failed),
        patterns=patterns,
        score_before=before,
        score_after=after,
        rejected_edits=rejected[:8],
        not_applied=not_applied,
    )


def render_buffer(entries: list[BufferEntry]) -> str:
    lines = []
    for e in entries:
        lines.append(f"### Step {e.step} — {e.action.upper()} ({e.n_fail}/{e.n_total} failed)")
        for p in e.patterns:
            lines.append(f"- failure pattern: {p}")
        if e.score_before is not None and e.score_after is not None:
            lines.append(f"- validation score {e.score_before:.3f} -> {e.score_after:.3f}")
        for edit in e.rejected_edits:
            lines.append(f"- rejected edit: {edit}")
        for edit in e.not_applied:
            lines.append(f"- edit that could not be applied: {edit}")
    return "\n".join(lines)
