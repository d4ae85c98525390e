"""Workers write parts to a local path or an fsspec URL (path + filesystem to pyarrow)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim.run import storage
from sim.run.parts import write_part

TABLE = pa.table({"game_id": pa.array([0, 1, 2], pa.int64()), "winner": pa.array([0, 1, -1])})


def test_local_path_part_is_written_atomically(tmp_path: Path) -> None:
    where = write_part(TABLE, tmp_path, "part-00000.parquet", {"seed": "3"})
    assert Path(where) == tmp_path / "part-00000.parquet"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["part-00000.parquet"]
    assert pq.read_schema(where).metadata[b"seed"] == b"3"


def test_fsspec_url_part_goes_through_a_filesystem() -> None:
    fsspec = pytest.importorskip("fsspec")
    where = write_part(TABLE, "memory://omensim-test/run", "part-00001.parquet", {"a": "b"})
    assert where == "memory://omensim-test/run/part-00001.parquet"
    fs = fsspec.filesystem("memory")
    names = sorted(p.rsplit("/", 1)[-1] for p in fs.ls("/omensim-test/run", detail=False))
    assert names == ["part-00001.parquet"]  # the hidden temporary was moved into place
    with fs.open("/omensim-test/run/part-00001.parquet", "rb") as fh:
        back = pq.read_table(fh)
    assert back.column("winner").to_pylist() == [0, 1, -1]
    assert back.schema.metadata[b"a"] == b"b"
    assert storage.is_url("s3://bucket/run") and not storage.is_url("results/run")
