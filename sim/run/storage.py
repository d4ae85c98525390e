"""Where a worker writes its Parquet part: a local directory or any fsspec URL.

A local path goes through :func:`sim.run.io.write_part` (write to a hidden
temporary, then an atomic rename). A URL (``s3://bucket/run``,
``memory://run``, ``file:///...``) is resolved to a filesystem plus a path,
and pyarrow writes to that path through the filesystem: never through an
open remote file handle, which pyarrow cannot seek or close reliably. Remote
stores have no atomic rename, so the part is written under a hidden name and
moved into place, which readers that skip ``.``-names see as one step.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sim.run import io


def is_url(out: str | Path) -> bool:
    """True for ``scheme://...`` locations (not plain paths)."""
    return "://" in str(out)


def filesystem(url: str) -> tuple[Any, str]:
    """(pyarrow filesystem, path inside it) for ``url``.

    pyarrow's own filesystems (local, S3, GCS, HDFS) are used when pyarrow
    knows the scheme; any other scheme goes through fsspec (imported only then).
    """
    import pyarrow.fs as pafs

    try:
        return pafs.FileSystem.from_uri(url)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
        import fsspec

        fs, path = fsspec.core.url_to_fs(url)
        return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), path


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
    pq.write_table(
        table.replace_schema_metadata(merged), tmp, filesystem=fs, compression=io.COMPRESSION
    )
    fs.move(tmp, final)
    return f"{str(out).rstrip('/')}/{name}"
