"""The benchmarks carry their own speed yardstick, equal to the project's shared copy.

Speed figures are ratios against ``benchmarks/reference_loop.py`` measured in the same run;
the copy lets a clone measure them without the shared folder, and this test keeps it the
same program as the shared one wherever that folder is present.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OURS = ROOT / "benchmarks" / "reference_loop.py"
# The shared folder sits beside the checkout, or beside the folder of worktrees.
SHARED = [d / "shared" / "bench" / "reference_loop.py" for d in (ROOT.parent, ROOT.parents[1])]


def test_the_yardstick_is_in_the_repository() -> None:
    assert "def measure" in OURS.read_text()


def test_the_yardstick_equals_the_shared_one() -> None:
    shared = [p for p in SHARED if p.is_file()]
    if not shared:
        pytest.skip("no shared/bench folder beside this checkout")
    assert OURS.read_bytes() == shared[0].read_bytes(), f"copy {shared[0]} to {OURS}"
