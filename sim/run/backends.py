"""Where chunks of games are played: threads of this process, or a Dask cluster.

A run is a list of :class:`Chunk` (global game indices ``start .. start+games-1``)
and one :class:`ChunkJob` saying what every chunk needs (the spec and card
edits, and where to write its Parquet parts). A backend
plays the chunks and yields one :class:`ChunkDone` per chunk as it finishes:

* :class:`LocalBackend` (the default) plays them in order in this process on
  numba's threads, writing chunk *k* on a background thread while chunk *k+1*
  plays.
* :class:`DaskBackend` submits one ``dask.distributed`` task per chunk, at most
  a bounded window of them at a time (client memory stays flat), and yields
  them as they finish, in any order. Workers write their parts themselves; the
  client only keeps the manifest (:mod:`sim.run.ledger`).

Game ``i`` depends on ``(seed, i)`` alone, so both give the same rows for any
chunk size and number of workers. Before a Dask worker plays its first real
chunk of a job it plays the *canary* games and compares a digest of their
kernel output with the client's: a worker with another omensim version, kernel
or card table is refused with :class:`CanaryMismatch` instead of writing rows
that do not belong to the run.

``dask[distributed]`` is an optional extra; it is imported only by
:class:`DaskBackend`.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import os
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import sim
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.run import io, storage
from sim.run.parts import part_metadata, write_part
from sim.run.session import RunError, resolve_threads

BACKENDS = ("local", "dask")
CANARY_GAMES = 8
DEFAULT_WINDOW_PER_WORKER = 2


class BackendError(RunError):
    """A backend that cannot start or a worker that must not play (one line, for ``Error:``)."""


class CanaryMismatch(BackendError):
    """A worker's canary games differ from the client's: it runs other code or cards."""


@dataclass(frozen=True)
class Chunk:
    """Global game indices ``start .. start+games-1``, written as part ``index``."""

    index: int
    start: int
    games: int


class Chunks(Sequence[Chunk]):
    """The chunks of games ``0 .. games-1`` in game order, leaving out the indices in
    ``skip`` (a resumed run's finished parts).

    Each chunk is computed when asked for, so the sequence holds only ``skip``:
    ``--games 1e12`` costs no memory before play (a list of its chunks would hold
    millions of objects before the first game).
    """

    def __init__(self, games: int, chunk_size: int, skip: Iterable[int] = ()) -> None:
        """Chunks of ``chunk_size`` games (the last may be shorter), without ``skip``."""
        self.games, self.size = games, chunk_size
        self._all = -(-games // chunk_size)
        self._skip = sorted({int(i) for i in skip if 0 <= int(i) < self._all})
        # skip[k] - k never decreases, so the position of an index is found by bisection.
        self._gaps = [s - k for k, s in enumerate(self._skip)]

    def __len__(self) -> int:
        return self._all - len(self._skip)

    def chunk(self, index: int) -> Chunk:
        """Chunk ``index`` of the whole run (skipped or not)."""
        start = index * self.size
        return Chunk(index, start, min(self.size, self.games - start))

    def __getitem__(self, p: Any) -> Any:
        if isinstance(p, slice):
            return [self[i] for i in range(*p.indices(len(self)))]
        n = len(self)
        if p < 0:
            p += n
        if not 0 <= p < n:
            raise IndexError(p)
        return self.chunk(p + bisect.bisect_right(self._gaps, p))

    def __iter__(self) -> Iterator[Chunk]:
        skip, k = self._skip, 0
        for index in range(self._all):
            if k < len(skip) and skip[k] == index:
                k += 1
                continue
            yield self.chunk(index)


def chunks_of(games: int, chunk_size: int) -> Chunks:
    """The chunks of games ``0 .. games-1``, in game order (computed on demand)."""
    return Chunks(games, chunk_size)


@dataclass(frozen=True)
class ChunkJob:
    """What every chunk of one run needs; pickled once to each Dask worker."""

    spec: RunSpec
    changes: Changes | None
    key: str
    """Digest of the run key (:func:`sim.run.ledger.run_key`); names the job on workers."""
    canary: str
    """:func:`canary_digest` of the client's engine."""
    identity: dict[str, str] = field(default_factory=dict)
    """Version, kernel digest and card hash of the client, for error messages."""
    out: str = ""
    """Run directory (path or fsspec URL) the parts go to."""
    metadata: dict[str, str] = field(default_factory=dict)
    """Key-value metadata of every part."""
    width: int = 5
    """Digits of the part number (:func:`sim.run.ledger.part_width`)."""
    until_ci: float | None = None
    """The run's ``--until-ci``: parts say the games they hold; chunks carry ``won``."""


@dataclass(frozen=True)
class ChunkDone:
    """One finished chunk: its outcome counts and its part file."""

    index: int
    start: int
    games: int
    first_wins: int
    shared: int
    capped: int = 0
    file: str | None = None
    won: np.ndarray | None = None
    """With ``until_ci``: per game, whether the first player won (``np.packbits``)."""
    capped_first_wins: int = 0
    """First-player wins among the turn-capped games (for ``--exclude-capped`` figures)."""
    capped_shared: int = 0
    """Shared victories among the turn-capped games."""
    sha256: str | None = None
    """The SHA-256 of the part file (``io.file_digest``), recorded in the manifest."""

    def part_info(self) -> dict[str, Any]:
        """The manifest entry of the chunk's part."""
        return {
            "index": self.index,
            "file": self.file,
            "first_game": self.start,
            "games": self.games,
            "first_wins": self.first_wins,
            "shared": self.shared,
            "capped": self.capped,
            "capped_first_wins": self.capped_first_wins,
            "capped_shared": self.capped_shared,
            io.DIGEST_KEY: self.sha256,
        }


class Backend(Protocol):
    """Plays chunks of a job; see the module docstring."""

    name: str
    workers: int
    """Worker processes (1 for the local backend)."""
    threads: int
    """numba threads per worker process."""
    ticks: bool
    """Whether ``map_chunks`` calls ``tick`` with the rows of every kernel call."""

    def map_chunks(
        self, job: ChunkJob, chunks: Sequence[Chunk], engine: Any, tick: Any = None
    ) -> Iterator[ChunkDone]:
        """Play ``chunks``; yield each as it finishes. ``engine`` is the client's, warmed up."""
        ...

    def close(self) -> None:
        """Release workers and threads."""
        ...


def count_outcomes(table: pa.Table) -> tuple[int, int, int]:
    """(first-player wins, shared victories, turn-capped games) in one chunk of games."""
    winner = table.column("winner")
    first_wins = pc.sum(pc.equal(winner, table.column("first_player"))).as_py() or 0
    shared = pc.sum(pc.equal(winner, -1)).as_py() or 0
    ends = table.column("end_reason").cast(pa.string())
    capped = pc.sum(pc.equal(ends, "turn_cap")).as_py() or 0
    return int(first_wins), int(shared), int(capped)


def capped_outcomes(table: pa.Table) -> tuple[int, int]:
    """(first-player wins, shared victories) among a chunk's turn-capped games."""
    capped = pc.equal(table.column("end_reason").cast(pa.string()), "turn_cap")
    winner = table.column("winner")
    first_wins = pc.sum(pc.and_(capped, pc.equal(winner, table.column("first_player"))))
    shared = pc.sum(pc.and_(capped, pc.equal(winner, -1)))
    return int(first_wins.as_py() or 0), int(shared.as_py() or 0)


def canary_digest(engine: Any, games: int = CANARY_GAMES) -> str:
    """SHA-256 of the kernel output of games ``0 .. games-1`` (at most ``spec.games``)."""
    out, masks = engine.play_raw(0, min(games, engine.spec.games))
    h = hashlib.sha256()
    for a in (out, masks):
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def identity(engine: Any) -> dict[str, str]:
    """What a worker must share with the client to play the same rows (for messages)."""
    from sim.compiler.cache import source_digest  # lazy: importing sim.kernel checks the cache

    return {
        "version": sim.__version__,
        "kernel": source_digest()[:12],
        "card_hash": str(engine.metadata.get("card_hash", ""))[:12],
    }


def make_job(
    engine: Any,
    key: str,
    *,
    changes: Changes | None = None,
    out: Any,
    width: int = 5,
    until_ci: float | None = None,
    metadata: dict[str, str] | None = None,
) -> ChunkJob:
    """The job for ``engine``'s games: parts into ``out``.

    ``metadata`` (default ``engine.metadata``) goes into every part written.
    """
    return ChunkJob(
        spec=engine.spec,
        changes=changes if changes else None,
        key=key,
        canary=canary_digest(engine),
        identity=identity(engine),
        out=str(out),
        metadata=metadata if metadata is not None else dict(engine.metadata),
        width=width,
        until_ci=until_ci,
    )


def _play(engine: Any, chunk: Chunk, tick: Any = None) -> tuple[pa.Table, int, int, int]:
    """Play a chunk; with ``tick`` (local backend) it may end early when ``tick`` says so."""
    table = (
        engine.play(chunk.start, chunk.games, tick=tick)
        if tick
        else engine.play(chunk.start, chunk.games)
    )
    if table.num_rows > chunk.games or (tick is None and table.num_rows != chunk.games):
        raise RuntimeError(
            f"engine returned {table.num_rows} rows for games "
            f"{chunk.start}..{chunk.start + chunk.games - 1}"
        )
    return (table, *count_outcomes(table))


def _finish(job: ChunkJob, chunk: Chunk, table: pa.Table, fw: int, sh: int, cap: int) -> ChunkDone:
    """Write the chunk's part and describe it."""
    n = table.num_rows
    won = None
    if job.until_ci is not None:
        first_won = pc.equal(table.column("winner"), table.column("first_player"))
        won = np.packbits(first_won.to_numpy(zero_copy_only=False))
    cfw, csh = capped_outcomes(table) if cap else (0, 0)
    name = io.part_name(chunk.index, job.width)
    info = {"first_game": chunk.start, "games": n}
    last = chunk.start + n >= job.spec.games
    write_part(table, job.out, name, part_metadata(job.metadata, info, job.until_ci, last))
    digest = io.file_digest(storage.location(job.out) / name)
    return ChunkDone(
        chunk.index,
        chunk.start,
        n,
        fw,
        sh,
        cap,
        won=won,
        capped_first_wins=cfw,
        capped_shared=csh,
        file=name,
        sha256=digest,
    )


STREAM_QUEUE = 2
"""Groups of rows a streamed part may have waiting for the writer before play waits."""


class _StreamedPart:
    """One chunk's part, written group by group on the writer thread (``LocalBackend``)."""

    def __init__(self, job: ChunkJob, chunk: Chunk) -> None:
        self.chunk = chunk
        self.name = io.part_name(chunk.index, job.width)
        self.part = io.PartWriter(job.out, self.name, job.metadata)
        self.games = 0
        self.counts = [0, 0, 0, 0, 0]  # first wins, shared, capped; capped first wins, shared

    def write(self, table: pa.Table) -> None:
        """Append a group of games to the part and count its outcomes."""
        self.part.write(table)
        fw, sh, cap = count_outcomes(table)
        cfw, csh = capped_outcomes(table) if cap else (0, 0)
        for i, v in enumerate((fw, sh, cap, cfw, csh)):
            self.counts[i] += v
        self.games += table.num_rows

    def close(self) -> ChunkDone:
        """Move the part into place; describe it."""
        try:
            final = self.part.close()
        except BaseException:
            self.part.abort()
            raise
        fw, sh, cap, cfw, csh = self.counts
        c = self.chunk
        return ChunkDone(
            c.index, c.start, self.games, fw, sh, cap, file=self.name,
            capped_first_wins=cfw, capped_shared=csh, sha256=io.file_digest(final),
        )  # fmt: skip


def _stream_parts(
    job: ChunkJob, chunks: Sequence[Chunk], engine: Any, tick: Any
) -> Iterator[ChunkDone]:
    """``LocalBackend.map_chunks`` for parts in a local folder: each group of games
    (``Engine.play_groups``) goes to the writer thread as soon as it is played.

    The part of chunk *k* is closed (moved into place) while chunk *k+1* plays and is
    yielded after it, as the whole-chunk path does; a part interrupted by an error, or
    by the caller closing the generator, is aborted (its temporary removed), so only
    yielded parts and at most the one closing when the caller stops reach their names.
    """
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="omensim-writer") as pool:
        try:
            yield from _stream_chunks(job, chunks, engine, tick, pool)
        finally:
            # The next chunk's first kernel calls, queued while this one ended, are not played.
            engine.drop_ahead()


def _stream_chunks(
    job: ChunkJob, chunks: Sequence[Chunk], engine: Any, tick: Any, pool: ThreadPoolExecutor
) -> Iterator[ChunkDone]:
    """:func:`_stream_parts` with its writer thread ``pool``."""
    closing: Future[ChunkDone] | None = None  # the previous chunk's part
    for i, chunk in enumerate(chunks):
        part = _StreamedPart(job, chunk)
        writes: list[Future[None]] = []
        # The next chunk's first calls queue behind this one's last (Engine.play_groups).
        then = (chunks[i + 1].start, chunks[i + 1].games) if i + 1 < len(chunks) else None
        try:
            rows = 0
            for table in engine.play_groups(chunk.start, chunk.games, tick, then):
                rows += table.num_rows
                writes.append(pool.submit(part.write, table))
                del table  # the writer holds the only reference now
                while len(writes) > STREAM_QUEUE:
                    writes.pop(0).result()
            for w in writes:
                w.result()
            if rows > chunk.games or rows == 0:
                raise RuntimeError(
                    f"engine returned {rows} rows for games "
                    f"{chunk.start}..{chunk.start + chunk.games - 1}"
                )
            done = closing.result() if closing is not None else None
        except BaseException:
            # Waits for the writes already queued, then drops this part's temporary.
            pool.submit(part.part.abort).result()
            # Report the part already closed before the error goes up, so an
            # interrupted run's manifest lists it.
            if closing is not None and closing.exception() is None:
                yield closing.result()
            raise
        if done is not None:
            try:
                yield done
            except BaseException:  # the caller stopped, or failed recording ``done``
                pool.submit(part.part.abort).result()
                raise
        closing = pool.submit(part.close)
        if rows < chunk.games:
            break  # tick ended the run inside this chunk
    if closing is not None:
        yield closing.result()


class LocalBackend:
    """Chunks in order, in this process, on ``threads`` numba threads (the default)."""

    name = "local"
    workers = 1
    ticks = True
    """``tick`` is called after every kernel call (so the caller need not count games)."""

    def __init__(self, threads: int) -> None:
        self.threads = threads

    def map_chunks(
        self, job: ChunkJob, chunks: Sequence[Chunk], engine: Any, tick: Any = None
    ) -> Iterator[ChunkDone]:
        """Play each chunk on ``engine``; finish (write) it on one background thread.

        ``tick(rows)`` is called with each kernel call's rows; when it returns True
        the chunk ends there and no further chunk is played. ``Engine.play``
        releases the GIL, so writing chunk *k* really overlaps with
        playing chunk *k+1*.

        A part in a local folder is written group by group as its games are played
        (:func:`_stream_parts`), so memory holds a few groups of rows, never a chunk.
        Otherwise (a URL, or ``--until-ci``, whose parts' metadata
        depends on where the run stops) a chunk is written whole while the next one
        plays, so memory holds two chunks.
        """
        local = not storage.is_url(job.out)
        if tick is not None and local and job.until_ci is None:
            yield from _stream_parts(job, chunks, engine, tick)
            return
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="omensim-writer") as pool:
            pending: Future[ChunkDone] | None = None
            for chunk in chunks:
                try:
                    played = _play(engine, chunk, tick)
                except BaseException:
                    # Report the part already being written before the error goes up,
                    # so an interrupted run's manifest lists it.
                    if pending is not None and pending.exception() is None:
                        yield pending.result()
                    raise
                if pending is not None:
                    yield pending.result()
                short = played[0].num_rows < chunk.games
                pending = pool.submit(_finish, job, chunk, *played)
                del played  # the writer holds the only reference now
                if short:
                    break  # tick ended the run inside this chunk
            if pending is not None:
                yield pending.result()

    def close(self) -> None:
        """Nothing to release."""


# --- Dask -------------------------------------------------------------------------------

_WORKER_LOCK = threading.Lock()
_WORKER_ENGINES: dict[str, Any] = {}  # job key -> warmed Engine, on each worker process
_WORKER_KEEP = 2  # engines kept per worker (a sweep moves from one variant to the next)


def _worker_threads() -> int:
    """numba threads for this worker: ``NUMBA_NUM_THREADS`` of its environment.

    The nanny passes the worker environment on, but numba may have read its config
    before (dask/distributed#9075), so the number is applied with set_num_threads too.
    """
    import numba

    limit = int(numba.config.NUMBA_NUM_THREADS)
    wanted = os.environ.get("OMENSIM_WORKER_THREADS") or os.environ.get("NUMBA_NUM_THREADS")
    try:
        n = int(wanted) if wanted else limit
    except ValueError:
        n = limit
    return max(1, min(n, limit))


def _local_cache_dir() -> None:
    """Put numba's cache on this worker's local disk unless the worker was told where.

    Must run before the kernel modules are imported: numba reads the cache
    location when a ``cache=True`` function is defined.
    """
    import sys

    if (
        os.environ.get("NUMBA_CACHE_DIR")
        or os.environ.get("OMENSIM_KEEP_NUMBA_CACHE")
        or "sim.kernel.batch" in sys.modules
    ):
        return
    path = os.path.join(tempfile.gettempdir(), f"omensim-numba-{os.getuid()}")
    os.environ["NUMBA_CACHE_DIR"] = path
    import numba

    numba.config.CACHE_DIR = path
    from sim.compiler.cache import ensure_fresh_cache  # lazy: after the cache dir is set

    ensure_fresh_cache()  # the stamp check ran against the old location


def _worker_engine(job: ChunkJob) -> Any:
    """This worker's warmed engine for ``job``, built and canary-checked on first use."""
    with _WORKER_LOCK:
        engine = _WORKER_ENGINES.get(job.key)
        if engine is not None:
            return engine
        _local_cache_dir()
        from sim.run.engine import Engine  # lazy: after the cache dir is set; loads numba code

        engine = Engine.ready(job.spec, job.changes or None)
        mine = canary_digest(engine)
        if mine != job.canary:
            raise CanaryMismatch(
                f"worker {_worker_name()} plays different games than the client for the same "
                f"spec (worker {identity(engine)}, client {job.identity}); install the same "
                "omensim and cards on every worker"
            )
        while len(_WORKER_ENGINES) >= _WORKER_KEEP:
            _WORKER_ENGINES.pop(next(iter(_WORKER_ENGINES)))
        _WORKER_ENGINES[job.key] = engine
        return engine


def _worker_name() -> str:
    with contextlib.suppress(Exception):
        from distributed import get_worker

        return str(get_worker().address)
    return f"pid {os.getpid()}"


def play_on_worker(job: ChunkJob, chunk: Chunk) -> ChunkDone:
    """The Dask task: play one chunk on this worker and write its part (or return columns)."""
    import numba

    engine = _worker_engine(job)
    numba.set_num_threads(_worker_threads())  # per thread in numba: set on every task
    return _finish(job, chunk, *_play(engine, chunk))


class DaskBackend:
    """One ``dask.distributed`` task per chunk on an existing scheduler or a LocalCluster.

    Args:
        scheduler: address of a running scheduler (``tcp://host:8786``); ``None``
            starts a ``LocalCluster`` of ``workers`` processes on this machine.
        workers: LocalCluster worker processes (default: one per core).
        threads: numba threads per LocalCluster worker (default: cores / workers).
        window: tasks in flight per worker thread (bounds client memory).
    """

    name = "dask"
    ticks = False

    def __init__(
        self,
        scheduler: str | None = None,
        workers: int | None = None,
        threads: int | None = None,
        window: int = DEFAULT_WINDOW_PER_WORKER,
    ) -> None:
        try:
            import distributed
        except ImportError:
            raise BackendError(
                "--backend dask needs dask.distributed: pip install -e '.[dask]'"
            ) from None
        self._cluster: Any = None
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        self._window = window
        if scheduler is not None:
            if workers is not None:
                raise BackendError("--workers sizes a local cluster; not with --scheduler")
            try:
                self.client = distributed.Client(scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError, TypeError) as exc:  # malformed too
                why = " ".join(str(exc).split()) or type(exc).__name__
                raise BackendError(f"cannot reach the Dask scheduler {scheduler}: {why}") from None
        else:
            cores = os.cpu_count() or 1
            n = workers or cores
            per = threads or max(1, cores // n)
            # One Dask thread per worker process: numba's parallel kernels inside
            # multi-threaded workers have hung (dask/dask#5132); numba threads do the rest.
            env = {"NUMBA_NUM_THREADS": str(per), "OMENSIM_WORKER_THREADS": str(per)}
            # Same machine, same disk: share the client's already warm cache.
            env["OMENSIM_KEEP_NUMBA_CACHE"] = "1"
            if os.environ.get("NUMBA_CACHE_DIR"):
                env["NUMBA_CACHE_DIR"] = os.environ["NUMBA_CACHE_DIR"]
            import logging

            # The workers' scratch space (dask keeps its locks there after the workers
            # go) in a folder of this backend's own, removed on close: nothing is left in
            # the temporary folder the command ran with.
            self._scratch = tempfile.TemporaryDirectory(
                prefix="omensim-dask-", ignore_cleanup_errors=True
            )
            self._cluster = distributed.LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                processes=True,
                env=env,
                dashboard_address=":0",  # a free port: never clash with another cluster
                silence_logs=logging.ERROR,
                local_directory=self._scratch.name,
                scheduler_kwargs={"local_directory": self._scratch.name},
            )
            self.client = distributed.Client(self._cluster)
        info = self.client.scheduler_info(n_workers=-1)["workers"]
        if not info:
            self.client.wait_for_workers(1, timeout=60)
            info = self.client.scheduler_info(n_workers=-1)["workers"]
        self.workers = len(info)
        self.slots = sum(int(w.get("nthreads", 1)) for w in info.values()) or 1
        self.threads = threads or max(1, (os.cpu_count() or 1) // max(1, self.workers))

    def map_chunks(
        self, job: ChunkJob, chunks: Sequence[Chunk], engine: Any, tick: Any = None
    ) -> Iterator[ChunkDone]:
        """Submit chunks (at most ``window`` per worker slot ahead of the oldest unfinished one).

        Yields in completion order. Closing the generator early (``--until-ci``)
        waits for the tasks already running, so no part is written after it returns;
        an exception cancels what has not finished.
        """
        from distributed import as_completed

        window = max(1, self._window * self.slots)
        [job_future] = self.client.scatter([job], broadcast=True, hash=False)
        pos: dict[int, int] = {}  # chunk index -> position, for the running chunks only
        running: dict[int, Any] = {}
        queue = as_completed()
        nxt = 0

        def fill() -> None:
            nonlocal nxt
            oldest = min(running, default=nxt)
            while nxt < len(chunks) and nxt < oldest + window:
                chunk = chunks[nxt]
                fut = self.client.submit(
                    play_on_worker,
                    job_future,
                    chunk,
                    key=f"omensim-{job.key[:12]}-{chunk.index}",
                    pure=False,
                )
                running[nxt] = fut
                pos[chunk.index] = nxt
                queue.add(fut)
                nxt += 1

        ok = False
        try:
            fill()
            for fut in queue:
                done: ChunkDone = fut.result()
                del running[pos.pop(done.index)]
                fill()
                yield done
            ok = True
        except GeneratorExit:
            # Stopped early: let running tasks finish writing so the caller can
            # delete their parts knowing none is still to come.
            pending = list(running.values())
            with contextlib.suppress(Exception):
                self.client.gather(pending, errors="skip")
            ok = True
            raise
        finally:
            if not ok:
                self.client.cancel(list(running.values()))
            with contextlib.suppress(Exception):
                self.client.cancel([job_future])

    def close(self) -> None:
        """Close the client, and the LocalCluster if this backend started one."""
        with contextlib.suppress(Exception):
            self.client.close()
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                self._cluster.close()
        if self._scratch is not None:
            self._scratch.cleanup()

    def __enter__(self) -> DaskBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_backend(
    name: str = "local",
    threads: int | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
) -> Backend:
    """The backend the command line names (``--backend``, ``--scheduler``, ``--workers``)."""
    if name not in BACKENDS:
        raise BackendError(f"--backend must be one of {', '.join(BACKENDS)}, got {name!r}")
    if name == "local":
        if scheduler is not None or workers is not None:
            raise BackendError("--scheduler and --workers need --backend dask")
        return LocalBackend(resolve_threads(threads))
    return DaskBackend(scheduler=scheduler, workers=workers, threads=threads)


@contextlib.contextmanager
def open_backend(
    name: str = "local",
    threads: int | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
) -> Iterator[Backend | None]:
    """:func:`make_backend` for a ``with`` block; ``None`` for a plain local run.

    The local case yields ``None`` so callers keep their own thread handling.
    """
    if name == "local" and scheduler is None and workers is None:
        yield None
        return
    backend = make_backend(name, threads, scheduler, workers)
    try:
        yield backend
    finally:
        backend.close()
