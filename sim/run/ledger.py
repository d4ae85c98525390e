"""Which chunks of a run are on disk, kept durable as they finish, and the run's key.

The manifest (:mod:`sim.run.io`) is rewritten whole only at the start and the
end of a run. In between, each finished chunk appends one JSON line to
``_parts.jsonl`` beside it, so recording a part costs the same whether it is the
10th or the 100,000th (rewriting a manifest listing every part would be
quadratic). At the end, or on an error, the log is *compacted*: its entries go
into the manifest's ``parts`` list and the log is removed. A run killed with
SIGKILL therefore leaves a manifest plus a log; :func:`completed_parts` reads
both, which is all ``omensim run --resume`` needs.

The *run key* (:func:`run_key`) names everything that determines the rows:
the spec, the card hash and edits, the rule overrides and interpretations, the
bots' parameter vectors, the kernel's source digest and the package version. A
resume refuses a directory whose key differs from the one the current code
computes, naming the first component that differs. Git state is not in it: a
commit that leaves all of these equal plays the same games (the manifest keeps
it as provenance). Every part is stamped from this key (:func:`sim.run.io.run_key`),
so a resume the key lets through writes parts that read back with the old ones.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

import sim
from sim.run import io, loglines

LOG_NAME = io.PARTS_LOG_NAME

# Metadata fields (Engine.metadata) that, with the spec, fix every row.
_KEY_METADATA = ("card_hash", "rule_overrides", "interpretations", "card_changes")


def run_key(spec: Any, metadata: Mapping[str, str]) -> dict[str, str]:
    """The components of a run's key and their combined ``digest``.

    Args:
        spec: the :class:`sim.data.spec.RunSpec` as requested (``games`` is the
            ceiling, not what an ``--until-ci`` run ended up playing).
        metadata: the engine's run metadata (``Engine.metadata``).
    """
    from sim.compiler.cache import source_digest  # deferred: sim.kernel stamps its cache

    parts = {
        "version": sim.__version__,
        "kernel": source_digest(),
        "spec": json.dumps(dataclasses.asdict(spec), sort_keys=True, default=list),
        **{k: str(metadata.get(k, "")) for k in _KEY_METADATA},
        # The weights the bots play by come from configs/ files, which no other component
        # covers; the rest of the provenance (git state, library versions) fixes no row.
        "bots": json.dumps(
            json.loads(metadata.get("provenance") or "{}").get("bots"), sort_keys=True
        ),
    }
    return {**parts, "digest": _digest(parts)}


def _digest(parts: Mapping[str, str]) -> str:
    return hashlib.sha256(json.dumps(dict(parts), sort_keys=True).encode()).hexdigest()


# Components added to the key after runs were written without them: such a recorded key
# is compared on the components it has, so those runs can still be resumed.
_LATER = ("bots",)


_KEY_LABELS = {
    "version": "the omensim version",
    "kernel": "the kernel source (sim/kernel, strategies, vocab)",
    "spec": "the run spec",
    "card_hash": "the card table",
    "rule_overrides": "the house rules",
    "interpretations": "the rule interpretations",
    "card_changes": "the card changes",
    "bots": "the bots' parameters (configs/strategies, configs/values)",
}


def key_mismatch(recorded: Mapping[str, str] | None, current: Mapping[str, str]) -> str | None:
    """``None`` if the keys agree, else a short reason naming what changed."""
    if not recorded:
        return "its manifest has no run key (written by an older omensim)"
    if recorded.get("digest") == current["digest"]:
        return None
    missing = [k for k in _LATER if k not in recorded]
    if missing:
        shared = {k: v for k, v in current.items() if k != "digest" and k not in missing}
        if recorded.get("digest") == _digest(shared):
            return None
    for name, label in _KEY_LABELS.items():
        was, now = str(recorded.get(name, "")), str(current.get(name, ""))
        if was != now:
            if name in ("version", "kernel", "card_hash"):
                return f"{label} changed ({was[:12]} then, {now[:12]} now)"
            return f"{label} changed since the run started"
    return "its run key differs"


def part_width(n_chunks: int) -> int:
    """Digits of the part number, so that every part name of the run sorts in game order."""
    return max(5, len(str(max(0, n_chunks - 1))))


class Ledger:
    """The parts of one run directory that are complete, recorded as they finish.

    Keeps the in-order prefix (chunks ``0..k`` all done) and its outcome counts,
    which is what ``--until-ci`` decides on, so the stop point does not depend
    on the order in which chunks finish.
    """

    def __init__(
        self,
        out: Path,
        done: Mapping[int, Mapping[str, Any]] | None = None,
        stop_when: Callable[[Any, Any], Any] | None = None,
    ) -> None:
        """``stop_when(first_wins, games)`` (numpy arrays in, bools out) ends the run
        at the first game of the prefix where it holds (``--until-ci``)."""
        self.out = out
        self.done: dict[int, dict[str, Any]] = {int(k): dict(v) for k, v in (done or {}).items()}
        self.stop_when = stop_when
        self.stop: int | None = None
        """Chunks in the prefix when ``stop_when`` first held (the last one holds the stop)."""
        self.stop_games: int | None = None
        """Games up to and including the one at which ``stop_when`` first held."""
        self.prefix_chunks = 0
        self.prefix_games = self.prefix_first_wins = self.prefix_shared = 0
        self._won: dict[int, np.ndarray] = {}
        self._log: Any = None
        self._advance()

    def record(self, info: Mapping[str, Any], won: np.ndarray | None = None) -> bool:
        """Log a finished part durably; True if the in-order prefix grew.

        ``won``: per game of the part, whether the first player won, as
        ``np.packbits``; needed with ``stop_when`` (read from the part otherwise).
        """
        entry = dict(info)
        line = log_line(entry)
        if not isinstance(self.out, Path):  # a URL (sim.run.storage.UrlPath): no appends there
            (self.out / url_log_name(entry["file"])).write_text(line + "\n")
        elif self._log is None:
            self._log = open(self.out / LOG_NAME, "a", encoding="utf-8")  # noqa: SIM115
        if self._log is not None:
            self._log.write(line + "\n")
            self._log.flush()
            os.fsync(self._log.fileno())
        self.done[int(entry["index"])] = entry
        if won is not None and self.stop_when is not None:
            self._won[int(entry["index"])] = np.unpackbits(won, count=int(entry["games"]))
        return self._advance()

    def _first_won(self, index: int) -> np.ndarray:
        bits = self._won.pop(index, None)
        if bits is not None:
            return bits.astype(bool)
        import pyarrow.parquet as pq

        t = pq.read_table(self.out / self.done[index]["file"], columns=["winner", "first_player"])
        return t.column("winner").to_numpy() == t.column("first_player").to_numpy()

    def _advance(self) -> bool:
        grew = False
        while self.stop is None and self.prefix_chunks in self.done:
            e = self.done[self.prefix_chunks]
            if self.stop_when is not None:
                won = np.cumsum(self._first_won(self.prefix_chunks))
                n = self.prefix_games + np.arange(1, len(won) + 1)
                hit = np.flatnonzero(self.stop_when(self.prefix_first_wins + won, n))
                if len(hit):
                    self.stop = self.prefix_chunks + 1
                    self.stop_games = int(n[hit[0]])
            self.prefix_games += int(e["games"])
            self.prefix_first_wins += int(e.get("first_wins", 0))
            self.prefix_shared += int(e.get("shared", 0))
            self.prefix_chunks += 1
            grew = True
        return grew

    @property
    def games(self) -> int:
        """Games in every recorded part (the prefix and any parts finished ahead of it)."""
        return sum(int(e["games"]) for e in self.done.values())

    def parts(self, upto: int | None = None) -> list[dict[str, Any]]:
        """Manifest entries of the recorded parts in game order (only index < ``upto``)."""
        keys = sorted(k for k in self.done if upto is None or k < upto)
        return [self.done[k] for k in keys]

    def drop_after(self, stop: int) -> None:
        """Forget and delete every part with index >= ``stop`` (an ``--until-ci`` overshoot)."""
        for k in [k for k in self.done if k >= stop]:
            (self.out / self.done.pop(k)["file"]).unlink(missing_ok=True)
        for path in io.list_parts(self.out):
            index = part_index(path.name)
            if index is not None and index >= stop:
                path.unlink(missing_ok=True)

    def compact(
        self,
        metadata: Mapping[str, str],
        complete: bool,
        extra: Mapping[str, Any],
        upto: int | None = None,
    ) -> None:
        """Write the manifest with every recorded part, then remove the log."""
        parts = self.parts(upto)
        io.write_manifest(
            self.out,
            metadata,
            parts,
            sum(int(p["games"]) for p in parts),
            complete=complete,
            extra=extra,
        )
        self.close()
        if isinstance(self.out, Path):
            (self.out / LOG_NAME).unlink(missing_ok=True)
            return
        for path in self.out.glob(f"{io.URL_LOG_PREFIX}*.json"):
            path.unlink(missing_ok=True)

    def close(self) -> None:
        """Close the log file (records so far stay on disk)."""
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()
            self._log = None


def url_log_name(part_file: str) -> str:
    """The log file of one finished part in a run folder at a URL (one small file per part)."""
    return f"{io.URL_LOG_PREFIX}{part_file}.json"


def part_index(name: str) -> int | None:
    """The chunk index in a part file name (``part-00042.parquet`` -> 42), else None."""
    stem = name.removeprefix("part-").removesuffix(".parquet")
    return int(stem) if stem.isdigit() and name.startswith("part-") else None


def log_line(entry: Mapping[str, Any]) -> str:
    """One line of the parts log: a finished part's entry with the SHA-256 of the entry
    (:func:`sim.run.loglines.entry_line`), so an edited line is refused, not trusted."""
    return loglines.entry_line(
        int(entry.get("index", part_index(str(entry.get("file", ""))) or 0)), entry
    )


def _logged(out: Any) -> list[Mapping[str, Any]]:
    """The entries of the parts log, each line's checksum verified (a last line the kill
    cut short is skipped; any other bad line is refused in one line)."""
    if isinstance(out, Path):
        return list(loglines.read_log(out / LOG_NAME).values())
    entries = []
    for path in out.glob(f"{io.URL_LOG_PREFIX}*.json"):
        try:
            text = path.read_text()
        except FileNotFoundError:
            continue
        entries.extend(loglines.read_log_text(text, path).values())
    return entries


def completed_parts(out: Path, manifest: Mapping[str, Any]) -> dict[int, dict[str, Any]]:
    """Parts a run directory holds for sure: the manifest's list plus the log, if on disk.

    A log line whose checksum fails is refused (:class:`sim.run.io.RunReadError`); a line
    the kill cut short is skipped, and so is an entry whose file is gone or whose bytes
    are not the ones it records (truncated, edited or replaced since): the resume plays
    that chunk again.
    """
    entries: list[Mapping[str, Any]] = [*io.part_entries(manifest, out), *_logged(out)]
    done: dict[int, dict[str, Any]] = {}
    for e in entries:
        index = e.get("index", part_index(str(e.get("file", ""))))
        if not isinstance(index, int) or not isinstance(e.get("file"), str):
            raise io.RunReadError(f"{out}: a part entry is not {{file, first_game, games}}")
        path = out / e["file"]
        present = io.is_regular(path) if isinstance(path, Path) else path.is_file()
        if present and _intact(path, e):
            done[int(index)] = {**e, "index": int(index)}
    return done


def _intact(path: Any, entry: Mapping[str, Any]) -> bool:
    """Whether a logged part's file still has the checksum its entry records."""
    recorded = entry.get(io.DIGEST_KEY)
    return recorded is None or io.file_digest(path) == recorded
