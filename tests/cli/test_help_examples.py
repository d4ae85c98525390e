"""Every command's ``--help`` examples read like the README: each folder an example reads
was written by an example before it, and a run folder is read with ``A.load``."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from conftest import invoke, ok

COMMANDS = [
    "run", "compare", "sweep", "tournament", "balance", "report", "replay", "strength",
    "mixes", "cards",
]  # fmt: skip


def examples(command: str) -> list[str]:
    """The lines of ``omensim COMMAND --help`` under "Example:" (one command a line)."""
    text = invoke(command, "--help").output
    block = text.split("Example:", 1)[1].split("\nOptions:", 1)[0]
    return [line.strip() for line in block.strip().splitlines() if line.strip()]


def _written(words: list[str]) -> str | None:
    return words[words.index("--out") + 1] if "--out" in words else None


def _read(words: list[str], line: str) -> list[str]:
    """The folders (or files in them) an example line reads."""
    if words[0] == "python":
        return re.findall(r"\"(results/[^\"]+)\"", line)
    if "--resume" in words:
        return [words[words.index("--resume") + 1]]
    if words[:2] in (["omensim", "replay"], ["omensim", "report"]):
        return [w for w in words[2:] if w.startswith("results/")]
    return []


@pytest.mark.parametrize("command", COMMANDS)
def test_every_example_reads_what_an_example_before_it_wrote(command: str) -> None:
    """A folder read is written by an earlier example of the same command (the report's
    may also be another command's: it reads what they write)."""
    written: list[str] = []
    if command == "report":
        others = (_written(shlex.split(x)) for c in COMMANDS for x in examples(c) if c != command)
        written = [w for w in others if w is not None]
    for line in examples(command):
        words = shlex.split(line.split("  #")[0])
        for path in _read(words, line):
            assert any(path == w or path.startswith(w.rstrip("/") + "/") for w in written), (
                f"'{line}' reads {path}, which no example before it writes ({written})"
            )
        out = _written(words)
        if out is not None:
            written.append(out)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_run_folder_is_read_with_a_load(command: str) -> None:
    """``pd.read_parquet`` on a run folder checks nothing (the README says ``A.load``);
    it may read a table file a command writes (``tournament.parquet``)."""
    for line in examples(command):
        for path in re.findall(r"read_parquet\(\"([^\"]+)\"\)", line):
            assert path.endswith(".parquet"), line


def test_an_example_that_writes_a_folder_the_readme_writes_can_run_again() -> None:
    """README command 1 writes results/demo (with --force, so it runs twice); an example
    writing the same folder must say --force too, or it fails after the README's."""
    for command in COMMANDS:
        for line in examples(command):
            words = shlex.split(line.split("  #")[0])
            if _written(words) == "results/demo":
                assert "--force" in words, line


@pytest.mark.parametrize("command", ["run", "compare", "sweep", "balance", "compile"])
def test_seat_options_name_every_shipped_bot(command: str) -> None:
    from strategies.profiles import shipped_profiles

    text = " ".join(invoke(command, "--help").output.split())
    seat = text.split("--p0 TEXT", 1)[1].split("[default", 1)[0]
    for name in shipped_profiles():
        assert re.search(rf"\b{name}\b", seat), f"{command} --help: --p0 does not name {name}"


def test_sweep_help_says_skipped_csv_is_written_only_when_a_cell_was_skipped(
    tmp_path: Path,
) -> None:
    text = " ".join(invoke("sweep", "--help").output.split())
    assert "only when a cell was skipped, OUT/skipped.csv" in text
    out = tmp_path / "s"
    ok(invoke("sweep", "--card", "0", "--delta", "+1", "--games", "40", "-q", "--out", str(out)))
    assert (out / "sweep.csv").is_file() and not (out / "skipped.csv").exists()
