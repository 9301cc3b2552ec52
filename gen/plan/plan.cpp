// plan.cpp — from the model to everything the printers print: the names of
// the generated identifiers and of every symbol in C; the model lowered once
// into one shared graph; the layouts of the state, the constraint rows and
// the work buffers; and each generated function, as straight-line blocks
// (outputs, their schedule, the locals they load, the parameters they leave
// unused) or as routines over named slices. A new generated function is one
// entry here and one printer call; no printer computes a size or an offset.
#include "plan/plan.h"

#include <lagrangec/thresholds.h>

#include <algorithm>
#include <functional>
#include <set>

namespace lgc {

namespace {

using GiNaC::ex;

std::string upper(std::string s) {
  for (char &c : s) c = char(std::toupper((unsigned char)c));
  return s;
}

// ---- layouts ----

// The state x and the derivative dx/dt (grep tag: STATE-LAYOUT, see lagrangec/model.h).
Layout state_layout(const Model &m, const Sizes &s) {
  Layout l(s);
  l.add("q", {{Size::nq}});
  l.add("v", {{Size::nq}});
  l.add("z", {{Size::nn}});  // ∫g
  if (!m.mu.empty()) l.add("mu", {{Size::nn}});
  return l;
}

// Constraint rows: the multipliers [lambda; mu], r, and nu in the solve.
Layout rows_layout(const Sizes &s) {
  Layout l(s);
  l.add("holonomic", {{Size::nh}});
  l.add("nonholonomic", {{Size::nn}});
  return l;
}

// The unknowns of the KKT system, (a, nu), nu as the rows order it.
Layout kkt_layout(const Sizes &s) {
  Layout l(s);
  l.add("a", {{Size::nq}});
  l.add("lambda", {{Size::nh}});
  l.add("mu", {{Size::nn}});
  return l;
}

// rhs's work: M and J from kkt_terms, factored in place (Y, S scratch of
// the factorisation), the multipliers nu, and the solve's scratch w; with
// constraints, the minimum-norm solve's eigenvectors E and scratch z, and
// `conditioning`: S's conditioning at the last call, 1 when the
// minimum-norm solve made it, and then how far the constraints were from
// consistent (grep tag: WORK-CONDITIONING, the descriptor's
// work_conditioning).
Layout rhs_work_layout(const Sizes &s) {
  Layout l(s);
  l.add("M", {{Size::nq}, {Size::nq}});
  l.add("J", {{Size::nc}, {Size::nq}});
  l.add("Y", {{Size::nc}, {Size::nq}});
  l.add("S", {{Size::nc}, {Size::nc}});
  l.add("nu", {{Size::nc}});
  l.add("w", {{Size::nq}});
  if (s.nc) {
    l.add("E", {{Size::nc}, {Size::nc}});
    l.add("z", {{Size::nc}});
    l.add("conditioning", {}, 3);
  }
  return l;
}

// jacobian's work: rhs's (its factors and multipliers stay there to be
// used), then f, the residual's derivatives and a column of the solve; the
// plan adds `terms`, kkt_entries' values the derivatives read, when any.
Layout jacobian_work_layout(const Sizes &s, const Layout &rhs_work) {
  Layout l(s);
  l.add_layout(rhs_work, Size::nwork);
  l.add("dxdt", {{Size::nx}});
  l.add("dR_dx", {{Size::nq, Size::nc}, {Size::nx}});
  l.add("dR_du", {{Size::nq, Size::nc}, {Size::nu}});
  l.add("dg_dx", {{Size::nn}, {Size::nx}});
  l.add("dg_du", {{Size::nn}, {Size::nu}});
  l.add("column", {{Size::nq, Size::nc}});
  return l;
}

// parameter_jacobian's work: rhs's, then f, the residual's derivatives by
// the parameters and a column of the solve (and `terms`, as jacobian's).
Layout parameter_jacobian_work_layout(const Sizes &s, const Layout &rhs_work) {
  Layout l(s);
  l.add_layout(rhs_work, Size::nwork);
  l.add("dxdt", {{Size::nx}});
  l.add("dR_dp", {{Size::nq, Size::nc}, {Size::np}});
  l.add("column", {{Size::nq, Size::nc}});
  return l;
}

// The correction's work: Y = L^-1 C^T (metric W = M only) and S with its factor.
Layout correction_work_layout(const Sizes &s) {
  Layout l(s);
  l.add("Y", {{Size::nc}, {Size::nq}});
  l.add("S", {{Size::nc}, {Size::nc}});
  return l;
}

// The step's work: the rhs's (each stage's), then RK4's stage derivative
// k, the start x0 and a stage's state xt; with constraints, the
// correction's C = [A; B], M (metric W = M), the factor's work (Y | S),
// K, the correction d, the residuals phi | phi' | g (phi' and g together:
// the velocity rows' targets) and the positions a Gauss-Newton step left.
Layout step_work_layout(const Sizes &s, const Layout &rhs_work) {
  Layout l(s);
  l.add_layout(rhs_work, Size::nwork);
  l.add("k", {{Size::nx}});
  l.add("x0", {{Size::nx}});
  l.add("xt", {{Size::nx}});
  if (s.nc == 0) return l;
  l.add("C", {{Size::nc}, {Size::nq}});
  l.add("W", {{Size::nq}, {Size::nq}});
  l.add("correction", {{Size::nc}, {Size::nq, Size::nc}});
  l.add("K", {{Size::nc}});
  l.add("d", {{Size::nq}});
  l.add("phi", {{Size::nh}});
  l.add("phi_dot", {{Size::nh}});
  l.add("g", {{Size::nn}});
  if (s.nh) l.add("q_prev", {{Size::nq}});
  return l;
}

Sizes sizes_of(const Model &m) {
  Sizes s;
  s.nq = m.nq, s.nh = m.nh, s.nn = m.nn, s.nc = m.nc(), s.nx = m.state.size();
  s.np = m.symbols.p.size(), s.nu = m.symbols.u.size();
  s.nwork = rhs_work_layout(s).size();
  return s;
}

// ---- signatures ----

Param scalar(const char *name) { return {Param::real, name}; }
Param integer(const char *name) { return {Param::integer, name}; }
Param in(const char *name) { return {Param::const_real_array, name}; }
Param out(const char *name) { return {Param::real_array, name}; }

const std::vector<Param> kAt = {scalar("t"), in("state"), in("input"), in("param")};  // a state under inputs
const std::vector<Param> kGains = {scalar("baumgarte_alpha"), scalar("baumgarte_beta")};

}  // namespace

Names::Names(const std::string &name) : p(name), P(upper(name)) {}

namespace {

// The generated code's size limit, in operands of the lowered graph: past
// it, cc takes minutes and gigabytes.
constexpr size_t kMaxOperands = 1000000;

// Where a symbol stands among a product's factors and a sum's terms: the
// gains and parameters first, then inputs and t, then the state, each in
// declaration order: l1*l2*(m2 + m3)*(...), baumgarte_alpha*(x*x_dot + ...).
int reading_rank(const Local &l) {
  static const Local::Role order[] = {Local::gain,     Local::parameter, Local::input,      Local::time,
                                      Local::coordinate, Local::velocity, Local::integral, Local::multiplier,
                                      Local::reaction, Local::solution};
  int group = 0;
  while (order[group] != l.role) ++group;
  return group << 20 | int(l.index);
}

// The arguments of the sines and cosines in these expressions, each once, in
// the order they are found (subexpressions GiNaC shares are visited once).
std::vector<ex> sine_and_cosine_arguments(const std::vector<ex> &expressions) {
  std::vector<ex> found;
  std::set<ex, GiNaC::ex_is_less> seen_arguments;
  std::set<const GiNaC::basic *> visited;
  std::vector<ex> alive;  // what visited points to (GiNaC makes some operands on the fly)
  std::function<void(const ex &)> visit = [&](const ex &e) {
    if (!visited.insert(&GiNaC::ex_to<GiNaC::basic>(e)).second) return;
    alive.push_back(e);
    if (GiNaC::is_a<GiNaC::function>(e)) {
      const std::string &name = GiNaC::ex_to<GiNaC::function>(e).get_name();
      if ((name == "sin" || name == "cos") && seen_arguments.insert(e.op(0)).second) found.push_back(e.op(0));
    }
    for (size_t i = 0; i < e.nops(); ++i) visit(e.op(i));
  };
  for (const ex &e : expressions) visit(e);
  return found;
}

}  // namespace

namespace {

// Builds the blocks of one plan.
class BlockBuilder {
 public:
  explicit BlockBuilder(Plan &plan) : p_(plan) {}

  // The straight-line function computing `outputs` into `arrays`; the
  // values of `given` it reads from its parameter `terms` where it needs
  // them (the derivative blocks: kkt_entries' shared terms).
  Block block(Signature signature, std::string doc, std::vector<OutputArray> arrays,
              std::vector<Assignment> outputs, const std::map<int, std::string> &given = {},
              const std::string &terms = "") {
    Block b{std::move(signature), std::move(doc), std::move(arrays), std::move(outputs), {}, {}, {}, {}};
    std::vector<int> nodes;
    // Each output's section, which names the temporaries it first needs:
    // its array less "out_" and its index (M_18), or w for the return value.
    std::vector<std::string> sections;
    for (auto &a : b.outputs) {
      nodes.push_back(a.node);
      if (a.array < 0) {
        sections.push_back("w");
        continue;
      }
      std::string array = b.arrays[size_t(a.array)].param;
      sections.push_back((array.rfind("out_", 0) == 0 ? array.substr(4) : array) + "_" + std::to_string(a.index));
    }
    std::set<std::string> taken;
    for (const Local &l : p_.locals) taken.insert(l.kind == Local::element ? l.array : l.name);
    for (auto &line : b.signature.lines)
      for (auto &param : line) taken.insert(param.name);
    b.schedule = schedule(p_.graph, nodes, sections, taken, given);
    std::set<std::string> used = symbols_under(nodes, given), touched;
    for (const Statement &st : b.schedule.code)
      if (st.kind == Statement::read) b.terms = terms, touched.insert(terms);
    for (const Local &l : p_.locals) {
      if (!used.count(l.name)) continue;
      if (l.kind == Local::loaded) b.loads.push_back(&l);
      touched.insert(l.kind == Local::scalar ? l.name : l.array);
    }
    for (auto &a : b.outputs)
      if (a.array >= 0) touched.insert(b.arrays[size_t(a.array)].param);
    for (auto &a : b.arrays)
      if (a.zeroed || a.mirrored) touched.insert(a.param);
    for (auto &line : b.signature.lines)
      for (auto &param : line)
        if (!touched.count(param.name)) b.unused.push_back(param.name);
    return b;
  }

  // The nonzero entries of matrix `a` as outputs into array number `array`,
  // lower triangle only when `lower`; `heading` above the first, or each
  // row's `row_comment` above its first entry.
  void matrix(std::vector<Assignment> &outs, int array, const GiNaC::matrix &a, bool lower, const std::string &heading,
              const std::function<std::string(size_t)> &row_comment = nullptr) {
    bool first = true;
    for (unsigned i = 0; i < a.rows(); ++i) {
      bool row_first = true;
      for (unsigned j = 0; j < (lower ? i + 1 : a.cols()); ++j) {
        if (a(i, j).is_zero()) continue;
        std::string comment = row_comment ? (row_first ? row_comment(i) : "") : (first ? heading : "");
        outs.push_back({array, i * a.cols() + j, p_.graph.from_ginac(a(i, j)), comment, ""});
        first = row_first = false;
      }
    }
  }

 private:
  Plan &p_;

  // Names of the symbols the nodes read, less those only under `given`.
  std::set<std::string> symbols_under(const std::vector<int> &nodes, const std::map<int, std::string> &given) const {
    std::set<std::string> names;
    std::set<int> seen;
    std::function<void(int)> visit = [&](int id) {
      if (given.count(id) || !seen.insert(id).second) return;
      const Node &n = p_.graph.node(id);
      if (n.kind == Node::sym) names.insert(n.name);
      for (auto &t : n.terms) visit(t.second);
    };
    for (int id : nodes) visit(id);
    return names;
  }
};

// On the recursion, jacobian's work: rhs's, then f, tau's derivatives by
// the state and the inputs, M and its factor, a column of the solve, and
// the links' tangents (gen/kernels/tree_jacobian.c); with `rows` solved on
// top, the derivatives of their forces J^T nu and of their r - J q'', and
// a scratch row (gen/kernels/tree_kkt_jacobian.c).
Layout tree_jacobian_work_layout(const Sizes &s, const Layout &rhs_work, size_t links, size_t rows) {
  Layout l(s);
  l.add_layout(rhs_work, Size::nwork);
  l.add("dxdt", {{Size::nx}});
  l.add("dtau_dx", {{Size::nq}, {Size::nx}});
  l.add("dtau_du", {{Size::nq}, {Size::nu}});
  l.add("mass", {{Size::nq}, {Size::nq}});
  l.add("column", {{Size::nq}});
  l.add("tangent", {}, links * ArticulatedForm::kTangent);
  if (!rows) return l;
  l.add("dforce_dx", {{Size::nq}, {Size::nx}});
  l.add("dforce_du", {{Size::nq}, {Size::nu}});
  l.add("drows_dx", {{Size::nx}}, rows);
  l.add("drows_du", {{Size::nu}}, rows);
  l.add("rotated", {}, rows);
  return l;
}

// rhs's form (articulated_plan.cpp), as the model chose it: on the
// recursion, the block that fills its table and tau, the written
// potential's block, their work after rhs's own; with the Jacobian, tau's
// derivatives by the state and the inputs, which tree_jacobian.c's
// derivatives of the recursion take, and no parameter_jacobian; with rows
// on top, the rows' derivatives too (rows_derivatives), nu the multipliers'
// symbols.
void plan_articulated(Plan &p, BlockBuilder &b, const std::vector<GiNaC::realsymbol> &nu) {
  std::vector<int> dense;
  for (auto &a : p.kkt_entries.outputs) dense.push_back(a.node);
  p.articulated = choose_articulated(p.model, p.graph, dense, p.solver.ops);
  if (!p.articulated.chosen) return;
  const ArticulatedTerms outs = articulated_terms(p.model, p.graph);
  const size_t links = p.model.articulated.links.size();
  const size_t table = links * ArticulatedForm::kTable + 3;
  p.articulated_terms = b.block({"void", p.names.fn("articulated_terms"), true, {kAt, {out("out_table"), out("out_tau")}}}, "",
                              {{"out_table", make_extent(p.sizes, {}, table)}, {"out_tau", make_extent(p.sizes, {{Size::nq}})}},
                              outs.terms);
  if (!outs.rest.empty())
    p.articulated_rest = b.block({"void", p.names.fn("articulated_rest"), true, {kAt, {out("out_table")}}}, "",
                                 {{"out_table", make_extent(p.sizes, {}, table)}}, outs.rest);
  {
    const Model &m = p.model;
    std::vector<Assignment> potential = {{0, 0, p.graph.from_ginac(m.V_written), "V as written, beside the bodies'", ""}};
    for (size_t i = 0; i < m.nq; ++i)
      potential.push_back({1, i, p.graph.from_ginac(m.V_written.diff(m.symbols.q[i])),
                           i == 0 ? "its dV/dq, row " + m.spec->coordinates[i].name : "row " + m.spec->coordinates[i].name, ""});
    p.written_potential = b.block({"void", p.names.fn("written_potential"), true,
                                   {{scalar("t"), in("state"), in("param")}, {out("out_V"), out("out_dVdq")}}},
                                  "", {{"out_V", make_extent(p.sizes, {}, 1)}, {"out_dVdq", make_extent(p.sizes, {{Size::nq}})}},
                                  potential);
  }
  p.rhs_work.add("table", {}, table);
  p.rhs_work.add("tau", {{Size::nq}});
  p.rhs_work.add("links", {}, links * ArticulatedForm::kWork);
  p.sizes.nwork = p.rhs_work.size();
  p.parameter_jacobian_work = parameter_jacobian_work_layout(p.sizes, p.rhs_work);
  p.step_work = step_work_layout(p.sizes, p.rhs_work);
  const std::vector<size_t> rows = rows_on_top(p.model);
  p.jacobian_work = tree_jacobian_work_layout(p.sizes, p.rhs_work, links, rows.size());
  if (!p.with_jacobian) return;
  const Model &m = p.model;
  p.tree_jacobian = true;
  std::vector<Assignment> douts;
  auto derivatives = [&](int array, const std::vector<std::string> &by) {
    for (size_t i = 0; i < m.articulated.tau.size(); ++i) {
      const int row = p.graph.from_ginac(m.articulated.tau[i]);
      for (size_t k = 0; k < by.size(); ++k) {
        const int d = p.graph.derivative(row, by[k]);
        if (!p.graph.is_zero(d))
          douts.push_back({array, i * by.size() + k, d, douts.empty() ? "d tau/dx, then d tau/du" : "", ""});
      }
    }
  };
  std::vector<std::string> by_state, by_input;
  for (size_t i = 0; i < m.state.size(); ++i) by_state.push_back(p.locals[i].name);
  for (auto &u : m.spec->inputs) by_input.push_back(u.name);
  derivatives(0, by_state);
  derivatives(1, by_input);
  p.tau_derivatives = b.block({"void", p.names.fn("tau_derivatives"), true, {kAt, {out("out_dtau_dx"), out("out_dtau_du")}}},
                              "",
                              {{"out_dtau_dx", make_extent(p.sizes, {{Size::nq}, {Size::nx}})},
                               {"out_dtau_du", make_extent(p.sizes, {{Size::nq}, {Size::nu}})}},
                              douts);
  if (rows.empty()) return;
  // The rows' part (tree_kkt_jacobian.c): d(J^T nu)/dx at fixed nu, the
  // solved rows' d(r - J a)/dx at fixed a, and g's derivatives (the
  // integral states' rows of df/dx, df/du).
  std::vector<Assignment> routs;
  // skip(i, k): an entry left to the kernel (the force's upper triangle by q when it mirrors it).
  auto rows_by = [&](const std::vector<ex> &exprs, int array, const std::vector<std::string> &by, std::string heading,
                     const std::function<bool(size_t, size_t)> &skip = nullptr) {
    for (size_t i = 0; i < exprs.size(); ++i) {
      const int row = p.graph.from_ginac(exprs[i]);
      for (size_t k = 0; k < by.size(); ++k) {
        if (skip && skip(i, k)) continue;
        const int d = p.graph.derivative(row, by[k]);
        if (!p.graph.is_zero(d)) {
          routs.push_back({array, i * by.size() + k, d, heading, ""});
          heading.clear();
        }
      }
    }
  };
  std::vector<ex> force(m.nq, ex(0)), residual;
  for (size_t c : rows) {
    ex row = m.r[c];
    for (size_t i = 0; i < m.nq; ++i) {
      force[i] += m.J(c, i) * nu[c];
      row -= m.J(c, i) * m.accelerations[i];
    }
    residual.push_back(row);
  }
  // Holonomic rows' forces are a gradient, nu.phi's: their derivative by q is
  // symmetric (a Hessian), and where it is, node for node, only its lower
  // triangle is written and the kernel mirrors it (on a chain of rods the
  // stores are most of the block).
  p.rows_force_symmetric = true;
  for (size_t i = 0; i < m.nq && p.rows_force_symmetric; ++i)
    for (size_t j = 0; j < i && p.rows_force_symmetric; ++j)
      p.rows_force_symmetric = p.graph.derivative(p.graph.from_ginac(force[i]), by_state[j]) ==
                               p.graph.derivative(p.graph.from_ginac(force[j]), by_state[i]);
  rows_by(force, 0, by_state, "the rows' forces J^T nu by the state and the inputs, at fixed nu" +
                                  std::string(p.rows_force_symmetric ? " (by q: the lower triangle)" : ""),
          [&](size_t i, size_t k) { return p.rows_force_symmetric && k < m.nq && k > i; });
  rows_by(force, 1, by_input, "");
  rows_by(residual, 2, by_state, "the solved rows' r - J a by the state and the inputs, at fixed a");
  rows_by(residual, 3, by_input, "");
  rows_by(m.g, 4, by_state, "g by the state and the inputs");
  rows_by(m.g, 5, by_input, "");
  auto extent = [&](std::vector<std::vector<Size>> factors, size_t count = 1) {
    return make_extent(p.sizes, std::move(factors), count);
  };
  p.rows_derivatives = b.block(
      {"void", p.names.fn("rows_derivatives"), true,
       {kAt, kGains, {in("in_acceleration"), in("in_multipliers")},
        {out("out_dforce_dx"), out("out_dforce_du"), out("out_drows_dx"), out("out_drows_du")},
        {out("out_dg_dx"), out("out_dg_du")}}},
      "",
      {{"out_dforce_dx", extent({{Size::nq}, {Size::nx}})},
       {"out_dforce_du", extent({{Size::nq}, {Size::nu}})},
       {"out_drows_dx", extent({{Size::nx}}, rows.size())},
       {"out_drows_du", extent({{Size::nu}}, rows.size())},
       {"out_dg_dx", extent({{Size::nn}, {Size::nx}})},
       {"out_dg_du", extent({{Size::nn}, {Size::nu}})}},
      routs);
}

}  // namespace

Plan::Plan(const Model &m, bool jacobians, Precision precision)
    : model(m),
      names(m.spec->name),
      real(names, precision),
      sizes(sizes_of(m)),
      with_jacobian(jacobians),
      state(state_layout(m, sizes)),
      rows(rows_layout(sizes)),
      kkt(kkt_layout(sizes)),
      rhs_work(rhs_work_layout(sizes)),
      jacobian_work(jacobian_work_layout(sizes, rhs_work)),
      parameter_jacobian_work(parameter_jacobian_work_layout(sizes, rhs_work)),
      solver(plan_kkt_solver(m)),
      correction(plan_correction_solver(m, solver)),
      correction_work(correction_work_layout(sizes)),
      with_step(sizes.nc == 0 || (correction.available && model.redundant.empty())),
      step_work(step_work_layout(sizes, rhs_work)) {
  const SymbolTable &s = m.symbols;
  const std::string &P = names.P;

  // Every symbol as the C holds it: state entries, parameters and inputs
  // loaded into locals in that order, t and the gains as the functions'
  // own parameters (grep tag: GENERATED-NAMES, the names the spec reader
  // refuses).
  for (size_t i = 0; i < m.state.size(); ++i) {
    const StateVar &x = m.state[i];
    Local::Role role = i < m.nq ? Local::coordinate : i < 2 * m.nq ? Local::velocity
                       : i < 2 * m.nq + m.nn ? Local::integral : Local::multiplier;
    std::string name = role == Local::velocity ? m.spec->coordinates[i - m.nq].name + "_dot" : x.name;
    locals.push_back({Local::loaded, role, x.sym, name, "state", i, x.name});
  }
  for (size_t i = 0; i < s.p.size(); ++i) {
    const std::string &name = m.spec->parameters[i].name;
    locals.push_back({Local::loaded, Local::parameter, s.p[i], name, "param", i, name});
  }
  for (size_t i = 0; i < s.u.size(); ++i) {
    const std::string &name = m.spec->inputs[i].name;
    locals.push_back({Local::loaded, Local::input, s.u[i], name, "input", i, name});
  }
  // The multipliers outputs and events read, from the array rhs fills (a
  // vakonomic mu is read from the state).
  for (size_t c = 0; c < m.multipliers.size(); ++c)
    if (c < m.nh || m.mu.empty()) {
      const std::string name = m.multipliers[c].get_name();
      locals.push_back({Local::loaded, Local::reaction, m.multipliers[c], name, "multipliers", c, name});
    }
  locals.push_back({Local::scalar, Local::time, s.t, "t", "", 0, "t"});
  locals.push_back({Local::scalar, Local::gain, m.alpha, "baumgarte_alpha", "", 0, "alpha"});
  locals.push_back({Local::scalar, Local::gain, m.beta, "baumgarte_beta", "", 0, "beta"});
  // The accelerations a of inverse dynamics and of the Jacobian's KKT
  // residual R(x, u, a, nu), with its multipliers nu: symbols read in place
  // from the functions' inputs.
  for (size_t i = 0; i < m.nq; ++i)
    locals.push_back({Local::element, Local::solution, m.accelerations[i], "in_acceleration[" + std::to_string(i) + "]",
                      "in_acceleration", i, ""});
  std::vector<GiNaC::realsymbol> nu;
  if (with_jacobian) {
    for (size_t c = 0; c < m.nc(); ++c) {
      nu.push_back(GiNaC::realsymbol("nu" + std::to_string(c + 1)));
      locals.push_back({Local::element, Local::solution, nu.back(), "in_multipliers[" + std::to_string(c) + "]",
                        "in_multipliers", c, ""});
    }
  }
  for (const Local &l : locals)
    graph.name_symbol(l.symbol, l.name, reading_rank(l), l.role == Local::parameter || l.role == Local::gain);
  graph.limit_operands(kMaxOperands, [&] {
    error_at(m.spec->kinetic.loc_of(0),
             "the generated code grows past " + std::to_string(kMaxOperands) +
                 " operations (the generator's limit on its size)" +
                 (with_jacobian ? "; without the Jacobian (--no-jacobian) it is smaller" : ""));
  });

  // The whole model, lowered once: the C below and the report share it.
  // First the arguments of its sines and cosines, which decide where the
  // addition formulas are cheaper than a call of their own.
  std::vector<ex> model_expressions = {m.T, m.V};
  for (const BodyEnergy &b : m.bodies) model_expressions.push_back(b.T), model_expressions.push_back(b.V);  // the report's
  for (auto *list : {&m.Q, &m.k, &m.phi, &m.phi_t, &m.phi_dot, &m.c_h, &m.g, &m.b, &m.c_n, &m.r})
    model_expressions.insert(model_expressions.end(), list->begin(), list->end());
  for (auto *matrix : {&m.M, &m.A, &m.B})
    for (unsigned i = 0; i < matrix->rows(); ++i)
      for (unsigned j = 0; j < matrix->cols(); ++j) model_expressions.push_back((*matrix)(i, j));
  std::vector<int> trig_arguments;
  for (const ex &argument : sine_and_cosine_arguments(model_expressions))
    trig_arguments.push_back(graph.from_ginac(argument));
  graph.prefer_trig_products(trig_arguments);
  for (const ex &e : model_expressions) graph.from_ginac(e);

  GiNaC::matrix J(m.nc(), m.nq);
  for (size_t c = 0; c < m.nc(); ++c)
    for (size_t i = 0; i < m.nq; ++i) J(c, i) = m.J(c, i);
  auto label = [&](size_t c) { return m.constraint_label(c); };
  auto extent = [&](std::vector<std::vector<Size>> factors) { return make_extent(sizes, std::move(factors)); };
  BlockBuilder b(*this);

  // On the recursion, M, k and the energies are not symbolic: the blocks
  // below keep their signatures and docs, and emit_articulated.cpp their
  // bodies over the tree's tables.
  const bool tree = m.articulated.chosen;
  {  // M (lower triangle), f = Q - k, J, r and g: the KKT system at one state.
    std::vector<Assignment> outs;
    b.matrix(outs, 0, m.M, true, "mass matrix M = d2T/dq'dq' (lower triangle)");
    for (size_t i = 0; i < m.nq && !tree; ++i)
      outs.push_back({1, i, graph.from_ginac(m.Q[i] - m.k[i]),
                      (i == 0 ? "f = Q - k, row " : "row ") + m.spec->coordinates[i].name, ""});
    b.matrix(outs, 2, J, false, "constraint Jacobian J = [A; B]");
    for (size_t c = 0; c < m.nc(); ++c)
      outs.push_back({3, c, graph.from_ginac(m.r[c]), "stabilised right-hand side of " + label(c), ""});
    for (size_t j = 0; j < m.nn; ++j)
      outs.push_back({4, j, graph.from_ginac(m.g[j]), j == 0 ? "g, the derivatives of the integral states" : "", ""});
    // Only the structural nonzeros of M and J: the straight-line solve
    // reads no other entry, so rhs calls this directly; kkt_terms zeroes
    // the arrays first.
    const std::vector<std::vector<Param>> params = {
        kAt, kGains, {out("out_M"), out("out_f"), out("out_J"), out("out_r"), out("out_g")}};
    kkt_entries = b.block({"void", names.fn("kkt_entries"), true, params}, "",
                          {{"out_M", extent({{Size::nq}, {Size::nq}})},
                           {"out_f", extent({{Size::nq}})},
                           {"out_J", extent({{Size::nc}, {Size::nq}})},
                           {"out_r", extent({{Size::nc}})},
                           {"out_g", extent({{Size::nn}})}},
                          outs);
    kkt_terms = {{"void", names.fn("kkt_terms"), false, params},
                 "The pieces of the KKT system of " + names.fn("rhs") +
                     " at one state: M (NQ x NQ, lower\ntriangle only; the rest is zero), f = Q - k (NQ), J = [A; B] "
                     "(NC x NQ), the\nstabilised constraint rows' right-hand side r (NC), and g (NN), the\nderivatives "
                     "of the integral states. For callers with their own solver.",
                 {},
                 {{"out_M", extent({{Size::nq}, {Size::nq}}), true, false},
                  {"out_J", extent({{Size::nc}, {Size::nq}}), true, false}}};
  }

  plan_articulated(*this, b, nu);

  if (with_jacobian && !tree) {
    // dR/dx and dR/du of R = [M a + k - Q - J^T nu; J a - r], and dg/dx,
    // dg/du: with the factored K, d(a, nu)/dx = -K^-1 dR/dx.
    std::vector<ex> R;
    for (size_t i = 0; i < m.nq; ++i) {
      ex row = m.inverse_dynamics[i] - m.Q[i];
      for (size_t c = 0; c < m.nc(); ++c) row -= m.J(c, i) * nu[c];
      R.push_back(row);
    }
    for (size_t c = 0; c < m.nc(); ++c) {
      ex row = -m.r[c];
      for (size_t i = 0; i < m.nq; ++i) row += m.J(c, i) * m.accelerations[i];
      R.push_back(row);
    }
    std::vector<std::string> by_state, by_input;
    for (size_t i = 0; i < m.state.size(); ++i) by_state.push_back(locals[i].name);
    for (auto &u : m.spec->inputs) by_input.push_back(u.name);
    std::vector<Assignment> outs;
    auto derivatives = [&](const std::vector<ex> &rows, const std::vector<std::string> &by, int array,
                           const std::string &heading) {
      for (size_t i = 0; i < rows.size(); ++i) {
        int row = graph.from_ginac(rows[i]);
        for (size_t k = 0; k < by.size(); ++k) {
          int d = graph.derivative(row, by[k]);
          if (!graph.is_zero(d)) outs.push_back({array, i * by.size() + k, d, outs.empty() ? heading : "", ""});
        }
      }
    };
    derivatives(R, by_state, 0, "dR/dx, R = [M a + k - Q - J^T nu; J a - r]");
    size_t before = outs.size();
    derivatives(R, by_input, 1, "");
    derivatives(m.g, by_state, 2, "");
    derivatives(m.g, by_input, 3, "");
    if (outs.size() > before) outs[before].comment = "dR/du, dg/dx, dg/du";
    // d(a, nu)/dp = -K^-1 dR/dp, as for x and u.
    std::vector<std::string> by_param;
    for (const Local &l : locals)
      if (l.role == Local::parameter) by_param.push_back(l.name);
    std::vector<Assignment> param_outs;
    for (size_t i = 0; i < R.size(); ++i) {
      int row = graph.from_ginac(R[i]);
      for (size_t k = 0; k < by_param.size(); ++k) {
        int d = graph.derivative(row, by_param[k]);
        if (!graph.is_zero(d)) param_outs.push_back({0, i * by_param.size() + k, d, param_outs.empty() ? "dR/dp" : "", ""});
      }
    }
    // The derivative blocks read what kkt_entries computes (its temporaries)
    // where they need it; those they read are the shared terms, single
    // operations too (67 of the bicycle's 212: its rhs + jacobian took 0.2 %
    // fewer instructions with them read than computed again). The rhs
    // stores them only when the jacobians call it (NAME_rhs_terms).
    const std::map<int, std::string> &computed = kkt_entries.schedule.temps;
    const bool sharing = !computed.empty();
    // A derivative block's parameters: the solution, the shared terms, then its outputs.
    auto derivative_params = [&](std::vector<Param> outputs) {
      std::vector<std::vector<Param>> lines = {kAt, kGains, {in("in_acceleration"), in("in_multipliers")}};
      if (sharing) lines.push_back({in("in_terms")});
      lines.push_back(std::move(outputs));
      return lines;
    };
    residual_derivatives = b.block(
        {"void", names.fn("residual_derivatives"), true,
         derivative_params({out("out_dR_dx"), out("out_dR_du"), out("out_dg_dx"), out("out_dg_du")})},
        "",
        {{"out_dR_dx", extent({{Size::nq, Size::nc}, {Size::nx}})},
         {"out_dR_du", extent({{Size::nq, Size::nc}, {Size::nu}})},
         {"out_dg_dx", extent({{Size::nn}, {Size::nx}})},
         {"out_dg_du", extent({{Size::nn}, {Size::nu}})}},
        outs, computed, "in_terms");
    residual_parameter_derivatives = b.block(
        {"void", names.fn("residual_parameter_derivatives"), true,
         derivative_params({out("out_dR_dp")})},
        "", {{"out_dR_dp", extent({{Size::nq, Size::nc}, {Size::np}})}}, param_outs, computed, "in_terms");
    std::set<int> read;
    for (const Block *d : {&residual_derivatives, &residual_parameter_derivatives})
      for (const Statement &st : d->schedule.code)
        if (st.kind == Statement::read) read.insert(st.node);
    for (Statement &st : kkt_entries.schedule.code)
      if (st.kind == Statement::temp && read.count(st.node)) {
        st.shared = true;
        terms.values.push_back({st.node, st.temp_name});
      }
    if (sharing && terms.empty())  // nothing shared after all: no parameter for it
      for (Block *d : {&residual_derivatives, &residual_parameter_derivatives}) {
        auto &lines = d->signature.lines;
        lines.erase(lines.end() - 2);
        d->unused.erase(std::find(d->unused.begin(), d->unused.end(), "in_terms"));
      }
    if (!terms.empty()) {  // kkt_entries stores them when asked, into the jacobians' work after their own slices
      kkt_entries.signature.lines.back().push_back(out("out_terms"));
      kkt_entries.terms = "out_terms";
      jacobian_work.add("terms", {}, terms.values.size());
      parameter_jacobian_work.add("terms", {}, terms.values.size());
    }
  }

  // The slices of the rhs's work each routine names, before its own.
  std::vector<std::pair<std::string, std::string>> rhs_slices = {{"M", "M"}, {"J", "J"}, {"Y", "Y"},
                                                                 {"S", "S"}, {"nu", "nu"}, {"w", "w"}};
  if (sizes.nc)
    for (const char *slice : {"E", "z", "conditioning"}) rhs_slices.push_back({slice, slice});
  rhs = {{"int", names.fn("rhs"), false, {kAt, kGains, {out("out_dxdt"), out("out_multipliers"), out("work")}}},
         "The stabilised first-order system x' = f(t, x, u): q' = v,\nM v' + k = Q + A^T lambda + B^T mu with the "
         "constraint rows replaced by\nphi'' + alpha phi' + beta phi = 0 and g' = -alpha g - beta int g, and\n(int g)' "
         "= g. Writes out_dxdt (NX) and, unless NULL, the multipliers\n[lambda; mu] (NC). work holds NWORK " + real.plural() + ". "
         "Returns " + P + "_OK or an error.",
         pointers(rhs_work, "work", rhs_slices), {}};
  for (auto &ptr : pointers(state, "out_dxdt", {{"acceleration", "v"}})) rhs.pointers.push_back(ptr);

  if (with_jacobian) {
    // The jacobians name Y only with constraints (the minimum-norm solve reads it).
    std::vector<std::pair<std::string, std::string>> inner = rhs_slices;
    if (!sizes.nc) inner.erase(inner.begin() + 2);
    auto slices = [&](std::vector<const char *> own) {
      auto all = inner;
      for (const char *slice : own) all.push_back({slice, slice});
      if (!terms.empty()) all.push_back({"terms", "terms"});
      return all;
    };
    if (tree) {
      const bool on_top = !rows_on_top(m).empty();
      std::vector<std::pair<std::string, std::string>> tree_slices;  // in the work's order
      if (on_top)
        for (const char *slice : {"J", "Y", "S", "nu", "E", "z", "conditioning"}) tree_slices.push_back({slice, slice});
      for (const char *slice : {"table", "tau", "links", "dxdt", "dtau_dx", "dtau_du", "mass", "column", "tangent"})
        tree_slices.push_back({slice, slice});
      if (on_top)
        for (const char *slice : {"dforce_dx", "dforce_du", "drows_dx", "drows_du", "rotated"})
          tree_slices.push_back({slice, slice});
      jacobian = {{"int", names.fn("jacobian"), false, {kAt, kGains, {out("out_dfdx"), out("out_dfdu"), out("work")}}},
                  "Jacobians of the same system, df/dx (NX x NX) and df/du (NX x NU), row-major:\nq'' by the analytical "
                  "derivatives of the recursive Newton-Euler algorithm over\nthe tree's tables, -M^-1 (d ID/dx - d tau/dx) "
                  "and M^-1 d tau/du, O(N^2)" +
                      std::string(on_top ? ",\nat the total force tau + J^T nu; the constraint rows' part by the solve of\n"
                                           "S = J M^-1 J^T rhs factored, S dnu/dx = d(r - J q'')/dx - J dq''/dx"
                                         : "") +
                      ".\nwork holds NWORK_JACOBIAN " + real.plural() + ".",
                  pointers(jacobian_work, "work", tree_slices),
                  {{"out_dfdx", extent({{Size::nx}, {Size::nx}}), true, false},
                   {"out_dfdu", extent({{Size::nx}, {Size::nu}}), true, false}}};
    } else
      jacobian = {{"int", names.fn("jacobian"), false, {kAt, kGains, {out("out_dfdx"), out("out_dfdu"), out("work")}}},
                  "Jacobians of the same system, df/dx (NX x NX) and df/du (NX x NU), row-major,\nderived "
                  "symbolically: q'' by differentiating the KKT system it solves.\nwork holds NWORK_JACOBIAN " +
                      real.plural() + ".",
                  pointers(jacobian_work, "work", slices({"dxdt", "dR_dx", "dR_du", "dg_dx", "dg_du", "column"})),
                  {{"out_dfdx", extent({{Size::nx}, {Size::nx}}), true, false},
                   {"out_dfdu", extent({{Size::nx}, {Size::nu}}), true, false}}};
    parameter_jacobian = {
        {"int", names.fn("parameter_jacobian"), false, {kAt, kGains, {out("out_dqdd_dp"), out("work")}}},
        "The sensitivity of the accelerations to the parameters, dq''/dp (NQ x NP),\nrow-major, derived "
        "symbolically as " + names.fn("jacobian") + "'s (d/du is its df/du).\nwork holds NWORK_PARAMETER_JACOBIAN " +
            real.plural() + ". Returns " + P + "_OK or an error of the rhs.",
        pointers(parameter_jacobian_work, "work", slices({"dxdt", "dR_dp", "column"})),
        {{"out_dqdd_dp", extent({{Size::nq}, {Size::np}}), true, false}}};
  }

  if (correction.available) {
    correction_factor = {
        {"int", names.fn("correction_factor"), false, {{integer("mass_metric"), out("M"), in("C"), out("work")}}},
        "The one-step correction (6.416-6.418), first its factor: S = C W^-1 C^T\nfactored by Cholesky over the "
        "structural nonzeros of M and C, in the\nmetric W = M (mass_metric 1: M, NQ x NQ with its lower triangle "
        "read, is\nfactored in place) or W = I (0: M is not read and may be NULL). C is\n" +
            names.fn("constraint_jacobian") + "'s. work holds NWORK_CORRECTION " + real.plural() + ". Returns " + P + "_OK,\n" + P +
            "_SINGULAR_MASS, or " + P +
            "_SINGULAR_CONSTRAINTS when a pivot of S falls\nbelow " + format_double(real.threshold(LGC_ROWS_PIVOT)) +
            " of its diagonal entry (the rows have lost "
            "rank, or nearly:\na least-squares solve is the caller's then).",
        pointers(correction_work, "work", {{"Y", "Y"}, {"S", "S"}}),
        {}};
    correction_solve = {
        {"void", names.fn("correction_solve"), false,
         {{integer("mass_metric"), integer("rows")}, {in("M"), in("C"), out("work")}, {out("K"), out("d")}}},
        "With M, C and work as " + names.fn("correction_factor") +
            " left them: the smallest d (in W)\nwith C d = r on the first `rows` constraint rows, " + P +
            "_NH (the position\ncorrection, Gauss-Newton on phi) or " + P +
            "_NC (velocities). On entry K holds r,\non return K = (C W^-1 C^T)^-1 r and d (NQ) = W^-1 C^T K.",
        pointers(correction_work, "work", {{"S", "S"}}),
        {}};
  }

  if (with_step) {
    std::string doc =
        "One step of h from t: the classical fourth-order Runge-Kutta method on\n" + names.fn("rhs") +
        " (four evaluations)";
    if (sizes.nc)
        doc += ", then the one-step correction (6.416-6.418) at t + h,\nas the runtime's --project full: "
               "positions by Gauss-Newton, q += W^-1 A^T K,\n(A W^-1 A^T) K = -phi (a factor reused while |phi| "
               "falls by " + std::to_string(int(1 / LGC_FACTOR_REUSE)) + " a step), to\n|phi| <= " +
               format_double(LGC_CORRECTION_TOL) + " or its round-off floor 64 eps (1 + |A| |q|), at most " +
               std::to_string(LGC_CORRECTION_MAX_ITER) + " iterations;\nthen velocities, v += W^-1 C^T K, (C W^-1 C^T) K = -[phi'; g]. The metric\n"
               "W = M (mass_metric 1) or W = I (0). Returns " + P + "_OK, " + P + "_SINGULAR_MASS,\n" + P +
               "_SINGULAR_CONSTRAINTS (from the rhs, or a pivot of the correction's factor\nbelow " +
               format_double(real.threshold(LGC_ROWS_PIVOT)) + " of its diagonal entry), " + P + "_CORRECTION_FAILED (the positions\ndid not converge, or are not "
               "finite) or " + P + "_NOT_FINITE (a NaN or Inf in the\nstate reached)";
    else
        doc += ". mass_metric is not read (no constraints to correct).\nReturns " + P + "_OK, an error of the rhs, or " + P +
               "_NOT_FINITE (a NaN or Inf in the\nstate reached)";
    doc += ". state (NX) is replaced\nby the state at t + h only on success. work holds NWORK_STEP " + real.plural() +
           "; the\nstep allocates nothing and calls nothing but this file's functions and libm.";
    step = {{"int", names.fn("step"), false,
             {kAt, kGains, {scalar("h"), integer("mass_metric")}, {out("work")}}},
            doc, {}, {}};
    step.signature.lines[0][1] = out("state");
    std::vector<std::pair<std::string, std::string>> slices = {{"k", "k"}, {"x0", "x0"}, {"xt", "xt"}};
    if (sizes.nc)
      for (const char *slice : {"C", "W", "correction", "K", "d", "phi", "phi_dot", "g", "q_prev"})
        if (sizes.nh || std::string(slice) != "q_prev") slices.push_back({slice, slice});
    step.pointers = pointers(step_work, "work", slices);
  }

  {  // phi, phi', g
    std::vector<Assignment> outs;
    for (size_t j = 0; j < m.nh; ++j) {
      outs.push_back({0, j, graph.from_ginac(m.phi[j]), label(j), ""});
      outs.push_back({1, j, graph.from_ginac(m.phi_dot[j]), "", ""});
    }
    for (size_t j = 0; j < m.nn; ++j) outs.push_back({2, j, graph.from_ginac(m.g[j]), label(m.nh + j), ""});
    residuals = b.block({"void", names.fn("residuals"), false,
                         {{scalar("t"), in("state"), in("param")}, {out("out_phi"), out("out_phi_dot"), out("out_g")}}},
                        "Constraint residuals: phi (NH), phi' (NH), g (NN).",
                        {{"out_phi", extent({{Size::nh}})},
                         {"out_phi_dot", extent({{Size::nh}})},
                         {"out_g", extent({{Size::nn}})}},
                        outs);
  }
  auto symbolic = [&](std::vector<Assignment> outs) { return tree ? std::vector<Assignment>() : outs; };
  energy = b.block({"real", names.fn("energy"), false, {{scalar("t"), in("state"), in("param")}}},
                   "Total energy T + V.", {}, symbolic({{-1, 0, tree ? -1 : graph.from_ginac(m.T + m.V), "T + V", ""}}));
  if (m.integral == Model::Integral::jacobi)
    jacobi_integral = b.block({"real", names.fn("jacobi_integral"), false, {{scalar("t"), in("state"), in("param")}}},
                              "The Jacobi integral h = q'.dL/dq' - L, conserved where T + V is not (the model's "
                              "report says why).",
                              {}, {{-1, 0, graph.from_ginac(m.jacobi), "h", ""}});
  energies = b.block({"void", names.fn("energies"), false, {{scalar("t"), in("state"), in("param"), out("out_TV")}}},
                     "The kinetic energy T (out_TV[0]) and the potential energy V (out_TV[1])\napart; " +
                         names.fn("energy") + " is their sum.",
                     {{"out_TV", make_extent(sizes, {}, 2)}},
                     symbolic({{0, 0, tree ? -1 : graph.from_ginac(m.T), "T", ""},
                               {0, 1, tree ? -1 : graph.from_ginac(m.V), "V", ""}}));
  {  // what a controller asks: tau for q'', the bias k - Q without inputs, V's gradient
    std::vector<Assignment> tau, bias_rows, gravity_rows;
    GiNaC::exmap no_input;
    for (auto &u : m.symbols.u) no_input[u] = 0;
    for (size_t i = 0; i < m.nq && !tree; ++i) {
      const std::string &q = m.spec->coordinates[i].name;
      tau.push_back({0, i, graph.from_ginac(m.inverse_dynamics[i] - m.Q[i]), "row " + q, ""});
      bias_rows.push_back({0, i, graph.from_ginac(m.k[i] - m.Q[i].subs(no_input)), "row " + q, ""});
      gravity_rows.push_back({0, i, graph.from_ginac(m.V.diff(m.symbols.q[i])), "dV/d" + q, ""});
    }
    const std::string bodies = m.bodies.empty() ? "" : " (the bodies' part by\nNewton-Euler where their chains are long)";
    inverse_dynamics = b.block(
        {"void", names.fn("inverse_dynamics"), false, {kAt, {in("in_acceleration"), out("out_tau")}}},
        "Inverse dynamics: the generalised forces tau = M q'' + k - Q (NQ) that give\nthe accelerations "
        "in_acceleration = q'' (NQ) at the state, under the inputs" + bodies + ".\nWith constraints, q'' is a "
        "motion only when it satisfies their rows (J q'' = r);\nthen tau is what the constraints and any "
        "actuator together supply, and at\nthe q'' " + names.fn("rhs") + " gives, tau = J^T [lambda; mu].",
        {{"out_tau", extent({{Size::nq}})}}, tau);
    bias = b.block({"void", names.fn("bias"), false, {{scalar("t"), in("state"), in("param"), out("out_bias")}}},
                   "The bias k - Q (NQ) with every input 0: the generalised forces that hold\nq'' = 0 at the state "
                   "(" + names.fn("inverse_dynamics") + " at q'' = 0 and no input).",
                   {{"out_bias", extent({{Size::nq}})}}, bias_rows);
    gravity = b.block({"void", names.fn("gravity"), false, {{scalar("t"), in("state"), in("param"), out("out_dVdq")}}},
                      "The potential's gradient dV/dq (NQ): the forces that hold the coordinates\nstill against "
                      "gravity and springs.",
                      {{"out_dVdq", extent({{Size::nq}})}}, gravity_rows);
  }
  if (tree)
    regressor.absent = "it is not derived for a model whose rhs takes the articulated-body recursion (M, k and "
                       "the inverse dynamics are computed over the tree's tables, not as expressions of the "
                       "parameters to factor into Y theta)";
  else
    regressor = derive_regressor(m);
  if (regressor.available()) {  // Y theta = tau, in the standard and in the base parameters
    const Regressor &r = regressor;
    auto columns = [&](const char *fn, const std::vector<size_t> &kept, const std::string &doc) {
      std::vector<Assignment> outs;
      for (size_t i = 0; i < m.nq; ++i)
        for (size_t c = 0; c < kept.size(); ++c) {
          const ex &y = r.Y(i, kept[c]);
          if (!y.is_zero())
            outs.push_back({0, i * kept.size() + c, graph.from_ginac(y),
                            "row " + m.spec->coordinates[i].name + ", column " + r.standard_text[kept[c]], ""});
        }
      return b.block({"void", names.fn(fn), false,
                      {{scalar("t"), in("state"), in("in_acceleration"), out("out_Y")}}},
                     doc, {{"out_Y", make_extent(sizes, {{Size::nq}}, kept.size()), true, false}}, outs);
    };
    auto parameters = [&](const char *fn, const std::vector<ex> &theta, const std::vector<std::string> &text,
                          const std::string &doc) {
      std::vector<Assignment> outs;
      for (size_t k = 0; k < theta.size(); ++k) outs.push_back({0, k, graph.from_ginac(theta[k]), text[k], ""});
      return b.block({"void", names.fn(fn), false, {{in("param"), out("out_theta")}}}, doc,
                     {{"out_theta", Extent{}}}, outs);
    };
    std::vector<size_t> all(r.standard.size());
    for (size_t k = 0; k < all.size(); ++k) all[k] = k;
    const std::string report = names.p + ".md";
    base_regressor = columns(
        "regressor", r.base_columns,
        "The regressor of the base parameters, Y (NQ x " + P + "_NBASE, row-major): Y\n" + names.fn("base_parameters") +
            " = tau, the inverse dynamics (" + names.fn("inverse_dynamics") + ")\nat in_acceleration = q'' with every "
            "input 0, for every value of the\nparameters. Its columns are independent functions of the state and q''; "
            + report + "\nsays which parameters each base parameter combines.");
    base_parameters = parameters("base_parameters", r.base, r.base_text,
                                 "The base parameters (" + P + "_NBASE) at the parameters param: the\nidentifiable "
                                 "combinations of the standard parameters, as " + report + " lists them.");
    standard_regressor = columns(
        "standard_regressor", all,
        "The regressor of the standard parameters, Y (NQ x " + P + "_NSTANDARD, row-major):\nY " +
            names.fn("standard_parameters") + " = tau as for " + names.fn("regressor") +
            "; its columns are\nnot independent where " + P + "_NBASE < " + P + "_NSTANDARD.");
    standard_parameters = parameters("standard_parameters", r.standard, r.standard_text,
                                     "The standard parameters (" + P + "_NSTANDARD): the distinct monomials of the\n"
                                     "parameters in tau, at param.");
  }
  {
    std::vector<Assignment> outs;
    b.matrix(outs, 0, m.M, true, "lower triangle; the upper one mirrors it");
    mass_matrix = b.block({"void", names.fn("mass_matrix"), false, {{scalar("t"), in("state"), in("param"), out("out_M")}}},
                          "Mass matrix M, NQ x NQ, row-major.",
                          {{"out_M", extent({{Size::nq}, {Size::nq}}), !tree, !tree}}, outs);
  }
  {
    std::vector<Assignment> outs;
    b.matrix(outs, 0, J, false, "", label);
    constraint_jacobian =
        b.block({"void", names.fn("constraint_jacobian"), false, {{scalar("t"), in("state"), in("param"), out("out_C")}}},
                "Constraint Jacobian in velocity space, C = [A; B], NC x NQ, row-major.",
                {{"out_C", extent({{Size::nc}, {Size::nq}}), true, false}}, outs);
  }
  {  // D = d[phi'; g]/dq at fixed q', on the shared graph
    std::vector<Assignment> outs;
    for (size_t c = 0; c < m.nc(); ++c) {
      int rate = graph.from_ginac(m.rate(c));
      bool first = true;
      for (size_t i = 0; i < m.nq; ++i) {
        int d = graph.derivative(rate, locals[i].name);
        if (graph.is_zero(d)) continue;
        outs.push_back({0, c * m.nq + i, d, first ? label(c) : "", ""});
        first = false;
      }
    }
    constraint_coordinate_jacobian = b.block(
        {"void", names.fn("constraint_coordinate_jacobian"), false, {{scalar("t"), in("state"), in("param"), out("out_D")}}},
        "D = d[phi'; g]/dq at fixed q', NC x NQ, row-major: how the velocity-level\nconstraint rows change with the "
        "coordinates. On the constraints a\nperturbation keeps C dq' + D dq = 0 (C = " + names.fn("constraint_jacobian") +
            ").",
        {{"out_D", extent({{Size::nc}, {Size::nq}}), true, false}}, outs);
  }
  // [outputs] and [events], each an expression of the state and the multipliers.
  auto named_values = [&](const char *fn, const std::vector<ex> &values, const std::vector<std::string> &labels,
                          const std::string &doc) {
    std::vector<Assignment> outs;
    for (size_t i = 0; i < values.size(); ++i) outs.push_back({0, i, graph.from_ginac(values[i]), labels[i], ""});
    const std::string array = std::string("out_") + fn;
    return b.block({"void", names.fn(fn), false, {kAt, {in("multipliers"), out(array.c_str())}}}, doc,
                   {{array, Extent{}}}, outs);
  };
  auto text_of = [](const std::string &name, const SourceText &text) { return name + " = " + text.text; };
  if (!m.outputs.empty()) {
    std::vector<std::string> labels;
    for (auto &o : m.spec->outputs) labels.push_back(text_of(o.name, o.text));
    outputs = named_values("outputs", m.outputs, labels,
                           "The spec's [outputs] (" + P + "_NOUT, in the order written; " + P +
                               "_OUTPUT_NAME is where\n"
                               "each is) at the state under the inputs, with the multipliers "
                               "[lambda; mu]\n(NC) as " + names.fn("rhs") + " writes them at that state.");
  }
  if (!m.events.empty()) {
    std::vector<std::string> labels;
    for (auto &e : m.spec->events) labels.push_back(text_of(e.name, e.when));
    events = named_values("events", m.events, labels,
                          "The event functions of the spec's [events] (" + P + "_NEVENT, in the order\nwritten): an "
                          "event is where one crosses zero. At the state under the inputs,\nwith the multipliers "
                          "[lambda; mu] (NC) as " + names.fn("rhs") + " writes them at that state.");
  }

  if (m.ncontact) {
    std::vector<Assignment> outs;
    for (size_t j = 0; j < m.ncontact; ++j)
      outs.push_back({0, j, graph.from_ginac(m.restitution[j]), "contact " + std::to_string(j + 1), ""});
    restitution = b.block({"void", names.fn("restitution"), false, {{in("param"), out("out_restitution")}}},
                          "Each contact's restitution, Newton's coefficient at its impacts, at the\nparameters "
                          "param (the spec's [constraints] restitution; one per contact,\nin the order written).",
                          {{"out_restitution", Extent{}}}, outs);
  }

  if (!m.friction.empty()) {
    std::vector<Assignment> normal, coefficients;
    for (size_t k = 0; k < m.friction.size(); ++k) {
      const Model::Friction &f = m.friction[k];
      normal.push_back({0, k, graph.from_ginac(f.normal0), f.name, ""});
      for (size_t c = 0; c < m.nc(); ++c)
        if (!f.normal_rate[c].is_zero())
          normal.push_back({1, k * m.nc() + c, graph.from_ginac(f.normal_rate[c]), "", m.multipliers[c].get_name()});
      coefficients.push_back({0, k, graph.from_ginac(f.mu_static), f.name, ""});
      coefficients.push_back({1, k, graph.from_ginac(f.mu_kinetic), "", ""});
    }
    friction_normal = b.block(
        {"void", names.fn("friction_normal"), false, {kAt, {out("out_normal"), out("out_normal_rate")}}},
        "Each friction contact's normal force N = out_normal[k] + out_normal_rate[k NC ..] . [lambda; mu]\n"
        "(the spec's [friction.NAME] normal, in the order written), affine in the\nmultipliers.",
        {{"out_normal", Extent{}}, {"out_normal_rate", make_extent(sizes, {{Size::nc}}, m.friction.size()), true, false}}, normal);
    friction_coefficients = b.block(
        {"void", names.fn("friction_coefficients"), false, {{in("param"), out("out_static"), out("out_kinetic")}}},
        "Each friction contact's static and kinetic coefficients at the parameters param.",
        {{"out_static", Extent{}}, {"out_kinetic", Extent{}}}, coefficients);
  }

  {  // x(0) as expressions of the parameters
    std::vector<Assignment> outs;
    for (size_t i = 0; i < m.state.size(); ++i)
      outs.push_back({0, i, graph.from_ginac(m.state[i].initial), "", m.state[i].name});
    initial_state_at = b.block({"void", names.fn("initial_state_at"), false, {{in("param"), out("out_state")}}},
                               "The spec's initial state (NX) at the parameters param: the [initial]\nvalues are "
                               "expressions of the parameters (" + names.fn("initial_state") +
                                   "\nholds them at the defaults).",
                               {{"out_state", extent({{Size::nx}})}}, outs);
  }
}

}  // namespace lgc
