// frame_rates.cpp — each frame's angular velocity, its Jacobian and its
// angular acceleration without the q'' terms, in the frame's own
// components, from its parent's (the forward pass of Newton–Euler): a node
// turned by theta about its axis a from p has
//   omega_n = R^T omega_p + a theta'
//   J_n     = R^T J_p     + a dtheta/dq
//   bias_n  = R^T bias_p  + (R^T omega_p) x a theta' + a (theta')'
// with (theta')' the convective derivative of theta'. Each column of J is a
// joint axis in the frame's components (short), and every quantity refers
// to its parent's instead of multiplying rotations out.
#include "lagrangec.h"

namespace lgc {

namespace {

using GiNaC::ex;

Components plus(const Components &a, const Components &b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }

Components along(int axis, const ex &length) {
  Components c = {0, 0, 0};
  c[axis] = length;
  return c;
}

}  // namespace

const FrameRate &FrameRates::of(int node) {
  if (auto it = rates_.find(node); it != rates_.end()) return it->second;
  size_t n = s_.q.size();
  FrameRate r{{0, 0, 0}, std::vector<Components>(n, Components{0, 0, 0}), {0, 0, 0}};
  if (node != FrameTree::N) {
    const FrameTree::Node &turn = frames_.node(node);
    const FrameRate &p = of(turn.parent);
    auto down = [&](const Components &c) { return frames_.express(c, turn.parent, node); };
    ex rate = s_.convective_derivative(turn.angle);
    Components omega_p = down(p.omega);
    r.omega = plus(omega_p, along(turn.axis, rate));
    for (size_t i = 0; i < n; ++i)
      r.J[i] = plus(down(p.J[i]), along(turn.axis, turn.angle.has(s_.q[i]) ? turn.angle.diff(s_.q[i]) : ex(0)));
    // (R^T omega_p) x a theta': only the two components off the axis.
    auto [i, j] = std::pair<int, int>{(turn.axis + 1) % 3, (turn.axis + 2) % 3};
    Components turning = {0, 0, 0};
    turning[i] = omega_p[j] * rate;
    turning[j] = -omega_p[i] * rate;
    r.bias = plus(plus(down(p.bias), turning), along(turn.axis, s_.convective_derivative(rate)));
  }
  return rates_.emplace(node, std::move(r)).first->second;
}

}  // namespace lgc
