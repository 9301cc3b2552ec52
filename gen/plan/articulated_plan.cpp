// articulated_plan.cpp — the choice between rhs's two forms, by counting
// operations: M (lower triangle) and f as one straight-line graph with the
// KKT solve after it, O(N^2) and O(N^3) along a chain; or the articulated-body
// recursion of gen/kernels/articulated.c, O(N), after a block that fills its
// table from the parameters and the joint forces tau (with a free joint's
// quaternion norm its only constraint row, which the recursion solves). Small models keep the
// first: their equations are expanded and read as a textbook's.
#include "plan/plan.h"

#include <set>

namespace lgc {

size_t graph_operations(const Graph &g, const std::vector<int> &outputs) {
  std::set<int> seen;
  std::vector<int> stack(outputs.begin(), outputs.end());
  size_t ops = 0;
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    if (!seen.insert(id).second) continue;
    const Node &n = g.node(id);
    switch (n.kind) {
      case Node::num:
      case Node::sym:
        break;
      case Node::add:
        ops += n.terms.size() - 1 + (n.value != 0);
        for (auto &[coef, term] : n.terms) ops += coef != 1 && coef != -1;
        break;
      case Node::mul:
        ops += n.terms.size() - 1;
        break;
      case Node::ipow:
        ops += size_t(n.exponent - 1);
        break;
      case Node::pow:
      case Node::call:
        ops += 1;
        break;
    }
    for (auto &t : n.terms) stack.push_back(t.second);
  }
  return ops;
}

ArticulatedForm choose_articulated(const Model &m, const Graph &g, const std::vector<int> &dense_outputs,
                                   size_t solver_ops) {
  ArticulatedForm f;
  const ArticulatedTree &tree = m.articulated;
  if (const std::string refused = rows_refused_on_recursion(m); m.nc() && !refused.empty()) {
    f.reason = refused;
    return f;
  }
  if (!tree.available()) {
    f.reason = "its bodies are not a tree of turning joints the recursion takes: " + tree.absent;
    return f;
  }
  if (m.articulated.chosen) {
    f.chosen = true;
    f.reason = m.articulated.reason;
    f.recursion_ops = m.articulated.recursion_ops;
    f.dense_ops = m.articulated.dense_ops;
    return f;
  }
  if (m.spec->form == "dense") {
    f.reason = m.articulated.reason;
    return f;
  }
  // M was derived: its operations as lowered, against the recursion's per link; far past the recursion's
  // estimate, the model is derived again on the recursion (generate.cpp), before its Jacobian is lowered.
  f.dense_ops = graph_operations(g, dense_outputs) + solver_ops;
  if (!tree.reason.empty() && f.dense_ops > ArticulatedTree::kRecountFactor * tree.recursion_ops)
    throw RecursionByCount(f.dense_ops);
  const size_t rows = rows_on_top(m).size();
  f.recursion_ops = tree.ops_per_link() * tree.cost_in_links() +
                    rows * (tree.solve_ops_per_link() * tree.cost_in_links() + rows * m.nq);
  f.reason = std::to_string(f.recursion_ops) + " operations in the articulated-body recursion (its cost per link by "
             "time" + (rows ? ", and a solve pass per constraint row" : "") + ") against " +
             std::to_string(f.dense_ops) + " for M, f and their solve";
  if (f.recursion_ops < f.dense_ops && !m.articulated.reason.empty())  // the estimate from the tree, which decides before M is derived, said otherwise
    f.reason += " (" + m.articulated.reason + ")";
  return f;
}

bool joint_frame_turned(const ArticulatedTree::Link &L) {
  for (unsigned a = 0; a < 3; ++a)
    for (unsigned c = 0; c < 3; ++c)
      if (!(L.E(a, c) - (a == c ? 1 : 0)).is_zero()) return true;
  return false;
}

namespace {

// Whether planar.c's passes (planar_out, planar, planar_accelerate) read
// entry k of link L's row, on a tree turning about N's `axis`: E's column x
// of the plane (the joint frame's turn, read only where it is turned), r
// and the first moment in the plane, the angle's offset and sign, the mass,
// and the inertia about the axis.
bool planar_reads(const ArticulatedTree::Link &L, int axis, size_t k) {
  const size_t px = size_t(axis + 1) % 3, py = size_t(axis + 2) % 3;
  if (k == 3 * px + px || k == 3 * py + px) return joint_frame_turned(L);
  return k == 9 + px || k == 9 + py || k == 12 || k == 13 || k == 14 || k == 15 + px || k == 15 + py ||
         k == 18 + size_t(axis);
}

}  // namespace

ArticulatedTerms articulated_terms(const Model &m, Graph &g) {
  ArticulatedTerms split;
  std::vector<Assignment> &outs = split.terms;
  const ArticulatedTree &tree = m.articulated;
  const std::optional<int> planar = tree.planar_axis();
  const size_t stride = ArticulatedForm::kTable;
  for (size_t i = 0; i < tree.links.size(); ++i) {
    const auto &L = tree.links[i];
    const size_t at = i * stride;
    std::string joint =
        L.axis < 0 ? "link " + std::to_string(i + 1) + ", free from N by " + m.spec->coordinates[L.free[0]].name + ", " +
                         m.spec->coordinates[L.free[1]].name + ", " + m.spec->coordinates[L.free[2]].name +
                         " and the quaternion " + m.spec->coordinates[L.free[3]].name + ", " +
                         m.spec->coordinates[L.free[4]].name + ", " + m.spec->coordinates[L.free[5]].name + ", " +
                         m.spec->coordinates[L.free[6]].name + ": its joint frame's axes in N, its origin at x = y = z = 0, and 0, 1 (unused)"
                   : "link " + std::to_string(i + 1) + ", turning by " + m.spec->coordinates[L.coordinate].name +
                         (L.parent < 0 ? " from N" : " from link " + std::to_string(L.parent + 1)) +
                         ": its joint frame's axes in the parent's, origin, angle's offset and sign";
    // The link's comments go on its first entry in each block; split, each block says which part it holds.
    bool commented[2] = {false, false};
    const std::string part[2] = {planar ? " (those the planar passes read)" : "", planar ? " (those rhs does not read)" : ""};
    auto put = [&](size_t k, const GiNaC::ex &e, const std::string &comment) {
      const bool rest = planar && !planar_reads(L, *planar, k);
      const std::string text =
          commented[rest] ? comment : joint + part[rest] + (comment.empty() ? "" : "; " + comment);
      commented[rest] = true;
      (rest ? split.rest : outs).push_back({0, at + k, g.from_ginac(e), text, ""});
    };
    for (unsigned a = 0; a < 3; ++a)
      for (unsigned c = 0; c < 3; ++c) put(3 * a + c, L.E(a, c), "");
    for (int a = 0; a < 3; ++a) put(9 + size_t(a), L.r[size_t(a)], "");
    put(12, L.offset, "");
    put(13, L.sign, "");
    put(14, L.mass, "mass, first moment and inertia about the origin (xx yy zz xy xz yz)");
    for (int a = 0; a < 3; ++a) put(15 + size_t(a), L.first_moment[size_t(a)], "");
    const int entries[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
    for (int k = 0; k < 6; ++k) put(18 + size_t(k), L.inertia(entries[k][0], entries[k][1]), "");
  }
  for (int a = 0; a < 3; ++a)
    outs.push_back({0, tree.links.size() * stride + size_t(a), g.from_ginac(tree.gravity[size_t(a)]),
                    a == 0 ? "gravity in N" : "", ""});
  for (size_t i = 0; i < tree.tau.size(); ++i)
    outs.push_back({1, i, g.from_ginac(tree.tau[i]), i == 0 ? "tau = Q - dV/dq, row " + m.spec->coordinates[i].name
                                                            : "row " + m.spec->coordinates[i].name, ""});
  return split;
}

}  // namespace lgc
