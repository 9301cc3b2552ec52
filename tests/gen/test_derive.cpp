// test_derive.cpp — the derivation against hand derivations: the seeds'
// knife-edge dumbbell (T of 6.338, constraint 6.336) and a pendulum in
// Cartesian coordinates, compared symbolically and at random states.
#include "lagrangec.h"

#include <cmath>
#include <random>
#include <sstream>

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

using GiNaC::ex;

namespace {

std::string spec_path(const char *name) { return std::string(SPECS_DIR) + "/" + name + ".toml"; }

ex sym(const lgc::Model &m, const std::string &name) { return m.symbols.by_name.at(name).ex; }

// Equal as expressions, and numerically at random values of every symbol.
void assert_same(const lgc::Model &m, const ex &derived, const ex &hand) {
  ex diff = (derived - hand).expand();
  if (!diff.is_zero()) {
    std::ostringstream s;
    s << "derived " << derived << " differs from the hand derivation " << hand;
    fail_msg("%s", s.str().c_str());
  }
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int trial = 0; trial < 5; ++trial) {
    GiNaC::exmap at;
    for (auto &[name, info] : m.symbols.by_name)
      if (GiNaC::is_a<GiNaC::symbol>(info.ex)) at[info.ex] = u(rng);
    at[m.alpha] = u(rng), at[m.beta] = u(rng);
    for (auto &z : m.z) at[z] = u(rng);
    double a = GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(derived.subs(at))).to_double();
    double b = GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(hand.subs(at))).to_double();
    assert_true(std::fabs(a - b) <= 1e-13 * (1 + std::fabs(b)));
  }
}

void knife_edge_matches_hand_derivation(void **) {
  lgc::Spec spec = lgc::read_spec(spec_path("knife_edge"));
  lgc::Model m = lgc::derive(spec);
  ex m_ = sym(m, "m"), l = sym(m, "l"), phi = sym(m, "phi");
  ex xd = sym(m, "x'"), yd = sym(m, "y'"), phid = sym(m, "phi'");
  ex s = GiNaC::sin(phi), c = GiNaC::cos(phi);
  // M from (6.338) by hand.
  ex M[3][3] = {{2 * m_, 0, -m_ * l * s}, {0, 2 * m_, m_ * l * c}, {-m_ * l * s, m_ * l * c, m_ * l * l}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) assert_same(m, m.M(i, j), M[i][j]);
  // d/dt(dT/dq') - dT/dq = M q'' + k: the centripetal terms of the rod.
  assert_same(m, m.k[0], -m_ * l * c * phid * phid);
  assert_same(m, m.k[1], -m_ * l * s * phid * phid);
  assert_same(m, m.k[2], 0);
  // B of (6.336), b = 0, and g' = B q'' - (x' cos phi + y' sin phi) phi'.
  assert_same(m, m.B(0, 0), -s);
  assert_same(m, m.B(0, 1), c);
  assert_same(m, m.B(0, 2), 0);
  assert_same(m, m.b[0], 0);
  assert_same(m, m.c_n[0], -(xd * c + yd * s) * phid);
  assert_int_equal(m.nh, 0);
  assert_int_equal(m.nn, 1);
  assert_true(m.conservative);
}

void cartesian_pendulum_matches_hand_derivation(void **) {
  lgc::Spec spec = lgc::read_spec(spec_path("pendulum"));
  lgc::Model m = lgc::derive(spec);
  ex x = sym(m, "x"), y = sym(m, "y"), xd = sym(m, "x'"), yd = sym(m, "y'");
  ex m_ = sym(m, "m"), g = sym(m, "g");
  assert_same(m, m.M(0, 0), m_);
  assert_same(m, m.M(0, 1), 0);
  assert_same(m, m.M(1, 1), m_);
  assert_same(m, m.k[0], 0);
  assert_same(m, m.k[1], m_ * g);
  // phi = x^2 + y^2 - l^2: A = (2x, 2y), phi' = 2 x x' + 2 y y', c_h = 2 x'^2 + 2 y'^2.
  assert_same(m, m.A(0, 0), 2 * x);
  assert_same(m, m.A(0, 1), 2 * y);
  assert_same(m, m.phi_t[0], 0);
  assert_same(m, m.phi_dot[0], 2 * x * xd + 2 * y * yd);
  assert_same(m, m.c_h[0], 2 * xd * xd + 2 * yd * yd);
  // Baumgarte (6.291): A q'' = -c_h - alpha phi' - beta phi.
  assert_same(m, m.r[0], -(2 * xd * xd + 2 * yd * yd) - m.alpha * (2 * x * xd + 2 * y * yd) -
                             m.beta * (x * x + y * y - sym(m, "l") * sym(m, "l")));
}

// V = c |x - a| + |y|^2: the force at the tip of the V is -c sign(0) = -c,
// not GiNaC's -c (x - a)/|x - a| = NaN there; an even power of |y| is y^2.
void v_shaped_potential_has_a_force_at_its_tip(void **) {
  lgc::Spec spec = lgc::read_spec_text("v.toml",
                                       "name = \"v\"\ncoordinates = [\"x\", \"y\"]\n"
                                       "kinetic = \"(x'^2 + y'^2)/2\"\npotential = \"c*abs(x - a) + abs(y)^2\"\n"
                                       "[parameters]\nc = 2.0\na = 0.5\n");
  lgc::Model m = lgc::derive(spec);
  ex x = sym(m, "x"), y = sym(m, "y"), c = sym(m, "c"), a = sym(m, "a");
  assert_same(m, m.k[0], c * lgc::real_sign(x - a));  // M q'' + k = Q: k holds dV/dq
  assert_same(m, m.k[1], 2 * y);
  ex tip = GiNaC::evalf(m.k[0].subs(GiNaC::lst{x == a, c == 2}));
  assert_true(GiNaC::is_a<GiNaC::numeric>(tip));
  assert_true(GiNaC::ex_to<GiNaC::numeric>(tip).to_double() == 2.0);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(knife_edge_matches_hand_derivation),
      cmocka_unit_test(cartesian_pendulum_matches_hand_derivation),
      cmocka_unit_test(v_shaped_potential_has_a_force_at_its_tip),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
