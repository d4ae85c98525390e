"""The rule-coverage script (tests/rule_coverage.py): credit only by citation, and its figures
published in docs/rules-coverage.md."""

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

AEGEAN, DUNES, REIGN = rc.RULEBOOKS.values()


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


def test_every_citation_names_a_line_of_a_book() -> None:
    # A citation of a blank line, of a line past the end, or with no book to resolve it
    # against is a typo (or a citation of the Chinese text's numbering under the translation's).
    assert rc.bad_citations() == []


@pytest.mark.parametrize(
    ("text", "book", "want"),
    [
        ("edge-of-the-aegean.txt, line 108", None, [(AEGEAN, 108)]),
        (
            "(reign-of-war.en.md, lines 109, 140-142)",
            None,
            [(REIGN, n) for n in (109, 140, 141, 142)],
        ),
        ("heir-to-the-dunes.txt lines 57 and 59-61", None, [(DUNES, n) for n in (57, 59, 60, 61)]),
        ("lines 184\u2013186", DUNES, [(DUNES, 184), (DUNES, 185), (DUNES, 186)]),
        ("(line 84)", REIGN, [(REIGN, 84)]),
        # The last book named wins over the test file's book.
        (
            "reign-of-war.zh.txt, line 58; then (line 84)",
            REIGN,
            [("reign-of-war.zh.txt", 58), ("reign-of-war.zh.txt", 84)],
        ),
        (
            "edge-of-the-aegean.txt, line 80; heir-to-the-dunes.txt, line 108",
            None,
            [(AEGEAN, 80), (DUNES, 108)],
        ),
        ("line 40's coins", AEGEAN, []),  # a possessive is not a citation
    ],
)
def test_citation_forms(text: str, book: str | None, want: list[tuple[str, int]]) -> None:
    assert rc.line_citations(text, book)[0] == want


def test_a_bare_citation_without_a_book_is_flagged() -> None:
    assert rc.line_citations("see line 12", None) == ([], ["line 12"])


def _one_test(tmp_path: Path, name: str, body: str) -> list[rc.LineCoverage]:
    (tmp_path / name).write_text(f"def test_x():\n{body}\n    pass\n", encoding="utf-8")
    return [c for c in rc.coverage(tests_dir=tmp_path) if c.tests or c.quoted_by]


def test_a_quotation_alone_covers_nothing(tmp_path: Path) -> None:
    # Aegean line 82 word for word, but no citation: a hint only.
    got = _one_test(
        tmp_path,
        "test_q.py",
        '    """"No player can gain more coins than are available in the supply."""',
    )
    assert [(c.file, c.line, c.tests, c.quoted_by) for c in got] == [
        (AEGEAN, 82, [], ["test_q.py::test_x"])
    ]


def test_a_citation_covers_the_lines_it_names(tmp_path: Path) -> None:
    got = _one_test(tmp_path, "test_rules_dunes.py", "    # Checks lines 184-186.")
    assert [(c.file, c.line) for c in got] == [(DUNES, 184), (DUNES, 186)]  # 185 is blank
    assert all(c.tests == ["test_rules_dunes.py::test_x"] for c in got)


def test_a_quotation_over_a_blank_line_is_found(tmp_path: Path) -> None:
    # Dunes lines 184 and 186 are one example split by a blank line.
    body = (
        "    # \"This increases the strength by 1 for a total of 4. The active player's units"
        ' have a total strength of 5."'
    )
    got = _one_test(tmp_path, "test_h.py", body)
    assert [(c.file, c.line) for c in got] == [(DUNES, 184), (DUNES, 186)]


def test_the_docs_show_the_current_coverage(lines) -> None:
    docs = rc.DOCS.read_text(encoding="utf-8")
    assert rc.markdown(lines) in docs, (
        f"{rc.DOCS.name} coverage table is stale: paste the output of "
        "`python tests/rule_coverage.py --markdown`"
    )
