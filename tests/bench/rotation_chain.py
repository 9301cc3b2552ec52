"""rotation_chain.py — an N-link planar chain (relative angles q1..qN, a
point mass at the end of each link) written two ways: its link
orientations as [definitions] that chain like rotations (c_k = c_{k-1}
cos q_k - s_{k-1} sin q_k, ...), and the same chain as [frames]. Issue 29
measured the first at 46-50 s for 12 links (x5 per two links), the second
under a second.

    python3 rotation_chain.py N definitions|frames > chain.toml
"""
import sys


def header(n, form):
    coords = ", ".join(f'"q{k}"' for k in range(1, n + 1))
    initial = "\n".join(f"q{k} = 0.1" for k in range(1, n + 1))
    return f'''name = "chain_{form}{n}"
title = "{n}-link planar chain, its orientations as {form}"
coordinates = [{coords}]
gravity = "-g*N.y"

[parameters]
m = 1.0
l = 1.0
g = 9.81

[initial]
{initial}
'''


def definitions(n):
    lines = ['c1 = "cos(q1)"', 's1 = "sin(q1)"', 'p1 = "l*c1*N.x + l*s1*N.y"']
    for k in range(2, n + 1):
        lines.append(f'c{k} = "c{k-1}*cos(q{k}) - s{k-1}*sin(q{k})"')
        lines.append(f's{k} = "s{k-1}*cos(q{k}) + c{k-1}*sin(q{k})"')
        lines.append(f'p{k} = "p{k-1} + l*c{k}*N.x + l*s{k}*N.y"')
    particles = "".join(f'\n[particles.m{k}]\nmass = "m"\npoint = "p{k}"\n' for k in range(1, n + 1))
    return header(n, "definitions") + "\n[definitions]\n" + "\n".join(lines) + "\n" + particles


def frames(n):
    lines = ['L1 = "N z(q1)"'] + [f'L{k} = "L{k-1} z(q{k})"' for k in range(2, n + 1)]
    points = ['P1 = "l*L1.x"'] + [f'P{k} = "P{k-1} + l*L{k}.x"' for k in range(2, n + 1)]
    particles = "".join(f'\n[particles.m{k}]\nmass = "m"\npoint = "P{k}"\n' for k in range(1, n + 1))
    return (header(n, "frames") + "\n[frames]\n" + "\n".join(lines) + "\n\n[points]\n" + "\n".join(points) + "\n" +
            particles)


if __name__ == "__main__":
    n, form = int(sys.argv[1]), sys.argv[2]
    sys.stdout.write({"definitions": definitions, "frames": frames}[form](n))
