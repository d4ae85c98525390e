"""Decks built before play: every variant that gives each player their own deck.

Reign's Trial of Skill, simple draft, pile draft and constructed decks, and
the Aegean's two drafting variants. After any of them ``OWN_DECKS`` is set,
so every draw and discard goes to the seat's own pile ("any ability that
references the deck or the discard pile refers to the player's own"), and
cards nobody took wait in the box.

A draft keeps where it stands in the state, not in local variables: the picks
made (``DRAFT_PICK``), the seat to pick next (``DRAFT_SEAT``), the cards on the
table (``DRAFT``) and the piles taken (``PILES``). ``draft_run`` plays picks
from wherever the draft stands, so the game runs it from pick 0 and a
look-ahead rollout finishes it with ``draft_rest`` after trying one option of
the pick being asked: every draft rule is written once, in ``draft_options``
(what the next pick offers) and ``draft_take`` (taking one).
"""

from __future__ import annotations

from sim.base import layout as L
from sim.base import vocab as V
from sim.compiler import kernel
from sim.kernel import decisions as D
from sim.kernel.rng import randint, shuffle
from sim.kernel.tab import card_kind, kind_col, n_cards, rule
from sim.kernel.zones import opt, put_opt


@kernel
def box_all(st, tab):
    """Every unit card into the box, shuffled: the shared deck a draft deals from."""
    st[L.OWN_DECKS] = 1
    for c in range(n_cards(tab)):
        st[L.BOX + c] = c
    st[L.BOX_N] = n_cards(tab)
    shuffle(st, L.BOX, st[L.BOX_N], L.RNG_DECK)


@kernel
def _take_from_box(st):
    """The top card of the shuffled box."""
    st[L.BOX_N] -= 1
    return st[L.BOX + st[L.BOX_N]]


@kernel
def _to_own_deck(st, p, card):
    """Put a drafted card face down on seat ``p``'s own pile."""
    st[L.DECK + p * L.MAX_CARDS + st[L.DECK_N + p]] = card
    st[L.DECK_N + p] += 1


@kernel
def _shuffle_own_decks(st):
    """ "Each player shuffles their 30 cards to form their deck." """
    for p in range(2):
        shuffle(st, L.DECK + p * L.MAX_CARDS, st[L.DECK_N + p], L.RNG_DECK)


@kernel
def trial_decks(st, tab):
    """Reign, Trial of Skill: "Each player gets a deck of 50 cards, one of each unit kind;
    each player draws from and discards to their own deck and discard pile."

    Seat 0 takes the first copy of every kind and seat 1 the second; other
    copies stay in the box. (The compiler refuses the variant unless every
    kind has two copies.)
    """
    st[L.OWN_DECKS] = 1
    last = -1
    taken = 0
    for c in range(n_cards(tab)):
        k = card_kind(tab, c)
        taken = taken + 1 if k == last else 0
        last = k
        if taken < 2:
            st[L.DECK + taken * L.MAX_CARDS + st[L.DECK_N + taken]] = c
            st[L.DECK_N + taken] += 1
        else:
            st[L.BOX + st[L.BOX_N]] = c
            st[L.BOX_N] += 1
    for d in range(2):
        shuffle(st, L.DECK + d * L.MAX_CARDS, st[L.DECK_N + d], L.RNG_DECK)


DRAFT_PACKET = 10  # cards dealt to each player per round of the simple draft
DRAFT_ROUNDS = 3  # rounds until each player has 30 cards
SIMPLE_ROUND = 2 * DRAFT_PACKET  # picks per round of the simple draft (both seats)
PACKET_STRIDE = 16  # slots between the simple draft's two packets in DRAFT

PILES_EACH = 10
PILE_LIMITS_SOLDIER = 6
PILE_LIMITS_BEAST = 4
PILE_LIMITS_ORACLE = 4

AEGEAN_DRAFT_DECK = 30  # cards each player drafts in either Aegean variant
DRAFT1_DRAW = 3  # Draft Variant 1: draw 3, keep 2, pass 1
DRAFT1_ROUND = 2 * (DRAFT1_DRAW - 1)  # picks per round of Variant 1 (two keeps each)
DRAFT1_STRIDE = 4  # slots between the two seats' three cards in DRAFT
DRAFT2_SPREAD = 20  # Draft Variant 2: 20 cards face up per round

# Which draft the rules switch on (the kinds of ``draft_kind``).
DK_NONE = 0
DK_SIMPLE = 1  # Reign simple draft
DK_PILE = 2  # Reign pile draft, and the constructed variant's listed piles
DK_DRAFT1 = 3  # Aegean Draft Variant 1
DK_DRAFT2 = 4  # Aegean Draft Variant 2


@kernel
def draft_kind(tab):
    """The draft the rules switch on (DK_*); DK_NONE without one (Trial of Skill has none)."""
    if rule(tab, L.RU_TRIAL):
        return DK_NONE
    if rule(tab, L.RU_SIMPLE_DRAFT):
        return DK_SIMPLE
    if rule(tab, L.RU_PILE_DRAFT) or rule(tab, L.RU_CONSTRUCTED):
        return DK_PILE
    if rule(tab, L.RU_DRAFT1):
        return DK_DRAFT1
    if rule(tab, L.RU_DRAFT2):
        return DK_DRAFT2
    return DK_NONE


@kernel
def draft_picks(tab):
    """Picks the draft makes in all (both seats): 60 simple, 20 piles, 40 keeps, 60 picks."""
    dk = draft_kind(tab)
    if dk == DK_SIMPLE:
        return DRAFT_ROUNDS * SIMPLE_ROUND
    if dk == DK_PILE:
        return 2 * PILES_EACH
    if dk == DK_DRAFT1:
        return AEGEAN_DRAFT_DECK // DRAFT1_DRAW * DRAFT1_ROUND
    if dk == DK_DRAFT2:
        return AEGEAN_DRAFT_DECK * 2
    return 0


@kernel
def _deal(st, off, n):
    """``n`` cards from the top of the box onto the table at ``DRAFT`` slot ``off``."""
    for j in range(n):
        st[L.DRAFT + off + j] = _take_from_box(st)


@kernel
def _list_slots(st, off, n_slots):
    """One option (slot, card, 0, 0) per card still at ``DRAFT`` slots ``off..off+n_slots``."""
    n = 0
    for j in range(n_slots):
        card = st[L.DRAFT + off + j]
        if card >= 0:
            put_opt(st, n, j, card, 0, 0)
            n += 1
    return n


@kernel
def held_slot(st, tab, p):
    """The ``DRAFT`` slot where the cards seat ``p`` picks from start (``table_slots`` of
    them): in the simple draft the packet ``p`` holds now (the two packets change hands
    after every pick: "keeps 1 and passes the rest to the left"), in Aegean Draft Variant 1
    ``p``'s own three cards, in Variant 2 the shared spread."""
    dk = draft_kind(tab)
    if dk == DK_SIMPLE:
        pick = st[L.DRAFT_PICK] % SIMPLE_ROUND // 2
        return PACKET_STRIDE * ((p + pick) % 2)
    if dk == DK_DRAFT1:
        return DRAFT1_STRIDE * p
    return 0


# The pile draft's type slots (layout.PILE_TYPES of them), each with its own pile limit.
PILE_SOLDIER = 0
PILE_BEAST = 1
PILE_ORACLE = 2
PILE_OTHER = 3  # units of other sets


@kernel
def _pile_slot(tab, k):
    """Kind ``k``'s pile-type slot: 0 soldier, 1 beast, 2 oracle, 3 units of other sets."""
    t = kind_col(tab, k, L.K_TYPE)
    if t == V.T_SOLDIER:
        return PILE_SOLDIER
    if t == V.T_BEAST:
        return PILE_BEAST
    if t == V.T_ORACLE:
        return PILE_ORACLE
    return PILE_OTHER


@kernel
def _pile_limit(slot):
    """Piles of type slot ``slot`` one player may take (units of other sets: no limit)."""
    if slot == PILE_SOLDIER:
        return PILE_LIMITS_SOLDIER
    if slot == PILE_BEAST:
        return PILE_LIMITS_BEAST
    if slot == PILE_ORACLE:
        return PILE_LIMITS_ORACLE
    return 99


@kernel
def _pile_options(st, tab):
    """One option (kind, first card, copies, type slot) per pile the picking seat may take."""
    p = st[L.DRAFT_SEAT]
    n = 0
    first = 0
    for k in range(tab[L.TB_N_KINDS]):
        copies = 0
        while first + copies < n_cards(tab) and card_kind(tab, first + copies) == k:
            copies += 1
        slot = _pile_slot(tab, k)
        if (
            st[L.DRAFT + k] == 0
            and copies > 0
            and st[L.PILES + L.PILE_TYPES * p + slot] < _pile_limit(slot)
        ):
            put_opt(st, n, k, first, copies, slot)
            n += 1
        first += copies
    return n


@kernel
def draft_options(st, tab):
    """List the options of the next pick (seat ``st[DRAFT_SEAT]``'s) in ``st[OPTS]``; how many."""
    if draft_kind(tab) == DK_PILE:
        return _pile_options(st, tab)
    return _list_slots(st, held_slot(st, tab, st[L.DRAFT_SEAT]), table_slots(tab))


@kernel
def draft_begin(st, tab):
    """Lay out the draft's first pick: the box shuffled and the first cards dealt, or the
    piles ready; the picking seat set."""
    dk = draft_kind(tab)
    st[L.DRAFTING] = 1
    st[L.DRAFT_PICK] = 0
    st[L.DRAFT_SEAT] = 0
    if dk == DK_PILE:
        st[L.OWN_DECKS] = 1
        for k in range(tab[L.TB_N_KINDS]):
            st[L.DRAFT + k] = 0
        for i in range(2 * L.PILE_TYPES):
            st[L.PILES + i] = 0
        st[L.DRAFT_SEAT] = 1 - st[L.OLDEST]  # "The younger player ... takes 1 pile"
        return
    box_all(st, tab)
    if dk == DK_SIMPLE:
        for q in range(2):
            _deal(st, PACKET_STRIDE * q, DRAFT_PACKET)
    elif dk == DK_DRAFT1:
        for p in range(2):
            _deal(st, DRAFT1_STRIDE * p, DRAFT1_DRAW)
    else:
        _deal(st, 0, DRAFT2_SPREAD)
        st[L.DRAFT_SEAT] = randint(st, L.RNG_SETUP, 2)


@kernel
def draft_take(st, tab, k):
    """The picking seat takes option ``k`` of the listed pick; the draft moves to the next
    pick (the next seat, and the next cards dealt when a round ends)."""
    dk = draft_kind(tab)
    p = st[L.DRAFT_SEAT]
    if dk == DK_PILE:
        st[L.DRAFT + opt(st, k, 0)] = 1
        st[L.PILES + L.PILE_TYPES * p + opt(st, k, 3)] += 1
        for c in range(opt(st, k, 1), opt(st, k, 1) + opt(st, k, 2)):
            _to_own_deck(st, p, c)
    else:
        st[L.DRAFT + held_slot(st, tab, p) + opt(st, k, 0)] = -1
        _to_own_deck(st, p, opt(st, k, 1))
    t = st[L.DRAFT_PICK] + 1
    st[L.DRAFT_PICK] = t
    more = t < draft_picks(tab)
    if dk == DK_SIMPLE:
        st[L.DRAFT_SEAT] = t % 2
        if t % SIMPLE_ROUND == 0 and more:
            for q in range(2):
                _deal(st, PACKET_STRIDE * q, DRAFT_PACKET)
    elif dk == DK_DRAFT1:
        # Each seat keeps 2 of its 3, then passes the card left to the other.
        st[L.DRAFT_SEAT] = t % DRAFT1_ROUND // (DRAFT1_DRAW - 1)
        if t % DRAFT1_ROUND == 0:
            for q in range(2):
                for j in range(DRAFT1_DRAW):
                    if st[L.DRAFT + DRAFT1_STRIDE * q + j] >= 0:
                        _to_own_deck(st, 1 - q, st[L.DRAFT + DRAFT1_STRIDE * q + j])
            if more:
                for q in range(2):
                    _deal(st, DRAFT1_STRIDE * q, DRAFT1_DRAW)
    else:
        st[L.DRAFT_SEAT] = 1 - p
        if dk == DK_DRAFT2 and t % DRAFT2_SPREAD == 0 and more:
            # "This is repeated" is read as the whole procedure: a new random first picker.
            _deal(st, 0, DRAFT2_SPREAD)
            st[L.DRAFT_SEAT] = randint(st, L.RNG_SETUP, 2)


@kernel
def draft_end(st, tab):
    """After the last pick: piles nobody took go back to the box, and "each player shuffles
    their 30 cards to form their deck"."""
    if draft_kind(tab) == DK_PILE:
        for c in range(n_cards(tab)):
            if st[L.DRAFT + card_kind(tab, c)] == 0:
                st[L.BOX + st[L.BOX_N]] = c
                st[L.BOX_N] += 1
    _shuffle_own_decks(st)
    st[L.DRAFTING] = 0


@kernel
def _listed_pile(st, tab, n):
    """Constructed: the option holding the picking seat's next listed pile (the list was
    checked when compiled)."""
    p = st[L.DRAFT_SEAT]
    taken = 0
    for t in range(L.PILE_TYPES):
        taken += st[L.PILES + L.PILE_TYPES * p + t]
    want = rule(tab, L.RU_DECKLIST + PILES_EACH * p + taken)
    i = 0
    for j in range(n):
        if opt(st, j, 0) == want:
            i = j
    return i


@kernel
def draft_run(st, tab, fp, ask, forced, stop):
    """Make the draft's picks from where it stands until ``stop`` picks are made in all,
    then, if the draft is over, end it (``draft_end``). Returns 1 once it has ended.

    ``forced`` >= 0 answers the first of these picks (a look-ahead rollout trying that
    option); every other pick is ``ask``'s, or the constructed variant's deck list.
    """
    total = draft_picks(tab)
    while st[L.DRAFT_PICK] < min(stop, total):
        n = draft_options(st, tab)
        if n == 0:
            # Pile draft: the limits leave this seat nothing to take; drafting stops.
            st[L.DRAFT_PICK] = total
            break
        if forced >= 0:
            k = forced
            forced = -1
        elif rule(tab, L.RU_CONSTRUCTED):
            k = _listed_pile(st, tab, n)
        else:
            k = ask(st, tab, fp, st[L.DRAFT_SEAT], D.D_DRAFT, n)
        draft_take(st, tab, k)
    if st[L.DRAFT_PICK] >= total:
        draft_end(st, tab)
        return 1
    return 0


@kernel
def draft_rest(st, tab, fp, ask, k):
    """The picking seat takes option ``k`` of the pick being asked; the draft then goes on to
    its end exactly as the game's (a look-ahead rollout's continuation)."""
    draft_run(st, tab, fp, ask, k, draft_picks(tab))


@kernel
def hidden_table(st, tab, p):
    """The ``DRAFT`` slot where the draft's cards on the table that seat ``p`` cannot see
    start (``table_slots`` of them, -1 marking a taken one), or -1 if it sees them all.

    Simple draft: the packet the other seat holds ("each player keeps 1 and passes the
    rest"; ``p`` saw it a pick ago at most, less what was taken since). Aegean Draft
    Variant 1: the other seat's three cards ("draws 3 cards ... chooses 2"). Variant 2's
    spread is face up and the pile draft's piles are open.
    """
    dk = draft_kind(tab)
    if dk in (DK_SIMPLE, DK_DRAFT1):
        return held_slot(st, tab, 1 - p)
    return -1


@kernel
def table_slots(tab):
    """Slots of one hand of cards on the draft's table (a packet, or Variant 1's three)."""
    dk = draft_kind(tab)
    if dk == DK_SIMPLE:
        return DRAFT_PACKET
    if dk == DK_DRAFT1:
        return DRAFT1_DRAW
    return DRAFT2_SPREAD


@kernel
def drafted_hidden(tab):
    """1 if the cards a seat has drafted are hidden from the other: the simple draft's keeps
    (taken from packets the other never saw whole) and Variant 1's ("places them facedown");
    0 for Variant 2's face-up picks and the pile draft's open piles."""
    dk = draft_kind(tab)
    return 1 if dk in (DK_SIMPLE, DK_DRAFT1) else 0


@kernel
def shared_deck(st, tab):
    """Every unit card into the one shared deck, shuffled: the deck no variant builds."""
    cards = n_cards(tab)
    for c in range(cards):
        st[L.DECK + c] = c
    st[L.DECK_N] = cards
    shuffle(st, L.DECK, cards, L.RNG_DECK)


@kernel
def builds_decks(tab):
    """1 if a variant builds the decks (Trial of Skill, a draft or constructed decks), 0 if
    the game plays the shared deck. The run layer reads it to play a run without any of
    them with an entry point that never compiles their code (``sim.kernel.batch``)."""
    return 1 if rule(tab, L.RU_TRIAL) or draft_kind(tab) != DK_NONE else 0


@kernel
def build_decks(st, tab, fp, ask):
    """The decks the rules give: Trial of Skill's, a whole draft's, or the shared deck."""
    if rule(tab, L.RU_TRIAL):
        trial_decks(st, tab)
    elif draft_kind(tab) != DK_NONE:
        draft_begin(st, tab)
        draft_run(st, tab, fp, ask, -1, draft_picks(tab))
    else:
        shared_deck(st, tab)
