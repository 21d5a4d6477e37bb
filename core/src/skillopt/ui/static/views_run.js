/* One run's page: status and controls, cards, charts, the step table (epoch-boundary
   decisions included), a skill diff, the config and the log. Live updates redraw the
   parts that changed in place: an open step, the diff selection, open details and the
   scroll position are left as they are. */
"use strict";
(function (SO) {
  const el = SO.el;
  const R = SO.runView = {id: null, data: null, stream: null};

  R.close = function () {
    if (R.stream) R.stream.close();
    R.stream = null;
    R.id = null;
    R.data = null;
  };

  /** Show run ``id`` (built once per run; a step change only opens the step). */
  R.open = async function (id) {
    if (R.id === id) return true;
    R.close();
    R.id = id;
    SO.listView.select(id);
    const view = document.getElementById("view");
    if (SO.listView.loaded && !SO.listView.rows.some((r) => r.id === id)) {  // a stale or mistyped link: say so, ask nothing
      view.replaceChildren(el("h2", {}, id), el("p", {class: "error", id: "run-missing"}, `no run named ${id} (the list shows every run found)`));
      return false;
    }
    view.replaceChildren(el("p", {class: "muted"}, `loading ${id}…`));
    let data;
    try {
      data = await SO.api(SO.runPath(id));
    } catch (e) {
      view.replaceChildren(el("h2", {}, id), el("p", {class: "error", id: "run-missing"}, e.message));
      return false;
    }
    if (R.id !== id) return false;  // another run was opened meanwhile
    view.replaceChildren(skeleton(id));
    R.render(data, true);
    R.listen(id, data);
    return true;
  };

  function skeleton(id) {
    return el("div", {class: "run-page"},
      el("div", {id: "run-head", class: "run-head"}),
      el("div", {id: "run-error"}),
      el("div", {id: "run-warnings"}),
      el("div", {id: "run-cards", class: "cards"}),
      el("div", {class: "chart-grid"}, el("div", {id: "chart-score", class: "wide"}), el("div", {id: "chart-budget"}), el("div", {id: "chart-usage"})),
      el("h3", {}, "Steps"),
      el("div", {class: "table-wrap"}, el("table", {id: "run-steps", class: "steps nav"},
        el("thead", {}, el("tr", {}, ["step", "epoch", "action", "edits", "B", "train", "cand val", "current", "tokens", "cost"].map((t) => el("th", {}, t)))),
        el("tbody", {}))),
      el("div", {id: "step"}),
      el("div", {id: "run-kept"}),
      el("h3", {}, "Test by task type"),
      el("div", {id: "run-tasktypes"}),
      el("h3", {}, "Skill diff"),
      el("div", {id: "run-diff-controls", class: "controls"}),
      el("div", {id: "run-diff"}),
      el("details", {id: "run-config"}, el("summary", {}, "resolved config (secrets redacted)"), el("pre", {class: "json"})),
      el("details", {id: "run-log"}, el("summary", {}, "log of the dashboard-launched process"), el("pre", {class: "log"})));
  }

  R.render = function (data, first) {
    R.data = data;
    const o = data.overview, id = o.id;
    head(o);
    const err = document.getElementById("run-error");
    err.replaceChildren(...(o.error ? [el("p", {class: "error"}, `The run's process ended with exit status ${o.exit_code}. End of its log:`), el("pre", {class: "log error-log"}, o.error)] : []));
    // damaged run files: what was healed on the way in, so a reader never takes "No steps" at face value
    document.getElementById("run-warnings").replaceChildren(...(o.warnings || []).map((w) => el("p", {class: "warning"}, "⚠ " + w)));
    const total = o.steps_planned ? `${o.steps_done ?? 0} of ${o.steps_planned}` : `${o.steps_done ?? 0}`;
    document.getElementById("run-cards").replaceChildren(...[
      ["env", (o.env || "–") + (o.preset ? " · " + o.preset : "")], ["steps", total], ["accepted", o.accepts],
      ["val base → best", `${SO.num(o.baseline_val)} → ${SO.num(o.best_val)}`],
      ["test init → best", `${SO.num(o.test_initial)} → ${SO.num(o.test_best)}`], ["cost", SO.money(o.cost_usd)], ["calls", o.calls ?? "–"],
    ].map(([k, v]) => el("div", {class: "card"}, el("span", {}, k), el("b", {}, String(v)), k === "calls" ? SO.cachedMark(o) : "")));
    const history = data.history.filter((s) => SO.isNum(s.step));
    if (history.length) {
      SO.scoreChart(document.getElementById("chart-score"), history, o.baseline_val);
      SO.budgetChart(document.getElementById("chart-budget"), history);
      SO.usageChart(document.getElementById("chart-usage"), history);
    } else {
      document.getElementById("chart-score").replaceChildren(el("p", {class: "muted"}, o.status === "running" ? "No step finished yet." : "No steps."));
    }
    stepRows(id, history, data.epoch_updates || []);
    const kept = SO.frontierView(data.frontier);
    document.getElementById("run-kept").replaceChildren(...(kept ? [el("h3", {}, "Kept skills and their objectives"), kept] : []));
    document.getElementById("run-tasktypes").replaceChildren(SO.taskTypeBars((data.summary || {}).test));
    diffControls(id, data.skills || [], first);
    document.querySelector("#run-config pre").textContent = JSON.stringify(data.config, null, 2);
    const log = document.getElementById("run-log");
    log.hidden = !data.log;
    log.querySelector("pre").textContent = data.log || "";
  };

  function head(o) {
    const box = document.getElementById("run-head");
    const controls = el("span", {class: "controls"});
    if (o.status === "running" && o.pid) {
      controls.append(el("button", {type: "button", id: "stop-run", onclick: SO.guard(async (ev) => {
        ev.target.disabled = true;
        await SO.post(SO.runPath(o.id) + "/stop");
        SO.notice(`stopped ${o.id}`);
        await R.refresh();
      })}, "Stop"));
    } else if (o.resumable) {
      controls.append(el("button", {type: "button", id: "resume-run", onclick: SO.guard(async (ev) => {
        ev.target.disabled = true;
        try {
          const r = await SO.post(SO.runPath(o.id) + "/resume");
          SO.notice(`resumed ${o.id} (pid ${r.pid})`);
        } finally { await R.refresh(); }
      })}, "Resume"));
    }
    box.replaceChildren(el("h2", {}, o.id), el("span", {class: "badge " + String(o.status).split(":")[0], id: "run-status"}, o.status),
      o.pid ? el("small", {class: "muted"}, ` pid ${o.pid}`) : "", controls);
  }

  function stepRows(id, history, updates) {
    const body = document.querySelector("#run-steps tbody");
    const open = SO.stepView.current && SO.stepView.current.id === id ? SO.stepView.current.step : null;
    const rows = [];
    for (const s of history) {
      for (const u of updates.filter((u) => u.epoch === s.epoch && s.step_in_epoch === 1)) rows.push(epochRow(u));
      const tr = el("tr", {class: "step-row" + (s.step === open ? " selected" : ""), tabindex: "0", "data-step": s.step},
        el("td", {}, s.step), el("td", {}, s.epoch), el("td", {}, el("span", {class: "act " + SO.actionKind(s.action)}, s.action)),
        el("td", {title: `applied ${s.n_edits_applied ?? 0} of ${s.n_edits_selected ?? 0} selected (${s.n_edits_proposed ?? 0} proposed)`}, SO.edits(s)),
        el("td", {}, SO.isNum(s.edit_budget) && s.edit_budget >= 0 ? s.edit_budget : "–"),
        el("td", {}, SO.num(s.rollout_hard, 2)), el("td", {}, SO.num(s.candidate_gate_score)), el("td", {}, SO.num(s.current_score)),
        el("td", {}, SO.int((s.prompt_tokens || 0) + (s.completion_tokens || 0)), SO.cachedMark(s)), el("td", {}, SO.money(s.cost_usd)));
      tr.addEventListener("click", () => { location.hash = `#/run/${encodeURIComponent(id)}/step/${s.step}`; });
      rows.push(tr);
    }
    body.replaceChildren(...rows);
  }

  function epochRow(u) {
    const what = u.kind === "slow_update" ? "slow update" : "meta skill";
    const scores = SO.isNum(u.candidate_score) ? ` (val ${SO.num(u.candidate_score)} vs ${SO.num(u.current_score)})` : "";
    return el("tr", {class: "epoch-row"}, el("td", {colspan: "10"},
      `epoch ${u.epoch} · ${what}: `, el("span", {class: "act " + SO.actionKind(u.action)}, u.action), scores, u.reason ? ` — ${u.reason}` : ""));
  }

  function diffControls(id, versions, first) {
    const box = document.getElementById("run-diff-controls");
    const names = [...versions.map(String), ...(R.data.has_best ? ["best"] : [])];
    if (!names.length) {
      box.replaceChildren(el("span", {class: "muted"}, "No skill versions yet."));
      return;
    }
    const label = (v) => v === "best" ? "best" : "v" + v;
    const keep = first ? null : [...box.querySelectorAll("select")].map((s) => s.value);
    const pick = (name, value) => el("select", {name, "aria-label": name === "a" ? "diff from" : "diff to"},
      names.map((v) => el("option", {value: v, selected: v === value || null}, label(v))));
    const a = pick("a", keep && names.includes(keep[0]) ? keep[0] : names[0]);
    const b = pick("b", keep && names.includes(keep[1]) ? keep[1] : names[names.length - 1]);
    const show = SO.guard(async () => {
      const d = await SO.api(`${SO.runPath(id)}/diff?a=${a.value}&b=${b.value}`);
      document.getElementById("run-diff").replaceChildren(el("div", {class: "muted"}, `${label(a.value)} → ${label(b.value)}: +${d.added} −${d.removed} lines`), SO.diffView(d.diff));
    });
    a.onchange = b.onchange = show;
    box.replaceChildren("from ", a, " to ", b);
    if (first) show();
  }

  R.refresh = async function () {
    if (!R.id) return;
    const id = R.id;
    const data = await SO.api(SO.runPath(id));
    if (R.id === id) R.render(data, false);
    SO.listView.refresh().catch((e) => SO.notice(e.message, "error"));
  };

  /** Server-sent progress: redraw when a step finished or the status changed. */
  R.listen = function (id, data) {
    let seen = data.history.length, status = data.overview.status, done = data.overview.steps_done;
    R.stream = new EventSource(`${SO.runPath(id)}/events?token=${encodeURIComponent(SO.token)}`);
    R.stream.addEventListener("progress", (ev) => {
      const p = JSON.parse(ev.data);
      if (p.history_len === seen && p.status === status && p.steps_done === done) return;
      seen = p.history_len; status = p.status; done = p.steps_done;
      R.refresh().catch((e) => SO.notice(e.message, "error"));
    });
  };
})(window.SO);
