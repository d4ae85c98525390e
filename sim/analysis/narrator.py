"""One game told in words from the kernel's event trace: the one place an event, a cause or a
bot's decision is worded, for both texts of ``omensim replay`` (``docs/replay.md``).

:class:`Teller` names the ids in the trace's rows (``sim.base.events``), :func:`events` says
one step's rows, :func:`setup_events` and :func:`end_events` the set-up and the end (which
the trace does not cover), and :func:`render` prints them as the story or the positions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import groupby
from typing import TYPE_CHECKING, Any

import numpy as np

from sim.base import events as E
from sim.base import layout as L
from sim.kernel import decisions as D

if TYPE_CHECKING:
    from sim.run.scenario import Scenario

TOP_OPTIONS = 3
"""Options of a decision the story shows (the bot's best by value; the one taken always)."""
GOD_NAMES = ("none", "Anubis", "Horus", "both gods")
"""The ``vocab.DEV_*`` codes a god or the Favor can hold, as a replay names them."""
DECISION_WORDS = {code: name.replace("_", " ") for name, code in D.DECISIONS.items()}
SENTENCES = {
    E.EV_PLAY: "P{p} plays {name} into city {city}",
    E.EV_BEAST: "P{p} unleashes the Beast {name} (discarded after its ability)",
    E.EV_RETURN: "{name} (P{p}) returns from city {city} to P{p}'s hand",
    E.EV_MOVE: "P{p} moves {name} from city {city} to city {to}",
    E.EV_EXALT: "P{p} EXALTs {name} from city {city}: out of play",
    E.EV_ENRAGE: "P{p} enrages {name} in city {city}",
    E.EV_TAKE: "P{p} takes {name} into hand",
    E.EV_TILE: "P{p} takes the {tile} {name} from city {city}",
    E.EV_USE: "P{p} uses the {tile} {name}",
    E.EV_STRUCTURE: "P{p} completes the structure {name}",
    E.EV_FEAT: "P{p} completes the feat {name}",
}
"""Events said by one fixed sentence: ``{p}`` the seat, ``{name}`` the card, reward tile,
structure or feat the event is about, ``{city}`` (the event's first extra, the city), ``{to}``
(its second, a move's city), ``{tile}`` the set's word for a reward tile."""
CARD_EVENTS = frozenset(k.code for k in E.EVENT_KINDS if k.target == "card")
"""Event kinds whose target is a physical card."""
CITY_EVENTS = frozenset(
    [E.EV_PLAY, E.EV_DESTROY, E.EV_RETURN, E.EV_MOVE, E.EV_EXALT, E.EV_ENRAGE, E.EV_CONFLICT]
)
"""Event kinds about a city (its index in the event dict's ``city``)."""
END_WORDS = {
    "all_cities_empty": "no city has any reward tiles left",
    "two_cities_empty": "two cities' reward stacks are empty",
    "all_structures_built": "a player has built all their structures",
    "feats_completed": "a player has completed the feats that end the game",
    "turn_cap": "the turn cap was reached (the game was cut off)",
    "none": "the game has not ended",
}
CHOICE = "choice"
"""The ``event`` of a bot's decision: the story prints it, the account of positions does not."""
NOTHING = "nothing"
"""The ``event`` of a step in which nothing happened: the account of positions says so."""


def plural(n: int, word: str) -> str:
    """``"1 coin"``, ``"2 coins"``."""
    return f"{n} {word}{'' if abs(n) == 1 else 's'}"


def join(names: Sequence[str]) -> str:
    """``"A, B x2 and C"``; with semicolons when a name holds a comma."""
    counts = Counter(names)
    parts = [f"{n} x{k}" if k > 1 else n for n, k in counts.items()]
    if len(parts) <= 1:
        return "".join(parts)
    sep = "; " if any("," in n for n in counts) else ", "
    return sep.join(parts[:-1]) + " and " + parts[-1]


class Teller:
    """Says each event of a step in words, with its cause; ``names`` is the scenario the
    game is played in, read for names, structures and rules."""

    def __init__(self, names: Scenario, reign: bool) -> None:
        self.names = names
        self.tile = "reward card" if reign else "reward tile"

    # -- naming -------------------------------------------------------------------

    def card(self, card: int) -> str:
        """The name of physical card ``card`` ("a card" for none)."""
        return self.names.card_name(int(card)) if card >= 0 else "a card"

    def tile_name(self, t: int) -> str:
        """The name of physical reward tile ``t``."""
        return self.names.tile_name(int(t))

    def structure(self, row: int) -> str:
        """The name of structure row ``row`` of the pool."""
        return self.names.pool.structures[int(row)]["name"]

    def slot_structure(self, p: int, s: int) -> str:
        """The name of seat ``p``'s structure in slot ``s``."""
        return self.names.structures(p)[s][0]

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
        """A bot's decision: its best few options with their values, the one taken marked."""
        dec, pick = int(choice[E.F_X0]), int(choice[E.F_TARGET])
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
        """One event in words (the decision and coin folding is :func:`events`')."""
        fields = [E.F_KIND, E.F_SEAT, E.F_AMOUNT, E.F_TARGET, E.F_X0, E.F_X1]
        k, p, n, t, x0, x1 = map(int, ev[fields])
        by_step = int(ev[E.F_CAUSE]) == E.CA_STEP
        if k == E.EV_COINS:
            if n > 0:
                return f"P{p} gains {plural(n, 'coin')}: {x0 - n} -> {x0}"
            verb = "pays"
            if step == "offering" and by_step:
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
            limit = self.names.rule("RU_HAND_LIMIT") if step == "offering" and by_step else 0
            why = f" down to the hand limit of {limit}" if limit else ""
            return f"P{p} discards {self.card(t)}{why}"
        if k == E.EV_OFFER:
            if x0 == 1:
                return f"P{p} reveals {self.card(t)} to build {self.slot_structure(p, x1)}"
            unit = self.names.pool.units[int(self.names.tables.card_kind[t])]
            return f"P{p} offers {self.card(t)} (offering {unit['offering']})"
        said = SENTENCES.get(k)
        if said is not None:
            name = {
                E.EV_TILE: self.tile_name,
                E.EV_USE: self.tile_name,
                E.EV_STRUCTURE: self.structure,
                E.EV_FEAT: lambda f: self.names.pool.feats[int(f)]["name"],
            }.get(k, self.card)(t)
            return said.format(p=p, name=name, city=x0 + 1, to=x1 + 1, tile=self.tile)
        if k == E.EV_DESTROY:
            verb = "is discarded after the war" if step == "war" else "is destroyed"
            return f"{self.card(t)} (P{p}, city {x0 + 1}) {verb}"
        if k == E.EV_CONFLICT:
            verdict = f"P{p} is the victor" if p >= 0 else "no victor"
            if x0 == x1:
                verdict += " (strength tied: won on the tie-break)" if p >= 0 else " (a tie)"
            return f"city {t + 1} is war-torn: strength P0 {x0}, P1 {x1}; {verdict}"
        if k == E.EV_FAVOR:
            return f"the Favor turns to {GOD_NAMES[n]}"
        return E.EVENT_KINDS[k].name


def events(teller: Teller, rows: np.ndarray, step: str, active: int) -> list[dict[str, Any]]:
    """The events of one step's trace rows, in the order they happened, as dicts with the
    keys ``event`` (the kind's name in ``sim.base.events``, or :data:`CHOICE`), ``text``,
    ``seat``, ``cause`` (words, "" for a rule step) and, for an event about cards, ``cards``.

    An event caused by a card's (tile's, structure's) ability is said as that card doing
    it. Consecutive draws (cards going under a structure) of one seat by one cause are one
    event; the coins a play costs are said with the play; a bot's options end in one event
    at its choice.
    """
    out: list[dict[str, Any]] = []
    options: list[np.ndarray] = []
    i = 0
    while i < len(rows):
        ev = rows[i]
        k, p = int(ev[E.F_KIND]), int(ev[E.F_SEAT])
        i += 1
        if k == E.EV_OPTION:
            options.append(ev)
            continue
        if k == E.EV_CHOICE:
            out.append({"event": CHOICE, "text": teller.decision(p, options, ev), "seat": p})
            options = []
            continue
        if k == E.EV_TURN:
            continue
        cause = teller.cause(ev)
        said: dict[str, Any] = {"event": E.EVENT_KINDS[k].name, "seat": p, "cause": cause}
        if k in (E.EV_DRAW, E.EV_UNDER):
            j, same = i, [E.F_KIND, E.F_SEAT, E.F_CAUSE, E.F_CAUSE_ID]  # one seat, one cause
            while j < len(rows) and (rows[j][same] == ev[same]).all():
                j += 1
            said["cards"] = [teller.card(int(r[E.F_TARGET])) for r in rows[i - 1 : j]]
            if k == E.EV_DRAW:
                text = f"P{p} draws {join(said['cards'])}"
            else:
                verb = "goes" if j - i == 0 else "go"
                structure = teller.slot_structure(p, int(ev[E.F_X0]))
                text = f"{join(said['cards'])} {verb} under P{p}'s {structure}"
            i = j
        else:
            text = teller.sentence(ev, step, active)
            if k in CARD_EVENTS:
                said["cards"] = [teller.card(int(ev[E.F_TARGET]))]
            if k in CITY_EVENTS:
                said["city"] = int(ev[E.F_X0] if k != E.EV_CONFLICT else ev[E.F_TARGET])
            nxt = rows[i] if i < len(rows) else None
            if k in (E.EV_PLAY, E.EV_BEAST) and nxt is not None and _pays(nxt, ev):
                coins, cost = int(nxt[E.F_X0]), int(ev[E.F_AMOUNT])
                text += f" for {plural(cost, 'coin')}: {coins + cost} -> {coins}"
                i += 1
        said["text"] = f"{cause}: {text}" if cause else text
        out.append(said)
    return out


def tell(teller: Teller, rows: np.ndarray, step: str, active: int) -> list[str]:
    """The lines of one step's events (:func:`events`), in the order they happened."""
    return [e["text"] for e in events(teller, rows, step, active)]


def _pays(nxt: np.ndarray, play: np.ndarray) -> bool:
    """Whether ``nxt`` is the payment of the play ``play`` (its cost, by its seat)."""
    return (
        int(nxt[E.F_KIND]) == E.EV_COINS
        and nxt[E.F_SEAT] == play[E.F_SEAT]
        and int(nxt[E.F_AMOUNT]) == -int(play[E.F_AMOUNT])
    )


def sides(sc: Scenario) -> dict[tuple[int, int], list[tuple[int, bool]]]:
    """Every city side's units as ``(card, enraged)``, keyed ``(city, seat)``."""
    return {
        (c, p): list(zip(sc.side_ids(c, p), sc.enraged_flags(c, p), strict=True))
        for c in range(L.N_CITIES)
        for p in range(2)
    }


def untraced(
    teller: Teller, said: list[dict[str, Any]], before: dict, after: dict, step: str, p: int
) -> list[dict[str, Any]]:
    """A step's events ``said`` with those the trace has no row for, read from the city
    sides before and after the step (:func:`sides`): first the active seat ``p``'s enraged
    units turning back in its Offering (Supply) step, then after each run of a seat's units
    discarded in one city in a war, the units that seat kept there."""
    out = []
    if step == "offering":
        now = {card for c in range(L.N_CITIES) for card, on in after[c, p] if not on}
        calm = [card for c in range(L.N_CITIES) for card, on in before[c, p] if on and card in now]
        if calm:
            names = [teller.card(x) for x in calm]
            text = f"P{p}'s enraged {join(names)} turn{'s' if len(names) == 1 else ''} back"
            out.append({"event": "calm", "text": text, "seat": p, "cause": "", "cards": names})
    for e, nxt in zip(said, [*said[1:], None], strict=False):
        out.append(e)
        if step != "war" or e["event"] != "destroy":
            continue
        at = (e["city"], e["seat"])
        if nxt is None or nxt["event"] != "destroy" or (nxt["city"], nxt["seat"]) != at:
            now = {card for card, _on in after[at]}
            names = [teller.card(x) for x, _on in before[at] if x in now]
            text = f"P{at[1]} keeps {join(names) or 'nothing'} in city {at[0] + 1}"
            out.append({**e, "event": "keep", "text": text, "cards": names, "cause": ""})
    return out


# --- the set-up and the end ----------------------------------------------------------


def setup_events(sc: Any, reign: bool) -> list[dict[str, Any]]:
    """The set-up as events, read from the scenario ``sc`` after ``setup``: who goes first,
    gods and structures, the reward stacks, hands, starting units, coins and decks."""
    out: list[dict[str, Any]] = []

    def ev(kind: str, text: str, **extra: Any) -> None:
        out.append({"event": kind, "text": text, **extra})

    tile = "reward card" if reign else "reward tile"
    ev("first", f"P{sc.first} goes first", seat=sc.first)
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
        text = f"city {c + 1} {tile}s (top last): {'; '.join(stack) if stack else 'none'}"
        ev("stack", text, city=c, tiles=stack)
    for p in range(2):
        hand = sc.hand(p)
        ev("hand", f"P{p}'s hand ({len(hand)}): {'; '.join(hand)}", seat=p, cards=hand)
    for p in range(2):
        for c in range(L.N_CITIES):
            units = sc.city(c, p)
            if units:
                ev("city", f"P{p} starts with {join(units)} in city {c + 1}", seat=p, city=c)
    coins = ", ".join(f"P{p} {sc.coins(p)}" for p in range(2))
    vp = f"; VP tokens in the supply {sc.vp_supply}" if sc.vp_supply else ""
    ev("coins", f"coins: {coins}; supply {sc.supply}{vp}")
    if sc.own_decks:
        ev("deck", f"decks: {', '.join(f'P{p} {sc.deck_size(p)}' for p in range(2))} cards")
    else:
        ev("deck", f"deck: {sc.deck_size()} cards")
    if sc.box_size():
        ev("box", f"{sc.box_size()} cards stay in the box")
    return out


def end_events(res: dict[str, Any]) -> list[dict[str, Any]]:
    """The end as events (``res``: ``Scenario.result()``): why the game ended, each seat's
    score with its components, the winner."""
    reason = res["end_reason"]
    text = f"the game ends after {res['turns']} turns: {END_WORDS.get(reason, reason)} ({reason})"
    out = [{"event": "end", "text": text, "end_reason": reason, "turns": res["turns"]}]
    for p in range(2):
        parts = [
            (
                t.weight * res[f"{t.name}_p{p}"],
                t.label.format(n=res[f"{t.count or t.name}_p{p}"], w=t.weight),
            )
            for t in L.SCORE_TERMS
        ]
        shown = " + ".join(f"{v} ({label})" for v, label in parts if v or "reward" in label)
        score = res[f"score_p{p}"]
        text = f"P{p} scores {score} VP = {shown}"
        out.append({"event": "score", "text": text, "seat": p, "score": score})
    w = res["winner"]
    text = "a shared victory" if w < 0 else f"P{w} wins"
    out.append({"event": "winner", "text": text, "winner": w})
    return out


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


# --- the text ------------------------------------------------------------------------


def render(
    head: str,
    evs: list[dict[str, Any]],
    scores: dict[int, dict[str, Any]],
    result: dict[str, Any],
    story: bool,
) -> list[str]:
    """The lines of a replayed game: ``head``, the set-up, each turn's steps with their
    events, the end. With ``story`` every decision, the score after each turn (``scores``,
    by turn) and why the game was won (``result``) are said, and a step with no event is
    left out; without, decisions are left out and a step with no event says so.

    ``evs`` are the game's events in order, each with ``turn``, ``active``, ``step``,
    ``step_name`` beside the keys of :func:`events` (``step`` is ``setup`` or ``end`` for
    the set-up's and the end's; a step with no event has one :data:`NOTHING`)."""
    lines = [head]
    hidden = {NOTHING} if story else {NOTHING, CHOICE}
    turn = None
    for (n, step), group in groupby(evs, key=lambda e: (e["turn"], e["step"])):
        first, *rest = group
        said = [e["text"] for e in (first, *rest) if e["event"] not in hidden]
        if n != turn or step == "end":
            if turn is not None and turn > 0 and story:
                res = scores[turn]
                lines.append(f"  score: P0 {res['score_p0']} VP, P1 {res['score_p1']} VP")
            turn = n
            title = {"setup": "Set-up", "end": "End of the game"}.get(step)
            lines += ["", title or f"Turn {n}: P{first['active']}"]
        if step in ("setup", "end"):
            lines += [f"  {x}" for x in said]
            continue
        if not said and story:
            continue
        lines.append(f"  {first['step_name']}")
        lines += [f"    {x}" for x in said or ["nothing happens"]]
    return lines + (["", *why_won(result)] if story else [])
