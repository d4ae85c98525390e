"""held-card effects, honest first-player figures, any paired A/B, provenance.

The known-answer tests of the card effect (a pure buff or nerf must move the
holders' win rate the right way) are in ``tests/analysis/test_known_answers.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import Result
from conftest import invoke

from sim.analysis.paired import card_shifts
from sim.data.cards import load_pool
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.run import io, runner
from sim.run.engine import Engine
from sim.run.seats import SeatCounts, first_player_label, seat_figures, seat_lines


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def _rows(winner, first, p0, p1, h0, h1) -> pd.DataFrame:
    n = len(winner)

    def lists(v):
        return [np.array(x, np.int16) for x in v]

    return pd.DataFrame(
        {
            "game_id": np.arange(n),
            "winner": winner,
            "first_player": first,
            "played_p0": lists(p0),
            "played_p1": lists(p1),
            "held_p0": lists(h0),
            "held_p1": lists(h1),
        }
    )


# --- the held population -----------------------------------------------------------


def test_card_effect_counts_every_seat_that_held_the_card_in_either_arm() -> None:
    # Kind 0. Game 0: seat 0 holds it in both arms, plays it only in B, and wins only in B.
    # Game 1: seat 1 holds it only in A (B drew differently); seat 1 loses in A, wins in B.
    # Game 2: nobody holds it; seat 0 wins in A, loses in B (must not count).
    a = _rows([1, 0, 0], [0, 0, 0], [[], [], []], [[], [], []], [[0], [], []], [[], [0], []])
    b = _rows([0, 1, 1], [0, 0, 0], [[0], [], []], [[], [], []], [[0], [], []], [[], [], []])
    row = card_shifts(a, b, {"c": 0}).iloc[0]
    assert row.count_a == row.count_b == 2  # (game 0, seat 0) and (game 1, seat 1)
    assert (row.rate_a, row.rate_b) == (0.0, 1.0)
    assert row["diff"] == 1.0
    # The played-only rate sees one play in B and none in A: nothing to compare.
    assert (row.conditional_count_a, row.conditional_count_b) == (0, 1)
    assert np.isnan(row.conditional_rate_a) and row.conditional_rate_b == 1.0


def test_held_columns_are_a_superset_of_played_and_keep_rows_identical() -> None:
    spec = RunSpec(games=300, mix="dunes+aegean", seed=4)
    table = Engine(spec).play(0, 300)
    df = table.to_pandas()
    n_kinds = len(load_pool("dunes+aegean").units)
    for p in range(2):
        for held, played in zip(df[f"held_p{p}"], df[f"played_p{p}"], strict=True):
            # Every card played from hand was held first (abilities only put cards into play
            # from hand, the deck reveal puts them into hand first).
            assert set(played) <= set(held)
            assert all(0 <= k < n_kinds for k in held)
        # Each seat is dealt a hand, so it always holds something.
        assert df[f"held_p{p}"].map(len).min() >= 1
    assert table.schema.field("held_p0").type == table.schema.field("played_p0").type


# --- first-player figures ----------------------------------------------------------


def test_seat_counts_keep_shared_and_capped_games_apart() -> None:
    winner = [0, 1, 1, -1, 0, 1]
    first = [0, 0, 1, 0, 1, 1]
    capped = [False, False, False, True, True, False]
    c = SeatCounts.from_arrays(winner, first, capped)
    assert (c.games, c.first_wins, c.second_wins, c.shared, c.capped) == (6, 3, 2, 1, 2)
    figs = seat_figures(c)
    assert figs["first_of_decisive"]["rate"] == 3 / 5
    assert figs["first_player"]["rate"] == 3 / 6
    for f in figs.values():
        assert f["lo"] <= f["rate"] <= f["hi"]
    x = SeatCounts.from_arrays(winner, first, capped, exclude_capped=True)
    assert (x.games, x.shared, x.capped, x.excluded_capped) == (4, 0, 0, 2)
    text = "\n".join(seat_lines(x))
    assert "2 turn-capped games were left out" in text
    assert "first of decisive  75.00%" in text
    assert c + x == SeatCounts(10, 6, 3, 1, 2, 2)


def test_emissary_label_says_who_starts() -> None:
    assert "Emissary of War" in first_player_label("alternate", ("emissary",))
    assert "alternating" in first_player_label("alternate", ())


NEVER_ENDS = '[rules]\nend_conditions = ["all_structures_built"]\n'
"""An Aegean game has no structures, so it never ends: every game hits the turn cap."""


@pytest.fixture
def probe_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let a run whose every game reaches the turn cap be written (its probe would refuse
    it: sim.run.engine.Engine.unplayable), to test how such a run is summarised."""
    from sim.run.engine import Engine

    monkeypatch.setattr(Engine, "unplayable", lambda self: None)


def test_run_summary_shows_the_five_figures_and_exclude_capped(
    tmp_path: Path, probe_off: None
) -> None:
    rules = tmp_path / "never.toml"
    rules.write_text(NEVER_ENDS)
    out = tmp_path / "run"
    args = ["run", "--games", "6", "--seed", "1", "--rules", str(rules), "--out", str(out)]
    text = ok(invoke(*args)).output
    for label in (
        "first player won",
        "second player won",
        "shared victories",
        "turn-capped        100.00%",
        "first of decisive",
    ):
        assert label in text, text
    assert "the 6 turn-capped games are included" in text
    again = ok(invoke(*args, "--force", "--exclude-capped")).output
    assert "6 turn-capped games were left out of every figure" in again
    df = pd.read_parquet(out)
    assert (df.end_reason.astype(str) == "turn_cap").all() and len(df) == 6  # rows kept
    manifest = io.read_manifest(out)
    assert manifest["seat_counts"]["capped"] == 6


def test_emissary_run_summary_names_the_emissary(tmp_path: Path) -> None:
    text = ok(
        invoke("run", "--games", "20", "--variant", "emissary", "--out", str(tmp_path / "e"))
    ).output
    assert "Emissary of War deciding who goes first" in text
    assert "seats alternating" not in text


def test_report_shows_the_figures_and_excludes_capped(tmp_path: Path, probe_off: None) -> None:
    rules = tmp_path / "never.toml"
    rules.write_text(NEVER_ENDS)
    capped, normal = tmp_path / "capped", tmp_path / "normal"
    ok(invoke("run", "--games", "4", "--rules", str(rules), "--out", str(capped), "-q"))
    ok(invoke("run", "--games", "40", "--out", str(normal), "-q"))
    text = ok(invoke("report", str(normal), str(capped), "--out", str(tmp_path / "r"))).output
    assert "second player won" in text and "first of decisive" in text
    assert "the 4 turn-capped games are included" in text
    bad = invoke(
        "report", str(normal), str(capped), "--out", str(tmp_path / "r2"), "--exclude-capped"
    )
    assert bad.exit_code == 1 and bad.stderr.startswith("Error:"), bad.output
    assert "every game of capped ended at the turn cap" in bad.stderr
    assert bad.stderr.count("\n") == 1
    text = ok(invoke("report", str(normal), "--out", str(tmp_path / "r3"), "--exclude-capped"))
    assert "first of decisive" in text.output


# --- any paired A/B ------------------------------------------------------------------


def test_compare_emissary_against_standard_paired(tmp_path: Path) -> None:
    out = tmp_path / "emissary"
    r = ok(
        invoke(
            "compare", "--mix", "dunes+aegean", "--games", "4000", "--seed", "3",
            "--b-variant", "emissary", "--out", str(out),
        )
    )  # fmt: skip
    text = r.output
    assert "variants: none → emissary" in text
    assert "Emissary of War deciding who goes first" in text
    assert "first-player win rate:" in text and "pairing saved" in text
    assert "unpaired would need" in text
    a, b = pd.read_parquet(out / "A"), pd.read_parquet(out / "B")
    assert set(a.variant.astype(str)) == {"standard"} and set(b.variant.astype(str)) == {"emissary"}
    assert len(a) == len(b) == 4000
    summary = json.loads((out / "compare.json").read_text())
    assert summary["arms"]["B"]["spec"]["variants"] == ["emissary"]
    assert summary["arms"]["A"]["spec"]["variants"] == []
    # The same deal in both arms: seat 0's starting hand is dealt from the same shuffle, so
    # the cards seat 1 never saw differ only by what each game drew later. The printed shift
    # is the notebook's.
    fa = (a.winner == a.first_player).mean()
    fb = (b.winner == b.first_player).mean()
    assert summary["first_player"]["diff"] == pytest.approx(fb - fa, abs=1e-12)
    assert summary["first_player"]["se_paired"] < summary["first_player"]["se_unpaired"]


def test_compare_other_bots_and_house_rules(tmp_path: Path) -> None:
    rules = tmp_path / "longer.toml"
    rules.write_text("[rules]\nhand_limit = 7\n")
    out = tmp_path / "bots"
    text = ok(
        invoke(
            "compare", "--games", "200", "--b-p0", "random", "--b-rules", str(rules),
            "--out", str(out),
        )
    ).output  # fmt: skip
    assert "p0: greedy → random" in text
    b = pd.read_parquet(out / "B")
    assert set(b.strategy_p0.astype(str)) == {"random"}
    meta_b = io.read_metadata(out / "B")
    assert json.loads(meta_b["rule_overrides"]) == {"hand_limit": 7}
    assert json.loads(io.read_metadata(out / "A")["rule_overrides"]) == {}


# --- provenance ----------------------------------------------------------------------


def test_manifest_records_provenance_and_reproduces_the_rows(tmp_path: Path) -> None:
    spoils = "Ker of the Spoils"
    first = runner.run(
        RunSpec(games=150, mix="aegean", seed=9, p1="aggressive"),
        tmp_path / "one",
        progress=False,
        changes=Changes.parse([f"{spoils}.cost=+1"]),
    )
    manifest = io.read_manifest(first.out)
    prov = manifest["provenance"]
    assert set(prov["versions"]) >= {"numba", "numpy", "pyarrow", "omensim", "python"}
    assert prov["bots"]["p1"]["strategy"] == "aggressive"
    assert len(prov["bots"]["p0"]["parameters"]) > 5
    assert prov["bots"]["p0"]["parameters"] != prov["bots"]["p1"]["parameters"]
    if (Path(__file__).resolve().parents[2] / ".git").exists():
        assert prov["git_commit"] and len(prov["git_commit"]) == 40
    # Rebuild the run from nothing but its manifest.
    spec = dict(manifest["spec"])
    spec["variants"] = tuple(spec["variants"])
    changes = Changes.parse(manifest["card_changes"]["change"], manifest["card_changes"]["cards"])
    runner.run(RunSpec(**spec), tmp_path / "two", progress=False, changes=changes)
    one = pq.read_table(tmp_path / "one")
    two = pq.read_table(tmp_path / "two")
    assert one.equals(two)


# --- named readings ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ('extra_wealth_bonus = "three_actions"', "RU_BONUS_BASE_ONLY", 1),
        ("rewards_count_as_hand = true", "RU_REWARDS_IN_HAND", 1),
        ('two_stacks_empty_check = "after_war"', "RU_END_AFTER_WAR", 1),
    ],
)
def test_readings_are_house_rules(tmp_path: Path, text: str, slot: str, value: int) -> None:
    from sim.base import layout as L
    from sim.data.cards import load_rule_overrides

    path = tmp_path / "r.toml"
    path.write_text(f"[rules]\n{text}\n")
    pool = load_pool("reign", rule_overrides=load_rule_overrides(path))
    assert pool.tables.rules[getattr(L, slot)] == value
    assert load_pool("reign").tables.rules[getattr(L, slot)] == 0  # the default reading


@pytest.mark.parametrize(
    "text", ['maneuver_units = "any"', 'build_from = "discard"', 'extra_wealth_bonus = "x"']
)
def test_unplayable_readings_are_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "r.toml"
    path.write_text(f"[rules]\n{text}\n")
    r = invoke("run", "--games", "2", "--rules", str(path), "--out", str(tmp_path / "o"))
    assert r.exit_code != 0 and r.stderr.startswith("Error:") and "must be one of" in r.stderr


def test_every_reading_is_in_the_run_metadata() -> None:
    meta = Engine(RunSpec(games=1, mix="reign")).metadata
    notes = json.loads(meta["interpretations"])
    for key in (
        "extra_wealth_bonus",
        "reign_rewards_in_hand",
        "two_stacks_empty_check",
        "maneuver_units",
        "build_from",
    ):
        assert key in notes, key
    rules = json.loads(meta["rules"])
    assert rules["extra_wealth_bonus"] == "all_actions"
    assert rules["two_stacks_empty_check"] == "end_of_turn"


def test_tournament_shows_the_first_player_figures(tmp_path: Path) -> None:
    from sim.analysis.tournament import format_tournament, play_tournament

    result = play_tournament("aegean", ["random", "greedy"], games=40, seed=2, progress=False)
    text = format_tournament(result)
    for header in ("second player wins", "shared", "turn-capped", "first among decisive"):
        assert header in text
    fp = result.first_player
    assert (fp.first_player_wins + fp.seat_second_wins + fp.shared == fp.games).all()
    decisive = fp.first_player_wins / (fp.first_player_wins + fp.seat_second_wins)
    assert np.allclose(fp.seat_first_of_decisive_rate, decisive)


def test_replay_applies_the_runs_card_changes(tmp_path: Path) -> None:
    """A reviewer replays a game of a compare arm with card changes and gets its row back."""
    out = tmp_path / "cmp"
    ok(
        invoke(
            "compare",
            "--games",
            "40",
            "--change",
            "Ker of the Spoils.cost=+1",
            "--out",
            str(out),
            "-q",
        )
    )
    for arm in ("A", "B"):
        r = ok(invoke("replay", str(out / arm), "--game", "7"))
        assert "Matches game 7's row" in r.output
