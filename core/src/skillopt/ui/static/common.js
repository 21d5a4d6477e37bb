/* Shared by the dashboard and the static report: the SO namespace, DOM and number
   helpers. Classic script (no modules) so the report can inline it. */
"use strict";
window.SO = window.SO || {};

(function (SO) {
  /** Build an element: el("td", {class: "x", title: "y"}, child, "text", ...). */
  SO.el = function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  };

  const isNum = (x) => typeof x === "number" && Number.isFinite(x);
  SO.isNum = isNum;
  SO.num = (x, d = 3) => isNum(x) ? x.toFixed(d) : "–";
  SO.money = (x) => isNum(x) ? "$" + x.toFixed(x >= 1 ? 2 : 4) : "–";
  SO.int = (x) => isNum(x) ? Math.round(x).toLocaleString("en-US") : "–";
  SO.when = (seconds) => {
    if (!isNum(seconds) || seconds <= 0) return "–";
    const d = new Date(seconds * 1000), pad = (n) => String(n).padStart(2, "0");
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  };
  SO.text = (x) => (x === null || x === undefined) ? "" : (typeof x === "object" ? JSON.stringify(x) : String(x));

  /** A step action's class: accept / reject / skip / other (for colours and markers). */
  SO.actionKind = function (action) {
    const a = String(action || "");
    if (a.startsWith("accept") || a === "force_accept" || a === "updated") return "accept";
    if (a === "reject") return "reject";
    if (a.startsWith("skip") || a === "no_change" || a === "no_content") return "skip";
    return "other";
  };

  /** Edits as the CLI's step line counts them: applied of those select kept. */
  SO.edits = (s) => `${isNum(s.n_edits_applied) ? s.n_edits_applied : 0}/${isNum(s.n_edits_selected) ? s.n_edits_selected : 0}`;

  /** A step's (or run's) calls the call cache answered, as a visible "cached" marker with
      what they saved in its title: a step served from the cache shows 0 tokens and $0,
      and this says why. "" when the cache answered nothing. */
  SO.cachedMark = function (s) {
    if (!isNum(s.cached_calls) || s.cached_calls <= 0) return "";
    const saved = isNum(s.cached_cost_usd) && s.cached_cost_usd > 0 ? ` and ${SO.money(s.cached_cost_usd)}` : "";
    return SO.el("small", {class: "cached", title: `${s.cached_calls} call(s) answered from the call cache: ` +
      `${SO.int(s.cached_tokens || 0)} tokens${saved} saved, nothing sent`}, `${s.cached_calls} cached`);
  };

  /** Running totals of a history field (tokens, cost). */
  SO.cumulative = function (history, pick) {
    let total = 0;
    return history.map((s) => { const v = pick(s); total += isNum(v) ? v : 0; return total; });
  };

  /** Collapsible pretty JSON. */
  SO.jsonBlock = (title, value, open) => SO.el("details", {open: open || null},
    SO.el("summary", {}, title), SO.el("pre", {class: "json"}, JSON.stringify(value, null, 2)));
})(window.SO);
