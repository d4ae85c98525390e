"""Every ``A.*`` table gives the same answer however the run was loaded.

``A.load(dir)``, ``A.load(dir, names=True)`` and ``A.load_runs([dir])`` read the same
rows through one conversion (``sim.analysis.columns``): the same dtypes (card lists
aside, which hold ids or names), nulls where a set is not in the mix, and no null ever
cast to an integer.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from sim import analysis as A
from sim.analysis.columns import LIST_COLUMNS
from sim.data.spec import RunSpec
from sim.run.runner import run

TABLES: dict[str, Callable[[pd.DataFrame], pd.DataFrame]] = {
    "card_impact": lambda df: A.card_impact(df, min_games=20),
    "end_reasons": A.end_reasons,
    "first_player_advantage": A.first_player_advantage,
    "game_lengths": A.game_lengths,
    "god_win_rates": A.god_win_rates,
    "score_components": A.score_components,
    "score_margins": A.score_margins,
    "summary_stats": A.summary_stats,
    "difference": lambda df: A.difference(df, "first_player", 0, 1),
    "paired_first_player_advantage": A.paired_first_player_advantage,
}


@pytest.fixture(scope="module", params=["aegean", "dunes+reign"])
def run_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("loads") / request.param.replace("+", "_")
    spec = RunSpec(games=200, mix=request.param, seed=4, duplicate=True)
    run(spec, out, threads=1, progress=False)
    return out


def loads(path: Path) -> dict[str, pd.DataFrame]:
    return {
        "load": A.load(path),
        "names": A.load(path, names=True),
        "load_runs": A.load_runs([path]).drop(columns="run"),
    }


def test_dtypes_are_the_same_however_the_run_is_loaded(run_dir: Path) -> None:
    frames = loads(run_dir)
    base = frames["load"].dtypes
    for how, df in frames.items():
        other = df.dtypes
        same = [c for c in base.index if c not in LIST_COLUMNS]
        assert (other[same] == base[same]).all(), (how, other[same][other[same] != base[same]])
    named = frames["names"]["played_p0"].dtype
    assert isinstance(named, pd.ArrowDtype)
    assert pa.types.is_dictionary(named.pyarrow_dtype.value_type)
    for col in ("mix", "end_reason", "god_p0", "favored_at_end"):
        assert isinstance(base[col], pd.CategoricalDtype), col


def test_set_columns_are_nullable_and_null_outside_their_set(run_dir: Path) -> None:
    df = A.load(run_dir)
    dunes = "dunes" in str(run_dir)
    assert pd.api.types.is_extension_array_dtype(df["structures_vp_p0"].dtype)
    assert df["structures_vp_p0"].notna().all() == dunes
    assert df["god_p0"].isna().all() != dunes
    assert df["feats_p0"].notna().all() == ("reign" in str(run_dir))


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_table_is_the_same_on_every_load(run_dir: Path, name: str) -> None:
    frames = loads(run_dir)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. a null cast to an integer
        results = {how: TABLES[name](df) for how, df in frames.items()}
    for how, got in results.items():
        pd.testing.assert_frame_equal(got, results["load"], check_dtype=False, obj=how)


def test_card_impact_names_the_cards_on_named_data(run_dir: Path) -> None:
    got = A.card_impact(A.load(run_dir, names=True), min_games=20)
    assert set(got["card"]) <= set(A.cards(run_dir)["name"])


def test_score_components_count_an_absent_set_as_no_points(run_dir: Path) -> None:
    comp = A.score_components(A.load(run_dir), by=None).set_index("component")
    if "dunes" not in str(run_dir):
        assert comp.loc["structures_vp", "points"] == 0
    assert (comp["points"] >= 0).all() and comp["share"].sum() == pytest.approx(1)
