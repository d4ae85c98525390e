"""The scripts of ``benchmarks/`` and ``tools/``, run as a user runs them: by their command line.

No test imports a script: each runs in its own interpreter, from the checkout, as its
docstring says to run it. The weight fit is checked where it produces shipped data: the
``[weights]`` table it prints is one ``configs/strategies/greedy.toml`` can hold.
"""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script(rel: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    path = ROOT / rel
    if not path.exists():
        pytest.skip(f"{rel} is not in this tree (an installed package, not a checkout)")
    return subprocess.run(
        [sys.executable, str(path), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    ("rel", "args", "message"),
    [
        ("benchmarks/bench_bots.py", ("--curve", "--variant", "nodraft"),
         "Error: unknown variant 'nodraft'"),
        ("benchmarks/bench_bots.py", ("--curve", "--budgets", "4x"), "Error: bad budget '4x'"),
        ("benchmarks/bench_bots.py",
         ("--stalls", "--bots", "random,greedy", "--only-with", "lookahead"),
         "Error: --only-with 'lookahead'"),
        ("benchmarks/bench_ladder.py", ("--sections", "curve", "--curve", "48,8:x"),
         "Error: bad --curve '48,8:x'"),
        ("benchmarks/profile_search.py", ("--bot", "nobot"), "Error: unknown strategy 'nobot'"),
        ("benchmarks/bench_levers.py", ("--levers", "whole,pipeline"),
         "Error: unknown lever 'pipeline'"),
        ("benchmarks/bench_luck.py", ("--alts", "0"),
         "Error: --games must be at least 2 and --alts at least 1"),
        ("tools/train_value.py", ("--out", "never", "--candidates", "0"),
         "Error: --candidates must be at least 1"),
        ("tools/train_value.py", ("--out", "never", "--select-games", "1"),
         "Error: --select-games must be at least 2"),
        ("tools/train_value.py", ("--out", "never", "--value-games", "-5"),
         "Error: --value-games must be 0 or at least 2"),
        ("tools/train_value.py", ("--out", "never", "--games", "0", "--search-games", "0"),
         "Error: --games and --search-games are both 0"),
        ("tools/train_value.py", ("--out", "never", "--mixes", "aegean,nope"),
         "Error: --mixes: unknown set 'nope'"),
        ("tools/train_value.py", ("--out", "never", "--max-iter", "0"),
         "Error: --max-iter must be at least 1"),
        ("tools/train_value.py", ("--out", "README.md/x"),
         "Error: --out README.md/x: cannot write there"),
        ("tools/train_value.py", ("--out", "never", "--seed", "-1"),
         "Error: --seed must be between 0 and"),
        ("tools/tune_weights.py", ("--sigma", "0"), "Error: --sigma must be above 0"),
        ("tools/first_player_attribution.py", ("--games", "-5"),
         "Error: --games must be a positive whole number of games, got -5"),
        ("benchmarks/rows_hash.py", ("--games", "-1"),
         "Error: --games must be a positive whole number of games, got -1"),
        ("benchmarks/bench_value.py", ("--mixes", "aegean,zz"), "Error: unknown set 'zz'"),
        ("tools/plant_bugs.py", ("--jobs", "0"), "Error: --jobs and --timeout must be at least 1"),
        ("benchmarks/bench_balance.py", ("--seed", "-3"),
         "Error: --seed must be between 0 and 2**63-1, got -3"),
        ("benchmarks/profile_kernel.py", ("--games", "-3"),
         "Error: --games must be a positive whole number of games, got -3"),
    ],
)  # fmt: skip
def test_a_bad_benchmark_option_is_one_error_line(rel, args, message) -> None:
    """A bad option of a benchmark or a tool is one ``Error:`` line naming it, exit 2, nothing
    played."""
    r = _script(rel, *args)
    err = r.stderr.strip().splitlines()
    assert r.returncode == 2, r.stderr
    assert len(err) == 1 and err[0].startswith(message), r.stderr


@pytest.mark.parametrize(
    ("rel", "args", "message"),
    [
        ("benchmarks/bench_min.py", ("--repeats", "0"), "argument --repeats: must be 1 or more"),
        ("benchmarks/bench_levers.py", ("--cold-runs", "0"),
         "argument --cold-runs: must be 1 or more"),
        ("benchmarks/bench_coverage.py", ("--reps", "0"), "argument --reps: must be 1 or more"),
        ("benchmarks/bench_value.py", ("--games", "-1"), "argument --games: must be 0 or more"),
        ("benchmarks/bench_scale.py", ("--tasks", "-3"), "argument --tasks: must be 1 or more"),
        ("benchmarks/bench_ladder.py", ("--games", "-1"),
         "argument --games: must be a positive whole number"),
        ("benchmarks/bench_levers.py", ("--games", "1e3x"),
         "argument --games: not a number of games"),
    ],
)  # fmt: skip
def test_a_bad_count_is_refused_by_its_option(rel, args, message) -> None:
    """A count a benchmark cannot use (0 repeats, negative tasks or games) is refused when the
    options are read, naming the option, exit 2: never played on, never a traceback."""
    r = _script(rel, *args)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_every_planted_bug_still_applies_to_the_kernel() -> None:
    """``tools/plant_bugs.py --list``: each planted bug has its own name and the text it
    replaces is in its file exactly once, so a change to a rule's code cannot leave a
    planted bug behind unnoticed (the tool would refuse to run it)."""
    r = _script("tools/plant_bugs.py", "--list")
    assert r.returncode == 0, r.stderr
    names = [line.split()[0] for line in r.stdout.splitlines()]
    assert "maneuver_moves_a_unit_twice" in names and len(set(names)) == len(names)


def test_bench_ladder_names_its_sections_when_one_is_unknown() -> None:
    """``bench_ladder.py --sections``: an unknown table names the valid ones, speed among them."""
    r = _script("benchmarks/bench_ladder.py", "--sections", "ladder,nope")
    assert r.returncode == 2
    assert "unknown section 'nope'" in r.stdout and "speed" in r.stdout


def test_tune_weights_refuses_a_bad_weighing() -> None:
    """``tools/tune_weights.py --weigh``: a match-up without a weight is refused by name."""
    r = _script("tools/tune_weights.py", "--weigh", "dunes", "--panel", "greedy",
                "--mixes", "aegean", "--law-games", "0", "--verify", "0")  # fmt: skip
    assert r.returncode != 0
    assert "--weigh" in r.stderr


def test_tune_weights_prints_a_weights_table_the_shipped_profile_can_hold() -> None:
    """One short generation of the fit prints a ``[weights]`` table with exactly the weights
    ``configs/strategies/greedy.toml`` ships, each a finite number: pasted into the profile,
    it loads."""
    r = _script("tools/tune_weights.py", "--panel", "greedy", "--mixes", "aegean",
                "--games", "2", "--law-games", "0", "--generations", "1", "--verify", "0",
                "--seed", "3")  # fmt: skip
    assert r.returncode == 0, r.stderr
    table = tomllib.loads(r.stdout[r.stdout.index("[weights]") :])["weights"]
    shipped = tomllib.loads((ROOT / "configs/strategies/greedy.toml").read_text())["weights"]
    assert set(table) == set(shipped)
    assert all(math.isfinite(v) for v in table.values())


def test_no_test_imports_a_script() -> None:
    """Tests run scripts by their command line; an import would pass only from a checkout."""
    import ast

    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [
                f"{path.relative_to(ROOT)}: {n}"
                for n in names
                if n.split(".")[0] in ("benchmarks", "tools")
            ]
    assert not found, found


@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="the train extra")
def test_train_value_writes_a_loadable_seeded_file(tmp_path: Path) -> None:
    """The value's retrain command at a toy size, with its second round on value's and
    vsearch's games: a file the loader takes, with its provenance, and the same weights
    from the same seed."""
    from strategies.value_model import load_value

    args = ("--seed", "3", "--games", "60", "--search-games", "0", "--value-games", "4",
            "--vsearch-games", "4", "--mixes", "aegean", "--max-iter", "3", "--candidates", "2",
            "--select-games", "4")  # fmt: skip
    for name in ("a", "b"):
        done = _script("tools/train_value.py", "--out", str(tmp_path / name), *args)
        assert done.returncode == 0, done.stderr
        assert "second round: value and vsearch" in done.stdout
    a, b = load_value(tmp_path / "a" / "value.toml"), load_value(tmp_path / "b" / "value.toml")
    assert np.array_equal(a, b)
    text = (tmp_path / "a" / "value.toml").read_text()
    assert "games_per_mix = 60" in text and "vsearch_games_per_mix = 4" in text
    assert "value_games_per_mix = 4" in text
    assert "candidates = 2" in text and "select_games_per_mix = 4" in text
