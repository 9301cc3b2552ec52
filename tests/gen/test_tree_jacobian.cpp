// test_tree_jacobian.cpp — the Jacobian of a model on the articulated-body
// recursion (gen/kernels/tree_jacobian.c): against central differences of
// its rhs, and against the Jacobian the generator derives symbolically for
// the same tree in the form with M (tests/gen/specs/small_tree.toml, both
// forms generated from one model); and a tree simulated by CVODE's bdf and
// adams, on that Jacobian and on difference quotients, against rk4 at a
// small step (the runtime's driver, in this process). With constraint rows
// on top (gen/kernels/tree_kkt_jacobian.c): a closed chain against the
// dense form's Jacobian of the same spec and under bdf and adams, a knife
// edge and a pinned free base against differences, and the minimum-norm
// solve of dependent rows.
#include "emit/emit.h"
#include "model/model.h"
#include "plan/plan.h"
#include <lagrangec/driver.h>
#include <lagrangec/model.h>
#include <lagrangec/status.h>
#include <lagrangec/system.h>

#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

#include "process.hpp"

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

namespace fs = std::filesystem;

namespace {

void write(const fs::path &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
  if (!out) fail_msg("cannot write %s", path.c_str());
}

// NAME.c and NAME_model.c in dir compiled into a shared object, loaded; its descriptor.
const lgc_model *load(const fs::path &dir, const std::string &name) {
  const fs::path library = dir / (name + ".so");
  Result c = run({"cc", "-shared", "-fPIC", "-O1", "-std=c99", "-Wall", "-Werror", "-I", dir.string(), "-I",
                  RUNTIME_INCLUDE, (dir / (name + ".c")).string(), (dir / (name + "_model.c")).string(), "-o",
                  library.string(), "-lm"});
  if (c.status != 0) fail_msg("cc failed:\n%s", c.err.c_str());
  void *so = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!so) fail_msg("%s", dlerror());
  auto *gm = static_cast<const lgc_model *>(dlsym(so, (name + "_model").c_str()));
  if (!gm) fail_msg("no %s_model", name.c_str());
  return gm;  // the object stays loaded until the test ends
}

// The model's generated files from the plan, as generate writes them.
void emit(const lgc::Model &m, const fs::path &dir) {
  lgc::Plan plan(m, true);
  const std::string name = m.spec->name;
  write(dir / (name + ".h"), lgc::emit_header(plan));
  write(dir / (name + ".c"), lgc::emit_source(plan));
  write(dir / (name + "_model.c"), lgc::emit_descriptor(plan));
}

struct Point {
  std::vector<double> x, p, u;
  double t;
};

Point random_point(const lgc_model *gm, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> r(-1, 1);
  Point at{std::vector<double>(size_t(gm->nx)), std::vector<double>(gm->parameter_defaults, gm->parameter_defaults + gm->np),
           std::vector<double>(size_t(gm->nu) + 1), r(rng)};
  for (double &v : at.x) v = 2 * r(rng);
  for (double &v : at.u) v = r(rng);
  return at;
}

// df/dx and df/du at the point; the model's status asserted.
void jacobian_at(const lgc_model *gm, const Point &at, std::vector<double> &dfdx, std::vector<double> &dfdu) {
  std::vector<double> work(size_t(gm->nwork_jacobian) + 1);
  dfdx.assign(size_t(gm->nx * gm->nx), NAN);
  dfdu.assign(size_t(gm->nx * gm->nu) + 1, NAN);
  assert_int_equal(gm->jacobian(at.t, at.x.data(), at.u.data(), at.p.data(), 10, 25, dfdx.data(), dfdu.data(), work.data()),
                   LGC_MODEL_OK);
}

// The recursion's df/dx (with_inputs: and df/du) against the form with M's
// at five random states, relative to 1 + |entry|: past tol fails; prints
// the worst.
void compare_to_the_form_with_m(const char *name, const lgc_model *tree, const lgc_model *dense, uint64_t seed,
                                bool with_inputs, double tol) {
  std::mt19937_64 rng(seed);
  double worst = 0, worst_tree = 0, worst_dense = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const Point at = random_point(tree, rng);
    std::vector<double> tree_all, tree_dfdu, dense_all, dense_dfdu;
    jacobian_at(tree, at, tree_all, tree_dfdu);
    jacobian_at(dense, at, dense_all, dense_dfdu);
    if (with_inputs) {  // df/du less jacobian_at's guard entry
      tree_all.insert(tree_all.end(), tree_dfdu.begin(), tree_dfdu.end() - 1);
      dense_all.insert(dense_all.end(), dense_dfdu.begin(), dense_dfdu.end() - 1);
    }
    for (size_t e = 0; e < tree_all.size(); ++e) {
      const double error = std::fabs(tree_all[e] - dense_all[e]) / (1 + std::fabs(dense_all[e]));
      if (!(error <= tol))
        fail_msg("%s: entry %zu of df/dx%s: the recursion's %.15g, the form with M's %.15g", name, e,
                 with_inputs ? ", df/du" : "", tree_all[e], dense_all[e]);
      if (error >= worst) worst = error, worst_tree = tree_all[e], worst_dense = dense_all[e];
    }
  }
  print_message("  %-18s the recursion's df/dx%s within %.1e of the form with M's (worst: %.15g against %.15g)\n",
                name, with_inputs ? ", df/du" : "", worst, worst_tree, worst_dense);
}

// The Jacobian at `at` against central differences of rhs (steps 2e-4 and
// 1e-4, fourth-order Richardson), relative to 1 + |df/dx|: 1e-6 at most,
// over the columns from `first` (x's, then u's); the worst into *worst.
void check_point_against_differences(const lgc_model *gm, const Point &at, int first, double worst[3]) {
  const int nx = gm->nx, nu = gm->nu;
  std::vector<double> dfdx, dfdu, work(static_cast<size_t>(gm->nwork)), f1(static_cast<size_t>(nx)), f2(static_cast<size_t>(nx));
  jacobian_at(gm, at, dfdx, dfdu);
  for (int k = first; k < nx + nu; ++k) {
    auto central = [&](double h) {
      Point plus = at, minus = at;
      (k < nx ? plus.x[size_t(k)] : plus.u[size_t(k - nx)]) += h;
      (k < nx ? minus.x[size_t(k)] : minus.u[size_t(k - nx)]) -= h;
      assert_int_equal(gm->rhs(at.t, plus.x.data(), plus.u.data(), at.p.data(), 10, 25, f1.data(), nullptr, work.data()),
                       LGC_MODEL_OK);
      assert_int_equal(gm->rhs(at.t, minus.x.data(), minus.u.data(), at.p.data(), 10, 25, f2.data(), nullptr, work.data()),
                       LGC_MODEL_OK);
      std::vector<double> d(static_cast<size_t>(nx));
      for (int i = 0; i < nx; ++i) d[size_t(i)] = (f1[size_t(i)] - f2[size_t(i)]) / (2 * h);
      return d;
    };
    const std::vector<double> coarse = central(2e-4), fine = central(1e-4);
    for (int i = 0; i < nx; ++i) {
      const double exact = k < nx ? dfdx[size_t(i * nx + k)] : dfdu[size_t(i * nu + k - nx)];
      const double difference = (4 * fine[size_t(i)] - coarse[size_t(i)]) / 3;
      const double error = std::fabs(difference - exact) / (1 + std::fabs(exact));
      if (!(error <= 1e-6))
        fail_msg("%s: df%d/d%s%d = %.12g, the central differences give %.12g (relative %.2e)", gm->name, i,
                 k < nx ? "x" : "u", k < nx ? k : k - nx, exact, difference, error);
      if (error >= worst[0]) worst[0] = error, worst[1] = exact, worst[2] = difference;
    }
  }
}

// The Jacobian against central differences of rhs at `points` random states.
void check_against_differences(const lgc_model *gm, int points, uint64_t seed) {
  std::mt19937_64 rng(seed);
  double worst[3] = {0, 0, 0};
  for (int trial = 0; trial < points; ++trial) check_point_against_differences(gm, random_point(gm, rng), 0, worst);
  const double worst_exact = worst[1], worst_difference = worst[2];
  print_message("  %-18s df/dx, df/du within %.1e of central differences (worst: %.12g against %.12g)\n", gm->name,
                worst[0], worst_exact, worst_difference);
}

// The recursion's Jacobian of small_tree against the symbolic one of the
// same tree in the form with M, to 1e-10 relative to 1 + |entry|, and
// against central differences; dq''/dp is not generated on the recursion.
void small_tree_against_the_form_with_m(void **) {
  const lgc::Spec spec = lgc::read_spec(std::string(GEN_SPECS_DIR) + "/small_tree.toml");
  const fs::path dir = scratch("tree-jacobian"), dense_dir = dir / "dense", tree_dir = dir / "tree";
  fs::create_directories(dense_dir);
  fs::create_directories(tree_dir);
  {
    lgc::Model m = lgc::derive(spec);
    if (m.articulated.chosen || !m.articulated.available())
      fail_msg("small_tree: the form with M is not the one chosen (%s)", m.articulated.reason.c_str());
    emit(m, dense_dir);
  }
  {
    // The same model on the recursion: its table and tau are read from the
    // tree either way; only the form's choice, made by counting, differs.
    lgc::Model m = lgc::derive(spec);
    m.articulated.chosen = true;
    m.articulated.reason = "the recursion, for this test";
    emit(m, tree_dir);
  }
  const lgc_model *dense = load(dense_dir, "small_tree"), *tree = load(tree_dir, "small_tree");
  if (!tree->jacobian || tree->parameter_jacobian || tree->nwork_parameter_jacobian)
    fail_msg("small_tree on the recursion: jacobian %p, parameter_jacobian %p", (void *)tree->jacobian,
             (void *)tree->parameter_jacobian);
  std::ifstream c_file(tree_dir / "small_tree.c");
  std::string c_text((std::istreambuf_iterator<char>(c_file)), std::istreambuf_iterator<char>());
  if (c_text.find("rhs by the articulated-body recursion") == std::string::npos ||
      c_text.find("small_tree_tree_jacobian(table, state") == std::string::npos)
    fail_msg("small_tree: the forced form is not the recursion with its Jacobian");
  compare_to_the_form_with_m("small_tree", tree, dense, 28, true, 1e-10);
  check_against_differences(tree, 3, 29);
  fs::remove_all(dir);
}

// articulated_tree (13 links, on the recursion by its size),
// floating_tree (the same on a free joint, its quaternion off the unit
// sphere at the random states) and planar_tree (its rhs and its Jacobian
// in the plane: planar.c, planar_jacobian.c) against central differences.
void generated_trees(void **) {
  const fs::path dir = scratch("tree-jacobian");
  for (const std::string name : {"articulated_tree", "floating_tree", "planar_tree"}) {
    Result g = run({LAGRANGEC, "generate", std::string(GEN_SPECS_DIR) + "/" + name + ".toml", "-o", dir.string()});
    if (g.status != 0) fail_msg("generate failed:\n%s", g.err.c_str());
    const lgc_model *gm = load(dir, name);
    if (!gm->jacobian || gm->parameter_jacobian) fail_msg("%s: jacobian %p", name.c_str(), (void *)gm->jacobian);
    check_against_differences(gm, 2, 30);
  }
  fs::remove_all(dir);
}

// closed_chain (8 links, the tip pinned: two holonomic rows on top of the
// planar recursion) against the symbolic Jacobian of the same spec in the form
// with M (form = "dense"), to 1e-8 relative to 1 + |entry|, and against
// central differences.
void closed_chain_against_the_dense_form(void **) {
  lgc::Spec spec = lgc::read_spec(std::string(GEN_SPECS_DIR) + "/closed_chain.toml");
  const fs::path dir = scratch("rows-jacobian"), dense_dir = dir / "dense", tree_dir = dir / "tree";
  fs::create_directories(dense_dir);
  fs::create_directories(tree_dir);
  {
    lgc::Model m = lgc::derive(spec);
    if (!m.articulated.chosen || lgc::rows_on_top(m).size() != 2)
      fail_msg("closed_chain: not the recursion with 2 rows on top (%s)", m.articulated.reason.c_str());
    emit(m, tree_dir);
  }
  spec.form = "dense";
  {
    lgc::Model m = lgc::derive(spec);
    if (m.articulated.chosen) fail_msg("closed_chain with form = \"dense\": still the recursion");
    emit(m, dense_dir);
  }
  const lgc_model *dense = load(dense_dir, "closed_chain"), *tree = load(tree_dir, "closed_chain");
  std::ifstream c_file(tree_dir / "closed_chain.c");
  const std::string c_text((std::istreambuf_iterator<char>(c_file)), std::istreambuf_iterator<char>());
  if (!tree->jacobian || c_text.find("closed_chain_tree_kkt_jacobian(J, closed_chain_rows, 2") == std::string::npos)
    fail_msg("closed_chain on the recursion: no Jacobian with its rows (jacobian %p)", (void *)tree->jacobian);
  compare_to_the_form_with_m("closed_chain", tree, dense, 31, false, 1e-8);
  check_against_differences(tree, 3, 32);
  fs::remove_all(dir);
}

// Rows on top of other kinds against central differences: knife_chain (a
// nonholonomic row, its integral state's rows of df/dx too) and
// floating_pinned (a free joint, its norm row in the recursion, and a
// holonomic row on top).
void rows_on_top_against_differences(void **) {
  const fs::path dir = scratch("rows-jacobian");
  for (const std::string name : {"knife_chain", "floating_pinned"}) {
    Result g = run({LAGRANGEC, "generate", std::string(GEN_SPECS_DIR) + "/" + name + ".toml", "-o", dir.string()});
    if (g.status != 0) fail_msg("generate failed:\n%s", g.err.c_str());
    const lgc_model *gm = load(dir, name);
    if (!gm->jacobian) fail_msg("%s: no Jacobian", name.c_str());
    check_against_differences(gm, 3, 33);
  }
  fs::remove_all(dir);
}

// Dependent rows: closed_chain stretched straight (q = 0), where the tip's
// vertical row of J is zero, so rhs takes the minimum-norm solve (its
// conditioning says so); there S keeps its rank as q' and the inputs move,
// and the Jacobian's columns by them must be the minimum-norm solve's
// derivative (central differences at random q').
void dependent_rows_minimum_norm(void **) {
  const fs::path dir = scratch("rows-jacobian");
  Result g = run({LAGRANGEC, "generate", std::string(GEN_SPECS_DIR) + "/closed_chain.toml", "-o", dir.string()});
  if (g.status != 0) fail_msg("generate failed:\n%s", g.err.c_str());
  const lgc_model *gm = load(dir, "closed_chain");
  std::mt19937_64 rng(34);
  double worst[3] = {0, 0, 0};
  for (int trial = 0; trial < 3; ++trial) {
    Point at = random_point(gm, rng);
    for (int i = 0; i < gm->nq; ++i) at.x[size_t(i)] = 0;
    std::vector<double> work(size_t(gm->nwork)), dxdt(size_t(gm->nx));
    assert_int_equal(gm->rhs(at.t, at.x.data(), at.u.data(), at.p.data(), 10, 25, dxdt.data(), nullptr, work.data()),
                     LGC_MODEL_OK);
    if (work[size_t(gm->work_conditioning) + 1] != 1.0)
      fail_msg("closed_chain at q = 0: the minimum-norm solve did not make the call (flag %g)",
               work[size_t(gm->work_conditioning) + 1]);
    check_point_against_differences(gm, at, gm->nq, worst);
  }
  print_message("  closed_chain, q = 0 (minimum norm) df/dq', df/du within %.1e of central differences (worst: %.12g "
                "against %.12g)\n", worst[0], worst[1], worst[2]);
  fs::remove_all(dir);
}

// x at t_end from the model's initial state by the runtime's driver (its
// default correction, which a model without constraints skips), and the
// run's statistics.
std::vector<double> run_to(const lgc_model *gm, const lgc_stepper_type *type, double h, double tol, double t_end,
                           lgc_stats &stats) {
  lgc_system sys;
  assert_int_equal(lgc_system_init(&sys, gm), LGC_OK);
  lgc_driver_options opt;
  lgc_driver_options_default(&opt);
  opt.type = type;
  opt.h = h;
  opt.rtol = tol;
  opt.atol = tol / 100;
  lgc_driver *d = lgc_driver_alloc(&sys, &opt);
  if (!d) fail_msg("lgc_driver_alloc failed");
  std::vector<double> x(static_cast<size_t>(gm->nx));
  assert_int_equal(lgc_driver_reset(d, 0.0, gm->initial_state), LGC_OK);
  const int rc = lgc_driver_advance(d, t_end, x.data());
  if (rc != LGC_OK) fail_msg("%s (%s): status %d before t = %g", gm->name, type->name, rc, t_end);
  lgc_driver_stats(d, &stats);
  lgc_driver_free(d);
  lgc_system_free(&sys);
  return x;
}

// The spec `name` over 1 s: bdf and adams (rtol 1e-10, atol 1e-12), on
// the recursion's Jacobian and on CVODE's difference quotients (the same
// model with jacobian NULL), each within 1e-6 of rk4 at a step of 1e-4 in
// every q, q'.
void simulated_against_rk4(const std::string &name) {
  const fs::path dir = scratch("tree-simulate");
  Result g = run({LAGRANGEC, "generate", std::string(GEN_SPECS_DIR) + "/" + name + ".toml", "-o", dir.string()});
  if (g.status != 0) fail_msg("generate failed:\n%s", g.err.c_str());
  const lgc_model *gm = load(dir, name);
  if (!gm->jacobian) fail_msg("%s: no Jacobian", name.c_str());
  lgc_stats stats;
  const std::vector<double> reference = run_to(gm, lgc_step_rk4, 1e-4, 1e-8, 1.0, stats);
  for (const lgc_stepper_type *type : {lgc_step_bdf, lgc_step_adams})
    for (bool analytic : {true, false}) {
      lgc_model variant = *gm;
      if (!analytic) variant.jacobian = NULL;  // CVODE's Newton on difference quotients
      const std::vector<double> x = run_to(&variant, type, 0.0, 1e-10, 1.0, stats);
      double worst = 0;
      for (size_t c = 0; c < x.size(); ++c) {
        const double error = std::fabs(x[c] - reference[c]);
        if (!(error <= 1e-6))
          fail_msg("%s, %s, %s: x[%zu] at t = 1 is %.12g, rk4's %.12g", name.c_str(), type->name,
                   analytic ? "the recursion's Jacobian" : "difference quotients", c, x[c], reference[c]);
        worst = std::max(worst, error);
      }
      print_message("  %-18s %-5s %-22s x at t = 1 within %.1e of rk4's (dt 1e-4): %lu steps, %lu rhs, "
                    "%lu Jacobians\n", name.c_str(), type->name,
                    analytic ? "(the recursion's J)" : "(difference quotients)", worst, stats.steps, stats.nfev,
                    stats.njev);
    }
  fs::remove_all(dir);
}

void simulated_tree_against_rk4(void **) { simulated_against_rk4("articulated_tree"); }

// closed_chain: its rows on top, the driver's correction as by default.
void simulated_closed_chain_against_rk4(void **) { simulated_against_rk4("closed_chain"); }

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(small_tree_against_the_form_with_m),
      cmocka_unit_test(generated_trees),
      cmocka_unit_test(simulated_tree_against_rk4),
      cmocka_unit_test(closed_chain_against_the_dense_form),
      cmocka_unit_test(rows_on_top_against_differences),
      cmocka_unit_test(dependent_rows_minimum_norm),
      cmocka_unit_test(simulated_closed_chain_against_rk4),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
