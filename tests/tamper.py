"""Re-sign a run folder after a test edited it (a helper for the tests, not a test file).

The manifest records each part's, the card table's and its own checksum, so any edit is
refused as "edited". A test that edits a manifest or a part on purpose to reach a later
check (a part missing from the list, a row the replay does not reproduce) re-signs the
folder first, as a forger would: the checks behind the checksums still have to hold.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sim.run import io, jobs


def resign(run_dir: Path) -> None:
    """Rewrite every checksum in ``run_dir``'s manifest to match the files as they are now."""
    path = run_dir / io.MANIFEST_NAME
    doc = json.loads(path.read_text())
    for part in doc.get("parts", []):
        if (run_dir / part["file"]).is_file():
            part[io.DIGEST_KEY] = io.file_digest(run_dir / part["file"])
    if (run_dir / io.CARDS_NAME).is_file():
        doc[io.CARDS_DIGEST_KEY] = io.file_digest(run_dir / io.CARDS_NAME)
    else:
        doc.pop(io.CARDS_DIGEST_KEY, None)
    doc[io.MANIFEST_DIGEST_KEY] = io.manifest_digest(doc)
    path.write_text(json.dumps(doc))


def resign_job(folder: Path, edit: Any = None) -> None:
    """Apply ``edit`` to a job folder's ``_job.json`` fields, then make its own checksum and
    (for a finished job) its files' checksums agree again, as a forger would."""
    path = folder / jobs.JOB_NAME
    doc = json.loads(path.read_text())
    if edit is not None:
        edit(doc)
    if doc.get("complete"):
        doc["files"] = jobs.folder_digests(folder)
    doc.pop(jobs.DIGEST_KEY, None)
    doc[jobs.DIGEST_KEY] = jobs.digest(doc)
    path.write_text(json.dumps(doc))


def cut_job(folder: Path, *names: str) -> None:
    """Make a finished job folder look as a kill before its end leaves it: ``names``
    deleted (the result files written last) and the job marked unfinished."""
    for name in names:
        (folder / name).unlink()

    def unfinish(doc: dict) -> None:
        doc["complete"] = False
        doc.pop("files", None)

    resign_job(folder, unfinish)
