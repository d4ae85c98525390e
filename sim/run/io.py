"""Reading and writing run directories.

A run directory holds one Parquet file per chunk of games and a manifest::

    results/aegean-s0-20250101-120000/
        _manifest.json            # run metadata, parts, and whether the run completed
        part-00000.parquet        # one row per game, games 0 .. chunk_size-1
        part-00001.parquet
        ...

Design points:

* Every file is written to a hidden temporary name first and then moved into
  place with ``os.replace``, which is atomic on one file system: a reader (or
  a crash) never sees half a part or half a manifest.
* The manifest is called ``_manifest.json`` and temporaries start with ``.``
  because pyarrow's dataset discovery skips names starting with ``_`` or
  ``.``; so ``pandas.read_parquet(run_dir)`` reads exactly the parts, even
  while a run is still writing or after one was interrupted.
* The run metadata (package version, seed, mix, card-table hash, ...) goes
  into every part's Parquet key-value metadata as well as into the manifest,
  so a single part copied elsewhere still says where it came from.
* A run is *complete* only when the manifest says ``"complete": true``; the
  runner writes ``false`` before the first game and ``true`` after the last
  part, so an interrupted run never looks finished.
* Durability order: a part is fsynced, renamed into place and its directory
  fsynced *before* the manifest that lists it is written (itself fsynced,
  renamed, directory fsynced). So after a crash or a full disk the manifest
  never claims a part that is not on disk, and a part not yet listed is
  simply not part of the run.
* Every part carries the run's key (:func:`run_key`: the seed and the digest of
  what fixes its rows, :func:`sim.run.ledger.run_key`) in its metadata.
  :func:`verify_run` checks the parts on disk against the manifest (count,
  game ranges, rows, keys) before anything is read, so a deleted, copied,
  damaged, stray or foreign part is named instead of silently changing the
  sample.
* The writer holds an exclusive lock on the folder (:mod:`sim.run.lock`) for
  the whole run; :func:`check_output_dir` is the one check every command that
  writes a folder (run, compare, sweep, tournament, report) makes before playing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from sim.base.errors import Error
from sim.run import storage
from sim.run.imports import refused
from sim.run.lock import LOCK_NAME, holder_pid

if TYPE_CHECKING:  # imported by read_run only: writing a run needs no pandas (heavy in RSS)
    import pandas as pd

MANIFEST_NAME = "_manifest.json"
# Finished parts, one JSON line each, while a run is writing (sim.run.ledger).
PARTS_LOG_NAME = "_parts.jsonl"
# At a URL (no appends on object stores) each finished part gets its own small file instead.
URL_LOG_PREFIX = "_logged-"
CARDS_NAME = "_cards.parquet"
JOB_MANIFEST_NAME = "_job.json"
"""The manifest of a long command's folder (:mod:`sim.run.jobs`)."""
"""One row per card kind of the run's mix. The leading ``_`` keeps it out of
``pd.read_parquet(run_dir)``, which would otherwise try to read it as a part."""
PART_GLOB = "part-*.parquet"
MANIFEST_FORMAT = "omensim-run"
MANIFEST_VERSION = 2
"""2: the manifest carries checksums (its own, each part's, the card table's) and must."""
COMPRESSION = "zstd"
ROW_GROUP_ROWS = 8192
"""Rows per Parquet row group of a part. The writer buffers a whole row group before it
flushes it: one 65,536-row group per part held more memory at a run's peak for
barely smaller files (`benchmarks/bench_engine.py` measures a run's peak RSS). Readers
see the same rows whatever the grouping."""

# Keys pyarrow/pandas put in the schema metadata themselves; not run metadata.
_RESERVED_KEYS = frozenset({b"ARROW:schema", b"pandas"})

# Checksums: each part's and the card table's SHA-256 in the manifest, and the manifest's
# own (over every other field), so a part or card table edited, damaged or copied from
# another run is named before anything is read. They detect accidents and hand edits;
# a forger who rewrites every checksum is out of scope.
DIGEST_KEY = "sha256"
CARDS_DIGEST_KEY = "cards_sha256"
MANIFEST_DIGEST_KEY = "manifest_sha256"


_DIGESTS: dict[tuple[str, int, int, int], str] = {}
"""Digests of local files hashed by this process, by (path, inode, size, mtime): a run
read twice (checked, then read; or loaded again in a notebook) is hashed once."""


def file_digest(path: Any) -> str:
    """The SHA-256 of a file's bytes (a local path or a :class:`sim.run.storage.UrlPath`)."""
    if hasattr(path, "fs"):
        with path.fs.open(path.path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_ino, st.st_size, st.st_mtime_ns)
    digest = _DIGESTS.get(key)
    if digest is None:
        with open(path, "rb") as fh:
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
        # Only a file older than its clock tick is remembered: one rewritten within the
        # same tick would keep its (path, inode, size, mtime).
        if time.time_ns() - st.st_mtime_ns > 2_000_000_000:
            if len(_DIGESTS) > 10_000:
                _DIGESTS.clear()
            _DIGESTS[key] = digest
    return digest


def manifest_digest(doc: Mapping[str, Any]) -> str:
    """The SHA-256 of a manifest's fields other than its own checksum (canonical JSON)."""
    body = {k: v for k, v in doc.items() if k != MANIFEST_DIGEST_KEY}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


MAX_JSON_BYTES = 256 * 1024 * 1024
"""The largest JSON file a reader opens: a manifest of 100,000 parts is about 20 MB."""


def is_regular(path: Any) -> bool:
    """Whether ``path`` is a regular file (not a FIFO, device, folder, symlink loop or gone)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_text_file(path: Path | str, limit: int = MAX_JSON_BYTES) -> str:
    """A local file's UTF-8 text, refusing in one line what a reader must not open: a FIFO
    or device (``open`` would block or never end), a symlink loop, a huge file.

    Raises:
        FileNotFoundError: the file is absent. RunReadError: any other of the above.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:
        raise RunReadError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise RunReadError(f"{path} is not a regular file")
    if st.st_size > limit:
        raise RunReadError(f"{path} is larger than {limit:,} bytes; not an omensim file")
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise RunReadError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RunReadError(f"{path} is damaged: {exc}") from None


def read_json_file(path: Path | str) -> Any:
    """A local JSON file read through :func:`read_text_file`; nesting too deep to parse, or
    text that is not JSON, is one :class:`RunReadError` line."""
    text = read_text_file(path)
    try:
        return json.loads(text)
    except RecursionError:
        raise RunReadError(f"{path} is damaged: JSON nested too deep") from None
    except ValueError as exc:
        raise RunReadError(f"{path} is damaged: {exc}") from None


def write_json_atomic(path: Path, doc: Any) -> Path:
    """Write ``doc`` as indented JSON to ``path`` atomically (temporary, fsync, rename)."""
    with _replacing(path, _tmp_path(path)) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")
    return path


def out_problem(out: Any) -> str | None:
    """Why ``out`` cannot name an output location (empty, a NUL byte), else None."""
    text = os.fspath(out) if isinstance(out, str | os.PathLike) else None
    if text is None:
        return f"--out must be a path, got {type(out).__name__}"
    if not str(text).strip():
        return "--out is empty; name a folder (e.g. --out results/x)"
    if "\x00" in str(text):
        return "--out holds a NUL byte; name a folder"
    return None


def out_location(out: Any) -> Path | storage.UrlPath:
    """``--out`` as the one place a command writes: a URL's location, or a local path with
    ``~`` expanded once (so nothing lands under a folder literally named ``~``).

    Raises:
        RunError: an empty path or one holding a NUL byte.
    """
    problem = out_problem(out)
    if problem:
        raise RunError(problem)
    if isinstance(out, storage.UrlPath):
        return out
    if storage.is_url(str(out)):
        try:
            where = storage.location(str(out))
            if isinstance(where, storage.UrlPath):
                where.exists()  # a missing backend or a host that does not resolve fails here
        except Exception as exc:  # fsspec and its backends raise anything: ImportError, OSError
            raise RunError(f"--out {out}: cannot use it: {_one_line(exc)}"[:300]) from None
        return where
    return Path(os.path.expanduser(os.fspath(out)))


def local_out(out: Any) -> Path:
    """:func:`out_location` of a command that writes only local folders."""
    where = out_location(out)
    if not isinstance(where, Path):
        raise RunError(f"--out must be a local folder, not a URL ({out})")
    return where


def write_parquet(table: pa.Table, where: Any, filesystem: Any = None) -> None:
    """Write ``table`` to ``where`` (a local path, or a path on ``filesystem``) with the
    run's Parquet settings: every part, card table and tournament file is written here."""
    pq.write_table(
        table,
        where,
        filesystem=filesystem,
        compression=COMPRESSION,
        row_group_size=ROW_GROUP_ROWS,
    )


def arrow_without_pandas() -> None:
    """Keep pyarrow from importing pandas in a process that only writes Arrow (``omensim run``).

    pyarrow imports pandas the first time any ``pa.array`` asks whether its argument
    is a pandas object: a large share of a run's peak RSS, for nothing. With the
    import refused once, pyarrow notes "no pandas" and stops asking. Later code can
    still import pandas: ``to_pandas`` imports it again itself, and pandas' Series
    and DataFrame reach pyarrow through the Arrow C interface either way. A no-op once
    pandas is imported.
    """
    if "pandas" in sys.modules:
        return
    with refused("pandas", "pandas is not needed to write Arrow"):
        pa.array([0])


class RunError(Error):
    """A run that cannot start for a reason the user controls (e.g. the output directory).

    The message is one line, fit to print after ``Error:``.
    """


class RunReadError(Error):
    """A run directory whose files do not agree with its manifest; the message is one line."""


class IncompleteRunError(RunReadError):
    """A run directory whose manifest does not say the run finished."""


RUN_KEY = "run_key"


def run_key(seed: object, digest: str) -> str:
    """The key every part of one run carries: ``s<seed>-<digest>``.

    ``digest`` is the run key's (:func:`sim.run.ledger.run_key`: spec, cards, rules,
    bots, kernel, version), the very inputs a resume compares, so parts written before
    and after a resume that was let through carry the same key. It leaves out the git
    state and library versions of the provenance: those change with any commit while
    the rows do not, and a folder resumed across one would read as two runs.
    """
    return f"s{seed}-{digest[:16]}"


def part_name(index: int, width: int = 5) -> str:
    """File name of part ``index``, zero-padded to ``width`` digits so names sort in game order.

    A run of more than 100,000 parts passes a wider ``width``
    (:func:`sim.run.ledger.part_width`), the same for all its parts.
    """
    return f"part-{index:0{width}d}.parquet"


def _tmp_path(final: Path) -> Path:
    # Leading dot: pyarrow's dataset discovery ignores it, so a crash that leaves
    # a temporary behind cannot break pd.read_parquet(run_dir). The pid keeps two
    # writers of the same directory from clobbering each other's temporaries.
    return final.with_name(f".{final.name}.{os.getpid()}.tmp")


def _fsync_dir(path: Path) -> None:
    # Make the rename itself durable; best effort (not every platform/file system allows it).
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_part(
    table: pa.Table,
    out_dir: Path | str,
    index: int,
    metadata: Mapping[str, str],
    width: int = 5,
) -> Path:
    """Write one chunk of games atomically as ``out_dir/part-<index>.parquet``.

    ``metadata`` is merged into the table's schema key-value metadata (string
    keys and values), so it travels with the file. The file appears under its
    final name only once completely written; on any error the temporary file
    is removed and the exception propagates.

    Returns:
        The path of the written part.
    """
    return write_part_named(table, out_dir, part_name(index, width), metadata)


def write_part_named(
    table: pa.Table, out_dir: Path | str, name: str, metadata: Mapping[str, str]
) -> Path:
    """:func:`write_part` under the file name ``name`` (see :func:`part_name`)."""
    final = Path(out_dir) / name
    # The part is durable under its name before any manifest may list it.
    merged = merged_metadata(table.schema, metadata)
    return _write_parquet_durably(table.replace_schema_metadata(merged), final)


def merged_metadata(schema: pa.Schema, metadata: Mapping[str, str]) -> dict[bytes, bytes]:
    """``schema``'s key-value metadata with ``metadata`` (string keys and values) merged in:
    what a part's schema carries, whether written whole or group by group."""
    merged: dict[bytes, bytes] = dict(schema.metadata or {})
    merged.update({str(k).encode(): str(v).encode() for k, v in metadata.items()})
    return merged


class PartWriter:
    """One part written a few row groups at a time, appearing under its name only when closed.

    For a run that writes each group of games as it is played (``LocalBackend``), so no
    whole chunk of rows is held. The file is the one :func:`write_part_named`
    writes for the same rows and metadata: the same Parquet settings, and row groups
    of :data:`ROW_GROUP_ROWS` rows as long as every group but the last holds exactly that
    many. The same durability order: temporary file, fsync, rename, fsync the folder;
    :meth:`abort` (or an error in :meth:`write`) removes the temporary.
    """

    def __init__(self, out_dir: Path | str, name: str, metadata: Mapping[str, str]) -> None:
        """A part ``out_dir/name`` whose schema metadata will include ``metadata``."""
        self.final = Path(out_dir) / name
        self._tmp = _tmp_path(self.final)
        self._metadata = metadata
        self._writer: pq.ParquetWriter | None = None

    def write(self, table: pa.Table) -> None:
        """Append ``table``'s rows (the first call fixes the schema)."""
        try:
            if self._writer is None:
                schema = table.schema.with_metadata(merged_metadata(table.schema, self._metadata))
                self._writer = pq.ParquetWriter(self._tmp, schema, compression=COMPRESSION)
            self._writer.write_table(table, row_group_size=ROW_GROUP_ROWS)
        except BaseException:
            self.abort()
            raise

    def close(self) -> Path:
        """Finish the file and move it into place durably; returns its final path."""
        if self._writer is None:
            raise ValueError(f"no rows were written to {self.final.name}")
        with _replacing(self.final, self._tmp):
            self._writer.close()
        return self.final

    def abort(self) -> None:
        """Drop the temporary file (nothing appears under the final name)."""
        if self._writer is not None:
            with contextlib.suppress(Exception):
                self._writer.close()
        self._tmp.unlink(missing_ok=True)


def _write_parquet_durably(table: pa.Table, final: Path) -> Path:
    """Write ``table`` to ``final`` through a temporary file (:func:`_replacing`)."""
    with _replacing(final, _tmp_path(final)) as tmp:
        write_parquet(table, tmp)
    return final


@contextlib.contextmanager
def _replacing(final: Path, tmp: Path) -> Iterator[Path]:
    """Yield ``tmp`` to write; then fsync it, rename it over ``final`` and fsync the folder.

    On any error the temporary is removed and the error propagates (BaseException: a
    KeyboardInterrupt mid-write must not leave the temporary either), ``final`` untouched.
    """
    try:
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(final.parent)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_cards(out_dir: Path | str, cards: pa.Table) -> Path:
    """Atomically write the run's card table as ``out_dir/_cards.parquet``."""
    if storage.is_url(out_dir):
        where = storage.location(out_dir) / CARDS_NAME
        if isinstance(where, storage.UrlPath):
            tmp = where.path.rsplit("/", 1)[0] + f"/.{CARDS_NAME}.tmp"
            write_parquet(cards, tmp, where.fs)
            where.fs.mv(tmp, where.path)
            return where  # type: ignore[return-value]
        out_dir = where.parent
    return _write_parquet_durably(cards, Path(out_dir) / CARDS_NAME)


def write_manifest(
    out_dir: Path | str,
    metadata: Mapping[str, str],
    parts: Sequence[Mapping[str, Any]],
    games: int,
    complete: bool,
    *,
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Atomically write ``out_dir/_manifest.json``.

    Args:
        out_dir: the run directory.
        metadata: the run metadata (the same dict written into each part).
        parts: one mapping per written part, e.g.
            ``{"file": "part-00000.parquet", "first_game": 0, "games": 65536}``,
            in game order.
        games: number of games in the written parts.
        complete: whether the run finished; readers treat anything else as partial.
        extra: further JSON-serialisable fields (timings, the run spec, ...).

    Returns:
        The manifest's path.
    """
    out = storage.location(out_dir)
    doc: dict[str, Any] = {
        "format": MANIFEST_FORMAT,
        "format_version": MANIFEST_VERSION,
        "complete": bool(complete),
        "games": int(games),
        "parts": [_with_digest(out, p) for p in parts],
        "updated": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if extra:
        doc.update(extra)
    doc["metadata"] = dict(metadata)
    doc.pop(CARDS_DIGEST_KEY, None)
    if (out / CARDS_NAME).exists():
        doc[CARDS_DIGEST_KEY] = file_digest(out / CARDS_NAME)
    doc = json.loads(json.dumps(doc))  # the digest is of what a reader will load
    doc[MANIFEST_DIGEST_KEY] = manifest_digest(doc)
    if isinstance(out, storage.UrlPath):
        (out / MANIFEST_NAME).write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n")
        return out / MANIFEST_NAME  # type: ignore[return-value]
    final = out / MANIFEST_NAME
    with _replacing(final, _tmp_path(final)) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2, sort_keys=False)
        fh.write("\n")
    return final


def _with_digest(out: Any, part: Mapping[str, Any]) -> dict[str, Any]:
    """A manifest entry with its part's checksum (the writer's, or the file's if it has none)."""
    entry = dict(part)
    if entry.get(DIGEST_KEY) is None and isinstance(entry.get("file"), str):
        path = out / entry["file"]
        if path.is_file():
            entry[DIGEST_KEY] = file_digest(path)
    return entry


def read_manifest(run_dir: Path | str) -> dict[str, Any]:
    """Load a run directory's manifest as a dict.

    Raises:
        FileNotFoundError: if the directory has no manifest.
        RunReadError: the manifest is not UTF-8 JSON holding an object.
    """
    path = storage.location(run_dir) / MANIFEST_NAME
    if isinstance(path, Path):
        doc = read_json_file(path)
    else:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise RunReadError(f"{path} is damaged: {_one_line(exc)}") from None
    if not isinstance(doc, dict):
        kind = type(doc).__name__
        raise RunReadError(f"{path} is damaged: it holds a JSON {kind}, not an object")
    recorded = doc.get(MANIFEST_DIGEST_KEY)
    if recorded is None and written_with_checksums(doc):
        raise RunReadError(
            f"{path} was edited: it was written with checksums and its {MANIFEST_DIGEST_KEY} "
            "is gone"
        )
    if recorded is not None and recorded != manifest_digest(doc):
        raise RunReadError(
            f"{path} was edited or damaged: its {MANIFEST_DIGEST_KEY} does not match its fields"
        )
    check_manifest_types(doc, path)
    return doc


def written_with_checksums(doc: Mapping[str, Any]) -> bool:
    """Whether a manifest was written by an omensim that signs manifests: its format version
    says so, or any checksum of a part or of the card table is in it. Only a manifest with
    none of these is read the older way (a run written before checksums)."""
    version = doc.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version >= 2:
        return True
    parts = doc.get("parts")
    digests = isinstance(parts, list) and any(
        isinstance(p, dict) and DIGEST_KEY in p for p in parts
    )
    return digests or CARDS_DIGEST_KEY in doc


# The manifest fields every reader relies on, with the type each must have.
_MANIFEST_TYPES: dict[str, tuple[type, ...]] = {
    "complete": (bool,),
    "games": (int,),
    "parts": (list,),
    "metadata": (dict,),
    "spec": (dict,),
    "chunk_size": (int,),
    "games_requested": (int,),
    "until_ci": (int, float),
    "key": (dict,),
    "resumed": (list,),
    CARDS_DIGEST_KEY: (str,),
}


_KIND_WORDS = {
    bool: "true or false", int: "a whole number >= 0", float: "a number", list: "a list",
    dict: "an object", str: "text",
}  # fmt: skip


def check_manifest_types(doc: Mapping[str, Any], path: Any) -> None:
    """Refuse, in one line, a manifest whose known fields have the wrong type."""
    for key, kinds in _MANIFEST_TYPES.items():
        if key not in doc:
            continue
        v = doc[key]
        wrong = not isinstance(v, kinds) or (int in kinds and isinstance(v, bool))
        if wrong or (kinds == (int,) and v < (1 if key == "chunk_size" else 0)):
            want = " or ".join(_KIND_WORDS[k] for k in kinds)
            want = "a whole number >= 1" if key == "chunk_size" else want
            raise RunReadError(f"{path}: field {key!r} must be {want}, got {v!r}"[:300])
    for k, v in doc.get("metadata", {}).items():
        if not isinstance(v, str):
            raise RunReadError(f"{path}: metadata {k!r} must be a string, got {v!r}"[:300])


def is_complete(run_dir: Path | str) -> bool:
    """True only if ``run_dir`` has a manifest that says the run finished."""
    try:
        return bool(read_manifest(run_dir).get("complete", False))
    except (OSError, ValueError):
        return False


def read_run(path: Path | str, *, allow_incomplete: bool = False) -> pd.DataFrame:
    """Load the games of a run directory (or of a single part file) into pandas.

    The documented way to read a run: the parts are first checked against the
    manifest (:func:`verify_run`: count, game ranges, rows, run keys; a
    deleted, copied, damaged, stray or foreign file is named), then exactly
    the listed parts are read, in ``game_id`` order. A run whose manifest does
    not say it completed is refused unless ``allow_incomplete=True``, so an
    interrupted run is never analysed by accident as if it were the whole
    sample. (``pd.read_parquet(dir)`` reads whatever parts are on disk and
    checks none of this: use it only on complete, untouched runs.)

    Raises:
        IncompleteRunError: for an unfinished run without ``allow_incomplete``.
        RunReadError: files that do not agree with the manifest.
    """
    import pandas as pd

    table = read_run_table(path, allow_incomplete=allow_incomplete)
    return table.to_pandas() if table.num_columns else pd.DataFrame()


def read_run_table(path: Path | str, *, allow_incomplete: bool = False) -> pa.Table:
    """:func:`read_run` as an Arrow table (same checks, same ``game_id`` order), for
    readers that convert columns their own way before pandas sees them."""
    p = storage.location(path)
    if p.is_dir() and (p / MANIFEST_NAME).exists():
        manifest = verify_run(p, allow_incomplete=allow_incomplete)
        files = [p / part["file"] for part in manifest["parts"]]
        if not files:
            return pa.table({})
        try:
            if isinstance(p, storage.UrlPath):
                # A path plus the filesystem: pyarrow never gets an open remote handle.
                paths = [f.path for f in files]  # type: ignore[attr-defined]
                table = pq.read_table(paths, filesystem=p.fs)
            else:
                table = pq.read_table([str(f) for f in files])
        except (pa.ArrowException, OSError) as exc:
            raise RunReadError(f"cannot read the parts of {p}: {_one_line(exc)}") from None
    else:
        try:
            table = pq.read_table(str(p))
        except (pa.ArrowException, OSError) as exc:
            raise RunReadError(f"cannot read {p}: {_one_line(exc)}") from None
    if "game_id" in table.column_names:
        ids = table.column("game_id").to_numpy()
        if len(ids) > 1 and not (ids[1:] >= ids[:-1]).all():
            table = table.take(pa.array(ids.argsort(kind="stable")))
    return table


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def part_entries(manifest: Mapping[str, Any], where: Any) -> list[dict[str, Any]]:
    """The manifest's part entries, each checked to be ``{file, first_game, games}`` of the
    right types (a :class:`RunReadError` naming the first that is not)."""
    parts = manifest.get("parts", [])
    if not isinstance(parts, list):
        raise RunReadError(f"{where}: 'parts' is not a list")
    out = []
    for i, part in enumerate(parts):
        ok = isinstance(part, dict) and isinstance(part.get("file"), str)
        ok = ok and all(
            isinstance(part.get(k), int) and not isinstance(part.get(k), bool)
            for k in ("first_game", "games")
        )
        ok = ok and isinstance(part.get(DIGEST_KEY, ""), str)
        if not ok or "/" in part["file"] or not part["file"].startswith("part-"):
            raise RunReadError(f"{where}: part entry {i} is not {{file, first_game, games}}")
        out.append(part)
    return out


def part_facts(path: Any) -> tuple[int, dict[str, str], int | None, int | None]:
    """(rows, metadata, min game_id, max game_id) from a part's footer, without its data."""
    args = path.parquet_args() if hasattr(path, "parquet_args") else {"source": path}
    try:
        meta = pq.ParquetFile(**args).metadata
        schema = meta.schema.to_arrow_schema()
    except (pa.ArrowException, OSError) as exc:
        raise RunReadError(f"{path} is damaged: {_one_line(exc)}") from None
    lo = hi = None
    names = schema.names
    if "game_id" in names and meta.num_rows:
        col = names.index("game_id")
        for g in range(meta.num_row_groups):
            stats = meta.row_group(g).column(col).statistics
            if stats is None or not stats.has_min_max:
                return meta.num_rows, _decode(schema.metadata), None, None
            lo = stats.min if lo is None else min(lo, stats.min)
            hi = stats.max if hi is None else max(hi, stats.max)
    return meta.num_rows, _decode(schema.metadata), lo, hi


def verify_run(run_dir: Path | str, *, allow_incomplete: bool = False) -> dict[str, Any]:
    """Check a run directory's files against its manifest; return the manifest.

    Checked, reading only Parquet footers: the manifest is a JSON object;
    the run completed (unless ``allow_incomplete``); the parts it lists cover
    games ``0 .. games-1`` in order without gaps or overlaps; every listed
    part exists, is readable, has the listed number of rows and game ids, and
    carries the manifest's run key (or, for runs written before run keys, its
    seed and card hash); and no other file that ``pd.read_parquet(dir)`` would
    read (a copied part, a stray file) sits beside them.

    Raises:
        FileNotFoundError: no manifest. IncompleteRunError: not complete.
        RunReadError: the first disagreement found, named in one line.
    """
    d = storage.location(run_dir)
    manifest = read_manifest(d)
    where = d / MANIFEST_NAME
    if not allow_incomplete and not manifest.get("complete", False):
        raise IncompleteRunError(
            f"{d} is an incomplete run (its {MANIFEST_NAME} does not say complete); "
            "finish it with the command's --resume, or read the parts it has with "
            "sim.analysis.load(..., allow_incomplete=True)"
        )
    parts = part_entries(manifest, where)
    meta = manifest.get("metadata", {})
    if not isinstance(meta, dict):
        raise RunReadError(f"{where}: 'metadata' is not an object")
    listed = {p["file"] for p in parts}
    complete = bool(manifest.get("complete", False))
    signed = MANIFEST_DIGEST_KEY in manifest  # written with checksums: every file has one
    for entry in sorted(d.iterdir()):
        if not complete and entry.name.startswith("part-") and entry.name.endswith(".parquet"):
            continue  # an interrupted run may have written a part it did not get to list
        # pyarrow reads every file whose name does not start with '_' or '.'.
        if entry.name not in listed and not entry.name.startswith(("_", ".")):
            kind = "part" if entry.name.startswith("part-") else "file"
            raise RunReadError(
                f"{d}: {kind} {entry.name!r} is not listed in {MANIFEST_NAME} (copied in or "
                "left from another run); remove it"
            )
    expected = 0
    for part in parts:
        path = d / part["file"]
        if part["first_game"] != expected:
            raise RunReadError(
                f"{where}: {part['file']} starts at game {part['first_game']}, expected {expected}"
            )
        if not path.is_file():
            raise RunReadError(f"{d}: {part['file']} is listed in {MANIFEST_NAME} but missing")
        rows, part_meta, lo, hi = part_facts(path)
        last = part["first_game"] + part["games"] - 1
        if rows != part["games"] or (lo is not None and (lo, hi) != (part["first_game"], last)):
            raise RunReadError(
                f"{path} holds {rows} games ({lo}..{hi}); {MANIFEST_NAME} lists "
                f"{part['games']} ({part['first_game']}..{last})"
            )
        check_key(path, part_meta, meta)
        check_part_digest(path, part, signed)
        expected += part["games"]
    check_cards(d, manifest, signed)
    if complete and expected != manifest.get("games"):
        raise RunReadError(
            f"{where}: the parts hold {expected} games; the manifest says {manifest.get('games')}"
        )
    return manifest


def check_part_digest(path: Any, part: Mapping[str, Any], signed: bool = True) -> None:
    """Refuse a part whose bytes are not the ones its manifest entry records."""
    recorded = part.get(DIGEST_KEY)
    if recorded is None:
        if signed:
            raise RunReadError(f"{path}: its manifest entry has no {DIGEST_KEY} checksum")
        return  # a run written before checksums
    if file_digest(path) != recorded:
        raise RunReadError(
            f"{path} was edited, damaged or replaced: its SHA-256 is not the one "
            f"{MANIFEST_NAME} records"
        )


def check_cards(d: Any, manifest: Mapping[str, Any], signed: bool) -> None:
    """Refuse a card table that is not the one this run wrote (e.g. copied from another)."""
    recorded = manifest.get(CARDS_DIGEST_KEY)
    cards = d / CARDS_NAME
    if recorded is None:
        if signed and cards.exists():
            raise RunReadError(f"{cards} is not recorded in {MANIFEST_NAME} (copied in?)")
        return
    if not cards.exists():
        raise RunReadError(f"{d}: {CARDS_NAME} is recorded in {MANIFEST_NAME} but missing")
    if file_digest(cards) != recorded:
        raise RunReadError(
            f"{cards} is not this run's card table (its SHA-256 differs from the one "
            f"{MANIFEST_NAME} records: edited, or copied from another run)"
        )


def check_key(path: Path, part_meta: Mapping[str, str], meta: Mapping[str, Any]) -> None:
    if RUN_KEY in meta or RUN_KEY in part_meta:
        mine, theirs = part_meta.get(RUN_KEY), meta.get(RUN_KEY)
        if mine != theirs:
            raise RunReadError(
                f"{path} belongs to another run (run key {mine}, seed {part_meta.get('seed')}); "
                f"the manifest's is {theirs} (seed {meta.get('seed')})"
            )
        return
    for key in ("seed", "card_hash"):  # runs written before run keys
        if str(part_meta.get(key)) != str(meta.get(key)):
            raise RunReadError(
                f"{path} belongs to another run ({key} {part_meta.get(key)}; "
                f"the manifest says {meta.get(key)})"
            )


def _decode(meta: Mapping[bytes, bytes] | None) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in (meta or {}).items() if k not in _RESERVED_KEYS}


def read_metadata(path: Path | str) -> dict[str, str]:
    """Run metadata of a run directory or a single part file, as ``{str: str}``.

    For a directory it is taken from the manifest when there is one, otherwise
    from the first part's Parquet key-value metadata.

    Raises:
        FileNotFoundError: if ``path`` has neither a manifest nor any part.
    """
    p = Path(path)
    if p.is_dir():
        if (p / MANIFEST_NAME).exists():
            return {str(k): str(v) for k, v in read_manifest(p).get("metadata", {}).items()}
        parts = sorted(p.glob(PART_GLOB))
        if not parts:
            raise FileNotFoundError(f"{p} has no {MANIFEST_NAME} and no {PART_GLOB} files")
        p = parts[0]
    return _decode(pq.read_schema(p).metadata)


def is_run_file(entry: Path) -> bool:
    """Whether ``entry`` is a part, the manifest, the lock or one of omensim's temporaries."""
    name = entry.name
    return entry.is_file() and (
        (name.startswith("part-") and name.endswith(".parquet"))
        or name in (MANIFEST_NAME, CARDS_NAME, LOCK_NAME, PARTS_LOG_NAME)
        or (name.startswith(URL_LOG_PREFIX) and name.endswith(".json"))
        or (name.startswith(".") and name.endswith(".tmp"))
    )


def list_parts(run_dir: Path | str) -> list[Path]:
    """The part files of a run directory, in game order."""
    return sorted(storage.location(run_dir).glob(PART_GLOB))  # type: ignore[arg-type]


def stray_files(run_dir: Path | str) -> list[Path]:
    """Entries of ``run_dir`` that are not something omensim writes there.

    Used before ``--force`` clears a directory: anything listed here would be
    left behind (and could confuse ``pd.read_parquet``), so the runner refuses.
    """
    return sorted(e for e in Path(run_dir).iterdir() if not is_run_file(e))


def clear_run_files(run_dir: Path | str) -> None:
    """Delete the parts, manifest and leftover temporaries omensim wrote in ``run_dir``.

    The manifest goes first, so a crash half-way through clearing leaves a
    directory that no longer claims to be a complete run.
    """
    d = storage.location(run_dir)
    (d / MANIFEST_NAME).unlink(missing_ok=True)
    if isinstance(d, Path):
        _fsync_dir(d)
    for entry in d.iterdir():
        if is_run_file(entry) and entry.name != LOCK_NAME:
            entry.unlink()


def check_output_dir(
    out: Path | str,
    force: bool,
    *,
    ours: Callable[[Path], bool] = is_run_file,
    what: str = "run",
    held: bool = False,
) -> None:
    """Refuse an output folder a command must not write into; touches nothing on disk.

    The one check behind ``run``, ``compare``, ``sweep``, ``tournament`` and
    ``report``, made *before* anything is played: ``out`` must be absent or
    empty, or (with ``force``) hold only entries ``ours`` recognises as the
    command's own earlier output; and no other process may be writing it
    (``held``: the caller holds the folder's lock itself, so that is not checked).

    Raises:
        RunError: the folder is a file, busy, or holds something ``--force`` may not replace.
    """
    out = storage.location(out)
    if isinstance(out, Path):
        _check_not_inside_a_run(out, force)
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out} exists and is not a directory")
    if not out.is_dir():
        return
    if isinstance(out, storage.UrlPath):
        pid = None if held else storage.url_lock_holder(out)
    else:
        pid = None if held else holder_pid(out)
    if pid is not None:
        who = f"process {pid}" if pid > 0 else "another process"
        raise RunError(f"{out} is being written by {who}; wait for it or choose another --out")
    entries = [e for e in out.iterdir() if e.name != LOCK_NAME]
    if not entries:
        return
    if not force:
        raise RunError(
            f"{out} already exists and is not empty; use --force to replace the {what} in it, "
            "or choose another --out"
        )
    strays = sorted(e for e in entries if not ours(e))
    if strays:
        # Deleting files we did not write is not ours to do, and leaving them beside new
        # output could break reading it.
        raise RunError(
            f"refusing to --force into {out}: it holds {len(strays)} entr"
            f"{'y' if len(strays) == 1 else 'ies'} omensim {what} did not write "
            f"(e.g. {strays[0].name!r}); choose another --out"
        )


def _check_not_inside_a_run(out: Path, force: bool) -> None:
    """Refuse an ``--out`` inside a run folder (anything beside its parts makes it unreadable)
    and, without ``force``, inside the folder of a long command (its checksums would fail)."""
    for parent in Path(os.path.abspath(out)).parents:
        if is_regular(parent / MANIFEST_NAME):
            raise RunError(
                f"--out {out} is inside the run folder {parent}, which would then not read "
                "back; choose a folder outside it"
            )
        if not force and is_regular(parent / JOB_MANIFEST_NAME):
            raise RunError(
                f"--out {out} is inside the folder of another command ({parent}); choose a "
                "folder outside it, or pass --force"
            )


def atomic_path(final: Path | str) -> contextlib.AbstractContextManager[Path]:
    """A hidden temporary path beside ``final`` to write; it replaces ``final`` only on success.

    The temporary keeps ``final``'s suffix (writers that infer the format from it
    still work). It is fsynced before the rename, so a full disk or a crash leaves
    the previous ``final`` intact, never half a file.
    """
    final = Path(final)
    return _replacing(final, final.with_name(f".{final.stem}.{os.getpid()}.tmp{final.suffix}"))


def publish_dir(out: Path | str, write: Callable[[Path], Any]) -> Any:
    """Build a whole output folder in a hidden sibling, then swap it in for ``out``.

    ``write(tmp_dir)`` writes every file; only if it succeeds does the folder
    replace ``out`` (the previous ``out`` is renamed aside first and deleted
    after), so a failure, a full disk or Ctrl-C leaves the earlier result as it
    was. Call :func:`check_output_dir` first: this replaces ``out`` wholesale.
    Returns what ``write`` returned, with paths under ``tmp`` moved to ``out``.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    old = out.with_name(f".{out.name}.{os.getpid()}.old")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        result = write(tmp)
        for f in tmp.iterdir():
            _fsync_file(f)
        _fsync_dir(tmp)
        if out.exists():
            os.replace(out, old)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old.exists() and not out.exists():
            os.replace(old, out)
        raise
    _fsync_dir(out.parent)
    shutil.rmtree(old, ignore_errors=True)
    if isinstance(result, list):
        return [out / Path(p).name if Path(p).parent == tmp else p for p in result]
    return result
