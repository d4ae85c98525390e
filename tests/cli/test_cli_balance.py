"""`omensim balance` end to end: every option, the files it writes, resume, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import invoke, ok, one_error_line
from tamper import cut_job

KER = "Ker of the Battlefield"
TINY = ("--pilot", "200", "--max-games", "400")
SMALL_SET = ("--set", "--max-edits", "1", "--measure-games", "300", *TINY)


def test_card_field_prints_every_candidate_and_writes_the_race(tmp_path: Path) -> None:
    out = tmp_path / "ker"
    r = ok(
        invoke(
            "balance", "--mix", "aegean", "--card", KER, "--field", "cost", "--values", "2-4",
            "--target", "55", "--tolerance", "1", "--precision", "5", *TINY, "--out", str(out),
        )
    )  # fmt: skip
    for label in ("cost=2", "cost=3", "cost=4"):
        assert label in r.output
    assert "(shipped)" in r.output and "Games:" in r.output and "95% CI" in r.output
    assert "toward 55.00% +/- 1.00 points" in r.output
    table = pd.read_csv(out / "candidates.csv")
    assert list(table.cost) == [2, 3, 4]
    assert table.status.isin(["chosen", "dropped", "rested", "survivor"]).all()
    assert (table.status == "chosen").sum() == 1
    saved = json.loads((out / "balance.json").read_text())
    assert saved["target"] == 0.55 and saved["tolerance"] == 0.01 and saved["precision"] == 0.05
    assert saved["spec"]["p0"] == "greedy"  # the declared default bot
    assert (out / "decisions.jsonl").exists()


def test_several_fields_and_a_rule_and_a_variant() -> None:
    r = ok(
        invoke(
            "balance", "--card", "11", "--field", "cost", "--field", "strength",
            "--values", "3,4", "--values", "3", *TINY, "--seed", "2", "--alpha", "0.1",
        )
    )  # fmt: skip
    assert "cost=4, strength=3" in r.output
    r = ok(invoke("balance", "--rule", "tiles_per_city", "--values", "1-2", *TINY))
    assert "tiles_per_city=1" in r.output and "first player's share" in r.output
    r = ok(invoke("balance", "--variant-choice", "emissary", *TINY, "--p0", "random", "-q"))
    assert r.output == ""


def test_span_and_panel() -> None:
    r = ok(
        invoke(
            "balance", "--card", KER, "--field", "cost", "--span", "1", *TINY,
            "--panel", "greedy,random", "--panel-games", "200",
        )
    )  # fmt: skip
    assert "cost=2" in r.output and "cost=4" in r.output and "cost=5" not in r.output
    assert "Panel:" in r.output and "random" in r.output and "holds under" in r.output


def test_set_prints_the_trade_off(tmp_path: Path) -> None:
    out = tmp_path / "set"
    r = ok(
        invoke(
            "balance", "--set", "--max-edits", "1", "--measure-games", "300", "--span", "1",
            "--threshold", "0.01", "--first-bound", "40", *TINY, "--out", str(out),
        )
    )  # fmt: skip
    assert "0 edit(s)" in r.output and "verified on a new seed" in r.output
    table = pd.read_csv(out / "balance_set.csv")
    assert table.edits.iloc[0] == 0 and "worst_deviation" in table.columns
    # No card is within 0.01 points: the worst card whose race moves it gets one edit, and
    # the set is measured and verified again.
    assert list(table.edits) == [0, 1]
    assert table.edit.iloc[1].split(".")[-1].startswith("cost=")
    assert "verified edit" in r.output and "paired shift" in r.output


def test_set_over_several_fields_edits_one_field_at_a_time(tmp_path: Path) -> None:
    out = tmp_path / "set"
    r = ok(
        invoke(
            "balance", "--set", "--field", "cost", "--field", "strength", "--max-edits", "2",
            "--measure-games", "300", "--span", "1", "--threshold", "0.01", "--first-bound",
            "40", *TINY, "--panel", "greedy,random", "--panel-games", "300", "--out", str(out),
        )
    )  # fmt: skip
    table = pd.read_csv(out / "balance_set.csv")
    assert list(table.edits) == [0, 1, 2]
    edits = list(table.edit.iloc[1:])
    # Each edit names one card and one of the two fields.
    assert all(e.rsplit(".", 1)[1].split("=")[0] in ("cost", "strength") for e in edits), edits
    assert table.changes.iloc[2] == "; ".join(edits)
    # The verification is paired: the edited card's shift has an interval around it.
    v = table.iloc[1:]
    assert (v.verified_shift_lo <= v.verified_shift).all()
    assert (v.verified_shift <= v.verified_shift_hi).all()
    assert v.verified_rate.between(0, 1).all() and (v.race_games > 0).all()
    assert r.output.count("verified edit") == 2
    # --panel: the two edits together, per bot, each edited card's rate before and after.
    panel = pd.read_csv(out / "balance_set_panel.csv")
    cards = [e.rsplit(".", 1)[0] for e in edits]
    assert list(panel.bot) == [b for b in ("greedy", "random") for _ in dict.fromkeys(cards)]
    assert set(panel.card) == set(cards)
    assert (panel.shift_lo <= panel["shift"]).all() and (panel["shift"] <= panel.shift_hi).all()
    assert (panel.rate_after - panel.rate_before - panel["shift"]).abs().max() < 1e-9
    assert "Panel: the proposed edits together" in r.output
    assert "closer to 50% under" in r.output


def test_resume_finishes_a_cut_race(tmp_path: Path) -> None:
    out = tmp_path / "r"
    first = ok(
        invoke("balance", "--rule", "start_coins", "--values", "3-5", *TINY, "--out", str(out))
    )
    cut_job(out, "balance.json")
    again = ok(invoke("balance", "--resume", str(out)))
    strip = [line for line in first.output.splitlines() if "Games:" not in line]
    assert strip == [line for line in again.output.splitlines() if "Games:" not in line]
    assert "already complete" in one_error_line(invoke("balance", "--resume", str(out)))
    line = one_error_line(invoke("balance", "--resume", str(out), "--out", str(tmp_path / "x")))
    assert "drop --out" in line


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ((), "exactly one of --card"),
        (("--card", KER, "--rule", "start_coins"), "exactly one of"),
        (("--card", KER), "--card needs --field"),
        (("--card", KER, "--field", "speed"), "valid fields"),
        (("--card", "Nobody", "--field", "cost"), "no unit of that name"),
        (("--card", KER, "--field", "cost", "--values", "-3"), "outside its legal range"),
        (("--card", KER, "--field", "cost", "--values", "x"), "not a whole number"),
        (("--card", KER, "--field", "cost", "--values", "3"), "only one value"),
        (("--rule", "nonsense"), "numeric rule parameters"),
        (("--variant-choice", "nope"), "known variants"),
        (("--variant-choice", "emissary", "--values", "1"), "--values goes with"),
        (("--rule", "start_coins", "--field", "cost"), "--field goes with"),
        # an option the question asked would not read: refused, never dropped (beside TINY, so
        # a regression that takes it plays a short race rather than the default one)
        (("--rule", "start_coins", "--values", "3-4", "--span", "1", *TINY), "drop --span"),
        (("--card", KER, "--field", "cost", "--values", "2-3", "--span", "1", *TINY), "--span"),
        (("--variant-choice", "emissary", "--span", "2", *TINY), "--span goes with"),
        (("--rule", "start_coins", "--values", "3-4", "--max-edits", "2", *TINY), "with --set"),
        (("--card", KER, "--field", "cost", "--threshold", "3", *TINY), "--threshold goes"),
        ((*SMALL_SET, "--target", "40"), "--target goes with --card, --rule or --variant-choice"),
        ((*SMALL_SET, "--precision", "1"), "--precision goes with"),
        ((*SMALL_SET, "--alpha", "0.1"), "--alpha goes with"),
        (("--rule", "start_coins", "--panel-games", "100", *TINY), "goes with --panel"),
        (("--card", KER, "--field", "cost", "--target", "0"), "between 0 and 100%"),
        (("--card", KER, "--field", "cost", "--tolerance", "-1"), "between 0 and 50 points"),
        (("--card", KER, "--field", "cost", "--pilot", "10"), "--pilot must be at least"),
        (
            ("--card", KER, "--field", "cost", "--pilot", "1000", "--max-games", "500"),
            "--max-games",
        ),
        (("--card", KER, "--field", "cost", "--alpha", "0.7"), "--alpha"),
        # below 1e-9 the race's quantile of 1 - alpha/looks is 1.0: no StatisticsError
        (("--rule", "start_coins", "--values", "3-4", *TINY, "--alpha", "1e-20"), "--alpha"),
        # refused before a range of billions is built (a MemoryError) or deduplicated
        (("--rule", "start_coins", "--values", "3-99999999999999"), "more than 1,000 values"),
        (("--card", KER, "--field", "cost", "--values", "0-1000000"), "more than 1,000 values"),
        (("--card", KER, "--field", "cost", "--p0", "nobot"), "nobot"),
        (("--card", KER, "--field", "cost", "--panel", "greedy,nobot"), "nobot"),
        (("--resume", "/nonexistent/balance"), "holds no balance run"),
        (("--set", "--panel", "greedy,nobot"), "nobot"),
        (("--set", "--field", "speed"), "valid fields"),
    ],
)
def test_bad_input_is_one_line(args: tuple[str, ...], text: str) -> None:
    assert text in one_error_line(invoke("balance", *args))


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--rule", "start_coins", "--values", "3-4", "--pilot", "1e12", "--max-games", "1e13"),
         "--max-games"),
        (("--rule", "start_coins", "--values", "3-4", *TINY, "--panel", "greedy",
          "--panel-games", "1e13"), "--panel-games"),
        (("--set", "--measure-games", "1e13"), "--measure-games"),
    ],
)  # fmt: skip
def test_games_that_cannot_finish_in_time_are_refused_before_any_is_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], option: str
) -> None:
    """The 30-day limit run, compare and sweep apply to --games, on the most games the race,
    the set and the panel may play; checked by a probe before any game of theirs (a game
    played here fails the test at once, so it cannot hang)."""
    from sim.analysis import balance as B
    from sim.analysis import balance_checks as C

    def no_game(*args: object, **kw: object) -> None:
        raise AssertionError("a game was played before the time limit was checked")

    monkeypatch.setattr(B, "play_outcomes", no_game)
    monkeypatch.setattr(C, "play_outcomes", no_game)
    out = tmp_path / "b"
    line = one_error_line(invoke("balance", *args, "--out", str(out), "-q"))
    assert "would take about" in line and "limit is 30 days" in line and option in line
    assert not out.exists()


@pytest.mark.parametrize("question", [("--rule", "start_coins", "--values", "3-4"), ("--set",)])
def test_a_slow_panel_bot_is_timed_at_its_own_speed_before_the_race(
    tmp_path: Path, probed: list[str], question: tuple[str, ...]
) -> None:
    """--panel's games are timed on each panel bot's own engine, not at the race's bot's
    speed: with every request timed, the race's bot and each panel bot are probed once,
    before any game, and a panel too slow for the limit is refused naming its bot."""
    out = tmp_path / "b"
    args = ["balance", *question, *TINY, "--panel", "random,value", "--panel-games", "1e13"]
    line = one_error_line(invoke(*args, "--out", str(out), "-q"))
    assert probed == ["greedy", "random", "value"]
    assert "would take about" in line and "of them for --panel value's" in line
    assert "--panel-games" in line
    assert not out.exists()


def test_out_holding_something_else_is_refused(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    line = one_error_line(
        invoke("balance", "--rule", "start_coins", "--values", "3,4", *TINY, "--out", str(tmp_path))
    )
    assert str(tmp_path) in line
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_help_names_every_option() -> None:
    text = ok(invoke("balance", "--help")).output
    for opt in (
        "--card", "--field", "--rule", "--variant-choice", "--values", "--span", "--target",
        "--tolerance", "--precision", "--pilot", "--max-games", "--alpha", "--set",
        "--threshold", "--first-bound", "--max-edits", "--measure-games", "--panel",
        "--panel-games", "--out", "--force", "--resume",
    ):  # fmt: skip
        assert opt in text


def test_every_balance_option_has_help() -> None:
    from sim.cli.balance import balance_cmd

    assert not [p.name for p in balance_cmd.params if not getattr(p, "help", None)]


def test_a_killed_race_resumes_to_the_same_table(tmp_path: Path) -> None:
    """SIGKILL once the first look's rows are on disk; --resume then equals a whole race."""
    from conftest import kill_when

    args = ["balance", "--rule", "start_coins", "--values", "2-6", "--pilot", "2000"]
    args += ["--max-games", "8000", "--chunk-size", "500", "-q"]
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    ok(invoke(*args, "--out", str(whole)))

    def first_look_written() -> bool:
        rows = cut / "rows"
        return rows.is_dir() and len(list(rows.glob("*.parquet"))) >= 5

    kill_when([*args, "--out", str(cut)], first_look_written, "balance")
    assert not (cut / "balance.json").exists()
    ok(invoke("balance", "--resume", str(cut), "-q"))
    pd.testing.assert_frame_equal(
        pd.read_csv(cut / "candidates.csv"), pd.read_csv(whole / "candidates.csv")
    )
    assert (cut / "decisions.jsonl").read_text() == (whole / "decisions.jsonl").read_text()
