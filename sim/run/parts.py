"""Writing one Parquet part of a run, at a local path or an fsspec URL, with its metadata.

A local path goes through :func:`sim.run.io.write_part` (write to a hidden temporary, then
an atomic rename). At a URL pyarrow writes through the filesystem
(:func:`sim.run.storage.filesystem`): never through an open remote file handle, which
pyarrow cannot seek or close reliably. Remote stores have no atomic rename, so the part is
written under a hidden name and moved into place, which readers that skip ``.``-names see
as one step.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from sim.run import io
from sim.run.storage import filesystem, is_url


def write_part(table: pa.Table, out: str | Path, name: str, metadata: Mapping[str, str]) -> str:
    """Write ``table`` as part ``name`` of the run at ``out`` (path or URL); return where."""
    if not is_url(out):
        index = int(name.removeprefix("part-").removesuffix(".parquet"))
        width = len(name) - len("part-.parquet")
        if io.part_name(index, width) == name:
            return str(io.write_part(table, Path(out), index, metadata, width))
        return str(io.write_part_named(table, Path(out), name, metadata))
    fs, root = filesystem(str(out))
    fs.create_dir(root, recursive=True)
    final = f"{root.rstrip('/')}/{name}"
    tmp = f"{root.rstrip('/')}/.{name}.tmp"
    merged = dict(table.schema.metadata or {})
    merged.update({str(k).encode(): str(v).encode() for k, v in metadata.items()})
    io.write_parquet(table.replace_schema_metadata(merged), tmp, fs)
    fs.move(tmp, final)
    return f"{str(out).rstrip('/')}/{name}"


def part_metadata(
    metadata: dict[str, str], info: dict[str, Any], until_ci: float | None, last: bool
) -> dict[str, str]:
    """A part's Parquet metadata: the run's (whose ``games`` is what was played).

    With ``until_ci`` the run's total is unknown while early parts are written,
    so every part states ``part_first_game`` and ``part_games`` (the games it
    really holds) and ``games_requested`` (the ceiling) instead of ``games``;
    the last part, written once the run knows where it stopped, also states
    ``games`` = the games actually played.
    """
    if until_ci is None:
        return metadata
    meta = {
        **metadata,
        "part_first_game": str(info["first_game"]),
        "part_games": str(info["games"]),
    }
    meta["games_requested"] = meta.pop("games")
    if last:
        meta["games"] = str(info["first_game"] + info["games"])
    return meta
