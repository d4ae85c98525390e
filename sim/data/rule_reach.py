"""Where each rule parameter can act: the declared table behind "a no-op is refused".

A rule parameter that cannot change a game of the chosen mix (``devoted_discount``
on a mix without devoted units, ``feats_to_end`` without feats) is a mistake the
runs would never show: the rows come out identical to the plain mix. So every
source of a rule value (``--rules``, ``--b-rules``, a set file given with
``--cards``, the API's ``rules=``) is checked against :data:`RULE_NEEDS`, the one
declaration of what each parameter needs to act, and refused by name.

A parameter not in the table acts in every game (coins, hands, wars, the end).
``tests/data/test_rule_reach.py`` plays every parameter the table calls inert on
each single set and checks the rows are identical to the plain set's, so the
table cannot claim a parameter is inert where it acts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sim.base import layout as L


@dataclass(frozen=True)
class MixFacts:
    """What a mix holds that a rule parameter may need: its ops, triggers, conditions,
    keywords, unit types, devotions (any devoted unit, any neutral one), structures, feats,
    its combined rules and the run's variants."""

    ops: frozenset[str]
    triggers: frozenset[str]
    conditions: frozenset[str]
    keywords: frozenset[str]
    types: frozenset[str]
    devoted: bool
    neutral: bool
    structures: bool
    feats: bool
    rules: Mapping[str, Any]
    variants: frozenset[str]


def mix_facts(pool: Any, rules: Mapping[str, Any], variants: Iterable[str] = ()) -> MixFacts:
    """The facts of ``pool`` (a :class:`sim.data.cards.CardPool`) under ``rules``."""
    entries = [*pool.units, *pool.rewards, *pool.structures]
    ops = {o["op"] for e in entries for a in e.get("abilities", []) for o in a.get("ops", [])}
    abilities = [a for e in entries for a in e.get("abilities", [])]
    triggers = {a["trigger"] for a in abilities}
    conditions = {a["when"] for a in abilities} | {o["when"] for a in abilities for o in a["ops"]}
    return MixFacts(
        ops=frozenset(ops),
        triggers=frozenset(triggers),
        conditions=frozenset(conditions),
        keywords=frozenset(k for u in pool.units for k in u["keywords"]),
        types=frozenset(u["type"] for u in pool.units),
        devoted=any(u["devotion"] != "neutral" for u in pool.units),
        neutral=any(u["devotion"] == "neutral" for u in pool.units),
        structures=bool(pool.structures),
        feats=bool(pool.feats),
        rules=dict(rules),
        variants=frozenset(variants),
    )


@dataclass(frozen=True)
class Need:
    """What a rule parameter needs in the mix to act, in words and as a test."""

    what: str
    """Completes "acts only with ..." in the refusal."""
    holds: Callable[[MixFacts], bool]
    variant: bool = False
    """The need is a run variant: a set file may carry the rule for that variant."""


_FEAT_END = Need(
    "feats and the 'feats_completed' end condition (A Reign of War)",
    lambda f: f.feats and "feats_completed" in f.rules["end_conditions"],
)
"""The need of both parameters of the feat ending (how many feats, and whose)."""

RULE_NEEDS: dict[str, Need] = {
    "devoted_discount": Need(
        "units devoted to a god and gods = true (Heir to the Dunes)",
        lambda f: f.devoted and bool(f.rules["gods"]),
    ),
    "wealth_reveal_repeats": Need(
        "wealth_reveal = 1 (it repeats the reveal)", lambda f: bool(f.rules["wealth_reveal"])
    ),
    "build_from": Need("structures in the base set", lambda f: f.structures),
    "favor_start": Need("gods = true (Heir to the Dunes)", lambda f: bool(f.rules["gods"])),
    "structure_ability": Need("structures in the base set", lambda f: f.structures),
    "structure_cards": Need("structures in the base set", lambda f: f.structures),
    "feat_timing": Need("feats (A Reign of War)", lambda f: f.feats),
    "discount_unit": Need(
        "units devoted to a god and gods = true (Heir to the Dunes)",
        lambda f: f.devoted and bool(f.rules["gods"]) and bool(f.rules["devoted_discount"]),
    ),
    "structures_per_player": Need("structures in the base set", lambda f: f.structures),
    "feats_to_end": _FEAT_END,
    "feat_step": Need("feats (A Reign of War)", lambda f: f.feats),
    "portent_step": Need(
        "units with a 'portent' ability (A Reign of War's Oracles)",
        lambda f: "portent" in f.triggers,
    ),
    "enraged_strength": Need("an 'enrage' ability (A Reign of War)", lambda f: "enrage" in f.ops),
    "soldier_ability_on_move": Need(
        "soldier units and a 'move' ability", lambda f: "soldier" in f.types and "move" in f.ops
    ),
    "vp_tokens": Need("a 'gain_vp_token' ability", lambda f: "gain_vp_token" in f.ops),
    "rewards_count_as_hand": Need(
        "a 'hand_at_most' condition or --variant extra-wealth (both count the hand)",
        lambda f: "hand_at_most" in f.conditions or "extra-wealth" in f.variants,
    ),
    "two_stacks_empty_check": Need(
        "the 'two_cities_empty' end condition",
        lambda f: "two_cities_empty" in f.rules["end_conditions"],
    ),
    "extra_wealth_bonus": Need(
        "--variant extra-wealth", lambda f: "extra-wealth" in f.variants, variant=True
    ),
    "emissary_strength_tiebreak": Need(
        "--variant emissary", lambda f: "emissary" in f.variants, variant=True
    ),
    "pile_draft_coins": Need(
        "--variant pile-draft", lambda f: "pile-draft" in f.variants, variant=True
    ),
    # The readings of open rule text (sim.data.interpretations): each switch changes one
    # step of one set, so it acts only where that step is played. war_torn_units is not
    # here: every mix has wars, so whose units make a city war-torn acts in every game.
    "reveal_repeat": Need(
        "the Dunes Wealth reveal and its repeat (wealth_reveal = 1, wealth_reveal_repeats >= 1)",
        lambda f: bool(f.rules["wealth_reveal"]) and f.rules["wealth_reveal_repeats"] > 0,
    ),
    "tribute_timing": Need(
        "a 'tribute' ability (Edge of the Aegean's Automatons)", lambda f: "tribute" in f.triggers
    ),
    "reveal_reshuffles": Need(
        "a reveal from the deck: a 'reveal_keep' ability (A Reign of War) or wealth_reveal = 1 "
        "(Heir to the Dunes)",
        lambda f: "reveal_keep" in f.ops or bool(f.rules["wealth_reveal"]),
    ),
    "emissary_favor": Need(
        "--variant emissary and gods = true (Heir to the Dunes)",
        lambda f: "emissary" in f.variants and bool(f.rules["gods"]),
        variant=True,
    ),
    "maneuver_count": Need(
        "a 'maneuver' ability (Heir to the Dunes)", lambda f: "maneuver" in f.ops
    ),
    "favor_flip": Need(
        "neutral units and gods = true (Heir to the Dunes' Favor)",
        lambda f: f.neutral and bool(f.rules["gods"]),
    ),
    "feats_end": _FEAT_END,
    "units_in_card_texts": Need(
        "COLOSSAL units beside a text that counts units (a 'gain_coins_per_unit' ability, an "
        "'own/enemy_units_here_at_least' condition, or A Reign of War's feats)",
        lambda f: (
            "COLOSSAL" in f.keywords
            and (
                "gain_coins_per_unit" in f.ops
                or bool({"own_units_here_at_least", "enemy_units_here_at_least"} & f.conditions)
                or f.feats
            )
        ),
    ),
    "reveal_keep_count": Need(
        "a 'reveal_keep' ability (A Reign of War)", lambda f: "reveal_keep" in f.ops
    ),
}


def inert_rules(
    facts: MixFacts, keys: Iterable[str], *, variants_known: bool = True
) -> list[tuple[str, str]]:
    """The parameters among ``keys`` that cannot act in the mix of ``facts``, with why.

    ``variants_known=False`` (a set file, read before the run's variants) skips the
    needs that are run variants.
    """
    out = []
    for key in keys:
        need = RULE_NEEDS.get(key)
        if need is None or (need.variant and not variants_known):
            continue
        if not need.holds(facts):
            out.append((key, f"it acts only with {need.what}"))
    return out


def deal_problem(pool: Any) -> str | None:
    """Why the combined tables of ``pool`` cannot set up or play a game, or ``None``.

    Checked after every override (set files, ``--rules``, ``--change``), whichever
    file supplied the number: the cities' reward tiles must be there to deal, the
    deck must deal both opening hands and leave a card to draw, the supply must pay
    both starting coins, and a war must be possible in a city.
    """
    r = pool.rules
    tiles = sum(x["copies"] for x in pool.rewards)
    deck = sum(u["copies"] for u in pool.units)
    if r["tiles_per_city"] > 0 and tiles < r["tiles_per_city"]:
        return (
            f"tiles_per_city = {r['tiles_per_city']} but the mix has only {tiles} reward "
            "tiles: a city cannot be dealt its stack"
        )
    if deck <= 2 * r["start_cards"]:
        return (
            f"the deck of {deck} unit cards cannot deal two opening hands of start_cards = "
            f"{r['start_cards']} and leave a card to draw"
        )
    if r["coin_supply"] < 2 * r["start_coins"]:
        return (
            f"coin_supply = {r['coin_supply']} cannot pay both players start_coins = "
            f"{r['start_coins']}"
        )
    cap = min(r["city_capacity"], L.N_SLOTS)
    if r["war_torn_enemy_units"] > cap or r["war_torn_total_units"] > 2 * cap:
        return (
            f"a war needs {r['war_torn_enemy_units']} enemy or {r['war_torn_total_units']} "
            f"units in a city of city_capacity = {r['city_capacity']}: no war is possible"
        )
    if "feats_completed" in r["end_conditions"] and r["feats_to_end"] > len(pool.feats):
        return (
            f"feats_to_end = {r['feats_to_end']} but the mix has {len(pool.feats)} feats: "
            "the feat ending can never happen"
        )
    return None
