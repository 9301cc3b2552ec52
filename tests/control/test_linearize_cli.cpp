// test_linearize_cli.cpp — `lagrangec linearize` as a user runs it: the
// pendulum at its bottom (text) and top (--json), the leaning disk with
// --independent, the time of a time-dependent model, eigenvalues at
// round-off, the equilibrium note, --consistent, and the refusals: a point
// off the constraints or where the equations are NaN, the vakonomic
// formulation, an unknown name, a model without a generated Jacobian.
#include <cmath>

#include "process.hpp"
#include "json.hpp"

#include "cli.hpp"  // last: cmocka defines a macro `fail`
#include "check.h"

namespace fs = std::filesystem;

namespace {



Result linearize(std::vector<std::string> args) {
  args.insert(args.begin(), {LAGRANGEC, "linearize"});
  return run(args, {"LAGRANGEC_CACHE=" + group_dir().string()});
}

// A linearisation that must succeed, read through its JSON.
json::Value linearize_json(std::vector<std::string> args, std::string *err = nullptr) {
  args.push_back("--json");
  Result r = linearize(args);
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  if (err) *err = r.err;
  try {
    return json::parse(r.out);
  } catch (const std::exception &e) {
    fail_msg("%s in:\n%s", e.what(), r.out.c_str());
  }
  return {};
}

void pendulum_bottom_as_text(void **) {
  Result r = linearize({spec("pendulum"), "--at", "x=0", "--at", "y=-1"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_contains(r.out, "independent: x; x'\ndependent:   y; y'\n");
  assert_contains(r.out, "  x'                     -9.81                 0\n");
  assert_contains(r.out, "   0 + 3.13209195267317i\n   0 - 3.13209195267317i\n");
  assert_string_equal(r.err.c_str(), "");
}

void pendulum_top_as_json(void **) {
  json::Value j = linearize_json({spec("pendulum"), "--at", "x=0", "--at", "y=1"});
  assert_string_equal(j["states"][0].str().c_str(), "x");
  assert_string_equal(j["states"][1].str().c_str(), "x'");
  assert_eq(j["A"][0][0].num(), 0);
  assert_eq(j["A"][0][1].num(), 1);
  assert_eq(j["A"][1][0].num(), 9.81);
  assert_eq(j["A"][1][1].num(), 0);
  assert_eq(j["eigenvalues"][0]["re"].num(), 3.1320919526731652);
  assert_eq(j["eigenvalues"][0]["im"].num(), 0);
  assert_eq(j["t"].num(), 0);
  assert_int_equal(j["time_dependent"].b, false);
}

void leaning_disk_with_chosen_speeds(void **) {
  // x_dot is x', for --at and --independent alike.
  Result r = linearize({spec("leaning_disk"), "--at", "x_dot=3", "--at", "phi'=6", "--independent",
                        "x,y,psi,theta,phi,x',psi_dot,theta'"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_contains(r.out, "independent: x, y, psi, theta, phi; x', psi', theta'\n");
  assert_contains(r.out, "dependent:   none; y', phi'\n");
  assert_contains(r.out, " + 8.408567059850");  // sqrt(7.2 * 12 - 15.696)
}

// A model that depends on t takes the time with --at t=T and reports it; without
// one it says so. --consistent puts the bead on the hoop's plane at that time.
void time_is_taken_and_asked_for(void **) {
  std::string err;
  json::Value j = linearize_json({spec("bead_hoop")}, &err);
  assert_int_equal(j["time_dependent"].b, true);
  assert_contains(err, "the model depends on t at this point: linearised at t = 0; give the time with --at t=T");
  j = linearize_json({spec("bead_hoop"), "--at", "t=0.3", "--at", "z=-0.5403023058681397", "--consistent"}, &err);
  assert_eq(j["t"].num(), 0.3);
  assert_eq(j["point"]["z"].num(), -0.5403023058681397);
  // In the hoop's plane at w t = 1.5 rad, the circle's radius 0.8414709848078965 from the axis.
  assert_le(std::fabs(j["point"]["x"].num() - 0.8414709848078965 * std::cos(1.5)), 1e-12);
  assert_le(std::fabs(j["point"]["y"].num() - 0.8414709848078965 * std::sin(1.5)), 1e-12);
  assert_contains(err, "lagrangec: --consistent set x = ");
  check(err.find("give the time") == std::string::npos, "a note about the time given:\n%s", err.c_str());
}

// The cart's free position is a double zero eigenvalue; dgeev returns it as
// +-1.9e-8, below sqrt(n eps) |A|_F: printed as 0, the computed value beside it.
void round_off_eigenvalues_are_zero(void **) {
  Result r = linearize({spec("cart_pendulum"), "--at", "x=0", "--at", "y=0.5"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_contains(r.out, "   5.05034652276455 + 0i\n   0 + 0i   (round-off: ");
  check(r.out.find("e-08 + 0i\n") == std::string::npos, "a round-off eigenvalue printed as a value:\n%s",
        r.out.c_str());
  json::Value j = linearize_json({spec("cart_pendulum"), "--at", "x=0", "--at", "y=0.5"});
  double bound = j["roundoff"]["eigenvalue"].num();
  int zeros = 0;
  for (auto &e : j["eigenvalues"].items)
    if (e.members.count("computed")) {
      ++zeros;
      assert_eq(e["re"].num(), 0);
      assert_le(std::hypot(e["computed"][0].num(), e["computed"][1].num()), bound);
    }
  assert_int_equal(zeros, 2);
}

// A disk rolling round a circle is a steady motion in its independent speeds
// (th', ph'), though its x'' and y'' are not 0: no "not an equilibrium" note.
void the_equilibrium_note_reads_the_independent_speeds(void **) {
  Result r = linearize({spec("rolling_disk")});
  assert_int_equal(r.status, 0);
  assert_contains(r.out, "independent: x, y, th, ph; th', ph'\n");
  assert_string_equal(r.err.c_str(), "");
  r = linearize({spec("pendulum"), "--at", "x=0.6", "--consistent"});
  assert_int_equal(r.status, 0);
  assert_contains(r.err, "lagrangec: --consistent set y = -0.80000000000000004");
  assert_contains(r.err, "max |q''| of the independent speeds = 4.71 at the point: not an equilibrium");
}

void refusals(void **) {
  Result r = linearize({spec("pendulum"), "--at", "x=0", "--at", "y=-0.5"});
  assert_int_equal(r.status, 1);
  assert_contains(r.err, "violates holonomic constraint 1: x^2 + y^2 - l^2 (phi[1] = -0.75)");
  assert_contains(r.err, "--consistent");
  r = linearize({spec("pendulum"), "--at", "x=0", "--at", "y=-1", "--independent", "y"});
  assert_int_equal(r.status, 1);
  assert_contains(r.err, "cannot be solved for");
  r = linearize({spec("knife_edge"), "--formulation", "vakonomic"});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "linearize takes the d'Alembert-Lagrange equations only");
  r = linearize({spec("pendulum"), "--independent", "z"});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "unknown coordinate or speed 'z' in --independent\n  known coordinates: x, y\n");
  r = linearize({spec("pendulum"), "--independent", "x,y"});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "names too many coordinates (this model has 1: nq - nh)");
  r = linearize({spec("knife_edge"), "--independent", "x"});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "names too few coordinates (this model has 3: nq - nh)");
  // A force of sqrt(1/4 - t) is NaN at t = 0.3: no JSON with nan in it, no JSON at all.
  r = linearize({test_spec("nan_force"), "--at", "t=0.3", "--json"});
  assert_int_equal(r.status, 1);
  assert_string_equal(r.out.c_str(), "");
  assert_contains(r.err, "not finite (NaN or Inf) at the point");
  r = linearize({spec("pendulum"), "--at", "t=soon"});
  assert_int_equal(r.status, 2);
}

// A tree past the crossover, its rhs the recursion: linearised on the
// recursion's own Jacobian (gen/kernels/tree_jacobian.c), every coordinate
// and speed independent.
void tree_on_the_recursion(void **) {
  Result r = linearize({std::string(GEN_SPECS_DIR) + "/articulated_tree.toml"});
  assert_int_equal(r.status, 0);
  assert_contains(r.out, "d/dt dy = A dy + B du");
  assert_contains(r.out, "independent: q0, r1, r2, r3, r4, r5, r6, l1, l2, l3, l4, l5, l6; q0', r1'");
}

}  // namespace

int main() {
  const CMUnitTest tests[] = {
      cmocka_unit_test(pendulum_bottom_as_text),
      cmocka_unit_test(pendulum_top_as_json),
      cmocka_unit_test(leaning_disk_with_chosen_speeds),
      cmocka_unit_test(time_is_taken_and_asked_for),
      cmocka_unit_test(round_off_eigenvalues_are_zero),
      cmocka_unit_test(the_equilibrium_note_reads_the_independent_speeds),
      cmocka_unit_test(refusals),
      cmocka_unit_test(tree_on_the_recursion),
  };
  return cmocka_run_group_tests(tests, group_dir_setup, group_dir_teardown);
}
