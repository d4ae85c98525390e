"""The HTML of ``omensim report``: one self-contained page (inline CSS, charts, script).

The card table sorts when a header is clicked and filters as text is typed,
with a few lines of inline script and no library, so the page needs no network.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pandas as pd

from sim import analysis as A
from sim.analysis.card_strength import rank_correlation
from sim.analysis.report_tables import Tables, margin_summary
from sim.base.layout import SCORE_TERMS
from sim.run.stats import pct, points

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1340px; padding: 0 1em;
       color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
td.text, th.text { text-align: left; }
table.runs td { white-space: nowrap; text-align: left; }
.paths { overflow-wrap: anywhere; }
table.sortable td:not(.text) { white-space: nowrap; }
table.sortable th { cursor: pointer; user-select: none; white-space: nowrap; }
table.sortable th[aria-sort=ascending]::after { content: " \\25B2"; }
table.sortable th[aria-sort=descending]::after { content: " \\25BC"; }
tr.low td { color: #888; }
img { max-width: 100%; display: block; margin: 0.8em 0; }
pre { background: #f7f7f7; padding: 0.8em; white-space: pre-wrap; font-size: 0.85em; }
.note { color: #555; font-size: 0.9em; }
.figures { display: flex; flex-wrap: wrap; gap: 0.8em; }
.figure { border: 1px solid #ddd; border-radius: 6px; padding: 0.6em 0.9em; min-width: 12em; }
.figure b { display: block; font-size: 1.4em; }
input[type=search] { font-size: 1em; padding: 3px 6px; width: 22em; }
"""

# The card filter's test of one row, separate so it can be checked outside a browser.
# A term "field op value" (cost>3, play rate>=20, type=soldier, name!=talos) compares the
# number (or text) a column shows; any other term must appear in the row's text. Terms
# separated by commas must all hold.
FILTER_JS = """
function cardRowMatches(texts, names, query) {
  var terms = query.toLowerCase().split(",");
  var all = texts.join(" ").toLowerCase();
  for (var t = 0; t < terms.length; t++) {
    var term = terms[t].trim();
    if (term === "") { continue; }
    var m = /^([a-z][a-z0-9 ()%]*?)\\s*(<=|>=|!=|==|=|<|>)\\s*(.+)$/.exec(term);
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
"""

# Sorting and filtering of the card table: no library, no network.
_SCRIPT = (
    FILTER_JS
    + """
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
"""
)


def _pct(s: pd.Series) -> pd.Series:
    return s.map(pct)


def _pp(s: pd.Series) -> pd.Series:
    return s.map(points)


def _ci(lo: pd.Series, hi: pd.Series, pp: bool = False) -> list[str]:
    if pp:
        return [f"{a * 100:+.2f} to {b * 100:+.2f}" for a, b in zip(lo, hi, strict=True)]
    return [f"{a * 100:.2f}-{b * 100:.2f}%" for a, b in zip(lo, hi, strict=True)]


def _margins_view(t: Tables) -> pd.DataFrame:
    return margin_table(margin_summary(t))


def margin_table(m: pd.DataFrame) -> pd.DataFrame:
    """Rows of :func:`sim.run.margins.margin_distribution` (with a ``run`` label
    column) as the report's text cells: mean, interval, sd, quantiles, ahead/level/behind."""
    if m.empty:
        return m
    quantiles = [c for c in m.columns if c.startswith("p") and c[1:].isdigit()]
    return pd.DataFrame(
        {
            "run": m["run"],
            "games": m["games"].map("{:,}".format),
            "mean (VP)": m["mean"].map("{:+.2f}".format),
            "95% t-interval": [
                f"{a:+.2f} to {b:+.2f}" for a, b in zip(m["lo"], m["hi"], strict=True)
            ],
            "sd": m["sd"].map("{:.1f}".format),
            **{q: m[q].map("{:+d}".format) for q in quantiles},
            "ahead": _pct(m["ahead"]),
            "level": _pct(m["level"]),
            "behind": _pct(m["behind"]),
        }
    )


def _strength_part(t: Tables) -> list[str]:
    """The "Card strength" section: holders' win rate, plays and rank per run (and the
    rank correlation between runs of one mix)."""
    st = t.strength
    if st.empty:
        return []
    cells = st.assign(
        shown=[
            f"{r:.1%} ({a:.1%}-{b:.1%}), {p:.2f}/g, #{k}" if pd.notna(r) else ""
            for r, a, b, p, k in zip(
                st["rate"], st["lo"], st["hi"], st["played_per_game"], st["rank"], strict=True
            )
        ]
    )
    parts = [
        "<h2>Card strength</h2>",
        _note(
            "For each card and run: the win rate of its <i>holders</i> (player-games in "
            "which that player held it at some point) with its Wilson 95% interval, the "
            "player-games per game in which it was played (/g, 0 to 2) and its rank by "
            "holders' win rate (#1 highest). Cards in the first run's rank order. An "
            "association, like the card effect above."
        ),
    ]
    for mix, part in cells.groupby("mix", sort=False):
        runs = list(dict.fromkeys(part["bot"]))
        wide = part.pivot_table(
            index=["kind", "card"], columns="bot", values="shown", aggfunc="first", sort=False
        )[runs]
        first = part[part["bot"] == runs[0]]["kind"].tolist()
        wide = wide.reindex(first, level="kind").reset_index().drop(columns="kind")
        wide.columns.name = None
        if cells["mix"].nunique() > 1:
            parts.append(f"<h3>{html.escape(str(mix))}</h3>")
        parts.append(_table(wide))
        if len(runs) > 1:
            corr = rank_correlation(st[st["mix"] == mix]).map("{:.2f}".format).reset_index()
            corr.columns.name = None
            parts += [
                _note("Spearman's rank correlation of holders' win rate between the runs."),
                _table(corr.rename(columns={"bot": "run"})),
            ]
    return parts


def _gods_part(t: Tables) -> list[str]:
    """The "Gods" section: each Heir to the Dunes god's win rate (nothing without gods)."""
    g = t.gods
    if g.empty:
        return []
    view = pd.DataFrame(
        {
            "run": g["run"],
            "god": g["god"],
            "games": g["games"].map("{:,}".format),
            "win rate": _pct(g["rate"]),
            "95% CI": _ci(g["lo"], g["hi"]),
            "going first": _pct(g["first_rate"]),
            "95% CI (first)": _ci(g["first_lo"], g["first_hi"]),
            "going second": _pct(g["second_rate"]),
            "95% CI (second)": _ci(g["second_lo"], g["second_hi"]),
        }
    )
    return [
        "<h2>Gods</h2>",
        _note(
            "Heir to the Dunes: win rate of the seat serving each god, in all and by "
            "whether that seat went first (Wilson 95% intervals). Unless the run fixed "
            "them (--gods), seat 0's god changes every second deal, so seat, god and "
            "first player are not confounded."
        ),
        _table(view),
    ]


def _table(frame: pd.DataFrame, cls: str = "") -> str:
    table = frame.to_html(index=False, escape=True, border=0, na_rep="", classes=cls or None)
    return f'<div class="scroll">{table}</div>'


def _img(uri: str | None, alt: str) -> str:
    if uri is None:
        return ""
    return f'<img src="{uri}" alt="{html.escape(alt)}">'


def score_formula(times: str = "*") -> str:
    """The score as a sum of weighted components, e.g. ``2*rewards_unused + rewards_used``."""
    return " + ".join(
        f"{t.weight}{times}{t.name}" if t.weight != 1 else t.name for t in SCORE_TERMS
    )


def _note(text: str) -> str:
    return f'<p class="note">{text}</p>'


def _cell(value: Any, shown: str, cls: str = "") -> str:
    """A table cell showing ``shown`` that sorts by ``value`` (``data-v``)."""
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        sort = ""
    elif isinstance(value, float):
        sort = repr(value)
    else:
        sort = str(value)
    c = f' class="{cls}"' if cls else ""
    return f'<td{c} data-v="{html.escape(sort)}">{html.escape(shown)}</td>'


def card_table_html(cards: pd.DataFrame) -> str:
    """The sortable, filterable card table (see :func:`card_table`), with its filter box."""
    if cards.empty:
        return "<p>No card data.</p>"
    several = cards["mix"].nunique() > 1
    hold = "hold_rate" in cards.columns
    heads = [
        "name",
        *(["mix"] if several else []),
        "set",
        "type",
        "cost",
        "strength",
        "offering",
        "copies",
        "play rate",
        *(["hold rate"] if hold else []),
        "card effect (pp)",
        "95% CI (pp)",
    ]
    text_cols = {"name", "mix", "set", "type"}
    head = "".join(
        f'<th{" class=text" if h in text_cols else ""} title="click to sort">{h}</th>'
        for h in heads
    )
    rows = []
    for _, r in cards.iterrows():
        eff = r["diff"]
        has = eff is not None and np.isfinite(eff)
        cells = [_cell(r["name"], str(r["name"]), "text")]
        if several:
            cells.append(_cell(r["mix"], str(r["mix"]), "text"))
        cells += [
            _cell(r["set"], str(r["set"]), "text"),
            _cell(r["type"], str(r["type"]), "text"),
            *(_cell(int(r[c]), str(int(r[c]))) for c in ("cost", "strength", "offering", "copies")),
            _cell(float(r["play_rate"]), f"{r['play_rate']:.1%}"),
        ]
        if hold:
            cells.append(_cell(float(r["hold_rate"]), f"{r['hold_rate']:.1%}"))
        cells += [
            _cell(float(eff) if has else None, f"{eff * 100:+.2f}" if has else ""),
            _cell(
                float(r["lo"]) if has else None,
                f"{r['lo'] * 100:+.2f} to {r['hi'] * 100:+.2f}" if has else "",
            ),
        ]
        low = has and bool(r["low_sample"])
        rows.append(f"<tr{' class=low' if low else ''}>{''.join(cells)}</tr>")
    return (
        '<p><label>Filter: <input type="search" id="card-filter" '
        'placeholder="text, or field op value: cost>3, type=soldier"></label> '
        '<span id="card-count" class="note"></span></p>'
        '<div class="scroll"><table id="cards" class="sortable">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _figure_box(title: str, value: str, sub: str) -> str:
    return (
        f'<div class="figure">{html.escape(title)}<b>{html.escape(value)}</b>'
        f'<span class="note">{html.escape(sub)}</span></div>'
    )


def panel_part(view: pd.DataFrame, verdicts: list[str]) -> list[str]:
    """The "Bot panel" section: each bot's answer side by side, then the verdicts."""
    return [
        "<h2>Bot panel</h2>",
        _note(
            "The same games played once per bot, each in self-play. A conclusion that holds "
            "under every bot is about the game; one that changes sign or significance "
            "across bots is about one bot's play. Intervals are 95%."
        ),
        _table(view, "panel"),
        *(f'<p class="verdict"><strong>{html.escape(v)}</strong></p>' for v in verdicts),
    ]


def page(
    t: Tables,
    charts: dict[str, str | None],
    text: str,
    panel: tuple[pd.DataFrame, list[str]] | None = None,
) -> str:
    """The whole report page; ``panel`` (a table and its verdict lines) adds the
    "Bot panel" section after the runs."""
    # The wide, unbreakable values (paths, version) go under the table, not in it, so the
    # table fits the page; long paths wrap anywhere there.
    info = t.info[
        [
            "run",
            "mix",
            "variant",
            "strategy_p0",
            "strategy_p1",
            "first",
            "seed",
            "games",
            "duplicate",
        ]
    ].rename(columns={"strategy_p0": "p0", "strategy_p1": "p1"})
    where = "; ".join(
        f"{html.escape(str(r))}: <code>{html.escape(str(p))}</code>"
        for r, p in zip(t.info["run"], t.info["path"], strict=True)
    )
    versions = ", ".join(sorted({str(v) for v in t.info["omensim_version"]}))
    runs_note = f'<p class="note paths">Run directories: {where}. omensim {versions}.</p>'
    fpa = t.fpa.merge(
        t.stats[["run", "mean_margin", "margin_lo", "margin_hi", "mean_turns", "turn_cap_share"]],
        on="run",
    )
    fpa_view = pd.DataFrame(
        {
            "run": fpa["run"],
            "games": fpa["games"].map("{:,}".format),
            "first-player wins": fpa["first_player_wins"].map("{:,}".format),
            "rate": _pct(fpa["rate"]),
            "95% CI": _ci(fpa["lo"], fpa["hi"]),
            "shared": _pct(fpa["shared"] / fpa["games"]),
            "mean margin (VP)": fpa["mean_margin"].map("{:+.2f}".format),
            "95% t-interval": [
                f"{a:+.2f} to {b:+.2f}"
                for a, b in zip(fpa["margin_lo"], fpa["margin_hi"], strict=True)
            ],
            "mean turns": fpa["mean_turns"].map("{:.1f}".format),
            "turn cap": _pct(fpa["turn_cap_share"]),
        }
    )
    o = t.outcomes
    outcomes_view = pd.DataFrame(
        {
            "run": o["run"],
            "games": o["games"].map("{:,}".format),
            **{
                label: [
                    f"{v:.2%} ({a * 100:.2f}-{b * 100:.2f}%)"
                    for v, a, b in zip(o[k], o[f"{k}_lo"], o[f"{k}_hi"], strict=True)
                ]
                for k, label in (
                    ("first", "first player won"),
                    ("second", "second player won"),
                    ("shared", "shared victory"),
                    ("capped", "turn-capped"),
                )
            },
        }
    )
    boxes = []
    for _, r in o.iterrows():
        boxes.append(
            _figure_box(
                f"{r['run']}: first player won",
                f"{r['first']:.2%}",
                f"95% CI {r['first_lo']:.2%} to {r['first_hi']:.2%}, {int(r['games']):,} games",
            )
        )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>omensim report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>omensim report</h1>",
        f'<div class="figures">{"".join(boxes)}</div>',
        "<h2>Runs</h2>",
        _table(info, "runs"),
        runs_note,
        *(panel_part(*panel) if panel is not None else []),
        "<h2>Key figures</h2>",
        f"<pre>{html.escape(text)}</pre>",
        "<h2>Who wins</h2>",
        _note(
            "Shares of games won outright by the seat that took the first turn, by the "
            "other seat, and shared victories (these three add up to 100%); turn-capped "
            "games (cut off by the turn cap, whoever won them) overlap them. Wilson 95% "
            "intervals in brackets. The dashed line marks 50%: the first player's share "
            "would reach it in a balanced game if no victory were shared."
        ),
        _table(outcomes_view),
        _img(charts.get("outcomes"), "who wins, by run"),
        "<h2>First-player advantage</h2>",
        _note(
            "Share of games won outright by the seat that took the first turn; a shared "
            "victory counts as not a win. Intervals are Wilson 95%. The dashed line is "
            "50%: an interval that does not cross it means the first player really does "
            "win more (or less) often than the second."
        ),
        _table(fpa_view),
    ]
    if len(t.paired):
        view = pd.DataFrame(
            {
                "run": t.paired["run"],
                "deals": t.paired["deals"].map("{:,}".format),
                "rate": _pct(t.paired["rate"]),
                "paired 95% CI": _ci(t.paired["lo"], t.paired["hi"]),
                "unpaired 95% CI": _ci(t.paired["unpaired_lo"], t.paired["unpaired_hi"]),
                "games left out": t.paired["dropped_games"],
            }
        )
        parts += [
            _note(
                "Paired estimate (--duplicate runs): each deal was played once with each "
                "seat first; the interval comes from the spread between deals, so the luck "
                "of the deal cancels (normal approximation)."
            ),
            _table(view),
        ]
    parts.append(_img(charts.get("fpa"), "first-player win rate by run"))
    s = t.seats
    seats_view = pd.DataFrame(
        {
            "run": s["run"],
            "seat": s["seat"],
            "games": s["games"].map("{:,}".format),
            "wins": s["wins"].map("{:,}".format),
            "win rate": _pct(s["rate"]),
            "95% CI": _ci(s["lo"], s["hi"]),
        }
    )
    parts += [
        "<h2>Seat balance</h2>",
        _note(
            "Win rate of seat 0 and seat 1 (bots p0 and p1), whoever went first. With "
            "the same bot in both seats and alternating first players both should sit on "
            "the dashed 50% line; a gap points at a seat-dependent rule or bot."
        ),
        _table(seats_view),
        _img(charts.get("seats"), "seat balance"),
        *_gods_part(t),
    ]
    if len(t.diffs):
        view = pd.DataFrame(
            {
                "run": t.diffs["a"],
                "compared with": t.diffs["b"],
                "rate": _pct(t.diffs["rate_a"]),
                "other rate": _pct(t.diffs["rate_b"]),
                "difference (pp)": _pp(t.diffs["diff"]),
                "95% CI (pp), independent": _ci(t.diffs["lo"], t.diffs["hi"], pp=True),
            }
        )
        parts += [
            "<h2>Runs side by side</h2>",
            _note(
                "Each run minus the first one given. Independent runs: Newcombe's hybrid "
                "score interval for a difference of two proportions."
            ),
            _table(view),
        ]
        if len(t.shifts):
            sh = t.shifts
            view = pd.DataFrame(
                {
                    "run": sh["a"],
                    "compared with": sh["b"],
                    "games paired": sh["games"].map("{:,}".format),
                    "difference (pp)": _pp(sh["diff"]),
                    "paired 95% CI (pp)": _ci(sh["lo"], sh["hi"], pp=True),
                    "games an unpaired test would need": sh["n_unpaired"].map(
                        lambda v: f"{v:,.0f}" if np.isfinite(v) else ""
                    ),
                }
            )
            parts += [
                _note(
                    "Runs of the same mix with the same seed play the same deals at the "
                    "same game indices, so they can be paired game by game (common random "
                    "numbers): the luck of the deal cancels and the interval narrows."
                ),
                _table(view),
            ]
        parts.append(_img(charts.get("differences"), "differences in first-player win rate"))
    parts += [
        "<h2>Cards</h2>",
        _note(
            "One row per card kind; click a column header to sort, type to filter: text, "
            "or <code>field op value</code> terms such as <code>cost&gt;3, type=soldier</code> "
            "(op one of &lt; &lt;= &gt; &gt;= = !=; commas join terms). "
            "<i>Play rate</i>: share of player-games (two per game) in which that player "
            "played the card at least once"
            + (
                "; <i>hold rate</i>: share in which that player held it at some point "
                "(dealt, drawn or returned to hand)"
                if "hold_rate" in t.card_table.columns
                else ""
            )
            + ". <i>Card effect</i>: win rate of players who played it minus that of "
            "players who did not, in percentage points, with Newcombe's 95% interval: an "
            "association, not a cause (a card may be played because the game is going "
            "well). Grey rows have too few player-games on one side to read."
        ),
        card_table_html(t.card_table),
        _img(charts.get("cards"), "card effect"),
        *_strength_part(t),
    ]
    comp = t.components.pivot_table(
        index="run", columns="component", values="share", sort=False
    ).reindex(columns=list(A.SCORE_WEIGHTS))
    comp = comp.loc[:, comp.sum() > 0]
    comp_view = comp.apply(_pct).reset_index()
    comp_view.columns.name = None  # else to_html writes a header cell of its own for it
    ends_view = t.ends.assign(
        share=_pct(t.ends["share"]),
        ci=_ci(t.ends["lo"], t.ends["hi"]),
        games=t.ends["games"].map("{:,}".format),
    )[["run", "end_reason", "games", "share", "ci"]].rename(
        columns={"end_reason": "end reason", "share": "% of games", "ci": "95% CI"}
    )
    q = t.length_quantiles
    q_view = q.assign(**{c: q[c].map("{:.1f}".format) for c in q.columns if c != "run"})
    parts += [
        "<h2>How games end</h2>",
        _note(
            "Why each game ended: a rule of the set (e.g. all cities empty) or the turn "
            "cap, which only stops games the rules did not end."
        ),
        _table(ends_view),
        _img(charts.get("end_reasons"), "end reasons"),
        "<h2>Game length</h2>",
        _note(
            "Turns per game. Quantiles: p50 is the median game, p90 the length 90% of "
            "games do not exceed."
        ),
        _table(q_view),
        _img(charts.get("lengths"), "game length distribution"),
        "<h2>Score margins</h2>",
        _note(
            "First player's score minus the second player's, per game: its mean with the "
            "Student t 95% interval on the per-game margins, its standard deviation, "
            "quantiles (p50 is the median game's margin) and the shares of games the "
            "first player ended ahead, level (decided by the tie-breaks) and behind."
        ),
        _table(_margins_view(t)),
        _img(charts.get("margins"), "score margin histogram"),
        "<h2>Where the points come from</h2>",
        _note(f"Share of all VP scored, weighted as in the score ({score_formula('&times;')})."),
        _table(comp_view),
        _img(charts.get("components"), "score component shares"),
        f"<script>{_SCRIPT}</script>",
        "</body></html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"
