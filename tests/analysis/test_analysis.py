"""sim.analysis: textbook values, hand-counted synthetic games, and interval properties.

Nothing here plays games: every frame is built by hand (or by hypothesis), so
each expected number can be checked with a pencil. The end-to-end test on a
real run lives in test_report.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim import analysis as A
from sim.run import io


def games(
    winner: list[int],
    first: list[int] | None = None,
    **extra: object,
) -> pd.DataFrame:
    """A minimal frame of game rows; unspecified columns get harmless defaults."""
    n = len(winner)
    df = pd.DataFrame(
        {
            "game_id": np.arange(n, dtype=np.int64),
            "seed": np.zeros(n, np.int64),
            "mix": ["aegean"] * n,
            "variant": ["standard"] * n,
            "strategy_p0": ["greedy"] * n,
            "strategy_p1": ["greedy"] * n,
            "first_player": first if first is not None else [i % 2 for i in range(n)],
            "winner": winner,
            "score_p0": [10] * n,
            "score_p1": [10] * n,
            "turns": [12] * n,
            "end_reason": ["all_cities_empty"] * n,
            "played_p0": [[] for _ in range(n)],
            "played_p1": [[] for _ in range(n)],
        }
    )
    for k, v in extra.items():
        df[k] = v
    return df


def fpa_frame(wins: int, n: int, **labels: str) -> pd.DataFrame:
    """``n`` games whose first player won exactly ``wins`` of them."""
    first = [i % 2 for i in range(n)]
    winner = [f if i < wins else 1 - f for i, f in enumerate(first)]
    df = games(winner, first)
    for k, v in labels.items():
        df[k] = v
    return df


# --- Newcombe's interval for a difference ---------------------------------------------------


@pytest.mark.parametrize(
    ("k1", "n1", "k2", "n2", "lo", "hi"),
    [
        # Newcombe (1998), Statistics in Medicine 17:873-890, Table II, method 10.
        (56, 70, 48, 80, 0.0524, 0.3339),
        (9, 10, 3, 10, 0.1705, 0.8090),
        (5, 56, 0, 29, -0.0381, 0.1926),
        (0, 10, 0, 20, -0.1611, 0.2775),
        (0, 10, 0, 10, -0.2775, 0.2775),
        (10, 10, 0, 20, 0.6791, 1.0000),
        (10, 10, 0, 10, 0.6075, 1.0000),
    ],
)
def test_newcombe_textbook_values(k1: int, n1: int, k2: int, n2: int, lo: float, hi: float) -> None:
    got_lo, got_hi = A.newcombe_interval(k1, n1, k2, n2)
    assert float(got_lo) == pytest.approx(lo, abs=5e-5)
    assert float(got_hi) == pytest.approx(hi, abs=5e-5)


counts = st.integers(1, 5000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


@given(a=counts, b=counts)
@settings(deadline=None)  # CI machines are shared and busy; speed is not under test
def test_newcombe_contains_estimate_and_stays_in_range(
    a: tuple[int, int], b: tuple[int, int]
) -> None:
    (k1, n1), (k2, n2) = a, b
    lo, hi = A.newcombe_interval(k1, n1, k2, n2)
    d = k1 / n1 - k2 / n2
    assert -1 - 1e-12 <= lo <= d + 1e-12
    assert d - 1e-12 <= hi <= 1 + 1e-12


@given(a=counts, b=counts)
@settings(deadline=None)
def test_newcombe_shrinks_with_more_games(a: tuple[int, int], b: tuple[int, int]) -> None:
    (k1, n1), (k2, n2) = a, b
    lo, hi = A.newcombe_interval(k1, n1, k2, n2)
    lo4, hi4 = A.newcombe_interval(4 * k1, 4 * n1, 4 * k2, 4 * n2)
    assert hi4 - lo4 <= hi - lo + 1e-12


# --- first-player advantage -----------------------------------------------------------------


def test_first_player_advantage_counts_and_wilson() -> None:
    # 81 first-player wins of 263: Newcombe (1998) Table I gives 0.2553-0.3662.
    df = fpa_frame(81, 263)
    out = A.first_player_advantage(df)
    assert len(out) == 1
    row = out.iloc[0]
    assert (row["games"], row["first_player_wins"], row["shared"]) == (263, 81, 0)
    assert row["rate"] == pytest.approx(81 / 263)
    assert row["lo"] == pytest.approx(0.2553, abs=5e-5)
    assert row["hi"] == pytest.approx(0.3662, abs=5e-5)
    assert list(out.columns) == [*A.GROUP_COLS, "games", "first_player_wins", "shared", "rate",
                                 "lo", "hi"]  # fmt: skip


def test_shared_victory_is_not_a_first_player_win() -> None:
    df = games([0, -1, -1, 1], first=[0, 0, 1, 1])
    row = A.first_player_advantage(df, by=None).iloc[0]
    assert (row["games"], row["first_player_wins"], row["shared"]) == (4, 2, 2)
    assert row["rate"] == 0.5


def test_first_player_advantage_groups() -> None:
    df = pd.concat(
        [fpa_frame(30, 50, variant="standard"), fpa_frame(10, 40, variant="emissary")],
        ignore_index=True,
    )
    out = A.first_player_advantage(df, by="variant").set_index("variant")
    assert out.loc["standard", "first_player_wins"] == 30
    assert out.loc["emissary", "games"] == 40
    with pytest.raises(ValueError, match="no column 'nope'"):
        A.first_player_advantage(df, by=("nope",))


@given(st.lists(st.sampled_from([-1, 0, 1]), min_size=1, max_size=300))
@settings(deadline=None)
def test_fpa_interval_contains_rate(winners: list[int]) -> None:
    row = A.first_player_advantage(games(winners), by=None).iloc[0]
    assert row["lo"] <= row["rate"] <= row["hi"]


# --- the paired (duplicate) estimate --------------------------------------------------------


def duplicate_frame(d_values: list[float]) -> pd.DataFrame:
    """Two games per deal, each seat first once, with per-deal first-player win share d."""
    winner, first, deal = [], [], []
    for j, d in enumerate(d_values):
        wins = round(2 * d)  # how many of the deal's two games the first player won
        for g, f in enumerate((0, 1)):
            first.append(f)
            winner.append(f if g < wins else 1 - f)
            deal.append(j)
    return games(winner, first, deal_id=np.array(deal, dtype=np.int64))


def test_paired_known_values() -> None:
    # d = 1, .5, .5, 0: mean .5, sd sqrt(.5/3), se sqrt(.5/3)/2 -> .5 -+ Z95 * 0.204124.
    out = A.paired_first_player_advantage(duplicate_frame([1, 0.5, 0.5, 0]), by=None)
    row = out.iloc[0]
    se = np.sqrt(0.5 / 3) / 2
    assert (row["deals"], row["games"], row["dropped_games"]) == (4, 8, 0)
    assert row["rate"] == pytest.approx(0.5)
    assert row["se"] == pytest.approx(se)
    assert row["lo"] == pytest.approx(0.5 - A.Z95 * se)
    assert row["hi"] == pytest.approx(0.5 + A.Z95 * se)
    lo, hi = A.wilson_interval(4, 8)
    assert (row["unpaired_lo"], row["unpaired_hi"]) == pytest.approx((lo, hi))


def test_paired_cancels_deal_luck() -> None:
    # Each deal is won by the same seat whoever starts: d = 0.5 always, so the paired
    # interval has zero width while the unpaired one over the same games does not.
    row = A.paired_first_player_advantage(duplicate_frame([0.5] * 200), by=None).iloc[0]
    assert row["rate"] == 0.5 and row["lo"] == row["hi"] == 0.5
    assert row["unpaired_hi"] - row["unpaired_lo"] > 0.09  # Wilson over 400 games


def test_paired_drops_unpaired_games_and_keeps_runs_apart() -> None:
    a = duplicate_frame([1, 0, 0.5])
    b = duplicate_frame([1, 1])  # same deal ids 0, 1 as run a: must not be merged with it
    a["run"], b["run"] = "a", "b"
    lone = games([0], first=[0], deal_id=np.array([99], dtype=np.int64))
    lone["run"] = "a"
    df = pd.concat([a, b, lone], ignore_index=True)
    out = A.paired_first_player_advantage(df, by=None).iloc[0]
    assert (out["deals"], out["games"], out["dropped_games"]) == (5, 10, 1)
    assert out["rate"] == pytest.approx((1 + 0 + 0.5 + 1 + 1) / 5)
    per_run = A.paired_first_player_advantage(df, by="run").set_index("run")
    assert per_run.loc["a", "deals"] == 3 and per_run.loc["a", "dropped_games"] == 1
    assert per_run.loc["b", "rate"] == 1.0


def test_paired_refuses_runs_without_pairs() -> None:
    with pytest.raises(ValueError, match="deal_id"):
        A.paired_first_player_advantage(games([0, 1]))
    # deal_id == game_id, as in a run made without --duplicate
    with pytest.raises(ValueError, match="no deal appears twice"):
        A.paired_first_player_advantage(games([0, 1, 0], deal_id=np.arange(3, dtype=np.int64)))


deal_lists = st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=2, max_size=200)


@given(deal_lists)
@settings(deadline=None)
def test_paired_interval_contains_estimate_and_matches_unpaired_rate(d: list[float]) -> None:
    row = A.paired_first_player_advantage(duplicate_frame(d), by=None).iloc[0]
    assert row["lo"] <= row["rate"] <= row["hi"]
    plain = A.first_player_advantage(duplicate_frame(d), by=None).iloc[0]
    assert row["rate"] == pytest.approx(plain["rate"])  # mean of d = wins / games


@given(deal_lists)
@settings(max_examples=50, deadline=None)
def test_paired_interval_shrinks_with_more_deals(d: list[float]) -> None:
    one = A.paired_first_player_advantage(duplicate_frame(d), by=None).iloc[0]
    four = A.paired_first_player_advantage(duplicate_frame(d * 4), by=None).iloc[0]
    assert four["hi"] - four["lo"] <= one["hi"] - one["lo"] + 1e-12


# --- difference between groups --------------------------------------------------------------


def test_difference_known_values() -> None:
    df = pd.concat(
        [fpa_frame(56, 70, variant="emissary"), fpa_frame(48, 80, variant="standard")],
        ignore_index=True,
    )
    row = A.difference(df, "variant", "emissary", "standard").iloc[0]
    assert (row["games_a"], row["wins_a"], row["games_b"], row["wins_b"]) == (70, 56, 80, 48)
    assert row["diff"] == pytest.approx(0.2)
    assert row["lo"] == pytest.approx(0.0524, abs=5e-5)
    assert row["hi"] == pytest.approx(0.3339, abs=5e-5)
    flipped = A.difference(df, "variant", "standard", "emissary").iloc[0]
    assert flipped["diff"] == pytest.approx(-0.2)
    assert flipped["lo"] == pytest.approx(-0.3339, abs=5e-5)


def test_difference_errors() -> None:
    df = fpa_frame(5, 10)
    with pytest.raises(ValueError, match="no column"):
        A.difference(df, "run", "a", "b")
    with pytest.raises(ValueError, match="no games with variant == 'emissary'"):
        A.difference(df, "variant", "emissary", "standard")


# --- cards ----------------------------------------------------------------------------------


def card_frame() -> pd.DataFrame:
    return games(
        [0, 1, -1, 1],
        played_p0=[[1, 1, 2], [1], [], [3]],
        played_p1=[[2], [], [1], [1, 2]],
    )


def test_card_impact_hand_counted() -> None:
    # 8 player-games, 3 wins (g0 seat 0, g1 seat 1, g3 seat 1; g2 is shared).
    out = A.card_impact(card_frame(), cards={1: "Alpha", 2: "Beta", 3: "Gamma"}, min_games=1)
    rows = out.set_index("card")
    # Alpha: played in g0s0 (win), g1s0, g2s1 (shared), g3s1 (win); twice in g0 counts once.
    assert rows.loc["Alpha", ["played", "not_played"]].tolist() == [4, 4]
    assert rows.loc["Alpha", "share"] == 0.5
    assert rows.loc["Alpha", "win_played"] == 0.5 and rows.loc["Alpha", "win_not"] == 0.25
    assert rows.loc["Beta", ["played", "not_played"]].tolist() == [3, 5]
    assert rows.loc["Beta", "diff"] == pytest.approx(2 / 3 - 1 / 5)
    assert rows.loc["Gamma", "win_played"] == 0 and rows.loc["Gamma", "win_not"] == 3 / 7
    lo, hi = (float(x) for x in A.newcombe_interval(2, 3, 1, 5))
    assert (rows.loc["Beta", "lo"], rows.loc["Beta", "hi"]) == pytest.approx((lo, hi))
    # Sorted by |diff|: Beta .467, Gamma .429, Alpha .25.
    assert out["card"].tolist() == ["Beta", "Gamma", "Alpha"]


def test_card_impact_flags_small_samples_and_names_by_mix() -> None:
    df = card_frame()
    out = A.card_impact(df, cards={"aegean": {1: "Alpha"}}, min_games=4)
    assert out.set_index("kind").loc[1, "card"] == "Alpha"
    assert out.set_index("kind").loc[2, "card"] == "kind 2"  # unnamed kinds stay readable
    flagged = dict(zip(out["kind"], out["low_sample"], strict=True))
    assert flagged == {1: False, 2: True, 3: True}
    assert not out["low_sample"].iloc[0]  # enough-sample rows come first
    df.attrs["card_names"] = {"aegean": {3: "Gamma"}}
    assert "Gamma" in A.card_impact(df)["card"].tolist()


# --- distributions --------------------------------------------------------------------------


def test_score_margins_signed_from_first_player() -> None:
    df = games([0, 1, 0], first=[0, 1, 1], score_p0=[12, 9, 10], score_p1=[10, 9, 7])
    out = A.score_margins(df, by=None)
    assert dict(zip(out["margin"], out["games"], strict=True)) == {-3: 1, 0: 1, 2: 1}
    assert out["share"].sum() == pytest.approx(1.0)


def test_game_lengths_and_end_reasons() -> None:
    df = games(
        [0, 1, 0, 1],
        turns=[10, 12, 12, 200],
        end_reason=["all_cities_empty", "all_cities_empty", "two_cities_empty", "turn_cap"],
    )
    lengths = A.game_lengths(df)
    assert lengths["turns"].tolist() == [10, 12, 200]
    assert lengths["games"].tolist() == [1, 2, 1]
    ends = A.end_reasons(df).set_index("end_reason")
    assert ends.loc["all_cities_empty", "share"] == 0.5
    lo, hi = A.wilson_interval(2, 4)
    assert (ends.loc["all_cities_empty", "lo"], ends.loc["all_cities_empty", "hi"]) == (
        pytest.approx((lo, hi))
    )
    stats = A.summary_stats(df, by=None).iloc[0]
    assert stats["turn_cap_share"] == 0.25 and stats["mean_turns"] == 58.5


def test_score_components_weights_and_shares() -> None:
    df = games([0, 1])
    comps = {
        "rewards_unused": ([1, 0], [0, 2]),  # 2 each: 2*3 = 6
        "rewards_used": ([3, 1], [0, 0]),  # 4
        "vp_tokens": ([0, 0], [1, 1]),  # 2*2 = 4
        "treasured": ([2, 0], [0, 0]),  # 2
    }  # no structures_vp_* or feats_* columns: they count 0
    for name, (p0, p1) in comps.items():
        df[f"{name}_p0"], df[f"{name}_p1"] = p0, p1
    out = A.score_components(df, by=None).set_index("component")
    assert out["points"].to_dict() == {
        "rewards_unused": 6,
        "rewards_used": 4,
        "vp_tokens": 4,
        "treasured": 2,
        "structures_vp": 0,
        "feats": 0,
    }
    assert out["share"].sum() == pytest.approx(1.0)
    assert out.loc["rewards_unused", "share"] == pytest.approx(6 / 16)
    assert out.loc["rewards_unused", "per_game"] == 3


# --- loading --------------------------------------------------------------------------------


def fake_run(path: Path, n: int = 6, complete: bool = True, mix: str = "aegean") -> Path:
    """A tiny run directory written with sim.run.io, as the runner would."""
    df = games([i % 2 for i in range(n)])
    df["mix"] = mix
    table = pa.Table.from_pandas(df, preserve_index=False)
    cards = json.dumps({"units": [{"name": "Alpha"}, {"name": "Beta"}]})
    meta = {"mix": mix, "variant": "standard", "seed": "0", "card_table": cards,
            "strategy_p0": "greedy", "strategy_p1": "greedy", "card_hash": "abc"}  # fmt: skip
    path.mkdir(parents=True)
    io.write_part(table, path, 0, meta)
    parts = [{"file": io.part_name(0), "first_game": 0, "games": n}]
    io.write_manifest(path, meta, parts, n, complete=complete, extra={"spec": {"mix": mix}})
    return path


def test_load_runs_labels_and_metadata(tmp_path: Path) -> None:
    a = fake_run(tmp_path / "a", n=4)
    b = fake_run(tmp_path / "b", n=6, mix="dunes")
    df = A.load_runs([a, b])
    assert len(df) == 10
    assert df["run"].value_counts().to_dict() == {"b": 6, "a": 4}
    assert df.attrs["card_names"] == {"aegean": {0: "Alpha", 1: "Beta"},
                                      "dunes": {0: "Alpha", 1: "Beta"}}  # fmt: skip
    info = A.run_info([a, b])
    assert info["run"].tolist() == ["a", "b"]
    assert info["duplicate"].tolist() == [False, False]
    assert info["games"].tolist() == [4, 6]


def test_load_runs_disambiguates_equal_names(tmp_path: Path) -> None:
    a = fake_run(tmp_path / "x" / "demo")
    b = fake_run(tmp_path / "y" / "demo")
    assert set(A.load_runs([a, b])["run"]) == {str(a), str(b)}


def test_load_runs_refuses_bad_input(tmp_path: Path) -> None:
    with pytest.raises(A.RunLoadError, match="does not exist"):
        A.load_runs([tmp_path / "missing"])
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(A.RunLoadError, match="is a file"):
        A.load_runs(tmp_path / "file.txt")
    (tmp_path / "empty").mkdir()
    with pytest.raises(A.RunLoadError, match=r"no _manifest\.json"):
        A.load_runs([tmp_path / "empty"])
    partial = fake_run(tmp_path / "partial", complete=False)
    with pytest.raises(io.IncompleteRunError, match="incomplete"):
        A.load_runs([partial])
    good = fake_run(tmp_path / "good")
    with pytest.raises(A.RunLoadError, match="given twice"):
        A.load_runs([good, tmp_path / "." / "good"])
    with pytest.raises(A.RunLoadError, match="no run directories"):
        A.load_runs([])
