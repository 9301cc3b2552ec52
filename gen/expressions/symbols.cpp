// symbols.cpp — the names an expression may use, as GiNaC symbols named as
// the spec names them (x, x', m, t), and the questions the derivation asks
// about which of them an expression contains.
#include "expressions/expressions.h"

#include <unordered_set>

namespace lgc {

SymbolTable make_symbols(const Spec &spec) {
  SymbolTable s;
  auto add = [&](const std::string &spec_name, SymbolKind kind, std::vector<GiNaC::realsymbol> &list) {
    GiNaC::realsymbol sym(spec_name);
    list.push_back(sym);
    s.by_name[spec_name] = SymbolInfo{sym, kind, spec_name};
    s.kind_of.emplace(sym, kind);
  };
  for (auto &c : spec.coordinates) add(c.name, SymbolKind::coordinate, s.q);
  for (auto &c : spec.coordinates) add(c.name + "'", SymbolKind::velocity, s.v);
  for (auto &p : spec.parameters) add(p.name, SymbolKind::parameter, s.p);
  for (auto &u : spec.inputs) add(u.name, SymbolKind::input, s.u);
  s.by_name["t"] = SymbolInfo{s.t, SymbolKind::time, "t"};
  s.kind_of.emplace(s.t, SymbolKind::time);
  s.by_name["pi"] = SymbolInfo{GiNaC::Pi, SymbolKind::constant, "pi"};
  return s;
}

// Each shared subexpression is visited once: a chain's expressions refer
// to their parents', and read as trees they are exponentially large.
bool SymbolTable::has_kind(const GiNaC::ex &e, SymbolKind kind) const {
  // Every operand stays held until the end: a sum makes its terms on the
  // fly, and a freed one's address could come back as another's.
  std::vector<GiNaC::ex> held = {e};
  std::unordered_set<const GiNaC::basic *> seen = {&GiNaC::ex_to<GiNaC::basic>(e)};
  for (size_t next = 0; next < held.size(); ++next) {
    GiNaC::ex x = held[next];
    if (GiNaC::is_a<GiNaC::symbol>(x)) {
      auto found = kind_of.find(x);
      if (found != kind_of.end() && found->second == kind) return true;
      continue;
    }
    for (size_t i = 0; i < x.nops(); ++i) {
      GiNaC::ex op = x.op(i);
      if (seen.insert(&GiNaC::ex_to<GiNaC::basic>(op)).second) held.push_back(op);
    }
  }
  return false;
}

GiNaC::ex SymbolTable::convective_derivative(const GiNaC::ex &e) const {
  GiNaC::exset present;
  for (auto it = e.preorder_begin(); it != e.preorder_end(); ++it)
    if (GiNaC::is_a<GiNaC::symbol>(*it)) present.insert(*it);
  GiNaC::exvector terms;
  if (present.count(t)) terms.push_back(e.diff(t));
  for (size_t i = 0; i < q.size(); ++i)
    if (present.count(q[i])) terms.push_back(e.diff(q[i]) * v[i]);
  return GiNaC::add(terms);
}

}  // namespace lgc
