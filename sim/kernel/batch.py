"""Many games at once: blocks of games on a pool of threads, one scratch state per thread.

The kernel releases the GIL (``nogil``), so plain Python threads play blocks
in parallel. This replaces a ``parallel=True`` prange loop: the same speed,
without numba's parfor machinery, which alone took about a tenth of the
kernel's cold compile.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any, NamedTuple

import numba
import numpy as np

from sim.base import layout as L
from sim.compiler import entry_point, kernel
from sim.compiler.copies import with_replaced
from sim.kernel.draft import builds_decks
from sim.kernel.feats import feat_step
from sim.kernel.game import play_game, play_game_shared_deck
from sim.kernel.portent import portent_step
from sim.kernel.turn import no_feat_step, no_portent_step, plays_reign_steps


@kernel
def play_range(tab, fp, ask, seed, start, lo, hi, st, rows, masks):
    """Play games ``start+lo .. start+hi-1`` on scratch state ``st`` into rows ``lo .. hi-1``.

    Nothing is allocated per game; each game writes only its own rows.
    """
    for i in range(lo, hi):
        play_game(st, tab, fp, ask, seed, start + i, rows[i], masks[i])


@kernel
def play_range_shared_deck(tab, fp, ask, seed, start, lo, hi, st, rows, masks):
    """``play_range`` for a run no variant builds the decks of: the same games, compiled
    without the draft and Trial of Skill code (``range_kernel`` picks it)."""
    for i in range(lo, hi):
        play_game_shared_deck(st, tab, fp, ask, seed, start + i, rows[i], masks[i])


WITHOUT_REIGN_STEPS = {portent_step: no_portent_step, feat_step: no_feat_step}
"""The steps of A Reign of War only, and what an entry point of rules without them calls
instead (``sim.compiler.copies.with_replaced``)."""

play_range_without_reign_steps = with_replaced(
    play_range, WITHOUT_REIGN_STEPS, "play_range_without_reign_steps"
)
"""``play_range`` for rules without the Portent and Feat steps: the same games, compiled
without those steps (``range_kernel`` picks it)."""

play_range_shared_deck_without_reign_steps = with_replaced(
    play_range_shared_deck, WITHOUT_REIGN_STEPS, "play_range_shared_deck_without_reign_steps"
)
"""``play_range_shared_deck`` for rules without the Portent and Feat steps."""


def range_kernel(tab: np.ndarray) -> Callable[..., None]:
    """The entry point that plays table ``tab``'s games: ``play_range`` if a variant builds
    the decks (``sim.kernel.draft.builds_decks``), else ``play_range_shared_deck``, each
    without the Portent and Feat steps where the rules have neither
    (``sim.kernel.turn.plays_reign_steps``), so a first run compiles only the set-up and
    the steps it plays. All play the same rows."""
    reign = plays_reign_steps(tab)
    if builds_decks(tab):
        return play_range if reign else play_range_without_reign_steps
    return play_range_shared_deck if reign else play_range_shared_deck_without_reign_steps


class LinkedBuild(NamedTuple):
    """What a bot dispatcher's runs play once it is cached: the same games with the steps
    linked in (``strategies.greedy_batch``)."""

    building: Callable[..., None] | None
    """The entry point of a table whose decks a variant builds; None: ``play_range``."""
    shared: Callable[..., None] | None
    """The entry point of the others; None: ``play_range_shared_deck``."""
    ask: Any
    """The dispatcher passed to it as ``ask``."""


LINKED_BUILDS: dict[Any, LinkedBuild] = {}
"""Bot dispatchers (``ask`` values) with a linked build, and that build: filled by the
bots' modules (``strategies.greedy_batch``, ``strategies.policy``), since the kernel never
imports a bot."""


def linked_build(ask: Any, build: LinkedBuild) -> None:
    """Register ``build`` as bot dispatcher ``ask``'s linked build: the same signatures and
    the same rows as ``range_kernel``'s entry point passed ``ask``."""
    LINKED_BUILDS[ask] = build


def linked_run(tab: np.ndarray, ask: Any) -> tuple[Callable[..., None], Any] | None:
    """The entry point and the dispatcher that play table ``tab``'s games with bot
    dispatcher ``ask`` in its linked build (``linked_build``); None if it has none."""
    build = LINKED_BUILDS.get(ask)
    if build is None:
        return None
    top = build.building if builds_decks(tab) else build.shared
    return (range_kernel(tab) if top is None else top), build.ask


class RunArgs(NamedTuple):
    """What every kernel call of a run plays with, whichever games it plays."""

    tab: np.ndarray
    """The flat card and rule table (``sim.base.tables.flatten``)."""
    fp: np.ndarray
    """The seats' bot parameter rows (``strategies.registry.strategy_arrays``)."""
    bots: np.ndarray
    """The seats' strategy ids."""
    ask: Callable[..., int]
    """The bot dispatcher every choice goes to (``strategies.policy.dispatcher``)."""
    seed: int
    """The run seed: game ``i`` depends only on (seed, i)."""
    top: Callable[..., None] | None = None
    """The entry point to play (``range_kernel``'s or ``linked_run``'s); None:
    :func:`range_kernel` of ``tab``."""


class Batch:
    """A kernel call in flight (:func:`start_batch`): its blocks queued on the kernel threads.

    ``result()`` waits for them and returns (out, masks); ``cancel()`` drops the blocks not
    yet started and waits for the rest, so nothing writes into the arrays afterwards.
    """

    def __init__(self, out: np.ndarray, masks: np.ndarray, futures: list[Future[None]]) -> None:
        self.out = out
        self.masks = masks
        self.futures = futures

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """(out, masks) once every block has played; re-raises a block's error."""
        for f in self.futures:
            f.result()
        return self.out, self.masks

    def cancel(self) -> None:
        """Drop the blocks not yet started; wait for the ones running (errors ignored)."""
        cancel_all([self])


def cancel_all(batches: Iterable[Batch]) -> None:
    """Drop every block of ``batches`` not yet started, then wait for the running ones
    (errors ignored), even through a Ctrl-C.

    Every block is dropped before any wait, so a Ctrl-C cannot leave one queued. The wait
    resumes after a Ctrl-C (a block plays for a fraction of a second): returning early
    would leave kernel threads writing into arrays the caller is dropping, and the
    interpreter's exit waiting for every block still on them. The Ctrl-C is raised once
    they have ended.
    """
    # A cancelled future only counts as done for ``wait`` once a thread has dequeued it:
    # wait for the blocks that could not be cancelled (running or finished) only.
    running = [f for b in batches for f in b.futures if not f.cancel()]
    interrupted = False
    while True:
        try:
            wait(running)
            break
        except KeyboardInterrupt:
            interrupted = True
    if interrupted:
        raise KeyboardInterrupt


def start_batch(run: RunArgs, start: int, n: int, n_blocks: int) -> Batch:
    """Queue ``n`` games from global index ``start`` on the kernel threads and return at once.

    The same games and rows as :func:`play_batch`. A caller that starts the next
    call before it converts this one's rows keeps the kernel threads busy meanwhile,
    and the next call's first blocks fill the gap while this call's last block
    finishes (both were idle time between calls). The blocks run on
    ``numba.get_num_threads()`` kernel threads, never on the caller's.
    """
    bounds = even_bounds(n, n_blocks)
    out, masks, block = _blocks(run, start, n, bounds)
    pool = kernel_pool(numba.get_num_threads())
    return Batch(out, masks, [pool.submit(block, b) for b in range(len(bounds))])


def play_batch(run: RunArgs, start: int, n: int, n_blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """Play ``n`` games from global index ``start``; returns (out[n, O_COLS], masks[n, 4*W]).

    Every choice goes to ``run.ask``. ``masks`` rows: played-kind bits of seat 0, seat 1,
    then held-card bits of seat 0, seat 1.

    ``n_blocks`` only splits the work; blocks run on ``numba.get_num_threads()``
    threads, and results depend on neither.
    """
    threads = numba.get_num_threads()
    bounds = guided_bounds(n, n_blocks, threads)  # one block on one thread
    out, masks, block = _blocks(run, start, n, bounds)
    if len(bounds) == 1:
        block(0)  # on the caller's thread: no hand-off
    else:
        # Blocks are handed out as threads come free, which evens out games of unequal length.
        list(kernel_pool(threads).map(block, range(len(bounds))))
    return out, masks


def even_bounds(n: int, n_blocks: int) -> list[tuple[int, int]]:
    """(first, end) game offsets of ``n_blocks`` blocks of ``n`` games, as even as can be."""
    n_blocks = max(1, min(n_blocks, n))
    return [(b * n // n_blocks, (b + 1) * n // n_blocks) for b in range(n_blocks)]


def guided_bounds(n: int, n_blocks: int, threads: int) -> list[tuple[int, int]]:
    """(first, end) game offsets of the blocks of a blocking call, shrinking towards its end.

    Threads take blocks as they come free, so they finish apart by up to the last
    block one of them took; with ``n_blocks`` even blocks the other threads wait
    for about half a block at the end of every call (`benchmarks/bench_engine.py`'s
    parallel efficiency measures what that costs). Each block here takes
    ``1/(2*threads)`` of the games left (guided scheduling), down to a quarter of an
    even block, so the last blocks, which set the wait, are small. One thread plays the
    call as one block.
    """
    if threads <= 1 or n <= 1:
        return [(0, n)]
    least = max(1, -(-n // (4 * max(1, min(n_blocks, n)))))
    bounds = []
    lo = 0
    while lo < n:
        hi = min(n, lo + max(least, -(-(n - lo) // (2 * threads))))
        bounds.append((lo, hi))
        lo = hi
    return bounds


def _blocks(
    run: RunArgs, start: int, n: int, bounds: list[tuple[int, int]]
) -> tuple[np.ndarray, np.ndarray, Callable[[int], None]]:
    """A call's output arrays and the function that plays block ``b`` (games
    ``bounds[b]``, on the scratch state of the thread that runs it, :func:`thread_state`)."""
    out, masks = output_arrays(n)
    tab, fp, bots, ask, seed, top = run
    # numba's per-call dispatch is slow for ``ask``
    top = range_kernel(tab) if top is None else top
    play = entry_point(top, tab, fp, ask, seed, start, 0, 0, np.empty(0, np.int64), out, masks)

    def block(b: int) -> None:
        lo, hi = bounds[b]
        play(tab, fp, ask, seed, start, lo, hi, thread_state(bots), out, masks)

    return out, masks, block


def scratch_states(bots: np.ndarray, n: int) -> np.ndarray:
    """``n`` scratch game states for ``play_range``, seated with strategy ids ``bots``
    (seat 1 reads row 1 of the parameter matrix)."""
    states = np.zeros((n, L.STATE_SIZE), np.int64)
    for st in states:
        seat(st, bots)
    return states


def seat(st: np.ndarray, bots: np.ndarray) -> None:
    """Seat strategy ids ``bots`` at scratch state ``st``, each reading its own row of the
    parameter matrix, with no scripted choices: all a game keeps across ``game.reset``."""
    st[L.BOT] = bots[0]
    st[L.BOT + 1] = bots[1]
    st[L.PROW] = 0
    st[L.PROW + 1] = 1
    st[L.SCRIPT_POS] = 0
    st[L.SCRIPT_N] = 0


_THREAD = threading.local()


def thread_state(bots: np.ndarray) -> np.ndarray:
    """The calling thread's scratch game state, seated with ``bots``; made on its first use.

    A state is only ever played on by the block running on its thread, and a
    game needs nothing of a clean one: set-up resets the header, and zones are
    read only up to their counts (every block's second game already plays on
    the first one's leftovers, and rows never depend on the split). A kernel
    call used to zero a new state per block, a cost paid on every call of a run
    for nothing.
    """
    st = getattr(_THREAD, "state", None)
    if st is None:
        st = _THREAD.state = np.zeros(L.STATE_SIZE, np.int64)
    seat(st, bots)
    return st


def output_arrays(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Zeroed (rows, masks) for ``n`` games of ``play_range``."""
    return np.zeros((n, L.O_COLS), np.int64), np.zeros((n, 4 * L.MASK_WORDS), np.int64)


_POOLS: dict[int, ThreadPoolExecutor] = {}
os.register_at_fork(after_in_child=_POOLS.clear)  # a forked child has none of the threads


def kernel_pool(threads: int) -> ThreadPoolExecutor:
    """A pool of ``threads`` kernel threads kept for the process: a run makes hundreds of
    kernel calls, and starting and joining threads for each one cost time between them."""
    pool = _POOLS.get(threads)
    if pool is None:
        pool = _POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix="omensim-kernel")
    return pool
