"""``omensim report``: one self-contained HTML page about one or more runs.

The page is built only from :mod:`sim.analysis` tables, so every number on it
can be reproduced in a notebook with the same functions. It is one file,
``out_dir/report.html``: the charts are PNGs inlined as ``data:`` URIs and
the card table's sorting and filtering is a small inline script, so the page
can be moved, mailed or opened offline.

Design points:

* Every input is loaded and checked before anything is written, so a bad run
  directory leaves no output at all.
* The page is written to a hidden temporary file and renamed into place, so a
  crash never leaves half a page.
* matplotlib is used through its object API on the Agg canvas (no pyplot, no
  display, no global state), imported only when a report is drawn.
* Charts follow the conventions designers expect: labelled axes, values
  written on bars, a dashed 50% line that the caption explains, and the
  Okabe-Ito palette, which stays distinguishable with colour-blindness.
"""

from __future__ import annotations

import base64
import html
import io as _bytes_io
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import analysis as A
from sim.analysis.loading import cards as run_cards
from sim.analysis.paired import first_player_shift
from sim.run import io
from sim.run import progress as P

REPORT_NAME = "report.html"
TOP_CARDS = 15
LABEL_COLS = ("mix", "variant", "strategy_p0", "strategy_p1")
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
"""Colour-blind-safe palette (Okabe & Ito, 2008), in the order series use it."""
NEUTRAL = "#999999"


class ReportError(ValueError):
    """A report that cannot be written where asked; the message is one line."""


@dataclass
class Report:
    """What :func:`build_report` made: the page and the key figures as text.

    ``images`` names the charts inlined in the page (none are separate files).
    """

    html: Path
    images: list[str] = field(default_factory=list)
    text: str = ""


# --- figures as text -------------------------------------------------------------------------


def fmt_rate(rate: float, lo: float, hi: float) -> str:
    """``"55.47% (95% CI 53.68-57.24%)"``: the form used on the terminal and the page."""
    return f"{rate:.2%} (95% CI {lo * 100:.2f}-{hi * 100:.2f}%)"


def fmt_diff(diff: float, lo: float, hi: float) -> str:
    """A difference of rates in percentage points, e.g. ``"-2.80 pp (95% CI -5.31 to -0.29)"``."""
    return f"{diff * 100:+.2f} pp (95% CI {lo * 100:+.2f} to {hi * 100:+.2f})"


def _run_label(row: pd.Series) -> str:
    return f"{row['mix']}, {row['variant']}, {row['strategy_p0']} vs {row['strategy_p1']}"


@dataclass
class _Tables:
    """Every analysis table the page shows, computed once."""

    info: pd.DataFrame
    fpa: pd.DataFrame
    paired: pd.DataFrame
    diffs: pd.DataFrame
    shifts: pd.DataFrame
    cards: pd.DataFrame
    card_table: pd.DataFrame
    stats: pd.DataFrame
    outcomes: pd.DataFrame
    seats: pd.DataFrame
    margins: pd.DataFrame
    lengths: pd.DataFrame
    length_quantiles: pd.DataFrame
    ends: pd.DataFrame
    components: pd.DataFrame


def _paired_by_run(df: pd.DataFrame) -> pd.DataFrame:
    """The paired estimate for every run that has duplicate deals; other runs are skipped."""
    if "deal_id" not in df.columns:
        return pd.DataFrame()
    frames = []
    for run, part in df.groupby("run", sort=False):
        try:
            frames.append(A.paired_first_player_advantage(part, by=None).assign(run=run))
        except ValueError:
            continue  # not a --duplicate run: no pairs, nothing to pair
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def outcome_shares(df: pd.DataFrame) -> pd.DataFrame:
    """Per run: games, and the shares won by the first player, the second, shared, turn-capped.

    First + second + shared = 100%; ``capped`` (games cut off by the turn cap,
    whoever won them) overlaps the others. Wilson 95% intervals on each share.
    """
    rows = []
    for run, part in df.groupby("run", sort=False):
        n = len(part)
        winner = part["winner"].to_numpy()
        first = int(np.count_nonzero(winner == part["first_player"].to_numpy()))
        shared = int(np.count_nonzero(winner == -1))
        capped = int(np.count_nonzero(part["end_reason"].astype(str).to_numpy() == "turn_cap"))
        row: dict[str, Any] = {"run": run, "games": n}
        for name, k in (
            ("first", first),
            ("second", n - first - shared),
            ("shared", shared),
            ("capped", capped),
        ):
            lo, hi = A.wilson_interval(k, n)
            row |= {name: k / n, f"{name}_lo": lo, f"{name}_hi": hi}
        rows.append(row)
    return pd.DataFrame(rows)


def seat_balance(df: pd.DataFrame) -> pd.DataFrame:
    """Per run and seat: the seat's win rate with its Wilson interval (shared is not a win)."""
    rows = []
    for run, part in df.groupby("run", sort=False):
        n = len(part)
        for seat in (0, 1):
            k = int(np.count_nonzero(part["winner"].to_numpy() == seat))
            lo, hi = A.wilson_interval(k, n)
            rows.append(
                {"run": run, "seat": seat, "games": n, "wins": k, "rate": k / n, "lo": lo, "hi": hi}
            )
    return pd.DataFrame(rows)


def filled_lengths(lengths: pd.DataFrame) -> pd.DataFrame:
    """:func:`sim.analysis.game_lengths` with every turn count from the shortest to the
    longest game of any run, a run's missing turn counts filled with 0 games.

    Without the filling a line drawn through one run's values would jump across
    the turn counts no game of that run had, a plateau that is not in the data.
    """
    if lengths.empty:
        return lengths
    turns = np.arange(int(lengths["turns"].min()), int(lengths["turns"].max()) + 1)
    frames = []
    for run, part in lengths.groupby("run", sort=False):
        full = part.set_index("turns")[["games", "share"]].reindex(turns, fill_value=0)
        frames.append(full.reset_index().assign(run=run))
    out = pd.concat(frames, ignore_index=True)
    out["games"] = out["games"].astype(np.int64)
    return out[["run", "turns", "games", "share"]]


def length_quantiles(df: pd.DataFrame, qs: Iterable[float] = QUANTILES) -> pd.DataFrame:
    """Per run: mean, the quantiles ``qs`` and the maximum of game length in turns."""
    rows = []
    for run, part in df.groupby("run", sort=False):
        turns = part["turns"].to_numpy()
        row: dict[str, Any] = {"run": run, "mean": float(turns.mean())}
        for q in qs:
            row[f"p{round(q * 100)}"] = float(np.quantile(turns, q))
        row["max"] = int(turns.max())
        rows.append(row)
    return pd.DataFrame(rows)


def run_shifts(df: pd.DataFrame, info: pd.DataFrame) -> pd.DataFrame:
    """Each run minus the first, paired by game, for the runs that share its seed.

    Runs with one seed play the same deals at the same game indices (common
    random numbers), so the paired interval is usually much narrower than
    Newcombe's for independent runs. Runs with another seed are left out.
    """
    runs = info["run"].tolist()
    if len(runs) < 2:
        return pd.DataFrame()
    seeds = dict(zip(info["run"], info["seed"], strict=True))
    base = df[df["run"] == runs[0]]
    rows = []
    for run in runs[1:]:
        if seeds[run] != seeds[runs[0]]:
            continue
        try:
            d = first_player_shift(base, df[df["run"] == run])
        except ValueError:
            continue  # no game in common
        rows.append({"a": run, "b": runs[0], **d.to_dict()})
    return pd.DataFrame(rows)


def _list_share(lists: pd.Series, n_kinds: int) -> np.ndarray:
    """Per kind id: the share of rows whose list holds it (at least once)."""
    counts = np.zeros(n_kinds, np.int64)
    for ids in lists:
        if ids is not None and len(ids):
            counts[np.unique(np.asarray(ids, np.int64))] += 1
    return counts / max(len(lists), 1)


def card_table(df: pd.DataFrame, info: pd.DataFrame, impact: pd.DataFrame) -> pd.DataFrame:
    """One row per card kind of each mix: its printed figures, how often it is played
    (and held, when the runs record ``held_p0/p1``), and its card effect with interval.

    ``play rate`` and ``hold rate`` are shares of player-games (two per game);
    the effect is :func:`sim.analysis.card_impact`'s ``diff`` (win rate when
    played minus when not) with its Newcombe interval.
    """
    frames = []
    for mix, runs in info.groupby("mix", sort=False):
        cards = run_cards(runs["path"].iloc[0])
        part = df[df["mix"] == mix]
        n = len(cards)
        both = pd.concat([part["played_p0"], part["played_p1"]], ignore_index=True)
        cards["play_rate"] = _list_share(both, n)
        if "held_p0" in part.columns and "held_p1" in part.columns:
            held = pd.concat([part["held_p0"], part["held_p1"]], ignore_index=True)
            cards["hold_rate"] = _list_share(held, n)
        eff = impact[impact["mix"] == mix].set_index("kind")
        for col in ("diff", "lo", "hi", "low_sample"):
            cards[col] = eff[col].reindex(cards["id"]).to_numpy()
        cards["mix"] = mix
        frames.append(cards)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _compute(df: pd.DataFrame, min_games: int) -> _Tables:
    info = pd.DataFrame(df.attrs["runs"])
    runs = info["run"].tolist()
    diffs = pd.concat(
        [A.difference(df, "run", r, runs[0]) for r in runs[1:]] or [pd.DataFrame()],
        ignore_index=True,
    )
    by = ("run",)
    position = {r: i for i, r in enumerate(runs)}

    def ordered(frame: pd.DataFrame) -> pd.DataFrame:
        # groupby sorts runs by name; show them in the order the user gave them.
        if frame.empty:
            return frame
        key = frame["run"].map(position)
        return frame.iloc[np.argsort(key.to_numpy(), kind="stable")].reset_index(drop=True)

    # Runs of one mix share kind ids (and usually differ in what we compare), so pool
    # them per mix for card impact: more player-games, tighter intervals.
    impact = A.card_impact(df, min_games=min_games, by=("mix",))
    return _Tables(
        info=info,
        fpa=ordered(A.first_player_advantage(df, by=by)),
        paired=ordered(_paired_by_run(df)),
        diffs=diffs,
        shifts=run_shifts(df, info),
        cards=impact,
        card_table=card_table(df, info, impact),
        stats=ordered(A.summary_stats(df, by=by)),
        outcomes=outcome_shares(df),
        seats=seat_balance(df),
        margins=ordered(A.score_margins(df, by=by)),
        lengths=filled_lengths(ordered(A.game_lengths(df, by=by))),
        length_quantiles=length_quantiles(df),
        ends=ordered(A.end_reasons(df, by=by)),
        components=ordered(A.score_components(df, by=by)),
    )


def key_figures(t: _Tables, top: int = 3) -> str:
    """The report's headline numbers as plain text lines, for the terminal."""
    lines = []
    stats = t.stats.set_index("run")
    for _, row in t.fpa.iterrows():
        info = t.info.set_index("run").loc[row["run"]]
        s = stats.loc[row["run"]]
        lines.append(
            f"{row['run']} ({_run_label(info)}): {int(row['games']):,} games; "
            f"first player won {fmt_rate(row['rate'], row['lo'], row['hi'])}; "
            f"shared {row['shared'] / row['games']:.2%}; "
            f"mean first-player margin {s['mean_margin']:+.2f} VP; "
            f"mean length {s['mean_turns']:.1f} turns"
        )
    for _, row in t.paired.iterrows():
        lines.append(
            f"{row['run']} paired over {int(row['deals']):,} deals: "
            f"{fmt_rate(row['rate'], row['lo'], row['hi'])} "
            f"(unpaired 95% CI {row['unpaired_lo'] * 100:.2f}-{row['unpaired_hi'] * 100:.2f}%)"
        )
    for _, row in t.diffs.iterrows():
        lines.append(
            f"{row['a']} minus {row['b']}: first-player win rate "
            f"{fmt_diff(row['diff'], row['lo'], row['hi'])}"
        )
    for _, row in t.shifts.iterrows():
        lines.append(
            f"{row['a']} minus {row['b']}, paired over {int(row['games']):,} games with the "
            f"same seed: {fmt_diff(row['diff'], row['lo'], row['hi'])}"
        )
    cards = t.cards[~t.cards["low_sample"]]
    for mix, part in cards.groupby("mix", sort=False):
        best = "; ".join(
            f"{r['card']} {fmt_diff(r['diff'], r['lo'], r['hi'])}"
            for _, r in part.head(top).iterrows()
        )
        lines.append(f"{mix}: cards whose players' win rate differs most: {best}")
    return "\n".join(lines)


# --- charts ----------------------------------------------------------------------------------


def _figure(width: float, height: float) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return fig, fig.add_subplot()


def _uri(fig: Any) -> str:
    """The figure as a PNG ``data:`` URI, to inline in the page."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)  # Agg: renders to PNG without any display
    buf = _bytes_io.BytesIO()
    fig.savefig(buf, format="png")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _reference_line(ax: Any, ref: float, label: str) -> None:
    """A dashed vertical reference line, labelled at the top so no legend is needed."""
    ax.axvline(ref, color=NEUTRAL, linestyle="--", linewidth=1, zorder=0)
    ax.annotate(
        label,
        (ref, 1.0),
        xycoords=("data", "axes fraction"),
        xytext=(3, -2),
        textcoords="offset points",
        va="top",
        fontsize="small",
        color="#555555",
    )


def _interval_chart(
    labels: list[str],
    est: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    ref: float,
    ref_label: str,
    xlabel: str,
    title: str,
    markers: list[str] | None = None,
    unit: str = "%",
) -> str:
    """Horizontal point-and-interval chart, one row per label, values written beside points."""
    fig, ax = _figure(8, 1.3 + 0.45 * len(labels))
    y = np.arange(len(labels))[::-1]
    markers = markers or ["o"] * len(labels)
    for yi, e, l, h, m in zip(y, est, lo, hi, markers, strict=True):
        ax.errorbar(e, yi, xerr=[[e - l], [h - e]], fmt=m, color=OKABE_ITO[0], capsize=4)
        ax.annotate(
            f"{e:+.1f}{unit}" if ref == 0 else f"{e:.1f}{unit}",
            (h, yi),
            xytext=(5, 0),
            textcoords="offset points",
            va="center",
            fontsize="small",
        )
    _reference_line(ax, ref, ref_label)
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.margins(x=0.15)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return _uri(fig)


def _chart_fpa(t: _Tables) -> str:
    labels = list(t.fpa["run"])
    est, lo, hi = (t.fpa[c].to_numpy() * 100 for c in ("rate", "lo", "hi"))
    markers = ["o"] * len(labels)
    if len(t.paired):
        labels += [f"{r} (paired)" for r in t.paired["run"]]
        est = np.concatenate([est, t.paired["rate"].to_numpy() * 100])
        lo = np.concatenate([lo, t.paired["lo"].to_numpy() * 100])
        hi = np.concatenate([hi, t.paired["hi"].to_numpy() * 100])
        markers += ["s"] * len(t.paired)
    return _interval_chart(
        labels,
        est,
        lo,
        hi,
        50.0,
        "50%: no first-player advantage",
        "first-player win rate, % of games (95% CI)",
        "First-player advantage",
        markers,
    )


def _chart_seats(t: _Tables) -> str:
    s = t.seats
    labels = [f"{r}: seat {seat}" for r, seat in zip(s["run"], s["seat"], strict=True)]
    est, lo, hi = (s[c].to_numpy() * 100 for c in ("rate", "lo", "hi"))
    return _interval_chart(
        labels,
        est,
        lo,
        hi,
        50.0,
        "50%: seats equal",
        "win rate of the seat, % of games (95% CI)",
        "Seat balance",
    )


def _chart_diffs(t: _Tables) -> str:
    labels = [f"{a} - {b}" for a, b in zip(t.diffs["a"], t.diffs["b"], strict=True)]
    est, lo, hi = (t.diffs[c].to_numpy() * 100 for c in ("diff", "lo", "hi"))
    markers = ["o"] * len(labels)
    if len(t.shifts):
        labels += [f"{a} - {b} (paired)" for a, b in zip(t.shifts["a"], t.shifts["b"], strict=True)]
        est = np.concatenate([est, t.shifts["diff"].to_numpy() * 100])
        lo = np.concatenate([lo, t.shifts["lo"].to_numpy() * 100])
        hi = np.concatenate([hi, t.shifts["hi"].to_numpy() * 100])
        markers += ["s"] * len(t.shifts)
    return _interval_chart(
        labels,
        est,
        lo,
        hi,
        0.0,
        "0: no difference",
        "difference in first-player win rate, percentage points (95% CI)",
        "Differences between runs",
        markers,
        unit=" pp",
    )


def _top_cards(t: _Tables, top: int) -> pd.DataFrame:
    cards = t.cards[~t.cards["low_sample"]].head(top).copy()
    several = t.cards["mix"].nunique() > 1
    pairs = zip(cards["card"], cards["mix"], strict=True)
    cards["label"] = [f"{c} ({m})" if several else str(c) for c, m in pairs]
    return cards


def _chart_cards(t: _Tables, top: int) -> str | None:
    cards = _top_cards(t, top)
    if cards.empty:
        return None
    est, lo, hi = (cards[c].to_numpy() * 100 for c in ("diff", "lo", "hi"))
    return _interval_chart(
        list(cards["label"]),
        est,
        lo,
        hi,
        0.0,
        "0: no difference",
        "win rate when played minus when not, percentage points (95% CI)",
        f"Card effect: the {len(cards)} largest differences",
        unit=" pp",
    )


def _stacked(
    wide: pd.DataFrame, title: str, xlabel: str, ref: tuple[float, str] | None = None
) -> str:
    """Horizontal stacked bars of percentages: one bar per row of ``wide``, values on bars."""
    fig, ax = _figure(8, 1.8 + 0.55 * len(wide))
    left = np.zeros(len(wide))
    y = np.arange(len(wide))[::-1]
    for i, col in enumerate(wide.columns):
        vals = wide[col].to_numpy() * 100
        bars = ax.barh(
            y,
            vals,
            left=left,
            label=str(col),
            color=OKABE_ITO[i % len(OKABE_ITO)],
            edgecolor="white",
        )
        # A value on every segment wide enough to hold it; the tables have them all.
        ax.bar_label(
            bars,
            labels=[f"{v:.1f}%" if v >= 6 else "" for v in vals],
            label_type="center",
            fontsize="small",
            color="black" if i % len(OKABE_ITO) in (1, 4, 6) else "white",
        )
        left += vals
    if ref is not None:
        _reference_line(ax, *ref)
    ax.set_yticks(y, [str(r) for r in wide.index])
    ax.set_xlim(0, 100)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    # Below the plot, outside the axes: a legend must never cover bars or axis labels.
    fig.legend(
        loc="outside lower center", ncol=min(4, len(wide.columns)), fontsize="small", frameon=False
    )
    return _uri(fig)


def _chart_outcomes(t: _Tables) -> str:
    wide = t.outcomes.set_index("run")[["first", "second", "shared"]]
    wide.columns = ["first player won", "second player won", "shared victory"]
    return _stacked(wide, "Who wins", "% of games", (50.0, "50%"))


def _chart_shares(frame: pd.DataFrame, category: str, title: str, xlabel: str) -> str:
    wide = frame.pivot_table(
        index="run", columns=category, values="share", aggfunc="sum", fill_value=0.0, sort=False
    )
    wide = wide.loc[:, wide.sum() > 0]
    return _stacked(wide, title, xlabel)


def _chart_distribution(
    dist: pd.DataFrame, value: str, xlabel: str, title: str, marks: pd.DataFrame | None = None
) -> str:
    """Share of games per value: bars for one run, one line per run for several.

    ``dist`` must hold every value of the range for every run (zeros included,
    see :func:`filled_lengths`), or the lines would bridge the gaps.
    """
    fig, ax = _figure(8, 4)
    runs = list(dict.fromkeys(dist["run"]))
    for i, run in enumerate(runs):
        part = dist[dist["run"] == run]
        colour = OKABE_ITO[i % len(OKABE_ITO)]
        if len(runs) == 1:
            ax.bar(part[value], part["share"] * 100, width=1.0, color=colour, alpha=0.85)
        else:
            ax.plot(part[value], part["share"] * 100, color=colour, label=run, linewidth=1.4)
    if marks is not None:
        for i, (_, row) in enumerate(marks.iterrows()):
            colour = OKABE_ITO[i % len(OKABE_ITO)] if len(runs) > 1 else "#000000"
            ax.axvline(row["p50"], color=colour, linestyle=":", linewidth=1)
    if len(runs) > 1:
        fig.legend(
            loc="outside lower center", ncol=min(4, len(runs)), fontsize="small", frameon=False
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel("% of games")
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    return _uri(fig)


def _charts(t: _Tables, top: int, tick: Callable[[], None]) -> dict[str, str | None]:
    """Every chart of the page as a data URI (None where there is nothing to draw)."""
    makers: dict[str, Callable[[], str | None]] = {
        "outcomes": lambda: _chart_outcomes(t),
        "fpa": lambda: _chart_fpa(t),
        "seats": lambda: _chart_seats(t),
        "differences": lambda: _chart_diffs(t) if len(t.diffs) else None,
        "cards": lambda: _chart_cards(t, top),
        "margins": lambda: _chart_distribution(
            t.margins,
            "margin",
            "first player's score minus second player's (VP)",
            "Score margins",
        ),
        "lengths": lambda: _chart_distribution(
            t.lengths,
            "turns",
            "game length (turns); dotted line: median",
            "Game length",
            t.length_quantiles,
        ),
        "end_reasons": lambda: _chart_shares(t.ends, "end_reason", "How games end", "% of games"),
        "components": lambda: _chart_shares(
            t.components, "component", "Where the points come from", "% of all VP scored"
        ),
    }
    out: dict[str, str | None] = {}
    for name, make in makers.items():
        out[name] = make()
        tick()
    return out


# --- HTML ------------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1000px; padding: 0 1em;
       color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
td.text, th.text { text-align: left; }
table.runs td { white-space: nowrap; text-align: left; }
table.runs td:last-child { white-space: normal; overflow-wrap: anywhere; min-width: 14em; }
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

# Sorting and filtering of the card table: no library, no network.
_SCRIPT = """
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
  function filter() {
    var q = box.value.toLowerCase(), shown = 0;
    Array.prototype.forEach.call(body.rows, function (r) {
      var hit = r.textContent.toLowerCase().indexOf(q) >= 0;
      r.hidden = !hit;
      if (hit) { shown += 1; }
    });
    count.textContent = shown + " of " + body.rows.length + " card kinds";
  }
  box.addEventListener("input", filter);
  filter();
})();
"""


def _pct(s: pd.Series) -> pd.Series:
    return s.map(lambda v: f"{v * 100:.2f}%")


def _pp(s: pd.Series) -> pd.Series:
    return s.map(lambda v: f"{v * 100:+.2f}")


def _ci(lo: pd.Series, hi: pd.Series, pp: bool = False) -> list[str]:
    if pp:
        return [f"{a * 100:+.2f} to {b * 100:+.2f}" for a, b in zip(lo, hi, strict=True)]
    return [f"{a * 100:.2f}-{b * 100:.2f}%" for a, b in zip(lo, hi, strict=True)]


def _table(frame: pd.DataFrame, cls: str = "") -> str:
    table = frame.to_html(index=False, escape=True, border=0, na_rep="", classes=cls or None)
    return f'<div class="scroll">{table}</div>'


def _img(uri: str | None, alt: str) -> str:
    if uri is None:
        return ""
    return f'<img src="{uri}" alt="{html.escape(alt)}">'


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
        'placeholder="name, set, type..."></label> <span id="card-count" class="note"></span></p>'
        '<div class="scroll"><table id="cards" class="sortable">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _figure_box(title: str, value: str, sub: str) -> str:
    return (
        f'<div class="figure">{html.escape(title)}<b>{html.escape(value)}</b>'
        f'<span class="note">{html.escape(sub)}</span></div>'
    )


def _html(t: _Tables, charts: dict[str, str | None], text: str) -> str:
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
            "omensim_version",
            "path",
        ]
    ]
    fpa = t.fpa.merge(t.stats[["run", "mean_margin", "mean_turns", "turn_cap_share"]], on="run")
    fpa_view = pd.DataFrame(
        {
            "run": fpa["run"],
            "games": fpa["games"].map("{:,}".format),
            "first-player wins": fpa["first_player_wins"].map("{:,}".format),
            "rate": _pct(fpa["rate"]),
            "95% CI": _ci(fpa["lo"], fpa["hi"]),
            "shared": _pct(fpa["shared"] / fpa["games"]),
            "mean margin (VP)": fpa["mean_margin"].map("{:+.2f}".format),
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
                    "Runs with the same seed play the same deals at the same game "
                    "indices, so they can be paired game by game (common random numbers): "
                    "the luck of the deal cancels and the interval narrows."
                ),
                _table(view),
            ]
        parts.append(_img(charts.get("differences"), "differences in first-player win rate"))
    parts += [
        "<h2>Cards</h2>",
        _note(
            "One row per card kind; click a column header to sort, type to filter. "
            "<i>Play rate</i>: share of player-games (two per game) in which that player "
            "played the card at least once"
            + (
                "; <i>hold rate</i>: share in which it was still held at the end"
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
    ]
    comp = t.components.pivot_table(
        index="run", columns="component", values="share", sort=False
    ).reindex(columns=list(A.SCORE_WEIGHTS))
    comp = comp.loc[:, comp.sum() > 0]
    comp_view = comp.apply(_pct).reset_index()
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
        _note("First player's score minus the second player's."),
        _img(charts.get("margins"), "score margin histogram"),
        "<h2>Where the points come from</h2>",
        _note(
            "Share of all VP scored, weighted as in the score (2&times;unused rewards + "
            "used rewards + 2&times;VP tokens + treasured + structures + 2&times;feats)."
        ),
        _table(comp_view),
        _img(charts.get("components"), "score component shares"),
        f"<script>{_SCRIPT}</script>",
        "</body></html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"


# --- writing ---------------------------------------------------------------------------------


def _check_out_dir(out: Path, runs: list[Path]) -> None:
    """Refuse an output directory that would clobber a file or pollute a run directory."""
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out {out} exists and is not a directory")
    if (out / io.MANIFEST_NAME).exists():
        # A page in a run directory would be a stray file that later blocks `run --force`.
        raise ReportError(f"--out {out} is a run directory; write the report elsewhere")
    resolved = out.resolve()
    for run in runs:
        if resolved == run.resolve() or run.resolve() in resolved.parents:
            raise ReportError(f"--out {out} is inside the run {run}; write the report elsewhere")


def build_report(
    paths: Iterable[Path | str] | Path | str,
    out_dir: Path | str,
    *,
    top_cards: int = TOP_CARDS,
    min_games: int = 200,
    progress: bool = False,
) -> Report:
    """Analyse the runs in ``paths`` and write the self-contained ``out_dir/report.html``.

    ``progress`` draws a bar of the steps (loading, analysing, each chart) on stderr.

    Raises:
        sim.analysis.RunLoadError: a path that is missing or not a run directory.
        sim.run.io.IncompleteRunError: a run that did not finish.
        ReportError: ``out_dir`` cannot hold a report.
        OSError: ``out_dir`` cannot be written.

    Nothing is written unless every run loads.
    """
    run_paths = [Path(p) for p in ([paths] if isinstance(paths, str | Path) else paths)]
    out = Path(out_dir)
    _check_out_dir(out, run_paths)
    with P.Bar(12, progress, desc="report", unit="steps") as bar:
        bar.describe("report: loading runs")
        df = A.load_runs(run_paths)
        bar.advance(1)
        bar.describe("report: analysing")
        tables = _compute(df, min_games)
        text = key_figures(tables)
        bar.advance(1)
        bar.describe("report: drawing charts")
        charts = _charts(tables, top_cards, lambda: bar.advance(1))
        page = _html(tables, charts, text)
        out.mkdir(parents=True, exist_ok=True)
        final = out / REPORT_NAME
        tmp = out / f".{REPORT_NAME}.{os.getpid()}.tmp"
        try:
            tmp.write_text(page, encoding="utf-8")
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        bar.advance(1)
    return Report(html=final, images=[k for k, v in charts.items() if v is not None], text=text)


def write_report(
    paths: Iterable[Path | str] | Path | str,
    out_dir: Path | str,
    *,
    echo: Callable[[str], None] | None = None,
) -> Path:
    """Write ``out_dir/report.html`` about the runs in ``paths``.

    ``echo`` (e.g. ``print``) receives the key figures as text. Returns the
    page's path; see :func:`build_report` for the errors.
    """
    report = build_report(paths, out_dir)
    if echo is not None:
        echo(report.text)
    return report.html
