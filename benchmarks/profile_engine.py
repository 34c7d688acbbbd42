"""Where the compiled engine spends its time: a `perf` profile of numba's machine code,
by function.

    python benchmarks/profile_engine.py                          # balanced mirror, base deck
    python benchmarks/profile_engine.py --pairing tuned,tuned --games 20000
    python benchmarks/profile_engine.py --split                  # the heuristic's helpers apart

numba's machine code has no symbols `perf` can read, and the engine makes the functions
an entry point links in `private` (jit.py), which drops their names from the object
code. Here, in a compile cache of its own (`--cache`, kept, so a rerun starts warm),
the engine is built with those functions `internal` instead (the same optimisation,
but named local symbols), each library's object code is captured as it is compiled or
loaded, and a perf map (/tmp/perf-PID.map) is written from its symbol table, so
`perf record` on this process attributes samples to functions. The build is that of a
normal run; only the symbol names differ. `--split` also keeps every function of the
engine out of line (LLVM `noinline`; numba's IR-level `jit_inline` helpers still
inline): the per-helper view costs the calls it adds, so read it for proportions, the
default for the real split between entry points and what stays out of line.

Needs Linux `perf` (Debian's linux-perf) with the software `cpu-clock` event. Prints
the top functions by self time; nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OBJECTS: list[tuple[object, bytes]] = []  # (library, object code) as compiled or loaded


def _patch_numba(split: bool) -> None:
    """Named local functions in entry points; object code captured; --split: noinline."""
    from numba.core import codegen

    import targi_sim.engine.jit as jit

    cls = codegen.CPUCodeLibrary
    numba_optimize = cls._optimize_final_module  # jit.py's: private for the rest

    import llvmlite.binding as ll

    def optimize(self):  # type: ignore[no-untyped-def]
        tag = f"L{abs(hash(self.name)) % 10**8}_"
        for f in self._final_module.functions:
            if f.is_declaration:
                continue
            if self.name in jit.ENTRY_POINTS and f.linkage == ll.Linkage.linkonce_odr:
                f.linkage = ll.Linkage.internal
                f.name = tag + f.name  # unique per library: never bound across libraries
        if split:  # every function out of line (textual IR: attributes cannot be removed)
            text = str(self._final_module).replace("alwaysinline", "noinline")
            module = ll.parse_assembly(text)
            for f in module.functions:
                if not f.is_declaration and "noinline" not in str(list(f.attributes)):
                    f.add_function_attribute("noinline")
            self._final_module = module
        numba_optimize(self)
    cls._optimize_final_module = optimize

    compiled, getbuffer = cls._object_compiled_hook, cls._object_getbuffer_hook

    def on_compiled(klass, ll_module, buf):  # type: ignore[no-untyped-def]
        lib = getattr(ll_module, "_CPUCodeLibrary__library", None)
        if lib is not None:
            OBJECTS.append((lib, bytes(buf)))
        return compiled.__func__(klass, ll_module, buf)

    def on_getbuffer(klass, ll_module):  # type: ignore[no-untyped-def]
        buf = getbuffer.__func__(klass, ll_module)
        lib = getattr(ll_module, "_CPUCodeLibrary__library", None)
        if buf and lib is not None:
            OBJECTS.append((lib, bytes(buf)))
        return buf

    cls._object_compiled_hook = classmethod(on_compiled)
    cls._object_getbuffer_hook = classmethod(on_getbuffer)
    from numba.core.registry import cpu_target

    engine = cpu_target.target_context.codegen()._engine  # bound its hooks already
    engine.set_object_cache(cls._object_compiled_hook, cls._object_getbuffer_hook)


NM_LINE = re.compile(r"^([0-9a-f]+) ([0-9a-f]+) ([tTwW]) (.+)$")


def _symbols(buf: bytes) -> list[tuple[int, int, str, bool]]:
    """(offset in .text, size, name, global) of each function in an object file."""
    with tempfile.NamedTemporaryFile(suffix=".o") as f:
        f.write(buf)
        f.flush()
        out = subprocess.run(["nm", "-S", "--defined-only", f.name], capture_output=True,
                             text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = NM_LINE.match(line)
        if m:
            rows.append((int(m[1], 16), int(m[2], 16), m[4], m[3].isupper()))
    return rows


def _short(name: str) -> str:
    """A readable name: module.function from numba's mangled name (_ZN9targi_sim6engine...)."""
    name = re.sub(r"^L\d+_", "", name)
    if not name.startswith("_ZN"):
        return name
    i, words = 3, []
    while i < len(name) and name[i].isdigit():
        j = i
        while name[j].isdigit():
            j += 1
        n = int(name[i:j])
        words.append(name[j:j + n])
        i = j + n
    return ".".join(words[-2:]) if words else name


def write_perf_map(pid: int) -> int:
    """/tmp/perf-PID.map from every captured library's symbols; returns the entries."""
    lines = []
    for lib, buf in OBJECTS:
        syms = _symbols(buf)
        bases = Counter()
        for off, _size, name, is_global in syms:
            if not is_global:
                continue
            try:
                addr = lib._codegen._engine.get_function_address(name)
            except Exception:  # noqa: BLE001 - a symbol another library defined first
                continue
            if addr:
                bases[addr - off] += 1
        if not bases:
            continue
        base = bases.most_common(1)[0][0]
        for off, size, name, _g in syms:
            if size:
                lines.append(f"{base + off:x} {size:x} {_short(name)}\n")
    Path(f"/tmp/perf-{pid}.map").write_text("".join(lines))
    return len(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairing", default="balanced,balanced")
    ap.add_argument("--deck", default="base")
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--split", action="store_true",
                    help="keep the heuristic's helpers out of line (proportions only)")
    ap.add_argument("--cache", default=None,
                    help="compile cache of the profiling build (default .profile-cache/ "
                    "in the checkout, a second one for --split)")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    cache = args.cache or str(ROOT / (".profile-cache-split" if args.split
                                      else ".profile-cache"))
    os.environ["TARGI_SIM_CACHE_DIR"] = cache
    sys.path.insert(0, str(ROOT))
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    _patch_numba(args.split)

    from targi_sim.play.games import run_batch
    from targi_sim.play.match import prepare_match
    from targi_sim.play.pairing import game_plan

    pairing = args.pairing.split(",")
    match = prepare_match((pairing[0], pairing[-1]), args.deck, "default")
    run_batch(match, *game_plan(200, 1), logs=False)  # compile or load
    entries = write_perf_map(os.getpid())
    data = Path(tempfile.mkdtemp()) / "perf.data"
    perf = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-F", "2000",
                             "-p", str(os.getpid()), "-o", str(data)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    t = time.perf_counter()
    run_batch(match, *game_plan(args.games, 5), logs=False)
    seconds = time.perf_counter() - t
    perf.send_signal(signal.SIGINT)
    perf.wait()
    report = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--stdio",
                             "--sort", "sym", "-q"], capture_output=True, text=True).stdout
    print(f"{args.pairing} on {args.deck}: {args.games:,} games in {seconds:.2f} s "
          f"({args.games / seconds:,.0f} games/s while profiled); {entries} functions mapped"
          f"{'; --split' if args.split else ''}")
    print("self time  function")
    shown = 0
    for line in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(.*)$", line)
        if m and shown < args.top:
            print(f"{float(m[1]):7.2f}%  {m[2].strip()}")
            shown += 1


if __name__ == "__main__":
    main()
