"""Trace mode: the one place the kernel writes events (``sim.base.events``) as they happen.

A state with room after it (``st[L.TRACE:]``, ``st[L.TRACE_CAP]`` rows of ``EV_W``
integers) records every event the hooks at the event sites report, each with the
cause in force when it happened: the rule step (``sim.kernel.turn.run_step`` sets
it), then the card, reward tile or structure whose ability is resolving
(``push_cause`` / ``pop_cause`` around it). A look-ahead rollout's copy of the game
sets its own ``TRACE_CAP`` to 0, so its imagined events are never recorded. Nothing
here changes the game: the hooks only write the trace slots, and draw no random number.

``st[L.TRACE_N]`` counts every event reported, also past the buffer's end (the
reader treats a count above ``TRACE_CAP`` as an overflow, never as a short game).

The hooks are compiled in or out, once per process (:data:`HOOKS`): a normal run's
kernel has no hook code at all, not even a test of ``TRACE_CAP`` at each event (numba
prunes every ``if HOOKS`` branch on the frozen global). A process that replays turns
them on before its first kernel compiles (:func:`use_hooks`, which the replay calls),
or starts with ``OMENSIM_TRACE_HOOKS=1`` (the test suite does); a replay in a process
that compiled without them plays in a spawned one (``sim.analysis.replay``). The two
builds have cache files of their own (``sim.compiler.extension.KernelCache``; plain mode
keeps the traced build in a directory of its own, ``sim.compiler.cache.plain_root``).
"""

from __future__ import annotations

import os
import sys

from sim.base import events as E
from sim.base import layout as L
from sim.compiler import kernel
from sim.compiler import mode as M
from sim.compiler.mode import HOOKS_ENV, PLAIN
from sim.kernel import decisions as D

HOOKS = M.HOOKS
"""Whether this process's kernels have the hooks compiled in (``sim.compiler.mode.HOOKS``,
mirrored here because the kernels read it as a frozen global of this module)."""


def any_kernel_compiled() -> bool:
    """Whether any kernel of ``sim.kernel`` or ``strategies`` is compiled (or loaded from
    the cache) in this process: after that, the hooks can no longer change."""
    from numba.core.dispatcher import Dispatcher

    for name, module in list(sys.modules.items()):
        if module is None or not (name.startswith("sim.kernel.") or name.startswith("strategies.")):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, Dispatcher) and value.overloads:
                return True
    return False


def use_hooks() -> bool:
    """Compile the hooks into this process's kernels if none has compiled yet; returns
    whether the hooks are in. Also sets :data:`HOOKS_ENV`, so that the two-core compile's
    child (``sim.compiler.ahead``) compiles them too.

    In plain mode the cache directory is chosen when the kernels are decorated, so there
    only :data:`HOOKS_ENV` at start-up turns the hooks on.
    """
    global HOOKS
    if HOOKS:
        return True
    if PLAIN or any_kernel_compiled():
        return False
    HOOKS = M.HOOKS = True
    os.environ[HOOKS_ENV] = "1"
    return True


class TraceUnavailable(RuntimeError):
    """This process's kernels were compiled without the trace hooks."""


def require_hooks() -> None:
    """Make sure the kernels record events (:func:`use_hooks`), else raise
    :class:`TraceUnavailable` saying how to get them."""
    if not use_hooks():
        raise TraceUnavailable(
            "the event trace needs kernels compiled with its hooks, and this process has "
            f"already compiled them without: start it with {HOOKS_ENV}=1, or replay before "
            "playing anything else"
        )


@kernel
def tracing(st):
    """Whether this state records events."""
    if not HOOKS:
        return False
    return st[L.TRACE_CAP] > 0


@kernel
def record(st, kind, seat, amount, target, x0, x1):
    """Write one event row (the cause in force, the turn) if the buffer has room."""
    n = st[L.TRACE_N]
    st[L.TRACE_N] = n + 1
    if n >= st[L.TRACE_CAP]:
        return -1
    at = L.TRACE + E.EV_W * n
    cause = st[L.TRACE_CAUSE]
    st[at + E.F_KIND] = kind
    st[at + E.F_SEAT] = seat
    st[at + E.F_AMOUNT] = amount
    st[at + E.F_TARGET] = target
    st[at + E.F_CAUSE] = cause // E.CAUSE_SPAN
    st[at + E.F_CAUSE_ID] = cause % E.CAUSE_SPAN
    st[at + E.F_TURN] = st[L.TURN]
    st[at + E.F_X0] = x0
    st[at + E.F_X1] = x1
    st[at + E.F_X2] = 0
    st[at + E.F_X3] = 0
    st[at + E.F_X4] = 0
    return at


@kernel
def event(st, kind, seat, amount, target, x0, x1):
    """Record event ``kind`` (``sim.base.events``) when tracing; nothing otherwise."""
    if not HOOKS:
        return
    if st[L.TRACE_CAP] > 0:
        record(st, kind, seat, amount, target, x0, x1)


@kernel
def push_cause(st, kind, ident):
    """Make ``kind``/``ident`` the cause of the events that follow (``ident`` < 0: keep the
    cause in force); returns the cause it replaces, for ``pop_cause``."""
    if not HOOKS:
        return 0
    prev = st[L.TRACE_CAUSE]
    if st[L.TRACE_CAP] > 0 and ident >= 0:
        st[L.TRACE_CAUSE] = kind * E.CAUSE_SPAN + ident
    return prev


@kernel
def pop_cause(st, prev):
    """Put back the cause ``push_cause`` replaced."""
    if not HOOKS:
        return
    if st[L.TRACE_CAP] > 0:
        st[L.TRACE_CAUSE] = prev


@kernel
def record_option(st, p, dec, i, val):
    """Write option ``i`` of decision ``dec`` with its value ``val``: its fields in ``F_X1``
    .. ``F_X4``, except that a Surge play or Beast has the card, not its hand index, in
    ``F_X2``."""
    # The option row is read here, not with sim.kernel.zones (which reports events here).
    o = L.OPTS + L.OPT_W * i
    a = st[o]
    at = record(st, E.EV_OPTION, p, round(val * E.VALUE_SCALE), i, dec, a)
    if at < 0:
        return
    st[at + E.F_X2] = st[o + 1]
    st[at + E.F_X3] = st[o + 2]
    st[at + E.F_X4] = st[o + 3]
    if dec == D.D_SURGE and (a == D.ACT_PLAY or a == D.ACT_BEAST):
        # The hand index means nothing once the hand changes: the card itself.
        st[at + E.F_X2] = st[L.HAND + p * L.MAX_CARDS + st[o + 1]]


@kernel
def option(st, p, dec, i, val):
    """Record the bot's value ``val`` of option ``i`` of decision ``dec`` when tracing."""
    if not HOOKS:
        return
    if st[L.TRACE_CAP] > 0:
        record_option(st, p, dec, i, val)
