"""The HTML of ``omensim report``: every page is a jinja2 template of
``sim/analysis/templates/`` (:func:`render`), self-contained (one stylesheet, charts as data
URIs, the card table's few lines of script): the page about runs (:func:`page`) and the
page about a command's folder (:func:`folder_page`)."""

from __future__ import annotations

import math
from importlib.resources import files
from pathlib import Path
from typing import Any

import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from sim import analysis as A
from sim.analysis.card_strength import rank_correlation
from sim.analysis.report_charts import png_uri
from sim.analysis.report_tables import Tables
from sim.base.layout import SCORE_TERMS
from sim.run import io
from sim.run.lock import locked
from sim.run.margins import margin_distribution
from sim.run.stats import pct, points

FILTER_JS = (files("sim.analysis") / "templates" / "card_filter.js").read_text("utf-8")
"""The card filter's test of one row (``cardRowMatches``), as the page runs it."""

_PAGES = Environment(
    loader=PackageLoader("sim.analysis", "templates"),
    autoescape=select_autoescape(["html"]),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def render(template: str, **context: Any) -> str:
    """A report page from ``template`` (a file of ``sim/analysis/templates/``)."""
    return _PAGES.get_template(template).render(**context) + "\n"


def html_table(frame: pd.DataFrame, cls: str = "", **kw: Any) -> Markup:
    """``frame`` as an HTML table, its text escaped (``kw`` to :meth:`DataFrame.to_html`);
    a name of its columns' index (a pivot's) would be a header cell of its own, so none."""
    frame = frame.rename_axis(columns=None)
    return Markup(
        frame.to_html(index=False, escape=True, border=0, na_rep="", classes=cls or None, **kw)
    )


def vp_interval(lo: float, hi: float) -> str:
    """A VP figure's interval, ``"+0.10 to +2.30"``."""
    return f"{lo:+.2f} to {hi:+.2f}"


def finite(value: Any) -> bool:
    """Whether ``value`` is a number that is not NaN or infinite."""
    return value is not None and math.isfinite(value)


_PAGES.tests["finite"] = finite
# How the templates write a figure or an interval (pct and points: the statistics module's).
_PAGES.filters.update(
    pct=pct,
    points=points,
    vp_interval=vp_interval,
    count=lambda n: f"{n:,.0f}" if finite(n) else "",  # "12,345"
    rate_interval=lambda lo, hi: f"{lo * 100:.2f}-{hi * 100:.2f}%",  # "51.00-53.20%"
    points_interval=lambda lo, hi: f"{lo * 100:+.2f} to {hi * 100:+.2f}",  # "+0.10 to +2.30"
    sort_key=lambda v: repr(float(v)) if finite(v) else "",  # a sortable column's data-v
    html_table=html_table,
)


def margin_table(m: pd.DataFrame) -> pd.DataFrame:
    """Rows of :func:`sim.run.margins.margin_distribution` (with a ``run`` label
    column) as the report's text cells: mean, interval, sd, quantiles, ahead/level/behind."""
    if m.empty:
        return m
    quantiles = [c for c in m.columns if c.startswith("p") and c[1:].isdigit()]
    return pd.DataFrame(
        {
            "run": m["run"],
            "games": m["games"].map("{:,.0f}".format),
            "mean (VP)": m["mean"].map("{:+.2f}".format),
            "95% t-interval": list(map(vp_interval, m["lo"], m["hi"])),
            "sd": m["sd"].map("{:.1f}".format),
            **{q: m[q].map("{:+d}".format) for q in quantiles},
            **{side: m[side].map(pct) for side in ("ahead", "level", "behind")},
        }
    )


def _strength(t: Tables) -> list[tuple[str | None, Markup, Markup | None]]:
    """The "Card strength" groups, one a mix (named when there are several): holders' win
    rate, plays and rank per run, and the rank correlation between runs of the mix."""
    st = t.strength
    if st.empty:
        return []
    cells = st.assign(
        shown=[
            f"{r.rate:.1%} ({r.lo:.1%}-{r.hi:.1%}), {r.played_per_game:.2f}/g, #{r.rank}"
            if pd.notna(r.rate)
            else ""
            for r in st.itertuples()
        ]
    )
    several = cells["mix"].nunique() > 1
    groups = []
    for mix, part in cells.groupby("mix", sort=False):
        runs = list(dict.fromkeys(part["bot"]))
        wide = part.pivot_table(
            index=["kind", "card"], columns="bot", values="shown", aggfunc="first", sort=False
        )[runs]
        first = part[part["bot"] == runs[0]]["kind"].tolist()
        wide = wide.reindex(first, level="kind").reset_index().drop(columns="kind")
        corr = None
        if len(runs) > 1:
            corr = rank_correlation(st[st["mix"] == mix]).map("{:.2f}".format)
            corr = html_table(corr.rename_axis("run").reset_index())
        groups.append((str(mix) if several else None, html_table(wide), corr))
    return groups


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
        ["run", "mix", "variant", "strategy_p0", "strategy_p1", "first", "seed", "games",
         "duplicate"]
    ].rename(columns={"strategy_p0": "p0", "strategy_p1": "p1"})  # fmt: skip
    fpa = t.fpa.merge(
        t.stats[["run", "mean_margin", "margin_lo", "margin_hi", "mean_turns", "turn_cap_share"]],
        on="run",
    )
    comp = t.components.pivot_table(
        index="run", columns="component", values="share", sort=False
    ).reindex(columns=list(A.SCORE_WEIGHTS))
    comp_view = comp.loc[:, comp.sum() > 0].map(pct).reset_index()
    q_view = t.length_quantiles.set_index("run").map("{:.1f}".format).reset_index()
    margins = [
        {"run": run, **margin_distribution(part["margin"], part["games"])}
        for run, part in t.margins.groupby("run", sort=False)
    ]
    return render(
        "runs.html",
        info=html_table(info, "runs"),
        versions=", ".join(sorted({str(v) for v in t.info["omensim_version"]})),
        panel=panel,
        text=text,
        fpa=fpa.to_dict("records"),
        t=t,
        strength=_strength(t),
        lengths=html_table(q_view),
        margins=html_table(margin_table(pd.DataFrame(margins))),
        formula=" + ".join(
            f"{t.weight}\N{MULTIPLICATION SIGN}{t.name}" if t.weight != 1 else t.name
            for t in SCORE_TERMS
        ),
        components=html_table(comp_view),
        charts=charts,
    )


REPORT_NAME = "report.html"


def write_page(out: Path, html: str) -> Path:
    """Write ``html`` as ``out/report.html`` under the folder's lock (the one every writer
    of a folder takes), atomically: a full disk or a crash leaves the old page intact."""
    out.mkdir(parents=True, exist_ok=True)
    page = out / REPORT_NAME
    with locked(out), io.atomic_path(page) as tmp:
        tmp.write_text(html, encoding="utf-8")
    return page


PROSE_CHARS = 40
"""A table column with a cell longer than this may wrap on the page."""


def folder_page(
    title: str,
    text: str,
    tables: dict[str, pd.DataFrame],
    images: dict[str, Path] | None = None,
    chart: str | None = None,
) -> str:
    """A self-contained HTML page: the lead text, a compare's shift ``chart`` (a data URI)
    when given, each non-empty table, then each PNG of ``images`` (``{caption: path}``)."""
    entries = []
    for i, (name, frame) in enumerate(tables.items()):
        if frame.empty:
            continue
        # A column of sentences (a fate, what was dropped) may wrap; figures never do.
        prose = [
            j + 1
            for j, c in enumerate(frame.columns)
            if j and frame[c].astype(str).str.len().max() > PROSE_CHARS
        ]
        html = html_table(frame, table_id=f"t{i}")
        entries.append({"name": name, "id": f"t{i}", "html": html, "prose": prose})
    pngs = [(caption, png_uri(path.read_bytes())) for caption, path in (images or {}).items()]
    return render("folder.html", title=title, text=text, chart=chart, tables=entries, images=pngs)
