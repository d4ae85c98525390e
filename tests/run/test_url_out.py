"""`--out` as an fsspec URL: the run folder, its log, lock and checks go through fsspec."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from sim.cli import main
from sim.data.spec import RunSpec
from sim.run import backends, io, ledger, runner, storage
from sim.run.lock import LOCK_NAME

SPEC = RunSpec(games=400, seed=6)
NO_URL = "takes only a local folder here, not a URL"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("local") / "run"
    runner.run(SPEC, out, chunk_size=128, progress=False)
    return io.read_run(out)


@pytest.fixture
def url(request: pytest.FixtureRequest) -> str:
    u = f"memory://omensim-tests/{request.node.name}"
    yield u
    storage.location(u).rmtree()


def test_a_run_written_to_a_memory_url_reads_back_the_same_rows(
    url: str, local: pd.DataFrame
) -> None:
    result = runner.run(SPEC, url, chunk_size=90, progress=False)
    assert result.games == SPEC.games and result.parts == 5 and str(result.out) == url
    loc = storage.location(url)
    assert isinstance(loc, storage.UrlPath)
    names = sorted(e.name for e in loc.iterdir())
    # No log entries and no lock left; the manifest lists every part.
    assert names == ["_cards.parquet", "_manifest.json", *(io.part_name(i) for i in range(5))]
    manifest = io.verify_run(url)
    assert manifest["complete"] and [p["first_game"] for p in manifest["parts"]] == [
        0, 90, 180, 270, 360,
    ]  # fmt: skip
    pd.testing.assert_frame_equal(io.read_run(url), local)


def test_an_interrupted_run_at_a_url_resumes(
    url: str, local: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    real, calls = backends.count_outcomes, []

    def flaky(table):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(table)

    monkeypatch.setattr(backends, "count_outcomes", flaky)
    with pytest.raises(KeyboardInterrupt):
        runner.run(SPEC, url, chunk_size=50, progress=False)
    monkeypatch.setattr(backends, "count_outcomes", real)
    manifest = io.read_manifest(url)
    assert manifest["complete"] is False
    assert len(ledger.completed_parts(storage.location(url), manifest)) == 3
    # A writer killed outright leaves its per-part log files; they count on resume.
    entry = manifest["parts"][-1]
    manifest["parts"] = manifest["parts"][:-1]
    extra = {k: v for k, v in manifest.items() if k not in ("parts", "games", "metadata")}
    io.write_manifest(url, manifest["metadata"], manifest["parts"], 100, False, extra=extra)
    log = storage.location(url) / ledger.url_log_name(entry["file"])
    log.write_text(ledger.log_line(entry) + "\n")
    assert set(ledger.completed_parts(storage.location(url), io.read_manifest(url))) == {0, 1, 2}

    result = runner.resume(url, progress=False)
    assert result.games == SPEC.games
    pd.testing.assert_frame_equal(io.read_run(url), local)
    assert not storage.location(url).glob(f"{io.URL_LOG_PREFIX}*")


def test_a_url_folder_is_checked_like_a_local_one(url: str) -> None:
    runner.run(RunSpec(games=20, seed=1), url, chunk_size=10, progress=False)
    with pytest.raises(runner.RunError, match="not empty"):
        runner.run(RunSpec(games=20, seed=1), url, progress=False)
    # A stray file is named by verify_run, and --force refuses to delete it.
    (storage.location(url) / "notes.txt").write_text("mine")
    with pytest.raises(io.RunReadError, match=r"notes\.txt"):
        io.verify_run(url)
    with pytest.raises(runner.RunError, match="did not write"):
        runner.run(RunSpec(games=20, seed=1), url, progress=False, force=True)
    (storage.location(url) / "notes.txt").unlink()
    runner.run(RunSpec(games=30, seed=2), url, chunk_size=7, progress=False, force=True)
    assert io.read_manifest(url)["games"] == 30 and len(io.list_parts(url)) == 5


def test_a_live_writer_s_lock_file_refuses_a_second_writer(url: str) -> None:
    import os
    import socket

    loc = storage.location(url)
    loc.mkdir()
    (loc / LOCK_NAME).write_text(f"{socket.gethostname()}:{os.getppid()}\n")  # alive
    with pytest.raises(runner.RunError, match=f"process {os.getppid()}"):
        runner.run(RunSpec(games=10, seed=1), url, progress=False)
    (loc / LOCK_NAME).write_text(f"{socket.gethostname()}:999999999\n")  # gone: stale
    runner.run(RunSpec(games=10, seed=1), url, progress=False)
    assert not (loc / LOCK_NAME).exists()


def test_cli_run_writes_to_a_url_and_resume_takes_one(url: str, local: pd.DataFrame) -> None:
    r = invoke("run", "--games", "400", "--seed", "6", "--out", url, "--chunk-size", "64", "-q")
    assert r.exit_code == 0, r.output
    pd.testing.assert_frame_equal(io.read_run(url), local)
    r = invoke("run", "--resume", url, "-q")
    assert r.exit_code == 1 and "already complete" in r.output


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["run", "--until-ci", "0.05"], "--until-ci needs a local --out"),
        (["run", "--panel", "greedy,random"], "--panel writes only to a local --out"),
        (["compare", "--change", "Ker of the Spoils.cost=+1"], NO_URL),
        (["sweep", "--card", "0"], NO_URL),
        (["tournament"], NO_URL),
    ],
)
def test_commands_that_cannot_write_a_url_refuse_it_in_one_line(args: list[str], text: str) -> None:
    r = invoke(*args, "--games", "10", "--out", "memory://omensim-tests/refused")
    assert r.exit_code != 0 and text in r.output, r.output
    assert len(r.output.strip().splitlines()) == 1
    assert not storage.location("memory://omensim-tests/refused").exists()


def test_report_refuses_a_url_run_in_one_line() -> None:
    r = invoke("report", "memory://omensim-tests/a-run", "--out", "somewhere")
    assert r.exit_code == 2 and NO_URL in r.output and len(r.output.strip().splitlines()) == 1


def test_file_urls_are_local_paths(tmp_path: Path) -> None:
    assert storage.location(f"file://{tmp_path}") == tmp_path
