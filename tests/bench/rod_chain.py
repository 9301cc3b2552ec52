"""rod_chain.py — one planar N-link chain of uniform rods, written four ways: lagrangec specs in absolute
angles, relative joint angles and Cartesian coordinates, as bodies in relative joint angles, and a MuJoCo
model (MJCF); `simbody` describes the bodies writing for Simbody (simbody_adapter.cpp).

Usage: /usr/bin/python3 rod_chain.py absolute|relative|cartesian|bodies|mjcf N OUT [NAME]
(the build writes the oracle test's models with it, NAME renaming a spec; mujoco_bench.py imports it).

Link i is a uniform thin rod of mass m_i and length l_i from joint P_(i-1) to P_i (P_0 the fixed pivot),
at angle theta_i from the downward vertical: P_i = P_(i-1) + l_i (sin theta_i, -cos theta_i). Its kinetic
energy is m_i/2 |v_centre|^2 + I_i/2 theta_i'^2 with I_i = m_i l_i^2/12, which in the rod's end points is
m_i/6 (|v_(i-1)|^2 + v_(i-1).v_i + |v_i|^2): a constant mass matrix for the Cartesian writing. Rods,
not point masses: MuJoCo refuses a moving body whose principal inertias are not all positive.
Relative angles phi_i = theta_i - theta_(i-1) are MuJoCo's hinge angles and how robot arms are written.
The bodies writing declares the same rods as [bodies] on frames L_i = L_(i-1) z(ph_i), the rod along -L_i.y,
and leaves T and V to the generator.
"""
import math
import sys

G = 9.81
WRITINGS = ("absolute", "relative", "cartesian", "bodies")
PREFIX = {"absolute": "rod_a", "relative": "rod_r", "cartesian": "rod_c", "bodies": "rod_b", "mjcf": "rod_m"}


def mass(i):
    """Masses and lengths differ from link to link, so an oracle sees a swapped index."""
    return (1.0, 1.5, 2.0)[(i - 1) % 3]


def length(i):
    return (1.0, 0.9, 0.8, 0.7)[(i - 1) % 4]


def joint_angle(i):
    """The benchmark state, in MuJoCo's hinge angles (absolute angles 0.1 + 0.05 i, as chain_specs.py)."""
    return 0.15 if i == 1 else 0.05


def joint_rate(i):
    return (0.3, -0.2, 0.1, 0.0)[(i - 1) % 4]


def absolute_state(n):
    """(theta, theta') of the benchmark state: cumulative sums of the joint angles and rates."""
    theta, rate = [], []
    for i in range(1, n + 1):
        theta.append(joint_angle(i) + (theta[-1] if theta else 0.0))
        rate.append(joint_rate(i) + (rate[-1] if rate else 0.0))
    return theta, rate


def cartesian_state(n):
    """(x_i, y_i) and (x_i', y_i') of the joints P_i at the benchmark state."""
    theta, rate = absolute_state(n)
    x = y = vx = vy = 0.0
    pos, vel = [], []
    for i in range(1, n + 1):
        s, c, l = math.sin(theta[i - 1]), math.cos(theta[i - 1]), length(i)
        x, y = x + l * s, y - l * c
        vx, vy = vx + l * c * rate[i - 1], vy + l * s * rate[i - 1]
        pos.append((x, y))
        vel.append((vx, vy))
    return pos, vel


def _parameters(n):
    lines = [f"m{i} = {mass(i)!r}" for i in range(1, n + 1)]
    lines += [f"l{i} = {length(i)!r}" for i in range(1, n + 1)]
    return "\n".join(lines + [f"g = {G!r}"])


def _angle_spec(name, title, coords, angle, rate, initial, velocity):
    """T and V of the chain in angles; angle(i) and rate(i) are link i's absolute angle and its rate."""
    n = len(coords)
    kinetic, potential = [], []
    for i in range(1, n + 1):
        # The centre of rod i: the joints before it, then half of it.
        terms = [(f"l{j}", j) for j in range(1, i)] + [(f"l{i}/2", i)]
        vx = " + ".join(f"{l}*cos({angle(j)})*({rate(j)})" for l, j in terms)
        vy = " + ".join(f"{l}*sin({angle(j)})*({rate(j)})" for l, j in terms)
        y = " + ".join(f"{l}*cos({angle(j)})" for l, j in terms)
        kinetic.append(f"m{i}*(({vx})^2 + ({vy})^2)/2 + m{i}*l{i}^2*({rate(i)})^2/24")
        potential.append(f"-g*m{i}*({y})")
    names = ", ".join(f'"{c}"' for c in coords)
    init = "\n".join(f"{c} = {v!r}" for c, v in zip(coords, initial))
    vel = "\n".join(f"{c} = {v!r}" for c, v in zip(coords, velocity))
    return f'''name = "{name}"
title = "{title}"
coordinates = [{names}]
kinetic = "{' + '.join(kinetic)}"
potential = "{' + '.join(potential)}"

[parameters]
{_parameters(n)}

[initial]
{init}

[initial.velocity]
{vel}
'''


def absolute_spec(n, name):
    theta, rate = absolute_state(n)
    return _angle_spec(name, f"{n}-link chain of uniform rods in absolute angles",
                       [f"th{i}" for i in range(1, n + 1)], lambda j: f"th{j}", lambda j: f"th{j}'",
                       theta, rate)


def relative_spec(n, name):
    """Link i's absolute angle is ph1 + ... + phi, written out as a robot arm's kinematics would."""
    return _angle_spec(name, f"{n}-link chain of uniform rods in relative joint angles",
                       [f"ph{i}" for i in range(1, n + 1)],
                       lambda j: " + ".join(f"ph{k}" for k in range(1, j + 1)),
                       lambda j: " + ".join(f"ph{k}'" for k in range(1, j + 1)),
                       [joint_angle(i) for i in range(1, n + 1)], [joint_rate(i) for i in range(1, n + 1)])


def bodies_spec(n, name):
    """Rod i on frame L_i (L_0 = N): from joint P_(i-1) along -L_i.y, inertia m_i l_i^2/12 about L_i.x and L_i.z."""
    frames = "\n".join(f'L{i} = "{"N" if i == 1 else f"L{i - 1}"} z(ph{i})"' for i in range(1, n + 1))
    joint = lambda i: "0*N.x" if i == 0 else f"P{i}"
    points = "\n".join(f'P{i} = "{joint(i - 1)} - l{i}*L{i}.y"\nG{i} = "{joint(i - 1)} - l{i}/2*L{i}.y"'
                       for i in range(1, n + 1))
    bodies = "\n".join(f'''[bodies.rod{i}]
mass = "m{i}"
frame = "L{i}"
centre = "G{i}"
inertia = ["m{i}*l{i}^2/12", 0, "m{i}*l{i}^2/12"]
''' for i in range(1, n + 1))
    coords = [f"ph{i}" for i in range(1, n + 1)]
    init = "\n".join(f"ph{i} = {joint_angle(i)!r}" for i in range(1, n + 1))
    vel = "\n".join(f"ph{i} = {joint_rate(i)!r}" for i in range(1, n + 1))
    return f'''name = "{name}"
title = "{n}-link chain of uniform rods as bodies in relative joint angles"
coordinates = [{", ".join(f'"{c}"' for c in coords)}]
gravity = "-g*N.y"

[parameters]
{_parameters(n)}

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


def cartesian_spec(n, name):
    """The joints x_i, y_i with the N rod lengths as holonomic constraints."""
    def rod_kinetic(i):
        if i == 1:
            return "m1*(x1'^2 + y1'^2)/6"
        a, b = i - 1, i
        return (f"m{i}*(x{a}'^2 + y{a}'^2 + x{a}'*x{b}' + y{a}'*y{b}' + x{b}'^2 + y{b}'^2)/6")

    def rod_height(i):
        return "g*m1*y1/2" if i == 1 else f"g*m{i}*(y{i - 1} + y{i})/2"

    pos, vel = cartesian_state(n)
    coords = ", ".join(f'"x{i}", "y{i}"' for i in range(1, n + 1))
    cons = ['"x1^2 + y1^2 - l1^2"'] + [f'"(x{i} - x{i - 1})^2 + (y{i} - y{i - 1})^2 - l{i}^2"'
                                       for i in range(2, n + 1)]
    init = "\n".join(f"x{i} = {x!r}\ny{i} = {y!r}" for i, (x, y) in enumerate(pos, 1))
    velocity = "\n".join(f"x{i} = {x!r}\ny{i} = {y!r}" for i, (x, y) in enumerate(vel, 1))
    return f'''name = "{name}"
title = "{n}-link chain of uniform rods in Cartesian coordinates"
coordinates = [{coords}]
kinetic = "{' + '.join(rod_kinetic(i) for i in range(1, n + 1))}"
potential = "{' + '.join(rod_height(i) for i in range(1, n + 1))}"

[parameters]
{_parameters(n)}

[constraints]
holonomic = [{", ".join(cons)}]

[initial]
{init}

[initial.velocity]
{velocity}

[stabilization]
alpha = 10.0
beta = 25.0
'''


# What mujoco_bench.py and the oracle say about the model; MJCF's names for the options.
MJCF_DISABLED = ("constraint", "contact", "equality", "frictionloss", "limit", "passive", "actuation",
                 "clampctrl", "warmstart", "sensor", "refsafe", "filterparent")


def mjcf(n, name, timestep=1e-3):
    """Hinges about -y (so a positive angle moves the chain towards +x, as in the specs), the rods'
    centres and inertias in <inertial>, no geoms (nothing to collide, nothing to draw), gravity along -z,
    RK4, and everything the chain does not need disabled. Key 0 is the benchmark state."""
    def body(i, indent):
        pad = " " * indent
        m, l = mass(i), length(i)
        inertia = m * l * l / 12  # about the rod's centre; only the y component acts in the plane,
        # the x and z ones (0 for a thin rod) must be positive in MuJoCo and change nothing here
        pos = "0 0 0" if i == 1 else f"0 0 {-length(i - 1)!r}"
        inner = "" if i == n else body(i + 1, indent + 2)
        moments = f"{inertia!r} {inertia!r} {inertia!r}"
        return (f'{pad}<body name="link{i}" pos="{pos}">\n'
                f'{pad}  <joint name="ph{i}" type="hinge" axis="0 -1 0"/>\n'
                f'{pad}  <inertial pos="0 0 {-l / 2!r}" mass="{m!r}" diaginertia="{moments}"/>\n'
                f'{inner}{pad}</body>\n')

    flags = " ".join(f'{f}="disable"' for f in MJCF_DISABLED)
    qpos = " ".join(repr(joint_angle(i)) for i in range(1, n + 1))
    qvel = " ".join(repr(joint_rate(i)) for i in range(1, n + 1))
    return f'''<mujoco model="{name}">
  <!-- {n}-link chain of uniform rods: tests/bench/rod_chain.py -->
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
    """The bodies writing for simbody_adapter.cpp: rod i's frame is L_i with its origin at P_(i-1), a pin about
    its z axis at (0, -l_(i-1), 0) in its parent's frame, its centre at (0, -l_i/2, 0), m_i l_i^2/12 about its x
    and z axes (0 about its own line), gravity along -y."""
    lines = [f"gravity 0 {-G!r} 0"]
    for i in range(1, n + 1):
        m, l = mass(i), length(i)
        joint = f"0 {-length(i - 1)!r} 0" if i > 1 else "0 0 0"
        inertia = m * l * l / 12
        lines.append(f"pin z {joint} {m!r} 0 {-l / 2!r} 0 {inertia!r} 0.0 {inertia!r} 0.0 0.0 0.0 "
                     f"{joint_angle(i)!r} {joint_rate(i)!r}")
    return "\n".join(lines) + "\n"


def name(writing, n):
    """rod_aN, rod_rN, rod_cN, and rod_mN for MuJoCo's."""
    return f"{PREFIX[writing]}{n}"


def text(writing, n, model_name=None):
    return {"absolute": absolute_spec, "relative": relative_spec, "cartesian": cartesian_spec,
            "bodies": bodies_spec, "mjcf": mjcf}[writing](n, model_name or name(writing, n))


def write(directory, writing, n):
    """Writes one model; returns (name, path)."""
    path = f"{directory}/{name(writing, n)}.{'xml' if writing == 'mjcf' else 'toml'}"
    with open(path, "w") as f:
        f.write(text(writing, n))
    return name(writing, n), path


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in PREFIX:
        sys.exit(__doc__)
    with open(sys.argv[3], "w") as out:
        out.write(text(sys.argv[1], int(sys.argv[2]), sys.argv[4] if len(sys.argv) == 5 else None))
