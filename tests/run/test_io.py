"""Run-directory I/O: atomic parts and manifest, metadata round trip, readers' guards."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim.run import io


def _table(start: int, n: int) -> pa.Table:
    return pa.table(
        {
            "game_id": pa.array(range(start, start + n), pa.int64()),
            "winner": pa.array([(i % 3) - 1 for i in range(n)], pa.int8()),
            "played_p0": pa.array([[1, 2]] * n, pa.list_(pa.int16())),
        }
    )


META = {"omensim.version": "0.1.0", "seed": "7", "cards": json.dumps([{"name": "Ajax"}])}


def test_part_roundtrip_with_metadata(tmp_path: Path) -> None:
    path = io.write_part(_table(0, 10), tmp_path, 3, META)
    assert path == tmp_path / "part-00003.parquet"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["part-00003.parquet"]
    assert io.read_metadata(path) == META
    back = pq.read_table(path)
    assert back.column("game_id").to_pylist() == list(range(10))
    assert back.schema.field("played_p0").type == pa.list_(pa.int16())


def test_a_part_written_group_by_group_is_the_part_written_whole(tmp_path: Path) -> None:
    """io.PartWriter (a local run's parts, one group of games at a time) writes the very
    file write_part does for the same rows, and shows it under its name only when closed."""
    rows = 2 * io.ROW_GROUP_ROWS + 5
    (tmp_path / "whole").mkdir()
    (tmp_path / "groups").mkdir()
    table = _table(0, rows)
    whole = io.write_part(table, tmp_path / "whole", 0, META)
    part = io.PartWriter(tmp_path / "groups", whole.name, META)
    for lo in range(0, rows, io.ROW_GROUP_ROWS):
        part.write(table.slice(lo, io.ROW_GROUP_ROWS))
        assert not (tmp_path / "groups" / whole.name).exists()
    assert part.close() == tmp_path / "groups" / whole.name
    assert (tmp_path / "groups" / whole.name).read_bytes() == whole.read_bytes()
    assert [p.name for p in (tmp_path / "groups").iterdir()] == [whole.name]


def test_an_aborted_part_leaves_nothing(tmp_path: Path) -> None:
    part = io.PartWriter(tmp_path, io.part_name(0), META)
    part.write(_table(0, 3))
    assert len(list(tmp_path.iterdir())) == 1  # the hidden temporary
    part.abort()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="no rows"):
        io.PartWriter(tmp_path, io.part_name(1), META).close()


def test_failed_write_leaves_no_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def half_write(table: pa.Table, where: Path, **kwargs: object) -> None:
        Path(where).write_bytes(b"PAR1 half a file")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(io.pq, "write_table", half_write)
    with pytest.raises(OSError, match="No space"):
        io.write_part(_table(0, 3), tmp_path, 0, META)
    assert list(tmp_path.iterdir()) == []


def test_failed_manifest_write_keeps_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    io.write_manifest(tmp_path, META, [], 0, complete=False)

    def broken_dump(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(io.json, "dump", broken_dump)
    with pytest.raises(KeyboardInterrupt):
        io.write_manifest(tmp_path, META, [], 10, complete=True)
    assert [p.name for p in tmp_path.iterdir()] == [io.MANIFEST_NAME]
    assert io.read_manifest(tmp_path)["complete"] is False


def test_directory_reads_as_one_frame_next_to_manifest(tmp_path: Path) -> None:
    io.write_manifest(tmp_path, META, [], 0, complete=False)
    # Written out of order on purpose: readers must still see game order.
    io.write_part(_table(5, 5), tmp_path, 1, META)
    io.write_part(_table(0, 5), tmp_path, 0, META)
    parts = [
        {"file": io.part_name(0), "first_game": 0, "games": 5},
        {"file": io.part_name(1), "first_game": 5, "games": 5},
    ]
    io.write_manifest(tmp_path, META, parts, 10, complete=True, extra={"seconds": 1.5})
    # Plain pandas must work on the directory despite the manifest beside the parts.
    assert len(pd.read_parquet(tmp_path)) == 10
    df = io.read_run(tmp_path)
    assert df["game_id"].tolist() == list(range(10))
    assert io.read_metadata(tmp_path) == META
    manifest = io.read_manifest(tmp_path)
    assert manifest["complete"] is True
    assert manifest["games"] == 10
    assert [{k: v for k, v in p.items() if k != io.DIGEST_KEY} for p in manifest["parts"]] == parts
    assert manifest["seconds"] == 1.5
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_incomplete_run_is_refused_unless_asked(tmp_path: Path) -> None:
    io.write_part(_table(0, 4), tmp_path, 0, META)
    part = {"file": io.part_name(0), "first_game": 0, "games": 4}
    io.write_manifest(tmp_path, META, [part], 4, complete=False)
    assert not io.is_complete(tmp_path)
    with pytest.raises(io.IncompleteRunError, match="incomplete"):
        io.read_run(tmp_path)
    assert len(io.read_run(tmp_path, allow_incomplete=True)) == 4


def test_missing_or_corrupt_manifest_is_not_complete(tmp_path: Path) -> None:
    assert not io.is_complete(tmp_path)
    (tmp_path / io.MANIFEST_NAME).write_text("{not json")
    assert not io.is_complete(tmp_path)


def test_metadata_from_parts_when_no_manifest(tmp_path: Path) -> None:
    io.write_part(_table(0, 2), tmp_path, 0, META)
    assert io.read_metadata(tmp_path) == META
    with pytest.raises(FileNotFoundError):
        io.read_metadata(tmp_path / "nothing-here")


def test_stray_files_and_clearing(tmp_path: Path) -> None:
    io.write_part(_table(0, 2), tmp_path, 0, META)
    io.write_manifest(tmp_path, META, [], 2, complete=True)
    (tmp_path / ".part-00001.parquet.123.tmp").write_bytes(b"half")
    assert io.stray_files(tmp_path) == []
    (tmp_path / "notes.txt").write_text("mine")
    assert [p.name for p in io.stray_files(tmp_path)] == ["notes.txt"]
    io.clear_run_files(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
