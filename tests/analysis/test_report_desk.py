"""The report's gods, margin and card-strength figures, read back against the rows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sim import analysis as A
from sim.analysis.report import build_report
from sim.data.spec import RunSpec
from sim.run.margins import MarginMoments, first_player_margins
from sim.run.runner import run


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = tmp_path_factory.mktemp("desk")
    run(RunSpec(games=400, mix="dunes", seed=6), root / "dunes", threads=1, progress=False)
    r = build_report([root / "dunes"], root / "report")
    return root / "dunes", r.text, r.html.read_text()


def section(page: str, title: str) -> str:
    start = page.index(f"<h2>{title}</h2>")
    end = page.find("<h2>", start + 1)
    return page[start : end if end > 0 else None]


def test_text_gives_the_margin_interval_and_each_gods_rate(report: tuple[Path, str, str]) -> None:
    path, text, _ = report
    df = A.load(path)
    m = MarginMoments.from_margins(first_player_margins(df.first_player, df.score_p0, df.score_p1))
    lo, hi = m.interval()
    assert f"95% t-interval {lo:+.2f} to {hi:+.2f}" in text
    gods = A.god_win_rates(df, by=None).set_index("god")
    assert f"anubis won {gods.loc['anubis', 'rate']:.2%}" in text
    assert gods["games"].tolist() == [400, 400]


def test_page_has_gods_margins_and_strength_tables(report: tuple[Path, str, str]) -> None:
    path, _, page = report
    assert "anubis" in section(page, "Gods") and "horus" in section(page, "Gods")
    margins = section(page, "Score margins")
    for head in ("95% t-interval", "p50", "ahead", "behind"):
        assert f"<th>{head}</th>" in margins
    strength = section(page, "Card strength")
    top = A.strength({"dunes": path}).iloc[0]
    assert top["card"] in strength and f"{top['rate']:.1%}" in strength


def test_no_blank_header_in_where_the_points_come_from(report: tuple[Path, str, str]) -> None:
    heads = re.findall(r"<th[^>]*>(.*?)</th>", section(report[2], "Where the points come from"))
    assert heads and all(h.strip() for h in heads), heads
