"""Reading and writing run directories.

A run directory holds one Parquet file per chunk of games and a manifest::

    results/aegean-s0-20250101-120000/
        _manifest.json            # run metadata, parts, and whether the run completed
        part-00000.parquet        # one row per game, games 0 .. chunk_size-1
        part-00001.parquet
        ...

Design points:

* Every file is written to a hidden temporary name first and then moved into
  place with ``os.replace``, which is atomic on one file system: a reader (or
  a crash) never sees half a part or half a manifest.
* The manifest is called ``_manifest.json`` and temporaries start with ``.``
  because pyarrow's dataset discovery skips names starting with ``_`` or
  ``.``; so ``pandas.read_parquet(run_dir)`` reads exactly the parts, even
  while a run is still writing or after one was interrupted.
* The run metadata (package version, seed, mix, card-table hash, ...) goes
  into every part's Parquet key-value metadata as well as into the manifest,
  so a single part copied elsewhere still says where it came from.
* A run is *complete* only when the manifest says ``"complete": true``; the
  runner writes ``false`` before the first game and ``true`` after the last
  part, so an interrupted run never looks finished.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

MANIFEST_NAME = "_manifest.json"
# Finished parts, one JSON line each, while a run is writing (sim.run.ledger).
PARTS_LOG_NAME = "_parts.jsonl"
CARDS_NAME = "_cards.parquet"
"""One row per card kind of the run's mix. The leading ``_`` keeps it out of
``pd.read_parquet(run_dir)``, which would otherwise try to read it as a part."""
PART_GLOB = "part-*.parquet"
MANIFEST_FORMAT = "omensim-run"
MANIFEST_VERSION = 1
COMPRESSION = "zstd"

# Keys pyarrow/pandas put in the schema metadata themselves; not run metadata.
_RESERVED_KEYS = frozenset({b"ARROW:schema", b"pandas"})


class IncompleteRunError(ValueError):
    """A run directory whose manifest does not say the run finished."""


def part_name(index: int, width: int = 5) -> str:
    """File name of part ``index``, zero-padded to ``width`` digits so names sort in game order.

    A run of more than 100,000 parts passes a wider ``width``
    (:func:`sim.run.ledger.part_width`), the same for all its parts.
    """
    return f"part-{index:0{width}d}.parquet"


def _tmp_path(final: Path) -> Path:
    # Leading dot: pyarrow's dataset discovery ignores it, so a crash that leaves
    # a temporary behind cannot break pd.read_parquet(run_dir). The pid keeps two
    # writers of the same directory from clobbering each other's temporaries.
    return final.with_name(f".{final.name}.{os.getpid()}.tmp")


def _fsync_dir(path: Path) -> None:
    # Make the rename itself durable; best effort (not every platform/file system allows it).
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_part(
    table: pa.Table, out_dir: Path | str, index: int, metadata: Mapping[str, str]
) -> Path:
    """Write one chunk of games atomically as ``out_dir/part-<index>.parquet``.

    ``metadata`` is merged into the table's schema key-value metadata (string
    keys and values), so it travels with the file. The file appears under its
    final name only once completely written; on any error the temporary file
    is removed and the exception propagates.

    Returns:
        The path of the written part.
    """
    return write_part_named(table, out_dir, part_name(index), metadata)


def write_part_named(
    table: pa.Table, out_dir: Path | str, name: str, metadata: Mapping[str, str]
) -> Path:
    """:func:`write_part` under the file name ``name`` (see :func:`part_name`)."""
    out = Path(out_dir)
    final = out / name
    tmp = _tmp_path(final)
    merged: dict[bytes, bytes] = dict(table.schema.metadata or {})
    merged.update({str(k).encode(): str(v).encode() for k, v in metadata.items()})
    table = table.replace_schema_metadata(merged)
    try:
        pq.write_table(table, tmp, compression=COMPRESSION)
        os.replace(tmp, final)
    except BaseException:
        # BaseException: a KeyboardInterrupt mid-write must not leave the temporary either.
        tmp.unlink(missing_ok=True)
        raise
    return final


def write_cards(out_dir: Path | str, cards: pa.Table) -> Path:
    """Atomically write the run's card table as ``out_dir/_cards.parquet``."""
    final = Path(out_dir) / CARDS_NAME
    tmp = _tmp_path(final)
    try:
        pq.write_table(cards, tmp, compression=COMPRESSION)
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return final


def write_manifest(
    out_dir: Path | str,
    metadata: Mapping[str, str],
    parts: Sequence[Mapping[str, Any]],
    games: int,
    complete: bool,
    *,
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Atomically write ``out_dir/_manifest.json``.

    Args:
        out_dir: the run directory.
        metadata: the run metadata (the same dict written into each part).
        parts: one mapping per written part, e.g.
            ``{"file": "part-00000.parquet", "first_game": 0, "games": 65536}``,
            in game order.
        games: number of games in the written parts.
        complete: whether the run finished; readers treat anything else as partial.
        extra: further JSON-serialisable fields (timings, the run spec, ...).

    Returns:
        The manifest's path.
    """
    out = Path(out_dir)
    doc: dict[str, Any] = {
        "format": MANIFEST_FORMAT,
        "format_version": MANIFEST_VERSION,
        "complete": bool(complete),
        "games": int(games),
        "parts": [dict(p) for p in parts],
        "updated": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if extra:
        doc.update(extra)
    doc["metadata"] = dict(metadata)
    final = out / MANIFEST_NAME
    tmp = _tmp_path(final)
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=2, sort_keys=False)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(out)
    return final


def read_manifest(run_dir: Path | str) -> dict[str, Any]:
    """Load a run directory's manifest as a dict.

    Raises:
        FileNotFoundError: if the directory has no manifest.
    """
    with open(Path(run_dir) / MANIFEST_NAME, encoding="utf-8") as fh:
        return json.load(fh)


def is_complete(run_dir: Path | str) -> bool:
    """True only if ``run_dir`` has a manifest that says the run finished."""
    try:
        return bool(read_manifest(run_dir).get("complete", False))
    except (OSError, ValueError):
        return False


def read_run(path: Path | str, *, allow_incomplete: bool = False) -> pd.DataFrame:
    """Load the games of a run directory (or of a single part file) into pandas.

    This is ``pd.read_parquet(path)`` plus two guards: rows come back in
    ``game_id`` order whatever order the parts were listed in, and a run
    directory whose manifest does not say it completed is refused unless
    ``allow_incomplete=True``, so an interrupted run is never analysed by
    accident as if it were the whole sample.

    Raises:
        IncompleteRunError: for an unfinished run without ``allow_incomplete``.
    """
    p = Path(path)
    if not allow_incomplete and p.is_dir() and (p / MANIFEST_NAME).exists() and not is_complete(p):
        raise IncompleteRunError(
            f"{p} is an incomplete run (its {MANIFEST_NAME} does not say complete); "
            "pass allow_incomplete=True to read the parts it has"
        )
    df = pd.read_parquet(p)
    if "game_id" in df.columns and not df["game_id"].is_monotonic_increasing:
        df = df.sort_values("game_id", kind="stable", ignore_index=True)
    return df


def _decode(meta: Mapping[bytes, bytes] | None) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in (meta or {}).items() if k not in _RESERVED_KEYS}


def read_metadata(path: Path | str) -> dict[str, str]:
    """Run metadata of a run directory or a single part file, as ``{str: str}``.

    For a directory it is taken from the manifest when there is one, otherwise
    from the first part's Parquet key-value metadata.

    Raises:
        FileNotFoundError: if ``path`` has neither a manifest nor any part.
    """
    p = Path(path)
    if p.is_dir():
        if (p / MANIFEST_NAME).exists():
            return {str(k): str(v) for k, v in read_manifest(p).get("metadata", {}).items()}
        parts = sorted(p.glob(PART_GLOB))
        if not parts:
            raise FileNotFoundError(f"{p} has no {MANIFEST_NAME} and no {PART_GLOB} files")
        p = parts[0]
    return _decode(pq.read_schema(p).metadata)


def _is_run_file(entry: Path) -> bool:
    """Whether ``entry`` is a part, the manifest or one of omensim's temporaries."""
    name = entry.name
    return entry.is_file() and (
        (name.startswith("part-") and name.endswith(".parquet"))
        or name in (MANIFEST_NAME, CARDS_NAME, PARTS_LOG_NAME)
        or (name.startswith(".") and name.endswith(".tmp"))
    )


def list_parts(run_dir: Path | str) -> list[Path]:
    """The part files of a run directory, in game order."""
    return sorted(Path(run_dir).glob(PART_GLOB))


def stray_files(run_dir: Path | str) -> list[Path]:
    """Entries of ``run_dir`` that are not something omensim writes there.

    Used before ``--force`` clears a directory: anything listed here would be
    left behind (and could confuse ``pd.read_parquet``), so the runner refuses.
    """
    return sorted(e for e in Path(run_dir).iterdir() if not _is_run_file(e))


def clear_run_files(run_dir: Path | str) -> None:
    """Delete the parts, manifest and leftover temporaries omensim wrote in ``run_dir``.

    The manifest goes first, so a crash half-way through clearing leaves a
    directory that no longer claims to be a complete run.
    """
    d = Path(run_dir)
    (d / MANIFEST_NAME).unlink(missing_ok=True)
    for entry in d.iterdir():
        if _is_run_file(entry):
            entry.unlink()
