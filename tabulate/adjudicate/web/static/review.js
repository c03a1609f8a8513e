// Keyboard shortcuts for the review pages. Everything works without this file.
(function () {
  "use strict";
  function typing(el) {
    return el && (el.tagName === "TEXTAREA" || el.tagName === "SELECT" ||
      (el.tagName === "INPUT" && !["radio", "checkbox", "submit", "button"].includes(el.type)));
  }
  function rows() { return Array.from(document.querySelectorAll("tr[data-row]")).filter(r => r.offsetParent !== null); }
  function currentRow() {
    const a = document.activeElement;
    return a ? a.closest("tr[data-row]") : null;
  }
  function move(step) {
    const list = rows();
    if (!list.length) return;
    const i = list.indexOf(currentRow());
    const next = list[Math.max(0, Math.min(list.length - 1, i < 0 ? 0 : i + step))];
    next.focus();
    next.scrollIntoView({ block: "nearest" });
  }
  function choose(value) {
    const row = currentRow();
    if (!row) return;
    const input = row.querySelector('input[type=radio][value="' + value + '"]');
    if (input) { input.checked = true; row.classList.remove("undecided"); move(1); }
  }
  document.addEventListener("change", function (e) {
    const row = e.target.closest && e.target.closest("tr[data-row]");
    if (row && e.target.type === "radio") row.classList.remove("undecided");
  });
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (e.key === "Escape") {
      const back = document.querySelector("[data-back]");
      if (back) { e.preventDefault(); back.click(); return; }
      if (typing(t)) { t.blur(); return; }
    }
    if (e.key === "Enter" && t && t.tagName === "SELECT") {
      const confirm = document.getElementById("confirm");
      if (confirm) { e.preventDefault(); confirm.click(); }
      return;
    }
    if (typing(t)) return;
    const form = document.getElementById("entry-form");
    switch (e.key) {
      case "j": case "ArrowDown": if (form) { e.preventDefault(); move(1); } break;
      case "k": case "ArrowUp": if (form) { e.preventDefault(); move(-1); } break;
      case "v": case "1": if (form) { e.preventDefault(); choose("1"); } break;
      case "n": case "0": if (form) { e.preventDefault(); choose("0"); } break;
      case "w": {
        const w = document.querySelector("input[data-write-in]");
        if (w) { e.preventDefault(); w.focus(); }
        break;
      }
      case "s": {
        const s = document.getElementById("start");
        if (s) { e.preventDefault(); s.click(); }
        break;
      }
      case "Enter": {
        if (t && (t.tagName === "BUTTON" || t.tagName === "A")) return;  // the focused control acts
        const go = document.getElementById("continue") || document.getElementById("confirm") || document.getElementById("next");
        if (go) { e.preventDefault(); go.click(); }
        break;
      }
    }
  });
  // Start on the first option a person must look at.
  document.addEventListener("DOMContentLoaded", function () {
    const first = document.querySelector("tr[data-row].undecided, tr[data-row].flagged");
    if (first && document.getElementById("entry-form") && !document.querySelector(".problems")) first.focus({ preventScroll: true });
  });
})();
