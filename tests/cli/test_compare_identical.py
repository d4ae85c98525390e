"""``compare`` refuses a B that plays exactly A's games, however B was written."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import invoke, one_error_line


def test_compare_refuses_a_b_that_compiles_to_a(tmp_path: Path) -> None:
    """An unchanged copy of the set file is a B identical to A: refused in one line."""
    cards = tmp_path / "aegean.toml"
    shutil.copyfile(Path(__file__).parents[2] / "configs" / "sets" / "aegean.toml", cards)
    out = tmp_path / "cmp"
    line = one_error_line(invoke("compare", "-n", "100", "--cards", str(cards), "--out", str(out)))
    assert "compile to exactly A's" in line and not out.exists()
