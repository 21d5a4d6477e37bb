"""The night report as Markdown: per-task deltas, accepted and rejected edits.

Intents and rules come from transcripts and models, so they are escaped before they
are put into Markdown (no raw HTML, no table breakage, no heading injection).
"""

from __future__ import annotations

from typing import Any


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


def render(report: dict) -> str:
    s = report.get("scores", {})
    lines = [
        f"# skillopt sleep — night {report.get('night')} ({esc(report.get('status'))})",
        "",
        f"- project: `{esc(report.get('project'), 200)}`",
        f"- agent: {esc(report.get('agent'))}; sources: {esc(', '.join(report.get('sources', [])))}",
        f"- decision: **{esc(report.get('status'))}** — {esc(report.get('reason'), 300)}",
        f"- val ({esc(s.get('metric'))}): baseline {_score(s.get('baseline_val'))} → final {_score(s.get('final_val'))}",
    ]
    if s.get("baseline_test") is not None:
        lines.append(f"- test (held out, write-only): {_score(s.get('baseline_test'))} → {_score(s.get('final_test'))}")
    h, m, u = report.get("harvest", {}), report.get("mining", {}), report.get("usage", {})
    lines += [
        f"- harvested {h.get('sessions', 0)} session(s); mined {m.get('tasks', 0)} task(s) from {m.get('intents', 0)} intent(s) "
        f"in {m.get('clusters', 0)} cluster(s), {m.get('recurring_clusters', 0)} recurring; "
        f"{m.get('dropped_uncheckable', 0)} uncheckable dropped",
        f"- usage: {u.get('calls', 0)} call(s), {u.get('tokens', 0)} token(s), ${float(u.get('cost_usd') or 0):.4f}",
        "",
        "## Accepted edits",
        "",
    ]
    accepted = report.get("accepted_edits", [])
    lines += [f"- [{esc(e['doc'])}] {esc(e['content'], 300)}  \n  _why_: {esc(e.get('why'), 300)}" for e in accepted] or [
        "(none)"
    ]
    lines += ["", "## Rejected edits", ""]
    rejected = report.get("rejected_edits", [])
    lines += [f"- [{esc(e['doc'])}] {esc(e['content'], 300)}  \n  _rejected_: {esc(e.get('reason'), 300)}" for e in rejected] or [
        "(none)"
    ]
    lines += ["", "## Per-task scores", "", "| split | task | baseline | final | Δ |", "|---|---|---|---|---|"]
    for row in report.get("per_task", []):
        delta = row.get("delta")
        lines.append(
            f"| {esc(row['split'])} | {esc(row['intent'], 80)} | {_score(row.get('baseline'))} | {_score(row.get('final'))} | "
            f"{'—' if delta is None else f'{delta:+.3f}'} |"
        )
    lines += ["", "## Gate trials", ""]
    for trial in report.get("trials", []):
        v = trial.get("verdict", {})
        lines.append(f"- {esc(trial.get('label'))}: {'accept' if v.get('accepted') else 'reject'} — {esc(v.get('reason'), 300)}")
    if report.get("notes"):
        lines += ["", "## Notes", ""] + [f"- {esc(n, 300)}" for n in report["notes"]]
    lines += [
        "",
        "Adopt with `skillopt sleep adopt`; inspect with `skillopt sleep diff`; undo with `skillopt sleep rollback`.",
        "",
    ]
    return "\n".join(lines)
