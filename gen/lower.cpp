// lower.cpp — GiNaC trees into a canonical, shared expression graph (symbols
// under the names the plan gives them), and the order in which a block of
// code computes it. GiNaC orders terms by hashes seeded from addresses,
// which change from run to run; everything here is ordered by structural
// keys of our own, so the output is byte-identical.
#include "lagrangec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

namespace lgc {

namespace {

uint64_t mix(uint64_t h, uint64_t v) {  // splitmix64 step: stable everywhere
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h ^= h >> 30, h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27, h *= 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

uint64_t bits(double v) {
  if (v == 0) v = 0;  // -0.0 and 0.0 are one number here
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

uint64_t hash_string(const std::string &s) {
  uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

double as_double(const GiNaC::numeric &n) {
  if (!n.is_real()) unreachable("a complex number reached the C printer");
  return n.to_double();
}

}  // namespace

std::string format_double(double v) {
  char buf[40];
  if (v == std::trunc(v) && std::fabs(v) < 1e15) {  // whole numbers in full: 10.0, not 1e+01
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // a double literal, not an int
  return s;
}

void Graph::sort_operands(Node &n) const {
  // Commutative operands in canonical order, readable where it costs
  // nothing: symbols by name first, then powers, calls, products and sums,
  // each by structural key.
  std::sort(n.terms.begin(), n.terms.end(), [&](auto &a, auto &b) {
    const Node &x = nodes_[a.second], &y = nodes_[b.second];
    static const int rank[] = {/*num*/ 0, /*sym*/ 1, /*add*/ 6, /*mul*/ 5, /*ipow*/ 2, /*pow*/ 4, /*call*/ 3};
    if (rank[x.kind] != rank[y.kind]) return rank[x.kind] < rank[y.kind];
    if (x.kind == Node::sym && x.name != y.name) return x.name < y.name;
    if (x.key != y.key) return x.key < y.key;
    return a.first < b.first;
  });
}

std::pair<double, int> Graph::split_coefficient(int id) const {
  const Node &n = nodes_[id];
  if (n.kind == Node::add && n.terms.size() == 1 && n.value == 0) return n.terms[0];
  return {1.0, id};
}

std::map<int, int> Graph::factors_of(int id) const {
  const Node &n = nodes_[id];
  std::map<int, int> f;
  if (n.kind == Node::mul) {
    for (auto &[e, factor] : n.terms)
      for (auto &[base, power] : factors_of(factor)) f[base] += int(e) * power;
  } else if (n.kind == Node::ipow) {
    f[n.terms[0].second] = n.exponent;
  } else {
    f[id] = 1;
  }
  return f;
}

int Graph::from_factors(const std::map<int, int> &factors) {
  std::vector<std::pair<int, int>> list;
  for (auto &[base, power] : factors)
    for (int k = 0; k < std::abs(power); ++k) list.push_back({base, power > 0 ? 1 : -1});
  return product(list);
}

bool Graph::combine_pythagoras(Node &n) {
  // c F sin(a)^2 + c F cos(a)^2 = c F: a term with sin(a)^2 looks for its
  // partner with cos(a)^2, the same coefficient and the same other factors.
  for (size_t i = 0; i < n.terms.size(); ++i) {
    auto fi = factors_of(n.terms[i].second);
    for (auto &[base, power] : fi) {
      const Node &b = nodes_[base];
      if (b.kind != Node::call || b.name != "sin" || power < 2) continue;
      int cos_node = call("cos", {b.terms[0].second});
      auto want = fi;
      if ((want[base] -= 2) == 0) want.erase(base);
      for (size_t j = 0; j < n.terms.size(); ++j) {
        if (j == i || n.terms[j].first != n.terms[i].first) continue;
        auto fj = factors_of(n.terms[j].second);
        auto c = fj.find(cos_node);
        if (c == fj.end() || c->second < 2) continue;
        if ((c->second -= 2) == 0) fj.erase(c);
        if (fj != want) continue;
        double coef = n.terms[i].first;
        n.terms.erase(n.terms.begin() + long(std::max(i, j)));
        n.terms.erase(n.terms.begin() + long(std::min(i, j)));
        n.terms.push_back({coef, from_factors(want)});
        return true;
      }
    }
  }
  return false;
}

int Graph::signed_sum(Node n) {
  while (combine_pythagoras(n)) {
  }
  // Factors common to every term come out: 3 m l^2 (c1 c2 + s1 s2), not
  // 3 m l^2 c1 c2 + 3 m l^2 s1 s2; coefficients too, when all are equal.
  if (n.terms.size() >= 2 && n.value == 0) {
    std::map<int, int> common = factors_of(n.terms[0].second);
    double coef = std::fabs(n.terms[0].first);
    for (auto &[c, id] : n.terms) {
      auto f = factors_of(id);
      for (auto it = common.begin(); it != common.end();) {
        auto g = f.find(it->first);
        int shared = g == f.end() || (g->second > 0) != (it->second > 0) ? 0
                     : it->second > 0 ? std::min(it->second, g->second) : std::max(it->second, g->second);
        if (shared == 0) it = common.erase(it);
        else it->second = shared, ++it;
      }
      if (std::fabs(c) != coef) coef = 1;
    }
    if (!common.empty() || coef != 1) {
      std::vector<std::pair<double, int>> rest;
      for (auto &[c, id] : n.terms) {
        auto f = factors_of(id);
        for (auto &[base, power] : common)
          if ((f[base] -= power) == 0) f.erase(base);
        rest.push_back({c / coef, from_factors(f)});
      }
      return product({{from_factors(common), 1}, {sum(rest), 1}}, coef);
    }
  }
  // GiNaC writes a sum as a - b in one run and -(b - a) in the next; the
  // sum is kept with its first canonical term positive, the sign outside.
  sort_operands(n);
  bool flip = n.terms.empty() ? n.value < 0 : n.terms[0].first < 0;
  if (!flip) return intern(n);
  n.value = -n.value;
  for (auto &t : n.terms) t.first = -t.first;
  return scaled(-1.0, intern(n));
}

int Graph::intern(Node n) {
  // The key hashes the structure, operands in canonical order.
  if (n.kind == Node::add || n.kind == Node::mul) sort_operands(n);
  uint64_t key = mix(n.kind, bits(n.value));
  key = mix(key, hash_string(n.name));
  key = mix(key, uint64_t(n.exponent));
  for (auto &[c, id] : n.terms) key = mix(mix(key, bits(c)), nodes_[id].key);
  n.key = key;
  // Equal structure means equal key; equal keys are compared in full.
  auto same = [&](const Node &o) {
    if (o.kind != n.kind || bits(o.value) != bits(n.value) || o.name != n.name || o.exponent != n.exponent ||
        o.terms.size() != n.terms.size())
      return false;
    for (size_t i = 0; i < n.terms.size(); ++i)
      if (bits(o.terms[i].first) != bits(n.terms[i].first) || o.terms[i].second != n.terms[i].second) return false;
    return true;
  };
  auto range = index_.equal_range(key);
  for (auto it = range.first; it != range.second; ++it)
    if (same(nodes_[size_t(it->second)])) return it->second;
  std::vector<uint64_t> deps;
  if (n.kind == Node::sym) {
    int bit = int(symbol_index_.emplace(n.name, int(symbol_index_.size())).first->second);
    deps.assign(size_t(bit / 64 + 1), 0);
    deps[size_t(bit / 64)] |= uint64_t(1) << (bit % 64);
  }
  for (auto &t : n.terms) {
    const auto &child = depends_[size_t(t.second)];
    if (child.size() > deps.size()) deps.resize(child.size(), 0);
    for (size_t w = 0; w < child.size(); ++w) deps[w] |= child[w];
  }
  nodes_.push_back(std::move(n));
  depends_.push_back(std::move(deps));
  int id = int(nodes_.size() - 1);
  index_.emplace(key, id);
  return id;
}

int Graph::number(double v) {
  Node n(Node::num);
  n.value = v == 0 ? 0.0 : v;
  return intern(n);
}

int Graph::scaled(double coef, int id) {
  auto [inner, node] = split_coefficient(id);
  coef *= inner;
  if (coef == 0) return number(0);
  if (coef == 1) return node;
  if (nodes_[node].kind == Node::num) return number(coef * nodes_[node].value);
  Node n(Node::add);
  n.terms = {{coef, node}};
  return intern(n);
}

int Graph::sum(const std::vector<std::pair<double, int>> &terms, double constant) {
  // Flattened: nested sums are opened, numbers join the constant, and equal
  // nodes are merged, so a sum has one canonical form however it was built.
  std::map<int, double> coef;
  std::vector<int> order;
  std::function<void(double, int)> add = [&](double c, int id) {
    const Node &n = nodes_[id];
    if (c == 0) return;
    if (n.kind == Node::num) {
      constant += c * n.value;
    } else if (n.kind == Node::add) {
      constant += c * n.value;
      for (auto &[tc, t] : std::vector<std::pair<double, int>>(n.terms)) add(c * tc, t);
    } else {
      if (!coef.count(id)) order.push_back(id);
      coef[id] += c;
    }
  };
  for (auto &[c, id] : terms) add(c, id);
  Node n(Node::add);
  n.value = constant;
  for (int id : order)
    if (coef[id] != 0) n.terms.push_back({coef[id], id});
  if (n.terms.empty()) return number(constant);
  if (n.terms.size() == 1 && constant == 0) return scaled(n.terms[0].first, n.terms[0].second);
  return signed_sum(n);
}

int Graph::product(const std::vector<std::pair<int, int>> &factors, double coef) {
  // Flattened likewise: coefficients pulled out, nested products opened,
  // and repeated factors gathered into integer powers.
  std::map<int, int> exponent;
  std::vector<int> order;
  std::function<void(int, int)> add = [&](int id, int e) {
    auto [c, node] = split_coefficient(id);
    coef *= std::pow(c, e);
    const Node &n = nodes_[node];
    if (n.kind == Node::num) {
      coef *= std::pow(n.value, e);
    } else if (n.kind == Node::mul) {
      for (auto &[fe, f] : std::vector<std::pair<double, int>>(n.terms)) add(f, e * int(fe));
    } else if (n.kind == Node::ipow) {
      add(n.terms[0].second, e * n.exponent);
    } else {
      if (!exponent.count(node)) order.push_back(node);
      exponent[node] += e;
    }
  };
  for (auto &[id, e] : factors) add(id, e);
  if (coef == 0) return number(0);
  Node n(Node::mul);
  for (int id : order) {
    int e = exponent[id];
    if (e == 0) continue;
    int base = id;
    if (std::abs(e) >= 2) {
      Node p(Node::ipow);
      p.exponent = std::abs(e);
      p.terms = {{1.0, id}};
      base = intern(p);
    }
    n.terms.push_back({e > 0 ? 1.0 : -1.0, base});
  }
  if (n.terms.empty()) return number(coef);
  if (n.terms.size() == 1 && n.terms[0].first > 0) return scaled(coef, n.terms[0].second);
  return scaled(coef, intern(n));
}

int Graph::call(const std::string &name, const std::vector<int> &args) {
  Node n(Node::call);
  n.name = name;
  for (int a : args) n.terms.push_back({1.0, a});
  return intern(n);
}

int Graph::integer_power(int base, int exponent) {
  return product(std::vector<std::pair<int, int>>(std::abs(exponent), {base, exponent > 0 ? 1 : -1}), 1.0);
}

void Graph::name_symbol(const GiNaC::ex &symbol, const std::string &name) { symbol_names_[symbol] = name; }

int Graph::lowered(const GiNaC::ex &e) const {
  auto memo = memo_.find(e);
  if (memo == memo_.end()) unreachable("an expression the plan did not lower reached a printer");
  return memo->second;
}

int Graph::from_ginac(const GiNaC::ex &e) {
  using namespace GiNaC;
  auto memo = memo_.find(e);
  if (memo != memo_.end()) return memo->second;
  int id;
  if (is_a<numeric>(e)) {
    id = number(as_double(ex_to<numeric>(e)));
  } else if (is_a<constant>(e)) {
    id = number(as_double(ex_to<numeric>(evalf(e))));
  } else if (is_a<symbol>(e)) {
    auto name = symbol_names_.find(e);
    if (name == symbol_names_.end())
      unreachable(("the symbol " + ex_to<symbol>(e).get_name() + " reached the lowering without a name").c_str());
    Node n(Node::sym);
    n.name = name->second;
    id = intern(n);
  } else if (is_a<add>(e)) {
    Node n(Node::add);
    for (size_t i = 0; i < e.nops(); ++i) {
      ex term = e.op(i);
      if (is_a<numeric>(term)) {
        n.value += as_double(ex_to<numeric>(term));
        continue;
      }
      // A term is coefficient × product; the product alone is shared.
      numeric coef = 1;
      if (is_a<mul>(term) && is_a<numeric>(term.op(term.nops() - 1))) {
        coef = ex_to<numeric>(term.op(term.nops() - 1));
        term = term / coef;
      }
      auto [inner, node] = split_coefficient(from_ginac(term));
      n.terms.push_back({as_double(coef) * inner, node});
    }
    id = signed_sum(n);
  } else if (is_a<mul>(e)) {
    Node n(Node::mul);
    double coef = 1;
    for (size_t i = 0; i < e.nops(); ++i) {
      ex f = e.op(i);
      if (is_a<numeric>(f)) {
        coef *= as_double(ex_to<numeric>(f));
      } else {
        // Signs and coefficients of factors move out to the product's own.
        bool denominator = is_a<power>(f) && f.op(1).info(info_flags::negint);
        auto [c, node] = split_coefficient(from_ginac(denominator ? pow(f.op(0), -f.op(1)) : f));
        coef = denominator ? coef / c : coef * c;
        n.terms.push_back({denominator ? -1.0 : 1.0, node});
      }
    }
    id = n.terms.size() == 1 && n.terms[0].first == 1 ? n.terms[0].second : intern(n);
    id = scaled(coef, id);
  } else if (is_a<power>(e)) {
    ex base = e.op(0), expo = e.op(1);
    if (expo.info(info_flags::posint)) {
      Node n(Node::ipow);
      n.exponent = int(ex_to<numeric>(expo).to_int());
      auto [c, node] = split_coefficient(from_ginac(base));
      n.terms = {{1.0, node}};
      id = scaled(std::pow(c, n.exponent), intern(n));
    } else if (expo.info(info_flags::negint)) {
      Node n(Node::mul);
      auto [c, node] = split_coefficient(from_ginac(pow(base, -expo)));
      n.terms = {{-1.0, node}};
      id = scaled(1.0 / c, intern(n));
    } else if (expo == numeric(1, 2) || expo == numeric(-1, 2)) {
      Node n(Node::call);
      n.name = "sqrt";
      n.terms = {{1.0, from_ginac(base)}};
      id = intern(n);
      if (expo == numeric(-1, 2)) {
        Node inv(Node::mul);
        inv.terms = {{-1.0, id}};
        id = intern(inv);
      }
    } else {
      Node n(Node::pow);
      n.terms = {{1.0, from_ginac(base)}, {1.0, from_ginac(expo)}};
      id = intern(n);
    }
  } else if (is_a<function>(e)) {
    static const std::map<std::string, std::string> c_names = {{"real_abs", "fabs"}, {"real_sign", "copysign"}};
    Node n(Node::call);
    std::string name = ex_to<function>(e).get_name();
    n.name = c_names.count(name) ? c_names.at(name) : name;
    // The sign of x is copysign(1.0, x).
    if (n.name == "copysign") n.terms.push_back({1.0, number(1.0)});
    for (size_t i = 0; i < e.nops(); ++i) n.terms.push_back({1.0, from_ginac(e.op(i))});
    id = intern(n);
  } else {
    unreachable(("an expression of GiNaC class " + std::string(ex_to<basic>(e).class_name()) + " reached the lowering").c_str());
  }
  memo_.emplace(e, id);
  return id;
}

std::vector<Statement> schedule(const Graph &g, const std::vector<int> &outputs, std::map<int, int> &temp_of) {
  // How often each node is referenced in this block; a node printed more
  // than once by its parent (the base of x*x) counts for each print.
  std::map<int, int> uses;
  std::function<void(int, int)> count = [&](int id, int times) {
    bool first = uses.find(id) == uses.end();
    uses[id] += times;
    if (!first) return;
    const Node &n = g.node(id);
    int child_times = n.kind == Node::ipow && n.exponent <= 3 ? n.exponent : 1;
    for (auto &t : n.terms) count(t.second, child_times);
  };
  for (int node : outputs) count(node, 1);

  auto needs_temp = [&](int id) {
    const Node &n = g.node(id);
    if (n.kind == Node::num || n.kind == Node::sym) return false;
    return uses[id] > 1 || n.kind == Node::call || n.kind == Node::pow;
  };

  std::vector<Statement> code;
  std::function<void(int)> visit = [&](int id) {
    if (temp_of.count(id)) return;
    for (auto &t : g.node(id).terms) visit(t.second);
    if (needs_temp(id)) {
      int index = int(temp_of.size()) + 1;
      temp_of[id] = index;
      code.push_back({Statement::temp, id, index, -1});
    }
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    visit(outputs[i]);
    code.push_back({Statement::output, outputs[i], -1, int(i)});
  }
  return code;
}

}  // namespace lgc
