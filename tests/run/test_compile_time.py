"""The compile estimate a first run shows is this machine's measured compile, not a constant."""

from __future__ import annotations

import io as text_io
import json
import time
from pathlib import Path

import pytest

from sim.compiler import mode
from sim.run import compile_time as CT
from sim.run import progress as P


def test_a_recorded_compile_is_read_back_per_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / CT.RECORD
    assert CT.measured_compile_s(path) is None
    monkeypatch.setattr(mode, "HOOKS", False)  # a run's build (the suite compiles the hooks in)
    monkeypatch.setattr(mode, "MODE", "extension")
    CT.record_compile_s(12.34, path)
    monkeypatch.setattr(mode, "MODE", "plain")
    assert CT.measured_compile_s(path) is None  # the other mode's compile is no estimate
    CT.record_compile_s(40.0, path)
    assert CT.measured_compile_s(path) == 40.0
    monkeypatch.setattr(mode, "MODE", "extension")
    assert CT.measured_compile_s(path) == 12.3
    CT.record_compile_s(9.0, path)  # the latest measurement wins
    assert json.loads(path.read_text()) == {"extension": 9.0, "plain": 40.0}
    monkeypatch.setattr(mode, "HOOKS", True)  # a replay's build, with the trace hooks
    assert CT.measured_compile_s(path) is None
    CT.record_compile_s(20.0, path)
    assert json.loads(path.read_text()) == {
        "extension": 9.0,
        "plain": 40.0,
        "extension+trace": 20.0,
    }


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"extension": -3}', '{"extension": "x"}'])
def test_an_unreadable_record_gives_no_estimate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setattr(mode, "MODE", "extension")
    path = tmp_path / CT.RECORD
    path.write_text(text)
    assert CT.measured_compile_s(path) is None
    CT.record_compile_s(5.0, path)  # and recording mends it
    assert CT.measured_compile_s(path) == 5.0


def test_the_record_lives_beside_the_kernel_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sim.compiler.cache import cache_dirs

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert CT.record_path() == cache_dirs()[0] / CT.RECORD
    assert tmp_path in CT.record_path().parents


def test_the_note_shows_the_measured_figure_or_none() -> None:
    out = text_io.StringIO()
    with P.compile_note(True, estimate_s=None, stream=out):
        pass
    assert "compiling the game kernel (first run only)\u2026" in out.getvalue()
    assert "~" not in out.getvalue()
    out = text_io.StringIO()
    with P.compile_note(True, estimate_s=37.4, stream=out):
        pass
    assert "(first run only, ~37 s)" in out.getvalue()


def test_a_cold_start_records_its_time_and_the_next_one_shows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(P, "kernel_needs_compile", lambda: True)
    with P.kernel_ready(True):
        time.sleep(1.6)  # stands in for the compile
    first = capsys.readouterr().err
    assert "(first run only)" in first
    measured = CT.measured_compile_s()
    assert measured is not None and 1.6 <= measured < 60
    with P.kernel_ready(True):
        pass
    assert f"(first run only, ~{measured:.0f} s)" in capsys.readouterr().err


def test_a_warm_start_records_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(P, "kernel_needs_compile", lambda: False)
    with P.kernel_ready(True):
        time.sleep(0.2)
    assert not CT.record_path().exists()
