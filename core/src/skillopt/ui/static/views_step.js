/* A step: its decision, its edits (applied or not), each stage's saved result, and the
   trajectory viewer (every item of train or val with score and feedback, failures
   first, the items the candidate fixed or broke, the full conversation on click). */
"use strict";
(function (SO) {
  const el = SO.el;
  const S = SO.stepView = {current: null};

  S.close = function () {
    S.current = null;
    const box = document.getElementById("step");
    if (box) box.replaceChildren();
    for (const tr of document.querySelectorAll("#run-steps tr.selected")) tr.classList.remove("selected");
  };

  /** Open step ``step`` of the shown run, on ``split`` (train / val). */
  S.open = async function (id, step, split) {
    const box = document.getElementById("step");
    if (!box) return;
    const same = S.current && S.current.id === id && S.current.step === step;
    S.current = {id, step, split: split || "val"};
    for (const tr of document.querySelectorAll("#run-steps tr.step-row")) tr.classList.toggle("selected", Number(tr.dataset.step) === step);
    if (!same) {
      const known = (SO.runView.data || {}).steps || [];
      if (!known.includes(step)) {  // no folder for it: say so, ask nothing
        S.step = null;
        box.replaceChildren(el("h3", {}, `Step ${step}`), el("p", {class: "error", id: "step-error"}, `no step ${step} in ${id}`));
        box.scrollIntoView({block: "nearest"});
        return;
      }
      box.replaceChildren(el("p", {class: "muted"}, `loading step ${step}…`));
      let s;
      try {
        s = await SO.api(`${SO.runPath(id)}/steps/${step}`);
      } catch (e) {
        box.replaceChildren(el("h3", {}, `Step ${step}`), el("p", {class: "error", id: "step-error"}, e.message));
        box.scrollIntoView({block: "nearest"});
        return;
      }
      if (!S.current || S.current.step !== step) return;
      S.step = s;
      box.replaceChildren(...render(id, step, s));
      box.scrollIntoView({block: "start"});
    }
    await trajectories(id, step, S.current.split);
  };

  function render(id, step, s) {
    const record = s.files.step_record || {};
    const verdict = record.verdict || (s.files.gate || {}).verdict || {};
    const edits = ((s.files.apply || {}).results || []);
    const close = el("a", {href: `#/run/${encodeURIComponent(id)}`, class: "close", title: "close (Esc)"}, "×");
    return [
      el("div", {class: "step-head"}, el("h3", {}, `Step ${step}`), el("span", {class: "act " + SO.actionKind(record.action)}, record.action || ""), close),
      verdict.reason ? el("p", {id: "gate-reason"}, `Gate: ${verdict.action} — ${verdict.reason}`
        + (SO.isNum(verdict.confidence) && !/confidence/.test(verdict.reason) ? ` (confidence ${SO.num(verdict.confidence)})` : "")) : "",
      edits.length ? el("div", {class: "table-wrap"}, el("table", {class: "edits"},
        el("tr", {}, ["edit", "status", "support", "from", "content"].map((t) => el("th", {}, t))),
        edits.map((r) => el("tr", {}, el("td", {}, (r.edit || {}).op), el("td", {class: r.status === "applied" ? "ok" : "bad"}, r.status),
          el("td", {}, (r.edit || {}).support_count ?? ""), el("td", {}, (r.edit || {}).source_type || ""),
          el("td", {class: "wrap"}, String((r.edit || {}).content || "").slice(0, 400)))))) : el("p", {class: "muted"}, "No edits were applied in this step."),
      raceTable(s.files.race),
      attribution(s.files.attribution),
      el("div", {class: "tabs", role: "tablist"}, ["val", "train"].map((split) =>
        el("button", {type: "button", role: "tab", "data-split": split, onclick: () => { location.hash = `#/run/${encodeURIComponent(id)}/step/${step}/${split}`; }},
          split === "val" ? "val (gate)" : "train (rollout)"))),
      el("div", {id: "trajectory"}),
      el("div", {id: "conversation"}),
      el("h4", {}, "Stage results"),
      ...Object.entries(s.files).map(([name, value]) => SO.jsonBlock(name, value)),
      s.candidate_skill ? el("details", {}, el("summary", {}, "candidate skill"), el("pre", {class: "skill"}, s.candidate_skill)) : "",
    ];
  }

  /** Several proposals: how each candidate did in the race on val (the winner went to the gate). */
  function raceTable(r) {
    const rows = (r || {}).entrants || [];
    if (rows.length < 2) return "";
    return el("div", {class: "table-wrap", id: "race"},
      el("h4", {}, `Race of ${rows.length} proposals: p${rows[r.winner].proposal} went to the gate`),
      el("table", {class: "edits"},
        el("tr", {}, ["proposal", "val", "items", "vs current", "round", "edits", "outcome"].map((t) => el("th", {}, t))),
        rows.map((e, i) => el("tr", {class: i === r.winner ? "selected" : ""},
          el("td", {}, `p${e.proposal}`), el("td", {}, e.round ? SO.num(e.score) : "–"), el("td", {}, e.items || 0),
          el("td", {}, e.round ? (e.effect >= 0 ? "+" : "") + SO.num(e.effect) : "–"), el("td", {}, e.round || "–"),
          el("td", {class: "wrap"}, (e.edits || []).map((x) => String(x.content || "").slice(0, 80)).join(" | ")),
          el("td", {class: "wrap"}, i === r.winner ? "won" : e.out)))));
  }

  /** Which applied edit fixed or broke which val item (accepted steps' attribution.json). */
  function attribution(a) {
    if (!a || !(a.edits || []).length) return "";
    return el("div", {class: "table-wrap", id: "attribution"},
      el("h4", {}, `Attribution: fixed ${(a.fixed || []).length}, broke ${(a.broke || []).length} val items (${a.rollouts} rollouts)`),
      el("table", {class: "edits"},
        el("tr", {}, ["edit", "effect", "fixed", "broke", "content"].map((t) => el("th", {}, t))),
        a.edits.map((e) => el("tr", {},
          el("td", {}, `#${e.index + 1} ${e.op}`),
          el("td", {class: SO.isNum(e.effect) ? (e.effect > 0 ? "ok" : e.effect < 0 ? "bad" : "") : "muted"},
            SO.isNum(e.effect) ? (e.effect > 0 ? "+" : "") + SO.num(e.effect) : "not measured"),
          el("td", {class: "wrap"}, (e.helped || []).join(", ") || "–"),
          el("td", {class: "wrap"}, (e.hurt || []).join(", ") || "–"),
          el("td", {class: "wrap"}, String(e.content || e.target || "").slice(0, 300))))));
  }

  async function trajectories(id, step, split) {
    for (const b of document.querySelectorAll("#step .tabs button")) b.setAttribute("aria-selected", String(b.dataset.split === split));
    const box = document.getElementById("trajectory");
    if (!box) return;
    document.getElementById("conversation").replaceChildren();
    const files = (S.step && S.step.files) || {};
    if (split === "val" && !files.gate) {
      box.replaceChildren(el("p", {class: "muted"}, "No val rollouts: the step did not reach the gate."));
      return;
    }
    if (split === "train" && !(S.step && S.step.rollouts && S.step.rollouts.length)) {
      box.replaceChildren(el("p", {class: "muted"}, "No train rollouts saved for this step."));
      return;
    }
    let t;
    try {
      t = await SO.api(`${SO.runPath(id)}/steps/${step}/rollouts?split=${split}`);
    } catch (e) {
      box.replaceChildren(el("p", {class: "muted"}, split === "val" ? "No val rollouts: the step did not reach the gate." : e.message));
      return;
    }
    const flips = t.compared ? el("p", {class: "flips"}, el("span", {class: "flip fixed"}, `fixed ${t.flips.fixed}`), " ",
      el("span", {class: "flip broke"}, `broke ${t.flips.broke}`), " against the skill it was compared with") : "";
    box.replaceChildren(flips, el("div", {class: "table-wrap"}, el("table", {class: "items nav"},
      el("thead", {}, el("tr", {}, ["item", "type", "score", t.compared ? "before" : null, t.compared ? "flip" : null, "feedback"].filter(Boolean).map((h) => el("th", {}, h)))),
      el("tbody", {}, t.items.map((it) => {
        const tr = el("tr", {class: "item-row" + (SO.isNum(it.hard) && it.hard < 0.5 ? " failed" : ""), tabindex: "0", "data-item": it.id},
          el("td", {}, it.id), el("td", {}, it.task_type), el("td", {}, it.status === "ok" ? SO.num(it.hard, 2) : it.status),
          t.compared ? el("td", {}, SO.num(it.before, 2)) : null,
          t.compared ? el("td", {}, it.flip ? el("span", {class: "flip " + it.flip}, it.flip) : "") : null,
          el("td", {class: "wrap"}, it.error || it.feedback));
        tr.addEventListener("click", SO.guard(() => conversation(id, step, split, it.id, t.compared)));
        return tr;
      })))));
  }

  async function conversation(id, step, split, item, compared) {
    for (const tr of document.querySelectorAll("#trajectory tr.item-row")) tr.classList.toggle("selected", tr.dataset.item === item);
    const box = document.getElementById("conversation");
    const base = `${SO.runPath(id)}/steps/${step}/rollouts/${encodeURIComponent(item)}?split=${split}`;
    const sides = [["candidate", split === "val" ? "candidate skill" : "current skill"]].concat(compared ? [["before", "skill it was compared with"]] : []);
    const found = await Promise.all(sides.map(([side]) => SO.api(`${base}&side=${side}`).catch(() => null)));
    box.replaceChildren(el("div", {class: "step-head"}, el("h4", {}, `Conversation: ${item}`),
      el("button", {type: "button", class: "link close", onclick: () => box.replaceChildren()}, "×")),
      el("div", {class: compared ? "side-by-side" : ""}, sides.map(([side, label], i) => el("div", {class: "turns"},
        el("h5", {}, label), found[i] ? found[i].repeats.map((r, n) => el("div", {class: "repeat"},
          found[i].repeats.length > 1 ? el("div", {class: "muted"}, `repeat ${n + 1}`) : "",
          (r.turns || []).map((turn) => el("div", {class: "turn " + (turn.role || "")},
            el("div", {class: "who"}, [turn.role, turn.kind !== "message" ? turn.kind : "", turn.name].filter(Boolean).join(" · ")),
            el("pre", {}, SO.text(turn.content)))),
          el("div", {class: "score"}, `score ${SO.num((r.score || {}).hard, 2)} — ${(r.score || {}).feedback || r.error || ""}`)))
          : el("p", {class: "muted"}, "not available")))));
    box.scrollIntoView({block: "nearest"});
  }
})(window.SO);
