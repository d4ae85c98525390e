"""One folder per long command: its plan, its lock, its log, its checksums, its resume.

Every long command that writes a folder (``compare``, ``sweep``, ``balance``,
``tournament``) keeps its state the same way, through a :class:`Job`::

    OUT/_job.json     what the command is (its kind, its plan: every option that decides
                      the answer, and the run key of the code), whether it finished and,
                      once it has, the SHA-256 of every file in the folder; signed
                      (``job_sha256`` over every other field), written atomically
    OUT/_job.jsonl    one line per finished step (a cell, a pairing, a look), each
                      with the SHA-256 of its own entry; appended and fsynced
    OUT/.omensim.lock held (:mod:`sim.run.lock`) by the one process writing the folder
    OUT/steps/G/*.parquet the rows of each step of G (a run the command plays a step at a
                      time, deciding look by look when to stop): written once, logged with
                      its checksum, read back on resume so the looks fall where they fell
                      (:meth:`Job.table`)

A run directory inside the folder (``compare``'s ``A``/``B``, ``sweep``'s
``baseline``) keeps its own manifest, which records its parts' checksums; the job
records that manifest's checksum, so a run replaced by another is named too.

:func:`verify` is the one check every reader of such a folder makes (``report``,
``read_sweep``, ``read_tournament``): the manifest's own checksum, that it finished,
every listed file's checksum, and no file that is not listed. :meth:`Job.resume`
refuses a folder whose manifest or log was edited, one already finished, and one
whose run key differs from the code's; :meth:`Job.logged` refuses a log line whose
checksum fails (a line the kill cut short, the last and without its newline, is
the only one skipped).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sim.base.errors import Error
from sim.run import io, loglines
from sim.run.lock import LOCK_NAME, FolderLockedError, locked
from sim.run.loglines import digest, entry_line, read_log
from sim.run.session import RunError

JOB_NAME = io.JOB_MANIFEST_NAME
LOG_NAME = "_job.jsonl"
JOB_FORMAT = "omensim-job"
JOB_VERSION = 1
DIGEST_KEY = "job_sha256"
STEPS = "steps"
JOB_FILES = (JOB_NAME, LOG_NAME, STEPS)
NOUNS = {"compare": "comparison", "mixes": "mixes ranking"}
"""How a refusal names a job of a kind ("no comparison"), where not "<kind> run"."""


class JobReadError(io.RunReadError):
    """A job folder whose files are not the ones its manifest records; one line."""


def _signed(doc: Mapping[str, Any]) -> dict[str, Any]:
    body = json.loads(json.dumps({k: v for k, v in doc.items() if k != DIGEST_KEY}))
    return {**body, DIGEST_KEY: digest(body)}


def read_job(out: Path) -> dict[str, Any]:
    """The folder's verified ``_job.json`` (its own checksum and shape checked).

    Raises:
        FileNotFoundError: no ``_job.json``. JobReadError: edited, damaged or not a job.
    """
    path = Path(out) / JOB_NAME
    doc = io.read_json_file(path)
    if not isinstance(doc, dict) or doc.get("format") != JOB_FORMAT:
        raise JobReadError(f"{path} is not an omensim job manifest")
    if doc.get(DIGEST_KEY) != digest({k: v for k, v in doc.items() if k != DIGEST_KEY}):
        raise JobReadError(f"{path} was edited or damaged: its {DIGEST_KEY} does not match")
    shape = {"kind": str, "plan": dict, "complete": bool, "files": dict}
    for key, kind in shape.items():
        if key in doc and not isinstance(doc[key], kind):
            raise JobReadError(f"{path}: field {key!r} has the wrong type")
    return doc


def _walk(out: Path) -> Iterator[Path]:
    """Every file a job folder holds, in name order; a run directory inside it is its
    manifest alone (the manifest records its parts' checksums)."""
    for entry in sorted(out.iterdir()):
        name = entry.name
        if name in (JOB_NAME, LOCK_NAME) or (name.startswith(".") and ".tmp" in name):
            continue
        if entry.is_symlink():
            yield entry  # listed, never followed: verify refuses it as not a regular file
        elif entry.is_dir():
            if (entry / io.MANIFEST_NAME).exists():
                yield entry / io.MANIFEST_NAME
            else:
                yield from _walk(entry)
        else:
            yield entry


def folder_digests(out: Path) -> dict[str, str]:
    """``{relative path: SHA-256}`` of every file :func:`_walk` finds in ``out``."""
    return {p.relative_to(out).as_posix(): io.file_digest(p) for p in _walk(out)}


def verify(out: Path | str, kind: str | None = None) -> dict[str, Any]:
    """Check a finished job folder against its manifest; return the manifest.

    Raises:
        FileNotFoundError: no ``_job.json``. JobReadError: not finished, of another
        kind, a file edited, missing, replaced or not listed (the first found, one line).
    """
    out = Path(out)
    doc = read_job(out)
    if kind is not None and doc.get("kind") != kind:
        raise JobReadError(f"{out} holds a {doc.get('kind')} folder, not a {kind}")
    if not doc.get("complete"):
        raise JobReadError(
            f"{out} holds an unfinished {doc.get('kind')}; finish it with --resume {out}"
        )
    files = doc.get("files", {})
    for rel, recorded in files.items():
        path = out / rel
        if not io.is_regular(path):
            raise JobReadError(f"{out}: {rel} is listed in {JOB_NAME} but missing")
        if io.file_digest(path) != recorded:
            raise JobReadError(
                f"{path} was edited, damaged or replaced: its SHA-256 is not the one "
                f"{JOB_NAME} records"
            )
    for path in _walk(out):
        rel = path.relative_to(out).as_posix()
        if rel not in files:
            raise JobReadError(f"{out}: {rel} is not listed in {JOB_NAME} (copied in?); remove it")
    return doc


def read_finished(out: Path | str, kind: str) -> dict[str, Any]:
    """:func:`verify` a finished job folder of ``kind``; no manifest is a one-line RunError."""
    try:
        return verify(out, kind)
    except FileNotFoundError:
        raise RunError(f"{out} holds no finished {NOUNS.get(kind, kind)} ({JOB_NAME})") from None


def check_out(
    out: Path | str, kind: str, force: bool, ours: Sequence[str] = (), held: bool = False
) -> Path:
    """Refuse ``out`` for a new job of ``kind`` (:func:`sim.run.io.check_output_dir`; ``ours``
    as for :meth:`Job.start`) before anything is played; return it as a local path."""
    out = io.local_out(out)
    names = {*ours, *JOB_FILES}
    what = NOUNS.get(kind, kind)
    io.check_output_dir(out, force, ours=lambda e: e.name in names, what=what, held=held)
    return out


@contextlib.contextmanager
def folder(out: Path | str | None, kind: str) -> Iterator[Path | str]:
    """``out``, or when it is ``None`` a temporary folder removed on exit: every long command
    plays into a folder, so it has one code path."""
    if out is not None:
        yield out
        return
    with tempfile.TemporaryDirectory(prefix=f"omensim-{kind}-") as tmp:
        yield Path(tmp) / kind


def is_job(out: Path | str) -> bool:
    """Whether ``out`` is a folder with a job manifest (finished or not, verified or not)."""
    return io.is_regular(Path(out) / JOB_NAME)


class Job:
    """A long command's folder, held (locked) from :meth:`start` or :meth:`resume` to
    :meth:`close`; use it as a context manager."""

    def __init__(self, out: Path, kind: str, doc: dict[str, Any]) -> None:
        """Use :meth:`start` or :meth:`resume`."""
        self.out, self.kind, self.doc = out, kind, doc
        self._stack = contextlib.ExitStack()
        self._next: int | None = None
        self._tables: dict[str, str] | None = None
        self._undo: tuple[bool, frozenset[str]] | None = None
        """Set by :meth:`start`: whether it made the folder, and the names it may clear."""

    @property
    def plan(self) -> dict[str, Any]:
        """The options the command was started with (what decides its answer)."""
        return self.doc["plan"]

    @classmethod
    def start(
        cls,
        out: Path | str,
        kind: str,
        plan: Mapping[str, Any],
        *,
        force: bool = False,
        ours: Sequence[str] = (),
        key: Mapping[str, str] | None = None,
    ) -> Job:
        """Make ``out`` this job's folder: check it, lock it, clear an earlier one (``force``),
        write the plan. ``ours``: the names the command writes there besides the job's own."""
        out = check_out(out, kind, force, ours)
        names = {*ours, *JOB_FILES}
        made = not out.exists()
        out.mkdir(parents=True, exist_ok=True)
        job = cls(out, kind, {})
        job._lock()
        job._undo = (made, frozenset(names))
        try:
            if force:
                check_out(out, kind, force, ours, held=True)
                for entry in out.iterdir():
                    if entry.name in names:
                        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
            job.doc = {
                "format": JOB_FORMAT,
                "format_version": JOB_VERSION,
                "kind": kind,
                "complete": False,
                "plan": dict(plan),
                "started": datetime.now(UTC).isoformat(timespec="seconds"),
            }
            if key is not None:
                job.doc["key"] = dict(key)
            job._write()
        except BaseException:
            job.close()
            raise
        return job

    @classmethod
    def resume(cls, out: Path | str, kind: str) -> Job:
        """Hold the unfinished job in ``out`` again, its manifest and log verified.

        Raises:
            RunError: no job of this kind in ``out``, a finished one, or files edited.
        """
        out = io.local_out(out)
        try:
            doc = read_job(out)
        except FileNotFoundError:
            noun = NOUNS.get(kind, f"{kind} run")
            raise RunError(f"cannot resume {out}: it holds no {noun} ({JOB_NAME})") from None
        except JobReadError as exc:
            raise RunError(f"cannot resume {out}: {exc}") from None
        if doc.get("kind") != kind:
            raise RunError(f"cannot resume {out}: it holds a {doc.get('kind')}, not a {kind}")
        if doc.get("complete"):
            raise RunError(f"{out} is already complete; nothing to resume")
        job = cls(out, kind, doc)
        job._lock()
        try:
            job._check_tables()  # a log or a kept step edited since is refused before play
        except loglines.LogLineError as exc:
            job.close()
            raise RunError(f"cannot resume {out}: {exc}") from None
        except BaseException:
            job.close()
            raise
        return job

    def _check_tables(self) -> None:
        """Refuse a step table the log names that is missing or edited, unless its group
        was dropped (:meth:`drop_tables`): a resume may never read it again, yet the
        finished folder would carry it as fact."""
        entries = self.logged().values()
        dropped = {f"{STEPS}/{e['dropped']}/" for e in entries if "dropped" in e}
        for e in entries:
            rel = e.get("file")
            if rel is None or rel.startswith(tuple(dropped)):
                continue  # not a kept table, or dropped
            self._check_step(rel, e["sha256"])

    def _check_step(self, rel: str, recorded: str) -> Path:
        """The path of logged step table ``rel``, refused unless its SHA-256 is ``recorded``."""
        path = self.out / rel
        if not io.is_regular(path) or io.file_digest(path) != recorded:
            raise RunError(
                f"cannot resume {self.out}: {rel} is missing, edited or damaged (its "
                f"SHA-256 is not the one {LOG_NAME} records)"
            )
        return path

    def check_key(self, key: Mapping[str, str]) -> None:
        """Refuse to resume a job whose run key (code, cards, spec) differs from ``key``."""
        from sim.run import ledger  # deferred: ledger imports the kernel's digest lazily too

        reason = ledger.key_mismatch(self.doc.get("key"), key)
        if reason is not None:
            raise RunError(f"cannot resume {self.out}: {reason}")

    def set_key(self, key: Mapping[str, str]) -> None:
        """Record the run key once the command has built its first engine."""
        self.doc["key"] = dict(key)
        self._write()

    def keyed(self, key: Mapping[str, str]) -> Job:
        """This job, after :meth:`check_key` if it recorded its run key, else :meth:`set_key`
        (it stopped before it built its first engine)."""
        if "key" in self.doc:
            self.check_key(key)
        else:
            self.set_key(key)
        return self

    def _lock(self) -> None:
        try:
            self._stack.enter_context(locked(self.out))
        except FolderLockedError as exc:
            raise RunError(str(exc)) from None

    def _write(self) -> None:
        self.doc = _signed(self.doc)
        io.write_json_atomic(self.out / JOB_NAME, self.doc)

    def logged(self) -> dict[int, dict[str, Any]]:
        """The finished steps in the log, by index (verified; see :func:`read_log`)."""
        done = read_log(self.out / LOG_NAME)
        self._next = max(done, default=-1) + 1
        return done

    def append(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        """:meth:`log` under the next index after every one logged (for steps that are
        not numbered in advance, such as a race's rows files)."""
        if self._next is None:
            self.logged()
        index = self._next
        self._next = index + 1
        return self.log(index, entry)

    def log(self, index: int, entry: Mapping[str, Any]) -> dict[str, Any]:
        """Append a finished step durably; return the entry as a reader will get it back."""
        line = entry_line(index, entry)
        path = self.out / LOG_NAME
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        return json.loads(line)["entry"]

    def table(self, group: str, name: str, make: Callable[[], pa.Table]) -> pa.Table:
        """The step table ``steps/group/name.parquet`` (:meth:`kept`)."""
        return self.kept(f"{STEPS}/{group}/{name}.parquet", make)

    def kept(self, rel: str, make: Callable[[], pa.Table]) -> pa.Table:
        """The Parquet table ``rel`` of the folder: read back (its checksum checked against
        the log) when it is logged, else ``make()`` written atomically and logged. A file
        that is there but not logged (killed between the two) is made again.

        Raises:
            RunError: the file of a logged step is missing, edited or damaged.
        """
        path = self.out / rel
        if self._tables is None:
            self._tables = {e["file"]: e["sha256"] for e in self.logged().values() if "file" in e}
        recorded = self._tables.get(rel)
        if recorded is not None:
            return pq.read_table(self._check_step(rel, recorded))
        table = make()
        path.parent.mkdir(parents=True, exist_ok=True)
        with io.atomic_path(path) as tmp:
            io.write_parquet(table, tmp)
        self._tables[rel] = io.file_digest(path)
        self.append({"file": rel, "sha256": self._tables[rel]})
        return table

    def drop_tables(self, group: str) -> None:
        """Delete the step tables of ``group`` once what they decided is logged (the log
        says so first, so a resume does not look for them)."""
        if (self.out / STEPS / group).exists():
            self.append({"dropped": group})
            shutil.rmtree(self.out / STEPS / group)
            with contextlib.suppress(OSError):  # the last group goes with its folder
                (self.out / STEPS).rmdir()

    def finish(self, extra: Mapping[str, Any] | None = None) -> None:
        """Record every file's checksum and mark the job finished (the last write)."""
        self.doc = {**self.doc, **(extra or {}), "complete": True}
        self.doc["files"] = folder_digests(self.out)
        self.doc["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
        self._write()

    def close(self) -> None:
        """Release the folder's lock."""
        self._stack.close()

    def __enter__(self) -> Job:
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        # A command refused (a user's error) before it logged its first step has nothing a
        # resume could use: the folder it started goes, so no refusal leaves a plan behind.
        # An interrupt keeps it (resumable), as does a refusal once a step is logged.
        if isinstance(exc, Error) and self._undo is not None and not self._stepped():
            self._clear(*self._undo)
        self.close()

    def _stepped(self) -> bool:
        """Whether the log holds a step."""
        try:
            return (self.out / LOG_NAME).stat().st_size > 0
        except OSError:
            return False

    def _clear(self, made: bool, names: frozenset[str]) -> None:
        """Remove what :meth:`start` and the command wrote (the folder too, if it made it)."""
        if made:
            shutil.rmtree(self.out, ignore_errors=True)
            return
        for entry in list(self.out.iterdir()):
            if entry.name in names:
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def _as_given(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Recorded:
    """Where a command's plan records one of its options, for :func:`given_options`.

    ``read`` takes the value from the plan (a missing key, or a plan of another shape, is
    :data:`MISSING`); ``written`` turns the option's value as the command line gives it into
    the plan's form (the same conversion the command makes before it records the option).
    Both sides are then compared as JSON would hold them (a tuple is a list).
    """

    read: Callable[[Mapping[str, Any]], Any]
    written: Callable[[Any], Any] = _as_given
    same: Callable[[Mapping[str, Any], Any], bool] | None = None
    """For an option the plan records only through what it produced (balance's ``--values``,
    as the candidates they gave), or one read through a normal form (``--mix``): whether
    the typed value gives the plan's (it is then compared this way instead; ``read`` only
    shows the plan's side in a refusal)."""


def at(path: str, written: Callable[[Any], Any] | None = None) -> Recorded:
    """:class:`Recorded` at the dotted ``path`` of the plan (``"spec.games"``), the option's
    value turned into the plan's form by ``written`` (default: as it is)."""

    def read(plan: Mapping[str, Any]) -> Any:
        value: Any = plan
        for key in path.split("."):
            if not isinstance(value, Mapping) or key not in value:
                return MISSING
            value = value[key]
        return value

    return Recorded(read, written or _as_given)


def given_options(
    recorded: Mapping[str, Any],
    given: Mapping[str, Any],
    where: Mapping[str, Recorded],
    names: Mapping[str, str] | None = None,
) -> str | None:
    """The first option given with ``--resume`` that differs from the recorded plan, as a
    refusal; ``None`` when every one equals it.

    ``given``: option name -> value, only those the user typed. ``where``: where the plan
    records each option (an option it does not record, which the resume would ignore, is
    refused). ``names``: each option as the command line spells it (``deltas`` is
    ``--delta``); by default ``--`` and the name with dashes.
    """
    for name, value in given.items():
        place = where.get(name)
        was = MISSING if place is None else place.read(recorded)
        if place is not None and was is not MISSING and _equal(place, recorded, was, value):
            continue
        shown = "" if was is MISSING else f" (the folder's plan has {was!r})"
        option = (names or {}).get(name) or "--" + name.replace("_", "-")
        return f"--resume continues the plan recorded in the folder; drop {option}{shown}"
    return None


MISSING: Any = object()
"""What :meth:`Recorded.read` gives for an option the plan does not record."""


def _equal(place: Recorded, plan: Mapping[str, Any], was: Any, value: Any) -> bool:
    """Whether the typed ``value`` is what the plan recorded (``was``, read from ``plan``)."""
    if place.same is None:
        return bool(_plain(was) == _written(place, value))
    try:
        return place.same(plan, value)
    except ValueError:  # a value the command would refuse is not the plan's
        return False


def _written(place: Recorded, value: Any) -> Any:
    """``value`` as the plan would hold it; a value the command would refuse is none."""
    try:
        return _plain(place.written(value))
    except ValueError:
        return MISSING


def _plain(v: Any) -> Any:
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    return v
