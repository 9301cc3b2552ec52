"""sympy_chain.py — the peer: SymPy's LagrangesMethod + cse + ccode for the N-link chain; writes C, prints JSON timings.

Usage: /usr/bin/python3 sympy_chain.py angles|cartesian N OUT.c
The C file defines sympy_equations(state, param, M, f, J, r) with the same
state and parameter layout as lagrangec's chain specs (chain_specs.py), and
the sizes NQ, NC, NX, NP and the initial state the harness needs.
"""
import json
import sys
import time

T0 = time.perf_counter()
import sympy as sp  # noqa: E402
import sympy.physics.mechanics as me  # noqa: E402

import chain_specs  # noqa: E402


def angles_system(n):
    """The textbook N-pendulum: frames rotated by q_i, particles at -l_i A_i.y."""
    q = me.dynamicsymbols(f"th1:{n + 1}")
    m = sp.symbols(f"m1:{n + 1}")
    l = sp.symbols(f"l1:{n + 1}")
    g = sp.Symbol("g")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    prev, particles = O, []
    for i in range(n):
        A = N.orientnew(f"A{i + 1}", "Axis", [q[i], N.z])
        A.set_ang_vel(N, q[i].diff() * N.z)
        P = prev.locatenew(f"P{i + 1}", -l[i] * A.y)
        P.v2pt_theory(prev, N, A)
        pa = me.Particle(f"Pa{i + 1}", P, m[i])
        pa.potential_energy = m[i] * g * P.pos_from(O).dot(N.y)
        particles.append(pa)
        prev = P
    lm = me.LagrangesMethod(me.Lagrangian(N, *particles), q)
    return lm, q, list(m) + list(l) + [g], 0


def cartesian_system(n):
    """x_i, y_i with the N link lengths as holonomic constraints (multipliers)."""
    xs = me.dynamicsymbols(f"x1:{n + 1}")
    ys = me.dynamicsymbols(f"y1:{n + 1}")
    m = sp.symbols(f"m1:{n + 1}")
    l = sp.symbols(f"l1:{n + 1}")
    g = sp.Symbol("g")
    q = [c for pair in zip(xs, ys) for c in pair]
    L = sum(m[i] * (xs[i].diff() ** 2 + ys[i].diff() ** 2) / 2 - g * m[i] * ys[i]
            for i in range(n))
    cons = [xs[0] ** 2 + ys[0] ** 2 - l[0] ** 2]
    cons += [(xs[i] - xs[i - 1]) ** 2 + (ys[i] - ys[i - 1]) ** 2 - l[i] ** 2
             for i in range(1, n)]
    lm = me.LagrangesMethod(L, q, hol_coneqs=cons)
    return lm, q, list(m) + list(l) + [g], n


def blocks(lm, nq, nc):
    """M (lower triangle), f, J, r out of mass_matrix_full / forcing_full."""
    lm.form_lagranges_equations()
    MM, FF = lm.mass_matrix_full, lm.forcing_full
    outs = []
    for i in range(nq):
        for j in range(i + 1):
            outs.append((f"out_M[{i * nq + j}]", MM[nq + i, nq + j]))
    outs += [(f"out_f[{i}]", FF[nq + i]) for i in range(nq)]
    for i in range(nc):
        outs += [(f"out_J[{i * nq + j}]", MM[2 * nq + i, nq + j]) for j in range(nq)]
        outs.append((f"out_r[{i}]", FF[2 * nq + i]))
    return [(name, e) for name, e in outs if e != 0]


def c_source(form, n, q, params, nc, outs, reduced, replacements):
    nq = len(q)
    names = [str(s).replace("(t)", "") for s in q]
    lines = [f"/* sympy_{form}_{n}.c — SymPy {sp.__version__} LagrangesMethod + cse + ccode, written by sympy_chain.py. */",
             f"#define NQ {nq}", f"#define NC {nc}", f"#define NX {2 * nq}", f"#define NP {len(params)}"]
    if form == "angles":
        init = [chain_specs.angle(i) for i in range(1, n + 1)]
    else:
        init = [c for xy in chain_specs.cartesian_positions(n) for c in xy]
    lines.append("static const double sympy_initial_state[NX] = { "
                 + ", ".join(repr(float(v)) for v in init + [0.0] * nq) + " };")
    lines.append("static const double sympy_params[NP] = { "
                 + ", ".join(repr(chain_specs.G if str(p) == "g" else 1.0) for p in params) + " };")
    lines.append("static void sympy_equations(const double state[], const double param[],\n"
                 "    double out_M[], double out_f[], double out_J[], double out_r[])\n{")
    lines.append("    (void)out_J; (void)out_r;")
    lines += [f"    const double {v} = state[{i}];" for i, v in enumerate(names)]
    lines += [f"    const double {v}_dot = state[{nq + i}];" for i, v in enumerate(names)]
    lines += [f"    const double {p} = param[{i}];" for i, p in enumerate(params)]
    lines += [f"    const double {s} = {sp.ccode(e)};" for s, e in replacements]
    lines += [f"    {name} = {sp.ccode(e)};" for (name, _), e in zip(outs, reduced)]
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    form, n, out_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    t_start = time.perf_counter()
    lm, q, params, nc = (angles_system if form == "angles" else cartesian_system)(n)
    outs = blocks(lm, len(q), nc)
    # Plain symbols for q and q' (derivatives first), as ccode needs.
    plain = {qi.diff(): sp.Symbol(str(qi).replace("(t)", "") + "_dot") for qi in q}
    plain.update({qi: sp.Symbol(str(qi).replace("(t)", "")) for qi in q})
    exprs = [me.msubs(e, plain) for _, e in outs]
    t_derived = time.perf_counter()
    # Temporaries named w: x1.. are coordinates of the Cartesian chain.
    replacements, reduced = sp.cse(exprs, symbols=sp.numbered_symbols("w"))
    t_cse = time.perf_counter()
    text = c_source(form, n, q, params, nc, outs, reduced, replacements)
    t_ccode = time.perf_counter()
    with open(out_path, "w") as f:
        f.write(text)
    ops = sp.count_ops([e for _, e in replacements] + list(reduced))
    print(json.dumps({"import": t_start - T0, "derive": t_derived - t_start, "cse": t_cse - t_derived,
                      "ccode": t_ccode - t_cse, "total": t_ccode - t_start, "count_ops": int(ops)}))


main()
