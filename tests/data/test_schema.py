"""one schema bounds every input; each case the issue lists is a test here.

A value the kernel cannot handle must be refused with one line naming the
file and field before anything reaches numba; a value at the bound must play
games whose rows pass the invariants (no wrapped column, no overflowed sum).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import invoke, one_error_line
from rows import check_rows

from sim.base import layout as L
from sim.data import schema as S
from sim.data.cards import SETS_DIR, CardDataError, load_pool, load_rule_overrides, load_set
from sim.data.changes import Changes
from sim.data.spec import RunSpec, SpecError
from strategies.profiles import PROFILE_DIR, ProfileError, load_profile

ROOT = Path(__file__).resolve().parents[2]
AEGEAN = (SETS_DIR / "aegean.toml").read_text(encoding="utf-8")
DUNES = (SETS_DIR / "dunes.toml").read_text(encoding="utf-8")
REIGN = (SETS_DIR / "reign.toml").read_text(encoding="utf-8")


def set_file(tmp_path: Path, text: str, name: str = "aegean.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def every(text: str, key: str, value: object) -> str:
    """``text`` with every ``key = <int>`` line set to ``value``."""
    return re.sub(rf"(?m)^{key} = \d+", f"{key} = {value}", text)


def first(text: str, key: str, value: object) -> str:
    return re.sub(rf"(?m)^{key} = \d+", f"{key} = {value}", text, count=1)


def rule(text: str, key: str, value: object) -> str:
    return re.sub(rf"(?m)^{key}\s*=\s*\S+", f"{key} = {value}", text, count=1)


# --- out-of-range card values are refused before numba ------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("offering", 100),  # the bound + 1
        ("offering", 256),  # wrote past the 256-slot option table silently
        ("offering", 2000),  # "double free or corruption", exit 134
        ("offering", 100000),
        ("offering", 1000000000),  # segfault, exit 139
        ("strength", 2**62),  # overflowed war sums
        ("cost", -1),
        ("cost", 100),
        ("copies", 10**18),  # tried to allocate 6.94 EiB
        ("copies", 0),
    ],
)
def test_out_of_range_unit_value_is_one_line(tmp_path: Path, key: str, value: int) -> None:
    path = set_file(tmp_path, first(AEGEAN, key, value))
    with pytest.raises(CardDataError, match=rf"field '{key}': must be a whole number from"):
        load_set(path)


def test_copies_of_a_billion_billion_is_one_error_line(tmp_path: Path) -> None:
    """The bound is checked while reading the file, before any array is allocated."""
    path = set_file(tmp_path, first(AEGEAN, "copies", 10**18))
    out = tmp_path / "o"
    line = one_error_line(invoke("run", "--games", "4", "--cards", str(path), "--out", str(out)))
    assert "field 'copies'" in line


def test_too_many_cards_in_total_is_counted_before_allocating(tmp_path: Path) -> None:
    path = set_file(tmp_path, every(AEGEAN, "copies", 200))
    with pytest.raises(CardDataError, match=f"unit cards; at most {L.MAX_CARDS}"):
        Changes.parse(card_files=[path]).load_pool("aegean")


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (("offering", 2000), "offering"),
        (("offering", 1000000000), "offering"),
        (("wealth_actions", 1000000000), "wealth_actions"),
    ],
)
def test_former_crashes_exit_with_one_error_line(tmp_path: Path, args, text: str) -> None:
    """In a subprocess: if validation ever let these through, the kernel would kill pytest."""
    key, value = args
    cmd = [sys.executable, "-m", "sim.cli", "run", "--games", "4", "--out", str(tmp_path / "o")]
    if key == "wealth_actions":
        path = tmp_path / "house.toml"
        path.write_text(f"[rules]\n{key} = {value}\n", encoding="utf-8")
        cmd += ["--rules", str(path)]
    else:
        cmd += ["--cards", str(set_file(tmp_path, first(AEGEAN, key, value)))]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode in (1, 2), proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and text in lines[0], proc.stderr
    assert not (tmp_path / "o").exists()


def test_structure_vp_beyond_the_bound_is_refused(tmp_path: Path) -> None:
    """vp = 40002 gave score_p0 = -25529 with winner = 0 (an int16 column wrapped)."""
    path = set_file(tmp_path, first(DUNES, "vp", 40002), "dunes.toml")
    with pytest.raises(CardDataError, match="field 'vp': must be a whole number from 0 to 99"):
        load_set(path)


def test_ability_without_ops_is_refused(tmp_path: Path) -> None:
    text = AEGEAN.replace('ops = [ { op = "gain_coins"', 'opz = [ { op = "gain_coins"', 1)
    text = text.replace("opz = [", "#", 1)
    with pytest.raises(CardDataError, match=r"ops': needs a non-empty list"):
        load_set(set_file(tmp_path, text))


def test_empty_ops_only_for_an_exalt_condition(tmp_path: Path) -> None:
    text = AEGEAN.replace('ops = [ { op = "gain_coins", n = 2 } ]', "ops = []", 1)
    assert text != AEGEAN
    with pytest.raises(CardDataError, match=r"ops': needs a non-empty list"):
        load_set(set_file(tmp_path, text))
    assert load_set(SETS_DIR / "aegean.toml")  # its EXALT conditions keep ops = []


# --- values at the bounds play and give rows that pass the invariants ------------------------


def _play(spec: RunSpec, changes: Changes) -> pd.DataFrame:
    from sim.run.engine import Engine

    return Engine(spec, changes=changes).play(0, spec.games).to_pandas()


@pytest.mark.parametrize("key", ["offering", "strength", "cost"])
def test_unit_values_at_the_bound_play(tmp_path: Path, key: str) -> None:
    path = set_file(tmp_path, every(AEGEAN, key, S.UNIT_INTS[key].hi))
    df = _play(RunSpec(games=40, mix="aegean", seed=1), Changes.parse(card_files=[path]))
    check_rows(df)


def test_structure_vp_at_the_bound_scores_without_wrapping(tmp_path: Path) -> None:
    path = set_file(tmp_path, every(DUNES, "vp", S.STRUCTURE_INTS["vp"].hi), "dunes.toml")
    df = _play(RunSpec(games=60, mix="dunes", seed=2), Changes.parse(card_files=[path]))
    check_rows(df)
    vp = pd.concat([df["structures_vp_p0"], df["structures_vp_p1"]]).astype("int64")
    assert (vp % 99 == 0).all() and vp.max() >= 2 * 99 and vp.max() <= 3 * 99


def test_vp_tokens_at_the_bound_fit_the_score_column() -> None:
    from sim.run.engine import check_output_fits

    check_output_fits(pd.DataFrame({"a": [0, 32767]}).to_numpy())
    with pytest.raises(RuntimeError, match="int16"):
        check_output_fits(pd.DataFrame({"a": [0, 40002]}).to_numpy())


# --- rule parameters -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("tiles_per_city", 10),  # was silently capped at 8
        ("tiles_per_city", 1000),
        ("wealth_actions", 1000000000),
        ("city_capacity", 6),
        ("structures_per_player", 4),
        ("feats_to_end", L.MAX_FEATS + 1),
        ("start_cards", -1),
    ],
)
def test_rule_parameter_out_of_range_is_refused(tmp_path: Path, key: str, value: int) -> None:
    path = tmp_path / "house.toml"
    path.write_text(f"[rules]\n{key} = {value}\n", encoding="utf-8")
    with pytest.raises(CardDataError, match=rf"field '{key}': must be a whole number from"):
        load_rule_overrides(path)
    out = tmp_path / "o"
    line = one_error_line(invoke("run", "--games", "4", "--rules", str(path), "--out", str(out)))
    assert key in line and not out.exists()


def test_feats_to_end_zero_disables_the_feat_ending(tmp_path: Path) -> None:
    """configs/README.md: "0 = feats never end it" (it ended every game after one turn)."""
    path = tmp_path / "house.toml"
    path.write_text("[rules]\nfeats_to_end = 0\n", encoding="utf-8")
    pool = load_pool("reign", rule_overrides=load_rule_overrides(path))
    assert pool.tables.rules[L.RU_END] & 0 == 0
    from sim.base import vocab as V

    assert not pool.tables.rules[L.RU_END] & V.END_CONDITIONS["feats_completed"]
    from sim.run.engine import Engine

    spec = RunSpec(games=30, mix="reign", seed=4, rules=str(path))
    df = Engine(spec).play(0, 30).to_pandas()
    check_rows(df)
    assert (df["end_reason"] != "feats_completed").all()
    assert df["turns"].min() > 2


def test_every_rule_parameter_has_a_bound() -> None:
    """Each whole-number rule parameter has a non-empty range that holds its default."""
    ints = {r.key: r for r in L.RULE_PARAMS if r.kind == "int"}
    assert set(ints) == set(S.RULE_INTS)
    for key, r in ints.items():
        assert 0 <= r.lo <= r.hi, key
        assert r.default is None or r.lo <= r.default <= r.hi, key


def test_shipped_sets_lie_inside_the_bounds() -> None:
    """Every shipped set loads (each value inside its bound) and compiles to a card table."""
    for name in ("aegean", "dunes", "reign", "aegean+dunes+reign"):
        pool = load_pool(name)
        assert len(pool.tables.card_kind) > 0, name


# --- profiles ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e308", "1001"])
def test_profile_weight_must_be_finite_and_bounded(tmp_path: Path, value: str) -> None:
    path = tmp_path / "wild.toml"
    path.write_text(
        f'[strategy]\nname = "wild"\nbot = "heuristic"\n[weights]\ncoin = {value}\n',
        encoding="utf-8",
    )
    with pytest.raises(ProfileError, match=r"wild.toml: field 'weights.coin': must be a finite"):
        load_profile(path)
    out = str(tmp_path / "o")
    line = one_error_line(invoke("run", "--games", "4", "--p0", str(path), "--out", out))
    assert "weights.coin" in line


def test_profile_weight_at_the_bound_plays(tmp_path: Path) -> None:
    path = tmp_path / "edge.toml"
    path.write_text(
        '[strategy]\nname = "edge"\n[weights]\ncoin = 1000.0\ncard = -1000\n', encoding="utf-8"
    )
    assert load_profile(path).weights.max() == 1000.0
    from sim.run.engine import Engine

    df = Engine(RunSpec(games=20, mix="aegean", p0=str(path))).play(0, 20).to_pandas()
    check_rows(df)


# --- text files are UTF-8, with the line and the fix ---------------------------------------


def _latin1(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    # The rest stays UTF-8 (the shipped files have an em dash); only the accents are Latin-1.
    data = text.encode("utf-8")
    for ch in "éè":
        data = data.replace(ch.encode("utf-8"), ch.encode("latin-1"))
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("kind", ["cards", "rules", "profile", "decks"])
def test_latin1_file_is_one_line_naming_file_line_and_fix(tmp_path: Path, kind: str) -> None:
    out = str(tmp_path / "o")
    if kind == "cards":
        path = _latin1(tmp_path, "aegean.toml", AEGEAN.replace("Eudorus", "Eudorés", 1))
        args = ["run", "--games", "4", "--cards", str(path), "--out", out]
        line_no = AEGEAN[: AEGEAN.index("Eudorus")].count("\n") + 1
    elif kind == "rules":
        path = _latin1(tmp_path, "house.toml", "# règles\n[rules]\ntiles_per_city = 3\n")
        args = ["run", "--games", "4", "--mix", "aegean+dunes", "--rules", str(path), "--out", out]
        line_no = 1
    elif kind == "profile":
        path = _latin1(tmp_path, "mine.toml", '[strategy]\nname = "mine"\n# été\n')
        args = ["run", "--games", "4", "--p0", str(path), "--out", out]
        line_no = 3
    else:
        path = _latin1(tmp_path, "decks.toml", "# deck of Hélène\np0 = []\n")
        args = ["run", "--games", "4", "--mix", "reign", "--variant", "constructed", "--decks",
                str(path), "--out", out]  # fmt: skip
        line_no = 1
    line = one_error_line(invoke(*args))
    assert path.name in line and f"line {line_no}:" in line and "UTF-8" in line, line


# --- mix specs and seeds -------------------------------------------------------------------


def test_superscript_limit_is_one_line() -> None:
    """`aegean:²` passed str.isdigit() and then crashed in int()."""
    with pytest.raises(SpecError, match="must be a whole number"):
        load_pool("dunes+aegean:²")
    assert "whole number" in one_error_line(invoke("cards", "--mix", "dunes+aegean:²"))


def test_cards_with_a_negative_seed_and_a_limited_mix_is_one_line() -> None:
    line = one_error_line(invoke("cards", "--mix", "dunes+aegean:10", "--seed", "-1"))
    assert "--seed" in line


# --- the docs are the schema -----------------------------------------------------------------


def test_configs_readme_carries_the_generated_bounds() -> None:
    """Regenerate with: python -m sim.data.schema, pasted between the markers."""
    text = (ROOT / "configs" / "README.md").read_text(encoding="utf-8")
    assert S.markdown_bounds() in text


def test_configs_readme_documents_every_key_of_the_schema() -> None:
    """The schema is the documentation: a key the loaders accept is a key the docs explain."""
    text = (ROOT / "configs" / "README.md").read_text(encoding="utf-8")
    for table, keys in S.TABLES.items():
        for key in keys:
            shown = f"`[{key}]`" if table == "profile" else f"`{key}`"
            assert shown in text, f"configs/README.md does not document {table}.{key}"


def test_shipped_profiles_lie_inside_the_bounds() -> None:
    paths = sorted(PROFILE_DIR.glob("*.toml"))
    assert paths, "the shipped profiles were found"
    for path in paths:
        assert load_profile(path).name == path.stem
