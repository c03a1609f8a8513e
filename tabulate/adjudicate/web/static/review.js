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
  // After a choice, go to the next option still undecided (after this one, then from the top);
  // when none is left, to the Continue button, so a ballot takes one key per decision.
  function nextUndecided(from) {
    const list = rows();
    const i = list.indexOf(from);
    const later = list.slice(i + 1).concat(list.slice(0, Math.max(0, i)));
    return later.find(r => r.classList.contains("undecided")) || null;
  }
  function choose(value) {
    const row = currentRow();
    if (!row) return;
    const input = row.querySelector('input[type=radio][value="' + value + '"]');
    if (!input) return;
    input.checked = true;
    row.classList.remove("undecided");
    const next = nextUndecided(row);
    const go = document.getElementById("continue");
    if (next) { next.focus(); next.scrollIntoView({ block: "nearest" }); }
    else if (go) go.focus();
  }
  // W: the write-in name field of this option, else the flagged one (ink on its line), else the first.
  function writeInField() {
    const row = currentRow();
    const own = row && row.nextElementSibling && row.nextElementSibling.querySelector("input[data-write-in]");
    return own || document.querySelector("input[data-write-in][data-flagged]") ||
      document.querySelector("input[data-write-in]");
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
        const w = writeInField();
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
  // Pages that wait for someone else (an invitation, a partner's entry) look again every few seconds.
  function poll() {
    const el = document.querySelector("[data-poll]");
    if (!el) return;
    const seconds = Math.max(2, parseInt(el.getAttribute("data-poll"), 10) || 5);
    setTimeout(function () {
      if (!typing(document.activeElement)) window.location.reload();
      else poll();
    }, seconds * 1000);
  }
  // Times the server wrote in UTC (<time datetime>) shown in this computer's time, to the second.
  function localTimes() {
    document.querySelectorAll("time[datetime]").forEach(function (t) {
      const d = new Date(t.getAttribute("datetime"));
      if (isNaN(d)) return;
      const p = n => String(n).padStart(2, "0");
      t.textContent = d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + " " +
        p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds());
      t.title = d.toString();
    });
  }
  // Start on the first option a person must look at.
  document.addEventListener("DOMContentLoaded", function () {
    poll();
    localTimes();
    const first = document.querySelector("tr[data-row].undecided, tr[data-row].flagged");
    if (first && document.getElementById("entry-form") && !document.querySelector(".problems")) first.focus({ preventScroll: true });
  });
})();
