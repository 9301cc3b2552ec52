"""chain_specs.py — the N-link planar pendulum chain as lagrangec specs, in angles and in Cartesian coordinates."""
import math

# Link i hangs at angle ANGLE(i) from the downward vertical, so no two rows
# of the rhs see the same numbers; masses, lengths and g are the same as in
# sympy_chain.py.
G = 9.81


def angle(i):
    return round(0.1 + 0.05 * i, 4)


def _params(n):
    lines = [f"m{i} = 1.0" for i in range(1, n + 1)]
    lines += [f"l{i} = 1.0" for i in range(1, n + 1)]
    return "\n".join(lines + [f"g = {G}"])


def angles_spec(n):
    """Point masses m_i on massless links l_i, coordinates th1..thN."""
    name = f"chain_a{n}"
    coords = ", ".join(f'"th{i}"' for i in range(1, n + 1))
    kinetic, potential = [], []
    for i in range(1, n + 1):
        vx = " + ".join(f"l{j}*cos(th{j})*th{j}'" for j in range(1, i + 1))
        vy = " + ".join(f"l{j}*sin(th{j})*th{j}'" for j in range(1, i + 1))
        y = " + ".join(f"l{j}*cos(th{j})" for j in range(1, i + 1))
        kinetic.append(f"m{i}*(({vx})^2 + ({vy})^2)/2")
        potential.append(f"-g*m{i}*({y})")
    initial = "\n".join(f"th{i} = {angle(i)!r}" for i in range(1, n + 1))
    return name, f'''name = "{name}"
title = "{n}-link planar pendulum chain in its angles"
coordinates = [{coords}]
kinetic = "{' + '.join(kinetic)}"
potential = "{' + '.join(potential)}"

[parameters]
{_params(n)}

[initial]
{initial}
'''


def cartesian_positions(n):
    """(x_i, y_i) of the masses at the angles above."""
    x = y = 0.0
    out = []
    for i in range(1, n + 1):
        x += math.sin(angle(i))
        y -= math.cos(angle(i))
        out.append((x, y))
    return out


def cartesian_spec(n):
    """The same chain in x1, y1 .. xN, yN with N length constraints."""
    name = f"chain_c{n}"
    coords = ", ".join(f'"x{i}", "y{i}"' for i in range(1, n + 1))
    kinetic = " + ".join(f"m{i}*(x{i}'^2 + y{i}'^2)/2" for i in range(1, n + 1))
    potential = " + ".join(f"g*m{i}*y{i}" for i in range(1, n + 1))
    cons = ['"x1^2 + y1^2 - l1^2"']
    cons += [f'"(x{i} - x{i-1})^2 + (y{i} - y{i-1})^2 - l{i}^2"' for i in range(2, n + 1)]
    initial = "\n".join(f"x{i} = {x!r}\ny{i} = {y!r}"
                        for i, (x, y) in enumerate(cartesian_positions(n), 1))
    return name, f'''name = "{name}"
title = "{n}-link planar pendulum chain in Cartesian coordinates"
coordinates = [{coords}]
kinetic = "{kinetic}"
potential = "{potential}"

[parameters]
{_params(n)}

[constraints]
holonomic = [{", ".join(cons)}]

[initial]
{initial}

[stabilization]
alpha = 10.0
beta = 25.0
'''


def write(directory, form, n):
    """Writes the spec of `form` ('angles' or 'cartesian') and returns (name, path)."""
    name, text = (angles_spec if form == "angles" else cartesian_spec)(n)
    path = f"{directory}/{name}.toml"
    with open(path, "w") as f:
        f.write(text)
    return name, path
