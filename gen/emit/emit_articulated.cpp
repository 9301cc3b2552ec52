// emit_articulated.cpp — NAME_rhs as the articulated-body recursion
// (articulated_plan.cpp chose it): the tree's static tables, the kernel
// gen/kernels/articulated.c pasted with the model's names, the block that
// fills the table from the parameters and tau, and rhs around them.
#include "emit/emit.h"

#include <algorithm>
#include <sstream>

#include "kernel_sources.h"

namespace lgc {

namespace {

std::string int_table(const std::string &type_and_name, const std::vector<int> &values) {
  std::ostringstream s;
  s << "static const int " << type_and_name << " = {";
  for (size_t i = 0; i < values.size(); ++i) s << (i ? (i % 20 ? ", " : ",\n    ") : "") << values[i];
  s << "};\n";
  return s.str();
}

// rhs's lines that fill the table (on a planar tree, only the entries its
// passes read) and tau, copy q' and call the recursion for q'' (its
// quaternion's norm row stabilised by `gains`; the planar recursion, which
// has no free joint, takes none).
std::string recursion_lines(const Plan &plan, const std::string &gains) {
  const Names &n = plan.names;
  const std::string args = "(table, state, state + " + n.size(Size::nq) + ", tau, ";
  const std::string call =
      plan.model.articulated.planar_axis() ? n.fn("planar") + args : n.fn("articulated") + args + gains + ", ";
  return "    " + n.fn("articulated_terms") + "(t, state, input, param, table, tau);\n" +
         "    for (i = 0; i < " + n.size(Size::nq) + "; ++i) out_dxdt[i] = state[" + n.size(Size::nq) + " + i];\n" +
         "    if (!" + call + "out_dxdt + " + n.size(Size::nq) + ", links))\n" + "        return " +
         n.size("SINGULAR_MASS") + ";\n";
}

// On a planar tree, the call that fills the table's entries rhs leaves out
// (articulated_terms' `rest`), for the functions that read the whole table.
std::string rest_line(const Plan &plan, const std::string &input) {
  if (plan.articulated_rest.outputs.empty()) return "";
  return "    " + plan.names.fn("articulated_rest") + "(t, state, " + input + ", param, table);\n";
}

// The constraint rows solved on top of the recursion (tree_kkt.c), a table
// rhs and jacobian read.
std::string rows_table(const Plan &plan, const std::vector<size_t> &rows) {
  const Model &m = plan.model;
  std::vector<int> solved(rows.begin(), rows.end());
  std::string which;
  for (size_t c = 0; c < m.nc(); ++c) {
    if (std::find(rows.begin(), rows.end(), c) != rows.end()) continue;
    which += "\n** row " + std::to_string(c + 1) +
             (c == free_norm_row(m) ? ", the quaternion's norm: the recursion holds it itself" : ": redundant, left out");
  }
  return "/* The rows solved on top of the recursion" + std::string(which.empty() ? "" : "; the others get multiplier 0:") +
         which + " */\n" + int_table(plan.names.fn("rows") + "[" + std::to_string(rows.size()) + "]", solved);
}

// rhs's body with constraint rows on top of the recursion (tree_kkt.c):
// J, r and g from kkt_entries, a0 by the recursion, then the rows' solve.
std::string constrained_rhs_body(const Plan &plan, const std::vector<size_t> &rows) {
  const Names &n = plan.names;
  std::ostringstream s;
  std::string slices;
  for (auto &name : plan.rhs_work.names(0)) slices += (slices.empty() ? "" : " | ") + name;
  s << "    /* work: " << slices << " (" << n.size(Size::nwork) << " " << plan.real.plural() << "; M unused) */\n";
  s << declare_pointers(plan, pointers(plan.rhs_work, "work",
                                       {{"M", "M"}, {"J", "J"}, {"Y", "Y"}, {"S", "S"}, {"nu", "nu"}, {"w", "w"},
                                        {"E", "E"}, {"z", "z"}, {"conditioning", "conditioning"},
                                        {"table", "table"}, {"tau", "tau"}, {"links", "links"}}));
  std::string z_offset;
  for (auto &e : plan.state.offset("z")) z_offset += (z_offset.empty() ? "" : " + ") + extent_text(n, e);
  s << "    int i;\n"
    << "    " << n.fn("zero") << "(J, " << extent_text(n, plan.rhs_work.extent("J")) << ");\n"
    << "    " << n.fn("kkt_entries") << "(t, state, input, param, baumgarte_alpha, baumgarte_beta,\n"
    << "        M, w, J, nu, out_dxdt + " << z_offset << ");\n"
    << recursion_lines(plan, "baumgarte_alpha, baumgarte_beta")
    << "    " << n.fn("tree_kkt") << "(table, state, J, " << n.fn("rows") << ", " << rows.size() << ", out_dxdt + "
    << n.size(Size::nq) << ", nu, Y, S, E, z, conditioning, links);\n"
    << "    if (out_multipliers)\n"
    << "        for (i = 0; i < " << n.size(Size::nc) << "; ++i) out_multipliers[i] = nu[i];\n"
    << "    return " << n.size("OK") << ";\n}\n\n";
  return s.str();
}

}  // namespace

std::string articulated_rhs_source(const Plan &plan, const std::string &terms_block) {
  const Names &n = plan.names;
  const ArticulatedTree &tree = plan.model.articulated;
  std::vector<int> parent, axis, coordinate, fixed, free(7, -1);
  for (auto &L : tree.links) {
    if (L.axis < 0)
      for (size_t k = 0; k < 7; ++k) free[k] = int(L.free[k]);
    parent.push_back(L.parent), axis.push_back(L.axis), coordinate.push_back(int(L.coordinate));
    fixed.push_back(joint_frame_turned(L));
  }
  const std::optional<int> planar = tree.planar_axis();
  std::ostringstream s;
  s << "/*\n** rhs by the articulated-body recursion"
    << (planar ? std::string(" in the plane across N's ") + "xyz"[*planar] + " (every joint turns about it)" : "")
    << ": " << plan.articulated.reason
    << ".\n** The tree: each link's parent (-1: N), the axis it turns about (0, 1, 2: x, y, z),\n"
       "** the coordinate it turns by, and whether its joint frame is turned from the\n"
       "** parent's axes by a constant rotation; axis -1 is a free joint, whose\n"
       "** coordinates are x, y, z along its joint frame's axes and its quaternion's\n"
       "** w, x, y, z (-1: no free joint).\n*/\n";
  s << "#define " << n.size("NLINK") << " " << tree.links.size() << "\n";
  s << "#define " << n.size("LINK_TABLE") << " " << ArticulatedForm::kTable << "\n";
  s << "#define " << n.size("LINK_WORK") << " " << ArticulatedForm::kWork << "\n";
  if (plan.tree_jacobian) s << "#define " << n.size("LINK_TANGENT") << " " << ArticulatedForm::kTangent << "\n";
  s << int_table(n.fn("link_parent") + "[" + n.size("NLINK") + "]", parent);
  s << int_table(n.fn("link_axis") + "[" + n.size("NLINK") + "]", axis);
  s << int_table(n.fn("link_coordinate") + "[" + n.size("NLINK") + "]", coordinate);
  s << int_table(n.fn("link_fixed") + "[" + n.size("NLINK") + "]", fixed);
  s << int_table(n.fn("free_coordinate") + "[7]", free);
  if (planar)
    s << "/* The axis every joint turns about (0, 1, 2: N's x, y, z): the planar recursion's, in the spatial one's "
         "place. */\n#define " << n.size("PLANAR_AXIS") << " " << *planar << "\n";
  s << "\n" << paste_kernel(kernel_articulated, n, plan.real) << "\n";
  if (planar) s << paste_kernel(kernel_planar, n, plan.real) << "\n";
  s << paste_kernel(kernel_tree_dynamics, n, plan.real) << "\n";
  const std::vector<size_t> rows = rows_on_top(plan.model);
  if (planar && (!rows.empty() || plan.tree_jacobian)) s << paste_kernel(kernel_planar_solve, n, plan.real) << "\n";
  if (!rows.empty()) s << paste_kernel(kernel_tree_kkt, n, plan.real) << "\n";
  if (plan.tree_jacobian && planar) s << paste_kernel(kernel_planar_jacobian, n, plan.real) << "\n";
  if (plan.tree_jacobian) s << paste_kernel(kernel_tree_jacobian, n, plan.real) << "\n";
  if (plan.tree_jacobian && !rows.empty()) s << paste_kernel(kernel_tree_kkt_jacobian, n, plan.real) << "\n";
  s << terms_block << "\n";
  if (!rows.empty()) s << rows_table(plan, rows) << "\n";
  s << signature_text(plan.real, plan.rhs.signature) << "\n{\n";
  if (!rows.empty()) return s.str() + constrained_rhs_body(plan, rows);
  s << "    /* work: its slices table | tau | links past the dense form's (" << n.size(Size::nwork) << " "
    << plan.real.plural() << ") */\n";
  s << declare_pointers(plan, pointers(plan.rhs_work, "work", {{"table", "table"}, {"tau", "tau"}, {"links", "links"}}));
  s << "    int i;\n"
    << (plan.model.nc() ? "    if (out_multipliers) out_multipliers[0] = " + plan.real.literal(0) +
                              ";  /* the quaternion's norm row: no force (" + n.p + ".md) */\n"
                        : std::string("    (void)baumgarte_alpha;\n    (void)baumgarte_beta;\n"
                                      "    (void)out_multipliers;  /* no constraints */\n"))
    << recursion_lines(plan, plan.model.nc() ? "baumgarte_alpha, baumgarte_beta"
                                             : plan.real.literal(0) + ", " + plan.real.literal(0))
    << "    return " << n.size("OK") << ";\n}\n\n";
  return s.str();
}

std::string articulated_functions_source(const Plan &plan, const std::string &potential_block) {
  const Names &n = plan.names;
  const std::string R = plan.real.type, Q = n.size(Size::nq);
  // Each function's own table, tau and link work (the public functions take no work).
  const std::string locals = "    " + R + " table[" + n.size("NLINK") + "*" + n.size("LINK_TABLE") + " + 3], tau[" + Q +
                             "], links[" + n.size("NLINK") + "*" + n.size("LINK_WORK") + "];\n";
  const std::string no_input = "    " + R + " no_input[" + n.size(Size::nu) + " + 1] = {0};\n";
  const std::string none = "    " + R + " none[" + Q + "] = {0};\n";
  auto terms = [&](const std::string &input) {
    return "    " + n.fn("articulated_terms") + "(t, state, " + input + ", param, table, tau);\n" + rest_line(plan, input);
  };
  auto call = [&](const std::string &fn, const std::string &args) { return "    " + n.fn(fn.c_str()) + "(" + args + ");\n"; };
  const std::string v = "state + " + Q;
  std::ostringstream s;
  s << potential_block << "\n";
  // kkt_terms: M's lower triangle, as its doc says, and f = tau - k; a free
  // joint's norm row, J and r, from kkt_entries (which has no M or f here).
  s << signature_text(plan.real, plan.kkt_terms.signature) << "\n{\n" << locals << none << "    int i, j;\n";
  if (plan.model.nc()) {
    for (auto &a : plan.kkt_terms.arrays)
      if (a.param != "out_M" && a.param != "out_f")
        s << "    " << n.fn("zero") << "(" << a.param << ", " << extent_text(n, a.extent) << ");\n";
    s << "    " << n.fn("kkt_entries") << "(t, state, input, param, baumgarte_alpha, baumgarte_beta,\n"
      << "        out_M, out_f, out_J, out_r, out_g);\n";
  } else {
    s << "    (void)baumgarte_alpha;\n    (void)baumgarte_beta;\n    (void)out_J;\n    (void)out_r;\n    (void)out_g;"
         "  /* no constraints */\n";
  }
  s << terms("input") << call("tree_mass_matrix", "table, state, out_M, links")
    << "    for (i = 0; i < " << Q << "; ++i)\n        for (j = i + 1; j < " << Q << "; ++j) out_M[i*" << Q
    << " + j] = 0.0;\n"
    << call("tree_inverse_dynamics", "table, state, " + v + ", none, 1, out_f, links")
    << "    for (i = 0; i < " << Q << "; ++i) out_f[i] = tau[i] - out_f[i];\n}\n\n";
  // The energies: the links' over the tables, and the written potential.
  s << signature_text(plan.real, plan.energy.signature) << "\n{\n"
    << locals << no_input << "    " << R << " TV[2], V[1], dVdq[" << Q << "];\n"
    << terms("no_input") << call("tree_energies", "table, state, " + v + ", TV, links")
    << call("written_potential", "t, state, param, V, dVdq") << "    return TV[0] + TV[1] + V[0];\n}\n\n";
  s << signature_text(plan.real, plan.energies.signature) << "\n{\n"
    << locals << no_input << "    " << R << " V[1], dVdq[" << Q << "];\n"
    << terms("no_input") << call("tree_energies", "table, state, " + v + ", out_TV, links")
    << call("written_potential", "t, state, param, V, dVdq") << "    out_TV[1] += V[0];\n}\n\n";
  // tau = M q'' + k - Q: Newton-Euler less the table's tau = Q - dV/dq of the written V.
  s << signature_text(plan.real, plan.inverse_dynamics.signature) << "\n{\n"
    << locals << "    int i;\n" << terms("input")
    << call("tree_inverse_dynamics", "table, state, " + v + ", in_acceleration, 1, out_tau, links")
    << "    for (i = 0; i < " << Q << "; ++i) out_tau[i] -= tau[i];\n}\n\n";
  s << signature_text(plan.real, plan.bias.signature) << "\n{\n"
    << locals << none << no_input << "    int i;\n" << terms("no_input")
    << call("tree_inverse_dynamics", "table, state, " + v + ", none, 1, out_bias, links")
    << "    for (i = 0; i < " << Q << "; ++i) out_bias[i] -= tau[i];\n}\n\n";
  // dV/dq: Newton-Euler at rest under the weight, and the written V's gradient.
  s << signature_text(plan.real, plan.gravity.signature) << "\n{\n"
    << locals << none << no_input << "    " << R << " V[1], dVdq[" << Q << "];\n    int i;\n" << terms("no_input")
    << call("tree_inverse_dynamics", "table, state, none, none, 1, out_dVdq, links")
    << call("written_potential", "t, state, param, V, dVdq")
    << "    for (i = 0; i < " << Q << "; ++i) out_dVdq[i] += dVdq[i];\n}\n\n";
  s << signature_text(plan.real, plan.mass_matrix.signature) << "\n{\n"
    << locals << no_input << terms("no_input") << call("tree_mass_matrix", "table, state, out_M, links") << "}\n\n";
  return s.str();
}

std::string articulated_jacobian_source(const Plan &plan, const std::string &tau_derivatives_block,
                                        const std::string &rows_derivatives_block) {
  const Names &n = plan.names;
  auto size = [&](const char *slice) { return extent_text(n, plan.jacobian_work.extent(slice)); };
  const std::vector<size_t> rows = rows_on_top(plan.model);
  const std::string Q = n.size(Size::nq), X = n.size(Size::nx), U = n.size(Size::nu);
  std::ostringstream s;
  s << "/* tau's derivatives by the state and the inputs; entries not set are zero. */\n" << tau_derivatives_block << "\n";
  if (!rows.empty()) s << "/* The rows' derivatives (" << n.fn("tree_kkt_jacobian") << "); entries not set are zero. */\n"
                       << rows_derivatives_block << "\n";
  s << signature_text(plan.real, plan.jacobian.signature) << "\n{\n"
    << "    /* work: the rhs's (" << (rows.empty() ? "table | tau | links" : "its J, Y, S, nu, E, z, conditioning, table, tau, links")
    << "), then dxdt | dtau_dx | dtau_du | mass | column | tangent"
    << (rows.empty() ? "" : "\n       | dforce_dx | dforce_du | drows_dx | drows_du | rotated") << "\n"
    << "       (" << n.size("NWORK_JACOBIAN") << " " << plan.real.plural() << ") */\n"
    << declare_pointers(plan, plan.jacobian.pointers)
    << "    /* The rhs leaves the table and tau in its part of work, and q'' in dxdt"
    << (rows.empty() ? "" : "; the rows' J, the\n       multipliers nu, Y = M^-1 J^T and S = J Y factored (or decomposed)") << ". */\n"
    << "    int status = " << n.fn("rhs") << "(t, state, input, param, baumgarte_alpha, baumgarte_beta, dxdt, 0, work);\n"
    << "    if (status != " << n.size("OK") << ") return status;\n"
    << "    " << n.fn("zero") << "(dtau_dx, " << size("dtau_dx") << ");\n"
    << "    " << n.fn("zero") << "(dtau_du, " << size("dtau_du") << ");\n"
    << "    " << n.fn("tau_derivatives") << "(t, state, input, param, dtau_dx, dtau_du);\n";
  if (!rows.empty()) {
    const std::string g_dx = "out_dfdx + 2*" + Q + "*" + X, g_du = "out_dfdu + 2*" + Q + "*" + U;
    s << "    /* q'' = FD(q, q', tau + J^T nu): the recursion's derivatives at the total force, the\n"
         "       rows' forces differentiated at fixed nu" << (plan.model.nn ? "; g's rows of df/dx and df/du in place" : "")
      << ". */\n";
    for (const char *slice : {"dforce_dx", "dforce_du", "drows_dx", "drows_du"})
      s << "    " << n.fn("zero") << "(" << slice << ", " << size(slice) << ");\n";
    if (plan.model.nn)
      s << "    " << n.fn("zero") << "(" << g_dx << ", " << n.size(Size::nn) << "*" << X << ");\n"
        << "    " << n.fn("zero") << "(" << g_du << ", " << n.size(Size::nn) << "*" << U << ");\n";
    s << "    " << n.fn("rows_derivatives") << "(t, state, input, param, baumgarte_alpha, baumgarte_beta, dxdt + " << Q
      << ", nu,\n        dforce_dx, dforce_du, drows_dx, drows_du, " << g_dx << ", " << g_du << ");\n"
      << "    /* tau += J^T nu, its derivatives into tau's"
      << (plan.rows_force_symmetric ? " (1: by q the lower triangle written, a Hessian)" : "") << " */\n"
      << "    " << n.fn("rows_forces") << "(J, nu, " << (plan.rows_force_symmetric ? 1 : 0)
      << ", dforce_dx, dforce_du, tau, dtau_dx, dtau_du);\n";
  }
  s << "    if (!" << n.fn("tree_jacobian") << "(table, state, dxdt + " << n.size(Size::nq) << ", tau, "
    << (plan.model.nc() ? "baumgarte_alpha, baumgarte_beta" : plan.real.literal(0) + ", " + plan.real.literal(0))
    << ", dtau_dx, dtau_du,\n            " << n.size(Size::nu) << ", out_dfdx, out_dfdu, "
    << "mass, column, links, tangent))\n"
    << "        return " << n.size("SINGULAR_MASS") << ";\n";
  if (!rows.empty()) {
    const std::string args = "(J, " + n.fn("rows") + ", " + std::to_string(rows.size()) +
                             ", Y, S, E, conditioning[1] != " + plan.real.literal(0) + ", ";
    s << "    /* The rows' part, Y dnu/dx: S dnu/dx = d(r - J q'')/dx - J dq''/dx, by rhs's S. */\n"
      << "    " << n.fn("tree_kkt_jacobian") << args << "drows_dx, " << X << ", out_dfdx + " << Q << "*" << X
      << ", z, rotated);\n"
      << "    " << n.fn("tree_kkt_jacobian") << args << "drows_du, " << U << ", out_dfdu + " << Q << "*" << U
      << ", z, rotated);\n";
  }
  s << "    return " << n.size("OK") << ";\n}\n\n";
  return s.str();
}

}  // namespace lgc
