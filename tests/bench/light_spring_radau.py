"""light_spring_radau.py — the lightly damped stiff spring (specs/spring_pendulum_light.toml)
under a fully implicit method: SciPy's Radau, the three-stage Radau IIA of order 5 (a port of
Hairer and Wanner's RADAU5), which SUNDIALS does not have. The companion of
light_spring_sundials.c: the same equations by hand, t = 10, atol = rtol / 1000, the error at
t = 10 against DOP853 at rtol 1e-13. Prints, for Radau and SciPy's BDF, the steps, the rhs
evaluations (without the Jacobian's, which is given), the Jacobians and LU factors, the Newton
failures, the error, and h·omega over the steps after t = 0.5 (the ringing is gone by then).

    apt-get install python3-scipy
    /usr/bin/python3 -B tests/bench/light_spring_radau.py [RTOL]     (default 1e-6)
"""
import math
import statistics
import sys

import numpy as np
import scipy
from scipy.integrate import BDF, DOP853, Radau
from scipy.integrate._ivp import radau as radau_module

# The spec's parameters and initial state: 1000 rad/s along the spring, damping ratio 0.1,
# a 3.13 rad/s swing from 0.5 rad.
M, G, L, K, C = 1.0, 9.81, 1.0, 1.0e6, 200.0
OMEGA = math.sqrt(K / M)
X0 = np.array([0.48421979399024506, -0.8863583875092765, 0.0, 0.0])
T_END = 10.0


def spring(t, s):
    x, y, vx, vy = s
    r2 = x * x + y * y
    along = K * (math.sqrt(r2) - L) / math.sqrt(r2) + C * (x * vx + y * vy) / r2  # spring and damper over r
    return np.array([vx, vy, -along * x / M, -G - along * y / M])


def jacobian(t, s):
    """df/dx by forward differences, outside the counted evaluations (as CVODE's would be)."""
    f0 = spring(t, s)
    out = np.empty((4, 4))
    for i in range(4):
        e = s.copy()
        d = 1e-7 * max(1.0, abs(e[i]))
        e[i] += d
        out[:, i] = (spring(t, e) - f0) / d
    return out


def newton_failures_counted():
    """Wraps Radau's collocation solve to count its failed Newton iterations."""
    count = [0]
    solve = radau_module.solve_collocation_system

    def counted(*args, **kwargs):
        result = solve(*args, **kwargs)
        count[0] += not result[0]
        return result

    radau_module.solve_collocation_system = counted
    return count


def integrate(method, rtol, **options):
    calls = [0]

    def counted(t, s):
        calls[0] += 1
        return spring(t, s)

    solver = method(counted, 0.0, X0.copy(), T_END, rtol=rtol, atol=rtol / 1000, **options)
    steps, late_steps = 0, []
    while solver.status == "running":
        solver.step()
        steps += 1
        if solver.t > 0.5:
            late_steps.append(solver.step_size * OMEGA)
    if solver.status != "finished":
        sys.exit(f"{method.__name__} failed at t = {solver.t}: {solver.status}")
    return solver, steps, calls[0], late_steps


def main():
    rtol = float(sys.argv[1]) if len(sys.argv) > 1 else 1e-6
    reference, _, _, _ = integrate(DOP853, 1e-13)
    failures = newton_failures_counted()
    print(f"SciPy {scipy.__version__}, rtol {rtol:g}, atol {rtol / 1000:g}, t = {T_END:g}")
    print("method\tsteps\trhs\tjacobians\tLU\tNewton failures\terror\th*omega after t = 0.5 (median, 10-90 %)")
    for method in (Radau, BDF):
        failures[0] = 0
        solver, steps, rhs, late = integrate(method, rtol, jac=jacobian)
        error = np.max(np.abs(solver.y - reference.y))
        deciles = statistics.quantiles(late, n=10)
        print(f"{method.__name__}\t{steps}\t{rhs}\t{solver.njev}\t{solver.nlu}\t"
              f"{failures[0] if method is Radau else '-'}\t{error:.1e}\t"
              f"{statistics.median(late):.2f} ({deciles[0]:.2f}-{deciles[-1]:.2f})")


if __name__ == "__main__":
    main()
