"""End-to-end tests of the ``omensim`` command line, through click's CliRunner.

These play real (small) runs with the real engine and read the Parquet back
with pandas, as an analyst would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import numba
import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import Result
from conftest import assert_one_error_line, assert_usage_error_wrote_nothing, invoke, ok

import sim
import sim.data.cards
from sim.cli.options import GameCount
from sim.cli.run import run_cmd
from sim.data.spec import RunSpec
from sim.run import io
from sim.run.runner import default_out_dir

GAMES = 2000
COLUMNS = [
    "game_id",
    "seed",
    "mix",
    "variant",
    "strategy_p0",
    "strategy_p1",
    "first_player",
    "winner",
    "score_p0",
    "score_p1",
    "rewards_unused_p0",
    "rewards_unused_p1",
    "rewards_used_p0",
    "rewards_used_p1",
    "vp_tokens_p0",
    "vp_tokens_p1",
    "treasured_p0",
    "treasured_p1",
    "turns",
    "end_reason",
    "played_p0",
    "played_p1",
]
two_threads = pytest.mark.skipif(
    numba.config.NUMBA_NUM_THREADS < 2, reason="needs numba to allow 2 threads"
)


def run_dir_names(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir())


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    out = tmp_path_factory.mktemp("runs") / "demo"
    result = ok(
        invoke(*f"run --games {GAMES} --mix aegean --seed 7 --threads 1".split(), "--out", str(out))
    )
    return out, result


# --- a normal run -------------------------------------------------------------------------


def test_run_writes_readable_parquet(demo: tuple[Path, Result]) -> None:
    out, _ = demo
    df = pd.read_parquet(out)  # plain pandas on the directory must just work
    assert len(df) == GAMES
    missing = [c for c in COLUMNS if c not in df.columns]
    assert not missing, f"missing columns {missing}"
    df = df.sort_values("game_id", ignore_index=True)
    assert df["game_id"].tolist() == list(range(GAMES))
    assert set(df["winner"].unique()) <= {-1, 0, 1}
    assert set(df["first_player"].unique()) <= {0, 1}
    assert (df["seed"] == 7).all()
    assert (df["mix"].astype(str) == "aegean").all()
    assert (df["variant"].astype(str) == "standard").all()
    assert (df["strategy_p0"].astype(str) == "greedy").all()
    assert (df["strategy_p1"].astype(str) == "greedy").all()
    assert (df["turns"] > 0).all()


def test_default_first_player_alternates(demo: tuple[Path, Result]) -> None:
    df = io.read_run(demo[0])
    first = df["first_player"].to_numpy()
    assert (first[1:] != first[:-1]).all(), "seats must take turns going first game by game"


def test_run_directory_is_complete_and_clean(demo: tuple[Path, Result]) -> None:
    out, _ = demo
    names = run_dir_names(out)
    assert io.MANIFEST_NAME in names
    parts = [n for n in names if n.startswith("part-") and n.endswith(".parquet")]
    assert sorted([io.CARDS_NAME, io.MANIFEST_NAME, *parts]) == names, (
        "only parts, the card table and the manifest belong here"
    )
    manifest = io.read_manifest(out)
    assert manifest["complete"] is True
    assert manifest["games"] == GAMES
    assert sum(p["games"] for p in manifest["parts"]) == GAMES


def test_metadata_in_every_part_and_manifest(demo: tuple[Path, Result]) -> None:
    out, _ = demo
    meta = io.read_metadata(out)
    assert meta, "run metadata must not be empty"
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items())
    assert any(sim.__version__ in v for v in meta.values()), "package version missing"
    assert any("aegean" in v for v in meta.values()), "mix missing"
    for part in io.list_parts(out):
        assert io.read_metadata(part) == meta
        assert pq.read_metadata(part).num_rows > 0


def test_summary_is_printed(demo: tuple[Path, Result]) -> None:
    out, result = demo
    text = result.stdout
    assert f"{GAMES:,} games" in text
    assert "95% CI" in text
    assert str(out) in text
    assert f'from sim.analysis import load; df = load("{out}", names=True)' in text
    # A short aligned block: every value starts in the same column, no long paragraph.
    # (The folder's path is the test's temporary one, of any length: measured as "DIR".)
    lines = text.replace(str(out), "DIR").splitlines()
    assert 8 <= len(lines) <= 14 and max(map(len, lines)) < 120
    starts = {len(line) - len(line.split("  ", 1)[1].lstrip()) for line in lines}
    assert len(starts) == 1, lines
    df = io.read_run(out)
    k = int((df["winner"] == df["first_player"]).sum())
    shared = int((df["winner"] == -1).sum())
    from sim.run.runner import first_player_rows

    for label, value in first_player_rows(k, shared, len(df)):
        assert any(line.startswith(label) and line.endswith(value) for line in lines), label


@pytest.mark.parametrize(("first", "expected"), [("p0", {0}), ("p1", {1}), ("random", {0, 1})])
def test_first_player_modes(tmp_path: Path, first: str, expected: set[int]) -> None:
    out = tmp_path / "run"
    ok(invoke("run", "--games", "200", "--first", first, "--out", str(out), "-q"))
    assert set(io.read_run(out)["first_player"].unique()) == expected


def test_variant_is_recorded(tmp_path: Path) -> None:
    out = tmp_path / "run"
    ok(invoke("run", "--games", "100", "--variant", "emissary", "--out", str(out), "-q"))
    assert (io.read_run(out)["variant"].astype(str) == "emissary").all()


def test_quiet_prints_nothing(tmp_path: Path) -> None:
    result = ok(invoke("run", "--games", "50", "--out", str(tmp_path / "q"), "--quiet"))
    assert result.stdout == "" and result.stderr == ""


def test_default_out_dir_is_new_under_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ok(invoke("run", "--games", "50", "--mix", "aegean", "--seed", "3", "-q"))
    (made,) = (tmp_path / "results").iterdir()
    assert made.name.startswith("aegean-s3-")
    assert io.is_complete(made)


def test_default_out_dir_name() -> None:
    spec = RunSpec(games=10, mix="dunes+aegean", seed=3)
    when = datetime(2025, 1, 2, 3, 4, 5)
    assert default_out_dir(spec, Path("results"), when) == Path(
        "results/dunes_aegean-s3-20250102-030405"
    )


def test_default_out_dir_never_reuses(tmp_path: Path) -> None:
    spec = RunSpec(games=10, mix="aegean", seed=0)
    when = datetime(2025, 1, 2, 3, 4, 5)
    first = default_out_dir(spec, tmp_path, when)
    first.mkdir()
    second = default_out_dir(spec, tmp_path, when)
    assert second != first and not second.exists()


# --- determinism --------------------------------------------------------------------------


@two_threads
def test_same_games_on_any_threads_and_chunking(demo: tuple[Path, Result], tmp_path: Path) -> None:
    reference = io.read_run(demo[0])  # 1 thread, one chunk
    out = tmp_path / "t2"
    args = f"run --games {GAMES} --mix aegean --seed 7 --threads 2 --chunk-size 300 -q".split()
    ok(invoke(*args, "--out", str(out)))
    assert len(io.list_parts(out)) == -(-GAMES // 300)
    pd.testing.assert_frame_equal(io.read_run(out), reference)


def test_chunking_alone_does_not_change_games(demo: tuple[Path, Result], tmp_path: Path) -> None:
    out = tmp_path / "c"
    args = f"run --games {GAMES} --mix aegean --seed 7 --threads 1 --chunk-size 777 -q".split()
    ok(invoke(*args, "--out", str(out)))
    pd.testing.assert_frame_equal(io.read_run(out), io.read_run(demo[0]))


def test_other_seed_gives_other_games(demo: tuple[Path, Result], tmp_path: Path) -> None:
    out = tmp_path / "s8"
    ok(invoke("run", "--games", str(GAMES), "--seed", "8", "--out", str(out), "-q"))
    a = io.read_run(demo[0]).drop(columns=["seed"])
    b = io.read_run(out).drop(columns=["seed"])
    assert not a.equals(b)


# --- existing output ----------------------------------------------------------------------


def test_refuses_to_overwrite_without_force(demo: tuple[Path, Result]) -> None:
    out, _ = demo
    before = {n: (out / n).read_bytes() for n in run_dir_names(out)}
    result = invoke("run", "--games", "10", "--out", str(out))
    assert_one_error_line(result)
    assert "--force" in result.stderr
    assert {n: (out / n).read_bytes() for n in run_dir_names(out)} == before


def test_force_replaces_the_old_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    ok(invoke("run", "--games", "90", "--chunk-size", "30", "--seed", "1", "--out", str(out), "-q"))
    assert len(io.list_parts(out)) == 3
    ok(invoke("run", "--games", "20", "--seed", "2", "--out", str(out), "--force", "-q"))
    assert len(io.list_parts(out)) == 1, "parts of the old run must be gone"
    df = io.read_run(out)
    assert len(df) == 20 and (df["seed"] == 2).all()
    assert io.is_complete(out)


def test_force_never_deletes_foreign_files(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert_one_error_line(invoke("run", "--games", "10", "--out", str(out), "--force"))
    assert run_dir_names(out) == ["notes.txt"]


def test_empty_existing_directory_is_fine(tmp_path: Path) -> None:
    out = tmp_path / "empty"
    out.mkdir()
    ok(invoke("run", "--games", "10", "--out", str(out), "-q"))
    assert io.is_complete(out)


# --- failures -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--games", "-5"],
        ["--games", "abc"],
        ["--games", "1.5"],
        ["--games", "0"],
        ["--mix", "atlantis"],
        ["--first", "middle"],
        ["--variant", "foo"],
        ["--p0", "nobody"],
        ["--p1", "nobody"],
        ["--seed", "-1"],
        ["--threads", "0"],
        ["--threads", "100000"],
        ["--chunk-size", "0"],
        ["--no-such-option"],
    ],
)
def test_bad_input_is_one_error_line_and_creates_nothing(tmp_path: Path, args: list[str]) -> None:
    out = tmp_path / "never"
    result = invoke("run", "--games", "10", "--out", str(out), *args)
    assert_usage_error_wrote_nothing(result, out)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["cards", "--mix", "aegean", "--seed", "-1"], "--seed must be between 0"),
        (["mixes", "aegean", "AEGEAN", "--games", "40"], "named twice"),
    ],
)
def test_other_commands_refuse_what_a_run_refuses(args: list[str], message: str) -> None:
    result = invoke(*args)
    assert_one_error_line(result)
    assert result.exit_code == 2 and message in result.stderr


def test_out_is_a_file(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    assert_one_error_line(invoke("run", "--games", "10", "--out", str(target)))


def test_unwritable_out(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = invoke("run", "--games", "10", "--out", str(blocker / "sub"))
    assert_one_error_line(result)
    assert result.exit_code == 1


def _fail_after_first_chunk(monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    import sim.run.engine

    real_play = sim.run.engine.Engine.play
    real_groups = sim.run.engine.Engine.play_groups  # how a local run plays its parts

    def play(self, start: int, n: int, tick=None):  # type: ignore[no-untyped-def]
        if start > 0:
            raise exc
        return real_play(self, start, n, tick=tick)

    def play_groups(self, start: int, n: int, tick, then=None):  # type: ignore[no-untyped-def]
        if start > 0:
            raise exc
        return real_groups(self, start, n, tick, then)

    monkeypatch.setattr(sim.run.engine.Engine, "play", play)
    monkeypatch.setattr(sim.run.engine.Engine, "play_groups", play_groups)


def test_interrupted_run_is_marked_incomplete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fail_after_first_chunk(monkeypatch, KeyboardInterrupt())
    out = tmp_path / "run"
    result = invoke("run", "--games", "300", "--chunk-size", "100", "--out", str(out))
    assert result.exit_code == 130
    assert_one_error_line(result)
    assert not io.is_complete(out)
    assert io.read_manifest(out)["games"] == 100  # the part written before the interrupt
    assert len(pd.read_parquet(out)) == 100
    with pytest.raises(io.IncompleteRunError):
        io.read_run(out)
    assert all(not n.endswith(".tmp") for n in run_dir_names(out))


def test_crashed_run_is_marked_incomplete(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fail_after_first_chunk(monkeypatch, RuntimeError("kernel bug"))
    out = tmp_path / "run"
    result = invoke("run", "--games", "300", "--chunk-size", "100", "--out", str(out))
    assert result.exit_code != 0
    assert isinstance(result.exception, RuntimeError)  # a bug keeps its traceback
    assert not io.is_complete(out)
    assert "kernel bug" in io.read_manifest(out)["error"]


# --- --games parsing ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1e6", 1_000_000),
        ("1E6", 1_000_000),
        ("250000", 250_000),
        ("1_000", 1_000),
        ("2.5e5", 250_000),
        (" 42 ", 42),
        ("1e0", 1),
    ],
)
def test_game_count_accepts(text: str, value: int) -> None:
    assert GameCount().convert(text, None, None) == value


@pytest.mark.parametrize(
    "text", ["-5", "0", "abc", "1.5", "1e-3", "2.5e0", "", "1e99999999", "nan"]
)
def test_game_count_rejects(text: str) -> None:
    import click

    with pytest.raises(click.BadParameter):
        GameCount().convert(text, None, None)


# --- cards and help -----------------------------------------------------------------------


def test_cards_lists_the_aegean_units() -> None:
    from sim.data.cards import load_pool

    result = ok(invoke("cards", "--mix", "aegean"))
    units = load_pool("aegean").frame()  # one row per unit kind
    assert len(units) == 22
    assert "22 units" in result.stdout
    for name in units["name"]:
        assert name in result.stdout
    assert "..." not in result.stdout, "the table must not be truncated"


def test_cards_unknown_mix() -> None:
    result = invoke("cards", "--mix", "atlantis")
    assert_one_error_line(result)
    assert result.exit_code == 2


@pytest.mark.parametrize("args", [[], ["run"], ["cards"]])
def test_help(args: list[str]) -> None:
    result = ok(invoke(*args, "--help"))
    assert "Usage:" in result.stdout
    assert "Example" in result.stdout


def test_every_run_option_is_documented() -> None:
    undocumented = [p.name for p in run_cmd.params if not getattr(p, "help", None)]
    assert not undocumented


def test_version_names_numba_and_the_compile_mode() -> None:
    import numba

    from sim.compiler.mode import MODE

    out = ok(invoke("--version")).stdout
    assert sim.__version__ in out
    assert f"numba {numba.__version__}, compile mode: {MODE}" in out


def test_real_process_exit_codes_and_no_traceback() -> None:
    """Outside CliRunner too: one line on stderr, exit 2, nothing on stdout."""
    proc = subprocess.run(
        [sys.executable, "-m", "sim.cli", "run", "--games", "abc"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("Error")
    version = subprocess.run(
        [sys.executable, "-m", "sim.cli", "--version"], capture_output=True, text=True, timeout=120
    )
    assert version.returncode == 0 and sim.__version__ in version.stdout


def test_a_ctrl_c_while_the_commands_are_imported_is_one_line_and_status_130() -> None:
    """A Ctrl-C in a command's first third of a second, while click, pyarrow and the
    commands are imported, ends it as one during the command does: one line, status 130,
    no traceback. The probe sends itself a real SIGINT as click is first looked up."""
    probe = (
        "import os, signal, sys\n"
        "class CtrlC:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'click':\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "sys.meta_path.insert(0, CtrlC())\n"
        "from sim.cli import console\n"
        "sys.argv[1:] = ['run', '--games', '10', '--quiet']\n"
        "console()\n"
    )
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(root)},
        # A test run in the background inherits SIGINT ignored; a terminal's command does not.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", "\nError: interrupted\n")


@pytest.mark.parametrize("argv", [["--version"], ["run", "--games", "abc"]])
def test_console_script_freezes_the_heap_before_shutdown(argv: list[str]) -> None:
    """The console entry leaves the heap out of the shutdown's collections, whether the
    command succeeds or fails (~0.3 s of every command); ``main`` itself,
    which tests call, does not."""
    probe = (
        "import atexit, gc, sys\n"
        "from sim.cli import console, main\n"
        "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0))\n"
        "entry = console if sys.argv.pop(1) == 'console' else main\n"
        "entry()\n"
    )
    for entry, frozen in (("console", True), ("main", False)):
        proc = subprocess.run(
            [sys.executable, "-c", probe, entry, *argv], capture_output=True, text=True, timeout=120
        )
        assert f"frozen {frozen}" in proc.stdout, (entry, proc.stdout, proc.stderr)


def test_manifest_is_json_with_spec(demo: tuple[Path, Result]) -> None:
    manifest = json.loads((demo[0] / io.MANIFEST_NAME).read_text())
    assert manifest["spec"]["seed"] == 7
    assert manifest["spec"]["mix"] == "aegean"
    assert manifest["metadata"] == io.read_metadata(io.list_parts(demo[0])[0])


def test_library_run_with_forced_progress(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The Python API behind `omensim run`: progress on request, a result, a summary."""
    from sim.run import runner

    spec = RunSpec(games=300, mix="aegean", seed=5)
    result = runner.run(spec, tmp_path / "lib", threads=1, chunk_size=100, progress=True)
    err = capsys.readouterr().err
    assert "300/300 games" in err and "games/s" in err
    assert err.endswith("\n"), "the progress line must be ended before other output"
    assert result.games == 300 and result.parts == 3 and result.threads == 1
    df = io.read_run(result.out)
    assert result.first_player_wins == int((df["winner"] == df["first_player"]).sum())
    assert result.shared == int((df["winner"] == -1).sum())
    text = runner.summary(result)
    assert "300 games" in text and "95% CI" in text and str(result.out) in text
    assert "turn-capped" in text and "games/s" in text


# --- Heir to the Dunes and mixes ------------------------------------------------------------


@pytest.mark.parametrize("mix", ["dunes", "dunes+aegean"])
def test_dunes_runs_write_their_columns(tmp_path: Path, mix: str) -> None:
    """Heir to the Dunes' columns: god, structures and Favor per game, plus the Aegean ones."""
    out = tmp_path / "run"
    ok(invoke("run", "--games", "600", "--mix", mix, "--seed", "5", "--out", str(out), "-q"))
    df = pd.read_parquet(out)
    assert len(df) == 600
    # Seat 0's god alternates every second deal (sim.kernel.game.deal_gods).
    assert set(df.god_p0.astype(str)) == {"anubis", "horus"}
    assert (df.god_p0.astype(str) != df.god_p1.astype(str)).all()
    assert set(df.favored_at_end.astype(str)) <= {"anubis", "horus"}
    assert df.structures_built_p0.between(0, 3).all()
    assert (df.structures_built_p0 + df.structures_built_p1).sum() > 0
    parts = ["rewards_unused", "rewards_used", "vp_tokens", "treasured", "structures_vp"]
    for p in (0, 1):
        unused, used, vp, tre, svp = (df[f"{c}_p{p}"] for c in parts)
        assert (df[f"score_p{p}"] == 2 * unused + used + 2 * vp + tre + svp).all()
    reasons = set(df.end_reason.astype(str))
    allowed = {"two_cities_empty", "all_structures_built", "turn_cap"}
    if mix == "dunes+aegean":
        allowed.add("all_cities_empty")
    else:
        assert (df.vp_tokens_p0 + df.vp_tokens_p1 == 0).all(), "Dunes alone has no VP tokens"
    assert reasons <= allowed
    meta = io.read_metadata(out)
    assert "build_from" in json.loads(meta["interpretations"])


def test_cards_lists_dunes_structures_and_devotion() -> None:
    result = ok(invoke("cards", "--mix", "dunes+aegean"))
    assert "Structures:" in result.stdout
    assert "Pyramid of the Jackal" in result.stdout
    assert "devotion" in result.stdout.splitlines()[0]
    assert "53 units (62 cards)" in result.stdout


# --- A Reign of War ----------------------------------------------------------------------------


def test_reign_run_with_variants_writes_feat_columns(tmp_path: Path) -> None:
    """A Reign of War's columns: feats, feat ids, reward cards in hand, enraged units, variant."""
    out = tmp_path / "reign"
    args = ["run", "--games", "400", "--mix", "reign", "--seed", "3", "--out", str(out), "-q"]
    ok(invoke(*args, "--variant", "learning,extra-wealth"))
    df = pd.read_parquet(out)
    assert set(df.variant.astype(str)) == {"extra-wealth,learning"}
    assert df.feats_p0.between(0, 6).all()
    assert (df.feat_ids_p0.map(len) == df.feats_p0).all()
    assert (df.rewards_in_hand_p1 == df.rewards_unused_p1).all()
    assert df.enraged_total_p0.sum() > 0
    for p in (0, 1):
        parts = 2 * df[f"rewards_unused_p{p}"] + df[f"rewards_used_p{p}"] + 2 * df[f"feats_p{p}"]
        assert (df[f"score_p{p}"] == parts).all(), "Reign scores feats, kept and used rewards"
    learning = {u["name"] for u in sim.data.cards.load_pool("reign", learning=True).units}
    kinds = {k for lst in df.played_p0 for k in lst}
    assert kinds, "somebody played something"
    names = json.loads(io.read_metadata(out)["card_table"])["units"]
    assert {names[k]["name"] for k in kinds} <= learning


def test_learning_variant_needs_a_learning_set(tmp_path: Path) -> None:
    result = invoke("run", "--games", "10", "--variant", "learning", "--out", str(tmp_path / "x"))
    assert_one_error_line(result)
    assert "learning" in result.stderr
    assert not (tmp_path / "x").exists()


def _deck_file(tmp_path: Path, p0: list[str], p1: list[str]) -> Path:
    path = tmp_path / "decks.toml"
    path.write_text(f"p0 = {json.dumps(p0)}\np1 = {json.dumps(p1)}\n")
    return path


def _legal_lists() -> tuple[list[str], list[str]]:
    units = sim.data.cards.load_pool("reign").units
    by_type = {
        t: [u["name"] for u in units if u["type"] == t] for t in ("soldier", "beast", "oracle")
    }
    p0 = by_type["soldier"][:4] + by_type["beast"][:3] + by_type["oracle"][:3]
    p1 = by_type["soldier"][4:8] + by_type["beast"][3:6] + by_type["oracle"][3:6]
    return p0, p1


def test_constructed_decks_are_played(tmp_path: Path) -> None:
    """Reign rulebook, Constructed variant: "Players who own their own unit cards may build their
    own decks under the pile-draft limits." Every card a player plays comes from their list."""
    # Checks reign-of-war.en.md, lines 213-214.
    p0, p1 = _legal_lists()
    decks = _deck_file(tmp_path, p0, p1)
    out = tmp_path / "run"
    args = ["run", "--games", "300", "--mix", "reign", "--out", str(out), "-q"]
    ok(invoke(*args, "--variant", "constructed", "--decks", str(decks)))
    df = pd.read_parquet(out)
    units = sim.data.cards.load_pool("reign").units
    for seat, names in ((0, p0), (1, p1)):
        played = {units[k]["name"] for lst in df[f"played_p{seat}"] for k in lst}
        assert played and played <= set(names)
    assert set(df.variant.astype(str)) == {"constructed"}


@pytest.mark.parametrize(
    "bad",
    ["too_many_soldiers", "unknown", "shared", "short", "no_file", "no_variant"],
)
def test_bad_deck_lists_get_one_line(tmp_path: Path, bad: str) -> None:
    p0, p1 = _legal_lists()
    units = sim.data.cards.load_pool("reign").units
    soldiers = [u["name"] for u in units if u["type"] == "soldier"]
    if bad == "too_many_soldiers":
        p0 = soldiers[10:17] + p0[4:7]
    elif bad == "unknown":
        p0 = ["Atlantean Diver", *p0[1:]]
    elif bad == "shared":
        p1 = [p0[0], *p1[1:]]
    elif bad == "short":
        p0 = p0[:9]
    decks = _deck_file(tmp_path, p0, p1)
    args = ["run", "--games", "10", "--mix", "reign", "--out", str(tmp_path / "x")]
    if bad == "no_file":
        args += ["--variant", "constructed", "--decks", str(tmp_path / "missing.toml")]
    elif bad == "no_variant":
        args += ["--decks", str(decks)]
    else:
        args += ["--variant", "constructed", "--decks", str(decks)]
    result = invoke(*args)
    assert_one_error_line(result)
    assert not (tmp_path / "x").exists()
