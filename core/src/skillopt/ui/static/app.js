/* The dashboard: routes (#/run/NAME, #/run/NAME/step/3[/train|val], #/compare/A,B),
   keyboard navigation, and the periodic run-list refresh. */
"use strict";
(function (SO) {
  const el = SO.el;

  /** The view a location hash names. */
  function parse(hash) {
    const parts = hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
    if (parts[0] === "run" && parts[1]) {
      const step = parts[2] === "step" ? Number(parts[3]) : null;
      return {view: "run", id: parts[1], step: Number.isInteger(step) && step > 0 ? step : null, split: parts[4] || null};
    }
    if (parts[0] === "compare" && parts[1]) return {view: "compare", ids: parts[1].split(",").filter(Boolean)};
    return {view: "home"};
  }

  async function route() {
    const r = parse(location.hash);
    if (r.view === "run") {
      const shown = await SO.runView.open(r.id);
      if (!shown) return;
      if (r.step) await SO.stepView.open(r.id, r.step, r.split);
      else SO.stepView.close();
    } else if (r.view === "compare") {
      await SO.compareView.open(r.ids);
    } else {
      SO.runView.close();
      SO.listView.select(null);
      document.getElementById("view").replaceChildren(el("h2", {}, "Select a run"),
        el("p", {class: "muted"}, "Open a run from the list (arrow keys and Enter work too), or tick two or more and press Compare."),
        el("p", {class: "muted"}, "Keys: / filter runs · ↑ ↓ move · Enter open · Space tick for comparison · Esc close the step."));
    }
  }

  /** Arrow keys move between rows of the run list and of any table marked "nav";
      Enter opens, Space ticks a run for comparison, "/" filters, Escape closes. */
  function keys(ev) {
    const target = ev.target;
    const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
    if (ev.key === "/" && !typing) {
      ev.preventDefault();
      document.getElementById("filter-text").focus();
      return;
    }
    if (ev.key === "Escape") {
      const r = parse(location.hash);
      if (r.view === "run" && r.step) location.hash = "#/run/" + encodeURIComponent(r.id);
      return;
    }
    const row = target.closest && target.closest("tr[tabindex]");
    if (!row || typing) return;
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      const rows = [...row.parentNode.querySelectorAll("tr[tabindex]")];
      const next = rows[rows.indexOf(row) + (ev.key === "ArrowDown" ? 1 : -1)];
      if (next) next.focus();
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      row.click();
    } else if (ev.key === " " && row.dataset.id) {
      ev.preventDefault();
      const box = row.querySelector("input[type=checkbox]");
      if (box) { box.checked = !box.checked; box.dispatchEvent(new Event("change")); }
    }
  }

  function start() {
    document.getElementById("where").textContent = location.host;
    SO.listView.init();
    document.addEventListener("keydown", keys);
    window.addEventListener("hashchange", () => { route().catch((e) => SO.notice(e.message, "error")); });
    SO.listView.refresh()
      .catch((e) => document.getElementById("runs").replaceChildren(el("tr", {}, el("td", {colspan: "7", class: "error"}, e.message))))
      .then(route)
      .catch((e) => SO.notice(e.message, "error"));
    SO.launchForm.init().catch((e) => SO.notice(e.message, "error"));
    setInterval(() => { SO.listView.refresh().catch((e) => SO.notice(e.message, "error")); }, 5000);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})(window.SO);
