"""Which variants compose with which mixes, and why the rest are refused.

``--variant`` takes any list and ``--mix`` any combination of sets, so the
combinations that cannot be played are refused here, in one place, each with
the reason a player would give: two variants that both build the decks, a
pool too small for a draft, a variant whose components are not in the mix, and
tables that cannot deal a game at all (:func:`sim.data.rule_reach.deal_problem`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sim.data.cards import CardDataError, CardPool
from sim.data.rule_reach import deal_problem, inert_rules, mix_facts
from sim.data.spec import VARIANT_TABLE, RunSpec, SpecError

# Variants that build each player's own deck before play; a game has one deck-building rule.
DECK_BUILDERS: tuple[str, ...] = tuple(v.name for v in VARIANT_TABLE if v.builds_decks)
# Cards each drafting variant deals out in all (30 per player).
DRAFT_CARDS: dict[str, int] = {v.name: v.cards for v in VARIANT_TABLE if v.cards}
PILE_DRAFT_KINDS = 20  # 10 piles each


def refusal(spec: RunSpec, pool: CardPool) -> str | None:
    """Why ``spec``'s variants cannot be played with ``pool``, or ``None`` if they can."""
    variants = set(spec.variants)
    mix = f"--mix {spec.mix!r}"
    problem = deal_problem(pool)
    if problem is not None:
        return f"{mix} cannot be played: {problem}"
    builders = [v for v in DECK_BUILDERS if v in variants]
    if len(builders) > 1:
        return f"--variant {' and '.join(builders)} each build the decks; pick one"
    if "learning" in variants and not any(u["learning"] for u in pool.units):
        return f"--variant learning needs a set with learning-game units (reign); {mix} has none"
    cards = sum(u["copies"] for u in pool.units)
    for v in builders:
        need = DRAFT_CARDS.get(v)
        if need is not None and cards < need:
            why = (
                " (the Aegean rulebook's drafts need the units of other Omen sets too)"
                if v.startswith("draft")
                else ""
            )
            return f"--variant {v} deals {need} unit cards, 30 per player; {mix} has {cards}{why}"
    if "pile-draft" in variants and len(pool.units) < PILE_DRAFT_KINDS:
        return (
            f"--variant pile-draft needs {PILE_DRAFT_KINDS} unit kinds to draft 10 piles each; "
            f"{mix} has {len(pool.units)}"
        )
    if "trial" in variants and min(u["copies"] for u in pool.units) < 2:
        return (
            "--variant trial gives each player one card of every kind, so every kind needs "
            f"two copies (reign); {mix} has kinds with one"
        )
    if spec.gods != "alternate" and not pool.rules.get("gods"):
        return (
            f"--gods {spec.gods} needs a mix whose base set has gods (dunes, dunes+...); "
            f"{mix} has none"
        )
    if spec.duplicate and "emissary" in variants:
        return (
            "--duplicate replays each deal with the other seat first, but with --variant "
            "emissary the Emissaries decide who goes first; run them separately"
        )
    return None


def check_composition(spec: RunSpec, pool: CardPool) -> None:
    """Raise :class:`SpecError` with the one-line reason if ``spec`` cannot be played."""
    reason = refusal(spec, pool)
    if reason is not None:
        raise SpecError(reason)


def check_reach(pool: CardPool, overrides: Mapping[str, Any], variants: Iterable[str]) -> None:
    """Refuse house rules that cannot act in the run (:data:`sim.data.rule_reach.RULE_NEEDS`).

    Raises:
        sim.data.cards.CardDataError: one line naming the parameter and why.
    """
    facts = mix_facts(pool, pool.rules, variants)
    inert = inert_rules(facts, overrides)
    if inert:
        key, why = inert[0]
        raise CardDataError(
            f"--rules: {key} = {overrides[key]} has no effect on mix {pool.mix!r}: {why}; "
            "remove it or choose a mix it changes"
        )
