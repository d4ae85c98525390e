"""One bounded TOML reader for every file: nesting depth and size, one line naming the file.

TOML nested thousands deep made ``tomllib`` raise RecursionError with ~3,000 lines of
stderr in every reader (``--rules``, ``--cards``, ``--p0``, ``--decks``, ``--b-rules``);
now each is one ``Error:`` line naming the file and the line.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import invoke, one_error_line

from sim import Error
from sim.data import schema as S
from sim.data.cards import SETS_DIR

DEEP = "[rules]\ntiles_per_city = " + "[" * 5000 + "]" * 5000 + "\n"
READERS = {
    "--rules": ["run", "--games", "2", "--rules"],
    "--cards": ["run", "--games", "2", "--cards"],
    "--p0": ["run", "--games", "2", "--p0"],
    "--decks": ["run", "--games", "2", "--mix", "reign", "--variant", "constructed", "--decks"],
    "--b-rules": ["compare", "--games", "2", "--b-rules"],
}


@pytest.mark.parametrize("option", READERS)
def test_deeply_nested_toml_is_one_error_line_in_every_reader(tmp_path: Path, option: str) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(DEEP)
    extra = ["--out", str(tmp_path / "out")]
    line = one_error_line(invoke(*READERS[option], str(path), *extra))
    assert "deep.toml: line 2: brackets nested 5000 deep" in line


def test_the_shipped_files_are_well_inside_the_bounds() -> None:
    for path in [*SETS_DIR.glob("*.toml"), *SETS_DIR.parent.glob("*/*.toml")]:
        text = path.read_text()
        assert S.bracket_depth(text)[0] <= 4 and len(text) < S.MAX_FILE_BYTES / 10
        assert S.structure_depth(S.read_toml(path, "x")) <= S.MAX_DEPTH // 2


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[rules]\n" + "a." * 3000 + "b = 1\n", "nested more than"),
        ("# " + "x" * (S.MAX_FILE_BYTES + 1), "larger than"),
        ("a = [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]", "line 1: brackets nested 18 deep"),
        (
            "a = 1\nb = {c = {d = {e = [[[[[[[[[[[[[[1]]]]]]]]]]]]]]}}}",
            "line 2: brackets nested 17",
        ),
    ],
)
def test_structure_bounds_are_one_error(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "x.toml"
    path.write_text(text)
    with pytest.raises(Error, match=fragment):
        S.read_toml(path, "rules file")


def test_brackets_inside_strings_and_comments_do_not_count() -> None:
    text = "a = \"[[[[[[[[[[[[[[[[[[[[\" # [[[[[[[[[[[[[[[[[[\nb = '''\n[[[[[[[[[[[[[[[[[['''\n"
    assert S.bracket_depth(text)[0] == 0
    assert S.parse_toml(text, "x") == {"a": "[" * 20, "b": "[" * 18}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs a FIFO")
def test_a_fifo_or_device_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "rules.toml"
    os.mkfifo(fifo)
    with pytest.raises(Error, match="not a regular file"):
        S.read_toml(fifo, "rules file")
    with pytest.raises(Error, match="not a regular file"):
        S.read_toml(Path("/dev/zero"), "rules file")
