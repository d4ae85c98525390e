"""``omensim report`` on a compare, balance, sweep, tournament or balance set folder: one
part a kind (its lead text and its tables), each read from the folder's own files and shown
as its command printed it; :func:`sim.analysis.report_html.folder_page` makes the page.
What each part shows: ``docs/balance.md``, "Reports on compare and balance folders".
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.analysis import balance as B
from sim.analysis import tournament as T
from sim.analysis import tournament_text as TT
from sim.analysis.balance_checks import SET_RESULT, SET_TABLE, format_set_panel, format_set_step
from sim.analysis.compare_text import setting_text
from sim.analysis.loading import run_margins
from sim.analysis.report_charts import shift_chart
from sim.analysis.report_html import folder_page, margin_table, write_page
from sim.analysis.sweep import cells_view, format_table, read_sweep
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.run import jobs
from sim.run.margins import MarginMoments, margin_distribution, margin_row
from sim.run.seats import SeatCounts
from sim.run.stats import pct, points, signed_text

COMPARE_FILE = "compare.json"


def folder_kind(path: Path | str) -> str | None:
    """``"compare"``, ``"balance"``, ``"balance set"``, ``"sweep"`` or ``"tournament"``
    for such an output folder, else ``None``."""
    p = Path(path)
    try:
        for kind, (_, *names) in KINDS.items():
            if all((p / name).is_file() for name in names):
                return kind
    except OSError:  # a name the file system refuses (too long): not such a folder
        pass
    return None


def _span(f: Callable[[Any], str], lo: Any, hi: Any) -> str:
    return f"{f(lo)} to {f(hi)}"


def _ci(f: Callable[[Any], str], est: Any, lo: Any, hi: Any) -> str:
    """A figure with its interval, each written by ``f``: ``"+1.20 (+0.10 to +2.30)"``."""
    return f"{f(est)} ({_span(f, lo, hi)})"


def _off(deviation: float) -> str:
    """How far a rate is from 50%: ``"1.20 points off"``."""
    return f"{deviation * 100:.2f} points off"


def _json(folder: Path | str, name: str) -> dict[str, Any]:
    return json.loads((Path(folder) / name).read_text(encoding="utf-8"))


def changed_fields(summary: dict[str, Any]) -> pd.DataFrame:
    """Each changed card's fields that differ between A and B: ``card, field, A, B``."""
    from sim.run.compiled import run_pool  # deferred: loads numba

    units = []
    for arm in ("A", "B"):
        a = summary["arms"][arm]
        spec = RunSpec(**{**a["spec"], "variants": tuple(a["spec"].get("variants", ()))})
        pool = run_pool(spec, Changes.parse(a["changes"]["change"], a["changes"]["cards"]))
        units.append({u["name"]: u for u in pool.units})
    rows = []
    for name in summary.get("affected_cards", []):
        ua, ub = (by_name.get(name) for by_name in units)
        if ua is None or ub is None:
            rows.append(
                {"card": name, "field": "(present)", "A": ua is not None, "B": ub is not None}
            )
            continue
        rows += [
            {"card": name, "field": k, "A": v, "B": ub.get(k)}
            for k, v in ua.items()
            if k != "name" and v != ub.get(k)
        ]
    return pd.DataFrame(rows, columns=["card", "field", "A", "B"])


def margin_frame(margins: dict[str, Any]) -> pd.DataFrame:
    """``{label: per-game margins}`` as the report's margin distribution table (one row per
    label: :func:`sim.run.margins.margin_distribution`)."""
    rows = [
        {"run": label, **margin_distribution(*np.unique(m, return_counts=True))}
        for label, m in margins.items()
    ]
    return margin_table(pd.DataFrame(rows))


MARGIN_TITLE = "The first player's VP margin: distribution"


def shift_row(measure: str, rec: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """One paired shift of ``compare.json`` (``prefix``: "" or, for a secondary one,
    "conditional_") as a table row: A's and B's rates, the shift in points, its interval."""
    return {
        "measure": measure,
        "A": pct(rec[f"{prefix}rate_a"]),
        "B": pct(rec[f"{prefix}rate_b"]),
        "shift": f"{points(rec[f'{prefix}diff'])} points",
        "95% CI": _span(points, rec[f"{prefix}lo"], rec[f"{prefix}hi"]),
        "kind": "secondary" if prefix else "headline",
    }


def _vp(x: Any) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:+.2f}"


def margin_shift_row(rec: dict[str, Any]) -> dict[str, str]:
    """``compare.json``'s ``margin`` (:meth:`sim.run.margins.MarginShift.figures`) as a row:
    A's and B's mean first-player VP margin with their t-intervals, and the paired shift."""
    return {
        "measure": "first player's VP margin",
        "A": f"{_vp(rec['a_mean'])} VP ({_span(_vp, rec['a_lo'], rec['a_hi'])})",
        "B": f"{_vp(rec['b_mean'])} VP ({_span(_vp, rec['b_lo'], rec['b_hi'])})",
        "shift": f"{_vp(rec['diff'])} VP",
        "95% CI": f"{_span(_vp, rec['lo'], rec['hi'])}, paired t",
        "kind": "headline",
    }


def compare_parts(folder: Path | str) -> tuple[str, dict[str, pd.DataFrame]]:
    """The compare folder's lead text and its tables (changes, shifts, side by side)."""
    folder = Path(folder)
    s = _json(folder, COMPARE_FILE)
    what = [*s.get("spec_differences", []), *s["changes"]["change"], *s["changes"]["cards"]]
    shifts = [shift_row("first-player win rate", s["first_player"])]
    if s.get("margin"):
        shifts.append(margin_shift_row(s["margin"]))
    for c in s.get("cards", []):
        shifts.append(shift_row(f"{c['card']}: holders' win rate", c))
        shifts.append(shift_row(f"{c['card']}: conditional (players' win rate)", c, "conditional_"))
    a_spec, b_spec = s["arms"]["A"]["spec"], s["arms"]["B"]["spec"]
    spec_rows = [
        {"setting": k, "A": setting_text(v), "B": setting_text(b_spec.get(k))}
        for k, v in a_spec.items()
        if v != b_spec.get(k)
    ]
    seats = []
    if s.get("seats_a") and s.get("seats_b"):
        ca, cb = (dataclasses.asdict(SeatCounts(**s[k])) for k in ("seats_a", "seats_b"))
        seats = [
            {"count": k.replace("_", " "), "A": v, "B": cb[k]} for k, v in ca.items() if v != cb[k]
        ]
    tables = {
        "What B changed: card fields": changed_fields(s),
        "What B changed: run settings": pd.DataFrame(spec_rows, columns=["setting", "A", "B"]),
        "Paired shifts, B - A": pd.DataFrame(shifts),
        "A and B side by side, where they differ": pd.DataFrame(seats, columns=["count", "A", "B"]),
    }
    tables[MARGIN_TITLE] = margin_frame({arm: run_margins(folder / arm) for arm in "AB"})
    lines = [
        f"Comparison of {s['games']:,} games of {s['mix']} (seed {s['seed']}), each played as A "
        f"and as B. B changed: {'; '.join(what) or 'nothing'}.",
        "Paired shifts, B - A (95% CI, paired by game):",
    ]
    for row in shifts:
        indent = "    " if row["kind"] == "secondary" else "  "
        lines.append(
            f"{indent}{row['measure']}: {row['A']} -> {row['B']}, {row['shift']} ({row['95% CI']})"
        )
    if s.get("excluded_capped"):
        lines.append(f"{s['excluded_capped']:,} turn-capped games left out of every figure.")
    return "\n".join(lines), tables


def sweep_parts(folder: Path | str) -> tuple[str, dict[str, pd.DataFrame]]:
    """The sweep folder's text (as ``omensim sweep`` prints it, after the baseline's
    first-player figures) and its cells table."""
    folder = Path(folder)
    result = read_sweep(folder)
    spec = result.spec
    margins = run_margins(folder / "baseline")
    label, value = margin_row(MarginMoments.from_margins(margins))
    lines = [
        f"Sweep of {result.field} on {spec.mix} (seed {spec.seed}, {spec.p0} vs {spec.p1}): "
        f"{len(result.table)} cells, each {spec.games:,} games paired with the baseline's.",
        f"baseline {label}: {value}",
        format_table(result),
    ]
    cells = cells_view(result)
    # The text marks only what is flagged; a page column of nothing but blanks reads as
    # missing data, so the page says "no" and "-".
    cells["sig"] = cells["sig"].replace("", "no").replace("*", "yes")
    cells["flag"] = cells["flag"].replace("", "-")
    tables = {"Cells: each (card, change) against the baseline": cells}
    if result.skipped:
        tables["Skipped (out of the field's range)"] = pd.DataFrame(result.skipped)
    tables[f"{MARGIN_TITLE} (baseline)"] = margin_frame({"baseline": margins})
    return "\n".join(lines), tables


def tournament_parts(folder: Path | str) -> tuple[str, dict[str, pd.DataFrame]]:
    """The tournament folder's text (``tournament.md``'s) and its tables: the win-rate
    matrix, the self-play first-player table (with the VP margin) and the ratings."""
    result = T.read_tournament(folder)
    tables = {
        "Win rate of the row bot against the column bot": TT.matrix_table(result),
        "First-player win rate in self-play": TT.self_play_table(result),
    }
    fp = result.first_player
    if "first_margin_ahead" in fp and fp["first_margin_ahead"].notna().all():
        # first_margin, first_margin_lo, ... as margin_distribution's mean, lo, ...
        spread = fp.filter(regex="^first_margin").rename(
            columns=lambda c: c.removeprefix("first_margin").lstrip("_") or "mean"
        )
        table = spread.assign(run=fp["bot"], games=fp["games"])
        tables[f"{MARGIN_TITLE} in self-play"] = margin_table(table)
    if result.ratings is not None:  # the cells of ratings.format_ratings
        tables["Ratings (Bradley-Terry, Elo scale)"] = pd.DataFrame(
            {"rank": k, "bot": r.bot, "Elo": f"{r.elo:.0f}", "95% CI": f"{r.lo:.0f} to {r.hi:.0f}"}
            for k, r in enumerate(result.ratings.itertuples(), 1)
        )
    return TT.format_tournament(result), tables


FATES = {"dropped": "dropped at look {k:.0f}: {why}", "rested": "rested: {why}"}
"""How the candidates table says a candidate's fate (any other status as it is)."""


def _margin(r: Any, name: str = "margin") -> str:
    """Row ``r``'s VP figure ``name`` with its interval, ``"+0.75 (+0.68 to +0.81)"``."""
    return signed_text(*(getattr(r, f"{name}{end}") for end in ("", "_lo", "_hi")))


def balance_parts(folder: Path | str) -> tuple[str, dict[str, pd.DataFrame]]:
    """The balance folder's lead text and its tables (candidates, looks, panel, and the
    first player's VP margin: per candidate in the candidates table, its distribution)."""
    s = _json(folder, B.RESULT)
    cands = pd.DataFrame(s["candidates"])
    labels = cands["label"] + cands["shipped"].map({True: " (shipped)", False: ""})
    shown = pd.DataFrame(
        {
            "candidate": label,
            "rate": pct(r.rate),
            "95% CI": _span(pct, r.lo, r.hi),
            "games": f"{r.games:,}",
            "shift from shipped (points)": _ci(points, r.shift, r.shift_lo, r.shift_hi),
            "1st VP margin (95% CI)": _margin(r),
            # The shipped candidate's shift from itself is no figure.
            "margin shift from shipped": "-" if r.shipped else _margin(r, "margin_shift"),
            "fate": FATES.get(r.status, r.status).format(k=r.dropped_at_look, why=r.reason),
        }
        for label, r in zip(labels, cands.itertuples(), strict=True)
    )
    looks = pd.DataFrame(
        {
            "look": lk["look"],
            "games (most played)": f"{lk['games']:,}",
            "candidates in": len(lk["alive"]),
            "dropped": "; ".join(
                f"{cands.label[int(j)]} ({why})" for j, why in lk["dropped"].items()
            )
            or "-",
            "resting": "; ".join(cands.label[int(j)] for j in lk.get("resting", [])) or "-",
            "settled": lk["settled"] or "-",
        }
        for lk in s["looks"]
    )
    # Each candidate's games' first-player VP margins, for their distribution.
    rows = pd.read_parquet(Path(folder) / "rows", columns=["candidate", "margin"])
    margins = {labels[j]: part["margin"].to_numpy() for j, part in rows.groupby("candidate")}
    tables = {
        "Candidates": shown,
        "The race, look by look": looks,
        f"{MARGIN_TITLE} per candidate": margin_frame(margins),
    }
    c = cands.iloc[s["chosen"]]
    goal = f"{s['target']:.2%} within {s['tolerance'] * 100:.2f} points"
    verdict = f"reaches {goal}" if s["reached"] else f"is the closest; no candidate reaches {goal}"
    lines = [
        f"Balance of {s['metric']} on {s['spec']['mix']} (seed {s['spec']['seed']}, "
        f"{s['spec']['p0']} vs {s['spec']['p1']}): {len(cands)} candidates, "
        f"{s['games']:,} games in all.",
        f"Chosen: {s['chosen_label']}, {pct(c.rate)} (95% CI {_span(pct, c.lo, c.hi)}); "
        f"it {verdict}.",
        f"First player's VP margin under {s['chosen_label']}: {_margin(c)} VP (95% t-interval)"
        + ("" if c.shipped else f", {_margin(c, 'margin_shift')} VP from shipped (paired)")
        + ".",
        "Settled: " + s["settled"]
        if s["settled"]
        else "Not settled: the games ceiling came first.",
    ]
    if s.get("panel"):
        p = pd.DataFrame(s["panel"])
        tables["Panel re-check"] = pd.DataFrame(
            {
                "bot": r.bot,
                "rate": pct(r.rate),
                "95% CI": _span(pct, r.lo, r.hi),
                "shift from shipped": _ci(points, r.shift, r.shift_lo, r.shift_hi),
                "1st VP margin (95% CI)": _margin(r),
                "holds": r.holds,
            }
            for r in p.itertuples()
        )
        lines.append(f"Panel: the conclusion holds under {int(p.holds.sum())} of {len(p)} bots.")
    return "\n".join(lines), tables


def set_parts(folder: Path | str) -> tuple[str, dict[str, pd.DataFrame]]:
    """The balance set folder's lead text and its tables (the trade-off, the proposals)."""
    s = _json(folder, SET_RESULT)
    t = pd.read_csv(Path(folder) / SET_TABLE, keep_default_na=False, na_values=[""])
    t[["changes", "edit"]] = t[["changes", "edit"]].fillna("").astype(str)
    yes_no = {True: "yes", False: "no"}
    trade = pd.DataFrame(
        {
            "edits": r.edits,
            "changes": r.changes or "none",
            # The card and its figures in one cell, which may wrap: eleven columns of
            # figures that never wrap would not fit 1,400 px.
            "worst card, measured (95% CI)": f"{r.worst_card} "
            f"{_ci(pct, r.worst_rate, r.worst_lo, r.worst_hi)}, {_off(r.worst_deviation)}",
            "first player (decisive)": pct(r.first_player_decisive),
            "1st VP margin (95% CI)": _margin(r, "first_margin"),
            "verified: worst card": f"{r.verified_worst_card}, {_off(r.verified_worst_deviation)}",
            "verified: first player": pct(r.verified_first_player_decisive),
            "within the bounds": yes_no[r.within_bounds],
        }
        for r in t.itertuples()
    )
    made = t[t.edit != ""]
    proposals = pd.DataFrame(
        {
            "step": r.edits,
            "edit": r.edit,
            "edited card on the new seed (95% CI)": _ci(
                pct, r.verified_rate, r.verified_lo, r.verified_hi
            ),
            "paired shift (points, 95% CI)": _ci(
                points, r.verified_shift, r.verified_shift_lo, r.verified_shift_hi
            ),
            "1st VP margin shift (95% CI)": _margin(r, "verified_margin_shift"),
            "race games": f"{r.race_games:,}",
        }
        for r in made.itertuples()
    )
    spec = s["spec"]
    lines = [
        f"Balance of the whole set {spec['mix']} (seed {spec['seed']}, {spec['p0']} vs "
        f"{spec['p1']}): every card's holders' rate within {s['threshold'] * 100:.2f} points "
        f"of 50%, the first player's within {s['first_bound'] * 100:.2f}; each edit moves one "
        f"of {', '.join(s['fields'])}. {s['games']:,} games in the races, measurements and "
        "verifications.",
        f"Each step verified on seed {s['verify_seed']} (games no race played), paired with "
        "the step before.",
        "Edits made vs the worst remaining deviation:",
        *map(format_set_step, t.to_dict("records")),
    ]
    reached = t[t.within_bounds]
    lines.append(
        f"The bounds hold after {int(reached.edits.iloc[0])} edit(s)."
        if len(reached)
        else "The bounds do not hold at any step shown."
    )
    tables = {"Edits made vs the worst remaining deviation": trade, "Verified proposals": proposals}
    if s.get("panel"):
        p = pd.DataFrame(s["panel"])
        tables["Panel re-check: the edits together, per bot"] = pd.DataFrame(
            {
                "bot": r.bot,
                "card": r.card,
                "before": pct(r.rate_before),
                "after (95% CI)": _ci(pct, r.rate_after, r.lo_after, r.hi_after),
                "paired shift (points, 95% CI)": _ci(points, r.shift, r.shift_lo, r.shift_hi),
                "closer to 50%": yes_no[r.closer],
                "worst card after": f"{r.worst_card_after} ({_off(r.worst_deviation_after)})",
            }
            for r in p.itertuples()
        )
        lines += format_set_panel(p)
    return "\n".join(lines), tables


KINDS = {
    "compare": (compare_parts, COMPARE_FILE),
    "balance": (balance_parts, B.RESULT),
    "sweep": (sweep_parts, "sweep.parquet"),
    "tournament": (tournament_parts, T.PAIRS_FILE),
    "balance set": (set_parts, SET_RESULT, SET_TABLE),
}
"""Each kind of output folder: what gives its lead text and tables, and the files whose
presence says a folder is a finished output of that command."""


def write_folder_report(folder: Path | str, out: Path | str) -> tuple[Path, str]:
    """Write ``out/report.html`` about a compare, balance, balance set, sweep or tournament
    folder; ``(page, text)``.

    Raises:
        ValueError: ``folder`` is neither.
    """
    kind = folder_kind(folder)
    if kind is None:
        raise ValueError(
            f"{folder} is not a compare, balance, balance set, sweep or tournament folder"
        )
    if kind != "balance set":  # a job's folder (sim.run.jobs): its checksums checked first
        try:
            jobs.verify(folder, kind)
        except FileNotFoundError:
            raise jobs.JobReadError(
                f"{folder} has no {jobs.JOB_NAME}: written before folders carried checksums, "
                "or not finished; run the command again"
            ) from None
    try:
        text, tables = KINDS[kind][0](folder)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise jobs.JobReadError(f"{folder}: its {KINDS[kind][1]} lacks {exc}") from None
    chart = shift_chart(_json(folder, COMPARE_FILE)) if kind == "compare" else None
    images = {"Heat map": Path(folder) / "sweep.png"} if kind == "sweep" else {}
    title = f"omensim {kind}: {Path(folder).name}"
    return write_page(Path(out), folder_page(title, text, tables, images, chart)), text
