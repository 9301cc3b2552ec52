// structure.cpp — which states, inputs, parameters and gains each of rhs's
// results depends on, from the symbols its expressions hold: FMI's
// ModelStructure (docs/commands.md, "lagrangec fmu").
#include "model/model.h"

#include <numeric>
#include <unordered_set>

namespace lgc {

namespace {

// The knowns of a model by their symbols.
class KnownSymbols {
 public:
  explicit KnownSymbols(const Model &m) {
    for (size_t i = 0; i < m.state.size(); ++i) by_symbol_.emplace(m.state[i].sym, Known{Known::state, i});
    for (size_t i = 0; i < m.symbols.u.size(); ++i) by_symbol_.emplace(m.symbols.u[i], Known{Known::input, i});
    for (size_t i = 0; i < m.symbols.p.size(); ++i) by_symbol_.emplace(m.symbols.p[i], Known{Known::parameter, i});
    by_symbol_.emplace(m.alpha, Known{Known::gain, 0});
    by_symbol_.emplace(m.beta, Known{Known::gain, 1});
    for (size_t c = 0; c < m.multipliers.size(); ++c) multiplier_.emplace(m.multipliers[c], c);
    for (auto &[sym, known] : by_symbol_) every_.insert(known);
  }

  // The knowns e holds, and the multipliers (their rows) it holds. Each
  // shared subexpression is visited once (as SymbolTable::has_kind).
  void add(const GiNaC::ex &e, std::set<Known> &knowns, std::set<size_t> *multipliers = nullptr) const {
    std::vector<GiNaC::ex> held = {e};
    std::unordered_set<const GiNaC::basic *> seen = {&GiNaC::ex_to<GiNaC::basic>(e)};
    for (size_t next = 0; next < held.size(); ++next) {
      GiNaC::ex x = held[next];
      if (GiNaC::is_a<GiNaC::symbol>(x)) {
        if (auto k = by_symbol_.find(x); k != by_symbol_.end()) knowns.insert(k->second);
        if (auto c = multiplier_.find(x); c != multiplier_.end() && multipliers) multipliers->insert(c->second);
        continue;
      }
      for (size_t i = 0; i < x.nops(); ++i) {
        GiNaC::ex op = x.op(i);
        if (seen.insert(&GiNaC::ex_to<GiNaC::basic>(op)).second) held.push_back(op);
      }
    }
  }

  const std::set<Known> &every() const { return every_; }

 private:
  std::map<GiNaC::ex, Known, GiNaC::ex_is_less> by_symbol_;
  std::map<GiNaC::ex, size_t, GiNaC::ex_is_less> multiplier_;
  std::set<Known> every_;
};

size_t find(std::vector<size_t> &parent, size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

ModelStructure model_structure(const Model &m) {
  const KnownSymbols knowns(m);
  const size_t nq = m.nq, nc = m.nc(), nx = m.state.size();
  ModelStructure s;
  s.derivatives.resize(nx);
  s.multipliers.resize(nc);
  s.forces.resize(nq);
  // der(q) = q', exactly.
  for (size_t i = 0; i < nq; ++i) {
    s.derivatives[i].on = s.derivatives[i].constant = {Known{Known::state, nq + i}};
  }
  // der(z) = g, the nonholonomic rows' residuals.
  for (size_t j = 0; j < m.nn; ++j) knowns.add(m.g[j], s.derivatives[2 * nq + j].on);

  // The KKT matrix's blocks: nodes 0..nq the accelerations, nq..nq+nc the
  // rows (their multipliers), joined by M's and J's nonzero entries.
  std::vector<size_t> parent(nq + nc);
  std::iota(parent.begin(), parent.end(), 0);
  auto join = [&](size_t a, size_t b) { parent[find(parent, a)] = find(parent, b); };
  for (size_t i = 0; i < nq; ++i)
    for (size_t j = 0; j < i; ++j)
      if (!m.M(i, j).is_zero() || !m.M(j, i).is_zero()) join(i, j);
  for (size_t c = 0; c < nc; ++c)
    for (size_t i = 0; i < nq; ++i)
      if (!m.J(c, i).is_zero()) join(nq + c, i);
  // What each block's rows hold: M's, f = Q - k's, J's and r's entries.
  std::map<size_t, std::set<Known>> block;
  for (size_t i = 0; i < nq; ++i) {
    std::set<Known> &b = block[find(parent, i)];
    for (size_t j = 0; j < nq; ++j) knowns.add(m.M(i, j), b);
    if (i < m.Q.size()) knowns.add(m.Q[i], b);
    knowns.add(m.k[i], b);
  }
  for (size_t c = 0; c < nc; ++c) {
    std::set<Known> &b = block[find(parent, nq + c)];
    for (size_t i = 0; i < nq; ++i) knowns.add(m.J(c, i), b);
    knowns.add(m.r[c], b);
  }
  // Friction's forces and the vakonomic multipliers' rates couple what the
  // blocks do not show: every known.
  // So do a tree's on the recursion, whose M and k are not expressions here (conservative: every known).
  const bool all = !m.friction.empty() || m.formulation == Formulation::vakonomic || m.articulated.chosen;
  for (size_t i = 0; i < nq; ++i) s.derivatives[nq + i].on = all ? knowns.every() : block[find(parent, i)];
  for (size_t k = 2 * nq + m.nn; k < nx; ++k) s.derivatives[k].on = knowns.every();
  for (size_t c = 0; c < nc; ++c) s.multipliers[c].on = all ? knowns.every() : block[find(parent, nq + c)];
  // Fc = J^T [lambda; mu].
  for (size_t i = 0; i < nq; ++i)
    for (size_t c = 0; c < nc; ++c)
      if (!m.J(c, i).is_zero()) {
        knowns.add(m.J(c, i), s.forces[i].on);
        s.forces[i].on.insert(s.multipliers[c].on.begin(), s.multipliers[c].on.end());
      }
  for (const GiNaC::ex &o : m.outputs) {
    Dependencies d;
    std::set<size_t> rows;
    knowns.add(o, d.on, &rows);
    for (size_t c : rows) d.on.insert(s.multipliers.at(c).on.begin(), s.multipliers.at(c).on.end());
    s.outputs.push_back(std::move(d));
  }
  return s;
}

}  // namespace lgc
