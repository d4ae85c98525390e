"""Where the rulebooks leave a choice open, the reading omensim plays, and the other one.

Each reading names the rulebook lines that leave it open, the default omensim
plays and why, and the other reading. Where both can be played, ``switch``
names the rule parameter (a ``--rules`` file; configs/README.md) that plays
the other one. Every run's metadata holds :data:`INTERPRETATIONS` (one line of
text per reading) and :func:`readings_in_force` (which of the two each switch
played), so a dataset says which readings produced it; the table in
docs/rules-coverage.md is :func:`readings_table`, and ``omensim cards
--readings`` prints :func:`readings_text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sim.base.layout import RULE_PARAMS


@dataclass(frozen=True)
class Reading:
    """One open reading of the rulebooks."""

    key: str
    lines: str  # the rulebook lines, cited as ``file, line N``
    default: str  # what omensim plays
    other: str  # the other reading
    why: str  # why the default
    switch: str = ""  # ``rule = value`` (or a CLI option) that plays ``other``; "" when none

    @property
    def rule(self) -> str:
        """The rule parameter the switch sets ("" when the reading has none, or a CLI option)."""
        if not self.switch or self.switch.startswith("--"):
            return ""
        key = self.switch.split("=")[0].strip()
        return key if key in _PARAM_DEFAULTS else ""

    def text(self) -> str:
        """The reading as one paragraph (the run metadata's value)."""
        if self.switch.startswith("--"):
            playable = f"Other reading (option {self.switch}): {self.other}"
        elif self.switch:
            playable = f"Other reading (rule {self.switch}): {self.other}"
        else:
            playable = f"Other reading (not switchable): {self.other}"
        return f"{self.default} {playable} Why: {self.why} ({self.lines})"


_PARAM_DEFAULTS: dict[str, Any] = {r.key: r.default for r in RULE_PARAMS}
AE, DU, RE = "edge-of-the-aegean.txt", "heir-to-the-dunes.txt", "reign-of-war.en.md"

READINGS: tuple[Reading, ...] = (
    # --- every set ----------------------------------------------------------------
    Reading(
        "oldest_player",
        f"{AE}, line 43; {DU}, line 57; {RE}, line 30",
        "The 'oldest player' (who starts, and who wins a full Emissary tie) is the seat "
        "named by --first: p0, p1, alternating by game index, or random.",
        "Seats have no age; any fixed rule is another choice of the same --first.",
        "A simulator has no ages; alternating seats (the default of a run) removes the "
        "first-player bias from seat figures.",
        "--first (p0, p1, alternate, random)",
    ),
    Reading(
        "deal_by_seat",
        f"{AE}, line 40; {DU}, line 53; {RE}, line 28",
        "Starting hands are dealt seat 0 first, whoever starts.",
        "Deal the first player first.",
        "The rulebooks give no order; dealing by seat lets a --duplicate pair give each "
        "seat the same cards.",
    ),
    Reading(
        "war_torn_opponent",
        f"{AE}, line 120; {DU}, line 158; {RE}, lines 112-113",
        "The war-torn test's 'opponent' is the active player's opponent: a city is war-torn "
        "when the non-active player fills 3 or more unit-slots there, or both together 5 or "
        "more.",
        "Either player's 3 units make the city war-torn.",
        "Reign's own text says 'the opponent' of the active player (line 30 defines the "
        "word), and Reign line 177 ('even when the opponent has no units in it') only makes "
        "sense so.",
        'war_torn_units = "either_player"',
    ),
    Reading(
        "war_keep_maximal",
        f"{AE}, lines 128 and 132; {DU}, lines 170 and 180; {RE}, lines 117-119",
        "After a conflict each side keeps a maximal set of units within its allowance "
        "(1 unit-slot for the victor, 2 for the loser or a tie): never fewer than it may.",
        "A side may destroy more units than it must.",
        "'destroys all but 1' names what is destroyed: the rest stays.",
    ),
    Reading(
        "offering_split_supply",
        f"{AE}, lines 82 and 138; {DU}, line 198",
        "An Offering's coins, like every gain, are capped by the supply; the rest is lost.",
        "The player may take the missing coins as cards instead.",
        "The split is chosen before the coins are taken ('draw a number of cards and/or gain "
        "a number of coins'), and 'No player can gain more coins than are available'.",
    ),
    Reading(
        "ability_partial",
        f"{AE}, line 116; {DU}, line 154; {RE}, line 61",
        "A mandatory ability does as much as it can: with no legal target, or an empty "
        "supply or deck, the rest of it is skipped.",
        "An ability that cannot be resolved in full is not resolved at all.",
        "The rulebooks call abilities mandatory, never all-or-nothing.",
    ),
    Reading(
        "turn_cap",
        f"{AE}, line 144; {DU}, line 221; {RE}, line 134",
        "A game still running after the turn cap is stopped, scored as it stands, and "
        "marked end_reason = 'turn_cap'.",
        "Play on without a limit.",
        "Bots that never fight could play for ever; the cap is recorded, never hidden.",
    ),
    Reading(
        "war_keep_order",
        f"{AE}, lines 128-130; {DU}, lines 168-170; {RE}, lines 116-121",
        "After a conflict the victor chooses the units it keeps and destroys the rest, then the "
        "loser; on a full tie the active player chooses first, then the other player, who sees "
        "that choice.",
        "On a full tie both players choose at once, face down.",
        "The victor-then-loser order is the text's ('The loser of the conflict then "
        "destroys'); a full tie says only that 'both players must destroy all but 2', and the "
        "kernel takes one seat's choice at a time. No rule reads the other seat's keep, so "
        "only what a bot knows differs. Not yet a switch.",
    ),
    Reading(
        "war_torn_token",
        f"{AE}, lines 120 and 128; {DU}, lines 158-160 and 172",
        "The war-torn token (StateView.war_torn_token) is flipped at the start of the War step "
        "for each city war-torn then, and back to its peaceful side when that city's conflict "
        "ends; outside the War step it shows peaceful. Whether a city is war-torn "
        "(Scenario.war_torn, the kernel's is_war_torn) is worked out whenever it is asked, in "
        "any step.",
        "The token follows the city in every step: it turns as soon as units played, moved or "
        "destroyed make the city war-torn or peaceful, and again when the turn passes (the "
        "test counts the active player's opponent).",
        "Dunes line 160: a city 'can become or cease to be war-torn in any step, but conflicts "
        "are only ever resolved during the War Step', whose first act is to check every city "
        "(line 158). No rule reads the token, so play is the same; a live token would cost a "
        "war-torn test at every unit moved. Not yet a switch.",
    ),
    Reading(
        "ability_strength",
        f"{DU}, lines 123 and 151; {AE}, lines 92, 112 and 128; {RE}, lines 57 and 149",
        "A card's 'enemy unit with N or less Strength' (destroy, return: Was Scepter, "
        "Menesthius, Talos, Thunderbolt of Zeus, Ker of the Battlefield) reads the unit's "
        "strength where it stands, as a conflict would add it: the printed value with the +1 "
        "a Favored player's INVOCATION units have, ongoing effects (Moirai) and an enraged "
        "unit's 4.",
        "The printed Strength value on the card, whatever modifies it in the city.",
        "Dunes line 151 makes a Favored player's INVOCATION units '+1 strength' with no "
        "restriction to conflicts, Aegean Moirai give a unit '+N Strength', and an enraged "
        "unit 'counts as a beast of strength 4': the unit's strength is the changed one. "
        "(A build counts the printed strength of a unit in hand: build_strength.) Not yet a "
        "switch.",
    ),
    Reading(
        "reveal_reshuffles",
        f"{RE}, lines 154-156, 167-169 and 171; {DU}, lines 100 and 108",
        "A card revealed from an empty deck (a Reign 'Reveal the top N cards', the Dunes "
        "Wealth reveal) is revealed from the discard pile reshuffled into a new deck, as a "
        "draw would.",
        "A reveal from an empty deck reveals nothing: the rule to reshuffle speaks of "
        "drawing, and 'taking a revealed card into hand ... is not drawing'.",
        "Reign line 171 reshuffles 'when the unit deck runs out', whatever took the last "
        "card; line 168 says what is not drawing (for abilities that count draws), not that "
        "a reveal may find no deck.",
        "reveal_reshuffles = false",
    ),
    # --- Edge of the Aegean ------------------------------------------------------------
    Reading(
        "rally_window",
        f"{AE}, lines 94, 96 and 114",
        "RALLY abilities may be paid for after a unit is played from hand into a city (the "
        "new unit's own, or those of the player's other RALLY units there, each once); "
        "moving a unit by an ability opens no RALLY window.",
        "A unit moved into a city by an ability opens a RALLY window too: line 96 names moving "
        "among the ways to 'add a unit to their side of a city' ('play, move, or use any "
        "ability').",
        "'adds a unit to a city' is read as the Surge's way of adding units, playing them "
        "(line 94: 'pay a unit's cost and add it to a city'); a window opened by a move would "
        "interrupt the moving ability, and a RALLY that moves units (Alcimedon) could open "
        "another. Line 96's wording supports the other reading as well. Not yet a switch.",
    ),
    Reading(
        "keres_order",
        f"{AE}, line 110",
        "End-of-Surge (Keres) abilities resolve city by city, left to right, each followed by "
        "its own EXALT check.",
        "The active player chooses the order.",
        "The rulebook gives no order; a fixed one keeps the bots' decisions to the ones the "
        "rules name.",
    ),
    Reading(
        "exalt_needs_token",
        f"{AE}, lines 28, 39 and 110",
        "A Keres cannot EXALT when no VP token is left in the supply.",
        "It exalts and scores 2 VP without a token.",
        "EXALT places 'a VP token' on it, and the set has 6.",
    ),
    Reading(
        "tribute_timing",
        f"{AE}, lines 108 and 138",
        "TRIBUTE resolves after the offering's cards and coins are taken (when the draw "
        "reshuffles the discard pile, the cards a TRIBUTE could take are in the new deck).",
        "TRIBUTE resolves straight after the Automaton is discarded, before its offering's "
        "draw and coins.",
        "Line 138 makes the discard and the gain one Offering ('They then draw'), and line "
        "108 places TRIBUTE 'After an Automaton is discarded as an Offering'.",
        'tribute_timing = "after_discard"',
    ),
    Reading(
        "aegean_drafts",
        f"{AE}, lines 171 and 173",
        "In Draft Variant 1 each seat picks its 2 keeps one at a time from its own 3 cards; in "
        "Draft Variant 2 'this is repeated' is read as the whole procedure, so each of the "
        "three rounds of 20 picks its first picker at random again.",
        "Variant 2's first picker is drawn once, for all three rounds.",
        "'This is repeated two additional times' follows 'Randomly determine a player to "
        "select the first card'.",
    ),
    # --- Heir to the Dunes ---------------------------------------------------------------
    Reading(
        "dunes_seat_gods",
        f"{DU}, line 54",
        "Seat 0 serves Anubis in deals 0, 1, 4, 5, ... and Horus in the others, so the god "
        "is independent of the seat and of a first player alternating deal by deal.",
        "A fixed god per seat (--gods anubis,horus or horus,anubis).",
        "The rulebook leaves the choice to the players; a god tied to a seat would make every "
        "seat figure also a figure about gods.",
    ),
    Reading(
        "dunes_favor_flip",
        f"{DU}, lines 69, 75 and 133",
        "Only a unit devoted to the god not Favored flips Favor; a unit devoted to both "
        "always flips it; neutral units never do.",
        "Line 75 read literally: every unit 'not devoted to the god that is currently "
        "Favored' flips it, neutral ones included.",
        "Lines 69 and 133 both say 'devoted to the god not currently Favored'; line 75 "
        "alone would make neutral units flip it.",
        'favor_flip = "every_unit"',
    ),
    Reading(
        "emissary_favor",
        f"{DU}, lines 57, 59-61 and 73",
        "With the Emissary of War variant, the Favor card starts on the god of the player "
        "the Emissary made second.",
        "The Favor card is flipped at the standard set-up, to the god of the player who is "
        "not the oldest, and the Emissary (played 'After the standard setup') only changes "
        "who starts.",
        "Line 73: 'At the start of the game the second player's god will always begin "
        "Favored', and line 59 names the Emissary's winner 'the First Player for the game'.",
        'emissary_favor = "by_age"',
    ),
    Reading(
        "reveal_repeat",
        f"{DU}, line 100",
        "'The player may discard a neutral unit from their hand to repeat this process once' "
        "whatever the first reveal gave, a card kept or a card discarded.",
        "The repeat is offered only after the revealed card was discarded (a miss).",
        "The sentence follows both outcomes and names no condition but the neutral unit.",
        'reveal_repeat = "after_miss"',
    ),
    Reading(
        "dunes_devoted_to_both",
        f"{DU}, lines 87, 100, 135 and 150",
        "A unit devoted to both gods is devoted to the player's god: the Wealth reveal keeps "
        "it, it takes the first-devoted-unit discount and it opens REINFORCE.",
        "'Devoted to their god' means devoted to that god alone.",
        "Line 67: a unit is devoted 'to 1 god, neither, or both'; both includes each.",
    ),
    Reading(
        "reinforce_optional",
        f"{DU}, lines 150 and 154",
        "REINFORCE is a choice: after playing a unit devoted to their god the player may "
        "resolve one REINFORCE ability there, or none.",
        "REINFORCE is mandatory (line 154: abilities are mandatory unless they say 'may').",
        "Line 150 gives the player the choice of unit ('that player can resolve the "
        "REINFORCE ability of a single unit'), and 'can' grants, as 'may' does.",
    ),
    Reading(
        "maneuver_count",
        f"{DU}, line 152",
        "MANEUVER N ('the player may move units equal to the indicated number') moves up to N "
        "units: the player may stop early.",
        "A MANEUVER the player takes moves exactly N units (as many as can move).",
        "The text says 'may'; letting the player stop early is the more permissive "
        "reading, and the one omensim played before the switch existed.",
        'maneuver_count = "exactly"',
    ),
    Reading(
        "maneuver_units",
        f"{DU}, line 152",
        "MANEUVER moves only the player's own units.",
        "MANEUVER also moves the opponent's units ('move units', whose units unsaid).",
        "Moving the opponent's units would need rules the rulebook never gives (whose side "
        "a moved unit joins, whose capacity counts); the own units add none.",
    ),
    Reading(
        "build_from",
        f"{DU}, line 200",
        "Cards a build puts under a structure come from the top of the deck.",
        "They come from the player's hand, chosen by the player (as many as the hand holds).",
        "The rulebook does not say where from; the deck keeps a build from emptying the hand, "
        "and line 200 says only that the revealed unit comes from the hand.",
        'build_from = "hand"',
    ),
    Reading(
        "structure_ability",
        f"{DU}, lines 88, 116 and 125",
        "A completed structure's ability resolves once, in the Surge Step it is flipped.",
        "It resolves again at the start of each of its owner's later Surge Steps.",
        "Line 125 joins the resolution to the flip ('flips the structure to its completed side "
        "and resolves its ability'); line 88's turn summary ('Flip and resolve completed "
        "structures') names both acts of that check.",
        'structure_ability = "each_surge"',
    ),
    Reading(
        "structure_cards",
        f"{DU}, lines 81, 125 and 204-207",
        "The cards under a completed structure stay there, out of the game, to its end.",
        "They go to the discard pile when the structure is flipped to its completed side, so "
        "line 205 ('never have cards under more than 1 of their structures at any time') holds "
        "after a second structure is started.",
        "Nothing in the rulebook moves them; 'cards under' a completed structure are read as "
        "the structure's own, and line 205 as a rule about structures being built (line 204).",
        'structure_cards = "leave"',
    ),
    Reading(
        "discount_unit",
        f"{DU}, lines 88 and 135",
        "The first unit devoted to the player's own god (or to both) that they play each turn "
        "costs 1 less.",
        "The first devoted unit of any god costs 1 less (line 88: 'The cost of the first "
        "devoted unit played on each turn is reduced by 1').",
        "Line 135 is the rule's own paragraph and names the player's god; line 88 is the "
        "turn summary.",
        'discount_unit = "any_devoted"',
    ),
    Reading(
        "colossal_opposed",
        f"{DU}, lines 69, 129 and 176-178",
        "A COLOSSAL unit devoted to the god its owner does not serve still counts as 2 units "
        "(city capacity, war-torn test, the keep after a conflict).",
        "COLOSSAL is a keyword ability, and the abilities of such a unit cannot be resolved "
        "(line 69), so it counts as 1.",
        "Line 178 states a count ('counts as 2 units'), not something resolved; line 69 speaks of "
        "'resolving abilities'. Not yet a switch (the count would depend on the owner's god).",
    ),
    Reading(
        "dunes_war_order",
        f"{DU}, lines 166-172",
        "A conflict is resolved whole before the next: the victor takes a tile, the victor "
        "keeps 1 unit-slot and the loser 2 (a tie: both 2), the token turns peaceful, then the "
        "next war-torn city.",
        "The text's order: 'Repeat the above steps' (line 168) comes before the victor's and "
        "loser's destruction (line 170), so every war-torn city would be fought before any "
        "units were destroyed, and a city could stay war-torn and be fought again.",
        "The repeated sentence is a printing slip (it appears twice, once mid-paragraph); the "
        "worked example (lines 182-192) resolves one city whole. Not switchable: the literal "
        "order has no end.",
    ),
    Reading(
        "move_each_unit_once",
        f"{DU}, line 152; {RE}, lines 60-61 (the move abilities of every set)",
        "MANEUVER N and 'move up to N of your units' move N distinct units, each once; a "
        "Soldier moved under soldier_ability_on_move resolves once per moving ability.",
        "The same unit may be moved again by the same ability (into the Vizier's city and out "
        "to a third).",
        "'move units equal to the indicated number ... into or out of the city' counts units; "
        "a unit moved in and out would make a transfer between two other cities that no single "
        "move allows. Not a switch: the other reading is what the move rules did before.",
    ),
    Reading(
        "build_strength",
        f"{DU}, lines 151 and 200",
        "A build places cards equal to the revealed unit's printed strength.",
        "INVOCATION's +1 strength while Favored counts for the revealed Initiate too.",
        "Line 151 adds strength to 'a player's units with INVOCATION' for conflicts; a unit in "
        "hand is in no conflict. Not yet a switch.",
    ),
    Reading(
        "war_tie_printed_cost",
        f"{AE}, line 130; {DU}, line 168",
        "The war tie-break's 'highest total unit cost' adds the printed costs of the units in "
        "the city (enraged units too).",
        "It adds the costs as changed by ongoing cost effects or the discount a unit was "
        "played with (what its owner paid).",
        "A unit's cost is a printed value (Unit Card Anatomy: 'Amount of coins required to "
        "play the unit'); what was paid is not recorded on the card. Not yet a switch.",
    ),
    Reading(
        "all_structures_end",
        f"{DU}, lines 92, 207 and 221",
        "'Built all of their structures' means all completed (flipped at the start of a "
        "Surge Step), checked at the end of the active player's Offering Step.",
        "The game ends at the end of the Offering Step in which the last structure gets "
        "enough cards under it.",
        "Line 207: 'A structure is not considered complete until it has been flipped'. Not "
        "yet a switch.",
    ),
    Reading(
        "dunes_structure_target",
        f"{DU}, lines 79, 81 and 205",
        "ENTOMB and 'place cards under the structure you are building' go to the structure "
        "with cards under it, else to the first incomplete one in the set file's order.",
        "The player chooses which structure to start.",
        "A player can have cards under only one structure; the file order is a fixed choice "
        "for the case with none.",
    ),
    Reading(
        "dunes_without_gods",
        f"{DU}, line 237; {AE}, line 161",
        "When Dunes units play under a base set without gods (aegean+dunes), nobody is ever "
        "Favored and no unit is devoted to a player's god: INVOCATION and REINFORCE never "
        "resolve, there are no structures, and only MANEUVER and plain abilities work.",
        "Bring the Favor card and gods into the base set's game.",
        "'follow all rules for the included components': the gods come with the Dunes base, "
        "not with its units.",
    ),
    # --- combining sets ----------------------------------------------------------------
    Reading(
        "combine_fixed_rules",
        f"{AE}, lines 161-163; {DU}, lines 237-239; {RE}, lines 92-93",
        "In a mix the first set named is the base and supplies every fixed rule: the war "
        "tie-break, the final tie-breaks, hand and coin limits, tiles per city, coins, set-up "
        "and structures; the other sets add units and reward tiles.",
        "Each rule comes from the set whose components it governs (e.g. Dunes tie-breaks "
        "whenever Dunes units are in).",
        "'follow all rules for the included components': fixed rules belong to no component, "
        "so the base game's apply. A designer plays another base by naming it first.",
        "--mix (the first set named)",
    ),
    Reading(
        "after_play_order",
        f"{DU}, lines 133 and 150-152; {AE}, lines 114 and 161",
        "After a unit is played into a city, with the Favor card already flipped for it: its "
        "own play ability (a Reign Soldier's), its INVOCATION (if its owner is Favored), its "
        "MANEUVER, then the REINFORCE choice (a unit devoted to its owner's god), then the "
        "RALLY window, for the RALLY units then in that city. A Dunes "
        "game meets one of them per play; a mix with Aegean units meets REINFORCE and RALLY on "
        "one play (a Follower played beside a Myrmidon).",
        "The player chooses the order of the after-play abilities of one play.",
        "Each rulebook orders only its own: Dunes line 133 puts the Favor flip before any "
        "ability, and neither book orders its keywords against the other's. A fixed order "
        "keeps the bots' decisions to the ones the rules name (as keres_order), and RALLY, "
        "paid for ('they may pay the indicated cost'), comes once the play's own effects are "
        "known. Not yet a switch.",
    ),
    Reading(
        "combine_end_conditions",
        f"{AE}, line 161; {DU}, line 239; {RE}, line 93",
        "In a mix every included set's end conditions apply, whichever comes first.",
        "Only the base set's end conditions apply.",
        "'be sure to follow any alternate game end conditions from the content used in each "
        "game' (Dunes line 239); Reign line 93 keeps a Beast's 2 unit-slots 'also when combined "
        "with other games'.",
        "end_conditions = [...] (a --rules file names the list)",
    ),
    # --- Edge of the Aegean, more ------------------------------------------------------
    Reading(
        "keres_whose",
        f"{AE}, line 110",
        "At the end of the active player's Surge only that player's Keres resolve, and the one "
        "just resolved is the one that may EXALT.",
        "Every Keres in play (both players') resolves at the end of each Surge, and any of the "
        "player's Keres meeting its condition may EXALT.",
        "The Surge is the active player's step and abilities are resolved by their owner; "
        "EXALT follows 'After a Keres resolves its ability'. Not yet a switch.",
    ),
    Reading(
        "draft_passed_card",
        f"{AE}, line 171",
        "Draft Variant 1: the card each player passes goes to the other player's kept cards "
        "(it is dealt to them), so each ends with 30.",
        "The passed card goes back under the deck, or to the other player's next set of 3.",
        "The text says 'pass 1' to the other player and stops at 30 each; a passed card "
        "kept by the receiver is what makes 30. Not yet a switch.",
    ),
    # --- A Reign of War -----------------------------------------------------------------
    Reading(
        "reward_deal",
        f"{RE}, lines 26-27 and 42-45 (reign-of-war.zh.txt, lines 9 and 35)",
        "A two-player Reign game deals 12 reward cards, three stacks of 4, one at a time in "
        "turn; the cards the Cards section keeps for the 4-player melee are extra cards "
        "outside those 12 and are never dealt, in Reign or in any mix with it.",
        "The melee cards are among the 12, leaving fewer for a two-player game.",
        "Setup says 'shuffle the 12 reward cards and split them into three equal stacks'; "
        "the melee needs pieces of its own, and published accounts of two-player play "
        "describe four reward cards per city.",
    ),
    Reading(
        "soldier_ability_on_move",
        f"{RE}, lines 60-61 and 85-87",
        "A Soldier's ability triggers when it is played into a city; moving it triggers nothing.",
        "A Soldier moved into another city by an ability resolves its ability again there "
        "(once the moving ability has resolved, unless enraged; moves made by an ability a "
        "move triggered trigger nothing more).",
        "The rulebook speaks only of playing; the other reading is a first-edition review's "
        "account of play.",
        "soldier_ability_on_move = true",
    ),
    Reading(
        "beast_one_ability",
        f"{RE}, lines 62-63 and 95-96",
        "A Beast paid for and discarded resolves one ability: the first 'beast' block of its "
        "card. Every shipped Beast has exactly one, holding all of its text's ops; a card file "
        "giving a Beast a second block is refused.",
        "Every 'beast' block of the card resolves, in order, as every 'play' block of a "
        "Soldier does.",
        "The rulebook gives a Beast one ability ('discarded to resolve their ability'; 'resolve "
        "the ability, then discard the card'). Not a switch: no shipped card has a second "
        "block, so both readings play the same games, and a block already holds any number "
        "of ops.",
    ),
    Reading(
        "reveal_keep_count",
        f"{RE}, lines 60-61, 154-155 and 167",
        "'Reveal the top N cards of the deck; keep M and discard the rest' keeps up to M: the "
        "player may stop early, and every revealed card not kept is discarded.",
        "The player keeps M (all the revealed cards, if fewer were revealed): an ability is "
        "mandatory unless its text says 'may' (line 61).",
        "Line 167 makes discarding the rule and keeping the exception a card's text grants, "
        "and the card texts are reconstructed, not the printed wording. The readings part "
        "only where holding a card can hurt: a hand-size condition, the extra-wealth "
        "variant's 'no cards in hand', a mix's hand limit.",
        'reveal_keep_count = "exactly"',
    ),
    Reading(
        "reign_feat_end",
        f"{RE}, lines 134-137",
        "The game ends when either player holds 5 completed feats at the end of a turn.",
        "Only the opponent's 5 feats end it, as the Chinese text reads.",
        "The translation notes the ambiguity; a player's own 5 feats ending the game is the "
        "plausible intent (line 68: 'a player has completed 5 of their 6 feat cards').",
        'feats_end = "opponent"',
    ),
    Reading(
        "reign_enraged_type",
        f"{RE}, lines 120 and 148-152",
        "An enraged Soldier or Oracle counts as a Beast for feats, the Soldier war "
        "tie-break and a card's 'another Soldier here', keeps its enraged state when moved, "
        "and turns back in its owner's Supply step.",
        "An enraged unit keeps its printed type for feats, the tie-break and card texts.",
        "'it counts as a beast of strength 4 with no abilities'.",
    ),
    Reading(
        "units_in_card_texts",
        f"{RE}, lines 91-92, 148-152 and 165; {AE}, lines 96 and 122; {DU}, lines 129 and 178",
        "A card or feat text that counts units ('1 coin for each of your units here', 'N or "
        "more units here', 'N units in one city') counts a Beast and an enraged unit as 2 and "
        "every other unit, a COLOSSAL one included, as 1.",
        "Every unit is counted as the city's capacity counts it: a COLOSSAL unit is 2 as well.",
        "Reign: 'a beast always counts as 2 units' and an enraged unit 'counts as a beast'; the "
        "Aegean and Dunes books give a COLOSSAL unit its 2 only 'for the purpose of' the "
        "capacity, the war-torn test and the keep after a conflict.",
        'units_in_card_texts = "capacity"',
    ),
    Reading(
        "extra_wealth_bonus",
        f"{RE}, lines 72-78",
        "Extra-wealth variant: the Wealth Action Bonus applies when every action of the turn, "
        "extra ones included, went one way.",
        "No bonus on a turn with extra actions: the rule speaks of 'All 3'.",
        "'All 3' names the base count; the first turn's 2 actions keep the bonus (line 74), "
        "so the count is not what earns it.",
        'extra_wealth_bonus = "three_actions"',
    ),
    Reading(
        "reign_rewards_in_hand",
        f"{RE}, lines 38-42 and 77-78",
        "Reward cards kept in hand do not count as cards in hand for 'no cards in hand' "
        "(extra wealth) and hand-size conditions.",
        "The unused reward cards in hand count.",
        "A reward card is kept 'in hand' to score (line 40); the variant helps a player "
        "short of units or coins, and a kept reward card is neither.",
        "rewards_count_as_hand = true",
    ),
    Reading(
        "two_stacks_empty_check",
        f"{RE}, lines 68 and 134; {DU}, line 221",
        "'Two cities' reward stacks are empty' is checked at the end of the turn, like the "
        "Aegean end.",
        "The game ends as soon as the War step empties the second stack, skipping the "
        "Supply (Offering) step.",
        "Reign's text gives no moment; the later sets check at the end of the turn.",
        'two_stacks_empty_check = "after_war"',
    ),
    Reading(
        "feat_timing",
        f"{RE}, lines 47-49 and 108",
        "A feat is completed only in its owner's Feat step, if its condition holds then.",
        "A feat is completed whenever its condition is met (lines 47-49); omensim checks both "
        "players' feats at the end of every step, so a condition met only inside one step is "
        "still missed.",
        "Line 108 is the step the turn gives feats ('Check your feat cards; turn face down each "
        "one whose condition you now meet'); lines 47-49 describe the card.",
        'feat_timing = "each_step"',
    ),
    Reading(
        "reign_drafts",
        f"{RE}, lines 204-211 and 224-228",
        "Pile draft: the younger player (the seat that does not start) picks first, the coin "
        "put in the middle per pick is not played (each player then starts with the usual "
        "4 coins, not 10), piles not taken stay in the box; simple draft: the two packets "
        "change hands after every pick.",
        "The 10 coins are the player's coins for the game, less the 1 put in per pick (back "
        "in the supply): none are left after 10 piles. pile_draft_coins = N plays N coins.",
        "The text does not explain the coin ('not explained further'); the normal set-up is "
        "the game as played.",
        "pile_draft_coins = 10",
    ),
)

INTERPRETATIONS: dict[str, str] = {r.key: r.text() for r in READINGS}
"""Every reading as one paragraph, by key: written to every run's metadata."""


def readings_table() -> str:
    """The readings as a Markdown table (docs/rules-coverage.md)."""
    out = [
        "| reading | rulebook lines | default (why) | other reading | switch |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in READINGS:
        cell = [r.key, r.lines, f"{r.default} *Why:* {r.why}", r.other]
        cell.append(f"`{r.switch}`" if r.switch else "none")
        out.append("| " + " | ".join(c.replace("|", "/") for c in cell) + " |")
    return "\n".join(out)


def readings_in_force(rules: dict[str, Any]) -> dict[str, str]:
    """Per reading, which one a game with ``rules`` plays: ``"default"``, or ``"other: KEY =
    VALUE"`` when a switch is set to another value (every run's ``readings`` metadata)."""
    out = {}
    for r in READINGS:
        key = r.rule
        default = _PARAM_DEFAULTS.get(key)
        if key and default is not None and key in rules and rules[key] != default:
            out[r.key] = f"other: {key} = {_toml(rules[key])}"
        else:
            out[r.key] = "default"
    return out


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return f'"{value}"' if isinstance(value, str) else str(value)


def readings_text(rules: dict[str, Any]) -> str:
    """The readings as ``omensim cards --readings`` prints them: one block per reading with its
    lines, the one in force under ``rules``, the default and the other reading."""
    force = readings_in_force(rules)
    blocks = []
    for r in READINGS:
        switch = r.switch or "none"
        blocks.append(
            f"{r.key}  [{force[r.key]}]\n  lines: {r.lines}\n  default: {r.default}\n"
            f"  other: {r.other}\n  switch: {switch}\n  why: {r.why}"
        )
    return "\n\n".join(blocks)
