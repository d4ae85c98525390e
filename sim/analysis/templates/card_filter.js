// The card filter's test of one row, apart so it can be checked outside a browser. A term
// "field op value" (cost>3, play rate>=20, type=soldier, name!=talos) compares the number
// (or text) a column shows; any other term must appear in the row's text. Terms separated
// by commas must all hold.
function cardRowMatches(texts, names, query) {
  var terms = query.toLowerCase().split(",");
  var all = texts.join(" ").toLowerCase();
  for (var t = 0; t < terms.length; t++) {
    var term = terms[t].trim();
    if (term === "") { continue; }
    var m = /^([a-z][a-z0-9 ()%]*?)\s*(<=|>=|!=|==|=|<|>)\s*(.+)$/.exec(term);
    var col = m ? names.indexOf(m[1].trim()) : -1;
    if (m && col < 0) {
      for (var i = 0; i < names.length; i++) {
        if (names[i].indexOf(m[1].trim()) === 0) { col = i; break; }
      }
    }
    if (col < 0) {
      if (all.indexOf(term) < 0) { return false; }
      continue;
    }
    var shown = texts[col].toLowerCase().trim(), want = m[3].trim();
    var x = parseFloat(shown), y = parseFloat(want), op = m[2], ok;
    if (!isNaN(x) && !isNaN(y)) {
      ok = op === "<" ? x < y : op === ">" ? x > y : op === "<=" ? x <= y
        : op === ">=" ? x >= y : op === "!=" ? x !== y : x === y;
    } else {
      ok = op === "!=" ? shown !== want : op === "=" || op === "==" ? shown === want : false;
    }
    if (!ok) { return false; }
  }
  return true;
}
