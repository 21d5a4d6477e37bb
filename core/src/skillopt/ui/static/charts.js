/* Charts over a run's history with the vendored uPlot (dashboard and report):
   scores per step with the baseline and accept/reject/skip markers, the edit budget,
   cumulative tokens and cost, per-task-type test bars, and runs overlaid. */
"use strict";
(function (SO) {
  const C = {current: "#0b57d0", candidate: "#c5221f", train: "#80868b", baseline: "#5f6368",
             accept: "#188038", reject: "#c5221f", skip: "#9aa0a6", budget: "#7b61ff", applied: "#188038",
             tokens: "#0b57d0", cost: "#e37400"};
  SO.palette = ["#0b57d0", "#c5221f", "#188038", "#e37400", "#7b61ff", "#00838f", "#ad1457", "#5d4037"];

  const val = (x) => SO.isNum(x) ? x : null;
  const widthOf = (box) => Math.max(260, Math.floor((box.clientWidth || box.parentNode?.clientWidth || 600) - 4));

  /** A marker-only series (no line): a dot at each non-null value. */
  function markers(label, color, shape) {
    return {label, stroke: color, fill: color, width: 0, paths: () => null,
            points: {show: true, size: shape === "x" ? 9 : 8, stroke: color, fill: shape === "hollow" ? "#fff" : color, width: 2}};
  }

  function make(box, opts, data) {
    box.replaceChildren();
    box.classList.add("chart");
    const chart = new uPlot(Object.assign({width: widthOf(box), height: 220, cursor: {drag: {x: false, y: false}}}, opts), data, box);
    box._chart = chart;
    return chart;
  }

  /** Resize every chart to its box (window resize, layout change). */
  SO.resizeCharts = function () {
    for (const box of document.querySelectorAll(".chart")) {
      if (box._chart) box._chart.setSize({width: widthOf(box), height: box._chart.height});
    }
  };
  window.addEventListener("resize", () => { clearTimeout(SO._resizeTimer); SO._resizeTimer = setTimeout(SO.resizeCharts, 120); });

  const stepAxis = {label: "step", incrs: [1, 2, 5, 10, 20, 50, 100], values: (u, ticks) => ticks.map((t) => Number.isInteger(t) ? t : "")};

  /** Val (current, candidate) and train score per step, the baseline, and a marker per
      decision: filled green accepted, red rejected, hollow grey skipped. */
  SO.scoreChart = function (box, history, baseline) {
    const x = history.map((s) => s.step);
    const at = (s) => val(s.candidate_gate_score) ?? val(s.current_score);
    const pick = (kind) => history.map((s) => SO.actionKind(s.action) === kind ? at(s) : null);
    const data = [x, history.map((s) => val(s.current_score)), history.map((s) => val(s.candidate_gate_score)),
                  history.map((s) => val(s.rollout_hard)), history.map(() => val(baseline)),
                  pick("accept"), pick("reject"), pick("skip")];
    return make(box, {
      title: "Score per step",
      scales: {x: {time: false}, y: {range: [0, 1]}},
      axes: [stepAxis, {label: "score", values: (u, t) => t.map((v) => +v.toFixed(2))}],
      series: [{label: "step"},
        {label: "current (val)", stroke: C.current, width: 2, spanGaps: true},
        {label: "candidate (val)", stroke: C.candidate, width: 1, dash: [5, 4], spanGaps: true},
        {label: "train batch", stroke: C.train, width: 1, spanGaps: true},
        {label: "baseline (val)", stroke: C.baseline, width: 1, dash: [2, 3], points: {show: false}},
        markers("accepted", C.accept), markers("rejected", C.reject), markers("skipped", C.skip, "hollow")],
    }, data);
  };

  /** The edit budget each step used, and the edits it applied. */
  SO.budgetChart = function (box, history) {
    const x = history.map((s) => s.step);
    const bars = uPlot.paths.bars({size: [0.6, 40]});
    const data = [x, history.map((s) => SO.isNum(s.edit_budget) && s.edit_budget >= 0 ? s.edit_budget : null),
                  history.map((s) => val(s.n_edits_applied))];
    return make(box, {
      title: "Edit budget per step",
      scales: {x: {time: false, range: (u, lo, hi) => [lo - 0.5, hi + 0.5]}, y: {range: (u, lo, hi) => [0, Math.max(1, hi + 1)]}},
      axes: [stepAxis, {label: "edits", values: (u, t) => t.map((v) => Number.isInteger(v) ? v : "")}],
      series: [{label: "step"}, {label: "budget", stroke: C.budget, fill: C.budget + "55", paths: bars, points: {show: false}},
        {label: "applied", stroke: C.applied, width: 2, points: {show: true, size: 6}}],
    }, data);
  };

  /** Tokens and cost, cumulative over the steps (cost on its own axis). */
  SO.usageChart = function (box, history) {
    const x = history.map((s) => s.step);
    const tokens = SO.cumulative(history, (s) => (s.prompt_tokens || 0) + (s.completion_tokens || 0));
    const cost = SO.cumulative(history, (s) => s.cost_usd);
    return make(box, {
      title: "Tokens and cost (cumulative)",
      scales: {x: {time: false}, tok: {range: (u, lo, hi) => [0, Math.max(1, hi)]}, usd: {range: (u, lo, hi) => [0, Math.max(0.0001, hi)]}},
      axes: [stepAxis, {scale: "tok", label: "tokens", size: 60, values: (u, t) => t.map((v) => v >= 1000 ? (v / 1000) + "k" : v)},
        {scale: "usd", side: 1, size: 80, grid: {show: false}, values: (u, t) => t.map((v) => v === 0 ? "$0" : "$" + (+v.toPrecision(2)))}],
      series: [{label: "step"}, {label: "tokens", scale: "tok", stroke: C.tokens, width: 2, value: (u, v) => SO.int(v)},
        {label: "cost", scale: "usd", stroke: C.cost, width: 2, value: (u, v) => SO.money(v)}],
    }, [x, tokens, cost]);
  };

  /** Several runs' current val score per step, on one chart. */
  SO.compareChart = function (box, curves, field) {
    const ids = Object.keys(curves);
    const steps = [...new Set(ids.flatMap((id) => curves[id].map((s) => s.step)))].filter(SO.isNum).sort((a, b) => a - b);
    const byStep = ids.map((id) => new Map(curves[id].map((s) => [s.step, val(s[field])])));
    const data = [steps, ...byStep.map((m) => steps.map((st) => m.has(st) ? m.get(st) : null))];
    return make(box, {
      title: field === "best_score" ? "Best val score per step" : "Current val score per step",
      scales: {x: {time: false}, y: {range: [0, 1]}},
      axes: [stepAxis, {label: "score"}],
      series: [{label: "step"}, ...ids.map((id, i) => ({label: id, stroke: SO.palette[i % SO.palette.length], width: 2, spanGaps: true}))],
    }, data);
  };

  /** Test score per task type for the initial, best and final skills (HTML bars: each
      value is text a reader can select, and the chart needs no canvas). */
  SO.taskTypeBars = function (test) {
    const kinds = [["initial", "#9aa0a6"], ["best", "#0b57d0"], ["final", "#188038"]].filter(([k]) => test && test[k]);
    const types = [...new Set(kinds.flatMap(([k]) => Object.keys((test[k] && test[k].by_task_type) || {})))].sort();
    if (!kinds.length) return SO.el("p", {class: "muted"}, "No test evaluation yet (it runs when training ends).");
    const rows = [["all items", (k) => test[k].hard, (k) => test[k].n]].concat(
      types.map((t) => [t, (k) => ((test[k].by_task_type || {})[t] || {}).hard, (k) => ((test[k].by_task_type || {})[t] || {}).total]));
    return SO.el("div", {class: "bars"},
      SO.el("div", {class: "bars-legend"}, kinds.map(([k, color]) => SO.el("span", {}, SO.el("i", {style: `background:${color}`}), k))),
      rows.map(([name, score, n]) => SO.el("div", {class: "bar-group"},
        SO.el("div", {class: "bar-label", title: name}, name, SO.el("small", {}, ` n=${n(kinds[0][0]) ?? "–"}`)),
        SO.el("div", {class: "bar-stack"}, kinds.map(([k, color]) => {
          const v = score(k);
          return SO.el("div", {class: "bar-row", title: `${k}: ${SO.num(v)}`},
            SO.el("div", {class: "bar", style: `width:${SO.isNum(v) ? Math.max(0.5, v * 100) : 0}%;background:${color}`}),
            SO.el("span", {class: "bar-value"}, SO.num(v, 2)));
        })))));
  };
})(window.SO);
