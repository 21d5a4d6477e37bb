/* Two runs or more side by side: overlaid curves, final scores, test by task type,
   and every config setting that differs (shared with the static report). */
"use strict";
(function (SO) {
  const el = SO.el;
  SO.compareView = {};

  /** The comparison's elements for data from /api/compare (or the report's bundle). */
  SO.compareBody = function (c, link) {
    const ids = c.runs.map((r) => r.id);
    const name = (id) => link ? el("a", {href: `#/run/${encodeURIComponent(id)}`}, id) : id;
    const current = el("div", {class: "wide"}), best = el("div", {class: "wide"});
    const types = [...new Set(ids.flatMap((id) => Object.keys(((c.test_by_type[id] || {}).best || {}).by_task_type || {})))].sort();
    const parts = [
      el("div", {class: "chart-grid"}, current, best),
      el("h3", {}, "Final scores"),
      el("div", {class: "table-wrap"}, el("table", {class: "finals"},
        el("tr", {}, ["run", "env", "status", "steps", "accepted", "val base", "val best", "test initial", "test best", "test final", "cost", "calls"].map((t) => el("th", {}, t))),
        c.runs.map((r, i) => el("tr", {}, el("td", {}, el("i", {class: "swatch", style: `background:${SO.palette[i % SO.palette.length]}`}), name(r.id)),
          el("td", {}, r.env), el("td", {}, el("span", {class: "badge " + String(r.status).split(":")[0]}, r.status)),
          el("td", {}, `${r.steps_done ?? "–"}${r.steps_planned ? "/" + r.steps_planned : ""}`), el("td", {}, r.accepts),
          el("td", {}, SO.num(r.baseline_val)), el("td", {}, SO.num(r.best_val)), el("td", {}, SO.num(r.test_initial)),
          el("td", {}, SO.num(r.test_best)), el("td", {}, SO.num(r.test_final)), el("td", {}, SO.money(r.cost_usd)), el("td", {}, r.calls ?? "–"))))),
      types.length ? el("h3", {}, "Test (best skill) by task type") : "",
      types.length ? el("div", {class: "table-wrap"}, el("table", {class: "finals"},
        el("tr", {}, el("th", {}, "task type"), ids.map((id) => el("th", {}, id))),
        types.map((t) => el("tr", {}, el("td", {}, t), ids.map((id) => el("td", {},
          SO.num(((((c.test_by_type[id] || {}).best || {}).by_task_type || {})[t] || {}).hard))))))) : "",
      el("h3", {}, `Config differences (${c.config_diff.length})`),
      c.config_diff.length ? el("details", {open: c.config_diff.length <= 30 || null}, el("summary", {}, `${c.config_diff.length} settings differ`),
        el("div", {class: "table-wrap"}, el("table", {class: "config-diff"},
          el("tr", {}, el("th", {}, "setting"), ids.map((id) => el("th", {}, id))),
          c.config_diff.map((row) => el("tr", {}, el("td", {}, row.key), ids.map((id) => el("td", {class: "wrap"}, SO.text(row.values[id])))))))) :
        el("p", {class: "muted"}, "The runs' configs are identical."),
    ];
    return {parts, draw: () => { SO.compareChart(current, c.curves, "current_score"); SO.compareChart(best, c.curves, "best_score"); }};
  };

  SO.compareView.open = async function (ids) {
    SO.runView.close();
    SO.listView.select(null);
    const view = document.getElementById("view");
    view.replaceChildren(el("p", {class: "muted"}, "loading…"));
    let c;
    try {
      c = await SO.api("/api/compare?runs=" + ids.map(encodeURIComponent).join(","));
    } catch (e) {
      view.replaceChildren(el("h2", {}, "Compare runs"), el("p", {class: "error"}, e.message));
      return;
    }
    const body = SO.compareBody(c, true);
    view.replaceChildren(el("div", {class: "compare-page"}, el("h2", {}, `Comparing ${ids.length} runs`), ...body.parts));
    body.draw();
  };
})(window.SO);
