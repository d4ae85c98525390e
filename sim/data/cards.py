"""Card data: load the set TOML files, validate them, compile a mix to integer tables.

``configs/sets/<set>.toml`` holds everything about a set's cards and rules
(schema: ``configs/README.md``). This module turns a mix such as ``aegean``
into one :class:`CardPool`: the validated entries, the rule parameters, and
the :class:`~sim.base.tables.Tables` the kernel plays with. A bad file gets
one :class:`CardDataError` naming the file, the card and the field.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from sim.base import layout as L
from sim.base import vocab as V
from sim.base.errors import Error
from sim.base.tables import Tables
from sim.data import schema as S
from sim.data.rule_reach import inert_rules, mix_facts
from sim.data.spec import VARIANT_TABLE, SpecError

if TYPE_CHECKING:  # pandas is heavy in RSS; `omensim run` never builds a frame
    import pandas as pd


def config_dir() -> Path:
    """The shipped ``configs/``: installed beside the package as ``omensim_configs`` (a wheel,
    see pyproject.toml), or the checkout's ``configs/`` (a clone or an editable install)."""
    root = Path(__file__).resolve().parents[2]
    installed = root / "omensim_configs"
    return installed if installed.is_dir() else root / "configs"


CONFIG_DIR = config_dir()
SETS_DIR = CONFIG_DIR / "sets"

# Every key each table may hold, with its type: sim.data.schema.TABLES.
UNIT_KEYS = set(S.TABLES["units"])
UNIT_REQUIRED = ("name", "type", "cost", "offering", "strength", "copies", "source", "text")
REWARD_KEYS = set(S.TABLES["rewards"])
FEAT_KEYS = set(S.TABLES["feats"])
STRUCT_KEYS = set(S.TABLES["structures"])
ABILITY_KEYS = set(S.TABLES["abilities"])
OP_KEYS = set(S.TABLES["ops"])
SOURCES = ("rulebook", "reconstructed")

# Rule parameters (declared once, with their slots, bounds and defaults, in sim.base.layout).
RULE_PARAMS: dict[str, L.RuleParam] = {r.key: r for r in L.RULE_PARAMS}
RULE_KEYS: tuple[str, ...] = tuple(RULE_PARAMS)
RULE_OPTIONAL: dict[str, Any] = {
    k: r.default for k, r in RULE_PARAMS.items() if r.default is not None
}
"""Rules a set file may leave out, with the value that then applies (often: the mechanism off)."""
READINGS: dict[str, tuple[str, ...]] = {
    k: r.choices for k, r in RULE_PARAMS.items() if r.kind == "reading"
}
"""Values each string rule parameter may take (one value: the other reading is not playable)."""
READING_SWITCHES: dict[str, tuple[int, Any, Any]] = {
    k: (RULE_PARAMS[k].slot, *RULE_PARAMS[k].choices) for k in L.READING_SWITCH_KEYS
}
"""Named readings that are one kernel switch each: key -> (rule slot, default, the other
reading, which sets the slot to 1); sim/data/interpretations.py describes each."""
BUILD_FROM = READINGS["build_from"]


class CardDataError(Error):
    """A card file that cannot be used; the message is one line naming file, card, field."""


def available_sets() -> list[str]:
    """Names of the sets shipped in ``configs/sets``."""
    return sorted(p.stem for p in SETS_DIR.glob("*.toml"))


@dataclass
class SetData:
    """One validated set file."""

    name: str
    title: str
    path: Path
    rules: dict[str, Any]
    units: list[dict[str, Any]]
    rewards: list[dict[str, Any]]
    structures: list[dict[str, Any]] = field(default_factory=list)
    feats: list[dict[str, Any]] = field(default_factory=list)


CARD_COLUMNS = (
    "id", "name", "set", "type", "cost", "strength", "offering", "copies", "keywords",
    "provenance",
)  # fmt: skip
"""Columns of a run's ``_cards.parquet``: ``id`` is the kind id used in ``played_p0/p1``."""


def unit_table(units: list[dict[str, Any]]) -> pa.Table:
    """One row per unit kind, ``id`` = position = the kind id in the run's list columns.

    ``provenance`` says where the card's data comes from (``printed``,
    ``reconstructed``, ...; see the README).
    """
    return pa.table(
        {
            "id": pa.array(range(len(units)), pa.int16()),
            "name": pa.array([str(u["name"]) for u in units], pa.string()),
            "set": pa.array([str(u["set"]) for u in units], pa.string()),
            "type": pa.array([str(u["type"]) for u in units], pa.string()),
            "cost": pa.array([int(u["cost"]) for u in units], pa.int16()),
            "strength": pa.array([int(u["strength"]) for u in units], pa.int16()),
            "offering": pa.array([int(u["offering"]) for u in units], pa.int16()),
            "copies": pa.array([int(u["copies"]) for u in units], pa.int16()),
            "keywords": pa.array([list(u["keywords"]) for u in units], pa.list_(pa.string())),
            "provenance": pa.array([str(u.get("source", "")) for u in units], pa.string()),
        }
    )


@dataclass
class CardPool:
    """A mix compiled for the kernel: entries for people, tables for numba."""

    mix: str
    sets: list[SetData]
    units: list[dict[str, Any]]
    rewards: list[dict[str, Any]]
    rules: dict[str, Any]
    tables: Tables
    structures: list[dict[str, Any]] = field(default_factory=list)
    feats: list[dict[str, Any]] = field(default_factory=list)
    interpretations: dict[str, str] = field(default_factory=dict)

    def frame(self) -> pd.DataFrame:
        """The compiled card table, one row per unit kind (``omensim cards``)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "kind": range(len(self.units)),
                "name": [u["name"] for u in self.units],
                "set": [u["set"] for u in self.units],
                "type": [u["type"] for u in self.units],
                "devotion": [u["devotion"] for u in self.units],
                "cost": [u["cost"] for u in self.units],
                "offering": [u["offering"] for u in self.units],
                "strength": [u["strength"] for u in self.units],
                "copies": [u["copies"] for u in self.units],
                "keywords": [" ".join(u["keywords"]) for u in self.units],
                "text": [u["text"] for u in self.units],
                "source": [u["source"] for u in self.units],
            }
        )

    def cards_table(self) -> pa.Table:
        """The card kinds of a run, for its ``_cards.parquet`` (see :func:`unit_table`)."""
        return unit_table(self.units)

    def rewards_frame(self) -> pd.DataFrame:
        """The reward tiles of the mix, one row per tile kind."""
        import pandas as pd

        return pd.DataFrame(
            {
                "name": [r["name"] for r in self.rewards],
                "set": [r["set"] for r in self.rewards],
                "copies": [r["copies"] for r in self.rewards],
                "text": [r["text"] for r in self.rewards],
                "source": [r["source"] for r in self.rewards],
            }
        )

    def structures_frame(self) -> pd.DataFrame:
        """The structures of the mix (Heir to the Dunes), one row each."""
        import pandas as pd

        cols = ["name", "god", "build_cost", "vp", "text", "source"]
        return pd.DataFrame([{c: sd[c] for c in cols} for sd in self.structures], columns=cols)

    def to_json(self) -> str:
        """The whole pool (units, rewards, rules) as canonical JSON, for run metadata."""
        return json.dumps(
            {
                "mix": self.mix,
                "units": self.units,
                "rewards": self.rewards,
                "structures": self.structures,
                "feats": self.feats,
                "rules": self.rules,
            },
            sort_keys=True,
            separators=(",", ":"),
        )

    def card_hash(self) -> str:
        """A short hash of the compiled pool: equal hashes, equal cards and rules."""
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:16]

    def kind_index(self, name: str) -> int:
        """The kind id of the unit called ``name``."""
        for k, u in enumerate(self.units):
            if u["name"] == name:
                return k
        raise KeyError(f"no unit named {name!r} in mix {self.mix!r}")

    def reward_index(self, name: str) -> int:
        """The reward kind id of the tile called ``name``."""
        for k, r in enumerate(self.rewards):
            if r["name"] == name:
                return k
        raise KeyError(f"no reward named {name!r} in mix {self.mix!r}")


# --- validation -----------------------------------------------------------------


class _Where:
    """Formats the one-line error: file, entry, field."""

    def __init__(self, path: Path, entry: str) -> None:
        self.path = path
        self.entry = entry

    def fail(self, fld: str, problem: str) -> CardDataError:
        return CardDataError(f"{self.path.name}: {self.entry}: field '{fld}': {problem}")


def _int(where: _Where, d: dict, key: str, bound: S.Bound, default: int | None = None) -> int:
    """``d[key]`` (or ``default``) checked against its schema bound."""
    if key not in d:
        if default is None:
            raise where.fail(key, "missing")
        return default
    try:
        return S.check_int(d[key], bound, "value")
    except S.SchemaError as e:
        raise where.fail(key, str(e).removeprefix("value: ")) from None


def _name(where: _Where, table: dict[str, int], v: Any, fld: str) -> str:
    if not isinstance(v, str) or v not in table:
        raise where.fail(fld, f"unknown {fld} {v!r}; valid: {', '.join(table)}")
    return v


def _unknown(where: _Where, d: dict, allowed: set[str], what: str) -> None:
    extra = sorted(set(d) - allowed)
    if extra:
        raise where.fail(extra[0], f"unknown {what} key; valid keys: {', '.join(sorted(allowed))}")


def _kind(
    where: _Where,
    raw: dict,
    allowed: set[str],
    what: str,
    key: str,
    names: dict[str, int],
    path: str,
) -> str:
    """Check the keys of table ``raw`` (at ``path``), then read its required ``key``, a name
    from ``names`` (an op's ``op``, an ability's ``trigger``)."""
    _unknown(where, raw, allowed, what)
    if key not in raw:
        raise where.fail(f"{path}.{key}", "missing")
    return _name(where, names, raw[key], f"{path}.{key}")


def _op(where: _Where, raw: Any, trigger: str, i: int) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise where.fail(f"ops[{i}]", 'must be a table like { op = "draw", n = 1 }')
    op = _kind(where, raw, OP_KEYS, "op", "op", V.OPS, f"ops[{i}]")
    is_static = V.OPS[op] in V.STATIC_OPS
    if is_static != (trigger == "static"):
        rule = "is allowed only under" if is_static else "is not allowed under"
        raise where.fail(f"ops[{i}].op", f"op {op!r} {rule} trigger 'static'")
    n_bound = S.OP_SIGNED_N if op in ("cost", "strength") else S.OP_INTS["n"]
    out = {
        "op": op,
        "n": _int(where, raw, "n", n_bound, 1),
        "limit": _int(where, raw, "limit", S.OP_INTS["limit"], 0),
        "target": _name(where, V.TARGETS, raw.get("target", "any_city"), f"ops[{i}].target"),
        "when": _name(where, V.CONDITIONS, raw.get("when", "none"), f"ops[{i}].when"),
        "when_n": _int(where, raw, "when_n", S.OP_INTS["when_n"], 0),
        "may": raw.get("may", False),
    }
    if not isinstance(out["may"], bool):
        raise where.fail(f"ops[{i}].may", f"must be true or false, got {out['may']!r}")
    return out


def _abilities(where: _Where, raw: Any, allowed: set[str]) -> list[dict[str, Any]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise where.fail("abilities", "must be a list of [[...abilities]] tables")
    out = []
    for j, a in enumerate(raw):
        if not isinstance(a, dict):
            raise where.fail(f"abilities[{j}]", "must be a table")
        trig = _kind(where, a, ABILITY_KEYS, "ability", "trigger", V.TRIGGERS, f"abilities[{j}]")
        if trig not in allowed:
            raise where.fail(
                f"abilities[{j}].trigger", f"{trig!r} not allowed here; use {sorted(allowed)}"
            )
        # Reading beast_one_ability: a Beast resolves one ability, so a second block would
        # never play; refused rather than silently dropped.
        if trig == "beast" and any(b["trigger"] == "beast" for b in out):
            raise where.fail(
                f"abilities[{j}].trigger",
                "a Beast has one ability: put its ops in one 'beast' block",
            )
        ops = a.get("ops")
        # An ability without ops does nothing: a typo, never intended. Only EXALT's condition
        # stands alone (ops = [], its effect is the keyword), and it must say so explicitly.
        if not isinstance(ops, list) or (not ops and trig != "exalt"):
            raise where.fail(
                f"abilities[{j}].ops", 'needs a non-empty list like [{ op = "draw", n = 1 }]'
            )
        out.append(
            {
                "trigger": trig,
                "cost": _int(where, a, "cost", S.ABILITY_INTS["cost"], 0),
                "when": _name(where, V.CONDITIONS, a.get("when", "none"), f"abilities[{j}].when"),
                "when_n": _int(where, a, "when_n", S.ABILITY_INTS["when_n"], 0),
                "ops": [_op(where, o, trig, i) for i, o in enumerate(ops)],
            }
        )
    return out


def _str(where: _Where, d: dict, key: str) -> str:
    if key not in d:
        raise where.fail(key, "missing")
    if not isinstance(d[key], str) or not d[key].strip():
        raise where.fail(key, f"must be non-empty text, got {d[key]!r}")
    return d[key]


def _entry(path: Path, raw: Any, i: int, what: str, keys: set[str]) -> tuple[_Where, str]:
    """Check one ``[[<what>s]]`` entry's shape; returns where it is and its ``source``."""
    label = raw.get("name", f"#{i + 1}") if isinstance(raw, dict) else f"#{i + 1}"
    where = _Where(path, f"{what} {label!r}")
    if not isinstance(raw, dict):
        raise where.fail(f"{what}s", f"each [[{what}s]] entry must be a table")
    _unknown(where, raw, keys, what)
    source = _str(where, raw, "source")
    if source not in SOURCES:
        raise where.fail("source", f"must be one of {', '.join(SOURCES)}, got {source!r}")
    return where, source


def _unit(path: Path, set_name: str, raw: Any, i: int) -> dict[str, Any]:
    where, source = _entry(path, raw, i, "unit", UNIT_KEYS)
    for key in UNIT_REQUIRED:
        if key not in raw:
            raise where.fail(key, "missing")
    kws = raw.get("keywords", [])
    if not isinstance(kws, list):
        raise where.fail("keywords", "must be a list of keyword names")
    for kw in kws:
        _name(where, V.KEYWORDS, kw, "keywords")
    allowed = set(V.TRIGGERS) - {"reward", "complete"}
    return {
        "name": _str(where, raw, "name"),
        "set": set_name,
        "type": _name(where, V.UNIT_TYPES, raw["type"], "type"),
        "devotion": _name(where, V.DEVOTIONS, raw.get("devotion", "neutral"), "devotion"),
        "cost": _int(where, raw, "cost", S.UNIT_INTS["cost"]),
        "offering": _int(where, raw, "offering", S.UNIT_INTS["offering"]),
        "strength": _int(where, raw, "strength", S.UNIT_INTS["strength"]),
        "copies": _int(where, raw, "copies", S.UNIT_INTS["copies"]),
        "keywords": list(kws),
        "source": source,
        "text": _str(where, raw, "text"),
        "abilities": _abilities(where, raw.get("abilities"), allowed),
        "learning": _bool(where, raw, "learning"),
    }


def _reward(path: Path, set_name: str, raw: Any, i: int) -> dict[str, Any]:
    where, source = _entry(path, raw, i, "reward", REWARD_KEYS)
    return {
        "name": _str(where, raw, "name"),
        "set": set_name,
        "copies": _int(where, raw, "copies", S.REWARD_INTS["copies"], 1),
        "source": source,
        "text": _str(where, raw, "text"),
        "abilities": _abilities(where, raw.get("abilities"), {"reward"}),
        "four_player": _bool(where, raw, "four_player"),
    }


def _bool(where: _Where, d: dict, key: str) -> bool:
    v = d.get(key, False)
    if not isinstance(v, bool):
        raise where.fail(key, f"must be true or false, got {v!r}")
    return v


def _feat(path: Path, raw: Any, i: int) -> dict[str, Any]:
    where, source = _entry(path, raw, i, "feat", FEAT_KEYS)
    cond = _name(where, V.FEAT_CONDITIONS, raw.get("condition"), "condition")
    typ = raw.get("type", "soldier")
    if cond == "type_in_each_city":
        _name(where, V.UNIT_TYPES, typ, "type")
    return {
        "name": _str(where, raw, "name"),
        "condition": cond,
        "type": typ,
        "n": _int(where, raw, "n", S.FEAT_INTS["n"], 0),
        "source": source,
        "text": _str(where, raw, "text"),
    }


def _structure(path: Path, raw: Any, i: int) -> dict[str, Any]:
    where, source = _entry(path, raw, i, "structure", STRUCT_KEYS)
    return {
        "name": _str(where, raw, "name"),
        "god": _name(where, V.GODS, raw.get("god"), "god"),
        "build_cost": _int(where, raw, "build_cost", S.STRUCTURE_INTS["build_cost"]),
        "vp": _int(where, raw, "vp", S.STRUCTURE_INTS["vp"]),
        "source": source,
        "text": _str(where, raw, "text"),
        "abilities": _abilities(where, raw.get("abilities"), {"complete"}),
    }


def _rule_value(where: _Where, raw: dict, key: str) -> Any:
    """One validated rule parameter (``raw[key]`` or its default), by the key's kind."""
    r = RULE_PARAMS[key]
    if r.kind == "int":
        return _int(where, raw, key, S.RULE_INTS[key], r.default)
    if r.kind == "name":
        return _name(where, getattr(V, r.choices[0]), raw.get(key, r.default), key)
    if r.kind == "names":
        names = raw.get(key, [])
        if r.size == 1 and (not isinstance(names, list) or not names):
            # One slot holds a bit set (the end conditions): a game needs at least one.
            raise where.fail(key, "must be a non-empty list")
        if r.size > 1 and (not isinstance(names, list) or len(names) > r.size):
            raise where.fail(key, f"must be a list of at most {r.size} names")
        return [_name(where, getattr(V, r.choices[0]), n, key) for n in names]
    value = raw.get(key, r.default)
    if r.kind == "bool" or isinstance(r.default, bool):  # a reading may be true/false
        if not isinstance(value, bool):
            raise where.fail(key, "must be true or false")
        return value
    if value not in r.choices:
        raise where.fail(key, f"must be one of {', '.join(r.choices)}, got {value!r}")
    return value


def _rules(path: Path, raw: Any) -> dict[str, Any]:
    where = _Where(path, "[rules]")
    if not isinstance(raw, dict):
        raise where.fail("rules", "missing [rules] table")
    _unknown(where, raw, set(RULE_KEYS), "rule")
    return {k: _rule_value(where, raw, k) for k in RULE_KEYS}


def load_rule_overrides(path: Path | str) -> dict[str, Any]:
    """Read a house-rules file (``--rules``): a ``[rules]`` table of named rule parameters.

    Any key a set file's ``[rules]`` may hold can be overridden; each is
    validated exactly as in a set file. The overrides apply after the mix's
    sets are combined, so they win over the combining defaults.
    """
    path = Path(path)
    raw = _read_toml(path, "rules file")
    where = _Where(path, "[rules]")
    _unknown(where, raw, {"rules"}, "top-level")
    table = raw.get("rules")
    if not isinstance(table, dict) or not table:
        raise where.fail("rules", "needs a non-empty [rules] table")
    _unknown(where, table, set(RULE_KEYS), "rule")
    return {k: _rule_value(where, table, k) for k in table}


def _read_toml(path: Path, what: str) -> dict[str, Any]:
    """The parsed UTF-8 TOML of ``path``, or a one-line CardDataError naming the file."""
    try:
        return S.read_toml(path, what)
    except S.SchemaError as e:
        raise CardDataError(str(e)) from None


SET_TABLES = ("set", "rules", "units", "rewards", "structures", "feats")
"""The top-level tables of a set file (configs/README.md); any other is an error."""
SET_HEAD_KEYS = ("name", "title", "rulebook")
"""The keys of a set file's ``[set]`` table."""


def name_key(name: str) -> str:
    """A card name as names are compared: NFC-normalised, stripped, case-folded (two names
    equal under it are one card; ``--change`` finds a card by it)."""
    return unicodedata.normalize("NFC", name).strip().casefold()


def load_set(path: Path) -> SetData:
    """Read and validate one set file."""
    raw = _read_toml(path, "set file")
    _unknown(_Where(path, "top level"), raw, set(SET_TABLES), "top-level")
    head = raw.get("set", {})
    where = _Where(path, "[set]")
    if not isinstance(head, dict):
        raise where.fail("set", "must be a table ([set])")
    _unknown(where, head, set(SET_HEAD_KEYS), "[set]")
    name = _str(where, head, "name")
    for key in ("units", "rewards", "structures", "feats"):
        if not isinstance(raw.get(key, []), list):
            raise _Where(path, f"[[{key}]]").fail(key, f"must be a list of [[{key}]] tables")
    units = raw.get("units", [])
    if not units:
        raise CardDataError(f"{path.name}: [[units]]: field 'units': the set has no units")
    data = SetData(
        name=name,
        title=_str(where, head, "title") if "title" in head else name,
        path=path,
        rules=_rules(path, raw.get("rules")),
        units=[_unit(path, name, u, i) for i, u in enumerate(units)],
        rewards=[_reward(path, name, r, i) for i, r in enumerate(raw.get("rewards", []))],
        structures=[_structure(path, r, i) for i, r in enumerate(raw.get("structures", []))],
        feats=[_feat(path, r, i) for i, r in enumerate(raw.get("feats", []))],
    )
    for what, entries in (("unit", data.units), ("reward", data.rewards)):
        seen: dict[str, str] = {}
        for u in entries:
            key = name_key(u["name"])
            if key in seen:
                same = "" if seen[key] == u["name"] else f" (the same name as {seen[key]!r})"
                raise CardDataError(
                    f"{path.name}: {what} {u['name']!r}: field 'name': duplicate name{same}"
                )
            seen[key] = u["name"]
    _check_set_rules(data, raw.get("rules", {}))
    return data


def _check_set_rules(data: SetData, given: dict[str, Any]) -> None:
    """Refuse a rule a set file switches on that cannot act in the set's own games
    (the same check, :mod:`sim.data.rule_reach`, for shipped and user set files)."""
    changed = [k for k in given if data.rules[k] != RULE_OPTIONAL.get(k, 0)]
    inert = inert_rules(mix_facts(data, data.rules), changed, variants_known=False)
    if inert:
        key, why = inert[0]
        raise CardDataError(
            f"{data.path.name}: [rules]: {key} = {data.rules[key]!r} has no effect in set "
            f"{data.name!r}: {why}"
        )


# --- compilation ----------------------------------------------------------------


def static_bits(u: dict[str, Any]) -> int:
    """``layout.STATIC_*`` bits of the ongoing (``static``) cost and strength ops unit ``u`` has.

    The kernel reads ongoing ops only when a unit in play has the matching bit
    (``sim.kernel.board``); other ops in an ongoing ability have no effect.
    """
    bits = 0
    for a in u["abilities"]:
        if a["trigger"] == "static":
            for o in a["ops"]:
                bits |= {"cost": L.STATIC_COST, "strength": L.STATIC_STRENGTH}.get(o["op"], 0)
    return bits


def _compile_ability(a: dict, abil_rows: list, op_rows: list) -> None:
    abil_rows.append(
        [
            V.TRIGGERS[a["trigger"]],
            a["cost"],
            len(op_rows),
            len(a["ops"]),
            V.CONDITIONS[a["when"]],
            a["when_n"],
        ]
    )
    for o in a["ops"]:
        op_rows.append(
            [
                V.OPS[o["op"]],
                o["n"],
                o["limit"],
                V.TARGETS[o["target"]],
                V.CONDITIONS[o["when"]],
                o["when_n"],
                int(o["may"]),
                0,
            ]
        )


def rule_slots(rules: dict[str, Any]) -> np.ndarray:
    """The rules table with every declared rule parameter in its slot (``layout.RULE_PARAMS``).

    Numbers and switches go in as they are, a reading as the index of its value, a name as
    its vocab code, a list of names as a bit set (one slot) or one code a slot.
    """
    ru = np.zeros(L.RU_COUNT, np.int64)
    for r in L.RULE_PARAMS:
        if r.slot is None:
            continue
        value = rules[r.key]
        if r.kind in ("int", "bool"):
            ru[r.slot] = int(value)
        elif r.kind == "reading":
            ru[r.slot] = r.choices.index(value)
        elif r.kind == "name":
            ru[r.slot] = getattr(V, r.choices[0])[value]
        elif r.size == 1:
            ru[r.slot] = sum(getattr(V, r.choices[0])[n] for n in set(value))
        else:
            for i, n in enumerate(value):
                ru[r.slot + i] = getattr(V, r.choices[0])[n]
    return ru


def compile_tables(
    units: list[dict],
    rewards: list[dict],
    rules: dict[str, Any],
    structures: list[dict] | None = None,
    feats: list[dict] | None = None,
) -> Tables:
    """Compile validated entries and rules into the kernel's integer tables."""
    structures = structures or []
    feats = feats or []
    if len(feats) > L.MAX_FEATS:
        raise CardDataError(f"the mix has {len(feats)} feats; at most {L.MAX_FEATS}")
    abil_rows: list[list[int]] = []
    op_rows: list[list[int]] = []
    kind = np.zeros((len(units), L.K_COLS), np.int64)
    for k, u in enumerate(units):
        kind[k, L.K_TYPE] = V.UNIT_TYPES[u["type"]]
        kind[k, L.K_COST] = u["cost"]
        kind[k, L.K_OFFERING] = u["offering"]
        kind[k, L.K_STRENGTH] = u["strength"]
        kind[k, L.K_KEYWORDS] = sum(V.KEYWORDS[kw] for kw in set(u["keywords"]))
        kind[k, L.K_ABIL_START] = len(abil_rows)
        kind[k, L.K_ABIL_N] = len(u["abilities"])
        kind[k, L.K_STATIC] = static_bits(u)
        kind[k, L.K_DEVOTION] = V.DEVOTIONS[u["devotion"]]
        for a in u["abilities"]:
            kind[k, L.K_TRIGGERS] |= 1 << V.TRIGGERS[a["trigger"]]
        for a in u["abilities"]:
            _compile_ability(a, abil_rows, op_rows)
    reward = np.zeros((max(len(rewards), 1), L.R_COLS), np.int64)
    for r, rw in enumerate(rewards):
        reward[r, L.R_ABIL_START] = len(abil_rows)
        reward[r, L.R_ABIL_N] = len(rw["abilities"])
        for a in rw["abilities"]:
            _compile_ability(a, abil_rows, op_rows)
    struct = np.zeros((max(len(structures), 1), L.S_COLS), np.int64)
    for i, sd in enumerate(structures):
        struct[i, L.S_GOD] = V.GODS[sd["god"]]
        struct[i, L.S_BUILD_COST] = sd["build_cost"]
        struct[i, L.S_VP] = sd["vp"]
        struct[i, L.S_ABIL_START] = len(abil_rows)
        struct[i, L.S_ABIL_N] = len(sd["abilities"])
        for a in sd["abilities"]:
            _compile_ability(a, abil_rows, op_rows)
    # Count before allocating: np.repeat of a huge copies value would try to allocate it.
    n_cards = sum(u["copies"] for u in units)
    if n_cards > L.MAX_CARDS:
        raise CardDataError(f"the mix has {n_cards} unit cards; at most {L.MAX_CARDS}")
    n_tiles = sum(r["copies"] for r in rewards)
    if n_tiles > L.MAX_CARDS:
        raise CardDataError(f"the mix has {n_tiles} reward tiles; at most {L.MAX_CARDS}")
    card_kind = np.repeat(np.arange(len(units), dtype=np.int64), [u["copies"] for u in units])
    tile_kind = np.repeat(
        np.arange(len(rewards), dtype=np.int64), [r["copies"] for r in rewards]
    ).astype(np.int64)
    if len(units) > 32 * L.MASK_WORDS:
        raise CardDataError(f"the mix has {len(units)} unit kinds; at most {32 * L.MASK_WORDS}")
    ru = rule_slots(rules)
    ends = set(rules["end_conditions"])
    if rules["feats_to_end"] == 0:
        # configs/README.md: feats_to_end = 0 means completed feats never end the game.
        ends.discard("feats_completed")
    ru[L.RU_END] = sum(V.END_CONDITIONS[e] for e in ends)
    # A mechanism whose cards the mix lacks is off, whatever its sets' rules say.
    if not structures:
        ru[L.RU_STRUCTS] = 0
    if not feats:
        ru[L.RU_FEAT_STEP] = 0
    ru[L.RU_N_CARDS] = len(card_kind)
    ru[L.RU_N_TILES] = len(tile_kind)
    ru[L.RU_TURN_CAP] = 200
    feat = np.zeros((max(len(feats), 1), L.FT_COLS), np.int64)
    for f, fd in enumerate(feats):
        feat[f, L.FT_COND] = V.FEAT_CONDITIONS[fd["condition"]]
        feat[f, L.FT_TYPE] = V.UNIT_TYPES[fd["type"]]
        feat[f, L.FT_N] = fd["n"]
    return Tables(
        kind=kind,
        card_kind=card_kind.astype(np.int64),
        abil=np.array(abil_rows, np.int64).reshape(-1, L.A_COLS),
        ops=np.array(op_rows, np.int64).reshape(-1, L.OP_COLS),
        reward=reward,
        tile_kind=tile_kind,
        rules=ru,
        struct=struct,
        feat=feat,
    )


MIX_HELP = "SET or SET:N joined by '+', e.g. dunes+aegean:10"


@dataclass(frozen=True)
class MixPart:
    """One set of a mix spec; ``limit`` keeps that many of its unit cards, drawn at random."""

    name: str
    limit: int | None = None

    def __str__(self) -> str:
        return self.name if self.limit is None else f"{self.name}:{self.limit}"


def parse_mix(mix: str) -> list[MixPart]:
    """Split a mix spec (``aegean``, ``dunes+aegean:10``) into its parts, base first.

    Only the syntax and the set names are checked here; whether a limit fits
    its set is checked by :func:`load_pool`, which knows the set's size.
    """
    valid = available_sets()
    hint = f"valid sets: {', '.join(valid)} ({MIX_HELP})"
    parts: list[MixPart] = []
    for raw in mix.split("+"):
        name, sep, limit = raw.strip().lower().partition(":")
        name = name.strip()
        if name not in valid:
            raise SpecError(f"unknown set {name!r} in --mix {mix!r}; {hint}")
        n: int | None = None
        if sep:
            # ASCII digits only: str.isdigit() accepts '²', which int() then refuses.
            if not re.fullmatch(r"[0-9]+", limit.strip()):
                raise SpecError(
                    f"--mix {mix!r}: the limit after '{name}:' must be a whole number; {hint}"
                )
            n = int(limit)
            if n < 1:
                raise SpecError(f"--mix {mix!r}: {name}:{n} keeps no units; {hint}")
        parts.append(MixPart(name, n))
    names = [p.name for p in parts]
    if len(set(names)) != len(names):
        raise SpecError(f"--mix {mix!r} names a set twice; {hint}")
    return parts


def normal_mix(mix: str) -> str:
    """``mix`` as :func:`parse_mix` reads it (``' AEGEAN + Dunes:010'`` ->
    ``'aegean+dunes:10'``): one text for every spelling of the same mix. The order stays,
    since the first set is the base whose rules the mix plays.

    Raises:
        SpecError: what :func:`parse_mix` refuses.
    """
    return "+".join(str(p) for p in parse_mix(mix))


def _limit_units(
    units: list[dict[str, Any]], part: MixPart, index: int, seed: int, mix: str
) -> list[dict[str, Any]]:
    """``part.limit`` unit cards of a set, drawn without replacement from its whole deck.

    The draw depends only on the run seed and the set's position in the mix,
    so ``omensim cards --seed S`` shows exactly the pool a run with seed S uses.
    Kinds keep the copies drawn; kinds with none drawn leave the pool.
    """
    total = sum(u["copies"] for u in units)
    if part.limit is None or part.limit == total:
        return units
    if part.limit > total:
        raise SpecError(
            f"--mix {mix!r}: {part} asks for {part.limit} units but {part.name} has {total}; "
            f"valid sets: {', '.join(available_sets())} ({MIX_HELP})"
        )
    if not S.SEED.contains(seed):
        raise SpecError(f"--seed must be between 0 and 2**63-1, got {seed}")
    rng = np.random.default_rng([seed, index, 0x0E4E])
    deck = np.repeat(np.arange(len(units)), [u["copies"] for u in units])
    kept = np.bincount(rng.choice(deck, part.limit, replace=False), minlength=len(units))
    return [{**u, "copies": int(c)} for u, c in zip(units, kept, strict=True) if c > 0]


def combine_rules(sets: list[SetData]) -> tuple[dict[str, Any], dict[str, str]]:
    """The rules of a mix: the base set's, plus what the other sets' components need.

    Returns the rules and the interpretation notes that explain each combining
    choice (Aegean and Dunes rulebooks, "Combining Omen Sets").
    """
    base = sets[0]
    rules = dict(base.rules)
    notes: dict[str, str] = {}
    if len(sets) == 1:
        return rules, notes
    ends = list(rules["end_conditions"])
    for s in sets[1:]:
        ends += [e for e in s.rules["end_conditions"] if e not in ends]
    rules["end_conditions"] = ends
    rules["vp_tokens"] = sum(s.rules["vp_tokens"] for s in sets)
    # Reign's Portent and Feat steps join the turn whenever its Oracles or feats are in.
    for key in ("portent_step", "feat_step"):
        rules[key] = any(s.rules[key] for s in sets)
    # A Soldier follows its own set's reading of moves, whichever set is the base.
    rules["soldier_ability_on_move"] = any(s.rules["soldier_ability_on_move"] for s in sets)
    rules["feats_to_end"] = max(s.rules["feats_to_end"] for s in sets)
    notes["combine_base"] = (
        f"The base set ({base.name}) supplies the board, coins, hand and coin limits, set-up, "
        f"{rules['tiles_per_city']} reward tiles per city and the tie-breaks; every other set "
        "adds its units and reward tiles, all shuffled together."
    )
    notes["combine_end"] = (
        "Every included set's end conditions apply, whichever comes first: " + ", ".join(ends) + "."
    )
    notes["combine_components"] = (
        "Every rule an included component needs is on: keywords and unit types work as in "
        "their own rulebook; VP tokens of every set are in the supply (2 VP each); units "
        "from sets without gods are neutral."
    )
    if any(s.structures for s in sets[1:]) and not base.structures:
        notes["combine_structures"] = "Structures are only used when their set is the base."
    return rules, notes


def load_pool(
    mix: str,
    seed: int = 0,
    learning: bool = False,
    rule_overrides: dict[str, Any] | None = None,
) -> CardPool:
    """Load, validate and compile the card pool of ``mix`` (the first set named is the base).

    ``learning`` keeps only the units marked ``learning = true`` in sets that
    mark any (A Reign of War's learning game). Reward cards marked
    ``four_player`` are left out: omensim plays 2-player games. ``seed`` picks
    the random units of limited sets (``aegean:10``); a mix without limits
    does not depend on it. ``rule_overrides`` (see :func:`load_rule_overrides`)
    replace named rule parameters after the sets are combined.
    """
    parts = parse_mix(mix)
    sets = [load_set(SETS_DIR / f"{p.name}.toml") for p in parts]
    return pool_from_sets(sets, learning, parts=parts, seed=seed, rule_overrides=rule_overrides)


def pool_from_sets(
    sets: list[SetData],
    learning: bool = False,
    *,
    parts: list[MixPart] | None = None,
    seed: int = 0,
    rule_overrides: dict[str, Any] | None = None,
) -> CardPool:
    """Combine and compile already loaded sets (the first is the base) into a pool.

    :func:`load_pool` reads the shipped files and calls this; ``sim.data.changes``
    calls it with a designer's replacement set file in place of a shipped one.
    ``parts`` carries the mix spec's limits (default: every set whole).
    """
    if parts is None:
        parts = [MixPart(s.name) for s in sets]
    mix = "+".join(str(p) for p in parts)
    units = []
    for i, (part, s) in enumerate(zip(parts, sets, strict=True)):
        marked = any(u["learning"] for u in s.units)
        mine = [u for u in s.units if not (learning and marked) or u["learning"]]
        units += _limit_units(mine, part, i, seed, mix)
    rewards = [r for s in sets for r in s.rewards if not r["four_player"]]
    structures = sets[0].structures
    feats = [f for s in sets for f in s.feats]
    rules, notes = combine_rules(sets)
    if any(p.limit is not None for p in parts):
        notes["combine_limit"] = (
            "A limited set (SET:N) adds N of its unit cards, drawn at random from its whole "
            "deck with the run seed; its reward tiles are all added."
        )
    if rule_overrides:
        inert = inert_overrides(rules, rule_overrides, units, rewards, structures, feats)
        if inert:
            key, why = inert[0]
            raise CardDataError(
                f"--rules: {key} = {rule_overrides[key]} has no effect on mix {mix!r}: {why}; "
                "remove it or choose a mix it changes"
            )
        rules.update(rule_overrides)
        notes["house_rules"] = "Rule parameters overridden by --rules: " + ", ".join(
            f"{k}={v}" for k, v in sorted(rule_overrides.items())
        )
    if structures:
        notes["build_from"] = (
            "Building a structure puts cards equal to the revealed unit's strength under it, "
            "taken from the top of the deck (the Dunes rulebook does not say where from)."
        )
    return CardPool(
        mix=mix,
        sets=sets,
        units=units,
        rewards=rewards,
        rules=rules,
        tables=compile_tables(units, rewards, rules, structures, feats),
        structures=structures,
        feats=feats,
        interpretations=notes,
    )


def inert_overrides(
    rules: dict[str, Any],
    overrides: dict[str, Any],
    units: list[dict],
    rewards: list[dict],
    structures: list[dict],
    feats: list[dict],
) -> list[tuple[str, str]]:
    """The ``--rules`` overrides that would not change a game of this mix, with the reason.

    An override has no effect when the compiled rule table is the same with and
    without it: the mix already has that value, or the mechanism it tunes is
    absent (``structures_per_player`` without structures, ``feat_step`` without
    feats), given the other overrides. ``tiles_per_city`` is compared by the
    tiles actually dealt, since a mix with too few reward tiles fills fewer per
    city (Aegean alone: 6 tiles, so at most 2 per city).
    """
    n_tiles = sum(r["copies"] for r in rewards)
    changed = {**rules, **overrides}
    after_all = compile_tables(units, rewards, changed, structures, feats).rules
    out = []
    for key, value in overrides.items():
        # Compared with every other override in place, so overrides that only act together
        # (e.g. an end condition and its threshold) are not called inert.
        without = compile_tables(units, rewards, {**changed, key: rules[key]}, structures, feats)
        before, after = without.rules.copy(), after_all.copy()
        for arr in (before, after):
            arr[L.RU_TILES_PER_CITY] = min(arr[L.RU_TILES_PER_CITY] * L.N_CITIES, n_tiles)
        if np.array_equal(before, after):
            if key == "tiles_per_city" and rules[key] != value:
                why = (
                    f"its {n_tiles} reward tiles fill at most {n_tiles // L.N_CITIES} per city "
                    f"(it has {rules[key]})"
                )
            elif rules[key] == value:
                why = f"the mix already has {key} = {value}"
            else:
                why = "the mechanism it tunes is not in this mix"
            out.append((key, why))
    return out


# The kernel switch of each run-level variant that has one (sim.data.spec.VARIANT_TABLE).
VARIANT_RULES: dict[str, int] = {v.name: getattr(L, v.rule) for v in VARIANT_TABLE if v.rule}


def with_run_rules(
    tables: Tables,
    turn_cap: int,
    emissary: bool,
    first_mode: int,
    variants: tuple[str, ...] = (),
    duplicate: bool = False,
    god_seats: int = L.GODS_BY_DEAL,
) -> Tables:
    """A copy of ``tables`` with the run-level rules (turn cap, variants, first player,
    and how the Dunes gods go to the seats) set."""
    ru = tables.rules.copy()
    ru[L.RU_TURN_CAP] = turn_cap
    ru[L.RU_FIRST_MODE] = first_mode
    for name, slot in VARIANT_RULES.items():
        ru[slot] = int(name in variants)
    ru[L.RU_EMISSARY] = int(emissary or "emissary" in variants)
    ru[L.RU_DUPLICATE] = int(duplicate)
    ru[L.RU_GOD_SEATS] = god_seats
    return tables._replace(rules=ru)
