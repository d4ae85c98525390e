"""``omensim report`` on a compare or a balance folder: the answer the folder exists for.

* A **compare** folder (``compare.json``, written by ``omensim compare --out``)
  leads with what B changed (the run settings and card edits, and each changed
  card's fields A -> B), then the paired shifts B - A with their 95% intervals:
  the first-player win rate, each changed card's holders' win rate, and the
  conditional (played-only) rate as a secondary line. A and B are shown side
  by side only where they differ (the run settings and card fields B changed,
  and the who-wins figures, whose every row differs in general).
* A **balance** folder (``balance.json``, written by ``omensim balance --out``)
  shows every candidate's rate with its interval and its paired shift from the
  shipped value, the chosen value and whether it reaches the target, the looks
  of the race (what was dropped when, and why) and the panel re-check.

Both write one self-contained ``report.html`` and return the same figures as text.
"""

from __future__ import annotations

import dataclasses
import html
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.run import io
from sim.run.seats import SeatCounts

COMPARE_FILE = "compare.json"
BALANCE_FILE = "balance.json"


def folder_kind(path: Path | str) -> str | None:
    """``"compare"`` or ``"balance"`` for such an output folder, else ``None``."""
    p = Path(path)
    try:
        if (p / COMPARE_FILE).is_file():
            return "compare"
        if (p / BALANCE_FILE).is_file():
            return "balance"
    except OSError:  # a name the file system refuses (too long): not such a folder
        pass
    return None


def _pts(x: Any) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x * 100:+.2f}"


def _pct(x: Any) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:.2%}"


def _ci(lo: Any, hi: Any, pts: bool = True) -> str:
    f = _pts if pts else _pct
    return f"{f(lo)} to {f(hi)}"


def changed_fields(summary: dict[str, Any]) -> pd.DataFrame:
    """Each changed card's fields that differ between A and B: ``card, field, A, B``."""
    from sim.run.compiled import run_pool  # deferred: loads numba

    pools = []
    for arm in ("A", "B"):
        a = summary["arms"][arm]
        spec = RunSpec(**{**a["spec"], "variants": tuple(a["spec"].get("variants", ()))})
        pools.append(run_pool(spec, Changes.parse(a["changes"]["change"], a["changes"]["cards"])))
    by_name = [{u["name"]: u for u in p.units} for p in pools]
    rows = []
    for name in summary.get("affected_cards", []):
        ua, ub = by_name[0].get(name), by_name[1].get(name)
        if ua is None or ub is None:
            rows.append(
                {"card": name, "field": "(present)", "A": ua is not None, "B": ub is not None}
            )
            continue
        for key in ua:
            if key in ("name",) or ua[key] == ub.get(key):
                continue
            rows.append({"card": name, "field": key, "A": ua[key], "B": ub.get(key)})
    return pd.DataFrame(rows, columns=["card", "field", "A", "B"])


def _shift_row(measure: str, rec: dict[str, Any], prefix: str, kind: str) -> dict[str, str]:
    """One paired shift of ``compare.json`` (``prefix``: "" or "conditional_") as a table row."""
    return {
        "measure": measure,
        "A": _pct(rec[f"{prefix}rate_a"]),
        "B": _pct(rec[f"{prefix}rate_b"]),
        "shift (points)": _pts(rec[f"{prefix}diff"]),
        "95% CI": _ci(rec[f"{prefix}lo"], rec[f"{prefix}hi"]),
        "kind": kind,
    }


def compare_parts(folder: Path | str) -> tuple[str, dict[str, pd.DataFrame]]:
    """The compare folder's lead text and its tables (changes, shifts, side by side)."""
    folder = Path(folder)
    s = json.loads((folder / COMPARE_FILE).read_text(encoding="utf-8"))
    what = [*s.get("spec_differences", []), *s["changes"]["change"], *s["changes"]["cards"]]
    shifts = [_shift_row("first-player win rate", s["first_player"], "", "headline")]
    for c in s.get("cards", []):
        shifts.append(_shift_row(f"{c['card']}: holders' win rate", c, "", "headline"))
        shifts.append(
            _shift_row(
                f"{c['card']}: conditional (players' win rate)", c, "conditional_", "secondary"
            )
        )
    spec_rows = []
    a_spec, b_spec = s["arms"]["A"]["spec"], s["arms"]["B"]["spec"]
    for k in a_spec:
        if a_spec[k] != b_spec.get(k):
            spec_rows.append({"setting": k, "A": a_spec[k], "B": b_spec.get(k)})
    seats = []
    if s.get("seats_a") and s.get("seats_b"):
        ca, cb = SeatCounts(**s["seats_a"]), SeatCounts(**s["seats_b"])
        for f in dataclasses.fields(SeatCounts):
            va, vb = getattr(ca, f.name), getattr(cb, f.name)
            if va != vb:
                seats.append({"count": f.name.replace("_", " "), "A": va, "B": vb})
    tables = {
        "What B changed: card fields": changed_fields(s),
        "What B changed: run settings": pd.DataFrame(spec_rows, columns=["setting", "A", "B"]),
        "Paired shifts, B - A": pd.DataFrame(shifts),
        "A and B side by side, where they differ": pd.DataFrame(seats, columns=["count", "A", "B"]),
    }
    lines = [
        f"Comparison of {s['games']:,} games of {s['mix']} (seed {s['seed']}), each played as A "
        f"and as B. B changed: {'; '.join(what) or 'nothing'}.",
        "Paired shifts, B - A (95% CI, paired by game):",
    ]
    for row in shifts:
        indent = "    " if row["kind"] == "secondary" else "  "
        lines.append(
            f"{indent}{row['measure']}: {row['A']} -> {row['B']}, {row['shift (points)']} "
            f"points ({row['95% CI']})"
        )
    if s.get("excluded_capped"):
        lines.append(f"{s['excluded_capped']:,} turn-capped games left out of every figure.")
    return "\n".join(lines), tables


def balance_parts(folder: Path | str) -> tuple[str, dict[str, pd.DataFrame]]:
    """The balance folder's lead text and its tables (candidates, looks, panel)."""
    folder = Path(folder)
    s = json.loads((folder / BALANCE_FILE).read_text(encoding="utf-8"))
    cands = pd.DataFrame(s["candidates"])
    shown = pd.DataFrame(
        {
            "candidate": cands["label"] + cands["shipped"].map({True: " (shipped)", False: ""}),
            "rate": cands["rate"].map(_pct),
            "95% CI": [_ci(lo, hi, pts=False) for lo, hi in zip(cands.lo, cands.hi, strict=True)],
            "games": cands["games"].map("{:,}".format),
            "shift from shipped (points)": (
                [
                    f"{_pts(d)} ({_ci(lo, hi)})"
                    for d, lo, hi in zip(
                        cands["shift"], cands.shift_lo, cands.shift_hi, strict=True
                    )
                ]
                if "shift" in cands
                else "-"
            ),
            "fate": [
                f"dropped at look {int(k)}: {why}" if st == "dropped" else st
                for st, k, why in zip(
                    cands.status, cands.dropped_at_look, cands.reason, strict=True
                )
            ],
        }
    )
    looks = pd.DataFrame(
        [
            {
                "look": lk["look"],
                "games per candidate": f"{lk['games']:,}",
                "candidates in": len(lk["alive"]),
                "dropped": "; ".join(
                    f"{cands.label[int(j)]} ({why})" for j, why in lk["dropped"].items()
                )
                or "-",
                "settled": lk["settled"] or "-",
            }
            for lk in s["looks"]
        ]
    )
    tables = {"Candidates": shown, "The race, look by look": looks}
    c = cands.iloc[s["chosen"]]
    verdict = (
        f"reaches {s['target']:.2%} within {s['tolerance'] * 100:.2f} points"
        if s["reached"]
        else f"is the closest; no candidate reaches {s['target']:.2%} within "
        f"{s['tolerance'] * 100:.2f} points"
    )
    lines = [
        f"Balance of {s['metric']} on {s['spec']['mix']} (seed {s['spec']['seed']}, "
        f"{s['spec']['p0']} vs {s['spec']['p1']}): {len(cands)} candidates, "
        f"{s['games']:,} games in all.",
        f"Chosen: {s['chosen_label']}, {_pct(c.rate)} (95% CI {_ci(c.lo, c.hi, pts=False)}); "
        f"it {verdict}.",
        "Settled: " + s["settled"]
        if s["settled"]
        else "Not settled: the games ceiling came first.",
    ]
    if s.get("panel"):
        p = pd.DataFrame(s["panel"])
        tables["Panel re-check"] = pd.DataFrame(
            {
                "bot": p.bot,
                "rate": p.rate.map(_pct),
                "95% CI": [_ci(lo, hi, pts=False) for lo, hi in zip(p.lo, p.hi, strict=True)],
                "shift from shipped": [
                    f"{_pts(d)} ({_ci(lo, hi)})"
                    for d, lo, hi in zip(p["shift"], p.shift_lo, p.shift_hi, strict=True)
                ],
                "holds": p.holds,
            }
        )
        lines.append(f"Panel: the conclusion holds under {int(p.holds.sum())} of {len(p)} bots.")
    return "\n".join(lines), tables


_CSS = (
    "body{font-family:system-ui,sans-serif;max-width:1300px;margin:2em auto;padding:0 1em}"
    "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;"
    "padding:.25em .6em;text-align:left}th{background:#f3f3f3}pre{background:#f8f8f8;"
    "padding:1em;white-space:pre-wrap}"
)


def folder_page(title: str, text: str, tables: dict[str, pd.DataFrame]) -> str:
    """A self-contained HTML page: the lead text, then each non-empty table."""
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
        f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>",
        f"<pre>{html.escape(text)}</pre>",
    ]
    for name, frame in tables.items():
        if frame.empty:
            continue
        parts.append(f"<h2>{html.escape(name)}</h2>")
        parts.append(frame.to_html(index=False, escape=True, border=0))
    parts.append("</body></html>")
    return "\n".join(parts)


def write_folder_report(folder: Path | str, out: Path | str) -> tuple[Path, str]:
    """Write ``out/report.html`` about a compare or balance folder; ``(page, text)``.

    Raises:
        ValueError: ``folder`` is neither.
    """
    kind = folder_kind(folder)
    if kind is None:
        raise ValueError(f"{folder} is not a compare or balance folder")
    text, tables = (compare_parts if kind == "compare" else balance_parts)(folder)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)

    page = out / "report.html"
    with io.atomic_path(page) as tmp:
        tmp.write_text(folder_page(f"omensim {kind}: {Path(folder).name}", text, tables), "utf-8")
    return page, text
