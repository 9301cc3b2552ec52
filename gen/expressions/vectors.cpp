// vectors.cpp — vector algebra over the frames of a FrameTree: sums and
// multiples keep each term in its own frame; dot and cross products meet
// two terms in the closest frame they share; the time derivative in N
// differentiates each term's components and adds the frame's rotation.
#include "expressions/expressions.h"

#include <set>

namespace lgc {

namespace {

using GiNaC::ex;

// Adds c, in `frame`, to v, dropping a term that cancels to zero.
void add_term(Vector &v, int frame, const Components &c) {
  auto it = v.terms.find(frame);
  Components sum = it == v.terms.end() ? c : plus(it->second, c);
  if (all_zero(sum)) {
    if (it != v.terms.end()) v.terms.erase(it);
  } else {
    v.terms[frame] = sum;
  }
}

// Rotations about one axis merge (FrameTree::express), so every frame of
// a run of them is one rotation from every other and the count in
// closest_frame cannot choose among them; the frame the run turns from is
// the one all bodies along it share, their angles sums from there: a planar
// chain's n bodies then use n angles, not n^2 differences.
int run_base(const FrameTree &frames, int x) {
  if (x == FrameTree::N || frames.node(x).parent == FrameTree::N) return x;
  int axis = frames.node(x).axis, parent = frames.node(x).parent;
  if (axis < 0 || frames.node(parent).axis != axis) return x;
  while (x != FrameTree::N && frames.node(x).axis == axis) x = frames.node(x).parent;
  return x;
}

}  // namespace

Components plus(const Components &a, const Components &b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Components scaled(const ex &s, const Components &a) { return {s * a[0], s * a[1], s * a[2]}; }
Components cross(const Components &a, const Components &b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
ex dot(const Components &a, const Components &b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
bool all_zero(const Components &c) { return c[0].is_zero() && c[1].is_zero() && c[2].is_zero(); }
Components partial(const Components &c, const GiNaC::symbol &q) {
  Components out;
  for (int a = 0; a < 3; ++a) out[a] = shared_diff(c[a], q);
  return out;
}
Components times(const GiNaC::matrix &I, const Components &w) {
  Components out;
  for (int a = 0; a < 3; ++a) out[a] = I(a, 0) * w[0] + I(a, 1) * w[1] + I(a, 2) * w[2];
  return out;
}

Vector operator+(const Vector &a, const Vector &b) {
  Vector sum = a;
  for (auto &[frame, c] : b.terms) add_term(sum, frame, c);
  return sum;
}

Vector operator*(const ex &s, const Vector &v) {
  Vector out;
  for (auto &[frame, c] : v.terms) add_term(out, frame, {s * c[0], s * c[1], s * c[2]});
  return out;
}

Components components_in(const FrameTree &frames, const Vector &v, int frame) {
  Components sum = {0, 0, 0};
  for (auto &[from, c] : v.terms) sum = plus(sum, frames.express(c, from, frame));
  return sum;
}

ex dot(const FrameTree &frames, const Vector &a, const Vector &b) {
  GiNaC::exvector terms;
  for (auto &[fa, ca] : a.terms)
    for (auto &[fb, cb] : b.terms) {
      int common = frames.common_ancestor(fa, fb);
      Components x = frames.express(ca, fa, common), y = frames.express(cb, fb, common);
      for (int i = 0; i < 3; ++i) terms.push_back(x[i] * y[i]);
    }
  return GiNaC::add(terms);
}

Vector cross(const FrameTree &frames, const Vector &a, const Vector &b) {
  Vector out;
  for (auto &[fa, ca] : a.terms)
    for (auto &[fb, cb] : b.terms) {
      int common = frames.common_ancestor(fa, fb);
      add_term(out, common, cross(frames.express(ca, fa, common), frames.express(cb, fb, common)));
    }
  return out;
}

// d/dt (Σ_F v_F) = Σ_F (v_F' + ω_F × v_F), each term in its own frame F,
// with ω_F in F's components.
Vector time_derivative(const FrameTree &frames, const SymbolTable &s, const Vector &v) {
  Vector out;
  for (auto &[frame, c] : v.terms) {
    Components rate = {s.convective_derivative(c[0]), s.convective_derivative(c[1]), s.convective_derivative(c[2])};
    Components w = components_in(frames, frames.angular_velocity(frame, s), frame);
    add_term(out, frame, plus(rate, cross(w, c)));
  }
  return out;
}

bool has_kind(const SymbolTable &s, const Vector &v, SymbolKind kind) {
  for (auto &[frame, c] : v.terms)
    for (auto &x : c)
      if (s.has_kind(x, kind)) return true;
  return false;
}

// A dot product or a norm is the same in every frame's components; the
// frame fewest rotations from v's terms in total keeps them smallest.
int closest_frame(const FrameTree &frames, const Vector &v) {
  std::set<int> candidates;
  for (auto &[frame, c] : v.terms)
    for (int n = frame; n != -1; n = frames.node(n).parent) candidates.insert(n);
  int best = FrameTree::N;
  long best_cost = -1;
  for (int x : candidates) {
    long cost = 0;
    for (auto &[frame, c] : v.terms)
      cost += frames.node(frame).depth + frames.node(x).depth - 2 * frames.node(frames.common_ancestor(frame, x)).depth;
    if (best_cost < 0 || cost < best_cost) best = x, best_cost = cost;
  }
  return run_base(frames, best);
}

}  // namespace lgc
