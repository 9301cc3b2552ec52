// inverse_dynamics.cpp — the bodies' side of the equations of motion at
// accelerations a, R(q, q', a) = M a + k (their weight included), by
// Newton–Euler over the frame tree. body_dynamics writes M as products of
// Jacobian columns, n^3 of them along a chain; here R is two passes:
//  - out from N: each frame's omega and alpha (FrameRates, with a) and each
//    centre's acceleration A, its terms' accelerations summed from N
//    outwards, so that what a chain's centres share is one expression;
//  - back to N: each body's inertia force F = m A - weight and moment
//    N = I alpha + omega x I omega gathered onto the frames. With c_F the
//    centre's term in frame F, v_b,i = sum_F (J_F,i x c_F + dc_F/dq_i) and
//    J_F,i = sum over the turns G from N to F of a_G dtheta_G/dq_i,
//      R_i = sum_b v_b,i . F_b + w_b,i . N_b
//          = sum_G dtheta_G/dq_i a_G . U_G + sum_b,F dc_F/dq_i . F_b,
//    U_G the moments c_F x F_b (and N_b) of G and every frame past it,
//    each frame's from its children's by one rotation.
// The graph grows linearly along a chain, and so do its derivatives in each
// coordinate: this R is what the Jacobian differentiates.
#include "model/model.h"

namespace lgc {

namespace {

using GiNaC::ex;

bool less(const Components &a, const Components &b) {
  for (int c = 0; c < 3; ++c)
    if (int d = a[c].compare(b[c])) return d < 0;
  return false;
}
struct ComponentsLess {
  bool operator()(const Components &a, const Components &b) const { return less(a, b); }
};

// A centre's terms that lie on one path from N, by frame (parents first).
using Terms = std::vector<std::pair<int, Components>>;
struct TermsLess {
  bool operator()(const Terms &a, const Terms &b) const {
    if (a.size() != b.size()) return a.size() < b.size();
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].first != b[i].first) return a[i].first < b[i].first;
      if (less(a[i].second, b[i].second)) return true;
      if (less(b[i].second, a[i].second)) return false;
    }
    return false;
  }
};

class InverseDynamics {
 public:
  InverseDynamics(const FrameTree &frames, const SymbolTable &s, const std::vector<ex> &a, bool moving)
      : frames_(frames), s_(s), rates_(frames, s, a, moving), moving_(moving),
        moment_(size_t(frames.size()), Components{0, 0, 0}), R_(s.q.size()) {}

  // The body's inertia force in its home frame, and its moment.
  void add(const BodyEnergy &b) {
    Body body{b.centre.terms.empty() ? FrameTree::N : home(b.centre), {0, 0, 0}, {}, {}};
    Components A = {0, 0, 0};
    for (auto &[frame, c] : b.centre.terms) {
      if (frames_.common_ancestor(frame, body.home) == frame) {
        body.path.push_back({frame, c});
        continue;
      }
      body.off_path.push_back({frame, c});
      A = plus(A, frames_.express(rates_.acceleration(frame, c), frame, body.home));
    }
    if (!body.path.empty()) A = plus(A, accumulated(body.home, body.path));
    body.force = scaled(b.mass, A);
    if (moving_) body.force = plus(body.force, scaled(-1, components_in(frames_, b.weight, body.home)));
    bodies_.push_back(std::move(body));
    if (b.frame >= 0) add_rotation(b);
  }

  // U_G, a frame's moments and its children's turned into it, from the
  // leaves (a parent's id is below its children's); each coordinate a
  // turn's angle depends on reads U_G's component along the turn's axis.
  std::vector<ex> result() {
    gather_forces();
    std::vector<Components> U = moment_;
    for (int id = frames_.size() - 1; id > FrameTree::N; --id) {
      const FrameTree::Node &turn = frames_.node(id);
      if (all_zero(U[size_t(id)])) continue;
      for (size_t i = 0; i < R_.size(); ++i) {
        if (!turn.angle.has(s_.q[i])) continue;
        if (turn.is_quaternion())  // U_G along the angular velocity's column of q_i'
          R_[i].push_back(dot(FrameTree::quaternion_rate(turn, [&](const ex &e) { return shared_diff(e, s_.q[i]); }),
                              U[size_t(id)]));
        else
          R_[i].push_back(turn.angle.diff(s_.q[i]) * U[size_t(id)][turn.axis]);
      }
      U[size_t(turn.parent)] = plus(U[size_t(turn.parent)], frames_.express(U[size_t(id)], id, turn.parent));
    }
    std::vector<ex> out;
    for (auto &terms : R_) out.push_back(GiNaC::add(terms));
    return out;
  }

 private:
  struct Body {
    int home;          // the frame its force is computed in
    Components force;  // m A - weight, in home's components
    Terms path;        // the centre's terms at home and its parents
    Terms off_path;    // the others
  };
  const FrameTree &frames_;
  const SymbolTable &s_;
  FrameRates rates_;
  bool moving_;  // false: at rest and weightless, M a
  std::vector<Body> bodies_;
  std::vector<Components> moment_;  // per frame: sum of c_F x F_b and N_b, in its components
  std::vector<GiNaC::exvector> R_;
  std::map<int, std::map<Terms, Components, TermsLess>> accumulated_;
  std::map<std::pair<int, std::vector<size_t>>, Components> forces_;

  // The deepest frame of the centre's terms when they lie on one path from
  // N (a chain's), else the frame closest to them all.
  int home(const Vector &r) const {
    int deepest = r.terms.rbegin()->first;
    for (auto &[frame, c] : r.terms)
      if (frames_.node(frame).depth > frames_.node(deepest).depth) deepest = frame;
    for (auto &[frame, c] : r.terms)
      if (frames_.common_ancestor(frame, deepest) != frame) return closest_frame(frames_, r);
    return deepest;
  }

  // The acceleration of the sum of `terms` (at `node` and its parents), in
  // node's components: the parents' sum turned into node, plus node's own.
  Components accumulated(int node, const Terms &terms) {
    auto &memo = accumulated_[node];
    if (auto it = memo.find(terms); it != memo.end()) return it->second;
    Terms above = terms;
    Components sum = {0, 0, 0};
    if (above.back().first == node) {
      sum = rates_.acceleration(node, above.back().second);
      above.pop_back();
    }
    if (!above.empty()) {
      int parent = frames_.node(node).parent;
      sum = plus(sum, frames_.express(accumulated(parent, above), parent, node));
    }
    return memo.emplace(terms, sum).first->second;
  }

  // The sum of the bodies' forces in `frame`'s components, where each
  // body's home is `frame` or past it: those past it as the sum over the
  // child they lie through, turned into `frame` (a chain's force on the
  // links from j on is link j's plus the turned sum from j + 1 on).
  Components force(const std::vector<size_t> &bodies, int frame) {
    auto key = std::make_pair(frame, bodies);
    if (auto it = forces_.find(key); it != forces_.end()) return it->second;
    Components sum = {0, 0, 0};
    std::map<int, std::vector<size_t>> through;
    for (size_t b : bodies) {
      int n = bodies_[b].home;
      if (n == frame) {
        sum = plus(sum, bodies_[b].force);
        continue;
      }
      while (frames_.node(n).parent != frame) n = frames_.node(n).parent;
      through[n].push_back(b);
    }
    for (auto &[child, past] : through) sum = plus(sum, frames_.express(force(past, child), child, frame));
    return forces_.emplace(key, sum).first->second;
  }

  // Each frame's moment sum_b c_F x F_b, the bodies with one term c in a
  // frame summed first; and the terms c(q) that move in their frame.
  void gather_forces() {
    std::map<int, std::map<Components, std::vector<size_t>, ComponentsLess>> sharing;
    for (size_t b = 0; b < bodies_.size(); ++b) {
      for (auto &[frame, c] : bodies_[b].path) sharing[frame][c].push_back(b);
      for (auto &[frame, c] : bodies_[b].off_path)
        moment_[size_t(frame)] = plus(moment_[size_t(frame)], cross(c, force_in(b, frame)));
      for (auto *terms : {&bodies_[b].path, &bodies_[b].off_path})
        for (auto &[frame, c] : *terms)
          for (size_t i = 0; i < R_.size(); ++i)
            if (Components dc = partial(c, s_.q[i]); !all_zero(dc)) R_[i].push_back(dot(dc, force_in(b, frame)));
    }
    for (auto &[frame, by_term] : sharing)
      for (auto &[c, bodies] : by_term)
        moment_[size_t(frame)] = plus(moment_[size_t(frame)], cross(c, force(bodies, frame)));
  }

  Components force_in(size_t b, int frame) {
    const Body &body = bodies_[b];
    if (frames_.common_ancestor(frame, body.home) == frame) return force({b}, frame);
    return frames_.express(body.force, body.home, frame);
  }

  // N = I alpha + omega x I omega in the inertia's axes, a moment of the
  // frame both they and the body's frame descend from; a turn between that
  // frame and the body's adds its own axis's component of N.
  void add_rotation(const BodyEnergy &b) {
    FrameRate spin = rates_.in_axes(b.frame, b.axes);
    Components N = plus(times(b.inertia, spin.alpha), cross(spin.omega, times(b.inertia, spin.omega)));
    int top = frames_.common_ancestor(b.frame, b.axes);
    moment_[size_t(top)] = plus(moment_[size_t(top)], frames_.express(N, b.axes, top));
    for (int n = b.frame; n != top; n = frames_.node(n).parent) {
      const FrameTree::Node &turn = frames_.node(n);
      for (size_t i = 0; i < R_.size(); ++i)
        if (turn.angle.has(s_.q[i]))
          R_[i].push_back(turn.angle.diff(s_.q[i]) * frames_.express(N, b.axes, turn.parent)[turn.axis]);
    }
  }
};

}  // namespace

std::vector<ex> inverse_dynamics(const FrameTree &frames, const SymbolTable &s, const std::vector<BodyEnergy> &bodies,
                                 const std::vector<ex> &a) {
  InverseDynamics d(frames, s, a, true);
  for (const BodyEnergy &b : bodies) d.add(b);
  return d.result();
}

KineticTerms newton_euler_dynamics(const FrameTree &frames, const SymbolTable &s, const std::vector<BodyEnergy> &bodies) {
  size_t n = s.q.size();
  KineticTerms out{GiNaC::matrix(n, n), inverse_dynamics(frames, s, bodies, std::vector<ex>(n, 0))};
  for (size_t j = 0; j < n; ++j) {
    std::vector<ex> unit(n, 0);
    unit[j] = 1;
    InverseDynamics d(frames, s, unit, false);
    for (const BodyEnergy &b : bodies) d.add(b);
    std::vector<ex> column = d.result();
    for (size_t i = j; i < n; ++i) out.M(i, j) = out.M(j, i) = column[i];
  }
  return out;
}

}  // namespace lgc
