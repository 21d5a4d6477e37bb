/* The static report (skillopt report): renders the data embedded in the page with the
   dashboard's charts, diff view and comparison tables. No request leaves the page. */
"use strict";
(function (SO) {
  const el = SO.el;
  const data = JSON.parse(document.getElementById("report-data").textContent);

  function cards(o) {
    return el("div", {class: "cards"}, [
      ["env", (o.env || "–") + (o.preset ? " · " + o.preset : "")], ["status", o.status],
      ["steps", o.steps_planned ? `${o.steps_done ?? 0} of ${o.steps_planned}` : `${o.steps_done ?? 0}`], ["accepted", o.accepts],
      ["val base → best", `${SO.num(o.baseline_val)} → ${SO.num(o.best_val)}`],
      ["test init → best → final", `${SO.num(o.test_initial)} → ${SO.num(o.test_best)} → ${SO.num(o.test_final)}`],
      ["cost", SO.money(o.cost_usd)], ["calls", o.calls ?? "–"],
    ].map(([k, v]) => el("div", {class: "card"}, el("span", {}, k), el("b", {}, String(v)), k === "calls" ? SO.cachedMark(o) : "")));
  }

  function stepTable(history, updates) {
    const rows = [];
    for (const s of history) {
      for (const u of updates.filter((u) => u.epoch === s.epoch && s.step_in_epoch === 1)) {
        rows.push(el("tr", {class: "epoch-row"}, el("td", {colspan: "8"}, `epoch ${u.epoch} · ${u.kind.replace("_", " ")}: `,
          el("span", {class: "act " + SO.actionKind(u.action)}, u.action),
          SO.isNum(u.candidate_score) ? ` (val ${SO.num(u.candidate_score)} vs ${SO.num(u.current_score)})` : "")));
      }
      rows.push(el("tr", {}, el("td", {}, s.step), el("td", {}, s.epoch), el("td", {}, el("span", {class: "act " + SO.actionKind(s.action)}, s.action)),
        el("td", {}, SO.edits(s)), el("td", {}, SO.isNum(s.edit_budget) && s.edit_budget >= 0 ? s.edit_budget : "–"),
        el("td", {}, SO.num(s.candidate_gate_score)), el("td", {}, SO.num(s.current_score)), el("td", {}, SO.money(s.cost_usd), SO.cachedMark(s))));
    }
    return el("div", {class: "table-wrap"}, el("table", {class: "steps"},
      el("tr", {}, ["step", "epoch", "action", "edits applied/selected", "B", "cand val", "current", "cost"].map((t) => el("th", {}, t))), rows));
  }

  function changes(list) {
    if (!list.length) return el("p", {class: "muted"}, "No step proposed edits.");
    return list.map((c) => el("div", {class: "change"},
      el("h4", {}, `Step ${c.step}: `, el("span", {class: "act " + SO.actionKind(c.action)}, c.action),
        SO.isNum(c.candidate) ? ` (val ${SO.num(c.candidate)} vs ${SO.num(c.current)})` : ""),
      c.reason ? el("p", {class: "muted"}, c.reason) : "",
      c.edits.length ? el("div", {class: "table-wrap"}, el("table", {class: "edits"},
        el("tr", {}, ["edit", "status", "content"].map((t) => el("th", {}, t))),
        c.edits.map((e) => el("tr", {}, el("td", {}, e.op), el("td", {class: e.status === "applied" ? "ok" : "bad"}, e.status),
          el("td", {class: "wrap"}, e.content))))) : "",
      c.diff ? SO.diffView(c.diff) : ""));
  }

  function runSection(r, drawers) {
    const o = r.overview, history = r.history.filter((s) => SO.isNum(s.step));
    const score = el("div", {class: "wide"}), budget = el("div"), usage = el("div");
    if (history.length) drawers.push(() => { SO.scoreChart(score, history, o.baseline_val); SO.budgetChart(budget, history); SO.usageChart(usage, history); });
    const accepted = history.filter((s) => SO.actionKind(s.action) === "accept").length;
    return el("section", {class: "run-report", id: "run-" + o.id},
      el("h2", {}, o.id), cards(o),
      history.length ? el("div", {class: "chart-grid"}, score, budget, usage) : el("p", {class: "muted"}, "No steps."),
      r.frontier ? [el("h3", {}, "Kept skills and their objectives"), SO.frontierView(r.frontier)] : "",
      el("h3", {}, "Test by task type"), SO.taskTypeBars((r.summary || {}).test),
      el("h3", {}, "Steps"), stepTable(history, r.epoch_updates || []),
      el("h3", {}, `Edits, step by step (${accepted} of ${history.length} steps kept their candidate)`), changes(r.changes || []),
      r.initial_vs_best ? el("details", {}, el("summary", {}, `Initial → best skill (+${r.initial_vs_best.added} −${r.initial_vs_best.removed} lines)`), SO.diffView(r.initial_vs_best.diff)) : "",
      el("details", {}, el("summary", {}, "Resolved config (secrets redacted)"), el("pre", {class: "json"}, JSON.stringify(r.config, null, 2))));
  }

  function render() {
    const root = document.getElementById("report");
    document.getElementById("where").textContent = `generated ${data.generated}`;
    const drawers = [];
    const parts = [];
    if (data.comparison) {
      const body = SO.compareBody(data.comparison, false);
      parts.push(el("section", {class: "compare-page"}, el("h2", {}, `Comparing ${data.runs.length} runs`), ...body.parts));
      drawers.push(body.draw);
    }
    parts.push(...data.runs.map((r) => runSection(r, drawers)));
    root.replaceChildren(...parts);
    for (const draw of drawers) draw();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", render);
  else render();
})(window.SO);
