"""siconos_peer.py — lagrangec's exact contact and friction events against Siconos (issue 25, item 6): the same
systems through Siconos's Moreau–Jean time-stepping at several step sizes, so that the difference can be seen to
shrink as the step goes to 0. A peer, not a test: it prints the differences and draws both trajectories.

Usage: /usr/bin/python3 tests/bench/siconos_peer.py [BUILD_DIR] [--quick]
  BUILD_DIR  where gen/lagrangec is (default build/); prints the tables and writes docs/siconos-peer.png
  --quick    steps 1e-2 and 1e-3 only
Also bench.py's section `siconos` (tests/bench/run.sh --only siconos). Needs Debian's python3-siconos and gnuplot.

Siconos's side: LagrangianLinearTIDS, LagrangianLinearTIR, MoreauJeanOSI (theta = 1/2), TimeStepping; the
ball's impacts a NewtonImpactNSL with an LCP, the friction contacts a NewtonImpactFrictionNSL (e = 0) with a 2D
FrictionContact; the LCP solved by Lemke's pivoting, the friction problem by NSGS to 1e-14.
"""
import csv
import os
import subprocess
import sys
import tempfile
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STEPS, QUICK_STEPS = (1e-2, 1e-3, 1e-4, 1e-5), (1e-2, 1e-3)
SAMPLE = 1e-3  # lagrangec's output interval: the grid on which trajectories are compared
PLOT_STEP = 1e-2  # the Siconos run drawn against lagrangec's
FRICTION_TOL = 1e-14  # NSGS's tolerance
STICK = 1e-9  # |slip| below this (m/s) counts as sticking (rolling) in a Siconos step
COMMANDS = [
    "lagrangec simulate specs/EXAMPLE.toml --t-end T --rtol 1e-12 --atol 1e-13 --sample 1e-3 --events ev.csv "
    "--out run.csv   # disk_link with --param mu_s=0.1",
    "/usr/bin/python3 tests/bench/siconos_peer.py   # Siconos Moreau-Jean at h = 1e-2 ... 1e-5: LCP by Lemke, "
    "FrictionContact(2) by NSGS to 1e-14",
]

# The examples: spec, end time, parameters set on both sides (Siconos's Coulomb law has one mu).
BALL = {"spec": "bouncing_ball", "t_end": 5.0, "set": {}}
BOWLING = {"spec": "bowling_ball", "t_end": 2.0, "set": {}}
DISK_LINK = {"spec": "disk_link", "t_end": 10.0, "set": {"mu_s": 0.1}}


def parameters(example):
    """The spec's parameters, with the example's settings, and the spec itself: Siconos's model reads them from
    the same file as lagrangec."""
    with open(os.path.join(ROOT, "specs", example["spec"] + ".toml"), "rb") as f:
        spec = tomllib.load(f)
    return dict(spec["parameters"], **example["set"]), spec


def read_csv(path):
    """A CSV's header and its rows; a first column that is not a number (an event's name) kept as text."""
    with open(path) as f:
        rows = list(csv.reader(f))
    number = lambda x: float(x) if x[0] in "+-.0123456789" else x  # noqa: E731
    return rows[0], [[number(x) for x in r] for r in rows[1:]]


def lagrangec(binary, example, work):
    """lagrangec's run: its samples as columns by name, and its events as (name, t, state...)."""
    out, events = os.path.join(work, "run.csv"), os.path.join(work, "ev.csv")
    subprocess.run([binary, "simulate", os.path.join(ROOT, "specs", example["spec"] + ".toml"), "--t-end",
                    str(example["t_end"]), "--rtol", "1e-12", "--atol", "1e-13", "--sample", str(SAMPLE),
                    "--events", events, "--out", out, "--quiet"]
                   + [a for k, v in example["set"].items() for a in ("--param", f"{k}={v}")], check=True)
    header, rows = read_csv(out)
    columns = {name: [r[i] for r in rows] for i, name in enumerate(header)}
    return columns, read_csv(events)[1]


def siconos_run(h, t_end, q0, v0, mass, stiffness, f_ext, rows, offsets, law, problem):
    """Moreau–Jean on one linear Lagrangian system with one interaction; per step t, q, v and the impulse."""
    import numpy as np
    import siconos.kernel as sk
    n = len(q0)
    ds = sk.LagrangianLinearTIDS(q0, v0, mass, stiffness, np.zeros((n, n)))
    ds.setFExtPtr(f_ext)
    inter = sk.Interaction(law, sk.LagrangianLinearTIR(np.array(rows), offsets))
    nsds = sk.NonSmoothDynamicalSystem(0.0, t_end)
    nsds.insertDynamicalSystem(ds)
    nsds.link(inter, ds)
    sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, h), sk.MoreauJeanOSI(0.5), problem)
    steps = int(round(t_end / h))
    t, q, v, p = np.zeros(steps + 1), np.zeros((steps + 1, n)), np.zeros((steps + 1, n)), np.zeros(steps + 1)
    q[0], v[0] = q0, v0
    ds_q, ds_v, impulse = ds.q(), ds.velocity(), inter.lambda_(1)  # views that Siconos updates in place
    start = time.process_time()
    for k in range(1, steps + 1):
        sim.computeOneStep()
        t[k], q[k], v[k], p[k] = sim.nextTime(), ds_q, ds_v, impulse[0]
        sim.nextStep()
    return {"t": t, "q": q, "v": v, "p": p, "cpu": time.process_time() - start}


def ball_siconos(h, example):
    """The ball, q = (y): the gap y, Newton's restitution."""
    import siconos.kernel as sk
    p, spec = parameters(example)
    return siconos_run(h, example["t_end"], [p["h"]], [0.0], [[p["m"]]], [[0.0]], [-p["m"] * p["g"]], [[1.0]],
                       [0.0], sk.NewtonImpactNSL(spec["constraints"]["restitution"]), sk.LCP())


def friction_problem():
    """A 2D FrictionContact by Siconos's NSGS to FRICTION_TOL (exact for one contact; with its 2D Lemke the disk
    on the link lost its normal impulse for one step, a spurious slide, at h = 1e-2 and 1e-5)."""
    import siconos.kernel as sk
    import siconos.numerics as sn
    problem = sk.FrictionContact(2, sn.SICONOS_FRICTION_2D_NSGS)
    problem.numericsSolverOptions().dparam[sn.SICONOS_DPARAM_TOL] = FRICTION_TOL
    return problem


def bowling_siconos(h, example):
    """The ball on the level lane, q = (x, y, theta), y its centre's height: the spec's x and theta with the
    normal direction that lagrangec takes as given (normal = m g); rows the gap y - r and the slip x' - r theta'."""
    import siconos.kernel as sk
    p, _ = parameters(example)
    m, r = p["m"], p["r"]
    return siconos_run(h, example["t_end"], [0.0, r, 0.0], [p["v0"], 0.0, p["spin"]],
                       [[m, 0, 0], [0, m, 0], [0, 0, 0.4 * m * r * r]], [[0.0] * 3] * 3, [0.0, -m * p["g"], 0.0],
                       [[0, 1, 0], [1, 0, -r]], [-r, 0.0], sk.NewtonImpactFrictionNSL(0.0, 0.0, p["mu"], 2),
                       friction_problem())


def disk_link_siconos(h, example):
    """The disk on the sprung link, q = (x, y, th, s), y the disk centre's height above the link (whose rollers
    hold it vertically): rows the gap y - r and the slip x' - r th' - s'; mu = mu_s = mu_k."""
    import siconos.kernel as sk
    p, spec = parameters(example)
    m, r, start = p["m"], p["r"], spec["initial"]
    assert p["mu_s"] == p["mu_k"], "Siconos's Coulomb law has one coefficient"
    mass = [[m, 0, 0, 0], [0, m, 0, 0], [0, 0, m * r * r / 2, 0], [0, 0, 0, p["M"]]]
    stiffness = [[0.0] * 4 for _ in range(3)] + [[0, 0, 0, p["k"]]]
    return siconos_run(h, example["t_end"], [start["x"], r, 0.0, start["s"]], [0.0] * 4, mass, stiffness,
                       [0.0, -m * p["g"], 0.0, 0.0], [[0, 1, 0, 0], [1, 0, -r, -1]], [-r, 0.0],
                       sk.NewtonImpactFrictionNSL(0.0, 0.0, p["mu_k"], 2), friction_problem())


def on_grid(run_t, values, ours):
    """max |Siconos - lagrangec| over the times both have (lagrangec's samples that are Siconos step times)."""
    worst = 0.0
    for t, value in zip(run_t, values):
        j = round(t / SAMPLE)
        if abs(j * SAMPLE - t) < 1e-9 and j < len(ours):
            worst = max(worst, abs(value - ours[j]))
    return worst


def switches(sticking, t):
    """(time, sticks after) of the steps at which a Siconos run's contact changes mode; from step 1 on, as the
    start's slip of 0 is no mode (lagrangec starts sliding, without an event)."""
    return [(t[k], sticking[k]) for k in range(2, len(t)) if sticking[k] != sticking[k - 1]]


def ball_row(run, columns, events, example):
    impacts = [e[1] for e in events if e[0].startswith("impact")]
    apexes = [e[2] for e in events if e[0] == "apex"]
    t, y, v, p = run["t"], run["q"][:, 0], run["v"][:, 0], run["p"]
    hits = [k for k in range(1, len(t)) if p[k] > 0 and p[k - 1] == 0]  # the first step of each impulse
    sic_apexes = [max(y[a:b]) for a, b in zip(hits, hits[1:5])]  # the highest step between impulses
    rests = 1 + max(k for k in range(len(t)) if abs(v[k]) > 1e-12)  # from this step on, y' = 0
    return {"impact_dt": max(abs(t[k] - ours) for k, ours in zip(hits[:5], impacts)),
            "apex_dy": max(abs(a - b) for a, b in zip(sic_apexes, apexes)),
            "rest_dt": abs(t[rests] - impacts[-1]), "traj": on_grid(t, y, columns["y"])}


def bowling_row(run, columns, events, example):
    r = parameters(example)[0]["r"]
    slip = run["v"][:, 0] - r * run["v"][:, 2]
    rolls = next(run["t"][k] for k in range(len(slip)) if abs(slip[k]) < STICK)
    return {"roll_dt": abs(rolls - events[0][1]), "speed_dv": abs(run["v"][-1, 0] - columns["x'"][-1]),
            "traj": on_grid(run["t"], run["q"][:, 0], columns["x"])}


def disk_link_row(run, columns, events, example):
    """Each of lagrangec's switches against Siconos's nearest of the same kind (a brief spurious switch of
    Moreau–Jean's then shows in the count, not as a shift of every later one)."""
    r = parameters(example)[0]["r"]
    v = run["v"]
    sic = switches([abs(u) < STICK for u in v[:, 0] - r * v[:, 2] - v[:, 3]], run["t"])
    shifts = [min(abs(t - e[1]) for t, sticks in sic if sticks == e[0].startswith("stick")) for e in events]
    return {"switches": f"{len(sic)}/{len(events)}", "switch_dt": max(shifts),
            "traj": max(on_grid(run["t"], run["q"][:, 0], columns["x"]),
                        on_grid(run["t"], run["q"][:, 3], columns["s"]))}


CASES = [("bouncing_ball", BALL, ball_siconos, ball_row), ("bowling_ball", BOWLING, bowling_siconos, bowling_row),
         ("disk_link", DISK_LINK, disk_link_siconos, disk_link_row)]


def curves(name, columns, run, row, example):
    """A panel's title and its curves: (label, lagrangec's values, Siconos's values)."""
    q, v = run["q"], run["v"]
    if name == "bouncing_ball":
        return f"bouncing ball: y (m); impacts {row['impact_dt']:.2g} s apart at most", [("y", columns["y"], q[:, 0])]
    r = parameters(example)[0]["r"]
    if name == "bowling_ball":
        return (f"bowling ball: x' and r theta' (m/s), equal once it rolls; from t1, {row['roll_dt']:.2g} s apart",
                [("x'", columns["x'"], v[:, 0]), ("r theta'", [r * w for w in columns["theta'"]], r * v[:, 2])])
    slip = [a - r * b - c for a, b, c in zip(columns["x'"], columns["th'"], columns["s'"])]
    return (f"disk on link (mu = 0.1): slip x' - r th' - s' (m/s), 0 while it rolls; switches {row['switch_dt']:.2g} s "
            "apart at most", [("slip", slip, v[:, 0] - r * v[:, 2] - v[:, 3])])


def plot(runs, path, work):
    """One panel per example: lagrangec's trajectory (lines) and Siconos's at PLOT_STEP (points), by gnuplot."""
    panels = []
    for name, (columns, run, row, example) in runs.items():
        title, lines = curves(name, columns, run, row, example)
        plots = []
        for i, (label, mine, peer) in enumerate(lines):
            ours, theirs = os.path.join(work, f"{name}-{i}-lgc.dat"), os.path.join(work, f"{name}-{i}-sic.dat")
            with open(ours, "w") as f:
                f.writelines(f"{t} {y}\n" for t, y in zip(columns["t"], mine))
            with open(theirs, "w") as f:
                f.writelines(f"{t} {y}\n" for t, y in zip(run["t"], peer))
            plots += [f"'{ours}' with lines lw 2 lc {2 * i + 1} title \"{label}, lagrangec (exact events)\"",
                      f"'{theirs}' with points pt 7 ps 0.4 lc {2 * i + 2} title \"{label}, Siconos Moreau-Jean, "
                      f"h = {PLOT_STEP:g}\""]
        key = "bottom right" if name == "bowling_ball" else "top right"  # where no curve runs
        panels.append(f"set title \"{title}\"; set key {key}; plot " + ", ".join(plots))
    script = (f"set terminal pngcairo size 1000,{330 * len(panels)} font ',10'; set output '{path}';"
              f"set multiplot layout {len(panels)},1; set xlabel 't (s)'; set grid;"
              + ";".join(panels) + "; unset multiplot")
    subprocess.run(["gnuplot", "-e", script], check=True)


def section(ctx, res):
    steps = QUICK_STEPS if ctx["quick"] else STEPS
    table, drawn = {}, {}
    for name, example, peer, row_of in CASES:
        work = os.path.join(ctx["work"], name)
        os.makedirs(work, exist_ok=True)
        columns, events = lagrangec(ctx["lagrangec"], example, work)
        table[name] = []
        for h in steps:
            run = peer(h, example)
            row = dict(row_of(run, columns, events, example), h=h, steps=len(run["t"]) - 1, cpu=run["cpu"])
            table[name].append(row)
            print(f"siconos {name} h={h:g}: {row}", file=sys.stderr, flush=True)
            if h == PLOT_STEP:
                drawn[name] = (columns, run, row, example)
    plot(drawn, os.path.join(ROOT, "docs", "siconos-peer.png"), ctx["work"])
    return {"steps": list(steps), "cases": table, "machine": machine()}


def machine():
    """The run's own machine line: the section may be run alone (run.sh --only siconos), apart from the rest."""
    def out(cmd):
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    return {"siconos": out("dpkg-query -W -f '${Version}' python3-siconos"),
            "cpu": out("lscpu | sed -n 's/^Model name: *//p'"), "nproc": out("nproc"),
            "load": "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg()),
            "source": out(f"git -C {ROOT} rev-parse --short HEAD"), "date": out("date -u '+%Y-%m-%d %H:%M UTC'")}


def report(res):
    r = res.get("siconos")
    if not r:
        return []
    cases, m = r["cases"], r["machine"]

    def rows(name, cells):
        return [f"| {x['h']:g} | {x['steps']} | {x['cpu']:.2f} | " + " | ".join(f(x) for f in cells) + " |"
                for x in cases[name]]
    e = lambda key: (lambda x: f"{x[key]:.2e}")  # noqa: E731
    return [
        "\n## Contacts and friction against Siconos\n",
        f"`tests/bench/siconos_peer.py` (issue 25, item 6): three examples through Siconos (Debian python3-siconos "
        f"{m['siconos']}): Moreau–Jean time-stepping (MoreauJeanOSI, theta = 1/2) at step h, its one-step problems "
        "(an LCP for the ball's impacts, a 2D FrictionContact with NewtonImpactFrictionNSL, e = 0, for the "
        "friction contacts), the LCP solved by Lemke's pivoting, the friction problem by NSGS to 1e-14 (with "
        "Siconos's 2D Lemke the disk on the link lost its normal impulse for one step, a spurious slide, at h = "
        "1e-2 and 1e-5); against lagrangec's exact events (dopri5, rtol 1e-12, atol 1e-13). Both sides read the "
        "parameters from the spec. Siconos's event times are step times: the step of the first impulse, of the "
        "first step that sticks (|slip| < 1e-9 m/s), of a change of mode. *traj*: max |Siconos − lagrangec| of the "
        "coordinates named, on lagrangec's 1e-3 s samples that are Siconos step times. cpu: Siconos's steps, "
        "s. `docs/siconos-peer.png` draws both at h = 1e-2.\n",
        f"This section's run: {m['date']}, source {m['source']}, {m['nproc']} × {m['cpu']}, load average "
        f"{m['load']} at its end; `/usr/bin/python3 tests/bench/siconos_peer.py` (or `tests/bench/run.sh --only "
        "siconos`), with `apt-get install -y python3-siconos` besides the benchmark's packages.\n",
        "**Bouncing ball** (`specs/bouncing_ball.toml`, e = 0.8, to t = 5): the first 5 impact times, the first "
        "4 apex heights (Siconos: its highest step between impulses), the time the ball comes to rest (lagrangec: "
        "the impacts' accumulation point, 4.0637 s; Siconos: the first step from which y' = 0), y over the run.\n",
        "| h | steps | cpu | impact times | apex heights | rest | traj y |", "|---:|---:|---:|---:|---:|---:|---:|",
        *rows("bouncing_ball", [e("impact_dt"), e("apex_dy"), e("rest_dt"), e("traj")]),
        "\n**Bowling ball** (`specs/bowling_ball.toml`, v0 = 8 m/s, mu = 0.2, to t = 2): the time it starts to "
        "roll (t1 = 8/(3.5 · 0.2 · 9.81) = 1.1649920 s; Siconos: the first step at or after it, so the difference "
        "is t1's offset in the step grid, under one step), its speed after (5/7 v0), x over the run.\n",
        "| h | steps | cpu | roll time | roll time / h | speed after | traj x |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        *rows("bowling_ball", [e("roll_dt"), lambda x: f"{x['roll_dt'] / x['h']:.3f}", e("speed_dv"),
                               e("traj")]),
        "\n**Disk on a sprung link** (`specs/disk_link.toml` with `--param mu_s=0.1`, so mu_s = mu_k = 0.1 as in "
        "Siconos's one-coefficient Coulomb law, to t = 10): the roll/slide switches (Siconos's count / "
        "lagrangec's; the time difference, max over lagrangec's switches of the nearest of Siconos's of the same "
        "kind), x and s over the run.\n",
        "| h | steps | cpu | switches | switch times | traj x, s |", "|---:|---:|---:|---:|---:|---:|",
        *rows("disk_link", [lambda x: x["switches"], e("switch_dt"), e("traj")]),
    ]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    build = os.path.abspath(args[0] if args else os.path.join(ROOT, "build"))
    with tempfile.TemporaryDirectory(prefix="lagrangec-siconos-") as work:
        ctx = {"lagrangec": os.path.join(build, "gen", "lagrangec"), "work": work, "quick": "--quick" in sys.argv}
        print("\n".join(report({"siconos": section(ctx, {})})))


if __name__ == "__main__":
    main()
