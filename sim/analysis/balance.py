"""``omensim balance``: the value of a card field or a rule that brings a rate to a target.

A question (:mod:`sim.analysis.balance_question`) names what is searched (card fields, a rule
parameter, a variant off and on) and what is measured (the card's holders' win rate, or the
first player's share of decisive games), target 50%. Each candidate is a run of the same
games (common random numbers), the shipped value among them, so every shift from shipped is
paired; the candidates race (:mod:`sim.analysis.race`). The race is played into a folder as
it goes (:mod:`sim.run.jobs`; the files are listed in ``docs/balance.md``), and
``resume_balance(out)`` replays the rows whose checksums the log holds and plays only what is
missing, so a resumed race equals an uninterrupted one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sim.analysis import race as R
from sim.analysis.balance_question import Question, candidate_run, measure
from sim.analysis.balance_text import format_result as format_result
from sim.analysis.paired import READ_COLUMNS, Outcomes
from sim.data.changes import Changes
from sim.data.spec import RunSpec, SpecError
from sim.run import io, jobs, ledger
from sim.run import progress as P
from sim.run.compiled import run_pool
from sim.run.margins import MarginMoments, MarginShift
from sim.run.runner import DEFAULT_CHUNK_SIZE, RunError
from sim.run.session import numba_threads, resolve_threads
from sim.run.stats import normal_interval, paired_ratio_se

DEFAULT_BOT = "greedy"
"""The bot a balance question is asked under unless ``--p0/--p1`` say otherwise: the
strongest the project ships at a usable speed (the one place that says which)."""
DEFAULT_TARGET = 0.5
DEFAULT_TOLERANCE = 0.0025
"""+/- 0.25 points: how near the target a value must come to count as reaching it."""
DEFAULT_PILOT = 4_000
DEFAULT_CEILING = 400_000
"""Most games one candidate plays (the last look of the doubling schedule)."""
PLAN_NAME = jobs.JOB_NAME
KIND = "balance"
ROWS = "rows"
DECISIONS = "decisions.jsonl"
TABLE = "candidates.csv"
RESULT = "balance.json"
BALANCE_FILES = (*jobs.JOB_FILES, ROWS, DECISIONS, TABLE, RESULT, "rules")
Rows = tuple[np.ndarray, np.ndarray, np.ndarray]
"""A candidate's per-game ``(num, den, margin)``: its rate's numerator and denominator
(int8) and the first player's VP margin (int16), in game order."""


@dataclass
class BalanceResult:
    """A finished race: every candidate's figures, the looks, the choice."""

    question: Question
    spec: RunSpec
    target: float
    tolerance: float
    precision: float
    table: pd.DataFrame
    """One row per candidate (see :func:`candidate_table`)."""
    looks: list[R.Look]
    chosen: int
    settled: str | None
    games: int
    """Games played by all candidates together."""
    seconds: float = 0.0
    out: Path | None = None
    panel: pd.DataFrame | None = None
    """With ``--panel``: the chosen value re-checked under each bot (see :func:`panel_check`)."""

    @property
    def chosen_row(self) -> pd.Series:
        """The chosen candidate's row of :attr:`table`."""
        return self.table.iloc[self.chosen]

    @property
    def reached(self) -> bool:
        """Whether the chosen value's estimate is within ``tolerance`` of the target."""
        return bool(abs(self.chosen_row["rate"] - self.target) <= self.tolerance)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``balance.json``)."""
        return {
            "format": "omensim-balance",
            "question": self.question.to_dict(),
            "metric": self.question.metric,
            "spec": dataclasses.asdict(self.spec),
            "target": self.target,
            "tolerance": self.tolerance,
            "precision": self.precision,
            "chosen": self.chosen,
            "chosen_label": self.question.label(self.chosen),
            "reached": self.reached,
            "settled": self.settled,
            "games": self.games,
            "seconds": self.seconds,
            "candidates": records(self.table),
            "looks": [lk.to_dict() for lk in self.looks],
            "panel": None if self.panel is None else records(self.panel),
        }


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows as JSON-ready dicts (numpy scalars made plain, NaN as ``None``)."""

    def clean(v: Any) -> Any:
        v = v.item() if hasattr(v, "item") else v
        return None if isinstance(v, float) and not math.isfinite(v) else v

    return [{k: clean(v) for k, v in row.items()} for row in frame.to_dict("records")]


class CandidatePlayer:
    """Plays a question's candidate runs over game ranges, one engine per candidate (the
    kernel compiled once); ``key`` is the first candidate's run key."""

    def __init__(
        self,
        q: Question,
        spec: RunSpec,
        base: Changes,
        rules_dir: Path,
        chunk_size: int,
        show: bool,
    ) -> None:
        from sim.run.engine import Engine  # deferred: importing it loads the batch kernel

        self.q, self.chunk, self.show = q, chunk_size, show
        self.runs = [candidate_run(q, spec, base, j, rules_dir) for j in range(len(q.candidates))]
        for sp, ch in self.runs:  # every candidate is checked before any game is played
            run_pool(sp, ch)
        self._engine_cls = Engine
        self._engines: dict[int, Any] = {}
        self.n_kinds = len(run_pool(spec, base).units)
        with P.kernel_ready(show):
            first = self.engine(0)
            first.warmup()
        self.key = ledger.run_key(spec, first.metadata)

    def engine(self, j: int) -> Any:
        if j not in self._engines:
            sp, ch = self.runs[j]
            self._engines[j] = self._engine_cls(sp, changes=ch)
        return self._engines[j]

    def play(self, j: int, start: int, stop: int, bar: P.Bar) -> Rows:
        """Candidate ``j``'s ``(num, den, margin)`` over games ``start .. stop-1``."""
        eng = self.engine(j)
        parts = []

        def tick(rows: Any) -> bool:
            bar.advance(len(rows))
            return False

        for s in range(start, stop, self.chunk):
            n = min(self.chunk, stop - s)
            table = eng.play(s, n, tick=tick).select(READ_COLUMNS)
            o = Outcomes.from_frame(table, self.n_kinds)
            parts.append((*measure(self.q, o), np.asarray(o.margin, np.int16)))
        return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))  # type: ignore[return-value]


def _rows_path(out: Path, j: int, r: int) -> Path:
    return out / ROWS / f"c{j:02d}-r{r:02d}.parquet"


def _save_rows(
    out: Path,
    j: int,
    r: int,
    start: int,
    num: np.ndarray,
    den: np.ndarray,
    margin: np.ndarray,
) -> Path:
    path = _rows_path(out, j, r)
    path.parent.mkdir(parents=True, exist_ok=True)
    cols = {
        "game_id": pa.array(np.arange(start, start + len(num), dtype=np.int64)),
        "candidate": pa.array(np.full(len(num), j, np.int16)),
        "num": pa.array(num),
        "den": pa.array(den),
        "margin": pa.array(margin),
    }
    table = pa.table(cols)
    with io.atomic_path(path) as tmp:
        pq.write_table(table, tmp)
    return path


def _load_rows(
    out: Path, j: int, r: int, start: int, stop: int, saved: dict[str, str]
) -> tuple | None:
    """Round ``r``'s rows of candidate ``j`` as a cut race saved them, if the log records
    the file (``saved``: file -> SHA-256); a file it does not record is played again."""
    path = _rows_path(out, j, r)
    rel = path.relative_to(out).as_posix()
    if rel not in saved or not path.exists():
        return None
    if io.file_digest(path) != saved[rel]:
        raise RunError(f"cannot resume {out}: {rel} was edited since the race wrote it")
    t = pq.read_table(path)
    ids = t.column("game_id").to_numpy()
    if len(ids) != stop - start or (len(ids) and (ids[0] != start or ids[-1] != stop - 1)):
        return None  # not this round's games: play them again
    if "margin" not in t.column_names:
        return None  # written before the rows kept the margin: play them again
    return (
        t.column("num").to_numpy().astype(np.int8),
        t.column("den").to_numpy().astype(np.int8),
        t.column("margin").to_numpy().astype(np.int16),
    )


def race(
    q: Question,
    spec: RunSpec,
    *,
    base: Changes | None = None,
    target: float = DEFAULT_TARGET,
    tolerance: float = DEFAULT_TOLERANCE,
    precision: float | None = None,
    pilot: int = DEFAULT_PILOT,
    ceiling: int = DEFAULT_CEILING,
    alpha: float = R.ALPHA,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: bool | None = None,
    out: Path | str | None = None,
    force: bool = False,
    on_look: Callable[[R.Look], None] | None = None,
    panel: Callable[[BalanceResult], Any] | None = None,
) -> BalanceResult:
    """Race the question's candidates toward ``target`` (see the module docstring).

    The options are ``omensim balance``'s (``spec.games`` is ignored: the schedule
    decides; ``precision`` defaults to ``tolerance``). ``out`` plays into that folder
    (resumable with :func:`resume_balance`); ``on_look`` is called with each look's
    decisions; ``panel`` with the result before it is written, and what it returns is the
    result's ``panel`` (e.g. :func:`sim.analysis.balance_checks.panel_check`).

    Raises:
        SpecError: a bad argument. RunError: a bad output folder or chunk size.
    """
    _check_numbers(target, tolerance, precision, pilot, ceiling, alpha, chunk_size)
    base = base or Changes()
    plan = {
        "question": q.to_dict(),
        "spec": dataclasses.asdict(spec),
        "base": base.describe(),
        "target": target,
        "tolerance": tolerance,
        "precision": tolerance if precision is None else precision,
        "pilot": pilot,
        "ceiling": ceiling,
        "alpha": alpha,
        "chunk_size": chunk_size,
    }
    if out is None:  # one code path: a folder, a temporary one when none is asked for
        with tempfile.TemporaryDirectory(prefix="omensim-balance-") as tmp:
            result = _play(
                plan, Path(tmp) / KIND, threads, progress, fresh=True, on_look=on_look, panel=panel
            )
        return dataclasses.replace(result, out=None)
    out = io.local_out(out)
    check_balance_out(out, force)
    return _play(
        plan, out, threads, progress, fresh=True, on_look=on_look, force=force, panel=panel
    )


def _check_numbers(
    target: float,
    tolerance: float,
    precision: float | None,
    pilot: int,
    ceiling: int,
    alpha: float,
    chunk_size: int,
) -> None:
    if not 0 < target < 1:
        raise SpecError(f"--target must be a rate between 0 and 1, e.g. 0.5; got {target:g}")
    if not 0 < tolerance < 0.5:
        raise SpecError(
            f"--tolerance must be between 0 and 0.5 (0.0025 = 0.25 points); got {tolerance:g}"
        )
    if precision is not None and not 0 < precision < 0.5:
        raise SpecError(f"--precision must be between 0 and 0.5; got {precision:g}")
    if pilot < 100:
        raise SpecError(f"--pilot must be at least 100 games, got {pilot}")
    if ceiling < pilot:
        raise SpecError(f"--max-games ({ceiling}) must be at least --pilot ({pilot})")
    if not 0 < alpha < 0.5:
        raise SpecError(f"--alpha must be between 0 and 0.5, got {alpha:g}")
    if chunk_size < 1:
        raise RunError(f"--chunk-size must be at least 1, got {chunk_size}")


def check_balance_out(out: Path, force: bool) -> None:
    """Refuse ``out`` before playing: absent or empty, or an earlier balance run with ``force``."""
    io.check_output_dir(out, force, ours=lambda e: e.name in BALANCE_FILES, what="balance")


def resume_balance(
    out: Path | str, threads: int | None = None, progress: bool | None = None
) -> BalanceResult:
    """Finish the balance race in ``out``: reuse its rows, play what is missing.

    Raises:
        RunError: ``out`` holds no balance plan, a finished one, or one whose run key
            differs from the current code's.
    """
    out = io.local_out(out)
    with jobs.Job.resume(out, KIND) as job:  # checked (and released) before playing
        plan = job.plan
    return _play(plan, out, threads, progress, fresh=False)


def _spec(d: dict[str, Any]) -> RunSpec:
    return RunSpec(**{**d, "variants": tuple(d.get("variants", ()))})


def _play(
    plan: dict[str, Any],
    out: Path,
    threads: int | None,
    progress: bool | None,
    *,
    fresh: bool,
    on_look: Callable[[R.Look], None] | None = None,
    force: bool = False,
    panel: Callable[[BalanceResult], Any] | None = None,
) -> BalanceResult:
    q = Question.from_dict(plan["question"])
    spec = _spec(plan["spec"])
    base = Changes.parse(plan["base"]["change"], plan["base"]["cards"])
    target, precision = float(plan["target"]), float(plan["precision"])
    looks_n = R.schedule(int(plan["pilot"]), int(plan["ceiling"]))
    level = float(plan["alpha"]) / len(looks_n)
    labels = q.labels()
    show = P.wanted(progress)
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:
        stack.enter_context(numba_threads(resolve_threads(threads)))
        if fresh:
            job = jobs.Job.start(out, KIND, plan, force=force, ours=BALANCE_FILES)
        else:
            job = jobs.Job.resume(out, KIND)
        stack.enter_context(job)
        player = CandidatePlayer(q, spec, base, out / "rules", int(plan["chunk_size"]), show)
        if fresh:
            job.set_key(player.key)
        job.check_key(player.key)
        saved = {e["file"]: e["sha256"] for e in job.logged().values()}
        rows: dict[int, Rows] = {}
        alive = list(range(len(q.candidates)))
        playing = list(alive)
        looks: list[R.Look] = []
        r, goal = 0, looks_n[0]
        settled: str | None = None
        while True:
            have = {j: len(rows[j][0]) if j in rows else 0 for j in alive}
            front = max(have.values())
            to = {j: _catch_up(looks_n, have[j], front, goal) for j in playing}
            todo = sum(to[j] - have[j] for j in playing)
            desc = f"balance look {r + 1}: {len(playing)} candidates to {goal:,} games"
            with P.Bar(todo, show, desc=desc) as bar:
                for j in playing:
                    rows[j] = _extend(player, job, saved, rows.get(j), j, r, to[j], bar)
            rates = {j: rows[j][:2] for j in alive}
            look = R.decide(r + 1, rates, labels, target, precision, level)
            looks.append(look)
            _write_decisions(out, looks)
            if on_look is not None:
                on_look(look)
            alive = [j for j in alive if j not in look.dropped]
            if look.settled is not None:
                settled = look.settled
                break
            if goal >= looks_n[-1]:
                break
            # A resting rival plays again only once it no longer rests (a new leader), one
            # doubling of its own games per look. The goal moves along the schedule whenever
            # more than the leader plays, so new games reach two candidates at once only at
            # the schedule's L looks (a round of the leader alone leaves every pair's shared
            # games as they were).
            playing = [j for j in alive if j not in look.resting]
            if playing == [look.leader]:
                lead = R.estimate(*rows[look.leader][:2])
                goal = min(looks_n[-1], max(goal + 1, R.games_for(lead.se, goal, precision)))
            else:
                goal = next(n for n in looks_n if n > goal)
            r += 1
        leader = looks[-1].leader
        table = candidate_table(q, rows, looks, leader, target, precision)
        games = int(sum(len(v[0]) for v in rows.values()))
        result = BalanceResult(
            q, spec, target, float(plan["tolerance"]), precision, table, looks, leader, settled,
            games, seconds=time.perf_counter() - t0, out=out,
        )  # fmt: skip
        if panel is not None:
            result.panel = panel(result)
        write_balance(result, out)
        job.finish()
    return result


def _catch_up(looks_n: list[int], have: int, front: int, goal: int) -> int:
    """The games a candidate with ``have`` plays to at a look whose goal is ``goal``: the
    goal, or, for a rival behind the ``front`` (it rested and plays again), one doubling
    (the schedule's next look above ``have``)."""
    if have >= front:
        return goal
    return min(goal, next((n for n in looks_n if n > have), goal))


def _extend(
    player: CandidatePlayer,
    job: jobs.Job,
    saved: dict[str, str],
    have: Rows | None,
    j: int,
    r: int,
    goal: int,
    bar: P.Bar,
) -> Rows:
    """Candidate ``j``'s rows extended to ``goal`` games: round ``r``'s rows read back from
    the job folder when a cut race already played them (``saved``: the files its log
    records, with their checksums), else played, saved and logged."""
    start = 0 if have is None else len(have[0])
    if start >= goal:
        return have  # type: ignore[return-value]
    got = _load_rows(job.out, j, r, start, goal, saved)
    if got is None:
        got = player.play(j, start, goal, bar)
        path = _save_rows(job.out, j, r, start, *got)
        rel = path.relative_to(job.out).as_posix()
        saved[rel] = io.file_digest(path)
        job.append({"file": rel, "sha256": saved[rel]})
    else:
        bar.advance(goal - start)
    if have is None:
        return got
    return tuple(np.concatenate([h, g]) for h, g in zip(have, got, strict=True))  # type: ignore[return-value]


def candidate_table(
    q: Question,
    rows: dict[int, Rows],
    looks: list[R.Look],
    chosen: int,
    target: float,
    precision: float = DEFAULT_TOLERANCE,
) -> pd.DataFrame:
    """One row per candidate: values, games, rate with 95% interval, distance to the target,
    the paired shift from the shipped value, the first player's mean VP margin with its 95%
    t-interval (``margin``, ``margin_lo``, ``margin_hi``, ``margin_sd``) and its paired shift
    from the shipped value (``margin_shift``, ``_lo``, ``_hi``, over the games both played),
    and what the race decided about it (chosen, dropped, rested: shown at most
    ``precision`` closer than the leader, or survivor)."""
    shipped = q.candidates.index(q.shipped) if q.shipped in q.candidates else None
    fate: dict[int, tuple[str, int | None, str]] = {}
    for lk in looks:
        for j, why in lk.dropped.items():
            fate[j] = ("dropped", lk.look, why)
    if looks:
        last = looks[-1]
        for j in last.resting:
            fate[j] = (
                "rested",
                None,
                f"at most {precision * 100:.2f} points closer to the target than "
                f"{q.label(last.leader)} (paired, one-sided)",
            )
    recs = []
    for j, values in enumerate(q.candidates):
        e = R.estimate(*rows[j][:2])
        m = MarginMoments.from_margins(rows[j][2]).figures()
        rec: dict[str, Any] = {
            "candidate": j,
            "label": q.label(j),
            **dict(zip(q.names, values, strict=True)),
            "shipped": j == shipped,
            "games": e.games,
            "count": e.count,
            "rate": e.rate,
            "lo": e.lo,
            "hi": e.hi,
            "distance": abs(e.rate - target),
            "margin": m["mean"],
            "margin_lo": m["lo"],
            "margin_hi": m["hi"],
            "margin_sd": m["sd"],
        }
        if shipped is not None:
            d, se = paired_ratio_se(*rows[shipped][:2], *rows[j][:2])
            lo, hi = normal_interval(d, se)
            rec.update(shift=d, shift_lo=lo, shift_hi=hi)
            n = min(len(rows[shipped][2]), len(rows[j][2]))
            ms = MarginShift.from_margins(rows[shipped][2][:n], rows[j][2][:n]).figures()
            rec.update(margin_shift=ms["diff"], margin_shift_lo=ms["lo"], margin_shift_hi=ms["hi"])
        status, look, why = fate.get(j, ("survivor", None, ""))
        rec.update(status="chosen" if j == chosen else status, dropped_at_look=look, reason=why)
        recs.append(rec)
    return pd.DataFrame(recs)


def _write_decisions(out: Path, looks: list[R.Look]) -> None:
    with io.atomic_path(out / DECISIONS) as tmp:
        tmp.write_text("".join(json.dumps(lk.to_dict()) + "\n" for lk in looks), encoding="utf-8")


def write_balance(result: BalanceResult, out: Path) -> None:
    """``candidates.csv`` and, last (its presence says the race is finished), ``balance.json``."""
    out.mkdir(parents=True, exist_ok=True)
    with io.atomic_path(out / TABLE) as tmp:
        result.table.to_csv(tmp, index=False)
    with io.atomic_path(out / RESULT) as tmp:
        tmp.write_text(json.dumps(result.to_dict(), indent=2) + "\n", encoding="utf-8")
