// lower.cpp — GiNaC trees into a canonical, shared expression graph (symbols
// under the names the plan gives them), and the order in which a block of
// code computes it. GiNaC orders terms by hashes seeded from addresses,
// which change from run to run; everything here is ordered by structural
// keys of our own, so the output is byte-identical.
#include "plan/plan.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>
#include <tuple>
#include <unordered_map>

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

// The canonical order of operands, which is also the printed one: numbers;
// symbols in the plan's reading order (parameters before coordinates, each
// in declaration order), a power of a symbol beside its symbol; calls by
// argument, then name (cos(th1), sin(th1), cos(th2)); other powers;
// products; sums; products and sums by their operands, in order. It is a
// total order on structures, so it is independent of how, or in which run,
// a node was built.
int Graph::compare(int a, int b) const {
  if (a == b) return 0;
  const Node &x = nodes_[size_t(a)], &y = nodes_[size_t(b)];
  // A symbol, a power of one, or one plus a number (zH + 0.01, a spec's
  // offset: it stands where the symbol would).
  auto symbol_of = [&](const Node &n) -> const Node * {
    if (n.kind == Node::sym) return &n;
    if (n.kind == Node::ipow || (n.kind == Node::add && n.value != 0 && n.terms.size() == 1 && n.terms[0].first == 1)) {
      const Node &base = nodes_[size_t(n.terms[0].second)];
      if (base.kind == Node::sym) return &base;
    }
    return nullptr;
  };
  auto group = [&](const Node &n) {
    switch (n.kind) {
      case Node::num: return 0;
      case Node::sym: return 1;
      case Node::ipow: return symbol_of(n) ? 1 : 3;
      case Node::call: return 2;
      case Node::pow: return 4;
      case Node::mul: return 5;
      case Node::add: return symbol_of(n) ? 1 : 6;
    }
    return 7;
  };
  auto three_way = [](auto u, auto v) { return u < v ? -1 : v < u ? 1 : 0; };
  int gx = group(x), gy = group(y);
  if (gx != gy) return three_way(gx, gy);
  auto operands = [&](const Node &u, const Node &v) {  // lexicographically, then the shorter first
    for (size_t i = 0; i < u.terms.size() && i < v.terms.size(); ++i) {
      if (int c = compare(u.terms[i].second, v.terms[i].second)) return c;
      if (int c = three_way(u.terms[i].first, v.terms[i].first)) return c;
    }
    return three_way(u.terms.size(), v.terms.size());
  };
  switch (gx) {
    case 0: return three_way(x.value, y.value);
    case 1: {
      const Node *sx = symbol_of(x), *sy = symbol_of(y);
      if (int c = three_way(sx->rank, sy->rank)) return c;
      if (int c = sx->name.compare(sy->name)) return c < 0 ? -1 : 1;
      if (int c = three_way(x.kind == Node::ipow ? x.exponent : 1, y.kind == Node::ipow ? y.exponent : 1)) return c;
      if (int c = three_way(x.kind == Node::add, y.kind == Node::add)) return c;
      return three_way(x.value, y.value);
    }
    case 2:
      if (int c = operands(x, y)) return c;
      return x.name < y.name ? -1 : x.name > y.name ? 1 : 0;
    case 3:
      if (int c = compare(x.terms[0].second, y.terms[0].second)) return c;
      return three_way(x.exponent, y.exponent);
    default:
      if (int c = operands(x, y)) return c;
      return three_way(x.value, y.value);
  }
}

void Graph::sort_operands(Node &n) const {
  std::sort(n.terms.begin(), n.terms.end(), [&](auto &a, auto &b) {
    int c = compare(a.second, b.second);
    return c ? c < 0 : a.first < b.first;
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
  // c F sin(a)^2 + c F cos(a)^2 = c F: the terms with cos(a)^2 are indexed
  // by their coefficient, a and their other factors; a term with sin(a)^2
  // looks up its partner there.
  auto squared = [&](const std::map<int, int> &f, const char *name) {
    std::vector<int> bases;
    for (auto &[base, power] : f)
      if (power >= 2 && nodes_[size_t(base)].kind == Node::call && nodes_[size_t(base)].name == name) bases.push_back(base);
    return bases;
  };
  std::vector<std::map<int, int>> f;
  bool any_sine = false;
  for (auto &t : n.terms) {
    f.push_back(factors_of(t.second));
    any_sine = any_sine || !squared(f.back(), "sin").empty();
  }
  if (!any_sine) return false;
  using Key = std::tuple<uint64_t, int, std::map<int, int>>;  // coefficient, the argument, the other factors
  auto without_square = [](std::map<int, int> g, int base) {
    if ((g[base] -= 2) == 0) g.erase(base);
    return g;
  };
  std::map<Key, size_t> with_cosine;
  for (size_t j = 0; j < n.terms.size(); ++j)
    for (int base : squared(f[j], "cos"))
      with_cosine.emplace(Key{bits(n.terms[j].first), nodes_[size_t(base)].terms[0].second, without_square(f[j], base)}, j);
  for (size_t i = 0; i < n.terms.size(); ++i)
    for (int base : squared(f[i], "sin")) {
      auto rest = without_square(f[i], base);
      auto partner = with_cosine.find(Key{bits(n.terms[i].first), nodes_[size_t(base)].terms[0].second, rest});
      if (partner == with_cosine.end() || partner->second == i) continue;
      size_t j = partner->second;
      double coef = n.terms[i].first;
      n.terms.erase(n.terms.begin() + long(std::max(i, j)));
      n.terms.erase(n.terms.begin() + long(std::min(i, j)));
      n.terms.push_back({coef, from_factors(rest)});
      return true;
    }
  return false;
}

std::optional<int> Graph::factored(const Node &n) {
  std::vector<std::map<int, int>> f;
  size_t factor_count = 0;
  for (auto &t : n.terms) {
    f.push_back(factors_of(t.second));
    factor_count += f.back().size();
  }
  // Factors common to every term come out: 3 m l^2 (c1 c2 + s1 s2), not
  // 3 m l^2 c1 c2 + 3 m l^2 s1 s2; coefficients too, when all are equal.
  std::map<int, int> common = f[0];
  double coef = std::fabs(n.terms[0].first);
  for (size_t i = 0; i < n.terms.size(); ++i) {
    for (auto it = common.begin(); it != common.end();) {
      auto g = f[i].find(it->first);
      int shared = g == f[i].end() || (g->second > 0) != (it->second > 0) ? 0
                   : it->second > 0 ? std::min(it->second, g->second) : std::max(it->second, g->second);
      if (shared == 0) it = common.erase(it);
      else it->second = shared, ++it;
    }
    if (std::fabs(n.terms[i].first) != coef) coef = 1;
  }
  auto divided = [&](size_t i, const std::map<int, int> &by) {
    auto g = f[i];
    for (auto &[base, power] : by)
      if ((g[base] -= power) == 0) g.erase(base);
    return from_factors(g);
  };
  if (!common.empty() || coef != 1) {
    std::vector<std::pair<double, int>> rest;
    for (size_t i = 0; i < n.terms.size(); ++i) rest.push_back({n.terms[i].first / coef, divided(i, common)});
    return product({{from_factors(common), 1}, {sum(rest), 1}}, coef);
  }
  // Terms with the same coordinate-dependent part are one term, its
  // coefficients summed: l1 l2 (m2 + m3) cos(a), the masses' sum a node of
  // its own that other entries share (and a parameter-only part a term).
  std::map<std::map<int, int>, std::vector<size_t>> by_part;
  for (size_t i = 0; i < n.terms.size(); ++i) {
    std::map<int, int> part;
    for (auto &[base, power] : f[i])
      if (!coefficients_only(base)) part.emplace(base, power);
    by_part[part].push_back(i);
  }
  if (by_part.size() > 1 && by_part.size() < n.terms.size()) {
    std::vector<std::pair<double, int>> terms;
    for (auto &[part, members] : by_part) {
      if (members.size() == 1) {
        terms.push_back(n.terms[members[0]]);
        continue;
      }
      std::vector<std::pair<double, int>> coefficients;
      for (size_t i : members) coefficients.push_back({n.terms[i].first, divided(i, part)});
      int together = sum(coefficients);
      auto [c, inner] = split_coefficient(together);
      if (part.empty() && nodes_[size_t(inner)].kind == Node::add) {
        // The parameter-only terms as one sum inside this one: a product of
        // one factor keeps the outer sum from flattening it back.
        Node one(Node::mul);
        one.terms = {{1.0, inner}};
        terms.push_back({c, intern(one)});
        continue;
      }
      terms.push_back({1.0, product({{from_factors(part), 1}, {together, 1}})});
    }
    return sum(terms, n.value);
  }
  // Terms with a product of two sums, one containing the other, share the
  // difference D = X - Y when several have the same one: X Y = Y^2 + D Y,
  // and D then comes out of them (the next step). In a chain's mass matrix
  // in relative angles, M_ab = sum_i m_i J_i,a J_i,b with J_i,a = J_i,b + D_ab
  // becomes D_ab (sum_i m_i J_i,b) + (the diagonal's sum): sums that a whole
  // column shares, instead of a sum over i for every entry.
  if (auto split = split_by_difference(n, f)) return *split;
  // Then, while a factor is shared, the one most terms share, ties to the
  // first in the canonical order (Horner's rule in many variables):
  // c_a (c_b m) + s_a (s_b m) + ... Each step saves multiplications and the
  // groups are sums, factored in turn. Past kMaxFactoring factors (the
  // derivative of a long product) the search would cost more than it saves.
  if (factor_count > kMaxFactoring) return std::nullopt;
  std::map<int, int> count;  // base -> the terms with a positive power of it
  for (auto &g : f)
    for (auto &[base, power] : g)
      if (power > 0) ++count[base];
  int best = -1, most = 1;
  for (auto &[base, k] : count)
    if (k > most || (k == most && best >= 0 && compare(base, best) < 0)) best = base, most = k;
  if (best < 0) return std::nullopt;
  int power = 0;
  for (auto &g : f) {
    auto it = g.find(best);
    if (it != g.end() && it->second > 0) power = power ? std::min(power, it->second) : it->second;
  }
  std::vector<std::pair<double, int>> group, rest;
  for (size_t i = 0; i < n.terms.size(); ++i) {
    auto it = f[i].find(best);
    if (it != f[i].end() && it->second > 0) group.push_back({n.terms[i].first, divided(i, {{best, power}})});
    else rest.push_back(n.terms[i]);
  }
  rest.push_back({1.0, product({{integer_power(best, power), 1}, {sum(group), 1}})});
  return sum(rest, n.value);
}

std::optional<int> Graph::split_by_difference(const Node &n, const std::vector<std::map<int, int>> &f) {
  using Terms = std::vector<std::pair<double, int>>;
  // The terms of X not in Y, when Y's terms are X's with the same coefficients.
  auto difference = [&](int x, int y) -> std::optional<Terms> {
    const Node &big = nodes_[size_t(x)], &small = nodes_[size_t(y)];
    if (big.value != small.value || small.terms.size() >= big.terms.size()) return std::nullopt;
    std::map<int, double> in_small;
    for (auto &[c, t] : small.terms) in_small[t] = c;
    Terms rest;
    size_t shared = 0;
    for (auto &[c, t] : big.terms) {
      auto it = in_small.find(t);
      if (it == in_small.end()) rest.push_back({c, t});
      else if (it->second == c) ++shared;
      else return std::nullopt;
    }
    if (shared != small.terms.size()) return std::nullopt;
    return rest;
  };
  struct Use {
    size_t term;
    int x, y;
  };
  std::map<Terms, std::vector<Use>> by_difference;
  for (size_t i = 0; i < n.terms.size(); ++i) {
    std::vector<int> sums;
    for (auto &[base, power] : f[i])
      if (power == 1 && nodes_[size_t(base)].kind == Node::add && nodes_[size_t(base)].terms.size() >= 2)
        sums.push_back(base);
    bool found = false;
    for (int x : sums)
      for (int y : sums)
        if (!found && x != y)
          if (auto d = difference(x, y)) {
            std::sort(d->begin(), d->end(), [](auto &a, auto &b) { return a.second < b.second; });
            by_difference[*d].push_back({i, x, y});
            found = true;
          }
  }
  const std::vector<Use> *best = nullptr;
  int best_node = -1;
  for (auto &[terms, uses] : by_difference) {
    if (uses.size() < 2) continue;
    int d = sum(terms);
    if (!best || uses.size() > best->size() || (uses.size() == best->size() && compare(d, best_node) < 0))
      best = &uses, best_node = d;
  }
  if (!best) return std::nullopt;
  Terms terms;
  std::vector<bool> rewritten(n.terms.size(), false);
  for (const Use &u : *best) {
    rewritten[u.term] = true;
    auto rest = f[u.term];
    rest.erase(u.x), rest.erase(u.y);
    int others = from_factors(rest);
    double c = n.terms[u.term].first;
    terms.push_back({c, product({{others, 1}, {u.y, 1}, {u.y, 1}})});
    terms.push_back({c, product({{others, 1}, {best_node, 1}, {u.y, 1}})});
  }
  for (size_t i = 0; i < n.terms.size(); ++i)
    if (!rewritten[i]) terms.push_back(n.terms[i]);
  return sum(terms, n.value);
}

int Graph::signed_sum(Node n) {
  sort_operands(n);  // every choice below in the canonical order, whatever order the terms came in
  while (combine_pythagoras(n)) {
  }
  if (n.terms.empty()) return number(n.value);
  if (n.terms.size() == 1 && n.value == 0) return scaled(n.terms[0].first, n.terms[0].second);
  if (n.terms.size() >= 2 && n.value == 0)
    if (auto f = factored(n)) return *f;
  // GiNaC writes a sum as a - b in one run and -(b - a) in the next; the
  // sum is kept with its first canonical term positive, the sign outside.
  sort_operands(n);
  // A term plus a constant is kept with the term's coefficient 1, the
  // scale outside: GiNaC takes a sum's integer content out of a product
  // (zH + 1/100 as 1/100 (100 zH + 1)), and a spec's zH + 0.01 is then one
  // node however GiNaC wrote it.
  // One with integer coefficients has their greatest common divisor
  // outside: GiNaC's 100 (zH + 0.01) X - 200 Y, once the 100 is out of
  // the inner sum, is 100 ((zH + 0.01) X - 2 Y), as (zH X - 2 Y) was.
  double scale = n.terms[0].first < 0 ? -1.0 : 1.0;
  if (n.value != 0 && n.terms.size() == 1 && std::fabs(n.terms[0].first) != 1) {
    double s = n.terms[0].first;
    bool exact = s * (n.value / s) == n.value;
    for (auto &t : n.terms) exact = exact && s * (t.first / s) == t.first;
    if (exact) scale = s;
  } else if (n.value == 0) {
    double divisor = 0;
    for (auto &t : n.terms) {
      double c = std::fabs(t.first);
      if (c != std::floor(c) || c > 9007199254740992.0) {
        divisor = 0;
        break;
      }
      double a = divisor, b = c;
      while (b != 0) a = std::fmod(a, b), std::swap(a, b);
      divisor = a;
    }
    if (divisor > 1) scale *= divisor;
  }
  if (scale == 1) return intern(n);
  n.value /= scale;
  for (auto &t : n.terms) t.first /= scale;
  return scaled(scale, intern(n));
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
    if (coefficients_.count(n.name)) {
      coefficient_bits_.resize(std::max(coefficient_bits_.size(), deps.size()), 0);
      coefficient_bits_[size_t(bit / 64)] |= uint64_t(1) << (bit % 64);
    }
  }
  for (auto &t : n.terms) {
    const auto &child = depends_[size_t(t.second)];
    if (child.size() > deps.size()) deps.resize(child.size(), 0);
    for (size_t w = 0; w < child.size(); ++w) deps[w] |= child[w];
  }
  operands_ += n.terms.size();
  if (operands_ > operand_limit_ && exceeded_) exceeded_();
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
  n.value = constant == 0 ? 0.0 : constant;
  for (int id : order)
    if (coef[id] != 0) n.terms.push_back({coef[id], id});
  // The same sum is often built again (a derivative, a factored group):
  // its canonical form is looked up rather than factored anew.
  SumKey key{bits(n.value), {}};
  for (auto &[c, id] : n.terms) key.second.push_back({bits(c), id});
  std::sort(key.second.begin(), key.second.end(), [](auto &a, auto &b) { return a.second < b.second; });
  auto memo = sums_.find(key);
  if (memo != sums_.end()) return memo->second;
  int id = signed_sum(n);
  sums_.emplace(std::move(key), id);
  return id;
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
  // Even and odd functions take their argument's sign: cos(x - y), never
  // cos(-(y - x)) in a run where GiNaC happened to write y - x.
  static const std::set<std::string> even = {"cos", "cosh"}, odd = {"sin", "tan", "sinh", "tanh", "asin", "atan"};
  if (args.size() == 1 && (even.count(name) || odd.count(name))) {
    auto [c, inner] = split_coefficient(args[0]);
    if (c < 0) {
      int f = call(name, {scaled(-c, inner)});
      return even.count(name) ? f : scaled(-1.0, f);
    }
  }
  if ((name == "sin" || name == "cos") && trig_products_.count(args[0])) return trig_of_sum(name == "sin", args[0]);
  Node n(Node::call);
  n.name = name;
  for (int a : args) n.terms.push_back({1.0, a});
  return intern(n);
}

int Graph::integer_power(int base, int exponent) {
  return product(std::vector<std::pair<int, int>>(std::abs(exponent), {base, exponent > 0 ? 1 : -1}), 1.0);
}

void Graph::name_symbol(const GiNaC::ex &symbol, const std::string &name, int rank, bool coefficient) {
  symbol_names_[symbol] = {name, rank, coefficient};
  if (coefficient) coefficients_.insert(name);
}

bool Graph::coefficients_only(int id) const {
  const auto &deps = depends_[size_t(id)];
  for (size_t w = 0; w < deps.size(); ++w)
    if (deps[w] & ~(w < coefficient_bits_.size() ? coefficient_bits_[w] : 0)) return false;
  return true;
}

void Graph::limit_operands(size_t limit, std::function<void()> exceeded) {
  operand_limit_ = limit;
  exceeded_ = std::move(exceeded);
}

// sin(A + B) = sin A cos B + cos A sin B and cos(A + B) = cos A cos B -
// sin A sin B, for an argument of two terms A = ±a, B = ±b.
int Graph::trig_of_sum(bool sine, int argument) {
  const Node arg = nodes_[size_t(argument)];
  auto sin_of = [&](size_t i) { return scaled(arg.terms[i].first, call("sin", {arg.terms[i].second})); };
  auto cos_of = [&](size_t i) { return call("cos", {arg.terms[i].second}); };
  auto times = [&](int x, int y) { return product({{x, 1}, {y, 1}}); };
  if (sine) return sum({{1.0, times(sin_of(0), cos_of(1))}, {1.0, times(cos_of(0), sin_of(1))}});
  return sum({{1.0, times(cos_of(0), cos_of(1))}, {-1.0, times(sin_of(0), sin_of(1))}});
}

void Graph::prefer_trig_products(const std::vector<int> &arguments) {
  // An argument a ± b of sin or cos costs a call of its own; through the
  // addition formulas it costs three operations and the calls of a and b,
  // which gcc makes one sincos each. Worth it where those calls are made
  // anyway, or where the differences outnumber the angles they need.
  // By their unsigned nodes, as call() looks them up: sin(b - a) is -sin(a - b).
  std::set<int> present, candidates, missing;
  for (int a : arguments) present.insert(split_coefficient(a).second);
  auto two_angles = [&](int id) {
    const Node &n = nodes_[size_t(id)];
    return n.kind == Node::add && n.value == 0 && n.terms.size() == 2 && std::fabs(n.terms[0].first) == 1 &&
           std::fabs(n.terms[1].first) == 1;
  };
  for (int a : present)
    if (two_angles(a)) candidates.insert(a);
  for (int a : candidates)
    for (auto &t : nodes_[size_t(a)].terms)
      if (!present.count(t.second)) missing.insert(t.second);
  for (int a : candidates) {
    bool both = true;
    for (auto &t : nodes_[size_t(a)].terms) both = both && present.count(t.second);
    if (both || missing.size() < candidates.size()) trig_products_.insert(a);
  }
}

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
    n.name = name->second.name;
    n.rank = name->second.rank;
    id = intern(n);
  } else if (is_a<add>(e)) {
    std::vector<std::pair<double, int>> terms;
    double constant = 0;
    for (size_t i = 0; i < e.nops(); ++i) {
      if (is_a<numeric>(e.op(i))) constant += as_double(ex_to<numeric>(e.op(i)));
      else terms.push_back({1.0, from_ginac(e.op(i))});
    }
    id = sum(terms, constant);
  } else if (is_a<mul>(e)) {
    std::vector<std::pair<int, int>> factors;  // denominators with -1
    double coef = 1;
    for (size_t i = 0; i < e.nops(); ++i) {
      ex f = e.op(i);
      bool denominator = is_a<power>(f) && f.op(1).info(info_flags::negint);
      if (is_a<numeric>(f)) coef *= as_double(ex_to<numeric>(f));
      else factors.push_back({from_ginac(denominator ? pow(f.op(0), -f.op(1)) : f), denominator ? -1 : 1});
    }
    id = product(factors, coef);
  } else if (is_a<power>(e)) {
    ex base = e.op(0), expo = e.op(1);
    if (expo.info(info_flags::posint) || expo.info(info_flags::negint)) {
      id = integer_power(from_ginac(base), int(ex_to<numeric>(expo).to_int()));
    } else if (expo == numeric(1, 2) || expo == numeric(-1, 2)) {
      id = call("sqrt", {from_ginac(base)});
      if (expo == numeric(-1, 2)) id = product({{id, -1}});
    } else {
      Node n(Node::pow);
      n.terms = {{1.0, from_ginac(base)}, {1.0, from_ginac(expo)}};
      id = intern(n);
    }
  } else if (is_a<function>(e)) {
    static const std::map<std::string, std::string> c_names = {{"real_abs", "fabs"}, {"real_sign", "copysign"}};
    std::string name = ex_to<function>(e).get_name();
    if (c_names.count(name)) name = c_names.at(name);
    std::vector<int> args;
    if (name == "copysign") args.push_back(number(1.0));  // the sign of x is copysign(1.0, x)
    for (size_t i = 0; i < e.nops(); ++i) args.push_back(from_ginac(e.op(i)));
    id = call(name, args);
  } else {
    unreachable(("an expression of GiNaC class " + std::string(ex_to<basic>(e).class_name()) + " reached the lowering").c_str());
  }
  memo_.emplace(e, id);
  return id;
}

namespace {

using Terms = std::vector<std::pair<double, int>>;

// The sums of a block that are cheaper as an earlier sum of the block plus
// what it lacks: a chain's suffix sums m_k + ... + m_n, each from the next,
// an angle th1 + th2 + th3 from th1 + th2. First, where two sums share two
// terms or more without one containing the other, the shared part becomes a
// sum of its own (the column of a mass matrix, the rows of k sharing all but
// a term or two). Then each sum takes the sum whose terms it contains
// (coefficients may differ: 0.5*m2 + m3 + m4 is w + 0.5*m2 for w = m3 + m4)
// that leaves it the fewest terms; ties to the larger, then to the first in
// the canonical order, so no choice depends on node numbers.
std::map<int, SumReuse> reused_sums(Graph &g, const std::vector<int> &outputs, const std::map<int, std::string> &given) {
  std::vector<int> sums;
  std::set<int> seen;
  std::function<void(int)> collect = [&](int id) {
    if (given.count(id) || !seen.insert(id).second) return;  // a given value is read, not computed
    const Node &n = g.node(id);
    if (n.kind == Node::add && n.terms.size() >= 2) sums.push_back(id);
    for (auto &t : n.terms) collect(t.second);
  };
  for (int id : outputs) collect(id);
  // The sums a sum may start from: each with the terms it stands for.
  struct Base {
    int node;
    Terms terms;
  };
  std::vector<Base> bases;
  std::unordered_map<int, std::vector<std::pair<size_t, double>>> containing;  // term -> (base, coefficient)
  auto add_base = [&](int node, const Terms &terms) {
    for (auto &[c, t] : terms) containing[t].push_back({bases.size(), c});
    bases.push_back({node, terms});
  };
  for (int id : sums)
    if (g.node(id).value == 0) add_base(id, g.node(id).terms);
  // (terms shared, of them with another coefficient) per base, for sum id.
  auto shared_with = [&](int id) {
    std::unordered_map<size_t, std::pair<size_t, size_t>> hits;
    for (auto &[c, t] : g.node(id).terms)
      for (auto &[b, bc] : containing[t]) {
        if (bases[b].node == id) continue;
        auto &h = hits[b];
        ++h.first;
        if (bc != c) ++h.second;
      }
    return hits;
  };
  std::map<std::vector<std::pair<int, uint64_t>>, int> made;  // shared parts made, by their terms
  for (int id : std::vector<int>(sums)) {
    const Node s = g.node(id);  // a copy: g.sum below may move the nodes
    if (s.terms.size() < 3) continue;
    auto hits = shared_with(id);
    long best = -1;
    size_t most = 1;
    for (auto &[b, h] : hits) {
      size_t same = h.first - h.second;
      if (same < 2 || same >= s.terms.size() || same >= bases[b].terms.size()) continue;
      if (same > most || (same == most && g.compare(bases[b].node, bases[size_t(best)].node) < 0)) best = long(b), most = same;
    }
    if (best < 0) continue;
    std::map<int, double> in_other;
    for (auto &[c, t] : bases[size_t(best)].terms) in_other[t] = c;
    Terms part;
    std::vector<std::pair<int, uint64_t>> key;
    for (auto &[c, t] : s.terms) {
      auto it = in_other.find(t);
      if (it == in_other.end() || it->second != c) continue;
      part.push_back({c, t});
      uint64_t cb;
      std::memcpy(&cb, &c, sizeof cb);
      key.push_back({t, cb});
    }
    std::sort(key.begin(), key.end());
    if (made.count(key)) continue;
    int node = g.sum(part);
    made.emplace(key, node);
    add_base(node, part);
    // The part as built: a sum, or c times one (2*(a + b)), which is a sum
    // of this block from now on, to be built from others in turn.
    const Node &built = g.node(node);
    int inner = built.kind == Node::add && built.terms.size() == 1 && built.value == 0 ? built.terms[0].second : node;
    if (g.node(inner).kind == Node::add && g.node(inner).terms.size() >= 2 && seen.insert(inner).second) {
      add_base(inner, g.node(inner).terms);
      sums.push_back(inner);
    }
  }
  std::map<int, SumReuse> reuse;
  for (int id : sums) {
    const Node &s = g.node(id);
    if (s.terms.size() < 3) continue;
    auto hits = shared_with(id);
    auto terms_via = [&](size_t b) {  // the base, the missing terms, the changed ones, a constant
      return 1 + s.terms.size() - bases[b].terms.size() + hits[b].second + (s.value != 0 ? 1 : 0);
    };
    long best = -1;
    for (auto &[b, h] : hits) {
      if (h.first != bases[b].terms.size() || h.first >= s.terms.size()) continue;
      if (best < 0) {
        best = long(b);
        continue;
      }
      size_t x = terms_via(b), y = terms_via(size_t(best));
      size_t sx = bases[b].terms.size(), sy = bases[size_t(best)].terms.size();
      if (x < y || (x == y && (sx > sy || (sx == sy && g.compare(bases[b].node, bases[size_t(best)].node) < 0))))
        best = long(b);
    }
    if (best < 0 || terms_via(size_t(best)) >= s.terms.size() + (s.value != 0 ? 1 : 0)) continue;
    const Base &b = bases[size_t(best)];
    std::map<int, double> in_base;
    for (auto &[c, t] : b.terms) in_base[t] = c;
    SumReuse r{b.node, {}, s.value};
    for (auto &[c, t] : s.terms) {
      auto it = in_base.find(t);
      double left = it == in_base.end() ? c : c - it->second;
      if (left != 0) r.rest.push_back({left, t});
    }
    reuse.emplace(id, std::move(r));
  }
  return reuse;
}

}  // namespace

Schedule schedule(Graph &g, const std::vector<int> &outputs, const std::vector<std::string> &sections,
                  const std::set<std::string> &taken, const std::map<int, std::string> &given) {
  Schedule s;
  std::set<std::string> names = taken;
  for (auto &[id, name] : given) names.insert(name);
  std::map<std::string, int> counts;  // temporaries named so far, by section
  // A symbol the block reads by a plain name (not an array's element,
  // in_acceleration[0]), which a temporary can be named after.
  auto named_symbol = [&](int id) {
    const Node &n = g.node(id);
    return n.kind == Node::sym && std::all_of(n.name.begin(), n.name.end(), [](char c) {
             return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
           });
  };
  auto name_for = [&](int id, const std::string &section) {
    const Node &n = g.node(id);
    std::string name;
    if (n.kind == Node::call && n.terms.size() == 1 && named_symbol(n.terms[0].second))
      name = n.name + "_" + g.node(n.terms[0].second).name;
    // A symbol plus a number (a spec's offset, zH + 0.01) after the symbol.
    if (n.kind == Node::add && n.value != 0 && n.terms.size() == 1 && n.terms[0].first == 1 &&
        named_symbol(n.terms[0].second))
      name = g.node(n.terms[0].second).name + (n.value > 0 ? "_plus" : "_minus");
    // Else the section and the count of its temporaries so far; a name
    // the block already holds (a spec's own) takes an underscore more.
    if (name.empty() || names.count(name)) name = section + "_" + std::to_string(++counts[section]);
    while (names.count(name)) name += "_";
    names.insert(name);
    return name;
  };
  s.reuse = reused_sums(g, outputs, given);
  std::set<int> bases;
  for (auto &[id, r] : s.reuse) bases.insert(r.base);
  // The operands of a node as this block prints it.
  auto operands = [&](int id) {
    auto r = s.reuse.find(id);
    if (r == s.reuse.end()) return g.node(id).terms;
    std::vector<std::pair<double, int>> terms = {{1.0, r->second.base}};
    terms.insert(terms.end(), r->second.rest.begin(), r->second.rest.end());
    return terms;
  };
  // A node printed as one operand alone (a sum that is all of another, one
  // term times 1): that operand, which it stands for; else -1.
  auto alias_of = [&](int id) {
    const Node &n = g.node(id);
    auto r = s.reuse.find(id);
    if (r != s.reuse.end()) return r->second.rest.empty() && r->second.constant == 0 ? r->second.base : -1;
    bool one_term = n.terms.size() == 1 && n.terms[0].first == 1;
    return (n.kind == Node::add && one_term && n.value == 0) || (n.kind == Node::mul && one_term) ? n.terms[0].second
                                                                                                   : -1;
  };
  // How often each node is referenced in this block; a node printed more
  // than once by its parent (the base of x*x) counts for each print, and an
  // alias's uses are its operand's.
  std::map<int, int> uses;
  std::function<void(int, int)> count = [&](int id, int times) {
    bool first = uses.find(id) == uses.end();
    uses[id] += times;
    if (int operand = alias_of(id); operand >= 0) return count(operand, times);
    if (!first || given.count(id)) return;
    const Node &n = g.node(id);
    int child_times = n.kind == Node::ipow && n.exponent <= 3 ? n.exponent : 1;
    for (auto &t : operands(id)) count(t.second, child_times);
  };
  for (int node : outputs) count(node, 1);

  // An alias is its operand's temporary, never a copy of it.
  auto needs_temp = [&](int id) {
    const Node &n = g.node(id);
    if (n.kind == Node::num || n.kind == Node::sym || alias_of(id) >= 0) return false;
    return uses[id] > 1 || n.kind == Node::call || n.kind == Node::pow || bases.count(id);
  };

  std::function<void(int, const std::string &)> visit = [&](int id, const std::string &section) {
    if (s.temps.count(id)) return;
    if (auto it = given.find(id); it != given.end()) {
      s.temps[id] = it->second;
      s.code.push_back({Statement::read, id, it->second, -1});
      return;
    }
    for (auto &t : operands(id)) visit(t.second, section);
    if (needs_temp(id)) {
      std::string name = name_for(id, section);
      s.temps[id] = name;
      s.code.push_back({Statement::temp, id, name, -1});
    }
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    visit(outputs[i], sections.at(i));
    s.code.push_back({Statement::output, outputs[i], "", int(i)});
  }
  return s;
}

}  // namespace lgc
