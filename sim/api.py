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

import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack

import pandas as pd

from sim.analysis.loading import load
from sim.data.spec import RunSpec

__all__ = ["Compared", "Run", "Seats", "compare", "load", "run"]


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
    def out(self) -> Path:
        """The run directory (``part-*.parquet``, ``_cards.parquet``, ``_manifest.json``)."""
        return Path(self.result.out)

    def load(self, names: bool = False) -> pd.DataFrame:
        """The run's games, as :func:`sim.analysis.load` returns them."""
        return load(self.out, names=names)

    def rows(self) -> list[tuple[str, str]]:
        """The summary as ``(label, value)`` rows (the same as the CLI prints)."""
        from sim.run.runner import summary_rows

        return summary_rows(self.result)

    def __str__(self) -> str:
        from sim.run.runner import summary

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
        from sim.analysis.compare import format_result

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


def _spec(games: int, mix: str, seed: int, seats: Seats) -> RunSpec:
    unknown = sorted(set(seats) - set(Seats.__annotations__))
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(unknown)}")
    extra: dict[str, Any] = dict(seats)
    if "variants" in extra:
        extra["variants"] = tuple(extra["variants"])
    return RunSpec(games=int(games), mix=mix, seed=seed, **extra)


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

    ``changes`` are ``--change`` strings (``"Card Name.cost=+1"``). ``progress``:
    None draws the bar only when stderr is a terminal. Errors are the runner's
    (:class:`sim.data.spec.SpecError`, :class:`sim.run.runner.RunError`, ...).
    """
    from sim.data.changes import Changes
    from sim.run import runner

    extras: dict[str, Any] = {}
    parsed = Changes.parse(tuple(changes), ())
    if parsed:
        extras["changes"] = parsed
    if until_ci is not None:
        extras["until_ci"] = until_ci
    spec = _spec(games, mix, seed, seats)
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
    ``omensim compare``; ``changes`` is one ``--change`` string or several."""
    from sim.analysis.compare import compare as compare_runs
    from sim.data.changes import Changes

    edits = (changes,) if isinstance(changes, str) else tuple(changes)
    spec = _spec(games, mix, seed, seats)
    parsed = Changes.parse(edits, ())
    return Compared(compare_runs(spec, parsed, out=out, threads=threads, progress=progress))
