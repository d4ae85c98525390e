"""The engine: one run's compiled cards and bots, turned into Parquet-ready rows.

``Engine(spec)`` validates the run and compiles everything once; ``play``
hands chunks of global game indices to the numba kernel and converts its
integer output into a ``pyarrow.Table`` with the documented columns.
"""

from __future__ import annotations

import json
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator

import numba
import numpy as np
import pyarrow as pa

from sim.base import layout as L
from sim.base import vocab as V
from sim.base.column_docs import Columns, columns_table
from sim.compiler import PLAIN
from sim.compiler.ahead import AVAILABLE as CLAIMS
from sim.compiler.ahead import compile_named, compiling_ahead
from sim.compiler.linkage import OFF, kernel_name
from sim.data.cards import CardPool
from sim.data.changes import Changes
from sim.data.spec import RunSpec, SpecError
from sim.kernel.batch import (
    Batch,
    RunArgs,
    cancel_all,
    linked_run,
    play_batch,
    range_kernel,
    start_batch,
)
from sim.run import bitlists, io
from sim.run.compiled import CompiledRun, compile_run
from sim.run.progress import kernel_needs_compile
from sim.run.provenance import provenance

BLOCKS_PER_THREAD = 8
"""Blocks per thread of a blocking kernel call (:meth:`Engine.play_raw`): more blocks than
threads even out games of unequal length, and ``batch.guided_bounds`` shrinks the last ones."""
QUEUED_BLOCKS_PER_THREAD = 1
"""Blocks per thread of a kernel call queued behind another (:meth:`Engine.start_raw`):
the call behind already evens out when the threads finish, so more blocks only added a
hand-off each (the GIL, the unboxing of the call's arguments): ~0.4 core-s per 10^6 games
of a run at 8 a thread, 4,000 blocks."""
# Output names of the vocab.DEV_* codes a god column can hold.
GOD_NAMES = ["none", "anubis", "horus", "both"]
STEP_SECONDS = 0.2
"""Target wall time of one kernel call when ``play`` reports progress: 5 updates a second."""
MAX_STEP = 4096
"""Most games per kernel call when ``play`` reports progress (so ``--until-ci`` looks often)."""
IN_FLIGHT = 2
"""Kernel calls ``play_groups`` keeps queued: one playing, one to start the moment it ends."""
LINKED_AT_GAMES = 5_000_000
"""Games from which a run whose linked build is not cached compiles it before its first games:
its compile, on one core, is repaid by the faster games only over a long run
(``benchmarks/bench_levers.py``). Shorter runs play the kernel's own tree; ``omensim compile
--linked`` caches the build for them."""
TABLE_ROWS = io.ROW_GROUP_ROWS
"""Games in each group ``play_groups`` yields (cut from several kernel calls' Arrow tables):
a Parquet row group's, so a part written group by group has the row groups of one written whole."""

Tick = Callable[[np.ndarray], bool]
"""Called after each kernel call of ``Engine.play`` with that call's ``out`` rows; True stops."""


def linked_cached(kernel: Callable[..., object]) -> bool:
    """Whether ``kernel`` (of a linked build, ``sim.kernel.batch.linked_run``) is in the
    cache, or compiled in this process already."""
    if getattr(kernel, "overloads", None):
        return True
    module = kernel.py_func.__module__.rpartition(".")[2]
    return not kernel_needs_compile(kernel.py_func.__qualname__, module)


def two_core_compile_due(entry: str = "*") -> bool:
    """Whether the first game here compiles the kernel on two cores
    (``sim.compiler.ahead``): the extension, more than one thread, and entry point
    ``entry`` of ``sim.kernel.batch`` (default: any) not cached yet."""
    if PLAIN or "two_process" in OFF or not CLAIMS:
        return False
    return numba.get_num_threads() > 1 and kernel_needs_compile(entry)


def check_output_fits(out: np.ndarray) -> None:
    """Refuse kernel output that an int16 row column could not hold (it would wrap silently).

    The schema's bounds (``sim/data/schema.py``) keep every score, count and
    length far inside int16; this is the safety net that turns a breach of that
    proof into an error instead of a wrong row.
    """
    if out.size and (out.min() < np.iinfo(np.int16).min or out.max() > np.iinfo(np.int16).max):
        raise RuntimeError("kernel output exceeds the int16 row columns; a schema bound is wrong")


def _constant(value: str, n: int) -> pa.DictionaryArray:
    """A column holding one string ``n`` times, stored once."""
    return pa.DictionaryArray.from_arrays(np.zeros(n, np.int8), pa.array([value]))


WARMUPS = ("sim.run.bitlists:warmup",)
"""A run's warm-ups, last on a cold compile's list: needed only after the entry point, they
are made by whichever process is not compiling that (``sim.compiler.ahead``)."""

_IDENTITY = np.arange(L.MASK_WORDS * bitlists.WORD_BITS)


def played_lists(masks: np.ndarray, seat: int, n_kinds: int = len(_IDENTITY)) -> pa.ListArray:
    """Kinds each game's ``seat`` played, from the kernel's bit masks, as list<int16>.

    Bits from ``n_kinds`` on are not read: the loop then visits only the mask
    words a kind can be in (2 of 8 for a mix of ~50 kinds).
    """
    value_of = _IDENTITY.copy()
    value_of[n_kinds:] = -1
    return bitlists.bit_values(masks, seat * L.MASK_WORDS, L.MASK_WORDS, value_of)


def held_lists(masks: np.ndarray, seat: int, card_kind: np.ndarray) -> pa.ListArray:
    """Kinds each game's ``seat`` held (dealt, drawn or returned to hand), as list<int16>.

    The kernel keeps one bit per physical card (``L.HELD``); ``card_kind`` maps
    card ids to kind ids.
    """
    kind_of = np.full(L.MASK_WORDS * bitlists.WORD_BITS, -1, np.int64)
    kinds = card_kind[: len(kind_of)]
    kind_of[: len(kinds)] = kinds
    return bitlists.bit_values(masks, (2 + seat) * L.MASK_WORDS, L.MASK_WORDS, kind_of)


def bit_lists(mask: np.ndarray, width: int) -> pa.ListArray:
    """The set bits of each row's ``mask`` (below ``width``) as list<int16>: feat ids."""
    value_of = np.arange(bitlists.WORD_BITS)
    value_of[width:] = -1
    return bitlists.bit_values(mask[:, None], 0, 1, value_of)


END_REASON_NAMES = list(V.END_REASONS[1:])
"""The categories of the ``end_reason`` column, in code order from code 1."""


def end_reasons(codes: np.ndarray) -> pa.DictionaryArray:
    """The ``end_reason`` column: one category per way a game can end.

    Code 0 (``none``, "not ended") is left out of the categories: every game the
    kernel returns has ended, and a category nobody can hit only confuses a
    ``value_counts()``. A game that did not end is a kernel bug and stops the run.
    """
    if np.any(codes == V.ER_NONE):
        raise RuntimeError("the kernel returned a game that did not end (end_reason none)")
    return pa.DictionaryArray.from_arrays((codes - 1).astype(np.int8), pa.array(END_REASON_NAMES))


ID_COLUMNS: Columns = {
    ("game_id",): "the game's global index in the run; with `seed` it reproduces the game",
    ("deal_id",): "the deal: with `--duplicate` the two seat-swapped games of a pair share it "
    "(`game_id // 2`); otherwise `game_id`",
    ("seed",): "the run seed",
    ("mix", "variant"): "what was played: the mix (its sets joined by `+`, with any `:N` "
    "limit) and the variants (`standard` for none)",
    ("strategy_p0", "strategy_p1"): "each seat's bot",
}
"""The columns a run's row starts with, which say which game it is and what was played, each
with what it holds; the kernel's columns (``layout.OUT_COLUMNS``) follow. :meth:`Engine.table`
builds them, and a test checks a written run against :func:`row_column_names`."""


def _out_meaning(c: L.OutColumn) -> str:
    """What kernel column ``c`` holds: its doc, and what other declarations say of it (the
    categories it takes, its weight in the score, the set it belongs to)."""
    meaning = c.doc
    if c.dtype == "end_reason":
        meaning += ": " + ", ".join(f"`{r}`" for r in END_REASON_NAMES) + ", the only categories"
    if c.weight:
        meaning += f"; `score` counts it \N{MULTIPLICATION SIGN}{c.weight}"
    if c.only_in:
        empty = {"god": "`none`", "feat_ids": "an empty list"}.get(c.dtype, "0")
        meaning += f"; {empty} in a mix without `{c.only_in}`, null once loaded"
    return meaning


def row_columns() -> list[tuple[tuple[str, ...], str]]:
    """Every column of a run's rows, in groups, each with what it holds: :data:`ID_COLUMNS`,
    then one group per column of ``layout.OUT_COLUMNS`` (a per-seat one as its two)."""
    rows = list(ID_COLUMNS.items())
    for c in L.OUT_COLUMNS:
        names = (f"{c.name}_p0", f"{c.name}_p1") if c.per_seat else (c.name,)
        rows.append((names, _out_meaning(c)))
    return rows


def kernel_columns() -> Iterator[tuple[L.OutColumn, int, str]]:
    """Each Parquet column of ``layout.OUT_COLUMNS`` in the order a run's row holds them (a
    block of them seat by seat, ``layout.row_blocks``): the column, the seat it reads (0
    for one not per seat) and its name."""
    for block in L.row_blocks():
        for p in (0, 1) if block[0].per_seat else (None,):
            for c in block:
                yield c, p or 0, c.name if p is None else f"{c.name}_p{p}"


def row_column_names() -> list[str]:
    """Every column of a run's rows, in the order :meth:`Engine.table` writes them."""
    return [*(name for group in ID_COLUMNS for name in group), *(n for *_, n in kernel_columns())]


def row_columns_table() -> str:
    """:func:`row_columns` as the Markdown table ``docs/usage.md`` shows, "What a run writes"."""
    return columns_table(row_columns())


def entry_names(engine: Engine) -> tuple[str, str]:
    """``module:function`` of the entry point and the bot dispatcher ``engine`` plays."""
    top = engine.top if engine.top is not None else range_kernel(engine.tab)
    return kernel_name(top), kernel_name(engine.ask)


PROBE_GAMES = 16
"""Games an edited run plays before anything is written, to refuse cards and rules that
cannot make a game (:meth:`Engine.unplayable`)."""


class Engine:
    """Compiled cards, rules and bots of one run; plays any range of its games."""

    def __init__(self, run: RunSpec | CompiledRun, changes: Changes | None = None) -> None:
        """``run``: a spec to compile (with ``changes``, designer edits to the cards),
        or a run :func:`sim.run.compiled.compile_run` compiled already."""
        if isinstance(run, CompiledRun):
            if changes is not None:
                raise TypeError("changes go to compile_run, not to an Engine of a compiled run")
        else:
            run = compile_run(run, changes)
        self.compiled = run
        self.spec = run.spec
        self.pool: CardPool = run.pool
        self.tables = run.tables
        self.tab = run.tab
        self.bots, self.fp, self.ask = run.bots, run.fp, run.ask
        self.metadata: dict[str, str] = run.metadata()
        off = int(self.tab[L.TB_CARD_KIND])
        self.card_kind = self.tab[off : off + int(self.tab[L.TB_N_CARDS])].astype(np.int64)
        self.n_kinds = int(self.tab[L.TB_N_KINDS])
        self.provenance = provenance((self.spec.p0, self.spec.p1), self.fp)
        self.metadata["provenance"] = json.dumps(self.provenance, sort_keys=True)
        self._step = numba.get_num_threads() * BLOCKS_PER_THREAD
        # (first game, call) of kernel calls queued for the next range (``play_groups``).
        self._ahead: deque[tuple[int, Batch]] = deque()
        self.top: Callable[..., None] | None = None
        """The entry point the games play (:meth:`warmup`); None: ``range_kernel``'s."""

    @classmethod
    def ready(cls, run: RunSpec | CompiledRun, changes: Changes | None = None) -> Engine:
        """``Engine(run, changes)``, warmed up (:meth:`warmup`).

        On a cold cache with more than one thread, the two-core compile's child
        (``sim.compiler.ahead``) starts before the run is compiled, so that its
        start-up overlaps the compile of the bots' figures here.
        """
        if not two_core_compile_due():
            engine = cls(run, changes)
            engine.warmup()
            return engine
        with compiling_ahead(WARMUPS) as finish:
            engine = cls(run, changes)
            engine.warmup(finish)
        return engine

    @property
    def args(self) -> RunArgs:
        """What every kernel call of this engine plays with (read from its attributes, so it
        never differs from them)."""
        return RunArgs(self.tab, self.fp, self.bots, self.ask, self.spec.seed, self.top)

    def warmup(self, ahead: Callable[..., None] | None = None, linked: bool | None = None) -> None:
        """Load (or compile) the jitted kernel so the first chunk is not slowed by it.

        A cold compile with more than one thread runs on two cores: with a child started
        already (:meth:`ready`, ``ahead`` its ``finish``), or one started here
        (:func:`sim.compiler.ahead.compiling_ahead`). A bot with a linked build
        (``sim.kernel.batch.linked_run``) plays it if it is cached, or if the run is long
        enough to repay its compile (:data:`LINKED_AT_GAMES`, compiled here, before the
        first games). ``linked=True``: this process compiles it now and plays it;
        ``False``: the kernel's own tree is played, as on a first run (benchmarks, which
        measure one or the other).
        """
        top = range_kernel(self.tab)
        build = None if linked is False else linked_run(self.tab, self.ask)
        if build is not None and linked is None:
            linked = ahead is None and (
                all(map(linked_cached, build)) or self.spec.games >= LINKED_AT_GAMES
            )
        plays_build = build is not None and bool(linked)
        if ahead is not None:
            ahead(self.ask, top)
        elif not plays_build and two_core_compile_due(top.py_func.__qualname__):
            with compiling_ahead(WARMUPS) as finish:
                finish(self.ask, top)
        if plays_build:
            compile_named([kernel_name(k) for k in build])
            self.top, self.ask = build
        play_batch(self.args, 0, 2, 2)
        bitlists.warmup()
        if self.edited:
            reason = self.unplayable()
            if reason:
                raise SpecError(f"these cards and rules cannot make a game: {reason}")

    @property
    def edited(self) -> bool:
        """Whether the run's cards or rules are a user's (card edits, set or rules files)."""
        return bool(self.metadata.get("card_changes")) or self.metadata.get(
            "rule_overrides", "{}"
        ) not in ("", "{}")

    def unplayable(self) -> str | None:
        """Why the cards and rules cannot make a game, judged on :data:`PROBE_GAMES` games:
        every one reached the turn cap, or every one was over by its first turn; else None."""
        out, _ = play_batch(self.args, 0, PROBE_GAMES, 2)
        if np.all(out[:, L.O_END_REASON] == V.ER_TURN_CAP):
            return (
                f"all {PROBE_GAMES} probe games reached the turn cap (no one could reach an "
                "end condition: check costs, coins and end conditions)"
            )
        if np.all(out[:, L.O_TURNS] <= 1):
            return f"all {PROBE_GAMES} probe games were over by turn 1 (check end conditions)"
        return None

    def play_raw(self, start: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Kernel output for games ``start .. start+n-1``: (out[n, O_COLS], masks)."""
        blocks = numba.get_num_threads() * BLOCKS_PER_THREAD
        return play_batch(self.args, start, n, blocks)

    def play(self, start: int, n: int, tick: Tick | None = None) -> pa.Table:
        """One row per game for global game indices ``start .. start+n-1``.

        With ``tick`` the games are played in kernel calls of about
        :data:`STEP_SECONDS` each (sized from the speed measured so far, at most
        :data:`MAX_STEP` games) and ``tick(out)`` is called after each, so a
        progress bar moves and ``--until-ci`` can look, whatever ``n`` is. When
        ``tick`` returns True the rest is not played: the table then holds only
        the games played so far (always a prefix ``start .. start+k-1``).
        Rows never depend on how the games were split.
        """
        if tick is None:
            return self.table(start, *self.play_raw(start, n))
        tables = list(self.play_groups(start, n, tick))
        if len(tables) == 1:
            return tables[0]
        # Left in its groups' chunks: copying them into one (combine_chunks) held the chunk
        # twice at the run's peak RSS; Parquet and pyarrow.compute read chunks alike.
        return pa.concat_tables(tables)

    def play_groups(
        self, start: int, n: int, tick: Tick, then: tuple[int, int] | None = None
    ) -> Iterator[pa.Table]:
        """The rows of :meth:`play` with ``tick``, as tables of :data:`TABLE_ROWS` games
        (the last may hold fewer), each yielded as soon as its games are played.

        A caller that writes each group as it comes (``LocalBackend``) never holds a
        whole chunk of rows. ``then`` = (start, games) is the range the caller plays
        next: once this range's calls are all queued, that range's first calls are
        queued behind them and the next ``play_groups`` takes them over, so the kernel
        threads do not wait at the boundary between two parts. They are dropped when
        this range does not finish (a stop, an error, a closed generator); a caller
        that ends otherwise calls :meth:`drop_ahead`.
        """
        # Each kernel call's int64 arrays become Arrow columns (a third of their size) at once
        # and are dropped: holding a chunk's raw arrays, or joining a few calls' arrays
        # before converting them, made most of a run's peak RSS. Groups
        # are then cut from the Arrow tables (no copy) at exactly TABLE_ROWS games
        # (= io.ROW_GROUP_ROWS), so a part written group by group has the row groups of one
        # written whole. Rows never change with the split.
        #
        # IN_FLIGHT kernel calls stay queued on the kernel threads (batch.start_batch): while
        # this thread converts one call's rows the threads play the next, and a call's last
        # block no longer leaves the other threads idle until it ends (both were
        # wall time between calls). A tick that stops the run drops the calls queued after.
        tables: list[pa.Table] = []
        flight: deque[Batch] = deque()
        done = held = queued = 0
        # Calls the previous range queued for this one (``then``) play first; any other
        # (a range asked for differently) is dropped.
        while self._ahead and self._ahead[0][0] == start + queued:
            batch = self._ahead[0][1]
            if queued + len(batch.out) > n:
                break
            flight.append(self._ahead.popleft()[1])
            queued += len(batch.out)
        self.drop_ahead()
        finished = False
        t0 = time.perf_counter()
        try:
            while done < n:
                while len(flight) < IN_FLIGHT and queued < n:
                    m = min(self._step, n - queued)
                    flight.append(self.start_raw(start + queued, m))
                    queued += m
                if then is not None and queued >= n:
                    self._queue_ahead(then, IN_FLIGHT - len(flight))
                o, k = flight.popleft().result()
                m = len(o)
                now = time.perf_counter()
                # Calls play back to back, so the time between two results is one call's.
                self._resize_step(m, now - t0)
                t0 = now
                stop = tick(o)
                tables.append(self.table(start + done, o, k))
                del o, k
                done += m
                held += m
                while held >= TABLE_ROWS or (held and (stop or done == n)):
                    rows = min(TABLE_ROWS, held)
                    joined = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
                    rest = joined.slice(rows)
                    tables = [rest] if rest.num_rows else []
                    held -= rows
                    group = joined.slice(0, rows)
                    del joined, rest
                    yield group
                    del group
                if stop:
                    return
            finished = True
        finally:
            # Stopped, failed or closed early: nothing may keep playing into dropped arrays.
            # All in one wait, which a second Ctrl-C does not cut short (``cancel_all``).
            stopping = sys.exc_info()[0] is not None
            dropped = list(flight)
            if not finished:
                dropped += self._take_ahead()
            try:
                cancel_all(dropped)
            except KeyboardInterrupt:
                # A Ctrl-C while an interrupt, an error or a close is already on its way
                # changes nothing; raised from a generator the interpreter is closing (its
                # caller's frame unwound by the first Ctrl-C) it would only be printed as
                # an ignored exception with its traceback.
                if not stopping:
                    raise

    def _queue_ahead(self, then: tuple[int, int], room: int) -> None:
        """Queue the first calls of range ``then`` = (start, games), up to ``room`` calls."""
        start, n = then
        queued = sum(len(batch.out) for _, batch in self._ahead)
        while len(self._ahead) < room and queued < n:
            m = min(self._step, n - queued)
            self._ahead.append((start + queued, self.start_raw(start + queued, m)))
            queued += m

    @property
    def ahead(self) -> list[int]:
        """First games of the kernel calls queued for the next range (``play_groups``'
        ``then``), in order."""
        return [start for start, _ in self._ahead]

    def drop_ahead(self) -> None:
        """Cancel the calls queued for a next range (``play_groups``' ``then``) and forget them."""
        cancel_all(self._take_ahead())

    def _take_ahead(self) -> list[Batch]:
        """The calls queued for a next range, forgotten here (the caller cancels them)."""
        ahead = [batch for _, batch in self._ahead]
        self._ahead.clear()
        return ahead

    def start_raw(self, start: int, n: int) -> Batch:
        """Queue the kernel call for games ``start .. start+n-1`` on the kernel threads and
        return at once; ``.result()`` gives :meth:`play_raw`'s arrays."""
        blocks = numba.get_num_threads() * QUEUED_BLOCKS_PER_THREAD
        return start_batch(self.args, start, n, blocks)

    def _resize_step(self, games: int, seconds: float) -> None:
        """Aim the next kernel call at STEP_SECONDS, between one game per block and MAX_STEP."""
        least = numba.get_num_threads() * BLOCKS_PER_THREAD
        if seconds <= 0:
            target = MAX_STEP
        else:
            target = int(games / seconds * STEP_SECONDS)
        # Grow at most 4x a call: one fast call of tiny games must not jump to MAX_STEP.
        self._step = max(least, min(MAX_STEP, target, 4 * max(games, least)))

    def _column(self, c: L.OutColumn, out: np.ndarray, masks: np.ndarray, p: int) -> pa.Array:
        """Output column ``c`` (seat ``p``'s, when it is per seat) of the kernel output."""
        if c.dtype == "played":
            return played_lists(masks, p, self.n_kinds)
        if c.dtype == "held":
            return held_lists(masks, p, self.card_kind)
        codes = out[:, c.offset + p]
        if c.dtype == "god":
            return pa.DictionaryArray.from_arrays(codes.astype(np.int8), pa.array(GOD_NAMES))
        if c.dtype == "end_reason":
            return end_reasons(codes)
        if c.dtype == "feat_ids":
            return bit_lists(codes, L.MAX_FEATS)
        return pa.array(codes.astype(c.dtype))

    def table(self, start: int, out: np.ndarray, masks: np.ndarray) -> pa.Table:
        """The Parquet-ready rows of the kernel output for games ``start .. start+len(out)-1``:
        :data:`ID_COLUMNS`, then the kernel's (:func:`kernel_columns`)."""
        n = len(out)
        check_output_fits(out)
        spec = self.spec
        game_ids = np.arange(start, start + n, dtype=np.int64)
        cols: dict[str, pa.Array] = {
            "game_id": pa.array(game_ids),
            # A seat-swapped pair shares its deal; otherwise every game is its own deal.
            "deal_id": pa.array(game_ids // 2 if spec.duplicate else game_ids),
            "seed": pa.array(np.full(n, spec.seed, np.int64)),
            "mix": _constant(self.pool.mix, n),
            "variant": _constant(spec.variant_label, n),
            "strategy_p0": _constant(spec.p0, n),
            "strategy_p1": _constant(spec.p1, n),
        }
        for c, p, name in kernel_columns():
            cols[name] = self._column(c, out, masks, p)
        return pa.table(cols)
