"""spatial_arm.py — an N-link spatial arm of rigid bodies in relative joint angles whose joint axes
alternate, as a 3D robot arm's do, written as a lagrangec spec, a MuJoCo model (MJCF) or
simbody_adapter.cpp's description for Simbody.

Usage: /usr/bin/python3 spatial_arm.py spec|mjcf N OUT [NAME]

Link i turns from link i-1 (N for link 1) about its z axis when i is odd and its y axis when i is even:
frames L_i = "L(i-1) z(q_i)" or "L(i-1) y(q_i)". It reaches from joint P_(i-1) (P_0 the fixed base) to
P_i = P_(i-1) + l_i L_i.x, its centre of mass off that line at G_i = P_(i-1) + l_i/2 L_i.x + e_i L_i.y,
and its inertia about the centre is a full tensor in L_i's axes (principal axes turned off L_i's, so every
product of inertia is nonzero). Gravity is -g N.z. Masses, lengths and inertias differ from link to link, so an oracle sees a
swapped index. No two consecutive joint axes are parallel: there are no turns about one axis to merge.
"""
import math
import sys

G = 9.81


def axis(i):
    """Joint i's axis letter: z for odd i, y for even i."""
    return "z" if i % 2 else "y"


def mass(i):
    return (1.0, 1.5, 2.0)[(i - 1) % 3]


def length(i):
    return (1.0, 0.9, 0.8, 0.7)[(i - 1) % 4]


def offset(i):
    """The centre's distance from the link's line, along L_i.y."""
    return (0.05, -0.03, 0.02)[(i - 1) % 3]


def principal(i):
    """Link i's principal moments about its centre (a rod's, thickened) and the turn of its principal
    axes in L_i: z by a, then x by b (intrinsic)."""
    m, l = mass(i), length(i)
    return (0.01 * m, m * l * l / 12, m * l * l / 12 + 0.005 * m), (0.3 + 0.1 * i, -0.2 + 0.05 * (i % 4))


def _turn(i):
    """R = R_z(a) R_x(b): principal-axis components to L_i's."""
    _, (a, b) = principal(i)
    rz = ((math.cos(a), -math.sin(a), 0.0), (math.sin(a), math.cos(a), 0.0), (0.0, 0.0, 1.0))
    rx = ((1.0, 0.0, 0.0), (0.0, math.cos(b), -math.sin(b)), (0.0, math.sin(b), math.cos(b)))
    return [[sum(rz[r][k] * rx[k][c] for k in range(3)) for c in range(3)] for r in range(3)]


def inertia(i):
    """The tensor about the centre in L_i's axes, R diag(moments) R^T: every product of inertia nonzero."""
    moments, _ = principal(i)
    R = _turn(i)
    return tuple(tuple(sum(R[r][k] * moments[k] * R[c][k] for k in range(3)) for c in range(3)) for r in range(3))


def _quaternion(i):
    """MuJoCo's quat (w x y z) of the principal axes in the body frame: q_z(a) q_x(b)."""
    _, (a, b) = principal(i)
    cz, sz, cx, sx = math.cos(a / 2), math.sin(a / 2), math.cos(b / 2), math.sin(b / 2)
    return (cz * cx, cz * sx, sz * sx, sz * cx)


def joint_angle(i):
    return (0.3, -0.2, 0.4, 0.1, -0.5)[(i - 1) % 5]


def joint_rate(i):
    return (0.5, -0.3, 0.2, 0.0, 0.4)[(i - 1) % 5]


def _inertia_names(i):
    return ((f"Ixx{i}", f"Ixy{i}", f"Ixz{i}"), (f"Ixy{i}", f"Iyy{i}", f"Iyz{i}"), (f"Ixz{i}", f"Iyz{i}", f"Izz{i}"))


def spec(n, name):
    params = []
    for i in range(1, n + 1):
        params += [f"m{i} = {mass(i)!r}", f"l{i} = {length(i)!r}", f"e{i} = {offset(i)!r}"]
        t = inertia(i)
        params += [f"Ixx{i} = {t[0][0]!r}", f"Iyy{i} = {t[1][1]!r}", f"Izz{i} = {t[2][2]!r}",
                   f"Ixy{i} = {t[0][1]!r}", f"Ixz{i} = {t[0][2]!r}", f"Iyz{i} = {t[1][2]!r}"]
    params.append(f"g = {G!r}")
    frames = "\n".join(f'L{i} = "{"N" if i == 1 else f"L{i - 1}"} {axis(i)}(q{i})"' for i in range(1, n + 1))
    joint = lambda i: "0*N.x" if i == 0 else f"P{i}"
    points = "\n".join(f'P{i} = "{joint(i - 1)} + l{i}*L{i}.x"\nG{i} = "{joint(i - 1)} + l{i}/2*L{i}.x + e{i}*L{i}.y"'
                       for i in range(1, n + 1))
    bodies = "\n".join(f'''[bodies.link{i}]
mass = "m{i}"
frame = "L{i}"
centre = "G{i}"
inertia = [{", ".join("[" + ", ".join(f'"{x}"' for x in row) + "]" for row in _inertia_names(i))}]
''' for i in range(1, n + 1))
    coords = ", ".join(f'"q{i}"' for i in range(1, n + 1))
    init = "\n".join(f"q{i} = {joint_angle(i)!r}" for i in range(1, n + 1))
    vel = "\n".join(f"q{i} = {joint_rate(i)!r}" for i in range(1, n + 1))
    nl = "\n"
    return f'''name = "{name}"
title = "{n}-link spatial arm of bodies, joint axes alternating z and y"
coordinates = [{coords}]
gravity = "-g*N.z"

[parameters]
{nl.join(params)}

[frames]
{frames}

[points]
{points}

{bodies}
[initial]
{init}

[initial.velocity]
{vel}
'''


def mjcf(n, name, timestep=1e-3):
    """The same arm: body i's frame is L_i, placed at P_(i-1) in its parent's frame, a hinge about its
    z or y axis, the inertia as principal moments in axes turned by a quaternion (MuJoCo diagonalises a
    fullinertia itself, to about 1e-7), nothing to collide, RK4."""
    flags = " ".join(f'{f}="disable"' for f in ("constraint", "contact", "equality", "frictionloss", "limit",
                                                  "passive", "actuation", "clampctrl", "warmstart", "sensor",
                                                  "refsafe", "filterparent"))

    def body(i, indent):
        pad = " " * indent
        pos = "0 0 0" if i == 1 else f"{length(i - 1)!r} 0 0"
        ax = "0 0 1" if axis(i) == "z" else "0 1 0"
        moments = " ".join(repr(x) for x in principal(i)[0])
        quat = " ".join(repr(x) for x in _quaternion(i))
        inner = "" if i == n else body(i + 1, indent + 2)
        return (f'{pad}<body name="link{i}" pos="{pos}">\n'
                f'{pad}  <joint name="q{i}" type="hinge" axis="{ax}"/>\n'
                f'{pad}  <inertial pos="{length(i) / 2!r} {offset(i)!r} 0" quat="{quat}" mass="{mass(i)!r}" '
                f'diaginertia="{moments}"/>\n'
                f'{inner}{pad}</body>\n')

    qpos = " ".join(repr(joint_angle(i)) for i in range(1, n + 1))
    qvel = " ".join(repr(joint_rate(i)) for i in range(1, n + 1))
    return f'''<mujoco model="{name}">
  <!-- {n}-link spatial arm: tests/bench/spatial_arm.py -->
  <compiler angle="radian" inertiafromgeom="false"/>
  <option timestep="{timestep!r}" integrator="RK4" gravity="0 0 {-G!r}">
    <flag {flags}/>
  </option>
  <worldbody>
{body(1, 4)}  </worldbody>
  <keyframe>
    <key name="bench" qpos="{qpos}" qvel="{qvel}"/>
  </keyframe>
</mujoco>
'''


def simbody(n):
    """The same arm for simbody_adapter.cpp: body i's frame is L_i with its origin at P_(i-1), a pin about its z
    or y axis at (l_(i-1), 0, 0) in its parent's frame, its centre at (l_i/2, e_i, 0), the full tensor about it."""
    lines = [f"gravity 0 0 {-G!r}"]
    for i in range(1, n + 1):
        joint = f"{length(i - 1)!r} 0 0" if i > 1 else "0 0 0"
        t = inertia(i)
        moments = " ".join(repr(x) for x in (t[0][0], t[1][1], t[2][2], t[0][1], t[0][2], t[1][2]))
        lines.append(f"pin {axis(i)} {joint} {mass(i)!r} {length(i) / 2!r} {offset(i)!r} 0 {moments} "
                     f"{joint_angle(i)!r} {joint_rate(i)!r}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in ("spec", "mjcf"):
        sys.exit(__doc__)
    n = int(sys.argv[2])
    model = sys.argv[4] if len(sys.argv) == 5 else f"arm3d_{n}"
    with open(sys.argv[3], "w") as out:
        out.write((spec if sys.argv[1] == "spec" else mjcf)(n, model))
