"""mjcf_urdf.py — the benchmark's MJCF chains (spatial_arm.py, rod_chain.py) written again as URDF, for MuJoCo.

MuJoCo 2.2.2 reads MJCF through tinyxml2, which refuses elements nested deeper than 100: a chain of 100
bodies, each inside its parent, does not load. A URDF names each link's parent instead of nesting it, and
mj_loadXML reads URDF too, so the same chain loads from it. URDF has no keyframe: the benchmark state is
written beside it (qpos, then qvel, one line each) for mujoco_adapter.c's BENCH_STATE.

Only what those two writers emit is read: bodies with a position, one hinge each, and an inertial with a
position, an optional quaternion, a mass and principal moments (kept diagonal in the inertial's frame, turned
by the quaternion's roll-pitch-yaw, so that MuJoCo finds the same principal axes). Gravity must be MuJoCo's
default, (0, 0, -9.81), which URDF cannot change.
"""
import math
import xml.etree.ElementTree as ET


def _rpy(quaternion):
    """URDF's roll, pitch, yaw (R = Rz(yaw) Ry(pitch) Rx(roll)) of a unit quaternion w x y z."""
    w, x, y, z = quaternion
    roll = math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = math.asin(max(-1.0, min(1.0, 2 * (w * y - z * x))))
    yaw = math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return roll, pitch, yaw


def _numbers(text):
    return [float(v) for v in text.split()]


def convert(mjcf_text):
    """(URDF text, state text) of an MJCF chain."""
    root = ET.fromstring(mjcf_text)
    option = root.find("option")
    gravity = _numbers(option.get("gravity", "0 0 -9.81")) if option is not None else [0.0, 0.0, -9.81]
    if any(abs(a - b) > 1e-12 for a, b in zip(gravity, (0.0, 0.0, -9.81))):
        raise ValueError(f"gravity {gravity} is not MuJoCo's default, which a URDF cannot change")
    lines = [f'<robot name="{root.get("model")}">', '  <link name="base"/>']

    def body(element, parent):
        name = element.get("name")
        joint, inertial = element.find("joint"), element.find("inertial")
        if joint is None or joint.get("type") != "hinge" or inertial is None:
            raise ValueError(f"body {name}: only a hinge and an inertial are read")
        w, x, y, z = _numbers(inertial.get("quat", "1 0 0 0"))
        norm = math.sqrt(w * w + x * x + y * y + z * z)
        rpy = " ".join(repr(a) for a in _rpy((w / norm, x / norm, y / norm, z / norm)))
        ixx, iyy, izz = _numbers(inertial.get("diaginertia"))
        lines.extend([
            f'  <joint name="{joint.get("name")}" type="continuous">',
            f'    <parent link="{parent}"/>',
            f'    <child link="{name}"/>',
            f'    <origin xyz="{element.get("pos", "0 0 0")}"/>',
            f'    <axis xyz="{joint.get("axis")}"/>',
            "  </joint>",
            f'  <link name="{name}">',
            "    <inertial>",
            f'      <origin xyz="{inertial.get("pos")}" rpy="{rpy}"/>',
            f'      <mass value="{inertial.get("mass")}"/>',
            f'      <inertia ixx="{ixx!r}" ixy="0" ixz="0" iyy="{iyy!r}" iyz="0" izz="{izz!r}"/>',
            "    </inertial>",
            "  </link>",
        ])
        for child in element.findall("body"):
            body(child, name)

    for top in root.find("worldbody").findall("body"):
        body(top, "base")
    lines.append("</robot>")
    key = root.find("keyframe/key")
    state = f'{key.get("qpos")}\n{key.get("qvel")}\n'
    return "\n".join(lines) + "\n", state


def write(mjcf_path):
    """Writes MJCF_PATH's URDF and state beside it; returns (URDF path, state path)."""
    with open(mjcf_path) as f:
        urdf, state = convert(f.read())
    base = mjcf_path.rsplit(".", 1)[0]
    with open(base + ".urdf", "w") as f:
        f.write(urdf)
    with open(base + ".state", "w") as f:
        f.write(state)
    return base + ".urdf", base + ".state"
