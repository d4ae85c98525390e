"""The tables of columns the docs pages show, checked against the declarations that render
them (a helper for the tests, not a test file)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from sim.base.column_docs import HEADER

DOCS = Path(__file__).resolve().parents[1] / "docs"


def column_tables(page: str) -> list[str]:
    """Every Markdown table of ``docs/<page>`` headed like a table of columns, in order."""
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
    tables, block = [], []
    for line in [*lines, ""]:
        if line.startswith("|"):
            block.append(line)
        elif block:
            tables.append("\n".join(block))
            block = []
    return [t for t in tables if t.startswith(HEADER + "\n")]


def assert_page_shows(page: str, renderers: Sequence[Callable[[], str]]) -> None:
    """``docs/<page>``'s tables of columns are what ``renderers`` return, row for row, and
    there is no other, so a column added, renamed or dropped in the code shows there; a
    stale table's failure names the command that prints it afresh."""
    shown = column_tables(page)
    for render in renderers:
        command = f"from {render.__module__} import {render.__name__} as t; print(t())"
        assert render() in shown, (
            f"docs/{page}'s table of {render.__name__}'s columns is stale: paste the output "
            f"of `python -c '{command}'`"
        )
    assert len(shown) == len(renderers), f"docs/{page} shows a table of columns no code renders"
