// emit_solve.cpp — the KKT solve inside NAME_rhs (DESIGN.md §1), by the
// range-space method: M = L L^T, Y = L^-1 J^T, S = Y Y^T = J M^-1 J^T,
// S = Ls Ls^T. Small or sparse systems get straight-line code over the
// structural nonzeros (a Cartesian chain's M is diagonal and its S
// tridiagonal); large dense ones get loops over the compile-time sizes, so a
// 150 x 150 system stays a few hundred lines.
#include "lagrangec.h"

#include <sstream>

namespace lgc {

namespace {

// Straight-line code up to this many multiply-adds; loops beyond. A dense
// M (no constraints) passes it at n = 24, where the runtime's LAPACK path
// starts to beat both (BENCHMARKS.md, "Large systems"); the runtime takes
// over only loop-solved models.
constexpr size_t kMaxStraightLineOps = 2600;

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

// The straight-line solver, as text, with its operation count.
class SparseSolver {
 public:
  SparseSolver(const Model &m, const Names &n) : n_(n), nq_(m.nq), nc_(m.nh + m.nn), L_(nq_, nq_), J_(nc_, nq_),
                                                 Y_(nc_, nq_), Ls_(nc_, nc_) {
    Pattern M(nq_, nq_);
    for (size_t i = 0; i < nq_; ++i)
      for (size_t j = 0; j <= i; ++j)
        if (!m.M(i, j).is_zero()) M.set(i, j);
    L_ = cholesky_fill(M);
    GiNaC::matrix J = stacked_jacobian(m);
    for (size_t c = 0; c < nc_; ++c)
      for (size_t i = 0; i < nq_; ++i)
        if (!J(c, i).is_zero()) J_.set(c, i);
    // Y_c = L^-1 J_c^T reaches every row that depends on a nonzero of J_c.
    for (size_t c = 0; c < nc_; ++c)
      for (size_t i = 0; i < nq_; ++i) {
        bool nz = J_(c, i);
        for (size_t k = 0; k < i && !nz; ++k) nz = L_(i, k) && Y_(c, k);
        if (nz) Y_.set(c, i);
      }
    Pattern S(nc_, nc_);
    for (size_t a = 0; a < nc_; ++a)
      for (size_t b = 0; b <= a; ++b)
        for (size_t i = 0; i < nq_; ++i)
          if (Y_(a, i) && Y_(b, i)) {
            S.set(a, b);
            break;
          }
    Ls_ = cholesky_fill(S);
  }

  size_t ops() const { return ops_; }

  std::string source() {
    std::ostringstream s;
    s << "/*\n** The KKT system of DESIGN.md §1,\n"
         "**     [ M  -J^T ] [ a  ]   [ f ]\n"
         "**     [ J   0   ] [ nu ] = [ r ],\n"
         "** by the range-space method: a0 = M^-1 f, S = J M^-1 J^T, S nu = r - J a0,\n"
         "** a = a0 + M^-1 J^T nu, with two Cholesky factorisations. The code below\n"
         "** is specialised to the structural nonzeros of M and J (and their fill-in).\n"
         "** Factoring: M (lower triangle) becomes L, S its factor; Y = L^-1 J^T.\n*/\n";
    s << "static int " << n_.fn("factor_kkt") << "(double M[], const double J[], double Y[], double S[])\n{\n";
    s << "    double d;\n";
    if (nc_ == 0) s << "    (void)J;\n    (void)Y;\n    (void)S;\n";
    s << "    /* M = L L^T in place */\n";
    factor(s, "M", L_, nq_, n_.size("SINGULAR_MASS"));
    if (nc_) {
      s << "    /* Y = L^-1 J^T, a row per constraint */\n";
      for (size_t c = 0; c < nc_; ++c)
        for (size_t i = 0; i < nq_; ++i) {
          if (!Y_(c, i)) continue;
          std::string e = J_(c, i) ? at("J", c, i, nq_) : "";
          for (size_t k = 0; k < i; ++k)
            if (L_(i, k) && Y_(c, k)) e += " - " + at("M", i, k, nq_) + "*" + at("Y", c, k, nq_), ++ops_;
          if (e.empty()) continue;
          if (e.rfind(" - ", 0) == 0) e = "-" + e.substr(3);
          s << "    " << at("Y", c, i, nq_) << " = " << grouped(e) << "/" << at("M", i, i, nq_) << ";\n";
          ++ops_;
        }
      s << "    /* S = Y Y^T */\n";
        for (size_t a = 0; a < nc_; ++a)
        for (size_t b = 0; b <= a; ++b) {
          std::string e;
          for (size_t i = 0; i < nq_; ++i)
            if (Y_(a, i) && Y_(b, i)) e += (e.empty() ? "" : " + ") + at("Y", a, i, nq_) + "*" + at("Y", b, i, nq_), ++ops_;
          if (!e.empty()) s << "    " << at("S", a, b, nc_) << " = " << e << ";\n";
        }
      s << "    /* S = Ls Ls^T in place */\n";
      factor(s, "S", Ls_, nc_, n_.size("SINGULAR_CONSTRAINTS"));
    }
    s << "    return " << n_.size("OK") << ";\n}\n\n";

    s << "/* With M and S factored: on entry a holds f and nu holds r; on return the solution. w is scratch. */\n";
    s << "static void " << n_.fn("solve_kkt")
      << "(const double M[], const double J[], const double S[],\n    double a[], double nu[], double w[])\n{\n";
    if (nc_ == 0) s << "    (void)J;\n    (void)S;\n    (void)nu;\n    (void)w;\n";
    s << "    /* a = M^-1 f */\n";
    substitute(s, "M", L_, nq_, "a");
    if (nc_) {
      s << "    /* nu = S^-1 (r - J a) */\n";
      for (size_t c = 0; c < nc_; ++c) {
        std::string e;
        for (size_t i = 0; i < nq_; ++i)
          if (J_(c, i)) e += " - " + at("J", c, i, nq_) + "*a[" + std::to_string(i) + "]", ++ops_;
        if (!e.empty()) s << "    nu[" << c << "] = nu[" << c << "]" << e << ";\n";
      }
      substitute(s, "S", Ls_, nc_, "nu");
      s << "    /* a += M^-1 J^T nu */\n";
      for (size_t i = 0; i < nq_; ++i) {
        std::string e;
        for (size_t c = 0; c < nc_; ++c)
          if (J_(c, i)) e += (e.empty() ? "" : " + ") + at("J", c, i, nq_) + "*nu[" + std::to_string(c) + "]", ++ops_;
        s << "    w[" << i << "] = " << (e.empty() ? "0.0" : e) << ";\n";
      }
      substitute(s, "M", L_, nq_, "w");
      for (size_t i = 0; i < nq_; ++i) s << "    a[" << i << "] += w[" << i << "];\n";
    }
    s << "}\n";
    return s.str();
  }

 private:
  const Names &n_;
  size_t nq_, nc_;
  Pattern L_, J_, Y_, Ls_;
  size_t ops_ = 0;

  // (e) where e is a difference, e alone where it is one term.
  static std::string grouped(const std::string &e) { return e.find(' ') == std::string::npos ? e : "(" + e + ")"; }

  static std::string at(const char *array, size_t i, size_t j, size_t cols) {
    return std::string(array) + "[" + std::to_string(i * cols + j) + "]";
  }

  // Cholesky in place over the pattern L (fill included); a pivot that is
  // not positive beyond round-off returns `failure`.
  void factor(std::ostringstream &s, const char *a, const Pattern &L, size_t n, const std::string &failure) {
    for (size_t j = 0; j < n; ++j) {
      std::string pivot = at(a, j, j, n);
      s << "    d = " << pivot;
      for (size_t k = 0; k < j; ++k)
        if (L(j, k)) s << " - " << at(a, j, k, n) << "*" << at(a, j, k, n), ++ops_;
      s << ";\n    if (!(d > 1e-13*" << pivot << ")) return " << failure << ";\n";
      s << "    " << pivot << " = sqrt(d);\n";
      for (size_t i = j + 1; i < n; ++i) {
        if (!L(i, j)) continue;
        std::string e = at(a, i, j, n);
        for (size_t k = 0; k < j; ++k)
          if (L(i, k) && L(j, k)) e += " - " + at(a, i, k, n) + "*" + at(a, j, k, n), ++ops_;
        s << "    " << at(a, i, j, n) << " = " << grouped(e) << "/" << pivot << ";\n";
        ++ops_;
      }
    }
  }

  // x := (L L^T)^-1 x over the pattern of L.
  void substitute(std::ostringstream &s, const char *a, const Pattern &L, size_t n, const char *x) {
    auto xi = [&](size_t i) { return std::string(x) + "[" + std::to_string(i) + "]"; };
    for (size_t i = 0; i < n; ++i) {
      std::string e = xi(i);
      for (size_t k = 0; k < i; ++k)
        if (L(i, k)) e += " - " + at(a, i, k, n) + "*" + xi(k), ++ops_;
      s << "    " << xi(i) << " = " << grouped(e) << "/" << at(a, i, i, n) << ";\n";
    }
    for (size_t i = n; i-- > 0;) {
      std::string e = xi(i);
      for (size_t k = i + 1; k < n; ++k)
        if (L(k, i)) e += " - " + at(a, k, i, n) + "*" + xi(k), ++ops_;
      s << "    " << xi(i) << " = " << grouped(e) << "/" << at(a, i, i, n) << ";\n";
    }
    ops_ += 2 * n;
  }
};

std::string dense_solver(const Names &n) {
  const std::string Q = n.size("NQ"), C = n.size("NC"), p = n.p;
  std::ostringstream s;
  s << R"(/*
** Dense Cholesky factorisation in place: the lower triangle of the n x n
** row-major matrix a becomes L with L L^T = a. Returns 0 when a pivot is not
** positive beyond round-off, i.e. the matrix is singular or indefinite.
*/
static int )" << p << R"(_cholesky(int n, double a[])
{
    int i, j, k;
    for (j = 0; j < n; ++j) {
        const double scale = a[j*n + j];
        double d = scale;
        for (k = 0; k < j; ++k) d -= a[j*n + k]*a[j*n + k];
        if (!(d > 1e-13*scale)) return 0;
        d = sqrt(d);
        a[j*n + j] = d;
        for (i = j + 1; i < n; ++i) {
            double s = a[i*n + j];
            for (k = 0; k < j; ++k) s -= a[i*n + k]*a[j*n + k];
            a[i*n + j] = s/d;
        }
    }
    return 1;
}

/* b := L^-1 b, then, if `transposed_too`, b := L^-T b: with both, b := a^-1 b. */
static void )" << p << R"(_cholesky_solve(int n, const double L[], double b[], int transposed_too)
{
    int i, k;
    for (i = 0; i < n; ++i) {
        double s = b[i];
        for (k = 0; k < i; ++k) s -= L[i*n + k]*b[k];
        b[i] = s/L[i*n + i];
    }
    if (!transposed_too) return;
    for (i = n - 1; i >= 0; --i) {
        double s = b[i];
        for (k = i + 1; k < n; ++k) s -= L[k*n + i]*b[k];
        b[i] = s/L[i*n + i];
    }
}

/*
** The KKT system of DESIGN.md §1,
**     [ M  -J^T ] [ a  ]   [ f ]
**     [ J   0   ] [ nu ] = [ r ],
** by the range-space method: a0 = M^-1 f, S = J M^-1 J^T, S nu = r - J a0,
** a = a0 + M^-1 J^T nu. M and S are symmetric positive definite when the
** mass matrix is and the constraint rows are independent, so two Cholesky
** factorisations do it without pivoting.
**
** Factoring: M (lower triangle) becomes its factor L, S its factor; Y is
** scratch (row i of Y is L^-1 J_i^T, so S = Y Y^T).
*/
static int )" << p << R"(_factor_kkt(double M[], const double J[], double Y[], double S[])
{
    int i, j, k;
    if (!)" << p << R"(_cholesky()" << Q << R"(, M)) return )" << n.size("SINGULAR_MASS") << R"(;
    for (i = 0; i < )" << C << R"(; ++i) {
        for (k = 0; k < )" << Q << R"(; ++k) Y[i*)" << Q << R"( + k] = J[i*)" << Q << R"( + k];
        )" << p << R"(_cholesky_solve()" << Q << R"(, M, Y + i*)" << Q << R"(, 0);
    }
    for (i = 0; i < )" << C << R"(; ++i)
        for (j = 0; j <= i; ++j) {
            double s = 0.0;
            for (k = 0; k < )" << Q << R"(; ++k) s += Y[i*)" << Q << R"( + k]*Y[j*)" << Q << R"( + k];
            S[i*)" << C << R"( + j] = s;
        }
    if (!)" << p << R"(_cholesky()" << C << R"(, S)) return )" << n.size("SINGULAR_CONSTRAINTS") << R"(;
    return )" << n.size("OK") << R"(;
}

/* With M and S factored: on entry a holds f and nu holds r; on return the solution. w is scratch. */
static void )" << p << R"(_solve_kkt(const double M[], const double J[], const double S[],
                      double a[], double nu[], double w[])
{
    int i, k;
    )" << p << R"(_cholesky_solve()" << Q << R"(, M, a, 1);
    for (i = 0; i < )" << C << R"(; ++i)
        for (k = 0; k < )" << Q << R"(; ++k) nu[i] -= J[i*)" << Q << R"( + k]*a[k];
    )" << p << R"(_cholesky_solve()" << C << R"(, S, nu, 1);
    for (k = 0; k < )" << Q << R"(; ++k) {
        double s = 0.0;
        for (i = 0; i < )" << C << R"(; ++i) s += J[i*)" << Q << R"( + k]*nu[i];
        w[k] = s;
    }
    )" << p << R"(_cholesky_solve()" << Q << R"(, M, w, 1);
    for (k = 0; k < )" << Q << R"(; ++k) a[k] += w[k];
}

)";
  return s.str();
}

std::string zero_source(const Names &n) {
  return "static void " + n.fn("zero") + "(double a[], int n)\n{\n    int i;\n    for (i = 0; i < n; ++i) a[i] = 0.0;\n}\n";
}

}  // namespace

bool kkt_solver_is_straight_line(const Model &m) {
  Names n(m);
  SparseSolver sparse(m, n);
  sparse.source();
  return sparse.ops() <= kMaxStraightLineOps;
}

std::string emit_kkt_solver(const Model &m) {
  Names n(m);
  SparseSolver sparse(m, n);
  std::string straight = sparse.source();
  return (sparse.ops() <= kMaxStraightLineOps ? straight : dense_solver(n)) + "\n" + zero_source(n);
}

}  // namespace lgc
