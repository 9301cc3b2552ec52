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

// A run that fails: the misbehaving specs of tests/runtime/specs, one per
// runtime fault, each run as a user would, to t_end with samples every 0.01.
struct Fault {
  const char *spec;
  std::vector<std::string> options;
  const char *when;    // how the message starts after "lagrangec: "
  double t_fail;       // the fault's time, the last sample's bound
  const char *reason;  // a phrase of the fault's own message
};

const Fault faults[] = {
    {"mass_runs_out", {"--t-end", "2", "--dt", "1e-3"}, "t = 0.999:", 0.999, "mass matrix singular"},
    {"nan_force", {"--t-end", "1", "--dt", "1e-3"}, "t = 0.25:", 0.25, "non-finite value"},
    {"rank_lost", {"--t-end", "1", "--dt", "1e-3"}, "t = 0.499:", 0.499, "constraint Jacobian lost rank"},
    {"blow_up", {"--t-end", "2"}, "t = 1:", 0.9999, "step size underflow"},  // 1 - 2e-12
    {"runaway", {"--t-end", "10", "--rtol", "0", "--atol", "1e-12"}, "t = 8.41", 8.41, "tolerance unreachable"},
    {"shrinking_rod", {"--t-end", "2", "--dt", "1e-3", "--project", "full"}, "t = 1:", 1.0,
     "projection did not converge"},
};

// Each exits 1, says when and why, and leaves a CSV of whole lines with no
// NaN or Inf holding every sample up to the failure.
void a_failed_run_says_when_and_keeps_its_csv(void **) {
  for (const Fault &f : faults) {
    fs::path csv = group_dir() / (std::string(f.spec) + ".csv");
    std::vector<std::string> args{std::string(RUNTIME_SPECS_DIR) + "/" + f.spec + ".toml", "--sample", "0.01",
                                  "--out", csv.string(), "--quiet"};
    args.insert(args.end(), f.options.begin(), f.options.end());
    Result r = simulate(args);
    print_message("%s: exit %d, %s", f.spec, r.status, r.err.c_str());
    assert_int_equal(r.status, 1);
    assert_true(r.err.find(std::string("lagrangec: ") + f.when) == 0);
    assert_true(r.err.find(f.reason) != std::string::npos);
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
    assert_true(rows >= static_cast<int>(f.t_fail / 0.01 + 1e-9) + 1);  // the samples at 0, 0.01, ... up to t_fail
    assert_true(std::strtod(last.c_str(), nullptr) <= f.t_fail);
  }
}

void mistakes_get_a_message_and_an_exit_status(void **) {
  Result unknown = simulate({spec("pendulum"), "--param", "mass=2"});
  assert_int_equal(unknown.status, 2);
  assert_true(unknown.err.find("mass") != std::string::npos);
  assert_true(unknown.err.find("m, l, g") != std::string::npos);
  assert_int_equal(simulate({spec("pendulum"), "--method", "euler"}).status, 2);
  assert_int_equal(simulate({spec("pendulum"), "--rtol", "0", "--atol", "0"}).status, 2);
  // Runs that would never end, or start from NaN, are refused before they start.
  assert_int_equal(simulate({spec("pendulum"), "--t-end", "inf"}).status, 2);
  assert_int_equal(simulate({spec("pendulum"), "--dt", "1e-300"}).status, 2);
  assert_int_equal(simulate({spec("pendulum"), "--sample", "1e-300"}).status, 2);
  assert_int_equal(simulate({spec("pendulum"), "--init", "x=nan"}).status, 2);
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
