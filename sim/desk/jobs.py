"""Worker processes: each question runs as the ``omensim`` command line, one at a time.

A job is a subprocess in its own process group (so a cancel, or the desk shutting
down, ends it and everything it started), its working folder the workspace, its
output the answer folder the command writes. Its record, ``answers/NAME.json``, says
what was asked, the exact command, its state, and at the end what the command
printed; the records and folders are the whole state, so a page reloaded or a desk
started again finds every answer. Progress is read from what the command itself
shows: the Parquet parts it has written (:mod:`sim.desk.answers`) and the last line
of its progress bar.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sim.desk import answers as A
from sim.desk import questions as Q
from sim.desk.workspace import ANSWERS, Workspace

ENDED = ("done", "failed", "cancelled", "interrupted")
"""The states a job does not leave."""

GRACE_S = 5.0
"""Seconds a cancelled command gets to stop on Ctrl-C (SIGINT) before it is killed."""

PILOT_GAMES = 2_000
"""Games a pilot plays to measure a bot's speed, as ``compare --plan``'s pilot does."""

PILOT_PREFIX = ".pilot-"
"""The hidden folders of the workspace pilots play into (removed after each)."""

TAIL = 4_000
"""Characters of a command's stderr a record keeps (its last lines name the error)."""


def _die_with_parent() -> Any:
    """On Linux, a function for ``preexec_fn`` that asks the kernel to end the command when
    the thread that started it dies: the desk stops its commands when it is stopped
    cleanly, and this covers a desk that is killed outright. None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before any fork
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1
    return lambda: prctl(pr_set_pdeathsig, signal.SIGTERM)


DIE_WITH_PARENT = _die_with_parent()


def shown(args: list[str]) -> str:
    """The command a person types to get the same answer: ``omensim`` and ``args``."""
    return shlex.join(["omensim", *args])


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Jobs:
    """Every answer of a workspace, and the one worker that plays the queued ones."""

    def __init__(self, ws: Workspace, python: str = sys.executable) -> None:
        self.ws = ws
        self.python = python
        self._lock = threading.Lock()
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._proc: subprocess.Popen[str] | None = None
        self._live: set[subprocess.Popen[str]] = set()  # every command running, plans too
        self._running: str | None = None
        self._cancel: set[str] = set()
        self._bar: dict[str, str] = {}
        self._stopping = False
        self._pilots: dict[tuple[str, str], float] = {}  # (bot, mix) -> games/s
        self._mark_interrupted()
        for pilot in ws.root.glob(f"{PILOT_PREFIX}*"):  # a desk stopped while one played
            shutil.rmtree(pilot, ignore_errors=True)
        self._worker = threading.Thread(target=self._work, name="omensim-desk-jobs", daemon=True)
        self._worker.start()

    # --- records --------------------------------------------------------------------
    def record_path(self, name: str) -> Path:
        """Where answer ``name``'s record lives."""
        return self.ws.named(ANSWERS, name, ".json")

    def folder(self, name: str) -> Path:
        """Answer ``name``'s folder (what its command wrote)."""
        return self.ws.named(ANSWERS, name)

    def record(self, name: str) -> dict[str, Any]:
        """Answer ``name``'s record; FileNotFoundError when there is none."""
        return json.loads(self.record_path(name).read_text(encoding="utf-8"))

    def _write(self, rec: dict[str, Any]) -> None:
        path = self.record_path(rec["name"])
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)

    def _update(self, name: str, **fields: Any) -> dict[str, Any]:
        with self._lock:
            rec = self.record(name)
            rec.update(fields)
            self._write(rec)
            return rec

    def names(self) -> list[str]:
        """Every answer with a record, newest first."""
        recs = sorted(self.ws.answers.glob("*.json"), key=lambda p: p.stat().st_mtime)
        return [p.stem for p in reversed(recs)]

    def _mark_interrupted(self) -> None:
        """Records a stopped desk left running: their commands ended with it."""
        for name in self.names():
            rec = self.record(name)
            if rec.get("status") not in ENDED:
                self._remove_folder(name)
                rec.update(status="interrupted", error="the desk stopped while it ran")
                self._write(rec)

    # --- asking ---------------------------------------------------------------------
    def ask(self, q: Q.Question) -> str:
        """Queue question ``q``; returns its answer's name."""
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        with self._lock:
            n = 1
            name = f"{stamp}-{q.kind}"
            while self.record_path(name).exists() or self.folder(name).exists():
                n += 1
                name = f"{stamp}-{q.kind}-{n}"
            out = f"{ANSWERS}/{name}"
            args = Q.command(q, out)
            rec = {
                "name": name, "title": q.title, "question": q.to_dict(), "args": args,
                "command": shown(args), "status": "queued", "asked": _now(),
            }  # fmt: skip
            self._write(rec)
        self._queue.put(name)
        return name

    def plan(self, q: Q.Question, timeout: float = 300) -> str:
        """What ``omensim compare --plan`` prints for ``q`` (its pilot plays a few thousand
        games), or its error line."""
        done = self._run(Q.plan_command(q), timeout=timeout)
        return done.stdout.strip() or _last_line(done.stderr)

    def speed(self, bot: str, mix: str) -> tuple[float, str] | str:
        """Games per second of ``bot`` in both seats, and where the figure comes from: the
        newest finished answer of this workspace played by ``bot``, else a pilot of
        :data:`PILOT_GAMES` games on ``mix`` (played into a hidden folder of the workspace
        and removed; its speed kept while the desk runs). An error line when the pilot fails."""
        got = A.measured_speed(self.ws.answers, bot)
        if got is not None:
            return got, f"the newest {bot} answer here"
        if (bot, mix) not in self._pilots:
            folder = Path(tempfile.mkdtemp(prefix=PILOT_PREFIX, dir=self.ws.root))
            try:
                out = f"{self.ws.relative(folder)}/run"
                args = ["run", "--mix", mix, "--p0", bot, "--p1", bot, "--seed", "0",
                        "--games", str(PILOT_GAMES), "--out", out]  # fmt: skip
                done = self._run(args, timeout=600)
                manifest = folder / "run" / A.MANIFEST
                if done.returncode != 0 or not manifest.is_file():
                    return _last_line(done.stderr)
                speed = json.loads(manifest.read_text(encoding="utf-8"))["games_per_s"]
                self._pilots[bot, mix] = float(speed)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
        return self._pilots[bot, mix], f"a pilot of {PILOT_GAMES:,} {bot} games on {mix}"

    def cancel(self, name: str) -> None:
        """Stop answer ``name``: dropped from the queue, or its command interrupted."""
        with self._lock:
            self._cancel.add(name)
            proc = self._proc if self._running == name else None
        if proc is not None:
            _stop_group(proc)

    def bar(self, name: str) -> str:
        """The last line the running command drew on stderr (its progress bar)."""
        return self._bar.get(name, "")

    def shutdown(self) -> None:
        """Stop the worker and the running command (the desk is closing)."""
        with self._lock:
            self._stopping = True
            live = list(self._live)
            if self._running is not None:
                self._cancel.add(self._running)
        self._queue.put(None)
        for proc in live:
            _stop_group(proc)
        self._worker.join(timeout=GRACE_S + 5)

    # --- the worker -----------------------------------------------------------------
    def _work(self) -> None:
        while True:
            name = self._queue.get()
            if name is None or self._stopping:
                return
            try:
                self._answer(name)
            except Exception as exc:  # a record must never stay "running" after a bug
                self._update(name, status="failed", error=f"the desk failed: {exc}", ended=_now())

    def _answer(self, name: str) -> None:
        rec = self.record(name)
        if name in self._cancel:
            self._update(name, status="cancelled", ended=_now())
            return
        q = Q.Question(**{k: tuple(v) if isinstance(v, list) else v
                          for k, v in rec["question"].items()})  # fmt: skip
        t0 = time.monotonic()
        if q.precision is not None and q.kind in Q.PLANNED:
            # The CLI's own plan sizes the games, then they are played as two whole runs,
            # so the answer is run folders that load, report and replay like any other.
            self._update(name, status="planning", started=_now())
            plan = self.plan(q)
            got = Q.planned_games(plan)
            if got is None:
                self._end(name, "failed", t0, error=plan)
                return
            args = Q.command(q, f"{ANSWERS}/{name}", games=min(got[0], q.games))
            rec = self._update(name, plan=plan, args=args, command=shown(args))
        self._update(name, status="running", started=rec.get("started") or _now())
        done = self._run(rec["args"], name=name)
        if name in self._cancel:
            self._remove_folder(name)
            self._end(name, "cancelled", t0, stdout=done.stdout)
        elif done.returncode != 0:
            self._remove_folder(name)
            self._end(name, "failed", t0, error=_last_line(done.stderr), stdout=done.stdout)
        else:
            self._end(name, "done", t0, stdout=done.stdout)

    def _end(self, name: str, status: str, t0: float, **fields: Any) -> None:
        self._bar.pop(name, None)
        self._update(
            name, status=status, ended=_now(), seconds=round(time.monotonic() - t0, 1), **fields
        )

    def _remove_folder(self, name: str) -> None:
        """A failed or cancelled answer leaves no folder that could pass for an answer."""
        shutil.rmtree(self.folder(name), ignore_errors=True)

    def _run(
        self, args: list[str], name: str | None = None, timeout: float | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``omensim args`` in the workspace, in its own process group; stderr is read as
        it comes (the bar's last line kept for ``name``)."""
        progress = ["--progress"] if args[0] in ("run", "compare", "balance") else []
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(
            [self.python, "-m", "sim.cli", *args, *progress],
            cwd=self.ws.root, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            process_group=0, preexec_fn=DIE_WITH_PARENT,
        )  # fmt: skip
        with self._lock:
            self._live.add(proc)
            stop = self._stopping
        if name is not None:
            self._update(name, pid=proc.pid)
            with self._lock:
                self._proc, self._running = proc, name
                stop = stop or name in self._cancel
        if stop:
            _stop_group(proc)
        err: list[str] = []
        reader = threading.Thread(target=self._read_err, args=(proc, name, err), daemon=True)
        reader.start()
        try:
            out = proc.stdout.read() if proc.stdout is not None else ""
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _stop_group(proc)
            out = ""
        finally:
            reader.join()
            with self._lock:
                self._live.discard(proc)
                if name is not None:
                    self._proc, self._running = None, None
        return subprocess.CompletedProcess(args, proc.returncode, out, "".join(err)[-TAIL:])

    def _read_err(self, proc: subprocess.Popen[str], name: str | None, err: list[str]) -> None:
        assert proc.stderr is not None
        line = ""
        while chunk := proc.stderr.read(256):
            err.append(chunk)
            for ch in chunk:
                if ch in "\r\n":
                    if line.strip() and name is not None:
                        self._bar[name] = line.strip()
                    line = ""
                else:
                    line += ch


def _last_line(text: str) -> str:
    lines = [x.strip() for x in text.replace("\r", "\n").splitlines() if x.strip()]
    errors = [x for x in lines if x.startswith("Error:")]
    return (errors or lines or ["(no output)"])[-1]


def _stop_group(proc: subprocess.Popen[str]) -> None:
    """Ctrl-C to the command's whole process group, then a kill if it has not stopped."""
    try:
        pgid = os.getpgid(proc.pid)
    except ProcessLookupError:
        return
    for sig, wait in ((signal.SIGINT, GRACE_S), (signal.SIGKILL, GRACE_S)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
