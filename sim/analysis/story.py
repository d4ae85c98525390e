"""The kernel's event trace told as sentences: what happened, in order, and what caused it.

:func:`tell` turns the event rows one step of a game recorded (``sim.base.events``,
written by ``sim.kernel.trace``) into lines such as "Ker of the Battlefield (P1) takes
2 coins from P0: P0 4 -> 2, P1 3 -> 5", each naming the card, reward tile or
structure whose ability did it. A bot's decision becomes one line with its best few
options and their values: the greedy scorer's (every heuristic profile), or for a
look-ahead seat's planned decisions the mean outcome of each option's rollouts.
:func:`why_won` says which score components (``sim.base.layout.SCORE_TERMS``) set the
two seats apart.

The replay (``sim.analysis.replay``) calls these; nothing here plays a game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from sim.base import events as E
from sim.base import layout as L
from sim.kernel import decisions as D

TOP_OPTIONS = 3
"""Options of a decision the story shows (the bot's best by value; the one taken always)."""
GOD_NAMES = ("none", "Anubis", "Horus", "both gods")
"""The ``vocab.DEV_*`` codes a god or the Favor can hold, as a replay names them."""
DECISION_WORDS = {code: name.replace("_", " ") for name, code in D.DECISIONS.items()}
CARD_SENTENCES = {
    E.EV_PLAY: "P{p} plays {card} into city {city}",
    E.EV_BEAST: "P{p} unleashes the Beast {card} (discarded after its ability)",
    E.EV_RETURN: "{card} (P{p}) returns from city {city} to P{p}'s hand",
    E.EV_MOVE: "P{p} moves {card} from city {city} to city {to}",
    E.EV_EXALT: "P{p} EXALTs {card} from city {city}: out of play",
    E.EV_ENRAGE: "P{p} enrages {card} in city {city}",
    E.EV_TAKE: "P{p} takes {card} into hand",
}
"""Events about one card said by one fixed sentence: ``{p}`` the seat, ``{card}``, ``{city}``
(the event's first extra, the city), ``{to}`` (its second, a move's city)."""


class Names(Protocol):
    """What the story needs to name ids: a scenario (``sim.run.scenario.Scenario``)."""

    pool: Any

    def card_name(self, card: int) -> str:
        """The name of physical card ``card``."""
        ...

    def tile_name(self, t: int) -> str:
        """The name of physical reward tile ``t``."""
        ...

    def structures(self, p: int) -> list[tuple[str, int, bool]]:
        """Seat ``p``'s structures by slot as (name, cards under it, completed)."""
        ...


def plural(n: int, word: str) -> str:
    """``"1 coin"``, ``"2 coins"``."""
    return f"{n} {word}{'' if abs(n) == 1 else 's'}"


class Teller:
    """Says each event of a step in words, with its cause."""

    def __init__(self, names: Names, reign: bool) -> None:
        self.names = names
        self.tile = "reward card" if reign else "reward tile"

    # -- naming -------------------------------------------------------------------

    def card(self, card: int) -> str:
        return self.names.card_name(int(card)) if card >= 0 else "a card"

    def tile_name(self, t: int) -> str:
        return self.names.tile_name(int(t))

    def structure(self, row: int) -> str:
        return self.names.pool.structures[int(row)]["name"]

    def slot_structure(self, p: int, s: int) -> str:
        return self.names.structures(p)[s][0]

    def feat(self, f: int) -> str:
        return self.names.pool.feats[int(f)]["name"]

    def cause(self, ev: np.ndarray) -> str:
        """The card, tile or structure whose ability caused ``ev`` ("" for a rule step)."""
        kind, ident = int(ev[E.F_CAUSE]), int(ev[E.F_CAUSE_ID])
        if kind == E.CA_CARD:
            return self.card(ident)
        if kind == E.CA_TILE:
            return f"the {self.tile} {self.tile_name(ident)}"
        if kind == E.CA_STRUCT:
            return f"the structure {self.structure(ident)}"
        return ""

    # -- one decision ---------------------------------------------------------------

    def option_words(self, seat: int, dec: int, f: Sequence[int]) -> str:
        """Option fields ``f`` of decision ``dec`` in words (``sim.kernel.decisions``)."""
        a, b, c, d = (int(x) for x in f)
        if dec == D.D_SURGE:
            if a == D.ACT_PASS:
                return "pass"
            if a == D.ACT_PLAY:
                return f"play {self.card(b)} into city {c + 1} for {plural(d, 'coin')}"
            if a == D.ACT_BEAST:
                return f"unleash the Beast {self.card(b)}"
            return f"use the {self.tile} {self.tile_name(c)}"
        if dec == D.D_WEALTH:
            return f"{a} on cards, {b - a} on coins"
        if dec == D.D_SPLIT:
            return f"{plural(a, 'card')}, {plural(b - a, 'coin')}"
        if dec == D.D_OFFER:
            if a < 0:
                return "no offering"
            if c == 1:
                return f"build {self.slot_structure(seat, d)} with {self.card(b)}"
            return f"offer {self.card(b)}"
        if dec in (D.D_DESTROY, D.D_RETURN):
            return f"{self.card(d)} (P{b}, city {a + 1})"
        if dec == D.D_MOVE:
            return "stop" if a < 0 else f"move {self.card(d)} to city {c + 1}"
        if dec == D.D_WAR_ORDER:
            return f"city {a + 1} first"
        if dec == D.D_KEEP:
            slots = ", ".join(str(i + 1) for i in range(L.N_SLOTS) if a >> i & 1) or "none"
            return f"keep slots {slots} of city {b + 1} ({plural(c, 'unit-slot')})"
        if dec == D.D_MAY:
            return "yes" if a == 1 else "no"
        if dec in (D.D_ENRAGE, D.D_PORTENT):
            return self.card(c)
        if dec in (D.D_RALLY, D.D_REVEAL, D.D_REINFORCE, D.D_KEEP_REVEALED) and a < 0:
            return "none"
        return self.card(b)

    def decision(self, seat: int, options: list[np.ndarray], choice: np.ndarray) -> str:
        dec = int(choice[E.F_X0])
        pick = int(choice[E.F_TARGET])
        ranked = sorted(options, key=lambda o: (-int(o[E.F_AMOUNT]), int(o[E.F_TARGET])))
        shown = ranked[:TOP_OPTIONS]
        if all(int(o[E.F_TARGET]) != pick for o in shown):
            shown = [*shown[: TOP_OPTIONS - 1], *(o for o in ranked if int(o[E.F_TARGET]) == pick)]
        parts = []
        for o in shown:
            words = self.option_words(seat, dec, o[E.F_X1 : E.F_X4 + 1])
            value = int(o[E.F_AMOUNT]) / E.VALUE_SCALE
            mark = " <- taken" if int(o[E.F_TARGET]) == pick else ""
            parts.append(f"{words} {value:+.2f}{mark}")
        word = DECISION_WORDS.get(dec, dec)
        if int(choice[E.F_X1]) == E.VALUED_BY_ROLLOUTS:
            legal = plural(int(choice[E.F_AMOUNT]), "option")
            head = f"weighs {word} by rollouts ({len(options)} of {legal} played out)"
        else:
            head = f"weighs {word} ({len(options)} options)"
        return f"[P{seat} {head}: " + "; ".join(parts) + "]"

    # -- one event -------------------------------------------------------------------

    def sentence(self, ev: np.ndarray, step: str, active: int) -> str:
        """One event in words (the decision and coin folding is :func:`tell`'s)."""
        k = int(ev[E.F_KIND])
        p = int(ev[E.F_SEAT])
        n = int(ev[E.F_AMOUNT])
        t = int(ev[E.F_TARGET])
        x0, x1 = int(ev[E.F_X0]), int(ev[E.F_X1])
        if k == E.EV_COINS:
            if n > 0:
                return f"P{p} gains {plural(n, 'coin')}: {x0 - n} -> {x0}"
            verb = "pays"
            if step == "offering" and ev[E.F_CAUSE] == E.CA_STEP:
                verb = "returns over the coin limit"
            elif p != active:
                verb = "loses"
            return f"P{p} {verb} {plural(-n, 'coin')}: {x0 - n} -> {x0}"
        if k == E.EV_STEAL:
            return (
                f"P{p} takes {plural(n, 'coin')} from P{t}: P{t} {x0 + n} -> {x0}, "
                f"P{p} {x1 - n} -> {x1}"
            )
        if k == E.EV_VP:
            return f"P{p} takes {plural(n, 'VP token')} (now {x0})"
        if k == E.EV_RESHUFFLE:
            return f"the discard pile ({plural(n, 'card')}) is shuffled into a new deck"
        if k == E.EV_REVEAL:
            where = "into hand" if n else "discarded"
            return f"P{p} reveals {self.card(t)}: {where}"
        if k == E.EV_DISCARD:
            why = " down to the hand limit" if step == "offering" else ""
            return f"P{p} discards {self.card(t)}{why}"
        if k == E.EV_OFFER:
            if x0 == 1:
                return f"P{p} reveals {self.card(t)} to build {self.slot_structure(p, x1)}"
            return f"P{p} offers {self.card(t)}"
        said = CARD_SENTENCES.get(k)
        if said is not None:
            return said.format(p=p, card=self.card(t), city=x0 + 1, to=x1 + 1)
        if k == E.EV_DESTROY:
            verb = "is discarded after the war" if step == "war" else "is destroyed"
            return f"{self.card(t)} (P{p}, city {x0 + 1}) {verb}"
        if k == E.EV_UNDER:
            return f"{self.card(t)} goes under P{p}'s {self.slot_structure(p, x0)}"
        if k == E.EV_CONFLICT:
            verdict = f"P{p} is the victor" if p >= 0 else "no victor"
            return f"city {t + 1} is war-torn: strength P0 {x0}, P1 {x1}; {verdict}"
        if k == E.EV_TILE:
            return f"P{p} takes the {self.tile} {self.tile_name(t)} from city {x0 + 1}"
        if k == E.EV_USE:
            return f"P{p} uses the {self.tile} {self.tile_name(t)}"
        if k == E.EV_STRUCTURE:
            return f"P{p} completes the structure {self.structure(t)}"
        if k == E.EV_FEAT:
            return f"P{p} completes the feat {self.feat(t)}"
        if k == E.EV_FAVOR:
            return f"the Favor turns to {GOD_NAMES[n]}"
        return E.EVENT_KINDS[k].name


def tell(teller: Teller, rows: np.ndarray, step: str, active: int) -> list[str]:
    """The lines of one step's events, in the order they happened.

    An event caused by a card's (tile's, structure's) ability is said as that card
    doing it. Consecutive draws of one seat by one cause are one line; the coins a
    play costs are said with the play; a bot's options end in one line at its choice.
    """
    lines: list[str] = []
    options: list[np.ndarray] = []
    i = 0
    while i < len(rows):
        ev = rows[i]
        k = int(ev[E.F_KIND])
        if k == E.EV_OPTION:
            options.append(ev)
            i += 1
            continue
        if k == E.EV_CHOICE:
            lines.append(teller.decision(int(ev[E.F_SEAT]), options, ev))
            options = []
            i += 1
            continue
        if k == E.EV_TURN:
            i += 1
            continue
        cause = teller.cause(ev)
        if k in (E.EV_DRAW, E.EV_UNDER):
            j = i
            while j < len(rows) and _same(rows[j], ev, k):
                j += 1
            cards = _join([teller.card(int(r[E.F_TARGET])) for r in rows[i:j]])
            p = int(ev[E.F_SEAT])
            if k == E.EV_DRAW:
                text = f"P{p} draws {cards}"
            else:
                verb = "goes" if j - i == 1 else "go"
                text = f"{cards} {verb} under P{p}'s {teller.slot_structure(p, int(ev[E.F_X0]))}"
            i = j
        else:
            text = teller.sentence(ev, step, active)
            nxt = rows[i + 1] if i + 1 < len(rows) else None
            if k in (E.EV_PLAY, E.EV_BEAST) and nxt is not None and _pays(nxt, ev):
                coins = int(nxt[E.F_X0])
                cost = int(ev[E.F_AMOUNT])
                text += f" for {plural(cost, 'coin')}: {coins + cost} -> {coins}"
                i += 1
            i += 1
        lines.append(f"{cause}: {text}" if cause else text)
    return lines


def _same(a: np.ndarray, b: np.ndarray, kind: int) -> bool:
    return (
        int(a[E.F_KIND]) == kind
        and a[E.F_SEAT] == b[E.F_SEAT]
        and a[E.F_CAUSE] == b[E.F_CAUSE]
        and a[E.F_CAUSE_ID] == b[E.F_CAUSE_ID]
    )


def _pays(nxt: np.ndarray, play: np.ndarray) -> bool:
    """Whether ``nxt`` is the payment of the play ``play`` (its cost, by its seat)."""
    return (
        int(nxt[E.F_KIND]) == E.EV_COINS
        and nxt[E.F_SEAT] == play[E.F_SEAT]
        and int(nxt[E.F_AMOUNT]) == -int(play[E.F_AMOUNT])
    )


def _join(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    sep = "; " if any("," in n for n in names) else ", "
    return sep.join(names[:-1]) + " and " + names[-1]


def score_line(res: dict[str, Any]) -> str:
    """Both seats' score as it stands (``res``: ``Scenario.result()``)."""
    return f"score: P0 {res['score_p0']} VP, P1 {res['score_p1']} VP"


def why_won(res: dict[str, Any]) -> list[str]:
    """Why the game was won: the score, then each score component (``SCORE_TERMS``) that
    differed between the seats, with the VP it was worth to the seat ahead on it."""
    w = int(res["winner"])
    s0, s1 = res["score_p0"], res["score_p1"]
    if w < 0:
        head = f"Why nobody won: a shared victory at {s0} VP each, the tie-breaks tied too"
    elif s0 == s1:
        head = f"Why P{w} won: {s0} VP each, so P{w} won on the tie-break"
    else:
        head = f"Why P{w} won: {max(s0, s1)} VP to {min(s0, s1)}"
    lines = [head]
    for t in L.SCORE_TERMS:
        counted = t.count or t.name
        n0, n1 = res[f"{counted}_p0"], res[f"{counted}_p1"]
        v0, v1 = t.weight * res[f"{t.name}_p0"], t.weight * res[f"{t.name}_p1"]
        if v0 == v1 and n0 == n1:
            continue
        said = [
            f"P{p} {t.label.format(n=n, w=t.weight)} = {v} VP"
            for p, n, v in ((0, n0, v0), (1, n1, v1))
        ]
        gap = f"{abs(v0 - v1)} VP for P{0 if v0 > v1 else 1}" if v0 != v1 else "no VP either way"
        lines.append(f"  {said[0]}, {said[1]}: {gap}")
    if len(lines) == 1:
        lines.append("  every score component was equal")
    return lines
