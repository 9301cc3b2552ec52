// regressor.cpp — the inverse dynamics as a linear map of the parameters:
// tau = M q'' + k - Q (every input 0) = Y(t, q, q', q'') theta(p), theta the
// distinct monomials of the parameters in tau (the standard parameters), and
// the base parameters: the columns of Y that are combinations with constant
// coefficients of the columns before them merged into those, exactly.
#include "model/model.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <sstream>

namespace lgc {

namespace {

using GiNaC::ex;
using GiNaC::numeric;

// Past these, a model gets no regressor (its NAME.md says so) rather than an
// expansion that outgrows the generator: tau's tree, each shared
// subexpression counted once per use as expand sees it, and its expanded terms.
constexpr size_t kMaxTreeNodes = 200000;
constexpr size_t kMaxExpandedTerms = 20000;

size_t tree_size(const ex &e, size_t budget) {
  size_t n = 1;
  for (size_t i = 0; i < e.nops() && n <= budget; ++i) n += tree_size(e.op(i), budget - n);
  return std::min(n, budget + 1);
}

bool has_any(const ex &e, const std::vector<GiNaC::realsymbol> &symbols) {
  for (auto &s : symbols)
    if (e.has(s)) return true;
  return false;
}

// Where factor f holds a parameter other than as a power of it, in words
// of the spec's (GiNaC's printing order depends on the process's history,
// and the report must not): "eps inside tanh", "m1 in a denominator".
std::string misplaced(const ex &f, const Model &m) {
  std::string name;
  for (size_t j = 0; j < m.symbols.p.size(); ++j)
    if (f.has(m.symbols.p[j])) name += (name.empty() ? "" : ", ") + m.spec->parameters[j].name;
  if (GiNaC::is_a<GiNaC::function>(f)) return name + " inside " + GiNaC::ex_to<GiNaC::function>(f).get_name();
  if (GiNaC::is_a<GiNaC::power>(f) && f.op(1).info(GiNaC::info_flags::negative)) return name + " in a denominator";
  return name + " in a power that is not a positive integer one of it";
}

// sin and cos of sums and integer multiples written out, so that a column
// is a sum of products of sines and cosines of the arguments as written.
ex expand_trig(const ex &e) {
  ex x = e.map([](const ex &a) { return expand_trig(a); });
  bool is_sin = GiNaC::is_the_function<GiNaC::sin_SERIAL>(x), is_cos = GiNaC::is_the_function<GiNaC::cos_SERIAL>(x);
  if (!is_sin && !is_cos) return x;
  ex arg = x.op(0).expand();
  ex a, b;  // arg = a + b
  if (GiNaC::is_a<GiNaC::add>(arg)) {
    a = arg.op(0), b = arg - arg.op(0);
  } else if (GiNaC::is_a<GiNaC::mul>(arg)) {
    ex c = arg.op(arg.nops() - 1);
    if (!GiNaC::is_a<numeric>(c) || !c.info(GiNaC::info_flags::integer)) return x;
    ex rest = arg / c;
    if (c.info(GiNaC::info_flags::negative)) return is_sin ? -expand_trig(sin(-arg)) : expand_trig(cos(-arg));
    if (c == 1) return x;
    a = rest, b = arg - rest;
  } else {
    return x;
  }
  ex sa = expand_trig(sin(a)), ca = expand_trig(cos(a)), sb = expand_trig(sin(b)), cb = expand_trig(cos(b));
  return is_sin ? sa * cb + ca * sb : ca * cb - sa * sb;
}

// A canonical form under cos^2 + sin^2 = 1: expanded, every cos of degree
// below 2.
ex circle_reduced(const ex &e) {
  ex x = expand_trig(e).expand();
  const ex rule = pow(cos(GiNaC::wild(0)), 2) == 1 - pow(sin(GiNaC::wild(0)), 2);
  for (int round = 0; round < 64; ++round) {
    ex y = x.subs(rule, GiNaC::subs_options::algebraic).expand();
    if (y.is_equal(x)) break;
    x = y;
  }
  return x;
}

// e, expanded, as numeric coefficients of its other factors.
void add_terms(const ex &e, std::map<ex, numeric, GiNaC::ex_is_less> &terms) {
  auto one = [&](const ex &t) {
    numeric c = 1;
    ex rest = 1;
    if (GiNaC::is_a<numeric>(t)) {
      c = GiNaC::ex_to<numeric>(t);
    } else if (GiNaC::is_a<GiNaC::mul>(t)) {
      for (size_t i = 0; i < t.nops(); ++i)
        if (GiNaC::is_a<numeric>(t.op(i)))
          c *= GiNaC::ex_to<numeric>(t.op(i));
        else
          rest *= t.op(i);
    } else {
      rest = t;
    }
    terms[rest] += c;
  };
  if (GiNaC::is_a<GiNaC::add>(e))
    for (size_t i = 0; i < e.nops(); ++i) one(e.op(i));
  else if (!e.is_zero())
    one(e);
}

}  // namespace

Regressor derive_regressor(const Model &m) {
  Regressor r;
  const auto &params = m.symbols.p;
  GiNaC::exmap no_input;
  for (auto &u : m.symbols.u) no_input[u] = 0;
  std::vector<ex> tau;
  for (size_t i = 0; i < m.nq; ++i) {
    tau.push_back(m.inverse_dynamics[i] - m.Q[i].subs(no_input));
    if (tree_size(tau.back(), kMaxTreeNodes) > kMaxTreeNodes || expanded_terms(tau.back(), kMaxExpandedTerms) > kMaxExpandedTerms) {
      r.absent = "tau's row " + m.spec->coordinates[i].name + " expands past " + std::to_string(kMaxExpandedTerms) +
                 " terms (the generator's bound)";
      return r;
    }
  }
  bool any = false;
  for (auto &t : tau) any = any || has_any(t, params);
  if (!any) {
    r.absent = "tau holds no parameter";
    return r;
  }
  // Each term of tau: a monomial of the parameters times a coefficient free of them.
  std::set<std::string> misplacements;  // sorted: GiNaC's order of the terms is not stable
  std::map<ex, size_t, GiNaC::ex_is_less> column_of;
  std::vector<std::vector<ex>> column;  // [k][i]
  for (size_t i = 0; i < m.nq; ++i) {
    ex e = tau[i].expand();
    std::vector<ex> terms;
    if (GiNaC::is_a<GiNaC::add>(e))
      for (size_t j = 0; j < e.nops(); ++j) terms.push_back(e.op(j));
    else if (!e.is_zero())
      terms.push_back(e);
    for (const ex &term : terms) {
      ex monomial = 1, coefficient = 1;
      std::vector<ex> factors;
      if (GiNaC::is_a<GiNaC::mul>(term))
        for (size_t j = 0; j < term.nops(); ++j) factors.push_back(term.op(j));
      else
        factors.push_back(term);
      for (const ex &f : factors) {
        if (!has_any(f, params)) {
          coefficient *= f;
          continue;
        }
        bool parameter = GiNaC::is_a<GiNaC::symbol>(f) ||
                         (GiNaC::is_a<GiNaC::power>(f) && GiNaC::is_a<GiNaC::symbol>(f.op(0)) &&
                          f.op(1).info(GiNaC::info_flags::posint));
        if (!parameter) misplacements.insert("its row " + m.spec->coordinates[i].name + " holds " + misplaced(f, m));
        monomial *= f;
      }
      auto at = column_of.emplace(monomial, column.size());
      if (at.second) column.emplace_back(m.nq, ex(0));
      column[at.first->second][i] += coefficient;
    }
  }
  if (!misplacements.empty()) {
    r.absent = "tau is not linear in monomials of the parameters:";
    for (auto &text : misplacements) r.absent += (text == *misplacements.begin() ? " " : "; ") + text;
    return r;
  }
  // The standard parameters in an order of the spec's, not of GiNaC's
  // (which depends on what else the process derived): by their exponents
  // of the parameters in spec order, highest first.
  std::vector<std::pair<std::vector<int>, ex>> order;
  for (auto &[monomial, k] : column_of) {
    std::vector<int> exponents;
    for (auto &p : params) exponents.push_back(monomial.degree(p));
    order.push_back({exponents, monomial});
  }
  std::sort(order.begin(), order.end(), [](auto &a, auto &b) { return a.first > b.first; });
  auto monomial_text = [&](const std::vector<int> &exponents) {
    std::string s;
    for (size_t j = 0; j < params.size(); ++j)
      if (exponents[j])
        s += (s.empty() ? "" : "*") + m.spec->parameters[j].name +
             (exponents[j] > 1 ? "^" + std::to_string(exponents[j]) : "");
    return s.empty() ? std::string("1") : s;
  };
  const size_t K = order.size();
  r.Y = GiNaC::matrix(m.nq, K);
  for (size_t k = 0; k < K; ++k) {
    r.standard.push_back(order[k].second);
    r.standard_text.push_back(monomial_text(order[k].first));
    for (size_t i = 0; i < m.nq; ++i) r.Y(i, k) = column[column_of.at(order[k].second)][i];
  }
  // The columns as exact coordinates over the distinct terms of their rows,
  // reduced to row echelon form: the pivots are the base columns, and a
  // column without a pivot is its entries' combination of them.
  std::map<std::pair<size_t, ex>, size_t, bool (*)(const std::pair<size_t, ex> &, const std::pair<size_t, ex> &)> row_of(
      [](const std::pair<size_t, ex> &a, const std::pair<size_t, ex> &b) {
        return a.first != b.first ? a.first < b.first : GiNaC::ex_is_less()(a.second, b.second);
      });
  std::vector<std::vector<numeric>> A;  // [row][k]
  for (size_t k = 0; k < K; ++k)
    for (size_t i = 0; i < m.nq; ++i) {
      std::map<ex, numeric, GiNaC::ex_is_less> terms;
      add_terms(circle_reduced(r.Y(i, k)), terms);
      for (auto &[term, c] : terms) {
        if (c.is_zero()) continue;
        auto at = row_of.emplace(std::make_pair(i, term), A.size());
        if (at.second) A.emplace_back(K, numeric(0));
        A[at.first->second][k] = c;
      }
    }
  std::vector<size_t> pivot_row_of(K, SIZE_MAX);
  size_t rank = 0;
  for (size_t k = 0; k < K && rank < A.size(); ++k) {
    size_t p = rank;
    while (p < A.size() && A[p][k].is_zero()) ++p;
    if (p == A.size()) continue;
    std::swap(A[p], A[rank]);
    numeric scale = A[rank][k];
    for (auto &x : A[rank]) x /= scale;
    for (size_t row = 0; row < A.size(); ++row)
      if (row != rank && !A[row][k].is_zero()) {
        numeric f = A[row][k];
        for (size_t j = 0; j < K; ++j) A[row][j] -= f * A[rank][j];
      }
    pivot_row_of[k] = rank++;
  }
  for (size_t k = 0; k < K; ++k) {
    if (pivot_row_of[k] == SIZE_MAX) continue;
    ex base = r.standard[k];
    std::vector<size_t> merged = {k};
    for (size_t j = k + 1; j < K; ++j)
      if (pivot_row_of[j] == SIZE_MAX && !A[pivot_row_of[k]][j].is_zero()) {
        base += A[pivot_row_of[k]][j] * r.standard[j];
        merged.push_back(j);
      }
    std::string text = r.standard_text[k];
    for (size_t j : merged)
      if (j != k) {
        numeric c = A[pivot_row_of[k]][j];
        std::ostringstream factor;
        if (abs(c) != 1) factor << abs(c) << "*";
        text += (c < 0 ? " - " : " + ") + factor.str() + r.standard_text[j];
      }
    r.base_columns.push_back(k);
    r.base.push_back(base);
    r.merged.push_back(merged);
    r.base_text.push_back(text);
  }
  return r;
}

}  // namespace lgc
