// test_generated.cpp — the generated C of every spec against the symbolic
// model, evaluated numerically by GiNaC (independently of the lowering, the
// emitter and the generated solver): at random states, q'' and the
// multipliers satisfy M q'' + k = Q + J^T nu and J q'' = r to 1e-12.
#include "lagrangec.h"
#include <lagrangec/model.h>

#include <cmath>
#include <random>
#include <sstream>

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

extern "C" const lgc_model *const all_models[];

namespace {

using GiNaC::ex;

struct Evaluator {
  GiNaC::exmap at;
  double operator()(const ex &e) const {
    return GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(e.subs(at))).to_double();
  }
};

double norm(const std::vector<double> &v) {
  double s = 0;
  for (double x : v) s = std::max(s, std::fabs(x));
  return s;
}

void check_relative(const char *model, const char *what, const std::vector<double> &residual,
                    std::initializer_list<double> scales) {
  double scale = 1e-300;
  for (double s : scales) scale = std::max(scale, s);
  double rel = norm(residual) / scale;
  if (!(rel <= 1e-12)) fail_msg("%s: %s off by %.3g (relative)", model, what, rel);
}

void check_model(const lgc_model *gm, std::mt19937_64 &rng) {
  lgc::Spec spec = lgc::read_spec(std::string(SPECS_DIR) + "/" + gm->name + ".toml");
  lgc::Model m = lgc::derive(spec);
  size_t nq = m.nq, nc = m.nh + m.nn;
  assert_int_equal(gm->nq, nq);
  assert_int_equal(gm->nx, 2 * nq + m.nn);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> x(gm->nx), p(gm->parameter_defaults, gm->parameter_defaults + gm->np);
    std::vector<double> in(gm->input_defaults ? gm->input_defaults : nullptr,
                           gm->input_defaults ? gm->input_defaults + gm->nu : nullptr);
    for (double &xi : x) xi = u(rng);
    double t = u(rng), alpha = 10 * std::fabs(u(rng)), beta = 25 * std::fabs(u(rng));
    Evaluator ev;
    for (size_t i = 0; i < nq; ++i) ev.at[m.symbols.q[i]] = x[i], ev.at[m.symbols.v[i]] = x[nq + i];
    for (size_t j = 0; j < m.nn; ++j) ev.at[m.z[j]] = x[2 * nq + j];
    for (size_t i = 0; i < p.size(); ++i) ev.at[m.symbols.p[i]] = p[i];
    for (size_t i = 0; i < in.size(); ++i) ev.at[m.symbols.u[i]] = in[i];
    ev.at[m.symbols.t] = t, ev.at[m.alpha] = alpha, ev.at[m.beta] = beta;

    std::vector<double> dxdt(gm->nx), nu(nc + 1), work(gm->nwork + 1);
    int status = gm->rhs(t, x.data(), in.data(), p.data(), alpha, beta, dxdt.data(), nu.data(), work.data());
    assert_int_equal(status, LGC_MODEL_OK);
    const double *qdd = dxdt.data() + nq;

    // M q'' + k - Q - J^T nu = 0, row by row.
    std::vector<double> dyn(nq), Mq(nq), k(nq), Q(nq), Jnu(nq, 0.0);
    for (size_t i = 0; i < nq; ++i) {
      for (size_t j = 0; j < nq; ++j) Mq[i] += ev(m.M(i, j)) * qdd[j];
      k[i] = ev(m.k[i]), Q[i] = ev(m.Q[i]);
      for (size_t c = 0; c < nc; ++c) Jnu[i] += ev(c < m.nh ? m.A(c, i) : m.B(c - m.nh, i)) * nu[c];
      dyn[i] = Mq[i] + k[i] - Q[i] - Jnu[i];
    }
    check_relative(gm->name, "M q'' + k = Q + J^T nu", dyn, {norm(Mq), norm(k), norm(Q), norm(Jnu)});
    // J q'' = r, the Baumgarte-stabilised constraint rows.
    std::vector<double> rows(nc), Jq(nc, 0.0), r(nc);
    for (size_t c = 0; c < nc; ++c) {
      for (size_t i = 0; i < nq; ++i) Jq[c] += ev(c < m.nh ? m.A(c, i) : m.B(c - m.nh, i)) * qdd[i];
      r[c] = ev(m.r[c]);
      rows[c] = Jq[c] - r[c];
    }
    if (nc) check_relative(gm->name, "J q'' = r", rows, {norm(Jq), norm(r)});
    for (size_t i = 0; i < nq; ++i) assert_true(dxdt[i] == x[nq + i]);
    for (size_t j = 0; j < m.nn; ++j) assert_true(std::fabs(dxdt[2 * nq + j] - ev(m.g[j])) <= 1e-13 * (1 + std::fabs(ev(m.g[j]))));

    // The other generated functions.
    std::vector<double> phi(m.nh + 1), phi_dot(m.nh + 1), g(m.nn + 1), M(nq * nq), C(nc * nq + 1);
    gm->residuals(t, x.data(), p.data(), phi.data(), phi_dot.data(), g.data());
    for (size_t j = 0; j < m.nh; ++j) {
      assert_true(std::fabs(phi[j] - ev(m.phi[j])) <= 1e-13 * (1 + std::fabs(phi[j])));
      assert_true(std::fabs(phi_dot[j] - ev(m.phi_dot[j])) <= 1e-13 * (1 + std::fabs(phi_dot[j])));
    }
    double E = gm->energy(t, x.data(), p.data());
    assert_true(std::fabs(E - ev(m.T + m.V)) <= 1e-13 * (1 + std::fabs(E)));
    gm->mass_matrix(t, x.data(), p.data(), M.data());
    gm->constraint_jacobian(t, x.data(), p.data(), C.data());
    for (size_t i = 0; i < nq; ++i)
      for (size_t j = 0; j < nq; ++j) assert_true(std::fabs(M[i * nq + j] - ev(m.M(i, j))) <= 1e-13 * (1 + std::fabs(M[i * nq + j])));
    for (size_t c = 0; c < nc; ++c)
      for (size_t i = 0; i < nq; ++i) {
        double want = ev(c < m.nh ? m.A(c, i) : m.B(c - m.nh, i));
        assert_true(std::fabs(C[c * nq + i] - want) <= 1e-13 * (1 + std::fabs(want)));
      }
  }
}

// df/dx and df/du against central differences of rhs.
void check_jacobian(const lgc_model *gm, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  int nx = gm->nx, nu = gm->nu;
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> x(nx), p(gm->parameter_defaults, gm->parameter_defaults + gm->np), in(nu);
    for (double &xi : x) xi = u(rng);
    for (double &ui : in) ui = u(rng);
    double t = u(rng), alpha = 10, beta = 25;
    std::vector<double> dfdx(nx * nx), dfdu(nx * nu + 1), work(gm->nwork_jacobian), f1(nx), f2(nx);
    assert_int_equal(gm->jacobian(t, x.data(), in.data(), p.data(), alpha, beta, dfdx.data(), dfdu.data(), work.data()),
                     LGC_MODEL_OK);
    for (int k = 0; k < nx + nu; ++k) {
      std::vector<double> xp = x, xm = x, up = in, um = in;
      double &vp = k < nx ? xp[k] : up[k - nx], &vm = k < nx ? xm[k] : um[k - nx];
      double h = 1e-6 * (1 + std::fabs(vp));
      vp += h, vm -= h;
      gm->rhs(t, xp.data(), up.data(), p.data(), alpha, beta, f1.data(), nullptr, work.data());
      gm->rhs(t, xm.data(), um.data(), p.data(), alpha, beta, f2.data(), nullptr, work.data());
      for (int i = 0; i < nx; ++i) {
        double fd = (f1[i] - f2[i]) / (2 * h);
        double exact = k < nx ? dfdx[i * nx + k] : dfdu[i * nu + k - nx];
        if (!(std::fabs(fd - exact) <= 1e-6 * (1 + std::fabs(exact))))
          fail_msg("%s: df%d/d%s%d = %.10g, central difference %.10g", gm->name, i, k < nx ? "x" : "u",
                   k < nx ? k : k - nx, exact, fd);
      }
    }
  }
}

void jacobians_match_central_differences(void **) {
  std::mt19937_64 rng(11);
  for (const lgc_model *const *m = all_models; *m; ++m) check_jacobian(*m, rng);
}

void generated_code_satisfies_the_equations(void **) {
  std::mt19937_64 rng(7);
  int count = 0;
  for (const lgc_model *const *m = all_models; *m; ++m, ++count) check_model(*m, rng);
  assert_true(count >= 4);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(generated_code_satisfies_the_equations),
      cmocka_unit_test(jacobians_match_central_differences),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
