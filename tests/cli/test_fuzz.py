"""fuzz every input a user writes, and every command line.

Hypothesis generates card, rules, profile and deck files (valid, at the
schema's bounds, and invalid: out of range, wrong type, huge, nan, non-UTF-8)
and command lines built from real and hostile option values. Each case must
end one of two ways: exit 0 with rows that pass the row invariants, or a
non-zero exit with exactly one ``Error:`` line. Never a traceback, a signal or
a hang. CLI cases run in-process (``CliRunner``); the former crash cases run
in subprocesses in ``tests/data/test_schema.py``.

``OMENSIM_FUZZ_EXAMPLES`` sets the examples per test (default 12; CI's
boundscheck pass uses fewer).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import hypothesis.strategies as hs
import pytest
from click.testing import Result
from conftest import invoke, one_error_line
from hypothesis import HealthCheck, given, settings
from rows import check_rows

from sim.data import schema as S
from sim.data.cards import RULE_KEYS, SETS_DIR, load_pool
from sim.data.spec import FIRST_MODES, VARIANTS
from sim.run import io

EXAMPLES = int(os.environ.get("OMENSIM_FUZZ_EXAMPLES", "12"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
AEGEAN = (SETS_DIR / "aegean.toml").read_text(encoding="utf-8")
DUNES = (SETS_DIR / "dunes.toml").read_text(encoding="utf-8")
GAMES = "6"


def outcome_ok(result: Result, out: Path | None = None) -> None:
    """Exit 0 (with rows passing the invariants, if a run was written) or one Error line."""
    exc = result.exception
    assert exc is None or isinstance(exc, SystemExit), f"uncaught {exc!r}\n{result.output}"
    assert "Traceback" not in result.output
    if result.exit_code == 0:
        if out is not None and (out / "_manifest.json").exists():
            check_rows(io.read_run(out))
        return
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr


# --- values: valid, at the bound, and hostile ------------------------------------------------


def int_values(bound: S.Bound) -> hs.SearchStrategy[object]:
    lo, hi = int(bound.lo), int(bound.hi)
    return hs.one_of(
        hs.integers(lo, hi),  # valid
        hs.sampled_from([lo, hi]),  # the bounds themselves
        hs.sampled_from([lo - 1, hi + 1, -(2**63), 2**63 - 1, 10**18, 2**62]),  # just out, huge
        hs.sampled_from([1.5, float("nan"), float("inf"), "3", True, [1]]),  # wrong types
    )


def toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return {float("inf"): "inf", float("-inf"): "-inf"}.get(v, "nan" if v != v else repr(v))
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return str(v)


def set_nth(text: str, key: str, n: int, value: object) -> str:
    """``text`` with the ``n``-th ``key = <int>`` line (mod their count) set to ``value``."""
    hits = list(re.finditer(rf"(?m)^{key} = -?\d+", text))
    m = hits[n % len(hits)]
    return text[: m.start()] + f"{key} = {toml_value(value)}" + text[m.end() :]


@hs.composite
def card_files(draw: hs.DrawFn) -> tuple[str, str]:
    """(set name, text): a shipped set with a few fields of its cards changed."""
    name, text = draw(hs.sampled_from([("aegean", AEGEAN), ("dunes", DUNES)]))
    fields = {**S.UNIT_INTS}
    if name == "dunes":
        fields.update({f"structure {k}": b for k, b in S.STRUCTURE_INTS.items()})
    for _ in range(draw(hs.integers(1, 4))):
        label = draw(hs.sampled_from(sorted(fields)))
        key = label.removeprefix("structure ")
        text = set_nth(text, key, draw(hs.integers(0, 60)), draw(int_values(fields[label])))
    if draw(hs.integers(0, 9)) == 0:
        text = text.replace("Eudorus", "Eudor\udce9s").replace("Anubis", "An\udce9bis", 1)
    return name, text


def write(path: Path, text: str) -> Path:
    # surrogateescape: a lone \udce9 becomes the Latin-1 byte 0xe9 (not UTF-8).
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    return path


# --- card files --------------------------------------------------------------------------------


@FUZZ
@given(card=card_files(), seed=hs.integers(0, 2**63 - 1))
def test_fuzzed_card_file_runs_or_is_one_error_line(card: tuple[str, str], seed: int) -> None:
    name, text = card
    with tempfile.TemporaryDirectory() as d:
        path = write(Path(d) / f"{name}.toml", text)
        out = Path(d) / "out"
        args = ["run", "--games", GAMES, "--mix", name, "--seed", str(seed), "-q"]
        outcome_ok(invoke(*args, "--cards", str(path), "--out", str(out)), out)


# --- rules files ---------------------------------------------------------------------------


@hs.composite
def rules_files(draw: hs.DrawFn) -> str:
    keys = draw(hs.lists(hs.sampled_from(sorted(S.RULE_INTS)), min_size=1, max_size=3, unique=True))
    lines = [f"{k} = {toml_value(draw(int_values(S.RULE_INTS[k])))}" for k in keys]
    extra = draw(
        hs.sampled_from(
            ["", 'end_conditions = ["all_cities_empty"]', "feat_step = 1", "tiles_per_citi = 3"]
        )
    )
    return "[rules]\n" + "\n".join([*lines, extra]) + "\n"


@FUZZ
@given(
    text=rules_files(),
    mix=hs.sampled_from(["aegean", "aegean+dunes", "reign", "dunes+aegean:10"]),
)
def test_fuzzed_rules_file_runs_or_is_one_error_line(text: str, mix: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = write(Path(d) / "house.toml", text)
        out = Path(d) / "out"
        args = ["run", "--games", GAMES, "--mix", mix, "--rules", str(path), "-q"]
        outcome_ok(invoke(*args, "--out", str(out)), out)


# --- strategy profiles ----------------------------------------------------------------------

weights = hs.one_of(
    hs.floats(-S.WEIGHT_LIMIT, S.WEIGHT_LIMIT),
    hs.sampled_from([S.WEIGHT_LIMIT, -S.WEIGHT_LIMIT, 1e308, -1e308, 1001.0]),
    hs.floats(allow_nan=True, allow_infinity=True),
    hs.sampled_from(["lots", True, [1.0]]),
)


@hs.composite
def profile_files(draw: hs.DrawFn) -> str:
    from strategies.greedy import WEIGHTS

    bot = draw(hs.sampled_from(["heuristic", "lookahead", "random", "oracle"]))
    lines = ["[strategy]", 'name = "fuzz"', f'bot = "{bot}"', "[weights]"]
    for key in draw(hs.lists(hs.sampled_from(sorted(WEIGHTS)), max_size=4, unique=True)):
        lines.append(f"{key} = {toml_value(draw(weights))}")
    if bot == "lookahead" and draw(hs.booleans()):
        lines.append("[lookahead]")
        for key, bound in S.KNOBS.items():
            lines.append(f"{key} = {toml_value(draw(int_values(bound)))}")
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=profile_files(), seat=hs.sampled_from(["--p0", "--p1"]))
def test_fuzzed_profile_runs_or_is_one_error_line(text: str, seat: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = write(Path(d) / "fuzz.toml", text)
        out = Path(d) / "out"
        args = ["run", "--games", "4", "--mix", "aegean", seat, str(path), "-q"]
        if "lookahead" in text:
            args[2] = "2"  # the look-ahead bot is slow; two games show it plays
        outcome_ok(invoke(*args, "--out", str(out)), out)


# --- deck lists ----------------------------------------------------------------------------

REIGN_NAMES = [u["name"] for u in load_pool("reign").units]


@hs.composite
def deck_files(draw: hs.DrawFn) -> str:
    names = hs.one_of(hs.sampled_from(REIGN_NAMES), hs.sampled_from(["Nobody", "", "Hélène"]))
    lines = []
    for seat in draw(hs.sampled_from([("p0", "p1"), ("p0",), ("p0", "p1", "p2")])):
        kind = draw(hs.integers(0, 5))
        if kind == 0:
            lines.append(f"{seat} = {toml_value(draw(int_values(S.Bound(0, 10))))}")
            continue
        n = draw(hs.sampled_from([10, 10, 10, 9, 11, 0]))
        listed = draw(hs.lists(names, min_size=n, max_size=n))
        lines.append(f"{seat} = [" + ", ".join(f'"{x}"' for x in listed) + "]")
    return "\n".join(lines) + "\n"


@FUZZ
@given(text=deck_files())
def test_fuzzed_deck_list_runs_or_is_one_error_line(text: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = write(Path(d) / "decks.toml", text)
        out = Path(d) / "out"
        args = ["run", "--games", "4", "--mix", "reign", "--variant", "constructed", "-q"]
        outcome_ok(invoke(*args, "--decks", str(path), "--out", str(out)), out)


def test_a_valid_deck_list_plays() -> None:
    """Guards the deck fuzz: a legal pair of lists really runs (exit 0, rows checked)."""
    from sim.data.decklist import LIMITS

    units = load_pool("reign").units
    decks: list[list[str]] = [[], []]
    used: dict[int, dict[str, int]] = {0: {}, 1: {}}
    for u in units:
        for p in (0, 1):
            n = used[p].get(u["type"], 0)
            if len(decks[p]) < 10 and n < LIMITS.get(u["type"], 10):
                decks[p].append(u["name"])
                used[p][u["type"]] = n + 1
                break
    text = "\n".join(f"p{p} = [" + ", ".join(f'"{x}"' for x in decks[p]) + "]" for p in (0, 1))
    with tempfile.TemporaryDirectory() as d:
        path = write(Path(d) / "decks.toml", text + "\n")
        out = Path(d) / "out"
        args = ["run", "--games", "4", "--mix", "reign", "--variant", "constructed", "-q"]
        result = invoke(*args, "--decks", str(path), "--out", str(out))
        assert result.exit_code == 0, result.output
        check_rows(io.read_run(out))


# --- command lines -------------------------------------------------------------------------

OPTION_VALUES: dict[str, list[str]] = {
    "--games": ["4", "8", "0", "-1", "1e99", "abc", "1_0", "2.5", "nan"],
    "--mix": ["aegean", "dunes+aegean:10", "aegean:²", "reign:0", "x", "aegean+aegean", "", "+"],
    "--seed": ["0", "7", "-1", "9223372036854775808", "1e3"],
    "--p0": ["greedy", "random", "nobody", "/nonexistent.toml", ""],
    "--first": [*FIRST_MODES, "both"],
    "--variant": [*VARIANTS, "emissary,learning", "nope", ""],
    "--threads": ["1", "0", "999"],
    "--chunk-size": ["3", "0", "-5"],
    "--until-ci": ["0.2", "0", "0.5", "nan", "-1"],
    "--delta": ["+1", "-1,+1", "x", "", "1-99999999999999"],
    "--field": ["cost", "copies", "colour"],
    "--card": ["0", "999", "Nobody"],
    "--bots": ["random,greedy", "random", "random,random", "nobody,greedy"],
    "--change": ["Eudorus, Swift Runner.cost=+1", "x.cost=1", "Eudorus, Swift Runner.cost=100"],
    "--game": ["0", "-1", "999999", "x"],
}
COMMAND_OPTIONS: dict[str, list[str]] = {
    "run": ["--games", "--mix", "--seed", "--p0", "--first", "--variant", "--threads",
            "--chunk-size", "--until-ci"],
    "cards": ["--mix", "--seed"],
    "sweep": ["--games", "--mix", "--seed", "--field", "--delta", "--card"],
    "compare": ["--games", "--mix", "--seed", "--change"],
    "tournament": ["--games", "--mix", "--bots", "--seed"],
}  # fmt: skip


@hs.composite
def command_lines(draw: hs.DrawFn) -> list[str]:
    command = draw(hs.sampled_from(sorted(COMMAND_OPTIONS)))
    args = [command]
    for opt in draw(hs.lists(hs.sampled_from(COMMAND_OPTIONS[command]), max_size=4, unique=True)):
        args += [opt, draw(hs.sampled_from(OPTION_VALUES[opt]))]
    if draw(hs.integers(0, 7)) == 0:
        args.append(draw(hs.sampled_from(["--nope", "extra", "--games"])))
    return args


@FUZZ
@given(args=command_lines())
def test_fuzzed_command_line_is_exit_0_or_one_error_line(args: list[str]) -> None:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "out"
        # Keep the successful cases small: at most 8 games (4 per tournament pairing x 2).
        if args[0] != "cards":
            if "--games" not in args:
                args += ["--games", "8" if args[0] == "tournament" else "4"]
            args += ["--out", str(out)]
        if args[0] == "tournament" and "--bots" not in args:
            args += ["--bots", "random,greedy"]
        if args[0] == "sweep" and "--card" not in args:
            args += ["--card", "0"]
        result = invoke(*args, "-q") if args[0] != "cards" else invoke(*args)
        outcome_ok(result, out if args[0] == "run" else None)


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (["sweep", "--card", "0", "--delta", "1-99999999999999"], "more than 1,000 values"),
        (["sweep", "--games", "20", "--card", "0", "--delta", "1-200000"], "more than 1,000"),
        (["compare", "--games", "20", "--b-p0", "random", "--plan", "1e-300"], "at least 1e-19"),
        (["sweep", "--games", "20", "--card", "0", "--delta", "+1", "--plan", "1e-300"],
         "at least 1e-19"),
    ],
)  # fmt: skip
def test_a_size_no_run_can_reach_is_one_usage_line_before_any_game(
    args: list[str], text: str
) -> None:
    """A range of billions of deltas (once a MemoryError, or minutes of deduplication) and a
    --plan half-width whose games overflow a float: refused as the options are read."""
    result = invoke(*args, "-q")
    assert text in one_error_line(result)
    assert result.exit_code == 2


@FUZZ
@given(
    command=hs.sampled_from(["report", "replay"]),
    damage=hs.sampled_from(["none", "list", "empty-part", "stray", "missing", "truncate"]),
)
def test_fuzzed_damage_to_a_run_is_exit_0_or_one_error_line(
    fuzz_run: Path, command: str, damage: str
) -> None:
    import shutil

    with tempfile.TemporaryDirectory() as d:
        run = Path(d) / "run"
        shutil.copytree(fuzz_run, run)
        part = run / "part-00001.parquet"
        if damage == "list":
            (run / "_manifest.json").write_text("[]")
        elif damage == "empty-part":
            part.write_bytes(b"")
        elif damage == "stray":
            (run / "stray.parquet").write_bytes(b"PAR1")
        elif damage == "missing":
            part.unlink()
        elif damage == "truncate":
            part.write_bytes(part.read_bytes()[:100])
        if command == "report":
            result = invoke("report", str(run), "--out", str(Path(d) / "rep"))
        else:
            result = invoke("replay", str(run), "--game", "5")
        outcome_ok(result)
        assert (result.exit_code == 0) == (damage == "none"), result.output


@pytest.fixture(scope="module")
def fuzz_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sim.data.spec import RunSpec
    from sim.run import runner

    out = tmp_path_factory.mktemp("fuzz") / "run"
    runner.run(RunSpec(games=12, seed=3), out, chunk_size=4, progress=False)
    return out


# --- structure: nesting, types and sizes over every reader and API entry -----------------


def toml_render(value: object) -> str:
    """``value`` (from :func:`toml_trees`) written as an inline TOML value."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(str(value), repr(value))
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_render(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_render(v)}" for k, v in value.items()) + "}"


def toml_trees() -> hs.SearchStrategy[object]:
    """Nested TOML values: arrays and inline tables of every scalar type, any depth."""
    scalars = hs.one_of(
        hs.integers(-(2**63), 2**63 - 1), hs.floats(), hs.booleans(), hs.text(max_size=40)
    )
    return hs.recursive(
        scalars,
        lambda kids: hs.one_of(
            hs.lists(kids, max_size=4), hs.dictionaries(hs.text(max_size=8), kids, max_size=4)
        ),
        max_leaves=30,
    )


@hs.composite
def structured_files(draw: hs.DrawFn) -> tuple[str, str]:
    """A file for one reader: real keys and tables holding generated structure, wrapped in
    brackets up to thousands deep, and padded up to past the size bound."""
    reader = draw(hs.sampled_from(["rules", "set", "profile", "deck"]))
    table = {"rules": "[rules]", "set": "[[units]]", "profile": "[weights]", "deck": ""}[reader]
    keys = {"rules": list(RULE_KEYS), "set": ["name", "cost", "abilities", "copies"],
            "profile": ["coins", "vp"], "deck": ["p0", "p1"]}[reader]  # fmt: skip
    lines = [table]
    for key in draw(hs.lists(hs.sampled_from([*keys, "zz"]), min_size=1, max_size=4)):
        depth = draw(hs.sampled_from([0, 1, 3, 17, 200, 5000]))
        lines.append(f"{key} = {'[' * depth}{toml_render(draw(toml_trees()))}{']' * depth}")
    if draw(hs.booleans()):
        lines.append("a." * draw(hs.sampled_from([2, 20, 2000])) + "b = 1")
    if draw(hs.integers(0, 9)) == 0:
        lines.append("# " + "x" * S.MAX_FILE_BYTES)
    return reader, "\n".join(lines) + "\n"


@FUZZ
@given(case=structured_files())
def test_fuzzed_structure_in_every_reader_is_read_or_one_project_error(
    case: tuple[str, str],
) -> None:
    """No structure makes a reader raise anything but :class:`sim.Error` (RecursionError,
    TypeError and MemoryError were the ways it used to fail)."""
    from sim import Error
    from sim.data.cards import load_rule_overrides, load_set
    from sim.data.decklist import load_decklists
    from strategies.profiles import load_profile

    reader, text = case
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"{reader}.toml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        read = {
            "rules": lambda: load_rule_overrides(path),
            "set": lambda: load_set(path),
            "profile": lambda: load_profile(path),
            "deck": lambda: load_decklists(path, load_pool("reign")),
        }[reader]
        try:
            read()
        except Error as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 2000


def python_values() -> hs.SearchStrategy[object]:
    """Any Python value a notebook could pass: scalars of every type, nested containers."""
    scalars = hs.one_of(
        hs.none(), hs.booleans(), hs.integers(), hs.floats(), hs.text(max_size=30),
        hs.binary(max_size=8), hs.sampled_from(["aegean", "greedy", "1e6", "7", "emissary"]),
    )  # fmt: skip
    return hs.recursive(
        scalars, lambda kids: hs.one_of(hs.lists(kids, max_size=3), hs.tuples(kids)), max_leaves=6
    )


API_ARGS = ("games", "mix", "seed", "p0", "p1", "first", "variants", "changes", "threads",
            "until_ci", "force", "progress", "rules")  # fmt: skip


@FUZZ
@given(
    arg=hs.sampled_from(API_ARGS), value=python_values(), entry=hs.sampled_from(["run", "compare"])
)
def test_fuzzed_api_arguments_play_or_raise_the_project_error(
    arg: str, value: object, entry: str
) -> None:
    """``api.run`` and ``api.compare`` take any value: they play, or raise sim.Error."""
    from sim import Error, api

    if entry == "compare" and arg in ("changes", "until_ci", "force", "rules"):
        arg = "games"
    with tempfile.TemporaryDirectory() as d:
        kw: dict = {"games": 2, "out": Path(d) / "out", "progress": False, arg: value}
        try:
            if entry == "run":
                api.run(**kw)
            else:
                api.compare("Ker of the Spoils.cost=+1", **kw)
        except Error as exc:
            assert "\n" not in str(exc)


@FUZZ
@given(value=python_values())
def test_fuzzed_load_argument_is_read_or_the_project_error(value: object) -> None:
    from sim import Error
    from sim import analysis as A

    with pytest.raises(Error):
        A.load(value)  # type: ignore[arg-type]


@FUZZ
@given(part=hs.integers(0, 2), at=hs.integers(0, 2**20), bits=hs.integers(1, 255))
def test_fuzzed_byte_edits_to_a_part_are_always_refused(
    fuzz_run: Path, part: int, at: int, bits: int
) -> None:
    """Any byte of any part changed: A.load refuses the run (no edit reads back)."""
    import shutil

    from sim import Error
    from sim import analysis as A

    with tempfile.TemporaryDirectory() as d:
        run = Path(d) / "run"
        shutil.copytree(fuzz_run, run)
        path = run / f"part-0000{part}.parquet"
        data = bytearray(path.read_bytes())
        data[at % len(data)] ^= bits
        path.write_bytes(bytes(data))
        with pytest.raises(Error):
            A.load(run)


# --- the boundscheck pass really checks ----------------------------------------------------


@pytest.mark.skipif(
    os.environ.get("NUMBA_BOUNDSCHECK") != "1", reason="only in CI's NUMBA_BOUNDSCHECK=1 pass"
)
def test_boundscheck_catches_an_offering_past_the_state() -> None:
    """Without the schema, offering = 100000 wrote far past the state (exit 134/139); with
    NUMBA_BOUNDSCHECK=1 the same kernel call raises IndexError: the safety net is live."""
    import copy

    from sim.base import layout as L
    from sim.base.tables import flatten
    from sim.data.cards import compile_tables, with_run_rules
    from sim.kernel import game as G
    from sim.kernel.offering import make_offering
    from sim.run.scenario import Scenario
    from strategies.policy import choose_heuristic
    from strategies.registry import strategy_arrays

    sc = Scenario("aegean", bots=("random", "random"))
    pool = copy.deepcopy(sc.pool)
    for u in pool.units:
        u["offering"] = 100_000  # bypasses the schema on purpose
    tables = compile_tables(pool.units, pool.rewards, pool.rules, pool.structures)
    sc.tables = with_run_rules(tables, 60, False, L.FIRST_ALTERNATE)
    sc.tab = flatten(sc.tables)
    _, sc.fp = strategy_arrays("random", "random", sc.tab)
    G.setup(sc.st, sc.tab, sc.fp, choose_heuristic, 1, 0)
    with pytest.raises(IndexError):
        make_offering(sc.st, sc.tab, sc.fp, choose_heuristic, 0, 0)
