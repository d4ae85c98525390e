"""The command-options family of ``tools/hostile_inputs.py``: every option and argument of
every ``omensim`` command, read from click's own parameter list (so an option added later is
covered without a word here), given hostile values with otherwise small valid arguments.

Each value is typed by the option's click type (a game count, an integer range, a float, a
choice, a flag, a path read, a folder written) and, where the option's name says more, by
what it names (a mix, a bot, a comma list of bots, a card change, a card, a field, a rule,
a list of values). A value either must be refused (wrong type, negative, NaN or infinite,
empty, an unknown or repeated name, a change to a card's current value, a path that does
not exist, is a file or cannot be written) or may be taken. Every case runs in a fresh
working folder with the temporary folder watched, so a refusal that leaves its output
folder, a file in the working folder or a temporary folder behind is counted as such.

A second part resumes a finished (and an interrupted) folder of every command that has
``--resume`` with each of its other options: a value other than the recorded one must be
refused naming the option; the recorded value, as typed when the folder was written or in
another spelling of the same plan, must be taken.

``omensim desk`` serves until interrupted: it runs in a child process, and a value it takes
is one that gets as far as printing its URL (the child is then interrupted and must end).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from sim import Error
from sim.cli.group import main as omensim
from sim.cli.options import RESUME_KEEPS, GameCount, InputPath, OutLocation
from sim.data import cards as C
from sim.run import io, jobs

TALOS = "Talos, Bronze Guardian of Crete"
TALOS_COST = next(int(u["cost"]) for u in C.load_pool("aegean").units if u["name"] == TALOS)
CHANGE = f"{TALOS}.cost=+1"


@dataclass(frozen=True)
class Given:
    """One value of one option: the tokens that give it, whether it must be refused, and
    the arguments of :data:`BASE` it goes without (by parameter name)."""

    tokens: tuple[str, ...]
    refuse: bool
    without: tuple[str, ...] = ()


BASE: dict[str, dict[str, list[str]]] = {
    "run": {"games": ["--games", "4"], "quiet": ["-q"], "out": ["--out", "{out}"]},
    "compare": {"games": ["--games", "4"], "quiet": ["-q"], "change": ["--change", CHANGE],
                "out": ["--out", "{out}"]},
    "sweep": {"games": ["--games", "4"], "quiet": ["-q"], "cards": ["--card", "0"],
              "deltas": ["--delta", "+1"], "out": ["--out", "{out}"]},
    "balance": {"rules": ["--rule", "start_coins"], "values": ["--values", "3-4"],
                "pilot": ["--pilot", "100"], "max_games": ["--max-games", "100"],
                "quiet": ["-q"], "out": ["--out", "{out}"]},
    "tournament": {"bots": ["--bots", "random,greedy"], "games": ["--games", "4"],
                   "quiet": ["-q"], "out": ["--out", "{out}"]},
    "strength": {"panel": ["--panel", "random"], "games": ["--games", "4"], "quiet": ["-q"],
                 "out": ["--out", "{out}"]},
    "mixes": {"mix_list": ["aegean"], "games": ["--games", "4"], "quiet": ["-q"],
              "out": ["--out", "{out}"]},
    "cards": {"mix": ["--mix", "aegean"]},
    "compile": {"mix": ["--mix", "aegean"]},
    "desk": {"workspace": ["--workspace", "{out}"], "port": ["--port", "0"]},
    "replay": {"run_dir": ["{run}"], "game": ["--game", "1"]},
    "report": {"runs": ["{run}"], "out": ["--out", "{out}"], "quiet": ["-q"]},
}  # fmt: skip
"""Small valid arguments of every command (``{out}``: a fresh folder; ``{run}``: a finished
run), by click parameter name; the option a case gives replaces its own entry. A command
not listed here runs with none."""

CARD_RACE = {"card": ["--card", TALOS], "fields": ["--field", "cost"],
             "values": ["--values", "5,6"]}  # fmt: skip
SET_RUN = {"whole_set": ["--set"], "fields": ["--field", "cost"], "max_edits": ["--max-edits", "1"],
           "measure_games": ["--measure-games", "40"], "span": ["--span", "1"]}  # fmt: skip
BASE_FOR: dict[tuple[str, str], dict[str, list[str] | None]] = {
    **{("balance", name): {"rules": None, "values": None, **CARD_RACE}
       for name in ("card", "fields")},
    ("balance", "variant_choice"): {"rules": None, "values": None},
    **{("balance", name): {"rules": None, "values": None, **SET_RUN}
       for name in ("whole_set", "threshold", "first_bound", "max_edits", "measure_games")},
    ("balance", "span"): {"values": None},
    ("balance", "panel"): {"panel_games": ["--panel-games", "40"]},
    ("balance", "panel_games"): {"panel": ["--panel", "random"]},
    **{("mixes", name): {"mix_list": ["dunes+aegean:3"], "games": ["--games", "8"]}
       for name in ("subsets", "subset_seed")},
    ("cards", "seed"): {"mix": ["--mix", "dunes+aegean:3"]},
    **{(cmd, "plan"): {"out": None} for cmd in ("compare", "sweep")},
    **{(cmd, "panel"): {"out": None} for cmd in ("compare", "run")},
}  # fmt: skip
"""Where an option needs other arguments to be read at all (a card race for ``--field``,
``--set`` for its own options, no ``--values`` beside ``--span``, a partial mix for
``--subsets`` and ``cards --seed``, no ``--out`` beside ``--plan``): entries replacing
(or, as None, dropping) those of :data:`BASE`."""


# --- the values -------------------------------------------------------------------------------


def refused(*values: str) -> list[tuple[str, bool]]:
    """Values that must be refused."""
    return [(v, True) for v in values]


def taken(*values: str) -> list[tuple[str, bool]]:
    """Values that may be taken (or refused in one line)."""
    return [(v, False) for v in values]


NOT_NUMBERS = refused("", " ", "abc", "nan", "1.5", "0x10", "1e999999999", "💥")
GAME_COUNTS = [*NOT_NUMBERS, *refused("0", "-1", "inf", "1e20", "True", "1e12"), *taken("1")]
FLOATS = [*refused("", "abc", "nan", "inf", "-inf", "-1", "1e999", "0x"),
          *taken("0", "1e308", "1e-320", "0.3")]  # fmt: skip
MIXES = [*refused("", " ", "nope", "aegean+aegean", "aegean+AEGEAN", "aegean+", "+",
                  "aegean:0", "aegean:99999", "aegean:-1", "x" * 5000),
         *taken("AEGEAN", "dunes+aegean:3")]  # fmt: skip
BOTS = [*refused("", " ", "nope", "greedy,greedy", "{file}", "{missing}", "{folder}",
                 "{binary}", "random,"), *taken("random", "{profile}")]  # fmt: skip
BOT_LISTS = [*refused("", ",", " , ", "random,,greedy", "random,greedy,", "random,random",
                      "random,RANDOM", "random, random", "nope", "random,nope"),
             *taken("random,greedy", "random")]  # fmt: skip
VARIANTS = [*refused("nope", "emissary,nope", "constructed", "", " ", ",", "emissary,"),
            *taken("emissary,emissary", "EMISSARY")]  # fmt: skip
CHANGES = [*refused("", "x", f"{TALOS}.cost={TALOS_COST}", f"{TALOS.upper()}.cost=+0",
                    f"{TALOS}.cost=+0", "Nope.cost=1", f"{TALOS}.nope=1", f"{TALOS}.cost=999",
                    f"{TALOS}.cost=nan", f"{TALOS}.cost=1e999", f"{TALOS}.cost=-99",
                    f"{TALOS}.cost=", ".cost=1"),
           *taken(f"{TALOS}.cost=+1", f"{TALOS.lower()} .strength=5")]  # fmt: skip
CARDS = [*refused("", "nope", "-1", "99999", "1.5", "1e3", str(2**70)), *taken("0", TALOS)]
FIELDS = [*refused("", "nope", "cost,strength", "name"), *taken("COST", "strength")]
RULE_NAMES = [*refused("", "nope", "end_conditions", "tribute_timing", "start_coins,x"),
              *taken("tiles_per_city")]  # fmt: skip
VALUE_LISTS = [*refused("", "a", "5-3", "3-99999999999", "nan", "1,,2", "3,3", "3-5,4",
                        "-5", "1e3", ",", "3-"), *taken("2,5", "5-6")]  # fmt: skip
DELTAS = [*refused("", "+0", "nan", "1,1", "a", "+999", "1e999", "-1,0", ","), *taken("-1,+2")]
SCHEDULERS = [*refused("", "tcp://", "nonsense", "tcp://127.0.0.1:1"), *taken()]
BACKENDS = [*refused("", "nope", "local,dask", "LOCAL"), *taken("dask")]  # dask: a cluster
HOSTS = [*refused("", " ", "999.1.1.1", "nope.invalid", "x" * 300), *taken("localhost")]
NAMED: dict[str, list[tuple[str, bool]]] = {
    "mix": MIXES, "mix_list": MIXES,
    **{name: BOTS for name in ("p0", "p1", "b_p0", "b_p1", "bot")},
    **{name: BOT_LISTS for name in ("panel", "tiers", "bots")},
    "variants": VARIANTS, "b_variants": [*VARIANTS, *taken("standard")],
    "change": CHANGES, "cards": CARDS, "card": CARDS, "field": FIELDS, "fields": FIELDS,
    "rules": RULE_NAMES, "variant_choice": [*refused("", "nope", "emissary,emissary"),
                                            *taken("EMISSARY")],
    "values": VALUE_LISTS, "deltas": DELTAS, "scheduler": SCHEDULERS, "host": HOSTS,
    "backend": BACKENDS,
}  # fmt: skip
"""Values of the text options, by click parameter name (what the option names)."""

REPEATED: dict[str, tuple[str, bool]] = {
    "change": (CHANGE, True), "card_files": ("{set}", True), "fields": ("cost", True),
    "rules": ("start_coins", True), "cards": ("0", False), "values": ("3-4", True),
    "variants": ("emissary", False), "b_variants": ("emissary", False),
}  # fmt: skip
"""A valid value of each repeatable option, given twice: must it be refused?"""

READ_PATHS = refused("", " ", "{missing}", "{folder}", "/dev/zero", "{fifo}", "{binary}",
                     "{readme}", "{big}", "{file}/x", "{unplayable}")  # fmt: skip
WRITE_PATHS = [*refused("", " ", "{file}", "{file}/sub", "/proc/omensim-hostile/out",
                        "{run}/sub", "{run}", "nosuchscheme://x/y", "{fifo}"),
               *taken("~/hostile-out", "memory://omensim-hostile/{n}")]  # fmt: skip
RESUME_PATHS = refused("", " ", "{missing}", "{file}", "{folder}", "{job}", "{run}/sub",
                       "nosuchscheme://x/y", "{fifo}", "/dev/zero")  # fmt: skip


def type_values(param: click.Parameter) -> list[tuple[str, bool]]:
    """Hostile values of ``param`` by its click type (and, for text, by its name)."""
    t = param.type
    if isinstance(t, GameCount):
        return GAME_COUNTS
    if isinstance(t, click.IntRange):
        below = [] if t.min is None else refused(str(t.min - 1), str(t.min - 2**70))
        above = taken(str(2**70), str(2**63)) if t.max is None else refused(str(t.max + 1))
        return [*NOT_NUMBERS, *below, *above, *taken(str(t.min if t.min is not None else 0))]
    if isinstance(t, click.types.IntParamType):
        return [*NOT_NUMBERS, *taken("-1", "0", str(2**70), str(2**64), str(-(2**63)))]
    if isinstance(t, click.types.FloatParamType):
        return FLOATS
    if isinstance(t, click.Choice) and param.name not in NAMED:
        choices = [str(c) for c in t.choices]
        return [*refused("", "nope", ",".join(choices[:2])), *taken(choices[0].upper())]
    if param.name == "resume":
        return RESUME_PATHS
    if isinstance(t, OutLocation | click.Path) and param.name in ("runs", "panel_dir"):
        return [*refused(*[v for v, _ in READ_PATHS if v != "{readme}"]),
                *refused("{job}/sub", "{run} {run}"), *taken("{job}")]  # fmt: skip
    if isinstance(t, InputPath) and t.dir_okay:
        return [*refused(*[v for v, _ in READ_PATHS]), *refused("{job}"), *taken("{run}")]
    if isinstance(t, InputPath):
        return READ_PATHS
    if isinstance(t, OutLocation | click.Path):
        return WRITE_PATHS
    return NAMED.get(param.name or "", [*refused("", " "), *taken("nope", "x" * 5000)])


def values_of(param: click.Parameter) -> list[Given]:
    """Every case of ``param``: its hostile values, the value twice where it repeats, a
    flag alone and with a value, and ``--force`` without the ``--out`` it replaces."""
    opt = param.opts[0] if isinstance(param, click.Argument) else long_name(param)
    if isinstance(param, click.Option) and param.is_flag:
        flags = [Given((opt,), False), Given((f"{opt}=yes",), True)]
        if param.name == "force":  # without --out there is no folder for it to replace
            flags.append(Given((opt,), True, without=("out",)))
        return flags
    out = []
    for value, refuse in type_values(param):
        if isinstance(param, click.Argument):
            out.append(Given(tuple(value.split(" ")) if value else ("",), refuse))
        else:
            out.append(Given((opt, value), refuse))
    if param.multiple and param.name in REPEATED:
        value, refuse = REPEATED[param.name]
        out.append(Given((opt, value, opt, value), refuse))
    if isinstance(param, click.Argument) and param.nargs == -1 and param.name == "mix_list":
        out.append(Given(("aegean", "AEGEAN"), True))
    return out


def long_name(param: click.Parameter) -> str:
    """The option as a message spells it (``--games``, not ``-n``)."""
    return next((o for o in param.opts if o.startswith("--")), param.opts[0])


# --- the cases --------------------------------------------------------------------------------


@dataclass
class Places:
    """The files and folders the values name: ``{run}`` and the others."""

    root: Path
    run: Path
    job: Path

    def __post_init__(self) -> None:
        r = self.root
        r.mkdir(parents=True, exist_ok=True)
        (r / "file.txt").write_text("not a card file\n")
        (r / "folder").mkdir(exist_ok=True)
        (r / "folder" / "x.txt").write_text("x\n")
        (r / "binary.toml").write_bytes(bytes(range(256)) * 4)
        (r / "big.toml").write_text("# " + "x" * 1_100_000 + "\n")
        fifo = r / "fifo"
        if not fifo.exists():
            os.mkfifo(fifo)
        (r / "profile.toml").write_text((C.CONFIG_DIR / "strategies" / "economic.toml").read_text())
        text = (C.SETS_DIR / "aegean.toml").read_text()
        (r / "set.toml").write_text(text.replace("cost = 6", "cost = 5", 1))
        costly = [("cost = 20" if ln.startswith("cost =") else ln) for ln in text.splitlines()]
        (r / "unplayable.toml").write_text("\n".join(costly) + "\n")  # no game can end
        (r / "rules.toml").write_text("[rules]\nstart_coins = 5\n")

    def fill(self, token: str, n: int, out: Path) -> str:
        """``token`` with its placeholders filled in."""
        r = self.root
        names = {
            "{out}": out, "{run}": self.run, "{job}": self.job, "{file}": r / "file.txt",
            "{folder}": r / "folder", "{missing}": r / "missing" / "x.toml",
            "{binary}": r / "binary.toml", "{big}": r / "big.toml", "{fifo}": r / "fifo",
            "{readme}": Path(C.CONFIG_DIR).parent / "README.md",
            "{profile}": r / "profile.toml", "{set}": r / "set.toml",
            "{rules}": r / "rules.toml", "{unplayable}": r / "unplayable.toml", "{n}": n,
        }  # fmt: skip
        for key, value in names.items():
            token = token.replace(key, str(value))
        return token


def cases(rng: random.Random, n: int) -> list[tuple[str, click.Parameter, Given]]:
    """``n`` cases, every parameter of every command in turn (each parameter's values in a
    seeded order), so a small ``n`` still reaches every option."""
    queues: list[tuple[str, click.Parameter, list[Given]]] = []
    for name in sorted(omensim.commands):
        for param in omensim.commands[name].params:
            if param.name in ("help",) or param.expose_value is False:
                continue
            values = values_of(param)
            rng.shuffle(values)
            queues.append((name, param, values))
    out: list[tuple[str, click.Parameter, Given]] = []
    while len(out) < n and any(q for _, _, q in queues):
        for name, param, values in queues:
            if values and len(out) < n:
                out.append((name, param, values.pop()))
    return out


def arguments(name: str, param: click.Parameter, given: Given) -> list[str]:
    """The command line of one case (placeholders unfilled)."""
    base: dict[str, list[str] | None] = dict(BASE.get(name, {}))
    base.update(BASE_FOR.get((name, param.name or ""), {}))
    if param.name == "resume":
        base = {"quiet": base.get("quiet")}
    base.pop(param.name or "", None)
    for left_out in given.without:
        base.pop(left_out, None)
    args = [name]
    if isinstance(param, click.Argument):
        args += given.tokens
    for tokens in base.values():
        args += tokens or []
    if not isinstance(param, click.Argument):
        args += given.tokens
    return args


class Watch:
    """A case's own working folder and temporary folder: what a refusal left there."""

    def __init__(self, where: Path) -> None:
        self.cwd, self.tmp = where / "cwd", where / "tmp"
        self.cwd.mkdir(parents=True)
        self.tmp.mkdir()
        self.old = Path.cwd()

    def __enter__(self) -> Watch:
        os.chdir(self.cwd)
        tempfile.tempdir = str(self.tmp)
        return self

    def __exit__(self, *exc: Any) -> None:
        tempfile.tempdir = None
        os.chdir(self.old)

    def left(self, out: Path | None) -> list[str]:
        """What is left in the working folder, the temporary folder and ``out``."""
        found = [str(p) for p in (*self.cwd.iterdir(), *self.tmp.iterdir())]
        if out is not None and out.exists():
            found.append(str(out))
        return found


def option_case(
    cli: Callable[..., Any], watch: Watch, args: list[str], refuse: bool, out: Path
) -> str | None:
    """One command line in-process: a refusal must leave nothing (else "left behind"); a
    value that must be refused and is taken is a silent no-op."""
    with watch:
        try:
            cli(*args)
        except Error:
            if watch.left(out):
                return "left behind"
            raise
    if any(watch.tmp.iterdir()):
        return "left behind"  # the working folder may hold what a command without --out wrote
    return "silent no-op" if refuse else None


def desk_case(watch: Watch, args: list[str], refuse: bool, out: Path, timeout: float) -> str | None:
    """``omensim desk ARGS`` in a child, in the case's working folder: refused in one line
    (leaving nothing), or serving (its URL printed) until interrupted, then gone."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "TMPDIR": str(watch.tmp)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sim.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=watch.cwd,
    )
    deadline = time.monotonic() + timeout / 2
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if "http://" in line:
                proc.send_signal(signal.SIGINT)
                proc.wait(timeout=max(1.0, deadline - time.monotonic()))
                return "silent no-op" if refuse else None
            if time.monotonic() > deadline:
                break
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return "hang"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.stderr is not None
    lines = proc.stderr.read().splitlines()
    if proc.returncode != 0 and len(lines) == 1 and lines[0].startswith("Error: "):
        if watch.left(out):
            return "left behind"
        raise Error(lines[0])
    raise RuntimeError(f"exit {proc.returncode}: {lines[-3:]!r}")


def option_cases(b: Any, rng: random.Random, n: int, cli: Callable[..., Any], run: Path) -> None:
    """``n`` hostile values of the options of every command (see the module docstring)."""
    root = b.tmp / "options"
    job = root / "job"
    cli("tournament", "--bots", "random,greedy", "--games", "4", "-q", "--out", str(job))
    places = Places(root / "places", run, job)
    for k, (name, param, given) in enumerate(cases(rng, n)):
        where = root / f"case-{k}"
        out = where / "out"
        args = [places.fill(a, k, out) for a in arguments(name, param, given)]
        label = " ".join(a if len(a) < 60 else a[:20] + "..." for a in args)
        kind = f"command options: {name}"
        watch = Watch(where)
        if name == "desk":
            b.case(kind, label, lambda a=args, r=given.refuse, w=watch, o=out: desk_case(
                w, a, r, o, b.timeout))  # fmt: skip
            continue

        def play(a: list[str] = args, r: bool = given.refuse, w: Watch = watch, o: Path = out):
            return option_case(cli, w, a, r, o)

        b.case(kind, label, play)
    resume_cases(b, cli, places)


# --- --resume with other options ----------------------------------------------------------------

OTHER: dict[str, str] = {
    "games": "8", "mix": "dunes", "mix_list": "dunes", "seed": "5", "subset_seed": "3",
    "subsets": "3", "first": "p1", "b_first": "p1", "gods": "horus,anubis",
    "variants": "emissary", "b_variants": "emissary", "decks": "{set}", "rules_file": "{rules}",
    "b_rules": "{rules}", "chunk_size": "2", "until_ci": "0.1", "plan": "0.1",
    "change": f"{TALOS}.cost=+2", "card_files": "{set}", "panel": "random,greedy",
    "bots": "random,economic", "field": "strength", "fields": "strength", "deltas": "+2",
    "cards": "1", "card": TALOS, "correction": "fdr_bh", "target": "40", "tolerance": "1",
    "precision": "1", "pilot": "50", "max_games": "200", "alpha": "0.1", "threshold": "3",
    "first_bound": "3", "max_edits": "2", "measure_games": "100", "panel_games": "100",
    "values": "3,5", "span": "2", "rules": "tiles_per_city", "variant_choice": "emissary",
    "out": "{out}", "p0": "random", "p1": "random", "b_p0": "random", "b_p1": "random",
    "bot": "random",
}  # fmt: skip
"""A valid value other than the one each folder of :data:`BASE` records, by parameter name."""

SAME: dict[str, list[list[str]]] = {
    "run": [["--games", "4e0"], ["--mix", "AEGEAN"]],
    "compare": [
        ["--change", f" {CHANGE} "],
        ["--change", f"{TALOS.lower()} .COST+=1"],
        ["--b-variant", "standard"],
    ],
    "sweep": [["--delta", "1"], ["--field", "COST"], ["--card", "0"], ["--mix", " Aegean "]],
    "balance": [["--values", "3,4"], ["--values", "4,3"], ["--rule", "START_COINS"]],
    "tournament": [["--bots", "random, greedy"], ["--mix", "AEGEAN"]],
    "mixes": [["--games", "4"]],
}
"""The recorded plan in another spelling, beside the tokens :data:`BASE` wrote it with."""

SPAN_FOLDER = ["balance", "--rule", "start_coins", "--span", "1", "--pilot", "100",
               "--max-games", "100", "-q"]  # fmt: skip
SPAN_SAME = [["--span", "1"], ["--values", "3-5"], ["--values", "5,3,4"]]
SPAN_OTHER = [["--span", "2"], ["--values", "3-4"], ["--values", "3,4,6"]]


def other_value(param: click.Parameter) -> tuple[str, ...]:
    """Tokens giving ``param`` a valid value other than the recorded one."""
    if isinstance(param, click.Argument):
        return (OTHER.get(param.name or "", "x"),)
    opt = long_name(param)
    if isinstance(param, click.Option) and param.is_flag:
        return (opt,)
    if param.name in OTHER:
        return (opt, OTHER[param.name or ""])
    t = param.type
    if isinstance(t, click.Choice):
        return (opt, next(str(c) for c in t.choices if c != param.default))
    if isinstance(t, click.IntRange | click.types.IntParamType):
        lo = getattr(t, "min", None)
        return (opt, str((lo or 0) + 3))
    if isinstance(t, click.types.FloatParamType):
        return (opt, "0.1")
    return (opt, "x")


def spelled(param: click.Parameter) -> list[str]:
    """How a refusal may name ``param``."""
    if isinstance(param, click.Argument):
        return [param.human_readable_name.strip("[].").upper(), (param.name or "").upper()]
    return list(param.opts)


def named_refusal(cli: Callable[..., Any], args: list[str], names: list[str]) -> str:
    """``args`` must be refused naming one of ``names``: a refusal for another reason (the
    folder already complete) lets the option through unread, as taking it would."""
    try:
        cli(*args)
    except Error as exc:
        if any(name in str(exc) for name in names):
            raise
        return "silent no-op"
    return "silent no-op"


def unfinish(folder: Path) -> None:
    """The folder as a kill before its end leaves it: not complete, signed again."""
    if jobs.is_job(folder):
        path = folder / jobs.JOB_NAME
        doc = json.loads(path.read_text())
        doc["complete"] = False
        doc.pop("files", None)
        doc.pop(jobs.DIGEST_KEY, None)
        doc[jobs.DIGEST_KEY] = jobs.digest(doc)
    else:
        path = folder / io.MANIFEST_NAME
        doc = json.loads(path.read_text())
        doc["complete"] = False
        doc.pop(io.MANIFEST_DIGEST_KEY, None)
        doc[io.MANIFEST_DIGEST_KEY] = io.manifest_digest(doc)
    path.write_text(json.dumps(doc))


def resumable() -> Iterator[tuple[str, click.Command]]:
    """Every command that has ``--resume``."""
    for name in sorted(omensim.commands):
        cmd = omensim.commands[name]
        if any(p.name == "resume" for p in cmd.params):
            yield name, cmd


def resume_cases(b: Any, cli: Callable[..., Any], places: Places) -> None:
    """Every resumable command's finished folder resumed with each other option at another
    value (refused naming it), and an interrupted copy with the recorded values (taken)."""
    root = b.tmp / "options-resume"
    for name, cmd in resumable():
        folder = root / name
        base = {k: v for k, v in BASE.get(name, {}).items() if k != "out"}
        written = [places.fill(a, 0, folder) for tokens in base.values() for a in tokens]
        cli(name, *written, "--out", str(folder))
        for param in cmd.params:
            if param.name in RESUME_KEEPS or param.expose_value is False:
                continue
            tokens = [places.fill(a, 0, root / "elsewhere") for a in other_value(param)]
            args = [name, "--resume", str(folder), *tokens]
            b.case(
                f"command options: {name} --resume, another value",
                " ".join(args[3:])[:100],
                lambda a=args, p=param: named_refusal(cli, a, spelled(p)),
            )
        same = [t for k, t in base.items() if k not in ("quiet", "mix_list")] + SAME.get(name, [])
        for k, tokens in enumerate(same):
            _resume_same(b, cli, name, folder, root / f"{name}-same-{k}", tokens)
    if "balance" in dict(resumable()):
        folder = root / "balance-span"
        cli(*SPAN_FOLDER, "--out", str(folder))
        for k, tokens in enumerate(SPAN_SAME):
            _resume_same(b, cli, "balance", folder, root / f"span-same-{k}", tokens)
        for tokens in SPAN_OTHER:
            args = ["balance", "--resume", str(folder), *tokens]
            b.case(
                "command options: balance --resume, another value",
                " ".join(tokens),
                lambda a=args, t=tokens: named_refusal(cli, a, [t[0]]),
            )


def _resume_same(
    b: Any, cli: Callable[..., Any], name: str, folder: Path, copy: Path, tokens: list[str]
) -> None:
    """An interrupted copy of ``folder`` resumed with ``tokens``, the recorded plan: taken."""
    shutil.copytree(folder, copy)
    unfinish(copy)
    args = [name, "--resume", str(copy), "-q", *tokens]
    b.case(
        f"command options: {name} --resume, the recorded value",
        " ".join(tokens)[:100],
        lambda a=args: cli(*a),
        valid=True,
    )
