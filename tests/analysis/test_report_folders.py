"""`omensim report` on a compare folder and on a balance folder."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from conftest import invoke, ok, one_error_line

from sim import analysis as A
from sim.analysis import report_folders as RF
from sim.run.margins import MarginShift, first_player_margins


def margins_of(df: pd.DataFrame) -> object:
    """Per game in ``game_id`` order, the first player's VP margin."""
    df = df.sort_values("game_id")
    return first_player_margins(df.first_player, df.score_p0, df.score_p1)


KER = "Ker of the Battlefield"


def test_compare_report_leads_with_the_change_and_the_paired_shifts(tmp_path: Path) -> None:
    cmp = tmp_path / "cmp"
    ok(
        invoke(
            "compare", "--games", "600", "--change", f"{KER}.cost=4", "--b-variant", "emissary",
            "--out", str(cmp), "-q",
        )
    )  # fmt: skip
    assert RF.folder_kind(cmp) == "compare" and RF.folder_kind(cmp / "A") is None
    r = ok(invoke("report", str(cmp), "--out", str(tmp_path / "rep")))
    lines = r.output.splitlines()
    assert "B changed:" in lines[0] and f"{KER}.cost=4" in lines[0] and "variants" in lines[0]
    assert lines[1].startswith("Paired shifts")
    assert lines[2].strip().startswith("first-player win rate")
    assert lines[3].strip().startswith("first player's VP margin")
    assert lines[4].strip().startswith(f"{KER}: holders' win rate")
    assert "conditional" in lines[5] and lines[5].startswith("    ")  # secondary, indented
    summary = json.loads((cmp / "compare.json").read_text())
    assert f"{summary['first_player']['diff'] * 100:+.2f}" in lines[2]
    # The margin's paired shift, read back from both arms' rows.
    m = MarginShift.from_margins(*(margins_of(A.load(cmp / arm)) for arm in "AB"))
    lo, hi = m.shift.interval()
    assert f"{m.shift.mean:+.2f} VP ({lo:+.2f} to {hi:+.2f}, paired t)" in lines[3]
    assert f"{m.a.mean:+.2f} VP" in lines[3] and f"{m.b.mean:+.2f} VP" in lines[3]
    dist = RF.compare_parts(cmp)[1][RF.MARGIN_TITLE].set_index("run")
    assert list(dist.index) == ["A", "B"]
    assert dist.loc["A", "mean (VP)"] == f"{m.a.mean:+.2f}"
    assert dist.loc["B", "95% t-interval"] == "{:+.2f} to {:+.2f}".format(*m.b.interval())
    assert dist.loc["A", "games"] == "600"
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "What B changed: card fields" in page and "Paired shifts, B - A" in page
    _, tables = RF.compare_parts(cmp)
    fields = tables["What B changed: card fields"]
    assert fields.to_dict("records") == [{"card": KER, "field": "cost", "A": 3, "B": 4}]
    settings = tables["What B changed: run settings"]
    assert list(settings.setting) == ["variants"]  # only what differs, side by side
    side = tables["A and B side by side, where they differ"]
    assert (side.A != side.B).all()


def test_balance_report_shows_candidates_and_the_race(tmp_path: Path) -> None:
    bal = tmp_path / "bal"
    ok(
        invoke(
            "balance", "--rule", "start_coins", "--values", "3-5", "--pilot", "200",
            "--max-games", "400", "--panel", "greedy", "--panel-games", "200",
            "--out", str(bal), "-q",
        )
    )  # fmt: skip
    assert RF.folder_kind(bal) == "balance"
    r = ok(invoke("report", str(bal), "--out", str(tmp_path / "rep")))
    assert "Balance of first player's share of decisive games" in r.output
    assert "Chosen: start_coins=" in r.output and "Panel: the conclusion holds" in r.output
    _, tables = RF.balance_parts(bal)
    cands = tables["Candidates"]
    assert list(cands.candidate) == ["start_coins=3", "start_coins=4 (shipped)", "start_coins=5"]
    looks = tables["The race, look by look"]
    decisions = [json.loads(x) for x in (bal / "decisions.jsonl").read_text().splitlines()]
    assert len(looks) == len(decisions)
    assert (
        pd.read_csv(bal / "candidates.csv").games.sum()
        == json.loads((bal / "balance.json").read_text())["games"]
    )
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "The race, look by look" in page and "Panel re-check" in page


def test_balance_set_report_shows_the_trade_off_and_the_verified_proposals(
    tmp_path: Path,
) -> None:
    out = tmp_path / "set"
    ok(
        invoke(
            "balance", "--set", "--field", "cost", "--field", "strength", "--max-edits", "2",
            "--measure-games", "300", "--span", "1", "--threshold", "0.01", "--first-bound",
            "40", "--pilot", "200", "--max-games", "400", "--panel", "random",
            "--panel-games", "300", "--out", str(out), "-q",
        )
    )  # fmt: skip
    assert RF.folder_kind(out) == "balance set"
    r = ok(invoke("report", str(out), "--out", str(tmp_path / "rep")))
    csv = pd.read_csv(out / "balance_set.csv", keep_default_na=False, na_values=[""])
    assert list(csv.edits) == [0, 1, 2]
    assert "Balance of the whole set aegean" in r.output
    assert "each edit moves one of cost, strength" in r.output
    _, tables = RF.set_parts(out)
    trade = tables["Edits made vs the worst remaining deviation"]
    assert list(trade.edits) == [0, 1, 2]
    assert list(trade.changes) == ["none", csv.changes[1], csv.changes[2]]
    for cell, rec in zip(trade["worst card, measured (95% CI)"], csv.itertuples(), strict=True):
        assert cell.startswith(f"{rec.worst_card} {rec.worst_rate:.2%} (")
        assert cell.endswith(f"{rec.worst_deviation * 100:.2f} points off")
    assert list(trade["verified: worst card"]) == [
        f"{c}, {x * 100:.2f} points off"
        for c, x in zip(csv.verified_worst_card, csv.verified_worst_deviation, strict=True)
    ]
    assert list(trade["1st VP margin (95% CI)"]) == [
        f"{m:+.2f} ({lo:+.2f} to {hi:+.2f})"
        for m, lo, hi in zip(
            csv.first_margin, csv.first_margin_lo, csv.first_margin_hi, strict=True
        )
    ]
    proposals = tables["Verified proposals"]
    assert list(proposals.edit) == list(csv.edit[1:])
    for row, (_, rec) in zip(proposals.itertuples(), csv.iloc[1:].iterrows(), strict=True):
        assert f"{rec.verified_shift * 100:+.2f}" in row[4]  # the paired shift, in points
        assert f"{rec.verified_rate:.2%}" in row[3]
    for edit in csv.edit[1:]:
        assert f"{edit}: " in r.output
    panel = tables["Panel re-check: the edits together, per bot"]
    saved = pd.read_csv(out / "balance_set_panel.csv")
    assert list(panel.card) == list(saved.card) and set(panel.bot) == {"random"}
    assert list(panel["closer to 50%"]) == ["yes" if t else "no" for t in saved.closer]
    assert "Every edit brings its card closer to 50% under" in r.output
    page = (tmp_path / "rep" / "report.html").read_text()
    assert "Edits made vs the worst remaining deviation" in page and "Verified proposals" in page
    assert "Panel re-check" in page
    assert page.count("<tr") >= 1 + 3 + 1 + 2  # both tables' headers and rows


def test_report_of_a_folder_refuses_a_busy_out(tmp_path: Path) -> None:
    cmp = tmp_path / "cmp"
    ok(invoke("compare", "--games", "300", "--change", f"{KER}.cost=4", "--out", str(cmp), "-q"))
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    assert str(busy) in one_error_line(invoke("report", str(cmp), "--out", str(busy)))
