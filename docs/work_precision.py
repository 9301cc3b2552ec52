#!/usr/bin/env python3
"""work_precision.py — the work–precision diagrams of docs/work-precision.md (tests/bench/method_bench.py uses its runs).

For the knife edge, a 5-link Cartesian chain and the stiff spring pendulum:
`lagrangec simulate` to t = 10 with rk4 over a range of steps and with
dopri5, adams and bdf over a range of tolerances (atol = rtol / 1000), each
run's error at t = 10 (the largest |difference| of q and q' from a tight
reference) against its rhs evaluations and its integration time (the
fastest of three runs, `wall_time` of --summary-json, one sample at the
end). Writes docs/work-precision-NAME.png (gnuplot) and prints the table.

    docs/work_precision.py [--only NAME]    # LAGRANGEC=... selects the binary (default build/gen/lagrangec)
"""
import json
import os
import subprocess
import sys
import tempfile

DOCS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(DOCS)
sys.path.insert(0, os.path.join(ROOT, "tests", "bench"))
import chain_specs  # noqa: E402

T_END = 10.0
STEPS = [2e-2, 1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4]
RTOLS = [1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11]
METHODS = ["rk4", "dopri5", "adams", "bdf"]
# The reference: dopri5 far tighter than any point plotted, checked against bdf as tight.
REFERENCE = [("dopri5", 1e-13, 1e-16), ("bdf", 1e-12, 1e-15)]
TIMING_RUNS = 3


def simulate(lagrangec, spec, options, env):
    """The run's --summary-json, or None when it failed."""
    out = subprocess.run([lagrangec, "simulate", spec, "--t-end", str(T_END), "--sample", str(T_END),
                          "--summary-json", "-"] + options, env=env, capture_output=True, text=True)
    if not out.stdout:
        raise RuntimeError(f"simulate {spec} {' '.join(options)}: {out.stderr.strip()}")
    summary = json.loads(out.stdout)
    return summary if summary["status"] == "ok" else None


def tolerance_options(method, rtol, atol):
    return ["--method", method, "--rtol", repr(rtol), "--atol", repr(atol)]


def error(summary, reference):
    return max(abs(summary["final_state"][k] - v) for k, v in reference.items())


def reference_state(lagrangec, spec, env):
    """The tight reference, and how far the second tight run lands from it (the floor of the errors)."""
    runs = [simulate(lagrangec, spec, tolerance_options(*r), env) for r in REFERENCE]
    if None in runs:
        raise RuntimeError(f"{spec}: a reference run failed")
    return runs[0]["final_state"], error(runs[1], runs[0]["final_state"])


def points(lagrangec, spec, method, reference, env):
    """(setting, error, rhs evaluations, seconds) of each run that succeeded."""
    rows = []
    for setting in (STEPS if method == "rk4" else RTOLS):
        options = (["--method", "rk4", "--dt", repr(setting)] if method == "rk4"
                   else tolerance_options(method, setting, setting / 1000))
        summary = simulate(lagrangec, spec, options, env)
        if summary is None:
            continue        # rk4 past its stability limit, or a tolerance the method cannot reach
        seconds = min([summary["wall_time"]] + [simulate(lagrangec, spec, options, env)["wall_time"]
                                                 for _ in range(TIMING_RUNS - 1)])
        rows.append((setting, error(summary, reference), summary["rhs_evaluations"], seconds))
    return rows


def gnuplot_string(s):
    """s as a gnuplot single-quoted string: a quote inside is doubled, nothing else is special."""
    return "'" + s.replace("'", "''") + "'"


def plot(png, title, data, floor):
    """Two panels, error against rhs evaluations and against time, one curve per method."""
    def curves(column):
        return ", ".join(f"{gnuplot_string(path)} using {column}:2 with linespoints title {gnuplot_string(m)}"
                         for m, path in data)
    # noenhanced: titles and labels are text, not gnuplot's markup (q_ref is no subscript)
    script = f"""set terminal pngcairo size 1200,520 font ',11' noenhanced
set output {gnuplot_string(png)}
set multiplot layout 1,2 title {gnuplot_string(title)}
set logscale xy
set format x '1e%L'
set format y '1e%L'
set ylabel {gnuplot_string("error at t = 10: max |q - q_ref|, |q' - q'_ref|")}
set key bottom left
set grid
set arrow 1 from graph 0, first {floor!r} to graph 1, first {floor!r} nohead dashtype 2
set xlabel 'rhs evaluations'
plot {curves(3)}
set xlabel 'integration time (s)'
plot {curves(4)}
unset multiplot
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def models(work):
    name, path = chain_specs.write(work, "cartesian", 5)
    return [("knife_edge", os.path.join(ROOT, "specs", "knife_edge.toml"), "Knife-edge dumbbell"),
            (name, path, "5-link pendulum chain, Cartesian (5 holonomic rows, full correction)"),
            ("spring_pendulum", os.path.join(ROOT, "specs", "spring_pendulum.toml"),
             "Bob on a stiff overdamped spring (stiff)"),
            ("spring_pendulum_light", os.path.join(ROOT, "specs", "spring_pendulum_light.toml"),
             "Bob on a stiff lightly damped spring (stiff, damping ratio 0.1)")]


def main(argv):
    lagrangec = os.environ.get("LAGRANGEC", os.path.join(ROOT, "build", "gen", "lagrangec"))
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, LAGRANGEC_CACHE=os.path.join(work, "cache"))
        print("| model | method | step or rtol | error at t = 10 | rhs evaluations | time (s) |")
        print("|---|---|---|---|---|---|")
        for name, spec, title in models(work):
            if only and name != only:
                continue
            reference, floor = reference_state(lagrangec, spec, env)
            data = []
            for method in METHODS:
                rows = points(lagrangec, spec, method, reference, env)
                path = os.path.join(work, f"{name}-{method}.dat")
                with open(path, "w") as f:
                    f.writelines(f"{s!r} {e!r} {n} {t!r}\n" for s, e, n, t in rows)
                data.append((method, path))
                for s, e, n, t in rows:
                    print(f"| {name} | {method} | {s:g} | {e:.1e} | {n} | {t:.4f} |", flush=True)
            print(f"| {name} | reference | {REFERENCE[0][1]:g} | floor {floor:.1e} | | |", flush=True)
            plot(os.path.join(DOCS, f"work-precision-{name}.png"),
                 f"{title}: work against precision to t = 10", data, max(floor, 1e-16))


if __name__ == "__main__":
    main(sys.argv[1:])
