// test_derive.cpp — the derivation against hand derivations: the seeds'
// knife-edge dumbbell (T of 6.338, constraint 6.336) and a pendulum in
// Cartesian coordinates, compared symbolically and at random states; the
// initial state as expressions of the parameters; messages' expression text.
#include "model/model.h"

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
    if (!(std::fabs(a - b) <= 1e-13 * (1 + std::fabs(b)))) {
      std::ostringstream s;
      s << derived << " = " << a << " but the hand derivation " << hand << " = " << b;
      fail_msg("%s", s.str().c_str());
    }
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
  assert_int_equal(int(m.integral), int(lgc::Model::Integral::energy));
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
  std::ostringstream text;
  text << tip;
  if (!GiNaC::is_a<GiNaC::numeric>(tip) || GiNaC::ex_to<GiNaC::numeric>(tip).to_double() != 2.0)
    fail_msg("the force at the tip is %s, not 2", text.str().c_str());
}

// x_dot is x' in expressions as in --init and runs tables (no other name may
// be x_dot); "0" where a vector is expected is the zero vector: a disk
// spinning about its centre at the origin, T = (3 th'^2 + x'^2)/2.
void velocity_names_and_the_zero_vector(void **) {
  lgc::Spec spec = lgc::read_spec_text("spin.toml",
                                       "name = \"spin\"\ncoordinates = [\"th\", \"x\"]\nkinetic = \"x_dot^2/2\"\n"
                                       "[frames]\nA = \"N z(th)\"\n[bodies.disk]\nmass = \"2\"\nframe = \"A\"\n"
                                       "centre = \"0\"\ninertia = [1, 1, 3]\n");
  lgc::Model m = lgc::derive(spec);
  assert_same(m, m.M(0, 0), 3);
  assert_same(m, m.M(0, 1), 0);
  assert_same(m, m.M(1, 1), 1);
}

// [initial] values are expressions of the parameters: the model keeps the
// expression, its value at the defaults, and which entries the spec gave.
void initial_values_are_expressions_of_the_parameters(void **) {
  lgc::Spec spec = lgc::read_spec_text("swing.toml",
                                       "name = \"swing\"\ncoordinates = [\"x\", \"y\"]\n"
                                       "kinetic = \"m*(x'^2 + y'^2)/2\"\n[parameters]\nm = 1.0\nl = 2.0\n"
                                       "[constraints]\nholonomic = [\"x^2 + y^2 - l^2\"]\n"
                                       "[initial]\nx = \"l*sin(3/10)\"\ny = \"-l*cos(3/10)\"\n"
                                       "[initial.velocity]\nx = 0.5\n");
  lgc::Model m = lgc::derive(spec);
  assert_same(m, m.state[0].initial, sym(m, "l") * GiNaC::sin(ex(GiNaC::numeric(3, 10))));
  const double want[] = {2 * std::sin(0.3), -2 * std::cos(0.3), 0.5, 0.0};
  const bool given[] = {true, true, true, false};
  for (size_t i = 0; i < 4; ++i) {
    if (!(std::fabs(m.state[i].initial_value - want[i]) <= 1e-16 * (1 + std::fabs(want[i]))))
      fail_msg("%s(0) = %.17g at the defaults, expected %.17g", m.state[i].name.c_str(), m.state[i].initial_value, want[i]);
    assert_int_equal(m.state[i].given, given[i]);
  }
  assert_string_equal(m.constraint_label(0).c_str(), "holonomic constraint 1: x^2 + y^2 - l^2");
}

// The integrability warning's suggestion is in the spec's own syntax, the
// same text on every run.
void expression_text_is_the_specs_syntax(void **) {
  lgc::Spec spec = lgc::read_spec(spec_path("knife_edge"));
  lgc::Model m = lgc::derive(spec);
  ex x = sym(m, "x"), y = sym(m, "y"), l = sym(m, "l"), xd = sym(m, "x'");
  struct Case {
    ex e;
    const char *text;
  } cases[] = {{x - y, "x - y"}, {2 * x - l * y / 3, "2*x - l*y/3"}, {-xd * GiNaC::sin(x), "-sin(x)*x'"},
               {GiNaC::pow(x + 1, 2), "(1 + x)^2"}};
  for (auto &c : cases) assert_string_equal(lgc::expression_text(c.e).c_str(), c.text);
}

// The integral is derived at generation: h = T2 - T0 + V for coordinates
// in a turning frame (t cancels out of L), T + V for the pendulum, none,
// with its reason, for a rheonomic row or a damping force.
void the_integral_is_the_models(void **) {
  lgc::Model turning = lgc::derive(lgc::read_spec(std::string(RUNTIME_SPECS_DIR) + "/turning_spring.toml"));
  assert_int_equal(int(turning.integral), int(lgc::Model::Integral::jacobi));
  ex x = sym(turning, "x"), y = sym(turning, "y"), xd = sym(turning, "x'"), yd = sym(turning, "y'");
  ex m = sym(turning, "m"), w = sym(turning, "w"), kx = sym(turning, "kx"), ky = sym(turning, "ky");
  assert_same(turning, turning.jacobi, m * (xd * xd + yd * yd - w * w * (x * x + y * y)) / 2 + kx * x * x / 2 + ky * y * y / 2);
  assert_string_equal(turning.integral_absent.c_str(), "");

  assert_int_equal(int(lgc::derive(lgc::read_spec(spec_path("pendulum"))).integral), int(lgc::Model::Integral::energy));
  lgc::Model hoop = lgc::derive(lgc::read_spec(spec_path("bead_hoop")));
  assert_int_equal(int(hoop.integral), int(lgc::Model::Integral::none));
  assert_string_equal(hoop.integral_absent.c_str(), "holonomic constraint 2 depends on t: it does work");
  lgc::Model damped = lgc::derive(lgc::read_spec_text("damped.toml", "name = \"damped\"\ncoordinates = [\"x\"]\n"
                                                                     "kinetic = \"x'^2/2\"\n[parameters]\nc = 0.1\n"
                                                                     "[forces]\nx = \"-c*x'\"\n"));
  assert_int_equal(int(damped.integral), int(lgc::Model::Integral::none));
  assert_string_equal(damped.integral_absent.c_str(), "the force on x does work (-c*x')");
  lgc::Model cart = lgc::derive(lgc::read_spec(spec_path("cart_pendulum")));
  assert_int_equal(int(cart.integral), int(lgc::Model::Integral::energy));
  assert_true(cart.integral_needs_zero_inputs);
}

// The chain's orientations as [definitions] (each differentiated once,
// its derivatives shared) and as [frames] give the same M and k at random
// states.
void chained_definitions_derive_what_frames_do(void **) {
  const std::string dir = GEN_SPECS_DIR;
  lgc::Model d = lgc::derive(lgc::read_spec(dir + "/chain_definitions12.toml"));
  lgc::Model f = lgc::derive(lgc::read_spec(dir + "/chain_frames12.toml"));
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int trial = 0; trial < 3; ++trial) {
    lgc::Evaluator::Point at_d, at_f;
    for (auto &[name, info] : d.symbols.by_name) {
      if (!GiNaC::is_a<GiNaC::symbol>(info.ex)) continue;
      double value = info.kind == lgc::SymbolKind::parameter ? 1.0 : u(rng);
      at_d[info.ex] = value;
      at_f[f.symbols.by_name.at(name).ex] = value;
    }
    lgc::Evaluator vd(at_d), vf(at_f);
    for (size_t i = 0; i < d.nq; ++i) {
      double a = vd(d.k[i]), b = vf(f.k[i]);
      if (!(std::fabs(a - b) <= 1e-10 * (1 + std::fabs(b)))) fail_msg("k[%zu]: %.17g by definitions, %.17g by frames", i, a, b);
      for (size_t j = 0; j < d.nq; ++j) {
        a = vd(d.M(i, j)), b = vf(f.M(i, j));
        if (!(std::fabs(a - b) <= 1e-10 * (1 + std::fabs(b))))
          fail_msg("M(%zu, %zu): %.17g by definitions, %.17g by frames", i, j, a, b);
      }
    }
  }
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(knife_edge_matches_hand_derivation),
      cmocka_unit_test(cartesian_pendulum_matches_hand_derivation),
      cmocka_unit_test(v_shaped_potential_has_a_force_at_its_tip),
      cmocka_unit_test(initial_values_are_expressions_of_the_parameters),
      cmocka_unit_test(expression_text_is_the_specs_syntax),
      cmocka_unit_test(the_integral_is_the_models),
      cmocka_unit_test(chained_definitions_derive_what_frames_do),
      cmocka_unit_test(velocity_names_and_the_zero_vector),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
