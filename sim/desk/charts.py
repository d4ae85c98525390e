"""An answer's charts, drawn on the server by matplotlib as inline SVG (no network, no
script library): the paired shifts with their intervals, a balance race's candidates and
how they converged look by look, every card's strength (or its effect per skill tier),
the first player's win rate by game length, and the first player's VP margin. Each reads
the answer folder's own files."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.desk.answers import row_dirs
from sim.run.stats import normal_interval, wilson_interval

WIDTH_IN = 9.0
"""Inches at 100 dpi: a chart fits the page's 1,400 px column beside nothing else."""


def _svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    import matplotlib.pyplot as plt  # deferred: loads matplotlib

    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg") :]


def _figure(rows: int = 1, height: float = 3.2) -> tuple[Any, Any]:
    import matplotlib  # deferred: loads matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # deferred: loads matplotlib

    return plt.subplots(rows, 1, figsize=(WIDTH_IN, height))


def _intervals(ax: Any, labels: list[str], mid: np.ndarray, lo: np.ndarray, hi: np.ndarray,
               xlabel: str, ref: float, marked: set[str] = frozenset()) -> None:  # fmt: skip
    y = np.arange(len(labels))[::-1]
    colors = ["#b03a2e" if lab in marked else "#2e5e8c" for lab in labels]
    ax.hlines(y, lo, hi, colors=colors, lw=1.5)
    ax.scatter(mid, y, c=colors, zorder=3, s=14)
    ax.axvline(ref, color="#888", lw=0.8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)


def shifts(folder: Path) -> str:
    """Each paired shift of a compare (B - A, points) with its 95% interval; the first
    player and the changed cards in red."""
    import json

    t = pd.read_parquet(folder / "compare.parquet")
    changed = set(json.loads((folder / "compare.json").read_text())["affected_cards"])
    labels = [
        "first player" if m == "first_player_win_rate" else m.split(": ", 1)[-1]
        for m in t["metric"]
    ]
    fig, ax = _figure(height=0.22 * len(t) + 1.2)
    _intervals(
        ax, labels, t["diff"].to_numpy() * 100, t["lo"].to_numpy() * 100,
        t["hi"].to_numpy() * 100, "paired shift, B - A (points, 95% CI)", 0.0,
        changed | {"first player"},
    )  # fmt: skip
    ax.set_title("What B changed: the first player's and each card's holders' win rate")
    return _svg(fig)


def candidates(folder: Path) -> str:
    """A balance race's candidates: each value's rate with its interval, and its fate."""
    t = pd.read_csv(folder / "candidates.csv")
    fig, ax = _figure(height=0.3 * len(t) + 1.2)
    labels = [f"{lab} ({status})" for lab, status in zip(t["label"], t["status"], strict=True)]
    _intervals(
        ax, labels, t["rate"].to_numpy() * 100, t["lo"].to_numpy() * 100,
        t["hi"].to_numpy() * 100, "holders' win rate (%, 95% CI) and games played", 50.0,
        {lab for lab, s in zip(labels, t["status"], strict=True) if s in ("chosen", "winner")},
    )  # fmt: skip
    for y, (rate, games) in enumerate(zip(t["rate"][::-1], t["games"][::-1], strict=True)):
        ax.annotate(f"{games:,} games", (rate * 100, y), xytext=(6, 4),
                    textcoords="offset points", fontsize=7, color="#555")  # fmt: skip
    ax.set_title("The race: every candidate value, the target 50%")
    return _svg(fig)


def convergence(folder: Path) -> str | None:
    """A balance race converging: each candidate's rate and 95% interval at every look
    (``decisions.jsonl``), against the games it had played, until it was dropped or won."""
    import json

    path = folder / "decisions.jsonl"
    if not path.is_file():
        return None
    looks = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    table = pd.read_csv(folder / "candidates.csv")
    labels = dict(zip(table["candidate"], table["label"], strict=True))
    fig, ax = _figure(height=3.6)
    for j, label in labels.items():
        points = [lk["estimates"][str(j)] for lk in looks if str(j) in lk["estimates"]]
        if not points:
            continue
        games = np.array([p["games"] for p in points])
        rate = np.array([p["rate"] for p in points]) * 100
        _, hi = normal_interval(rate, np.array([p["se"] for p in points]) * 100)
        ax.errorbar(games, rate, yerr=hi - rate, marker="o", ms=3, capsize=2, lw=1, label=label)
    ax.axhline(50.0, color="#888", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("games each candidate had played at the look (log scale)")
    ax.set_ylabel("holders' win rate (%, 95% CI)")
    ax.legend(fontsize=7, ncols=4)
    ax.set_title("The race converging: every candidate at every look, the target 50%")
    return _svg(fig)


def strength(folder: Path) -> str:
    """Every card's holders' win rate with its interval (strength.csv), best first."""
    t = pd.read_csv(folder / "strength.csv").sort_values("rate", ascending=False)
    bot = str(t["bot"].iloc[0])
    t = t[t["bot"] == bot]
    fig, ax = _figure(height=0.22 * len(t) + 1.2)
    _intervals(
        ax, list(t["card"]), t["rate"].to_numpy() * 100, t["lo"].to_numpy() * 100,
        t["hi"].to_numpy() * 100, f"holders' win rate under {bot} (%, 95% CI)", 50.0,
    )  # fmt: skip
    return _svg(fig)


def tiers(folder: Path) -> str:
    """Each card's effect per skill tier (tiers.csv: holders' win rate minus the other
    player-games', points, 95% CI), one colour a tier, cards by their strongest tier's
    effect; a card whose sign changes between tiers is named in red."""
    t = pd.read_csv(folder / "tiers.csv")
    bots = list(dict.fromkeys(t["bot"]))
    order = t.groupby("card")["effect"].max().sort_values(ascending=False).index
    flagged = set(t.loc[t["sign_change"].astype(bool), "card"])
    fig, ax = _figure(height=0.26 * len(order) + 1.4)
    y = {card: i for i, card in enumerate(order[::-1])}
    step = 0.4 / max(1, len(bots) - 1)
    for k, bot in enumerate(bots):
        rows = t[t["bot"] == bot]
        ys = np.array([y[c] for c in rows["card"]]) + 0.2 - k * step
        ax.hlines(ys, rows["lo"] * 100, rows["hi"] * 100, color=f"C{k}", lw=1.2)
        ax.scatter(rows["effect"] * 100, ys, color=f"C{k}", s=12, zorder=3, label=bot)
    ax.axvline(0.0, color="#888", lw=0.8)
    ax.set_yticks(list(y.values()), list(y))
    for label in ax.get_yticklabels():
        label.set_fontsize(8)
        if label.get_text() in flagged:
            label.set_color("#b03a2e")
    ax.set_xlabel("holders' effect per tier (points, 95% CI)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(title="tier, weakest first", fontsize=8, loc="lower right")
    ax.set_title("Every card's strength under each skill tier")
    return _svg(fig)


def _rows(run: Path) -> pd.DataFrame:
    cols = ["first_player", "winner", "score_p0", "score_p1", "turns"]
    return pd.read_parquet(run, columns=cols)


def _per_run(
    folder: Path, draw: Callable[[Any, str, pd.DataFrame], None], labels: tuple[str, str, str]
) -> str | None:
    """One chart with ``draw(ax, label, rows)`` for each run of the answer; ``labels``:
    the x axis, the y axis and the title."""
    runs = row_dirs(folder)
    if not runs:
        return None
    fig, ax = _figure()
    for label, run in runs.items():
        draw(ax, label, _rows(run))
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_title(labels[2])
    ax.legend()
    return _svg(fig)


def _by_turn(ax: Any, label: str, df: pd.DataFrame) -> None:
    g = df.assign(won=df["winner"] == df["first_player"]).groupby("turns")["won"]
    n, wins = g.size(), g.sum()
    keep = n >= max(20, 0.002 * len(df))  # lengths too rare to show a rate
    n, wins = n[keep], wins[keep]
    lo, hi = wilson_interval(wins.to_numpy(), n.to_numpy())
    ax.plot(n.index, wins / n * 100, marker="o", ms=3, label=label)
    ax.fill_between(n.index, lo * 100, hi * 100, alpha=0.2)
    ax.axhline(50, color="#888", lw=0.8)


def by_turn(folder: Path) -> str | None:
    """The first player's win rate by game length (turns), per run, with Wilson bands."""
    return _per_run(folder, _by_turn, (
        "game length (turns)", "first player won (%)",
        "First player's win rate by game length (95% Wilson bands)",
    ))  # fmt: skip


def _margin(ax: Any, label: str, df: pd.DataFrame) -> None:
    first0 = df["first_player"].to_numpy() == 0
    m = np.where(first0, df["score_p0"] - df["score_p1"], df["score_p1"] - df["score_p0"])
    edges = np.arange(m.min() - 0.5, m.max() + 1.5)
    ax.hist(m, bins=edges, histtype="step", lw=1.5, label=f"{label}: mean {m.mean():+.2f} VP")
    ax.axvline(0, color="#888", lw=0.8)


def margins(folder: Path) -> str | None:
    """The first player's VP margin (their score minus the other's), per run."""
    return _per_run(
        folder, _margin, ("first player's VP margin", "games", "The first player's VP margin")
    )


def for_answer(folder: Path, kind: str) -> list[str]:
    """Every chart that fits an answer of ``kind`` (a folder's kind), as SVG texts."""
    out: list[str | None] = []
    if kind == "compare":
        out.append(shifts(folder))
    if kind == "balance":
        out += [candidates(folder), convergence(folder)]
    if kind == "strength":
        out.append(tiers(folder) if (folder / "tiers.csv").is_file() else strength(folder))
    if kind in ("run", "compare", "strength"):
        out += [by_turn(folder), margins(folder)]
    return [svg for svg in out if svg]
