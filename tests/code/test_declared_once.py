"""What ``sim.base.layout`` declares is written nowhere else.

The rule parameters (key, slot, bounds, default, meaning), the output columns (name,
offset, dtype, score weight) and the table layouts are declared once; the loader, the
schema's bounds, the configs README, the engine, the Scenario, the scorer, the analysis
and the profiles read them. Each test here fails when one of those copies is typed in by
hand again.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from sim.base import layout as L

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = ROOT / "sim" / "base" / "layout.py"
SCORE_NAMES = "|".join(t.name for t in L.SCORE_TERMS)
RULE_NAMES = "|".join(r.key for r in L.RULE_PARAMS)
# Patterns of a hand-written copy, each with what it copies.
COPIES: dict[str, re.Pattern[str]] = {
    "a score weight": re.compile(rf'"(?:{SCORE_NAMES})"\s*:\s*\d'),
    "a weighted score term": re.compile(r"\b[0-9]\s*(?:\*|&times;|\u00d7)\s*(?:unused|vp|feats)\b"),
    "a weighted term of a result": re.compile(r"\b[0-9]\s*\*\s*(?:res|row|result)\["),
    "a score label with its weight": re.compile(r"(?:reward|tokens|feats) x[0-9]"),
    "an output column mapped to its slot": re.compile(r'"\w+"\s*[:,]\s*L\.O_'),
    "a rule key mapped to its slot": re.compile(r'"\w+"\s*:\s*L\.RU_'),
    "a rule parameter's bounds": re.compile(rf'"(?:{RULE_NAMES})"\s*:\s*_?[bB]'),
    "a row of default weights": re.compile(r"\[\s*(?:-?\d+\.\d*\s*,\s*){7,}"),
}


def sources() -> list[Path]:
    """Every Python file of the project outside the declarations themselves."""
    files = [p for d in ("sim", "strategies") for p in sorted((ROOT / d).rglob("*.py"))]
    return [p for p in files if "base" not in p.relative_to(ROOT).parts[:2]]


def copies_in(text: str) -> list[str]:
    """What ``text`` copies by hand (the names of the patterns it matches)."""
    return [what for what, pattern in COPIES.items() if pattern.search(text)]


def test_no_module_copies_a_declaration() -> None:
    files = sources()
    assert len(files) > 50, "the walk found the project"
    found = {str(p.relative_to(ROOT)): copies_in(p.read_text()) for p in files}
    assert {k: v for k, v in found.items() if v} == {}


@pytest.mark.parametrize(
    "line",
    [
        'SCORE_WEIGHTS = {"rewards_unused": 2, "rewards_used": 1}',
        "out[L.O_SCORE + p] = 2 * unused + used + 2 * vp",
        '(2 * res[f"vp_tokens_p{p}"], f"{res[f\'vp_tokens_p{p}\']} VP tokens x2"),',
        '"Share of all VP (2&times;unused rewards + used rewards)"',
        'per_seat = {"score": L.O_SCORE, "rewards_unused": L.O_REW_UNUSED}',
        'for name, col in (("score", L.O_SCORE),):',
        'RULE_SLOTS = {"tiles_per_city": L.RU_TILES_PER_CITY}',
        'RULE_INTS = {"tiles_per_city": _b(0, L.MAX_STACK)}',
        "DEFAULT_PARAMS = np.array([0.45, 0.6, 2.0, 0.25, 1.2, 2.0, 1.5, 1.5, 0.0])",
    ],
)
def test_each_copy_is_caught(line: str) -> None:
    """The check can fail: each way the declarations used to be copied is found."""
    assert copies_in(line)


def test_the_tables_are_numbered_by_the_allocator() -> None:
    """No ``RU_*``, ``TB_*`` or ``O_*`` offset in the layout is a number typed in by hand."""
    by_hand = []
    for node in ast.parse(LAYOUT.read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and re.match(r"(RU|TB|O)_", target.id):
                    by_hand.append(target.id)
    assert by_hand == []


@pytest.mark.parametrize(
    ("regions", "size"),
    [(L.RULE_REGIONS, L.RU_COUNT), (L.OUT_REGIONS, L.O_COLS), (L.TB_REGIONS, None)],
)
def test_regions_tile_each_table(regions: tuple, size: int | None) -> None:
    """Each table's regions follow each other without a gap and name a layout constant."""
    end = 0
    for name, start, slots in regions:
        assert (start, getattr(L, name)) == (end, start), name
        end = start + slots
    assert size is None or end == size


def test_every_rule_parameter_has_its_own_slot() -> None:
    slots = [r.slot for r in L.RULE_PARAMS if r.slot is not None]
    assert len(slots) == len(set(slots))
    assert all(0 <= s < L.RU_COUNT for s in slots)
    assert len({r.key for r in L.RULE_PARAMS}) == len(L.RULE_PARAMS)


def test_every_output_column_reads_a_slot_of_the_row() -> None:
    """Each column's slots lie inside the row; only the mask columns read none."""
    for c in L.OUT_COLUMNS:
        if c.offset < 0:
            assert c.dtype in ("played", "held"), c.name
        else:
            assert c.offset + (2 if c.per_seat else 1) <= L.O_COLS, c.name
