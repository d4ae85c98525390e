"""Append-only logs whose every line carries the SHA-256 of its own entry.

The runner's parts log (:mod:`sim.run.ledger`) and a long command's step log
(:mod:`sim.run.jobs`) write one JSON line per finished step,
``{"index": i, "entry": {...}, "sha256": ...}``, appended and fsynced by their owner.
A reader trusts no line it cannot check: a line edited or damaged, or a second line for
one step, is refused in one line; only the last line of a log, cut short by a kill
before its newline, is skipped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim.run import io

ENTRY_DIGEST_KEY = "sha256"


class LogLineError(io.RunReadError):
    """A log line that is not the one its writer wrote; the message is one line."""


def digest(body: Any) -> str:
    """The SHA-256 of ``body``'s canonical JSON (sorted keys)."""
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def entry_line(index: int, entry: Mapping[str, Any]) -> str:
    """One log line: the step's index, its entry and the SHA-256 of both."""
    body = json.loads(json.dumps({"index": int(index), "entry": dict(entry)}))
    return json.dumps({**body, ENTRY_DIGEST_KEY: digest(body)}, sort_keys=True)


def read_log(path: Path) -> dict[int, dict[str, Any]]:
    """The verified entries of a log file by index (``{}`` when there is none yet)."""
    try:
        text = io.read_text_file(path)
    except FileNotFoundError:
        return {}
    return read_log_text(text, path)


def read_log_text(text: str, path: Any) -> dict[int, dict[str, Any]]:
    """:func:`read_log` of a log's text (``path`` names it in a refusal)."""
    lines = text.split("\n")
    done: dict[int, dict[str, Any]] = {}
    for n, line in enumerate(lines[:-1], 1):  # the last piece is "" or a cut line
        try:
            doc = json.loads(line)
            body = {"index": doc["index"], "entry": doc["entry"]}
            ok = doc[ENTRY_DIGEST_KEY] == digest(body)
            ok = ok and isinstance(doc["index"], int) and isinstance(doc["entry"], dict)
        except (ValueError, KeyError, TypeError, RecursionError):
            ok = False
        if not ok:
            raise LogLineError(f"{path}: line {n} was edited or damaged (its checksum fails)")
        if doc["index"] in done:
            raise LogLineError(f"{path}: line {n} repeats step {doc['index']}")
        done[doc["index"]] = doc["entry"]
    return done
