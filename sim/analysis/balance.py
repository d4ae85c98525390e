"""``omensim balance``: the value of a card field or a rule that brings a rate to a target.

Every candidate of a question (:mod:`sim.analysis.balance_question`), the shipped value
among them, plays the same games, so each shift from shipped is paired; they race
(:mod:`sim.analysis.race`) in a job folder (:mod:`sim.run.jobs`) whose kept rows let a cut
race resume to the same answer. The method and the files: ``docs/balance.md``.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from sim.analysis import race as R
from sim.analysis.balance_question import Question, candidate_run, measure
from sim.analysis.balance_text import format_result as format_result
from sim.analysis.compare import plan_spec, play_outcomes
from sim.analysis.paired import records
from sim.data.changes import Changes
from sim.data.spec import RunSpec, SpecError
from sim.run import io, jobs, ledger, runner
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
KIND = "balance"
ROWS = "rows"
DECISIONS = "decisions.jsonl"
TABLE = "candidates.csv"
RESULT = "balance.json"
BALANCE_FILES = (ROWS, DECISIONS, TABLE, RESULT, "rules")
Rows = tuple[np.ndarray, np.ndarray, np.ndarray]
"""A candidate's per-game ``(num, den, margin)``: its rate's numerator and denominator
(int8) and the first player's VP margin (int16), in game order."""
NO_ROWS: Rows = (np.zeros(0, np.int8), np.zeros(0, np.int8), np.zeros(0, np.int16))


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


def rate_figures(rows: Rows) -> dict[str, float]:
    """The games, the rate's denominator, the rate with its 95% interval, and the first
    player's mean VP margin with its 95% t-interval and sd, over ``rows``."""
    e = R.estimate(*rows[:2])
    m = MarginMoments.from_margins(rows[2]).figures()
    margin = {"margin": m["mean"], "margin_lo": m["lo"], "margin_hi": m["hi"], "margin_sd": m["sd"]}
    return {k: getattr(e, k) for k in ("games", "count", "rate", "lo", "hi")} | margin


def paired_shift(before: Rows, after: Rows) -> dict[str, float]:
    """The rate's and the first player's VP margin's shift from ``before`` to ``after``,
    paired over the games both played, each with its 95% interval."""
    d, se = paired_ratio_se(*before[:2], *after[:2])
    lo, hi = normal_interval(d, se)
    n = min(len(before[2]), len(after[2]))
    m = MarginShift.from_margins(before[2][:n], after[2][:n]).figures()
    margin = {"margin_shift": m["diff"], "margin_shift_lo": m["lo"], "margin_shift_hi": m["hi"]}
    return {"shift": d, "shift_lo": lo, "shift_hi": hi} | margin


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
        self.q, self.chunk = q, chunk_size
        self.runs = [candidate_run(q, spec, base, j, rules_dir) for j in range(len(q.candidates))]
        for sp, ch in self.runs:  # every candidate is checked before any game is played
            run_pool(sp, ch)
        self._engines: dict[int, Any] = {}
        with P.kernel_ready(show):
            first = self.engine(0)
            first.warmup()
        self.key = ledger.run_key(spec, first.metadata)

    def engine(self, j: int) -> Any:
        """Candidate ``j``'s engine, built on first use."""
        if j not in self._engines:
            from sim.run.engine import Engine  # deferred: importing it loads the batch kernel

            self._engines[j] = Engine(*self.runs[j])
        return self._engines[j]

    def play(self, j: int, start: int, stop: int, bar: P.Bar) -> Rows:
        """Candidate ``j``'s ``(num, den, margin)`` over games ``start .. stop-1``."""
        o = play_outcomes(self.engine(j), stop, self.chunk, bar, start)
        return (*measure(self.q, o), o.margin.astype(np.int16))  # type: ignore[union-attr]


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
    after: Mapping[str, int] | None = None,
) -> BalanceResult:
    """Race the question's candidates toward ``target`` with ``omensim balance``'s options
    (``spec.games`` is ignored). ``out`` plays into that folder (resumable with
    :func:`resume_balance`); ``on_look`` is called with each look; ``panel`` with the
    result before it is written, and its answer is the result's ``panel``; ``after``: the
    games ``panel`` plays under each bot, counted in the race's projected time at that
    bot's speed. Refuses a bad argument
    (SpecError), a bad output folder or chunk size, or a race (every candidate to
    ``ceiling``, and ``after``) that could not finish in time (RunError)."""
    precision = tolerance if precision is None else precision  # a tolerance is checked first
    for ok, message in (
        (0 < target < 1, f"--target must be a rate between 0 and 1, e.g. 0.5; got {target:g}"),
        (
            0 < tolerance < 0.5,
            f"--tolerance must be between 0 and 0.5 (0.0025 = 0.25 points); got {tolerance:g}",
        ),
        (0 < precision < 0.5, f"--precision must be between 0 and 0.5; got {precision:g}"),
        (pilot >= 100, f"--pilot must be at least 100 games, got {pilot}"),
        (ceiling >= pilot, f"--max-games ({ceiling}) must be at least --pilot ({pilot})"),
        (
            R.MIN_ALPHA <= alpha < 0.5,
            f"--alpha must be from {R.MIN_ALPHA:g} up to 0.5 (exclusive), got {alpha:g}",
        ),
    ):
        if not ok:
            raise SpecError(message)
    if chunk_size < 1:
        raise RunError(f"--chunk-size must be at least 1, got {chunk_size}")
    plan = {
        "question": q.to_dict(),
        "spec": dataclasses.asdict(spec),
        "base": (base or Changes()).describe(),
        "target": target,
        "tolerance": tolerance,
        "precision": precision,
        "pilot": pilot,
        "ceiling": ceiling,
        "alpha": alpha,
        "chunk_size": chunk_size,
    }

    most = len(q.candidates) * ceiling
    later = sum((after or {}).values())
    panel_games = f", and {later:,} games of --panel" if later else ""
    with jobs.folder(out, KIND) as where:
        jobs.check_out(where, KIND, force, BALANCE_FILES)  # before the engine is built
        check_time(
            spec,
            base,
            most,
            f"a race of {len(q.candidates)} candidates to --max-games {ceiling:,} "
            f"({most + later:,} games at most{panel_games})",
            "lower --max-games (and --pilot with it)" + (" or --panel-games" if later else ""),
            threads,
            progress,
            after=after,
        )
        job = jobs.Job.start(where, KIND, plan, force=force, ours=BALANCE_FILES)
        result = _play(job, threads, progress, fresh=True, on_look=on_look, panel=panel)
    return result if out is not None else dataclasses.replace(result, out=None)


def check_time(
    spec: RunSpec,
    base: Changes | None,
    games: int,
    what: str,
    fix: str,
    threads: int | None = None,
    progress: bool | None = None,
    after: Mapping[str, int] | None = None,
    name: str = "the race",
) -> None:
    """Refuse, before any game is played or written, ``games`` (the most a balance command
    plays) that would take longer than :data:`sim.run.runner.MAX_RUN_DAYS` at the speed of
    ``spec`` with ``base`` (the shipped candidate): the limit ``run``, ``compare`` and
    ``sweep`` apply to ``--games``. ``what`` names the games in the message; ``fix`` says
    which options lower them. ``after``: the games ``--panel`` then plays under each bot
    (in both seats), each timed at its own bot's speed, so a slow panel bot is refused
    before the race; the message then names the slowest part (``name``, or the bot)."""
    after = dict(after or {})
    if games + sum(after.values()) < runner.PROBE_FROM:
        return  # never probed: no engine to build
    from sim.run.engine import Engine  # deferred: importing it loads the batch kernel

    n_threads = resolve_threads(threads)
    with numba_threads(n_threads):
        with P.kernel_ready(P.wanted(progress)):
            engine = Engine.ready(spec, base or None)
            panel = {
                f"--panel {bot}": Engine.ready(
                    dataclasses.replace(spec, p0=bot, p1=bot), base or None
                )
                for bot in after
            }
        if not panel:
            runner.check_projected_time(engine, games, n_threads, what=what, fix=fix)
            return
        runner.check_runs_time(
            {name: engine, **panel},
            {name: games, **{f"--panel {bot}": n for bot, n in after.items()}},
            n_threads,
            what=what,
            fix=fix,
        )


def resume_balance(
    out: Path | str, threads: int | None = None, progress: bool | None = None
) -> BalanceResult:
    """Finish the balance race in ``out``: reuse its rows, play what is missing. A RunError
    when ``out`` holds no balance plan, a finished one, or one of another run key."""
    return _play(jobs.Job.resume(out, KIND), threads, progress, fresh=False)


def _play(
    job: jobs.Job,
    threads: int | None,
    progress: bool | None,
    *,
    fresh: bool,
    on_look: Callable[[R.Look], None] | None = None,
    panel: Callable[[BalanceResult], Any] | None = None,
) -> BalanceResult:
    t0 = time.perf_counter()
    with job, numba_threads(resolve_threads(threads)):
        plan, out = job.plan, job.out
        q = Question.from_dict(plan["question"])
        spec = plan_spec(plan["spec"])
        base = Changes.parse(plan["base"]["change"], plan["base"]["cards"])
        target, precision = float(plan["target"]), float(plan["precision"])
        looks_n = R.schedule(int(plan["pilot"]), int(plan["ceiling"]))
        level = float(plan["alpha"]) / len(looks_n)
        show, labels = P.wanted(progress), q.labels()
        player = CandidatePlayer(q, spec, base, out / "rules", int(plan["chunk_size"]), show)
        job.set_key(player.key) if fresh else job.check_key(player.key)
        alive = list(range(len(q.candidates)))
        rows: dict[int, Rows] = dict.fromkeys(alive, NO_ROWS)
        playing = list(alive)
        looks: list[R.Look] = []
        r, goal = 0, looks_n[0]
        while True:
            have = {j: len(rows[j][0]) for j in alive}
            to = {j: _catch_up(looks_n, have[j], max(have.values()), goal) for j in playing}
            desc = f"balance look {r + 1}: {len(playing)} candidates to {goal:,} games"
            with P.Bar(sum(to[j] - have[j] for j in playing), show, desc=desc) as bar:
                for j in playing:
                    rows[j] = _extend(player, job, rows[j], j, r, to[j], bar)
            look = R.decide(
                r + 1, {j: rows[j][:2] for j in alive}, labels, target, precision, level
            )
            looks.append(look)
            with io.atomic_path(out / DECISIONS) as tmp:
                tmp.write_text("".join(json.dumps(lk.to_dict()) + "\n" for lk in looks))
            if on_look is not None:
                on_look(look)
            alive = [j for j in alive if j not in look.dropped]
            if look.settled is not None or goal >= looks_n[-1]:
                break
            # A resting rival plays again once a new leader leads; the goal leaves the
            # schedule only for the leader alone (docs/balance.md, "The race").
            playing = [j for j in alive if j not in look.resting]
            if playing == [look.leader]:
                lead = R.estimate(*rows[look.leader][:2])
                goal = min(looks_n[-1], max(goal + 1, R.games_for(lead.se, goal, precision)))
            else:
                goal = next(n for n in looks_n if n > goal)
            r += 1
        result = BalanceResult(
            q,
            spec,
            target,
            float(plan["tolerance"]),
            precision,
            candidate_table(q, rows, looks, look.leader, target, precision),
            looks,
            look.leader,
            look.settled,
            int(sum(len(v[0]) for v in rows.values())),
            seconds=time.perf_counter() - t0,
            out=out,
        )
        if panel is not None:
            result.panel = panel(result)
        write_answer(out, {TABLE: result.table}, RESULT, result.to_dict())
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
    player: CandidatePlayer, job: jobs.Job, have: Rows, j: int, r: int, goal: int, bar: P.Bar
) -> Rows:
    """Candidate ``j``'s rows extended to ``goal`` games by round ``r``'s: played and kept
    in the job folder, or read back when a cut race already played them."""
    start = len(have[0])
    if start >= goal:
        return have

    def make() -> pa.Table:
        num, den, margin = player.play(j, start, goal, bar)
        ids = np.arange(start, goal, dtype=np.int64)
        candidate = np.full(goal - start, j, np.int16)
        cols = {"game_id": ids, "candidate": candidate, "num": num, "den": den, "margin": margin}
        return pa.table(cols)

    done = bar.done
    table = job.kept(f"{ROWS}/c{j:02d}-r{r:02d}.parquet", make)
    bar.advance(goal - start - (bar.done - done))  # the games of rows read back
    got = (table.column(c).to_numpy() for c in ("num", "den", "margin"))
    return tuple(np.concatenate([h, g]) for h, g in zip(have, got, strict=True))  # type: ignore[return-value]


def candidate_table(
    q: Question,
    rows: dict[int, Rows],
    looks: list[R.Look],
    chosen: int,
    target: float,
    precision: float = DEFAULT_TOLERANCE,
) -> pd.DataFrame:
    """One row per candidate: its values, :func:`rate_figures`, distance to the target,
    :func:`paired_shift` from the shipped value, and what the race decided about it
    (chosen, dropped, rested: shown at most ``precision`` closer than the leader, or
    survivor)."""
    shipped = rows[q.candidates.index(q.shipped)]
    fate = {j: ("dropped", lk.look, why) for lk in looks for j, why in lk.dropped.items()}
    rest = (
        f"at most {precision * 100:.2f} points closer to the target than "
        f"{q.label(looks[-1].leader)} (paired, one-sided)"
    )
    fate |= {j: ("rested", None, rest) for j in looks[-1].resting}
    recs = []
    for j, values in enumerate(q.candidates):
        status, look, why = fate.get(j, ("survivor", None, ""))
        figures = rate_figures(rows[j])
        recs.append(
            {
                "candidate": j,
                "label": q.label(j),
                **dict(zip(q.names, values, strict=True)),
                "shipped": values == q.shipped,
                **figures,
                "distance": abs(figures["rate"] - target),
                **paired_shift(shipped, rows[j]),
                "status": "chosen" if j == chosen else status,
                "dropped_at_look": look,
                "reason": why,
            }
        )
    return pd.DataFrame(recs)


def write_answer(out: Path, tables: dict[str, pd.DataFrame], name: str, body: Any) -> None:
    """Each of ``tables`` as CSV and, last (its presence says the answer is finished),
    ``body`` as the JSON file ``name``; every file written atomically."""
    out.mkdir(parents=True, exist_ok=True)
    for file, frame in tables.items():
        with io.atomic_path(out / file) as tmp:
            frame.to_csv(tmp, index=False)
    io.write_json_atomic(out / name, body)
