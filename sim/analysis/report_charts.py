"""The charts of ``omensim report`` as PNG data URIs, drawn by matplotlib's object API on
the Agg canvas (no pyplot, no display), imported only when drawing. The conventions they
keep (palette, labels, reference lines): ``docs/usage.md``, "Reading the results"."""

from __future__ import annotations

import base64
import io as _bytes_io
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis.report_tables import Tables

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
"""Colour-blind-safe palette (Okabe & Ito, 2008), in the order series use it."""


def _figure(width: float, height: float) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return fig, fig.add_subplot()


def png_uri(png: bytes) -> str:
    """A PNG image as a ``data:`` URI, to inline in a page."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _uri(fig: Any) -> str:
    """The figure as a PNG ``data:`` URI."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)  # Agg: renders to PNG without any display
    buf = _bytes_io.BytesIO()
    fig.savefig(buf, format="png")
    return png_uri(buf.getvalue())


def _reference_line(ax: Any, ref: float, label: str, on_top: bool = False) -> None:
    """A dashed vertical reference line, labelled at the top so no legend is needed.

    ``on_top`` draws it over bars (stacked bars would hide it otherwise).
    """
    colour = "#333333" if on_top else "#999999"
    ax.axvline(ref, color=colour, linestyle="--", linewidth=1, zorder=3 if on_top else 0)
    ax.annotate(
        label,
        (ref, 1.0),
        xycoords=("data", "axes fraction"),
        xytext=(3, -2),
        textcoords="offset points",
        va="top",
        fontsize="small",
        zorder=4,
        bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1},
        color="#555555",
    )


def _interval_chart(
    parts: list[pd.DataFrame], unit: str, ref_label: str, xlabel: str, title: str
) -> str | None:
    """Horizontal point-and-interval chart, one row per ``label`` of the ``parts`` (rows of
    :func:`_points`), values in ``unit`` written beside points; a rate (``unit`` "%") is
    drawn against a line at 50%, a difference against 0. None when there are no rows."""
    ref = 50.0 if unit == "%" else 0.0
    rows = pd.concat(parts)
    if rows.empty:
        return None
    fig, ax = _figure(8, 1.3 + 0.45 * len(rows))
    y = np.arange(len(rows))[::-1]
    for yi, r in zip(y, rows.itertuples(), strict=True):
        e = r.est
        ax.errorbar(
            e, yi, xerr=[[e - r.lo], [r.hi - e]], fmt=r.marker, color=OKABE_ITO[0], capsize=4
        )
        ax.annotate(
            f"{e:+.1f}{unit}" if ref == 0 else f"{e:.1f}{unit}",
            (r.hi, yi),
            xytext=(5, 0),
            textcoords="offset points",
            va="center",
            fontsize="small",
        )
    _reference_line(ax, ref, ref_label)
    ax.set_yticks(y, list(rows["label"]))
    ax.set(ylim=(-0.7, len(rows) - 0.3), xlabel=xlabel, title=title)
    ax.margins(x=0.22)  # room for the value written right of each interval
    ax.grid(axis="x", alpha=0.3)
    return _uri(fig)


def _points(frame: pd.DataFrame, label: str, col: str, marker: str = "o") -> pd.DataFrame:
    """``frame``'s estimates ``col`` with their ``lo``/``hi`` as an interval chart's rows, in
    percent (or points), each labelled ``label`` formatted with its row's columns; an empty
    table (no columns) gives no rows."""
    if not len(frame):
        return pd.DataFrame()
    values = {k: frame[c].to_numpy() * 100 for k, c in (("est", col), ("lo", "lo"), ("hi", "hi"))}
    labels = [label.format(**r) for r in frame.to_dict("records")]
    return pd.DataFrame({"label": labels, **values, "marker": marker})


def shift_chart(summary: dict[str, Any]) -> str | None:
    """A compare's paired shifts, B - A, in points with their 95% intervals: the first-player
    win rate and each changed card's holders' win rate (from ``compare.json``)."""
    rows = [{**summary["first_player"], "label": "first-player win rate"}]
    rows += [{**c, "label": f"{c['card']}: holders"} for c in summary.get("cards", [])]
    shifts = pd.DataFrame([r for r in rows if r.get("diff") is not None])
    return _interval_chart(
        [_points(shifts, "{label}", "diff")],
        "",
        "0: no change",
        "shift B - A, points (paired 95% CI)",
        "What the change moved",
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
        colour = OKABE_ITO[i % len(OKABE_ITO)]
        bars = ax.barh(y, vals, left=left, label=str(col), color=colour, edgecolor="white")
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
        _reference_line(ax, *ref, on_top=True)
    ax.set_yticks(y, [str(r) for r in wide.index])
    ax.set(xlim=(0, 100), xlabel=xlabel, title=title)
    # Below the plot, outside the axes: a legend must never cover bars or axis labels.
    fig.legend(
        loc="outside lower center", ncol=min(4, len(wide.columns)), fontsize="small", frameon=False
    )
    return _uri(fig)


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
    ax.set(xlabel=xlabel, ylabel="% of games", title=title)
    ax.grid(axis="y", alpha=0.3)
    return _uri(fig)


def charts(t: Tables, top: int, tick: Callable[[], None]) -> dict[str, str | None]:
    """Every chart of the page as a data URI (None where there is nothing to draw)."""
    # The cards with the largest effect (enough player-games on both sides).
    cards = t.cards[~t.cards["low_sample"]].head(top)
    card_label = "{card} ({mix})" if t.cards["mix"].nunique() > 1 else "{card}"
    outcomes = t.outcomes.set_index("run")[["first", "second", "shared"]]
    outcomes.columns = ["first player won", "second player won", "shared victory"]
    makers: dict[str, Callable[[], str | None]] = {
        "outcomes": lambda: _stacked(outcomes, "Who wins", "% of games", (50.0, "50%")),
        "fpa": lambda: _interval_chart(
            [_points(t.fpa, "{run}", "rate"), _points(t.paired, "{run} (paired)", "rate", "s")],
            "%",
            "50%: no first-player advantage",
            "first-player win rate, % of games (95% CI)",
            "First-player advantage",
        ),
        "seats": lambda: _interval_chart(
            [_points(t.seats, "{run}: seat {seat}", "rate")],
            "%",
            "50%: seats equal",
            "win rate of the seat, % of games (95% CI)",
            "Seat balance",
        ),
        "differences": lambda: _interval_chart(
            [
                _points(t.diffs, "{a} - {b}", "diff"),
                _points(t.shifts, "{a} - {b} (paired)", "diff", "s"),
            ],
            " pp",
            "0: no difference",
            "difference in first-player win rate, percentage points (95% CI)",
            "Differences between runs",
        ),
        "cards": lambda: _interval_chart(
            [_points(cards, card_label, "diff")],
            " pp",
            "0: no difference",
            "win rate when played minus when not, percentage points (95% CI)",
            f"Card effect: the {len(cards)} largest differences",
        ),
        "margins": lambda: _chart_distribution(
            t.margins, "margin", "first player's score minus second player's (VP)", "Score margins"
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
