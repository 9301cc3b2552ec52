// kinetic.cpp — M and the velocity terms of k from the kinetic energy,
// keeping its structure. A kinetic energy is usually a sum of c(q, t) times
// a product of two forms linear in the velocities (m/2 (a'v)^2, m l phi' (b'v));
// for such a term M and k follow from the forms' gradients without ever
// expanding T, which is what keeps large chains cheap (and their code short).
// Other terms are differentiated directly.
#include "lagrangec.h"

namespace lgc {

namespace {

using GiNaC::ex;

bool has_velocity(const ex &e, const SymbolTable &s) { return s.has_kind(e, SymbolKind::velocity); }

// e = J v + e0 with J, e0 free of velocities: a linear form, with its J.
struct LinearForm {
  ex e;
  std::vector<ex> J;
};

std::optional<LinearForm> linear_form(const ex &e, const SymbolTable &s) {
  if (!has_velocity(e, s)) return std::nullopt;
  LinearForm f{e, {}};
  for (auto &v : s.v) {
    f.J.push_back(e.has(v) ? e.diff(v) : ex(0));
    if (has_velocity(f.J.back(), s)) return std::nullopt;
  }
  return f;
}

// c * a * b, with a and b linear forms (the same for a square).
struct Bilinear {
  ex c;
  LinearForm a, b;
};

class Splitter {
 public:
  explicit Splitter(const SymbolTable &s) : s_(s) {}
  std::vector<Bilinear> bilinear;
  ex rest = 0;  // terms with another shape

  void split(const ex &t, const ex &c) {
    if (!has_velocity(t, s_)) return void(rest += c * t);
    if (GiNaC::is_a<GiNaC::add>(t)) {
      for (size_t i = 0; i < t.nops(); ++i) split(t.op(i), c);
      return;
    }
    if (GiNaC::is_a<GiNaC::power>(t) && t.op(1) == 2) {
      if (auto f = linear_form(t.op(0), s_)) return void(bilinear.push_back({c, *f, *f}));
      return void(rest += c * t);
    }
    if (GiNaC::is_a<GiNaC::mul>(t)) {
      ex coef = c;
      std::vector<ex> moving;  // the factors with velocities
      for (size_t i = 0; i < t.nops(); ++i) (has_velocity(t.op(i), s_) ? moving.push_back(t.op(i)) : void(coef *= t.op(i)));
      if (moving.size() == 1) return split(moving[0], coef);
      if (moving.size() == 2) {
        auto a = linear_form(moving[0], s_), b = linear_form(moving[1], s_);
        if (a && b) return void(bilinear.push_back({coef, *a, *b}));
      }
    }
    rest += c * t;
  }

 private:
  const SymbolTable &s_;
};

}  // namespace

// For T = c a b with a = Ja v + a0, b = Jb v + b0: M = c (Ja Jb' + Jb Ja'), and
// d/dt dT/dv - dT/dq without the acceleration terms is
//   c' (b Ja + a Jb) + c (eps_b Ja + b Ja' + eps_a Jb + a Jb') - dc/dq a b - c (b da/dq + a db/dq),
// where ' is the convective derivative and eps the convective part of a' and b'.
KineticTerms derive_kinetic(const ex &T, const SymbolTable &s) {
  size_t n = s.q.size();
  // Terms are gathered and summed once at the end: adding to a GiNaC sum
  // one term at a time costs the size of the sum each time.
  std::vector<GiNaC::exvector> M(n * n), k(n);
  Splitter split(s);
  split.split(T, 1);
  for (const Bilinear &t : split.bilinear) {
    // Only the coordinates a term involves: large systems are sparse.
    std::vector<size_t> moving, placed;  // J_a or J_b nonzero; q_i in c, a or b
    for (size_t i = 0; i < n; ++i) {
      if (!t.a.J[i].is_zero() || !t.b.J[i].is_zero()) moving.push_back(i);
      if (t.c.has(s.q[i]) || t.a.e.has(s.q[i]) || t.b.e.has(s.q[i])) placed.push_back(i);
    }
    ex c_dot = s.convective_derivative(t.c), eps_a = s.convective_derivative(t.a.e), eps_b = s.convective_derivative(t.b.e);
    for (size_t i : moving) {
      for (size_t j : moving) M[i * n + j].push_back(t.c * (t.a.J[i] * t.b.J[j] + t.b.J[i] * t.a.J[j]));
      k[i].push_back(c_dot * (t.b.e * t.a.J[i] + t.a.e * t.b.J[i]) +
                     t.c * (eps_b * t.a.J[i] + t.b.e * s.convective_derivative(t.a.J[i]) + eps_a * t.b.J[i] +
                            t.a.e * s.convective_derivative(t.b.J[i])));
    }
    for (size_t i : placed)
      k[i].push_back(-(t.c.diff(s.q[i]) * t.a.e * t.b.e + t.c * (t.b.e * t.a.e.diff(s.q[i]) + t.a.e * t.b.e.diff(s.q[i]))));
  }
  // The rest, directly: p = dT/dv, M = dp/dv, k = p' - dT/dq.
  if (!split.rest.is_zero()) {
    for (size_t i = 0; i < n; ++i) {
      ex p = split.rest.diff(s.v[i]).expand();
      for (size_t j = 0; j < n; ++j) M[i * n + j].push_back(p.diff(s.v[j]).expand());
      k[i].push_back(s.convective_derivative(p) - split.rest.diff(s.q[i]));
    }
  }
  KineticTerms out{GiNaC::matrix(n, n), {}};
  for (size_t i = 0; i < n * n; ++i) out.M(i / n, i % n) = GiNaC::add(M[i]);
  for (auto &terms : k) out.k.push_back(GiNaC::add(terms));
  return out;
}

}  // namespace lgc
