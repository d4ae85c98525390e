"""Play the same games under two specs and compare them, paired by game.

``compare(spec, changes)`` plays games ``0 .. spec.games-1`` as run A (``base`` cards) and as
run B (``changes``, and ``spec_b`` when B differs in more than cards: variants, house rules,
bots), with A's seed, so both deal the same games (common random numbers), and returns a
:class:`CompareResult`. Both runs are run folders ``out/A`` and ``out/B`` beside
``out/compare.json`` and ``out/compare.parquet`` (a temporary folder without ``out``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from sim.analysis.compare_text import format_result as format_result
from sim.analysis.compare_text import setting_text
from sim.analysis.paired import (
    READ_COLUMNS,
    Comparison,
    Outcomes,
    compare_runs,
    json_value,
    kinds_of,
    pair,
    records,
)
from sim.analysis.signs import direction, flag_lines, play_change_line
from sim.analysis.sizing import PLAN_PILOT, engine_arm, plan_pairs, play_until
from sim.data.changes import Changes, changed_units
from sim.data.spec import RunSpec, SpecError
from sim.run import io, jobs, ledger, runner
from sim.run import progress as P
from sim.run.backends import LocalBackend
from sim.run.compiled import run_pool
from sim.run.runner import DEFAULT_CHUNK_SIZE, RunError
from sim.run.seats import SeatCounts
from sim.run.session import numba_threads, resolve_threads

KIND = "compare"
COMPARE_FILES = ("A", "B", "compare.json", "compare.parquet")
PANEL_HINT = (
    "rerun with --panel greedy,economic,aggressive,defensive to see whether other bots agree"
)


@dataclass
class CompareResult:
    """Run B against run A over the same games (same seed, same game indices)."""

    spec: RunSpec
    base: Changes
    changes: Changes
    comparison: Comparison
    affected: list[str]
    """Cards whose entry differs between A and B (the ones the change is about)."""
    out: Path | None = None
    spec_b: RunSpec | None = None
    """B's spec when it differs from A's in more than cards (``None``: same as ``spec``)."""
    seats_a: SeatCounts | None = None
    seats_b: SeatCounts | None = None
    excluded_capped: int = 0
    """Games left out of every figure because either run hit the turn cap there."""
    until_ci: float | None = None
    """The half-width the arms were played to (``spec.games`` was then the ceiling)."""

    @property
    def played(self) -> int:
        """Games each arm played (with ``until_ci``, at most ``spec.games``)."""
        return self.comparison.first_player.games + self.excluded_capped

    @property
    def b_spec(self) -> RunSpec:
        """The spec run B played."""
        return self.spec_b or self.spec

    @property
    def rows(self) -> Any:
        """The affected cards' rows of the comparison's cards (a pandas DataFrame)."""
        return self.comparison.cards[self.comparison.cards.card.isin(self.affected)]

    def spec_differences(self) -> list[str]:
        """``field: A → B`` for every run setting B changes, as a person reads the values
        (``variants: none → emissary``); cards are listed apart."""
        a, b = dataclasses.asdict(self.spec), dataclasses.asdict(self.b_spec)
        return [f"{k}: {setting_text(a[k])} → {setting_text(b[k])}" for k in a if a[k] != b[k]]

    def differences(self) -> list[str]:
        """Everything B changes: the run settings, then the card edits and card files."""
        described = self.changes.describe()
        return [*self.spec_differences(), *described["change"], *described["cards"]]

    def table(self) -> Any:
        """The first-player row and the affected cards' rows (a pandas DataFrame)."""
        return self.comparison.table(self.affected)

    def expected_signs(self) -> dict[str, int]:
        """Per affected card, the sign its holders' shift must have: +1 for a pure buff, -1 for
        a pure nerf (:data:`sim.analysis.signs.FIELD_DIRECTION`), 0 when unknown (mixed
        edits, a replacement card file, or a change in more than cards)."""
        if self.spec_b is not None or self.changes.card_files or self.base.card_files:
            return dict.fromkeys(self.affected, 0)
        old = {u["name"]: u for u in run_pool(self.spec, self.base).units}
        return {
            c: direction([e for e in self.changes.edits if e.card == c], old) for c in self.affected
        }

    def flags(self, panel_hint: str = PANEL_HINT) -> list[str]:
        """One line per affected card whose answer may be about the bot: a shift that is
        significant (95% interval clear of 0) with the sign the change forbids
        (:func:`sim.analysis.signs.flag_lines`)."""
        signs = self.expected_signs()
        out = []
        for row in self.rows.itertuples():
            significant = bool(row.lo > 0 or row.hi < 0)
            out += flag_lines(row.card, signs.get(row.card, 0), row.diff, significant, panel_hint)
        return out

    def play_changes(self) -> list[str]:
        """One line per affected card whose play count the change moved by more than a third
        (:func:`sim.analysis.signs.play_change_line`): the change in play, not a warning."""
        lines = (
            play_change_line(row.card, int(row.conditional_count_a), int(row.conditional_count_b))
            for row in self.rows.itertuples()
        )
        return [line for line in lines if line is not None]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (``compare.json``), with each arm's full spec and changes."""
        spec = self.spec
        return {
            "format": "omensim-compare",
            "arms": {
                "A": {"spec": dataclasses.asdict(self.spec), "changes": self.base.describe()},
                "B": {"spec": dataclasses.asdict(self.b_spec), "changes": self.changes.describe()},
            },
            "spec_differences": self.spec_differences(),
            "excluded_capped": self.excluded_capped,
            "seats_a": None if self.seats_a is None else dataclasses.asdict(self.seats_a),
            "seats_b": None if self.seats_b is None else dataclasses.asdict(self.seats_b),
            "mix": spec.mix,
            "seed": spec.seed,
            "games": self.played if self.until_ci is not None else spec.games,
            "until_ci": self.until_ci,
            "games_ceiling": spec.games,
            "p0": spec.p0,
            "p1": spec.p1,
            "first": spec.first,
            "variant": spec.variant_label,
            "base_changes": self.base.describe(),
            "changes": self.changes.describe(),
            "affected_cards": self.affected,
            "first_player": self.comparison.first_player.to_dict(),
            "margin": None
            if self.comparison.margin is None
            else {k: json_value(v) for k, v in self.comparison.margin.figures().items()},
            "expected_signs": self.expected_signs(),
            "flags": self.flags(),
            "play_changes": self.play_changes(),
            "cards": records(self.rows),
            "written": datetime.now(UTC).isoformat(timespec="seconds"),
        }


def play_outcomes(
    engine: Any, games: int, chunk_size: int = DEFAULT_CHUNK_SIZE, bar: Any = None, start: int = 0
) -> Outcomes:
    """Play games ``start .. games-1`` of ``engine`` in memory, ``chunk_size`` at a time (an
    :func:`sim.analysis.sizing.engine_arm`); keep what pairing needs. ``bar`` advances."""
    arm = engine_arm(engine, bar)
    return Outcomes.concat(
        [arm(s, min(chunk_size, games - s)) for s in range(start, games, chunk_size)]
    )


def read_outcomes(run_dir: Path, n_kinds: int) -> Outcomes:
    """The columns pairing needs from a written run directory, part by part (Arrow holds one
    part's lists at a time, not the whole run's)."""
    try:
        manifest = io.verify_run(run_dir)
    except (OSError, ValueError) as exc:
        raise RunError(f"{run_dir} is not a complete run: {exc}") from None
    return Outcomes.concat(
        [
            Outcomes.from_frame(pq.read_table(run_dir / p["file"], columns=READ_COLUMNS), n_kinds)
            for p in manifest["parts"]
        ]
    ).in_game_order()


def compare(
    spec: RunSpec,
    changes: Changes,
    base: Changes | None = None,
    out: Path | str | None = None,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    force: bool = False,
    progress: bool | None = None,
    spec_b: RunSpec | None = None,
    exclude_capped: bool = False,
    backend: Any = None,
    until_ci: float | None = None,
    engines: tuple[Any, Any] | None = None,
) -> CompareResult:
    """Play ``spec`` with ``base`` (A, default the shipped cards) and ``spec_b`` (default
    ``spec``; it must have A's seed and games) with ``changes`` (B); compare them.

    ``engines``: both arms' engines, built and timed by the caller (:func:`timed_arms`,
    as a panel times all its bots' arms before the first plays), played as they are.

    ``exclude_capped`` leaves out of every figure the games either run ended at the turn
    cap. ``until_ci`` stops once every headline's paired 95% half-width is at most it
    (:func:`sim.analysis.sizing.play_until`; ``spec.games`` is then the ceiling). The rest
    is as for :func:`sim.run.runner.run`. Always played into a folder (``out``, or a
    temporary one), so :func:`resume_compare` can finish it after an interrupt. Refuses a
    bad spec, edit (SpecError) or card file (CardDataError), and bad ``threads``,
    ``chunk_size``, ``until_ci`` or output directory (RunError)."""
    base = base or Changes()
    spec_b = spec_b or spec
    if (spec_b.seed, spec_b.games) != (spec.seed, spec.games):
        raise SpecError("run B must play run A's games: the same --seed and --games")
    # Built now so a bad spec or edit fails before any directory work or play.
    run_pool(spec, base), run_pool(spec_b, changes)
    check_play(chunk_size, until_ci, backend)
    # What both runs are, so `compare --resume` can finish them after an interrupt.
    plan = {
        "spec": dataclasses.asdict(spec),
        "spec_b": dataclasses.asdict(spec_b),
        "base": base.describe(),
        "changes": changes.describe(),
        "chunk_size": chunk_size,
        "exclude_capped": exclude_capped,
        "until_ci": until_ci,
    }
    with jobs.folder(out, KIND) as where:
        jobs.check_out(where, KIND, force, COMPARE_FILES)  # before the engines are built
        if engines is None:
            engines = check_arms((spec, spec_b), (base, changes), threads, progress, backend)
        with jobs.Job.start(where, KIND, plan, force=force, ours=COMPARE_FILES) as job:
            result = _play_job(job, threads, progress, backend, engines)
    return result if out is not None else dataclasses.replace(result, out=None)


def check_arms(
    specs: tuple[RunSpec, RunSpec],
    edits: tuple[Changes, Changes],
    threads: int | None,
    progress: bool | None,
    backend: Any,
) -> tuple[Any, Any]:
    """Refuse, before the comparison's folder is written, an arm whose cards and rules
    cannot make a game and both arms' games (``--games`` each, the ceiling with
    ``--until-ci``) if they would take too long, each arm's at its own speed (B may play
    other bots): either found once an arm has played would leave a folder that no resume
    could finish. Returns both arms' engines, built and timed, for the arms to play."""
    return timed_arms({"": specs}, edits, threads, progress, backend)[""]


def timed_arms(
    pairs: Mapping[str, tuple[RunSpec, RunSpec]],
    edits: tuple[Changes, Changes],
    threads: int | None,
    progress: bool | None,
    backend: Any,
) -> dict[str, tuple[Any, Any]]:
    """The engines of several comparisons' arms (``pairs``: a name, then A's and B's
    specs, every A with ``edits[0]`` and every B with ``edits[1]``), built and timed
    together before any is played, each arm at its own speed: a panel whose later bot is
    slow is refused before the first bot plays. Returns each name's two engines."""
    from sim.run.engine import Engine  # deferred: importing it loads the batch kernel

    n_threads = resolve_threads(threads if backend is None else None)
    with numba_threads(n_threads):
        with P.kernel_ready(P.wanted(progress)):
            engines = {
                name: tuple(
                    Engine.ready(sp, ch or None) for sp, ch in zip(specs, edits, strict=True)
                )
                for name, specs in pairs.items()
            }
        named = {
            f"{name} arm {arm}".lstrip(): e
            for name, pair in engines.items()
            for arm, e in zip("AB", pair, strict=True)
        }
        games = next(iter(pairs.values()))[0].games
        runner.check_runs_time(
            named, games, n_threads, what=f"{len(named) * games:,} games",
            workers=runner.backend_workers(backend),
        )  # fmt: skip
    return engines


def check_play(chunk_size: int, until_ci: float | None, backend: Any) -> None:
    """Refuse a bad ``chunk_size`` or ``until_ci`` (a RunError), and ``until_ci`` with a
    ``backend`` (a SpecError: its looks fall after every kernel call of this process)."""
    if chunk_size < 1:
        raise RunError(f"--chunk-size must be at least 1, got {chunk_size}")
    runner.check_until_ci(until_ci)
    if until_ci is not None and backend is not None:
        raise SpecError(
            "--until-ci looks after every kernel call in this process: not with --backend dask"
        )


def check_difference(spec: RunSpec, spec_b: RunSpec, base: Changes, changes: Changes) -> None:
    """Refuse (SpecError) a comparison whose B would play exactly A's games, nothing
    differing or B compiling to exactly A (the CLI's and the API's one check), and a bad
    spec or edit of either arm."""
    from sim.run.compiled import compile_run, plays_the_same  # deferred: loads numba

    run_pool(spec, base), run_pool(spec_b, changes)
    if not changes and spec_b == spec and not base:
        raise SpecError(
            "nothing to compare: give B a difference (--change, --cards, --b-variant, "
            "--b-rules, --b-p0, --b-p1 or --b-first)"
        )
    if plays_the_same(compile_run(spec, base), compile_run(spec_b, changes)):
        raise SpecError(
            "nothing to compare: B's cards, rules and bots compile to exactly A's, so "
            "both would play the same games"
        )


def resume_compare(
    out: Path | str,
    threads: int | None = None,
    progress: bool | None = None,
    backend: Any = None,
) -> CompareResult:
    """Finish a comparison in ``out`` that was interrupted: resume or start A and B (or,
    with ``--until-ci``, replay its logged steps and play on), then compare. A RunError
    when ``out`` holds no comparison plan or a run cannot be resumed."""
    with jobs.Job.resume(out, KIND) as job:
        return _play_job(job, threads, progress, backend)


def _play_job(
    job: jobs.Job,
    threads: int | None,
    progress: Any,
    backend: Any,
    engines: tuple[Any, Any] | None = None,
) -> CompareResult:
    """Play (or finish) the comparison ``job`` plans, compare the arms, finish the job.

    ``engines``: both arms' engines as :func:`check_arms` built and timed them, played
    as they are (``None``, as on a resume: each arm builds and times its own)."""
    plan, out = job.plan, job.out
    specs = plan_spec(plan["spec"]), plan_spec(plan.get("spec_b") or plan["spec"])
    edits = tuple(Changes.parse(plan[k]["change"], plan[k]["cards"]) for k in ("base", "changes"))
    pools = [run_pool(sp, ch) for sp, ch in zip(specs, edits, strict=True)]
    until_ci = plan.get("until_ci")
    arms, backends = specs, (backend, backend)
    if until_ci is not None:
        check_play(1, until_ci, backend)  # a resume may be handed a backend
        # The steps go once both arms are runs (logged first), and then decide nothing more.
        if not any("dropped" in e for e in job.logged().values()):
            games = _play_steps(job, specs, edits, threads, progress, engines)
            arms = tuple(dataclasses.replace(sp, games=games) for sp in specs)
        backends = tuple(_StepsBackend(job, name, resolve_threads(threads)) for name in "AB")
        # The arms' runs hold the games the steps played, not the ceiling the engines
        # were built for; each builds its own.
        engines = None
    _play_arms(job, arms, edits, threads, progress, backends, engines)
    for name in "AB" if until_ci is not None else ():
        job.drop_tables(name)
    a, b = pair(*(read_outcomes(out / n, len(p.units)) for n, p in zip("AB", pools, strict=True)))
    excluded = 0
    if plan.get("exclude_capped") and a.capped is not None and b.capped is not None:
        keep = ~(a.capped | b.capped)
        excluded = int((~keep).sum())
        a, b = a.take(keep), b.take(keep)
    result = CompareResult(
        spec=specs[0],
        base=edits[0],
        changes=edits[1],
        comparison=compare_runs(a, b, *(kinds_of(p.units) for p in pools)),
        affected=changed_units(*pools),
        out=out,
        spec_b=None if specs[1] == specs[0] else specs[1],
        seats_a=_seats(a, excluded),
        seats_b=_seats(b, excluded),
        excluded_capped=excluded,
        until_ci=until_ci,
    )
    write_compare(result, out)
    job.finish()
    return result


def _play_arms(
    job: jobs.Job,
    specs: tuple[RunSpec, RunSpec],
    edits: tuple[Changes, ...],
    threads: int | None,
    progress: Any,
    backends: tuple[Any, Any],
    engines: tuple[Any, Any] | None = None,
) -> None:
    """Finish both arms of the comparison in ``job``'s folder as run directories, a new
    arm's run playing its engine of ``engines`` (built and timed already) when given.

    An arm already finished must be the one this comparison logged (its manifest's
    checksum), or, killed before it was logged, a run of the planned spec: another run
    copied in is refused."""
    logged = {e["arm"]: e["manifest_sha256"] for e in job.logged().values() if "arm" in e}
    for i, (name, sp, ch, backend) in enumerate(zip("AB", specs, edits, backends, strict=True)):
        run_dir = job.out / name
        chunk = backend.step if isinstance(backend, _StepsBackend) else int(job.plan["chunk_size"])
        engine = None if engines is None else engines[i]
        done = finish_run(run_dir, sp, ch, chunk, threads, progress, backend, engine)
        digest = io.file_digest(run_dir / io.MANIFEST_NAME)
        if done and name in logged and digest != logged[name]:
            raise RunError(f"{run_dir} is not the run this comparison played (replaced?)")
        if name not in logged:
            spec = json.loads(json.dumps(dataclasses.asdict(sp)))
            if done and io.read_manifest(run_dir).get("spec") != spec:
                raise RunError(f"{run_dir} is not a run of this comparison's spec (copied in?)")
            job.append({"arm": name, "manifest_sha256": digest})


def finish_run(
    run_dir: Path,
    spec: RunSpec,
    changes: Changes | None,
    chunk: int,
    threads: int | None,
    progress: Any,
    backend: Any,
    engine: Any = None,
) -> bool:
    """Make ``run_dir`` a complete run of a job: leave it (True: it was complete already),
    resume it, or (re)start it (playing ``engine``, built and timed already, when given)."""
    if io.is_complete(run_dir):
        return True
    if (run_dir / io.MANIFEST_NAME).exists():
        runner.resume(run_dir, threads, progress, backend)
        return False
    # No manifest: killed before its first one, so whatever is there is ours to replace.
    runner.run(
        spec, run_dir, threads, chunk, force=True, progress=progress, changes=changes,
        backend=backend, engine=engine,
    )  # fmt: skip
    return False


class KeptSteps:
    """``engine`` whose games are step tables ``job`` keeps in ``steps/name``
    (:meth:`sim.run.jobs.Job.table`): played and kept the first time, read back after, so
    a resumed command looks where it looked."""

    def __init__(self, job: jobs.Job, name: str, engine: Any) -> None:
        self.job, self.name, self.engine = job, name, engine

    def play(self, start: int, n: int, tick: Any = None) -> Any:
        """Games ``start .. start+n-1``, one step (``tick`` is not called)."""
        return self.job.table(
            self.name, f"part-{start:012d}-{n}", lambda: self.engine.play(start, n)
        )

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


class _StepsBackend(LocalBackend):
    """Writes an arm's run from the steps ``job`` kept of it, a part a step, so the run folder
    holds the very rows the looks read and nothing is played again."""

    ticks = False

    def __init__(self, job: jobs.Job, name: str, threads: int) -> None:
        from sim.run.engine import MAX_STEP  # deferred: importing it loads the batch kernel

        super().__init__(threads)
        self.job, self.arm, self.step = job, name, MAX_STEP

    def map_chunks(self, job: Any, chunks: Any, engine: Any, tick: Any = None) -> Any:
        """The chunks (each a step) written from the kept steps; see ``LocalBackend``."""
        return super().map_chunks(job, chunks, KeptSteps(self.job, self.arm, engine))


def _play_steps(
    job: jobs.Job,
    specs: tuple[RunSpec, RunSpec],
    edits: tuple[Changes, ...],
    threads: int | None,
    progress: Any,
    engines: tuple[Any, Any] | None = None,
) -> int:
    """Both arms, a step at a time, until every headline interval is narrow enough; the
    games each played. Each step's rows are ``job``'s tables (:class:`KeptSteps`).
    ``engines``: both arms' engines, built and timed by :func:`check_arms` (``None``, as
    on a resume: built and timed here)."""
    show = P.wanted(progress)
    n_threads = resolve_threads(threads)
    games = specs[0].games
    if engines is None:
        # --games is the ceiling of both arms: refused up front if it could take too long
        engines = check_arms(specs, edits, threads, progress, None)
    with numba_threads(n_threads):
        kinds = _kinds(specs, edits)
        key = ledger.run_key(specs[0], engines[0].metadata)
        job.keyed(key)
        arms = [engine_arm(KeptSteps(job, n, e)) for n, e in zip("AB", engines, strict=True)]
        with P.Bar(2 * games, show, desc="compare A and B until the CI") as bar:
            return play_until(arms, games, float(job.plan["until_ci"]), *kinds, bar).games


def _engines(
    specs: tuple[RunSpec, RunSpec], edits: tuple[Changes, ...], show: bool
) -> tuple[Any, Any]:
    """Both arms' engines (the kernel warmed up)."""
    from sim.run.engine import Engine  # deferred: importing it loads the batch kernel

    with P.kernel_ready(show):
        return Engine.ready(specs[0], edits[0]), Engine(specs[1], changes=edits[1])


def _kinds(
    specs: tuple[RunSpec, RunSpec], edits: tuple[Changes, ...]
) -> tuple[dict[str, int], dict[str, int]]:
    """The kinds of both arms' headline cards: A's of the cards B changes, and all of B's."""
    pool_a, pool_b = (run_pool(sp, ch) for sp, ch in zip(specs, edits, strict=True))
    kinds_a, kinds_b = kinds_of(pool_a.units), kinds_of(pool_b.units)
    headline = {n: kinds_a[n] for n in changed_units(pool_a, pool_b) if n in kinds_a}
    return headline, kinds_b


def plan_spec(d: dict[str, Any]) -> RunSpec:
    """A :class:`RunSpec` back from its JSON form in a job's plan."""
    return RunSpec(**{**d, "variants": tuple(d.get("variants", ()))})


def _seats(o: Outcomes, excluded: int) -> SeatCounts:
    """The first-player figures of one arm's (paired) games (read from a run: ``first`` is
    always there)."""
    c = SeatCounts.from_arrays(o.winner, o.first, o.capped)
    return dataclasses.replace(c, excluded_capped=excluded)


def plan_compare(
    spec: RunSpec,
    spec_b: RunSpec,
    base: Changes,
    changes: Changes,
    width: float,
    threads: int | None = None,
    progress: bool | None = None,
) -> Any:
    """A short pilot of A and B, and the games and time ``width`` on every headline needs
    (a :class:`sim.analysis.sizing.Plan`)."""
    show = P.wanted(progress)
    pilot = min(PLAN_PILOT, spec.games)
    with numba_threads(resolve_threads(threads)):
        arms, edits = (spec, spec_b), (base, changes)
        engines, kinds = _engines(arms, edits, show), _kinds(arms, edits)
        with P.Bar(2 * pilot, show, desc="plan: pilot") as bar:
            pair = (engine_arm(engines[0]), engine_arm(engines[1]))
            return plan_pairs([pair], [kinds], pilot, width, runs=2, bar=bar)


def write_compare(result: CompareResult, out: Path) -> None:
    """``out/compare.json`` (summary) and ``out/compare.parquet`` (every card's row)."""
    with io.atomic_path(out / "compare.parquet") as tmp:
        result.comparison.table().to_parquet(tmp, index=False)
    # The summary last: its presence says the comparison is whole.
    with io.atomic_path(out / "compare.json") as tmp:
        tmp.write_text(json.dumps(result.to_dict(), indent=2) + "\n", encoding="utf-8")
