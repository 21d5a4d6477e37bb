"""``skillopt report``: one self-contained HTML file about one run or several.

Everything is inside the file: the data (redacted, as the dashboard serves it), the
vendored chart library, the dashboard's own chart, diff and comparison scripts, and the
styles. A Content-Security-Policy forbids every network request, so the report opens
offline, attached to a pull request or mailed, and shows the same numbers the
dashboard does.
"""

from __future__ import annotations

import html
import json
import time
from pathlib import Path
from typing import Any

from skillopt.ui import compare, runs, static

#: the scripts of the report, in load order: the dashboard's shared ones, its
#: comparison view's table builder, and the report's own renderer
REPORT_SCRIPTS = (*static.SHARED_SCRIPTS, "views_compare.js", "report.js")
#: no request may leave the page (it would fail offline, and could leak that it was opened)
CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"


def step_changes(path: Path, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per step that proposed edits: the edits and what became of each (applied, not
    applied …), and for a step whose candidate was kept, the skill diff it made."""
    versions = set(runs.skill_versions(path))
    out = []
    for record in history:
        step = record.get("step")
        if not isinstance(step, int):
            continue
        found = runs.step_detail(path, step) or {"files": {}}
        applied = runs.as_mapping(found["files"].get("apply")).get("results")
        edits = [{"op": runs.as_mapping(r.get("edit")).get("op", ""), "status": r.get("status", ""),
                  "content": str(runs.as_mapping(r.get("edit")).get("content", ""))[:600]}
                 for r in (applied if isinstance(applied, list) else []) if isinstance(r, dict)]
        kept = str(record.get("action", "")).startswith(("accept", "force_accept"))
        diff = runs.skill_diff(path, step - 1, step) if kept and {step - 1, step} <= versions else None
        if edits or diff:
            out.append({"step": step, "action": record.get("action"), "candidate": record.get("candidate_gate_score"),
                        "current": runs.as_mapping(record.get("verdict")).get("current_score"),
                        "reason": runs.as_mapping(record.get("verdict")).get("reason", ""), "edits": edits,
                        "diff": diff["diff"] if diff else None})
    return out


def collect(found: dict[str, Path]) -> dict[str, Any]:
    """The report's data: each run's page, its step changes, and (two runs or more) the comparison."""
    data: dict[str, Any] = {"generated": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "runs": []}
    for run_id, path in found.items():
        detail = runs.detail(run_id, path)
        detail["changes"] = step_changes(path, detail["history"])
        detail["initial_vs_best"] = runs.skill_diff(path, 0, "best")
        data["runs"].append(detail)
    if len(found) > 1:
        data["comparison"] = compare.comparison(found)
    return data


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element (no ``</script>`` or ``<!--`` can close it)."""
    return json.dumps(data, default=str).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render(data: dict[str, Any]) -> str:
    styles = "\n".join(static.text(name) for name in (*static.STYLES, "report.css"))
    scripts = "\n".join(f"<script>\n{static.text(name)}\n</script>" for name in REPORT_SCRIPTS)
    names = ", ".join(r["overview"]["id"] for r in data["runs"])
    icon = static.text("favicon.svg").replace('"', "'").replace("#", "%23")
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>SkillOpt report: {html.escape(names)}</title>
<link rel="icon" href="data:image/svg+xml,{icon}">
<style>
{styles}
</style>
</head>
<body class="report">
<header class="top"><span class="brand">SkillOpt report</span><span id="where"></span></header>
<main id="report" class="report-body"></main>
<script type="application/json" id="report-data">{_script_json(data)}</script>
{scripts}
</body>
</html>
"""


def build(found: dict[str, Path], out: Path) -> Path:
    """Write the report of ``found`` (run id -> directory) to ``out``; a place no file can be
    written (``/proc/version``, a read-only folder) is a :class:`ConfigError` naming it."""
    from skillopt.errors import ConfigError
    from skillopt.fsio import write_atomic

    html = render(collect(found))
    try:
        write_atomic(out, html, mode=0o644)  # a document to share, like any file the user writes
    except OSError as exc:
        raise ConfigError(f"cannot write the report to {out}: {exc.strerror or exc}; "
                          "name a file in a folder you can write") from None
    return out
