// symbols.cpp — the names an expression may use, as GiNaC symbols named as
// the spec names them (x, x', m, t), and the questions the derivation asks
// about which of them an expression contains.
#include "expressions/expressions.h"

#include <cmath>
#include <unordered_map>
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

namespace {

// A double as the exact rational it is, so values computed from it round
// once, at the end.
GiNaC::numeric exact(double d) {
  int e;
  double f = std::frexp(d, &e);
  return GiNaC::numeric(long(std::ldexp(f, 53))) * GiNaC::numeric(2).power(e - 53);
}

}  // namespace

double value_at_defaults(const GiNaC::ex &e, const SymbolTable &s, const Spec &spec, const GiNaC::exmap &more) {
  GiNaC::exmap values = more;
  for (size_t i = 0; i < s.p.size(); ++i) values[s.p[i]] = exact(spec.parameters[i].value);
  long digits = GiNaC::Digits;
  GiNaC::Digits = 40;
  double value = NAN;
  try {
    GiNaC::ex v = GiNaC::evalf(e.subs(values));
    if (GiNaC::is_a<GiNaC::numeric>(v) && GiNaC::ex_to<GiNaC::numeric>(v).is_real())
      value = GiNaC::ex_to<GiNaC::numeric>(v).to_double();
  } catch (const std::exception &) {  // log(0), 1/0 at these values
  }
  GiNaC::Digits = digits;
  return value;
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

namespace {

// ∂e/∂x by the rules of each GiNaC class, memoised by address: a shared
// subexpression is differentiated once and its derivative shared in turn.
class SharedDiff {
 public:
  explicit SharedDiff(const GiNaC::symbol &x) : x_(x) {}

  GiNaC::ex operator()(const GiNaC::ex &e) {
    const GiNaC::basic *key = &GiNaC::ex_to<GiNaC::basic>(e);
    auto memo = memo_.find(key);
    if (memo != memo_.end()) return memo->second.second;
    GiNaC::ex d = derivative(e);
    memo_.emplace(key, std::make_pair(e, d));  // e held: its address stays its own
    return d;
  }

 private:
  const GiNaC::symbol &x_;
  std::unordered_map<const GiNaC::basic *, std::pair<GiNaC::ex, GiNaC::ex>> memo_;

  GiNaC::ex derivative(const GiNaC::ex &e) {
    using GiNaC::ex;
    if (GiNaC::is_a<GiNaC::symbol>(e)) return e.is_equal(x_) ? 1 : 0;
    if (GiNaC::is_a<GiNaC::numeric>(e) || GiNaC::is_a<GiNaC::constant>(e)) return 0;
    if (GiNaC::is_a<GiNaC::add>(e)) {
      GiNaC::exvector terms;
      for (size_t i = 0; i < e.nops(); ++i) terms.push_back((*this)(e.op(i)));
      return GiNaC::add(terms);
    }
    if (GiNaC::is_a<GiNaC::mul>(e)) {
      GiNaC::exvector terms;
      for (size_t i = 0; i < e.nops(); ++i) {
        ex d = (*this)(e.op(i));
        if (d.is_zero()) continue;
        GiNaC::exvector factors = {d};
        for (size_t j = 0; j < e.nops(); ++j)
          if (j != i) factors.push_back(e.op(j));
        terms.push_back(GiNaC::mul(factors));
      }
      return GiNaC::add(terms);
    }
    if (GiNaC::is_a<GiNaC::power>(e)) {
      ex base = e.op(0), exponent = e.op(1), db = (*this)(base), de = (*this)(exponent);
      if (de.is_zero()) return db.is_zero() ? ex(0) : exponent * GiNaC::pow(base, exponent - 1) * db;
      return e * (de * GiNaC::log(base) + exponent * db / base);
    }
    if (GiNaC::is_a<GiNaC::function>(e)) {
      // The chain rule, each argument's derivative memoised; the function's
      // own by GiNaC on a copy with symbols for arguments.
      const GiNaC::function &f = GiNaC::ex_to<GiNaC::function>(e);
      GiNaC::exvector placeholders;
      GiNaC::exmap back;
      for (size_t i = 0; i < e.nops(); ++i) {
        GiNaC::symbol a;
        placeholders.push_back(a);
        back[a] = e.op(i);
      }
      ex of_placeholders = GiNaC::function(f.get_serial(), placeholders);
      GiNaC::exvector terms;
      for (size_t i = 0; i < e.nops(); ++i) {
        ex d = (*this)(e.op(i));
        if (!d.is_zero())
          terms.push_back(of_placeholders.diff(GiNaC::ex_to<GiNaC::symbol>(placeholders[i])).subs(back) * d);
      }
      return GiNaC::add(terms);
    }
    return e.diff(x_);
  }
};

}  // namespace

GiNaC::ex shared_diff(const GiNaC::ex &e, const GiNaC::symbol &x) { return SharedDiff(x)(e); }

GiNaC::ex SymbolTable::convective_derivative(const GiNaC::ex &e) const {
  GiNaC::exvector terms = {shared_diff(e, t)};
  for (size_t i = 0; i < q.size(); ++i) {
    GiNaC::ex d = shared_diff(e, q[i]);
    if (!d.is_zero()) terms.push_back(d * v[i]);
  }
  return GiNaC::add(terms);
}

}  // namespace lgc
