// emit_solve.cpp — prints the KKT solve inside NAME_rhs: the plan's
// straight-line statements over the structural nonzeros (kkt_plan.cpp), or,
// when the plan found them too many, dense Cholesky loops over the
// compile-time sizes. The correction's factors and solves print from the
// same kind of statements. Where S = J M^-1 J^T is singular or nearly (a
// singular configuration, redundant rows), the rhs hands over to a
// minimum-norm solve by Jacobi rotations over the compile-time sizes.
#include "emit/emit.h"

#include <lagrangec/model.h>

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

// Dense Cholesky, its triangular solves and S = J M^-1 J^T from them, for
// the dense solve and the minimum-norm one.
std::string dense_cholesky(const Names &n, const RealType &real) {
  const std::string Q = n.size("NQ"), C = n.size("NC"), p = n.p;
  std::ostringstream s;
  s << R"(/*
** Dense Cholesky factorisation in place: the lower triangle of the n x n
** row-major matrix a becomes L with L L^T = a. Returns 0 when a pivot keeps
** no more than `tolerance` of its diagonal entry: the matrix is singular,
** indefinite, or nearly.
*/
static int )" << p << R"(_cholesky(int n, double a[], double tolerance)
{
    int i, j, k;
    for (j = 0; j < n; ++j) {
        const double scale = a[j*n + j];
        double d = scale;
        for (k = 0; k < j; ++k) d -= a[j*n + k]*a[j*n + k];
        if (!(d > tolerance*scale)) return 0;
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
** M (lower triangle) becomes its factor L, row i of Y becomes L^-1 J_i^T,
** and S's lower triangle Y Y^T = J M^-1 J^T. Returns 0 when M is not
** positive definite.
*/
static int )" << p << R"(_schur_complement(double M[], const double J[], double Y[], double S[])
{
    int i, j, k;
    if (!)" << p << R"(_cholesky()" << Q << R"(, M, 1e-13)) return 0;
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
    return 1;
}

)";
  return real.retyped(s.str());
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
  std::ostringstream s;
  s << R"(/*
** The KKT system of lagrangec's docs/theory.md §3,
**     [ M  -J^T ] [ a  ]   [ f ]
**     [ J   0   ] [ nu ] = [ r ],
** by the range-space method: a0 = M^-1 f, S = J M^-1 J^T, S nu = r - J a0,
** a = a0 + M^-1 J^T nu. M and S are symmetric positive definite when the
** mass matrix is and the constraint rows are independent, so two Cholesky
** factorisations do it without pivoting; a pivot of S keeping no more than
** 1e-8 of its diagonal entry hands the solve to the minimum-norm one.
**
** Factoring: M (lower triangle) becomes its factor L, S its factor; Y is
** scratch (row i of Y is L^-1 J_i^T, so S = Y Y^T).
*/
static int )" << p << R"(_factor_kkt(double M[], const double J[], double Y[], double S[])
{
    if (!)" << p << R"(_schur_complement(M, J, Y, S)) return )" << n.size("SINGULAR_MASS") << R"(;
)" << left_out << R"(    if (!)" << p << R"(_cholesky()" << C << R"(, S, 1e-8)) return )" << n.size("RANK_DEFICIENT") << R"(;
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

// The fallback where S's factorisation fails: the minimum-norm solve.
std::string min_norm_solver(const Names &n, const RealType &real) {
  const std::string Q = n.size("NQ"), C = n.size("NC"), p = n.p;
  std::ostringstream s;
  s << R"(/*
** The KKT system where S = J M^-1 J^T is singular or nearly: at a singular
** configuration (a linkage lying flat) or with rows the others imply.
** S = E diag(lambda) E^T by cyclic Jacobi rotations; eigenvalues not above
** 1e-10 of the largest are dropped, so nu = S^+ (r - J a0) is the
** minimum-norm solution (nu in the range of J, the part of it the rows'
** dependence leaves free at 0) and a = a0 + M^-1 J^T nu is the exact
** acceleration wherever the constraints can be met.
**
** On entry M (lower triangle) and J as kkt_terms writes them, whole; on
** return M's factor L, Y = L^-1 J^T, S's eigenvalues on its diagonal and
** their eigenvectors in E's columns.
*/
static int )" << p << R"(_factor_kkt_min_norm(double M[], const double J[], double Y[], double S[], double E[])
{
    int i, j, k, sweep;
    if (!)" << p << R"(_schur_complement(M, J, Y, S)) return )" << n.size("SINGULAR_MASS") << R"(;
    for (i = 0; i < )" << C << R"(; ++i)
        for (j = 0; j <= i; ++j) {
            S[j*)" << C << R"( + i] = S[i*)" << C << R"( + j];
            E[i*)" << C << R"( + j] = i == j ? 1.0 : 0.0;
            E[j*)" << C << R"( + i] = i == j ? 1.0 : 0.0;
        }
    /* Until the off-diagonal part is round-off of the whole (a few sweeps). */
    for (sweep = 0; sweep < 50; ++sweep) {
        double off = 0.0, all = 0.0;
        for (i = 0; i < )" << C << R"(; ++i)
            for (j = 0; j < )" << C << R"(; ++j) {
                const double e = S[i*)" << C << R"( + j]*S[i*)" << C << R"( + j];
                all += e;
                if (i != j) off += e;
            }
        if (!(off > 1e-30*all)) break;
        for (i = 0; i < )" << C << R"(; ++i)
            for (j = i + 1; j < )" << C << R"(; ++j) {
                /* The rotation in the plane (i, j) that zeroes S[i][j]. */
                const double sij = S[i*)" << C << R"( + j];
                double theta, t, c, s;
                if (sij == 0.0) continue;
                theta = (S[j*)" << C << R"( + j] - S[i*)" << C << R"( + i])/(2.0*sij);
                t = (theta >= 0.0 ? 1.0 : -1.0)/(fabs(theta) + sqrt(theta*theta + 1.0));
                c = 1.0/sqrt(t*t + 1.0);
                s = t*c;
                for (k = 0; k < )" << C << R"(; ++k) {
                    const double x = S[k*)" << C << R"( + i], y = S[k*)" << C << R"( + j];
                    S[k*)" << C << R"( + i] = c*x - s*y;
                    S[k*)" << C << R"( + j] = s*x + c*y;
                }
                for (k = 0; k < )" << C << R"(; ++k) {
                    const double x = S[i*)" << C << R"( + k], y = S[j*)" << C << R"( + k];
                    S[i*)" << C << R"( + k] = c*x - s*y;
                    S[j*)" << C << R"( + k] = s*x + c*y;
                }
                S[i*)" << C << R"( + j] = 0.0;
                S[j*)" << C << R"( + i] = 0.0;
                for (k = 0; k < )" << C << R"(; ++k) {
                    const double x = E[k*)" << C << R"( + i], y = E[k*)" << C << R"( + j];
                    E[k*)" << C << R"( + i] = c*x - s*y;
                    E[k*)" << C << R"( + j] = s*x + c*y;
                }
            }
    }
    return )" << n.size("OK") << R"(;
}

/*
** With M, Y, S and E as the factor left them: on entry a holds f and nu
** holds r; on return the solution. z is scratch. Unless NULL, *inconsistency
** is the part of r - J a0 in the dropped directions (what no acceleration
** can give) over its size: beyond round-off at a state on the constraints,
** they ask for a motion the mechanism cannot make there (the runtime's
** fault; off them, at a stage of a step, it is no verdict).
*/
static void )" << p << R"(_solve_kkt_min_norm(const double M[], const double Y[], const double S[], const double E[],
                               double a[], double nu[], double z[], double *inconsistency)
{
    int i, k;
    double top = 0.0, size_r = 0.0, size_f = 0.0, dropped = 0.0;
    )" << p << R"(_cholesky_solve()" << Q << R"(, M, a, 0);
    for (i = 0; i < )" << C << R"(; ++i) {
        for (k = 0; k < )" << Q << R"(; ++k) nu[i] -= Y[i*)" << Q << R"( + k]*a[k];
        size_r += nu[i]*nu[i];
        if (S[i*)" << C << R"( + i] > top) top = S[i*)" << C << R"( + i];
    }
    for (k = 0; k < )" << Q << R"(; ++k) size_f += a[k]*a[k];
    for (i = 0; i < )" << C << R"(; ++i) {
        double s = 0.0;
        for (k = 0; k < )" << C << R"(; ++k) s += E[k*)" << C << R"( + i]*nu[k];
        if (S[i*)" << C << R"( + i] > 1e-10*top) {
            z[i] = s/S[i*)" << C << R"( + i];
        } else {
            z[i] = 0.0;
            dropped += s*s;
        }
    }
    if (inconsistency) {
        const double size = sqrt(size_r) + sqrt(top*size_f);
        *inconsistency = size > 0.0 ? sqrt(dropped)/size : 0.0;
    }
    for (k = 0; k < )" << C << R"(; ++k) {
        double s = 0.0;
        for (i = 0; i < )" << C << R"(; ++i) s += E[k*)" << C << R"( + i]*z[i];
        nu[k] = s;
    }
    /* a = L^-T (L^-1 f + Y^T nu) = M^-1 (f + J^T nu) */
    for (k = 0; k < )" << Q << R"(; ++k)
        for (i = 0; i < )" << C << R"(; ++i) a[k] += Y[i*)" << Q << R"( + k]*nu[i];
    for (k = )" << Q << R"( - 1; k >= 0; --k) {
        double s = a[k];
        for (i = k + 1; i < )" << Q << R"(; ++i) s -= M[i*)" << Q << R"( + k]*a[i];
        a[k] = s/M[k*)" << Q << R"( + k];
    }
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
  if (!straight || constrained) s += dense_cholesky(n, plan.real);
  s += straight ? straight_line_solver(n, plan.real, plan.solver) : dense_solver(n, plan.real, plan.model.redundant);
  if (constrained) s += "\n" + min_norm_solver(n, plan.real) + conditioning_source(n, plan.real, plan.model.redundant);
  return s + "\n" + zero_source(n, plan.real);
}

}  // namespace lgc
