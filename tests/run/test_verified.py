"""Everything on disk is verified: checksums of parts, card table and manifest; one line each.

The regression tests of the tampering, damage and resume cases a hostile user found:
a card table copied from a Dunes run, a value edited inside a part with its metadata
kept, a damaged part, a manifest of the wrong types, a resumed run whose logged part
was truncated, and ``allow_incomplete`` after a kill.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import invoke, one_error_line
from hypothesis import given, settings
from tamper import resign

from sim import Error
from sim import analysis as A
from sim.data.spec import RunSpec
from sim.run import io, ledger, runner

GAMES, CHUNK = 300, 100


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A finished Aegean run of three parts and a Dunes run (copy before changing them)."""
    root = tmp_path_factory.mktemp("verified")
    out = {"aegean": root / "aegean", "dunes": root / "dunes"}
    for mix, path in out.items():
        runner.run(RunSpec(games=GAMES, mix=mix, seed=4), path, chunk_size=CHUNK, progress=False)
    return out


@pytest.fixture
def run_copy(runs: dict[str, Path], tmp_path: Path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(runs["aegean"], dst)
    return dst


def refused(run: Path, tmp_path: Path, fragment: str) -> None:
    """A.load, report and replay refuse ``run`` in one line naming ``fragment``."""
    with pytest.raises(Error, match=fragment):
        A.load(run, names=True)
    assert fragment in one_error_line(invoke("report", str(run), "--out", str(tmp_path / "rep")))
    assert fragment in one_error_line(invoke("replay", str(run), "--game", "3"))


def interrupted(run: Path) -> list[dict]:
    """Make ``run`` look killed before its manifest listed a part (re-signed, as the runner
    leaves it); return the part entries it had, for a test to log."""
    path = run / io.MANIFEST_NAME
    doc = json.loads(path.read_text())
    parts, doc["parts"], doc["complete"], doc["games"] = doc["parts"], [], False, 0
    path.write_text(json.dumps(doc))
    resign(run)
    return parts


def test_the_manifest_records_a_checksum_of_every_file(run_copy: Path) -> None:
    doc = json.loads((run_copy / io.MANIFEST_NAME).read_text())
    for part in doc["parts"]:
        assert part[io.DIGEST_KEY] == io.file_digest(run_copy / part["file"])
    assert doc[io.CARDS_DIGEST_KEY] == io.file_digest(run_copy / io.CARDS_NAME)
    assert doc[io.MANIFEST_DIGEST_KEY] == io.manifest_digest(doc)


def test_a_card_table_copied_from_a_dunes_run_is_refused(
    runs: dict[str, Path], run_copy: Path, tmp_path: Path
) -> None:
    shutil.copy(runs["dunes"] / io.CARDS_NAME, run_copy / io.CARDS_NAME)
    refused(run_copy, tmp_path, "is not this run's card table")
    with pytest.raises(Error, match="is not this run's card table"):
        A.cards(run_copy)


def test_a_value_edited_inside_a_part_with_its_metadata_kept_is_refused(
    run_copy: Path, tmp_path: Path
) -> None:
    name = "part-00001.parquet"
    table = pq.read_table(run_copy / name)
    df = table.to_pandas()
    df.loc[5, "winner"] = 1 - df.loc[5, "winner"] if df.loc[5, "winner"] >= 0 else 0
    edited = pa.Table.from_pandas(df, preserve_index=False, schema=table.schema)
    pq.write_table(edited.replace_schema_metadata(table.schema.metadata), run_copy / name)
    assert io.read_metadata(run_copy / name) == io.read_metadata(run_copy)  # metadata kept
    refused(run_copy, tmp_path, "was edited, damaged or replaced")


def test_a_damaged_part_names_the_file(run_copy: Path, tmp_path: Path) -> None:
    path = run_copy / "part-00002.parquet"
    data = bytearray(path.read_bytes())
    data[100] ^= 0xFF  # inside the first data page (a footer hit is refused as unreadable)
    path.write_bytes(bytes(data))
    refused(run_copy, tmp_path, "part-00002.parquet was edited, damaged or replaced")


def test_a_damaged_part_of_a_run_without_checksums_names_the_run(run_copy: Path) -> None:
    """An older run (no checksums): the damage pyarrow finds is one line naming the run."""
    doc = json.loads((run_copy / io.MANIFEST_NAME).read_text())
    for key in (io.MANIFEST_DIGEST_KEY, io.CARDS_DIGEST_KEY):
        doc.pop(key)
    for part in doc["parts"]:
        part.pop(io.DIGEST_KEY)
    doc["format_version"] = 1  # as the writer before checksums left it
    (run_copy / io.MANIFEST_NAME).write_text(json.dumps(doc))
    path = run_copy / "part-00001.parquet"
    data = path.read_bytes()
    path.write_bytes(data[:8] + b"\0" * (len(data) - 16) + data[-8:])
    with pytest.raises(Error, match=str(run_copy)):
        A.load(run_copy)


@pytest.mark.parametrize(
    ("field", "value"),
    [("games", "300"), ("complete", 1), ("parts", {}), ("metadata", []), ("games", -3),
     ("chunk_size", 1.5), ("spec", "aegean"), ("games_requested", "300"), ("until_ci", "0.1"),
     ("key", []), ("resumed", {}), ("cards_sha256", 7)],
)  # fmt: skip
def test_a_manifest_field_of_the_wrong_type_is_refused_in_one_line(
    run_copy: Path, tmp_path: Path, field: str, value: object
) -> None:
    path = run_copy / io.MANIFEST_NAME
    doc = json.loads(path.read_text())
    doc[field] = value
    path.write_text(json.dumps(doc))
    refused(run_copy, tmp_path, "was edited or damaged")
    resign(run_copy)  # consistent checksums (the field kept): its type is still refused
    doc = json.loads(path.read_text())
    doc[field] = value
    doc[io.MANIFEST_DIGEST_KEY] = io.manifest_digest(doc)
    path.write_text(json.dumps(doc))
    refused(run_copy, tmp_path, f"field '{field}' must be")


def _edit_manifest(run: Path, edit: Any, sign: bool = True) -> None:
    """Apply ``edit`` to the manifest's fields, then make its checksums agree again."""
    path = run / io.MANIFEST_NAME
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))
    if sign:
        resign(run)


def test_a_metadata_value_that_is_not_text_is_refused(run_copy: Path, tmp_path: Path) -> None:
    _edit_manifest(run_copy, lambda doc: doc["metadata"].update(mix=5))
    refused(run_copy, tmp_path, "metadata 'mix' must be a string")


def test_a_part_entry_of_the_wrong_shape_is_refused(run_copy: Path, tmp_path: Path) -> None:
    _edit_manifest(run_copy, lambda doc: doc["parts"][1].update(games="100"))
    refused(run_copy, tmp_path, "part entry 1 is not {file, first_game, games}")


def test_an_edited_card_table_is_refused(run_copy: Path, tmp_path: Path) -> None:
    cards = run_copy / io.CARDS_NAME
    table = pq.read_table(cards)
    pq.write_table(table.slice(0, table.num_rows - 1), cards)
    refused(run_copy, tmp_path, "is not this run's card table")


def test_a_missing_card_table_is_refused(run_copy: Path, tmp_path: Path) -> None:
    (run_copy / io.CARDS_NAME).unlink()
    refused(run_copy, tmp_path, f"{io.CARDS_NAME} is recorded in {io.MANIFEST_NAME} but missing")


def test_a_card_table_the_manifest_does_not_record_is_refused(
    run_copy: Path, tmp_path: Path
) -> None:
    def unrecord(doc: dict) -> None:
        doc.pop(io.CARDS_DIGEST_KEY)
        doc.pop(io.MANIFEST_DIGEST_KEY, None)
        doc[io.MANIFEST_DIGEST_KEY] = io.manifest_digest(doc)

    _edit_manifest(run_copy, unrecord, sign=False)
    refused(run_copy, tmp_path, f"is not recorded in {io.MANIFEST_NAME}")


def test_an_edited_manifest_is_refused_by_resume(run_copy: Path) -> None:
    path = run_copy / io.MANIFEST_NAME
    doc = json.loads(path.read_text())
    doc["complete"] = False
    path.write_text(json.dumps(doc))
    with pytest.raises(Error, match="was edited or damaged"):
        runner.resume(run_copy, progress=False)


@pytest.mark.parametrize("damage", ["truncated", "replaced"])
def test_resume_replays_a_logged_part_that_fails_its_checksum(
    runs: dict[str, Path], run_copy: Path, damage: str
) -> None:
    """An interrupted run whose listed part was truncated or replaced: the resume plays it
    again, and the rows are those of the clean run."""
    path = run_copy / io.MANIFEST_NAME
    doc = json.loads(path.read_text())
    doc["complete"] = False
    doc["parts"] = doc["parts"][:2]
    (run_copy / "part-00002.parquet").unlink()
    path.write_text(json.dumps(doc))
    resign(run_copy)  # as the runner left it: an incomplete run of two parts
    part = run_copy / "part-00001.parquet"
    if damage == "truncated":
        part.write_bytes(part.read_bytes()[:500])
    else:
        shutil.copy(runs["dunes"] / "part-00001.parquet", part)
    runner.resume(run_copy, progress=False)
    pd.testing.assert_frame_equal(A.load(run_copy), A.load(runs["aegean"]))


def test_allow_incomplete_returns_every_verified_part_and_says_how_many_games(
    runs: dict[str, Path], run_copy: Path
) -> None:
    """After a kill the finished parts are in the log, not yet in the manifest."""
    parts = interrupted(run_copy)
    with open(run_copy / io.PARTS_LOG_NAME, "w") as log:
        for p in parts[:2]:
            log.write(ledger.log_line(p) + "\n")
    with pytest.warns(UserWarning, match="read 200 games from 2 verified parts"):
        df = A.load(run_copy, allow_incomplete=True)
    assert df.attrs["games_found"] == 200
    assert list(df["game_id"]) == list(range(200))
    # A logged part whose bytes changed is left out, not read.
    (run_copy / "part-00001.parquet").write_bytes(b"PAR1 damaged")
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert len(A.load(run_copy, allow_incomplete=True)) == 100


@pytest.mark.parametrize("games", ["1e12", "4e18"])
def test_a_run_that_cannot_finish_is_refused_up_front_with_its_projected_time(
    tmp_path: Path, games: str
) -> None:
    out = tmp_path / "huge"
    line = one_error_line(invoke("run", "--games", games, "--out", str(out), "-q"))
    assert "would take about" in line and "days" in line and "limit is" in line
    assert not list(out.glob("part-*")) if out.exists() else True


def test_a_tournament_that_cannot_finish_is_refused_up_front(tmp_path: Path) -> None:
    """Every pairing's games are projected before any is played or written."""
    out = tmp_path / "huge"
    args = ["tournament", "--mix", "aegean", "--bots", "random,greedy", "--games", "1e12"]
    line = one_error_line(invoke(*args, "--out", str(out), "-q"))
    assert "would take about" in line and "days" in line and "limit is" in line
    assert "--until-ci" not in line  # a tournament has no such option to offer
    assert not out.exists() or not any(out.iterdir())


def test_a_tournament_whose_later_bot_is_slow_is_refused_before_any_pairing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each half-run is timed at its own bots' speed: every pairing's games at the first
    (random's) speed would end inside the limit, value's alone would not, on any machine
    (2e10 games: months of value's play, days of random's). Nothing is played or left,
    and the one line names value's pairing; a game played fails the test at once, so a
    machine fast enough to accept the games cannot hang it."""

    def no_game(*args: object, **kw: object) -> None:
        raise AssertionError("a pairing was played before the time limit was checked")

    monkeypatch.setattr(runner, "run", no_game)
    out = tmp_path / "t"
    args = ["tournament", "--mix", "aegean", "--bots", "random,value", "--games", "2e10"]
    line = one_error_line(invoke(*args, "--out", str(out), "-q"))
    assert line.startswith("Error: 3 pairings x 20,000,000,000 games (60,000,000,000) would take")
    assert "of them for value vs value's 20,000,000,000 games" in line
    assert line.endswith("the limit is 30 days: play fewer games (--games) or fewer bots")
    assert not out.exists()


class _SlowEngine:
    """A probe target that plays no faster than 16 games a quarter second."""

    def play_raw(self, start: int, n: int) -> None:
        import time

        time.sleep(0.25)


def test_the_projection_counts_the_dask_workers_that_share_the_games() -> None:
    """One process is refused what a thousand workers of its speed would finish in time."""
    with pytest.raises(runner.RunError, match=r"would take about .* on 1 threads\)"):
        runner.check_projected_time(_SlowEngine(), 10**9, 1)
    runner.check_projected_time(_SlowEngine(), 10**9, 1, workers=1000)
    with pytest.raises(runner.RunError, match=r"times 1000 Dask workers"):
        runner.check_projected_time(_SlowEngine(), 10**13, 1, workers=1000)
    assert runner.backend_workers(None) == 1


class _CountingEngine:
    """A probe target that plays its games in no time and counts the games it was asked."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def play_raw(self, start: int, n: int) -> None:
        self.asked.append(n)


def test_an_ordinary_request_is_settled_by_the_first_probe() -> None:
    """A request far inside the limit plays one probe of a few games, not a fifth of a
    second's worth: the probe's games are thrown away, so every game of it is time lost."""
    engine = _CountingEngine()
    runner.check_projected_time(engine, 10**7, 2)
    assert engine.asked == [32]
    runner.check_projected_time(engine, runner.PROBE_FROM - 1, 2)
    assert engine.asked == [32]


def test_runs_played_one_after_another_are_each_timed_once_at_their_own_speed() -> None:
    """A fast first run does not vouch for a slow later one: each engine is probed once, and
    the refusal names the run that takes longest."""
    fast, also_fast = _CountingEngine(), _CountingEngine()
    runner.check_runs_time({"a": fast, "b": also_fast}, 10**9, 1, what="2 runs")
    assert fast.asked == also_fast.asked == [16]
    fast = _CountingEngine()
    with pytest.raises(
        runner.RunError,
        match=r"^2 runs would take about [\d,]+ days here, [\d,]+ of them for slow's "
        r"1,000,000,000 games \(\d+ games/s measured on 1 threads\); the limit is 30 days",
    ):
        runner.check_runs_time({"fast": fast, "slow": _SlowEngine()}, 10**9, 1, what="2 runs")
    assert fast.asked == [16]


def test_runs_of_different_lengths_are_each_timed_for_their_own_games() -> None:
    """A slow run of few games beside a fast run of many is inside the limit; the same slow
    run with many games is refused, named with its own games, its Dask workers counted."""
    runner.check_runs_time(
        {"slow": _SlowEngine(), "fast": _CountingEngine()}, {"slow": 10**6, "fast": 10**12}, 1,
        what="2 runs",
    )  # fmt: skip
    with pytest.raises(
        runner.RunError,
        match=r"^2 runs would take about [\d,]+ days here, [\d,]+ of them for slow's "
        r"1,000,000,000 games \(\d+ games/s measured on 1 threads, times 2 Dask workers\)",
    ):
        runner.check_runs_time(
            {"slow": _SlowEngine(), "fast": _CountingEngine()}, {"slow": 10**9, "fast": 10**6},
            1, what="2 runs", workers=2,
        )  # fmt: skip


def test_a_run_plays_only_an_engine_of_its_own_spec_and_card_changes(tmp_path: Path) -> None:
    """An engine built and timed by the caller is played only by the run it was built for:
    another spec or other card changes would write rows the manifest does not describe."""
    from sim.data.changes import Changes
    from sim.run.engine import Engine

    spec, edit = RunSpec(games=8, seed=3), Changes.parse(["Ker of the Spoils.cost=+1"])
    engine = Engine.ready(spec, edit)
    for other in ({"changes": None}, {"changes": Changes.parse(["Ker of the Spoils.cost=+2"])}):
        with pytest.raises(ValueError, match="that engine's spec and card changes"):
            runner.run(spec, tmp_path / "x", progress=False, engine=engine, **other)
    with pytest.raises(ValueError, match="that engine's spec and card changes"):
        runner.run(RunSpec(games=9, seed=3), tmp_path / "x", changes=edit, engine=engine)
    assert not (tmp_path / "x").exists()
    runner.run(spec, tmp_path / "ran", progress=False, changes=edit, engine=engine)
    runner.run(spec, tmp_path / "built", progress=False, changes=edit)
    pd.testing.assert_frame_equal(A.load(tmp_path / "ran"), A.load(tmp_path / "built"))


def test_the_chunks_of_a_huge_run_take_no_memory() -> None:
    import tracemalloc

    from sim.run.backends import Chunks

    tracemalloc.start()
    chunks = Chunks(10**12, 65_536, skip=range(5))
    assert len(chunks) == -(-(10**12) // 65_536) - 5
    assert chunks[0].index == 5 and chunks[-1].start + chunks[-1].games == 10**12
    assert tracemalloc.get_traced_memory()[1] < 100_000
    tracemalloc.stop()


@settings(deadline=None)
@given(
    games=st.integers(1, 500),
    size=st.integers(1, 40),
    skip=st.sets(st.integers(0, 30)),
)
def test_the_lazy_chunks_are_the_list_they_replace(games: int, size: int, skip: set) -> None:
    from sim.run.backends import Chunk, Chunks

    whole = [
        Chunk(i, start, min(size, games - start)) for i, start in enumerate(range(0, games, size))
    ]
    todo = [c for c in whole if c.index not in skip]
    chunks = Chunks(games, size, skip)
    assert list(Chunks(games, size)) == whole
    assert list(chunks) == todo and len(chunks) == len(todo)
    assert [chunks[i] for i in range(len(todo))] == todo
    assert [chunks[-i] for i in range(1, len(todo) + 1)] == todo[::-1]
    assert chunks[1:3] == todo[1:3]


@pytest.mark.parametrize("half", [0.05, 0.01, 0.002, 0.0005])
def test_an_until_ci_run_is_projected_by_where_it_must_stop(half: float) -> None:
    """``--games 1e12 --until-ci H`` is not refused for its ceiling: the run stops by the
    game where even a 50% rate's interval is H wide."""
    from sim.run.runner import ci_half_width, games_to_play

    n = games_to_play(10**12, half)
    assert n < 10**9
    assert ci_half_width(n // 2, n) <= half
    assert games_to_play(1000, half) <= 1000 and games_to_play(10**12, None) == 10**12


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "--games", "1e12", "--change", "Ker of the Spoils.cost=+1"],
        ["sweep", "--games", "1e12", "--field", "cost", "--delta", "1", "--card",
         "Ker of the Spoils"],
    ],
)  # fmt: skip
def test_compare_and_sweep_refuse_a_run_that_cannot_finish(args: list[str]) -> None:
    line = one_error_line(invoke(*args, "-q"))
    assert "would take about" in line and "days" in line


def test_a_comparison_whose_b_plays_a_slow_bot_is_timed_at_b_s_speed(tmp_path: Path) -> None:
    """Both arms' games at A's (greedy's) speed would end inside the limit; B's bots are far
    slower, so the comparison is refused before its folder is written, naming arm B."""
    out = tmp_path / "c"
    args = ["compare", "--games", "2e10", "--b-p0", "value", "--b-p1", "value", "-q"]
    line = one_error_line(invoke(*args, "--out", str(out)))
    assert line.startswith("Error: 40,000,000,000 games would take about")
    assert "of them for arm B's 20,000,000,000 games" in line and "the limit is 30 days" in line
    assert not out.exists()


def test_resume_refuses_a_part_entry_of_the_wrong_type_in_one_line(run_copy: Path) -> None:
    """A re-signed manifest whose part entry has text for its game count: one line, never
    a ValueError from deep inside the resume (the hostile-input benchmark found it)."""

    def interrupted(doc: dict) -> None:
        doc["complete"] = False
        doc["parts"][0]["games"] = "aegean:99999"

    _edit_manifest(run_copy, interrupted)
    with pytest.raises(runner.RunError, match=r"cannot resume .* part entry 0 is not"):
        runner.resume(run_copy, progress=False)
    line = one_error_line(invoke("run", "--resume", str(run_copy), "-q"))
    assert "part entry 0 is not" in line


def test_report_of_a_name_too_long_for_the_file_system_is_one_line(tmp_path: Path) -> None:
    line = one_error_line(invoke("report", "x" * 5000, "--out", str(tmp_path / "rep")))
    assert line.startswith("Error: ")


def test_part_entries_whose_games_disagree_with_the_parts_are_refused(
    run_copy: Path, tmp_path: Path
) -> None:
    """Row counts or game ranges the parts do not hold, with every checksum consistent."""
    _edit_manifest(run_copy, lambda doc: doc["parts"][1].update(first_game=7))
    refused(run_copy, tmp_path, "starts at game 7, expected 100")
    _edit_manifest(run_copy, lambda doc: doc["parts"][1].update(first_game=100))
    _edit_manifest(run_copy, lambda doc: doc["parts"][-1].update(games=101))
    refused(run_copy, tmp_path, f"{io.MANIFEST_NAME} lists 101")


# --- no legacy side door -------------------------------------------------------------------


def test_a_manifest_that_lost_its_own_checksum_is_refused_as_edited(
    run_copy: Path, tmp_path: Path
) -> None:
    """Deleting the one line manifest_sha256 must not send readers down the path of a run
    written before checksums: the manifest says it was written with them."""
    path = run_copy / io.MANIFEST_NAME
    doc = json.loads(path.read_text())
    doc.pop(io.MANIFEST_DIGEST_KEY)
    doc["games"], doc["parts"] = 200, doc["parts"][:2]  # and a part quietly dropped
    path.write_text(json.dumps(doc))
    refused(run_copy, tmp_path, "its manifest_sha256 is gone")
    with pytest.raises(Error, match="manifest_sha256 is gone"):
        A.load(run_copy, allow_incomplete=True)
    with pytest.raises(Error, match="manifest_sha256 is gone"):
        A.run_totals(run_copy)


def test_allow_incomplete_never_drops_a_part_the_manifest_lists(run_copy: Path) -> None:
    (run_copy / "part-00001.parquet").unlink()
    with pytest.raises(Error, match=r"part-00001\.parquet is listed"):
        A.load(run_copy, allow_incomplete=True)
    path = run_copy / io.MANIFEST_NAME
    doc = json.loads(path.read_text())
    doc["complete"] = False
    path.write_text(json.dumps(doc))
    resign(run_copy)  # an interrupted run whose listed middle part is gone
    with pytest.raises(Error, match=r"part-00001\.parquet is listed"):
        A.load(run_copy, allow_incomplete=True)


def test_allow_incomplete_returns_only_a_complete_prefix(run_copy: Path) -> None:
    """Logged parts after a gap are left out, and the warning and attrs say so."""
    parts = interrupted(run_copy)
    with open(run_copy / io.PARTS_LOG_NAME, "w") as log:
        for p in (parts[0], parts[2]):  # part 1 never finished
            log.write(ledger.log_line(p) + "\n")
    (run_copy / "part-00001.parquet").unlink()
    with pytest.warns(UserWarning, match="1 later part"):
        df = A.load(run_copy, allow_incomplete=True)
    assert list(df["game_id"]) == list(range(100))
    assert df.attrs["games_found"] == 100 and df.attrs["complete_prefix"] is True


def test_run_totals_verifies_the_run(run_copy: Path) -> None:
    path = run_copy / "part-00002.parquet"
    data = bytearray(path.read_bytes())
    data[100] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(Error, match="was edited, damaged or replaced"):
        A.run_totals(run_copy)
    with pytest.raises(Error, match="not a run directory"):
        A.run_totals(run_copy.parent)


def test_resume_refuses_an_edited_parts_log_line_in_one_line(run_copy: Path) -> None:
    parts = interrupted(run_copy)
    lines = [ledger.log_line(p) for p in parts[:2]]
    edited = lines[1].replace('"games": 100', '"games": 90')
    assert edited != lines[1]
    (run_copy / io.PARTS_LOG_NAME).write_text(lines[0] + "\n" + edited + "\n")
    line = one_error_line(invoke("run", "--resume", str(run_copy), "-q"))
    assert "line 2 was edited or damaged" in line
    (run_copy / io.PARTS_LOG_NAME).write_text(lines[0] + "\n{not json\n")
    assert "line 2 was edited" in one_error_line(invoke("run", "--resume", str(run_copy), "-q"))


def test_resume_refuses_a_chunk_size_of_zero_in_one_line(run_copy: Path) -> None:
    def zero(doc: dict) -> None:
        doc["chunk_size"], doc["complete"] = 0, False

    _edit_manifest(run_copy, zero)
    line = one_error_line(invoke("run", "--resume", str(run_copy), "-q"))
    assert "field 'chunk_size' must be a whole number >= 1" in line


def test_a_fifo_for_a_manifest_is_refused_not_waited_on(tmp_path: Path) -> None:
    import os

    run = tmp_path / "run"
    run.mkdir()
    os.mkfifo(run / io.MANIFEST_NAME)
    refused(run, tmp_path, "not a regular file")
    assert "not a regular file" in one_error_line(invoke("run", "--resume", str(run), "-q"))


def test_a_symlink_loop_as_a_run_folder_is_one_line(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(Error):
        A.load(loop)
    one_error_line(invoke("report", str(loop), "--out", str(tmp_path / "rep")))
    one_error_line(invoke("run", "--resume", str(loop), "-q"))


def test_a_run_folder_cannot_be_written_into(runs: dict[str, Path], tmp_path: Path) -> None:
    """`run --out <finished run>/sub` would make the finished run unreadable."""
    finished = tmp_path / "done"
    shutil.copytree(runs["aegean"], finished)
    line = one_error_line(invoke("run", "--games", "10", "--out", str(finished / "sub"), "-q"))
    assert "is inside the run folder" in line
    assert not (finished / "sub").exists()
    A.load(finished)
