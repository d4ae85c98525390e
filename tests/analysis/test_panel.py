"""Bot panels: the first-player answer per bot, on synthetic game rows."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.analysis.panel import (
    counts_from_results,
    effect_panel,
    effect_verdicts,
    first_player_panel,
    first_player_verdict,
    format_first_player_panel,
    outcome_counts,
    panel_dir_names,
    parse_panel,
)


def games(
    bot: str, first_wins: int, second_wins: int, shared: int, capped: int = 0
) -> pd.DataFrame:
    """Game rows for one bot: seats alternate first; ``capped`` of the first wins hit the cap."""
    n = first_wins + second_wins + shared
    first = np.arange(n) % 2
    winner = np.concatenate(
        [first[:first_wins], 1 - first[first_wins : first_wins + second_wins], -np.ones(shared)]
    ).astype(np.int64)
    end = np.array(["cities"] * n, dtype=object)
    end[:capped] = "turn_cap"
    return pd.DataFrame({"bot": bot, "winner": winner, "first_player": first, "end_reason": end})


def test_outcome_counts_split_every_game_once() -> None:
    df = pd.concat([games("greedy", 60, 30, 10, capped=5), games("economic", 40, 50, 0)])
    counts = outcome_counts(df)
    assert counts["bot"].tolist() == ["greedy", "economic"]
    g = counts.set_index("bot")
    assert g.loc["greedy"].tolist() == [100, 60, 30, 10, 5]
    assert g.loc["economic"].tolist() == [90, 40, 50, 0, 0]


def test_panel_rates_and_lean() -> None:
    table = first_player_panel(
        outcome_counts(pd.concat([games("a", 600, 300, 100), games("b", 505, 495, 0)]))
    ).set_index("bot")
    assert table.loc["a", "rate"] == pytest.approx(0.6)
    assert table.loc["a", "decisive_share"] == pytest.approx(0.9)
    assert table.loc["a", "first_share"] == pytest.approx(600 / 900)
    assert table.loc["a", "shared_share"] == pytest.approx(0.1)
    assert table.loc["a", "favoured"] == "first" and table.loc["a", "significant"]
    # 505 of 1000 leans first but its interval straddles one half.
    assert table.loc["b", "favoured"] == "first" and not table.loc["b", "significant"]
    assert table.loc["a", "lo"] < 0.6 < table.loc["a", "hi"]


def test_verdict_yes_counts_significant_bots() -> None:
    table = first_player_panel(
        outcome_counts(pd.concat([games("a", 600, 300, 0), games("b", 505, 495, 0)]))
    )
    assert first_player_verdict(table) == (
        "first player favoured under every bot: yes (significant under 1 of 2)"
    )


def test_verdict_no_names_the_bots_that_disagree() -> None:
    table = first_player_panel(
        outcome_counts(
            pd.concat([games("a", 600, 300, 0), games("b", 300, 600, 0), games("c", 50, 50, 0)])
        )
    )
    line = first_player_verdict(table)
    assert line.startswith("first player favoured under every bot: no (significant under 1 of 3)")
    assert "b: second favoured (significant)" in line
    assert "c: neither favoured" in line
    assert "a:" not in line


def test_no_decisive_games_is_not_significant() -> None:
    table = first_player_panel(outcome_counts(games("a", 0, 0, 20)))
    assert table.loc[0, "favoured"] == "neither"
    assert not table.loc[0, "significant"]
    assert "n/a" in format_first_player_panel(table)


def test_counts_from_results_match_counts_from_rows() -> None:
    rows = pd.concat([games("a", 60, 30, 10, capped=5), games("b", 40, 50, 0)])
    results = {
        "a": SimpleNamespace(games=100, first_player_wins=60, shared=10, turn_capped=5),
        "b": SimpleNamespace(games=90, first_player_wins=40, shared=0, turn_capped=0),
    }
    pd.testing.assert_frame_equal(counts_from_results(results), outcome_counts(rows))


def test_format_has_a_row_per_bot_and_the_verdict_last() -> None:
    table = first_player_panel(
        outcome_counts(pd.concat([games("greedy", 600, 300, 100), games("economic", 30, 60, 0)]))
    )
    lines = format_first_player_panel(table).splitlines()
    assert lines[1].startswith("greedy") and lines[2].startswith("economic")
    assert "60.00% (" in lines[1] and " *" in lines[1]
    assert lines[-1].startswith("first player favoured under every bot: no")


def test_parse_panel_and_dir_names() -> None:
    assert parse_panel(" greedy, economic ") == ("greedy", "economic")
    for text, problem in (
        (" , ", "empty bot name"),
        ("greedy,,economic", "empty bot name"),
        ("greedy,economic,", "empty bot name"),
        ("greedy,economic,greedy", "'greedy' more than once"),
        ("", "at least one bot"),
    ):
        with pytest.raises(ValueError, match=problem):
            parse_panel(text)
    assert panel_dir_names(["greedy", "a/x.toml", "b/x.toml"]) == {
        "greedy": "greedy",
        "a/x.toml": "x",
        "b/x.toml": "x-2",
    }


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50), st.integers(0, 5)), min_size=1,
                max_size=4))  # fmt: skip
def test_shares_add_up_and_lean_follows_the_counts(spec: list[tuple[int, int, int]]) -> None:
    frames = [games(f"bot{i}", f, s, sh) for i, (f, s, sh) in enumerate(spec) if f + s + sh]
    if not frames:
        return
    table = first_player_panel(outcome_counts(pd.concat(frames)))
    total = table["rate"] + table["second_wins"] / table["games"] + table["shared_share"]
    assert np.allclose(total, 1.0)
    for r in table.itertuples():
        assert (r.favoured == "first") == (r.first_wins > r.second_wins)
        if r.significant:
            assert r.favoured != "neither"
    fav_all = (table["favoured"] == "first").all()
    assert first_player_verdict(table).startswith(
        f"first player favoured under every bot: {'yes' if fav_all else 'no'}"
    )


def effects(rows: list[tuple[str, str, float, float, float]]) -> pd.DataFrame:
    """Stacked per-bot compare rows: (bot, metric, diff, lo, hi)."""
    return pd.DataFrame(rows, columns=["bot", "metric", "diff", "lo", "hi"])


CARD = "card_win_rate: Moonlight Channeler"


def test_effect_panel_counts_direction_and_significance() -> None:
    panel = effect_panel(
        effects(
            [
                ("greedy", "first_player_win_rate", 0.01, -0.002, 0.022),
                ("greedy", CARD, 0.05, 0.03, 0.07),
                ("economic", "first_player_win_rate", -0.004, -0.01, 0.002),
                ("economic", CARD, 0.02, 0.001, 0.039),
                ("lookahead", "first_player_win_rate", 0.003, -0.01, 0.016),
                ("lookahead", CARD, 0.01, -0.01, 0.03),
            ]
        )
    ).set_index("metric")
    cols = ["bots", "up", "down", "up_significant", "down_significant"]
    assert panel.loc[CARD, cols].tolist() == [3, 3, 0, 2, 0]
    assert panel.loc[CARD, "same_sign"]
    assert not panel.loc["first_player_win_rate", "same_sign"]
    lines = effect_verdicts(panel.reset_index())
    assert lines[0] == (
        "the first-player win rate: this change raises it under 2 of 3 bots "
        "(significant under 0); the same way under every bot: no"
    )
    assert lines[1] == (
        "Moonlight Channeler's holders' win rate: this change raises it under 3 of 3 bots "
        "(significant under 2); the same way under every bot: yes"
    )


def test_effect_verdict_flags_a_significant_reversal() -> None:
    panel = effect_panel(
        effects(
            [
                ("a", CARD, -0.05, -0.07, -0.03),
                ("b", CARD, -0.02, -0.04, -0.01),
                ("c", CARD, 0.03, 0.01, 0.05),
            ]
        )
    )
    (line,) = effect_verdicts(panel)
    assert "lowers it under 2 of 3 bots (significant under 2)" in line
    assert line.endswith("every bot: no (1 bot significantly the other way)")
