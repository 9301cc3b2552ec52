// emit_solve.cpp — prints the KKT solve inside NAME_rhs: the plan's
// straight-line statements over the structural nonzeros (kkt_plan.cpp), or,
// when the plan found them too many, dense Cholesky loops over the
// compile-time sizes. The correction's factors and solves print from the
// same kind of statements. Where S = J M^-1 J^T is singular or nearly (a
// singular configuration, redundant rows), the rhs hands over to a
// minimum-norm solve by Jacobi rotations over the compile-time sizes. The
// dense Cholesky and the minimum-norm solve are kernels (gen/kernels/).
#include "emit/emit.h"

#include <lagrangec/model.h>
#include <lagrangec/thresholds.h>

#include "kernel_sources.h"

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
      return "    d = " + ref(l.target) + terms + ";\n    if (!(d > " + real.literal(l.tolerance) + "*" +
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
  s << "/*\n** The KKT system of lagrangec's docs/theory.md §3,\n"
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

// The rows left out of the solve, as statements: S's diagonal entry 1 for
// each (its row and column are 0, J's row having been zeroed), so its
// multiplier comes out 0.
std::string left_out_rows(const Names &n, const RealType &real, const std::vector<size_t> &rows) {
  std::string s;
  for (size_t c : rows)
    s += "    S[" + std::to_string(c) + "*" + n.size("NC") + " + " + std::to_string(c) + "] = " + real.literal(1.0) + ";  /* row " +
         std::to_string(c + 1) + ", redundant, left out */\n";
  return s;
}

std::string dense_solver(const Names &n, const RealType &real, const std::vector<size_t> &redundant) {
  const std::string Q = n.size("NQ"), C = n.size("NC"), p = n.p, left_out = left_out_rows(n, real, redundant);
  const std::string pivot = format_double(LGC_ROWS_PIVOT);  // in double, as the rest before retyped
  std::ostringstream s;
  s << R"(/*
** The KKT system of lagrangec's docs/theory.md §3,
**     [ M  -J^T ] [ a  ]   [ f ]
**     [ J   0   ] [ nu ] = [ r ],
** by the range-space method: a0 = M^-1 f, S = J M^-1 J^T, S nu = r - J a0,
** a = a0 + M^-1 J^T nu. M and S are symmetric positive definite when the
** mass matrix is and the constraint rows are independent, so two Cholesky
** factorisations do it without pivoting; a pivot of S keeping no more than
** )" << pivot << R"( of its diagonal entry hands the solve to the minimum-norm one.
**
** Factoring: M (lower triangle) becomes its factor L, S its factor; Y is
** scratch (row i of Y is L^-1 J_i^T, so S = Y Y^T).
*/
static int )" << p << R"(_factor_kkt(double M[], const double J[], double Y[], double S[])
{
    if (!)" << p << R"(_schur_complement(M, J, Y, S)) return )" << n.size("SINGULAR_MASS") << R"(;
)" << left_out << R"(    if (!)" << p << R"(_cholesky()" << C << R"(, S, )" << pivot << R"()) return )" << n.size("RANK_DEFICIENT") << R"(;
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
  return real.retyped(s.str());
}

// The conditioning the driver's singular-instant guard watches.
std::string conditioning_source(const Names &n, const RealType &real, const std::vector<size_t> &redundant) {
  const std::string C = n.size("NC");
  std::string skip;
  for (size_t c : redundant) skip += "        if (i == " + std::to_string(c) + ") continue;  /* left out */\n";
  return real.retyped("/*\n** The smallest over the largest of S's squared pivots (factored) or of its\n"
         "** eigenvalues (the minimum-norm solve's), past the rows left out: near 0\n"
         "** where the constraint Jacobian nearly loses rank.\n*/\n"
         "static double " + n.fn("conditioning") + "(const double S[], int eigenvalues)\n{\n"
         "    double lo = HUGE_VAL, hi = 0.0;\n    int i;\n    for (i = 0; i < " + C + "; ++i) {\n" + skip +
         "        {\n            const double d = eigenvalues ? S[i*" + C + " + i] : S[i*" + C + " + i]*S[i*" + C +
         " + i];\n            if (d < lo) lo = d;\n            if (d > hi) hi = d;\n        }\n    }\n"
         "    return hi > 0.0 ? lo/hi : 0.0;\n}\n");
}

std::string zero_source(const Names &n, const RealType &real) {
  return real.retyped("static void " + n.fn("zero") + "(double a[], int n)\n{\n    int i;\n    for (i = 0; i < n; ++i) a[i] = 0.0;\n}\n");
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
  const bool straight = plan.solver.straight_line, constrained = plan.sizes.nc > 0;
  std::string s;
  if (constrained || !straight)
    s += "/* Internal to " + n.fn("rhs") + ": S nearly singular, the minimum-norm solve takes over. */\n#define " +
         n.size("RANK_DEFICIENT") + " " + std::to_string(LGC_MODEL_RANK_DEFICIENT) + "\n\n";
  if (!straight || constrained) s += paste_kernel(kernel_cholesky, n, plan.real) + "\n";
  s += straight ? straight_line_solver(n, plan.real, plan.solver) : dense_solver(n, plan.real, plan.model.redundant);
  if (constrained)
    s += "\n" + paste_kernel(kernel_min_norm, n, plan.real) + "\n" + conditioning_source(n, plan.real, plan.model.redundant);
  return s + "\n" + zero_source(n, plan.real);
}

}  // namespace lgc
