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
``A.load``, ``report``, ``replay`` and ``run --resume``.

Outcomes:

* **clean refusal**: a :class:`sim.Error` (the CLI: a non-zero exit with one ``Error:`` line);
* **accepted**: the input is valid and did what it says (a rule that changed the rows,
  an edit that changes no content);
* **traceback**: any other exception (the CLI: more than one line, or an uncaught one);
* **hang**: not finished within ``--timeout`` seconds;
* **silent no-op**: a rule accepted although the rows are those of the plain set;
* **undetected edit**: a folder whose content was edited read back without an error.

The last four should be 0. The script prints the counts per kind of input and the
first example of every bad outcome, and exits 1 if there is one.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import signal
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

from sim import Error, api  # noqa: E402
from sim import analysis as A  # noqa: E402
from sim.data import cards as C  # noqa: E402
from sim.data import schema as S  # noqa: E402
from sim.data.decklist import load_decklists  # noqa: E402
from sim.run import io, runner  # noqa: E402
from sim.run.engine import Engine  # noqa: E402
from strategies.profiles import load_profile  # noqa: E402

BAD = ("traceback", "hang", "silent no-op", "undetected edit")
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


class Bench:
    """The cases, their outcomes and the first example of each bad one."""

    def __init__(self, tmp: Path, timeout: float) -> None:
        self.tmp, self.timeout = tmp, timeout
        self.counts: dict[str, Counter[str]] = defaultdict(Counter)
        self.examples: dict[tuple[str, str], str] = {}
        self.labels: dict[tuple[str, str], list[str]] = defaultdict(list)
        self.n = 0

    def case(self, kind: str, label: str, fn: Callable[[], Any]) -> None:
        """Run one case of ``kind`` and count its outcome."""
        outcome, detail = attempt(fn, self.timeout)
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


def edits(rng: random.Random, src: Path, other: Path) -> list[tuple[str, Callable[[Path], None]]]:
    """Edits that change a run folder's content, each as ``(label, apply(folder))``."""
    parts = sorted(p.name for p in src.glob("part-*.parquet"))
    out: list[tuple[str, Callable[[Path], None]]] = []

    def flip(d: Path, name: str, at: int) -> None:
        data = bytearray((d / name).read_bytes())
        data[at % len(data)] ^= 1 + at % 255
        (d / name).write_bytes(bytes(data))

    for _k in range(60):
        name, at = rng.choice(parts), rng.randrange(1 << 20)
        out.append((f"flip a byte of {name} at {at}", lambda d, n=name, a=at: flip(d, n, a)))
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=1200, help="about how many cases in all")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds before a case is a hang")
    ap.add_argument("--rule-games", type=int, default=300, help="games per rule-parameter case")
    opts = ap.parse_args()
    rng = random.Random(opts.seed)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
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
    return 1 if any(total[o] for o in BAD) else 0


if __name__ == "__main__":
    sys.exit(main())
