// kkt_plan.cpp — the KKT solve inside NAME_rhs (docs/theory.md §3), by the
// range-space method: M = L L^T, Y = L^-1 J^T, S = Y Y^T = J M^-1 J^T,
// S = Ls Ls^T. Planned as straight-line statements over the structural
// nonzeros of M and J and their fill-in (a Cartesian chain's M is diagonal
// and its S tridiagonal); when those are too many, the printer writes dense
// loops over the compile-time sizes instead, so a 150 x 150 system stays a
// few hundred lines. The one-step correction (6.416-6.418) factors the same
// S, in the metric W = M or W = I, with the same statements: it is planned
// here too, and only where it stays straight-line.
//
// Rows the generator found redundant (Model::redundant) are left out of
// rhs's solve: no structural nonzeros, no pivot, multiplier 0. On the
// constraints they add nothing; off them (at a stage of a step) they would
// be solved as an independent, ill-conditioned row. The corrections keep them.
// A row without a diagonal entry in a factor's pattern is not in the system.
#include "plan/plan.h"

#include <lagrangec/thresholds.h>

namespace lgc {

namespace {

// Straight-line code up to this many multiply-adds and divisions; loops
// beyond. A dense M (no constraints) passes it at n = 24, where the
// runtime's LAPACK path starts to beat both (BENCHMARKS.md, "Large
// systems"); the runtime takes over only loop-solved models.
constexpr size_t kMaxStraightLineOps = 2600;

// A sparse system (a Cartesian chain: banded M, two points per constraint)
// stays straight-line up to this many operations when they are at most a
// quarter of the dense solve's, which loops or LAPACK would do instead: the
// 20-rod Cartesian chain's 6,900 (of 37,000 dense) run in 25,000
// instructions against 300,000 in loops, for 2.5 s more CPU of cc -O2
// (BENCHMARKS.md, "Where a Cartesian chain's rhs goes").
constexpr size_t kMaxSparseStraightLineOps = 8000;

// The multiply-adds and divisions of the same solve over dense M and J.
size_t dense_ops(size_t n, size_t c) {
  return n * n * n / 6 + c * n * n / 2 + c * c * n / 2 + c * c * c / 6 + 2 * n * n + 2 * c * n + c * c;
}

// A boolean matrix: which entries are structurally nonzero.
struct Pattern {
  size_t rows, cols;
  std::vector<char> nz;
  Pattern(size_t r, size_t c) : rows(r), cols(c), nz(r * c, 0) {}
  bool operator()(size_t i, size_t j) const { return nz[i * cols + j]; }
  void set(size_t i, size_t j) { nz[i * cols + j] = 1; }
};

// The lower-triangular pattern of a symmetric matrix's Cholesky factor.
Pattern cholesky_fill(Pattern a) {
  for (size_t j = 0; j < a.rows; ++j)
    for (size_t i = j + 1; i < a.rows; ++i)
      for (size_t k = 0; k < j && !a(i, j); ++k)
        if (a(i, k) && a(j, k)) a.set(i, j);
  return a;
}

class Planner {
 public:
  // leave_out_redundant: the rhs's solve, without the redundant rows.
  Planner(const Model &m, bool leave_out_redundant)
      : nq_(m.nq), nc_(m.nc()), M_(nq_, nq_), L_(nq_, nq_), J_(nc_, nq_), Y_(nc_, nq_), S_(nc_, nc_), Ls_(nc_, nc_),
        SI_(nc_, nc_), LsI_(nc_, nc_) {
    std::vector<bool> kept(nc_, true);
    if (leave_out_redundant)
      for (size_t c : m.redundant) kept[c] = false;
    for (size_t i = 0; i < nq_; ++i)
      for (size_t j = 0; j <= i; ++j)
        if (m.articulated.chosen ? m.articulated.couples(i, j) : !m.M(i, j).is_zero()) M_.set(i, j);
    L_ = cholesky_fill(M_);
    for (size_t c = 0; c < nc_; ++c)
      for (size_t i = 0; i < nq_; ++i)
        if (kept[c] && !m.J(c, i).is_zero()) J_.set(c, i);
    // Y_c = L^-1 J_c^T reaches every row that depends on a nonzero of J_c.
    for (size_t c = 0; c < nc_; ++c)
      for (size_t i = 0; i < nq_; ++i) {
        bool nz = J_(c, i);
        for (size_t k = 0; k < i && !nz; ++k) nz = L_(i, k) && Y_(c, k);
        if (nz) Y_.set(c, i);
      }
    for (size_t a = 0; a < nc_; ++a)
      for (size_t b = 0; b <= a; ++b)
        for (size_t i = 0; i < nq_; ++i)
          if (Y_(a, i) && Y_(b, i)) {
            S_.set(a, b);
            break;
          }
    Ls_ = cholesky_fill(S_);
    for (size_t a = 0; a < nc_; ++a)
      for (size_t b = 0; b <= a; ++b)
        for (size_t i = 0; i < nq_; ++i)
          if (J_(a, i) && J_(b, i)) {
            SI_.set(a, b);
            break;
          }
    LsI_ = cholesky_fill(SI_);
  }

  // Factoring: M (lower triangle) becomes L, S its factor; Y = L^-1 J^T,
  // J read from the array `jacobian`; a pivot of S not above `tolerance`
  // times its diagonal entry returns `failure`.
  std::vector<SolveLine> factor(const char *jacobian, const char *failure, double tolerance) const {
    std::vector<SolveLine> s;
    heading(s, "M = L L^T in place");
    cholesky(s, "M", M_, L_, nq_, "SINGULAR_MASS", LGC_MASS_PIVOT);
    if (!nc_) return s;
    heading(s, (std::string("Y = L^-1 ") + jacobian + "^T, a row per constraint").c_str());
    for (size_t c = 0; c < nc_; ++c)
      for (size_t i = 0; i < nq_; ++i) {
        if (!Y_(c, i)) continue;
        SolveLine y = assign(at("Y", c, i, nq_));
        if (J_(c, i)) y.base = at(jacobian, c, i, nq_);
        for (size_t k = 0; k < i; ++k)
          if (L_(i, k) && Y_(c, k)) y.products.push_back({at("M", i, k, nq_), at("Y", c, k, nq_)});
        if (!y.base && y.products.empty()) continue;
        y.divisor = at("M", i, i, nq_);
        s.push_back(y);
      }
    heading(s, "S = Y Y^T");
    for (size_t a = 0; a < nc_; ++a)
      for (size_t b = 0; b <= a; ++b) {
        SolveLine e = assign(at("S", a, b, nc_));
        e.sign = +1;
        for (size_t i = 0; i < nq_; ++i)
          if (Y_(a, i) && Y_(b, i)) e.products.push_back({at("Y", a, i, nq_), at("Y", b, i, nq_)});
        if (!e.products.empty()) s.push_back(e);
      }
    heading(s, "S = Ls Ls^T in place");
    cholesky(s, "S", S_, Ls_, nc_, failure, tolerance);
    return s;
  }

  // The correction's factor in the metric W = I: S = J J^T, J from the
  // array `jacobian`, and its Cholesky factor.
  std::vector<SolveLine> factor_identity(const char *jacobian, double tolerance) const {
    std::vector<SolveLine> s;
    heading(s, (std::string("S = ") + jacobian + " " + jacobian + "^T").c_str());
    for (size_t a = 0; a < nc_; ++a)
      for (size_t b = 0; b <= a; ++b) {
        SolveLine e = assign(at("S", a, b, nc_));
        e.sign = +1;
        for (size_t i = 0; i < nq_; ++i)
          if (J_(a, i) && J_(b, i)) e.products.push_back({at(jacobian, a, i, nq_), at(jacobian, b, i, nq_)});
        if (!e.products.empty()) s.push_back(e);
      }
    heading(s, "S = Ls Ls^T in place");
    cholesky(s, "S", SI_, LsI_, nc_, "SINGULAR_CONSTRAINTS", tolerance);
    return s;
  }

  // The correction on the first `rows` constraint rows (S's factor for them
  // is the leading block of the whole one): on entry K holds the target r,
  // on return K = S^-1 r and d = W^-1 J^T K, J from the array `jacobian`.
  std::vector<SolveLine> correct(const char *jacobian, bool mass, size_t rows) const {
    std::vector<SolveLine> s;
    heading(s, "K = S^-1 K");
    substitute(s, "S", mass ? Ls_ : LsI_, rows, nc_, "K");
    heading(s, mass ? (std::string("d = M^-1 ") + jacobian + "^T K").c_str() : (std::string("d = ") + jacobian + "^T K").c_str());
    for (size_t i = 0; i < nq_; ++i) {
      SolveLine d = assign({"d", i});
      d.sign = +1;
      for (size_t c = 0; c < rows; ++c)
        if (J_(c, i)) d.products.push_back({at(jacobian, c, i, nq_), {"K", c}});
      s.push_back(d);
    }
    if (mass) substitute(s, "M", L_, nq_, nq_, "d");
    return s;
  }

  // With M and S factored: on entry a holds f and nu holds r; on return the solution.
  std::vector<SolveLine> solve() const {
    std::vector<SolveLine> s;
    heading(s, "a = M^-1 f");
    substitute(s, "M", L_, nq_, nq_, "a");
    if (!nc_) return s;
    heading(s, "nu = S^-1 (r - J a)");
    for (size_t c = 0; c < nc_; ++c) {
      SolveLine nu = assign({"nu", c});
      nu.base = ArrayRef{"nu", c};
      for (size_t i = 0; i < nq_; ++i)
        if (J_(c, i)) nu.products.push_back({at("J", c, i, nq_), {"a", i}});
      if (!Ls_(c, c)) nu.base.reset();  // a row left out: multiplier 0
      if (!nu.products.empty() || !nu.base) s.push_back(nu);
    }
    substitute(s, "S", Ls_, nc_, nc_, "nu");
    heading(s, "a += M^-1 J^T nu");
    for (size_t i = 0; i < nq_; ++i) {
      SolveLine w = assign({"w", i});
      w.sign = +1;
      for (size_t c = 0; c < nc_; ++c)
        if (J_(c, i)) w.products.push_back({at("J", c, i, nq_), {"nu", c}});
      s.push_back(w);
    }
    substitute(s, "M", L_, nq_, nq_, "w");
    for (size_t i = 0; i < nq_; ++i) {
      SolveLine add = line(SolveLine::add, "", {"a", i});
      add.base = ArrayRef{"w", i};
      s.push_back(add);
    }
    return s;
  }

 private:
  size_t nq_, nc_;
  Pattern M_, L_, J_, Y_, S_, Ls_;  // M, S as assigned; L, Ls their factors' patterns, fill-in included
  Pattern SI_, LsI_;                 // S = J J^T (the correction's metric W = I) and its factor's pattern

  static ArrayRef at(const char *array, size_t i, size_t j, size_t cols) { return {array, i * cols + j}; }
  static SolveLine line(SolveLine::Kind kind, const std::string &text, ArrayRef target) {
    SolveLine l;
    l.kind = kind, l.text = text, l.target = target;
    return l;
  }
  static SolveLine assign(ArrayRef target) { return line(SolveLine::assign, "", target); }
  static void heading(std::vector<SolveLine> &s, const char *text) { s.push_back(line(SolveLine::heading, text, {"", 0})); }

  // Cholesky in place over the pattern L (fill included) of A; a pivot not
  // above `tolerance` times its diagonal entry returns the status `failure`.
  // A fill-in entry starts from nothing: what the array holds there is
  // never read, so the caller need not zero it.
  static void cholesky(std::vector<SolveLine> &s, const char *a, const Pattern &A, const Pattern &L, size_t n,
                       const char *failure, double tolerance) {
    for (size_t j = 0; j < n; ++j) {
      if (!L(j, j)) continue;
      SolveLine pivot = line(SolveLine::pivot, failure, at(a, j, j, n));
      pivot.tolerance = tolerance;
      for (size_t k = 0; k < j; ++k)
        if (L(j, k)) pivot.products.push_back({at(a, j, k, n), at(a, j, k, n)});
      s.push_back(pivot);
      for (size_t i = j + 1; i < n; ++i) {
        if (!L(i, j)) continue;
        SolveLine e = assign(at(a, i, j, n));
        if (A(i, j)) e.base = at(a, i, j, n);
        for (size_t k = 0; k < j; ++k)
          if (L(i, k) && L(j, k)) e.products.push_back({at(a, i, k, n), at(a, j, k, n)});
        e.divisor = at(a, j, j, n);
        s.push_back(e);
      }
    }
  }

  // x := (L L^T)^-1 x over the pattern of L's leading n x n block (a's rows
  // `stride` long): forward, then back substitution.
  static void substitute(std::vector<SolveLine> &s, const char *a, const Pattern &L, size_t n, size_t stride,
                         const char *x) {
    for (size_t i = 0; i < n; ++i) {
      if (!L(i, i)) continue;
      SolveLine e = assign({x, i});
      e.base = ArrayRef{x, i};
      for (size_t k = 0; k < i; ++k)
        if (L(i, k)) e.products.push_back({at(a, i, k, stride), {x, k}});
      e.divisor = at(a, i, i, stride);
      s.push_back(e);
    }
    for (size_t i = n; i-- > 0;) {
      if (!L(i, i)) continue;
      SolveLine e = assign({x, i});
      e.base = ArrayRef{x, i};
      for (size_t k = i + 1; k < n; ++k)
        if (L(k, i)) e.products.push_back({at(a, k, i, stride), {x, k}});
      e.divisor = at(a, i, i, stride);
      s.push_back(e);
    }
  }
};

// The arrays of `params` no line mentions, in order.
std::vector<std::string> unmentioned(const std::vector<SolveLine> &lines, std::vector<std::string> params) {
  auto mentions = [&](const std::string &p) {
    auto is = [&](const std::optional<ArrayRef> &r) { return r && p == r->array; };
    for (auto &l : lines) {
      if (l.kind == SolveLine::heading) continue;
      if (is(l.target) || is(l.base) || is(l.divisor)) return true;
      for (auto &[a, b] : l.products)
        if (is(a) || is(b)) return true;
    }
    return false;
  };
  std::vector<std::string> unused;
  for (auto &p : params)
    if (!mentions(p)) unused.push_back(p);
  return unused;
}

// Multiply-adds and divisions.
size_t ops_of(const std::vector<SolveLine> &lines) {
  size_t ops = 0;
  for (auto &l : lines) ops += l.products.size() + (l.divisor ? 1 : 0);
  return ops;
}

// kkt_plan's cost rule: straight-line code where it pays.
bool pays_straight_line(size_t ops, const Model &m) {
  return ops <= kMaxStraightLineOps || (ops <= kMaxSparseStraightLineOps && 4 * ops <= dense_ops(m.nq, m.nc()));
}

}  // namespace

KktSolver plan_kkt_solver(const Model &m) {
  Planner planner(m, true);
  KktSolver k;
  // A pivot of S keeping no more than LGC_ROWS_PIVOT of its diagonal entry
  // hands the solve to the minimum-norm fallback (gen/kernels/min_norm.c):
  // the rows are dependent there, or nearly.
  k.factor = planner.factor("J", "RANK_DEFICIENT", LGC_ROWS_PIVOT);
  k.solve = planner.solve();
  k.ops = ops_of(k.factor) + ops_of(k.solve);
  k.straight_line = pays_straight_line(k.ops, m);
  k.factor_unused = unmentioned(k.factor, {"M", "J", "Y", "S"});
  k.solve_unused = unmentioned(k.solve, {"M", "J", "S", "a", "nu", "w"});
  return k;
}

namespace {

// Whether two lists of lines are one, array `a_name` of the first standing
// for `b_name` of the second, whatever their headings and their pivots'
// failure texts.
bool same_but_names(const std::vector<SolveLine> &a, const std::vector<SolveLine> &b, const char *a_name,
                    const char *b_name) {
  auto same_ref = [&](const ArrayRef &x, const ArrayRef &y) {
    std::string xa = x.array, ya = y.array;
    return (xa == ya || (xa == a_name && ya == b_name)) && x.index == y.index;
  };
  auto same_optional = [&](const std::optional<ArrayRef> &x, const std::optional<ArrayRef> &y) {
    return x.has_value() == y.has_value() && (!x || same_ref(*x, *y));
  };
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const SolveLine &x = a[i], &y = b[i];
    if (x.kind != y.kind || x.tolerance != y.tolerance || x.sign != y.sign || !same_ref(x.target, y.target) ||
        !same_optional(x.base, y.base) || !same_optional(x.divisor, y.divisor) || x.products.size() != y.products.size())
      return false;
    for (size_t j = 0; j < x.products.size(); ++j)
      if (!same_ref(x.products[j].first, y.products[j].first) || !same_ref(x.products[j].second, y.products[j].second))
        return false;
  }
  return true;
}

}  // namespace

CorrectionSolver plan_correction_solver(const Model &m, const KktSolver &kkt) {
  CorrectionSolver k;
  if (!m.nc()) return k;
  Planner planner(m, false);
  // Below LGC_ROWS_PIVOT the correction hands over to the runtime's SVD, as
  // its generic path does (project.c): past it the normal equations lose
  // the digits that matter.
  k.factor_mass = planner.factor("C", "SINGULAR_CONSTRAINTS", LGC_ROWS_PIVOT);
  k.factor_identity = planner.factor_identity("C", LGC_ROWS_PIVOT);
  // Positions correct the holonomic rows alone, velocities all of them.
  std::vector<size_t> rows = {m.nc()};
  if (m.nh && m.nh < m.nc()) rows.insert(rows.begin(), m.nh);
  for (size_t r : rows)
    for (bool mass : {true, false}) {
      CorrectionSolver::Solve solve{r, mass, planner.correct("C", mass, r), {}};
      solve.unused = unmentioned(solve.lines, {"M", "C", "S", "K", "d"});
      k.solves.push_back(solve);
    }
  k.factor_mass_unused = unmentioned(k.factor_mass, {"M", "C", "Y", "S"});
  k.factor_identity_unused = unmentioned(k.factor_identity, {"C", "S"});
  for (auto *lines : {&k.factor_mass, &k.factor_identity}) k.ops += ops_of(*lines);
  for (auto &solve : k.solves) k.ops += ops_of(solve.lines);
  k.available = pays_straight_line(k.ops, m);
  k.mass_is_kkt_factor = kkt.straight_line && same_but_names(kkt.factor, k.factor_mass, "J", "C");
  return k;
}

}  // namespace lgc
