"""The generated-homes experiment: every home of a set, scored, as rows and a table.

``python -m skillopt_sleep.experiments --homes held-out`` (or ``tune``, ``all``) runs it;
``--assert-improves`` exits 1 unless the held-out goals hold (:func:`homes_verdict`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path


def run_homes(which: str = "held-out") -> list[dict]:
    from skillopt_sleep.experiments.homes.evaluate import run_home
    from skillopt_sleep.experiments.homes.sets import HELD_OUT, homes

    results = []
    held = {h.name for h in HELD_OUT}
    with tempfile.TemporaryDirectory(prefix="skillopt-sleep-homes-") as tmp:
        for n, home_id in enumerate(homes(which)):
            result = run_home(home_id, Path(tmp) / f"home-{n}")
            result["set"] = "held-out" if home_id.name in held else "tune"
            results.append(result)
    return results


def homes_verdict(results: list[dict]) -> tuple[bool, dict]:
    """Pass when, on every home: at least 4 of its 5 jobs (every one repeated 3+ times)
    are mined with a valid check; no kept task merges jobs or is one the memory file
    alone passes; every late correction is read as one and every polite follow-up as a
    new request; no one-off correction became a rule; nothing planted leaked; and at
    least one night over the homes was accepted with a held-out test lift."""
    problems = []
    for r in results:
        s = r["summary"]
        if s["jobs_mined"] < min(4, s["jobs_repeated_3"]):
            problems.append(f"{r['home']}: {s['jobs_mined']} of {s['jobs']} jobs mined")
        for key in ("tasks_merged", "tasks_memory_passes", "one_off_rules", "leaks"):
            if s[key]:
                problems.append(f"{r['home']}: {key} = {s[key]}")
        for key in ("late_read", "follow_ups_read"):
            if s[key][0] < s[key][1]:
                problems.append(f"{r['home']}: {key} = {s[key][0]} of {s[key][1]}")
    if not any(r["summary"]["accepted_with_lift"] for r in results):
        problems.append("no night was accepted with a held-out test lift")
    return not problems, {"homes": len(results), "ok": not problems, "problems": problems}


def _pair(pair) -> str:
    return f"{pair[0]}/{pair[1]}" if pair else "—"


def _fmt(pair) -> str:
    a, b = pair
    return "—" if a is None or b is None else f"{a:.2f}→{b:.2f}"


def table(results: list[dict]) -> str:
    """One markdown row per home."""
    head = (
        "| set | home | jobs mined | checks valid | other tasks | merged | memory-passed | late corrections read | "
        "follow-ups read | rules | one-off rules | default nights | nights | test before→after | leaks |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    rows = []
    for r in results:
        s = r["summary"]
        counts = lambda d: ", ".join(f"{n} {k}" for k, n in sorted(d.items()))
        rows.append(
            f"| {r.get('set', '')} | {r['home']} | {s['jobs_mined']}/{s['jobs']} | {s['tasks_valid']}/{s['tasks'] - s.get('tasks_unmapped', 0)} | "
            f"{s.get('tasks_unmapped', 0)} | {s['tasks_merged']} | {s['tasks_memory_passes']} | {_pair(s.get('late_read'))} | "
            f"{_pair(s.get('follow_ups_read'))} | {s['rules']} | {s['one_off_rules']} | "
            f"{counts(s['default_nights'])} | {counts(s['nights'])} | {', '.join(_fmt(t) for t in s['test'])} | {s['leaks']} |"
        )
    return "\n".join([head, *rows])
