"""Mix specs, house rules, variant composition and seat-swapped duplicate deals.

Rulebook references: Edge of the Aegean and Heir to the Dunes, "Combining Omen
Sets" (the base set, every set's end conditions, "no more than 10 units from
other games"); Edge of the Aegean, "Drafting Variants".
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import hypothesis.strategies as hs
import numpy as np
import pandas as pd
import pytest
from conftest import invoke, one_error_line
from hypothesis import HealthCheck, given, settings
from invariants import check_invariants

from sim.base import layout as L
from sim.base import vocab as V
from sim.data.cards import CardDataError, available_sets, load_pool, load_rule_overrides
from sim.data.spec import VARIANTS, RunSpec, SpecError
from sim.data.variants import refusal
from sim.run.engine import Engine
from sim.run.scenario import Scenario

SET_UNITS = {"aegean": 22, "dunes": 40, "reign": 174}


def unit_count(pool, set_name: str) -> int:
    return sum(u["copies"] for u in pool.units if u["set"] == set_name)


# --- mix specs ------------------------------------------------------------------------


def test_limited_set_adds_exactly_n_random_units() -> None:
    """Heir to the Dunes, Combining Omen Sets: "it is recommended that players add no more
    than 10 units from other games": dunes+aegean:10 is all 40 Dunes units and 10 Aegean."""
    # Checks heir-to-the-dunes.txt, line 241.
    pool = load_pool("dunes+aegean:10", seed=3)
    assert unit_count(pool, "dunes") == 40
    assert unit_count(pool, "aegean") == 10
    assert pool.mix == "dunes+aegean:10"
    assert len(pool.tables.card_kind) == 50
    # Every Aegean reward tile still joins the pool; the limit is on units.
    assert Counter(r["set"] for r in pool.rewards)["aegean"] == 6


def test_limited_pool_depends_on_the_seed_only() -> None:
    names = [
        sorted(u["name"] for u in load_pool("dunes+aegean:10", seed=s).units if u["set"] != "dunes")
        for s in (3, 3, 4)
    ]
    assert names[0] == names[1]
    assert names[0] != names[2]
    # A mix without limits is the same whatever the seed.
    assert load_pool("dunes+aegean", seed=1).card_hash() == load_pool("dunes+aegean", 2).card_hash()


def test_limit_counts_cards_not_kinds() -> None:
    """Reign kinds have several copies; reign:10 keeps 10 cards, copies drawn at random."""
    pool = load_pool("aegean+reign:10", seed=9)
    assert unit_count(pool, "reign") == 10
    full = {u["name"]: u["copies"] for u in load_pool("reign").units}
    for u in pool.units:
        if u["set"] == "reign":
            assert 1 <= u["copies"] <= full[u["name"]]


def test_limit_equal_to_the_set_is_the_whole_set() -> None:
    assert load_pool("aegean:22").card_hash() != load_pool("aegean").card_hash()  # label differs
    assert load_pool("aegean:22").units == load_pool("aegean").units


def test_three_set_mix_base_rules_and_every_end_condition() -> None:
    """Combining Omen Sets: the first set is the base; every included set's end conditions
    apply, whichever triggers first; Reign's oracles and feats bring the Portent and Feat
    steps."""
    pool = load_pool("reign+aegean+dunes", seed=1)
    reign = load_pool("reign")
    assert pool.rules["tiles_per_city"] == reign.rules["tiles_per_city"]
    assert pool.rules["hand_limit"] == reign.rules["hand_limit"]
    ends = set(pool.rules["end_conditions"])
    for s in ("reign", "aegean", "dunes"):
        assert set(load_pool(s).rules["end_conditions"]) <= ends
    assert pool.rules["portent_step"] and pool.rules["feat_step"]
    assert not pool.rules["gods"]  # devotion and Favor only with Dunes as the base
    assert load_pool("dunes+reign").rules["gods"]


@pytest.mark.parametrize(
    ("mix", "problem"),
    [
        ("dunes+atlantis", "unknown set 'atlantis'"),
        ("aegean:0", "aegean:0 keeps no units"),
        ("aegean:99", "asks for 99 units but aegean has 22"),
        ("aegean:ten", "must be a whole number"),
        ("aegean:-3", "must be a whole number"),
        ("aegean+aegean:5", "names a set twice"),
        ("", "unknown set ''"),
    ],
)
def test_bad_mix_specs_name_the_problem_and_the_valid_sets(mix: str, problem: str) -> None:
    with pytest.raises(SpecError) as err:
        load_pool(mix)
    message = str(err.value)
    assert problem in message
    assert "valid sets: " + ", ".join(available_sets()) in message
    assert "\n" not in message


@pytest.mark.parametrize("mix", ["dunes+atlantis", "aegean:0", "aegean:99"])
def test_bad_mix_on_the_command_line_is_one_line(tmp_path: Path, mix: str) -> None:
    out = tmp_path / "never"
    line = one_error_line(invoke("run", "--games", "10", "--mix", mix, "--out", str(out)))
    assert "valid sets" in line
    assert not out.exists()
    one_error_line(invoke("cards", "--mix", mix))


def test_cards_shows_the_pool_a_run_uses(tmp_path: Path) -> None:
    """`omensim cards --mix dunes+aegean:10 --seed 3` lists exactly the run's pool."""
    result = invoke("cards", "--mix", "dunes+aegean:10", "--seed", "3")
    assert result.exit_code == 0, result.output
    pool = Engine(RunSpec(games=2, mix="dunes+aegean:10", seed=3)).pool
    for u in pool.units:
        assert u["name"] in result.stdout
    dropped = {u["name"] for u in load_pool("aegean").units} - {u["name"] for u in pool.units}
    assert len(dropped) == 12
    for name in dropped:
        assert name not in result.stdout


# --- house rules (--rules) ---------------------------------------------------------------


def test_shipped_house_rules_file_makes_a_longer_game(tmp_path: Path) -> None:
    """Edge of the Aegean, Combining Omen Sets: "(3 Reward tiles for a longer game)"."""
    # Checks edge-of-the-aegean.txt, line 163.
    path = Path(__file__).parents[2] / "configs" / "rules" / "longer-game.toml"
    assert load_rule_overrides(path) == {"tiles_per_city": 3}
    sc = Scenario.from_spec(RunSpec(games=4, mix="aegean+dunes", rules=str(path)), game=0)
    assert [len(sc.stack(c)) for c in range(3)] == [3, 3, 3]
    engine = Engine(RunSpec(games=4, mix="aegean+dunes", rules=str(path)))
    assert json.loads(engine.metadata["rule_overrides"]) == {"tiles_per_city": 3}
    assert json.loads(engine.metadata["rules"])["tiles_per_city"] == 3
    assert "tiles_per_city=3" in engine.metadata["interpretations"]


@pytest.mark.parametrize(
    ("mix", "why"),
    [
        # Aegean alone has 6 reward tiles: 3 per city would deal the same 2 per city.
        ("aegean", "its 6 reward tiles fill at most 2 per city"),
        # Dunes, the base of dunes+aegean, already stacks 3 per city.
        ("dunes+aegean", "the mix already has tiles_per_city = 3"),
    ],
)
def test_house_rules_without_effect_on_the_mix_are_refused(
    tmp_path: Path, mix: str, why: str
) -> None:
    """the README's own --rules example changed nothing on Aegean, silently."""
    path = Path(__file__).parents[2] / "configs" / "rules" / "longer-game.toml"
    with pytest.raises(CardDataError, match="tiles_per_city = 3 has no effect") as err:
        load_pool(mix, rule_overrides=load_rule_overrides(path))
    assert why in str(err.value)
    out = tmp_path / "never"
    args = ("run", "--games", "10", "--mix", mix, "--rules", str(path), "--out", str(out))
    assert "tiles_per_city" in one_error_line(invoke(*args))
    assert not out.exists()


def test_house_rules_override_the_combining_defaults(tmp_path: Path) -> None:
    """Each combining decision is a named parameter: turning Reign's Feat step off in a
    reign+aegean mix, or ending only when all cities are empty."""
    path = tmp_path / "house.toml"
    path.write_text('[rules]\nfeat_step = false\nend_conditions = ["all_cities_empty"]\n')
    pool = load_pool("reign+aegean", rule_overrides=load_rule_overrides(path))
    assert pool.rules["feat_step"] is False
    assert pool.rules["end_conditions"] == ["all_cities_empty"]
    assert pool.tables.rules[L.RU_FEAT_STEP] == 0
    assert pool.tables.rules[L.RU_END] == V.END_CONDITIONS["all_cities_empty"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[rules]\ntiles_per_citi = 3\n", "field 'tiles_per_citi': unknown rule key"),
        ("[rules]\ntiles_per_city = 'three'\n", "must be a whole number"),
        ("[rules]\nfeat_step = 1\n", "must be true or false"),
        ('[rules]\nend_conditions = ["never"]\n', "unknown end_conditions 'never'"),
        ("[rules]\ncity_capacity = 99\n", "from 1 to 5, got 99"),
        ("tiles_per_city = 3\n", "unknown top-level key"),
        ("[rules]\n", "needs a non-empty [rules] table"),
        ("[rules\n", "not valid TOML"),
    ],
)
def test_bad_house_rules_are_one_line(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(CardDataError, match=None) as err:
        load_rule_overrides(path)
    assert problem in str(err.value)
    out = tmp_path / "never"
    line = one_error_line(invoke("run", "--games", "10", "--rules", str(path), "--out", str(out)))
    assert "bad.toml" in line
    assert not out.exists()


def test_missing_house_rules_file(tmp_path: Path) -> None:
    line = one_error_line(invoke("run", "--games", "10", "--rules", str(tmp_path / "nope.toml")))
    assert "nope.toml" in line


# --- variant composition -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("mix", "variants", "duplicate", "reason"),
    [
        ("reign", ("trial", "pile-draft"), False, "each build the decks; pick one"),
        ("reign+aegean", ("draft1", "simple-draft"), False, "each build the decks"),
        ("aegean", ("learning",), False, "learning needs a set with learning-game units"),
        ("dunes", ("draft2",), False, "draft2 deals 60 unit cards"),
        ("dunes:10", ("pile-draft",), False, "pile-draft needs 20 unit kinds"),
        ("aegean", ("trial",), False, "every kind needs two copies"),
        ("aegean", ("emissary",), True, "the Emissaries decide who goes first"),
    ],
)
def test_incompatible_combinations_are_refused_with_a_reason(
    mix: str, variants: tuple[str, ...], duplicate: bool, reason: str
) -> None:
    spec = RunSpec(games=2, mix=mix, variants=variants, duplicate=duplicate)
    with pytest.raises(SpecError) as err:
        Engine(spec)
    assert reason in str(err.value)


def test_refusal_on_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "never"
    args = ["run", "--games", "10", "--mix", "reign", "--variant", "trial,pile-draft"]
    line = one_error_line(invoke(*args, "--out", str(out)))
    assert "pick one" in line
    assert not out.exists()


def test_odd_game_count_with_duplicate_is_refused() -> None:
    with pytest.raises(SpecError, match="must be even"):
        RunSpec(games=7, duplicate=True)


# --- seat-swapped duplicate deals ----------------------------------------------------------


def _seat_hands(sc: Scenario) -> list[list[int]]:
    return [sorted(sc.zone_ids("hand", p)) for p in (0, 1)]


@pytest.mark.parametrize("mix", ["aegean", "dunes+aegean", "reign+aegean+dunes"])
def test_duplicate_pair_is_one_deal_with_the_other_seat_first(mix: str) -> None:
    """--duplicate: games 2k and 2k+1 have the same shuffles, the same random streams for
    each seat's decisions, and the other player first."""
    for k in (0, 5):
        a = Scenario.from_spec(RunSpec(games=20, mix=mix, seed=4, duplicate=True), game=2 * k)
        b = Scenario.from_spec(RunSpec(games=20, mix=mix, seed=4, duplicate=True), game=2 * k + 1)
        assert a.first != b.first
        assert _seat_hands(a) == _seat_hands(b)
        np.testing.assert_array_equal(a.rng_streams, b.rng_streams)
        assert [a.stack(c) for c in range(3)] == [b.stack(c) for c in range(3)]
        assert a.deck_top(10) == b.deck_top(10)


def test_duplicate_run_rows_carry_deal_ids(tmp_path: Path) -> None:
    out = tmp_path / "dup"
    args = ["run", "--games", "200", "--mix", "dunes+aegean", "--duplicate", "--out", str(out)]
    result = invoke(*args, "-q", "--p0", "greedy", "--p1", "random")
    assert result.exit_code == 0, result.output
    df = pd.read_parquet(out)
    assert (df.deal_id == df.game_id // 2).all()
    pairs = df.groupby("deal_id").first_player.agg(["nunique", "size"])
    assert (pairs["size"] == 2).all() and (pairs["nunique"] == 2).all()
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["spec"]["duplicate"] is True
    assert manifest["metadata"]["duplicate"] == "true"
    # Without --duplicate every game is its own deal.
    plain = Engine(RunSpec(games=10, mix="aegean")).play(0, 10).to_pandas()
    assert (plain.deal_id == plain.game_id).all()


def test_duplicate_pair_differs_only_by_who_starts() -> None:
    """The first game of each pair is the plain run's game k with its first player, so a
    duplicate run is a plain run plus each deal's mirror."""
    plain = Engine(RunSpec(games=20, mix="aegean", seed=8)).play(0, 10).to_pandas()
    dup = Engine(RunSpec(games=20, mix="aegean", seed=8, duplicate=True)).play(0, 20).to_pandas()
    evens = dup.iloc[0::2].reset_index(drop=True)
    cols = ["first_player", "winner", "score_p0", "score_p1", "turns"]
    pd.testing.assert_frame_equal(evens[cols], plain[cols])


# --- any accepted spec plays; any refused one says why ------------------------------------

mix_parts = hs.lists(hs.sampled_from(sorted(SET_UNITS)), min_size=1, max_size=3, unique=True)


@hs.composite
def mix_specs(draw) -> str:
    parts = []
    for name in draw(mix_parts):
        limit = draw(hs.none() | hs.integers(1, SET_UNITS[name]))
        parts.append(name if limit is None else f"{name}:{limit}")
    return "+".join(parts)


variant_lists = hs.lists(
    hs.sampled_from([v for v in VARIANTS if v != "constructed"]), max_size=3, unique=True
)


@settings(
    max_examples=int(__import__("os").environ.get("OMENSIM_EXAMPLES", 25)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    mix=mix_specs(),
    variants=variant_lists,
    duplicate=hs.booleans(),
    seed=hs.integers(0, 2**31),
    game=hs.integers(0, 10**6),
)
def test_every_spec_plays_legally_or_is_refused(mix, variants, duplicate, seed, game) -> None:
    spec = RunSpec(games=2, mix=mix, seed=seed, variants=tuple(variants), duplicate=duplicate)
    try:
        sc = Scenario.from_spec(spec, game=game)
    except SpecError as err:
        message = str(err)
        assert message and "\n" not in message
        try:  # a limit the (learning-game) set cannot meet is refused by the pool itself
            pool = load_pool(mix, seed, learning="learning" in variants)
        except SpecError as pool_err:
            assert str(pool_err) == message
            return
        assert refusal(spec, pool) == message
        return
    check_invariants(sc)
    while not sc.over:
        sc.turn()
        check_invariants(sc)
    assert sc.error == 0


def test_duplicate_run_gives_the_report_its_paired_estimate(tmp_path: Path) -> None:
    """A real --duplicate run feeds sim.analysis's paired first-player estimate: every deal
    is used, and the paired rate equals the plain rate over the same games."""
    from sim import analysis
    from sim.run import runner

    out = tmp_path / "dup"
    runner.run(RunSpec(games=400, mix="aegean", seed=6, duplicate=True), out, progress=False)
    df = analysis.load_runs([out])
    assert bool(analysis.run_info([out]).duplicate.iloc[0])
    paired = analysis.paired_first_player_advantage(df).iloc[0]
    plain = analysis.first_player_advantage(df).iloc[0]
    assert paired.deals == 200 and paired.dropped_games == 0
    assert paired.rate == pytest.approx(plain.rate)
    assert paired.lo <= paired.rate <= paired.hi
