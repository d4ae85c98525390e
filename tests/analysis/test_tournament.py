"""``omensim tournament`` and :mod:`sim.analysis.tournament`: tiny real tournaments, end to end.

The tournaments are played with the real engine through click's CliRunner and
the tables are read back with pandas, as an analyst would.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import Result
from conftest import assert_one_error_line, assert_usage_error_wrote_nothing, invoke, ok
from doc_tables import assert_page_shows

from sim.analysis import tournament
from sim.analysis.ratings import ratings_column_names, ratings_columns_table
from sim.cli.tournament import tournament_cmd
from sim.data.spec import SpecError
from sim.run import io, jobs
from sim.run.runner import RunError
from strategies.registry import STRATEGIES

GAMES = 200  # per pairing
BOTS = ["random", "greedy"]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    out = tmp_path_factory.mktemp("tournaments") / "t"
    args = ["tournament", "--mix", "aegean", "--bots", ",".join(BOTS), "--games", str(GAMES)]
    args += ["--seed", "3", "--threads", "1", "--keep-games", "--out", str(out)]
    return out, ok(invoke(*args))


@pytest.fixture(scope="module")
def pairs(played: tuple[Path, Result]) -> pd.DataFrame:
    return pd.read_parquet(played[0] / tournament.PAIRS_FILE)


def pair(pairs: pd.DataFrame, a: str, b: str) -> pd.Series:
    (row,) = pairs[(pairs.bot_a == a) & (pairs.bot_b == b)].itertuples(index=False)
    return pd.Series(row._asdict())


# --- what a tournament writes ---------------------------------------------------------------


def test_one_row_per_pairing(pairs: pd.DataFrame) -> None:
    got = sorted(zip(pairs.bot_a, pairs.bot_b, strict=True))
    assert got == [("greedy", "greedy"), ("random", "greedy"), ("random", "random")]
    assert (pairs.games == GAMES).all()
    assert pairs.self_play.tolist() == (pairs.bot_a == pairs.bot_b).tolist()
    for col in ["rate_a", "lo_a", "hi_a", "seat_shared_rate", "score_a", "first_player_rate"]:
        assert col in pairs.columns
    assert (pairs.mix == "aegean").all() and (pairs.variant == "standard").all()
    assert (pairs.seed == 3).all()


def test_the_table_has_the_declared_columns(pairs: pd.DataFrame) -> None:
    """``tournament.parquet`` has exactly :data:`tournament.PAIRS_COLUMNS`, in its order."""
    assert list(pairs.columns) == tournament.pairs_column_names()
    self_play = pair(pairs, "greedy", "greedy")
    assert self_play.games_a_seat0 == GAMES and self_play.games_a_first == GAMES // 2


def test_the_ratings_file_has_the_declared_columns(played: tuple[Path, Result]) -> None:
    """``ratings.parquet`` has exactly :data:`sim.analysis.ratings.RATINGS_COLUMNS`, in order."""
    written = pd.read_parquet(played[0] / tournament.RATINGS_FILE)
    assert list(written.columns) == ratings_column_names()


def test_bots_md_shows_every_declared_column_and_no_other() -> None:
    """``docs/bots.md``'s tables of the columns of ``tournament.parquet`` and
    ``ratings.parquet`` are :func:`tournament.pairs_columns_table` and
    :func:`ratings_columns_table`, row for row, so a column added, renamed or
    dropped in the code shows there."""
    assert_page_shows("bots.md", [tournament.pairs_columns_table, ratings_columns_table])


def test_directory_holds_tables_settings_and_games(played: tuple[Path, Result]) -> None:
    out, _ = played
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(
        [
            tournament.PAIRS_FILE,
            tournament.RATINGS_FILE,
            tournament.TABLE_FILE,
            jobs.JOB_NAME,
            jobs.LOG_NAME,
            "games",
        ]
    )
    settings = tournament.read_tournament(out).settings
    assert settings["bots"] == BOTS and settings["games_per_pairing"] == GAMES
    assert settings["seed"] == 3 and settings["mix"] == "aegean"
    runs = sorted(p.name for p in (out / "games").iterdir())
    assert runs == ["greedy-vs-greedy", "greedy-vs-random", "random-vs-greedy", "random-vs-random"]
    assert all(io.is_complete(out / "games" / r) for r in runs)


def test_counts_add_up_and_match_the_raw_games(
    played: tuple[Path, Result], pairs: pd.DataFrame
) -> None:
    for r in pairs.itertuples(index=False):
        assert r.wins_a + r.wins_b + r.shared == r.games
        assert r.rate_a + r.rate_b + r.seat_shared_rate == pytest.approx(1.0)
        assert r.score_a + r.score_b == pytest.approx(1.0)
        assert r.lo_a <= r.rate_a <= r.hi_a and r.lo_b <= r.rate_b <= r.hi_b
        assert r.first_player_lo <= r.first_player_rate <= r.first_player_hi
    games = played[0] / "games"
    ab = io.read_run(games / "random-vs-greedy")
    ba = io.read_run(games / "greedy-vs-random")
    row = pair(pairs, "random", "greedy")
    assert row.wins_a == (ab.winner == 0).sum() + (ba.winner == 1).sum()
    assert row.wins_b == (ab.winner == 1).sum() + (ba.winner == 0).sum()
    both = pd.concat([ab, ba])
    assert row.first_player_wins == (both.winner == both.first_player).sum()


def test_seats_are_balanced(played: tuple[Path, Result], pairs: pd.DataFrame) -> None:
    row = pair(pairs, "random", "greedy")
    assert row.games_a_seat0 == GAMES // 2
    assert row.games_a_first == GAMES // 2
    games = played[0] / "games"
    ab = io.read_run(games / "random-vs-greedy")
    ba = io.read_run(games / "greedy-vs-random")
    assert len(ab) == len(ba) == GAMES // 2
    assert (ab.strategy_p0.astype(str) == "random").all()
    assert (ba.strategy_p0.astype(str) == "greedy").all()
    # Each deal is played by random from seat 0 and from seat 1, going first once in each.
    for df in (ab, ba):
        assert (df.groupby("deal_id").first_player.agg(sorted).map(tuple) == (0, 1)).all()
    assert set(ab.deal_id) == set(ba.deal_id)


def test_matrix_is_consistent(pairs: pd.DataFrame) -> None:
    t = tournament.TournamentResult(BOTS, pairs, {})
    matrix, lo, hi = t.matrix, t.matrix_lo, t.matrix_hi
    assert np.isnan(matrix.loc["greedy", "greedy"]) and np.isnan(matrix.loc["random", "random"])
    shared = pair(pairs, "random", "greedy").seat_shared_rate
    assert matrix.loc["greedy", "random"] + matrix.loc["random", "greedy"] + shared == (
        pytest.approx(1.0)
    )
    assert (lo.fillna(0) <= matrix.fillna(0)).all().all()
    assert (matrix.fillna(1) <= hi.fillna(1)).all().all()


def test_greedy_beats_random_clearly(pairs: pd.DataFrame) -> None:
    row = pair(pairs, "random", "greedy")
    assert row.lo_b > 0.6, f"greedy won only {row.rate_b:.1%} against random"
    assert row.hi_a < 0.4


def test_tables_are_printed_and_written(played: tuple[Path, Result], pairs: pd.DataFrame) -> None:
    out, result = played
    text = (out / tournament.TABLE_FILE).read_text()
    assert text in result.stdout
    assert "Win rate of the row bot" in text and "First-player win rate" in text
    greedy_row = next(line for line in text.splitlines() if line.startswith("| greedy "))
    rate = pair(pairs, "random", "greedy").rate_b
    assert f"{rate:.1%}" in greedy_row
    assert str(out / tournament.PAIRS_FILE) in result.stdout
    assert result.stderr == "", "no progress line when stderr is not a terminal"


def test_ratings_are_printed_and_written(played: tuple[Path, Result]) -> None:
    """Greedy outrates random; the Parquet, the result read back and the table agree."""
    out, result = played
    ratings = tournament.read_tournament(out).ratings
    assert ratings.bot.tolist() == ["greedy", "random"]
    assert ratings.elo.mean() == pytest.approx(1500.0)
    g, r = ratings.itertuples(index=False)
    assert g.lo > r.hi, "greedy's interval must clear random's"
    assert (ratings.lo < ratings.elo).all() and (ratings.elo < ratings.hi).all()
    pd.testing.assert_frame_equal(tournament.read_tournament(out).ratings, ratings)
    assert "## Ratings" in result.stdout
    assert f"| 1 | greedy | {g.elo:.0f} | {g.lo:.0f} to {g.hi:.0f} |" in result.stdout


# --- the library --------------------------------------------------------------------------


def test_library_gives_the_same_numbers(pairs: pd.DataFrame, capsys: pytest.CaptureFixture) -> None:
    seen: list[tuple[str, str]] = []
    result = tournament.play_tournament(
        "aegean",
        BOTS,
        GAMES,
        seed=3,
        threads=1,
        progress=True,
        on_pairing=lambda p, i, n: seen.append((p.a, p.b)),
    )
    assert seen == [("random", "random"), ("random", "greedy"), ("greedy", "greedy")]
    assert result.out is None
    # Played in memory rather than through run directories: the same games.
    pd.testing.assert_frame_equal(result.pairs, pairs)
    assert list(result.matrix.index) == BOTS and list(result.matrix.columns) == BOTS
    assert result.first_player.bot.tolist() == BOTS
    h2h = result.head_to_head()
    assert len(h2h) == 2 and set(h2h.bot) == set(BOTS)
    g = h2h[h2h.bot == "greedy"].iloc[0]
    assert g.rate == result.matrix.loc["greedy", "random"]
    err = capsys.readouterr().err
    assert f"{3 * GAMES:,}/{3 * GAMES:,} games" in err and err.endswith("\n")


def test_emissary_tournament_still_balances_seats(tmp_path: Path) -> None:
    result = tournament.play_tournament(
        "aegean", BOTS, 8, seed=1, variants=("emissary",), threads=1, out=tmp_path / "e"
    )
    assert result.settings["duplicate_deals"] is False
    row = pair(result.pairs, "random", "greedy")
    assert row.games == 8 and row.games_a_seat0 == 4
    assert (tmp_path / "e" / tournament.PAIRS_FILE).exists()


def test_bots_come_from_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    assert tournament.valid_bots() == sorted(STRATEGIES)
    monkeypatch.setitem(STRATEGIES, "zz-new-bot", STRATEGIES["greedy"])
    assert tournament.parse_bots("greedy, ZZ-new-bot") == ["greedy", "zz-new-bot"]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("random,nobody", "unknown bot 'nobody'"),
        ("greedy", "at least two bots"),
        ("", "at least two bots"),
        ("greedy,random,greedy", "'greedy' more than once"),
        ("Greedy,random,greedy", "'greedy' more than once"),
        ("random,,greedy", "empty bot name"),
        ("random,greedy,", "empty bot name"),
        (["random", " ", "greedy"], "empty bot name"),
    ],
)
def test_parse_bots_rejects(text: str, needle: str) -> None:
    with pytest.raises(SpecError, match=needle) as info:
        tournament.parse_bots(text)
    assert "valid bots: " + ", ".join(sorted(STRATEGIES)) in str(info.value)


@pytest.mark.parametrize("games", [0, 2, 6, 201])
def test_check_games_rejects(games: int) -> None:
    with pytest.raises(SpecError, match="multiple of 4"):
        tournament.check_games(games)


def test_pairings_cover_every_pair_once() -> None:
    bots = ["a", "b", "c", "d"]
    plan = tournament.pairings(bots)
    assert len(plan) == 4 * 5 // 2
    assert len({frozenset((p.a, p.b)) for p in plan}) == len(plan)
    assert [p.a for p in plan if p.self_play] == bots
    assert tournament.Pairing("a", "b").halves(20) == [("a", "b", 10), ("b", "a", 10)]
    assert tournament.Pairing("a", "a").halves(20) == [("a", "a", 20)]


def test_keep_games_needs_out() -> None:
    with pytest.raises(RunError):
        tournament.play_tournament("aegean", BOTS, 8, keep_games=True)


def test_default_out_dir_name(tmp_path: Path) -> None:
    when = datetime(2025, 1, 2, 3, 4, 5)
    first = tournament.default_out_dir("dunes+aegean:10", 3, tmp_path, when)
    assert first == tmp_path / "tournament-dunes_aegean-10-s3-20250102-030405"
    first.mkdir()
    assert tournament.default_out_dir("dunes+aegean:10", 3, tmp_path, when).name.endswith("-2")


def test_cli_default_out_is_new_under_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ok(invoke("tournament", "--bots", "random,greedy", "--games", "8", "--seed", "4", "-q"))
    (made,) = (tmp_path / "results").iterdir()
    assert made.name.startswith("tournament-aegean-s4-")
    assert len(tournament.read_tournament(made).pairs) == 3


def test_quiet_prints_nothing(tmp_path: Path) -> None:
    result = ok(
        invoke("tournament", "--bots", "greedy,random", "-n", "8", "-o", str(tmp_path / "q"), "-q")
    )
    assert result.stdout == "" and result.stderr == ""


# --- failures -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--bots", "random,nobody"],
        ["--bots", "greedy"],
        ["--bots", "greedy,greedy"],
        ["--bots", "random,greedy,random"],
        ["--bots", ","],
        ["--games", "0"],
        ["--games", "10"],
        ["--games", "abc"],
        ["--mix", "atlantis"],
        ["--variant", "foo"],
        ["--variant", "constructed"],
        ["--seed", "-1"],
        ["--threads", "0"],
        ["--no-such-option"],
    ],
)
def test_bad_input_is_one_error_line_and_writes_nothing(tmp_path: Path, args: list[str]) -> None:
    out = tmp_path / "never"
    result = invoke("tournament", "--bots", "random,greedy", "--games", "8", "-o", str(out), *args)
    assert_usage_error_wrote_nothing(result, out)


@pytest.mark.parametrize("bots", ["random,nobody", "greedy", "greedy,greedy"])
def test_bot_errors_list_the_valid_bots(tmp_path: Path, bots: str) -> None:
    result = invoke("tournament", "--bots", bots, "--games", "8", "-o", str(tmp_path / "x"))
    assert_one_error_line(result)
    assert "valid bots: " + ", ".join(sorted(STRATEGIES)) in result.stderr


def test_refuses_a_non_empty_out(played: tuple[Path, Result]) -> None:
    out, _ = played
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    result = invoke("tournament", "--bots", "random,greedy", "--games", "8", "-o", str(out))
    assert_one_error_line(result)
    assert result.exit_code == 1
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before


def test_force_replaces_a_tournament_folder_of_an_older_version(tmp_path: Path) -> None:
    """Older versions kept the settings in ``_tournament.json``: still the tournament's own."""
    out = tmp_path / "old"
    out.mkdir()
    (out / "_tournament.json").write_text("{}")
    (out / tournament.PAIRS_FILE).write_text("")
    ok(invoke("tournament", "--bots", "greedy,random", "-n", "8", "-o", str(out), "-q", "--force"))
    assert not (out / "_tournament.json").exists()
    assert len(tournament.read_tournament(out).pairs) == 3


def test_help_documents_every_option() -> None:
    result = ok(invoke("tournament", "--help"))
    assert "Usage:" in result.stdout and "Example" in result.stdout
    undocumented = [p.name for p in tournament_cmd.params if not getattr(p, "help", None)]
    assert not undocumented
    assert "tournament" in ok(invoke("--help")).stdout
