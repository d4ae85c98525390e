"""``--gods`` and the gods and margin rows of the run summary, read back from the Parquet."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from sim.run.gods import GodCounts, god_figures
from sim.run.margins import MarginMoments, first_player_margins
from tests.conftest import assert_usage_error_wrote_nothing, invoke, ok, one_error_line


def summary_value(text: str, label: str) -> str:
    """The figure on the summary line starting with ``label``."""
    for line in text.splitlines():
        if line.startswith(label):
            return line[len(label) :].strip()
    raise AssertionError(f"no {label!r} line in\n{text}")


def test_run_fixes_the_gods_and_prints_each_gods_rate_and_the_margin(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", "--games", "400", "--mix", "dunes", "--seed", "2", "--gods", "horus,anubis"]
    text = ok(invoke(*args, "--out", str(out))).output
    df = pd.read_parquet(out)
    assert set(df.god_p0.astype(str)) == {"horus"} and set(df.god_p1.astype(str)) == {"anubis"}
    assert pd.read_parquet(out).attrs == {} and "gods" in (out / "_manifest.json").read_text()
    # Each god's rate is its seat's wins, as the rows say.
    horus = next(r for r in god_figures(GodCounts.from_frame(df)) if r["god"] == "horus")
    assert horus["wins"] == (df.winner == 0).sum() and horus["games"] == 400
    assert summary_value(text, "horus won").startswith(f"{horus['rate']:.2%}")
    margin = first_player_margins(df.first_player, df.score_p0, df.score_p1)
    assert summary_value(text, "first VP margin").startswith(f"{margin.mean():+.2f} VP")
    lo, hi = MarginMoments.from_margins(margin).interval()
    assert f"95% t-interval {lo:+.2f} to {hi:+.2f}" in text


def test_run_alternates_the_gods_by_default(tmp_path: Path) -> None:
    out = tmp_path / "run"
    text = ok(invoke("run", "-n", "40", "--mix", "dunes+aegean", "--out", str(out))).output
    df = pd.read_parquet(out)
    assert (df.god_p0.astype(str) == "anubis").sum() == 20
    assert "anubis won" in text and "horus won" in text


def test_no_god_rows_without_gods(tmp_path: Path) -> None:
    text = ok(invoke("run", "-n", "20", "--mix", "aegean", "--out", str(tmp_path / "r"))).output
    assert "anubis" not in text and "first VP margin" in text


def test_gods_errors_are_one_line(tmp_path: Path) -> None:
    out = tmp_path / "run"
    line = one_error_line(invoke("run", "-n", "10", "--mix", "aegean", "--gods", "anubis,horus",
                                 "--out", str(out)))  # fmt: skip
    assert "--gods anubis,horus needs a mix whose base set has gods" in line
    assert not out.exists()
    bad = invoke("run", "-n", "10", "--mix", "dunes", "--gods", "zeus,horus", "--out", str(out))
    assert_usage_error_wrote_nothing(bad, out)
    assert "--gods" in bad.stderr


def test_gods_has_help() -> None:
    for cmd in ("run", "compare", "sweep"):
        assert "which god each seat serves" in ok(invoke(cmd, "--help")).output
