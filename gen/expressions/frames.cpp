// frames.cpp — orientation: the tree of elementary rotations rooted at the
// Newtonian frame N, the direction cosines between any two of its frames,
// and each frame's angular velocity. A vector is carried only as far as the
// closest frame two operands share, so a chain's expressions stay as small
// as its rotations between them.
#include "expressions/expressions.h"

namespace lgc {

namespace {

using GiNaC::ex;

// The other two axes of `axis`, in cyclic order: x -> (y, z), y -> (z, x), z -> (x, y).
std::pair<int, int> others(int axis) { return {(axis + 1) % 3, (axis + 2) % 3}; }

// The rotation of the unit quaternion (w, x, y, z), homogeneous in it.
GiNaC::matrix quaternion_matrix(const ex &q) {
  const ex w = q.op(0), x = q.op(1), y = q.op(2), z = q.op(3);
  return GiNaC::matrix{{w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)},
                       {2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)},
                       {2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z}};
}

// v_parent = R_a(angle) v_node.
Components to_parent(const FrameTree::Node &n, const Components &v) {
  if (n.is_quaternion()) return times(quaternion_matrix(n.angle), v);
  if (n.angle.is_zero()) return v;
  auto [i, j] = others(n.axis);
  ex c = GiNaC::cos(n.angle), s = GiNaC::sin(n.angle);
  Components out = v;
  out[i] = c * v[i] - s * v[j];
  out[j] = s * v[i] + c * v[j];
  return out;
}

// v_node = R_a(angle)^T v_parent.
Components to_child(const FrameTree::Node &n, const Components &v) {
  if (n.is_quaternion()) return times(quaternion_matrix(n.angle).transpose(), v);
  if (n.angle.is_zero()) return v;
  auto [i, j] = others(n.axis);
  ex c = GiNaC::cos(n.angle), s = GiNaC::sin(n.angle);
  Components out = v;
  out[i] = c * v[i] + s * v[j];
  out[j] = -s * v[i] + c * v[j];
  return out;
}

}  // namespace

Vector Vector::unit(int frame, int axis) {
  Components c = {0, 0, 0};
  c[axis] = 1;
  return Vector{{{frame, c}}};
}

FrameTree::FrameTree() { nodes_.push_back({-1, 2, 0, 0}); }

int FrameTree::rotate(int parent, int axis, const ex &angle) {
  nodes_.push_back({parent, axis, angle, nodes_.at(parent).depth + 1});
  return int(nodes_.size()) - 1;
}

int FrameTree::rotate_by_quaternion(int parent, const std::array<ex, 4> &q) {
  nodes_.push_back({parent, -1, GiNaC::lst{q[0], q[1], q[2], q[3]}, nodes_.at(parent).depth + 1});
  return int(nodes_.size()) - 1;
}

Components FrameTree::quaternion_rate(const Node &n, const std::function<ex(const ex &)> &d) {
  const ex w = n.angle.op(0);
  const Components v = {n.angle.op(1), n.angle.op(2), n.angle.op(3)};
  const Components dv = {d(v[0]), d(v[1]), d(v[2])};
  return scaled(2, plus(plus(scaled(w, dv), scaled(-d(w), v)), scaled(-1, cross(v, dv))));
}

int FrameTree::common_ancestor(int a, int b) const {
  while (a != b) {
    if (nodes_[a].depth >= nodes_[b].depth) a = nodes_[a].parent;
    else b = nodes_[b].parent;
  }
  return a;
}

// Consecutive rotations about one axis compose by adding their angles,
// R_a(x) R_a(y) = R_a(x + y): a planar chain's frame k in N is one rotation
// by q1 + ... + qk, its components sines and cosines of that sum, instead of
// products over k rotations that grow like 2^k terms.
Components FrameTree::express(const Components &c, int from, int to) const {
  int top = common_ancestor(from, to);
  Components v = c;
  for (int n = from; n != top;) {
    FrameTree::Node turn = nodes_[n];
    for (n = turn.parent; n != top && !turn.is_quaternion() && nodes_[n].axis == turn.axis; n = nodes_[n].parent)
      turn.angle += nodes_[n].angle;
    v = to_parent(turn, v);
  }
  std::vector<FrameTree::Node> down;
  for (int n = to; n != top;) {
    FrameTree::Node turn = nodes_[n];
    for (n = turn.parent; n != top && !turn.is_quaternion() && nodes_[n].axis == turn.axis; n = nodes_[n].parent)
      turn.angle += nodes_[n].angle;
    down.push_back(turn);
  }
  for (auto n = down.rbegin(); n != down.rend(); ++n) v = to_child(*n, v);
  return v;
}

Vector FrameTree::angular_velocity(int frame, const SymbolTable &s) const {
  Vector w;
  for (int n = frame; n != N; n = nodes_[n].parent) {
    if (nodes_[n].is_quaternion()) {
      w = w + Vector{{{n, quaternion_rate(nodes_[n], [&s](const ex &e) { return s.convective_derivative(e); })}}};
      continue;
    }
    ex rate = s.convective_derivative(nodes_[n].angle);
    if (rate.is_zero()) continue;
    w = w + rate * Vector::unit(nodes_[n].parent, nodes_[n].axis);
  }
  return w;
}

}  // namespace lgc
