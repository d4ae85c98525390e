#!/usr/bin/env python
"""Generated hostile inputs over every reader, command and API entry, counted by outcome.

    python tools/hostile_inputs.py [--cases 1200] [--seed 0] [--timeout 60]

Each case is one input a hostile or careless user could give, generated from the
seed: TOML files of random structure (nesting thousands deep, wrong types, huge,
binary, truncated) for every TOML reader; wrong Python values for every argument
of ``api.run``, ``api.compare`` and ``A.load``; command lines for ``run``,
``compare``, ``replay`` and ``report``; every rule parameter with another value on
every single set; and edits to a finished run folder (bytes flipped, parts
truncated, swapped or copied in, values rewritten with the metadata kept, the
card table of another mix, manifest fields of the wrong type), read back by
``A.load``, ``report``, ``replay`` and ``run --resume``. Five more families: structural
TOML (a set, rules or profile file whose tables are of the wrong kind, misspelled, or
unplayable), folder surgery (edits to the folders of ``compare``, ``sweep``, ``balance``
and ``tournament``, read back by ``report`` and ``--resume``), API types (every reader
and helper of ``sim.analysis`` and every path argument of ``sim.api`` with wrong values),
paths and conflicts (empty, ``~``, URL, NUL and nested ``--out``; repeated or ignored
options), and concurrency (a second writer of a folder another process holds). The job
runner's folders include those a ``--until-ci`` compare or sweep keeps its steps in and
a ``mixes`` ranking, and a family plays the long commands without ``--out`` and looks
for the temporary folder they must remove. The last family (``tools/hostile_options.py``)
gives every option and argument of every command, read from click's own parameter list,
hostile values (wrong type, negative, zero, NaN, huge, empty, unknown or repeated names, a
change to a card's current value, paths that are missing, files or unwritable) beside small
valid arguments, and resumes every resumable command's folder with each option at another
value and at the recorded one. After every case the script looks for a process the case
left running.

Outcomes:

* **clean refusal**: a :class:`sim.Error` (the CLI: a non-zero exit with one ``Error:`` line);
* **accepted**: the input is valid and did what it says (a rule that changed the rows,
  an edit that changes no content);
* **traceback**: any other exception (the CLI: more than one line, or an uncaught one);
* **hang**: not finished within ``--timeout`` seconds;
* **silent no-op**: a rule accepted although the rows are those of the plain set;
* **undetected edit**: a folder whose content was edited read back without an error (or
  a second writer of a held folder let through);
* **lingering process**: a process the case started still running after it returned;
* **left behind**: a command run without ``--out`` left its temporary folder.

The last six should be 0. The script prints the counts per kind of input, the first
example of every bad outcome and every valid input that was refused (a resume with the
recorded options), and exits 1 if there is one.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from click.testing import CliRunner  # noqa: E402
from hostile_options import option_cases  # noqa: E402  (tools/, beside this script)

from sim import Error, api  # noqa: E402
from sim import analysis as A  # noqa: E402
from sim.analysis.mixes import read_mixes  # noqa: E402
from sim.data import cards as C  # noqa: E402
from sim.data import schema as S  # noqa: E402
from sim.data.decklist import load_decklists  # noqa: E402
from sim.run import io, runner  # noqa: E402
from sim.run.engine import Engine  # noqa: E402
from strategies.profiles import load_profile  # noqa: E402

BAD = (
    "traceback", "hang", "silent no-op", "undetected edit", "lingering process", "left behind"
)  # fmt: skip
OUTCOMES = ("clean refusal", "accepted", *BAD)


class Hang(Exception):
    """Raised by the alarm when a case runs past its time."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang


def attempt(fn: Callable[[], Any], timeout: float) -> tuple[str, str]:
    """Run ``fn``; ``(outcome, detail)`` by how it ended (``fn`` returns an outcome or None)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        got = fn()
        return (got if isinstance(got, str) else "accepted"), ""
    except Hang:
        return "hang", ""
    except Error as exc:
        return "clean refusal", str(exc)
    except Exception:
        return "traceback", traceback.format_exc(limit=3)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def cli(*args: str) -> str | None:
    """``omensim ARGS`` in-process: None on exit 0; an Error for one clean line; else raise."""
    from sim.cli import main

    result = CliRunner().invoke(main, list(args))
    if result.exit_code == 0:
        return None
    exc = result.exception
    lines = result.stderr.splitlines()
    if isinstance(exc, SystemExit) and len(lines) == 1 and lines[0].startswith("Error: "):
        raise Error(lines[0])
    raise RuntimeError(f"exit {result.exit_code}: {result.stderr[-500:]!r} {exc!r}")


# --- generated values --------------------------------------------------------------------

HOSTILE_VALUES: list[Any] = [
    None, True, False, 0, -1, 1.5, 1e20, 2**70, float("nan"), float("inf"), "", "abc", "7",
    "1e999999999", "aegean", "nope", "dunes+", "+", "aegean:0", "aegean:99999", [], {}, [1],
    {"a": 1}, b"\xff", object(), (), ("emissary",), ["nope"], "greedy", "p0", "💥" * 1000,
    "x" * 100_000, 5, 3.0, -0.0, 2**63, "0x10", " 12 ", "1_0", "../../etc/passwd",
]  # fmt: skip


def toml_value(rng: random.Random, depth: int) -> str:
    """A random TOML value, nesting up to ``depth``."""
    kind = rng.randrange(9 if depth > 0 else 6)
    if kind == 0:
        return str(rng.choice([0, 1, -1, 99, 100, 2**31, 2**63 - 1, -(2**63)]))
    if kind == 1:
        return rng.choice(["nan", "inf", "-inf", "1e308", "0.5", "-0.0"])
    if kind == 2:
        return json.dumps(rng.choice(["", "cost", "aegean", "x" * 5000, "é", "\u0000"]))
    if kind == 3:
        return rng.choice(["true", "false"])
    if kind == 4:
        return "1979-05-27T07:32:00Z"
    if kind == 5:
        return "'''multi\nline'''"
    n = rng.randrange(0, 4)
    if kind in (6, 7):
        return "[" + ", ".join(toml_value(rng, depth - 1) for _ in range(n)) + "]"
    return "{" + ", ".join(f"k{i} = {toml_value(rng, depth - 1)}" for i in range(n)) + "}"


RULE_KEYS = list(C.RULE_KEYS)
CARD_KEYS = ["name", "type", "cost", "strength", "offering", "copies", "abilities", "keywords"]


def toml_text(rng: random.Random, reader: str) -> str | bytes:
    """A hostile TOML file for ``reader`` (rules, set, profile or deck)."""
    kind = rng.randrange(10)
    if kind == 0:  # nested thousands deep
        d = rng.choice([20, 200, 1000, 5000, 20000])
        return f"[rules]\ntiles_per_city = {'[' * d}{']' * d}\n"
    if kind == 1:  # dotted keys thousands deep
        return "[rules]\n" + "a." * rng.choice([50, 3000]) + "b = 1\n"
    if kind == 2:  # huge
        return "# " + "x" * (S.MAX_FILE_BYTES + rng.randrange(10)) + "\n"
    if kind == 3:  # binary
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
    if kind == 4:  # a shipped file cut short
        text = (C.SETS_DIR / "aegean.toml").read_text()
        return text[: rng.randrange(len(text))]
    if kind == 5:  # a shipped file with one value replaced
        text = (C.SETS_DIR / "aegean.toml").read_text()
        lines = text.splitlines()
        i = rng.randrange(len(lines))
        if "=" in lines[i]:
            key = lines[i].split("=")[0]
            lines[i] = f"{key}= {toml_value(rng, 3)}"
        return "\n".join(lines) + "\n"
    table = {"rules": "[rules]", "set": "[[units]]", "profile": "[weights]", "deck": ""}[reader]
    keys = {"rules": RULE_KEYS, "set": CARD_KEYS, "profile": ["coins", "cards", "vp"],
            "deck": ["p0", "p1"]}[reader]  # fmt: skip
    body = "\n".join(
        f"{rng.choice([*keys, 'zz'])} = {toml_value(rng, rng.randrange(1, 6))}"
        for _ in range(rng.randrange(1, 8))
    )
    return f"{table}\n{body}\n"


def read_with(reader: str, path: Path) -> Callable[[], Any]:
    """The call of ``reader`` on ``path``."""
    if reader == "rules":
        return lambda: C.load_rule_overrides(path)
    if reader == "set":
        return lambda: C.load_set(path)
    if reader == "profile":
        return lambda: load_profile(path)
    return lambda: load_decklists(path, C.load_pool("reign"))


# --- the cases -------------------------------------------------------------------------------


def children() -> list[int]:
    """The pids of this process's live children (read from /proc)."""
    me, out = os.getpid(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z" and not _interpreter_helper(entry):
            out.append(int(entry.name))
    return out


def _interpreter_helper(proc: Path) -> bool:
    """Whether a child is the interpreter's own multiprocessing resource tracker: started
    once, on first use, for the whole process, and gone with it (not a case's)."""
    try:
        return b"multiprocessing.resource_tracker" in (proc / "cmdline").read_bytes()
    except OSError:
        return False


def lingering(known: set[int], grace: float = 5.0) -> list[int]:
    """Children (but the ``known`` ones the bench started itself) still alive ``grace``
    seconds after a case returned (none should be)."""
    deadline = time.monotonic() + grace
    while True:
        alive = [pid for pid in children() if pid not in known]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


class Bench:
    """The cases, their outcomes and the first example of each bad one."""

    def __init__(self, tmp: Path, timeout: float) -> None:
        self.tmp, self.timeout = tmp, timeout
        self.counts: dict[str, Counter[str]] = defaultdict(Counter)
        self.examples: dict[tuple[str, str], str] = {}
        self.labels: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.n = 0
        self.known: set[int] = set()
        """Processes the bench started itself (the holder of a folder's lock)."""
        self.refused_valid: list[str] = []
        """Cases of a valid input that was refused (counted as refusals, listed apart)."""

    def case(self, kind: str, label: str, fn: Callable[[], Any], valid: bool = False) -> None:
        """Run one case of ``kind`` and count its outcome (``valid``: the input must be taken,
        and a refusal is listed in :attr:`refused_valid`)."""
        outcome, detail = attempt(fn, self.timeout)
        if valid and outcome == "clean refusal":
            self.refused_valid.append(f"{kind}: {label}: {detail}"[:300])
        left = [] if outcome in BAD else lingering(self.known)
        if left:
            outcome, detail = "lingering process", ", ".join(map(str, left))
        self.counts[kind][outcome] += 1
        self.n += 1
        if outcome in BAD:
            self.examples.setdefault((kind, outcome), f"{label}: {detail}"[:800])
            self.labels[(kind, outcome)].append(label[:100])

    def path(self, name: str, content: str | bytes) -> Path:
        """A fresh file holding ``content``."""
        p = self.tmp / f"{self.n}-{name}"
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
        return p


def toml_cases(b: Bench, rng: random.Random, n: int) -> None:
    """Every TOML reader, called directly and through its CLI option."""
    readers = ["rules", "set", "profile", "deck"]
    for i in range(n):
        reader = readers[i % 4]
        p = b.path(f"{reader}.toml", toml_text(rng, reader))
        b.case(f"TOML {reader} file", str(p), read_with(reader, p))
    option = {"rules": "--rules", "set": "--cards", "profile": "--p0", "deck": "--decks"}
    for i in range(max(8, n // 25)):
        reader = readers[i % 4]
        p = b.path(f"cli-{reader}.toml", toml_text(rng, reader))
        extra = ["--mix", "reign", "--variant", "constructed"] if reader == "deck" else []
        out = b.tmp / f"cli-out-{b.n}"
        args = ["run", "--games", "2", "-q", "--out", str(out), option[reader], str(p), *extra]
        b.case(f"CLI run {option[reader]}", " ".join(args), lambda a=args: cli(*a))
    for _ in range(max(4, n // 50)):
        p = b.path("b-rules.toml", toml_text(rng, "rules"))
        args = [
            "compare",
            "--games",
            "2",
            "-q",
            "--b-rules",
            str(p),
            "--out",
            str(b.tmp / f"c{b.n}"),
        ]
        b.case("CLI compare --b-rules", " ".join(args), lambda a=args: cli(*a))


def api_cases(b: Bench, rng: random.Random, n: int) -> None:
    """``api.run``, ``api.compare`` and ``A.load`` with wrong values in every argument."""
    run_args = ["games", "mix", "seed", "p0", "p1", "first", "variants", "changes", "out",
                "threads", "until_ci", "force", "progress", "rules"]  # fmt: skip
    for i in range(n):
        arg = run_args[i % len(run_args)]
        value = rng.choice(HOSTILE_VALUES)
        kw: dict[str, Any] = {"games": 2, "out": b.tmp / f"api-{b.n}", "progress": False}
        kw[arg] = value
        if arg == "out" and isinstance(value, str):
            kw[arg] = b.tmp / f"api-out-{b.n}"  # a real path: not a hostile one
        b.case(f"api.run({arg}=...)", f"{arg}={value!r}"[:200], lambda k=kw: api.run(**k))
    for i in range(max(10, n // 4)):
        value = rng.choice(HOSTILE_VALUES)
        arg = ["changes", "games", "mix", "seed"][i % 4]
        kw = {"changes": "Ker of the Spoils.cost=+1", "games": 2, "out": b.tmp / f"cmp-{b.n}",
              "progress": False, arg: value}  # fmt: skip
        b.case(f"api.compare({arg}=...)", f"{arg}={value!r}"[:200], lambda k=kw: api.compare(**k))
    for value in [*HOSTILE_VALUES, b.tmp, b.tmp / "missing", ROOT / "README.md"]:
        b.case("A.load(path)", repr(value)[:200], lambda v=value: A.load(v))


def cli_cases(b: Bench, rng: random.Random, n: int, run_dir: Path) -> None:
    """Command lines of run, compare, replay and report built from hostile values."""
    texts = [str(v) for v in HOSTILE_VALUES if isinstance(v, str | int | float)][:30]
    for i in range(n):
        v = rng.choice(texts)
        which = i % 4
        if which == 0:
            opt = rng.choice(["--games", "--seed", "--mix", "--p0", "--first", "--variant",
                              "--threads", "--until-ci", "--chunk-size"])  # fmt: skip
            args = ["run", "--games", "2", "-q", "--out", str(b.tmp / f"r{b.n}"), opt, v]
        elif which == 1:
            args = ["compare", "--games", "2", "-q", "--change", v, "--out", str(b.tmp / f"c{b.n}")]
        elif which == 2:
            args = ["replay", str(run_dir), "--game", v]
        else:
            args = ["report", v, "--out", str(b.tmp / f"rep{b.n}")]
        b.case(f"CLI {args[0]}", " ".join(args)[:200], lambda a=args: cli(*a))


def rule_cases(b: Bench, games: int) -> None:
    """Every rule parameter with other values on every single set, from ``--rules``:
    refused, or the rows of one of the values differ from the plain set's (else a
    silent no-op). The extremes are tried first: a supply or limit that rarely binds
    at its usual value binds at its bound."""
    for mix in ("aegean", "dunes", "reign"):
        pool = C.load_pool(mix)
        plain = Engine(runner_spec(mix, games)).play(0, games)
        for key in C.RULE_KEYS:
            values = other_values(key, pool.rules[key])
            if not values:
                continue

            def play(key: str = key, values: list = values, plain=plain, mix: str = mix) -> str:
                refusal = None
                for value in values:
                    p = b.path(f"{mix}-{key}.toml", f"[rules]\n{key} = {toml_literal(value)}\n")
                    try:
                        rows = Engine(runner_spec(mix, games, rules=str(p))).play(0, games)
                    except Error as exc:
                        refusal = exc
                        continue
                    if not rows.equals(plain):
                        return "accepted"
                    refusal = None
                if refusal is not None:
                    raise refusal
                for variant in SMALL_DECKS.get(mix, ()):
                    base = Engine(runner_spec(mix, games, variants=(variant,))).play(0, games)
                    spec = runner_spec(mix, games, variants=(variant,), rules=str(p))
                    if not Engine(spec).play(0, games).equals(base):
                        return "accepted"
                return "silent no-op"

            b.case("rule parameter on a set", f"{mix}: {key} (from {pool.rules[key]!r})", play)


SMALL_DECKS = {"reign": ("pile-draft",)}
"""Variants of a set with small decks, tried before a rule whose rows did not move is
called a no-op: a rule that acts only once a deck runs out (``reveal_reshuffles`` on
Reign's 50-kind deck) shows there within a few hundred games."""


def runner_spec(mix: str, games: int, **kw: Any) -> Any:
    """The RunSpec of the rule cases (the same seed for the plain and the changed run).

    Random bots: a rule that acts only through a choice the greedy bot never makes (a
    reveal repeated, a Soldier moved) still alters their games."""
    from sim.data.spec import RunSpec

    return RunSpec(games=games, mix=mix, seed=11, p0="random", p1="random", **kw)


def other_values(key: str, value: Any) -> list[Any]:
    """Valid values of rule ``key`` other than ``value``, the extremes first."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        bound = S.RULE_INTS[key]
        tries = [bound.lo, bound.hi, value - 1, value + 1, value // 2, 2 * value]
        return list(dict.fromkeys(v for v in tries if v != value and bound.lo <= v <= bound.hi))
    if isinstance(value, str):
        return [r for r in C.READINGS.get(key, ()) if r != value]
    if isinstance(value, list) and key == "end_conditions":
        extra = [e for e in ("all_cities_empty", "two_cities_empty") if e not in value]
        return [[*value, extra[0]] if extra else value[:1]]
    return []


def toml_literal(value: Any) -> str:
    """``value`` written as TOML."""
    if isinstance(value, bool):
        return str(value).lower()
    return json.dumps(value)


# --- tampering -----------------------------------------------------------------------------


def flip_byte(d: Path, rel: str, at: int) -> None:
    """Change one byte of ``d/rel`` (at ``at``, wrapped to its length)."""
    data = bytearray((d / rel).read_bytes())
    if data:
        data[at % len(data)] ^= 1 + at % 255
        (d / rel).write_bytes(bytes(data))


def edits(rng: random.Random, src: Path, other: Path) -> list[tuple[str, Callable[[Path], None]]]:
    """Edits that change a run folder's content, each as ``(label, apply(folder))``."""
    parts = sorted(p.name for p in src.glob("part-*.parquet"))
    out: list[tuple[str, Callable[[Path], None]]] = []

    for _k in range(60):
        name, at = rng.choice(parts), rng.randrange(1 << 20)
        out.append((f"flip a byte of {name} at {at}", lambda d, n=name, a=at: flip_byte(d, n, a)))
    for _k in range(15):
        name, keep = rng.choice(parts), rng.random()

        def cut(d: Path, n: str = name, keep: float = keep) -> None:
            data = (d / n).read_bytes()
            (d / n).write_bytes(data[: int(len(data) * keep)])

        out.append((f"truncate {name} to {keep:.0%}", cut))
    for col in ("winner", "score_p0", "turns", "first_player"):
        for _k in range(5):
            name, row = rng.choice(parts), rng.randrange(50)

            def rewrite(d: Path, n: str = name, c: str = col, r: int = row) -> None:
                t = pq.read_table(d / n)
                df = t.to_pandas()
                df.loc[r, c] = (
                    (df.loc[r, c] + 1) % 2
                    if c in ("winner", "first_player")
                    else (df.loc[r, c] + 1)
                )
                new = pa.Table.from_pandas(df, preserve_index=False, schema=t.schema)
                pq.write_table(new.replace_schema_metadata(t.schema.metadata), d / n)

            out.append((f"rewrite {col} of row {row} in {name}, metadata kept", rewrite))
    out.append(("the card table of a dunes run", lambda d: shutil.copy(other / io.CARDS_NAME, d)))
    out.append(("part 0 of a dunes run", lambda d: shutil.copy(other / parts[0], d / parts[0])))
    out.append(("the card table removed", lambda d: (d / io.CARDS_NAME).unlink()))
    out.append(("a part removed", lambda d: (d / parts[-1]).unlink()))
    out.append(
        ("a stray part copied in", lambda d: shutil.copy(d / parts[0], d / "part-99.parquet"))
    )
    fields = ["complete", "games", "parts", "metadata", "spec", "chunk_size", "cards_sha256",
              "manifest_sha256", "key", "format_version"]  # fmt: skip
    for _k in range(40):
        fld, value = rng.choice(fields), rng.choice(HOSTILE_VALUES[:30])

        def set_field(d: Path, f: str = fld, v: Any = value) -> None:
            doc = json.loads((d / io.MANIFEST_NAME).read_text())
            doc[f] = v
            (d / io.MANIFEST_NAME).write_text(json.dumps(doc, default=repr))

        out.append((f"manifest {fld} = {value!r}"[:80], set_field))
    for _k in range(10):
        i, fld, value = (
            rng.randrange(len(parts)),
            rng.choice(["games", "first_game", "file", "sha256"]),
            rng.choice(HOSTILE_VALUES[:20]),
        )

        def set_entry(d: Path, i: int = i, f: str = fld, v: Any = value) -> None:
            doc = json.loads((d / io.MANIFEST_NAME).read_text())
            doc["parts"][i][f] = v
            (d / io.MANIFEST_NAME).write_text(json.dumps(doc, default=str))

        out.append((f"manifest part {i} {fld} = {value!r}"[:80], set_entry))
    out.append(
        (
            "manifest cut short",
            lambda d: (d / io.MANIFEST_NAME).write_text((d / io.MANIFEST_NAME).read_text()[:200]),
        )
    )
    return out


def frames_equal(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Whether two loaded runs hold the same games."""
    try:
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))
        return True
    except AssertionError:
        return False


def tamper_cases(b: Bench, rng: random.Random, src: Path, other: Path) -> None:
    """Each edit on a fresh copy, read back by A.load, report, replay and run --resume."""
    clean = A.load(src, names=True)
    for k, (label, apply) in enumerate(edits(rng, src, other)):
        d = b.tmp / f"t{k}"
        shutil.copytree(src, d)
        apply(d)
        reader = k % 4

        def read(d: Path = d, reader: int = reader) -> str | None:
            if reader == 0:
                df = A.load(d, names=True)
                return None if frames_equal(df, clean) else "undetected edit"
            if reader == 1:
                cli("report", str(d), "--out", str(d.parent / f"{d.name}-rep"))
                return "undetected edit"
            if reader == 2:
                cli("replay", str(d), "--game", "1")
                df = A.load(d, names=True)  # replay reads one game; the rest must be intact
                return None if frames_equal(df, clean) else "undetected edit"
            # --resume: the edited folder as if interrupted; a resume must replay or refuse.
            doc = json.loads((d / io.MANIFEST_NAME).read_text())
            doc["complete"] = False
            doc.pop(io.MANIFEST_DIGEST_KEY, None)
            if isinstance(doc, dict):
                doc[io.MANIFEST_DIGEST_KEY] = io.manifest_digest(doc)
            (d / io.MANIFEST_NAME).write_text(json.dumps(doc, default=str))
            runner.resume(d, progress=False)
            df = A.load(d, names=True)
            return None if frames_equal(df, clean) else "undetected edit"

        b.case(
            f"tampered run: {['A.load', 'report', 'replay', 'run --resume'][reader]}", label, read
        )


# --- structural TOML -------------------------------------------------------------------------

STRUCTURAL_SETS: list[tuple[str, Callable[[str], str]]] = [
    ("an unknown top-level table", lambda t: t + "\n[extras]\nx = 1\n"),
    ("an unknown [set] key", lambda t: t.replace("[set]\n", "[set]\nauthor = 'me'\n", 1)),
    ("[[unit]] for [[units]]", lambda t: t.replace("[[units]]", "[[unit]]", 1)),
    ("set = 5", lambda t: "set = 5\n" + t.replace("[set]\n", "[set_was]\n", 1)),
    ("rewards = 5", lambda t: "rewards = 5\n" + t.replace("[[rewards]]", "[[rewards_was]]")),
    ("rewards = 'x'", lambda t: "rewards = 'x'\n" + t.replace("[[rewards]]", "[[rewards_was]]")),
    ("feats = {a = 1}", lambda t: "feats = {a = 1}\n" + t),
    ("structures = 3", lambda t: "structures = 3\n" + t),
    ("units = 'x'", lambda t: "units = 'x'\n" + t.replace("[[units]]", "[[units_was]]")),
    ("every cost 20 (no game can end)", lambda t: _every(t, "cost", 20)),
]


def _every(text: str, key: str, value: int) -> str:
    return "\n".join(
        f"{key} = {value}" if line.startswith(f"{key} =") else line for line in text.splitlines()
    )


def _renamed(text: str, how: Callable[[str], str]) -> str:
    """The set with its second unit named as its first, written ``how``."""
    names = [ln.split("=", 1)[1].strip() for ln in text.splitlines() if ln.startswith("name =")]
    first, second = json.loads(names[1]), json.loads(names[2])  # names[0] is the set's
    return text.replace(f"name = {json.dumps(second)}", f"name = {json.dumps(how(first))}", 1)


def _renamed_first(text: str, suffix: str) -> str:
    """The set with ``suffix`` added to its first unit's name."""
    names = [ln.split("=", 1)[1].strip() for ln in text.splitlines() if ln.startswith("name =")]
    first = json.loads(names[1])  # names[0] is the set's
    return text.replace(f"name = {json.dumps(first)}", f"name = {json.dumps(first + suffix)}", 1)


def structural_cases(b: Bench, rng: random.Random, n: int) -> None:
    """Set, rules and profile files that parse as TOML but break the schema's structure:
    each must be refused in one line (accepted = a silent no-op)."""
    import unicodedata

    aegean = (C.SETS_DIR / "aegean.toml").read_text()
    sets = [*STRUCTURAL_SETS]
    sets += [
        ("two units equal but for case", lambda t: _renamed(t, str.upper)),
        ("two units equal but for a trailing space", lambda t: _renamed(t, lambda x: x + " ")),
        ("two units equal under NFC", lambda t: _renamed(
            _renamed_first(t, "\u00e9"), lambda x: unicodedata.normalize("NFD", x))),
        ("two units equal but for case and NFC", lambda t: _renamed(
            _renamed_first(t, "\u00e9"), lambda x: unicodedata.normalize("NFD", x.upper()))),
    ]  # fmt: skip
    rules = [
        ("an unknown rule key", "[rules]\nstart_coin = 3\n", "aegean"),
        ("an unknown top-level table", "[rules]\nstart_coins = 3\n[more]\nx = 1\n", "aegean"),
        ("rules = 5", "rules = 5\n", "aegean"),
        ("rules = []", "rules = []\n", "aegean"),
        ("tiles_per_city past the tiles", "[rules]\ntiles_per_city = 99\n", "aegean"),
    ]
    profile = (ROOT / "configs" / "strategies" / "economic.toml").read_text()
    profiles = [
        ("a weight under [strategy]", profile.replace("[strategy]\n", "[strategy]\ncoin = 9\n")),
        ("an unknown [strategy] key", profile.replace("[strategy]\n", "[strategy]\nbots = 1\n")),
        ("strategy = 5", "strategy = 5\n"),
        ("weights = 5", profile.replace("[weights]", "[weights_was]") + "\nweights = 5\n"),
        ("an unknown table", profile + "\n[wieghts]\ncoin = 1\n"),
    ]
    for i in range(n):
        which = i % 3
        if which == 0:
            label, how = sets[(i // 3) % len(sets)]
            p = b.path("set.toml", how(aegean))
            out = str(b.tmp / f"st-{b.n}")
            args = ["run", "--games", "4", "-q", "--cards", str(p), "--out", out]
            b.case("structural TOML: set file", label, lambda a=args: _refused(cli, *a))
        elif which == 1:
            label, text, mix = rules[(i // 3) % len(rules)]
            p = b.path("rules.toml", text)
            out = str(b.tmp / f"sr-{b.n}")
            args = ["run", "--games", "4", "--mix", mix, "-q", "--rules", str(p), "--out", out]
            b.case("structural TOML: rules file", label, lambda a=args: _refused(cli, *a))
        else:
            label, text = profiles[(i // 3) % len(profiles)]
            p = b.path("profile.toml", text)
            b.case("structural TOML: profile", label, lambda p=p: _refused(load_profile, p))


def _refused(fn: Callable[..., Any], *args: Any) -> str:
    """Call ``fn``: a clean refusal propagates; anything it accepts is a silent no-op."""
    fn(*args)
    return "silent no-op"


# --- folder surgery --------------------------------------------------------------------------

TALOS = "Talos, Bronze Guardian of Crete"
JOB_COMMANDS = {
    "compare": ["compare", "--games", "200", "--chunk-size", "50", "--change", f"{TALOS}.cost=+1"],
    "compare --until-ci": ["compare", "--games", "9000", "--until-ci", "0.02", "--change",
                           f"{TALOS}.cost=+1"],
    "sweep": ["sweep", "--games", "200", "--chunk-size", "50", "--card", "0", "--delta", "+1"],
    "sweep --until-ci": ["sweep", "--games", "5000", "--until-ci", "0.05", "--card", "0",
                         "--card", "3", "--delta", "+1"],
    "mixes": ["mixes", "aegean", "dunes+aegean:5", "--games", "200", "--subsets", "4"],
    "balance": ["balance", "--rule", "start_coins", "--values", "3-5", "--pilot", "200",
                "--max-games", "400", "--chunk-size", "100"],
    "tournament": ["tournament", "--bots", "random,greedy", "--games", "200"],
}  # fmt: skip


def job_folders(tmp: Path) -> dict[str, Path]:
    """One finished folder of every long command, written once and copied for each edit."""
    out = {}
    for kind, args in JOB_COMMANDS.items():
        out[kind] = tmp / f"job-{kind.replace(' ', '')}"
        cli(*args, "--seed", "3", "-q", "--out", str(out[kind]))
    return out


def job_edits(
    rng: random.Random, src: Path, runs: Path
) -> list[tuple[str, Callable[[Path], None]]]:
    """Edits of a finished job folder, each as ``(label, apply(folder))``."""
    from sim.run import jobs

    files = sorted(
        p.relative_to(src).as_posix()
        for p in src.rglob("*")
        if p.is_file() and not p.name.startswith(".")
    )
    out: list[tuple[str, Callable[[Path], None]]] = []

    for _k in range(12):
        rel, at = rng.choice(files), rng.randrange(1 << 16)
        out.append((f"flip a byte of {rel} at {at}", lambda d, r=rel, a=at: flip_byte(d, r, a)))
    for _k in range(3):
        rel = rng.choice(files)
        out.append((f"delete {rel}", lambda d, r=rel: (d / r).unlink()))
    out.append(("a stray file copied in", lambda d: (d / "notes.csv").write_text("x\n")))
    out.append(("another run copied in as a folder", lambda d: shutil.copytree(runs, d / "extra")))

    def edit_log(d: Path) -> None:
        log = d / jobs.LOG_NAME
        text = log.read_text()
        digits = [i for i, ch in enumerate(text) if ch.isdigit()]
        if digits:
            i = rng.choice(digits)
            text = text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1 :]
        log.write_text(text)

    out.append(("a digit of the log changed", edit_log))

    def strip_digest(d: Path) -> None:
        doc = json.loads((d / jobs.JOB_NAME).read_text())
        doc.pop(jobs.DIGEST_KEY, None)
        (d / jobs.JOB_NAME).write_text(json.dumps(doc))

    out.append(("job_sha256 deleted", strip_digest))
    for fld, value in (("complete", False), ("kind", "other"), ("plan", {}), ("files", [])):

        def set_field(d: Path, f: str = fld, v: Any = value) -> None:
            doc = json.loads((d / jobs.JOB_NAME).read_text())
            doc[f] = v
            (d / jobs.JOB_NAME).write_text(json.dumps(doc))

        out.append((f"_job.json {fld} = {value!r}", set_field))
    for arm in ("A", "B", "baseline"):
        if (src / arm).is_dir():
            out.append(
                (f"{arm} replaced by another run", lambda d, a=arm: _replace_dir(d / a, runs))
            )
    steps = src / jobs.STEPS
    if (steps / "A").is_dir():
        out.append(("the steps of A and B swapped", _swap_arms))
    for group in sorted(steps.iterdir()) if steps.is_dir() else []:
        out.append((f"a step of {group.name} copied in", lambda d, g=group.name: _extra_step(d, g)))
    return out


def _swap_arms(d: Path) -> None:
    from sim.run import jobs

    steps = d / jobs.STEPS
    (steps / "A").rename(steps / "X")
    (steps / "B").rename(steps / "A")
    (steps / "X").rename(steps / "B")


def _extra_step(d: Path, group: str) -> None:
    """The first step of ``group`` copied in again as a later one."""
    from sim.run import jobs

    parts = sorted((d / jobs.STEPS / group).glob("part-*.parquet"))
    shutil.copy(parts[0], parts[0].with_name("part-999999999999-1.parquet"))


def _replace_dir(target: Path, src: Path) -> None:
    shutil.rmtree(target)
    shutil.copytree(src, target)


RESULT_TABLE = {
    "compare": "compare.parquet",
    "compare --until-ci": "compare.parquet",
    "sweep": "sweep.parquet",
    "sweep --until-ci": "sweep.parquet",
    "mixes": "mixes.csv",
    "balance": "candidates.csv",
    "tournament": "tournament.parquet",
}


def _table(path: Path) -> pd.DataFrame:
    return pd.read_csv(path) if path.suffix == ".csv" else pd.read_parquet(path)


def _unfinish(d: Path) -> None:
    """The folder as a kill before its end leaves it: the job unfinished, signed again."""
    from sim.run import jobs

    path = d / jobs.JOB_NAME
    doc = json.loads(path.read_text())
    doc["complete"] = False
    doc.pop("files", None)
    doc[jobs.DIGEST_KEY] = jobs.digest({k: v for k, v in doc.items() if k != jobs.DIGEST_KEY})
    path.write_text(json.dumps(doc))


def surgery_cases(b: Bench, rng: random.Random, runs: Path) -> None:
    """Each edit of each finished job folder, read back by ``report`` (refused in one line)
    and, made to an interrupted folder, by ``--resume`` (refused in one line, or finished
    to the clean folder's table)."""
    folders = job_folders(b.tmp)
    for kind, src in folders.items():
        clean = _table(src / RESULT_TABLE[kind])
        for k, (label, apply) in enumerate(job_edits(rng, src, runs)):
            d = b.tmp / f"surgery-{kind}-{k}"
            shutil.copytree(src, d)
            if k % 2 == 0:
                apply(d)
                rep = str(b.tmp / f"surgery-rep-{kind}-{k}")

                def read(d: Path = d, rep: str = rep, kind: str = kind) -> str:
                    if kind == "mixes":  # no report of its own: its reader checks it
                        return _refused(read_mixes, d) and "undetected edit"
                    return _refused(cli, "report", str(d), "--out", rep) and "undetected edit"

                b.case(f"folder surgery: {kind} report", label, read)
                continue
            _unfinish(d)
            apply(d)

            def resume(d: Path = d, kind: str = kind, clean: pd.DataFrame = clean) -> str | None:
                cli(kind.split()[0], "--resume", str(d), "-q")
                same = _table(d / RESULT_TABLE[kind])
                return None if frames_equal(same, clean) else "undetected edit"

            b.case(f"folder surgery: {kind} --resume", label, resume)


# --- API types ------------------------------------------------------------------------------


def api_type_cases(b: Bench, rng: random.Random, n: int, run_dir: Path) -> None:
    """The readers and helpers of ``sim.analysis`` and the path arguments of ``sim.api``
    with hostile values: a :class:`sim.Error`, never a builtin."""
    frame = pd.DataFrame({"x": [1, 2]})
    helpers = [A.first_player_advantage, A.paired_first_player_advantage, A.score_margins,
               A.game_lengths, A.end_reasons, A.summary_stats, A.first_player_won]  # fmt: skip
    paths = ["", " ", "a\0b", "~/nonexistent-omensim", "memory://omensim-fuzz/x",
             "nosuchscheme://x/y", str(run_dir / "part-00000.parquet"), str(b.tmp)]  # fmt: skip
    values = [*HOSTILE_VALUES[:30], *paths, frame, frame.iloc[0:0]]
    for i in range(n):
        which = i % 5
        v = rng.choice(values)
        if which == 0:
            b.case("API types: A.cards", repr(v)[:100], lambda v=v: A.cards(v))
        elif which == 1:
            b.case("API types: A.run_totals", repr(v)[:100], lambda v=v: A.run_totals(v))
        elif which == 2:
            h = rng.choice(helpers)
            arg = rng.choice([frame, v])
            b.case(f"API types: A.{h.__name__}", repr(arg)[:100], lambda h=h, a=arg: h(a))
        elif which == 3:
            out = rng.choice(paths[:6])

            def run(out: str = out) -> Any:
                got = api.run(games=4, out=out, progress=False, force=True)
                got.load()

            b.case("API types: api.run(out=path)", repr(out), run)
        else:
            out = rng.choice(paths[:6])
            b.case(
                "API types: api.compare(out=path)",
                repr(out),
                lambda o=out: api.compare(f"{TALOS}.cost=+1", games=4, out=o, progress=False),
            )


# --- paths and conflicts -----------------------------------------------------------------------


def conflict_cases(b: Bench, rng: random.Random, n: int, run_dir: Path) -> None:
    """Output paths and options that conflict or would be ignored: refused in one line
    (accepted = a silent no-op), or, for ``~``, written once under the home folder."""
    change = ["--change", f"{TALOS}.cost=+1"]
    cases: list[tuple[str, list[str]]] = [
        ("run --out ''", ["run", "--games", "4", "-q", "--out", ""]),
        ("compare --out ''", ["compare", "--games", "4", "-q", *change, "--out", ""]),
        ("sweep --out ''", ["sweep", "--games", "4", "--card", "0", "--delta", "+1", "--out", ""]),
        ("tournament --out ''", ["tournament", "--bots", "random,greedy", "--out", ""]),
        ("strength --out ''", ["strength", "--panel", "random", "--games", "4", "--out", ""]),
        ("report --out ''", ["report", str(run_dir), "--out", ""]),
        ("run --out inside a run", ["run", "--games", "4", "-q", "--out", str(run_dir / "sub")]),
        ("run --out NUL", ["run", "--games", "4", "-q", "--out", "a\0b"]),
        ("run --out bad URL", ["run", "--games", "4", "-q", "--out", "nosuchscheme://x/y"]),
        ("mixes --out an existing file", ["mixes", "aegean", "--games", "4", "-q", "--out",
                                           str(run_dir / io.MANIFEST_NAME)]),
        ("the same --change twice", ["run", "--games", "4", "-q", *change, "--change",
                                     f"{TALOS.lower()}.cost=2"]),
        ("compare of no change", ["compare", "--games", "4", "--change", f"{TALOS}.cost=+0"]),
        ("--first under --duplicate", ["run", "--games", "4", "--duplicate", "--first", "p1"]),
        ("--plan with --out", ["compare", "--games", "4", *change, "--plan", "0.01", "--out",
                               str(b.tmp / "plan-out")]),
        ("cards --learning on aegean", ["cards", "--mix", "aegean", "--learning"]),
        ("an empty --b-p0", ["compare", "--games", "4", *change, "--b-p0", ""]),
        ("every sweep cell out of range", ["sweep", "--games", "4", "--card", "0", "--delta",
                                           "+150"]),
        ("--resume with another --games", ["run", "--resume", str(run_dir), "--games", "9"]),
        ("--resume with --seed", ["run", "--resume", str(run_dir), "--seed", "9"]),
        ("a malformed --scheduler", ["run", "--games", "4", "--backend", "dask", "--scheduler",
                                     "tcp://"]),
        ("mixes --subsets past --games", ["mixes", "aegean:10", "--games", "4", "--subsets",
                                          "50"]),
        ("--until-ci 1e-200", ["run", "--games", "4", "--until-ci", "1e-200", "-q", "--out",
                               str(b.tmp / "ci-out")]),
        ("compare --until-ci with --chunk-size", ["compare", "--games", "4", *change,
                                                  "--until-ci", "0.01", "--chunk-size", "2"]),
        ("sweep --until-ci with --chunk-size", ["sweep", "--games", "4", "--card", "0",
                                                "--until-ci", "0.01", "--chunk-size", "2"]),
        ("compare --until-ci with --backend dask", ["compare", "--games", "4", *change,
                                                    "--until-ci", "0.01", "--backend", "dask"]),
        ("sweep --until-ci with --backend dask", ["sweep", "--games", "4", "--card", "0",
                                                  "--until-ci", "0.01", "--backend", "dask"]),
        ("compare --until-ci 1e-200", ["compare", "--games", "4", *change, "--until-ci",
                                       "1e-200", "-q", "--out", str(b.tmp / "ci-compare")]),
        ("sweep --until-ci 1e-200", ["sweep", "--games", "4", "--card", "0", "--delta", "+1",
                                     "--until-ci", "1e-200", "-q", "--out",
                                     str(b.tmp / "ci-sweep")]),
        ("mixes --out inside a run", ["mixes", "aegean", "--games", "4", "-q", "--out",
                                      str(run_dir / "sub")]),
        ("mixes --out ''", ["mixes", "aegean", "--games", "4", "-q", "--out", ""]),
        ("mixes --resume with a MIX", ["mixes", "aegean", "--resume", str(run_dir)]),
        ("mixes --resume of a run", ["mixes", "--resume", str(run_dir)]),
        ("mixes --subsets past what they cost", ["mixes", "aegean+dunes:4", "--games", "1e12",
                                                 "--subsets", str(10**11)]),
        ("compare --resume of a run", ["compare", "--resume", str(run_dir)]),
    ]  # fmt: skip
    for i in range(n):
        label, args = cases[i % len(cases)]
        if label.endswith("--until-ci 1e-200"):  # valid: plays the games it was asked
            for name in ("ci-out", "ci-compare", "ci-sweep"):
                shutil.rmtree(b.tmp / name, ignore_errors=True)
            b.case("paths and conflicts", label, lambda a=args: cli(*a))
            continue
        b.case("paths and conflicts", label, lambda a=args: _refused(cli, *a))


# --- concurrency ----------------------------------------------------------------------------


def concurrency_cases(b: Bench, n: int) -> None:
    """A second writer of a folder another process holds: refused in one line naming it
    (let through = an undetected edit: two writers would mix one folder)."""
    from sim.run import jobs

    held = b.tmp / "held"
    code = (
        "import sys, time\n"
        "from sim.run import jobs\n"
        f"with jobs.Job.start({str(held)!r}, 'tournament', {{}}):\n"
        "    print('held', flush=True)\n"
        "    sys.stdin.read()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    b.known.add(proc.pid)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"held"
        writers = [
            ["run", "--games", "4", "-q", "--out", str(held), "--force"],
            ["compare", "--games", "4", "-q", "--change", f"{TALOS}.cost=+1", "--out", str(held),
             "--force"],
            ["sweep", "--games", "4", "--card", "0", "--delta", "+1", "-q", "--out", str(held),
             "--force"],
            ["tournament", "--bots", "random,greedy", "--games", "4", "-q", "--out", str(held),
             "--force"],
            ["tournament", "--resume", str(held), "-q"],
            ["balance", "--rule", "start_coins", "--values", "3-5", "--pilot", "100",
             "--max-games", "100", "-q", "--out", str(held), "--force"],
            ["compare", "--games", "4", "-q", "--change", f"{TALOS}.cost=+1", "--until-ci",
             "0.01", "--out", str(held), "--force"],
            ["sweep", "--games", "4", "--card", "0", "--delta", "+1", "--until-ci", "0.01", "-q",
             "--out", str(held), "--force"],
            ["mixes", "aegean", "--games", "4", "-q", "--out", str(held), "--force"],
            ["mixes", "--resume", str(held), "-q"],
        ]  # fmt: skip
        for i in range(n):
            args = writers[i % len(writers)]
            b.case(
                "concurrency: a second writer",
                " ".join(args[:2]),
                lambda a=args: _refused(cli, *a) and "undetected edit",
            )
            b.case(
                "concurrency: a second job",
                "Job.resume of a held folder",
                lambda: jobs.Job.resume(held, "tournament").close() or "undetected edit",
            )
    finally:
        proc.kill()
        proc.wait()


# --- temporary folders -------------------------------------------------------------------------


def temporary_cases(b: Bench, n: int) -> None:
    """The long commands without ``--out`` play into a temporary folder: it is gone once they
    end, whether they finish or are refused part way (a folder left = "left behind")."""
    change = ["--change", f"{TALOS}.cost=+1"]
    commands = [
        ["compare", "--games", "40", "-q", *change],
        ["compare", "--games", "40", "-q", *change, "--until-ci", "0.05"],
        ["sweep", "--games", "40", "-q", "--card", "0", "--delta", "+1"],
        ["sweep", "--games", "40", "-q", "--card", "0", "--delta", "+1", "--until-ci", "0.05"],
        ["mixes", "aegean", "aegean+dunes:4", "--games", "40", "--subsets", "2", "-q"],
        ["tournament", "--bots", "random,greedy", "--games", "20", "-q"],
        ["balance", "--rule", "start_coins", "--values", "3-4", "--pilot", "100",
         "--max-games", "100", "-q"],
        ["sweep", "--games", "40", "--card", "0", "--delta", "+150"],  # refused before play
    ]  # fmt: skip
    where = b.tmp / "tmpdir"
    where.mkdir()
    for i in range(n):
        args = commands[i % len(commands)]

        def play(a: list[str] = args) -> str | None:
            tempfile.tempdir = str(where)
            try:
                cli(*a)
            finally:
                tempfile.tempdir = None
                left = list(where.iterdir())
                for p in left:
                    shutil.rmtree(p, ignore_errors=True)
            return "left behind" if left else None

        b.case("temporary folders", " ".join(args[:1] + args[-2:]), play)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=1200, help="about how many cases in all")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds before a case is a hang")
    ap.add_argument("--rule-games", type=int, default=300, help="games per rule-parameter case")
    opts = ap.parse_args()
    rng = random.Random(opts.seed)
    t0 = time.perf_counter()
    os.environ["OMENSIM_COMPILE_LATER"] = "0"  # no compile child outliving a case
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.environ["HOME"] = str(tmp / "home")  # '~' cases write under the case folder
        (tmp / "home").mkdir()
        src, other = tmp / "clean", tmp / "dunes"
        for mix, out in (("aegean", src), ("dunes", other)):
            spec = runner_spec(mix, 600)
            runner.run(spec, out, chunk_size=200, progress=False)
        runner_chunk = json.loads((src / io.MANIFEST_NAME).read_text())["chunk_size"]
        b = Bench(tmp / "cases", opts.timeout)
        (tmp / "cases").mkdir()
        share = max(1, opts.cases - 300)
        toml_cases(b, rng, int(share * 0.55))
        api_cases(b, rng, int(share * 0.3))
        cli_cases(b, rng, int(share * 0.15), src)
        rule_cases(b, opts.rule_games)
        tamper_cases(b, rng, src, other)
        structural_cases(b, rng, 60)
        surgery_cases(b, rng, other)
        api_type_cases(b, rng, 100, src)
        conflict_cases(b, rng, 66, src)
        concurrency_cases(b, 12)
        temporary_cases(b, 24)
        option_cases(b, rng, opts.cases // 2, cli, src)
    seconds = time.perf_counter() - t0
    print(f"{b.n} hostile inputs in {seconds:,.0f} s (seed {opts.seed}; chunk {runner_chunk})")
    width = max(len(k) for k in b.counts)
    print(f"{'input':<{width}}  " + "  ".join(f"{o:>15}" for o in OUTCOMES))
    total: Counter[str] = Counter()
    for kind in sorted(b.counts):
        total.update(b.counts[kind])
        print(f"{kind:<{width}}  " + "  ".join(f"{b.counts[kind][o]:>15}" for o in OUTCOMES))
    print(f"{'all':<{width}}  " + "  ".join(f"{total[o]:>15}" for o in OUTCOMES))
    for (kind, outcome), example in sorted(b.examples.items()):
        print(f"\n{outcome} in {kind}: {example}")
        print("  all: " + "; ".join(b.labels[(kind, outcome)][:40]))
    for line in b.refused_valid:
        print(f"\nvalid input refused in {line}")
    return 1 if any(total[o] for o in BAD) or b.refused_valid else 0


if __name__ == "__main__":
    sys.exit(main())
