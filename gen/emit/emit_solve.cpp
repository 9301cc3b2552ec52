// emit_solve.cpp — prints the KKT solve inside NAME_rhs: the plan's
// straight-line statements over the structural nonzeros (kkt_plan.cpp), or,
// when the plan found them too many, dense Cholesky loops over the
// compile-time sizes. The correction's factors and solves print from the
// same kind of statements. Where S = J M^-1 J^T is singular or nearly (a
// singular configuration, redundant rows), the rhs hands over to a
// minimum-norm solve by Jacobi rotations over the compile-time sizes. The
// dense solves, the minimum-norm one and the conditioning are kernels
// (gen/kernels/), pasted here.
#include "emit/emit.h"

#include <lagrangec/model.h>

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
      return "    d = " + ref(l.target) + terms + ";\n    if (!(d > " + real.literal(real.threshold(l.tolerance)) + "*" +
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

// The rows left out of the conditioning, as statements that skip them.
std::string skipped_rows(const std::vector<size_t> &rows) {
  std::string s;
  for (size_t c : rows) s += "        if (i == " + std::to_string(c) + ") continue;  /* left out */\n";
  return s;
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
    << " S[])\n{\n";
  // The same lines as the KKT factor: one routine, its small pivot of S named for the correction (unless
  // rhs is the recursion, which pastes no KKT factor).
  if (k.mass_is_kkt_factor && !plan.articulated.chosen)
    s << "    const int status = " << n.fn("factor_kkt") << "(M, C, Y, S);\n"
      << "    return status == " << n.size("RANK_DEFICIENT") << " ? " << n.size("SINGULAR_CONSTRAINTS") << " : status;\n}\n\n";
  else
    s << "    " << R << " d;\n" << unused_text(k.factor_mass_unused) << lines_text(n, real, k.factor_mass)
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
    if (plan.articulated.chosen)  // the rows on top of it: S's factor (gen/kernels/tree_kkt.c, with the recursion)
    return (rows_on_top(plan.model).empty() ? ""
                                            : paste_kernel(kernel_cholesky, n, plan.real) + "\n" +
                                                  paste_kernel(kernel_symmetric_eigen, n, plan.real) + "\n") +
           paste_kernel(kernel_zero, n, plan.real);
  std::string s;
  if (constrained || !straight)
    s += "/* Internal to " + n.fn("rhs") + ": S nearly singular, the minimum-norm solve takes over. */\n#define " +
         n.size("RANK_DEFICIENT") + " " + std::to_string(LGC_MODEL_RANK_DEFICIENT) + "\n\n";
  const std::vector<size_t> &redundant = plan.model.redundant;
  if (!straight || constrained)
    s += paste_kernel(kernel_cholesky, n, plan.real) + "\n" + paste_kernel(kernel_schur_complement, n, plan.real) + "\n";
  s += straight ? straight_line_solver(n, plan.real, plan.solver)
                : paste_kernel(kernel_dense_kkt, n, plan.real, {{"ROWS_LEFT_OUT", left_out_rows(n, plan.real, redundant)}}) + "\n";
  if (constrained)
    s += "\n" + paste_kernel(kernel_symmetric_eigen, n, plan.real) + "\n" + paste_kernel(kernel_min_norm, n, plan.real) +
         "\n" +
         paste_kernel(kernel_conditioning, n, plan.real, {{"ROWS_SKIPPED", skipped_rows(redundant)}});
  return s + "\n" + paste_kernel(kernel_zero, n, plan.real);
}

}  // namespace lgc
