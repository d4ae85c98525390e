"""The one loader of finished runs: every path checked, every part verified, one dtype set
(:mod:`sim.analysis.columns`), however a run is loaded (:func:`load`, :func:`load_runs`).
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

from sim.analysis.columns import mix_sets, prepare, to_frame, with_run_label
from sim.base.errors import Error
from sim.data.cards import unit_table
from sim.run import io, ledger
from sim.run.margins import COLUMNS as MARGIN_COLUMNS
from sim.run.margins import first_player_margins

# Manifest keys too bulky for df.attrs (pandas copies attrs along with every frame).
_BULKY = ("card_table", "interpretations", "rules", "card_changes")


class RunLoadError(Error):
    """A path that cannot be analysed as a finished run; the message is one line."""


def _check_run_dir(path: Path) -> dict[str, Any]:
    """The manifest of a finished run (a path :func:`_paths` took); anything else refused with
    a one-line reason."""
    if not path.exists():
        raise RunLoadError(f"{path} does not exist")
    if not path.is_dir():
        raise RunLoadError(f"{path} is not a run directory (it is a file)")
    if not (path / io.MANIFEST_NAME).exists():
        raise RunLoadError(f"{path} is not a run directory (no {io.MANIFEST_NAME})")
    try:
        # Parts checked against the manifest: a deleted, copied, damaged or foreign part
        # would change the sample silently. An incomplete run is refused (a biased sample).
        manifest = io.verify_run(path)
    except io.IncompleteRunError:
        raise
    except (OSError, ValueError) as exc:
        raise RunLoadError(f"{path}: {exc}") from None
    if not manifest["parts"]:
        raise RunLoadError(f"{path} is not a run directory (no {io.PART_GLOB} files)")
    return manifest


def _paths(paths: Iterable[Path | str] | Path | str) -> list[Path]:
    """The run directories as paths, refusing none and the same one twice."""
    if isinstance(paths, str | Path):
        paths = [paths]
    out = [Path(p) for p in paths]
    if not out:
        raise RunLoadError("no run directories given")
    seen: set[Path] = set()
    for p in out:
        try:  # a symlink loop (RuntimeError), a name too long for the file system, a NUL byte
            key = p.resolve()
            p.exists()
        except (OSError, RuntimeError, ValueError) as exc:
            why = getattr(exc, "strerror", None) or exc
            raise RunLoadError(f"{str(p)[:200]!r}: {why}") from None
        if key in seen:
            # The same games twice would silently halve every interval's width.
            raise RunLoadError(f"{p} is given twice")
        seen.add(key)
    return out


def run_info(paths: Iterable[Path | str] | Path | str) -> pd.DataFrame:
    """One row per run directory with what its manifest says about it.

    Columns: ``run`` (label as in :func:`load_runs`: the directory name, or the whole
    path when two names clash), ``path``, ``mix``, ``variant``, ``strategy_p0``,
    ``strategy_p1``, ``first``, ``seed``, ``games``, ``duplicate`` (the run was played
    with ``--duplicate``: games come in pairs sharing a deal), ``card_hash`` and
    ``omensim_version``.

    Raises:
        RunLoadError: a path that is missing, not a run directory, or given twice.
        sim.run.io.IncompleteRunError: a run whose manifest does not say complete.
    """
    plist = _paths(paths)
    names = [p.name for p in plist]
    rows = []
    for path in plist:
        manifest = _check_run_dir(path)
        meta = manifest.get("metadata", {})
        spec = manifest.get("spec", {}) or {}
        rows.append(
            {
                "run": path.name if names.count(path.name) == 1 else str(path),
                "path": str(path),
                "mix": meta.get("mix", spec.get("mix")),
                "variant": meta.get("variant"),
                "strategy_p0": meta.get("strategy_p0", spec.get("p0")),
                "strategy_p1": meta.get("strategy_p1", spec.get("p1")),
                "first": meta.get("first", spec.get("first")),
                "seed": int(meta.get("seed", spec.get("seed", -1))),
                "games": int(manifest.get("games", 0)),
                # Older runs (before --duplicate existed) have no such key: not duplicate.
                "duplicate": bool(spec.get("duplicate", False)),
                "card_hash": meta.get("card_hash"),
                "omensim_version": meta.get("omensim_version"),
            }
        )
    return pd.DataFrame(rows)


def card_names(path: Path | str) -> dict[int, str]:
    """``{kind id: unit name}`` from a run's metadata (the ids in ``played_p0/p1``)."""
    table = json.loads(io.read_metadata(path).get("card_table", "{}"))
    return {k: str(u.get("name", f"kind {k}")) for k, u in enumerate(table.get("units", []))}


def cards(path: Path | str, *, allow_incomplete: bool = False) -> pd.DataFrame:
    """The card kinds of a run: its ``_cards.parquet``, or (older runs) the same table
    rebuilt from the card table in the run metadata. Columns: ``sim.data.cards.CARD_COLUMNS``."""
    if not isinstance(path, str | Path):
        raise RunLoadError(f"cards needs a run directory (a path), got {type(path).__name__}")
    p = Path(path)
    if allow_incomplete:  # the run is checked part by part by the caller (:func:`_prefix`)
        manifest = io.read_manifest(p)
        io.check_cards(p, manifest, io.MANIFEST_DIGEST_KEY in manifest)
    else:
        run_info([p])  # a run directory, finished and verified (its card table's checksum too)
    if (p / io.CARDS_NAME).exists():
        return pq.read_table(p / io.CARDS_NAME).to_pandas()
    units = json.loads(io.read_metadata(p).get("card_table", "{}")).get("units", [])
    return unit_table(units).to_pandas()


def _prefix(path: Path) -> tuple[pa.Table, int]:
    """The games of a run that may not have finished: a complete prefix, verified.

    A run whose manifest says complete is read whole. Otherwise every part the manifest
    lists must verify (one that does not is refused, never dropped), and the parts the
    writer logged after it (:func:`sim.run.ledger.completed_parts`) extend them only as
    far as they run on without a gap: the games returned are always games ``0 .. n-1``.
    A warning says how many were found, since the first chunks of a run are a biased
    sample.
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
            verified part on disk that continues games ``0 .. n-1`` (the first chunks:
            a biased sample); ``df.attrs["games_found"]`` says how many games.

    Returns:
        The games, with ``df.attrs`` holding what the manifest says (its spec, counts
        and timings, its metadata without the bulky JSON blobs, ``parts`` the number of
        parts, ``path`` and ``sets``; e.g. ``df.attrs["spec"]["seed"]``) and
        ``df.attrs["cards"]`` the card table as a list of records.

    Raises:
        sim.analysis.RunLoadError: a path that is missing or not a run directory.
        sim.run.io.IncompleteRunError: a run that did not finish (without ``allow_incomplete``).
        sim.run.io.RunReadError: parts that do not agree with the manifest.
    """
    if not isinstance(path, str | Path):
        raise RunLoadError(f"load needs a run directory (a path), got {type(path).__name__}")
    if not allow_incomplete:
        run_info([path])  # a missing path or not a run directory: one RunLoadError
    raw, found = _prefix(Path(path)) if allow_incomplete else (io.read_run_table(path), None)
    manifest = io.read_manifest(path)
    meta = manifest.get("metadata", {})
    sets = mix_sets(str(meta.get("mix", "")))
    table = cards(path, allow_incomplete=allow_incomplete)
    ids = dict(zip(table["id"].astype(int), table["name"], strict=True)) if names else None
    attrs = {k: v for k, v in manifest.items() if k not in ("metadata", "parts")}
    attrs["metadata"] = {k: v for k, v in meta.items() if k not in _BULKY}
    attrs["parts"] = len(manifest.get("parts", []))
    attrs["path"] = str(path)
    attrs["sets"] = sorted(sets)
    if found is not None:
        attrs["games_found"] = found
        attrs["complete_prefix"] = True  # games 0 .. games_found-1, none missing
    attrs["cards"] = table.assign(keywords=table["keywords"].map(list)).to_dict("records")
    df = to_frame(prepare(raw, sets, ids))
    df.attrs = attrs
    return df


def load_runs(paths: Iterable[Path | str] | Path | str) -> pd.DataFrame:
    """Read finished runs into one DataFrame with a ``run`` label column.

    Every path is checked before any is read, so a bad one fails fast. The columns have
    the dtypes :func:`load` gives them; label columns (``mix``, ``variant``, strategies,
    ``end_reason``, ``run``, the gods) are categoricals whose categories span every run.

    The run metadata stays reachable: ``df.attrs["runs"]`` holds :func:`run_info` as a
    list of dicts, and ``df.attrs["card_names"]`` maps each mix to ``{kind id: name}``
    (taken from the first run of that mix; kind ids are positions in the mix's card
    table, so runs of one mix share them). Raises as :func:`run_info`.
    """
    info = run_info(paths)  # validates every path first
    tables = []
    names: dict[str, dict[int, str]] = {}
    for path, label, mix in zip(info["path"], info["run"], info["mix"], strict=True):
        rows = prepare(io.read_run_table(Path(path)), mix_sets(str(mix)))
        tables.append(with_run_label(rows, str(label)))
        names.setdefault(str(mix), card_names(path))
    # Dictionaries (categories) merged by to_frame.
    out = to_frame(pa.concat_tables(tables, promote_options="permissive"))
    out.attrs["runs"] = info.to_dict("records")
    out.attrs["card_names"] = names
    return out


def run_margins(run_dir: Path | str) -> Any:
    """Per game of a finished run, the first player's VP margin (int64, from its score
    columns; the files checked against the manifest as by :func:`load`)."""
    run_dir = Path(run_dir)
    manifest = io.verify_run(run_dir)
    files = [str(run_dir / p["file"]) for p in manifest["parts"]]
    rows = pq.read_table(files, columns=list(MARGIN_COLUMNS))
    return first_player_margins(*(rows.column(c).to_numpy() for c in MARGIN_COLUMNS))
