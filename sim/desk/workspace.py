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

from sim.run.io import JOB_MANIFEST_NAME, MANIFEST_NAME, PARTS_LOG_NAME
from sim.run.lock import LOCK_NAME
from sim.run.storage import is_url

ANSWERS = "answers"
CHANGES = "changes"

OUTPUT_MARKS = (MANIFEST_NAME, JOB_MANIFEST_NAME, PARTS_LOG_NAME, LOCK_NAME)
"""Files only a command's output folder holds: a run's manifest, a long command's job
file, a run's parts log and lock while it writes."""

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
"""A name the desk gives a folder or file: letters, digits, ``_.-``, no path separator."""


class OutsideWorkspace(ValueError):
    """A path that would leave the workspace, or a name that is not a plain name."""


class NotAWorkspace(ValueError):
    """A folder the desk must not make its workspace."""


def check_root(root: Path | str) -> Path:
    """``root`` resolved, if the desk may make it its workspace.

    Raises:
        NotAWorkspace: ``root`` is a URL, a path that is not a folder, or is, or is
            inside, a folder an omensim command wrote (:data:`OUTPUT_MARKS`). Every such
            folder lists the files it holds and refuses any other, so ``answers/`` and
            ``changes/`` created there would break every later reading of it (``omensim
            report`` names them as unlisted files).
    """
    if is_url(root):
        raise NotAWorkspace(f"{root} is a URL; the desk keeps its workspace in a local folder")
    path = Path(root).expanduser().resolve()
    if path.exists() and not path.is_dir():
        raise NotAWorkspace(f"{root} exists and is not a folder")
    for folder in (path, *path.parents):
        mark = next((m for m in OUTPUT_MARKS if (folder / m).exists()), None)
        if mark is not None:
            where = "is" if folder == path else f"is inside {folder}, which is"
            raise NotAWorkspace(
                f"{root} {where} the output folder of an omensim command (it holds {mark}); "
                "the desk would add answers/ and changes/ to it: choose another folder"
            )
    return path


class Workspace:
    """The folder ``root`` (created if absent) and the safe paths inside it."""

    def __init__(self, root: Path | str) -> None:
        self.root = check_root(root)
        for sub in (ANSWERS, CHANGES):
            try:
                (self.root / sub).mkdir(parents=True, exist_ok=True)
            except OSError as exc:  # named as the workspace's, not as the server's
                message = f"{root}: cannot make {sub}/ in it: {exc.strerror or exc}"
                raise NotAWorkspace(message) from None

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
