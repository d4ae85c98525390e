"""``configs/README.md`` against the code: every table of names says what the loader accepts.

The README copies the closed vocabulary of ``sim/base/vocab.py`` and the rule
keys of ``sim/data/cards.py`` into tables for people who type in cards; these
tests fail as soon as a name is added to (or dropped from) one side only.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sim.base import vocab as V
from sim.data.cards import RULE_KEYS

README = Path(__file__).resolve().parents[2] / "configs" / "README.md"
# A heading or a sentence that introduces a vocabulary table: "— `OPS`", "(`vocab.TIEBREAKS`)".
TABLE_NAME = re.compile(r"(?:— `([A-Z_]+)`|\(`vocab\.([A-Z_]+)`\))")
FIRST_CELL = re.compile(r"^\|\s*`\"?([A-Za-z_0-9\[\]. ]+?)\"?`\s*\|")


def _tables() -> dict[str, list[list[str]]]:
    """Each named vocabulary table's rows (cells, stripped), by the vocab name above it."""
    tables: dict[str, list[list[str]]] = {}
    current: str | None = None
    for line in README.read_text(encoding="utf-8").splitlines():
        m = TABLE_NAME.search(line)
        if m and not line.startswith("|"):
            current = m.group(1) or m.group(2)
            tables.setdefault(current, [])
            continue
        if current and line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not set(cells[0]) <= set("-: "):
                tables[current].append(cells)
        elif current and tables[current] and not line.startswith("|"):
            current = None  # the table ended
    return tables


def _named_rows(rows: list[list[str]]) -> list[tuple[str, list[str]]]:
    """``(name, cells)`` of each row whose first cell is a quoted name (not the header)."""
    out = []
    for row in rows:
        m = FIRST_CELL.match("| " + row[0] + " |")
        if m:
            out.append((m.group(1), row))
    return out


def _names(rows: list[list[str]]) -> list[str]:
    return [name for name, _ in _named_rows(rows)]


TABLES = _tables()
VOCABULARIES = [
    "UNIT_TYPES",
    "DEVOTIONS",
    "KEYWORDS",
    "TRIGGERS",
    "OPS",
    "TARGETS",
    "CONDITIONS",
    "TIEBREAKS",
    "WAR_TIE_BREAKS",
    "END_CONDITIONS",
    "FEAT_CONDITIONS",
]


@pytest.mark.parametrize("name", VOCABULARIES)
def test_readme_table_lists_the_vocabulary(name: str) -> None:
    assert name in TABLES, f"configs/README.md has no table for vocab.{name}"
    listed = _names(TABLES[name])
    assert len(listed) == len(set(listed)), f"{name}: a name is listed twice: {listed}"
    assert set(listed) == set(getattr(V, name)), (
        f"{name}: README only {sorted(set(listed) - set(getattr(V, name)))}, "
        f"vocab only {sorted(set(getattr(V, name)) - set(listed))}"
    )


def test_readme_gods_column_matches_vocab() -> None:
    """The devotion table's "in `GODS`" column marks exactly the gods a player can serve."""
    rows = TABLES["DEVOTIONS"]
    gods = {name for name, row in _named_rows(rows) if row[1] == "yes"}
    assert gods == set(V.GODS)


def test_readme_rule_tables_list_every_rule_key() -> None:
    """The ``[rules]`` tables (required, Emissary, Dunes, Reign keys) name every key a set
    file may hold, and no other."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### `[rules]`") : text.index("### `[[units]]`")]
    keys = re.findall(r"^\|\s*`([a-z_]+)`\s*\|", section, flags=re.M)
    assert sorted(keys) == sorted(RULE_KEYS)


def test_the_parser_sees_the_tables() -> None:
    """A guard on the parser itself: a broken regex would make every test above vacuous."""
    assert len(_names(TABLES["OPS"])) >= 10
    assert "COLOSSAL" in _names(TABLES["KEYWORDS"])


def test_readme_rule_tables_are_generated_from_the_declarations() -> None:
    """The ``[rules]`` tables are ``sim.data.rule_table``'s output: a parameter added,
    re-bounded or re-documented in ``sim.base.layout.RULE_PARAMS`` (or a set's value changed)
    shows here, and a table typed by hand fails."""
    from sim.data import rule_table

    text = README.read_text(encoding="utf-8")
    start, end = text.index(rule_table.MARK_BEGIN), text.index(rule_table.MARK_END)
    assert text[start : end + len(rule_table.MARK_END)] == rule_table.markdown_rules(), (
        "configs/README.md: regenerate the rule tables with `python -m sim.data.rule_table`"
    )
