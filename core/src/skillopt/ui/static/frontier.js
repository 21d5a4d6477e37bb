/* The kept skills of a run and their objectives (the pool, or the final pick's
   finalists): a table and a small scatter of accuracy against skill length, the front
   filled, the pick ringed. Shared by the dashboard and the static report. */
"use strict";
(function (SO) {
  const el = SO.el;
  const NS = "http://www.w3.org/2000/svg";

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  }

  /** Accuracy (up) against skill tokens (right): where the short, accurate skills are. */
  function scatter(members) {
    const w = 320, h = 180, pad = 34;
    const xs = members.map((m) => m.skill_tokens || 0), ys = members.map((m) => m.accuracy || 0);
    const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1), y0 = Math.min(...ys, 0), y1 = Math.max(...ys, y0 + 0.01);
    const px = (x) => pad + (x - x0) / (x1 - x0) * (w - 2 * pad), py = (y) => h - pad - (y - y0) / (y1 - y0) * (h - 2 * pad);
    const dots = members.map((m) => svg("circle", {cx: px(m.skill_tokens || 0), cy: py(m.accuracy || 0), r: m.chosen ? 6 : 4,
      class: "dot" + (m.on_front ? " front" : "") + (m.chosen ? " chosen" : "")}, svg("title", {}, `${m.origin}: ${SO.num(m.accuracy)}, ~${SO.int(m.skill_tokens)} tokens`)));
    return svg("svg", {class: "frontier-plot", viewBox: `0 0 ${w} ${h}`, width: w, height: h, role: "img",
                       "aria-label": "accuracy against skill tokens"},
      svg("line", {x1: pad, y1: h - pad, x2: w - pad, y2: h - pad, class: "axis"}),
      svg("line", {x1: pad, y1: pad, x2: pad, y2: h - pad, class: "axis"}),
      svg("text", {x: w / 2, y: h - 6, "text-anchor": "middle"}, "skill tokens"),
      svg("text", {x: 10, y: h / 2, transform: `rotate(-90 10 ${h / 2})`, "text-anchor": "middle"}, "accuracy"),
      svg("text", {x: pad, y: h - pad + 14, "text-anchor": "middle"}, SO.int(x0)),
      svg("text", {x: w - pad, y: h - pad + 14, "text-anchor": "middle"}, SO.int(x1)),
      svg("text", {x: pad - 4, y: py(y1) + 4, "text-anchor": "end"}, SO.num(y1, 2)),
      ...dots);
  }

  /** The frontier section, or null when the run kept one skill only. */
  SO.frontierView = function (f) {
    if (!f || !(f.members || []).length) return null;
    const where = f.split === "selection" ? `the selection split (${f.n_items} items no gate decision used)` : "val (the gate's items)";
    const head = f.source === "pick"
      ? `Final pick by '${f.rule}' on ${where}: ${f.reason}`
      : `The pool as it stands (${f.members.length} kept; objectives on val)`;
    const rows = f.members.map((m) => el("tr", {class: m.chosen ? "chosen" : ""},
      el("td", {}, m.origin), el("td", {}, m.step), el("td", {}, SO.num(m.val_score)), el("td", {}, SO.num(m.accuracy)),
      el("td", {}, SO.int(m.skill_tokens)), el("td", {}, SO.num(m.rollout_tokens, 1)),
      el("td", {}, m.on_front ? "yes" : "–"), el("td", {}, m.chosen ? "picked" : "")));
    const accuracy = f.split === "selection" ? "accuracy (selection)" : "accuracy (val)";
    return el("div", {class: "frontier", id: "run-frontier"}, el("p", {class: "muted"}, head),
      el("div", {class: "frontier-body"},
        el("div", {class: "table-wrap"}, el("table", {class: "steps"},
          el("tr", {}, ["skill", "step", "val (gate)", accuracy, "skill tokens", "target tokens / rollout", "on front", ""].map((t) => el("th", {}, t))),
          rows)),
        scatter(f.members)));
  };
})(window.SO);
