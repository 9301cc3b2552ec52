// test_linearize_cli.cpp — `lagrangec linearize` as a user runs it: the
// pendulum at its bottom (text) and top (--json), the leaning disk with
// --independent, and the refusals: a point off the constraints, the
// vakonomic formulation, an unknown name.
#include "../gen/process.hpp"

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

namespace fs = std::filesystem;

namespace {


std::string spec(const char *name) { return std::string(SPECS_DIR) + "/" + name + ".toml"; }

Result linearize(std::vector<std::string> args) {
  args.insert(args.begin(), {LAGRANGEC, "linearize"});
  return run(args, {"LAGRANGEC_CACHE=" + group_dir().string()});
}

void assert_contains(const std::string &text, const std::string &part) {
  if (text.find(part) == std::string::npos) fail_msg("no '%s' in:\n%s", part.c_str(), text.c_str());
}

void pendulum_bottom_as_text(void **) {
  Result r = linearize({spec("pendulum"), "--at", "x=0", "--at", "y=-1"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_contains(r.out, "independent: x; x'\ndependent:   y; y'\n");
  assert_contains(r.out, "  x'                     -9.81                 0\n");
  assert_contains(r.out, "   0 + 3.13209195267317i\n   0 - 3.13209195267317i\n");
  assert_true(r.err.empty());
}

void pendulum_top_as_json(void **) {
  Result r = linearize({spec("pendulum"), "--at", "x=0", "--at", "y=1", "--json"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_contains(r.out, "\"states\": [\"x\", \"x'\"]");
  assert_contains(r.out, "\"A\": [[0, 1],\n        [9.8100000000000005, 0]]");
  assert_contains(r.out, "\"eigenvalues\": [{\"re\": 3.1320919526731652, \"im\": 0}");
}

void leaning_disk_with_chosen_speeds(void **) {
  Result r = linearize({spec("leaning_disk"), "--at", "x'=3", "--at", "phi'=6", "--independent",
                        "x,y,psi,theta,phi,x',psi',theta'"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_contains(r.out, "independent: x, y, psi, theta, phi; x', psi', theta'\n");
  assert_contains(r.out, "dependent:   none; y', phi'\n");
  assert_contains(r.out, " + 8.408567059850");  // sqrt(7.2 * 12 - 15.696)
}

void refusals(void **) {
  Result r = linearize({spec("pendulum"), "--at", "x=0", "--at", "y=-0.5"});
  assert_int_equal(r.status, 1);
  assert_contains(r.err, "violates holonomic constraint 1 (phi1 = -0.75)");
  r = linearize({spec("pendulum"), "--at", "x=0", "--at", "y=-1", "--independent", "y"});
  assert_int_equal(r.status, 1);
  assert_contains(r.err, "cannot be solved for");
  r = linearize({spec("knife_edge"), "--formulation", "vakonomic"});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "linearize takes the d'Alembert-Lagrange equations only");
  r = linearize({spec("pendulum"), "--independent", "z"});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "unknown coordinate 'z' in --independent\n  known coordinates: x, y\n");
  r = linearize({spec("pendulum"), "--independent", "x,y"});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "names too many coordinates (this model has 1: nq - nh)");
  r = linearize({spec("knife_edge"), "--independent", "x"});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "names too few coordinates (this model has 3: nq - nh)");
}

}  // namespace

int main() {
  const CMUnitTest tests[] = {
      cmocka_unit_test(pendulum_bottom_as_text),
      cmocka_unit_test(pendulum_top_as_json),
      cmocka_unit_test(leaning_disk_with_chosen_speeds),
      cmocka_unit_test(refusals),
  };
  return cmocka_run_group_tests(tests, group_dir_setup, group_dir_teardown);
}
