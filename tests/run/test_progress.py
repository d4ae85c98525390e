"""Progress: a live bar (tqdm) on stderr for every long command, and the compile note.

No test here times anything: the "at least twice a second" promise rests on
``Engine.play`` calling back after every kernel call of about 0.2 s (at most
``MAX_STEP`` games), which is tested by counting calls, not by a clock.
"""

from __future__ import annotations

import io as text_io
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import Result
from conftest import invoke

from sim.data.spec import RunSpec
from sim.run import progress as P
from sim.run.engine import MAX_STEP, Engine


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


class _Tty(text_io.StringIO):
    def isatty(self) -> bool:
        return True


def test_wanted_follows_terminal_flag_and_quiet() -> None:
    assert P.wanted(None, stream=_Tty()) is True
    assert P.wanted(None, stream=text_io.StringIO()) is False  # a pipe or a file: no bar
    assert P.wanted(True, stream=text_io.StringIO()) is True  # --progress forces it
    assert P.wanted(True, quiet=True, stream=_Tty()) is False  # --quiet wins
    assert P.wanted(False, stream=_Tty()) is False


def test_bar_shows_rate_and_eta_and_ends_its_line() -> None:
    out = text_io.StringIO()
    with P.Bar(1000, True, desc="run", stream=out) as bar:
        for _ in range(10):
            bar.advance(100)
    text = out.getvalue()
    assert "1.00k/1.00k games" in text and "games/s" in text and "ETA" in text
    assert text.endswith("\n")
    assert bar.done == 1000


def test_disabled_bar_writes_nothing() -> None:
    out = text_io.StringIO()
    with P.Bar(1000, False, stream=out) as bar:
        bar.advance(1000)
    assert out.getvalue() == ""


def test_compile_note_shows_what_and_how_long() -> None:
    out = text_io.StringIO()
    with P.compile_note(True, estimate_s=90, stream=out):
        time.sleep(0.6)
    text = out.getvalue()
    assert "compiling the game kernel (first run only, ~90 s)\u2026" in text
    assert "compiled the game kernel in" in text and text.endswith("\n")
    quiet = text_io.StringIO()
    with P.compile_note(False, stream=quiet):
        pass
    assert quiet.getvalue() == ""


def test_no_compile_note_once_the_kernel_is_loaded() -> None:
    with P.kernel_ready(False):
        Engine(RunSpec(games=2)).warmup()
    assert P.kernel_needs_compile() is False


def test_play_calls_back_often_whatever_the_chunk_and_rows_do_not_change() -> None:
    """One 5,000-game call reports after every kernel call, and the rows are those of one
    big kernel call: splitting changes speed only."""
    engine = Engine(RunSpec(games=5000, seed=3))
    calls: list[int] = []

    def tick(rows: np.ndarray) -> bool:
        calls.append(len(rows))
        return False

    stepped = engine.play(0, 5000, tick=tick)
    whole = engine.play(0, 5000)
    assert stepped.equals(whole)
    assert sum(calls) == 5000 and len(calls) >= 2 and max(calls) <= MAX_STEP


def test_play_stops_when_tick_says_so() -> None:
    engine = Engine(RunSpec(games=5000, seed=3))
    table = engine.play(100, 5000, tick=lambda rows: True)
    assert 1 <= table.num_rows < 5000
    assert table.column("game_id").to_pylist() == list(range(100, 100 + table.num_rows))
    assert table.equals(engine.play(100, table.num_rows))


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--games", "600", "--seed", "2"],
        ["compare", "--games", "300", "--change", "Ker of the Spoils.cost=+1"],
        ["sweep", "--games", "200", "--card", "Ker of the Spoils", "--delta", "+1"],
        ["tournament", "--bots", "random,greedy", "--games", "8"],
    ],
    ids=["run", "compare", "sweep", "tournament"],
)
def test_commands_draw_the_bar_with_progress_only(tmp_path: Path, args: list[str]) -> None:
    """stderr is not a terminal under CliRunner: no bar unless --progress; never with -q."""
    extra = ["--out", str(tmp_path / "a")] if args[0] in ("run", "tournament") else []
    plain = ok(invoke(*args, *extra))
    assert "games/s" not in plain.stderr
    extra = ["--out", str(tmp_path / "b")] if extra else []
    forced = ok(invoke(*args, *extra, "--progress"))
    assert "games/s" in forced.stderr and "ETA" in forced.stderr
    extra = ["--out", str(tmp_path / "c")] if extra else []
    quiet = ok(invoke(*args, *extra, "--progress", "--quiet"))
    assert quiet.stderr == ""


def test_report_draws_its_steps_with_progress(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    ok(invoke("run", "--games", "300", "--out", str(run_dir), "-q"))
    result = ok(invoke("report", str(run_dir), "--out", str(tmp_path / "rep"), "--progress"))
    assert "steps" in result.stderr and "ETA" in result.stderr
    assert "first player won" in result.stdout
    quiet = ok(invoke("report", str(run_dir), "--out", str(tmp_path / "rep2"), "-q"))
    assert quiet.stderr == "" and quiet.stdout.startswith("Report: ")
