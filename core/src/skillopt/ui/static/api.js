/* The dashboard's connection to its server: the session token, JSON calls, and a
   notice line for errors (every action reports its failure on the page). */
"use strict";
(function (SO) {
  const params = new URLSearchParams(location.search);
  const token = params.get("token") || sessionStorage.getItem("skillopt-token") || "";
  if (token) sessionStorage.setItem("skillopt-token", token);
  if (params.has("token")) history.replaceState(null, "", location.pathname + location.hash);  // keep the token out of the address bar
  SO.token = token;

  /** GET (or a given method) on the API; a non-2xx answer throws its error text. */
  SO.api = async function (path, options) {
    const opts = options || {};
    const headers = Object.assign({"Authorization": "Bearer " + token}, opts.headers || {});
    const response = await fetch(path, Object.assign({}, opts, {headers}));
    let data;
    try { data = await response.json(); } catch (e) { data = {error: response.statusText}; }
    if (!response.ok) {
      const err = new Error((data && data.error) || response.statusText);
      err.data = data;
      err.status = response.status;
      throw err;
    }
    return data;
  };
  SO.post = (path, body) => SO.api(path, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body || {})});
  SO.runPath = (id) => "/api/runs/" + encodeURIComponent(id);

  /** A message in the notice bar (errors stay until dismissed, others fade). */
  SO.notice = function (message, kind) {
    const bar = document.getElementById("notice");
    if (!bar) return;
    bar.className = kind === "error" ? "error" : "info";
    bar.replaceChildren(SO.el("span", {}, message), SO.el("button", {type: "button", class: "link", "aria-label": "dismiss",
      onclick: () => { bar.replaceChildren(); bar.className = ""; }}, "×"));
    if (kind !== "error") setTimeout(() => { if (bar.firstChild && bar.firstChild.textContent === message) { bar.replaceChildren(); bar.className = ""; } }, 4000);
  };
  /** Wrap an async handler so that its failure is shown, never left uncaught. */
  SO.guard = (fn) => (...args) => Promise.resolve().then(() => fn(...args)).catch((e) => SO.notice(e.message, "error"));
})(window.SO);
