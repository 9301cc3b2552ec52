// emit_articulated.cpp — NAME_rhs as the articulated-body recursion
// (articulated_plan.cpp chose it): the tree's static tables, the kernel
// gen/kernels/articulated.c pasted with the model's names, the block that
// fills the table from the parameters and tau, and rhs around them.
#include "emit/emit.h"

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

}  // namespace

std::string articulated_rhs_source(const Plan &plan, const std::string &terms_block) {
  const Names &n = plan.names;
  const ArticulatedTree &tree = plan.model.articulated;
  std::vector<int> parent, axis, coordinate, fixed, free(7, -1);
  for (auto &L : tree.links) {
    if (L.axis < 0)
      for (size_t k = 0; k < 7; ++k) free[k] = int(L.free[k]);
    parent.push_back(L.parent), axis.push_back(L.axis), coordinate.push_back(int(L.coordinate));
    bool identity = true;
    for (unsigned a = 0; a < 3; ++a)
      for (unsigned c = 0; c < 3; ++c) identity = identity && (L.E(a, c) - (a == c ? 1 : 0)).is_zero();
    fixed.push_back(!identity);
  }
  std::ostringstream s;
  s << "/*\n** rhs by the articulated-body recursion: " << plan.articulated.reason
    << ".\n** The tree: each link's parent (-1: N), the axis it turns about (0, 1, 2: x, y, z),\n"
       "** the coordinate it turns by, and whether its joint frame is turned from the\n"
       "** parent's axes by a constant rotation; axis -1 is a free joint, whose\n"
       "** coordinates are x, y, z along its joint frame's axes and its quaternion's\n"
       "** w, x, y, z (-1: no free joint).\n*/\n";
  s << "#define " << n.size("NLINK") << " " << tree.links.size() << "\n";
  s << "#define " << n.size("LINK_TABLE") << " " << ArticulatedForm::kTable << "\n";
  s << "#define " << n.size("LINK_WORK") << " " << ArticulatedForm::kWork << "\n";
  s << int_table(n.fn("link_parent") + "[" + n.size("NLINK") + "]", parent);
  s << int_table(n.fn("link_axis") + "[" + n.size("NLINK") + "]", axis);
  s << int_table(n.fn("link_coordinate") + "[" + n.size("NLINK") + "]", coordinate);
  s << int_table(n.fn("link_fixed") + "[" + n.size("NLINK") + "]", fixed);
  s << int_table(n.fn("free_coordinate") + "[7]", free);
  s << "\n" << paste_kernel(kernel_articulated, n, plan.real) << "\n";
  s << terms_block << "\n";
  s << signature_text(plan.real, plan.rhs.signature) << "\n{\n";
  s << "    /* work: its slices table | tau | links past the dense form's (" << n.size(Size::nwork) << " "
    << plan.real.plural() << ") */\n";
  s << declare_pointers(plan, pointers(plan.rhs_work, "work", {{"table", "table"}, {"tau", "tau"}, {"links", "links"}}));
  s << "    int i;\n"
    << (plan.model.nc() ? "    if (out_multipliers) out_multipliers[0] = " + plan.real.literal(0) +
                              ";  /* the quaternion's norm row: no force (" + n.p + ".md) */\n"
                        : std::string("    (void)baumgarte_alpha;\n    (void)baumgarte_beta;\n"
                                      "    (void)out_multipliers;  /* no constraints */\n"))
    << "    " << n.fn("articulated_terms") << "(t, state, input, param, table, tau);\n"
    << "    for (i = 0; i < " << n.size(Size::nq) << "; ++i) out_dxdt[i] = state[" << n.size(Size::nq) << " + i];\n"
    << "    if (!" << n.fn("articulated") << "(table, state, state + " << n.size(Size::nq) << ", tau, "
    << (plan.model.nc() ? "baumgarte_alpha, baumgarte_beta" : plan.real.literal(0) + ", " + plan.real.literal(0))
    << ", out_dxdt + "
    << n.size(Size::nq) << ", links))\n"
    << "        return " << n.size("SINGULAR_MASS") << ";\n"
    << "    return " << n.size("OK") << ";\n}\n\n";
  return s.str();
}

}  // namespace lgc
