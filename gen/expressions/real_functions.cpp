// real_functions.cpp — abs and sign for the spec's real arguments. GiNaC's
// abs differentiates to x/abs(x), NaN at x = 0 (a V-shaped potential at its
// tip); ours differentiates to sign(x), which the C makes copysign(1.0, x),
// as the graph derivatives of fabs do (differentiate.cpp).
#include "expressions/expressions.h"

namespace lgc {

namespace {

using GiNaC::ex;

ex real_abs_eval(const ex &x) {
  if (GiNaC::is_exactly_a<GiNaC::numeric>(x)) return GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(x));
  return real_abs(x).hold();
}

ex real_abs_derivative(const ex &x, unsigned) { return real_sign(x); }

// |x|^2 = x^2, and so for every even power: kinetic energies keep their form.
ex real_abs_power(const ex &x, const ex &exponent) {
  if (exponent.info(GiNaC::info_flags::even)) return GiNaC::pow(x, exponent);
  return GiNaC::power(real_abs(x), exponent).hold();
}

// sign(0) = 1, as copysign(1.0, 0.0) in the C.
ex real_sign_eval(const ex &x) {
  if (GiNaC::is_exactly_a<GiNaC::numeric>(x)) return GiNaC::ex_to<GiNaC::numeric>(x).is_negative() ? -1 : 1;
  return real_sign(x).hold();
}

// Zero away from x = 0, where sign jumps: the equations hold piecewise.
ex real_sign_derivative(const ex &, unsigned) { return 0; }

}  // namespace

REGISTER_FUNCTION(real_abs, eval_func(real_abs_eval).evalf_func(real_abs_eval)
                                .derivative_func(real_abs_derivative).power_func(real_abs_power))
REGISTER_FUNCTION(real_sign, eval_func(real_sign_eval).evalf_func(real_sign_eval)
                                 .derivative_func(real_sign_derivative))

}  // namespace lgc
