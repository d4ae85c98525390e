"""Run many games on the local cores and write them to a run directory.

The runner owns everything around the game kernel that a user notices: where
results go, how long it takes, what happens on Ctrl-C. It

1. validates the output directory (nothing is created for a run that cannot
   start: unknown mix, unknown bot, existing results),
2. builds the :class:`sim.run.engine.Engine` and warms up its JIT cache,
3. plays the games in chunks of ``chunk_size`` global game indices and
   writes each chunk as one Parquet part (see :mod:`sim.run.io`), overlapping the
   write of chunk *k* with the play of chunk *k+1* on one background thread
   (``Engine.play`` releases the GIL, so the two really run side by side),
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
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from sim.analysis.seats import SeatCounts, first_player_label, seat_rows
from sim.analysis.stats import wilson_interval
from sim.data import vocab as V
from sim.data.spec import RunSpec
from sim.kernel import layout as L
from sim.run import io
from sim.run import progress as P
from sim.run.lock import FolderLockedError, locked
from sim.run.session import RunError, numba_threads, resolve_threads

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
    """Every game's outcome by seat order (:mod:`sim.analysis.seats`)."""
    seats_uncapped: SeatCounts | None = None
    """The same with turn-capped games left out (for ``--exclude-capped``)."""


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


def _chunks(games: int, chunk_size: int) -> Iterator[tuple[int, int, int]]:
    """``(part index, first game, games in part)`` for each chunk, in game order."""
    for index, start in enumerate(range(0, games, chunk_size)):
        yield index, start, min(chunk_size, games - start)


@dataclass
class _Tally:
    """Running outcome counts of the games played so far, read off the kernel's rows."""

    games: int = 0
    first_wins: int = 0
    shared: int = 0
    capped: int = 0
    seats: SeatCounts = dataclasses.field(default_factory=SeatCounts)
    seats_uncapped: SeatCounts = dataclasses.field(default_factory=SeatCounts)

    def add(self, out: np.ndarray) -> None:
        winner = out[:, L.O_WINNER]
        capped = out[:, L.O_END_REASON] == V.ER_TURN_CAP
        self.games += len(out)
        self.first_wins += int(np.count_nonzero(winner == out[:, L.O_FIRST]))
        self.shared += int(np.count_nonzero(winner == -1))
        self.capped += int(np.count_nonzero(capped))
        first = out[:, L.O_FIRST]
        self.seats = self.seats + SeatCounts.from_arrays(winner, first, capped)
        self.seats_uncapped = self.seats_uncapped + SeatCounts.from_arrays(
            winner, first, capped, exclude_capped=True
        )


def run(
    spec: RunSpec,
    out: Path | str | None = None,
    threads: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    force: bool = False,
    progress: bool | None = None,
    changes: Any = None,
    until_ci: float | None = None,
) -> RunResult:
    """Play ``spec.games`` games and write them to the run directory ``out``.

    Args:
        spec: what to play.
        out: the run directory; ``None`` picks a fresh one with :func:`default_out_dir`.
            It must be absent or empty unless ``force``.
        threads: numba worker threads; ``None`` uses all cores.
        chunk_size: games per Parquet part. Bigger chunks mean fewer files;
            smaller ones bound memory. Progress and ``until_ci`` do not wait for a
            whole chunk (see ``Engine.play``). Results do not depend on it.
        force: replace an earlier run in ``out`` (its parts and manifest are
            deleted first). Files omensim did not write are never deleted.
        progress: ``True`` always shows the progress bar (and the compile note)
            on stderr, ``False`` never, ``None`` when stderr is a terminal.
        changes: designer edits to the cards (:class:`sim.data.changes.Changes`);
            ``None`` plays the shipped cards.
        until_ci: stop as soon as the 95% Wilson interval of the first-player win
            rate has a half-width of at most this (looked at every few thousand
            games), or at ``spec.games``. See :func:`check_until_ci`.

    Returns:
        A :class:`RunResult` with the counts and timings.

    Raises:
        sim.data.spec.SpecError: unknown mix or strategy (nothing is written).
        sim.data.cards.CardDataError: invalid card data (nothing is written).
        RunError: bad ``threads``/``chunk_size`` or an output directory we must not use.
        OSError: the output directory cannot be created or written.

    Any failure or interrupt after the directory was created leaves its
    manifest saying ``"complete": false``; the parts already written stay.
    """
    if chunk_size < 1:
        raise RunError(f"--chunk-size must be at least 1, got {chunk_size}")
    check_until_ci(until_ci)
    out = Path(out) if out is not None else default_out_dir(spec)
    n_threads = resolve_threads(threads)
    io.check_output_dir(out, force)

    t_setup = time.perf_counter()
    show = P.wanted(progress)
    with numba_threads(n_threads):
        with P.kernel_ready(show):
            from sim.run.engine import Engine  # deferred: importing it compiles/loads numba code

            engine = Engine(spec, changes=changes) if changes else Engine(spec)
            engine.warmup()
        setup_seconds = time.perf_counter() - t_setup
        return _play_and_write(
            engine, spec, out, n_threads, chunk_size, force, show, setup_seconds, until_ci
        )


def _play_and_write(
    engine: Any,
    spec: RunSpec,
    out: Path,
    n_threads: int,
    chunk_size: int,
    force: bool,
    show: bool,
    setup_seconds: float,
    until_ci: float | None = None,
) -> RunResult:
    # Directory work only now: a bad mix/strategy (raised by Engine above) creates nothing.
    out.mkdir(parents=True, exist_ok=True)
    try:
        with locked(out):
            # Checked again under the lock: another run may have written here meanwhile.
            io.check_output_dir(out, force, held=True)
            if force:
                io.clear_run_files(out)
            return _write_locked(
                engine, spec, out, n_threads, chunk_size, show, setup_seconds, until_ci
            )
    except FolderLockedError as exc:
        raise RunError(str(exc)) from None


def _write_locked(
    engine: Any,
    spec: RunSpec,
    out: Path,
    n_threads: int,
    chunk_size: int,
    show: bool,
    setup_seconds: float,
    until_ci: float | None,
) -> RunResult:
    metadata = {str(k): str(v) for k, v in engine.metadata.items()}
    # Every part carries the run's key, so a part from another run is recognised on reading.
    metadata[io.RUN_KEY] = io.run_key(metadata)
    run_info: dict[str, Any] = {
        "spec": dataclasses.asdict(spec),
        # What a reviewer needs to rerun and check it: RunSpec(**spec) with
        # card_changes, at git_commit, with these library versions and bot vectors.
        "card_changes": json.loads(engine.metadata.get("card_changes", "null")),
        "provenance": getattr(engine, "provenance", None),
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "threads": n_threads,
        "chunk_size": chunk_size,
    }
    if until_ci is not None:
        run_info["until_ci"] = until_ci
        run_info["games_requested"] = spec.games
    # Say "incomplete" before the first game, so even a kill -9 cannot leave a run
    # directory that looks finished.
    io.write_manifest(out, metadata, [], 0, complete=False, extra=run_info)
    # Card names beside the games, so `df.merge(cards)` needs no metadata JSON.
    io.write_cards(out, engine.pool.cards_table())

    bar = P.Bar(spec.games, show, desc="run")
    parts: list[dict[str, Any]] = []  # appended only by the writer thread while it runs
    tally = _Tally()
    stop = False

    def tick(rows: np.ndarray) -> bool:
        # After every kernel call (about 0.2 s or 4096 games, whatever --chunk-size is):
        # the bar moves and --until-ci looks at the interval.
        nonlocal stop
        tally.add(rows)
        bar.advance(len(rows))
        stop = until_ci is not None and ci_half_width(tally.first_wins, tally.games) <= until_ci
        return stop

    def write(table: pa.Table, index: int, info: dict[str, Any], last: bool) -> None:
        io.write_part(table, out, index, _part_metadata(metadata, info, until_ci, last))
        parts.append(info)
        # Keep the manifest's part list current (still incomplete), so an interrupted
        # run says exactly which games are on disk.
        io.write_manifest(
            out, metadata, parts, sum(p["games"] for p in parts), complete=False, extra=run_info
        )

    t0 = time.perf_counter()
    try:
        # One writer thread: Parquet encoding + compression of chunk k overlaps with
        # playing chunk k+1. At most one write is in flight, so memory stays at two chunks.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="omensim-writer") as pool:
            pending: Future[None] | None = None
            for index, start, n in _chunks(spec.games, chunk_size):
                table = engine.play(start, n, tick=tick)
                if table.num_rows != n and not stop:
                    raise RuntimeError(
                        f"engine returned {table.num_rows} rows for games {start}..{start + n - 1}"
                    )
                if pending is not None:
                    pending.result()  # surface a failed write before queueing the next
                info = {
                    "file": io.part_name(index),
                    "first_game": start,
                    "games": table.num_rows,
                }
                last = stop or start + n >= spec.games
                pending = pool.submit(write, table, index, info, last)
                del table  # the writer holds the only reference now
                if stop:
                    break
            if pending is not None:
                pending.result()
    except BaseException as exc:
        # Leaving the `with` block waited for the writer, so `parts` is final here.
        bar.close()
        # The original error is the one worth reporting, not a failure to record it.
        with contextlib.suppress(Exception):
            io.write_manifest(
                out,
                metadata,
                parts,
                sum(p["games"] for p in parts),
                complete=False,
                extra={**run_info, "error": f"{type(exc).__name__}: {exc}".rstrip(": ")},
            )
        raise
    seconds = time.perf_counter() - t0
    bar.close()
    played, first_wins, shared = tally.games, tally.first_wins, tally.shared

    result = RunResult(
        spec=spec,
        out=out,
        games=played,
        seconds=seconds,
        games_per_s=played / seconds if seconds > 0 else math.inf,
        first_player_wins=first_wins,
        shared=shared,
        parts=len(parts),
        threads=n_threads,
        setup_seconds=setup_seconds,
        turn_capped=tally.capped,
        seats=tally.seats,
        seats_uncapped=tally.seats_uncapped,
    )
    if until_ci is not None:
        # The spec records the games actually played (so RunSpec(**manifest["spec"])
        # reproduces this dataset); games_requested keeps the --games ceiling.
        run_info["spec"] = {**run_info["spec"], "games": played}
        half = ci_half_width(first_wins, played)
        run_info["stopped"] = "until_ci" if half <= until_ci else "games"
        run_info["ci_half_width"] = round(half, 6)
        result = dataclasses.replace(
            result,
            spec=dataclasses.replace(spec, games=played),
            games_requested=spec.games,
            stopped=run_info["stopped"],
        )
    io.write_manifest(
        out,
        metadata,
        parts,
        played,
        complete=True,
        extra={
            **run_info,
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "seconds": round(seconds, 3),
            "setup_seconds": round(setup_seconds, 3),
            "games_per_s": round(result.games_per_s, 1),
            "first_player_wins": first_wins,
            "shared": shared,
            "turn_capped": tally.capped,
            "seat_counts": dataclasses.asdict(tally.seats),
            "pid": os.getpid(),
        },
    )
    return result


def _part_metadata(
    metadata: dict[str, str], info: dict[str, Any], until_ci: float | None, last: bool
) -> dict[str, str]:
    """A part's Parquet metadata: the run's (whose ``games`` is what was played).

    With ``until_ci`` the run's total is unknown while early parts are written,
    so every part states ``part_first_game`` and ``part_games`` (the games it
    really holds) and ``games_requested`` (the ceiling) instead of ``games``;
    the last part, written once the run knows where it stopped, also states
    ``games`` = the games actually played.
    """
    if until_ci is None:
        return metadata
    meta = {
        **metadata,
        "part_first_game": str(info["first_game"]),
        "part_games": str(info["games"]),
    }
    meta["games_requested"] = meta.pop("games")
    if last:
        meta["games"] = str(info["first_game"] + info["games"])
    return meta


def check_until_ci(value: float | None) -> None:
    """Refuse an ``--until-ci`` half-width outside (0, 0.5).

    With ``until_ci`` a run looks at the cumulative 95% Wilson interval of the
    first-player win rate after every kernel call (about 0.2 s of play and at
    most ``sim.run.engine.MAX_STEP`` games, whatever ``chunk_size`` is) and stops
    at the first whose half-width is <= the value, or at ``spec.games``. The
    last part then holds only the games played. The manifest has ``games`` and
    ``spec.games`` = the games played, ``games_requested`` = ``--games``,
    ``until_ci``, ``ci_half_width`` (reached) and ``stopped`` (``"until_ci"``
    or ``"games"``); for the parts' metadata see :func:`_part_metadata`.
    """
    if value is None:
        return
    if not (isinstance(value, int | float) and 0 < value < 0.5):
        raise RunError(
            f"--until-ci must be a half-width between 0 and 0.5 (e.g. 0.005), got {value}"
        )


def ci_half_width(successes: int, n: int) -> float:
    """Half the width of the 95% Wilson interval of ``successes / n``."""
    lo, hi = wilson_interval(successes, n)
    return (hi - lo) / 2


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

    The first three rows of :func:`sim.analysis.seats.seat_rows`; a shared victory
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


def summary_rows(result: RunResult, exclude_capped: bool = False) -> list[tuple[str, str]]:
    """The rows of :func:`summary`, for callers that lay them out themselves."""
    spec = result.spec
    threads = f"{result.threads} thread{'s' if result.threads != 1 else ''}"
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

    The first-player figures are :func:`sim.analysis.seats.seat_rows`; with
    ``exclude_capped`` they leave turn-capped games out and say how many.
    """
    rows = summary_rows(result, exclude_capped)
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label.ljust(width)}  {value}" for label, value in rows)
