"""The night report as Markdown: per-task deltas, accepted and rejected edits.

Intents and rules come from transcripts and models, so they are escaped before they
are put into Markdown (no raw HTML, no table breakage, no heading injection).
"""

from __future__ import annotations

from typing import Any

from skillopt_sleep.harvest import left_out
from skillopt_sleep.report import NightReport, SkillResult


def esc(text: Any, limit: int = 160) -> str:
    s = " ".join(str(text or "").split())
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return (
        s.replace("\\", "\\\\")
        .replace("|", "\\|")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("`", "'")
        .replace("[", "\\[")
        .replace("]", "\\]")
    )


def _score(value: Any) -> str:
    return "—" if value is None else f"{float(value):.3f}"


def render(report: NightReport) -> str:
    s, h, m, u = report.scores, report.harvest, report.mining, report.usage
    lines = [
        f"# skillopt sleep — night {report.night} ({esc(report.status)})",
        "",
        f"- project: `{esc(report.project, 200)}`",
        f"- agent: {esc(report.agent)}; sources: {esc(', '.join(report.sources))}",
        f"- backends: {esc(', '.join(f'{role} {name}' for role, name in sorted(report.backends.items())))}",
        f"- decision: **{esc(report.status)}** — {esc(report.reason, 300)}",
        f"- val ({esc(s.metric)}): baseline {_score(s.baseline_val)} → final {_score(s.final_val)}",
    ]
    if s.baseline_test is not None:
        lines.append(f"- test (held out, write-only): {_score(s.baseline_test)} → {_score(s.final_test)}")
    lines += [
        f"- harvested {h.sessions} session(s); mined {m.tasks} task(s) from {m.intents} intent(s) in {m.clusters} "
        f"cluster(s), {m.recurring_clusters} recurring; {m.discriminative_checks} check(s) a generic answer fails; "
        f"dropped {m.dropped_uncheckable} uncheckable intent(s), {m.dropped_generic_checks} check(s) a generic answer "
        f"passes, {m.dropped_contradicting} contradicting the memory files",
        *(f"- {esc(line, 300)}" for line in left_out(h.dropped, h.skipped_lines, h.unreadable)),
        f"- usage: {u.calls} call(s), {u.tokens} token(s), ${u.cost_usd:.4f}",
        "",
        "## Accepted edits",
        "",
    ]
    for e in report.accepted_edits:
        lines.append(f"- [{esc(e.doc)}] {esc(e.edit.content, 300)}  \n  _why_: {esc(e.edit.rationale, 300)}")
        lines += [f"  - _evidence_: {esc(line, 240)}" for line in e.evidence[:4]]
    if not report.accepted_edits:
        lines.append("(none)")
    lines += ["", "## Rejected edits", ""]
    lines += [f"- [{esc(e.doc)}] {esc(e.edit.content, 300)}  \n  _rejected_: {esc(e.reason, 300)}" for e in report.rejected_edits] or [
        "(none)"
    ]
    lines += ["", "## Per-task scores", "", "| split | task | baseline | final | Δ |", "|---|---|---|---|---|"]
    for row in report.per_task:
        delta = "—" if row.delta is None else f"{row.delta:+.3f}"
        lines.append(f"| {esc(row.split)} | {esc(row.intent, 80)} | {_score(row.baseline)} | {_score(row.final)} | {delta} |")
    lines += ["", "## Gate trials", ""]
    for trial in report.trials:
        v = trial.verdict
        lines.append(f"- {esc(trial.label)}: {'accept' if v.accepted else 'reject'} — {esc(v.reason, 300)}")
    if report.skills:
        lines += ["", "## Skills (fan-out)", ""]
        lines += ["| skill | decision | val baseline → final | edits | why |", "|---|---|---|---|---|"]
        for r in report.skills:
            lines.append(
                f"| {esc(r.name, 64)} | {esc(r.status)} | {_score(r.scores.baseline_val)} → {_score(r.scores.final_val)} "
                f"| {len(r.accepted_edits)} | {esc(r.reason, 200)} |"
            )
        lines += ["", "Each accepted skill has its own proposal and gate evidence under `skills/NAME/`; adopt it with "
                  "`skillopt sleep adopt --skill NAME`."]  # fmt: skip
    if report.notes:
        lines += ["", "## Notes", ""] + [f"- {esc(n, 300)}" for n in report.notes]
    lines += [
        "",
        "Adopt with `skillopt sleep adopt`; inspect with `skillopt sleep diff`; undo with `skillopt sleep rollback`.",
        "",
    ]
    return "\n".join(lines)


def render_skill(result: SkillResult, night: int) -> str:
    """One fan-out skill's proposal and its own gate evidence."""
    s = result.scores
    lines = [
        f"# skillopt sleep — night {night}, skill {esc(result.name, 64)} ({esc(result.status)})",
        "",
        f"- live file: `{esc(result.path, 300)}`",
        f"- decision: **{esc(result.status)}** — {esc(result.reason, 300)}",
        f"- val ({esc(s.metric)}) on the {len(result.tasks)} task(s) whose sessions used this skill: "
        f"baseline {_score(s.baseline_val)} → final {_score(s.final_val)}",
        "",
        "## Accepted edits",
        "",
    ]
    for e in result.accepted_edits:
        lines.append(f"- {esc(e.edit.content, 300)}  \n  _why_: {esc(e.edit.rationale, 300)}")
        lines += [f"  - _evidence_: {esc(line, 240)}" for line in e.evidence[:4]]
    lines += ["", "## Rejected edits", ""]
    lines += [f"- {esc(e.edit.content, 300)}  \n  _rejected_: {esc(e.reason, 300)}" for e in result.rejected_edits] or ["(none)"]
    lines += ["", "## Per-task scores", "", "| task | baseline | final | Δ |", "|---|---|---|---|"]
    for row in result.per_task:
        delta = "—" if row.delta is None else f"{row.delta:+.3f}"
        lines.append(f"| {esc(row.intent, 80)} | {_score(row.baseline)} | {_score(row.final)} | {delta} |")
    lines += ["", "## Gate trials", ""]
    for t in result.trials:
        lines.append(f"- {esc(t.label)}: {'accept' if t.verdict.accepted else 'reject'} — {esc(t.verdict.reason, 300)}")
    lines += [f"- note: {esc(n, 300)}" for n in result.notes]
    lines += [
        "",
        f"Adopt with `skillopt sleep adopt --skill {result.name}`; undo with `skillopt sleep rollback --skill {result.name}`.",
        "",
    ]
    return "\n".join(lines)
