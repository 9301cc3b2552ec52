// body_dynamics.cpp — M and k of the bodies and particles from their
// velocity Jacobians, never from T (issue 15, item 5): for a centre r and
// each coordinate q_i, the partial velocity Jv_i = dr/dq_i and the
// acceleration without q'', a0; for a body, the partial angular velocities
// Jw_i and the angular acceleration without q'', alpha0, in the axes where
// its inertia I is constant. Then
//   M_ij = sum m Jv_i . Jv_j + Jw_i . I Jw_j
//   k_i  = sum m Jv_i . a0 - Jv_i . weight + Jw_i . (I alpha0 + w x I w),
// d'Alembert's principle with the generalised inertia forces of Kane, equal
// to d/dt dT/dq' - dT/dq + dV/dq but without differentiating T: the terms
// stay products of short Jacobian columns and a chain grows polynomially.
#include "lagrangec.h"

namespace lgc {

namespace {

using GiNaC::ex;

Components plus(const Components &a, const Components &b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Components scaled(const ex &s, const Components &a) { return {s * a[0], s * a[1], s * a[2]}; }
Components cross(const Components &a, const Components &b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
ex dot(const Components &a, const Components &b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
bool zero(const Components &c) { return c[0].is_zero() && c[1].is_zero() && c[2].is_zero(); }
Components times(const GiNaC::matrix &I, const Components &w) {
  Components out;
  for (int a = 0; a < 3; ++a) out[a] = I(a, 0) * w[0] + I(a, 1) * w[1] + I(a, 2) * w[2];
  return out;
}

// A vector's velocity Jacobian and acceleration without q'', in one frame.
struct Motion {
  std::vector<Components> J;  // one column per coordinate
  Components bias;
};

class BodyDynamics {
 public:
  BodyDynamics(const FrameTree &frames, const SymbolTable &s)
      : frames_(frames), s_(s), rates_(frames, s), n_(s.q.size()), M_(n_ * n_), k_(n_) {}

  void add(const BodyEnergy &b) {
    Motion centre = translation(b.centre);
    for (size_t i = 0; i < n_; ++i) {
      if (zero(centre.J[i])) continue;
      // Component by component: the lowering then shares partial sums over
      // the bodies between the entries of M.
      for (size_t j = 0; j <= i; ++j)
        if (!zero(centre.J[j]))
          for (int c = 0; c < 3; ++c) M_[i * n_ + j].push_back(b.mass * centre.J[i][c] * centre.J[j][c]);
      for (int c = 0; c < 3; ++c) k_[i].push_back(b.mass * centre.J[i][c] * centre.bias[c]);
      if (!b.weight.terms.empty()) k_[i].push_back(-dot(centre.J[i], components_in(frames_, b.weight, frame_)));
    }
    if (b.frame < 0) return;
    auto [w, spin] = rotation(b.frame, b.axes);
    Components moment = plus(times(b.inertia, spin.bias), cross(w, times(b.inertia, w)));  // I alpha0 + w x I w
    for (size_t i = 0; i < n_; ++i) {
      if (zero(spin.J[i])) continue;
      Components IJ = times(b.inertia, spin.J[i]);
      for (size_t j = 0; j <= i; ++j)
        if (!zero(spin.J[j])) M_[i * n_ + j].push_back(dot(spin.J[j], IJ));
      k_[i].push_back(dot(spin.J[i], moment));
    }
  }

  KineticTerms result() const {
    KineticTerms out{GiNaC::matrix(n_, n_), {}};
    for (size_t i = 0; i < n_; ++i)
      for (size_t j = 0; j <= i; ++j) out.M(i, j) = out.M(j, i) = GiNaC::add(M_[i * n_ + j]);
    for (auto &terms : k_) out.k.push_back(GiNaC::add(terms));
    return out;
  }

 private:
  const FrameTree &frames_;
  const SymbolTable &s_;
  FrameRates rates_;
  size_t n_;
  std::vector<GiNaC::exvector> M_, k_;  // terms gathered, summed once
  int frame_ = FrameTree::N;            // the frame of the last translation

  Components rate(const Components &c) const {
    return {s_.convective_derivative(c[0]), s_.convective_derivative(c[1]), s_.convective_derivative(c[2])};
  }

  // r = sum_F c_F, each term in its frame F turning at omega_F:
  //   dr/dq_i = dc_F/dq_i + J_F,i x c_F
  //   a0      = c_F'' + 2 omega_F x c_F' + bias_F x c_F + omega_F x (omega_F x c_F)
  // (' the convective derivative), each in F, then summed in the frame
  // closest to all of them.
  Motion translation(const Vector &r) {
    frame_ = closest_frame(frames_, r);
    Motion out{std::vector<Components>(n_, Components{0, 0, 0}), {0, 0, 0}};
    for (auto &[frame, c] : r.terms) {
      const FrameRate &f = rates_.of(frame);
      Components c1 = rate(c), c2 = rate(c1);
      Components a0 = plus(plus(c2, scaled(2, cross(f.omega, c1))), plus(cross(f.bias, c), cross(f.omega, cross(f.omega, c))));
      out.bias = plus(out.bias, frames_.express(a0, frame, frame_));
      for (size_t i = 0; i < n_; ++i) {
        Components column = cross(f.J[i], c);
        if (c[0].has(s_.q[i]) || c[1].has(s_.q[i]) || c[2].has(s_.q[i]))
          column = plus(column, {c[0].diff(s_.q[i]), c[1].diff(s_.q[i]), c[2].diff(s_.q[i])});
        if (!zero(column)) out.J[i] = plus(out.J[i], frames_.express(column, frame, frame_));
      }
    }
    return out;
  }

  // The body's angular velocity, Jacobian and acceleration bias in the
  // inertia's axes: those of C, the frame the axes and the body's frame
  // both descend from, plus the rates of the turns between C and the body
  // (a wheel's spin, when the axes are the frame it spins in), each
  // rotation's rate a theta' a term in the frame it turns from.
  std::pair<Components, Motion> rotation(int frame, int axes) {
    int top = frames_.common_ancestor(frame, axes);
    const FrameRate &c = rates_.of(top);
    Vector w{{{top, c.omega}}}, bias{{{top, c.bias}}};
    std::vector<Vector> J;
    for (size_t i = 0; i < n_; ++i) J.push_back(Vector{{{top, c.J[i]}}});
    for (int n = frame; n != top; n = frames_.node(n).parent) {
      const FrameTree::Node &turn = frames_.node(n);
      ex theta_dot = s_.convective_derivative(turn.angle);
      if (theta_dot.is_zero()) continue;
      Vector axis = Vector::unit(turn.parent, turn.axis);
      Components turning = cross(rates_.of(turn.parent).omega, axis.terms.at(turn.parent));
      w = w + theta_dot * axis;
      bias = bias + s_.convective_derivative(theta_dot) * axis + Vector{{{turn.parent, scaled(theta_dot, turning)}}};
      for (size_t i = 0; i < n_; ++i)
        if (turn.angle.has(s_.q[i])) J[i] = J[i] + turn.angle.diff(s_.q[i]) * axis;
    }
    Motion m{{}, components_in(frames_, bias, axes)};
    for (auto &column : J) m.J.push_back(components_in(frames_, column, axes));
    return {components_in(frames_, w, axes), m};
  }
};

}  // namespace

KineticTerms body_dynamics(const FrameTree &frames, const SymbolTable &s, const std::vector<BodyEnergy> &bodies) {
  BodyDynamics d(frames, s);
  for (const BodyEnergy &b : bodies) d.add(b);
  return d.result();
}

}  // namespace lgc
