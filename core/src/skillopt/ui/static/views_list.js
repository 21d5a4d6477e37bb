/* The run list: filter (text, env, status), sort (any column), pick runs to compare,
   open with the keyboard (arrows move, Enter opens, Space ticks). Re-rendered every few
   seconds without losing focus, ticks or the open run. */
"use strict";
(function (SO) {
  const el = SO.el;
  const L = SO.listView = {rows: [], sort: {key: "updated", dir: -1}, checked: new Set(), selected: null};
  const COLUMNS = [["id", "run"], ["status", "status"], ["steps_done", "steps"], ["best_val", "val"],
                   ["test_best", "test"], ["cost_usd", "cost"]];

  L.refresh = async function () {
    L.rows = await SO.api("/api/runs");
    L.loaded = true;
    L.render();
  };

  function matches(r) {
    const text = document.getElementById("filter-text").value.trim().toLowerCase();
    const env = document.getElementById("filter-env").value, status = document.getElementById("filter-status").value;
    return (!text || r.id.toLowerCase().includes(text) || String(r.env).toLowerCase().includes(text))
      && (!env || r.env === env) && (!status || String(r.status).startsWith(status));
  }

  function compare(a, b) {
    const k = L.sort.key, x = a[k], y = b[k];
    const missing = (v) => v === null || v === undefined || v === "";
    if (missing(x) || missing(y)) return missing(x) - missing(y);  // empty last, either way
    return (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y))) * L.sort.dir;
  }

  function options(select, values, label) {
    const keep = select.value;
    select.replaceChildren(el("option", {value: ""}, label), ...values.map((v) => el("option", {value: v}, v)));
    select.value = values.includes(keep) ? keep : "";
  }

  L.render = function () {
    options(document.getElementById("filter-env"), [...new Set(L.rows.map((r) => r.env).filter(Boolean))].sort(), "all envs");
    options(document.getElementById("filter-status"), [...new Set(L.rows.map((r) => String(r.status).split(":")[0]))].sort(), "any status");
    const focused = document.activeElement && document.activeElement.closest ? document.activeElement.closest("tr[data-id]") : null;
    const focusId = focused ? focused.dataset.id : null;
    const shown = L.rows.filter(matches).sort(compare);
    const key = JSON.stringify([shown, L.sort, [...L.checked], L.selected]);
    if (key === L.drawn) return;  // nothing changed: keep the rows (focus, hover) as they are
    L.drawn = key;
    const head = document.getElementById("runs-head");
    head.replaceChildren(el("th", {class: "pick"}, ""), ...COLUMNS.map(([key, label]) => el("th", {"aria-sort": L.sort.key === key ? (L.sort.dir > 0 ? "ascending" : "descending") : null},
      el("button", {type: "button", class: "sort", "data-key": key, onclick: () => { L.sort = {key, dir: L.sort.key === key ? -L.sort.dir : (key === "id" || key === "status" ? 1 : -1)}; L.render(); }},
        label, L.sort.key === key ? (L.sort.dir > 0 ? " ▲" : " ▼") : ""))));
    const body = document.getElementById("runs");
    body.replaceChildren(...shown.map(row));
    document.getElementById("runs-count").textContent = `${shown.length} of ${L.rows.length}`;
    const pick = document.getElementById("compare-btn");
    pick.disabled = L.checked.size < 2;
    pick.textContent = `Compare (${L.checked.size})`;
    if (focusId) { const again = body.querySelector(`tr[data-id="${CSS.escape(focusId)}"]`); if (again) again.focus({preventScroll: true}); }
  };

  function row(r) {
    const box = el("input", {type: "checkbox", "aria-label": "compare " + r.id, checked: L.checked.has(r.id) || null,
      onclick: (ev) => ev.stopPropagation(),
      onchange: (ev) => { ev.target.checked ? L.checked.add(r.id) : L.checked.delete(r.id); L.render(); }});
    const steps = `${r.steps_done ?? "–"}${r.steps_planned ? "/" + r.steps_planned : ""}`;
    const tr = el("tr", {class: "run" + (r.id === L.selected ? " selected" : ""), tabindex: "0", "data-id": r.id,
        title: r.error ? r.error.split("\n").slice(-3).join("\n") : `${r.path}\nval ${SO.num(r.baseline_val)} → ${SO.num(r.best_val)}; test ${SO.num(r.test_initial)} → ${SO.num(r.test_best)}`},
      el("td", {class: "pick"}, box),
      el("td", {class: "name"}, el("span", {}, r.id), el("small", {}, [r.env, r.preset, SO.when(r.started)].filter((x) => x && x !== "–").join(" · "))),
      el("td", {}, el("span", {class: "badge " + String(r.status).split(":")[0]}, r.status),
        (r.warnings || []).length ? el("span", {class: "damaged", title: r.warnings.join("\n")}, " ⚠") : ""),
      el("td", {class: "n"}, steps), el("td", {class: "n"}, SO.num(r.best_val, 2)), el("td", {class: "n"}, SO.num(r.test_best, 2)),
      el("td", {class: "n"}, SO.money(r.cost_usd)));
    tr.addEventListener("click", () => { location.hash = "#/run/" + encodeURIComponent(r.id); });
    return tr;
  }

  L.select = function (id) {
    L.selected = id;
    for (const tr of document.querySelectorAll("#runs tr")) tr.classList.toggle("selected", tr.dataset.id === id);
  };

  L.init = function () {
    for (const id of ["filter-text", "filter-env", "filter-status"]) document.getElementById(id).addEventListener("input", () => L.render());
    document.getElementById("compare-btn").addEventListener("click", () => {
      location.hash = "#/compare/" + [...L.checked].map(encodeURIComponent).join(",");
    });
  };
})(window.SO);
