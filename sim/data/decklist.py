"""Deck lists for A Reign of War's constructed variant.

A deck-list file names each player's 10 piles (unit kinds, all copies of
each), in TOML::

    p0 = ["Hoplite Vanguard", ...]   # 10 kind names
    p1 = [...]

The lists obey the pile-draft limits (at most 6 Soldier, 4 Beast and 4 Oracle
piles); omensim plays from one physical card pool, so the two lists may not
share a kind.
"""

from __future__ import annotations

from pathlib import Path

from sim.data import schema as S
from sim.data.cards import CardPool
from sim.data.spec import SpecError

PILES = S.DECK_PILES
LIMITS = S.DECK_LIMITS


def load_decklists(path: str | Path, pool: CardPool) -> list[list[int]]:
    """The two players' piles as kind ids; raises SpecError with one line on a bad file."""
    path = Path(path)
    try:
        raw = S.read_toml(path, "deck list")
    except S.SchemaError as e:
        raise SpecError(f"--decks: {e}") from None
    extra = sorted(set(raw) - set(S.TABLES["decks"]))
    if extra:
        raise SpecError(f"--decks {path}: unknown key {extra[0]!r}; valid keys: p0, p1")
    names = {u["name"]: k for k, u in enumerate(pool.units)}
    decks: list[list[int]] = []
    for seat in ("p0", "p1"):
        listed = raw.get(seat)
        if not isinstance(listed, list) or len(listed) != PILES:
            raise SpecError(f"--decks {path}: '{seat}' must list exactly {PILES} unit kinds")
        kinds = []
        for name in listed:
            if not isinstance(name, str) or name not in names:
                raise SpecError(f"--decks {path}: '{seat}': no unit kind named {name!r}")
            kinds.append(names[name])
        if len(set(kinds)) != PILES:
            raise SpecError(f"--decks {path}: '{seat}' names a kind twice")
        for unit_type, limit in LIMITS.items():
            n = sum(pool.units[k]["type"] == unit_type for k in kinds)
            if n > limit:
                raise SpecError(
                    f"--decks {path}: '{seat}' has {n} {unit_type} piles; at most {limit}"
                )
        decks.append(kinds)
    shared = set(decks[0]) & set(decks[1])
    if shared:
        name = pool.units[min(shared)]["name"]
        raise SpecError(f"--decks {path}: both players list {name!r}; each pile exists once")
    return decks
