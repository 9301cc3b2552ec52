// test_simulate_cli.cpp — `lagrangec simulate` as a user runs it: generate,
// compile into the cache, run; the acceptance figures for the
// knife-edge dumbbell and the Cartesian pendulum; the cache reused; errors.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "process.hpp"

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

namespace fs = std::filesystem;

namespace {

const std::string lagrangec = LAGRANGEC;

std::string spec(const char *name) { return std::string(SPECS_DIR) + "/" + name + ".toml"; }

Result simulate(std::vector<std::string> args) {
  args.insert(args.begin(), {lagrangec, "simulate"});
  return run(args, {"LAGRANGEC_CACHE=" + group_dir().string()});
}

// The number after "LABEL ...:" on the summary line that starts with LABEL.
double summary_value(const std::string &summary, const std::string &label) {
  std::istringstream in(summary);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(label, 0) == 0) return std::strtod(line.c_str() + line.find(':') + 1, nullptr);
  fail_msg("no '%s' line in the summary:\n%s", label.c_str(), summary.c_str());
  return 0;
}

// Issue 3's acceptance run: m = l = 1; x' = 1, phi' = 1; t to 100, RK4,
// h = 1e-3, velocity correction: max |g| <= 1e-12, energy drift <= 1e-9.
void knife_edge_meets_its_bounds_and_writes_csv_and_png(void **) {
  fs::path out = scratch("out");
  Result r = simulate({spec("knife_edge"), "--t-end", "100", "--dt", "1e-3", "--project", "velocity", "--out",
                       (out / "k.csv").string(), "--plot", (out / "k.png").string()});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_true(summary_value(r.out, "max |g|") <= 1e-12);
  assert_true(summary_value(r.out, "energy drift") <= 1e-9);
  assert_true(summary_value(r.out, "steps") == 100000);
  std::ifstream csv(out / "k.csv");
  std::string header, line, last;
  std::getline(csv, header);
  assert_string_equal(header.c_str(), "t,x,y,phi,x',y',phi',g1,energy,mu1,Fc_x,Fc_y,Fc_phi");
  int rows = 0;
  while (std::getline(csv, line)) ++rows, last = line;
  assert_true(rows >= 1001);
  assert_true(std::strtod(last.c_str(), nullptr) == 100.0);
  assert_true(slurp(out / "k.png").compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  fs::remove_all(out);
}

// 10^6 RK4 steps of the Cartesian pendulum with full correction: max |phi| <= 1e-12.
void pendulum_full_correction_stays_on_the_circle(void **) {
  Result r = simulate({spec("pendulum"), "--t-end", "1000", "--dt", "1e-3", "--project", "full"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_true(summary_value(r.out, "steps") == 1e6);
  assert_true(summary_value(r.out, "max |phi|") <= 1e-12);
}

void second_run_reuses_the_compiled_simulator(void **) {
  assert_int_equal(simulate({spec("double_pendulum"), "--t-end", "0.1", "--quiet"}).status, 0);
  int entries = 0;
  fs::path exe;
  for (auto &e : fs::directory_iterator(group_dir()))
    if (e.path().filename().string().rfind("double_pendulum-", 0) == 0) ++entries, exe = e.path() / "double_pendulum";
  assert_int_equal(entries, 1);
  auto built = fs::last_write_time(exe);
  assert_int_equal(simulate({spec("double_pendulum"), "--t-end", "0.1", "--quiet"}).status, 0);
  assert_true(fs::last_write_time(exe) == built);
}

// A run that fails (a force that is NaN from t = 1/4) exits 1, says when and
// why, and leaves a CSV of whole lines with no NaN, up to the failure.
void a_failed_run_says_when_and_keeps_its_csv(void **) {
  fs::path csv = group_dir() / "nan_force.csv";
  Result r = simulate({std::string(RUNTIME_SPECS_DIR) + "/nan_force.toml", "--t-end", "1", "--dt", "1e-3",
                       "--sample", "0.01", "--out", csv.string()});
  assert_int_equal(r.status, 1);
  assert_true(r.err.find("t = 0.25") != std::string::npos);
  assert_true(r.err.find("non-finite") != std::string::npos);
  std::string text = slurp(csv);
  assert_true(!text.empty() && text.back() == '\n');
  assert_true(text.find("nan") == std::string::npos && text.find("inf") == std::string::npos);
  std::istringstream lines(text);
  std::string header, line, last;
  std::getline(lines, header);
  size_t columns = std::count(header.begin(), header.end(), ',');
  int rows = 0;
  while (std::getline(lines, line)) {
    assert_int_equal(std::count(line.begin(), line.end(), ','), columns);
    ++rows, last = line;
  }
  assert_true(rows >= 26);  // every sample up to t = 0.25, where the force is still sqrt(0)
  assert_true(std::strtod(last.c_str(), nullptr) <= 0.25);
}

void mistakes_get_a_message_and_an_exit_status(void **) {
  Result unknown = simulate({spec("pendulum"), "--param", "mass=2"});
  assert_int_equal(unknown.status, 2);
  assert_true(unknown.err.find("mass") != std::string::npos);
  assert_true(unknown.err.find("m, l, g") != std::string::npos);
  assert_int_equal(simulate({spec("pendulum"), "--method", "euler"}).status, 2);
  fs::path bad = scratch("bad") / "typo.toml";
  std::ofstream(bad) << "name = \"typo\"\ncoordinates = [\"x\"]\nkinetic = \"x'^2/2 +\"\n";
  Result typo = simulate({bad.string()});
  assert_int_equal(typo.status, 1);
  assert_true(typo.err.rfind(bad.string() + ":3:", 0) == 0);
  fs::remove_all(bad.parent_path());
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(knife_edge_meets_its_bounds_and_writes_csv_and_png),
      cmocka_unit_test(pendulum_full_correction_stays_on_the_circle),
      cmocka_unit_test(second_run_reuses_the_compiled_simulator),
      cmocka_unit_test(a_failed_run_says_when_and_keeps_its_csv),
      cmocka_unit_test(mistakes_get_a_message_and_an_exit_status),
  };
  return cmocka_run_group_tests(tests, group_dir_setup, group_dir_teardown);
}
