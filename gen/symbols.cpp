// symbols.cpp — the names an expression may use, as GiNaC symbols named as
// the spec names them (x, x', m, t), and the questions the derivation asks
// about which of them an expression contains.
#include "lagrangec.h"

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

bool SymbolTable::has_kind(const GiNaC::ex &e, SymbolKind kind) const {
  for (auto it = e.preorder_begin(); it != e.preorder_end(); ++it)
    if (GiNaC::is_a<GiNaC::symbol>(*it)) {
      auto found = kind_of.find(*it);
      if (found != kind_of.end() && found->second == kind) return true;
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
