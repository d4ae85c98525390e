"""Run many games on the local cores and write them to a run directory.

The runner owns everything around the game kernel that a user notices: where
results go, how long it takes, what happens on Ctrl-C. It

1. validates the output directory (nothing is created for a run that cannot
   start: unknown mix, unknown bot, existing results),
2. builds the :class:`sim.run.engine.Engine` and warms up its JIT cache,
3. plays the games in chunks of ``chunk_size`` global game indices and
   writes each chunk as one Parquet part (see :mod:`sim.run.io`) on one
   background thread while the games go on (the kernel releases the GIL, so the
   two really run side by side); a part in a local folder is written a group of
   games at a time as they are played (:mod:`sim.run.backends`),
4. keeps ``_manifest.json`` saying ``"complete": false`` until the last part
   is on disk.

Chunking and thread count change speed only: game ``i`` depends on
``(seed, i)`` alone, so any chunk size and any number of threads give the
same rows.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from sim.base import layout as L
from sim.data.changes import Changes
from sim.data.spec import RunSpec, SpecError
from sim.run import io, ledger, storage
from sim.run import progress as P
from sim.run.backends import (
    Chunks,
    LocalBackend,
    capped_outcomes,
    count_outcomes,
    make_job,
)
from sim.run.gods import GodCounts, god_rows
from sim.run.lock import FolderLockedError, locked
from sim.run.margins import MarginMoments, margin_row
from sim.run.parts import part_metadata
from sim.run.seats import CAPPED, SeatCounts, first_player_label, seat_rows
from sim.run.session import RunError, numba_threads, resolve_threads
from sim.run.stats import games_for_half_width, wilson_interval

DEFAULT_CHUNK_SIZE = 1 << 16
RESULTS_ROOT = Path("results")


@dataclass(frozen=True)
class RunResult:
    """What a finished run did, for the summary and for callers that script runs."""

    spec: RunSpec
    out: Path
    games: int
    seconds: float
    """Wall time spent playing and writing, after the engine was built and warmed up."""
    games_per_s: float
    first_player_wins: int
    """Games won outright by the seat that took the first turn."""
    shared: int
    """Games whose victory was shared (``winner == -1``)."""
    parts: int
    threads: int
    setup_seconds: float
    """Time to compile the cards and bots and load or compile the JIT kernel."""
    games_requested: int | None = None
    """With ``until_ci``: the ``--games`` ceiling (``games`` is what was played)."""
    stopped: str | None = None
    """With ``until_ci``: ``"until_ci"`` (the interval got narrow enough) or ``"games"``."""
    turn_capped: int = 0
    """Games stopped by the turn cap (``end_reason == "turn_cap"``) rather than by a rule."""
    seats: SeatCounts | None = None
    """Every game's outcome by seat order (:mod:`sim.run.seats`)."""
    seats_uncapped: SeatCounts | None = None
    """The same with turn-capped games left out (for ``--exclude-capped``)."""
    workers: int = 1
    """Worker processes that played (``threads`` is numba threads per worker)."""
    backend: str = "local"
    outcomes: PartOutcomes | None = None
    """Each god's wins and the first player's margins (every game, and turn-capped left out)."""


@dataclass(frozen=True)
class PartOutcomes:
    """What the summary prints beyond the seat counts, read back from the run's parts."""

    gods: GodCounts = dataclasses.field(default_factory=GodCounts)
    margins: MarginMoments = dataclasses.field(default_factory=MarginMoments)
    gods_uncapped: GodCounts = dataclasses.field(default_factory=GodCounts)
    margins_uncapped: MarginMoments = dataclasses.field(default_factory=MarginMoments)


def default_out_dir(spec: RunSpec, root: Path = RESULTS_ROOT, now: datetime | None = None) -> Path:
    """A fresh directory name for a run: ``results/<mix>-s<seed>-<YYYYMMDD-HHMMSS>``.

    ``+`` in the mix becomes ``_`` (``dunes+aegean`` -> ``dunes_aegean``) so the
    name is safe in shells and URLs. If two runs start in the same second, a
    ``-2``, ``-3``, ... suffix keeps the names distinct.
    """
    return fresh_dir(root, f"{mix_label(spec.mix)}-s{spec.seed}", now)


def mix_label(mix: str) -> str:
    """A mix spec made safe for a directory name (``dunes+aegean:10`` -> ``dunes_aegean-10``)."""
    return mix.replace("+", "_").replace(":", "-")


def fresh_dir(root: Path, prefix: str, now: datetime | None = None) -> Path:
    """``root/<prefix>-<YYYYMMDD-HHMMSS>``, with ``-2``, ``-3``, ... if that exists already."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    base = f"{prefix}-{stamp}"
    candidate = root / base
    n = 2
    while candidate.exists():
        candidate = root / f"{base}-{n}"
        n += 1
    return candidate


TOO_LONG_FIX = "play fewer games, or use --until-ci to stop when the interval is narrow enough"
"""What :func:`check_projected_time` advises unless the command says otherwise."""


def run(
    spec: RunSpec,
    out: Path | str | None = None,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    force: bool = False,
    progress: bool | None = None,
    changes: Any = None,
    until_ci: float | None = None,
    backend: Any = None,
    fix: str = TOO_LONG_FIX,
    engine: Any = None,
) -> RunResult:
    """Play ``spec.games`` games and write them to the run directory ``out``.

    Args:
        spec: what to play.
        out: the run directory; ``None`` picks a fresh one with :func:`default_out_dir`.
            It must be absent or empty unless ``force``.
        threads: numba worker threads; ``None`` uses all cores (local backend only).
        chunk_size: games per Parquet part (and per ``Engine.play`` call). Bigger
            chunks amortise more overhead; smaller ones bound memory and make
            progress finer. Results do not depend on it.
        force: replace an earlier run in ``out`` (its parts and manifest are
            deleted first). Files omensim did not write are never deleted.
        progress: ``True`` always shows the status line on stderr, ``False``
            never, ``None`` shows it when stderr is a terminal.
        changes: designer edits to the cards (:class:`sim.data.changes.Changes`);
            ``None`` plays the shipped cards.
        until_ci: stop after the first chunk at which the 95% Wilson interval of
            the first-player win rate has a half-width of at most this (or at
            ``spec.games``). See :func:`check_until_ci` for the manifest fields.
        backend: where the chunks are played (:mod:`sim.run.backends`); ``None``
            plays them on this process's threads. The caller closes it.
        fix: what the refusal of games projected to take too long advises
            (:func:`check_projected_time`): a command without ``--until-ci`` says
            what it has instead.
        engine: ``spec``'s engine with ``changes``, built and timed by the caller
            (:func:`timed_engines`); played as it is, neither built nor timed again.
            ``None`` builds and times one.

    Returns:
        A :class:`RunResult` with the counts and timings.

    Raises:
        sim.data.spec.SpecError: unknown mix or strategy (nothing is written).
        sim.data.cards.CardDataError: invalid card data (nothing is written).
        RunError: bad ``threads``/``chunk_size`` or an output directory we must not use.
        OSError: the output directory cannot be created or written.
        ValueError: an ``engine`` of another spec or other card changes.

    Any failure or interrupt after the directory was created leaves its
    manifest saying ``"complete": false``; the parts already written stay, and
    :func:`resume` plays the rest.
    """
    if chunk_size < 1:
        raise RunError(f"--chunk-size must be at least 1, got {chunk_size}")
    check_until_ci(until_ci)
    out = storage.location(out) if out is not None else default_out_dir(spec)
    if until_ci is not None and not isinstance(out, Path):
        raise RunError(f"--until-ci needs a local --out folder, not a URL ({out})")
    n_threads = resolve_threads(threads if backend is None else None)
    io.check_output_dir(out, force)
    if engine is not None and (engine.spec != spec or engine.compiled.changes != (changes or None)):
        raise ValueError("a run given an engine plays that engine's spec and card changes")
    return _execute(
        spec, out, n_threads, chunk_size, progress, changes, until_ci, backend, force, fix=fix,
        engine=engine,
    )  # fmt: skip


def resume(
    out: Path | str,
    threads: int | None = None,
    progress: bool | None = None,
    backend: Any = None,
) -> RunResult:
    """Finish an interrupted run in ``out``: play only the chunks it does not have.

    The spec, card edits, chunk size and ``--until-ci`` come from its manifest.
    The run is refused (nothing written) if its run key (spec, card hash, bots,
    kernel source digest, version; :func:`sim.run.ledger.run_key`) differs
    from the one this code computes, since the new rows would not match the old.
    A change of git state alone is no reason: it plays the same games.

    Raises:
        RunError: no resumable run in ``out``, a finished run, or a key mismatch.
    """

    out = storage.location(out)
    try:
        manifest = io.read_manifest(out)
    except FileNotFoundError:
        raise RunError(f"cannot resume {out}: it has no {io.MANIFEST_NAME}") from None
    except ValueError as exc:
        raise RunError(f"cannot resume {out}: {exc}") from None
    if manifest.get("complete"):
        raise RunError(f"{out} is already complete; nothing to resume")
    if "key" not in manifest or "chunk_size" not in manifest:
        raise RunError(f"cannot resume {out}: its manifest has no run key (an older omensim)")
    try:
        io.part_entries(manifest, out)
    except io.RunReadError as exc:
        raise RunError(f"cannot resume {out}: {exc}") from None
    doc = dict(manifest["spec"])
    doc["variants"] = tuple(doc.get("variants", ()))
    doc["games"] = manifest.get("games_requested", doc.get("games"))
    try:
        spec = RunSpec(**doc)
    except (TypeError, SpecError) as exc:
        raise RunError(f"cannot resume {out}: its manifest has no usable run spec: {exc}") from None
    edits = json.loads(manifest.get("metadata", {}).get("card_changes", "{}"))
    changes = Changes.parse(edits.get("change", ()), edits.get("cards", ()))
    n_threads = resolve_threads(threads if backend is None else None)
    prior = {"manifest": manifest, "done": ledger.completed_parts(out, manifest)}
    return _execute(
        spec,
        out,
        n_threads,
        int(manifest["chunk_size"]),
        progress,
        changes or None,
        manifest.get("until_ci"),
        backend,
        False,
        prior,
    )


def _execute(
    spec: RunSpec,
    out: Path,
    n_threads: int,
    chunk_size: int,
    progress: bool | None,
    changes: Any,
    until_ci: float | None,
    backend: Any,
    force: bool,
    prior: dict[str, Any] | None = None,
    fix: str = TOO_LONG_FIX,
    engine: Any = None,
) -> RunResult:
    """Build, warm and time the engine (unless ``engine``, built and timed by the caller,
    is given), check a resumed run's key, then play and write."""

    show = P.wanted(progress)
    t_setup = time.perf_counter()
    with numba_threads(n_threads):
        if engine is None:
            with P.kernel_ready(show):
                from sim.run.engine import Engine  # deferred: importing it compiles/loads numba

                engine = Engine.ready(spec, changes or None)
            games = games_to_play(spec.games, until_ci)
            check_projected_time(engine, games, n_threads, backend_workers(backend), fix=fix)
        key = ledger.run_key(spec, engine.metadata)
        if prior is not None:
            reason = ledger.key_mismatch(prior["manifest"].get("key"), key)
            if reason is not None:
                raise RunError(f"cannot resume {out}: {reason}")
        setup_seconds = time.perf_counter() - t_setup
        # Directory work only now: a bad mix/strategy (raised by Engine above) creates nothing.
        out.mkdir(parents=True, exist_ok=True)
        try:
            with locked(out) if isinstance(out, Path) else storage.url_locked(out):
                if prior is None:
                    # Checked again under the lock: another run may have written here meanwhile.
                    io.check_output_dir(out, force, held=True)
                return _play_and_write(
                    engine,
                    spec,
                    out,
                    backend if backend is not None else LocalBackend(n_threads),
                    chunk_size,
                    force,
                    show,
                    setup_seconds,
                    until_ci,
                    key,
                    changes,
                    prior,
                )
        except FolderLockedError as exc:
            raise RunError(str(exc)) from None


def _play_and_write(
    engine: Any,
    spec: RunSpec,
    out: Path,
    backend: Any,
    chunk_size: int,
    force: bool,
    show: bool,
    setup_seconds: float,
    until_ci: float | None,
    key: dict[str, str],
    changes: Any,
    prior: dict[str, Any] | None,
) -> RunResult:
    """Open the run's ledger, play the chunks it lacks, and close it with the totals."""

    metadata = {str(k): str(v) for k, v in engine.metadata.items()}
    # Every part carries the run's key, so a part from another run is recognised on reading.
    stamp = io.run_key(spec.seed, key["digest"])
    if prior is not None:
        # The key check let this resume through: its parts continue the folder's run, so
        # they carry the key its parts already do (an older omensim made it differently).
        stamp = str(prior["manifest"].get("metadata", {}).get(io.RUN_KEY, stamp))
    metadata[io.RUN_KEY] = stamp
    run_info = _run_info(engine, spec, backend, chunk_size, key, until_ci, prior)
    book = _open_ledger(out, engine, metadata, run_info, force, until_ci, prior)
    chunks = Chunks(spec.games, chunk_size)
    bar = P.Bar(spec.games, show, desc="run")
    bar.advance(book.games)
    todo = Chunks(spec.games, chunk_size, book.done) if book.stop is None else []
    t0 = time.perf_counter()
    try:
        played = 0
        if todo:
            job = make_job(
                engine,
                key["digest"],
                changes=changes,
                out=out,
                width=ledger.part_width(len(chunks)),
                until_ci=until_ci,
                metadata=metadata,
            )
            # A resumed run's --until-ci stop game is the ledger's, not the kernel calls'.
            tick = _tick(bar, until_ci if prior is None else None)
            played = _play_chunks(book, backend, backend.map_chunks(job, todo, engine, tick), bar)
        if book.stop is not None:
            book.drop_after(book.stop)
            _cut_last_part(book, metadata, until_ci)
        elif book.prefix_chunks != len(chunks):
            raise RuntimeError(f"the {backend.name} backend left chunks of the run unplayed")
    except BaseException as exc:
        bar.close()
        # The original error is the one worth reporting, not a failure to record it.
        with contextlib.suppress(Exception):
            book.compact(
                metadata,
                False,
                {**run_info, "error": f"{type(exc).__name__}: {exc}".rstrip(": ")},
            )
        raise
    seconds = time.perf_counter() - t0
    bar.close()
    return _finish(
        book, metadata, run_info, spec, backend, played, seconds, setup_seconds, until_ci
    )


MAX_RUN_DAYS = 30
"""The longest run ``omensim run`` starts: a request projected to take longer is refused
before any game is written (split it, or play fewer games; ``--until-ci`` stops early)."""
PROBE_FROM = 1_000_000
"""Requests of at least this many games are timed before they start (a fraction of a
second, against hours of play); a smaller one at the slowest bot still ends within days."""
PROBE_MARGIN = 10
"""A probe stops as soon as the request would end within :data:`MAX_RUN_DAYS` at a tenth
of the speed measured so far: a first probe of a few games settles an ordinary request,
and only one within that factor of the limit is timed for a fifth of a second."""


def games_to_play(games: int, until_ci: float | None) -> int:
    """At most the games a run plays: ``games``, or fewer with ``until_ci``, which stops by
    the time a 95% interval is that narrow even at a 50% rate (its widest):
    ``Z95 * 0.5 / sqrt(n) <= until_ci``, with a tenth more for the Wilson correction."""
    if until_ci is None:
        return games
    if until_ci < 1e-9:  # past every game count (and its square would overflow a float)
        return games
    return min(games, math.ceil(1.1 * games_for_half_width(0.5, until_ci)))


def backend_workers(backend: Any) -> int:
    """The processes that share a run's games: a Dask backend's workers, else 1."""
    return max(1, int(getattr(backend, "workers", 1) or 1)) if backend is not None else 1


def probed_rate(
    engine: Any, games: int, threads: int, workers: int = 1, days: float = MAX_RUN_DAYS
) -> float:
    """Games/s of ``engine`` on ``threads`` threads (times ``workers``, :func:`backend_workers`),
    measured on a short probe of its first games, whose rows are thrown away.

    The probe stops as soon as ``games`` would end within ``days`` at a tenth of the speed
    measured so far (:data:`PROBE_MARGIN`), else once it took a fifth of a second."""
    n = 16 * threads
    while True:
        t0 = time.perf_counter()
        engine.play_raw(0, n)
        seconds = time.perf_counter() - t0
        rate = n / max(seconds, 1e-9) * workers
        if games / rate / 86_400 * PROBE_MARGIN <= days:
            return rate
        if seconds >= 0.2 or n >= 65_536:
            return rate
        n *= 4


def check_projected_time(
    engine: Any,
    games: int,
    threads: int,
    workers: int = 1,
    what: str | None = None,
    fix: str = TOO_LONG_FIX,
) -> None:
    """Refuse ``games`` (every game the command would play) if, at the speed measured on a
    short probe (:func:`probed_rate`), they would take longer than :data:`MAX_RUN_DAYS`
    (with the projected time in the message).

    ``workers`` (:func:`backend_workers`): the Dask workers the games are shared by,
    each taken to be as fast as this process's probe. That projection is generous, so
    only a request that cannot finish in time on any such cluster is refused.
    ``what``: the games as the message names them (default ``N games``); ``fix``: what
    the message advises (a command without ``--until-ci`` must not offer it)."""
    if games < PROBE_FROM:
        return
    rate = probed_rate(engine, games, threads, workers)
    days = games / rate / 86_400
    if days > MAX_RUN_DAYS:
        what = f"{games:,} games" if what is None else what
        raise RunError(
            f"{what} would take about {days:,.0f} days here ({rate:,.0f} games/s "
            f"measured on {_measured_on(threads, workers)}); the limit is {MAX_RUN_DAYS} "
            f"days: {fix}"
        )


def _measured_on(threads: int, workers: int) -> str:
    """Where a probe's speed counts: this process's threads, times the Dask workers."""
    return f"{threads} threads" + (f", times {workers} Dask workers" if workers > 1 else "")


def _each_run(games: int | Mapping[str, int], names: Iterable[str]) -> dict[str, int]:
    """The games of each named run: ``games`` for all of them, or each its own."""
    if isinstance(games, Mapping):
        return {name: int(games[name]) for name in names}
    return {name: games for name in names}


def check_runs_time(
    engines: Mapping[str, Any],
    games: int | Mapping[str, int],
    threads: int,
    what: str,
    fix: str = TOO_LONG_FIX,
    workers: int = 1,
) -> None:
    """Refuse runs, one per engine of ``engines`` and played one after another by one
    command, if together they would take longer than :data:`MAX_RUN_DAYS`, each run at
    the speed of its own engine's probe (:func:`probed_rate`, one probe per engine). The
    message names the run whose games take longest and its share, so a slow later run is
    refused before the first plays.

    ``games``: each run's games, the same for all or by name (a tournament's self-play
    plays twice a half's); ``what``: all the games as the message names them; ``fix``:
    what it advises; ``workers``: as for :func:`check_projected_time`."""
    each = _each_run(games, engines)
    if sum(each.values()) < PROBE_FROM:
        return
    # Each probe may stop once its run is safely inside its share of the limit, so the
    # shares settled that way add up to at most the limit over the margin.
    share = MAX_RUN_DAYS / max(len(engines), 1)
    rates = {
        name: probed_rate(e, each[name], threads, workers, days=share)
        for name, e in engines.items()
    }
    days = {name: each[name] / rate / 86_400 for name, rate in rates.items()}
    total = sum(days.values())
    if total > MAX_RUN_DAYS:
        slow = max(days, key=days.__getitem__)
        raise RunError(
            f"{what} would take about {total:,.0f} days here, {days[slow]:,.0f} of them for "
            f"{slow}'s {each[slow]:,} games ({rates[slow]:,.0f} games/s measured on "
            f"{_measured_on(threads, workers)}); the limit is {MAX_RUN_DAYS} days: {fix}"
        )


def timed_engines(
    specs: Mapping[str, RunSpec],
    games: int | Mapping[str, int],
    threads: int,
    what: str,
    fix: str = TOO_LONG_FIX,
    progress: bool | None = None,
    changes: Changes | None = None,
    workers: int = 1,
) -> dict[str, Any]:
    """The engines of ``specs``' runs (``games`` games each, or each its own by name,
    played one after another by one command), built with ``changes`` and timed together
    before any is played: :func:`check_runs_time` refuses them all if their games would
    take too long (``workers``: the Dask workers that share them).

    Returns each run's engine, ready and timed, for :func:`run` to play (``engine=``, with
    the same ``changes``) without building or timing it again; empty when the games are
    too few to be timed, and then no engine is built here. A cold compile's note shows as
    :func:`run` shows it, per ``progress``."""
    each = _each_run(games, specs)
    if sum(each.values()) < PROBE_FROM:
        return {}
    with numba_threads(threads):
        engines = {}
        for name, spec in specs.items():
            with P.kernel_ready(P.wanted(progress)):
                from sim.run.engine import Engine  # deferred: importing it compiles/loads numba

                engines[name] = Engine.ready(spec, changes or None)
        check_runs_time(engines, each, threads, what, fix, workers)
    return engines


def _run_info(
    engine: Any,
    spec: RunSpec,
    backend: Any,
    chunk_size: int,
    key: dict[str, str],
    until_ci: float | None,
    prior: dict[str, Any] | None,
) -> dict[str, Any]:
    """The manifest's account of how the run was made (a resume keeps its start time)."""
    now = datetime.now(UTC).isoformat(timespec="seconds")
    run_info: dict[str, Any] = {
        "spec": dataclasses.asdict(spec),
        # What a reviewer needs to rerun and check it: RunSpec(**spec) with
        # card_changes, at git_commit, with these library versions and bot vectors.
        "card_changes": json.loads(engine.metadata.get("card_changes", "null")),
        "provenance": getattr(engine, "provenance", None),
        "started": now,
        "threads": backend.threads,
        "chunk_size": chunk_size,
        "backend": backend.name,
        "workers": backend.workers,
        "key": key,
    }
    if until_ci is not None:
        run_info["until_ci"] = until_ci
        run_info["games_requested"] = spec.games
    if prior is not None:
        run_info["started"] = prior["manifest"].get("started", now)
        run_info["resumed"] = [*prior["manifest"].get("resumed", []), now]
    return run_info


def _open_ledger(
    out: Path,
    engine: Any,
    metadata: dict[str, str],
    run_info: dict[str, Any],
    force: bool,
    until_ci: float | None,
    prior: dict[str, Any] | None,
) -> ledger.Ledger:
    """The run's ledger, with the manifest saying "incomplete" before the first game."""
    stop_rule = None
    if until_ci is not None:

        def stop_rule(wins: Any, games: Any) -> Any:
            return until_ci_reached(wins, games, until_ci)

    book = ledger.Ledger(out, prior["done"] if prior else None, stop_when=stop_rule)
    if prior is None and force:
        io.clear_run_files(out)
    # Card names beside the games, so `df.merge(cards)` needs no metadata JSON; a resume
    # writes it again, so a damaged or foreign card table is replaced by this run's.
    io.write_cards(out, engine.pool.cards_table())
    # Said before the first game, so even a kill -9 cannot leave a run directory that
    # looks finished. On a resume this folds the old log into the manifest.
    book.compact(metadata, False, run_info)
    return book


def _tick(bar: P.Bar, until_ci: float | None) -> Callable[[np.ndarray], bool]:
    """The local backend's call after every kernel call: the bar moves, and with
    ``until_ci`` the chunk may end early (the exact stop game is the ledger's)."""
    tally = [0, 0]  # first-player wins, games: the local backend plays in order

    def tick(rows: np.ndarray) -> bool:
        bar.advance(len(rows))
        if until_ci is None:
            return False
        tally[0] += int(np.count_nonzero(rows[:, L.O_WINNER] == rows[:, L.O_FIRST]))
        tally[1] += len(rows)
        return bool(until_ci_reached(tally[0], tally[1], until_ci))

    return tick


def _play_chunks(book: ledger.Ledger, backend: Any, stream: Any, bar: P.Bar) -> int:
    """Record each finished chunk the backend yields until the ledger says stop; the games
    played."""
    played = 0
    try:
        for done in stream:
            book.record(done.part_info(), done.won)
            played += done.games
            if not backend.ticks:
                bar.advance(done.games)
            if book.stop is not None:
                break
    finally:
        stream.close()  # an early stop waits for running chunks before parts go
    return played


def _finish(
    book: ledger.Ledger,
    metadata: dict[str, str],
    run_info: dict[str, Any],
    spec: RunSpec,
    backend: Any,
    played: int,
    seconds: float,
    setup_seconds: float,
    until_ci: float | None,
) -> RunResult:
    """The run's totals from its parts, written into the manifest marked complete."""
    upto = book.stop if book.stop is not None else None
    parts = book.parts(upto=upto)
    games = sum(int(p["games"]) for p in parts)
    first_wins = sum(int(p["first_wins"]) for p in parts)
    shared = sum(int(p["shared"]) for p in parts)
    capped = sum(int(p.get("capped", 0)) for p in parts)
    seats, seats_uncapped = part_seats(book.out, parts)
    outcomes = part_outcomes(book.out, parts)
    result = RunResult(
        spec=spec,
        out=book.out,
        games=games,
        seconds=seconds,
        games_per_s=played / seconds if seconds > 0 else math.inf,
        first_player_wins=first_wins,
        shared=shared,
        parts=len(parts),
        threads=backend.threads,
        setup_seconds=setup_seconds,
        workers=backend.workers,
        backend=backend.name,
        turn_capped=capped,
        seats=seats,
        seats_uncapped=seats_uncapped,
        outcomes=outcomes,
    )
    if until_ci is not None:
        # The spec records the games actually played (so RunSpec(**manifest["spec"])
        # reproduces this dataset); games_requested keeps the --games ceiling.
        run_info["spec"] = {**run_info["spec"], "games": games}
        half = ci_half_width(first_wins, games)
        run_info["stopped"] = "until_ci" if half <= until_ci else "games"
        run_info["ci_half_width"] = round(half, 6)
        result = dataclasses.replace(
            result,
            spec=dataclasses.replace(spec, games=games),
            games_requested=spec.games,
            stopped=run_info["stopped"],
        )
    book.compact(
        metadata,
        True,
        {
            **run_info,
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "seconds": round(seconds, 3),
            "setup_seconds": round(setup_seconds, 3),
            "games_per_s": round(result.games_per_s, 1),
            "first_player_wins": first_wins,
            "shared": shared,
            "turn_capped": capped,
            "seat_counts": dataclasses.asdict(seats),
            "pid": os.getpid(),
        },
        upto=upto,
    )
    return result


def part_seats(out: Path, parts: list[dict[str, Any]]) -> tuple[SeatCounts, SeatCounts]:
    """Seat counts of the run's parts: every game, and turn-capped games left out.

    Read off the manifest entries (a resumed run's earlier parts count too); an
    entry without the capped-game split (written before it existed) is read from its file.
    """
    seats = uncapped = SeatCounts()
    for p in parts:
        games, first, shared, capped = (
            int(p["games"]),
            int(p.get("first_wins", 0)),
            int(p.get("shared", 0)),
            int(p.get("capped", 0)),
        )
        if capped and "capped_first_wins" not in p:
            import pyarrow.parquet as pq

            table = pq.read_table(out / p["file"], columns=["winner", "first_player", "end_reason"])
            seats = seats + SeatCounts.from_frame(table)
            uncapped = uncapped + SeatCounts.from_frame(table, exclude_capped=True)
            continue
        c_first, c_shared = int(p.get("capped_first_wins", 0)), int(p.get("capped_shared", 0))
        seats = seats + SeatCounts(games, first, games - first - shared, shared, capped)
        u_games, u_first, u_shared = games - capped, first - c_first, shared - c_shared
        uncapped = uncapped + SeatCounts(
            u_games, u_first, u_games - u_first - u_shared, u_shared, 0, capped
        )
    return seats, uncapped


OUTCOME_COLUMNS = ("winner", "first_player", "god_p0", "god_p1", "score_p0", "score_p1")


def part_outcomes(out: Path, parts: list[dict[str, Any]]) -> PartOutcomes:
    """Each god's wins and the first player's margins, read from the parts' columns.

    One part at a time, six narrow columns each: a small fraction of the time the
    games took to play.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    total = PartOutcomes()
    for p in parts:
        where = out / p["file"]
        args = where.parquet_args() if hasattr(where, "parquet_args") else {"source": where}
        table = pq.read_table(**args, columns=[*OUTCOME_COLUMNS, "end_reason"])
        ends = table.column("end_reason").cast(pa.string())
        kept = table.filter(pc.invert(pc.equal(ends, CAPPED)))
        gods, margins = GodCounts.from_frame(table), MarginMoments.from_frame(table)
        if kept.num_rows < table.num_rows:
            gods_kept, margins_kept = GodCounts.from_frame(kept), MarginMoments.from_frame(kept)
        else:  # most parts: no game hit the turn cap
            gods_kept, margins_kept = gods, margins
        total = PartOutcomes(
            total.gods + gods,
            total.margins + margins,
            total.gods_uncapped + gods_kept,
            total.margins_uncapped + margins_kept,
        )
    return total


def _cut_last_part(book: ledger.Ledger, metadata: dict[str, str], until_ci: float | None) -> None:
    """Cut the part holding the ``--until-ci`` stop game back to it; mark it the last part."""
    import pyarrow.parquet as pq

    assert book.stop is not None and book.stop_games is not None
    entry = book.done[book.stop - 1]
    keep = book.stop_games - int(entry["first_game"])
    table = pq.read_table(book.out / entry["file"]).slice(0, keep)
    first_wins, shared, capped = count_outcomes(table)
    capped_first_wins, capped_shared = capped_outcomes(table)
    info = {
        **entry,
        "games": keep,
        "first_wins": first_wins,
        "shared": shared,
        "capped": capped,
        "capped_first_wins": capped_first_wins,
        "capped_shared": capped_shared,
    }
    path = io.write_part_named(
        table, book.out, entry["file"], part_metadata(metadata, info, until_ci, True)
    )
    book.done[book.stop - 1] = {**info, io.DIGEST_KEY: io.file_digest(path)}


def check_until_ci(value: float | None) -> None:
    """Refuse an ``--until-ci`` half-width outside (0, 0.5).

    With ``until_ci`` a run looks at the cumulative 95% Wilson interval of the
    first-player win rate after every kernel call (about ``STEP_SECONDS`` of play and at
    most ``sim.run.engine.MAX_STEP`` games, whatever ``chunk_size`` is) and stops
    at the first whose half-width is <= the value, or at ``spec.games``. The
    last part then holds only the games played. The manifest has ``games`` and
    ``spec.games`` = the games played, ``games_requested`` = ``--games``,
    ``until_ci``, ``ci_half_width`` (reached) and ``stopped`` (``"until_ci"``
    or ``"games"``); for the parts' metadata see :func:`part_metadata`.
    """
    if value is None:
        return
    if not (isinstance(value, int | float) and 0 < value < 0.5):
        raise RunError(
            f"--until-ci must be a half-width between 0 and 0.5 (e.g. 0.005), got {value}"
        )


def ci_half_width(successes: Any, n: Any) -> Any:
    """Half the width of the 95% Wilson interval of ``successes / n`` (numbers or arrays)."""
    lo, hi = wilson_interval(successes, n)
    return (hi - lo) / 2


def until_ci_reached(first_wins: Any, games: Any, until_ci: float) -> Any:
    """``--until-ci``'s stop rule: the first player's rate over ``games`` (numbers or
    arrays) has a 95% Wilson half-width of at most ``until_ci``."""
    return ci_half_width(first_wins, games) <= until_ci


def _until_ci_note(result: RunResult) -> str:
    if result.stopped is None:
        return ""
    if result.stopped == "until_ci":
        return (
            f"Stopped at {result.games:,} of at most {result.games_requested:,} games, "
            "once the interval was narrow enough (--until-ci). "
        )
    return f"The interval did not reach --until-ci within {result.games_requested:,} games. "


def first_player_rows(first_wins: int, shared: int, games: int) -> list[tuple[str, str]]:
    """``(label, figure)`` rows: first-seat wins, second-seat wins, shared (95% Wilson CIs).

    The first three rows of :func:`sim.run.seats.seat_rows`; a shared victory
    is a win for neither seat, so the three shares add up to 100%.
    """
    c = SeatCounts(games, first_wins, games - first_wins - shared, shared)
    return seat_rows(c)[:3]


def _seats_of(result: RunResult, exclude_capped: bool) -> SeatCounts:
    seats = result.seats_uncapped if exclude_capped else result.seats
    if seats is None:  # a RunResult built by hand, without per-seat counts
        second = result.games - result.first_player_wins - result.shared
        seats = SeatCounts(
            result.games, result.first_player_wins, second, result.shared, result.turn_capped
        )
    return seats


def _outcome_rows(result: RunResult, exclude_capped: bool) -> list[tuple[str, str]]:
    o = result.outcomes
    if o is None:  # a RunResult built by hand
        return []
    gods, margins = (o.gods_uncapped, o.margins_uncapped) if exclude_capped else (o.gods, o.margins)
    return [margin_row(margins), *god_rows(gods)]


def summary_rows(result: RunResult, exclude_capped: bool = False) -> list[tuple[str, str]]:
    """The rows of :func:`summary`, for callers that lay them out themselves."""
    spec = result.spec
    threads = f"{result.threads} thread{'s' if result.threads != 1 else ''}"
    if result.backend != "local":
        workers = f"{result.workers} {result.backend} worker{'s' if result.workers != 1 else ''}"
        threads = f"{workers} x {threads}"
    out = str(result.out)
    rows = [
        (
            "played",
            f"{result.games:,} games of {spec.mix}, {spec.variant_label}, {spec.p0} vs "
            f"{spec.p1}, {first_player_label(spec.first, spec.variants)}, seed {spec.seed}",
        ),
        ("time", f"{result.seconds:.1f} s (+ {result.setup_seconds:.1f} s to load the kernel)"),
        ("speed", f"{result.games_per_s:,.0f} games/s on {threads}"),
        *seat_rows(_seats_of(result, exclude_capped)),
        *_outcome_rows(result, exclude_capped),
    ]
    note = _until_ci_note(result)
    if note:
        rows.append(("until-ci", note.strip()))
    rows += [
        ("data", f"{out}/ ({result.parts} Parquet part{'s' if result.parts != 1 else ''})"),
        ("load it", f'from sim.analysis import load; df = load("{out}", names=True)'),
    ]
    return rows


def summary(result: RunResult, exclude_capped: bool = False) -> str:
    """A short aligned block: games, time, speed, who won (with intervals), where the data is.

    The first-player figures are :func:`sim.run.seats.seat_rows`; with
    ``exclude_capped`` they leave turn-capped games out and say how many.
    """
    rows = summary_rows(result, exclude_capped)
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label.ljust(width)}  {value}" for label, value in rows)
