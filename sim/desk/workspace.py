"""The workspace: the one folder the desk reads and writes, and nothing outside it.

Every path a request names is resolved (symbolic links followed) and refused when it
leaves the workspace, so ``../`` or a link pointing out cannot reach another file.
The folders are the desk's whole state: ``answers/`` (one folder per answer, as the
CLI wrote it, with the desk's record beside it) and ``changes/`` (change sets), so a
desk started again finds everything an earlier one made.
"""

from __future__ import annotations

import re
from pathlib import Path

ANSWERS = "answers"
CHANGES = "changes"

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
"""A name the desk gives a folder or file: letters, digits, ``_.-``, no path separator."""


class OutsideWorkspace(ValueError):
    """A path that would leave the workspace, or a name that is not a plain name."""


class Workspace:
    """The folder ``root`` (created if absent) and the safe paths inside it."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).expanduser().resolve()
        for sub in (ANSWERS, CHANGES):
            (self.root / sub).mkdir(parents=True, exist_ok=True)

    def inside(self, relative: str | Path) -> Path:
        """``relative`` resolved under the root; :class:`OutsideWorkspace` if it leaves it."""
        text = str(relative)
        if "\x00" in text:
            raise OutsideWorkspace("a path may not hold a NUL character")
        path = (self.root / text).resolve()
        if path != self.root and self.root not in path.parents:
            raise OutsideWorkspace(
                f"{text!r} is outside the workspace; the desk opens nothing there"
            )
        return path

    def named(self, folder: str, name: str, suffix: str = "") -> Path:
        """``folder/name+suffix`` for a plain ``name`` (no separators, no leading dot)."""
        if not NAME.match(name or ""):
            raise OutsideWorkspace(
                f"{name!r} is not a plain name (letters, digits, '_', '.', '-'; at most 64)"
            )
        return self.inside(Path(folder) / f"{name}{suffix}")

    @property
    def answers(self) -> Path:
        """The folder of the answers."""
        return self.root / ANSWERS

    @property
    def changes(self) -> Path:
        """The folder of the change sets."""
        return self.root / CHANGES

    def relative(self, path: Path) -> str:
        """``path`` as the workspace-relative text a page or a command shows."""
        return path.resolve().relative_to(self.root).as_posix()
