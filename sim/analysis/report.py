"""``omensim report``: one self-contained HTML page (plus PNG charts) about one or more runs.

The page is built only from :mod:`sim.analysis` tables, so every number on it
can be reproduced in a notebook with the same functions. Layout of the output
directory::

    out_dir/
        report.html        # inline CSS, tables, <img src="fpa.png"> ...
        fpa.png, cards.png, margins.png, lengths.png, end_reasons.png, components.png
        differences.png    # only when several runs are compared

Design points:

* Every input is loaded and checked before anything is written, so a bad run
  directory leaves no output at all.
* The files are rendered into a hidden temporary directory beside
  ``out_dir`` and moved into place at the end (``report.html`` last), so a
  crash never leaves a page pointing at missing charts.
* matplotlib is used through its object API on the Agg canvas (no pyplot, no
  display, no global state), imported only when a report is drawn.
"""

from __future__ import annotations

import html
import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import analysis as A
from sim.run import io

REPORT_NAME = "report.html"
TOP_CARDS = 15
LABEL_COLS = ("mix", "variant", "strategy_p0", "strategy_p1")


class ReportError(ValueError):
    """A report that cannot be written where asked; the message is one line."""


@dataclass
class Report:
    """What :func:`build_report` made: the page, its charts and the key figures as text."""

    html: Path
    images: list[Path] = field(default_factory=list)
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
    cards: pd.DataFrame
    stats: pd.DataFrame
    margins: pd.DataFrame
    lengths: pd.DataFrame
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


def compute_tables(paths: list[Path], min_games: int = 200, streaming: bool = True) -> _Tables:
    """Every table of the report for the runs at ``paths`` (see :func:`build_report`)."""
    if streaming:
        from sim.analysis.streaming import report_tables

        return _Tables(**vars(report_tables(paths, min_games)))
    return _compute(A.load_runs(paths), min_games)


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
    return _Tables(
        info=info,
        fpa=ordered(A.first_player_advantage(df, by=by)),
        paired=ordered(_paired_by_run(df)),
        diffs=diffs,
        cards=A.card_impact(df, min_games=min_games, by=("mix",)),
        stats=ordered(A.summary_stats(df, by=by)),
        margins=ordered(A.score_margins(df, by=by)),
        lengths=ordered(A.game_lengths(df, by=by)),
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


def _save(fig: Any, path: Path) -> Path:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)  # Agg: renders to PNG without any display
    fig.savefig(path, format="png")
    return path


def _interval_chart(
    labels: list[str],
    est: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    ref: float,
    xlabel: str,
    title: str,
    path: Path,
    markers: list[str] | None = None,
) -> Path:
    """Horizontal point-and-interval chart, one row per label, with a reference line."""
    fig, ax = _figure(8, 1.2 + 0.45 * len(labels))
    y = np.arange(len(labels))[::-1]
    markers = markers or ["o"] * len(labels)
    for yi, e, l, h, m in zip(y, est, lo, hi, markers, strict=True):
        ax.errorbar(e, yi, xerr=[[e - l], [h - e]], fmt=m, color="#1f4e79", capsize=4)
    ax.axvline(ref, color="#999", linestyle="--", linewidth=1)
    ax.set_yticks(y, labels)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def _chart_fpa(t: _Tables, path: Path) -> Path:
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
        labels, est, lo, hi, 50.0, "first-player win rate, % (95% CI)",
        "First-player advantage", path, markers,
    )  # fmt: skip


def _chart_diffs(t: _Tables, path: Path) -> Path:
    labels = [f"{a} - {b}" for a, b in zip(t.diffs["a"], t.diffs["b"], strict=True)]
    est, lo, hi = (t.diffs[c].to_numpy() * 100 for c in ("diff", "lo", "hi"))
    return _interval_chart(
        labels, est, lo, hi, 0.0, "difference in first-player win rate, percentage points",
        "Differences between runs (Newcombe 95% CI)", path,
    )  # fmt: skip


def _top_cards(t: _Tables, top: int) -> pd.DataFrame:
    cards = t.cards[~t.cards["low_sample"]].head(top).copy()
    several = t.cards["mix"].nunique() > 1
    pairs = zip(cards["card"], cards["mix"], strict=True)
    cards["label"] = [f"{c} ({m})" if several else str(c) for c, m in pairs]
    return cards


def _chart_cards(t: _Tables, path: Path, top: int) -> Path | None:
    cards = _top_cards(t, top)
    if cards.empty:
        return None
    est, lo, hi = (cards[c].to_numpy() * 100 for c in ("diff", "lo", "hi"))
    return _interval_chart(
        list(cards["label"]), est, lo, hi, 0.0,
        "win rate when played minus when not, percentage points",
        f"Card impact: the {len(cards)} largest differences", path,
    )  # fmt: skip


def _chart_distribution(
    dist: pd.DataFrame, value: str, xlabel: str, title: str, path: Path
) -> Path:
    """Share of games per value, one step line per run (bars when there is one run)."""
    fig, ax = _figure(8, 4)
    runs = list(dict.fromkeys(dist["run"]))
    for run in runs:
        part = dist[dist["run"] == run]
        if len(runs) == 1:
            ax.bar(part[value], part["share"] * 100, width=1.0, color="#1f4e79", alpha=0.8)
        else:
            ax.step(part[value], part["share"] * 100, where="mid", label=run)
    if len(runs) > 1:
        ax.legend()
    ax.set_xlabel(xlabel)
    ax.set_ylabel("% of games")
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


def _chart_stacked(frame: pd.DataFrame, category: str, title: str, path: Path, xlabel: str) -> Path:
    """Horizontal stacked bars of shares: one bar per run, one segment per category."""
    wide = frame.pivot_table(
        index="run", columns=category, values="share", aggfunc="sum", fill_value=0.0, sort=False
    )
    wide = wide.loc[:, wide.sum() > 0]
    fig, ax = _figure(8, 1.6 + 0.5 * len(wide))
    left = np.zeros(len(wide))
    y = np.arange(len(wide))[::-1]
    for col in wide.columns:
        vals = wide[col].to_numpy() * 100
        ax.barh(y, vals, left=left, label=str(col))
        left += vals
    ax.set_yticks(y, list(wide.index))
    ax.set_xlim(0, 100)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=3, fontsize="small")
    return _save(fig, path)


# --- HTML ------------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1000px; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; display: block; margin: 0.8em 0; }
pre { background: #f7f7f7; padding: 0.8em; white-space: pre-wrap; font-size: 0.85em; }
.note { color: #555; font-size: 0.9em; }
"""


def _pct(s: pd.Series) -> pd.Series:
    return s.map(lambda v: f"{v * 100:.2f}%")


def _pp(s: pd.Series) -> pd.Series:
    return s.map(lambda v: f"{v * 100:+.2f}")


def _table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, escape=True, border=0, na_rep="")


def _img(path: Path | None, alt: str) -> str:
    if path is None:
        return ""
    return f'<img src="{html.escape(path.name)}" alt="{html.escape(alt)}">'


def _html(t: _Tables, images: dict[str, Path | None], text: str, top: int) -> str:
    info = t.info[["run", "mix", "variant", "strategy_p0", "strategy_p1", "first", "seed",
                   "games", "duplicate", "omensim_version", "path"]]  # fmt: skip
    fpa = t.fpa.merge(t.stats[["run", "mean_margin", "mean_turns", "turn_cap_share"]], on="run")
    fpa_view = pd.DataFrame(
        {
            "run": fpa["run"],
            "games": fpa["games"].map("{:,}".format),
            "first-player wins": fpa["first_player_wins"].map("{:,}".format),
            "rate": _pct(fpa["rate"]),
            "95% CI": [f"{lo * 100:.2f}-{hi * 100:.2f}%" for lo, hi in zip(fpa["lo"], fpa["hi"],
                                                                            strict=True)],
            "shared": _pct(fpa["shared"] / fpa["games"]),
            "mean margin (VP)": fpa["mean_margin"].map("{:+.2f}".format),
            "mean turns": fpa["mean_turns"].map("{:.1f}".format),
            "turn cap": _pct(fpa["turn_cap_share"]),
        }
    )  # fmt: skip
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>omensim report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>omensim report</h1>",
        "<h2>Runs</h2>",
        _table(info),
        "<h2>Key figures</h2>",
        f"<pre>{html.escape(text)}</pre>",
        "<h2>First-player advantage</h2>",
        '<p class="note">Share of games won outright by the seat that took the first turn; '
        "a shared victory counts as not a win. Intervals are Wilson 95%.</p>",
        _table(fpa_view),
    ]
    if len(t.paired):
        view = pd.DataFrame(
            {
                "run": t.paired["run"],
                "deals": t.paired["deals"].map("{:,}".format),
                "rate": _pct(t.paired["rate"]),
                "paired 95% CI": [f"{a * 100:.2f}-{b * 100:.2f}%"
                                  for a, b in zip(t.paired["lo"], t.paired["hi"], strict=True)],
                "unpaired 95% CI": [f"{a * 100:.2f}-{b * 100:.2f}%" for a, b in
                                    zip(t.paired["unpaired_lo"], t.paired["unpaired_hi"],
                                        strict=True)],
                "games left out": t.paired["dropped_games"],
            }
        )  # fmt: skip
        parts += [
            '<p class="note">Paired estimate (--duplicate runs): each deal was played once '
            "with each seat first; the interval comes from the spread between deals, so the "
            "luck of the deal cancels (normal approximation).</p>",
            _table(view),
        ]
    parts.append(_img(images.get("fpa"), "first-player win rate by run"))
    if len(t.diffs):
        view = pd.DataFrame(
            {
                "run": t.diffs["a"],
                "compared with": t.diffs["b"],
                "rate": _pct(t.diffs["rate_a"]),
                "other rate": _pct(t.diffs["rate_b"]),
                "difference (pp)": _pp(t.diffs["diff"]),
                "95% CI (pp)": [f"{a * 100:+.2f} to {b * 100:+.2f}"
                                for a, b in zip(t.diffs["lo"], t.diffs["hi"], strict=True)],
            }
        )  # fmt: skip
        parts += [
            "<h2>Differences between runs</h2>",
            '<p class="note">Each run minus the first one given; Newcombe\'s hybrid score '
            "interval for a difference of independent proportions.</p>",
            _table(view),
            _img(images.get("differences"), "differences in first-player win rate"),
        ]
    cards = _top_cards(t, top)
    parts += [
        "<h2>Card impact</h2>",
        '<p class="note">Per player-game: win rate of players who played the card at least '
        "once minus that of players who did not, in percentage points (Newcombe 95% CI). An "
        "association, not a cause: a card may be played because the game is going well. "
        "Cards with too few player-games on either side are left out.</p>",
    ]
    if cards.empty:
        parts.append("<p>No card was played in enough games to say anything.</p>")
    else:
        view = pd.DataFrame(
            {
                "card": cards["label"],
                "kind": cards["kind"],
                "played in": _pct(cards["share"]),
                "win rate when played": _pct(cards["win_played"]),
                "when not": _pct(cards["win_not"]),
                "difference (pp)": _pp(cards["diff"]),
                "95% CI (pp)": [f"{a * 100:+.2f} to {b * 100:+.2f}"
                                for a, b in zip(cards["lo"], cards["hi"], strict=True)],
            }
        )  # fmt: skip
        parts += [_table(view), _img(images.get("cards"), "card impact")]
    comp = t.components.pivot_table(
        index="run", columns="component", values="share", sort=False
    ).reindex(columns=list(A.SCORE_WEIGHTS))
    comp = comp.loc[:, comp.sum() > 0]
    comp_view = comp.apply(_pct).reset_index()
    parts += [
        "<h2>Score margins</h2>",
        "<p class=\"note\">First player's score minus the second player's.</p>",
        _img(images.get("margins"), "score margin histogram"),
        "<h2>Game length</h2>",
        _img(images.get("lengths"), "game length histogram"),
        "<h2>How games end</h2>",
        _img(images.get("end_reasons"), "end reasons"),
        "<h2>Where the points come from</h2>",
        '<p class="note">Share of all VP scored, weighted as in the score '
        "(2&times;unused rewards + used rewards + 2&times;VP tokens + treasured + structures "
        "+ 2&times;feats).</p>",
        _table(comp_view),
        _img(images.get("components"), "score component shares"),
        "</body></html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"


# --- writing ---------------------------------------------------------------------------------


def _check_out_dir(out: Path, runs: list[Path]) -> None:
    """Refuse an output directory that would clobber a file or pollute a run directory."""
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out {out} exists and is not a directory")
    if (out / io.MANIFEST_NAME).exists():
        # PNGs in a run directory would be stray files that later block `run --force`.
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
    streaming: bool = True,
) -> Report:
    """Analyse the runs in ``paths`` and write ``out_dir/report.html`` with its charts.

    With ``streaming`` (the default) every table is computed out of core, one
    batch of each run at a time (:mod:`sim.analysis.streaming`), so memory does
    not grow with the number of games; ``streaming=False`` loads the runs into
    pandas and uses the :mod:`sim.analysis.frames` helpers (same tables).

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
    tables = compute_tables(run_paths, min_games, streaming)
    text = key_figures(tables)

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        images = _draw(tables, tmp, top_cards)
        (tmp / REPORT_NAME).write_text(_html(tables, images, text, top_cards), encoding="utf-8")
        final = _move_into_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    written = [out / p.name for p in images.values() if p is not None]
    return Report(html=final, images=written, text=text)


def _draw(t: _Tables, where: Path, top: int) -> dict[str, Path | None]:
    images: dict[str, Path | None] = {
        "fpa": _chart_fpa(t, where / "fpa.png"),
        "differences": _chart_diffs(t, where / "differences.png") if len(t.diffs) else None,
        "cards": _chart_cards(t, where / "cards.png", top),
        "margins": _chart_distribution(
            t.margins, "margin", "first player's score minus second player's (VP)",
            "Score margins", where / "margins.png",
        ),
        "lengths": _chart_distribution(
            t.lengths, "turns", "turns", "Game length", where / "lengths.png"
        ),
        "end_reasons": _chart_stacked(
            t.ends, "end_reason", "How games end", where / "end_reasons.png", "% of games"
        ),
        "components": _chart_stacked(
            t.components, "component", "Where the points come from", where / "components.png",
            "% of all VP scored",
        ),
    }  # fmt: skip
    return images


def _move_into_place(tmp: Path, out: Path) -> Path:
    """Publish a finished report: rename the whole directory, or move files in, page last."""
    if not out.exists():
        os.replace(tmp, out)
        return out / REPORT_NAME
    for entry in sorted(tmp.iterdir(), key=lambda p: p.name == REPORT_NAME):
        os.replace(entry, out / entry.name)
    tmp.rmdir()
    return out / REPORT_NAME


def write_report(
    paths: Iterable[Path | str] | Path | str,
    out_dir: Path | str,
    *,
    echo: Callable[[str], None] | None = None,
) -> Path:
    """Write ``out_dir/report.html`` (and its PNG charts) about the runs in ``paths``.

    ``echo`` (e.g. ``print``) receives the key figures as text. Returns the
    page's path; see :func:`build_report` for the errors.
    """
    report = build_report(paths, out_dir)
    if echo is not None:
        echo(report.text)
    return report.html
