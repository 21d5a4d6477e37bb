/* A unified diff as coloured lines (dashboard and report). */
"use strict";
(function (SO) {
  SO.diffView = function (text) {
    const lines = String(text || "(identical)").split("\n");
    return SO.el("pre", {class: "diff"}, lines.map((line) => SO.el("div", {
      class: line.startsWith("@@") ? "hunk" : (line.startsWith("+++") || line.startsWith("---")) ? "file"
        : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "",
    }, line || " ")));
  };
})(window.SO);
