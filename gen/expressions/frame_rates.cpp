// frame_rates.cpp — each frame's angular velocity, its Jacobian and its
// angular acceleration, in the frame's own components, from its parent's
// (the forward pass of Newton–Euler): a node turned by theta about its axis
// a from p has
//   omega_n = R^T omega_p + a theta'
//   J_n     = R^T J_p     + a dtheta/dq
//   alpha_n = R^T alpha_p + (R^T omega_p) x a theta' + a theta''
// with theta'' taking q'' as the accelerations given (none: 0, so alpha is
// the bias of dω/dt = J q'' + bias). Each column of J is a joint axis in the
// frame's components (short), and every quantity refers to its parent's
// instead of multiplying rotations out.
#include "expressions/expressions.h"

namespace lgc {

namespace {

using GiNaC::ex;

Components along(int axis, const ex &length) {
  Components c = {0, 0, 0};
  c[axis] = length;
  return c;
}

}  // namespace

ex FrameRates::rate(const ex &e) const { return moving_ ? s_.convective_derivative(e) : ex(0); }

ex FrameRates::second_derivative(const ex &e) const {
  GiNaC::exvector terms = {rate(rate(e))};
  for (size_t i = 0; i < accelerations_.size(); ++i) terms.push_back(shared_diff(e, s_.q[i]) * accelerations_[i]);
  return GiNaC::add(terms);
}

const FrameRate &FrameRates::of(int node) {
  if (auto it = rates_.find(node); it != rates_.end()) return it->second;
  size_t n = s_.q.size();
  FrameRate r{{0, 0, 0}, std::vector<Components>(n, Components{0, 0, 0}), {0, 0, 0}};
  if (node != FrameTree::N) {
    const FrameTree::Node &turn = frames_.node(node);
    const FrameRate &p = of(turn.parent);
    auto down = [&](const Components &c) { return frames_.express(c, turn.parent, node); };
    Components omega_p = down(p.omega);
    if (turn.is_quaternion()) {  // omega_r and its rate from the quaternion: alpha_r = (R^T omega_p) x omega_r + omega_r'
      Components omega_r = FrameTree::quaternion_rate(turn, [&](const ex &e) { return rate(e); });
      r.omega = plus(omega_p, omega_r);
      for (size_t i = 0; i < n; ++i)
        r.J[i] = plus(down(p.J[i]), FrameTree::quaternion_rate(turn, [&](const ex &e) { return shared_diff(e, s_.q[i]); }));
      r.alpha = plus(plus(down(p.alpha), cross(omega_p, omega_r)),
                     FrameTree::quaternion_rate(turn, [&](const ex &e) { return second_derivative(e); }));
      return rates_.emplace(node, std::move(r)).first->second;
    }
    ex theta_dot = rate(turn.angle);
    r.omega = plus(omega_p, along(turn.axis, theta_dot));
    for (size_t i = 0; i < n; ++i)
      r.J[i] = plus(down(p.J[i]), along(turn.axis, turn.angle.has(s_.q[i]) ? turn.angle.diff(s_.q[i]) : ex(0)));
    // (R^T omega_p) x a theta': only the two components off the axis.
    auto [i, j] = std::pair<int, int>{(turn.axis + 1) % 3, (turn.axis + 2) % 3};
    Components turning = {0, 0, 0};
    turning[i] = omega_p[j] * theta_dot;
    turning[j] = -omega_p[i] * theta_dot;
    r.alpha = plus(plus(down(p.alpha), turning), along(turn.axis, second_derivative(turn.angle)));
  }
  return rates_.emplace(node, std::move(r)).first->second;
}

// Each turn's rate theta' about its axis a is a term in the frame it turns
// from (where a is constant), and its part of alpha theta'' a + omega_p x a theta'.
FrameRate FrameRates::in_axes(int frame, int axes) {
  int top = frames_.common_ancestor(frame, axes);
  const FrameRate &c = of(top);
  Vector w{{{top, c.omega}}}, alpha{{{top, c.alpha}}};
  std::vector<Vector> J;
  for (const Components &column : c.J) J.push_back(Vector{{{top, column}}});
  for (int n = frame; n != top; n = frames_.node(n).parent) {
    const FrameTree::Node &turn = frames_.node(n);
    if (!s_.has_kind(turn.angle, SymbolKind::coordinate) && !turn.angle.has(s_.t)) continue;  // a constant turn
    if (turn.is_quaternion()) {  // its rates are terms in its own frame
      Components omega_r = FrameTree::quaternion_rate(turn, [&](const ex &e) { return rate(e); });
      Components omega_p = frames_.express(of(turn.parent).omega, turn.parent, n);
      w = w + Vector{{{n, omega_r}}};
      alpha = alpha + Vector{{{n, plus(cross(omega_p, omega_r), FrameTree::quaternion_rate(turn, [&](const ex &e) {
                                          return second_derivative(e);
                                        }))}}};
      for (size_t i = 0; i < J.size(); ++i)
        J[i] = J[i] + Vector{{{n, FrameTree::quaternion_rate(turn, [&](const ex &e) { return shared_diff(e, s_.q[i]); })}}};
      continue;
    }
    ex theta_dot = rate(turn.angle);
    Vector axis = Vector::unit(turn.parent, turn.axis);
    Components turning = cross(of(turn.parent).omega, axis.terms.at(turn.parent));
    w = w + theta_dot * axis;
    alpha = alpha + second_derivative(turn.angle) * axis + Vector{{{turn.parent, scaled(theta_dot, turning)}}};
    for (size_t i = 0; i < J.size(); ++i)
      if (turn.angle.has(s_.q[i])) J[i] = J[i] + turn.angle.diff(s_.q[i]) * axis;
  }
  FrameRate out{components_in(frames_, w, axes), {}, components_in(frames_, alpha, axes)};
  for (const Vector &column : J) out.J.push_back(components_in(frames_, column, axes));
  return out;
}

Components FrameRates::acceleration(int frame, const Components &c) {
  const FrameRate &f = of(frame);
  Components c1, c2;
  for (int a = 0; a < 3; ++a) c1[a] = rate(c[a]), c2[a] = second_derivative(c[a]);
  return plus(plus(c2, scaled(2, cross(f.omega, c1))), plus(cross(f.alpha, c), cross(f.omega, cross(f.omega, c))));
}

}  // namespace lgc
