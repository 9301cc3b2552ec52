// test_cli.cpp — lagrangec as a user runs it: real processes, real files.
// Determinism across processes, the committed generated/ being fresh, the
// standalone compile of every generated .c, exit codes, and bad specs that
// must each get their expected message and leave nothing on disk.
#include <algorithm>
#include <fstream>

#include "process.hpp"

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

namespace fs = std::filesystem;

namespace {

std::string lagrangec = LAGRANGEC;

std::vector<fs::path> specs() {
  std::vector<fs::path> v;
  for (auto &e : fs::directory_iterator(SPECS_DIR))
    if (e.path().extension() == ".toml") v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> generate_args(const fs::path &dir) {
  std::vector<std::string> args = {lagrangec, "generate"};
  for (auto &s : specs()) args.push_back(s.string());
  args.push_back("-o");
  args.push_back(dir.string());
  return args;
}

void two_processes_write_identical_bytes(void **) {
  fs::path a = scratch("a"), b = scratch("b");
  assert_int_equal(run(generate_args(a)).status, 0);
  assert_int_equal(run(generate_args(b)).status, 0);
  int files = 0;
  for (auto &e : fs::directory_iterator(a)) {
    ++files;
    if (slurp(e.path()) != slurp(b / e.path().filename()))
      fail_msg("%s differs between two runs", e.path().filename().c_str());
  }
  assert_int_equal(files, 4 * int(specs().size()));
  fs::remove_all(a), fs::remove_all(b);
}

void committed_generated_is_fresh(void **) {
  fs::path fresh = scratch("fresh");
  assert_int_equal(run(generate_args(fresh)).status, 0);
  for (auto &e : fs::directory_iterator(fresh)) {
    fs::path committed = fs::path(GENERATED_DIR) / e.path().filename();
    if (!fs::exists(committed) || slurp(committed) != slurp(e.path()))
      fail_msg("generated/%s is stale: run `ninja -C build regenerate` and commit it", e.path().filename().c_str());
  }
  fs::remove_all(fresh);
}

// Each NAME.c compiles as strict C99 and links with -lm alone into a
// program that evaluates its right-hand side; its object calls no allocator.
void generated_c_is_standalone(void **) {
  fs::path dir = scratch("standalone");
  assert_int_equal(run(generate_args(dir)).status, 0);
  for (auto &spec : specs()) {
    std::string name = spec.stem().string(), upper = name;
    for (char &c : upper) c = char(std::toupper((unsigned char)c));
    fs::path c_file = dir / (name + ".c"), obj = dir / (name + ".o"), main_c = dir / ("main_" + name + ".c");
    Result cc = run({"cc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-c", c_file.string(), "-o", obj.string()});
    if (cc.status != 0) fail_msg("%s.c does not compile standalone:\n%s", name.c_str(), cc.err.c_str());
    Result nm = run({"nm", "-u", obj.string()});
    for (const char *f : {"malloc", "calloc", "realloc", "free"})
      if (nm.out.find(" " + std::string(f) + "\n") != std::string::npos) fail_msg("%s.o calls %s", name.c_str(), f);
    std::ofstream(main_c) << "#include \"" << name << ".h\"\n"
                          << "int main(void)\n{\n"
                          << "    double dxdt[" << upper << "_NX], mult[" << upper << "_NC + 1], work[" << upper
                          << "_NWORK], input[" << upper << "_NU + 1] = {0};\n"
                          << "    return " << name << "_rhs(0.0, " << name << "_initial_state, input, "
                          << (slurp(dir / (name + ".h")).find(name + "_param_defaults") != std::string::npos
                                  ? name + "_param_defaults"
                                  : std::string("0"))
                          << ", 1.0, 1.0, dxdt, mult, work);\n}\n";
    fs::path exe = dir / ("main_" + name);
    Result link = run({"cc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I", dir.string(),
                       main_c.string(), obj.string(), "-lm", "-o", exe.string()});
    if (link.status != 0) fail_msg("%s does not link with -lm alone:\n%s", name.c_str(), link.err.c_str());
    assert_int_equal(run({exe.string()}).status, 0);
  }
  fs::remove_all(dir);
}

void exit_codes(void **) {
  assert_int_equal(run({lagrangec, "--help"}).status, 0);
  assert_int_equal(run({lagrangec, "generate", "--help"}).status, 0);
  assert_int_equal(run({lagrangec, "equations", "--help"}).status, 0);
  assert_int_equal(run({lagrangec}).status, 2);
  assert_int_equal(run({lagrangec, "frobnicate"}).status, 2);
  assert_int_equal(run({lagrangec, "generate", std::string(SPECS_DIR) + "/pendulum.toml"}).status, 2);
  assert_int_equal(run({lagrangec, "generate", "--bogus"}).status, 2);
  Result eq = run({lagrangec, "equations", std::string(SPECS_DIR) + "/knife_edge.toml"});
  assert_int_equal(eq.status, 0);
  assert_true(eq.out.find("M = \\begin{pmatrix}") != std::string::npos);
  Result missing = run({lagrangec, "generate", "/nonexistent.toml", "-o", "/tmp"});
  assert_int_equal(missing.status, 1);
  assert_true(missing.err.find("/nonexistent.toml: error: cannot read the file: No such file") == 0);
  Result directory = run({lagrangec, "generate", SPECS_DIR, "-o", "/tmp"});
  assert_int_equal(directory.status, 1);
  assert_true(directory.err.find("is a directory, not a spec file") != std::string::npos);
  fs::path nested = scratch("exit_codes") / "a" / "b";  // -o creates what is missing
  assert_int_equal(run({lagrangec, "generate", std::string(SPECS_DIR) + "/pendulum.toml", "-o", nested}).status, 0);
  assert_true(fs::exists(nested / "pendulum.h"));
  fs::remove_all(nested.parent_path().parent_path());
}

// tests/gen/bad_specs/*.toml: line 1 is "# expect: MESSAGE", the exact first line
// of stderr with the spec's path written as {file}.
void bad_specs_get_their_message_and_write_nothing(void **) {
  int count = 0;
  std::vector<fs::path> files;
  for (auto &e : fs::directory_iterator(BAD_SPECS_DIR)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (auto &f : files) {
    if (f.extension() != ".toml") continue;
    ++count;
    std::string first;
    std::getline(std::ifstream(f), first);
    const std::string tag = "# expect: ";
    if (first.rfind(tag, 0) != 0) fail_msg("%s has no '# expect: ' line", f.c_str());
    std::string expected = first.substr(tag.size());
    expected.replace(expected.find("{file}"), 6, f.string());
    fs::path out = scratch("bad");
    Result r = run({lagrangec, "generate", f.string(), "-o", out.string()});
    std::string got = r.err.substr(0, r.err.find('\n'));
    if (r.status != 1 || got != expected)
      fail_msg("%s: exit %d, first line\n  got:      %s\n  expected: %s", f.filename().c_str(), r.status,
               got.c_str(), expected.c_str());
    if (!fs::is_empty(out)) fail_msg("%s: files were written", f.filename().c_str());
    fs::remove_all(out);
  }
  assert_true(count > 0);
}

// A megabyte of nested parentheses, and of nested TOML arrays: a message at
// the depth limit, not a stack overflow.
void megabyte_of_nesting_is_refused(void **) {
  const size_t half = 512 * 1024;
  const std::pair<std::string, std::string> cases[] = {
      {"name = \"deep\"\ncoordinates = [\"x\"]\nkinetic = \"" + std::string(half, '(') + "x'" +
           std::string(half, ')') + "\"\n",
       ":3:212: error: expression nested too deeply (more than 200 levels)"},
      {"name = \"deep\"\ncoordinates = " + std::string(half, '[') + "\"x\"" + std::string(half, ']') +
           "\nkinetic = \"x'^2\"\n",
       ":2:271: error: invalid TOML: Error while parsing value: exceeded maximum nested value depth of 256"},
  };
  fs::path dir = scratch("deep"), out = dir / "out";
  fs::create_directory(out);
  for (auto &[text, expected] : cases) {
    fs::path spec = dir / "deep.toml";
    std::ofstream(spec) << text;
    Result r = run({lagrangec, "generate", spec.string(), "-o", out.string()});
    std::string got = r.err.substr(0, r.err.find('\n'));
    if (r.status != 1 || got.rfind(spec.string() + expected, 0) != 0)
      fail_msg("exit %d, first line\n  got:      %s\n  expected: %s%s...", r.status, got.c_str(),
               spec.c_str(), expected.c_str());
    assert_true(fs::is_empty(out));
  }
  fs::remove_all(dir);
}

// Resource bounds: a 30-link chain in Cartesian coordinates (60
// coordinates, 30 length constraints) generates in about a second and 10 MB
// (measured); the test's timeout is the bound that catches a blow-up.
void thirty_link_chain(void **) {
  std::string coordinates, kinetic, potential, holonomic;
  for (int i = 1; i <= 30; ++i) {
    std::string x = "x" + std::to_string(i), y = "y" + std::to_string(i);
    std::string px = i > 1 ? "x" + std::to_string(i - 1) : "0", py = i > 1 ? "y" + std::to_string(i - 1) : "0";
    std::string sep = i > 1 ? ", " : "", plus = i > 1 ? " + " : "";
    coordinates += sep + "\"" + x + "\", \"" + y + "\"";
    kinetic += plus + x + "'^2 + " + y + "'^2";
    potential += plus + y;
    holonomic += sep + "\"(" + x + " - " + px + ")^2 + (" + y + " - " + py + ")^2 - l^2\"";
  }
  fs::path dir = scratch("chain"), spec = dir / "chain.toml";
  std::ofstream(spec) << "name = \"chain\"\ncoordinates = [" << coordinates << "]\nkinetic = \"m/2*(" << kinetic
                      << ")\"\npotential = \"m*g*(" << potential << ")\"\n[parameters]\nm = 1.0\nl = 1.0\ng = 9.81\n"
                      << "[constraints]\nholonomic = [" << holonomic << "]\n";
  Result r = run({lagrangec, "generate", spec.string(), "-o", dir.string()});
  if (r.status != 0) fail_msg("the chain failed:\n%s", r.err.c_str());
  fs::remove_all(dir);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(two_processes_write_identical_bytes),
      cmocka_unit_test(committed_generated_is_fresh),
      cmocka_unit_test(generated_c_is_standalone),
      cmocka_unit_test(exit_codes),
      cmocka_unit_test(bad_specs_get_their_message_and_write_nothing),
      cmocka_unit_test(megabyte_of_nesting_is_refused),
      cmocka_unit_test(thirty_link_chain),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
