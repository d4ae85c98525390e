// omensim desk: sorting and filtering tables, card edits, the Ask form, live progress.
"use strict";

function post(url, body) {
  return fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                     body: JSON.stringify(body || {})})
    .then(function (r) { return r.json().then(function (j) { j.httpStatus = r.status; return j; }); });
}

function sortable(table) {
  table.querySelectorAll("th").forEach(function (th, col) {
    th.addEventListener("click", function () {
      const asc = !th.classList.contains("asc");
      table.querySelectorAll("th").forEach(function (h) { h.classList.remove("asc", "desc"); });
      th.classList.add(asc ? "asc" : "desc");
      const rows = Array.from(table.tBodies[0].rows);
      const key = function (r) {
        const c = r.cells[col]; const box = c ? c.querySelector("input") : null;
        const v = box ? box.value : c ? (c.dataset.sort || c.textContent.trim()) : "";
        const n = parseFloat(v); return isNaN(n) ? v.toLowerCase() : n;
      };
      rows.sort(function (a, b) {
        const x = key(a), y = key(b);
        if (typeof x === typeof y) { return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1); }
        return (typeof x === "number" ? -1 : 1) * (asc ? 1 : -1);
      });
      rows.forEach(function (r) { table.tBodies[0].appendChild(r); });
    });
  });
}

function filterable(table, input) {
  input.addEventListener("input", function () {
    const q = input.value.toLowerCase();
    Array.from(table.tBodies[0].rows).forEach(function (r) {
      const text = r.textContent + " " + Array.from(r.querySelectorAll("input"))
        .map(function (i) { return i.value; }).join(" ");
      r.hidden = q !== "" && text.toLowerCase().indexOf(q) < 0;
    });
  });
}

function cardEdits() {
  const box = document.getElementById("edits");
  const status = document.getElementById("edit-status");
  document.querySelectorAll("input.edit").forEach(function (input) {
    input.dataset.was = input.value;
    input.addEventListener("keydown", function (e) { if (e.key === "Enter") { input.blur(); } });
    input.addEventListener("change", function () {
      const cell = input.parentElement;
      const old = cell.querySelector(".cell-error"); if (old) { old.remove(); }
      const name = document.getElementById("change-set").value.trim();
      const card = cell.parentElement.dataset.card;
      status.textContent = "checking " + card + "." + input.dataset.field + " ...";
      post("/api/edit", {mix: box.dataset.mix, change_set: name, card: card,
                         field: input.dataset.field, value: input.value}).then(function (j) {
        if (j.error) {
          input.classList.add("refused");
          const msg = document.createElement("span");
          msg.className = "cell-error"; msg.textContent = j.error;
          cell.appendChild(msg);
          status.textContent = "Refused: " + j.error;
          status.className = "status error";
          input.value = input.dataset.was;
          return;
        }
        input.classList.remove("refused");
        input.dataset.was = input.value;
        cell.classList.add("edited");
        status.className = "status";
        status.textContent = "Saved " + j.change + " in " + j.path + ".";
        const list = document.getElementById("edit-list");
        list.textContent = "";
        j.changes.forEach(function (t) {
          const c = document.createElement("code"); c.textContent = '--change "' + t + '"';
          list.appendChild(c); list.appendChild(document.createTextNode(" "));
        });
        if (!document.getElementById("ask-link")) {
          const a = document.createElement("a");
          a.id = "ask-link"; a.className = "button"; a.textContent = "Ask what it does";
          a.href = "/ask?set=" + encodeURIComponent(name);
          box.appendChild(a);
        }
      });
    });
  });
}

function formData(form) {
  const out = {};
  new FormData(form).forEach(function (v, k) { out[k] = v; });
  return out;
}

function askForm() {
  const form = document.getElementById("ask");
  const plan = document.getElementById("plan");
  const status = document.getElementById("ask-status");
  const show = function () {
    const kind = form.querySelector("input[name=kind]:checked").value;
    form.querySelectorAll("[data-kinds]").forEach(function (el) {
      el.hidden = el.dataset.kinds.split(" ").indexOf(kind) < 0;
    });
  };
  form.querySelectorAll("input[name=kind]").forEach(function (r) { r.addEventListener("change", show); });
  show();
  const busy = function (on) { form.querySelectorAll("button").forEach(function (b) { b.disabled = on; }); };
  // A question starts only once the time it will take is on the page for the values the
  // form holds: Ask estimates first when it is not, and a changed value hides the estimate.
  let planned = null;
  const values = function () { return JSON.stringify(formData(form)); };
  form.addEventListener("input", function () { planned = null; plan.hidden = true; });
  form.addEventListener("change", function () { planned = null; plan.hidden = true; });
  const estimate = function (then) {
    busy(true); status.className = "status"; status.textContent = "estimating (a short pilot) ...";
    const asked = values();
    post("/api/plan", formData(form)).then(function (j) {
      busy(false);
      if (j.error) { status.className = "status error"; status.textContent = j.error; return; }
      status.textContent = then || ""; plan.hidden = false; plan.textContent = j.text;
      planned = asked;
    });
  };
  document.getElementById("estimate").addEventListener("click", function () { estimate(); });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    if (planned !== values()) {
      estimate("That is the time it will take: press Ask again to start it.");
      return;
    }
    busy(true); status.textContent = "starting ...";
    post("/api/ask", formData(form)).then(function (j) {
      if (j.error) { busy(false); status.className = "status error"; status.textContent = j.error; return; }
      window.location = j.url;
    });
  });
}

function liveAnswer(section) {
  const name = section.dataset.name;
  const bar = document.getElementById("progress");
  const events = new EventSource("/answers/" + encodeURIComponent(name) + "/events");
  events.onmessage = function (e) {
    const d = JSON.parse(e.data);
    document.getElementById("state").textContent = d.status;
    if (d.total) { bar.value = Math.min(1, d.done / d.total); }
    document.getElementById("games").textContent = d.total
      ? d.done.toLocaleString("en") + " of " + d.total.toLocaleString("en") + " games written"
      : d.done ? d.done.toLocaleString("en") + " games written" : d.status;
    document.getElementById("estimate-now").textContent = d.estimate ? "so far: " + d.estimate : "";
    document.getElementById("bar").textContent = d.bar || "";
    if (["done", "failed", "cancelled", "interrupted"].indexOf(d.status) >= 0) {
      events.close(); window.location.reload();
    }
  };
  document.getElementById("cancel").addEventListener("click", function () {
    post("/api/cancel/" + encodeURIComponent(name));
  });
}

document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("table.sortable").forEach(sortable);
  const filter = document.getElementById("filter");
  document.querySelectorAll("table.filterable").forEach(function (t) { if (filter) { filterable(t, filter); } });
  if (document.getElementById("edits")) { cardEdits(); }
  if (document.getElementById("ask")) { askForm(); }
  const live = document.getElementById("live");
  if (live) { liveAnswer(live); }
});
