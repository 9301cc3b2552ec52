// evaluate.cpp — numeric values of the model's expressions at a point, in
// double precision, for the checks the derivation makes at sample states (a
// positive definite M, a zero that trigonometric identities hide). Shared
// subexpressions are evaluated once; much cheaper than GiNaC's subs + evalf.
#include "model/model.h"

#include <cmath>

namespace lgc {

namespace {

double call(const std::string &f, const std::vector<double> &a) {
  if (f == "sin") return std::sin(a[0]);
  if (f == "cos") return std::cos(a[0]);
  if (f == "tan") return std::tan(a[0]);
  if (f == "asin") return std::asin(a[0]);
  if (f == "acos") return std::acos(a[0]);
  if (f == "atan") return std::atan(a[0]);
  if (f == "atan2") return std::atan2(a[0], a[1]);
  if (f == "sinh") return std::sinh(a[0]);
  if (f == "cosh") return std::cosh(a[0]);
  if (f == "tanh") return std::tanh(a[0]);
  if (f == "exp") return std::exp(a[0]);
  if (f == "log") return std::log(a[0]);
  if (f == "real_abs") return std::fabs(a[0]);
  if (f == "real_sign") return std::copysign(1.0, a[0]);
  unreachable(("no numeric rule for the function " + f).c_str());
}

}  // namespace

double Evaluator::operator()(const GiNaC::ex &e) {
  const GiNaC::basic *key = &GiNaC::ex_to<GiNaC::basic>(e);
  auto memo = memo_.find(key);
  if (memo != memo_.end()) return memo->second.second;
  double v = NAN;
  if (GiNaC::is_a<GiNaC::numeric>(e)) {
    const GiNaC::numeric &n = GiNaC::ex_to<GiNaC::numeric>(e);
    if (n.is_real()) v = n.to_double();
  } else if (GiNaC::is_a<GiNaC::symbol>(e)) {
    auto it = values_.find(e);
    if (it != values_.end()) v = it->second;
  } else if (GiNaC::is_a<GiNaC::constant>(e)) {
    v = GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(e)).to_double();
  } else if (GiNaC::is_a<GiNaC::add>(e)) {
    v = 0;
    for (size_t i = 0; i < e.nops(); ++i) v += (*this)(e.op(i));
  } else if (GiNaC::is_a<GiNaC::mul>(e)) {
    v = 1;
    for (size_t i = 0; i < e.nops(); ++i) v *= (*this)(e.op(i));
  } else if (GiNaC::is_a<GiNaC::power>(e)) {
    v = std::pow((*this)(e.op(0)), (*this)(e.op(1)));
  } else if (GiNaC::is_a<GiNaC::function>(e)) {
    std::vector<double> args;
    for (size_t i = 0; i < e.nops(); ++i) args.push_back((*this)(e.op(i)));
    v = call(GiNaC::ex_to<GiNaC::function>(e).get_name(), args);
  } else {
    unreachable("an expression of an unexpected GiNaC class reached the evaluator");
  }
  memo_.emplace(key, std::make_pair(e, v));  // e held: its address stays its own
  return v;
}

}  // namespace lgc
