#!/usr/bin/env python3
"""urdf_reference.py — an exact reference for a URDF's dynamics, written from
the URDF specification (wiki.ros.org/urdf/XML) alone, not from lagrangec's
generator: plain Python floats, the standard library's XML reader.

  joint <origin xyz rpy>: the child's frame is the parent's moved by xyz and
    turned by R = Rz(yaw) Ry(pitch) Rx(roll) (fixed axes roll, pitch, yaw),
    then by the joint's motion in that frame: a turn by q about <axis>
    (revolute, continuous), a shift by q along it (prismatic), none (fixed),
    a shift (x, y, z) along the frame's axes and a turn by the unit
    quaternion (w, x, y, z) (floating);
  <inertial>: mass, centre of mass at <origin xyz> in the link's frame, the
    tensor ixx..izz about it in the axes of <origin rpy>;
  the root link is fixed; gravity 9.81 along -z of the root (URDF has none:
    lagrangec's and MuJoCo's choice).

Velocities v: q' of each one-coordinate joint; for a floating joint the rate
of (x, y, z) and the child's angular velocity in its own axes (MuJoCo's free
joint's). M_v = sum over bodies of m Jv^T Jv + Jw^T I Jw (Jv, Jw the
velocity Jacobians of the centre and of the rotation, columns built joint by
joint from the tree); c_v (Coriolis, centrifugal and the weight) = sum of
Jv^T m (a - g) + Jw^T (I alpha + w x I w), a and alpha from an outward
Newton-Euler pass at v' = 0; v' = -M_v^-1 c_v. lagrangec's coordinates put
the quaternion itself in q, with w_body = 2 G(q) q' (G's rows (-x, w, z, -y),
(-y, -z, w, x), (-z, y, -x, w)): J maps q' to v, and in those coordinates
  M = J^T M_v J + q q^T on the quaternion's block (T gets (q.q')^2/2),
  bias = J^T c_v (J' q' = 2 G(q') q' = 0), defined up to a multiple of q on
    the quaternion's block, where the norm's multiplier acts,
  q'' = J^-1 v' on the row: the quaternion's q'' = (q' (x) (0, w) + q (x)
    (0, w'))/2.
The states: one-coordinate joints in [-3, 3] with rates in [-2, 2]; a
floating joint's position in [-1, 1], a unit quaternion, and the angular
velocity in [-2, 2]^3, q' = q (x) (0, w)/2, so every state is on the norm's
row. The same 64-bit linear congruential stream on every machine.

Usage: urdf_reference.py ROBOT.urdf NAME STATES OUTPUT.c — writes the C
table `const urdf_reference NAME_reference` (urdf_reference.h).
"""
import math
import sys
import xml.etree.ElementTree as ET


def floats(text, count, default):
    if text is None:
        return list(default)
    v = [float(s) for s in text.split()]
    assert len(v) == count, text
    return v


def rot_rpy(r, p, y):
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr]]


def rot_axis(a, t):  # Rodrigues
    c, s, k = math.cos(t), math.sin(t), 1 - math.cos(t)
    x, y, z = a
    return [[c + x * x * k, x * y * k - z * s, x * z * k + y * s],
            [y * x * k + z * s, c + y * y * k, y * z * k - x * s],
            [z * x * k - y * s, z * y * k + x * s, c + z * z * k]]


def rot_quat(w, x, y, z):
    return [[w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z]]


def mm(A, B):
    return [[sum(A[i][k] * B[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def mv(A, v):
    return [sum(A[i][k] * v[k] for k in range(3)) for i in range(3)]


def tr(A):
    return [[A[j][i] for j in range(3)] for i in range(3)]


def add(*vs):
    return [sum(c) for c in zip(*vs)]


def sub(a, b):
    return [a[i] - b[i] for i in range(3)]


def scale(s, v):
    return [s * c for c in v]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return [w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2]


class Robot:
    def __init__(self, path):
        root = ET.parse(path).getroot()
        self.links = {}
        for l in root.findall('link'):
            inertial = l.find('inertial')
            body = None
            if inertial is not None:
                o = inertial.find('origin')
                xyz = floats(o.get('xyz') if o is not None else None, 3, [0, 0, 0])
                rpy = floats(o.get('rpy') if o is not None else None, 3, [0, 0, 0])
                m = float(inertial.find('mass').get('value'))
                i = inertial.find('inertia')
                g = {k: float(i.get(k, '0')) for k in ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz')}
                I = [[g['ixx'], g['ixy'], g['ixz']], [g['ixy'], g['iyy'], g['iyz']], [g['ixz'], g['iyz'], g['izz']]]
                R = rot_rpy(*rpy)
                body = (m, xyz, mm(mm(R, I), tr(R)))  # the tensor in the link's axes
            self.links[l.get('name')] = body
        self.joints = []
        children = set()
        for j in root.findall('joint'):
            o = j.find('origin')
            a = j.find('axis')
            axis = floats(a.get('xyz') if a is not None else None, 3, [1, 0, 0])
            n = math.sqrt(dot(axis, axis))
            self.joints.append({
                'name': j.get('name'), 'type': j.get('type'),
                'parent': j.find('parent').get('link'), 'child': j.find('child').get('link'),
                'xyz': floats(o.get('xyz') if o is not None else None, 3, [0, 0, 0]),
                'R': rot_rpy(*floats(o.get('rpy') if o is not None else None, 3, [0, 0, 0])),
                'axis': [c / n for c in axis]})
            children.add(j.find('child').get('link'))
        roots = [n for n in self.links if n not in children]
        assert len(roots) == 1, roots
        self.root = roots[0]
        # Joints in tree order (parents first), each with its velocity columns.
        order, done = [], {self.root}
        while len(order) < len(self.joints):
            for j in self.joints:
                if j not in order and j['parent'] in done:
                    order.append(j)
                    done.add(j['child'])
        self.order = order
        self.parent_joint = {j['child']: j for j in self.joints}
        nv = 0
        for j in self.joints:  # velocity columns in the file's order, as lagrangec's coordinates
            j['v'] = nv
            nv += {'fixed': 0, 'floating': 6}.get(j['type'], 1)
            assert j['type'] in ('revolute', 'continuous', 'prismatic', 'fixed', 'floating'), j['type']
        self.nv = nv

    def coordinates(self):
        """lagrangec's coordinate names, in its order (the file's joints')."""
        names = []
        for j in self.joints:
            if j['type'] == 'floating':
                names += [j['name'] + s for s in ('_x', '_y', '_z', '_qw', '_qx', '_qy', '_qz')]
            elif j['type'] != 'fixed':
                names.append(j['name'])
        return names

    def dynamics(self, pos, vel):
        """pos: joint -> q (a list); vel: joint -> physical rates. M_v, c_v."""
        frame = {self.root: ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0])}
        cols = {self.root: []}  # per link: (column, world angular part, point, world linear part)
        for j in self.order:
            R, o, w, al, vo, ao = frame[j['parent']]
            Rj = mm(R, j['R'])  # the joint frame in the world
            oj = add(o, mv(R, j['xyz']))
            c = list(cols[j['parent']])
            t, q, qd = j['type'], pos[j['name']], vel[j['name']]
            if t in ('revolute', 'continuous'):
                a = mv(Rj, j['axis'])
                Rc, oc = mm(Rj, rot_axis(j['axis'], q[0])), oj
                r = sub(oc, o)
                wc = add(w, scale(qd[0], a))
                alc = add(al, cross(w, scale(qd[0], a)))
                voc = add(vo, cross(w, r))
                aoc = add(ao, cross(al, r), cross(w, cross(w, r)))
                c.append((j['v'], a, oc, [0, 0, 0]))
            elif t == 'prismatic':
                a = mv(Rj, j['axis'])
                Rc, oc = Rj, add(oj, scale(q[0], a))
                r = sub(oc, o)
                wc, alc = w, al
                voc = add(vo, cross(w, r), scale(qd[0], a))
                aoc = add(ao, cross(al, r), cross(w, cross(w, r)), scale(2, cross(w, scale(qd[0], a))))
                c.append((j['v'], [0, 0, 0], oc, a))
            elif t == 'fixed':
                Rc, oc = Rj, oj
                r = sub(oc, o)
                wc, alc = w, al
                voc = add(vo, cross(w, r))
                aoc = add(ao, cross(al, r), cross(w, cross(w, r)))
            else:  # floating: q = (x, y, z, qw, qx, qy, qz); rates (x', y', z', w_body)
                shift = [sum(Rj[i][k] * q[k] for k in range(3)) for i in range(3)]
                dshift = [sum(Rj[i][k] * qd[k] for k in range(3)) for i in range(3)]
                Rc, oc = mm(Rj, rot_quat(*q[3:7])), add(oj, shift)
                r = sub(oc, o)
                wb = mv(Rc, qd[3:6])
                wc = add(w, wb)
                alc = add(al, cross(w, wb))
                voc = add(vo, cross(w, r), dshift)
                aoc = add(ao, cross(al, r), cross(w, cross(w, r)), scale(2, cross(w, dshift)))
                for k in range(3):
                    c.append((j['v'] + k, [0, 0, 0], oc, [Rj[0][k], Rj[1][k], Rj[2][k]]))
                for k in range(3):
                    c.append((j['v'] + 3 + k, [Rc[0][k], Rc[1][k], Rc[2][k]], oc, [0, 0, 0]))
            frame[j['child']] = (Rc, oc, wc, alc, voc, aoc)
            cols[j['child']] = c
        n = self.nv
        M = [[0.0] * n for _ in range(n)]
        cv = [0.0] * n
        g = [0, 0, -9.81]
        for link, body in self.links.items():
            if body is None or link == self.root:
                continue
            m, com, Il = body
            R, o, w, al, vo, ao = frame[link]
            pc = add(o, mv(R, com))
            Iw = mm(mm(R, Il), tr(R))
            rc = sub(pc, o)
            ac = add(ao, cross(al, rc), cross(w, cross(w, rc)))
            f = scale(m, sub(ac, g))
            tau = add(mv(Iw, al), cross(w, mv(Iw, w)))
            Jv, Jw = {}, {}
            for (k, ang, point, lin) in cols[link]:
                Jv[k] = add(lin, cross(ang, sub(pc, point)))
                Jw[k] = ang
            for a in Jv:
                cv[a] += dot(Jv[a], f) + dot(Jw[a], tau)
                Iwa = mv(Iw, Jw[a])
                for b in Jv:
                    M[a][b] += m * dot(Jv[a], Jv[b]) + dot(Jw[b], Iwa)
        return M, cv


def solve(A, b):
    n = len(b)
    A = [row[:] + [b[i]] for i, row in enumerate(A)]
    for k in range(n):
        p = max(range(k, n), key=lambda i: abs(A[i][k]))
        A[k], A[p] = A[p], A[k]
        for i in range(k + 1, n):
            f = A[i][k] / A[k][k]
            for j in range(k, n + 1):
                A[i][j] -= f * A[k][j]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (A[i][n] - sum(A[i][j] * x[j] for j in range(i + 1, n))) / A[i][i]
    return x


class Stream:  # the 64-bit linear congruential stream of test_urdf_mujoco.c
    def __init__(self, seed):
        self.s = seed

    def uniform(self, lo, hi):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return lo + (hi - lo) * (self.s >> 11) / 9007199254740992.0


def reference(robot, states, seed=7):
    names = robot.coordinates()
    nq, nv = len(names), robot.nv
    index = {n: i for i, n in enumerate(names)}
    rng = Stream(seed)
    out = []
    for _ in range(states):
        x = [0.0] * (2 * nq)
        pos, vel = {}, {}
        for j in robot.joints:
            t, name = j['type'], j['name']
            if t == 'fixed':
                pos[name], vel[name] = [], []
            elif t == 'floating':
                p = [rng.uniform(-1, 1) for _ in range(3)]
                q = [rng.uniform(-1, 1) for _ in range(4)]
                nq4 = math.sqrt(dot(q, q))
                q = [c / nq4 for c in q]
                pd = [rng.uniform(-2, 2) for _ in range(3)]
                wb = [rng.uniform(-2, 2) for _ in range(3)]
                qd = [0.5 * c for c in qmul(q, [0.0] + wb)]
                pos[name], vel[name] = p + q, pd + wb
                i = index[name + '_x']
                x[i:i + 7] = p + q
                x[nq + i:nq + i + 7] = pd + qd
            else:
                pos[name], vel[name] = [rng.uniform(-3, 3)], [rng.uniform(-2, 2)]
                x[index[name]], x[nq + index[name]] = pos[name][0], vel[name][0]
        Mv, cv = robot.dynamics(pos, vel)
        a = solve(Mv, [-c for c in cv])
        J = [[0.0] * nq for _ in range(nv)]  # v = J q'
        quats = []
        for j in robot.joints:
            t = j['type']
            if t == 'fixed':
                continue
            if t != 'floating':
                J[j['v']][index[j['name']]] = 1.0
                continue
            i = index[j['name'] + '_x']
            quats.append(i + 3)
            for k in range(3):
                J[j['v'] + k][i + k] = 1.0
            w, qx, qy, qz = x[i + 3:i + 7]
            G = [[-qx, w, qz, -qy], [-qy, -qz, w, qx], [-qz, qy, -qx, w]]
            for r in range(3):
                for c in range(4):
                    J[j['v'] + 3 + r][i + 3 + c] = 2 * G[r][c]
        nz = [[(a_, J[a_][c]) for a_ in range(nv) if J[a_][c]] for c in range(nq)]  # J's columns
        MvJ = [[sum(Mv[a_][b] * v for b, v in nz[c]) for c in range(nq)] for a_ in range(nv)]
        M = [[sum(v * MvJ[a_][c] for a_, v in nz[r]) for c in range(nq)] for r in range(nq)]
        bias = [sum(J[a_][r] * cv[a_] for a_ in range(nv)) for r in range(nq)]
        qdd = [0.0] * nq
        for j in robot.joints:
            t = j['type']
            if t == 'fixed':
                continue
            if t != 'floating':
                qdd[index[j['name']]] = a[j['v']]
                continue
            i = index[j['name'] + '_x']
            for k in range(3):
                qdd[i + k] = a[j['v'] + k]
            q, qd = x[i + 3:i + 7], x[nq + i + 3:nq + i + 7]
            wb, wbd = vel[j['name']][3:6], a[j['v'] + 3:j['v'] + 6]
            qdd[i + 3:i + 7] = [0.5 * (u + v) for u, v in zip(qmul(qd, [0.0] + wb), qmul(q, [0.0] + wbd))]
            for r in range(4):
                for c in range(4):
                    M[i + 3 + r][i + 3 + c] += q[r] * q[c]
        out.append((x, M, bias, qdd))
    return names, quats, out


def c_array(values):
    return '{' + ', '.join(repr(float(v)) for v in values) + '}'


def main():
    path, name, states, output = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    robot = Robot(path)
    names, quats, rows = reference(robot, states)
    nq = len(names)
    with open(output, 'w') as f:
        f.write('/* %s_reference.c — written by tests/urdf/urdf_reference.py from %s: the\n'
                '** exact M, bias and q\'\' at %d states (urdf_reference.h). */\n' % (name, path.split('/')[-1], states))
        f.write('#include "urdf_reference.h"\n\n')
        f.write('static const char *const names[] = {%s};\n' % ', '.join('"%s"' % n for n in names))
        f.write('static const int quaternions[] = {%s};\n' % ', '.join(str(q) for q in quats + [-1]))
        for what, k in (('x', 0), ('M', 1), ('bias', 2), ('qdd', 3)):
            flat = []
            for row in rows:
                flat += [v for r in row[k] for v in r] if what == 'M' else row[k]
            f.write('static const double %s[] = %s;\n' % (what, c_array(flat)))
        f.write('const urdf_reference %s_reference = {"%s", %d, %d, names, %d, quaternions, x, M, bias, qdd};\n'
                % (name, name, nq, states, len(quats)))


if __name__ == '__main__':
    main()
