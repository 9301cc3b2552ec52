// test_simulate_cli.cpp — `lagrangec simulate` as a user runs it: generate,
// compile into the cache, run; read back through --summary-json. The
// acceptance figures of the knife edge and the pendulum; faults; the help
// without a spec; plots that run nothing of the spec's; a step that is the
// step; a full disk; the start checked and completed; constraints kept by
// default; CSV columns that cannot collide; events a maximum step finds;
// the implicit methods' counters; mistakes refused; the note of --dt alone;
// the progress line of a cold cache on a terminal; a planar wheel rolling
// down an incline against its closed form; the plot's panels, its columns
// and path, checked and kept text to gnuplot.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "json.hpp"
#include "process.hpp"

#include "cli.hpp"  // last: cmocka defines a macro `fail`
#include "check.h"

namespace fs = std::filesystem;

namespace {

const std::string lagrangec = LAGRANGEC;


Result simulate(std::vector<std::string> args, std::vector<std::string> env = {}) {
  args.insert(args.begin(), {lagrangec, "simulate"});
  for (auto &e : cache_env()) env.push_back(e);
  return run(args, env);
}

json::Value parse(const std::string &text) {
  try {
    return json::parse(text);
  } catch (const std::exception &e) {
    fail_msg("%s in:\n%s", e.what(), text.c_str());
  }
  return {};
}

// A run that must succeed, read through its JSON summary on stdout.
json::Value summary(std::vector<std::string> args) {
  args.insert(args.end(), {"--summary-json", "-"});
  Result r = simulate(args);
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  return parse(r.out);
}

void assert_png(const fs::path &p) {
  std::string head = slurp(p).substr(0, 8);
  check(head == "\x89PNG\r\n\x1a\n", "%s is not a PNG (it starts '%s')", p.c_str(), head.c_str());
}

// A member that must be null: not a number, never NaN.
void assert_json_null(const json::Value &v, const char *what) {
  check(v.is_null(), "%s is not null", what);
}

fs::path write_spec(const std::string &name, const std::string &text) {
  fs::path p = group_dir() / (name + ".toml");
  std::ofstream(p) << text;
  return p;
}

const std::string kFaultRow = "# fault at t = ";

// A CSV holds whole lines only: each ends in a newline and has the header's
// columns, but a failed run's last, its fault row (left out of the rows returned).
std::vector<std::string> whole_csv_rows(const fs::path &csv) {
  std::string text = slurp(csv);
  if (text.empty() || text.back() != '\n') fail_msg("%s does not end in a whole line", csv.c_str());
  std::vector<std::string> lines = lines_of(text);
  if (lines.back().rfind(kFaultRow, 0) == 0) lines.pop_back();
  auto columns = std::count(lines[0].begin(), lines[0].end(), ',');
  for (auto &line : lines)
    if (std::count(line.begin(), line.end(), ',') != columns)
      fail_msg("%s: a line of %zu columns, not %zu: %s", csv.c_str(),
               size_t(std::count(line.begin(), line.end(), ',') + 1), size_t(columns + 1), line.c_str());
  lines.erase(lines.begin());
  return lines;
}

// Issue 3's acceptance run: m = l = 1; x' = 1, phi' = 1; t to 100, RK4,
// h = 1e-3, velocity correction: max |g| <= 1e-12, energy drift <= 1e-9.
void knife_edge_meets_its_bounds_and_writes_csv_and_png(void **) {
  fs::path out = scratch("out");
  json::Value s = summary({spec("knife_edge"), "--t-end", "100", "--dt", "1e-3", "--project", "velocity", "--out",
                           (out / "k.csv").string(), "--plot", (out / "k.png").string()});
  assert_le(s["max_g"].num(), 1e-12);
  assert_le(s["energy_drift"].num(), 1e-9);
  assert_eq(s["steps"].num(), 100000);
  assert_string_equal(s["correction"].str().c_str(), "velocity");
  std::string header = lines_of(slurp(out / "k.csv"))[0];
  assert_string_equal(header.c_str(), "t,x,y,phi,x',y',phi',g[1],T+V,mu[1],Fc[x],Fc[y],Fc[phi]");
  std::vector<std::string> rows = whole_csv_rows(out / "k.csv");
  assert_ge(rows.size(), 1001);
  assert_eq(std::strtod(rows.back().c_str(), nullptr), 100.0);
  assert_png(out / "k.png");
  fs::remove_all(out);
}

// 10^6 RK4 steps of the Cartesian pendulum with full correction: max |phi| <= 1e-12.
void pendulum_full_correction_stays_on_the_circle(void **) {
  json::Value s = summary({spec("pendulum"), "--t-end", "1000", "--dt", "1e-3", "--project", "full", "--quiet"});
  assert_eq(s["steps"].num(), 1e6);
  assert_le(s["max_phi"].num(), 1e-12);
}

void second_run_reuses_the_compiled_simulator(void **) {
  fs::path cache = group_dir() / "cache";
  assert_int_equal(simulate({spec("double_pendulum"), "--t-end", "0.1", "--quiet"}).status, 0);
  int entries = 0;
  fs::path exe;
  for (auto &e : fs::directory_iterator(cache))
    if (e.path().filename().string().rfind("double_pendulum-", 0) == 0) ++entries, exe = e.path() / "double_pendulum";
  assert_int_equal(entries, 1);
  auto built = fs::last_write_time(exe);
  assert_int_equal(simulate({spec("double_pendulum"), "--t-end", "0.1", "--quiet"}).status, 0);
  check(fs::last_write_time(exe) == built, "%s was built again", exe.c_str());
}

// `lagrangec simulate --help` and `linearize --help` print their own options
// at once: no spec, no generation, no compile (the cache stays empty).
void help_needs_no_spec_and_no_compile(void **) {
  fs::path cache = scratch("help-cache");
  std::vector<std::string> env = {"LAGRANGEC_CACHE=" + cache.string()};
  Result s = run({lagrangec, "simulate", "--help"}, env);
  assert_int_equal(s.status, 0);
  assert_contains(s.out, "usage: lagrangec simulate SPEC [OPTIONS]");
  for (auto o :
       {"--t-end T", "--consistent", "--summary-json FILE|-", "--formulation", "default for a constrained model: full"})
    assert_contains(s.out, o);
  Result l = run({lagrangec, "linearize", "--help"}, env);
  assert_int_equal(l.status, 0);
  assert_contains(l.out, "usage: lagrangec linearize SPEC [--at NAME=VALUE...] [OPTIONS]");
  assert_contains(l.out, "t=VALUE the time");
  check(l.out.find("--summary-json") == std::string::npos, "linearize's help has simulate's options:\n%s",
        l.out.c_str());
  // After a spec too, and one that does not even exist.
  Result after = run({lagrangec, "simulate", spec("pendulum"), "--t-end", "1", "--help"}, env);
  assert_int_equal(after.status, 0);
  assert_string_equal(after.out.c_str(), s.out.c_str());
  assert_int_equal(run({lagrangec, "linearize", "no-such.toml", "--help"}, env).status, 0);
  // A value that looks like --help is a value, not the option.
  assert_int_equal(run({lagrangec, "simulate", "no-such.toml", "--out", "--help"}, env).status, 1);
  check(fs::is_empty(cache), "the help compiled something into %s", cache.c_str());
  fs::remove_all(cache);
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
    {"dead_point", {"--t-end", "1", "--dt", "1e-3"}, "t = 0.499:", 0.499, "constraint Jacobian lost rank"},
    {"blow_up", {"--t-end", "2"}, "t = 1:", 0.9999, "step size underflow"},  // 1 - 2e-12
    {"runaway", {"--t-end", "10", "--rtol", "0", "--atol", "1e-12"}, "t = 8.41", 8.41, "tolerance unreachable"},
    // At rest on a rod that shrinks, phi' = 1: --consistent sets the speeds.
    {"shrinking_rod", {"--t-end", "2", "--dt", "1e-3", "--project", "full", "--consistent"}, "t = 1:", 1.0,
     "projection did not converge"},
};

// Each exits 1, says when and why, and leaves a CSV of whole lines with no
// NaN or Inf holding every sample up to the failure, and a summary saying so.
void a_failed_run_says_when_and_keeps_its_csv(void **) {
  for (const Fault &f : faults) {
    fs::path csv = group_dir() / (std::string(f.spec) + ".csv"), json = group_dir() / (std::string(f.spec) + ".json");
    std::vector<std::string> args{test_spec(f.spec), "--sample", "0.01", "--out", csv.string(),
                                  "--summary-json", json.string(), "--quiet"};
    args.insert(args.end(), f.options.begin(), f.options.end());
    Result r = simulate(args);
    print_message("%s: exit %d, %s", f.spec, r.status, r.err.c_str());
    assert_int_equal(r.status, 1);
    assert_contains(r.err, std::string("lagrangec: ") + f.when);
    assert_contains(r.err, f.reason);
    std::string text = slurp(csv);
    // Its last line marks the fault, with its time and reason.
    std::string last = lines_of(text).back();
    check(last.rfind(kFaultRow, 0) == 0 && last.find(f.reason) != std::string::npos,
          "%s: the CSV's last line is not its fault row ('%s' and '%s'): %s", f.spec, kFaultRow.c_str(), f.reason,
          last.c_str());
    std::vector<std::string> rows = whole_csv_rows(csv);
    for (auto &row : rows)
      check(row.find("nan") == std::string::npos && row.find("inf") == std::string::npos, "%s: NaN or Inf in %s: %s",
            f.spec, csv.c_str(), row.c_str());
    assert_ge(rows.size(), int(f.t_fail / 0.01 + 1e-9) + 1);  // the samples at 0, 0.01, ... up to t_fail
    assert_le(std::strtod(rows.back().c_str(), nullptr), f.t_fail);
    json::Value s = parse(slurp(json));
    assert_string_equal(s["status"].str().c_str(), "fault");
    assert_contains(s["fault"]["reason"].str(), f.reason);
    assert_le(std::fabs(s["fault"]["t"].num() - f.t_fail), 0.01);
  }
}

// The spec's title is text, never gnuplot code: an apostrophe plots; a title
// that closes the quote, breaks the line and calls system() runs nothing.
void titles_are_text_to_gnuplot(void **) {
  const std::string body = "coordinates = [\"x\"]\nkinetic = \"x'^2/2\"\npotential = \"x^2/2\"\n[initial]\nx = 1.0\n";
  fs::path marker = group_dir() / "gnuplot-ran-the-title";
  fs::path cradle = write_spec("cradle", "name = \"cradle\"\ntitle = \"Newton's cradle\"\n" + body);
  Result r = simulate({cradle.string(), "--t-end", "1", "--plot", (group_dir() / "cradle.png").string(), "--quiet"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_png(group_dir() / "cradle.png");
  const std::string attack = "a'\\nsystem \\\"touch " + marker.string() + "\\\"\\n'''' `touch " + marker.string() +
                             "` @x";
  fs::path evil = write_spec("evil", "name = \"evil\"\ntitle = \"" + attack + "\"\n" + body);
  r = simulate({evil.string(), "--t-end", "1", "--plot", (group_dir() / "evil.png").string(), "--quiet"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_png(group_dir() / "evil.png");
  check(!fs::exists(marker), "gnuplot ran the title: %s exists", marker.c_str());
}

// How often part occurs in text.
size_t occurrences(const std::string &text, const std::string &part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// A plotted run through the recording gnuplot: it must succeed with a PNG and
// nothing of gnuplot's on stderr (a warning, an error); its script.
std::string plot_script(const std::string &name, std::vector<std::string> args) {
  fs::path dir = scratch("plot-" + name), png = dir / (name + ".png");
  std::vector<std::string> env = recording_gnuplot(dir / "bin");
  args.insert(args.end(), {"--plot", png.string(), "--quiet"});
  Result r = simulate(args, env);
  if (r.status != 0) fail_msg("%s: exit %d: %s", name.c_str(), r.status, r.err.c_str());
  assert_png(png);
  for (auto said : {"warning", "Warning", "gnuplot", "line "})
    check(r.err.find(said) == std::string::npos, "%s: stderr says '%s':\n%s", name.c_str(), said, r.err.c_str());
  return slurp(dir / "bin" / "script.gp");
}

// The knife edge: a panel per coordinate (phi's small range its own), the
// residual of its one row on a log axis, the energy error, and its x-y path
// on equal scales above them.
void plot_panels_have_their_own_axes_and_the_path(void **) {
  std::string gp = plot_script("knife", {spec("knife_edge"), "--t-end", "5", "--plot-path", "x,y"});
  for (auto part : {"set ylabel 'x'\n", "set ylabel 'y'\n", "set ylabel 'phi'\n", "set title 'path (equal scales)'",
                    "using 2:3 with lines lw 1.5", "set ylabel '|residual|'", "title '|g[1]|'", "energy error"})
    assert_contains(gp, part);
  // x, y, phi; the path and its start; g[1]; the energy: 6 plot commands.
  check(occurrences(gp, "\nplot ") == 6, "%zu plot commands, not 6:\n%s", occurrences(gp, "\nplot "), gp.c_str());
}

// An unconstrained model has no residual panel, and a contact's phi is a
// signed gap in a panel of its own, not a |residual|.
void plot_panels_are_never_empty_and_gaps_are_gaps(void **) {
  std::string gp = plot_script("oscillator", {spec("oscillator"), "--t-end", "1"});
  check(gp.find("residual") == std::string::npos, "an unconstrained model's plot has residuals:\n%s", gp.c_str());
  check(occurrences(gp, "\nplot ") == 2, "%zu plot commands, not 2 (q, energy):\n%s", occurrences(gp, "\nplot "),
        gp.c_str());
  gp = plot_script("ball", {spec("bouncing_ball"), "--t-end", "2"});
  assert_contains(gp, "set ylabel 'gap'");
  assert_contains(gp, "using 1:4 with lines title 'phi[contact1]'");
  check(gp.find("residual") == std::string::npos && gp.find("abs(") == std::string::npos,
        "the ball's only row, its contact, is drawn as a residual:\n%s", gp.c_str());
}

// --plot-columns: a panel for each column named (x_dot is x'), in place of
// the coordinates'; names are text to gnuplot (x' is 'x'.q.'').
void plot_columns_choose_the_panels(void **) {
  std::string gp = plot_script("columns", {spec("knife_edge"), "--t-end", "1", "--plot-columns", "x_dot,mu[1],T+V"});
  for (auto part : {"set ylabel 'x'.q.''\n", "using 1:5 with lines", "set ylabel 'mu[1]'\n", "using 1:10 with lines",
                    "set ylabel 'T+V'\n", "using 1:9 with lines"})
    assert_contains(gp, part);
  check(gp.find("set ylabel 'phi'") == std::string::npos, "a coordinate's panel beside --plot-columns:\n%s",
        gp.c_str());
}

// Unknown names, a path of one column, an empty name, no --plot: usage
// errors (exit 2, nothing run) naming what is wrong and listing the columns.
// A name that would be gnuplot code is no column: refused, nothing run.
void plot_columns_are_checked(void **) {
  fs::path marker = group_dir() / "gnuplot-ran-a-column", png = group_dir() / "never.png";
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--plot-columns", "x,speed"}, "--plot-columns:3: error: no column 'speed' in the run's CSV"},
      {{"--plot-columns", "t"}, "--plot-columns:1: error: no column 't' in the run's CSV (t is every panel's axis)"},
      {{"--plot-columns", "x,,y"}, "--plot-columns:3: error: an empty name (NAME,NAME,...)"},
      {{"--plot-path", "x"}, "lagrangec: bad value 'x' for --plot-path: two columns, X,Y"},
      {{"--plot-path", "x,y,phi"}, "lagrangec: bad value 'x,y,phi' for --plot-path: two columns, X,Y"},
      {{"--plot-columns", "x'\nsystem 'touch " + marker.string() + "'"}, "--plot-columns:1: error: no column 'x'?system"},
  };
  for (auto &c : cases) {
    std::vector<std::string> args = {spec("knife_edge"), "--t-end", "1", "--plot", png.string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    Result r = simulate(args);
    check(r.status == 2, "%s %s: exit %d, not 2: %s", c.args[0].c_str(), c.args[1].c_str(), r.status, r.err.c_str());
    assert_contains(r.err, c.message);
    if (c.args[0] == "--plot-columns" && c.args[1] != "x,,y")
      assert_contains(r.err, "  known columns: x, y, phi, x', y', phi', g[1], T+V, mu[1], Fc[x], Fc[y], Fc[phi]\n");
  }
  check(!fs::exists(png) && !fs::exists(marker), "a refused plot left %s or %s", png.c_str(), marker.c_str());
  Result alone = simulate({spec("knife_edge"), "--plot-path", "x,y"});
  assert_int_equal(alone.status, 2);
  assert_contains(alone.err, "lagrangec: --plot-path draws on --plot's picture: give --plot FILE.png");
}

// No gnuplot, or a PNG path nobody can write: refused before the run
// (exit 2, nothing written, no PNG on stdout).
void a_plot_that_cannot_be_made_stops_before_the_run(void **) {
  fs::path csv = group_dir() / "never.csv";
  Result r = simulate({spec("pendulum"), "--t-end", "1", "--out", csv.string(), "--plot",
                       (group_dir() / "never.png").string()},
                      {"PATH=/nonexistent"});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "--plot needs gnuplot, and there is none on PATH");
  check(!fs::exists(csv) && !fs::exists(group_dir() / "never.png"), "a refused run wrote %s", csv.c_str());
  r = simulate({spec("pendulum"), "--t-end", "1", "--plot", "/nonexistent/dir/p.png"});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "--plot /nonexistent/dir/p.png: cannot write there");
  assert_string_equal(r.out.c_str(), "");
}

// A mistake in any option leaves the previous results as they were: the
// CSV of the last run survives a refused --plot, --summary-json or
// --events (exit 2, nothing ran), and nothing of the refused run is left
// beside it. /dev/null takes the CSV in place and stays what it is.
void a_usage_error_keeps_the_previous_results(void **) {
  fs::path dir = scratch("keep"), csv = dir / "run.csv";
  Result first = simulate({spec("pendulum"), "--t-end", "1", "--out", csv.string(), "--quiet"});
  if (first.status != 0) fail_msg("exit %d: %s", first.status, first.err.c_str());
  const std::string before = slurp(csv);
  assert_true(before.size() > 100);
  const std::vector<std::vector<std::string>> mistakes = {
      {"--plot", (dir / "no-such-dir" / "p.png").string()},
      {"--summary-json", (dir / "no-such-dir" / "s.json").string()},
      {"--events", (dir / "e.csv").string()},  // the pendulum has no events
      {"--summary-json", dir.string()},
  };
  for (auto &m : mistakes) {
    std::vector<std::string> args{spec("pendulum"), "--t-end", "1", "--out", csv.string(), "--quiet"};
    args.insert(args.end(), m.begin(), m.end());
    Result r = simulate(args);
    check(r.status == 2, "%s %s: exit %d, not 2: %s", m[0].c_str(), m[1].c_str(), r.status, r.err.c_str());
    check(slurp(csv) == before, "%s %s: the previous %s changed (%zu bytes, were %zu)", m[0].c_str(), m[1].c_str(),
          csv.c_str(), slurp(csv).size(), before.size());
    std::string left;
    for (auto &e : fs::directory_iterator(dir))
      if (e.path() != csv) left += e.path().string() + " ";
    check(left.empty(), "%s %s left %s", m[0].c_str(), m[1].c_str(), left.c_str());
  }
  if (geteuid() == 0 || access("/dev/null", W_OK) == 0) {
    Result r = simulate({spec("pendulum"), "--t-end", "1", "--out", "/dev/null", "--quiet"});
    assert_int_equal(r.status, 0);
    struct stat st;
    check(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "/dev/null is no longer a character device");
  }
  fs::remove_all(dir);
}

// The model's program, as the cache holds it: the entry of spec `name`
// without the Jacobian (the one a plain simulate builds).
fs::path cached_program(const std::string &name) {
  for (auto &e : fs::directory_iterator(group_dir() / "cache")) {
    std::string entry = e.path().filename().string();
    if (entry.rfind(name + "-", 0) == 0 && entry.find("-jacobian") == std::string::npos &&
        entry.find("-vakonomic") == std::string::npos && fs::exists(e.path() / name))
      return e.path() / name;
  }
  fail_msg("no cache entry of %s in %s", name.c_str(), (group_dir() / "cache").c_str());
  return {};
}

// The summary's JSON reads nothing it did not write: under valgrind, a run
// with --summary-json (to a file, and to stdout) makes no error.
void the_summary_json_reads_nothing_uninitialised(void **) {
  if (kSanitized || run({"sh", "-c", "command -v valgrind"}).status != 0) {
    print_message("skipped: %s\n", kSanitized ? "valgrind cannot run a sanitized program" : "no valgrind on PATH");
    skip();
  }
  assert_int_equal(simulate({spec("pendulum"), "--t-end", "0.1", "--quiet"}).status, 0);
  fs::path json = group_dir() / "valgrind.json";
  for (const std::string &to : {json.string(), std::string("-")}) {
    Result r = run({"valgrind", "--error-exitcode=99", "-q", cached_program("pendulum").string(), "simulate", "--t-end",
                    "0.1", "--quiet", "--summary-json", to});
    check(r.status == 0, "--summary-json %s under valgrind: exit %d:\n%s", to.c_str(), r.status, r.err.c_str());
  }
  assert_string_equal(parse(slurp(json))["status"].str().c_str(), "ok");
}

// Temporary files go on every exit: a plotted run, a failed one, and one
// ended by SIGTERM leave nothing in TMPDIR or beside the PNG.
void temporaries_are_removed_on_every_exit(void **) {
  fs::path tmp = scratch("tmpdir"), plots = scratch("plots");
  std::vector<std::string> env = {"TMPDIR=" + tmp.string()};
  auto leftovers = [&](const char *after) {
    std::string found;
    for (auto &dir : {tmp, plots})
      for (auto &e : fs::directory_iterator(dir))
        if (e.path().filename().string()[0] == '.' || dir == tmp) found += e.path().string() + " ";
    check(found.empty(), "after %s: %s", after, found.c_str());
  };
  assert_int_equal(simulate({spec("pendulum"), "--t-end", "1", "--plot", (plots / "a.png").string(), "--quiet"}, env)
                       .status,
                   0);
  leftovers("a plotted run");
  assert_int_equal(simulate({test_spec("dead_point"), "--dt", "1e-3", "--plot", (plots / "b.png").string(), "--quiet"},
                            env)
                       .status,
                   1);
  leftovers("a failed run");
  check(!fs::exists(plots / "b.png"), "a failed run left a plot");
  // A run of 10^8 steps, ended after a second; the model is compiled by now.
  Result r = run({"timeout", "-s", "TERM", "1", lagrangec, "simulate", spec("pendulum"), "--dt", "1e-6", "--t-end",
                  "100", "--plot", (plots / "c.png").string(), "--quiet"},
                 [&] { auto e = env; e.push_back(cache_env()[0]); return e; }());
  assert_int_equal(r.status, 124);  // timeout's status: its command ended by the signal
  leftovers("SIGTERM");
  fs::remove_all(tmp);
  fs::remove_all(plots);
}

// The fixed step is the step asked for: the answer at a step's end does not
// depend on --sample; a last step that does not fit is shortened and said so;
// a step longer than the run is refused.
void the_fixed_step_is_the_step(void **) {
  json::Value fine = summary({spec("pendulum"), "--dt", "0.5", "--sample", "0.01", "--quiet"});
  json::Value coarse = summary({spec("pendulum"), "--dt", "0.5", "--sample", "0.5", "--quiet"});
  for (auto name : {"x", "y", "x'", "y'"})
    assert_eq(fine["final_state"][name].num(), coarse["final_state"][name].num());
  assert_eq(fine["steps"].num(), 20);
  assert_eq(coarse["steps"].num(), 20);
  assert_eq(fine["samples"].num(), 1001);
  json::Value three = summary({spec("oscillator"), "--dt", "3", "--t-end", "10", "--quiet"});
  assert_eq(three["steps"].num(), 4);
  assert_le(std::fabs(three["h_max"].num() - 3), 1e-12);
  assert_le(std::fabs(three["h_min"].num() - 1), 1e-12);
  assert_eq(three["final_t"].num(), 10);
  Result text = simulate({spec("oscillator"), "--dt", "3", "--t-end", "10"});
  assert_contains(text.out, "steps:            4: 3 of h, the last 1 to end at t = 10\n");
  for (auto dt : {"1e300", "1e11"}) {
    Result r = simulate({spec("pendulum"), "--dt", dt});
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "is longer than the run");
  }
}

// A full disk: the CSV keeps whole rows, the run fails at a sample's time
// with the reason. On a 64 KiB tmpfs, so only as root.
void a_full_disk_leaves_whole_rows(void **) {
  if (geteuid() != 0) {
    print_message("skipped: mounting a small tmpfs needs root\n");
    skip();
  }
  fs::path mnt = scratch("tmpfs");
  if (run({"mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt.string()}).status != 0) {
    fs::remove_all(mnt);
    print_message("skipped: cannot mount a tmpfs here\n");
    skip();
  }
  fs::path csv = mnt / "full.csv";
  Result r = simulate({spec("pendulum"), "--dt", "1e-3", "--sample", "1e-3", "--out", csv.string(), "--quiet"});
  std::vector<std::string> rows = whole_csv_rows(csv);
  run({"umount", mnt.string()});
  fs::remove_all(mnt);
  assert_int_equal(r.status, 1);
  assert_contains(r.err, "output failed: No space left on device");
  assert_ge(rows.size(), 100);
  assert_le(rows.size(), 10000);
  // The run failed at the sample after the last whole row.
  double t_last = std::strtod(rows.back().c_str(), nullptr), t_fail = std::strtod(r.err.c_str() + 15, nullptr);
  check(r.err.rfind("lagrangec: t = ", 0) == 0 && std::fabs(t_fail - (t_last + 1e-3)) <= 1e-9,
        "the last row is at t = %.17g, the message: %s", t_last, r.err.c_str());
}

// A start off the constraints is refused with the constraint, its residual
// and the way out; --consistent keeps what was given and solves the rest.
void the_start_is_checked_and_completed(void **) {
  Result r = simulate({spec("pendulum"), "--init", "x=0.5"});
  assert_int_equal(r.status, 1);
  assert_contains(r.err, "the initial state violates holonomic constraint 1: x^2 + y^2 - l^2 (phi[1] = 0.0202 at t = 0");
  assert_contains(r.err, "--consistent");
  assert_string_equal(r.out.c_str(), "");

  r = simulate({spec("pendulum"), "--init", "x=0.5", "--consistent", "--t-end", "0.1", "--summary-json", "-"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_contains(r.err, "lagrangec: --consistent set y = -0.8660254037844");
  assert_contains(r.err, "the spec gives it, but with the values of --init");
  json::Value s = parse(r.out);
  assert_eq(s["initial_state"]["x"].num(), 0.5);
  assert_le(std::fabs(s["initial_state"]["y"].num() + std::sqrt(0.75)), 1e-15);

  // The four-bar's crank at 90 degrees and 2 rad/s: the coupler and rocker follow.
  s = summary({spec("four_bar"), "--init", "th2=1.5708", "--init", "th2'=2", "--consistent", "--t-end", "0.1",
               "--quiet"});
  assert_eq(s["initial_state"]["th2"].num(), 1.5708);
  assert_eq(s["initial_state"]["th2'"].num(), 2.0);
  assert_le(s["max_phi"].num(), 1e-12);
  assert_le(s["max_phi_dot"].num(), 1e-12);

  // At rest on a shrinking rod, phi' = 1: the velocity form is named.
  r = simulate({test_spec("shrinking_rod"), "--t-end", "0.1"});
  assert_int_equal(r.status, 1);
  assert_contains(r.err, "the velocity form of holonomic constraint 1: x^2 + y^2 - l^2 + t (phi[1]' = 1");

  // The spec's initial values are expressions of l: they follow --param.
  s = summary({spec("pendulum"), "--param", "l=2", "--t-end", "0.1", "--quiet"});
  assert_le(std::fabs(s["initial_state"]["x"].num() - 2 * std::sin(0.5)), 1e-15);
  assert_le(std::fabs(s["initial_state"]["y"].num() + 2 * std::cos(0.5)), 1e-15);
}

// T + V at a CSV row of the turning spring (its spec's defaults: m = 1,
// kx = 4, ky = 9, w = 1.5): the velocity in N is (x' - w y, y' + w x) in R.
double turning_spring_energy(const std::string &row) {
  std::istringstream in(row);
  std::vector<double> v;
  for (std::string c; std::getline(in, c, ',');) v.push_back(std::stod(c));
  const double x = v[1], y = v[2], xd = v[3], yd = v[4], w = 1.5;
  return 0.5 * ((xd - w * y) * (xd - w * y) + (yd + w * x) * (yd + w * x)) + 2.0 * x * x + 4.5 * y * y;
}

// The integral a summary reports is the model's: the Jacobi integral h
// where coordinates are taken in a turning frame (T + V changes there, and
// was reported as 'energy drift'), T + V for the pendulum and for the cart
// whose force is an input at 0 (it was 'n/a'), nothing, with the reason,
// under a damping force or an input that is not 0.
void the_integral_reported_is_the_models(void **) {
  fs::path csv = group_dir() / "turning.csv";
  json::Value s = summary({test_spec("turning_spring"), "--t-end", "10", "--rtol", "1e-10", "--atol", "1e-12", "--out",
                           csv.string(), "--quiet"});
  print_message("  turning spring: Jacobi integral drift %.2e\n", s["jacobi_integral_drift"].num());
  assert_le(s["jacobi_integral_drift"].num(), 1e-9);
  check(!s.members.count("energy_drift"), "the turning spring's summary has an energy drift");
  std::vector<std::string> rows = lines_of(slurp(csv));
  assert_string_equal(rows[0].c_str(), "t,x,y,x',y',h,Fc[x],Fc[y]");
  const double e0 = turning_spring_energy(rows[1]), e1 = turning_spring_energy(rows.back());
  print_message("  turning spring: T + V from %.6f to %.6f\n", e0, e1);
  check(std::fabs(e1 - e0) > 1e-2 * std::fabs(e0), "T + V kept to %.2e: the test does not tell h from it",
        std::fabs(e1 - e0) / std::fabs(e0));

  s = summary({test_spec("foucault"), "--t-end", "10", "--rtol", "1e-10", "--atol", "1e-12", "--quiet"});
  print_message("  Foucault pendulum: Jacobi integral drift %.2e\n", s["jacobi_integral_drift"].num());
  assert_le(s["jacobi_integral_drift"].num(), 1e-9);
  Result r = simulate({test_spec("foucault"), "--t-end", "1"});
  assert_contains(r.out, "Jacobi integral drift: ");

  s = summary({spec("pendulum"), "--t-end", "1", "--quiet"});
  assert_le(s["energy_drift"].num(), 1e-8);
  s = summary({spec("cart_pendulum"), "--t-end", "1", "--quiet"});
  assert_le(s["energy_drift"].num(), 1e-7);
  s = summary({spec("cart_pendulum"), "--t-end", "1", "--input", "F=1", "--quiet"});
  assert_string_equal(s["not_conserved"].str().c_str(), "the forces are the inputs', and F = 1 is not 0");

  fs::path damped = write_spec("damped", "name = \"damped\"\ncoordinates = [\"x\"]\nkinetic = \"m*x'^2/2\"\n"
                                         "potential = \"k*x^2/2\"\n[parameters]\nm = 1.0\nk = 1.0\nc = 0.1\n"
                                         "[forces]\nx = \"-c*x'\"\n[initial]\nx = 1.0\n");
  r = simulate({damped.string(), "--t-end", "1"});
  assert_int_equal(r.status, 0);
  assert_contains(r.out, "integral:         not conserved: the force on x does work (-c*x')\n");
  s = summary({damped.string(), "--t-end", "1", "--quiet"});
  assert_string_equal(s["not_conserved"].str().c_str(), "the force on x does work (-c*x')");
  check(!s.members.count("energy_drift"), "the damped oscillator's summary has an energy drift");
}

// Rows only given entries enter are checked, the others solved for: with x
// and y given on the circle, z - x gives z (this was refused); off the
// circle, or with x' and y' off its tangent, the row is named with them.
void consistent_checks_the_rows_it_cannot_change(void **) {
  fs::path xyz = write_spec("xyz", "name = \"xyz\"\ncoordinates = [\"x\", \"y\", \"z\"]\n"
                                   "kinetic = \"(x'^2 + y'^2 + z'^2)/2\"\n"
                                   "[constraints]\nholonomic = [\"x^2 + y^2 - 1\", \"z - x\"]\n");
  Result r = simulate({xyz.string(), "--init", "x=0.6", "--init", "y=0.8", "--init", "x'=0.8", "--consistent",
                       "--t-end", "0.1", "--summary-json", "-"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_contains(r.err, "lagrangec: --consistent set z = 0.59999999999999998 (was 0)");
  json::Value s = parse(r.out);
  assert_eq(s["initial_state"]["x"].num(), 0.6);
  assert_eq(s["initial_state"]["y"].num(), 0.8);
  assert_eq(s["initial_state"]["x'"].num(), 0.8);
  assert_le(std::fabs(s["initial_state"]["y'"].num() + 0.6), 1e-15);
  assert_le(std::fabs(s["initial_state"]["z'"].num() - 0.8), 1e-15);
  assert_le(s["max_phi"].num(), 1e-12);

  r = simulate({xyz.string(), "--init", "x=0.6", "--init", "y=0.7", "--consistent", "--t-end", "0.1"});
  assert_int_equal(r.status, 1);
  assert_string_equal(r.err.c_str(),
                      "lagrangec: --consistent cannot put the state on the constraints: holonomic constraint 1: "
                      "x^2 + y^2 - 1 involves only entries given by --init (x, y), and they do not satisfy it "
                      "(phi[1] = -0.15 at t = 0); give values that do, or leave one of them out\n");
  r = simulate({xyz.string(), "--init", "x=0.6", "--init", "y=0.8", "--init", "x'=1", "--init", "y'=1",
                "--consistent", "--t-end", "0.1"});
  assert_int_equal(r.status, 1);
  assert_contains(r.err, "the velocity form of holonomic constraint 1: x^2 + y^2 - 1 involves only entries given by "
                         "--init (x', y'), and they do not satisfy it (phi[1]' = 2.8 at t = 0)");
}

// Ten copies of the pendulum's rod are one constraint and nine redundant
// rows, as two copies are: warned about and simulated (they were refused
// as "10 constraints on 2 coordinates"), to the pendulum's own motion.
void copies_of_a_row_are_redundant_not_too_many(void **) {
  std::string text = slurp(spec("pendulum"));
  const std::string row = "\"x^2 + y^2 - l^2\"";
  std::string rows = row;
  for (int k = 1; k < 10; ++k) rows += ", " + row;
  text.replace(text.find("[" + row + "]"), row.size() + 2, "[" + rows + "]");
  fs::path copies = write_spec("ten_rods", text);
  Result r = simulate({copies.string(), "--t-end", "1", "--summary-json", "-"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  assert_contains(r.err, "holonomic constraint 10 is implied by the constraints before it");
  json::Value s = parse(r.out);
  json::Value one = summary({spec("pendulum"), "--t-end", "1", "--quiet"});
  assert_le(s["max_phi"].num(), 1e-12);
  for (const char *x : {"x", "y", "x'", "y'"})
    check(std::fabs(s["final_state"][x].num() - one["final_state"][x].num()) <= 1e-9, "%s(1) = %.17g, one rod: %.17g",
          x, s["final_state"][x].num(), one["final_state"][x].num());
}

// A constrained model keeps its constraints unless told otherwise; a run
// that drifts past 1e-6 ends with a warning.
void constraints_are_kept_by_default(void **) {
  Result r = simulate({test_spec("rheonomic_pendulum"), "--method", "rk4", "--dt", "1e-2", "--summary-json", "-"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  json::Value s = parse(r.out);
  assert_string_equal(s["correction"].str().c_str(), "full");
  assert_le(s["max_phi"].num(), 1e-12);
  assert_int_equal(s["warnings"].items.size(), 0);
  assert_string_equal(r.err.c_str(), "");

  r = simulate({test_spec("rheonomic_pendulum"), "--dt", "1e-2", "--project", "none", "--summary-json", "-"});
  assert_int_equal(r.status, 0);
  s = parse(r.out);
  assert_gt(s["max_phi"].num(), 1e-6);
  assert_int_equal(s["warnings"].items.size(), 1);
  assert_contains(s["warnings"][0].str(), "constraints drifted: max |phi[1]|");
  assert_contains(r.err, "lagrangec: warning: the constraints drifted: max |phi[1]| = ");
  assert_true(s["strict"].kind == json::Value::boolean && !s["strict"].b);
  // --strict: the same run fails, with the same words as an error.
  r = simulate({test_spec("rheonomic_pendulum"), "--dt", "1e-2", "--project", "none", "--strict", "--summary-json",
                "-"});
  assert_int_equal(r.status, 1);
  assert_contains(r.err, "lagrangec: error (--strict): the constraints drifted: max |phi[1]| = ");
  assert_true(parse(r.out)["strict"].b);
}

// Every contact's penetration, on or off, in the summary and the JSON: the
// smallest phi over the run. The tilted rod stays out (to round-off); the
// ball resting on the moving table under rk4 h = 0.05 without any
// correction sinks into it (a warning, a fault with --strict); a model
// without contacts has none (null).
void contacts_report_how_far_inside_they_went(void **) {
  json::Value rod = summary({spec("flat_rod"), "--param", "th0=0.3", "--t-end", "3", "--quiet"});
  for (auto name : {"phi[contact1]", "phi[contact2]"})
    check(rod["min_contact_phi"][name].num() >= -1e-12, "%s: min %.3g", name, rod["min_contact_phi"][name].num());
  assert_int_equal(rod["warnings"].items.size(), 0);
  const std::vector<std::string> sinking = {spec("moving_table"), "--param", "A=0.01", "--t-end", "10", "--dt",
                                            "0.05", "--project", "none", "--baumgarte", "off", "--summary-json", "-"};
  Result r = simulate(sinking);
  assert_int_equal(r.status, 0);
  json::Value s = parse(r.out);
  check(s["min_contact_phi"]["phi[contact1]"].num() < -1e-6, "min phi[contact1] = %.3g: not inside",
        s["min_contact_phi"]["phi[contact1]"].num());
  assert_contains(s["warnings"][s["warnings"].items.size() - 1].str(), "a contact went inside: min phi[contact1] = ");
  assert_contains(r.err, "lagrangec: warning: a contact went inside: min phi[contact1] = ");
  std::vector<std::string> strict = sinking;
  strict.push_back("--strict");
  r = simulate(strict);
  assert_int_equal(r.status, 1);
  assert_contains(r.err, "lagrangec: error (--strict): a contact went inside: min phi[contact1] = ");
  fs::path png = group_dir() / "flat_rod.png";
  Result text = simulate({spec("flat_rod"), "--t-end", "1", "--plot", png.string()});
  assert_int_equal(text.status, 0);
  assert_png(png);
  assert_contains(text.out, "contacts:         min phi over every accepted step and sample, on or off (below 0: "
                            "inside)\n  phi[contact1]   ");
  assert_json_null(summary({spec("pendulum"), "--t-end", "0.1", "--quiet"})["min_contact_phi"], "min_contact_phi");
}

// Coordinates called phi1, g1, energy, Fc_x, Fc and phi: still one column each.
void csv_columns_are_unique(void **) {
  fs::path csv = group_dir() / "names.csv";
  Result r = simulate({test_spec("column_names"), "--t-end", "0.1", "--out", csv.string(), "--quiet"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  std::string header = lines_of(slurp(csv))[0];
  assert_string_equal(header.c_str(),
                      "t,phi1,g1,energy,Fc_x,x,Fc,phi,phi1',g1',energy',Fc_x',x',Fc',phi',phi[1],phi[1]',g[1],"
                      "T+V,lambda[1],mu[1],Fc[phi1],Fc[g1],Fc[energy],Fc[Fc_x],Fc[x],Fc[Fc],Fc[phi]");
  std::set<std::string> names;
  std::istringstream in(header);
  size_t n = 0;
  for (std::string c; std::getline(in, c, ','); ++n) names.insert(c);
  assert_int_equal(names.size(), n);
}

// Outputs are CSV columns after Fc; events go to --events and the summary;
// a stop ends the CSV at the event.
void outputs_and_events_reach_the_files(void **) {
  fs::path csv = group_dir() / "events_run.csv", events = group_dir() / "events.csv";
  Result r = simulate({test_spec("pendulum_events"), "--t-end", "5", "--dt", "1e-3", "--out", csv.string(),
                       "--events", events.string(), "--summary-json", "-"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  std::vector<std::string> rows = lines_of(slurp(csv));
  assert_string_equal(rows[0].c_str(),
                      "t,x,y,x',y',phi[1],phi[1]',T+V,lambda[1],Fc[x],Fc[y],tension,energy,angular_momentum");
  assert_int_equal(rows.back().rfind("2.5,", 0), 0);  // the stop, at t_stop = 2.5
  std::vector<std::string> met = lines_of(slurp(events));
  assert_string_equal(met[0].c_str(), "event,t,x,y,x',y'");
  assert_int_equal(met.size(), 5);  // three crossings, then the stop
  for (int i = 1; i <= 3; ++i) assert_int_equal(met[i].rfind("crossing,", 0), 0);
  assert_int_equal(met[4].rfind("end,2.5,", 0), 0);
  json::Value s = parse(r.out);
  assert_string_equal(s["stopped_by"].str().c_str(), "end");
  assert_int_equal(long(s["events"]["crossing"]["count"].num()), 3);
  assert_le(std::fabs(s["outputs"]["energy"]["final"].num() - s["outputs"]["energy"]["min"].num()), 1e-6);
  // A spec without [events] has nothing to write there.
  r = simulate({spec("pendulum"), "--t-end", "0.1", "--events", events.string()});
  assert_int_equal(r.status, 2);
  assert_contains(r.err, "--events: the spec has no [events] and no contacts");
  // A contact may start apart (the ball above the floor), not inside.
  r = simulate({spec("bouncing_ball"), "--t-end", "0.1", "--init", "y=-0.1"});
  assert_int_equal(r.status, 1);
  assert_contains(r.err, "violates contact constraint 1: y (phi[contact1] = -0.1 at t = 0");
  r = simulate({spec("bouncing_ball"), "--t-end", "1", "--events", events.string(), "--quiet"});
  assert_int_equal(r.status, 0);
  met = lines_of(slurp(events));
  assert_int_equal(met[1].rfind("impact[contact1],0.4515236", 0), 0);  // sqrt(2 h/g)
}

// The thrown ball (tests/runtime/specs/throw.toml) passes z = 1 on the way
// up and down, 0.47 s apart: at the default tolerances dopri5's and adams's
// steps straddle both; with --max-step 0.1 every adaptive method finds both,
// at their times to 1e-8, and reports no longer step (h_max) in its summary.
void a_maximum_step_finds_events_a_step_would_straddle(void **) {
  const double g = 9.81, root = std::sqrt(25.0 - 2.0 * g);
  const double t_up = (5.0 - root) / g, t_down = (5.0 + root) / g, max_step = 0.1;
  fs::path events = group_dir() / "throw_events.csv";
  for (auto method : {"dopri5", "adams", "bdf"}) {
    json::Value s = summary({test_spec("throw"), "--method", method, "--t-end", "1", "--max-step", "0.1", "--events",
                             events.string(), "--quiet"});
    assert_eq(s["max_step"].num(), max_step);
    assert_le(s["h_max"].num(), max_step + 4 * 2.2e-16);
    assert_int_equal(long(s["events"]["up"]["count"].num()), 1);
    assert_int_equal(long(s["events"]["down"]["count"].num()), 1);
    const double up = s["events"]["up"]["first"].num(), down = s["events"]["down"]["first"].num();
    check(std::fabs(up - t_up) <= 1e-8 && std::fabs(down - t_down) <= 1e-8,
          "%s: up at %.17g (%.17g), down at %.17g (%.17g)", method, up, t_up, down, t_down);
    std::vector<std::string> met = lines_of(slurp(events));
    assert_int_equal(met.size(), 3);
    assert_int_equal(met[1].rfind("up,0.27324335", 0), 0);
    assert_int_equal(met[2].rfind("down,0.74612463", 0), 0);
    // Without the bound the summary says there is none.
    json::Value free_run = summary({test_spec("throw"), "--method", method, "--t-end", "1", "--quiet"});
    assert_json_null(free_run["max_step"], "max_step");
  }
  Result text = simulate({test_spec("throw"), "--t-end", "1", "--max-step", "0.1"});
  assert_int_equal(text.status, 0);
  assert_contains(text.out, "method:           dopri5, rtol = 1e-08, atol = 1e-10, max step 0.1\n");
  // rk4's steps are --dt: a bound at or above it holds, one below it is refused.
  json::Value rk4 = summary({test_spec("throw"), "--dt", "0.01", "--t-end", "1", "--max-step", "0.01", "--quiet"});
  assert_le(rk4["h_max"].num(), 0.01 + 4 * 2.2e-16);
}

// Contacts through the programs: a restitution set with --param (e = 0: the
// ball on the table rests at its first impact), one outside [0, 1] refused
// at the start, an impact with a nonholonomic row under both formulations,
// and linearize's note that it holds the contacts on.
void contacts_take_their_parameters_and_linearize_says_what_it_holds(void **) {
  json::Value plastic = summary({spec("moving_table"), "--param", "e=0", "--t-end", "0.5", "--quiet"});
  assert_int_equal(long(plastic["events"]["impact[contact1]"]["count"].num()), 1);
  json::Value elastic = summary({spec("moving_table"), "--t-end", "0.5", "--quiet"});
  assert_true(elastic["events"]["impact[contact1]"]["count"].num() > 1);
  Result refused = simulate({spec("flat_rod"), "--param", "e2=1.5", "--t-end", "1", "--quiet"});
  assert_int_equal(refused.status, 1);
  assert_contains(refused.err, "a contact's restitution is outside [0, 1] at the run's parameters");
  // The sled into its wall under the vakonomic formulation too: back along its heading at e u.
  fs::path met = group_dir() / "sled_events.csv";
  for (auto formulation : {"dalembert", "vakonomic"}) {
    Result sled = simulate({test_spec("sled_wall"), "--formulation", formulation, "--t-end", "1.5", "--rtol", "1e-12",
                            "--atol", "1e-13", "--events", met.string(), "--quiet"});
    assert_int_equal(sled.status, 0);
    std::vector<std::string> rows = lines_of(slurp(met));
    assert_int_equal(rows.size(), 2);
    double v[7];
    check(std::sscanf(rows[1].c_str(), "impact[contact1],%lf,%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3],
                      &v[4], &v[5], &v[6]) == 7, "%s: %s", formulation, rows[1].c_str());
    check(std::fabs(v[4] + 0.5 * std::cos(2.5)) <= 1e-9 && std::fabs(v[5] + 0.5 * std::sin(2.5)) <= 1e-9
              && std::fabs(v[6]) <= 1e-12,
          "%s: after the impact x' = %.17g, y' = %.17g, th' = %.17g", formulation, v[4], v[5], v[6]);
  }
  std::vector<std::string> env = cache_env();
  Result lin = run({lagrangec, "linearize", spec("bouncing_ball"), "--at", "y=0"}, env);
  assert_int_equal(lin.status, 0);
  assert_contains(lin.err, "note: contacts held on, as two-sided rows (the motion in contact, valid while each "
                           "pushes): contact1 lambda = 9.81 (pushes)");
  Result pulled = run({lagrangec, "linearize", spec("bouncing_ball"), "--at", "y=0", "--param", "g=-1"}, env);
  assert_int_equal(pulled.status, 0);
  assert_contains(pulled.err, "contact1 lambda = -1 (pulls: it lets go here, and the motion is not this one)");
}

// A friction contact's mode is a CSV column and its switches are events, in
// --events and the summary; linearize says it holds the contact sticking;
// a coefficient a run's --param puts out of range refuses the start.
void friction_modes_reach_the_files(void **) {
  fs::path csv = group_dir() / "bowling.csv", events = group_dir() / "bowling_events.csv";
  Result r = simulate({spec("bowling_ball"), "--t-end", "2", "--out", csv.string(), "--events", events.string(),
                       "--summary-json", "-"});
  if (r.status != 0) fail_msg("exit %d: %s", r.status, r.err.c_str());
  std::vector<std::string> rows = lines_of(slurp(csv));
  assert_string_equal(rows[0].c_str(), "t,x,theta,x',theta',g[lane],T+V,mu[lane],Fc[x],Fc[theta],mode[lane]");
  assert_int_equal(rows[1].substr(rows[1].rfind(',')).compare(",1"), 0);     // thrown: it slides
  assert_int_equal(rows.back().substr(rows.back().rfind(',')).compare(",0"), 0);  // then it rolls
  std::vector<std::string> met = lines_of(slurp(events));
  assert_int_equal(met.size(), 2);
  assert_int_equal(met[1].rfind("stick[lane],1.16499199068", 0), 0);  // 8/(3.5 mu g)
  json::Value s = parse(r.out);
  assert_int_equal(long(s["events"]["stick[lane]"]["count"].num()), 1);
  assert_int_equal(long(s["events"]["slide[lane]"]["count"].num()), 0);
  Result refused = simulate({spec("disk_link"), "--param", "mu_k=0.2", "--t-end", "1", "--quiet"});
  assert_int_equal(refused.status, 1);
  assert_contains(refused.err, "a friction coefficient is negative, or the kinetic one above the static one");
  Result lin = run({lagrangec, "linearize", spec("disk_link"), "--at", "s=0", "--at", "x=0"}, cache_env());
  assert_int_equal(lin.status, 0);
  assert_contains(lin.err, "note: friction contacts held sticking");
}

// The summary is JSON: a model without an integral says why, with no drift;
// a missing value is null, not NaN.
void the_summary_is_json(void **) {
  fs::path file = group_dir() / "bead.json";
  Result r = simulate({spec("bead_hoop"), "--t-end", "1", "--summary-json", file.string()});
  assert_int_equal(r.status, 0);
  // the human summary still goes to stdout
  assert_contains(r.out, "integral:         not conserved: holonomic constraint 2 depends on t: it does work\n");
  json::Value s = parse(slurp(file));
  assert_string_equal(s["not_conserved"].str().c_str(), "holonomic constraint 2 depends on t: it does work");
  check(!s.members.count("energy_drift"), "the bead's summary has an energy drift");
  assert_json_null(s["max_g"], "max_g");
  assert_json_null(s["fault"], "fault");
  assert_string_equal(s["model"].str().c_str(), "bead_hoop");
  assert_string_equal(s["method"].str().c_str(), "dopri5");
  assert_json_null(s["h"], "h");
  assert_gt(s["rhs_evaluations"].num(), s["steps"].num());
  assert_eq(s["final_t"].num(), 1);
  for (auto name : {"x", "y", "z", "x'", "y'", "z'"}) assert_le(std::fabs(s["final_state"][name].num()), 10);
}

// --method bdf and adams: SUNDIALS CVODE on the model's generated Jacobian,
// Newton's counters in the summary; null for the methods without them. Every
// method, linearize and eval run the one program of the model: one cache entry.
void implicit_methods_count_their_newton_iterations(void **) {
  fs::path cache = group_dir() / "cache";
  for (auto method : {"bdf", "adams"}) {
    json::Value s = summary({spec("spring_pendulum"), "--method", method, "--rtol", "1e-6", "--t-end", "1"});
    assert_string_equal(s["method"].str().c_str(), method);
    assert_gt(s["jacobian_evaluations"].num(), 0);
    assert_ge(s["newton_iterations"].num(), s["steps"].num());
    assert_ge(s["convergence_failures"].num(), 0);
    assert_json_null(s["h"], "h");
  }
  json::Value d = summary({spec("spring_pendulum"), "--method", "dopri5", "--t-end", "0.01"});
  for (auto name : {"jacobian_evaluations", "newton_iterations", "convergence_failures"})
    assert_json_null(d[name], name);
  for (const char *command : {"linearize", "eval"}) {
    Result r = run({lagrangec, command, spec("spring_pendulum")}, cache_env());
    if (r.status != 0) fail_msg("%s: exit %d: %s", command, r.status, r.err.c_str());
  }
  int entries = 0;
  for (auto &e : fs::directory_iterator(cache)) entries += e.path().filename().string().rfind("spring_pendulum-", 0) == 0;
  assert_int_equal(entries, 1);
  Result text = simulate({spec("spring_pendulum"), "--method", "bdf", "--t-end", "0.1"});
  assert_int_equal(text.status, 0);
  assert_contains(text.out, "method:           bdf (SUNDIALS CVODE)");
  assert_contains(text.out, "Newton:");
}

void mistakes_get_a_message_and_an_exit_status(void **) {
  Result unknown = simulate({spec("pendulum"), "--param", "mass=2"});
  assert_int_equal(unknown.status, 2);
  assert_contains(unknown.err, "unknown parameter 'mass'");
  assert_contains(unknown.err, "m, l, g");
  assert_int_equal(simulate({spec("pendulum"), "--method", "euler"}).status, 2);
  assert_int_equal(simulate({spec("pendulum"), "--rtol", "0", "--atol", "0"}).status, 2);
  // Runs that would never end, or start from NaN, are refused before they start.
  assert_int_equal(simulate({spec("pendulum"), "--t-end", "inf"}).status, 2);
  assert_int_equal(simulate({spec("pendulum"), "--dt", "1e-300"}).status, 2);
  assert_int_equal(simulate({spec("pendulum"), "--sample", "1e-300"}).status, 2);
  assert_int_equal(simulate({spec("pendulum"), "--init", "x=nan"}).status, 2);
  assert_int_equal(simulate({spec("pendulum"), "--baumgarte", "nan,nan"}).status, 2);
  // --max-step: a number above 0, finite, in range, and no shorter than --dt or the round-off of t.
  for (auto bad : {"0", "-0.1", "nan", "inf", "-inf", "1e999", "0.1s", "", "abc"}) {
    Result r = simulate({spec("pendulum"), "--max-step", bad});
    assert_int_equal(r.status, 2);
    assert_string_equal(r.err.c_str(), ("lagrangec: bad value '" + std::string(bad) + "' for --max-step\n").c_str());
  }
  for (auto method : {"rk4", "dopri5", "adams", "bdf"}) {
    Result r = simulate({spec("pendulum"), "--method", method, "--dt", "0.01", "--max-step", "0.001"});
    assert_int_equal(r.status, 2);
    assert_contains(r.err, "lagrangec: --dt 0.01 is longer than --max-step 0.001: no step may be longer than H");
  }
  Result tiny = simulate({spec("pendulum"), "--max-step", "1e-300"});
  assert_int_equal(tiny.status, 2);
  assert_contains(tiny.err, "--max-step is below the round-off of t at --t-end");
  // x_dot is x': a name a shell does not trip over.
  json::Value s = summary({spec("oscillator"), "--init", "q_dot=0.5", "--t-end", "0.1", "--quiet"});
  assert_eq(s["initial_state"]["q'"].num(), 0.5);
  // An output that is the spec, by its name or another (a hard link), is refused; the spec stays.
  fs::path copy = write_spec("mine", slurp(spec("pendulum"))), link = group_dir() / "link.csv";
  fs::create_hard_link(copy, link);
  for (auto out : {copy, link})
    for (auto option : {"--out", "--plot", "--summary-json"}) {
      Result r = simulate({copy.string(), option, out.string()});
      assert_int_equal(r.status, 2);
      assert_contains(r.err, "writing it would destroy the spec");
    }
  assert_string_equal(slurp(copy).c_str(), slurp(spec("pendulum")).c_str());
  // A path longer than PATH_MAX is refused, not cut short.
  Result longer = simulate({spec("pendulum"), "--out", "/tmp/" + std::string(5000, 'a') + ".csv"});
  assert_int_equal(longer.status, 2);
  assert_contains(longer.err, "longer than PATH_MAX");
  fs::path bad = scratch("bad") / "typo.toml";
  std::ofstream(bad) << "name = \"typo\"\ncoordinates = [\"x\"]\nkinetic = \"x'^2/2 +\"\n";
  Result typo = simulate({bad.string()});
  assert_int_equal(typo.status, 1);
  check(typo.err.rfind(bad.string() + ":3:", 0) == 0, "the message does not start with %s:3: %s", bad.c_str(),
        typo.err.c_str());
  fs::remove_all(bad.parent_path());
}

// --dt without --method chooses fixed-step rk4 and says so on stderr, once
// (users take --dt for the output interval); --method or --quiet, no note;
// --help says it too.
void dt_alone_says_it_chose_rk4(void **) {
  const std::vector<std::string> base = {spec("pendulum"), "--t-end", "0.1", "--dt", "1e-2", "--out",
                                         (group_dir() / "dt_note.csv").string()};
  Result r = simulate(base);
  assert_int_equal(r.status, 0);
  assert_contains(r.err, "lagrangec: note: --dt 0.01 without --method: fixed-step rk4, every step 0.01 "
                         "(--sample sets the output interval;");
  for (const std::vector<std::string> &more : {std::vector<std::string>{"--method", "rk4"}, {"--quiet"}}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), more.begin(), more.end());
    Result q = simulate(args);
    assert_int_equal(q.status, 0);
    check(q.err.find("note:") == std::string::npos, "with %s: %s", more[0].c_str(), q.err.c_str());
  }
  Result help = simulate({"--help"});
  assert_contains(help.out, "--dt without --method chooses");
}

// On a terminal (script(1) gives it one), a cold cache shows a progress
// line while the model is generated and compiled, cleared after; on a pipe,
// or with --quiet, nothing.
void a_cold_cache_shows_progress_on_a_terminal(void **) {
  if (!fs::exists("/usr/bin/script")) {
    print_message("skipped: no script(1) to give the run a terminal\n");
    skip();
  }
  Result probe = run({"/usr/bin/script", "-qec", "true", "/dev/null"});
  if (probe.status != 0) {  // a chroot without /dev/pts
    print_message("skipped: script(1) cannot open a terminal here (exit %d): %s\n", probe.status, probe.err.c_str());
    skip();
  }
  const std::string csv = (group_dir() / "progress.csv").string();
  auto command = [&](const std::string &cache, const std::string &more) {
    return "LAGRANGEC_CACHE=" + cache + " " + lagrangec + " simulate " + spec("pendulum") + " --t-end 0.1 --out " + csv +
           more;
  };
  Result tty = run({"/usr/bin/script", "-qec", command(scratch("progress-tty").string(), ""), "/dev/null"});
  check(tty.status == 0, "on a terminal: exit %d:\n%s%s", tty.status, tty.out.c_str(), tty.err.c_str());
  for (const char *part : {"\r\033[Klagrangec: generating pendulum's C (once: the program is cached)...",
                           "\r\033[Klagrangec: compiling pendulum (", "\r\033[K\r"})
    check(tty.out.find(part) != std::string::npos, "no '%s' on the terminal:\n%s", part, tty.out.c_str());
  Result quiet = run({"/usr/bin/script", "-qec", command(scratch("progress-quiet").string(), " --quiet"), "/dev/null"});
  assert_int_equal(quiet.status, 0);
  check(quiet.out.find("generating") == std::string::npos, "--quiet on a terminal:\n%s", quiet.out.c_str());
  Result pipe = run({lagrangec, "simulate", spec("pendulum"), "--t-end", "0.1", "--out", csv},
                    {"LAGRANGEC_CACHE=" + scratch("progress-pipe").string()});
  assert_int_equal(pipe.status, 0);
  check(pipe.err.find("generating") == std::string::npos, "on a pipe:\n%s", pipe.err.c_str());
}

// A planar rolling wheel (specs/incline_wheel.toml): a uniform disk from
// rest down an incline of angle alpha has x'' = (2/3) g sin(alpha), so x(T) =
// a T^2/2 and x'(T) = a T, and rolls, th' = x'/r; its one rolling row (the
// contact and lateral rows are 0 at every state, left out), for both
// formulations, every stepper and correction. The integrable row is said.
void a_planar_wheel_rolls_down_an_incline(void **) {
  const double T = 2, a = 2.0 / 3.0 * 9.81 * std::sin(0.3), radius = 0.5;
  for (const char *formulation : {"dalembert", "vakonomic"})
    for (const std::vector<std::string> &method : {std::vector<std::string>{"--method", "rk4", "--dt", "1e-3"},
                                                   {"--method", "dopri5"}, {"--method", "adams"}, {"--method", "bdf"}})
      for (const char *project : {"none", "velocity", "full"}) {
        std::vector<std::string> args = {spec("incline_wheel"), "--formulation", formulation, "--project", project,
                                         "--rtol", "1e-10", "--atol", "1e-12", "--t-end", "2", "--out",
                                         (group_dir() / "incline.csv").string(), "--summary-json", "-"};
        args.insert(args.end(), method.begin(), method.end());
        Result r = simulate(args);
        const std::string what = std::string(formulation) + " " + method[1] + " --project " + project;
        if (r.status != 0) fail_msg("%s: exit %d: %s", what.c_str(), r.status, r.err.c_str());
        json::Value s = parse(r.out);
        const json::Value &x = s["final_state"];
        check(std::fabs(x["x"].num() - a * T * T / 2) <= 1e-9 && std::fabs(x["x'"].num() - a * T) <= 1e-9 &&
                  std::fabs(x["th'"].num() - x["x'"].num() / radius) <= 1e-9,
              "%s: x = %.17g, x' = %.17g, th' = %.17g; expected %.17g, %.17g, x'/r", what.c_str(), x["x"].num(),
              x["x'"].num(), x["th'"].num(), a * T * T / 2, a * T);
        check(s["max_residuals"].members.size() == 1, "%s: %zu constraint rows, expected the one no-slip row",
              what.c_str(), s["max_residuals"].members.size());
      }
  Result warned = run({lagrangec, "simulate", spec("incline_wheel"), "--t-end", "0.1", "--quiet", "--out",
                       (group_dir() / "incline.csv").string()},
                      {"LAGRANGEC_CACHE=" + scratch("incline-cache").string()});  // a cold cache: it generates
  assert_contains(warned.err, "rolling wheel 'disk': no slip along N.x is integrable");
  assert_contains(warned.err, "or keep [rolling] as it is");
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(knife_edge_meets_its_bounds_and_writes_csv_and_png),
      cmocka_unit_test(pendulum_full_correction_stays_on_the_circle),
      cmocka_unit_test(second_run_reuses_the_compiled_simulator),
      cmocka_unit_test(help_needs_no_spec_and_no_compile),
      cmocka_unit_test(a_failed_run_says_when_and_keeps_its_csv),
      cmocka_unit_test(titles_are_text_to_gnuplot),
      cmocka_unit_test(plot_panels_have_their_own_axes_and_the_path),
      cmocka_unit_test(plot_panels_are_never_empty_and_gaps_are_gaps),
      cmocka_unit_test(plot_columns_choose_the_panels),
      cmocka_unit_test(plot_columns_are_checked),
      cmocka_unit_test(a_plot_that_cannot_be_made_stops_before_the_run),
      cmocka_unit_test(a_usage_error_keeps_the_previous_results),
      cmocka_unit_test(the_summary_json_reads_nothing_uninitialised),
      cmocka_unit_test(temporaries_are_removed_on_every_exit),
      cmocka_unit_test(the_fixed_step_is_the_step),
      cmocka_unit_test(a_full_disk_leaves_whole_rows),
      cmocka_unit_test(the_start_is_checked_and_completed),
      cmocka_unit_test(the_integral_reported_is_the_models),
      cmocka_unit_test(consistent_checks_the_rows_it_cannot_change),
      cmocka_unit_test(copies_of_a_row_are_redundant_not_too_many),
      cmocka_unit_test(constraints_are_kept_by_default),
      cmocka_unit_test(csv_columns_are_unique),
      cmocka_unit_test(the_summary_is_json),
      cmocka_unit_test(outputs_and_events_reach_the_files),
      cmocka_unit_test(a_maximum_step_finds_events_a_step_would_straddle),
      cmocka_unit_test(contacts_take_their_parameters_and_linearize_says_what_it_holds),
      cmocka_unit_test(friction_modes_reach_the_files),
      cmocka_unit_test(contacts_report_how_far_inside_they_went),
      cmocka_unit_test(implicit_methods_count_their_newton_iterations),
      cmocka_unit_test(mistakes_get_a_message_and_an_exit_status),
      cmocka_unit_test(dt_alone_says_it_chose_rk4),
      cmocka_unit_test(a_cold_cache_shows_progress_on_a_terminal),
      cmocka_unit_test(a_planar_wheel_rolls_down_an_incline),
  };
  return cmocka_run_group_tests(tests, group_dir_setup, group_dir_teardown);
}
