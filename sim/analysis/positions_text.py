"""A replayed game's positions told in words: the differences between the whole
position before and after each step (cards drawn, units played, destroyed, moved or
returned, reward tiles won and used, wars, offerings, structures, discards) as the
events of ``omensim replay --positions`` (:meth:`sim.analysis.replay.Replay.text`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim.analysis.story import GOD_NAMES
from sim.base import layout as L
from sim.run.scenario import Scenario

END_WORDS = {
    "all_cities_empty": "no city has any reward tiles left",
    "two_cities_empty": "two cities' reward stacks are empty",
    "all_structures_built": "a player has built all their structures",
    "feats_completed": "a player has completed the feats that end the game",
    "turn_cap": "the turn cap was reached (the game was cut off)",
    "none": "the game has not ended",
}


# --- reading the whole position ----------------------------------------------------


def position(sc: Scenario) -> dict[str, Any]:
    """Where every card and tile is, and every public count, read from the state."""
    order = sc.card_zones()
    where = {card: zone for zone, ids in order.items() for card in ids}
    enraged = set()
    tiles: dict[int, tuple] = {}
    for c in range(L.N_CITIES):
        for p in range(2):
            flags = sc.enraged_flags(c, p)
            side = order[("city", c, p)]
            enraged.update(card for card, on in zip(side, flags, strict=True) if on)
        for t in sc.stack_tiles(c):
            tiles[t] = ("stack", c)
    for p in range(2):
        for t, used in sc.reward_tiles(p):
            tiles[t] = ("reward", p, used)
    return {
        "where": where,
        "order": order,
        "enraged": enraged,
        "tiles": tiles,
        "coins": [sc.coins(0), sc.coins(1)],
        "supply": sc.supply,
        "vp": [sc.vp_tokens(0), sc.vp_tokens(1)],
        "favor": sc.favor_code,
        "structures": [sc.structures(0), sc.structures(1)],
        "feats": [sc.feats(0), sc.feats(1)],
        "war_torn": [sc.war_torn(c) for c in range(L.N_CITIES)],
        "strength": [[sc.strength(c, p) for p in range(2)] for c in range(L.N_CITIES)],
    }


# --- describing differences ----------------------------------------------------------


def _join(names: list[str]) -> str:
    counts = Counter(names)
    parts = [f"{n} x{k}" if k > 1 else n for n, k in counts.items()]
    if len(parts) <= 1:
        return "".join(parts)
    # Some names hold a comma ("Talos, Bronze Guardian of Crete"): then list with semicolons.
    sep = "; " if any("," in n for n in counts) else ", "
    return sep.join(parts[:-1]) + " and " + parts[-1]


def _city(c: int) -> str:
    return f"city {c + 1}"


class Describer:
    """Turns the difference between two positions into events, in one step's words."""

    def __init__(self, sc: Scenario) -> None:
        self.sc = sc
        self.pool = sc.pool
        self.kinds = sc.tables.card_kind
        self.tile_kinds = sc.tables.tile_kind
        base = sc.pool.mix.split("+")[0].split(":")[0]
        self.reign = base == "reign"
        self.tile = "reward card" if self.reign else "reward tile"
        self.own_decks = sc.own_decks

    def name(self, card: int) -> str:
        return self.pool.units[int(self.kinds[card])]["name"]

    def names(self, cards: list[int]) -> list[str]:
        return [self.name(c) for c in cards]

    def utype(self, card: int) -> str:
        return self.pool.units[int(self.kinds[card])]["type"]

    def tile_name(self, t: int) -> str:
        return self.pool.rewards[int(self.tile_kinds[t])]["name"]

    def zone_words(self, z: tuple) -> str:
        if z[0] == "city":
            return f"P{z[2]}'s side of {_city(z[1])}"
        if z[0] in ("deck", "discard"):
            pile = "deck" if z[0] == "deck" else "discard pile"
            return f"P{z[1]}'s {pile}" if self.own_decks else f"the {pile}"
        if z[0] == "box":
            return "the box"
        what = {"hand": "hand", "out": "cards out of play", "under": "structures"}[z[0]]
        return f"P{z[1]}'s {what}"

    # -- the whole diff -------------------------------------------------------------

    def diff(self, step: str, a: dict, b: dict, active: int) -> list[dict[str, Any]]:
        """Events for one step from position ``a`` to position ``b``."""
        out: list[dict[str, Any]] = []
        self.war_tiles: set[int] = set()

        def ev(kind: str, text: str, **extra: Any) -> None:
            out.append({"event": kind, "text": text, **extra})

        moves: dict[tuple, list[int]] = {}
        for card, z0 in a["where"].items():
            z1 = b["where"].get(card, ("nowhere",))
            if z0 != z1:
                moves.setdefault((z0, z1), []).append(card)
        # Stable order inside a group: the order the cards sit in their new zone.
        for (_z0, z1), cards in moves.items():
            pos = {c: i for i, c in enumerate(b["order"].get(z1, []))}
            cards.sort(key=lambda c: (pos.get(c, 10**6), c))

        # A reshuffle: cards only go from a discard pile into a deck by one.
        reshuffled = set()
        for d in range(2):
            back = [c for (z0, z1), cs in moves.items() if z0 == ("discard", d) for c in cs]
            if any(b["where"].get(c, ("",))[0] == "deck" for c in back):
                reshuffled.add(d)
                whose = f"P{d}'s " if self.own_decks else "the "
                ev("reshuffle", f"{whose}discard pile is shuffled into a new deck")
        # Cards that left the discard pile by a reshuffle count as coming from the deck.
        for (z0, z1), cards in list(moves.items()):
            if z0[0] == "discard" and z0[1] in reshuffled:
                del moves[(z0, z1)]
                if z1[0] != "deck":
                    moves.setdefault((("deck", z0[1]), z1), []).extend(cards)

        if step == "wealth" and self.sc.rule("RU_WEALTH_REVEAL"):
            self._reveal(a, b, moves, ev, active)
        if step == "war":
            self._war(a, b, moves, ev)
        if step == "offering":
            self._offering(a, b, moves, ev, active)
        for (z0, z1), cards in sorted(
            moves.items(), key=lambda kv: (_zkey(kv[0][0]), _zkey(kv[0][1]))
        ):
            self._move(step, z0, z1, cards, a, b, ev, active)
        self._tiles(a, b, ev)
        self._scalars(step, a, b, ev, active)
        return out

    # -- card moves ---------------------------------------------------------------

    def _move(self, step, z0, z1, cards, a, b, ev, active) -> None:
        """One group of cards that went from zone ``z0`` to ``z1``, in the step's words."""
        m = _Move(step, z0, z1, cards, self.names(cards), a, b, active)
        say = _MOVE_WORDS.get((z0[0], z1[0])) or _MOVE_WORDS.get((None, z1[0]), _other_move)
        kind, text, extra = say(self, m)
        ev(kind, text, **extra)

    # -- the Wealth reveal (Heir to the Dunes) ----------------------------------------

    def _reveal(self, a, b, moves, ev, p) -> None:
        """The top card is revealed: devoted to your god, into hand; else discarded."""
        dropped = moves.get((("hand", p), ("discard", 0)), [])
        deck = a["order"][("deck", 0)]
        for i, card in enumerate(reversed(deck[-(1 + len(dropped)) :])):
            z1 = b["where"].get(card, ("nowhere",))
            if i > 0:
                neutral = dropped[i - 1]
                ev(
                    "discard",
                    f"P{p} discards the neutral {self.name(neutral)} to reveal again",
                    seat=p,
                    cards=[self.name(neutral)],
                )
                _take(moves, (("hand", p), ("discard", 0)), neutral)
            if z1 == ("hand", p):
                text = f"P{p} reveals {self.name(card)}, devoted to their god: into hand"
            elif z1[0] == "discard":
                text = f"P{p} reveals {self.name(card)}: not devoted to their god, discarded"
            else:
                continue
            ev("reveal", text, seat=p, cards=[self.name(card)])
            _take(moves, (("deck", 0), z1), card)

    # -- the War step --------------------------------------------------------------

    def _war(self, a, b, moves, ev) -> None:
        """Each conflict: the war-torn city, strengths, the victor and its tile, who kept what."""
        won = {}
        for t, z0 in a["tiles"].items():
            z1 = b["tiles"].get(t)
            if z0[0] == "stack" and z1 is not None and z1[0] == "reward":
                won[z0[1]] = (z1[1], t)
                self.war_tiles.add(t)
        for c in range(L.N_CITIES):
            if not (a["war_torn"][c] or c in won):
                continue
            s0, s1 = a["strength"][c]
            if c in won:
                p, t = won[c]
                verdict = f"P{p} is the victor and takes the {self.tile} {self.tile_name(t)}"
                if s0 == s1:
                    verdict += " (strength tied: won on the tie-break)"
            elif s0 == s1:
                verdict = f"a tie: no victor, no {self.tile} taken"
            else:
                verdict = f"no {self.tile} left to take"
            ev(
                "conflict",
                f"{_city(c)} is war-torn: strength P0 {s0}, P1 {s1}; {verdict}",
                city=c,
                strength=[s0, s1],
                victor=won[c][0] if c in won else -1,
            )
            for p in range(2):
                before = a["order"][("city", c, p)]
                if not before:
                    continue
                kept = [x for x in before if b["where"].get(x) == ("city", c, p)]
                gone = [x for x in before if x not in kept]
                if not gone:
                    continue
                text = f"P{p} keeps " + (_join(self.names(kept)) or "nothing")
                text += f", discards {_join(self.names(gone))}"
                ev("keep", text, seat=p, city=c, kept=self.names(kept), cards=self.names(gone))
                for card in gone:  # described here, not again as generic moves
                    z1 = b["where"].get(card, ("nowhere",))
                    grp = moves.get((("city", c, p), z1))
                    if grp is not None and card in grp:
                        grp.remove(card)
                        if not grp:
                            del moves[(("city", c, p), z1)]

    # -- the Offering (Supply) step ------------------------------------------------

    def _offering(self, a, b, moves, ev, p) -> None:
        """The offering (or build) and the discards down to the hand limit."""
        hand0 = a["order"][("hand", p)]
        left = [c for c in hand0 if b["where"].get(c) != ("hand", p)]
        if not left:
            return
        drawn = [
            c for (z0, z1), cs in moves.items() if z0[0] == "deck" and z1 == ("hand", p) for c in cs
        ]
        under = [c for (z0, z1), cs in moves.items() if z1 == ("under", p) for c in cs]
        # The order the hand cards reached their new zones (the discard pile grows on top).
        new_disc = {}
        for d in range(2):
            pile0 = a["order"][("discard", d)]
            pile1 = b["order"][("discard", d)]
            if pile1[: len(pile0)] == pile0:
                for i, c in enumerate(pile1[len(pile0) :]):
                    new_disc[c] = i
        left.sort(key=lambda c: (new_disc.get(c, -1), c))
        limit = self.sc.rule("RU_HAND_LIMIT")
        coin_limit = self.sc.rule("RU_COIN_LIMIT")
        c0, c1 = a["coins"][p], b["coins"][p]
        no_offer_coins = min(c0, coin_limit) if coin_limit else c0
        limit_only = max(0, len(hand0) - limit) if limit else 0
        offered = None
        if under:
            # Building: the revealed unit goes to the discard pile after its LABOR.
            built = [c for c in left if new_disc.get(c) is not None] or left
            card = built[0]
            sname = self._building(a, b, p)
            ev(
                "build",
                f"P{p} reveals {self.name(card)} to build {sname}: {len(under)} card"
                f"{'s' if len(under) != 1 else ''} from the deck go under it",
                seat=p,
                cards=[self.name(card)],
                structure=sname,
            )
            offered = card
        elif drawn or c1 != no_offer_coins or len(left) != limit_only:
            card = left[0]
            value = int(self.pool.units[int(self.kinds[card])]["offering"])
            gains = []
            if drawn:
                gains.append(f"draws {_join(self.names(drawn))}")
            if value > len(drawn) or not drawn:
                k = max(value - len(drawn), 0)
                gains.append(f"takes {k} coin{'s' if k != 1 else ''}")
            ev(
                "offer",
                f"P{p} offers {self.name(card)} (offering {value}): " + " and ".join(gains),
                seat=p,
                cards=[self.name(card)],
                drew=self.names(drawn),
            )
            offered = card
            for key in [k for k in moves if k[0][0] == "deck" and k[1] == ("hand", p)]:
                del moves[key]
        rest = [c for c in left if c != offered]
        if rest:
            why = f" down to the hand limit of {limit}" if limit else ""
            ev(
                "limit",
                f"P{p} discards {_join(self.names(rest))}{why}",
                seat=p,
                cards=self.names(rest),
            )
        for card in left:
            z1 = b["where"].get(card, ("nowhere",))
            grp = moves.get((("hand", p), z1))
            if grp is not None and card in grp:
                grp.remove(card)
                if not grp:
                    del moves[(("hand", p), z1)]
        if under:
            for key in [k for k in moves if k[1] == ("under", p)]:
                del moves[key]

    def _building(self, a, b, p) -> str:
        for (n0, u0, _d0), (n1, u1, _d1) in zip(
            a["structures"][p], b["structures"][p], strict=True
        ):
            if u1 > u0 or (n0 == n1 and _d1 and not _d0):
                return n1
        return "structure"

    # -- reward tiles --------------------------------------------------------------

    def _tiles(self, a, b, ev) -> None:
        for t in sorted(set(a["tiles"]) | set(b["tiles"])):
            z0, z1 = a["tiles"].get(t), b["tiles"].get(t)
            if z0 == z1:
                continue
            name = self.tile_name(t)
            if z0 and z1 and z0[0] == "stack" and z1[0] == "reward":
                if not self._war_won(t):
                    ev(
                        "win",
                        f"P{z1[1]} takes the {self.tile} {name} from {_city(z0[1])}",
                        seat=z1[1],
                    )
            elif z0 and z1 and z0[0] == z1[0] == "reward" and z0[1] == z1[1] and z1[2]:
                ev("use", f"P{z1[1]} uses the {self.tile} {name}", seat=z1[1], tile=name)
            else:
                where0 = _tile_words(z0, self.tile)
                where1 = _tile_words(z1, self.tile)
                ev("tile", f"the {self.tile} {name} goes from {where0} to {where1}", tile=name)

    def _war_won(self, t: int) -> bool:
        return t in self.war_tiles

    # -- counts ---------------------------------------------------------------------

    def _scalars(self, step, a, b, ev, active) -> None:
        for p in range(2):
            for (n0, _u0, d0), (_n1, _u1, d1) in zip(
                a["structures"][p], b["structures"][p], strict=True
            ):
                if d1 and not d0:
                    ev("structure", f"P{p} completes the structure {n0}", seat=p, structure=n0)
        for p in range(2):
            for f in b["feats"][p]:
                if f not in a["feats"][p]:
                    ev("feat", f"P{p} completes the feat {f} (turned face down)", seat=p, feat=f)
        for p in range(2):
            for c in range(L.N_CITIES):
                side = b["order"][("city", c, p)]
                new = [x for x in side if x in b["enraged"] and x not in a["enraged"]]
                if new:
                    ev("enrage", f"P{p} enrages {_join(self.names(new))} in {_city(c)}", seat=p)
            calmed = [
                x
                for x in a["enraged"]
                if x not in b["enraged"]
                and a["where"][x][0] == "city"
                and a["where"][x][2] == p
                and b["where"].get(x, ("",))[0] == "city"
            ]
            if calmed:
                ev("calm", f"P{p}'s enraged {_join(self.names(calmed))} turn back", seat=p)
        if a["favor"] != b["favor"]:
            ev("favor", f"the Favor turns to {GOD_NAMES[b['favor']]}", favor=GOD_NAMES[b["favor"]])
        for p in range(2):
            if b["vp"][p] != a["vp"][p]:
                dv = b["vp"][p] - a["vp"][p]
                ev(
                    "vp",
                    f"P{p} {'gains' if dv > 0 else 'loses'} {abs(dv)} VP token"
                    f"{'s' if abs(dv) != 1 else ''} (now {b['vp'][p]})",
                    seat=p,
                    vp=dv,
                )
        for p in range(2):
            c0, c1 = a["coins"][p], b["coins"][p]
            if c0 != c1:
                ev("coins", f"P{p} coins {c0} -> {c1} ({c1 - c0:+d})", seat=p, coins=c1 - c0)


# --- what each kind of card move says -------------------------------------------------


@dataclass(frozen=True)
class _Move:
    """One group of cards that went from zone ``z0`` to zone ``z1`` in a step."""

    step: str
    z0: tuple
    z1: tuple
    cards: list[int]
    names: list[str]
    a: dict
    b: dict
    active: int


Said = tuple[str, str, dict[str, Any]]  # (event kind, sentence, event fields)


@dataclass(frozen=True)
class _Sentence:
    """A move one fixed sentence says. ``text`` may name ``{p}`` (the seat), ``{city}``,
    ``{cards}`` and ``{them}`` (it/them); the zone on ``side`` (``"from"``: the one the
    cards left, ``"to"``: the one they entered) names the seat and, a city side, the city."""

    kind: str
    text: str
    side: str

    def __call__(self, d: Describer, m: _Move) -> Said:
        z = m.z0 if self.side == "from" else m.z1
        fields: dict[str, Any] = {"seat": z[-1]}  # ("hand", p) or ("city", c, p)
        if z[0] == "city":
            fields["city"] = z[1]
        text = self.text.format(
            p=z[-1],
            city=_city(z[1]) if z[0] == "city" else "",
            cards=_join(m.names),
            them="it" if len(m.cards) == 1 else "them",
        )
        return self.kind, text, {**fields, "cards": m.names}


def _destroyed(d: Describer, m: _Move) -> Said:
    c, p = m.z0[1], m.z0[2]
    verb = "destroyed" if m.step != "war" else "discarded"
    text = (
        f"{_join(m.names)} ({'P' + str(p)}, {_city(c)}) {'is' if len(m.cards) == 1 else 'are'}"
        f" {verb}"
    )
    return "destroy", text, {"seat": p, "city": c, "cards": m.names}


def _moved(d: Describer, m: _Move) -> Said:
    (c0, p0), (c1, p1) = m.z0[1:], m.z1[1:]
    if p0 == p1:
        text = f"P{p0} moves {_join(m.names)} from {_city(c0)} to {_city(c1)}"
    else:
        text = (
            f"{_join(m.names)} goes from P{p0}'s side of {_city(c0)} to P{p1}'s side of {_city(c1)}"
        )
    return "move", text, {"seat": p0, "city": c0, "to_city": c1, "cards": m.names}


def _returned(d: Describer, m: _Move) -> Said:
    c, p, q = m.z0[1], m.z0[2], m.z1[1]
    text = f"{_join(m.names)} returns from {_city(c)} to P{q}'s hand" + (
        f" (it was P{p}'s)" if p != q else ""
    )
    return "return", text, {"seat": q, "city": c, "cards": m.names}


def _discarded(d: Describer, m: _Move) -> Said:
    p = m.z0[1]
    if m.step == "surge" and all(d.utype(c) == "beast" for c in m.cards):
        text = f"P{p} pays for and discards the Beast {_join(m.names)} to resolve its ability"
        return "beast", text, {"seat": p, "cards": m.names}
    return "discard", f"P{p} discards {_join(m.names)}", {"seat": p, "cards": m.names}


def _revealed(d: Describer, m: _Move) -> Said:
    verb = "reveals and discards" if m.step == "wealth" else "discards from the deck:"
    text = f"P{m.active} {verb} {_join(m.names)}"
    return "reveal", text, {"seat": m.active, "cards": m.names}


def _under(d: Describer, m: _Move) -> Said:
    p = m.z1[1]
    n = len(m.cards)
    what = (
        f"{n} card{'s' if n != 1 else ''} from the deck"
        if m.z0[0] == "deck"
        else f"{_join(m.names)} from {d.zone_words(m.z0)}"
    )
    verb = "goes" if n == 1 else "go"
    text = f"{what} {verb} under P{p}'s {d._building(m.a, m.b, p)}"
    return "under", text, {"seat": p, "cards": m.names}


def _other_move(d: Describer, m: _Move) -> Said:
    text = f"{_join(m.names)}: from {d.zone_words(m.z0)} to {d.zone_words(m.z1)}"
    return "move", text, {"cards": m.names}


# (from zone kind, to zone kind) -> its sentence; ``None`` matches any source.
# Looked up in this order, so a pair named here wins over (None, to).
_MOVE_WORDS: dict[tuple[str | None, str], Callable[[Describer, _Move], Said]] = {
    ("deck", "hand"): _Sentence("draw", "P{p} draws {cards}", "to"),
    ("hand", "city"): _Sentence("play", "P{p} plays {cards} into {city}", "to"),
    ("city", "discard"): _destroyed,
    ("city", "city"): _moved,
    ("city", "hand"): _returned,
    ("city", "out"): _Sentence(
        "exalt", "P{p} EXALTs {cards} from {city}: out of play, with a VP token", "from"
    ),
    ("hand", "discard"): _discarded,
    ("hand", "out"): _Sentence(
        "exalt", "P{p} plays {cards} and EXALTs {them}: out of play, with a VP token", "from"
    ),
    ("hand", "deck"): _Sentence(
        "discard", "P{p} discards {cards}, shuffled back into the new deck", "from"
    ),
    ("deck", "discard"): _revealed,
    (None, "under"): _under,
    ("discard", "hand"): _Sentence("take", "P{p} takes {cards} from the discard pile", "to"),
    ("discard", "city"): _Sentence(
        "play", "P{p} puts {cards} from the discard pile into {city}", "to"
    ),
    ("deck", "city"): _Sentence("play", "{cards} from the deck enters P{p}'s side of {city}", "to"),
}


def _take(moves: dict[tuple, list[int]], key: tuple, card: int) -> None:
    """Drop ``card`` from a move group (it has been described already)."""
    grp = moves.get(key)
    if grp is not None and card in grp:
        grp.remove(card)
        if not grp:
            del moves[key]


def _tile_words(z: tuple | None, tile: str) -> str:
    if z is None:
        return "out of the game"
    if z[0] == "stack":
        return f"the stack of {_city(z[1])}"
    return f"P{z[1]}'s {tile}s" + (" (used)" if z[2] else "")


def _zkey(z: tuple) -> tuple:
    rank = {"deck": 0, "discard": 1, "hand": 2, "city": 3, "under": 4, "out": 5, "box": 6}
    return (rank.get(z[0], 9), *[int(x) for x in z[1:]])


# --- the set-up and the end ----------------------------------------------------------


def setup_events(sc: Scenario, d: Describer, pos: dict) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def ev(kind: str, text: str, **extra: Any) -> None:
        out.append({"event": kind, "text": text, **extra})

    first = sc.first
    ev("first", f"P{first} goes first", seat=first)
    if sc.rule("RU_GODS"):
        ev(
            "gods",
            f"P0 serves {GOD_NAMES[sc.god_code(0)]}, P1 serves {GOD_NAMES[sc.god_code(1)]}; "
            f"the Favor shows {GOD_NAMES[sc.favor_code]}",
        )
        for p in range(2):
            names = [s[0] for s in sc.structures(p)]
            if names:
                ev("structures", f"P{p}'s structures: {', '.join(names)}", seat=p)
    for c in range(L.N_CITIES):
        stack = sc.stack(c)
        text = f"{_city(c)} {d.tile}s (top last): {'; '.join(stack) if stack else 'none'}"
        ev("stack", text, city=c, tiles=stack)
    for p in range(2):
        hand = sc.hand(p)
        ev("hand", f"P{p}'s hand ({len(hand)}): {'; '.join(hand)}", seat=p, cards=hand)
    for p in range(2):
        for c in range(L.N_CITIES):
            units = sc.city(c, p)
            if units:
                ev("city", f"P{p} starts with {_join(units)} in {_city(c)}", seat=p, city=c)
    coins = ", ".join(f"P{p} {sc.coins(p)}" for p in range(2))
    vp = f"; VP tokens in the supply {sc.vp_supply}" if sc.vp_supply else ""
    ev("coins", f"coins: {coins}; supply {sc.supply}{vp}")
    if d.own_decks:
        decks = ", ".join(f"P{p} {sc.deck_size(p)}" for p in range(2))
        ev("deck", f"decks: {decks} cards")
    else:
        ev("deck", f"deck: {sc.deck_size()} cards")
    if sc.box_size():
        ev("box", f"{sc.box_size()} cards stay in the box")
    return out


def end_events(res: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    reason = res["end_reason"]
    out.append(
        {
            "event": "end",
            "text": f"the game ends after {res['turns']} turns: {END_WORDS.get(reason, reason)}"
            f" ({reason})",
            "end_reason": reason,
            "turns": res["turns"],
        }
    )
    for p in range(2):
        parts = [
            (
                t.weight * res[f"{t.name}_p{p}"],
                t.label.format(n=res[f"{t.count or t.name}_p{p}"], w=t.weight),
            )
            for t in L.SCORE_TERMS
        ]
        shown = " + ".join(f"{v} ({label})" for v, label in parts if v or "reward" in label)
        out.append(
            {
                "event": "score",
                "text": f"P{p} scores {res[f'score_p{p}']} VP = {shown}",
                "seat": p,
                "score": res[f"score_p{p}"],
            }
        )
    w = res["winner"]
    text = "a shared victory" if w < 0 else f"P{w} wins"
    out.append({"event": "winner", "text": text, "winner": w})
    return out


# --- the dataset row ----------------------------------------------------------------------
