"""``load(dir)``: a run's games as a DataFrame that explains itself.

:func:`sim.analysis.frames.load_runs` gives the rows of several runs for the
analysis functions; :func:`load` is the notebook one-liner for one run on the
same checked reads and the same dtypes (:mod:`sim.analysis.columns`): the run's
metadata in ``df.attrs``, card names on request, and the columns of a set that
is not in the mix as nulls, so "no Dunes in this game" never reads as "built
zero structures".

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

from sim.analysis.columns import (
    LIST_COLUMNS,
    SET_COLUMNS,
    mix_sets,
    named_lists,
    names_dictionary,
    prepare,
    to_frame,
)
from sim.analysis.frames import RunLoadError, run_info
from sim.data.cards import unit_table
from sim.run import io, ledger
from sim.run.margins import COLUMNS as MARGIN_COLUMNS
from sim.run.margins import first_player_margins

# Manifest keys too bulky for df.attrs (pandas copies attrs along with every frame).
_BULKY = ("card_table", "interpretations", "rules", "card_changes")


def cards(path: Path | str, *, allow_incomplete: bool = False) -> pd.DataFrame:
    """The card kinds of a run: its ``_cards.parquet``, or (older runs) the same table
    rebuilt from the card table in the run metadata. Columns: ``sim.data.cards.CARD_COLUMNS``."""
    if not isinstance(path, str | Path):
        raise RunLoadError(f"cards needs a run directory (a path), got {type(path).__name__}")
    p = Path(path)
    if allow_incomplete:  # the run is checked part by part by the caller (incomplete_parts)
        manifest = io.read_manifest(p)
        io.check_cards(p, manifest, io.MANIFEST_DIGEST_KEY in manifest)
    else:
        run_info([p])  # a run directory, finished and verified (its card table's checksum too)
    if (p / io.CARDS_NAME).exists():
        table = pq.read_table(p / io.CARDS_NAME)
    else:
        units = json.loads(io.read_metadata(p).get("card_table", "{}")).get("units", [])
        table = unit_table(units)
    return table.to_pandas()


def name_lists(df: pd.DataFrame, names: dict[int, str]) -> pd.DataFrame:
    """``df`` with the card-id list columns (:data:`LIST_COLUMNS`) holding card names
    (Arrow lists of a dictionary: each element a categorical name)."""
    out = df.copy(deep=False)
    dictionary = names_dictionary(names)
    for col in LIST_COLUMNS:
        if col in out.columns:
            ids = pa.chunked_array([pa.array(out[col], pa.list_(pa.int16()))])
            out[col] = pd.Series(
                pd.arrays.ArrowExtensionArray(named_lists(ids, dictionary)), index=out.index
            )
    return out


def null_absent_sets(df: pd.DataFrame, sets: Iterable[str]) -> pd.DataFrame:
    """``df`` with the columns of a set not in ``sets`` (see :data:`SET_COLUMNS`) as nulls
    of the column's own dtype (nullable integers, categoricals, Arrow lists)."""
    present = set(sets)
    out = df.copy(deep=False)
    for set_name, cols in SET_COLUMNS.items():
        if set_name in present:
            continue
        for col in cols:
            if col not in out.columns:
                continue
            dtype = out[col].dtype
            if pd.api.types.is_integer_dtype(dtype) and not isinstance(dtype, pd.ArrowDtype):
                dtype = pd.Int16Dtype() if dtype.itemsize >= 2 else pd.Int8Dtype()
            out[col] = pd.Series(pd.array([None] * len(out), dtype=dtype), index=out.index)
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


def incomplete_parts(path: Path) -> tuple[pa.Table, int]:
    """The games of a run that may not have finished: a complete prefix, verified.

    A run whose manifest says complete is read whole (:func:`sim.run.io.read_run_table`).
    Otherwise every part the manifest lists must verify (one that does not is refused,
    never dropped), and the parts the writer logged after it
    (:func:`sim.run.ledger.completed_parts`) extend them only as far as they run on
    without a gap: the games returned are always games ``0 .. n-1``. A warning says how
    many were found, since the first chunks of a run are a biased sample.
    """
    if not io.is_regular(path / io.MANIFEST_NAME):
        raise RunLoadError(f"{path} is not a run directory (no {io.MANIFEST_NAME})")
    manifest = io.read_manifest(path)
    if manifest.get("complete", False):
        table = io.read_run_table(path)
        return table, table.num_rows
    meta = manifest.get("metadata", {})
    signed = io.MANIFEST_DIGEST_KEY in manifest
    for entry in io.part_entries(manifest, path / io.MANIFEST_NAME):
        file = path / entry["file"]
        if not io.is_regular(file):
            raise io.RunReadError(
                f"{path}: {entry['file']} is listed in {io.MANIFEST_NAME} but missing"
            )
        io.check_part_digest(file, entry, signed)
    done = ledger.completed_parts(path, manifest)
    tables, games = [], 0
    for index in sorted(done):
        entry, file = done[index], path / done[index]["file"]
        if entry.get("first_game") != games:
            break  # a gap (a part not finished or not intact): the prefix ends here
        rows, part_meta, lo, _ = io.part_facts(file)
        io.check_key(file, part_meta, meta)
        if rows != entry["games"] or (lo is not None and lo != games):
            raise io.RunReadError(f"{file} holds {rows} games; its entry lists {entry['games']}")
        tables.append(pq.read_table(file))
        games += rows
    left = len(done) - len(tables)
    table = pa.concat_tables(tables) if tables else pa.table({})
    skipped = f"; {left} later part(s) left out after a gap" if left else ""
    warnings.warn(
        f"{path} is an incomplete run: read {games:,} games from {len(tables)} verified "
        f"parts (games 0..{games - 1}){skipped} (the first chunks of a run are a biased sample)",
        stacklevel=3,
    )
    return table, games


def load(path: Path | str, *, names: bool = False, allow_incomplete: bool = False) -> pd.DataFrame:
    """One finished run's games, one row per game, ready for a notebook.

    The parts are checked against the manifest first (:func:`sim.run.io.verify_run`:
    a deleted, copied, damaged, stray or foreign part is named, never read).

    Args:
        path: a run directory (a complete one: an interrupted run is refused).
        names: turn ``played_p0/p1`` (and ``held_p0/p1``) card kind ids into card names
            (Arrow lists of a dictionary, :mod:`sim.analysis.columns`); every other
            column has the same dtype either way.
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
        raw, found = incomplete_parts(Path(path))
    else:
        run_info([path])  # a missing path or not a run directory: one RunLoadError
        raw = io.read_run_table(path)
    attrs = run_attrs(path)
    if found is not None:
        attrs["games_found"] = found
        attrs["complete_prefix"] = True  # games 0 .. games_found-1, none missing
    table = cards(path, allow_incomplete=allow_incomplete)
    ids = dict(zip(table["id"].astype(int), table["name"], strict=True)) if names else None
    rows = prepare(raw, attrs["sets"], ids)
    df = to_frame(rows)
    records = table.assign(keywords=table["keywords"].map(list)).to_dict("records")
    df.attrs = {**attrs, "cards": records}
    return df


def run_margins(run_dir: Path | str) -> Any:
    """Per game of a finished run, the first player's VP margin (int64, from its score
    columns; the files checked against the manifest as by :func:`load`)."""
    run_dir = Path(run_dir)
    manifest = io.verify_run(run_dir)
    files = [str(run_dir / p["file"]) for p in manifest["parts"]]
    rows = pq.read_table(files, columns=list(MARGIN_COLUMNS))
    return first_player_margins(*(rows.column(c).to_numpy() for c in MARGIN_COLUMNS))
