// test_formulations.cpp — `lagrangec simulate --formulation dalembert|vakonomic`
// as a user runs it: the two agree on a holonomic constraint written in
// velocity form (and match its analytic motion), and differ on the knife-edge
// dumbbell; `lagrangec generate` warns about the integrable constraint only,
// not about the knife edge or the rolling disk and ball.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "process.hpp"

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`
#include "check.h"

namespace fs = std::filesystem;

namespace {

const std::string lagrangec = LAGRANGEC;
const std::string velocity_form = std::string(EXAMPLE_SPECS_DIR) + "/velocity_form.toml";
const std::string knife_edge = std::string(SPECS_DIR) + "/knife_edge.toml";

// A CSV's columns by header name; a name not in it fails the test, naming it.
struct Columns {
  std::map<std::string, std::vector<double>> by_name;
  const std::vector<double> &operator[](const std::string &name) const {
    auto it = by_name.find(name);
    if (it == by_name.end()) fail_msg("no column '%s' in the CSV", name.c_str());
    return it->second;
  }
};

Columns read_csv(const fs::path &p) {
  std::ifstream in(p);
  std::string line, cell;
  std::getline(in, line);
  std::vector<std::string> names;
  for (std::istringstream h(line); std::getline(h, cell, ',');) names.push_back(cell);
  Columns cols;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    for (size_t i = 0; std::getline(row, cell, ','); ++i)
      cols.by_name[names.at(i)].push_back(std::strtod(cell.c_str(), nullptr));
  }
  return cols;
}

// Runs simulate with the formulation and returns the CSV's columns.
Columns simulate(const std::string &spec, const std::string &formulation, const std::string &t_end) {
  fs::path csv = group_dir() / (formulation + ".csv");
  Result r = run({lagrangec, "simulate", spec, "--formulation", formulation, "--t-end", t_end, "--rtol", "1e-12",
                  "--atol", "1e-14", "--project", "velocity", "--sample", "0.01", "--out", csv.string(), "--quiet"},
                 {"LAGRANGEC_CACHE=" + (group_dir() / "cache").string()});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  return read_csv(csv);
}

void agree_where_the_constraint_is_integrable(void **) {
  auto d = simulate(velocity_form, "dalembert", "10"), v = simulate(velocity_form, "vakonomic", "10");
  const double w = std::sqrt(3.0 * 2.0 / 2.0);  // sqrt(3 k/(2 m)), the spec's defaults
  double between = 0, analytic = 0;
  assert_int_equal(d["t"].size(), v["t"].size());
  for (size_t i = 0; i < d["t"].size(); ++i) {
    for (auto c : {"x", "y", "x'", "y'"}) between = std::fmax(between, std::fabs(d[c][i] - v[c][i]));
    analytic = std::fmax(analytic, std::fabs(d["y"][i] - std::cos(w * d["t"][i])));
    analytic = std::fmax(analytic, std::fabs(v["x"][i] - std::cos(w * v["t"][i])));
  }
  print_message("  x' - y' = 0, t = 10: dalembert vs vakonomic %.2e, either vs cos(wt) %.2e\n", between, analytic);
  assert_le(between, 1e-9);
  assert_le(analytic, 1e-9);
}

void differ_on_the_knife_edge(void **) {
  auto d = simulate(knife_edge, "dalembert", "10"), v = simulate(knife_edge, "vakonomic", "10");
  size_t n = d["t"].size() - 1;
  double apart = std::hypot(d["x"][n] - v["x"][n], d["y"][n] - v["y"][n]);
  double g = 0;
  for (size_t i = 0; i <= n; ++i) g = std::fmax(g, std::fmax(std::fabs(d["g[1]"][i]), std::fabs(v["g[1]"][i])));
  print_message("  knife edge, t = 10: phi' %.6f (dalembert) vs %.6f (vakonomic, mu1(0) = 0); "
                "positions %.3f apart; both keep max |g| %.1e\n",
                d["phi'"][n], v["phi'"][n], apart, g);
  assert_ge(apart, 1.0);
  assert_ge(std::fabs(d["phi'"][n] - v["phi'"][n]), 1.0);
  assert_le(g, 1e-12);
}

void integrable_constraint_gets_a_warning(void **) {
  Result r = run({lagrangec, "generate", velocity_form, "-o", group_dir().string()});
  assert_int_equal(r.status, 0);
  const std::string where = velocity_form + ":17:18: warning: nonholonomic constraint 1 is integrable";
  if (r.err.find(where) != 0) fail_msg("stderr: %s", r.err.c_str());
  check(r.err.find("holonomic = [\"x - y - (its initial value)\"]") != std::string::npos, "stderr: %s",
        r.err.c_str());
}

void genuinely_nonholonomic_ones_get_none(void **) {
  for (auto name : {"knife_edge", "rolling_disk", "rolling_ball"}) {
    Result r = run({lagrangec, "generate", std::string(SPECS_DIR) + "/" + name + ".toml", "-o", group_dir().string()});
    assert_int_equal(r.status, 0);
    assert_string_equal(r.err.c_str(), "");
  }
}

}  // namespace

int main() {
  const CMUnitTest tests[] = {
      cmocka_unit_test(agree_where_the_constraint_is_integrable),
      cmocka_unit_test(differ_on_the_knife_edge),
      cmocka_unit_test(integrable_constraint_gets_a_warning),
      cmocka_unit_test(genuinely_nonholonomic_ones_get_none),
  };
  return cmocka_run_group_tests(tests, group_dir_setup, group_dir_teardown);
}
