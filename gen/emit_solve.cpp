// emit_solve.cpp — prints the KKT solve inside NAME_rhs: the plan's
// straight-line statements over the structural nonzeros (kkt_plan.cpp), or,
// when the plan found them too many, dense Cholesky loops over the
// compile-time sizes. The correction's factors and solves print from the
// same kind of statements.
#include "lagrangec.h"

#include <sstream>

namespace lgc {

namespace {

std::string ref(const ArrayRef &r) { return std::string(r.array) + "[" + std::to_string(r.index) + "]"; }

// (e) where e is a difference, e alone where it is one term.
std::string grouped(const std::string &e) { return e.find(' ') == std::string::npos ? e : "(" + e + ")"; }

std::string line_text(const Names &n, const RealType &real, const SolveLine &l) {
  std::string terms;
  for (auto &[a, b] : l.products) terms += (l.sign < 0 ? " - " : terms.empty() ? "" : " + ") + ref(a) + "*" + ref(b);
  switch (l.kind) {
    case SolveLine::heading: return "    /* " + l.text + " */\n";
    case SolveLine::pivot:
      return "    d = " + ref(l.target) + terms + ";\n    if (!(d > " + real.suffixed(l.tolerance) + "*" +
             ref(l.target) + ")) return " + n.size(l.text.c_str()) + ";\n    " + ref(l.target) + " = " +
             real.function("sqrt") + "(d);\n";
    case SolveLine::add: return "    " + ref(l.target) + " += " + ref(*l.base) + ";\n";
    case SolveLine::assign: {
      std::string e = l.base ? ref(*l.base) + terms : terms;
      if (!l.base && l.sign < 0 && !e.empty()) e = "-" + e.substr(3);  // " - a*b": the first product negated
      if (e.empty()) e = real.literal(0.0);
      return "    " + ref(l.target) + " = " + (l.divisor ? grouped(e) + "/" + ref(*l.divisor) : e) + ";\n";
    }
  }
  unreachable("unknown solve line");
}

std::string lines_text(const Names &n, const RealType &real, const std::vector<SolveLine> &lines) {
  std::string s;
  for (auto &l : lines) s += line_text(n, real, l);
  return s;
}

std::string unused_text(const std::vector<std::string> &params) {
  std::string s;
  for (auto &p : params) s += "    (void)" + p + ";\n";
  return s;
}

// The plan's straight-line factor and solve.
std::string straight_line_solver(const Names &n, const RealType &real, const KktSolver &k) {
  const std::string &R = real.type;
  std::ostringstream s;
  s << "/*\n** The KKT system of DESIGN.md §1,\n"
       "**     [ M  -J^T ] [ a  ]   [ f ]\n"
       "**     [ J   0   ] [ nu ] = [ r ],\n"
       "** by the range-space method: a0 = M^-1 f, S = J M^-1 J^T, S nu = r - J a0,\n"
       "** a = a0 + M^-1 J^T nu, with two Cholesky factorisations. The code below\n"
       "** is specialised to the structural nonzeros of M and J (and their fill-in).\n"
       "** Factoring: M (lower triangle) becomes L, S its factor; Y = L^-1 J^T.\n*/\n";
  s << "static int " << n.fn("factor_kkt") << "(" << R << " M[], const " << R << " J[], " << R << " Y[], " << R
    << " S[])\n{\n";
  s << "    " << R << " d;\n" << unused_text(k.factor_unused) << lines_text(n, real, k.factor);
  s << "    return " << n.size("OK") << ";\n}\n\n";
  s << "/* With M and S factored: on entry a holds f and nu holds r; on return the solution. w is scratch. */\n";
  s << "static void " << n.fn("solve_kkt")
    << "(const " << R << " M[], const " << R << " J[], const " << R << " S[],\n    " << R << " a[], " << R << " nu[], " << R
    << " w[])\n{\n";
  s << unused_text(k.solve_unused) << lines_text(n, real, k.solve) << "}\n";
  return s.str();
}

std::string dense_solver(const Names &n, const RealType &real) {
  const std::string Q = n.size("NQ"), C = n.size("NC"), p = n.p, R = real.type;
  std::ostringstream s;
  s << R"(/*
** Dense Cholesky factorisation in place: the lower triangle of the n x n
** row-major matrix a becomes L with L L^T = a. Returns 0 when a pivot is not
** positive beyond round-off, i.e. the matrix is singular or indefinite.
*/
static int )" << p << R"(_cholesky(int n, )" << R << R"( a[])
{
    int i, j, k;
    for (j = 0; j < n; ++j) {
        const )" << R << R"( scale = a[j*n + j];
        )" << R << R"( d = scale;
        for (k = 0; k < j; ++k) d -= a[j*n + k]*a[j*n + k];
        if (!(d > )" << real.literal(1e-13) << R"(*scale)) return 0;
        d = )" << real.function("sqrt") << R"((d);
        a[j*n + j] = d;
        for (i = j + 1; i < n; ++i) {
            )" << R << R"( s = a[i*n + j];
            for (k = 0; k < j; ++k) s -= a[i*n + k]*a[j*n + k];
            a[i*n + j] = s/d;
        }
    }
    return 1;
}

/* b := L^-1 b, then, if `transposed_too`, b := L^-T b: with both, b := a^-1 b. */
static void )" << p << R"(_cholesky_solve(int n, const )" << R << R"( L[], )" << R << R"( b[], int transposed_too)
{
    int i, k;
    for (i = 0; i < n; ++i) {
        )" << R << R"( s = b[i];
        for (k = 0; k < i; ++k) s -= L[i*n + k]*b[k];
        b[i] = s/L[i*n + i];
    }
    if (!transposed_too) return;
    for (i = n - 1; i >= 0; --i) {
        )" << R << R"( s = b[i];
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
static int )" << p << R"(_factor_kkt()" << R << R"( M[], const )" << R << R"( J[], )" << R << R"( Y[], )" << R << R"( S[])
{
    int i, j, k;
    if (!)" << p << R"(_cholesky()" << Q << R"(, M)) return )" << n.size("SINGULAR_MASS") << R"(;
    for (i = 0; i < )" << C << R"(; ++i) {
        for (k = 0; k < )" << Q << R"(; ++k) Y[i*)" << Q << R"( + k] = J[i*)" << Q << R"( + k];
        )" << p << R"(_cholesky_solve()" << Q << R"(, M, Y + i*)" << Q << R"(, 0);
    }
    for (i = 0; i < )" << C << R"(; ++i)
        for (j = 0; j <= i; ++j) {
            )" << R << R"( s = )" << real.literal(0.0) << R"(;
            for (k = 0; k < )" << Q << R"(; ++k) s += Y[i*)" << Q << R"( + k]*Y[j*)" << Q << R"( + k];
            S[i*)" << C << R"( + j] = s;
        }
    if (!)" << p << R"(_cholesky()" << C << R"(, S)) return )" << n.size("SINGULAR_CONSTRAINTS") << R"(;
    return )" << n.size("OK") << R"(;
}

/* With M and S factored: on entry a holds f and nu holds r; on return the solution. w is scratch. */
static void )" << p << R"(_solve_kkt(const )" << R << R"( M[], const )" << R << R"( J[], const )" << R << R"( S[],
                      )" << R << R"( a[], )" << R << R"( nu[], )" << R << R"( w[])
{
    int i, k;
    )" << p << R"(_cholesky_solve()" << Q << R"(, M, a, 1);
    for (i = 0; i < )" << C << R"(; ++i)
        for (k = 0; k < )" << Q << R"(; ++k) nu[i] -= J[i*)" << Q << R"( + k]*a[k];
    )" << p << R"(_cholesky_solve()" << C << R"(, S, nu, 1);
    for (k = 0; k < )" << Q << R"(; ++k) {
        )" << R << R"( s = )" << real.literal(0.0) << R"(;
        for (i = 0; i < )" << C << R"(; ++i) s += J[i*)" << Q << R"( + k]*nu[i];
        w[k] = s;
    }
    )" << p << R"(_cholesky_solve()" << Q << R"(, M, w, 1);
    for (k = 0; k < )" << Q << R"(; ++k) a[k] += w[k];
}

)";
  return s.str();
}

std::string zero_source(const Names &n, const RealType &real) {
  return "static void " + n.fn("zero") + "(" + real.type + " a[], int n)\n{\n    int i;\n    for (i = 0; i < n; ++i) a[i] = " +
         real.literal(0.0) + ";\n}\n";
}

}  // namespace

std::string correction_solve_name(const Names &n, const CorrectionSolver::Solve &solve, size_t nc) {
  return n.fn((std::string("correct_") + (solve.mass ? "mass" : "identity") + (solve.rows < nc ? "_holonomic" : "_all")).c_str());
}

std::string emit_correction_solver(const Plan &plan) {
  const Names &n = plan.names;
  const CorrectionSolver &k = plan.correction;
  const RealType &real = plan.real;
  const std::string &R = real.type;
  std::ostringstream s;
  s << "/*\n** The one-step correction (6.416-6.418): the smallest d in the metric W\n"
       "** with C d = r is d = W^-1 C^T K, (C W^-1 C^T) K = r. S = C W^-1 C^T is\n"
       "** factored as the KKT solve factors J M^-1 J^T, over the structural\n"
       "** nonzeros of M and C (and their fill-in). W = M: M becomes L, Y = L^-1 C^T.\n*/\n";
  s << "static int " << n.fn("factor_correction_mass") << "(" << R << " M[], const " << R << " C[], " << R << " Y[], " << R
    << " S[])\n{\n"
    << "    " << R << " d;\n" << unused_text(k.factor_mass_unused) << lines_text(n, real, k.factor_mass)
    << "    return " << n.size("OK") << ";\n}\n\n";
  s << "/* W = I: S = C C^T. */\n";
  s << "static int " << n.fn("factor_correction_identity") << "(const " << R << " C[], " << R << " S[])\n{\n"
    << "    " << R << " d;\n" << unused_text(k.factor_identity_unused) << lines_text(n, real, k.factor_identity)
    << "    return " << n.size("OK") << ";\n}\n";
  for (auto &solve : k.solves) {
    s << "\n/* On the " << (solve.rows < plan.sizes.nc ? "holonomic rows" : "constraint rows") << ", W = "
      << (solve.mass ? "M" : "I") << ": K = S^-1 K, d = W^-1 C^T K. */\n";
    s << "static void " << correction_solve_name(n, solve, plan.sizes.nc)
      << "(const " << R << " M[], const " << R << " C[], const " << R << " S[], " << R << " K[], " << R << " d[])\n{\n"
      << unused_text(solve.unused) << lines_text(n, real, solve.lines) << "}\n";
  }
  return s.str();
}

std::string emit_kkt_solver(const Plan &plan) {
  const Names &n = plan.names;
  return (plan.solver.straight_line ? straight_line_solver(n, plan.real, plan.solver) : dense_solver(n, plan.real)) + "\n" +
         zero_source(n, plan.real);
}

}  // namespace lgc
