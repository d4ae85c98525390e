"""The job runner (sim.run.jobs): a long command's plan, lock, log, checksums and resume.

Every long command that writes a folder (compare, sweep, balance, tournament) keeps its
state through one Job; these tests hold the folder's promises without playing a game.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tamper import resign_job

from sim import Error
from sim.run import io, jobs
from sim.run.session import RunError

PLAN = {"spec": {"games": 400, "seed": 3, "variants": ["emissary"]}, "field": "cost"}


def started(out: Path) -> jobs.Job:
    return jobs.Job.start(out, "sweep", PLAN, key={"digest": "k"})


def finished(out: Path) -> Path:
    with started(out) as job:
        job.log(0, {"row": {"card": "a", "shift": 0.25}})
        job.log(1, {"row": {"card": "b", "shift": -0.5}})
        (out / "sweep.csv").write_text("card,shift\na,0.25\nb,-0.5\n")
        (out / "baseline").mkdir()
        (out / "baseline" / io.MANIFEST_NAME).write_text("{}")
        job.finish()
    return out


def test_the_plan_is_signed_and_the_log_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "job"
    with started(out) as job:
        assert job.log(0, {"row": {"x": 1}}) == {"row": {"x": 1}}
        assert job.append({"row": {"x": 2}}) == {"row": {"x": 2}}
    doc = jobs.read_job(out)
    assert doc["plan"] == PLAN and doc["complete"] is False and doc["kind"] == "sweep"
    with jobs.Job.resume(out, "sweep") as job:
        assert job.logged() == {0: {"row": {"x": 1}}, 1: {"row": {"x": 2}}}
        assert job.plan == PLAN


def test_a_second_writer_is_refused_while_the_folder_is_held(tmp_path: Path) -> None:
    out = tmp_path / "job"
    with started(out):
        with pytest.raises(RunError, match="is being written by"):
            jobs.Job.resume(out, "sweep")
        with pytest.raises(RunError, match="being written"):
            jobs.Job.start(out, "sweep", PLAN, force=True)
    jobs.Job.resume(out, "sweep").close()  # released: a resume may hold it now


def test_the_lock_is_held_against_another_process(tmp_path: Path) -> None:
    out = tmp_path / "job"
    code = textwrap.dedent(
        f"""
        import time
        from sim.run import jobs
        with jobs.Job.start({str(out)!r}, "tournament", {{}}):
            print("held", flush=True)
            time.sleep(30)
        """
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"held"
        with pytest.raises(RunError, match=f"process {proc.pid}"):
            jobs.Job.resume(out, "tournament")
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while True:  # the kernel drops the lock with the process
        try:
            jobs.Job.resume(out, "tournament").close()
            break
        except RunError:
            assert time.monotonic() < deadline
            time.sleep(0.05)


def test_a_line_cut_by_a_kill_is_skipped_and_an_edited_one_refused(tmp_path: Path) -> None:
    out = tmp_path / "job"
    with started(out) as job:
        job.log(0, {"row": {"x": 1}})
        job.log(1, {"row": {"x": 2}})
    log = out / jobs.LOG_NAME
    whole = log.read_text()
    log.write_text(whole + whole.splitlines()[0][:25])  # a third line, cut short
    with jobs.Job.resume(out, "sweep") as job:
        assert sorted(job.logged()) == [0, 1]
    log.write_text(whole.replace('"x": 2', '"x": 3'))
    with pytest.raises(RunError, match="line 2 was edited or damaged"):
        jobs.Job.resume(out, "sweep")
    log.write_text(whole + whole.splitlines()[0] + "\n")
    with pytest.raises(RunError, match="line 3 repeats step 0"):
        jobs.Job.resume(out, "sweep")
    log.write_text("not json\n" + whole)
    with pytest.raises(RunError, match="line 1 was edited or damaged"):
        jobs.Job.resume(out, "sweep")


@pytest.mark.parametrize(
    ("edit", "text"),
    [
        (lambda doc: doc["plan"]["spec"].update(games=500), "was edited or damaged"),
        (lambda doc: doc.pop(jobs.DIGEST_KEY), "was edited or damaged"),
        (lambda doc: doc.update(kind="balance"), "was edited or damaged"),
    ],
)
def test_an_edited_plan_is_refused_by_resume(tmp_path: Path, edit, text: str) -> None:
    out = tmp_path / "job"
    started(out).close()
    path = out / jobs.JOB_NAME
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(RunError, match=text):
        jobs.Job.resume(out, "sweep")


def test_resume_names_what_it_cannot_resume(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="holds no sweep run"):
        jobs.Job.resume(tmp_path, "sweep")
    with pytest.raises(RunError, match="holds no comparison"):
        jobs.Job.resume(tmp_path, "compare")
    out = finished(tmp_path / "done")
    with pytest.raises(RunError, match="already complete"):
        jobs.Job.resume(out, "sweep")
    other = tmp_path / "other"
    started(other).close()
    with pytest.raises(RunError, match="holds a sweep, not a balance"):
        jobs.Job.resume(other, "balance")


def test_a_finished_folder_verifies_and_every_edit_is_named(tmp_path: Path) -> None:
    out = finished(tmp_path / "done")
    doc = jobs.verify(out, "sweep")
    assert sorted(doc["files"]) == [jobs.LOG_NAME, f"baseline/{io.MANIFEST_NAME}", "sweep.csv"]
    (out / "sweep.csv").write_text("card,shift\na,0.99\nb,-0.5\n")
    with pytest.raises(jobs.JobReadError, match=r"sweep\.csv was edited, damaged or replaced"):
        jobs.verify(out)


@pytest.mark.parametrize(
    ("damage", "text"),
    [
        (lambda out: (out / "sweep.csv").unlink(), "sweep.csv is listed in _job.json but missing"),
        (lambda out: (out / "stray.csv").write_text("x"), "stray.csv is not listed"),
        (
            lambda out: (out / "baseline" / io.MANIFEST_NAME).write_text('{"x": 1}'),
            "baseline/_manifest.json was edited",
        ),
        (lambda out: (out / jobs.LOG_NAME).write_text(""), "_job.jsonl was edited"),
        (lambda out: resign_job(out, lambda d: d.update(complete=False)), "unfinished sweep"),
    ],
)
def test_verify_refuses(tmp_path: Path, damage, text: str) -> None:
    out = finished(tmp_path / "done")
    damage(out)
    with pytest.raises(jobs.JobReadError, match=text):
        jobs.verify(out)
    with pytest.raises(Error):  # the project's one error type, never a builtin
        jobs.verify(out)


def test_force_replaces_an_earlier_job_and_keeps_nothing_of_it(tmp_path: Path) -> None:
    out = finished(tmp_path / "done")
    with pytest.raises(RunError, match="already exists and is not empty"):
        jobs.Job.start(out, "sweep", PLAN, ours=("sweep.csv", "baseline"))
    with jobs.Job.start(out, "sweep", PLAN, force=True, ours=("sweep.csv", "baseline")) as job:
        assert job.logged() == {}
    assert sorted(p.name for p in out.iterdir()) == [jobs.JOB_NAME]


def test_a_job_without_a_key_records_the_first_and_refuses_another(tmp_path: Path) -> None:
    """A command killed before it built its engine recorded no run key: the resume's is kept."""
    jobs.Job.start(tmp_path / "j", "sweep", PLAN).close()
    with jobs.Job.resume(tmp_path / "j", "sweep") as job:
        assert job.keyed({"digest": "k"}) is job
    with jobs.Job.resume(tmp_path / "j", "sweep") as job:
        job.keyed({"digest": "k"})
        with pytest.raises(RunError, match="cannot resume"):
            job.keyed({"digest": "other", "version": "0"})


def test_a_job_without_out_plays_in_a_temporary_folder_removed_after(tmp_path: Path) -> None:
    with jobs.folder(None, "sweep") as where, jobs.Job.start(where, "sweep", PLAN) as job:
        assert job.out.is_dir()
    assert not job.out.exists() and not job.out.parent.exists()
    with jobs.folder(tmp_path / "kept", "sweep") as where:
        assert where == tmp_path / "kept"
    with pytest.raises(RunError, match="holds no finished sweep"):
        jobs.read_finished(tmp_path, "sweep")


def test_options_given_with_resume_must_equal_the_recorded_plan() -> None:
    where = {
        **{name: jobs.at(f"spec.{name}") for name in ("games", "seed", "variants")},
        "field": jobs.at("field", str.lower),
        "deltas": jobs.at("deltas", lambda text: [int(d) for d in text.split(",")]),
    }
    plan = {**PLAN, "deltas": [-1, 1]}
    assert jobs.given_options(PLAN, {"games": 400, "seed": 3}, where) is None
    assert jobs.given_options(PLAN, {"variants": ("emissary",)}, where) is None
    assert jobs.given_options(PLAN, {"field": "COST"}, where) is None  # as the plan writes it
    line = jobs.given_options(PLAN, {"games": 500}, where)
    assert line is not None and "drop --games (the folder's plan has 400)" in line
    # Not in the plan: refused (the resume would ignore it), without a recorded value.
    line = jobs.given_options(PLAN, {"chunk_size": 10}, where)
    assert line is not None and line.endswith("drop --chunk-size")
    # Named as the command line spells it; a value the command would refuse differs.
    assert jobs.given_options(plan, {"deltas": "-1,+1"}, where) is None
    line = jobs.given_options(plan, {"deltas": "x"}, where, {"deltas": "--delta"})
    assert line is not None and "drop --delta (the folder's plan has [-1, 1])" in line


def test_an_option_recorded_only_through_what_it_gave_is_compared_by_that() -> None:
    """balance records --values only as the candidates they gave: the same candidates again
    are the plan, whatever the spelling; others, or a value the command refuses, are not."""
    plan = {"candidates": [3, 4]}

    def same(p: dict, values: tuple) -> bool:
        if any(not isinstance(v, int) for v in values):
            raise ValueError("not a number")  # as the command's own reading refuses it
        return sorted(values) == p["candidates"]

    where = {"values": jobs.Recorded(lambda p: p["candidates"], same=same)}
    assert jobs.given_options(plan, {"values": (4, 3)}, where) is None
    for other in ((3, 5), ("x",)):
        line = jobs.given_options(plan, {"values": other}, where)
        assert line is not None and line.endswith("drop --values (the folder's plan has [3, 4])")


def test_a_job_refused_before_its_first_step_leaves_nothing(tmp_path: Path) -> None:
    """A user's error before the first step is logged leaves nothing a resume could use: the
    folder the job made goes, and one it was given empty is left empty. An interrupt, or an
    error once a step is logged, keeps the folder for --resume."""
    new, given = tmp_path / "new", tmp_path / "given"
    given.mkdir()
    for out in (new, given):
        with (
            pytest.raises(RunError, match="cannot make a game"),
            jobs.Job.start(out, "sweep", PLAN, ours=("baseline",)),
        ):
            (out / "baseline").mkdir()  # what the command wrote before it was refused
            raise RunError("cannot make a game")
    assert not new.exists() and list(given.iterdir()) == []
    cut, late = tmp_path / "cut", tmp_path / "late"
    with pytest.raises(KeyboardInterrupt), started(cut):
        raise KeyboardInterrupt
    with pytest.raises(RunError), started(late) as job:
        job.log(0, {"row": {"x": 1}})
        raise RunError("refused after a step")
    for out in (cut, late):
        assert jobs.read_job(out)["complete"] is False
    with jobs.Job.resume(late, "sweep") as job:
        assert job.logged() == {0: {"row": {"x": 1}}}


def test_readers_never_open_a_fifo_a_symlink_loop_or_json_nested_too_deep(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(io.RunReadError, match="not a regular file"):
        io.read_json_file(fifo)  # would block for ever if opened
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(io.RunReadError, match="cannot read"):
        io.read_json_file(loop)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(io.RunReadError, match="nested too deep"):
        io.read_json_file(deep)
    run = tmp_path / "run"
    run.mkdir()
    os.mkfifo(run / io.MANIFEST_NAME)
    with pytest.raises(io.RunReadError, match="not a regular file"):
        io.read_manifest(run)
