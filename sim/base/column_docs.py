"""Columns of the files omensim writes, shown from their declaration.

Each file's columns are declared once, in groups, each group with what it holds, beside the
code that builds them (a run's rows in ``sim.run.engine``, ``tournament.parquet`` in
``sim.analysis.tournament``, ``ratings.parquet`` in ``sim.analysis.ratings``). Its docs page
shows the table :func:`columns_table` renders from that declaration, and a test keeps the
page's copy identical; one renderer, so every such table reads alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

Columns = Mapping[tuple[str, ...], str]
"""Columns in groups, in the file's order: each group's names and what they hold."""

HEADER = "| column | meaning |"
"""The first line of every table :func:`columns_table` renders (tests find them by it)."""


def column_names(columns: Columns) -> list[str]:
    """Every column of ``columns``, in its order."""
    return [name for names in columns for name in names]


def columns_table(rows: Iterable[tuple[Sequence[str], str]]) -> str:
    """``(names, meaning)`` rows as the Markdown table a docs page shows, one row a group."""
    lines = [HEADER, "| --- | --- |"]
    for names, meaning in rows:
        lines.append(f"| {', '.join(f'`{n}`' for n in names)} | {meaning} |")
    return "\n".join(lines)
