"""``omensim run --panel``: the same games under each bot, read back from Parquet."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import (
    assert_one_error_line,
    assert_usage_error_wrote_nothing,
    invoke,
    ok,
    one_error_line,
)

from sim.analysis.panel import first_player_panel, outcome_counts
from sim.run.margins import MarginMoments, MarginShift, first_player_margins

PANEL = "greedy,economic"


@pytest.fixture(scope="module")
def panel_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("panel") / "out"
    result = ok(invoke("run", "--games", "200", "--seed", "5", "--panel", PANEL, "--out", str(out)))
    return out, result.output


def test_one_self_play_run_per_bot_on_the_same_games(panel_run: tuple[Path, str]) -> None:
    out, _ = panel_run
    runs = {bot: pd.read_parquet(out / bot) for bot in PANEL.split(",")}
    for bot, df in runs.items():
        assert len(df) == 200
        assert (df["strategy_p0"] == bot).all() and (df["strategy_p1"] == bot).all()
        assert (df["seed"] == 5).all()
    greedy, economic = runs["greedy"], runs["economic"]
    assert sorted(greedy["game_id"]) == sorted(economic["game_id"])
    a = greedy.sort_values("game_id")["first_player"].to_numpy()
    b = economic.sort_values("game_id")["first_player"].to_numpy()
    assert (a == b).all()


def test_panel_table_matches_the_parquet(panel_run: tuple[Path, str]) -> None:
    out, output = panel_run
    rows = pd.concat(
        [pd.read_parquet(out / bot).assign(bot=bot) for bot in PANEL.split(",")],
        ignore_index=True,
    )
    expected = first_player_panel(outcome_counts(rows))
    written = pd.read_csv(out / "panel.csv")
    assert written["bot"].tolist() == ["greedy", "economic"]
    for col in ("games", "first_wins", "second_wins", "shared", "turn_capped"):
        assert written[col].tolist() == expected[col].tolist(), col
    assert written["favoured"].tolist() == expected["favoured"].tolist()
    lines = output.splitlines()
    for bot in PANEL.split(","):
        # The first player's mean VP margin and its t-interval, recomputed from the rows.
        m = MarginMoments.from_frame(rows[rows.bot == bot])
        lo, hi = m.interval()
        row = [line for line in lines if line.startswith(f"{bot} ")]
        assert len(row) == 1 and row[0].endswith(f"{m.mean:+.2f} ({lo:+.2f} to {hi:+.2f})"), row
        assert written.set_index("bot").loc[bot, "margin"] == pytest.approx(m.mean)
    verdict = [line for line in lines if line.startswith("first player favoured under every bot: ")]
    assert len(verdict) == 1 and "of 2)" in verdict[0]
    assert f"{expected.loc[0, 'rate']:.2%}" in output


def test_panel_refuses_a_non_empty_out_without_force(panel_run: tuple[Path, str]) -> None:
    out, _ = panel_run
    result = invoke("run", "--games", "200", "--panel", PANEL, "--out", str(out))
    assert_one_error_line(result)
    assert "--force" in result.stderr


@pytest.mark.parametrize(
    "extra",
    [
        ["--panel", "greedy,economic", "--p0", "economic"],
        ["--panel", "greedy", "--p1", "greedy"],
        ["--panel", "greedy,no_such_bot"],
        ["--panel", " , "],
        ["--panel", "random,random"],
        ["--panel", "greedy,,economic"],
    ],
)
def test_bad_panels_are_one_error_line_and_write_nothing(tmp_path: Path, extra: list[str]) -> None:
    out = tmp_path / "out"
    result = invoke("run", "--games", "200", "--out", str(out), *extra)
    assert_usage_error_wrote_nothing(result, out)


def test_every_list_of_bots_refuses_an_empty_name_and_a_repeat_in_one_line(
    tmp_path: Path,
) -> None:
    """One reading of a list of bots (sim.data.spec.split_names) for every command:
    neither is dropped silently."""
    out = tmp_path / "out"
    for args, problem in (
        (["tournament", "--bots", "random,,greedy"], "--bots 'random,,greedy' has an empty"),
        (["tournament", "--bots", "random,greedy,"], "has an empty bot name"),
        (["strength", "--tiers", "random,greedy,random"], "--tiers lists 'random' more"),
        (["strength", "--panel", "random,,greedy"], "--panel 'random,,greedy' has an empty"),
        (["compare", "--change", "Ker of the Spoils.cost=+1", "--panel", "random,random"],
         "--panel lists 'random' more than once; name each bot once"),
        (["balance", "--rule", "start_coins", "--panel", "random,random"], "more than once"),
    ):  # fmt: skip
        result = invoke(*args, "--games" if args[0] != "balance" else "--pilot", "40",
                        "--out", str(out))  # fmt: skip
        assert problem in one_error_line(result) and result.exit_code == 2
        assert not out.exists()


def test_a_panel_whose_later_bot_is_slow_is_refused_before_the_first_plays(
    tmp_path: Path,
) -> None:
    """Each bot is timed at its own speed up front. random's games alone end inside the
    limit, so a run that timed only itself as it started would play them (for days) before
    value's were refused; here nothing is played, no folder is left, and the one line
    names value."""
    out = tmp_path / "p"
    line = one_error_line(invoke("run", "--panel", "random,value", "-n", "2e10", "--out", str(out)))
    assert "2 bots x 20,000,000,000 games (40,000,000,000) would take about" in line
    assert "of them for value's 20,000,000,000 games" in line and "the limit is 30 days" in line
    assert not out.exists()


def test_each_bot_of_a_panel_is_timed_once_and_plays_the_timed_engine(
    tmp_path: Path, probed: list[str]
) -> None:
    """With every request timed (the threshold lowered), each bot's engine, card change
    included, is probed once, up front, and its run plays the rows a run of its own plays."""
    change = ["--change", f"{SPOILS}.cost=+1", "-n", "64", "--seed", "4", "-q"]
    ok(invoke("run", "--panel", "random,greedy", *change, "--out", str(tmp_path / "p")))
    assert probed == ["random", "greedy"]
    ok(invoke("run", "--p0", "greedy", "--p1", "greedy", *change, "--out", str(tmp_path / "g")))
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "p" / "greedy"),
                                  pd.read_parquet(tmp_path / "g"))  # fmt: skip


def test_panel_conflict_names_the_seat_options(tmp_path: Path) -> None:
    result = invoke("run", "--panel", "greedy", "--p0", "economic", "--p1", "greedy")
    assert "--p0 and --p1" in result.stderr


def test_help_documents_panel() -> None:
    text = ok(invoke("run", "--help")).output
    assert "--panel" in text and "self" in text


SPOILS = "Ker of the Spoils"


@pytest.fixture(scope="module")
def compare_panel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("cmp") / "cmp"
    result = ok(
        invoke(
            "compare", "--games", "200", "--seed", "2", "--change", f"{SPOILS}.cost=+1",
            "--panel", PANEL, "--out", str(out),
        )
    )  # fmt: skip
    return out, result.output


def test_compare_panel_pairs_each_bot_and_says_where_the_change_holds(
    compare_panel: tuple[Path, str],
) -> None:
    out, output = compare_panel
    for bot in PANEL.split(","):
        a, b = pd.read_parquet(out / bot / "A"), pd.read_parquet(out / bot / "B")
        assert len(a) == len(b) == 200
        assert (a["strategy_p0"] == bot).all() and (b["strategy_p1"] == bot).all()
        assert sorted(a["game_id"]) == sorted(b["game_id"])
    shifts = pd.read_csv(out / "panel.csv")
    assert shifts["bot"].tolist() == ["greedy", "greedy", "economic", "economic"]
    assert set(shifts["metric"]) == {"first_player_win_rate", f"card_win_rate: {SPOILS}"}
    fp = shifts[shifts["metric"] == "first_player_win_rate"].set_index("bot")
    for bot in PANEL.split(","):
        a = pd.read_parquet(out / bot / "A")
        assert fp.loc[bot, "rate_a"] == pytest.approx((a["winner"] == a["first_player"]).mean())
    lines = output.splitlines()
    verdicts = [line for line in lines if "the same way under every bot:" in line]
    assert len(verdicts) == 2
    assert verdicts[1].startswith(f"{SPOILS}'s holders' win rate: this change ")
    assert "under 2 of 2 bots" in verdicts[1] or "under 1 of 2 bots" in verdicts[1]


def test_a_compare_panel_whose_later_bot_is_slow_is_refused_before_the_first_plays(
    tmp_path: Path,
) -> None:
    """Every bot's two arms are timed up front, each at its own speed: random's arms alone
    fit the limit, so a comparison that timed only itself as it started would play them
    (for days) before value's were refused; here nothing is played, no folder is left,
    and the one line names value's arm."""
    out = tmp_path / "p"
    args = ["compare", "--panel", "random,value", "-n", "2e10", "--out", str(out)]
    line = one_error_line(invoke(*args, "--change", f"{SPOILS}.cost=+1"))
    assert "80,000,000,000 games would take about" in line and "for value arm" in line
    assert "the limit is 30 days" in line
    assert not out.exists()


def test_each_bot_of_a_compare_panel_is_timed_once_and_plays_the_timed_engines(
    tmp_path: Path, probed: list[str]
) -> None:
    """With every request timed (the threshold lowered), each bot's two arms are probed
    once, all before the first comparison, and a bot's comparison writes the rows a
    comparison of its own writes."""
    args = ["--change", f"{SPOILS}.cost=+1", "-n", "64", "--seed", "4", "-q"]
    ok(invoke("compare", "--panel", "random,greedy", *args, "--out", str(tmp_path / "p")))
    assert probed == ["random", "random", "greedy", "greedy"]
    ok(invoke("compare", "--p0", "greedy", "--p1", "greedy", *args, "--out", str(tmp_path / "g")))
    for arm in "AB":
        pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "p" / "greedy" / arm),
                                      pd.read_parquet(tmp_path / "g" / arm))  # fmt: skip


@pytest.mark.parametrize("seat", ["--p0", "--b-p1"])
def test_compare_panel_refuses_seat_options(seat: str) -> None:
    result = invoke("compare", "--games", "10", "--change", f"{SPOILS}.cost=3", "--panel",
                    PANEL, seat, "greedy")  # fmt: skip
    assert_one_error_line(result)
    assert seat in result.stderr


def test_compare_help_documents_panel() -> None:
    assert "--panel" in ok(invoke("compare", "--help")).output


# --- omensim report --panel ------------------------------------------------------------


def test_report_panel_shows_each_bot_and_the_verdict(
    panel_run: tuple[Path, str], tmp_path: Path
) -> None:
    """``report --panel`` over a run panel: the first-player answer per bot, recomputed
    from the Parquet, side by side in the text and the page, and the across-bots verdict."""
    out, _ = panel_run
    rep = tmp_path / "rep"
    text = ok(invoke("report", "--panel", str(out), "--out", str(rep))).output
    rows = pd.concat(
        [pd.read_parquet(out / bot).assign(bot=bot) for bot in PANEL.split(",")],
        ignore_index=True,
    )
    expected = first_player_panel(outcome_counts(rows)).set_index("bot")
    lines = text.splitlines()
    assert lines[0].startswith("bot panel: 2 bots"), text  # the panel opens the text
    verdict = [line for line in lines if line.startswith("first player favoured under every bot")]
    table = lines[: lines.index(verdict[0])]
    for bot in PANEL.split(","):
        row = [line for line in table if line.startswith(f"{bot} ")]
        assert len(row) == 1, text
        assert f"{expected.loc[bot, 'rate']:.2%} ({expected.loc[bot, 'lo']:.2%}" in row[0]
    assert len(verdict) == 1
    both = "yes" if (expected["favoured"] == "first").all() else "no"
    assert verdict[0].startswith(f"first player favoured under every bot: {both} ")
    page = (rep / "report.html").read_text()
    assert "<h2>Bot panel</h2>" in page
    assert page.index("<h2>Bot panel</h2>") < page.index("<h2>Key figures</h2>")
    panel_html = page[page.index("<h2>Bot panel</h2>") : page.index("<h2>Key figures</h2>")]
    for bot in PANEL.split(","):
        assert f"<td>{bot}</td>" in panel_html
        assert f"{expected.loc[bot, 'rate']:.2%}" in panel_html
    assert verdict[0] in panel_html


def vp_margins(run: Path) -> np.ndarray:
    """The first player's VP margin of every game of ``run``, in ``game_id`` order."""
    df = pd.read_parquet(run).sort_values("game_id")
    return first_player_margins(df.first_player, df.score_p0, df.score_p1)


def test_report_panel_over_a_compare_panel_gives_the_shifts_and_verdicts(
    compare_panel: tuple[Path, str], tmp_path: Path
) -> None:
    out, _ = compare_panel
    rep = tmp_path / "rep"
    text = ok(invoke("report", "--panel", str(out), "--out", str(rep))).output
    shifts = pd.read_csv(out / "panel.csv")
    for bot in PANEL.split(","):
        a = pd.read_parquet(out / bot / "A")
        rate_a = (a["winner"] == a["first_player"]).mean()
        line = [x for x in text.splitlines() if x.startswith(f"  {bot}: the first-player win rate")]
        assert len(line) == 1, text
        assert line[0].split(": ")[2].startswith(f"{rate_a:.2%} -> ")
        # The first player's VP margin, A -> B, and its paired interval, from the rows.
        m = MarginShift.from_margins(*(vp_margins(out / bot / arm) for arm in "AB"))
        lo, hi = m.shift.interval()
        margin = [x for x in text.splitlines() if x.startswith(f"  {bot}: the first player's VP")]
        assert margin == [
            f"  {bot}: the first player's VP margin: {m.a.mean:+.2f} -> {m.b.mean:+.2f} VP, "
            f"change {m.shift.mean:+.2f} VP (95% paired t-interval {lo:+.2f} to {hi:+.2f})"
        ], text
    verdicts = [x for x in text.splitlines() if "the same way under every bot:" in x]
    assert len(verdicts) == shifts["metric"].nunique() == 2
    page = (rep / "report.html").read_text()
    section = page[page.index("<h2>Bot panel</h2>") : page.index("<h2>Key figures</h2>")]
    bots = len(PANEL.split(","))
    # Header, one row per (bot, measure), and one margin row per bot.
    assert section.count("<tr") == 1 + len(shifts) + bots
    assert "economic/B: who wins" in text  # each arm's run under a short label
    for v in verdicts:
        assert v in html.unescape(section)


def test_report_panel_bad_inputs_are_one_error_line(
    panel_run: tuple[Path, str], tmp_path: Path
) -> None:
    out, _ = panel_run
    rep = tmp_path / "rep"
    cases = [
        ["--panel", str(tmp_path / "missing")],
        ["--panel", str(out / "greedy")],  # one run, not a panel: no panel.csv
        ["--panel", str(out), str(out / "greedy")],  # both
        [],  # neither
    ]
    for extra in cases:
        result = invoke("report", *extra, "--out", str(rep))
        assert_one_error_line(result)
        assert not rep.exists(), extra


def test_report_help_documents_panel() -> None:
    text = ok(invoke("report", "--help")).output
    assert "--panel" in text and "run --panel" in text
