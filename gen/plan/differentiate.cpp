// differentiate.cpp — symbolic derivatives on the lowered graph. Working on
// the shared graph instead of GiNaC trees keeps every derivative expressed
// through the same subexpressions (so CSE shares them) and avoids
// expanding: it is how the Jacobians of large models stay cheap.
#include "plan/plan.h"

namespace lgc {

bool Graph::depends_on(int id, int symbol) const {
  const auto &deps = depends_[size_t(id)];
  size_t word = size_t(symbol / 64);
  return word < deps.size() && (deps[word] >> (symbol % 64) & 1);
}

int Graph::derivative(int id, const std::string &var) {
  auto symbol = symbol_index_.find(var);
  if (symbol == symbol_index_.end() || !depends_on(id, symbol->second)) return number(0);
  uint64_t key = uint64_t(id) << 20 | uint64_t(symbol->second);
  auto memo = derivatives_.find(key);
  if (memo != derivatives_.end()) return memo->second;
  const Node n = nodes_[id];  // a copy: interning below may move nodes_
  auto d = [&](size_t operand) { return derivative(n.terms[operand].second, var); };
  auto arg = [&](size_t operand) { return n.terms[operand].second; };
  int result = -1;
  switch (n.kind) {
    case Node::num: result = number(0); break;
    case Node::sym: result = number(n.name == var ? 1 : 0); break;
    case Node::add: {
      std::vector<std::pair<double, int>> terms;
      for (size_t i = 0; i < n.terms.size(); ++i) terms.push_back({n.terms[i].first, d(i)});
      result = sum(terms);
      break;
    }
    case Node::mul: {
      // Product rule; a denominator factor f contributes -f'/f^2.
      std::vector<std::pair<double, int>> terms;
      for (size_t i = 0; i < n.terms.size(); ++i) {
        int di = d(i);
        if (is_zero(di)) continue;
        std::vector<std::pair<int, int>> factors;
        for (size_t j = 0; j < n.terms.size(); ++j)
          if (j != i) factors.push_back({n.terms[j].second, int(n.terms[j].first)});
        factors.push_back({di, 1});
        if (n.terms[i].first < 0) factors.push_back({integer_power(arg(i), 2), -1});
        terms.push_back({n.terms[i].first, product(factors)});
      }
      result = sum(terms);
      break;
    }
    case Node::ipow:
      result = product({{integer_power(arg(0), n.exponent - 1), 1}, {d(0), 1}}, n.exponent);
      break;
    case Node::pow: {
      // (b^e)' = b^e (e' log b + e b'/b)
      int log_term = product({{d(1), 1}, {call("log", {arg(0)}), 1}});
      int base_term = product({{arg(1), 1}, {d(0), 1}, {arg(0), -1}});
      result = product({{id, 1}, {sum({{1.0, log_term}, {1.0, base_term}}), 1}});
      break;
    }
    case Node::call: result = call_derivative(n, id, var); break;
  }
  derivatives_[key] = result;
  return result;
}

// The chain rule for the functions the expression language has.
int Graph::call_derivative(const Node &n, int id, const std::string &var) {
  const std::string &f = n.name;
  int a = n.terms.back().second;  // the argument (copysign's sign source is its last)
  int da = derivative(a, var);
  if (f == "copysign" || is_zero(da)) return number(0);
  auto times_da = [&](int outer) { return product({{outer, 1}, {da, 1}}); };
  int one = number(1);
  if (f == "sin") return times_da(call("cos", {a}));
  if (f == "cos") return product({{call("sin", {a}), 1}, {da, 1}}, -1);
  if (f == "tan") return times_da(sum({{1.0, one}, {1.0, integer_power(id, 2)}}));
  if (f == "exp") return times_da(id);
  if (f == "log") return product({{da, 1}, {a, -1}});
  if (f == "sqrt") return product({{da, 1}, {id, -1}}, 0.5);
  if (f == "sinh") return times_da(call("cosh", {a}));
  if (f == "cosh") return times_da(call("sinh", {a}));
  if (f == "tanh") return times_da(sum({{1.0, one}, {-1.0, integer_power(id, 2)}}));
  if (f == "fabs") return times_da(call("copysign", {one, a}));
  auto root_of_one_minus_square = [&] { return call("sqrt", {sum({{-1.0, integer_power(a, 2)}}, 1.0)}); };
  if (f == "asin") return product({{da, 1}, {root_of_one_minus_square(), -1}});
  if (f == "acos") return product({{da, 1}, {root_of_one_minus_square(), -1}}, -1);
  if (f == "atan") return product({{da, 1}, {sum({{1.0, integer_power(a, 2)}}, 1.0), -1}});
  if (f == "atan2") {  // atan2(y, x)' = (x y' - y x') / (x^2 + y^2)
    int y = n.terms[0].second, x = n.terms[1].second;
    int dy = derivative(y, var), dx = derivative(x, var);
    int numerator = sum({{1.0, product({{x, 1}, {dy, 1}})}, {-1.0, product({{y, 1}, {dx, 1}})}});
    return product({{numerator, 1}, {sum({{1.0, integer_power(x, 2)}, {1.0, integer_power(y, 2)}}), -1}});
  }
  unreachable(("no derivative rule for " + f).c_str());
}

}  // namespace lgc
