// test_cli.cpp — lagrangec as a user runs it: real processes, real files.
// Determinism across processes, the committed generated/ being fresh, the
// strict C99 compile of every generated file, spec text that stays text in
// the C, exit codes, and bad specs that must each get their expected
// message and leave nothing on disk.
#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include <lagrangec/version.h>

#include "process.hpp"

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

namespace fs = std::filesystem;

namespace {

std::string lagrangec = LAGRANGEC;

std::vector<fs::path> specs() { return files_in(SPECS_DIR, ".toml"); }

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

// The equations report (NAME.md): numbers as the spec writes them (0.0025
// beside 0.003, not 1/400; 1/2 and 1/24 stay fractions); an unconstrained
// model has no "stabilised system", a constrained one has.
void the_report_prints_numbers_and_sections_as_written(void **) {
  fs::path dir = scratch("report");
  std::ofstream(dir / "free.toml") << "name = \"free\"\ncoordinates = [\"x\"]\nkinetic = \"m*x'^2/2\"\n"
                                      "potential = \"k*x^2/2 + 0.003*x + 0.0025*x^3 + x^4/24\"\n"
                                      "[parameters]\nm = 1.0\nk = 2.0\n";
  Result r = run({lagrangec, "generate", (dir / "free.toml").string(), (fs::path(SPECS_DIR) / "pendulum.toml").string(),
                  "-o", dir.string()});
  if (r.status != 0) fail_msg("generate: exit %d: %s", r.status, r.err.c_str());
  const std::string free = slurp(dir / "free.md"), pendulum = slurp(dir / "pendulum.md");
  for (const char *part : {"0.0025 {x}^{2}", "0.003", "\\frac{1}{24}", "\\frac{1}{2} k x", "State: $x = (q, \\dot q)$"})
    if (free.find(part) == std::string::npos) fail_msg("free.md has no '%s':\n%s", part, free.c_str());
  for (const char *part : {"\\frac{1}{400}", "stabilised system"})
    if (free.find(part) != std::string::npos) fail_msg("free.md has '%s':\n%s", part, free.c_str());
  if (pendulum.find("## The stabilised system") == std::string::npos)
    fail_msg("pendulum.md has no stabilised system:\n%s", pendulum.c_str());
  fs::remove_all(dir);
}

const std::vector<std::string> kStrictC99 = {"cc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"};

// Compiles (with `args`) under strict C99; fails the test with the
// compiler's message.
void compile(const std::string &what, std::vector<std::string> args) {
  args.insert(args.begin(), kStrictC99.begin(), kStrictC99.end());
  Result cc = run(args);
  if (cc.status != 0) fail_msg("%s does not compile as strict C99:\n%s", what.c_str(), cc.err.c_str());
}

// Each NAME.c and NAME_model.c compiles as strict C99, and NAME.c links
// with -lm alone into a program that calls every function with arrays
// declared by the header's sizes (the _ARRAY lengths where a count may be
// 0); NAME.c's object calls no allocator.
void generated_c_is_standalone(void **) {
  fs::path dir = scratch("standalone");
  assert_int_equal(run(generate_args(dir)).status, 0);
  for (auto &spec : specs()) {
    std::string name = spec.stem().string(), P = name;
    for (char &c : P) c = char(std::toupper((unsigned char)c));
    fs::path c_file = dir / (name + ".c"), obj = dir / (name + ".o"), main_c = dir / ("main_" + name + ".c");
    compile(name + ".c", {"-c", c_file.string(), "-o", obj.string()});
    compile(name + "_model.c", {"-I", dir.string(), "-I", RUNTIME_INCLUDE, "-c", (dir / (name + "_model.c")).string(),
                                "-o", (dir / (name + "_model.o")).string()});
    Result nm = run({"nm", "-u", obj.string()});
    for (const char *f : {"malloc", "calloc", "realloc", "free"})
      if (nm.out.find(" " + std::string(f) + "\n") != std::string::npos) fail_msg("%s.o calls %s", name.c_str(), f);
    std::string n = name + "_", N = P + "_";
    std::ofstream(main_c)
        << "#include <math.h>\n#include \"" << name << ".h\"\n"
        << "int main(void)\n{\n"
        << "    double x[" << N << "NX], dxdt[" << N << "NX], multipliers[" << N << "NC_ARRAY], work[" << N << "NWORK];\n"
        << "    double input[" << N << "NU_ARRAY] = {0}, param[" << N << "NP_ARRAY] = {0};\n"
        << "    double phi[" << N << "NH_ARRAY], phi_dot[" << N << "NH_ARRAY], g[" << N << "NN_ARRAY];\n"
        << "    double M[" << N << "NQ*" << N << "NQ], C[" << N << "NC_ARRAY*" << N << "NQ], D[" << N << "NC_ARRAY*" << N
        << "NQ];\n"
        << "    double f[" << N << "NQ], r[" << N << "NC_ARRAY], dzdt[" << N << "NN_ARRAY];\n"
        << "    double dfdx[" << N << "NX*" << N << "NX], dfdu[" << N << "NX*" << N << "NU_ARRAY], jacobian_work[" << N
        << "NWORK_JACOBIAN];\n"
        << "    int i, status;\n"
        << "#if " << N << "NP > 0\n"
        << "    for (i = 0; i < " << N << "NP; ++i) param[i] = " << n << "param_defaults[i];\n"
        << "#endif\n"
        << "    " << n << "initial_state_at(param, x);\n"
        << "    for (i = 0; i < " << N << "NX; ++i)\n"
        << "        if (fabs(x[i] - " << n << "initial_state[i]) > 1e-15*(1 + fabs(x[i]))) return 10;\n"
        << "    status = " << n << "rhs(0.0, x, input, param, " << N << "ALPHA, " << N << "BETA, dxdt, multipliers, work);\n"
        << "    if (status != " << N << "OK) return 11;\n"
        << "    status = " << n << "jacobian(0.0, x, input, param, " << N << "ALPHA, " << N
        << "BETA, dfdx, dfdu, jacobian_work);\n"
        << "    if (status != " << N << "OK) return 12;\n"
        << "    " << n << "kkt_terms(0.0, x, input, param, " << N << "ALPHA, " << N << "BETA, M, f, C, r, dzdt);\n"
        << "    " << n << "residuals(0.0, x, param, phi, phi_dot, g);\n"
        << "    " << n << "mass_matrix(0.0, x, param, M);\n"
        << "    " << n << "constraint_jacobian(0.0, x, param, C);\n"
        << "    " << n << "constraint_coordinate_jacobian(0.0, x, param, D);\n"
        << "#ifdef " << N << "NWORK_CORRECTION\n"
        << "    {\n"
        << "        double correction_work[" << N << "NWORK_CORRECTION], K[" << N << "NC], d[" << N << "NQ];\n"
        << "        int mass_metric;\n"
        << "        for (mass_metric = 0; mass_metric < 2; ++mass_metric) {\n"
        << "            " << n << "mass_matrix(0.0, x, param, M);\n"
        << "            status = " << n << "correction_factor(mass_metric, M, C, correction_work);\n"
        << "#ifdef " << N << "NREDUNDANT\n"
        << "            if (status == " << N << "SINGULAR_CONSTRAINTS) continue;  /* dependent rows: the caller's SVD */\n"
        << "#endif\n"
        << "            if (status != " << N << "OK) return 14;\n"
        << "            for (i = 0; i < " << N << "NC; ++i) K[i] = 1.0;\n"
        << "            " << n << "correction_solve(mass_metric, " << N << "NC, M, C, correction_work, K, d);\n"
        << "            for (i = 0; i < " << N << "NQ; ++i)\n"
        << "                if (!(fabs(d[i]) < 1e300)) return 15;\n"
        << "        }\n"
        << "    }\n"
        << "#endif\n"
        << "#ifdef " << N << "NWORK_STEP\n"
        << "    {\n"
        << "        double stepped[" << N << "NX], step_work[" << N << "NWORK_STEP];\n"
        << "        int mass_metric;\n"
        << "        for (mass_metric = 0; mass_metric < 2; ++mass_metric) {\n"
        << "            for (i = 0; i < " << N << "NX; ++i) stepped[i] = x[i];\n"
        << "            status = " << n << "step(0.0, stepped, input, param, " << N << "ALPHA, " << N
        << "BETA, 1e-3, mass_metric, step_work);\n"
        << "            if (status != " << N << "OK) return 16;\n"
        << "            for (i = 0; i < " << N << "NX; ++i)\n"
        << "                if (!(fabs(stepped[i]) < 1e300)) return 17;\n"
        << "        }\n"
        << "    }\n"
        << "#endif\n"
        << "    return " << n << "energy(0.0, x, param) == " << n << "energy(0.0, x, param) ? 0 : 13;\n"
        << "}\n";
    fs::path exe = dir / ("main_" + name);
    compile("main_" + name + ".c", {"-I", dir.string(), main_c.string(), obj.string(), "-lm", "-o", exe.string()});
    Result program = run({exe.string()});
    if (program.status != 0) fail_msg("main_%s exits %d", name.c_str(), program.status);
  }
  fs::remove_all(dir);
}

// Text from the spec reaches the C as comments and string literals: a title
// with a trigraph (??/ is a backslash in C99), a carriage return, quotes,
// a backslash and comment delimiters, and a constraint written over lines,
// compile warning-free and come back as written.
void spec_text_stays_text_in_the_c(void **) {
  fs::path dir = scratch("text"), spec = dir / "texts.toml";
  std::ofstream(spec) << "name = \"texts\"\n"
                         "title = \"a ?\?/ b\\r\\\"quoted\\\" c:\\\\ */ d /* e ?\?= f\\tg\"\n"
                         "coordinates = [\"x\", \"y\"]\nkinetic = \"(x'^2 + y'^2)/2\"\n"
                         "[constraints]\nholonomic = [\"\"\"x^2 +\n  y^2 - 1\"\"\"]\n";
  const std::string title = "a ?\?/ b\r\"quoted\" c:\\ */ d /* e ?\?= f\tg";
  Result g = run({lagrangec, "generate", spec.string(), "-o", dir.string()});
  if (g.status != 0) fail_msg("generate failed:\n%s", g.err.c_str());
  std::ofstream(dir / "main.c") << "#include <stdio.h>\n#include <string.h>\n#include <lagrangec/model.h>\n"
                                   "#include \"texts.h\"\n"
                                   "int main(void)\n{\n"
                                   "    fputs(texts_model.title, stdout);\n"
                                   "    fputs(\"|\", stdout);\n"
                                   "    fputs(texts_model.constraint_labels[0], stdout);\n"
                                   "    return 0;\n}\n";
  fs::path exe = dir / "texts";
  compile("the title's texts.c, texts_model.c and a main",
          {"-I", dir.string(), "-I", RUNTIME_INCLUDE, (dir / "texts.c").string(), (dir / "texts_model.c").string(),
           (dir / "main.c").string(), "-lm", "-o", exe.string()});
  Result r = run({exe.string()});
  assert_int_equal(r.status, 0);
  assert_string_equal(r.out.c_str(), (title + "|holonomic constraint 1: x^2 + y^2 - 1").c_str());
  fs::remove_all(dir);
}

// One version, meson's project(): lagrangec --version, the first line of
// every generated file, and the runtime library's lgc_version().
void one_version_everywhere(void **) {
  Result v = run({lagrangec, "--version"});
  assert_int_equal(v.status, 0);
  const std::string prefix = "lagrangec ";
  if (v.out.rfind(prefix, 0) != 0) fail_msg("--version printed %s", v.out.c_str());
  std::string version = v.out.substr(prefix.size(), v.out.find('\n') - prefix.size());
  assert_string_equal(lgc_version(), version.c_str());
  for (auto &f : fs::directory_iterator(GENERATED_DIR)) {
    if (f.path().filename() == "meson.build") continue;
    std::string first = slurp(f.path()).substr(0, 200);
    if (first.find("enerated by lagrangec " + version + " from") == std::string::npos)  // [Gg]enerated
      fail_msg("%s does not name version %s: %s", f.path().filename().c_str(), version.c_str(),
               first.substr(0, first.find('\n')).c_str());
  }
}

void exit_codes(void **) {
  assert_int_equal(run({lagrangec, "--help"}).status, 0);
  assert_int_equal(run({lagrangec, "generate", "--help"}).status, 0);
  assert_int_equal(run({lagrangec, "equations", "--help"}).status, 0);
  assert_int_equal(run({lagrangec}).status, 2);
  assert_int_equal(run({lagrangec, "frobnicate"}).status, 2);
  assert_int_equal(run({lagrangec, "generate", std::string(SPECS_DIR) + "/pendulum.toml"}).status, 2);
  assert_int_equal(run({lagrangec, "generate", "--bogus"}).status, 2);
  // --real names its bad value, and writes nothing.
  for (const char *value : {"single", "long double", ""}) {
    fs::path out = scratch("bad_real");
    Result r = run({lagrangec, "generate", std::string(SPECS_DIR) + "/pendulum.toml", "-o", out, "--real", value});
    const std::string expected = "lagrangec: --real takes double or float, not '" + std::string(value) + "'\n";
    if (r.status != 2 || r.err.rfind(expected, 0) != 0)
      fail_msg("--real '%s': exit %d, stderr\n%s", value, r.status, r.err.c_str());
    if (fs::exists(out) && !fs::is_empty(out)) fail_msg("--real '%s' wrote files", value);
    fs::remove_all(out);
  }
  Result no_value = run({lagrangec, "generate", std::string(SPECS_DIR) + "/pendulum.toml", "-o", "/tmp", "--real"});
  if (no_value.status != 2 || no_value.err.find("--real takes double or float, and nothing followed") == std::string::npos)
    fail_msg("--real with no value: exit %d, stderr\n%s", no_value.status, no_value.err.c_str());
  Result eq = run({lagrangec, "equations", std::string(SPECS_DIR) + "/knife_edge.toml"});
  assert_int_equal(eq.status, 0);
  if (eq.out.find("M = \\begin{pmatrix}") == std::string::npos) fail_msg("equations printed no M:\n%s", eq.out.c_str());
  Result missing = run({lagrangec, "generate", "/nonexistent.toml", "-o", "/tmp"});
  assert_int_equal(missing.status, 1);
  if (missing.err.find("/nonexistent.toml: error: cannot read the file: No such file") != 0)
    fail_msg("a missing spec: %s", missing.err.c_str());
  Result directory = run({lagrangec, "generate", SPECS_DIR, "-o", "/tmp"});
  assert_int_equal(directory.status, 1);
  if (directory.err.find("is a directory, not a spec file") == std::string::npos)
    fail_msg("a directory as the spec: %s", directory.err.c_str());
  fs::path nested = scratch("exit_codes") / "a" / "b";  // -o creates what is missing
  assert_int_equal(run({lagrangec, "generate", std::string(SPECS_DIR) + "/pendulum.toml", "-o", nested}).status, 0);
  if (!fs::exists(nested / "pendulum.h")) fail_msg("-o %s: no pendulum.h there", nested.c_str());
  fs::remove_all(nested.parent_path().parent_path());
}

// The stack warning: past StackEstimate::kBound (4096 bytes) for the
// 12-link chain of tests/gen/specs in double, whose Jacobian's block is the
// largest; not in float, nor for a small model. The estimate itself is
// checked against the cross-build's measured stack (tests/embed/cross_build.py),
// so here only its form. (The Bricard mechanism was past it until its
// Jacobian read the rhs's shared values instead of computing them.)
void stack_bound_warns(void **) {
  fs::path out = scratch("stack");
  const std::string spec = std::string(GEN_SPECS_DIR) + "/chain_frames12.toml";
  Result chain = run({lagrangec, "generate", spec, "-o", out});
  const std::regex expected(std::regex_replace(spec, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                            ": warning: the generated functions may take about [0-9]+ bytes of stack, past the bound "
                            "of 4096 that a controller's task may have \\(estimated: chain_frames12_residual_derivatives "
                            "holds [0-9]+ values of 8 bytes at once, a quarter more for the compiler's own, and the "
                            "routines around it up to 768\\); without chain_frames12_jacobian \\(--no-jacobian\\) it is "
                            "smaller\n");
  if (chain.status != 0 || !std::regex_search(chain.err, expected))
    fail_msg("the 12-link chain in double: exit %d, stderr:\n%s", chain.status, chain.err.c_str());
  for (const std::vector<std::string> &quiet : {std::vector<std::string>{spec, "--real", "float"},
                                                std::vector<std::string>{std::string(SPECS_DIR) + "/knife_edge.toml"}}) {
    std::vector<std::string> command = {lagrangec, "generate", "-o", out};
    command.insert(command.end(), quiet.begin(), quiet.end());
    Result r = run(command);
    if (r.status != 0 || r.err.find("bytes of stack") != std::string::npos)
      fail_msg("%s%s: exit %d, stderr:\n%s", quiet[0].c_str(), quiet.size() > 1 ? " --real float" : "", r.status,
               r.err.c_str());
  }
  fs::remove_all(out);
}

// tests/gen/bad_specs/*.toml: line 1 is "# expect: MESSAGE", the exact first line
// of stderr with the spec's path written as {file}; a line 2 "# options: A B"
// adds options to generate (--strict). In *.urdf, line 1 is
// "<!-- expect: MESSAGE -->".
void bad_specs_get_their_message_and_write_nothing(void **) {
  int count = 0;
  std::vector<fs::path> bad = files_in(BAD_SPECS_DIR, ".toml"), urdfs = files_in(BAD_SPECS_DIR, ".urdf");
  bad.insert(bad.end(), urdfs.begin(), urdfs.end());
  for (auto &f : bad) {
    ++count;
    std::string first, second;
    std::ifstream in(f);
    std::getline(in, first);
    std::getline(in, second);
    const bool urdf = f.extension() == ".urdf";
    const std::string tag = urdf ? "<!-- expect: " : "# expect: ", end = urdf ? " -->" : "";
    if (first.rfind(tag, 0) != 0 || first.size() < tag.size() + end.size() ||
        first.compare(first.size() - end.size(), end.size(), end) != 0)
      fail_msg("%s has no '%s' line", f.c_str(), tag.c_str());
    std::string expected = first.substr(tag.size(), first.size() - tag.size() - end.size());
    expected.replace(expected.find("{file}"), 6, f.string());
    fs::path out = scratch("bad");
    std::vector<std::string> command = {lagrangec, "generate", f.string(), "-o", out.string()};
    const std::string options = "# options: ";
    if (second.rfind(options, 0) == 0) {
      std::istringstream words(second.substr(options.size()));
      for (std::string w; words >> w;) command.push_back(w);
    }
    Result r = run(command);
    std::string got = r.err.substr(0, r.err.find('\n'));
    if (r.status != 1 || got != expected)
      fail_msg("%s: exit %d, first line\n  got:      %s\n  expected: %s", f.filename().c_str(), r.status,
               got.c_str(), expected.c_str());
    if (!fs::is_empty(out)) fail_msg("%s: files were written", f.filename().c_str());
    fs::remove_all(out);
  }
  assert_int_not_equal(count, 0);
}

// A URDF's elements that lagrangec does not map are each a warning at its
// position (geometry one per kind, at the first), and the model is made.
void unmapped_urdf_elements_are_warned(void **) {
  fs::path out = scratch("urdf");
  const std::string urdf = std::string(URDF_DIR) + "/unmapped.urdf";
  Result r = run({lagrangec, "generate", urdf, "-o", out});
  std::vector<std::string> want = {
      urdf + ":9:5: warning: <calibration> in <joint> is not mapped: lagrangec reads links' inertials and joints",
      urdf + ":10:5: warning: the friction of joint 'j1' is not mapped (its damping is)",
      urdf + ":21:3: warning: <transmission> in <robot> is not mapped: lagrangec reads links' inertials and joints",
      urdf + ":26:3: warning: <gazebo> in <robot> is not mapped: lagrangec reads links' inertials and joints",
      urdf + ":6:5: warning: 2 <collision> elements are not mapped (geometry and appearance are not dynamics); the "
             "first is here",
      urdf + ":3:3: warning: 1 <material> element is not mapped (geometry and appearance are not dynamics); the "
             "first is here",
      urdf + ":5:5: warning: 1 <visual> element is not mapped (geometry and appearance are not dynamics); the first "
             "is here"};
  if (r.status != 0) fail_msg("%s: exit %d, stderr:\n%s", urdf.c_str(), r.status, r.err.c_str());
  for (auto &line : want)
    if (r.err.find(line + "\n") == std::string::npos)
      fail_msg("%s: no warning\n  %s\nin stderr:\n%s", urdf.c_str(), line.c_str(), r.err.c_str());
  fs::remove_all(out);
}

// A URDF's names that are not C identifiers are written sanitised, each
// listed with the original in a comment at the top of every generated file
// (a comment's end in a name is broken), and the banner names the URDF.
void urdf_names_keep_their_originals(void **) {
  fs::path out = scratch("urdf_names");
  const std::string urdf = std::string(URDF_DIR) + "/names.urdf";
  Result r = run({lagrangec, "generate", urdf, "-o", out, "--no-jacobian"});
  if (r.status != 0) fail_msg("%s: exit %d, stderr:\n%s", urdf.c_str(), r.status, r.err.c_str());
  const std::string want = "/*\n** Names of the URDF that are not C identifiers, as this file writes them:\n"
                           "**   named_robot: the robot 'named robot'\n"
                           "**   upper_leg: the link 'upper leg'\n"
                           "**   hip_1____x: the joint 'hip-1 * / x'\n"
                           "**   joint_2nd: the joint '2nd'\n*/\n";
  for (const char *file : {"named_robot.h", "named_robot.c", "named_robot_model.c"}) {
    const std::string text = slurp(out / file);
    const std::string banner = std::string("/* ") + file + " — generated by lagrangec ";
    if (text.rfind(banner, 0) != 0 || text.find(" from names.urdf. Do not edit") == std::string::npos ||
        text.find(want) == std::string::npos)
      fail_msg("%s: no banner naming names.urdf and no list\n%s\nat its top:\n%s", file, want.c_str(),
               text.substr(0, 600).c_str());
  }
  if (slurp(out / "named_robot.c").find("const named_robot_real hip_1____x = state[0];") == std::string::npos)
    fail_msg("named_robot.c does not name the joint 'hip-1 */ x' hip_1____x");
  fs::remove_all(out);
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
    if (!fs::is_empty(out)) fail_msg("%s: files were written", expected.c_str());
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

// A 12-link chain whose orientations are [definitions] chaining like
// rotations (tests/gen/specs, written by tests/bench/rotation_chain.py):
// each definition differentiated once, not once per use, it generates
// within a 30 s limit (it took 46-50 s, x5 per two links; ~1.5 s now, the
// figures in the closing note of issue 29); any generation stops at its
// --time-limit with a message naming it, and writes nothing.
void chained_definitions_generate_within_the_limit(void **) {
  const std::string spec = std::string(GEN_SPECS_DIR) + "/chain_definitions12.toml";
  fs::path out = scratch("chain");
  Result r = run({lagrangec, "generate", spec, "-o", out.string(), "--time-limit", "30"});
  if (r.status != 0) fail_msg("the 12-link chain of definitions: exit %d\n%s", r.status, r.err.c_str());
  fs::remove_all(out);
  r = run({lagrangec, "generate", spec, "-o", out.string(), "--time-limit", "0.05"});
  assert_int_equal(r.status, 1);
  assert_string_equal(r.err.c_str(), ("lagrangec: " + spec + ": generation stopped at its time limit, 0.05 s of CPU "
                                       "time (generate --time-limit; 600 s by default): its equations grow too large "
                                       "to derive (raise the limit, or write a chain of rotations as [frames], which "
                                       "keep its structure)\n").c_str());
  if (fs::exists(out) && !fs::is_empty(out)) fail_msg("%s: files were written", out.c_str());
  for (const char *bad : {"0", "-1", "nan", "1e7", "10s", ""}) {
    r = run({lagrangec, "generate", spec, "-o", out.string(), "--time-limit", bad});
    assert_int_equal(r.status, 2);
    if (r.err.find("--time-limit takes seconds of CPU time, more than 0 and at most 1e6, not '" + std::string(bad) + "'") ==
        std::string::npos)
      fail_msg("--time-limit '%s': %s", bad, r.err.c_str());
  }
  fs::remove_all(out);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(two_processes_write_identical_bytes),
      cmocka_unit_test(committed_generated_is_fresh),
      cmocka_unit_test(generated_c_is_standalone),
      cmocka_unit_test(spec_text_stays_text_in_the_c),
      cmocka_unit_test(one_version_everywhere),
      cmocka_unit_test(exit_codes),
      cmocka_unit_test(stack_bound_warns),
      cmocka_unit_test(bad_specs_get_their_message_and_write_nothing),
      cmocka_unit_test(unmapped_urdf_elements_are_warned),
      cmocka_unit_test(urdf_names_keep_their_originals),
      cmocka_unit_test(the_report_prints_numbers_and_sections_as_written),
      cmocka_unit_test(megabyte_of_nesting_is_refused),
      cmocka_unit_test(thirty_link_chain),
      cmocka_unit_test(chained_definitions_generate_within_the_limit),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
