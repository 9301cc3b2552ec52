"""bench.py — issue 5's benchmark: runs every measurement against SymPy and writes BENCHMARKS.md (run it through run.sh).

Usage: /usr/bin/python3 bench.py BUILD_DIR [--quick] [--keep]
  --quick  small grids, to try the benchmark itself in a minute or two
  --keep   keep the temporary directory (specs, generated and SymPy C, executables)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import chain_specs
import gen_bench
import kkt_bench
import profile_gen
import report
import rhs_bench
import sim_bench

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FULL = {"grid": [1, 2, 4, 6, 8, 10, 15, 20, 30, 40, 50], "rhs": [2, 4, 6, 8, 10],
        "kkt": kkt_bench.CASES, "sim_t": 1.0,
        "profile": [("angles", 10), ("angles", 15), ("cartesian", 50)]}
QUICK = {"grid": [1, 2, 4], "rhs": [2, 4], "kkt": [("angles", 10), ("angles", 40)], "sim_t": 0.1,
         "profile": [("angles", 4)]}
LIMITS = {"lgc": 120, "sympy": 60}  # seconds per case


def sh(cmd):
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()


def machine():
    dirty = sh(f"git -C {ROOT} diff --shortstat HEAD -- gen runtime") or "clean"
    sympy = sh("/usr/bin/python3 -c 'import sympy; print(sympy.__version__)'")
    return {"nproc": sh("nproc"), "lscpu": sh("lscpu | head -15"), "cc": sh("cc --version | head -1"),
            "versions": f"SymPy {sympy}, "
                        f"GiNaC {sh('pkg-config --modversion ginac')}, "
                        f"OpenBLAS {sh('pkg-config --modversion openblas')}, {sh('valgrind --version')}",
            "source": f"{sh(f'git -C {ROOT} rev-parse --short HEAD')}; uncommitted in gen/ and runtime/: {dirty}"}


def targets(res):
    gen = {(r["form"], r["n"]): r for r in res["generation"]}
    a10, c50 = gen.get(("angles", 10)), gen.get(("cartesian", 50))
    speed = None
    if a10 and a10.get("lgc") and a10.get("sympy"):
        speed = {"lgc": a10["lgc"]["wall"], "sympy": a10["sympy"]["total"],
                 "ratio": a10["sympy"]["total"] / a10["lgc"]["wall"],
                 "ratio_process": a10["sympy"]["wall"] / a10["lgc"]["wall"]}
    ratios = [(r["lgc"]["ir"] / r["sympy"]["ir"], f"{r['form']} N = {r['n']}") for r in res["rhs"] if r["n"] >= 4]
    rhs = None
    if ratios:
        worst = max(ratios)
        rhs = {"worst": worst[0], "where": worst[1], "best": min(ratios)[0]}
    c50 = "not measured" if not c50 or "lgc" not in c50 else c50["lgc"]
    return {"speedup_a10": speed, "c50": c50, "rhs": rhs,
            "allocs": max(r["allocs_per_step"] for r in res["simulation"])}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.exit(__doc__)
    build, quick, keep = os.path.abspath(args[0]), "--quick" in sys.argv, "--keep" in sys.argv
    cfg = QUICK if quick else FULL
    lagrangec = os.path.join(build, "gen", "lagrangec")
    work = tempfile.mkdtemp(prefix="lagrangec-bench-")
    t0 = time.time()
    res = {"machine": machine(), "limits": LIMITS, "options": " ".join(a for a in sys.argv[1:] if a == "--quick")}
    res["generation"] = gen_bench.run(lagrangec, work, cfg["grid"], LIMITS["lgc"], LIMITS["sympy"])
    res["rhs"] = rhs_bench.run(work, res["generation"], cfg["rhs"])
    chain10 = chain_specs.write(work, "cartesian", 10)[1]
    res["simulation"] = sim_bench.run(
        lagrangec, work,
        [("knife-edge dumbbell", f"{ROOT}/specs/knife_edge.toml", 20 * cfg["sim_t"]),
         ("double pendulum (Cartesian)", f"{ROOT}/specs/double_pendulum.toml", 20 * cfg["sim_t"]),
         ("10-link chain (Cartesian)", chain10, 5 * cfg["sim_t"])],
        [] if quick else [(f"{n}-link chain (Cartesian)", chain_specs.write(work, "cartesian", n)[1])
                          for n in (20, 50)])
    res["kkt"] = kkt_bench.results(kkt_bench.run(lagrangec, build, work, cfg["kkt"]))
    res["profile"] = {}
    for form, n in cfg["profile"]:
        name, spec = chain_specs.write(work, form, n)
        print(f"profile {name}", file=sys.stderr, flush=True)
        res["profile"][name] = profile_gen.run(lagrangec, spec, work)
    res["targets"] = targets(res)
    res["elapsed_min"] = (time.time() - t0) / 60
    with open(os.path.join(build, "bench-results.json"), "w") as f:
        json.dump(res, f, indent=1)
    report.write(os.path.join(ROOT, "BENCHMARKS.md"), res)
    print(f"wrote {ROOT}/BENCHMARKS.md and {build}/bench-results.json ({res['elapsed_min']:.1f} min)",
          file=sys.stderr)
    if keep:
        print(f"kept {work}", file=sys.stderr)
    else:
        shutil.rmtree(work)


main()
