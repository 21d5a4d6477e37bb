/* The launch form: "Check & estimate" and "Start" run the same checks on the server;
   a refused start shows them, a start that died shows the end of its log. */
"use strict";
(function (SO) {
  const el = SO.el;

  function spec() {
    const form = new FormData(document.getElementById("launch"));
    return {env: form.get("env"), backend: form.get("backend"), preset: form.get("preset"),
            set: String(form.get("set") || "").split("\n").map((s) => s.trim()).filter(Boolean)};
  }

  function checksTable(checks) {
    return el("table", {class: "checks"}, checks.map((c) => el("tr", {},
      el("td", {}, c.name), el("td", {class: c.ok ? "ok" : "bad"}, c.ok ? "ok" : "FAIL"), el("td", {class: "wrap"}, c.detail))));
  }

  async function estimate() {
    const box = document.getElementById("estimate-result");
    box.replaceChildren(el("p", {class: "muted"}, "checking…"));
    try {
      box.replaceChildren(checksTable(await SO.post("/api/check", spec())));
    } catch (e) {
      box.replaceChildren(el("div", {class: "error"}, e.message));
    }
  }

  async function start(ev) {
    ev.preventDefault();
    const out = document.getElementById("launch-result"), box = document.getElementById("estimate-result");
    const button = document.getElementById("start-run");
    button.disabled = true;
    out.className = "muted";
    out.textContent = "checking and starting…";
    try {
      const r = await SO.post("/api/launch", spec());
      out.className = "ok";
      out.textContent = `started ${r.id}` + (r.state === "starting" ? " (still starting)" : "");
      box.replaceChildren();
      await SO.listView.refresh();
      location.hash = "#/run/" + encodeURIComponent(r.id);
    } catch (e) {
      out.className = "error";
      out.textContent = e.message;
      const d = e.data || {};
      box.replaceChildren(...(d.checks && d.checks.length ? [checksTable(d.checks)] : []),
        ...(d.log ? [el("pre", {class: "log error-log"}, d.log)] : []));
      SO.listView.refresh().catch(() => {});
    } finally {
      button.disabled = false;
    }
  }

  SO.launchForm = {
    init: async function () {
      document.getElementById("estimate").addEventListener("click", SO.guard(estimate));
      document.getElementById("launch").addEventListener("submit", (ev) => { start(ev).catch((e) => SO.notice(e.message, "error")); });
      const c = await SO.api("/api/choices");
      document.getElementById("env").replaceChildren(...c.envs.map((e) => el("option", {value: e}, e)));
      document.getElementById("backend").append(...c.backends.map((b) => el("option", {value: b}, b)));
    },
  };
})(window.SO);
