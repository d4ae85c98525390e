"""Data with names: ``_cards.parquet`` beside every run, and ``sim.analysis.load``.

``load`` returns the games with the run's metadata in ``df.attrs``, card names
in the list columns on request, and the columns of a set that is not in the
mix as nulls (not zeros).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from sim import analysis as A
from sim.data.cards import CARD_COLUMNS, load_pool
from sim.data.spec import RunSpec
from sim.run import io
from sim.run.runner import run


@pytest.fixture(scope="module")
def aegean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("load") / "aegean"
    run(RunSpec(games=400, mix="aegean", seed=3), out, threads=1, progress=False)
    return out


@pytest.fixture(scope="module")
def dunes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("load") / "dunes"
    run(RunSpec(games=300, mix="dunes+aegean", seed=3), out, threads=1, progress=False)
    return out


def test_cards_parquet_has_one_row_per_kind(aegean: Path) -> None:
    cards = pq.read_table(aegean / io.CARDS_NAME).to_pandas()
    pool = load_pool("aegean", 3)
    assert tuple(cards.columns) == CARD_COLUMNS
    assert cards["id"].tolist() == list(range(len(pool.units)))
    assert cards["name"].tolist() == [u["name"] for u in pool.units]
    assert cards["keywords"].map(list).tolist() == [list(u["keywords"]) for u in pool.units]
    assert cards["provenance"].tolist() == [u["source"] for u in pool.units]
    assert cards["provenance"].isin(["reconstructed", "rulebook"]).all()
    # It does not get in the way of plain pandas on the run directory.
    assert len(pd.read_parquet(aegean)) == 400
    assert io.stray_files(aegean) == []


def test_merge_gives_names(aegean: Path) -> None:
    df = pd.read_parquet(aegean)
    cards = pd.read_parquet(aegean / io.CARDS_NAME)
    played = df[["game_id", "played_p0"]].explode("played_p0").dropna()
    named = played.astype({"played_p0": "int16"}).merge(cards, left_on="played_p0", right_on="id")
    assert len(named) == len(played) and named["name"].notna().all()


def test_load_attrs_names_and_absent_sets(aegean: Path) -> None:
    df = A.load(aegean)
    assert len(df) == 400 and "run" not in df.columns
    assert df.attrs["spec"]["seed"] == 3 and df.attrs["games"] == 400
    assert df.attrs["metadata"]["mix"] == "aegean" and df.attrs["sets"] == ["aegean"]
    assert "card_table" not in df.attrs["metadata"]  # the bulky JSON stays in the manifest
    assert [c["name"] for c in df.attrs["cards"]] == A.cards(aegean)["name"].tolist()
    # Without Dunes or Reign their columns are nulls, never zeros.
    for col in ("structures_built_p0", "structures_vp_p1", "feats_p0", "enraged_total_p1"):
        assert df[col].isna().all(), col
    for col in ("god_p0", "favored_at_end", "feat_ids_p0"):
        assert df[col].isna().all(), col
    assert df["score_p0"].notna().all()

    named = A.load(aegean, names=True)
    names = dict(zip(A.cards(aegean)["id"], A.cards(aegean)["name"], strict=True))
    for ids, labels in zip(df["played_p0"].head(50), named["played_p0"].head(50), strict=True):
        assert list(labels) == [names[int(k)] for k in ids]


def test_load_keeps_the_columns_of_sets_in_the_mix(dunes: Path) -> None:
    df = A.load(dunes)
    assert df.attrs["sets"] == ["aegean", "dunes"]
    assert df["structures_built_p0"].notna().all()
    gods = df[["god_p0", "god_p1"]].astype(str)
    assert (gods.god_p0 != gods.god_p1).all() and set(gods.god_p0) <= {"anubis", "horus"}
    assert df["feats_p0"].isna().all()  # no Reign in this mix


def test_end_reason_has_no_unexplained_none(aegean: Path) -> None:
    df = pd.read_parquet(aegean)
    assert "none" not in set(df["end_reason"].cat.categories)
    assert set(df["end_reason"].astype(str)) <= {
        "all_cities_empty", "two_cities_empty", "turn_cap", "all_structures_built",
        "feats_completed",
    }  # fmt: skip


def test_load_refuses_what_load_runs_refuses(tmp_path: Path) -> None:
    with pytest.raises(A.RunLoadError):
        A.load(tmp_path / "missing")


def test_force_clears_the_card_table(aegean: Path, tmp_path: Path) -> None:
    out = tmp_path / "again"
    run(RunSpec(games=50, mix="aegean", seed=1), out, threads=1, progress=False)
    run(RunSpec(games=60, mix="dunes", seed=1), out, threads=1, progress=False, force=True)
    assert A.cards(out)["set"].eq("dunes").all()
