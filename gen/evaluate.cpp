// evaluate.cpp — numeric values of graph nodes at a point, for the checks
// the derivation makes at sample states (a positive definite M, a zero
// that trigonometric identities hide). Much cheaper than GiNaC's subs+evalf.
#include "lagrangec.h"

#include <cmath>

namespace lgc {

double Evaluator::operator()(int id) {
  auto memo = memo_.find(id);
  if (memo != memo_.end()) return memo->second;
  const Node &n = graph_.node(id);
  auto arg = [&](size_t i) { return (*this)(n.terms[i].second); };
  double v = NAN;
  switch (n.kind) {
    case Node::num: v = n.value; break;
    case Node::sym: {
      auto it = values_.find(n.name);
      v = it == values_.end() ? NAN : it->second;
      break;
    }
    case Node::add:
      v = n.value;
      for (size_t i = 0; i < n.terms.size(); ++i) v += n.terms[i].first * arg(i);
      break;
    case Node::mul:
      v = 1;
      for (size_t i = 0; i < n.terms.size(); ++i) v = n.terms[i].first > 0 ? v * arg(i) : v / arg(i);
      break;
    case Node::ipow: v = std::pow(arg(0), n.exponent); break;
    case Node::pow: v = std::pow(arg(0), arg(1)); break;
    case Node::call: v = call(n.name, n.terms.size() > 0 ? arg(0) : NAN, n.terms.size() > 1 ? arg(1) : NAN); break;
  }
  memo_[id] = v;
  return v;
}

double Evaluator::call(const std::string &f, double a, double b) {
  if (f == "sin") return std::sin(a);
  if (f == "cos") return std::cos(a);
  if (f == "tan") return std::tan(a);
  if (f == "asin") return std::asin(a);
  if (f == "acos") return std::acos(a);
  if (f == "atan") return std::atan(a);
  if (f == "atan2") return std::atan2(a, b);
  if (f == "sinh") return std::sinh(a);
  if (f == "cosh") return std::cosh(a);
  if (f == "tanh") return std::tanh(a);
  if (f == "exp") return std::exp(a);
  if (f == "log") return std::log(a);
  if (f == "sqrt") return std::sqrt(a);
  if (f == "fabs") return std::fabs(a);
  if (f == "copysign") return std::copysign(a, b);
  unreachable(("no numeric rule for " + f).c_str());
}

}  // namespace lgc
