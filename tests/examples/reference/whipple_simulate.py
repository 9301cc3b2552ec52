#!/usr/bin/python3
"""Nonlinear runs of the Whipple bicycle (the model of whipple_nonlinear.py,
in IEEE double, scipy DOP853 at rtol 1e-11): upright straight running at
speed V with an initial roll phi0 (thetaB = 0 stays consistent: with the steer
at zero the bicycle rolls about the line through both contacts).  Prints roll
and steer at a few times, the largest |phi| over the run, and the constraint
drift -- the data for issue 15's "recovers inside the self-stable range, falls
outside it" test.  Run: /usr/bin/python3 whipple_simulate.py  (about 13 min on 2 cores)
"""
import sys

import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

import whipple_nonlinear as wn
import benchmark_linear as bl

P = bl.params("float")
PARV = [P[k] for k in wn.par_names]
fM = sp.lambdify(wn.args, wn.Mexpr, "numpy", cse=True)
fh = sp.lambdify(wn.args, wn.hexpr - wn.Qexpr, "numpy", cse=True)
fC = sp.lambdify(wn.args, wn.Cexpr, "numpy", cse=True)
fc = sp.lambdify(wn.args, wn.cexpr, "numpy", cse=True)
fphi = sp.lambdify(wn.args, wn.phi_h, "numpy", cse=True)


def rhs(t, s):
    q, u = s[:8], s[8:]
    a = list(q) + list(u) + PARV
    M = np.array(fM(*a), dtype=float)
    h = np.array(fh(*a), dtype=float).ravel()
    C = np.array(fC(*a), dtype=float)
    c = np.array(fc(*a), dtype=float).ravel()
    K = np.block([[M, -C.T], [C, np.zeros((5, 5))]])
    sol = np.linalg.solve(K, np.concatenate([-h, -c]))
    return np.concatenate([u, sol[:8]])


def run(V, phi0, t_end, times):
    q0 = np.zeros(8)
    q0[3] = phi0
    u0 = np.zeros(8)
    u0[0], u0[5], u0[7] = V, -V / P["rR"], -V / P["rF"]
    s0 = np.concatenate([q0, u0])
    sol = solve_ivp(rhs, (0, t_end), s0, method="DOP853", rtol=1e-11, atol=1e-12,
                    dense_output=True, max_step=0.01)
    tt = np.linspace(0, t_end, 2001)
    S = sol.sol(tt)
    drift_h = max(abs(fphi(*(list(S[:8, k]) + [0] * 8 + PARV))) for k in range(0, 2001, 50))
    drift_g = max(np.max(np.abs(np.array(fC(*(list(S[:8, k]) + [0] * 8 + PARV)), dtype=float) @ S[8:, k]))
                  for k in range(0, 2001, 50))
    print(f"V = {V} m/s, phi0 = {phi0} rad ({sol.nfev} evaluations)")
    for T in times:
        s = sol.sol(T)
        print(f"   t = {T:5.1f} s: phi = {s[3]: .10f}  delta = {s[6]: .10f}  thetaB = {s[4]: .3e}"
              f"  psi = {s[2]: .6f}  x' = {s[8]: .8f}")
    print(f"   max |phi| on [0, {t_end}] = {np.max(np.abs(S[3])):.6f}; on the last second "
          f"{np.max(np.abs(S[3, tt >= t_end - 1])):.3e}; constraint drift |phi_h| {drift_h:.1e}, |g| {drift_g:.1e}")
    return sol


if __name__ == "__main__":
    run(5.0, 0.03, 20.0, [0.5, 1, 2, 5, 10, 20])      # inside (v_w, v_c): recovers
    run(3.0, 0.03, 3.0, [0.5, 1, 2, 3])               # below v_w: weave grows (re = +1.71 /s)
    run(7.0, 0.03, 20.0, [0.5, 1, 2, 5, 10, 20])      # above v_c: capsize (re = +0.103 /s) falls slowly
    sys.exit(0)
