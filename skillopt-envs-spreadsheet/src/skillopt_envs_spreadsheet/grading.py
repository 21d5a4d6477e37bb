"""Grading a solution: run it on every test case, compare the answer cells.

soft = passed cases / cases, hard = 1 only when every case passes (upstream's rule).
The target saw only case 1, so the other cases check that the code generalises
instead of hard-coding case 1's answers.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

import attrs

from skillopt.api import Score
from skillopt_envs_spreadsheet.compare import Comparison, compare_workbooks, formula_cells
from skillopt_envs_spreadsheet.sandbox import ExecResult, Sandbox


@attrs.frozen(kw_only=True)
class CaseResult:
    index: int
    passed: bool
    run: ExecResult
    comparison: Comparison | None = None
    formula_cells: frozenset = frozenset()

    def summary(self) -> str:
        if self.passed:
            return f"case {self.index}: PASS"
        if not self.run.ok:
            return f"case {self.index}: FAIL - {self.run.status}: {_short(self.run.message, 200)}"
        assert self.comparison is not None
        wrong = self.comparison.wrong
        if self.comparison.message and not wrong:
            return f"case {self.index}: FAIL - {self.comparison.message}"
        return f"case {self.index}: FAIL - {len(wrong)} of {len(self.comparison.checks)} answer cells wrong"


def run_case(sandbox: Sandbox, code: str, input_path: Path, golden: Path, answer_position: str, *, index: int,
             keep_output: Path | None = None, cancel: threading.Event | None = None) -> CaseResult:
    scratch = Path(tempfile.mkdtemp(prefix="skillopt-xlsx-out-"))
    try:
        produced = scratch / "output.xlsx"
        run = sandbox.run(code, input_path, output_to=produced, cancel=cancel)
        if not run.ok:
            return CaseResult(index=index, passed=False, run=run)
        comparison = compare_workbooks(golden, produced, answer_position)
        formulas = frozenset(formula_cells(produced, comparison.wrong)) if not comparison.passed else frozenset()
        if keep_output is not None:
            keep_output.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(produced, keep_output)
        return CaseResult(index=index, passed=comparison.passed, run=run, comparison=comparison, formula_cells=formulas)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def grade(sandbox: Sandbox, code: str, cases: list[tuple[str, str]], answer_position: str, *,
          keep_first: Path | None = None, cancel: threading.Event | None = None) -> list[CaseResult]:
    """Run ``code`` on every (input, golden) case; an empty code fails every case unrun."""
    if not code.strip():
        empty = ExecResult(status="error", message="no code to run (the reply had no ```python block)")
        return [CaseResult(index=i, passed=False, run=empty) for i in range(1, len(cases) + 1)]
    results = []
    for i, (inp, gold) in enumerate(cases, start=1):
        keep = keep_first if i == 1 else None
        results.append(run_case(sandbox, code, Path(inp), Path(gold), answer_position, index=i, keep_output=keep, cancel=cancel))
    return results


def to_score(results: list[CaseResult], *, feedback_chars: int = 1500) -> Score:
    n = len(results)
    passed = sum(1 for r in results if r.passed)
    soft = passed / n if n else 0.0
    hard = 1.0 if n and passed == n else 0.0
    lines = [f"passed {passed} of {n} test cases (the target saw only case 1)."]
    lines += [_case_detail(r, max_cells=4) for r in results]
    metrics = {
        "cases": float(n),
        "cases_passed": float(passed),
        "exec_errors": float(sum(1 for r in results if not r.run.ok)),
    }
    return Score(hard=hard, soft=soft, feedback=_short("\n".join(lines), feedback_chars), metrics=metrics)


def verification_report(results: list[CaseResult], *, limit: int = 4000) -> str:
    """Per-case got/expected report for the optimizer (never shown to the target)."""
    body = "\n".join(_case_detail(r, max_cells=25) for r in results)
    return _short("[EVALUATION RESULT]\n" + body, limit)


def _case_detail(r: CaseResult, *, max_cells: int) -> str:
    head = r.summary()
    if r.passed:
        return head
    if not r.run.ok:
        trace = r.run.stderr.strip().splitlines()[-3:]
        return head + ("\n    " + "\n    ".join(_short(t, 200) for t in trace) if trace else "")
    assert r.comparison is not None
    cells = []
    for c in r.comparison.wrong[:max_cells]:
        note = " (a formula: formulas are not recalculated, so it reads as empty)" if (c.sheet, c.coordinate) in r.formula_cells else ""
        cells.append(f"    '{c.sheet}'!{c.coordinate}: got {_val(c.got)}, expected {_val(c.expected)}{note}")
    more = len(r.comparison.wrong) - max_cells
    if more > 0:
        cells.append(f"    ... {more} more wrong cell(s)")
    return "\n".join([head, *cells])


def cell_feedback(result: CaseResult, *, max_cells: int = 40) -> str:
    """Training-only feedback on case 1: which answer cells are right or WRONG, never the
    expected values (upstream's use_eval_feedback)."""
    assert result.comparison is not None
    comp = result.comparison
    parts = []
    if comp.message:
        parts.append(comp.message)
    marks = [f"'{c.sheet}'!{c.coordinate} {'right' if c.ok else 'WRONG'}" for c in comp.checks[:max_cells]]
    if marks:
        parts.append(", ".join(marks) + (f", ... ({len(comp.checks) - max_cells} more cells)" if len(comp.checks) > max_cells else ""))
    if result.formula_cells:
        parts.append("Some WRONG cells hold formulas; formulas are not recalculated, so they read as empty. Write computed values.")
    wrong = len(comp.wrong)
    return f"{wrong} of {len(comp.checks)} checked answer cells are wrong. " + " ".join(parts)


def _val(value: Any) -> str:
    return _short(repr(value), 40)


def _short(text: str, limit: int) -> str:
    text = text or ""
    return text if len(text) <= limit else text[: max(limit - 15, 1)] + " ...[clipped]"
