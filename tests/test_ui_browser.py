"""The dashboard in a real headless Chromium: read-only views over runs the engine wrote
(toy env, scripted models), and every defect of issue 14 that a reader of the page
saw. Each test fails on any SEVERE console entry."""

from __future__ import annotations

import json
import shutil
import time

import pytest
from browserkit import Served, browser, console_errors, driver, js, screenshot, text_of, wait_for  # noqa: F401 (fixtures)
from engine_helpers import cached_trainer, make_trainer

from skillopt.engine.lock import RunLock
from skillopt.serde import to_data


@pytest.fixture(scope="module")
def run_root(tmp_path_factory):
    """Two finished runs that differ in one setting; the first has two epochs with
    slow update and meta skill (epoch-boundary decisions)."""
    root = tmp_path_factory.mktemp("browser-runs")
    for name, trainer in (("toy-a", make_trainer(root / "toy-a", num_epochs=2, optimizer={"use_slow_update": True, "use_meta_skill": True})),
                          ("toy-b", make_trainer(root / "toy-b", num_epochs=1, train={"batch_size": 4}))):
        trainer.train()
        (root / name / "config.json").write_text(json.dumps(to_data(trainer.cfg)))  # as `skillopt run` writes it
    return root


@pytest.fixture
def served(run_root):
    server = Served([run_root])
    yield server
    server.stop()


def open_page(driver, server, fragment=""):
    driver.set_window_size(1440, 900)
    driver.get(server.url(fragment))
    wait_for(lambda: js(driver, "return window.SO && SO.listView.loaded"), what="the run list")
    console_errors(driver)  # drain what an earlier test left


def history_of(run_root, name):
    return [h for h in json.loads((run_root / name / "history.json").read_text()) if h.get("kind", "step") == "step"]


def test_list_run_step_trajectory_diff_and_compare(driver, served, run_root):
    open_page(driver, served)
    assert js(driver, "return [...document.querySelectorAll('#runs tr')].map(r => r.dataset.id)") == ["toy-b", "toy-a"]
    # keyboard: focus the first row, arrow down, Enter opens toy-a
    js(driver, "document.querySelector('#runs tr').focus()")
    from selenium.webdriver.common.keys import Keys

    driver.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_for(lambda: text_of(driver, "#run-head h2") == "toy-a", what="toy-a's page")
    assert driver.current_url.endswith("#/run/toy-a")

    # charts: the score chart has a legend with the baseline and the decision markers, and hover shows values
    legend = js(driver, "return [...document.querySelectorAll('#chart-score .u-legend th')].map(t => t.innerText.trim())")
    assert {"current (val)", "candidate (val)", "train batch", "baseline (val)", "accepted", "rejected", "skipped"} <= set(legend)
    from selenium.webdriver.common.action_chains import ActionChains

    over = driver.find_element("css selector", "#chart-score .u-over")
    ActionChains(driver).move_to_element_with_offset(over, 2, 0).perform()
    wait_for(lambda: js(driver, "return document.querySelector('#chart-score .u-legend .u-series td.u-value').innerText") not in ("--", ""),
             what="hover values in the legend")
    assert js(driver, "return document.querySelectorAll('#chart-budget canvas, #chart-usage canvas').length") == 2

    # the step table: edits as the CLI counts them (applied/selected), the epoch-2 slow update and meta skill rows
    history = history_of(run_root, "toy-a")
    cells = js(driver, "return [...document.querySelectorAll('#run-steps tr.step-row')].map(r => r.children[3].innerText)")
    assert cells == [f"{h['n_edits_applied']}/{h['n_edits_selected']}" for h in history]
    epoch_rows = js(driver, "return [...document.querySelectorAll('#run-steps tr.epoch-row')].map(r => r.innerText)")
    assert any("epoch 2" in r and "slow update" in r for r in epoch_rows) and any("meta skill" in r for r in epoch_rows)
    assert "of 4" in text_of(driver, "#run-cards")

    # a step: its detail is scrolled into view, its val items show what the candidate fixed
    driver.find_element("css selector", "#run-steps tr.step-row[data-step='1']").click()
    wait_for(lambda: "Step 1" in text_of(driver, "#step"), what="step 1's detail")
    wait_for(lambda: js(driver, "return document.querySelectorAll('#trajectory tr.item-row').length") > 0, what="val items")
    top = js(driver, "return document.getElementById('step').getBoundingClientRect().top")
    assert 0 <= top < js(driver, "return innerHeight"), top
    gate = json.loads((run_root / "toy-a" / "steps" / "step_0001" / "gate" / "result.json").read_text())["result"]
    assert f"fixed {gate['verdict']['details']['improved']}" in text_of(driver, "#trajectory .flips")
    # the accepted step's attribution: each applied edit with the val items it fixed
    attribution = json.loads((run_root / "toy-a" / "steps" / "step_0001" / "attribution.json").read_text())["result"]
    shown = text_of(driver, "#attribution")
    assert f"fixed {len(attribution['fixed'])}" in shown
    assert all(e["content"][:30] in shown and (e["helped"][0] if e["helped"] else "–") in shown for e in attribution["edits"])
    # failures first on train, and the full conversation on click
    driver.find_element("css selector", "#step .tabs button[data-split='train']").click()
    wait_for(lambda: driver.current_url.endswith("/step/1/train"), what="the train tab's link")
    wait_for(lambda: js(driver, "return document.querySelectorAll('#trajectory tr.item-row').length") > 0, what="train items")
    scores = js(driver, "return [...document.querySelectorAll('#trajectory tr.item-row')].map(r => parseFloat(r.children[2].innerText))")
    assert scores == sorted(scores)
    driver.find_element("css selector", "#trajectory tr.item-row").click()
    wait_for(lambda: "assistant" in text_of(driver, "#conversation"), what="the conversation")
    assert "Puzzle kind" in text_of(driver, "#conversation")  # the user turn the target saw

    # a deep link opens the same place from scratch
    driver.get(served.url("#/run/toy-a/step/1/train"))
    wait_for(lambda: js(driver, "return document.querySelectorAll('#trajectory tr.item-row').length") > 0, what="deep-linked trajectory")

    # the diff between the initial and the best skill
    wait_for(lambda: "+" in text_of(driver, "#run-diff"), what="the skill diff")
    assert "RULE-" in text_of(driver, "#run-diff .add")

    # compare: tick both runs (Space on a row, a click on the other), press Compare
    js(driver, "document.querySelector('#runs tr[data-id=\"toy-a\"]').focus()")
    driver.switch_to.active_element.send_keys(Keys.SPACE)
    driver.find_element("css selector", "#runs tr[data-id='toy-b'] input[type=checkbox]").click()
    driver.find_element("id", "compare-btn").click()
    wait_for(lambda: "Comparing 2 runs" in text_of(driver, "#view"), what="the comparison")
    series = js(driver, "return [...document.querySelectorAll('.compare-page .u-legend th')].map(t => t.innerText.trim())")
    assert {"toy-a", "toy-b"} <= set(series)
    assert "train.batch_size" in text_of(driver, ".config-diff") and "train.num_epochs" in text_of(driver, ".config-diff")
    finals = text_of(driver, ".finals")
    assert "toy-a" in finals and "toy-b" in finals
    assert console_errors(driver) == []


def test_a_wrongly_shaped_run_file_never_hides_the_other_runs(driver, run_root, tmp_path):
    shapes = {"state-list": ("runtime_state.json", "[1, 2]"), "summary-string": ("summary.json", '"x"'),
              "history-number": ("history.json", "5"), "config-list": ("config.json", "[]"),
              "record-list": ("steps/step_0001/step_record.json", "[3]"), "lock-garbage": ("run.lock", "{not json"),
              "book-list": ("score_book.json", "[1]"), "results-torn": ("steps/step_0001/gate/results.jsonl", '{"key": 1}\n[2]\n{')}
    for name, (file, text) in shapes.items():
        shutil.copytree(run_root / "toy-a", tmp_path / name)
        (tmp_path / name / file).write_text(text)
    server = Served([tmp_path])
    try:
        open_page(driver, server)
        listed = js(driver, "return [...document.querySelectorAll('#runs tr')].map(r => r.dataset.id)")
        assert sorted(listed) == sorted(shapes)
        for name in shapes:
            driver.get(server.url(f"#/run/{name}/step/1/val"))
            wait_for(lambda name=name: text_of(driver, "#run-head h2") == name, what=f"{name}'s page")
            wait_for(lambda: "Step 1" in text_of(driver, "#step") or js(driver, "return !!document.getElementById('step-error')"),
                     what=f"step 1 of {name}")
            assert console_errors(driver) == [], name
    finally:
        server.stop()


def test_a_damaged_run_shows_its_steps_and_says_what_was_healed(driver, run_root, tmp_path):
    shutil.copytree(run_root / "toy-a", tmp_path / "damaged")
    (tmp_path / "damaged" / "history.json").write_text('[{"step": 1, "ac')
    server = Served([tmp_path])
    try:
        open_page(driver, server, "#/run/damaged")
        wait_for(lambda: text_of(driver, "#run-head h2") == "damaged", what="the damaged run's page")
        steps = len(history_of(run_root, "toy-a"))
        wait_for(lambda: js(driver, "return document.querySelectorAll('#run-steps tr.step-row').length") == steps, what="its steps")
        warning = text_of(driver, "#run-warnings")
        assert "history.json is damaged" in warning and "step_record.json" in warning
        assert js(driver, "return getComputedStyle(document.querySelector('#run-warnings p')).display") != "none"
        assert js(driver, "return document.querySelector('#runs tr[data-id=damaged] .damaged').title").startswith("history.json")
        assert console_errors(driver) == []
    finally:
        server.stop()


def test_steps_answered_from_the_call_cache_are_marked_with_what_they_saved(driver, tmp_path):
    cache = tmp_path / "calls.sqlite3"
    cached_trainer(tmp_path / "runs" / "paid", cache).train()
    cached_trainer(tmp_path / "runs" / "repeat", cache).train()
    server = Served([tmp_path / "runs"])
    try:
        open_page(driver, server, "#/run/repeat")
        wait_for(lambda: js(driver, "return document.querySelectorAll('#run-steps tr.step-row').length") == 2, what="the steps")
        history = history_of(tmp_path / "runs", "repeat")
        cells = js(driver, "return [...document.querySelectorAll('#run-steps tr.step-row')].map(r => r.children[8].innerText)")
        assert [c.split() for c in cells] == [["0", f"{h['cached_calls']}", "cached"] for h in history]
        title = js(driver, "return document.querySelector('#run-steps tr.step-row small.cached').title")
        assert f"{history[0]['cached_tokens']:,} tokens and $" in title and "saved" in title
        assert "cached" in text_of(driver, "#run-cards")
        assert console_errors(driver) == []
    finally:
        server.stop()


def test_live_updates_keep_what_the_reader_opened(driver, run_root, tmp_path):
    """A run in progress (its lock held, two of four steps written) gets two more steps
    while the reader has a step open, a details block open, another diff chosen and the
    page scrolled: none of it is reset."""
    live = tmp_path / "live"
    shutil.copytree(run_root / "toy-a", live)
    full_history = (live / "history.json").read_text()
    state = json.loads((live / "runtime_state.json").read_text())
    (live / "summary.json").unlink()
    (live / "history.json").write_text(json.dumps(json.loads(full_history)[:2]))
    (live / "runtime_state.json").write_text(json.dumps({**state, "status": "running", "last_completed_step": 2}))
    server = Served([tmp_path])
    lock = RunLock(live).acquire()
    try:
        open_page(driver, server, "#/run/live/step/1")
        wait_for(lambda: "Step 1" in text_of(driver, "#step"), what="step 1")
        assert text_of(driver, "#run-status") == "running" and "2 of 4" in text_of(driver, "#run-cards")
        js(driver, "document.querySelector('#step details').open = true; document.getElementById('run-config').open = true")
        js(driver, "const a = document.querySelector('#run-diff-controls select[name=a]'); a.value = a.options[1].value; a.dispatchEvent(new Event('change'))")
        chosen = js(driver, "return document.querySelector('#run-diff-controls select[name=a]').value")
        js(driver, "window.scrollTo(0, 400)")
        scrolled = js(driver, "return window.scrollY")
        (live / "history.json").write_text(full_history)
        (live / "runtime_state.json").write_text(json.dumps({**state, "status": "running", "last_completed_step": 4}))
        wait_for(lambda: js(driver, "return document.querySelectorAll('#run-steps tr.step-row').length") == 4, what="the new steps")
        assert "4 of 4" in text_of(driver, "#run-cards")
        assert js(driver, "return document.querySelector('#step details').open && document.getElementById('run-config').open")
        assert js(driver, "return document.querySelector('#run-diff-controls select[name=a]').value") == chosen
        assert "Step 1" in text_of(driver, "#step")
        assert abs(js(driver, "return window.scrollY") - scrolled) < 5
        lock.release()  # the process ends without a summary: interrupted, at once
        wait_for(lambda: text_of(driver, "#run-status") == "interrupted", timeout=5, what="interrupted after the lock is released")
        assert console_errors(driver) == []
    finally:
        lock.release()
        server.stop()


def test_links_to_a_missing_run_or_step_say_so_without_script_errors(driver, served):
    open_page(driver, served, "#/run/nope")
    wait_for(lambda: "no run named nope" in text_of(driver, "#view"), what="the missing run's message")
    driver.get(served.url("#/run/toy-a/step/999"))
    wait_for(lambda: "no step 999" in text_of(driver, "#step"), what="the missing step's message")
    status, kind = js(driver, "const r = new XMLHttpRequest(); r.open('GET', '/favicon.ico', false); r.send(); return [r.status, r.getResponseHeader('Content-Type')]")
    assert status == 200 and kind == "image/svg+xml"
    assert console_errors(driver) == []


@pytest.mark.parametrize("width", [1440, 800])
def test_the_layout_fits_1440_and_stacks_at_800(driver, served, width):
    open_page(driver, served, "#/run/toy-a/step/1")
    driver.set_window_size(width, 900)
    wait_for(lambda: "Step 1" in text_of(driver, "#step"), what="step 1")
    time.sleep(0.3)  # charts follow the resize
    assert js(driver, "return document.documentElement.scrollWidth <= window.innerWidth")
    panel = js(driver, "const t = document.querySelector('table.runs'); return [t.scrollWidth, t.parentNode.clientWidth]")
    assert panel[0] <= panel[1], panel  # the run list's columns (cost included) fit their panel
    runs, view, launch = js(driver, "return ['#runs-panel', '#view', '#launch-panel'].map(s => document.querySelector(s).getBoundingClientRect().toJSON())")
    if width >= 1000:
        assert view["left"] >= max(runs["right"], launch["right"])  # side by side
    else:  # stacked: the list, the open run, then the launch form
        assert runs["bottom"] <= view["top"] and view["bottom"] <= launch["top"] and abs(view["width"] - runs["width"]) < 2
    charts = js(driver, "return [...document.querySelectorAll('.chart')].map(c => c.getBoundingClientRect().right)")
    assert charts and max(charts) <= width
    screenshot(driver, f"run-{width}")
    driver.get(served.url("#/compare/toy-a,toy-b"))
    wait_for(lambda: "Comparing 2 runs" in text_of(driver, "#view"), what="the comparison")
    time.sleep(0.3)
    assert js(driver, "return document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(driver, f"compare-{width}")
    assert console_errors(driver) == []


@pytest.mark.parametrize("width", [1440, 800])
def test_the_static_report_opens_offline(driver, run_cli, run_root, tmp_path, width):
    out = tmp_path / "report.html"
    result = run_cli("report", "toy-a", "toy-b", "--runs-dir", str(run_root), "-o", str(out))
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert 'http-equiv="Content-Security-Policy" content="default-src \'none\'' in page
    assert "<script src" not in page and "<link rel=\"stylesheet\"" not in page  # everything inline
    driver.set_window_size(width, 900)
    driver.get(out.as_uri())
    wait_for(lambda: "Comparing 2 runs" in text_of(driver, "#report"), what="the report")
    assert js(driver, "return document.querySelectorAll('#report canvas').length") >= 8  # 2 compared + 3 per run
    # each accepted step's skill diff, its edits and what became of them
    history = history_of(run_root, "toy-a")
    kept = [h["step"] for h in history if h["action"].startswith("accept")]
    section = text_of(driver, "#run-toy-a")
    for step in kept:
        assert f"Step {step}: accept" in section and f"+++ skill {step}" in section
    assert "applied" in section and "Test by task type" in section and "epoch 2 · slow update" in section
    assert js(driver, "return document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(driver, f"report-{width}")
    assert console_errors(driver) == []


def _overflowing_cells(driver) -> list[str]:
    """Run-list cells whose text runs past their own box (into the next column) or is cut
    (a badge's ellipsis): each as 'run id: cell text'."""
    return js(driver, """
        const bad = [];
        for (const td of document.querySelectorAll('#runs td')) {
          const box = td.getBoundingClientRect(), range = document.createRange();
          range.selectNodeContents(td);
          const text = range.getBoundingClientRect();
          const cut = [...td.querySelectorAll('.badge')].some(b => b.scrollWidth > b.clientWidth);
          if (text.right > box.right + 0.5 || text.left < box.left - 0.5 || cut) bad.push(td.closest('tr').dataset.id + ': ' + td.innerText);
        }
        return bad;""")


@pytest.mark.parametrize("width", [1440, 800])
def test_long_cells_fit_their_columns_the_gate_says_its_confidence_once_and_an_opened_run_is_under_the_list(driver, run_root, tmp_path, width):
    """A 3-digit step count and the "interrupted" badge stay inside their columns (they
    spilled into the val column and were cut to "interrup…"); a paired-gate rejection's
    reason, which states its confidence, is not followed by the confidence again; at
    800 px a run opened from the list shows under the list, before the launch form."""
    long = tmp_path / "searchqa-20260510-101112"
    shutil.copytree(run_root / "toy-a", long)
    (long / "summary.json").unlink()  # no summary and no lock: an interrupted run
    state = json.loads((long / "runtime_state.json").read_text())
    (long / "runtime_state.json").write_text(json.dumps({**state, "status": "running", "last_completed_step": 120, "total_steps": 200}))
    paired = make_trainer(tmp_path / "paired-gate", num_epochs=1, evaluation={"gate": "paired"}, optimizer={"learning_rate": 1})
    paired.train()  # one rule a step fixes 2 of 8 val items: p=0.25, "not significant (confidence 0.750)"
    (tmp_path / "paired-gate" / "config.json").write_text(json.dumps(to_data(paired.cfg)))
    server = Served([tmp_path])
    try:
        open_page(driver, server)
        driver.set_window_size(width, 900)
        wait_for(lambda: js(driver, "return document.querySelectorAll('#runs tr').length") == 2, what="both runs")
        time.sleep(0.3)
        cells = js(driver, "return [...document.querySelectorAll('#runs td')].map(td => td.innerText.trim())")
        assert "120/200" in cells and "interrupted" in cells
        assert _overflowing_cells(driver) == []
        screenshot(driver, f"list-long-cells-{width}")

        driver.set_window_size(width, 900)
        driver.find_element("css selector", "#runs tr[data-id='paired-gate'] td.name").click()
        wait_for(lambda: text_of(driver, "#run-head h2") == "paired-gate", what="the opened run")
        runs, view, launch = js(driver, "return ['#runs-panel', '#view', '#launch-panel'].map(s => document.querySelector(s).getBoundingClientRect().toJSON())")
        if width >= 1000:
            assert view["left"] >= runs["right"] and view["top"] < launch["bottom"]  # beside the list
        else:
            assert runs["bottom"] <= view["top"] < launch["top"]  # under the list, before the launch form
        screenshot(driver, f"opened-from-list-{width}")

        driver.get(server.url("#/run/paired-gate/step/1"))
        wait_for(lambda: "Step 1" in text_of(driver, "#step"), what="step 1")
        reason = js(driver, "return [...document.querySelectorAll('#step p')].map(p => p.innerText).find(t => t.startsWith('Gate:')) || ''")
        record = json.loads((tmp_path / "paired-gate" / "steps" / "step_0001" / "step_record.json").read_text())
        assert "not significant" in record["verdict"]["reason"] and isinstance(record["verdict"]["confidence"], float)
        assert reason.count("confidence") == 1 and "(confidence 0.750)" in reason, reason
        assert console_errors(driver) == []
    finally:
        server.stop()
