"""The bundled sample: its size and shape, its reproducibility, and that it is right.

Golden workbooks are computed in Python from the generated data, independently of the
reference solutions; running every reference solution through the real sandbox and the
official comparator on every case therefore checks the data and the grader together.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from skillopt.testing import check_sample_regenerates
from skillopt_envs_spreadsheet import SpreadsheetEnv
from skillopt_envs_spreadsheet.loader import sample_dir
from skillopt_envs_spreadsheet.samplegen import CASES_PER_TASK, all_templates, generate


@pytest.fixture(scope="module")
def env():
    return SpreadsheetEnv()


def test_sample_size_and_mix(env):
    tasks = {s: env.tasks(s) for s in ("train", "val", "test")}
    all_tasks = [t for ts in tasks.values() for t in ts]
    assert len(all_tasks) >= 60
    assert all(len(t.gold["cases"]) >= 3 for t in all_tasks)
    for split, ts in tasks.items():
        kinds = Counter(t.task_type for t in ts)
        assert kinds["cell-level"] > kinds["sheet-level"] > 0, (split, kinds)
    categories = Counter(t.category for t in all_templates())
    assert set(categories) == {"formulas", "lookup", "dates", "text", "pivot", "aggregation", "filtering", "sorting"}
    # env.limit keeps both kinds: items interleave cell- and sheet-level tasks
    assert {t.task_type for t in tasks["train"][:2]} == {"cell-level", "sheet-level"}


def test_the_shipped_sample_is_its_generators_output():
    """Every file, the workbooks byte for byte (their zip entries carry fixed timestamps)."""
    check_sample_regenerates(SpreadsheetEnv, module="skillopt_envs_spreadsheet.samplegen")


def test_shipped_files_match_their_checksums():
    sums = json.loads((sample_dir() / "checksums.json").read_text(encoding="utf-8"))
    assert len(sums) == 2 * CASES_PER_TASK * len(all_templates())
    for rel, digest in sums.items():
        assert hashlib.sha256((sample_dir() / rel).read_bytes()).hexdigest() == digest, rel


def test_generator_is_deterministic(tmp_path):
    keys = {"sumif-a", "pivot-b", "clean-rows-b"}
    first = generate(tmp_path / "one", only=keys)
    second = generate(tmp_path / "two", only=keys)
    shipped = json.loads((sample_dir() / "checksums.json").read_text(encoding="utf-8"))
    assert first == second
    assert first == {k: v for k, v in shipped.items() if k.split("/")[1] in keys}


def test_golden_differs_from_input_in_the_answer_cells(env):
    """A do-nothing script must fail every task (else a task would be free points)."""
    from skillopt_envs_spreadsheet.compare import compare_workbooks

    for t in [t for s in ("train", "val", "test") for t in env.tasks(s)]:
        first_input, first_golden = t.gold["cases"][0]
        assert not compare_workbooks(first_golden, first_input, t.gold["answer_position"]).passed, t.id


@pytest.mark.slow
def test_every_reference_solution_passes_every_case(env):
    tasks = {t.id: t for s in ("train", "val", "test") for t in env.tasks(s)}

    def check(template):
        score = env.score(tasks[template.key], template.solution)
        return template.key, score

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(check, all_templates()))
    failed = {key: score.feedback for key, score in results if score.hard != 1.0}
    assert not failed, failed
    assert all(score.metrics["cases"] >= 3 for _, score in results)
