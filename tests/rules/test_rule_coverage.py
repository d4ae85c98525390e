"""The rule-coverage script (tests/rule_coverage.py) runs, and the README shows its figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import rule_coverage as rc

pytestmark = pytest.mark.skipif(
    not rc.RULES_DIR.is_dir(),
    reason=f"the rulebooks are not at {rc.RULES_DIR} (../shared/rules next to the repository)",
)


@pytest.fixture(scope="module")
def lines() -> list[rc.LineCoverage]:
    return rc.coverage()


def test_the_script_runs_and_lists_every_rulebook() -> None:
    script = Path(rc.__file__)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=rc.REPO, timeout=300
    )
    assert done.returncode == 0, done.stderr
    for file in rc.RULEBOOKS.values():
        assert f"({file}):" in done.stdout


def test_every_reason_names_a_rule_bearing_line(lines) -> None:
    assert rc.stale_reasons(lines) == []


def test_a_quotation_covers_the_lines_it_spans(lines) -> None:
    # test_extra_wealth_actions_variant quotes a sentence the translation wraps over 2 lines.
    mine = {c.line: c.tests for c in lines if c.file == "reign-of-war.en.md"}
    name = "test_rules_reign.py::test_extra_wealth_actions_variant"
    assert name in mine[77] and name in mine[78]


def test_the_rules_page_shows_the_current_coverage(lines) -> None:
    readme = (rc.REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert rc.markdown(lines) in readme, "docs/rules.md: coverage table is stale; paste "
    "`python tests/rule_coverage.py --markdown`"
