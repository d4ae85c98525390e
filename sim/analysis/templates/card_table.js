// Sorting and filtering of the card table: no library, no network.
(function () {
  var table = document.getElementById("cards");
  if (!table) { return; }
  var body = table.tBodies[0];
  var heads = table.tHead.rows[0].cells;
  function key(row, i) {
    var v = row.cells[i].getAttribute("data-v");
    var n = parseFloat(v);
    return isNaN(n) ? v : n;
  }
  Array.prototype.forEach.call(heads, function (th, i) {
    th.addEventListener("click", function () {
      var up = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a, i), y = key(b, i);
        if (x === "" || y === "") { return (x === "") - (y === ""); }  // blanks last
        var c = (typeof x === "number" && typeof y === "number") ? x - y
          : String(x).localeCompare(String(y));
        return up ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  var box = document.getElementById("card-filter");
  var count = document.getElementById("card-count");
  var names = Array.prototype.map.call(heads, function (h) {
    return h.textContent.toLowerCase().trim();
  });
  function filter() {
    var q = box.value, shown = 0;
    Array.prototype.forEach.call(body.rows, function (r) {
      var texts = Array.prototype.map.call(r.cells, function (c) { return c.textContent; });
      var hit = cardRowMatches(texts, names, q);
      r.hidden = !hit;
      if (hit) { shown += 1; }
    });
    count.textContent = shown + " of " + body.rows.length + " card kinds";
  }
  box.addEventListener("input", filter);
  filter();
})();
