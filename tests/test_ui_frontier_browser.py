"""The kept skills of a multi-objective pool and a step's race, in the dashboard and the
static report, in a real headless Chromium (toy env and scripted models: the target
solves a kind when the skill holds its rule, see core/tests/toy.py). Each test fails on
any SEVERE console entry."""

from __future__ import annotations

import json

import pytest
from browserkit import Served, browser, console_errors, driver, js, text_of, wait_for  # noqa: F401 (fixtures)
from engine_helpers import make_trainer

from skillopt.serde import to_data


@pytest.fixture(scope="module")
def run_root(tmp_path_factory):
    """A ``frontier`` run with two proposals a step and its final skill picked on a carved
    selection split by the ``smallest`` rule."""
    root = tmp_path_factory.mktemp("frontier-runs")
    trainer = make_trainer(root / "kept", num_epochs=2, optimizer={"learning_rate": 1, "min_learning_rate": 1},
                           env={"n_val": 24}, evaluation={"selection_split": "carved"},
                           search={"strategy": "frontier", "pool_size": 3, "proposals": 2, "select": "smallest"})
    trainer.train()
    (root / "kept" / "config.json").write_text(json.dumps(to_data(trainer.cfg)))
    return root


@pytest.fixture
def served(run_root):
    server = Served([run_root])
    yield server
    server.stop()


def test_the_run_page_shows_the_kept_skills_the_pick_and_a_steps_race(driver, served, run_root):
    picked = json.loads((run_root / "kept" / "selection" / "result.json").read_text())["result"]
    driver.set_window_size(1440, 900)
    driver.get(served.url("#/run/kept"))
    wait_for(lambda: text_of(driver, "#run-head h2") == "kept", what="the run's page")
    wait_for(lambda: js(driver, "return !!document.querySelector('#run-frontier')"), what="the kept skills")
    section = text_of(driver, "#run-kept")
    assert "Final pick by 'smallest' on the selection split" in section and picked["reason"] in section
    rows = js(driver, "return [...document.querySelectorAll('#run-frontier tr')].slice(1).map(r => r.cells[0].textContent)")
    assert rows == [f["origin"] for f in picked["finalists"]]
    chosen = js(driver, "return [...document.querySelectorAll('#run-frontier tr.chosen')].map(r => r.cells[0].textContent)")
    assert chosen == [picked["finalists"][picked["chosen"]]["origin"]]
    assert js(driver, "return document.querySelectorAll('svg.frontier-plot circle').length") == len(picked["finalists"])
    raced = [h["step"] for h in json.loads((run_root / "kept" / "history.json").read_text()) if h.get("raced")]
    assert raced, "the run raced no proposals"
    driver.get(served.url(f"#/run/kept/step/{raced[0]}"))
    wait_for(lambda: "Race of 2 proposals" in text_of(driver, "#step"), what="the step's race")
    assert "won" in text_of(driver, "#race")
    assert console_errors(driver) == []


def test_the_report_shows_the_kept_skills(driver, run_cli, run_root, tmp_path):
    out = tmp_path / "report.html"
    result = run_cli("report", "kept", "--runs-dir", str(run_root), "-o", str(out))
    assert result.exit_code == 0, result.output
    driver.get(out.as_uri())
    wait_for(lambda: "Kept skills and their objectives" in text_of(driver, "#report"), what="the report's kept skills")
    assert "on the selection split" in text_of(driver, "#run-frontier")
    assert js(driver, "return document.querySelectorAll('#run-frontier tr.chosen').length") == 1
    assert console_errors(driver) == []


def test_runs_show_prints_the_pick_and_the_kept_skills(run_cli, run_root):
    result = run_cli("runs", "show", "kept", "--runs-dir", str(run_root))
    assert result.exit_code == 0, result.output
    picked = json.loads((run_root / "kept" / "selection" / "result.json").read_text())["result"]
    assert "final pick by 'smallest' on the selection split" in result.output
    assert all(f["origin"] in result.output for f in picked["finalists"]) and "picked" in result.output
    data = json.loads(run_cli("runs", "show", "kept", "--runs-dir", str(run_root), "--json").stdout)
    assert data["frontier"]["source"] == "pick" and len(data["frontier"]["members"]) == len(picked["finalists"])
