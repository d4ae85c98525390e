"""``load(dir)``: a run's games as a DataFrame that explains itself.

:func:`sim.analysis.frames.load_runs` gives the raw rows of several runs for
the analysis functions; :func:`load` is the notebook one-liner on top of the
same checked reads: the run's metadata in ``df.attrs``, card names on request,
and the columns of a set that is not in the mix as nulls, so "no Dunes in this
game" never reads as "built zero structures".

The pieces are separate functions (:func:`cards`, :func:`name_lists`,
:func:`null_absent_sets`, :func:`run_attrs`) so any reader can reuse them.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sim.analysis.frames import RunLoadError, load_runs
from sim.data.cards import unit_table
from sim.run import io

LIST_COLUMNS = ("played_p0", "played_p1", "held_p0", "held_p1")
"""List columns holding card kind ids (``id`` in ``_cards.parquet``); runs written
before ``held_p0/p1`` existed simply lack those."""

SET_COLUMNS: dict[str, tuple[str, ...]] = {
    "dunes": (
        "structures_built_p0", "structures_built_p1", "structures_vp_p0", "structures_vp_p1",
        "god_p0", "god_p1", "favored_at_end",
    ),
    "reign": (
        "feats_p0", "feats_p1", "feat_ids_p0", "feat_ids_p1", "rewards_in_hand_p0",
        "rewards_in_hand_p1", "enraged_total_p0", "enraged_total_p1",
    ),
}  # fmt: skip
"""Columns that only mean something when the set is in the mix (Heir to the Dunes,
A Reign of War); elsewhere they are written as zeros/``none`` and loaded as nulls."""

# Manifest keys too bulky for df.attrs (pandas copies attrs along with every frame).
_BULKY = ("card_table", "interpretations", "rules", "card_changes")


def mix_sets(mix: str) -> set[str]:
    """The set names in a mix spec: ``"dunes+aegean:10"`` -> ``{"dunes", "aegean"}``."""
    return {part.split(":")[0].strip().lower() for part in mix.split("+") if part.strip()}


def cards(path: Path | str) -> pd.DataFrame:
    """The card kinds of a run: its ``_cards.parquet``, or (older runs) the same table
    rebuilt from the card table in the run metadata. Columns: ``sim.data.cards.CARD_COLUMNS``."""
    p = Path(path)
    if (p / io.CARDS_NAME).exists():
        if (p / io.MANIFEST_NAME).exists():
            manifest = io.read_manifest(p)
            io.check_cards(p, manifest, io.MANIFEST_DIGEST_KEY in manifest)
        table = pq.read_table(p / io.CARDS_NAME)
    else:
        units = json.loads(io.read_metadata(p).get("card_table", "{}")).get("units", [])
        table = unit_table(units)
    return table.to_pandas()


def name_lists(df: pd.DataFrame, names: dict[int, str]) -> pd.DataFrame:
    """``df`` with the card-id list columns (:data:`LIST_COLUMNS`) turned into lists of names."""
    out = df.copy(deep=False)
    for col in LIST_COLUMNS:
        if col in out.columns:
            out[col] = [
                None if ids is None else [names.get(int(k), f"kind {k}") for k in ids]
                for ids in out[col]
            ]
    return out


def null_absent_sets(df: pd.DataFrame, sets: Iterable[str]) -> pd.DataFrame:
    """``df`` with the columns of a set not in ``sets`` (see :data:`SET_COLUMNS`) as nulls.

    Numeric columns become pandas nullable integers (``<NA>``), category and
    list columns hold ``None``.
    """
    present = set(sets)
    out = df.copy(deep=False)
    for set_name, cols in SET_COLUMNS.items():
        if set_name in present:
            continue
        for col in cols:
            if col not in out.columns:
                continue
            if pd.api.types.is_integer_dtype(out[col].dtype):
                out[col] = pd.array([pd.NA] * len(out), dtype="Int16")
            else:
                out[col] = pd.Series([None] * len(out), index=out.index, dtype=object)
    return out


def run_attrs(path: Path | str) -> dict[str, Any]:
    """What a run's manifest says about it, small enough for ``df.attrs``.

    The spec, counts and timings of the manifest, plus its metadata without the
    bulky JSON blobs (the card table is ``cards(path)``; the rest is in
    ``_manifest.json``), plus ``path`` and ``sets``.
    """
    manifest = io.read_manifest(path)
    attrs = {k: v for k, v in manifest.items() if k not in ("metadata", "parts")}
    meta = manifest.get("metadata", {})
    attrs["metadata"] = {k: v for k, v in meta.items() if k not in _BULKY}
    attrs["parts"] = len(manifest.get("parts", []))
    attrs["path"] = str(path)
    attrs["sets"] = sorted(mix_sets(str(meta.get("mix", ""))))
    return attrs


def incomplete_parts(path: Path) -> tuple[pd.DataFrame, int]:
    """Every verified part of a run that may not have finished, and the games they hold.

    The parts are the manifest's and those the writer logged after it
    (:func:`sim.run.ledger.completed_parts`: a part whose checksum fails is left
    out), each checked for its run key and rows; a warning says how many games
    were found, since the first chunks of a run are a biased sample.
    """
    from sim.run import ledger

    if not (path / io.MANIFEST_NAME).exists():
        raise RunLoadError(f"{path} is not a run directory (no {io.MANIFEST_NAME})")
    manifest = io.read_manifest(path)
    meta = manifest.get("metadata", {})
    done = ledger.completed_parts(path, manifest)
    tables = []
    for index in sorted(done):
        entry, file = done[index], path / done[index]["file"]
        rows, part_meta, _, _ = io.part_facts(file)
        io.check_key(file, part_meta, meta)
        if rows != entry["games"]:
            raise io.RunReadError(f"{file} holds {rows} games; its entry lists {entry['games']}")
        io.check_part_digest(file, entry, signed=False)
        tables.append(pq.read_table(file))
    df = pa.concat_tables(tables).to_pandas() if tables else pd.DataFrame()
    games = len(df)
    if not manifest.get("complete", False):
        warnings.warn(
            f"{path} is an incomplete run: read {games:,} games from {len(tables)} verified "
            "parts (the first chunks of a run are a biased sample)",
            stacklevel=3,
        )
    if games and not df["game_id"].is_monotonic_increasing:
        df = df.sort_values("game_id", kind="stable", ignore_index=True)
    return df, games


def load(path: Path | str, *, names: bool = False, allow_incomplete: bool = False) -> pd.DataFrame:
    """One finished run's games, one row per game, ready for a notebook.

    The parts are checked against the manifest first (:func:`sim.run.io.verify_run`:
    a deleted, copied, damaged, stray or foreign part is named, never read).

    Args:
        path: a run directory (a complete one: an interrupted run is refused).
        names: turn ``played_p0/p1`` (and ``held_p0/p1``) card kind ids into card names.
        allow_incomplete: read an interrupted or still-running run anyway: every
            verified part on disk (:func:`incomplete_parts`; the first chunks: a
            biased sample); ``df.attrs["games_found"]`` says how many games.

    Returns:
        The games, with ``df.attrs`` holding the run's metadata (see
        :func:`run_attrs`; e.g. ``df.attrs["spec"]["seed"]``) and
        ``df.attrs["cards"]`` the card table as a list of records, and the
        columns of a set that is not in the mix as nulls (:func:`null_absent_sets`).

    Raises:
        sim.analysis.RunLoadError: a path that is missing or not a run directory.
        sim.run.io.IncompleteRunError: a run that did not finish (without ``allow_incomplete``).
        sim.run.io.RunReadError: parts that do not agree with the manifest.
    """
    if not isinstance(path, str | Path):
        raise RunLoadError(f"load needs a run directory (a path), got {type(path).__name__}")
    found = None
    if allow_incomplete:
        df, found = incomplete_parts(Path(path))
    else:
        df = load_runs([path]).drop(columns="run")
    attrs = run_attrs(path)
    if found is not None:
        attrs["games_found"] = found
    table = cards(path)
    df = null_absent_sets(df, attrs["sets"])
    if names:
        df = name_lists(df, dict(zip(table["id"].astype(int), table["name"], strict=True)))
    records = table.assign(keywords=table["keywords"].map(list)).to_dict("records")
    df.attrs = {**attrs, "cards": records}
    return df
