"""Named change sets: card edits saved in the workspace as a TOML overlay.

A change set is a list of ``--change`` texts (``"Ker of the Spoils.cost=3"``) for one
mix, with its provenance: when it was made, by which omensim, and for each edit the
card's shipped value and where that value comes from. Every edit is checked exactly
as ``omensim compare --change`` checks it (:class:`sim.data.changes.Changes`), so the
desk shows the command line's own error text. The shipped configs are never written;
a change set is only ever passed to a command as ``--change`` options.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sim import __version__
from sim.data.cards import load_pool
from sim.data.changes import Changes, parse_change
from sim.data.spec import SpecError
from sim.desk.workspace import CHANGES, Workspace


def check(mix: str, texts: list[str]) -> str | None:
    """The command line's error for these ``--change`` texts on ``mix``, or None if they
    apply (the same parse and the same pool the CLI builds)."""
    try:
        Changes.parse(texts).load_pool(mix)
    except SpecError as exc:
        return str(exc)
    return None


@dataclass
class ChangeSet:
    """A named list of ``--change`` texts for ``mix`` and the provenance of each edit."""

    name: str
    mix: str
    changes: list[str] = field(default_factory=list)
    edits: list[dict[str, Any]] = field(default_factory=list)
    created: str = ""
    updated: str = ""
    made_by: str = ""

    def options(self) -> list[str]:
        """The change set as command-line options: ``--change TEXT`` for each edit."""
        return [opt for text in self.changes for opt in ("--change", text)]

    def with_edit(self, text: str) -> ChangeSet:
        """This set with ``text`` added, replacing an earlier edit of the same card and
        field; an edit back to the shipped value removes the earlier edit instead (on the
        command line it would change nothing and is refused). Raises SpecError with the
        CLI's text when the edit or the set is refused."""
        new = parse_change(text)
        shipped = {u["name"]: u for u in load_pool(self.mix).units}
        unit = next((u for n, u in shipped.items() if n.casefold() == new.card.casefold()), None)
        card = unit["name"] if unit is not None else new.card
        kept = [
            (t, e)
            for t, e in zip(self.changes, self.edits, strict=True)
            if (e["card"], e["field"]) != (card, new.field)
        ]
        if (
            unit is not None
            and new.field in unit
            and new.new_value(unit[new.field]) == unit[new.field]
        ):
            return ChangeSet(
                self.name, self.mix, [t for t, _ in kept], [e for _, e in kept],
                self.created, self.updated, self.made_by,
            )  # fmt: skip
        error = check(self.mix, [text])
        if error:
            raise SpecError(error)
        record = {
            "change": text,
            "card": card,
            "field": new.field,
            "shipped": unit[new.field] if unit is not None else None,
            "source": unit["source"] if unit is not None else None,
            "at": _now(),
        }
        texts = [t for t, _ in kept] + [text]
        error = check(self.mix, texts)
        if error:
            raise SpecError(error)
        return ChangeSet(
            self.name, self.mix, texts, [e for _, e in kept] + [record],
            self.created, self.updated, self.made_by,
        )  # fmt: skip

    def to_toml(self) -> str:
        """The TOML overlay (strings written as JSON strings, which TOML reads the same)."""
        q = json.dumps
        lines = [
            "# A change set made with omensim desk: card edits over the shipped sets, which it",
            "# never changes. Each `changes` entry is an `omensim --change` option:",
            f"#   omensim compare --mix {self.mix} "
            + " ".join(f"--change {q(t)}" for t in self.changes),
            f"name = {q(self.name)}",
            f"mix = {q(self.mix)}",
            f"created = {q(self.created)}",
            f"updated = {q(self.updated)}",
            f"made_by = {q(self.made_by)}",
            "changes = [" + ", ".join(q(t) for t in self.changes) + "]",
        ]
        for e in self.edits:
            lines += ["", "[[edit]]"]
            lines += [f"{k} = {q(v)}" for k, v in e.items() if v is not None]
        return "\n".join(lines) + "\n"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def path_of(ws: Workspace, name: str) -> Path:
    """Where change set ``name`` lives (a plain name, inside the workspace)."""
    return ws.named(CHANGES, name, ".toml")


def load(ws: Workspace, name: str) -> ChangeSet:
    """Change set ``name``; a missing one raises FileNotFoundError, a bad one SpecError."""
    path = path_of(ws, name)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"change set {name}: not TOML ({exc})") from None
    return ChangeSet(
        name=name,
        mix=str(data.get("mix", "aegean")),
        changes=[str(t) for t in data.get("changes", [])],
        edits=list(data.get("edit", [])),
        created=str(data.get("created", "")),
        updated=str(data.get("updated", "")),
        made_by=str(data.get("made_by", "")),
    )


def save(ws: Workspace, cs: ChangeSet) -> Path:
    """Write ``cs`` (checked as a whole first) and return its path; the file is replaced
    in one step, so a reader never sees half of it."""
    error = check(cs.mix, cs.changes)
    if error:
        raise SpecError(error)
    path = path_of(ws, cs.name)
    cs.created = cs.created or _now()
    cs.updated = _now()
    cs.made_by = f"omensim desk {__version__}"
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(cs.to_toml(), encoding="utf-8")
    tmp.replace(path)
    return path


def names(ws: Workspace) -> list[str]:
    """Every change set in the workspace, by name."""
    return sorted(p.stem for p in ws.changes.glob("*.toml"))
