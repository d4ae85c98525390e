"""A notebook-ready front door: ``from sim import api``.

Three calls cover the everyday loop, with keyword arguments named like the
CLI options, and results that show themselves as tables in Jupyter::

    run = api.run(games=20_000, mix="aegean", seed=1)   # plays, writes Parquet
    df = api.load(run.out, names=True)                  # games, card names, metadata
    cmp = api.compare("Ker of the Spoils.cost=+1", games=20_000)  # paired A/B

Everything here is a thin layer over :mod:`sim.run.runner`,
:mod:`sim.analysis.compare` and :func:`sim.analysis.load`, which scripts can
call directly for more control.
"""

from __future__ import annotations

import contextlib
import html
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack

import pandas as pd

from sim.analysis.loading import load
from sim.base.errors import Error
from sim.data.changes import Changes
from sim.data.spec import RunSpec, SpecError, parse_games
from sim.run import io, runner, storage
from sim.run.runner import summary, summary_rows
from sim.run.session import RunError, resolve_threads

__all__ = ["Compared", "Error", "Run", "Seats", "compare", "load", "run"]


def _rows_html(rows: list[tuple[str, str]], title: str) -> str:
    body = "".join(
        f'<tr><th style="text-align:left">{html.escape(k)}</th>'
        f'<td style="text-align:left">{html.escape(v)}</td></tr>'
        for k, v in rows
    )
    return f"<table><caption>{html.escape(title)}</caption>{body}</table>"


@dataclass(frozen=True)
class Run:
    """A finished run: where its games are and what they say (``result``)."""

    result: Any
    """The :class:`sim.run.runner.RunResult`: counts, timings, the spec played."""

    @property
    def out(self) -> Any:
        """The run directory (``part-*.parquet``, ``_cards.parquet``, ``_manifest.json``):
        a :class:`pathlib.Path`, or a :class:`sim.run.storage.UrlPath` for a URL."""
        return storage.location(str(self.result.out))

    def load(self, names: bool = False) -> pd.DataFrame:
        """The run's games, as :func:`sim.analysis.load` returns them (a local run)."""
        if not isinstance(self.out, Path):
            raise RunError(
                f"load reads a local run folder; read the run at {self.out} with "
                "sim.run.io.read_run (its checks, without card names)"
            )
        return load(self.out, names=names)

    def rows(self) -> list[tuple[str, str]]:
        """The summary as ``(label, value)`` rows (the same as the CLI prints)."""
        return summary_rows(self.result)

    def __str__(self) -> str:
        return summary(self.result)

    def _repr_html_(self) -> str:
        return _rows_html(self.rows(), "omensim run")


@dataclass(frozen=True)
class Compared:
    """Run B (with the changes) against run A (base cards) over the same games."""

    result: Any
    """The :class:`sim.analysis.compare.CompareResult`."""

    @property
    def table(self) -> pd.DataFrame:
        """The first-player row and the changed cards' rows, with paired 95% intervals."""
        return self.result.table()

    def __str__(self) -> str:
        from sim.analysis.compare import format_result  # deferred: loads numba

        return format_result(self.result)

    def _repr_html_(self) -> str:
        what = self.result.changes.describe()
        caption = html.escape(", ".join(what["change"] + what["cards"]) or "no change")
        return f"<p><b>omensim compare</b>: {caption}</p>" + self.table.to_html(index=False)


class Seats(TypedDict, total=False):
    """The keyword arguments of :func:`run` and :func:`compare` beyond the games, named like
    the CLI options; left out, each takes :class:`sim.data.spec.RunSpec`'s default (greedy
    against greedy, the first player alternating, no variant)."""

    p0: str
    p1: str
    first: str
    variants: Sequence[str]
    rules: str
    """A house-rules file (``--rules``), checked as the CLI checks it."""


def _spec(games: Any, mix: Any, seed: Any, seats: dict[str, Any]) -> RunSpec:
    """The RunSpec the arguments name, checked as the CLI checks its options."""
    unknown = sorted(set(seats) - set(Seats.__annotations__))
    if unknown:
        raise SpecError(f"unexpected keyword argument(s): {', '.join(unknown)}")
    extra: dict[str, Any] = dict(seats)
    if "variants" in extra:
        v = extra["variants"]
        if isinstance(v, str) or not isinstance(v, Sequence):
            raise SpecError(f"variants must be a list of names, got {v!r}"[:200])
        extra["variants"] = tuple(v)
    if isinstance(extra.get("rules"), Path):
        extra["rules"] = str(extra["rules"])
    return RunSpec(games=parse_games(games), mix=mix, seed=seed, **extra)


def _texts(value: Any, what: str) -> tuple[str, ...]:
    """One text or a sequence of texts as a tuple, else a SpecError naming ``what``."""
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, Sequence) or not all(isinstance(x, str) for x in value):
        raise SpecError(f"{what} must be a text or a list of texts, got {value!r}"[:200])
    return tuple(value)


def _options(out: Any, force: Any = False, progress: Any = None) -> Path | str | None:
    """``out``, ``force`` and ``progress`` checked; ``out`` as given (a path, URL or None)."""
    if out is not None and not isinstance(out, str | Path):
        raise SpecError(f"out must be a path or None, got {type(out).__name__} {out!r}"[:200])
    if not isinstance(force, bool):
        raise SpecError(f"force must be True or False, got {force!r}"[:200])
    if force and out is None:  # as the CLI refuses --force without --out
        raise SpecError(
            "force=True replaces an earlier run in out; without out the run goes to a new "
            "folder: drop force"
        )
    if progress is not None and not isinstance(progress, bool):
        raise SpecError(f"progress must be True, False or None, got {progress!r}"[:200])
    return None if out is None else io.out_location(out)


@contextlib.contextmanager
def _os_errors(out: Any) -> Iterator[None]:
    """A file the run cannot write, as the one-line error the CLI prints (a :class:`Error`)."""
    try:
        yield
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise RunError(f"cannot write {where}: {exc.strerror or exc}") from None


def run(
    games: int = 100_000,
    mix: str = "aegean",
    seed: int = 0,
    *,
    out: Path | str | None = None,
    changes: Sequence[str] = (),
    until_ci: float | None = None,
    threads: int | None = None,
    force: bool = False,
    progress: bool | None = None,
    **seats: Unpack[Seats],
) -> Run:
    """Play games like ``omensim run`` and write them to ``out`` (default: a new
    ``results/<mix>-s<seed>-<date>-<time>``).

    ``changes`` are ``--change`` strings (``"Card Name.cost=+1"``). ``force``: replace an
    earlier run in ``out`` (refused without ``out``, as ``--force`` is). ``progress``:
    None draws the bar only when stderr is a terminal. Every argument is checked
    as the CLI checks its option; any failure a caller can cause raises
    :class:`sim.Error` (a ``ValueError``) with the line the CLI prints.
    """
    spec = _spec(games, mix, seed, dict(seats))
    out = _options(out, force, progress)
    extras: dict[str, Any] = {}
    parsed = Changes.parse(_texts(changes, "changes"), ())
    if parsed:
        extras["changes"] = parsed
    if until_ci is not None:
        runner.check_until_ci(until_ci)
        extras["until_ci"] = until_ci
    with _os_errors(out):
        result = runner.run(spec, out, threads=threads, force=force, progress=progress, **extras)
    return Run(result)


def compare(
    changes: str | Sequence[str],
    games: int = 100_000,
    mix: str = "aegean",
    seed: int = 0,
    *,
    out: Path | str | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    **seats: Unpack[Seats],
) -> Compared:
    """Play the same games with the shipped cards (A) and with ``changes`` (B), like
    ``omensim compare``; ``changes`` is one ``--change`` string or several. Errors as
    :func:`run`'s."""
    from sim.analysis.compare import check_difference  # deferred: loads numba
    from sim.analysis.compare import compare as compare_runs  # deferred: loads numba

    edits = _texts(changes, "changes")
    if not edits:
        raise SpecError("compare needs at least one change, e.g. 'Card Name.cost=+1'")
    spec = _spec(games, mix, seed, dict(seats))
    out = _options(out, progress=progress)
    parsed = Changes.parse(edits, ())
    check_difference(spec, spec, Changes(), parsed)  # refused as the CLI refuses it
    if threads is not None:
        resolve_threads(threads)
    with _os_errors(out):
        result = compare_runs(spec, parsed, out=out, threads=threads, progress=progress)
    return Compared(result)
