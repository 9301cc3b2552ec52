"""bench.py — the benchmark: lagrangec against SymPy, MuJoCo and Simbody, and the runtime's own figures; writes
BENCHMARKS.md (run it through run.sh).

Usage: /usr/bin/python3 bench.py BUILD_DIR [--quick] [--keep] [--only SECTION[,SECTION...] [--write]]
  --quick  small grids, to try the benchmark itself in a few minutes
  --keep   keep the temporary directory (specs, generated and peer C, executables)
  --only   run only these sections (and those they need) and print their part of the report, with the
           targets they measure, instead of writing BENCHMARKS.md; `sympy` stands for generation,rhs
  --write  with --only: also write those sections over theirs in BENCHMARKS.md, each saying which run it
           comes from (the rest of the file, its header's run included, stays as it was)

A section is a module with section(ctx, res) -> its results, report(res) -> its lines of BENCHMARKS.md, and
COMMANDS (the measurements underneath, for the header); NEEDS names sections whose results it reads. A new
section is one module and one line in SECTIONS.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import arm3d_bench
import articulated_bench
import correction_bench
import gen_bench
import inverse_dynamics_bench
import kkt_bench
import method_bench
import mujoco_bench
import profile_gen
import report
import rhs_bench
import rhs_split
import sim_bench
import siconos_peer
import sweep_bench
import targets

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SECTIONS = [("generation", gen_bench), ("rhs", rhs_bench), ("simulation", sim_bench), ("sweep", sweep_bench),
            ("kkt", kkt_bench), ("profile", profile_gen), ("mujoco", mujoco_bench), ("cartesian", rhs_split),
            ("correction", correction_bench), ("methods", method_bench), ("arm3d", arm3d_bench),
            ("inverse", inverse_dynamics_bench), ("siconos", siconos_peer), ("articulated", articulated_bench)]
ALIASES = {"sympy": ["generation", "rhs"]}


def sh(cmd):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()


def machine():
    dirty = sh(f"git -C {ROOT} diff --shortstat HEAD -- gen runtime") or "clean"
    sympy = sh("/usr/bin/python3 -c 'import sympy; print(sympy.__version__)'")
    mujoco = sh("dpkg-query -W -f '${Version}' libmujoco-dev")
    simbody = sh("dpkg-query -W -f '${Version}' libsimbody-dev") or "not installed"
    return {"nproc": sh("nproc"), "lscpu": sh("lscpu | head -15"), "cc": sh("cc --version | head -1"),
            "mujoco": mujoco,
            "versions": f"SymPy {sympy}, MuJoCo {mujoco}, Simbody {simbody}, "
                        f"GiNaC {sh('pkg-config --modversion ginac')}, "
                        f"OpenBLAS {sh('pkg-config --modversion openblas')}, {sh('valgrind --version')}",
            "source": f"{sh(f'git -C {ROOT} rev-parse --short HEAD')}; uncommitted in gen/ and runtime/: {dirty}",
            "load_start": os.getloadavg()}


def buildtype(build):
    """The build directory's meson buildtype (release from run.sh; the developers' build/ is debugoptimized)."""
    try:
        with open(os.path.join(build, "meson-info", "intro-buildoptions.json")) as f:
            return next(o["value"] for o in json.load(f) if o["name"] == "buildtype")
    except (OSError, ValueError, StopIteration):
        return "?"


def selected(only):
    """The sections to run, in SECTIONS' order: those named and those they need."""
    if only is None:
        return SECTIONS
    modules = dict(SECTIONS)
    wanted = set()
    pending = [k for name in only.split(",") for k in ALIASES.get(name, [name])]
    while pending:
        key = pending.pop()
        if key not in modules:
            sys.exit(f"bench.py: no section {key!r}; the sections: {', '.join(modules)}, sympy")
        wanted.add(key)
        pending += [k for k in getattr(modules[key], "NEEDS", ()) if k not in wanted]
    return [(k, m) for k, m in SECTIONS if k in wanted]


def main():
    argv = sys.argv[1:]
    only = None
    if "--only" in argv:
        i = argv.index("--only")
        if i + 1 >= len(argv):
            sys.exit(__doc__)
        only = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        sys.exit(__doc__)
    build, quick, keep = os.path.abspath(args[0]), "--quick" in argv, "--keep" in argv
    if "--write" in argv and only is None:
        sys.exit("bench.py: --write goes with --only (a full run writes the whole of BENCHMARKS.md)")
    sections = selected(only)
    work = tempfile.mkdtemp(prefix="lagrangec-bench-")
    ctx = {"lagrangec": os.path.join(build, "gen", "lagrangec"), "build": build, "work": work, "quick": quick}
    t0 = time.time()
    res = {"machine": machine(), "options": " ".join(a for a in argv if a == "--quick")}
    res["machine"]["buildtype"] = buildtype(build)
    try:
        for key, module in sections:
            res[key] = module.section(ctx, res)
    finally:
        if not keep:
            shutil.rmtree(work)
    res["elapsed_min"] = (time.time() - t0) / 60
    res["machine"]["load_end"] = os.getloadavg()
    name = "bench-results.json" if only is None else f"bench-results-{only.replace(',', '-')}.json"
    with open(os.path.join(build, name), "w") as f:
        json.dump(res, f, indent=1)
    if only is None:
        report.write(os.path.join(ROOT, "BENCHMARKS.md"), res, sections)
        print(f"wrote {ROOT}/BENCHMARKS.md and {build}/{name} ({res['elapsed_min']:.1f} min)", file=sys.stderr)
    else:
        print("\n".join(targets.issue13(res) + targets.issue5(res) + report.sections_text(res, sections)))
        if "--write" in argv:
            command = " ".join(["/usr/bin/python3 -B tests/bench/bench.py", os.path.relpath(build, ROOT), "--only", only]
                               + [a for a in argv if a.startswith("--")])
            report.replace_sections(os.path.join(ROOT, "BENCHMARKS.md"), res, sections, command)
            print(f"wrote the sections {only} into {ROOT}/BENCHMARKS.md", file=sys.stderr)
        print(f"({res['elapsed_min']:.1f} min; results in {build}/{name})", file=sys.stderr)
    if keep:
        print(f"kept {work}", file=sys.stderr)


main()
