"""Paired comparisons (sim.analysis.paired, sim.analysis.compare) and `omensim compare`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import Result
from conftest import invoke, ok
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.analysis.compare import compare
from sim.analysis.paired import (
    Outcomes,
    card_shifts,
    compare_runs,
    first_player_shift,
    kinds_of,
)
from sim.data.changes import Changes
from sim.data.spec import RunSpec
from sim.run import io, runner
from sim.run.stats import paired_ratio_diff

GAMES = 3000
# Played in almost every aegean game by greedy bots: a change to it shows at 3000 games.
SPOILS = "Ker of the Spoils"
TALOS = "Talos, Bronze Guardian of Crete"


def one_error_line(result: Result, code: int, text: str) -> None:
    assert result.exit_code == code, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error:"), lines
    assert text in lines[0], lines[0]
    assert "Traceback" not in result.output


# --- statistics ----------------------------------------------------------------


def test_paired_ratio_diff_of_plain_rates_matches_the_textbook() -> None:
    rng = np.random.default_rng(1)
    x = (rng.random(4000) < 0.55).astype(float)
    flip = rng.random(4000) < 0.1
    y = np.where(flip, 1 - x, x)
    ones = np.ones_like(x)
    r = paired_ratio_diff(x, ones, y, ones)
    d = y - x
    assert r["diff"] == pytest.approx(d.mean())
    assert r["se_paired"] == pytest.approx(d.std(ddof=1) / np.sqrt(len(d)))
    assert r["se_unpaired"] == pytest.approx(np.sqrt((x.var(ddof=1) + y.var(ddof=1)) / len(x)))
    assert r["n_unpaired"] == pytest.approx(len(x) * r["se_unpaired"] ** 2 / r["se_paired"] ** 2)
    assert r["lo"] < r["diff"] < r["hi"]
    assert r["se_paired"] < r["se_unpaired"]


def test_paired_ratio_diff_of_ratios_by_column() -> None:
    num = np.array([[1, 0], [0, 0], [1, 1], [0, 1]])
    den = np.array([[1, 0], [2, 1], [1, 1], [1, 2]])
    r = paired_ratio_diff(num, den, num, den)
    assert list(r["rate_a"]) == [2 / 5, 2 / 4]
    assert list(r["diff"]) == [0.0, 0.0]
    assert list(r["count_a"]) == [5, 4]
    assert np.isinf(r["n_unpaired"]).all()


@pytest.mark.filterwarnings("ignore:Degrees of freedom")  # the float path, on no games
@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 40),
    st.integers(1, 4),
    st.integers(0, 2**32 - 1),
    st.sampled_from([np.int8, np.int64, bool]),
)
def test_paired_ratio_diff_of_counts_equals_the_float_computation(n, k, seed, dtype) -> None:
    """Integer counts take the exact path (``counts_moments``, ``term_variances``): every
    figure equals the two-pass float computation's to rounding, NaN where it is NaN
    (columns no seat held, a run of no or one game), and blocks of ``MOMENT_ROWS`` games
    sum to the whole."""
    rng = np.random.default_rng(seed)
    top = 1 if dtype is bool else 3
    den_a = rng.integers(0, top + 1, (n, k)) * (rng.random(k) < 0.8)
    den_b = np.where(rng.random((n, k)) < 0.9, den_a, rng.integers(0, top + 1, (n, k)))
    num_a = np.minimum(den_a, rng.integers(0, top + 1, (n, k)))
    num_b = np.minimum(den_b, rng.integers(0, top + 1, (n, k)))
    counts = [x.astype(dtype) for x in (num_a, den_a, num_b, den_b)]
    exact = paired_ratio_diff(*counts)
    floats = paired_ratio_diff(*(x.astype(np.float64) for x in counts))
    for key, value in floats.items():
        np.testing.assert_allclose(exact[key], value, rtol=1e-9, atol=1e-12, err_msg=key)


def test_the_exact_path_sums_its_blocks(monkeypatch) -> None:
    """More games than one block: the moments are those of one pass over all games."""
    import sim.run.stats as P

    rng = np.random.default_rng(3)
    counts = [rng.integers(0, 3, (5000, 3)) for _ in range(4)]
    whole = P.counts_moments(counts)
    monkeypatch.setattr(P, "MOMENT_ROWS", 777)
    blocks = P.counts_moments(counts)
    assert whole is not None and blocks is not None
    assert all((w == b).all() for w, b in zip(whole, blocks, strict=True))


def _frame(game_ids, winner, first, p0, p1, h0=None, h1=None) -> pd.DataFrame:
    """Rows as a run writes them; a seat holds what it played unless told otherwise."""
    h0, h1 = p0 if h0 is None else h0, p1 if h1 is None else h1
    return pd.DataFrame(
        {
            "game_id": game_ids,
            "winner": winner,
            "first_player": first,
            "played_p0": [np.array(v, np.int16) for v in p0],
            "played_p1": [np.array(v, np.int16) for v in p1],
            "held_p0": [np.array(v, np.int16) for v in h0],
            "held_p1": [np.array(v, np.int16) for v in h1],
        }
    )


def test_outcomes_from_a_pandas_frame_pair_by_game_id() -> None:
    a = _frame([0, 1, 2], [0, 1, -1], [0, 1, 0], [[0, 2], [], [1]], [[2], [0], [1]])
    # B lists the same games in another order, plus one A lacks.
    b = _frame([3, 2, 1, 0], [0, 1, 0, 0], [0, 0, 1, 0], [[], [1], [], [0]], [[], [1], [0], [2]])
    oa = Outcomes.from_frame(a)
    assert oa.plays.tolist() == [[1, 0, 2], [1, 0, 0], [0, 2, 0]]
    assert oa.wins.tolist() == [[1, 0, 1], [1, 0, 0], [0, 0, 0]]  # a shared victory is no win
    assert oa.first_win.tolist() == [1, 1, 0]
    fp = first_player_shift(a, b)
    assert fp.games == 3
    assert (fp.rate_a, fp.rate_b) == (2 / 3, 1 / 3)  # b: game 1 won by 0, who was second
    cards = card_shifts(a, b, {"zero": 0, "two": 2})
    assert cards.card.tolist() == ["zero", "two"]
    assert cards.count_a.tolist() == [2, 2]


def test_outcomes_reject_a_frame_without_the_columns() -> None:
    with pytest.raises(ValueError, match="lack column"):
        Outcomes.from_frame(pd.DataFrame({"game_id": [0], "winner": [0]}))


# --- real runs -----------------------------------------------------------------


@pytest.fixture(scope="module")
def spoils_compare():
    spec = RunSpec(games=GAMES, mix="aegean", seed=3)
    return compare(spec, Changes.parse([f"{SPOILS}.cost=+1"]), progress=False)


def test_paired_interval_is_narrower_than_unpaired_on_a_real_run(spoils_compare) -> None:
    assert spoils_compare.affected == [SPOILS]
    fp = spoils_compare.comparison.first_player
    assert fp.games == GAMES
    assert 0 < fp.se_paired < fp.se_unpaired
    assert fp.n_unpaired > GAMES
    card = spoils_compare.comparison.cards.set_index("card").loc[SPOILS]
    assert card.count_a > GAMES  # played by one seat or both in almost every game
    assert 0 < card.se_paired < card.se_unpaired
    assert card.n_unpaired > GAMES
    assert card.lo < card["diff"] < card.hi
    table = spoils_compare.table()
    assert table.metric.tolist() == ["first_player_win_rate", f"card_win_rate: {SPOILS}"]


def test_identical_tables_give_exactly_zero_difference() -> None:
    spec = RunSpec(games=1000, mix="aegean", seed=5)
    # B is A (the library plays it; the CLI and the API refuse it as nothing to compare,
    # and an edit to a card's own value as a change that changes nothing).
    result = compare(spec, Changes(), progress=False)
    assert result.affected == []
    fp = result.comparison.first_player
    assert (fp.diff, fp.lo, fp.hi, fp.se_paired) == (0.0, 0.0, 0.0, 0.0)
    cards = result.comparison.cards.dropna(subset=["rate_a"])
    assert len(cards) > 10
    assert (cards["diff"] == 0).all() and (cards.se_paired == 0).all()


# --- the command ---------------------------------------------------------------


def test_compare_command_writes_runs_and_a_summary_a_notebook_can_reproduce(
    tmp_path: Path,
) -> None:
    out = tmp_path / "cmp"
    r = ok(
        invoke(
            "compare", "--mix", "aegean", "--games", "1500", "--seed", "2", "--change",
            f"{SPOILS}.cost=+1", "--change", f"{TALOS}.strength=5", "--out", str(out),
        )
    )  # fmt: skip
    assert "first-player win rate:" in r.output
    assert f"{SPOILS}: holders' win rate:" in r.output
    assert f"{TALOS}: holders' win rate:" in r.output
    assert "conditional: players' win rate" in r.output and "plays " in r.output
    assert "unpaired would need" in r.output
    for name in ("A", "B"):
        manifest = io.read_manifest(out / name)
        assert manifest["complete"] and manifest["games"] == 1500
    assert "card_changes" not in io.read_metadata(out / "A")
    assert SPOILS in io.read_metadata(out / "B")["card_changes"]
    summary = json.loads((out / "compare.json").read_text())
    assert summary["affected_cards"] == [TALOS, SPOILS]  # kind order
    assert summary["changes"]["change"] == [f"{SPOILS}.cost=+1", f"{TALOS}.strength=5"]
    assert pd.read_parquet(out / "compare.parquet").metric.iloc[0] == "first_player_win_rate"
    # A notebook on the written runs gets the same numbers.
    a, b = pd.read_parquet(out / "A"), pd.read_parquet(out / "B")
    from sim.data.cards import load_pool

    kinds = kinds_of(load_pool("aegean").units)
    cmp = compare_runs(a, b, kinds)
    assert cmp.first_player.to_dict() == summary["first_player"]
    spoils = cmp.cards.set_index("card").loc[SPOILS]
    row = next(c for c in summary["cards"] if c["card"] == SPOILS)
    assert spoils["diff"] == pytest.approx(row["diff"], abs=0)
    # The output directory is not reused without --force.
    again = invoke(
        "compare", "--games", "10", "--change", f"{SPOILS}.cost=3", "--out", str(out)
    )  # fmt: skip
    one_error_line(again, 1, "already exists and is not empty; use --force")
    ok(
        invoke(
            "compare", "--games", "10", "--change", f"{SPOILS}.cost=3", "--out", str(out),
            "-q", "--force",
        )
    )  # fmt: skip
    assert io.read_manifest(out / "B")["games"] == 10


def test_compare_with_a_cards_file(tmp_path: Path) -> None:
    from sim.data.cards import SETS_DIR

    text = (SETS_DIR / "aegean.toml").read_text()
    path = tmp_path / "mine.toml"
    # Renamed and repriced: a rename alone plays A's games and is refused as no change.
    renamed = text.replace('name = "Ker of the Spoils"\ntype = "keres"\ncost = 2',
                           'name = "Ker of Loot"\ntype = "keres"\ncost = 3')  # fmt: skip
    assert renamed != text
    path.write_text(renamed)
    r = ok(invoke("compare", "--games", "300", "--cards", str(path)))
    assert "Ker of Loot: holders" not in r.output  # only one side has it: not paired
    assert "Only one run has Ker of Loot, Ker of the Spoils: no paired win rate." in r.output
    assert "first-player win rate" in r.output


@pytest.mark.parametrize(
    ("args", "code", "text"),
    [
        (["--games", "10"], 2, "nothing to compare: give B a difference"),
        (["--games", "10", "--b-variant", "nope"], 2, "unknown variant 'nope'"),
        (["--games", "10", "--b-p0", "nobody"], 2, "nobody"),
        (["--games", "10", "--b-rules", "/nonexistent.toml"], 1, "nonexistent"),
        (["--games", "10", "--change", "Nobody.cost=1"], 2, "no unit named 'Nobody'"),
        (["--games", "10", "--change", f"{SPOILS}.colour=1"], 2, "unknown field 'colour'"),
        (["--games", "10", "--change", f"{SPOILS}.cost=x"], 2, "must be a whole number"),
        (["--games", "10", "--change", f"{SPOILS}.cost=-3"], 2, "must be between 0 and 99"),
        (["--games", "10", "--mix", "nope", "--change", "a.cost=1"], 2, "unknown set 'nope'"),
        (["--games", "10", "--cards", "/nonexistent.toml"], 1, "cannot read"),
        (["--games", "0", "--change", f"{SPOILS}.cost=1"], 2, "--games"),
    ],
)
def test_compare_errors_are_one_line(args: list[str], code: int, text: str) -> None:
    one_error_line(invoke("compare", *args), code, text)


@pytest.mark.parametrize("command", ["compare", "sweep", "run"])
def test_new_options_have_help(command: str) -> None:
    text = ok(invoke(command, "--help")).output
    options = {
        "compare": [
            "--change",
            "--cards",
            "--out",
            "--force",
            "--seed",
            "--p0",
            "--p1",
            "--rules",
            "--b-variant",
            "--b-rules",
            "--b-p0",
            "--b-p1",
            "--b-first",
            "--exclude-capped",
        ],
        "sweep": ["--field", "--delta", "--card", "--out", "--games", "--correction"],
        "run": ["--until-ci", "--change", "--cards", "--exclude-capped"],
    }[command]
    for opt in options:
        assert opt in text
    assert "Example" in text


@pytest.mark.parametrize("reverse", [False, True])
def test_a_run_read_back_part_by_part_is_the_run_read_whole(
    tmp_path: Path, monkeypatch, reverse
) -> None:
    """``read_outcomes`` reads one part at a time; the outcomes are those of the whole run
    read at once, also when the manifest lists the parts out of game order."""
    from sim.analysis import compare as C
    from sim.run import runner

    out = tmp_path / "run"
    runner.run(RunSpec(games=300, mix="dunes+aegean", seed=5), out, threads=1, chunk_size=64)
    if reverse:
        verify = io.verify_run

        def reversed_parts(run_dir):
            manifest = verify(run_dir)
            return {**manifest, "parts": manifest["parts"][::-1]}

        monkeypatch.setattr(C.io, "verify_run", reversed_parts)
    whole = Outcomes.from_frame(pd.read_parquet(out), 53)
    parts = C.read_outcomes(out, 53)
    assert len(json.loads((out / "_manifest.json").read_text())["parts"]) == 5
    for name, value in vars(whole).items():
        other = getattr(parts, name)
        assert (value is None and other is None) or np.array_equal(value, other), name


def test_each_arm_is_timed_once_and_plays_the_rows_of_its_own_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every request timed (the threshold lowered), each arm's engine is probed once,
    before the comparison's folder is written, and its run plays that engine without a
    second probe: the rows are those runs of A and B of their own play."""
    probed: list[bool] = []
    probe = runner.probed_rate

    def counted(engine, *args, **kwargs):  # type: ignore[no-untyped-def]
        probed.append(bool(engine.compiled.changes))
        return probe(engine, *args, **kwargs)

    monkeypatch.setattr(runner, "PROBE_FROM", 1)
    monkeypatch.setattr(runner, "probed_rate", counted)
    spec, edit = RunSpec(games=64, seed=6), Changes.parse([f"{SPOILS}.cost=+1"])
    compare(spec, edit, out=tmp_path / "c", progress=False)
    assert probed == [False, True]  # A, then B, once each
    runner.run(spec, tmp_path / "a", progress=False)
    runner.run(spec, tmp_path / "b", progress=False, changes=edit)
    for arm, own in (("A", "a"), ("B", "b")):
        pd.testing.assert_frame_equal(
            pd.read_parquet(tmp_path / "c" / arm), pd.read_parquet(tmp_path / own)
        )
