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
#include "model/model.h"

namespace lgc {

namespace {

using GiNaC::ex;

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
      if (all_zero(centre.J[i])) continue;
      // Component by component: the lowering then shares partial sums over
      // the bodies between the entries of M.
      for (size_t j = 0; j <= i; ++j)
        if (!all_zero(centre.J[j]))
          for (int c = 0; c < 3; ++c) M_[i * n_ + j].push_back(b.mass * centre.J[i][c] * centre.J[j][c]);
      for (int c = 0; c < 3; ++c) k_[i].push_back(b.mass * centre.J[i][c] * centre.bias[c]);
      if (!b.weight.terms.empty()) k_[i].push_back(-dot(centre.J[i], components_in(frames_, b.weight, frame_)));
    }
    if (b.frame < 0) return;
    FrameRate spin = rates_.in_axes(b.frame, b.axes);
    Components moment = plus(times(b.inertia, spin.alpha), cross(spin.omega, times(b.inertia, spin.omega)));  // I alpha0 + w x I w
    for (size_t i = 0; i < n_; ++i) {
      if (all_zero(spin.J[i])) continue;
      Components IJ = times(b.inertia, spin.J[i]);
      for (size_t j = 0; j <= i; ++j)
        if (!all_zero(spin.J[j])) M_[i * n_ + j].push_back(dot(spin.J[j], IJ));
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

  // r = sum_F c_F, each term in its frame F turning at omega_F:
  //   dr/dq_i = dc_F/dq_i + J_F,i x c_F
  //   a0      = c_F'' + 2 omega_F x c_F' + bias_F x c_F + omega_F x (omega_F x c_F)
  // (FrameRates::acceleration without q''), each in F, then summed in the
  // frame closest to all of them.
  Motion translation(const Vector &r) {
    frame_ = closest_frame(frames_, r);
    Motion out{std::vector<Components>(n_, Components{0, 0, 0}), {0, 0, 0}};
    for (auto &[frame, c] : r.terms) {
      const FrameRate &f = rates_.of(frame);
      out.bias = plus(out.bias, frames_.express(rates_.acceleration(frame, c), frame, frame_));
      for (size_t i = 0; i < n_; ++i) {
        Components column = plus(cross(f.J[i], c), partial(c, s_.q[i]));
        if (!all_zero(column)) out.J[i] = plus(out.J[i], frames_.express(column, frame, frame_));
      }
    }
    return out;
  }
};

}  // namespace

KineticTerms body_dynamics(const FrameTree &frames, const SymbolTable &s, const std::vector<BodyEnergy> &bodies) {
  BodyDynamics d(frames, s);
  for (const BodyEnergy &b : bodies) d.add(b);
  return d.result();
}

}  // namespace lgc
