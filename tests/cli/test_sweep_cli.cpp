// test_sweep_cli.cpp — `lagrangec sweep` as a user runs it: the same bytes
// from one worker, two, and three MPI ranks, with a failing run among them;
// each run the run `lagrangec simulate` makes of the same values, for both
// formulations, every stepper and correction; Monte-Carlo values that
// depend on the seed, the run and the name alone; a killed sweep resumed to
// the same bytes; shards merged into the whole; faults kept in their runs;
// simulate's --max-step passed to every run and kept in sweep.txt;
// each output's final, min and max, and the index's statistics (summary.csv);
// the bad-table catalogue (tests/gen/bad_runs) and other mistakes refused
// before anything runs; --plot's histogram of a result.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <sys/stat.h>
#include <unistd.h>

#include "json.hpp"
#include "process.hpp"

#include "cli.hpp"  // last: cmocka defines a macro `fail`
#include "check.h"

namespace fs = std::filesystem;

namespace {

const std::string lagrangec = LAGRANGEC;


Result sweep(std::vector<std::string> args) {
  args.insert(args.begin(), {lagrangec, "sweep"});
  return run(args, cache_env());
}

Result simulate(std::vector<std::string> args) {
  args.insert(args.begin(), {lagrangec, "simulate"});
  return run(args, cache_env());
}

fs::path write_file(const std::string &name, const std::string &text) {
  fs::path p = group_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::vector<std::string> fields_of(const std::string &line) {
  std::vector<std::string> fields;
  std::string f;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) fields.push_back(f), f.clear();
    else f += c;
  }
  fields.push_back(f);
  return fields;
}

// The index as rows of fields by column name.
std::vector<std::map<std::string, std::string>> index_of(const fs::path &dir) {
  std::vector<std::string> lines = lines_of(slurp(dir / "runs.csv"));
  if (lines.empty()) fail_msg("%s/runs.csv is empty or missing", dir.c_str());
  std::vector<std::string> header = fields_of(lines[0]);
  std::vector<std::map<std::string, std::string>> rows;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> f = fields_of(lines[i]);
    if (f.size() != header.size())
      fail_msg("%s/runs.csv line %zu has %zu fields, the header %zu", dir.c_str(), i + 1, f.size(), header.size());
    std::map<std::string, std::string> row;
    for (size_t j = 0; j < f.size(); ++j) row[header[j]] = f[j];
    rows.push_back(row);
  }
  return rows;
}

// Every file under dir (hidden ones too), by relative path, with its bytes.
std::map<std::string, std::string> tree(const fs::path &dir) {
  std::map<std::string, std::string> files;
  for (auto &e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = slurp(e.path());
  return files;
}

void assert_same_tree(const fs::path &a, const fs::path &b) {
  auto ta = tree(a), tb = tree(b);
  for (auto &[name, bytes] : ta) {
    auto it = tb.find(name);
    if (it == tb.end()) fail_msg("%s has %s, %s has not", a.c_str(), name.c_str(), b.c_str());
    if (it->second != bytes) fail_msg("%s differs between %s and %s", name.c_str(), a.c_str(), b.c_str());
  }
  for (auto &[name, bytes] : tb)
    if (!ta.count(name)) fail_msg("%s has %s, %s has not", b.c_str(), name.c_str(), a.c_str());
  check(ta.size() > 2, "%s holds %zu files", a.c_str(), ta.size());
}

// Twelve double pendulums: masses and rod lengths from a table; run 7 has
// no mass at the first bob, and fails.
fs::path double_pendulum_runs() {
  std::string text = "m1,m2,l2\n";
  for (int k = 1; k <= 12; ++k)
    text += (k == 7 ? std::string("0") : std::to_string(0.5 + 0.1 * k)) + "," + std::to_string(1.0 + 0.05 * k) +
            ",1\n";
  return write_file("double_pendulum_runs.csv", text);
}

const std::vector<std::string> kShort = {"--t-end", "0.5", "--dt", "1e-2", "--sample", "0.05"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void assert_failed_one_of(const Result &r, int failed, int runs) {
  if (r.status != 1) fail_msg("exit %d, expected 1:\n%s", r.status, r.err.c_str());
  assert_contains(r.err, std::to_string(failed) + " of " + std::to_string(runs) + " runs failed");
}

// Issue 16's test: -j 1, -j 2 and three MPI ranks write the same bytes, a
// failing run among the others; under mpirun the ranks share the runs
// (the runs done, summed over the ranks, are the runs, not three times them).
void workers_and_ranks_write_the_same_bytes(void **) {
  fs::path runs = double_pendulum_runs(), one = group_dir() / "one", two = group_dir() / "two";
  auto args = with({spec("double_pendulum"), "--runs", runs.string()}, kShort);
  assert_failed_one_of(sweep(with(args, {"--out", one.string(), "-j", "1"})), 1, 12);
  assert_failed_one_of(sweep(with(args, {"--out", two.string(), "-j", "2"})), 1, 12);
  assert_same_tree(one, two);
  auto rows = index_of(one);
  assert_int_equal(rows.size(), 12);
  for (size_t k = 0; k < rows.size(); ++k) {
    assert_string_equal(rows[k]["run"].c_str(), std::to_string(k + 1).c_str());
    assert_string_equal(rows[k]["status"].c_str(), k == 6 ? "fault" : "ok");
  }
  assert_string_equal(rows[6]["fault"].c_str(), "mass matrix singular (not positive definite)");
  assert_string_equal(rows[6]["fault t"].c_str(), "0");
  assert_string_equal(rows[0]["steps"].c_str(), "50");
  assert_string_equal(rows[0]["final t"].c_str(), "0.5");
#if WITH_MPI
  fs::path ranks = group_dir() / "ranks";
  std::vector<std::string> env = cache_env();
  env.insert(env.end(), {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"});
  Result r = run(with({MPIRUN, "--oversubscribe", "-np", "3", lagrangec, "sweep"},
                      with(args, {"--out", ranks.string()})),
                 env);
  assert_contains(r.err, "1 of 12 runs failed");
  assert_contains(r.err, "(12 of them run now");
  check(r.status != 0, "mpirun exited 0 with a failed run:\n%s", r.err.c_str());
  assert_same_tree(one, ranks);
#else
  print_message("MPI: not built (-Dmpi=disabled): the mpirun part is skipped\n");
#endif
}

// Each run of a sweep is the run simulate makes of its values: the same
// trajectory, byte for byte, and the same steps, residuals and energy
// drift, for both formulations, every method, every correction and metric.
void each_run_is_the_simulate_run_of_its_values(void **) {
  fs::path runs = write_file("knife_edge_runs.csv", "m,x',phi'\n1,1,1\n2,0.5,-1\n");
  const std::vector<std::vector<std::string>> values = {{"--param", "m=1", "--init", "x'=1", "--init", "phi'=1"},
                                                        {"--param", "m=2", "--init", "x'=0.5", "--init", "phi'=-1"}};
  int variant = 0;
  for (const char *formulation : {"dalembert", "vakonomic"})
    for (const std::vector<std::string> &method : {std::vector<std::string>{"--dt", "1e-2"},
                                                   std::vector<std::string>{"--method", "dopri5", "--rtol", "1e-6"},
                                                   std::vector<std::string>{"--method", "adams", "--rtol", "1e-6"},
                                                   std::vector<std::string>{"--method", "bdf", "--rtol", "1e-6"}})
      for (const std::vector<std::string> &correction :
           {std::vector<std::string>{"--project", "none"}, {"--project", "velocity"}, {"--project", "full"},
            {"--project", "full", "--metric", "mass"}}) {
        std::vector<std::string> options = with(with({"--formulation", formulation, "--t-end", "0.5"}, method), correction);
        fs::path out = group_dir() / ("variant" + std::to_string(++variant));
        Result r = sweep(with({spec("knife_edge"), "--runs", runs.string(), "--out", out.string(), "-j", "2"}, options));
        if (r.status != 0) fail_msg("%s: exit %d:\n%s", out.c_str(), r.status, r.err.c_str());
        auto rows = index_of(out);
        for (size_t k = 0; k < values.size(); ++k) {
          fs::path csv = out / ("simulate" + std::to_string(k + 1) + ".csv");
          Result s = simulate(with(with({spec("knife_edge"), "--out", csv.string(), "--summary-json", "-"}, options),
                                   values[k]));
          if (s.status != 0) fail_msg("simulate: exit %d:\n%s", s.status, s.err.c_str());
          char name[32];
          std::snprintf(name, sizeof name, "run/%06zu.csv", k + 1);
          check(slurp(out / name) == slurp(csv), "%s/%s is not simulate's CSV of the same values", out.c_str(), name);
          json::Value summary = json::parse(s.out);
          auto same = [&](const std::string &column, double v) {
            double got = std::strtod(rows[k][column].c_str(), nullptr);
            check(got == v, "%s run %zu: %s = %.17g, simulate says %.17g", out.c_str(), k + 1, column.c_str(), got, v);
          };
          same("steps", summary["steps"].num());
          same("max |g[1]|", summary["max_g"].num());
          same("energy drift", summary["energy_drift"].num());
          same("final phi'", summary["final_state"]["phi'"].num());
        }
      }
}

// Type 7 quantile p of sorted values: x[h] interpolated at h = (n - 1) p.
double quantile7(const std::vector<double> &x, double p) {
  double h = (x.size() - 1) * p;
  size_t lo = size_t(std::floor(h));
  return lo + 1 < x.size() ? x[lo] + (h - lo) * (x[lo + 1] - x[lo]) : x.back();
}

// Each [outputs] column's final, min and max per run are simulate's for the
// same values; summary.csv and summary.json hold count, failures, mean, sd
// (n - 1) and type 7 quantiles of every numeric column over the ok runs,
// worked here again from runs.csv; a failing run (no mass) is a failure.
void outputs_and_statistics_are_in_the_results(void **) {
  fs::path runs = write_file("sphere_runs.csv", "theta0,m\n0.1,1\n0.2,1\n0.3,0\n0.25,1\n0.15,2\n");
  fs::path out = group_dir() / "statistics";
  const std::vector<std::string> options = {"--t-end", "1", "--dt", "1e-2"};
  Result r = sweep(with({spec("sphere"), "--runs", runs.string(), "--out", out.string()}, options));
  assert_failed_one_of(r, 1, 5);
  auto rows = index_of(out);
  for (const char *theta0 : {"0.1", "0.2"}) {
    size_t k = std::string(theta0) == "0.1" ? 0 : 1;
    Result s = simulate(with({spec("sphere"), "--param", std::string("theta0=") + theta0, "--out",
                              (group_dir() / "sphere_one.csv").string(), "--summary-json", "-"}, options));
    if (s.status != 0) fail_msg("simulate: exit %d:\n%s", s.status, s.err.c_str());
    json::Value summary = json::parse(s.out);
    for (const char *name : {"cos_theta", "normal_force"})
      for (const char *what : {"final", "min", "max"}) {
        std::string column = std::string(what) + " " + name;
        if (!rows[k].count(column)) fail_msg("runs.csv has no column '%s'", column.c_str());
        double got = std::strtod(rows[k][column].c_str(), nullptr), want = summary["outputs"][name][what].num();
        check(got == want, "run %zu: %s = %.17g, simulate says %.17g", k + 1, column.c_str(), got, want);
      }
  }
  check(rows[2]["status"] == "fault" && rows[2]["final cos_theta"].empty(), "run 3: status %s, final cos_theta '%s'",
        rows[2]["status"].c_str(), rows[2]["final cos_theta"].c_str());

  std::vector<std::string> lines = lines_of(slurp(out / "summary.csv"));
  check(!lines.empty() && lines[0] == "column,count,failures,mean,sd,min,q05,q25,median,q75,q95,max",
        "summary.csv header: '%s'", lines.empty() ? "" : lines[0].c_str());
  json::Value js = json::parse(slurp(out / "summary.json"));
  assert_int_equal(long(js["runs"].num()), 5);
  assert_int_equal(long(js["failures"].num()), 1);
  std::vector<std::string> header = fields_of(slurp(out / "runs.csv").substr(0, slurp(out / "runs.csv").find('\n')));
  check(lines.size() == header.size() - 4 + 1, "summary.csv has %zu rows, runs.csv %zu numeric columns",
        lines.size() - 1, header.size() - 4);
  const char *stat_names[] = {"min", "q05", "q25", "median", "q75", "q95", "max"};
  const double ps[] = {0, 0.05, 0.25, 0.5, 0.75, 0.95, 1};
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> f = fields_of(lines[i]);
    const std::string &column = f[0];
    std::vector<double> x;
    for (auto &row : rows)
      if (row["status"] == "ok" && !row[column].empty()) x.push_back(std::strtod(row[column].c_str(), nullptr));
    std::sort(x.begin(), x.end());
    check(std::stoul(f[1]) == x.size() && f[2] == "1", "%s: count %s, failures %s; runs.csv has %zu ok values",
          column.c_str(), f[1].c_str(), f[2].c_str(), x.size());
    if (x.empty()) continue;
    double mean = 0, ss = 0;
    for (double v : x) mean += v / x.size();
    for (double v : x) ss += (v - mean) * (v - mean);
    std::vector<double> want = {mean, std::sqrt(ss / (x.size() - 1))};
    for (double p : ps) want.push_back(quantile7(x, p));
    const json::Value &c = js["columns"][column];
    const char *json_names[] = {"mean", "sd"};
    for (size_t j = 0; j < want.size(); ++j) {
      double got = std::strtod(f[3 + j].c_str(), nullptr), scale = std::max(1.0, std::fabs(want[j]));
      const char *name = j < 2 ? json_names[j] : stat_names[j - 2];
      check(std::fabs(got - want[j]) <= 1e-14 * scale, "%s %s: %.17g, expected %.17g", column.c_str(), name, got,
            want[j]);
      check(c[name].num() == got, "summary.json %s %s: %.17g, summary.csv %.17g", column.c_str(), name,
            c[name].num(), got);
    }
  }
}

// --max-step reaches every run (each the simulate run of its values, the
// thrown ball's crossings found), and sweep.txt keeps it: a sweep into the
// directory with another bound, or none, is another sweep.
void the_maximum_step_reaches_every_run(void **) {
  fs::path runs = write_file("throw_runs.csv", "v0\n5\n4.5\n"), out = group_dir() / "bounded";
  const std::vector<std::string> options = {"--method", "dopri5", "--t-end", "1", "--max-step", "0.1"};
  Result r = sweep(with({test_spec("throw"), "--runs", runs.string(), "--out", out.string(), "-j", "2"}, options));
  if (r.status != 0) fail_msg("exit %d:\n%s", r.status, r.err.c_str());
  assert_contains(slurp(out / "sweep.txt"), "\nmax-step 0.10000000000000001\n");
  auto rows = index_of(out);
  for (int k = 1; k <= 2; ++k) {
    fs::path csv = group_dir() / ("throw" + std::to_string(k) + ".csv");
    Result s = simulate(with({test_spec("throw"), "--param", k == 1 ? "v0=5" : "v0=4.5", "--out", csv.string(),
                              "--summary-json", "-"}, options));
    if (s.status != 0) fail_msg("simulate: exit %d:\n%s", s.status, s.err.c_str());
    char name[32];
    std::snprintf(name, sizeof name, "run/%06d.csv", k);
    check(slurp(out / name) == slurp(csv), "%s/%s is not simulate's CSV of the same values", out.c_str(), name);
    json::Value summary = json::parse(s.out);
    assert_le(summary["h_max"].num(), 0.1 + 4 * 2.2e-16);
    assert_int_equal(long(summary["events"]["up"]["count"].num()), 1);
    assert_int_equal(long(summary["events"]["down"]["count"].num()), 1);
    check(std::strtod(rows[k - 1]["steps"].c_str(), nullptr) == summary["steps"].num(), "run %d: %s steps, simulate %g",
          k, rows[k - 1]["steps"].c_str(), summary["steps"].num());
  }
  for (auto other : {std::vector<std::string>{"--max-step", "0.2"}, std::vector<std::string>{}}) {
    std::vector<std::string> args = {test_spec("throw"), "--runs", runs.string(), "--out", out.string(),
                                     "--method", "dopri5", "--t-end", "1"};
    Result again = sweep(with(args, other));
    assert_int_equal(again.status, 2);
    assert_contains(again.err, out.string() + " holds another sweep");
  }
}

// run k's values: from the seed, k and the name alone, whatever N, -j, the
// shard or the order of the --vary options.
void monte_carlo_values_are_the_runs_own(void **) {
  auto values = [](const fs::path &dir) {
    std::map<std::string, std::string> v;
    for (auto &row : index_of(dir)) v[row["run"]] = row["m1"] + " " + row["l2"];
    return v;
  };
  auto mc = [](const char *name, std::vector<std::string> more) {
    fs::path out = group_dir() / name;
    Result r = sweep(with(with({spec("double_pendulum"), "--seed", "42", "--consistent", "--no-trajectories",
                                "--out", out.string()},
                               kShort),
                          more));
    if (r.status != 0) fail_msg("%s: exit %d:\n%s", name, r.status, r.err.c_str());
    return out;
  };
  const std::vector<std::string> m1 = {"--vary", "m1=normal(1,0.1)"}, l2 = {"--vary", "l2=uniform(0.9,1.1)"};
  auto all = values(mc("mc12", with(with({"--samples", "12", "-j", "2"}, m1), l2)));
  auto first = values(mc("mc5", with(with({"--samples", "5", "-j", "1"}, l2), m1)));
  auto shard = values(mc("mc-shard", with(with({"--samples", "12", "--shard", "2/3"}, m1), l2)));
  assert_int_equal(all.size(), 12);
  assert_int_equal(first.size(), 5);
  assert_int_equal(shard.size(), 4);
  for (auto &[run, v] : first)
    check(all[run] == v, "run %s: %s of 12 runs, %s of 5", run.c_str(), all[run].c_str(), v.c_str());
  for (auto &[run, v] : shard) {
    check((std::stoi(run) - 1) % 3 == 1, "run %s is not in shard 2/3", run.c_str());
    check(all[run] == v, "run %s: %s of all, %s of shard 2/3", run.c_str(), all[run].c_str(), v.c_str());
  }
  std::set<std::string> distinct;
  for (auto &[run, v] : all) distinct.insert(v);
  assert_int_equal(distinct.size(), 12);
  auto seeded = values(mc("mc-seed", {"--samples", "2", "--seed", "43", "--vary", "m1=normal(1,0.1)",
                                      "--vary", "l2=uniform(0.9,1.1)"}));
  check(seeded["1"] != all["1"], "seed 43 drew seed 42's run 1: %s", all["1"].c_str());
}

// The journals of a sweep's directory, and the offset of the last whole
// record ("LEN HASH LINE") of one: where a write killed mid-way would tear it.
std::vector<fs::path> journals(const fs::path &dir) {
  std::vector<fs::path> found;
  if (fs::exists(dir / "run"))
    for (auto &e : fs::directory_iterator(dir / "run"))
      if (e.path().extension() == ".journal") found.push_back(e.path());
  return found;
}

// A journal's whole records: where each one's line starts, and the line.
std::vector<std::pair<size_t, std::string>> records(const std::string &journal) {
  std::vector<std::pair<size_t, std::string>> found;
  size_t at = 0;
  while (at < journal.size()) {
    size_t space = journal.find(' ', at);
    if (space == std::string::npos || space + 18 > journal.size()) break;
    size_t len = std::stoul(journal.substr(at, space - at)), start = space + 18;
    if (start + len > journal.size()) break;
    found.emplace_back(start, journal.substr(start, len));
    at = start + len;
  }
  return found;
}

ino_t inode(const fs::path &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 ? st.st_ino : 0;
}

// A sweep killed mid-way (SIGKILL: no handler runs, temporaries stay), the
// last record of one of its journals then torn as a write cut short would
// leave it, and run again: it ends with the bytes of one never
// interrupted, the torn record's run redone and the others kept.
void a_killed_sweep_resumes_to_the_same_bytes(void **) {
  auto args = [](const fs::path &out) {
    return std::vector<std::string>{lagrangec, "sweep", spec("double_pendulum"), "--samples", "60", "--vary",
                                    "m1=normal(1,0.1)", "--t-end", "20", "--dt", "1e-3", "--sample", "0.5",
                                    "-j", "2", "--out", out.string(), "--quiet"};
  };
  fs::path whole = group_dir() / "whole", killed = group_dir() / "killed";
  Result r = run(args(whole), cache_env());
  if (r.status != 0) fail_msg("exit %d:\n%s", r.status, r.err.c_str());
  check(journals(whole).empty(), "%zu journals left in %s", journals(whole).size(), whole.c_str());
  Started s = start(args(killed), cache_env(), true);
  auto trajectories = [&] {
    size_t n = 0;
    if (fs::exists(killed / "run"))
      for (auto &e : fs::directory_iterator(killed / "run"))
        n += e.path().extension() == ".csv" && e.path().filename().string()[0] != '.';
    return n;
  };
  for (int i = 0; i < 3000 && trajectories() < 6; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(-s.pid, SIGKILL);
  Result k = finish(s);
  assert_int_equal(k.status, 128 + SIGKILL);
  size_t done = trajectories();
  check(done >= 6 && done < 60 && !fs::exists(killed / "runs.csv"),
        "killed with %zu of 60 runs done (runs.csv %s): not mid-way", done,
        fs::exists(killed / "runs.csv") ? "written" : "absent");
  // Tear the last whole record of a journal halfway through its line; keep the others.
  std::string torn_run, kept_run;
  for (auto &j : journals(killed)) {
    std::ifstream in(j, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto found = records(text);
    for (size_t i = 0; i < found.size(); ++i) {
      std::string run = found[i].second.substr(0, found[i].second.find(','));
      if (torn_run.empty() && i + 1 == found.size()) {
        torn_run = run;
        in.close();
        fs::resize_file(j, found[i].first + found[i].second.size() / 2);
      } else if (kept_run.empty()) {
        kept_run = run;
      }
    }
  }
  check(!torn_run.empty() && !kept_run.empty(), "no two records in the journals of %s (torn run '%s', kept '%s')",
        killed.c_str(), torn_run.c_str(), kept_run.c_str());
  auto trajectory = [&](const std::string &run) {
    char name[16];
    snprintf(name, sizeof name, "%06lu.csv", std::stoul(run));
    return killed / "run" / name;
  };
  auto torn_inode = fs::exists(trajectory(torn_run)) ? inode(trajectory(torn_run)) : 0;
  auto kept_inode = inode(trajectory(kept_run));
  r = run(args(killed), cache_env());
  if (r.status != 0) fail_msg("the rerun: exit %d:\n%s", r.status, r.err.c_str());
  check(inode(trajectory(torn_run)) != torn_inode, "run %s, its record torn, was not redone", torn_run.c_str());
  check(inode(trajectory(kept_run)) == kept_inode, "run %s, its record whole, was redone", kept_run.c_str());
  assert_same_tree(whole, killed);
}

#if WITH_MPI
// ASAN_OPTIONS as this test has them, and `more`: in a sanitized build only.
std::vector<std::string> sanitizer_options(const std::string &more) {
  if (!kSanitized) return {};
  const char *asan = getenv("ASAN_OPTIONS");
  return {std::string("ASAN_OPTIONS=") + (asan ? std::string(asan) + ":" : "") + more};
}

std::vector<std::string> mpi_env(const fs::path &cache) {
  // Open MPI leaves its own allocations (libmpi's, and those of components it
  // has unloaded) at exit; lagrangec's are checked by the sweeps without MPI.
  return with({"LAGRANGEC_CACHE=" + cache.string(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"},
              sanitizer_options("detect_leaks=0"));
}

// mpirun, bounded: a run that hangs ends in timeout's status 124 (and a
// KILL 10 s later), a failure of this test instead of a CI job that never ends.
std::vector<std::string> bounded_mpirun(int seconds, int ranks, const std::vector<std::string> &sweep_args) {
  return with({"timeout", "-k", "10", std::to_string(seconds), MPIRUN, "--oversubscribe", "-np", std::to_string(ranks),
               lagrangec, "sweep"},
              sweep_args);
}

// The processes of ranks at work in out: the model's programs, whose argv[0]
// lagrangec sets to "lagrangec sweep SPEC".
std::vector<pid_t> ranks_in(const fs::path &out) {
  std::vector<pid_t> pids;
  for (auto &e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.rfind("lagrangec sweep ", 0) == 0 && cmdline.find(out.string() + '\0') != std::string::npos)
      pids.push_back(pid_t(std::stol(name)));
  }
  return pids;
}
#endif

// The cluster path: mpirun on a cold cache never hangs (the rank that
// builds the program checks it without the launcher's environment, so the
// check is no rank of the job), two ranks and three, each on a cache of its
// own and bounded by a timeout, with the bytes of -j 1; and a rank killed
// mid-sweep brings the job down, and the same command then finishes it.
void mpirun_on_a_cold_cache_never_hangs(void **) {
#if WITH_MPI
  fs::path runs = double_pendulum_runs(), one = group_dir() / "cold-one";
  auto args = with({spec("double_pendulum"), "--runs", runs.string(), "--quiet"}, kShort);
  assert_failed_one_of(sweep(with(args, {"--out", one.string(), "-j", "1"})), 1, 12);
  for (int ranks : {2, 3})
    for (int attempt = 0; attempt < 3; ++attempt) {
      fs::path cache = scratch("cold-cache"), out = group_dir() / ("cold-" + std::to_string(ranks) + "-" +
                                                                   std::to_string(attempt));
      auto begin = std::chrono::steady_clock::now();
      Result r = run(bounded_mpirun(240, ranks, with(args, {"--out", out.string()})), mpi_env(cache));
      double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      print_message("mpirun -np %d on a cold cache, attempt %d: %.2f s\n", ranks, attempt + 1, took);
      check(r.status != 124 && took < 200, "mpirun -np %d on a cold cache (attempt %d) hung (exit %d after %.1f s):\n%s",
            ranks, attempt + 1, r.status, took, r.err.c_str());
      check(r.status != 0 && r.err.find("1 of 12 runs failed") != std::string::npos,
            "mpirun -np %d (attempt %d): exit %d:\n%s", ranks, attempt + 1, r.status, r.err.c_str());
      assert_same_tree(one, out);
      fs::remove_all(cache);
    }

  // A rank whose lagrangec fails (its cache cannot be made) brings the job down with its message.
  {
    fs::path cache = scratch("rank-cache"), blocked = group_dir() / "not-a-directory", out = group_dir() / "rank-fails";
    write_file(blocked.filename().string(), "");
    std::vector<std::string> sh = {"timeout", "-k", "10", "240", MPIRUN, "--oversubscribe", "-np", "2", "sh", "-c",
                                   "[ \"$OMPI_COMM_WORLD_RANK\" = 1 ] && export LAGRANGEC_CACHE=" + blocked.string() +
                                       "/cache; exec \"$0\" \"$@\"",
                                   lagrangec, "sweep"};
    auto begin = std::chrono::steady_clock::now();
    Result r = run(with(sh, with(args, {"--out", out.string()})), mpi_env(cache));
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    check(r.status != 0 && r.status != 124 && took < 200, "a failing rank: exit %d after %.1f s:\n%s", r.status, took,
          r.err.c_str());
    assert_contains(r.err, "lagrangec: cannot create the directory " + blocked.string() + "/cache");
    check(!fs::exists(out / "runs.csv"), "a job with a failed rank wrote its index");
    fs::remove_all(cache);
  }

  // A rank killed mid-sweep: the job ends (no rank waits for it for ever), and the same command resumes.
  fs::path whole = group_dir() / "ranks-whole", killed = group_dir() / "ranks-killed", cache = scratch("kill-cache");
  auto long_args = [](const fs::path &out) {
    return std::vector<std::string>{spec("double_pendulum"), "--samples", "40", "--vary", "m1=normal(1,0.1)",
                                    "--t-end", "20", "--dt", "1e-3", "--sample", "0.5", "--out", out.string(),
                                    "--quiet"};
  };
  Result r = run(with({lagrangec, "sweep"}, with(long_args(whole), {"-j", "2"})), mpi_env(cache));
  if (r.status != 0) fail_msg("the whole sweep: exit %d:\n%s", r.status, r.err.c_str());
  Started s = start(bounded_mpirun(240, 2, long_args(killed)), mpi_env(cache), true);
  auto trajectories = [&] {
    size_t n = 0;
    if (fs::exists(killed / "run"))
      for (auto &e : fs::directory_iterator(killed / "run"))
        n += e.path().extension() == ".csv" && e.path().filename().string()[0] != '.';
    return n;
  };
  for (int i = 0; i < 6000 && trajectories() < 4; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::vector<pid_t> pids = ranks_in(killed);
  check(pids.size() == 2, "%zu ranks at work in %s, expected 2", pids.size(), killed.c_str());
  ::kill(pids[0], SIGKILL);
  auto killed_at = std::chrono::steady_clock::now();
  Result k = finish(s);
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed_at).count();
  check(k.status != 0 && k.status != 124 && waited < 200,
        "mpirun after a rank was killed: exit %d after %.1f s (124, or 240 s: it hung):\n%s", k.status, waited,
        k.err.c_str());
  assert_contains(k.err, "exited on signal 9");  // the launcher says which rank ended, and how
  check(!fs::exists(killed / "runs.csv"), "a job that lost a rank wrote its index");
  check(ranks_in(killed).empty(), "ranks still at work in %s after mpirun ended", killed.c_str());
  r = run(bounded_mpirun(240, 2, long_args(killed)), mpi_env(cache));
  if (r.status != 0) fail_msg("the resumed sweep: exit %d:\n%s", r.status, r.err.c_str());
  assert_same_tree(whole, killed);
  fs::remove_all(cache);
#else
  print_message("MPI: not built (-Dmpi=disabled): skipped\n");
  skip();
#endif
}

// Shards into directories of their own, merged: the directory one sweep of
// them all writes. A shard missing is named; other sweeps are not merged.
void shards_merge_into_the_whole(void **) {
  fs::path runs = double_pendulum_runs(), whole = group_dir() / "shards-whole";
  auto args = with({spec("double_pendulum"), "--runs", runs.string(), "--quiet"}, kShort);
  assert_failed_one_of(sweep(with(args, {"--out", whole.string()})), 1, 12);
  std::vector<std::string> parts;
  for (int k = 1; k <= 3; ++k) {
    parts.push_back((group_dir() / ("shard" + std::to_string(k))).string());
    Result r = sweep(with(args, {"--shard", std::to_string(k) + "/3", "--out", parts.back()}));
    check(r.status == (k == 1 ? 1 : 0), "shard %d/3: exit %d:\n%s", k, r.status, r.err.c_str());  // run 7 is shard 1's
    assert_int_equal(index_of(parts.back()).size(), 4);
  }
  fs::path merged = group_dir() / "merged";
  Result m = run({lagrangec, "sweep", "--merge", parts[0], parts[1], parts[2], "--out", merged.string()});
  assert_failed_one_of(m, 1, 12);
  assert_same_tree(whole, merged);

  fs::path partial = group_dir() / "partial";
  m = run({lagrangec, "sweep", "--merge", parts[0], parts[2], "--out", partial.string()});
  assert_int_equal(m.status, 1);
  assert_contains(m.err, "no directory has run 2, 5, 8, 11 (4 of 12 runs");
  check(!fs::exists(partial / "runs.csv"), "%s/runs.csv written without shard 2", partial.c_str());

  fs::path other = group_dir() / "other";
  assert_failed_one_of(sweep(with(with(args, {"--out", other.string()}), {"--param", "g=1"})), 1, 12);
  m = run({lagrangec, "sweep", "--merge", parts[0], other.string(), "--out", (group_dir() / "mixed").string()});
  assert_int_equal(m.status, 2);
  assert_contains(m.err, other.string() + " holds another sweep: its sweep.txt has 'param g 1' where this one has "
                                          "'param g 9.8100000000000005'");
}

// A run that fails is a result like the others, with its status, time and
// reason: a mass that runs out mid-run, a start off the constraints, a
// step-size underflow (every run of a blow-up); the others complete.
void faults_stay_in_their_runs(void **) {
  fs::path out = group_dir() / "faults";
  fs::path runs = write_file("tau.csv", "tau\n2\n0.25\n1.5\n");
  assert_failed_one_of(sweep({test_spec("mass_runs_out"), "--runs", runs.string(), "--t-end", "1", "--dt", "1e-3",
                              "--out", out.string()}),
                       1, 3);
  auto rows = index_of(out);
  assert_string_equal(rows[0]["status"].c_str(), "ok");
  assert_string_equal(rows[2]["status"].c_str(), "ok");
  assert_string_equal(rows[1]["fault"].c_str(), "mass matrix singular (not positive definite)");
  double t = std::strtod(rows[1]["fault t"].c_str(), nullptr);
  check(t > 0.24 && t <= 0.25, "the mass ran out at t = %g, not at tau = 0.25", t);
  check(!rows[1]["final t"].empty(), "a run failed mid-way has no final state: '%s'", rows[1]["final t"].c_str());

  fs::path starts = write_file("lengths.csv", "l1\n1\n2\n");
  out = group_dir() / "starts";
  assert_failed_one_of(sweep({spec("double_pendulum"), "--runs", starts.string(), "--t-end", "0.1", "--out",
                              out.string()}),
                       1, 2);
  rows = index_of(out);
  assert_string_equal(rows[1]["fault"].c_str(),
                      "the initial state violates holonomic constraint 1: x1^2 + y1^2 - l1^2 (phi[1] = -3 at t = 0, "
                      "tolerance 1e-10 relative)");
  size_t lines = lines_of(slurp(out / "run" / "000002.csv")).size();
  check(lines == 1, "a refused start's trajectory has %zu lines, not its header alone", lines);

  fs::path blow = write_file("blow.csv", "x,x'\n1,1\n2,1\n");
  out = group_dir() / "blow";
  assert_failed_one_of(sweep({test_spec("blow_up"), "--runs", blow.string(), "--t-end", "2", "--out", out.string()}),
                       2, 2);
  for (auto &row : index_of(out)) {
    check(row["fault"].rfind("step size underflow", 0) == 0, "run %s: %s", row["run"].c_str(), row["fault"].c_str());
    double at = std::strtod(row["fault t"].c_str(), nullptr);
    check(at > 0.999 && at < 1.0, "run %s: underflow at t = %.17g", row["run"].c_str(), at);
  }
}

// The pendulum's spec starts it at x = l sin(0.5), y = -l cos(0.5): a row
// that sets l starts it there, on its own circle, with no --consistent.
void a_rows_parameters_move_the_initial_values_made_of_them(void **) {
  fs::path runs = write_file("lengths_only.csv", "l\n0.5\n2\n"), out = group_dir() / "lengths";
  Result r = sweep({spec("pendulum"), "--runs", runs.string(), "--t-end", "0.1", "--dt", "1e-2", "--out", out.string()});
  if (r.status != 0) fail_msg("exit %d:\n%s", r.status, r.err.c_str());
  for (int k = 1; k <= 2; ++k) {
    const double l = k == 1 ? 0.5 : 2.0;
    char name[32];
    std::snprintf(name, sizeof name, "run/%06d.csv", k);
    std::vector<std::string> first = fields_of(lines_of(slurp(out / name)).at(1));
    const double x = std::strtod(first.at(1).c_str(), nullptr), y = std::strtod(first.at(2).c_str(), nullptr);
    check(std::fabs(x - l * std::sin(0.5)) < 1e-15 * l && std::fabs(y + l * std::cos(0.5)) < 1e-15 * l,
          "run %d (l = %g) starts at (%.17g, %.17g)", k, l, x, y);
  }
}

// tests/gen/bad_runs/*.csv: line 1 is "# expect: MESSAGE", the exact first
// line of stderr with the table's path written as {file}. Exit 2, and
// nothing made: not even the directory.
void bad_runs_tables_get_their_message_and_run_nothing(void **) {
  int count = 0;
  std::vector<fs::path> files;
  for (auto &e : fs::directory_iterator(BAD_RUNS_DIR)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (auto &f : files) {
    ++count;
    std::string first = lines_of(slurp(f)).at(0);
    if (!first.empty() && first.back() == '\r') first.pop_back();  // crlf.csv
    const std::string tag = "# expect: ";
    if (first.rfind(tag, 0) != 0) fail_msg("%s has no '# expect: ' line", f.c_str());
    std::string expected = first.substr(tag.size());
    if (expected.find("{file}") != std::string::npos) expected.replace(expected.find("{file}"), 6, f.string());
    fs::path out = group_dir() / "bad-out";
    Result r = sweep({spec("double_pendulum"), "--runs", f.string(), "--out", out.string()});
    std::string got = r.err.substr(0, r.err.find('\n'));
    if (r.status != 2 || got != expected)
      fail_msg("%s: exit %d, first line\n  got:      %s\n  expected: %s", f.filename().c_str(), r.status, got.c_str(),
               expected.c_str());
    check(!fs::exists(out), "%s: %s was made", f.filename().c_str(), out.c_str());
  }
  check(count >= 10, "%d bad tables", count);
}

// Mistakes on the command line: a message, exit 2, and nothing made.
void mistakes_are_refused_before_anything_runs(void **) {
  fs::path out = group_dir() / "mistake", runs = double_pendulum_runs();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--samples", "3", "--vary", "m1=normal(1,-1)"}, "--vary:13: error: SIGMA must not be negative"},
      {{"--samples", "3", "--vary", "zz=normal(1,1)"},
       "--vary:1: error: name 'zz': not a parameter, state or input of double_pendulum"},
      {{"--samples", "3", "--vary", "m1=normal(1,1)", "--vary", "m1=uniform(0,1)"},
       "--vary:1: error: name 'm1': it sets what --vary 1, m1, sets"},
      {{"--samples", "0", "--vary", "m1=normal(1,1)"},
       "lagrangec: bad value '0' for --samples: a number of runs from 1 to 1000000000"},
      // 2^61 runs: arrays of that many entries would wrap size_t.
      {{"--samples", "2305843009213693952", "--vary", "m1=normal(1,1)"},
       "lagrangec: bad value '2305843009213693952' for --samples: a number of runs from 1 to 1000000000"},
      // A terminal escape in a name is printed as text.
      {{"--samples", "3", "--vary", "\x1b[31m=normal(1,1)"},
       "--vary:1: error: name '?[31m': not a parameter, state or input of double_pendulum"},
      {{"--samples", "3"}, "lagrangec: --samples needs at least one --vary NAME=DIST"},
      {{"--vary", "m1=normal(1,1)"}, "lagrangec: --vary needs --samples N"},
      {{"--runs", runs.string(), "--samples", "3", "--vary", "m1=normal(1,1)"},
       "lagrangec: --runs, or --samples with --vary: one or the other"},
      {{"--runs", runs.string(), "--shard", "4/3"}, "lagrangec: bad value '4/3' for --shard: K/M with 1 <= K <= M"},
      {{"--runs", runs.string(), "-j", "0"}, "lagrangec: bad value '0' for -j: a number of workers from 1 to 1024"},
      {{"--runs", runs.string(), "--seed", "-1"}, "lagrangec: bad value '-1' for --seed"},
      {{"--runs", runs.string(), "--max-step", "0"}, "lagrangec: bad value '0' for --max-step"},
      {{"--runs", runs.string(), "--max-step", "nan"}, "lagrangec: bad value 'nan' for --max-step"},
      {{"--runs", runs.string(), "--plot-columns", "x1"}, "lagrangec: unknown option '--plot-columns' (see --help)"},
      {{"--runs", runs.string(), "--plot", "x.png", "--plot-column", "x1"},
       "lagrangec: bad value 'x1' for --plot-column: not a numeric column of the index runs.csv"},
      {{"--runs", runs.string(), "--plot-column", "final x1"},
       "lagrangec: --plot-column draws on --plot's picture: give --plot FILE.png"},
      {{"--runs", runs.string(), "--strict"}, "lagrangec: unknown option '--strict' (see --help)"},
      {{"--runs", (group_dir() / "no-such.csv").string()},
       "lagrangec: --runs " + (group_dir() / "no-such.csv").string() + ": No such file or directory"},
  };
  for (auto &[args, message] : cases) {
    std::vector<std::string> argv = with({spec("double_pendulum"), "--out", out.string()}, args);
    Result r = sweep(argv);
    std::string got = r.err.substr(0, r.err.find('\n'));
    if (r.status != 2 || got != message)
      fail_msg("%s: exit %d, first line\n  got:      %s\n  expected: %s", args[1].c_str(), r.status, got.c_str(),
               message.c_str());
    check(!fs::exists(out), "%s was made", out.c_str());
  }
  Result r = sweep({spec("double_pendulum"), "--runs", runs.string()});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "sweep needs --out DIR");
  // A parameter named like a column of the index cannot be a run's value.
  fs::path named = write_file("status.toml", "name = \"spring\"\ncoordinates = [\"x\"]\nkinetic = \"x'^2/2\"\n"
                                             "potential = \"status*x^2/2\"\n[parameters]\nstatus = 1.0\n");
  r = sweep({named.string(), "--samples", "2", "--vary", "status=uniform(1,2)", "--out", out.string()});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "--vary:1: error: name 'status': the name of a column of the index runs.csv (run, "
                         "status, steps, fault): rename it in the spec");
  // A directory of other files, and one of another sweep, are not written into.
  fs::path full = group_dir() / "full";
  fs::create_directories(full);
  write_file("full/notes.txt", "mine");
  r = sweep(with({spec("double_pendulum"), "--runs", runs.string(), "--out", full.string()}, kShort));
  assert_int_equal(r.status, 2);
  assert_contains(r.err, full.string() + " is not a sweep's directory (it has notes.txt, and no sweep.txt)");
  check(!fs::exists(full / "sweep.txt"), "%s/sweep.txt was written", full.c_str());
  // A project's directory with a run/ of its own (a home, '/' as root: /run) is refused
  // before anything in it is made, locked or removed: its hidden files stay, and no .lock appears.
  for (const char *other : {"", "notes.txt"}) {
    fs::path project = group_dir() / (std::string("project") + other);
    fs::create_directories(project / "run");
    write_file(project.filename().string() + "/run/.env", "SECRET=1");
    write_file(project.filename().string() + "/run/.gitkeep", "");
    if (*other) write_file(project.filename().string() + "/" + other, "mine");
    r = sweep(with({spec("double_pendulum"), "--runs", runs.string(), "--out", project.string()}, kShort));
    check(r.status == 2, "%s: exit %d, not 2: %s", project.c_str(), r.status, r.err.c_str());
    assert_contains(r.err, project.string() + " is not a sweep's directory (it has ");
    for (const char *kept : {"run/.env", "run/.gitkeep"})
      check(fs::exists(project / kept), "a refused sweep removed %s/%s", project.c_str(), kept);
    for (const char *made : {".lock", "sweep.txt"})
      check(!fs::exists(project / made), "a refused sweep made %s/%s", project.c_str(), made);
  }
  fs::path done = group_dir() / "one";  // workers_and_ranks_write_the_same_bytes's
  r = sweep(with({spec("double_pendulum"), "--runs", runs.string(), "--out", done.string(), "--t-end", "0.25"},
                 {"--dt", "1e-2", "--sample", "0.05"}));
  assert_int_equal(r.status, 2);
  assert_contains(r.err, done.string() + " holds another sweep: its sweep.txt has 't-end 0.5' where this one has "
                                         "'t-end 0.25'");
}

// A sweep's directory belongs to one model and one lagrangec: rerun after
// an edit that changes the runs but not the equations' values (a
// restitution), or after an upgrade (sweep.txt's version), it is refused
// with what differs, and its runs are kept; --merge refuses another
// version's directory too.
void a_changed_model_or_version_is_refused(void **) {
  const std::string ball = slurp(spec("bouncing_ball"));
  const std::string e = "restitution = 0.8\n";
  check(ball.find(e) != std::string::npos, "no '%s' in the bouncing ball", e.c_str());
  fs::path spec_path = write_file("bouncing_ball.toml", ball), out = group_dir() / "ball";
  auto args = std::vector<std::string>{spec_path.string(), "--samples", "3", "--vary", "h=uniform(1,2)", "--t-end",
                                       "1", "--dt", "1e-3", "--sample", "0.1", "--out", out.string(), "--quiet"};
  Result r = sweep(args);
  if (r.status != 0) fail_msg("exit %d:\n%s", r.status, r.err.c_str());
  const std::string index = slurp(out / "runs.csv");
  std::string edited = ball;
  edited.replace(edited.find(e), e.size(), "restitution = 0.2\n");
  write_file("bouncing_ball.toml", edited);
  r = sweep(args);
  check(r.status == 2, "the sweep of e = 0.2 into e = 0.8's directory: exit %d, not 2:\n%s", r.status, r.err.c_str());
  assert_contains(r.err, out.string() + " holds another sweep: its sweep.txt has 'compiled bouncing_ball");
  assert_contains(r.err, "(the model changed since: the spec was edited, or generated anew");
  check(slurp(out / "runs.csv") == index, "the refused sweep changed %s/runs.csv", out.c_str());
  // Back to e = 0.8, made by an older lagrangec: refused on resume, and by --merge.
  write_file("bouncing_ball.toml", ball);
  const std::string manifest = slurp(out / "sweep.txt");
  const size_t at = manifest.find("\nversion ");
  check(at != std::string::npos, "sweep.txt records no version:\n%s", manifest.c_str());
  const size_t end = manifest.find('\n', at + 1);
  write_file("ball/sweep.txt", manifest.substr(0, at) + "\nversion 0.0.1" + manifest.substr(end));
  r = sweep(args);
  check(r.status == 2, "a resume after an upgrade: exit %d, not 2:\n%s", r.status, r.err.c_str());
  assert_contains(r.err, "its sweep.txt has 'version 0.0.1' where this one has 'version ");
  assert_contains(r.err, "(another lagrangec made it");
  r = run({lagrangec, "sweep", "--merge", out.string(), "--out", (group_dir() / "ball-merged").string()});
  check(r.status == 2, "--merge of another version's sweep: exit %d, not 2:\n%s", r.status, r.err.c_str());
  assert_contains(r.err, "--merge " + out.string() + ": lagrangec 0.0.1 ran this sweep, this is lagrangec ");
  check(!fs::exists(group_dir() / "ball-merged"), "the refused --merge made its --out");
}

// A journal record of a line of the index, as a sweep's process appends it
// (sweep_results.c): "LEN HASH LINE", HASH the line's FNV-1a.
std::string journal_record(const std::string &line) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : line) h = (h ^ c) * 0x100000001B3ull;
  char head[64];
  std::snprintf(head, sizeof head, "%zu %016llx ", line.size(), (unsigned long long)h);
  return head + line;
}

// The peak memory (KiB) of `lagrangec sweep` writing the index of n runs
// that are all done: a directory made as a sweep of n runs leaves it (its
// sweep.txt, and a journal of n records, each run's line that of run 1 of
// a real sweep), then the same sweep by the model's program, which has
// only the index to write.
long index_peak_kib(unsigned long n) {
  fs::path real = group_dir() / "index-real", out = group_dir() / ("index-" + std::to_string(n));
  auto args = [&](unsigned long runs, const fs::path &dir) {
    return std::vector<std::string>{"--samples", std::to_string(runs), "--vary", "l=uniform(1,2)",
                                    "--t-end", "0.01", "--dt", "0.01", "--no-trajectories", "-j", "1", "--quiet",
                                    "--out", dir.string()};
  };
  if (!fs::exists(real / "runs.csv")) {
    Result r = sweep(with({spec("pendulum")}, args(1, real)));
    if (r.status != 0) fail_msg("a sweep of one run: exit %d:\n%s", r.status, r.err.c_str());
  }
  std::vector<std::string> lines = lines_of(slurp(real / "runs.csv"));
  const std::string rest = lines.at(1).substr(lines.at(1).find(','));  // ",ok,..." after "1"
  std::string manifest = slurp(real / "sweep.txt");
  const std::string one = "\nruns 1\n";
  const size_t at = manifest.find(one);
  check(at != std::string::npos, "no 'runs 1' in sweep.txt:\n%s", manifest.c_str());
  manifest.replace(at, one.size(), "\nruns " + std::to_string(n) + "\n");
  fs::create_directories(out / "run");
  write_file(fs::relative(out / "sweep.txt", group_dir()).string(), manifest);
  {
    std::ofstream journal(out / "run" / "made-1-0.journal", std::ios::binary);
    for (unsigned long k = 1; k <= n; ++k) journal << journal_record(std::to_string(k) + rest + "\n");
  }
  // The model's program itself: lagrangec's own peak, before it becomes the program, would hide the program's.
  fs::path program;
  for (auto &e : fs::directory_iterator(group_dir() / "cache")) {
    std::string entry = e.path().filename().string();
    if (entry.rfind("pendulum-", 0) == 0 && entry.find("jacobian") == std::string::npos &&
        entry.find("vakonomic") == std::string::npos && (entry.find("-mpi-") != std::string::npos) == bool(WITH_MPI))
      program = e.path() / "pendulum";
  }
  check(fs::exists(program), "no program of the pendulum's sweep in %s", (group_dir() / "cache").c_str());
  fs::path peak = group_dir() / "peak";
  std::vector<std::string> argv = {"/usr/bin/time", "-f", "%M", "-o", peak.string(), program.string(), "sweep"};
  // AddressSanitizer's quarantine keeps freed blocks (each buffer a doubling outgrew) in the peak.
  Result r = run(with(argv, args(n, out)), sanitizer_options("quarantine_size_mb=0"));
  if (r.status != 0) fail_msg("the index of %lu runs: exit %d:\n%s", n, r.status, r.err.c_str());
  std::vector<std::string> index = lines_of(slurp(out / "runs.csv"));
  check(index.size() == n + 1 && index.back() == std::to_string(n) + rest, "the index of %lu runs has %zu lines, the last %s",
        n, index.size(), index.back().c_str());
  check(journals(out).empty(), "%zu journals left beside the index of %lu runs", journals(out).size(), n);
  long kib = std::stol(slurp(peak));
  fs::remove_all(out);
  return kib;
}

// An index is written by streaming the journals, so its memory grows with
// the number of runs only by what is documented: 20 times the runs (10,000
// and 200,000; a line of ~170 bytes each) take less than 8 MiB more at the
// peak (8 bytes a run are the list of runs to do; the index held whole took
// twice the lines, over 60 MiB here) beside the statistics' values, 8 bytes
// a run per numeric column, grown by doubling: under twice that.
void an_index_is_written_in_bounded_memory(void **) {
  if (!fs::exists("/usr/bin/time")) {
    print_message("skipped: no /usr/bin/time to measure the peak memory\n");
    skip();
  }
  const long small = index_peak_kib(10000), large = index_peak_kib(200000);
  print_message("peak memory writing the index: %ld KiB for 10,000 runs, %ld KiB for 200,000\n", small, large);
  const std::vector<std::string> header = fields_of(lines_of(slurp(group_dir() / "index-real" / "runs.csv")).at(0));
  const long statistics = long(2 * 8 * (header.size() - 4) * (200000 - 10000) / 1024);  // run, status, fault t, fault
  check(large - small < 8 * 1024 + statistics,
        "200,000 runs took %ld KiB more than 10,000 (%ld against %ld KiB), past 8 MiB and the statistics' %ld KiB",
        large - small, large, small, statistics);
}

// What is not a journal, though named like one, is not read: a FIFO called
// run/x.journal (which a reader would wait on for ever) and a symbolic link
// called so leave the rerun of a finished sweep to finish, bounded by a
// timeout, with the same index.
void only_regular_journals_are_read(void **) {
  fs::path runs = double_pendulum_runs(), out = group_dir() / "fifo";
  auto args = with({"timeout", "120", lagrangec, "sweep", spec("double_pendulum"), "--runs", runs.string(), "--out",
                    out.string(), "--quiet"},
                   kShort);
  Result r = run(args, cache_env());
  assert_int_equal(r.status, 1);  // run 7 fails
  const std::string index = slurp(out / "runs.csv");
  check(::mkfifo((out / "run" / "x.journal").c_str(), 0600) == 0, "mkfifo: %s", std::strerror(errno));
  fs::create_symlink("/dev/zero", out / "run" / "y.journal");
  r = run(args, cache_env());
  check(r.status == 1, "a rerun beside a FIFO journal: exit %d (124: it waited on the FIFO): %s", r.status,
        r.err.c_str());
  check(slurp(out / "runs.csv") == index, "the rerun changed %s/runs.csv", out.c_str());
}

// --plot: a histogram of a result over the runs that ended ok (11 of the
// 12: run 7 faults), their count in the title; the first coordinate's final
// value unless --plot-column names another; nothing of gnuplot's on stderr.
void a_sweep_plots_the_spread_of_a_result(void **) {
  fs::path dir = scratch("sweep-plot"), png = dir / "spread.png";
  std::vector<std::string> env = recording_gnuplot(dir / "bin"), cache = cache_env();
  env.insert(env.end(), cache.begin(), cache.end());
  const std::vector<std::string> runs = with({lagrangec, "sweep", spec("double_pendulum"), "--runs",
                                              double_pendulum_runs().string(), "--quiet"}, kShort);
  for (auto column : {"", "max |phi[2]|"}) {
    std::vector<std::string> args = with(runs, {"--out", (dir / "study").string(), "--plot", png.string()});
    if (*column) args.insert(args.end(), {"--plot-column", column});
    Result r = run(args, env);
    assert_failed_one_of(r, 1, 12);
    std::string head = slurp(png).substr(0, 8);
    check(head == "\x89PNG\r\n\x1a\n", "%s is not a PNG (it starts '%s')", png.c_str(), head.c_str());
    for (auto said : {"warning", "Warning", "gnuplot", "line "})
      check(r.err.find(said) == std::string::npos, "stderr says '%s':\n%s", said, r.err.c_str());
    std::string gp = slurp(dir / "bin" / "script.gp");
    assert_contains(gp, std::string("set title 'double_pendulum'.': '.'") + (*column ? column : "final x1") +
                            "'.' over the 11 runs that ended ok (of 12)'");
    assert_contains(gp, "with boxes");
    fs::remove(png);
  }
}

// `lagrangec sweep --help`: its options and simulate's, without a spec.
void help_needs_no_spec(void **) {
  Result r = run({lagrangec, "sweep", "--help"}, {"LAGRANGEC_CACHE=" + scratch("help-cache").string()});
  assert_int_equal(r.status, 0);
  for (auto o : {"--runs RUNS.csv", "--vary NAME=DIST", "--shard K/M", "--merge", "and, for every run, simulate's:",
                 "--t-end T", "--consistent"})
    assert_contains(r.out, o);
  for (auto o : {"--plot FILE.png", "--plot-column NAME"}) assert_contains(r.out, o);
  // simulate's --plot (sweep's own draws the spread), its columns and path, and outputs a run writes.
  for (auto o : {"--plot-columns", "--plot-path", "--summary-json", "FILE.csv", "--strict"})
    check(r.out.find(o) == std::string::npos, "sweep's help offers %s:\n%s", o, r.out.c_str());
  check(r.out.find("--plot FILE.png") == r.out.rfind("--plot FILE.png"), "sweep's help offers --plot twice:\n%s",
        r.out.c_str());
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(help_needs_no_spec),
      cmocka_unit_test(a_sweep_plots_the_spread_of_a_result),
      cmocka_unit_test(workers_and_ranks_write_the_same_bytes),
      cmocka_unit_test(each_run_is_the_simulate_run_of_its_values),
      cmocka_unit_test(the_maximum_step_reaches_every_run),
      cmocka_unit_test(outputs_and_statistics_are_in_the_results),
      cmocka_unit_test(monte_carlo_values_are_the_runs_own),
      cmocka_unit_test(a_killed_sweep_resumes_to_the_same_bytes),
      cmocka_unit_test(mpirun_on_a_cold_cache_never_hangs),
      cmocka_unit_test(shards_merge_into_the_whole),
      cmocka_unit_test(faults_stay_in_their_runs),
      cmocka_unit_test(a_rows_parameters_move_the_initial_values_made_of_them),
      cmocka_unit_test(bad_runs_tables_get_their_message_and_run_nothing),
      cmocka_unit_test(mistakes_are_refused_before_anything_runs),
      cmocka_unit_test(only_regular_journals_are_read),
      cmocka_unit_test(an_index_is_written_in_bounded_memory),
      cmocka_unit_test(a_changed_model_or_version_is_refused),
  };
  return cmocka_run_group_tests(tests, group_dir_setup, group_dir_teardown);
}
