"""``omensim mixes``: the ranking read back, partial mixes over recorded card subsets."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

from sim.analysis.mixes import TABLE, default_mixes, read_mixes, subset_seeds
from sim.data.spec import RunSpec
from sim.run import jobs
from sim.run.compiled import run_pool
from sim.run.engine import Engine
from sim.run.jobs import JobReadError
from sim.run.lock import locked
from sim.run.margins import first_player_margins
from tests.conftest import invoke, kill_when, ok, one_error_line


def test_mixes_ranks_and_records_the_subsets(tmp_path: Path) -> None:
    out = tmp_path / "m"
    args = ["mixes", "aegean", "dunes+aegean:5", "-n", "400", "--subsets", "4", "--seed", "3"]
    text = ok(invoke(*args, "--subset-seed", "9", "--out", str(out))).output
    table = read_mixes(out).set_index("mix")
    # The full mix's figure is its rows' count.
    rows = Engine(RunSpec(games=400, mix="aegean", seed=3)).play(0, 400).to_pandas()
    decisive = rows[rows.winner >= 0]
    assert table.loc["aegean", "decisive"] == len(decisive)
    assert table.loc["aegean", "first"] == (decisive.winner == decisive.first_player).mean()
    assert table.loc["aegean", "seat0"] == (decisive.winner == 0).mean()
    # The first player's VP margin: the mean over all the games, and its t-interval.
    margin = first_player_margins(rows.first_player, rows.score_p0, rows.score_p1)
    assert table.loc["aegean", "margin"] == pytest.approx(margin.mean())
    half = stats.t.ppf(0.975, len(margin) - 1) * margin.std(ddof=1) / len(margin) ** 0.5
    lo, hi = table.loc["aegean", ["margin_lo", "margin_hi"]]
    assert (lo, hi) == pytest.approx((margin.mean() - half, margin.mean() + half), rel=2e-3)
    assert f"{margin.mean():+.2f} ({lo:+.2f} to {hi:+.2f})" in text
    # The partial mix: four subsets drawn from --subset-seed, each its own card pool.
    seeds = [int(s) for s in str(table.loc["dunes+aegean:5", "subset_seeds"]).split(",")]
    assert seeds == subset_seeds(9, 4)
    pools = {
        tuple(u["name"] for u in run_pool(RunSpec(mix="dunes+aegean:5", subset_seed=s)).units)
        for s in seeds
    }
    assert len(pools) > 1
    # A partial mix's margin: the mean of its subsets' means, a t-interval on them.
    means = []
    for s in seeds:
        sub = Engine(RunSpec(games=100, mix="dunes+aegean:5", seed=3, subset_seed=s))
        r = sub.play(0, 100).to_pandas()
        means.append(first_player_margins(r.first_player, r.score_p0, r.score_p1).mean())
    assert table.loc["dunes+aegean:5", "margin"] == pytest.approx(sum(means) / 4)
    half = stats.t.ppf(0.975, 3) * pd.Series(means).std() / 2
    assert table.loc["dunes+aegean:5", "margin_hi"] == pytest.approx(
        sum(means) / 4 + half, rel=2e-3
    )
    share = table.loc["dunes+aegean:5", "first_subset_share"]
    assert 0 <= share <= 1
    assert sorted(table["rank_first"]) == [1, 2] and "dunes+aegean:5" in text


def test_the_default_list_and_a_bad_mix() -> None:
    mixes = default_mixes()
    assert len(mixes) == 15 and "dunes+aegean" in mixes and "aegean+dunes:10" in mixes
    line = one_error_line(invoke("mixes", "aegean", "atlantis", "-n", "10"))
    assert "atlantis" in line


def test_every_mix_is_timed_at_its_own_speed_before_any_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ranking's mixes differ in speed (A Reign of War has more steps a turn), so each
    is probed on its own engine, not charged the first mix's speed; a ranking too long
    for the limit is refused with one line naming the mix whose games take longest, and
    nothing is written."""
    from sim.run import runner

    mixes: list[str] = []
    probe = runner.probed_rate

    def counted(engine, *args, **kwargs):  # type: ignore[no-untyped-def]
        mixes.append(engine.spec.mix)
        return probe(engine, *args, **kwargs)

    monkeypatch.setattr(runner, "probed_rate", counted)
    out = tmp_path / "m"
    line = one_error_line(invoke("mixes", "aegean", "reign", "-n", "1e13", "--out", str(out)))
    assert mixes == ["aegean", "reign"]
    assert "2 mixes x 10,000,000,000,000 games (20,000,000,000,000) would take about" in line
    assert "of them for aegean's" in line or "of them for reign's" in line
    assert not out.exists()


def test_base_lines_compare_the_two_bases_of_a_pair() -> None:
    from sim.analysis.mixes import base_lines
    from sim.run.stats import newcombe_interval

    table = pd.DataFrame(
        {
            "mix": ["dunes+aegean", "aegean+dunes", "aegean"],
            "subsets": [1, 1, 1],
            "decisive": [1000, 1000, 1000],
            "first_wins": [580, 520, 550],
            "first": [0.58, 0.52, 0.55],
        }
    )
    lines = [x for x in base_lines(table) if x]
    lo, hi = newcombe_interval(520, 1000, 580, 1000)
    assert lines == [
        "base aegean rather than dunes: first of decisive -6.00 pp "
        f"(95% CI {lo * 100:+.2f} to {hi * 100:+.2f}; aegean+dunes 52.00%, dunes+aegean 58.00%)"
    ]


def test_a_killed_ranking_resumes_to_the_same_table_and_an_edited_one_is_refused(
    tmp_path: Path,
) -> None:
    args = ["mixes", "aegean", "dunes+aegean:5", "-n", "2000", "--subsets", "40", "--seed", "2"]
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    first = ok(invoke(*args, "--out", str(whole)))
    log = cut / jobs.LOG_NAME
    kill_when(
        [*args, "--out", str(cut), "-q"],
        lambda: log.is_file() and len(log.read_text().splitlines()) >= 10,
        "mixes",
    )
    assert not (cut / TABLE).exists()
    assert "drop --games" in one_error_line(invoke("mixes", "--resume", str(cut), "-n", "9"))
    assert "drop MIX" in one_error_line(invoke("mixes", "dunes", "--resume", str(cut)))
    again = ok(invoke("mixes", "--resume", str(cut)))
    assert again.stdout == first.stdout
    pd.testing.assert_frame_equal(read_mixes(cut), read_mixes(whole))
    # The same lock as every other writer, and the table's checksum.
    with locked(cut):
        assert "is being written by" in one_error_line(invoke(*args, "--out", str(cut), "--force"))
    (cut / TABLE).write_text((cut / TABLE).read_text().replace("0.", "0.9", 1))
    with pytest.raises(JobReadError, match=r"mixes\.csv was edited"):
        read_mixes(cut)


def test_mixes_without_out_leave_nothing_behind(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    tempfile.tempdir = None
    try:
        ok(invoke("mixes", "aegean", "-n", "40", "-q"))
    finally:
        tempfile.tempdir = None
    assert list(tmp_path.iterdir()) == []
