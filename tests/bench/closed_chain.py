"""closed_chain.py — a planar N-link chain of rods as bodies (rod_chain.py's bodies writing, relative joint
angles) whose tip is pinned where the benchmark state puts it: two holonomic rows, a closed loop of N - 2
degrees of freedom; or, with `knife`, a knife edge at the tip instead (its velocity across the last rod 0,
one nonholonomic row). For the constrained trees on the articulated-body recursion (docs/theory.md §9):
their tests' specs (tests/gen/specs/closed_chain.toml, knife_chain.toml) and the rhs benchmark at N = 10,
20, 50.

Usage: /usr/bin/python3 closed_chain.py N OUT [--name NAME] [--form recursion|dense] [--knife]
"""
import argparse

import rod_chain


def closed_chain_spec(n, name, form=None, knife=False):
    spec = rod_chain.bodies_spec(n, name)
    spec = spec.replace(f'title = "{n}-link chain of uniform rods as bodies in relative joint angles"',
                        f'title = "{n}-link chain of uniform rods as bodies in relative joint angles, '
                        + ('a knife edge at its tip' if knife else 'its tip pinned: a closed loop') + '"')
    if form:
        spec = spec.replace('gravity = "-g*N.y"', f'gravity = "-g*N.y"\nform = "{form}"')
    if knife:
        rows = f'[constraints]\nnonholonomic = ["dot(vel(P{n}), L{n}.x)"]\n\n'
    else:
        (x, y) = rod_chain.cartesian_state(n)[0][-1]
        spec = spec.replace("[frames]", f"X = {x!r}\nY = {y!r}\n\n[frames]")
        rows = f'[constraints]\nholonomic = ["dot(P{n}, N.x) - X", "dot(P{n}, N.y) - Y"]\n\n'
    spec = spec.replace("[initial]\n", rows + "[initial]\n")
    # At rest: on the rows' velocity level.
    head, _, _ = spec.partition("[initial.velocity]")
    return head.rstrip() + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--name", default=None)
    ap.add_argument("--form", choices=("recursion", "dense"))
    ap.add_argument("--knife", action="store_true")
    a = ap.parse_args()
    name = a.name or ("knife_chain" if a.knife else "closed_chain") + str(a.n)
    with open(a.out, "w") as f:
        f.write(closed_chain_spec(a.n, name, a.form, a.knife))


if __name__ == "__main__":
    main()
