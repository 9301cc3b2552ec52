// kinetic.cpp — M and the velocity terms of k from the kinetic energy,
// keeping its structure. A kinetic energy is usually a sum of c(q, t) times
// a product of two forms linear in the velocities (m/2 (a'v)^2, m l phi' (b'v),
// I_ab w_a w_b); for such a term M and k follow from the forms' gradients
// without ever expanding T, so a chain in relative angles stays a sum of
// products of its links' terms instead of growing like n^6. Other terms are
// differentiated directly.
#include "model/model.h"

#include <map>
#include <optional>

namespace lgc {

namespace {

using GiNaC::ex;

// The generator's limit on the size of what it builds (as the plan's on operations).
constexpr size_t kMaxRestTerms = 1000000;

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

// What k needs of a linear form a = J v + a0 besides J: eps, the part of a'
// without accelerations (a' = J q'' + eps), and the curl C_i = J_i' - da/dq_i
// (without accelerations), which vanishes for the velocity of a point (J the
// gradient of its position, so the second derivatives cancel pairwise) but
// not for an angular velocity in body axes. Computed pairwise,
//   C_i = sum_k (dJ_i/dq_k - dJ_k/dq_i) v_k + dJ_i/dt - da0/dq_i,
// the cancellation is exact without expanding anything.
struct FormRates {
  ex eps;
  std::vector<ex> curl;
};

FormRates form_rates(const LinearForm &f, const SymbolTable &s) {
  size_t n = s.q.size();
  FormRates r{s.convective_derivative(f.e), std::vector<ex>(n, 0)};
  std::vector<std::vector<bool>> in(n, std::vector<bool>(n + 1, false));  // J_i contains q_k (k = n: t)
  for (size_t i = 0; i < n; ++i) {
    if (f.J[i].is_zero()) continue;
    for (size_t k = 0; k < n; ++k) in[i][k] = f.J[i].has(s.q[k]);
    in[i][n] = f.J[i].has(s.t);
  }
  std::vector<GiNaC::exvector> curl(n);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = i + 1; k < n; ++k) {
      if (!in[i][k] && !in[k][i]) continue;
      ex w = (in[i][k] ? f.J[i].diff(s.q[k]) : ex(0)) - (in[k][i] ? f.J[k].diff(s.q[i]) : ex(0));
      if (w.is_zero()) continue;
      curl[i].push_back(w * s.v[k]);
      curl[k].push_back(-w * s.v[i]);
    }
  GiNaC::exmap at_rest;
  for (auto &v : s.v) at_rest[v] = 0;
  ex a0 = f.e.subs(at_rest);
  for (size_t i = 0; i < n; ++i) {
    if (in[i][n]) curl[i].push_back(f.J[i].diff(s.t));
    if (a0.has(s.q[i])) curl[i].push_back(-a0.diff(s.q[i]));
    r.curl[i] = GiNaC::add(curl[i]);
  }
  return r;
}

}  // namespace

// For T = c a b with a = Ja v + a0, b = Jb v + b0: M = c (Ja Jb' + Jb Ja'), and
// d/dt dT/dv - dT/dq without the acceleration terms is
//   c' (b Ja + a Jb) + c (eps_b Ja + eps_a Jb) + c (b Ca + a Cb) - dc/dq a b,
// where ' is the convective derivative, eps the convective part of a' and b',
// and C their curls (FormRates).
KineticTerms derive_kinetic(const ex &T, const SymbolTable &s, const SourceLoc &where) {
  size_t n = s.q.size();
  // Terms are gathered and summed once at the end: adding to a GiNaC sum
  // one term at a time costs the size of the sum each time.
  std::vector<GiNaC::exvector> M(n * n), k(n);
  Splitter split(s);
  split.split(T, 1);
  std::map<ex, FormRates, GiNaC::ex_is_less> rates;  // by form: a square's, or one shared by terms
  auto rates_of = [&](const LinearForm &f) -> const FormRates & {
    auto it = rates.find(f.e);
    return it != rates.end() ? it->second : rates.emplace(f.e, form_rates(f, s)).first->second;
  };
  // c' and dc/dq (where c has q) by coefficient: the terms of m (x1'^2 + ... + xn'^2)
  // share one, and differentiating it once per term cost n times as much.
  struct CoefficientRates {
    ex dot;
    std::vector<std::optional<ex>> gradient;
  };
  std::map<ex, CoefficientRates, GiNaC::ex_is_less> coefficients;
  auto coefficient_rates = [&](const ex &c) -> const CoefficientRates & {
    auto it = coefficients.find(c);
    if (it != coefficients.end()) return it->second;
    CoefficientRates r{s.convective_derivative(c), std::vector<std::optional<ex>>(n)};
    for (size_t i = 0; i < n; ++i)
      if (c.has(s.q[i])) r.gradient[i] = c.diff(s.q[i]);
    return coefficients.emplace(c, std::move(r)).first->second;
  };
  for (const Bilinear &t : split.bilinear) {
    const FormRates &ra = rates_of(t.a), &rb = rates_of(t.b);
    // Only the coordinates a term involves: large systems are sparse.
    std::vector<size_t> moving;  // J_a or J_b nonzero
    for (size_t i = 0; i < n; ++i)
      if (!t.a.J[i].is_zero() || !t.b.J[i].is_zero()) moving.push_back(i);
    const CoefficientRates &cr = coefficient_rates(t.c);
    const ex &c_dot = cr.dot;
    for (size_t i : moving) {
      for (size_t j : moving) M[i * n + j].push_back(t.c * (t.a.J[i] * t.b.J[j] + t.b.J[i] * t.a.J[j]));
      k[i].push_back(c_dot * (t.b.e * t.a.J[i] + t.a.e * t.b.J[i]) + t.c * (rb.eps * t.a.J[i] + ra.eps * t.b.J[i]));
    }
    for (size_t i = 0; i < n; ++i) {
      if (!ra.curl[i].is_zero() || !rb.curl[i].is_zero()) k[i].push_back(t.c * (t.b.e * ra.curl[i] + t.a.e * rb.curl[i]));
      if (cr.gradient[i]) k[i].push_back(-*cr.gradient[i] * t.a.e * t.b.e);
    }
  }
  // The rest, directly: p = dT/dv, M = dp/dv, k = p' - dT/dq. p is
  // expanded, so a rest that would expand past a million terms is refused
  // before it is (a product of k sums is 2^k terms).
  if (expanded_terms(split.rest, kMaxRestTerms) > kMaxRestTerms)
    error_at(where, "the kinetic energy's terms that are not products of two forms linear in the velocities "
                        "(as every term of a T quadratic in them can be written) expand past " +
                        std::to_string(kMaxRestTerms) + " terms: write T as such products (m/2 (a'v)^2), or the "
                        "system as [bodies] and [frames]");
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
