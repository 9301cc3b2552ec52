// test_eval_cli.cpp — `lagrangec eval` as a user runs it: the pendulum's q'',
// tension, T and V against the closed form (text and --json); the balance
// M q'' + k - Q = C^T [lambda; mu] on the bicycle at its benchmark state and
// on a state of the cart and pendulum with an input; the spec's outputs;
// the state checked (refused off the constraints, completed with
// --consistent); a singular mass matrix printed as null with the reason;
// the usage errors.
#include <cmath>

#include "process.hpp"
#include "json.hpp"

#include "cli.hpp"  // last: cmocka defines a macro `fail`
#include "check.h"

namespace {


Result eval(std::vector<std::string> args) {
  args.insert(args.begin(), {LAGRANGEC, "eval"});
  return run(args, {"LAGRANGEC_CACHE=" + group_dir().string()});
}

json::Value parse(const Result &r) {
  try {
    return json::parse(r.out);
  } catch (const std::exception &e) {
    fail_msg("%s in:\n%s", e.what(), r.out.c_str());
  }
  return {};
}

// An evaluation that must succeed, read through its JSON.
json::Value eval_json(std::vector<std::string> args) {
  args.push_back("--json");
  Result r = eval(args);
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  return parse(r);
}

void assert_near(double got, double want, double tol, const std::string &what) {
  if (!(std::fabs(got - want) <= tol * std::fmax(1.0, std::fabs(want))))
    fail_msg("%s: %.17g, expected %.17g (tolerance %g)", what.c_str(), got, want, tol);
}

// M q'' + (k - Q) = C^T [lambda; mu], row by row, from eval's own JSON.
void assert_balance(const json::Value &j, const std::vector<std::string> &q) {
  for (size_t i = 0; i < q.size(); ++i) {
    double lhs = j["bias"][q[i]].num(), scale = std::fabs(lhs);
    for (size_t k = 0; k < q.size(); ++k) {
      double term = j["mass_matrix"][i][k].num() * j["acceleration"][q[k]].num();
      lhs += term;
      scale = std::fmax(scale, std::fabs(term));
    }
    assert_near(lhs, j["constraint_forces"][q[i]].num(), 1e-12 * std::fmax(1.0, scale) / std::fmax(1.0, std::fabs(lhs)),
                "row " + q[i] + " of M q'' + k - Q = C^T [lambda; mu]");
  }
}

// theta = asin(0.6) from the bottom, theta' = 1: x'' = cos(th) th'' - sin(th) th'^2,
// y'' = sin(th) th'' + cos(th) th'^2 with th'' = -g sin(th); the rod's force
// balances m (q'' + g e_y); T = 1/2, V = -0.8 g.
void pendulum_against_the_closed_form(void **) {
  const double g = 9.81, thdd = -g * 0.6;
  json::Value j = eval_json({spec("pendulum"), "--at", "x=0.6", "--at", "y=-0.8", "--at", "x'=0.8", "--at", "y_dot=0.6"});
  assert_near(j["acceleration"]["x"].num(), 0.8 * thdd - 0.6, 1e-13, "x''");
  assert_near(j["acceleration"]["y"].num(), 0.6 * thdd + 0.8, 1e-13, "y''");
  assert_near(j["constraint_forces"]["x"].num(), 0.8 * thdd - 0.6, 1e-13, "Fc[x]");
  assert_near(j["constraint_forces"]["y"].num(), 0.6 * thdd + 0.8 + g, 1e-13, "Fc[y]");
  // The rod x^2 + y^2 - l^2: Fc = lambda (2x, 2y).
  assert_near(j["multipliers"]["lambda[1]"].num(), (0.8 * thdd - 0.6) / 1.2, 1e-13, "lambda[1]");
  assert_near(j["energy"]["T"].num(), 0.5, 1e-15, "T");
  assert_near(j["energy"]["V"].num(), -0.8 * g, 1e-15, "V");
  assert_near(j["bias"]["y"].num(), g, 1e-15, "k - Q, row y");
  assert_eq(j["mass_matrix"][0][0].num(), 1);
  assert_eq(j["mass_matrix"][0][1].num(), 0);
  assert_near(j["residuals"]["phi[1]"].num(), 0, 1e-15, "phi[1]");
  assert_near(j["residuals"]["phi[1]'"].num(), 0, 1e-15, "phi[1]'");
  assert_eq(j["t"].num(), 0);
  assert_eq(j["state"]["x'"].num(), 0.8);
  assert_int_equal(j["why_null"].members.size(), 0);
  assert_int_equal(j["outputs"].members.size(), 0);
  assert_balance(j, {"x", "y"});

  Result r = eval({spec("pendulum"), "--at", "x=0.6", "--at", "y=-0.8", "--t", "2"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_contains(r.out, "t = 2\n");
  assert_contains(r.out, "\nacceleration q'':\n  x                        -4.7088000000000001\n");
  assert_contains(r.out, "energy: T = 0, V = -7.8480000000000008");
  assert_string_equal(r.err.c_str(), "");
}

// The question in one command: the Whipple bicycle upright and straight
// at 5 m/s runs steadily (q'' = 0), and its M and k balance the rolling wheels' forces.
void bicycle_at_its_benchmark_state(void **) {
  json::Value j = eval_json({spec("bicycle")});
  const std::vector<std::string> q = {"x", "y", "psi", "phi", "thetaB", "thetaR", "delta", "thetaF"};
  for (auto &name : q) assert_near(j["acceleration"][name].num(), 0, 1e-12, name + "''");
  for (size_t i = 0; i < q.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      assert_eq(j["mass_matrix"][i][k].num(), j["mass_matrix"][k][i].num());
  assert_balance(j, q);
  assert_near(j["energy"]["T"].num(), 0.5 * 5 * 5 * (2 + 85 + 4 + 3) + 0.5 * (0.12 * 16.666666666666668 * 16.666666666666668 + 0.28 * 14.285714285714286 * 14.285714285714286),
              1e-12, "T at 5 m/s");
  assert_int_equal(j["why_null"].members.size(), 0);
}

// An input enters the bias: k - Q has -F in the cart's row.
void input_enters_the_bias(void **) {
  const std::vector<std::string> at = {spec("cart_pendulum"), "--at", "s=0", "--at", "x=0.3", "--at", "y=0.4"};
  std::vector<std::string> pushed = at;
  pushed.insert(pushed.end(), {"--input", "F=2.5"});
  json::Value free = eval_json(at), j = eval_json(pushed);
  assert_near(j["bias"]["s"].num(), free["bias"]["s"].num() - 2.5, 1e-15, "k - Q, row s, with F = 2.5");
  assert_eq(j["inputs"]["F"].num(), 2.5);
  assert_balance(j, {"s", "x", "y"});
}

// The spec's [outputs], by name, from the same multipliers.
void outputs_by_name(void **) {
  json::Value j = eval_json({spec("sphere"), "--consistent"});
  if (j["outputs"].members.empty()) fail_msg("no outputs in the sphere's evaluation");
  for (auto &[name, value] : j["outputs"].members)
    if (!std::isfinite(value.num())) fail_msg("output %s = %g", name.c_str(), value.num());
}

// Off the constraints is refused, as simulate's start is; --consistent completes it.
void state_checked_and_completed(void **) {
  Result r = eval({spec("pendulum"), "--at", "x=0.3"});
  assert_int_equal(r.status, 1);
  assert_contains(r.err, "the state violates holonomic constraint 1: x^2 + y^2 - l^2");
  assert_contains(r.err, "add --consistent");
  assert_string_equal(r.out.c_str(), "");
  json::Value j = eval_json({spec("pendulum"), "--at", "x=0.3", "--consistent"});
  assert_near(j["state"]["y"].num(), -std::sqrt(1 - 0.09), 1e-14, "y completed");
  assert_eq(j["state"]["x"].num(), 0.3);
}

// A massless bob has no q'': null in JSON with the reason, nan in text, exit 1.
void singular_mass_is_null_with_a_reason(void **) {
  Result r = eval({spec("pendulum"), "--param", "m=0", "--json"});
  assert_int_equal(r.status, 1);
  json::Value j = parse(r);
  assert_true(j["acceleration"]["x"].is_null());
  assert_true(j["multipliers"]["lambda[1]"].is_null());
  assert_string_equal(j["why_null"]["acceleration"].str().c_str(),
                      "the mass matrix is not positive definite at this state");
  assert_eq(j["mass_matrix"][0][0].num(), 0);
  assert_eq(j["energy"]["V"].num(), 0);
  assert_contains(r.err, "lagrangec: no acceleration at this state: the mass matrix is not positive definite");
  Result text = eval({spec("pendulum"), "--param", "m=0"});
  assert_int_equal(text.status, 1);
  assert_contains(text.out, "  (nan: the mass matrix is not positive definite at this state)\n");
}

// Contacts and friction in the modes a run would start in: the ball above
// the floor falls; the bowling ball, thrown, slides (x'' = -mu g, theta'' =
// (5/2) mu g/r) and, thrown rolling, rolls (q'' = 0); Painleve's rod, past
// its bound, has no mode: q'' null, with the reason.
void contacts_and_friction_in_a_runs_modes(void **) {
  json::Value falling = eval_json({spec("bouncing_ball"), "--at", "y=0.5"});
  assert_near(falling["acceleration"]["y"].num(), -9.81, 1e-15, "the ball's y'' above the floor");
  assert_near(falling["multipliers"]["lambda[contact1]"].num(), 0, 1e-15, "the floor's push, apart");
  json::Value sliding = eval_json({spec("bowling_ball")});
  const double mu_g = 0.2 * 9.81;
  assert_near(sliding["acceleration"]["x"].num(), -mu_g, 1e-14, "x'' sliding");
  assert_near(sliding["acceleration"]["theta"].num(), 2.5 * mu_g / 0.11, 1e-14, "theta'' sliding");
  assert_near(sliding["multipliers"]["mu[lane]"].num(), -7.0 * mu_g, 1e-14, "the friction force, sliding");
  assert_eq(sliding["friction_modes"]["lane"].num(), 1);
  json::Value rolling = eval_json({spec("bowling_ball"), "--param", "spin=72.727272727272727"});
  assert_near(rolling["acceleration"]["x"].num(), 0, 1e-12, "x'' rolling on the level");
  assert_eq(rolling["friction_modes"]["lane"].num(), 0);
  Result jammed = eval({test_spec("painleve_rod"), "--param", "v=-1", "--json"});
  assert_int_equal(jammed.status, 1);
  json::Value j = parse(jammed);
  assert_true(j["acceleration"]["x"].is_null());
  assert_contains(j["why_null"]["acceleration"].str(), "no consistent friction mode");
}

void usage_errors(void **) {
  struct Case {
    std::vector<std::string> args;
    const char *message;
  } cases[] = {
      {{"--t", "soon"}, "lagrangec: --t expects the time with a finite number, got 'soon'"},
      {{"--t", "inf"}, "lagrangec: --t expects the time with a finite number, got 'inf'"},
      {{"--at", "t=x"}, "lagrangec: --at expects t=VALUE with a finite number, got 't=x'"},
      {{"--at", "z=1"}, "lagrangec: unknown state 'z' in --at"},
      {{"--param", "mass=1"}, "lagrangec: unknown parameter 'mass' in --param"},
      {{"--input", "F=1"}, "lagrangec: unknown input 'F' in --input"},
      {{"--at"}, "lagrangec: --at needs a value"},
      {{"--independent", "x"}, "lagrangec: unknown option '--independent' (see --help)"},
  };
  for (auto &c : cases) {
    std::vector<std::string> args = {spec("pendulum")};
    args.insert(args.end(), c.args.begin(), c.args.end());
    Result r = eval(args);
    if (r.status != 2) fail_msg("exit %d for %s: %s", r.status, c.args[0].c_str(), r.err.c_str());
    assert_contains(r.err, c.message);
  }
  Result help = run({LAGRANGEC, "eval", "--help"});
  assert_int_equal(help.status, 0);
  assert_contains(help.out, "usage: lagrangec eval SPEC [--at NAME=VALUE...] [OPTIONS]");
  assert_contains(help.out, "--consistent");
  Result none = run({LAGRANGEC, "eval"});
  assert_int_equal(none.status, 2);
  assert_contains(none.err, "eval needs a spec");
}

}  // namespace

int main() {
  const CMUnitTest tests[] = {
      cmocka_unit_test(pendulum_against_the_closed_form),
      cmocka_unit_test(bicycle_at_its_benchmark_state),
      cmocka_unit_test(input_enters_the_bias),
      cmocka_unit_test(outputs_by_name),
      cmocka_unit_test(state_checked_and_completed),
      cmocka_unit_test(singular_mass_is_null_with_a_reason),
      cmocka_unit_test(contacts_and_friction_in_a_runs_modes),
      cmocka_unit_test(usage_errors),
  };
  return cmocka_run_group_tests(tests, group_dir_setup, group_dir_teardown);
}
