"""What an answer folder says: its kind, its runs, its progress while it is written.

An answer is the folder an ``omensim`` command wrote (a run, a compare, a balance race,
a strength table, a mix ranking). While the command plays, the Parquet parts it has
finished are complete files (each is written in one step), so the running estimate is
read from them: the first player's win rate with its Wilson interval for a run, the
paired first-player shift with its interval for a compare (:mod:`sim.analysis.paired`),
the first player's win rate under each bot for a strength table, and for a balance
race its newest look (the leader's rate and interval).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from sim.analysis.compare_text import rate_shift_text
from sim.analysis.paired import paired_ratio_diff
from sim.run.io import JOB_MANIFEST_NAME
from sim.run.stats import normal_interval, pct, wilson_interval

MANIFEST = "_manifest.json"
PART_GLOB = "part-*.parquet"
RACE_ROWS = "rows"
"""A balance race's folder of paired rows, one Parquet file per candidate and round."""
STEPS = "steps"
"""Where a command that decides look by look keeps each step's rows (sim.run.jobs.STEPS)."""

KIND_FILES = {
    "compare": "compare.json",
    "balance": "balance.json",
    "strength": "strength.csv",
    "mixes": "mixes.csv",
    "run": MANIFEST,
}
"""The file whose presence names a finished folder's kind (checked in this order)."""


def kind_of(folder: Path) -> str | None:
    """``compare``, ``balance``, ``strength``, ``mixes`` or ``run``; None for another folder."""
    for kind, name in KIND_FILES.items():
        if (folder / name).is_file():
            return kind
    return None


def folders(root: Path, depth: int = 3) -> list[Path]:
    """Every answer folder under ``root`` at most ``depth`` levels down, by path: a folder
    of a known kind is listed and not looked into; hidden folders are passed over."""
    found, level = [], [root]
    for _ in range(depth):
        below = []
        for folder in level:
            for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
                if sub.name.startswith("."):
                    continue
                (found if kind_of(sub) else below).append(sub)
        level = below
    return sorted(found)


def run_dirs(folder: Path) -> dict[str, Path]:
    """The run folders inside an answer, by label (``A``, ``B``, a bot, or ``run``)."""
    if (folder / MANIFEST).is_file():
        return {"run": folder}
    return {
        p.name: p
        for p in sorted(folder.iterdir() if folder.is_dir() else [])
        if p.is_dir() and (p / MANIFEST).is_file()
    }


def row_dirs(folder: Path) -> dict[str, Path]:
    """The folders of game rows inside an answer, by label: its runs (:func:`run_dirs`), or
    the steps of a compare played until its intervals were narrow (``steps/A``,
    ``steps/B``: each a folder of parts, as a run's are)."""
    runs = run_dirs(folder)
    steps = {arm: folder / STEPS / arm for arm in ("A", "B")}
    if not runs and all(d.is_dir() for d in steps.values()):
        return steps
    return runs


def _parts(run: Path) -> list[Path]:
    return sorted(run.glob(PART_GLOB)) if run.is_dir() else []


def _arm_parts(folder: Path, arm: str) -> list[Path]:
    """A compare arm's parts written so far: its run's, or its steps'."""
    return _parts(folder / arm) or _parts(folder / STEPS / arm)


def _read(parts: list[Path], columns: list[str]) -> dict[str, np.ndarray]:
    import pyarrow as pa  # deferred: loads pyarrow
    import pyarrow.parquet as pq  # deferred: loads pyarrow

    if not parts:
        return {c: np.zeros(0, np.int64) for c in columns}
    table = pa.concat_tables([pq.read_table(p, columns=columns) for p in parts])
    return {c: table.column(c).to_numpy() for c in columns}


def games_written(folder: Path) -> int:
    """Games in the Parquet parts written so far under ``folder`` (every run in it, and a
    balance race's rows of every candidate)."""
    import pyarrow.parquet as pq  # deferred: loads pyarrow

    subs = [*sorted(folder.glob("*/")), *sorted(folder.glob(f"{STEPS}/*/"))]
    parts = [*_parts(folder), *(p for sub in subs for p in _parts(sub))]
    parts += sorted((folder / RACE_ROWS).glob("*.parquet"))
    total = 0
    for p in parts:
        try:
            total += pq.read_metadata(p).num_rows
        except OSError:  # a part being replaced right now: counted at the next look
            continue
    return total


def _first_player(run: Path) -> str | None:
    """The first player's win rate with its Wilson interval in ``run``'s parts so far."""
    got = _read(_parts(run), ["first_player", "winner"])
    n = len(got["winner"])
    if n == 0:
        return None
    wins = int((got["winner"] == got["first_player"]).sum())
    lo, hi = wilson_interval(wins, n)
    return f"first player won {pct(wins / n)} (95% CI {pct(lo)} to {pct(hi)}) of {n:,} games"


def running_estimate(folder: Path, kind: str) -> str | None:
    """The estimate so far, as a line, from the parts written; None before any."""
    cols = ["game_id", "first_player", "winner"]
    if kind == "first":
        return _first_player(folder)
    if kind == "strength":  # one run per bot (tier), played one after another
        bots = [(sub.name, _first_player(sub)) for sub in sorted(folder.glob("*/"))]
        return "; ".join(f"{bot}: {line}" for bot, line in bots if line) or None
    if kind in ("emissary", "change"):
        a, b = (_read(_arm_parts(folder, arm), cols) for arm in ("A", "B"))
        common, ia, ib = np.intersect1d(a["game_id"], b["game_id"], return_indices=True)
        if len(common) < 2:
            return None
        fa = (a["winner"][ia] == a["first_player"][ia]).astype(np.int8)
        fb = (b["winner"][ib] == b["first_player"][ib]).astype(np.int8)
        ones = np.ones(len(common), np.int8)
        r = SimpleNamespace(**paired_ratio_diff(fa, ones, fb, ones))
        return f"first-player win rate {rate_shift_text(r)} over {len(common):,} paired games"
    if kind == "balance":
        return _race_so_far(folder)
    return None


def _race_so_far(folder: Path) -> str | None:
    """The race's newest look (``decisions.jsonl``, rewritten at every look): its leader's
    rate with its interval, and the candidates still in the race."""
    from sim.analysis.balance import DECISIONS  # deferred: loads the kernel
    from sim.analysis.balance_question import Question  # deferred: loads the kernel

    try:
        lines = (folder / DECISIONS).read_text(encoding="utf-8").splitlines()
        look = json.loads(lines[-1])
        plan = json.loads((folder / JOB_MANIFEST_NAME).read_text(encoding="utf-8"))["plan"]
        labels = Question.from_dict(plan["question"]).labels()
    except (OSError, ValueError, IndexError, KeyError, TypeError):
        return None  # no look yet, or a file being replaced: shown at the next tick
    est = look["estimates"][str(look["leader"])]
    rate = float(est["rate"])
    lo, hi = normal_interval(rate, float(est["se"]))  # the interval the race itself prints
    return (
        f"look {look['look']}: the closest to the target, {labels[look['leader']]}: holders "
        f"won {pct(rate)} (95% CI {pct(lo)} to {pct(hi)}) of "
        f"{int(est['games']):,} games; {len(look['alive'])} of {len(labels)} candidates left"
    )


def measured_speed(answers: Path, bot: str) -> float | None:
    """Games per second of the newest finished run in ``answers`` played by ``bot`` in
    both seats (its manifest's ``games_per_s``), or None when there is none."""
    manifests = sorted(
        answers.glob(f"*/**/{MANIFEST}"), key=lambda p: p.stat().st_mtime, reverse=True
    )
    for path in manifests:
        try:
            m = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        spec = m.get("spec", {})
        if m.get("complete") and spec.get("p0") == bot == spec.get("p1") and m.get("games_per_s"):
            return float(m["games_per_s"])
    return None


def summary(folder: Path) -> dict[str, Any]:
    """A finished folder's key figures for the side-by-side view: label -> value text."""
    kind = kind_of(folder)
    out: dict[str, Any] = {"kind": kind or "-"}
    if kind == "compare":
        c = json.loads((folder / "compare.json").read_text(encoding="utf-8"))
        fp = c["first_player"]
        out["games per arm"] = f"{c['games']:,}"
        out["B with"] = "; ".join(
            [*c.get("spec_differences", []), *c["changes"]["change"], *c["changes"]["cards"]]
        )
        out["first-player shift"] = _shift(fp)
        for card in c.get("cards", []):
            if card["card"] in c.get("affected_cards", []):
                out[f"{card['card']}: holders' shift"] = _shift(card)
    for label, run in run_dirs(folder).items():
        m = json.loads((run / MANIFEST).read_text(encoding="utf-8"))
        games = int(m.get("games", 0))
        wins = int(m.get("first_player_wins", 0))
        if games:
            lo, hi = wilson_interval(wins, games)
            out[f"{label}: first player won"] = (
                f"{pct(wins / games)} ({pct(lo)} to {pct(hi)}) of {games:,}"
            )
    return out


def _shift(row: dict[str, Any]) -> str:
    return (
        f"{row['rate_a']:.2%} -> {row['rate_b']:.2%}, {row['diff'] * 100:+.2f} points "
        f"({row['lo'] * 100:+.2f} to {row['hi'] * 100:+.2f})"
    )
