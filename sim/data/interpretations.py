"""Where the rulebooks leave a choice open, the reading omensim plays.

Each entry is written to every run's metadata, so a dataset says which
reading produced it. docs/rules.md lists the same entries.
"""

from __future__ import annotations

INTERPRETATIONS: dict[str, str] = {
    "oldest_player": (
        "The rulebooks' 'oldest player' (who starts, and who wins an Emissary tie) is the "
        "seat named by --first: p0, p1, alternating by game index, or random."
    ),
    "war_torn_opponent": (
        "The war-torn test's 'opponent' is the active player's opponent: a city is war-torn "
        "when the non-active player fills 3 or more unit-slots there, or both together 5 or more."
    ),
    "rally_window": (
        "RALLY abilities may be paid for after a unit is played from hand into a city "
        "(the new unit's own, or those of the player's other RALLY units there, each once); "
        "moving a unit by an ability opens no RALLY window."
    ),
    "keres_order": (
        "End-of-Surge (Keres) abilities resolve city by city, left to right, each followed "
        "by its own EXALT check."
    ),
    "exalt_needs_token": "A Keres cannot EXALT when no VP token is left in the supply.",
    "war_keep_maximal": (
        "After a conflict each side keeps a maximal set of units within its allowance "
        "(1 unit-slot for the victor, 2 for the loser or a tie): never fewer than it may."
    ),
    "offering_split_supply": (
        "An Offering's coins, like every gain, are capped by the supply; the rest is lost."
    ),
    "ability_partial": (
        "A mandatory ability does as much as it can: with no legal target, or an empty "
        "supply or deck, the rest of it is skipped."
    ),
    "dunes_seat_gods": (
        "Heir to the Dunes: the players choose their gods; seat 0 serves Anubis in deals "
        "0, 1, 4, 5, ... and Horus in the others (--gods fixes them)."
    ),
    "dunes_favor_flip": (
        "Only a unit devoted to the god not Favored flips Favor (Devotion; Devotion and Favor); "
        "a unit devoted to both always flips it; neutral units never do, although the Favor "
        "section, read literally, would flip on them too."
    ),
    "dunes_structure_target": (
        "ENTOMB and 'place cards under the structure you are building' go to the structure "
        "with cards under it, else to the first incomplete one in the set file's order."
    ),
    "dunes_without_gods": (
        "When Dunes units play under a base set without gods (aegean+dunes), nobody is ever "
        "Favored and no unit is devoted to a player's god: INVOCATION and REINFORCE never "
        "resolve, there are no structures, and only MANEUVER and plain abilities work."
    ),
    "reward_deal": (
        "Reward tiles/cards are dealt to the cities one at a time in turn. A two-player "
        "Reign game deals 12 reward cards, three stacks of 4: Setup says 'shuffle the 12 "
        "reward cards and split them into three equal stacks' (reign-of-war.zh.txt, line 9). "
        "The cards the Cards section keeps for the 4-player melee (two small circles, "
        "line 35) are read as extra cards outside those 12, since the melee needs pieces "
        "of its own (Match/Victory cards) and published accounts of two-player play "
        "describe four reward cards per city; they are never dealt, in Reign or in any "
        "mix that includes it."
    ),
    "soldier_ability_on_move": (
        "A Soldier's ability triggers when it is played into a city (reign-of-war.zh.txt, "
        "lines 58 and 84); the rulebook is silent on moves. Default "
        "(soldier_ability_on_move = false, the rulebook's text): moving a Soldier "
        "triggers nothing. With soldier_ability_on_move = true (a first-edition review's "
        "account of play): a Soldier moved into another city by an ability resolves its "
        "ability again there, once the moving ability has resolved, unless it is enraged; "
        "moves made by an ability a move triggered trigger nothing more, so no Soldier "
        "can trigger itself without end."
    ),
    "reign_feat_end": (
        "A Reign of War ends when either player holds 5 completed feats at the end of a "
        "turn (the Chinese text names the opponent; the translation notes the ambiguity)."
    ),
    "reign_enraged_type": (
        "An enraged Soldier or Oracle counts as a Beast for feats and the Soldier war "
        "tie-break, keeps its enraged state when moved, and turns back in its owner's "
        "Supply step."
    ),
    "reign_drafts": (
        "Drafts (Reign): in the pile draft the younger player (the seat that does not start) "
        "picks first and the coin paid per pick is not modelled; in the simple draft the two "
        "packets change hands after every pick. Undrafted cards stay in the box."
    ),
    "aegean_drafts": (
        "Aegean drafts: in Draft Variant 1 each seat picks its 2 keeps one at a time from its "
        "own 3 cards; in Draft Variant 2 'this is repeated' is read as the whole procedure, "
        "so each of the three rounds of 20 picks its first picker at random again."
    ),
    "deal_by_seat": (
        "Starting hands are dealt seat 0 first whoever starts (the rulebooks give no order), "
        "so a --duplicate pair gives each seat the same cards."
    ),
    # Readings that are rule parameters (a --rules file switches them; configs/README.md).
    "extra_wealth_bonus": (
        "Reign extra-wealth variant: the Wealth Action Bonus applies when every action of the "
        "turn, extra ones included, went one way (rule extra_wealth_bonus = 'all_actions'). "
        "The rule speaks of 'All 3'; 'three_actions' gives no bonus on a turn with extra actions."
    ),
    "reign_rewards_in_hand": (
        "Reign reward cards kept in hand do not count as cards in hand for 'no cards in hand' "
        "(extra wealth) and hand-size conditions (rule rewards_count_as_hand = false); true "
        "counts the unused ones."
    ),
    "two_stacks_empty_check": (
        "'Two cities' reward stacks empty' (Reign, Dunes) is checked at the end of the turn, "
        "like the Aegean end (rule two_stacks_empty_check = 'end_of_turn'); 'after_war' ends "
        "the game as soon as the War step empties the second stack, skipping the Offering step."
    ),
    "maneuver_units": (
        "Dunes MANEUVER ('the player may move units ... without MANEUVER into or out of the "
        "city') moves only the player's own units (rule maneuver_units = 'own'). Moving the "
        "opponent's units is the other reading; it is named but not yet playable."
    ),
    "build_from": (
        "Cards a Dunes build puts under a structure come from the top of the deck (rule "
        "build_from = 'deck'); the rulebook does not say where from. Taking them from hand "
        "is the other reading; it is named but not yet playable."
    ),
    "turn_cap": (
        "A game still running after the turn cap is stopped, scored as it stands, and "
        "marked end_reason = 'turn_cap'."
    ),
}
