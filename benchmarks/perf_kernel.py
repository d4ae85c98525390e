#!/usr/bin/env python
"""Where the real kernel's time goes, by compiled function: ``perf`` with numba's code named.

    python benchmarks/perf_kernel.py [--mix dunes+aegean] [--seconds 15] [--top 30]
                                     [--annotate heuristic.choose_heuristic]

Plays ``play_batch`` on one thread while ``perf record`` samples this process,
then prints ``perf report``'s self-time shares per function. Numba's JIT code
has no symbols, so the script names it itself: it keeps the object code numba
loads from its on-disk cache, reads each object's symbol table (``readelf``),
and writes perf's map file for this process (:data:`PERF_MAP`). Functions inlined into
their callers (``inline=True`` kernels, and whatever LLVM inlined) count in
the caller. Needs ``perf`` and ``readelf``, and a warm cache: after a cold
compile nothing is loaded from the cache, so run it a second time. Prints
figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numba.core.codegen as codegen
from bench_engine import positive_int

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OBJECTS: dict[str, tuple[object, bytes]] = {}
_load_object = codegen.CPUCodeLibrary._set_compiled_object


def _keep_object(library: object, value: bytes) -> None:
    """numba's own loader, keeping a copy of the object code for the symbol map."""
    OBJECTS[library.name] = (library, value)  # type: ignore[attr-defined]
    _load_object(library, value)


codegen.CPUCodeLibrary._set_compiled_object = _keep_object


def short_name(symbol: str) -> str:
    """``_ZN3sim6kernel5surge13surge_options...`` -> ``surge.surge_options``."""
    if not symbol.startswith("_ZN"):
        return symbol
    s, parts, i = symbol[3:], [], 0
    while i < len(s) and s[i].isdigit():
        j = i
        while s[j].isdigit():
            j += 1
        n = int(s[i:j])
        parts.append(s[j : j + n])
        i = j + n
    parts = [p for p in parts if p not in ("sim", "kernel", "strategies")]
    return ".".join(parts) or symbol


PERF_MAP = "/tmp/perf-{pid}.map"
"""Where ``perf report`` looks up JIT symbols of process ``pid``: perf's own fixed path
(its documented perf-map interface), not a choice of this machine or of omensim."""


PLACES: dict[str, tuple[Path, str, int, int]] = {}
"""Short name -> (object file, symbol, loaded address, size), for ``--annotate``."""


def write_perf_map(workdir: Path) -> int:
    """Write :data:`PERF_MAP` for every function in the loaded objects; how many."""
    rows = []
    for name, (library, obj) in OBJECTS.items():
        path = workdir / f"{re.sub(r'[^A-Za-z0-9_]', '_', name)}.o"
        path.write_bytes(obj)
        table = subprocess.run(["readelf", "-sW", str(path)], capture_output=True, text=True)
        syms = []
        for line in table.stdout.splitlines():
            f = line.split()
            if len(f) >= 8 and f[3] == "FUNC" and f[6].isdigit():
                syms.append((int(f[1], 16), int(f[2]), f[4], f[7], int(f[6])))
        # One exported function's address gives the loaded section's base.
        base = section = None
        for off, _size, bind, sym, ndx in syms:
            if bind == "GLOBAL":
                try:
                    addr = library.get_pointer_to_function(sym)  # type: ignore[attr-defined]
                except Exception:  # a symbol numba did not export
                    addr = 0
                if addr:
                    base, section = addr - off, ndx
                    break
        if base is None:
            continue
        for off, size, _b, sym, ndx in syms:
            if ndx == section:
                rows.append((base + off, size, short_name(sym)))
                PLACES[short_name(sym)] = (path, sym, base + off, size)
    with open(PERF_MAP.format(pid=os.getpid()), "w") as f:
        for addr, size, sym in sorted(rows):
            f.write(f"{addr:x} {size:x} {sym}\n")
    return len(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="perf profile of the kernel by function (prints).")
    parser.add_argument("--mix", default="dunes+aegean", help="card mix (default dunes+aegean)")
    parser.add_argument("--seconds", type=float, default=15.0, help="time sampled (default 15)")
    parser.add_argument(
        "--top", type=positive_int, default=30, help="functions printed (default 30)"
    )
    parser.add_argument(
        "--annotate",
        default="",
        metavar="NAME",
        help="also print NAME's (a short name as printed) hottest instructions, disassembled",
    )
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    from sim.data.spec import RunSpec
    from sim.kernel.batch import play_batch
    from sim.run.engine import Engine

    engine = Engine(RunSpec(games=2000, mix=args.mix, seed=1))
    engine.warmup(linked=True)  # the build every run after a first one plays
    play_batch(engine.args, 0, 100, 1)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if write_perf_map(work) == 0:
            print("the kernel was compiled in this process, not loaded: run again")
            return 1
        data = work / "perf.data"
        perf = subprocess.Popen(
            [
                "perf",
                "record",
                "-q",
                "-F",
                "2000",
                "-p",
                str(os.getpid()),
                "-o",
                str(data),
                "--",
                "sleep",
                str(args.seconds),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        t0, games = time.perf_counter(), 0
        while perf.poll() is None:
            play_batch(engine.args, games, 500, 1)
            games += 500
        rate = games / (time.perf_counter() - t0)
        report = subprocess.run(
            ["perf", "report", "-i", str(data), "--no-children", "--sort", "symbol", "--stdio"],
            capture_output=True,
            text=True,
        ).stdout
        hot = annotate(data, args.annotate) if args.annotate else ""
    print(f"{args.mix}, greedy vs greedy, 1 thread: {rate:,.0f} games/s while sampled")
    lines = [line for line in report.splitlines() if "%" in line and not line.startswith("#")]
    for line in lines[: args.top]:
        f = line.split()
        print(f"{f[0]:>8}  {' '.join(f[2:]).rstrip(' -')}")
    if hot:
        print(hot)
    return 0


def annotate(data: Path, name: str, around: int = 10) -> str:
    """``name``'s disassembly (objdump) with each instruction's share of its samples,
    the hottest stretches only (``around`` instructions either side of each of the 12
    hottest). perf credits a sample to the instruction after a slow one, as a rule."""
    if name not in PLACES:
        return f"no function named {name}"
    path, sym, addr, size = PLACES[name]
    ips = subprocess.run(
        ["perf", "script", "-i", str(data), "-F", "ip"], capture_output=True, text=True
    ).stdout.split()
    counts: dict[int, int] = {}
    for ip in ips:
        off = int(ip, 16) - addr
        if 0 <= off < size:
            counts[off] = counts.get(off, 0) + 1
    total = sum(counts.values()) or 1
    dis = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", f"--disassemble={sym}", str(path)],
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    insns, start = [], None
    for line in dis:
        m = re.match(r"\s*([0-9a-f]+):\s*(.*)", line)
        if m:
            a = int(m.group(1), 16)
            start = a if start is None else start
            insns.append((a - start, m.group(2)))
    top = sorted(range(len(insns)), key=lambda j: -counts.get(insns[j][0], 0))[:12]
    keep = sorted({k for j in top for k in range(j - around, j + around + 1)})
    out = [f"{name}: {total} samples, {len(insns)} instructions"]
    for j in keep:
        if 0 <= j < len(insns):
            off, text = insns[j]
            n = counts.get(off, 0)
            out.append(f"{100 * n / total:6.2f}%  {off:6x}  {text}")
    return "\n".join(out)


if __name__ == "__main__":
    from sim.base.errors import exit_status

    sys.exit(exit_status(main))
