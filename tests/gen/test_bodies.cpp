// test_bodies.cpp — the conventions of frames and bodies: each elementary
// rotation's direction cosines (README, "Direction cosines"), and products
// of inertia as tensor components (I_xy = -integral of x y dm) on a body
// turned off its principal axes, written three ways that must give the
// same T: two particles, the tensor in the body's axes, and principal
// moments in a frame at a constant rotation (inertia_frame). Rotations
// about one axis merge into one by the sum of their angles; a planar arm of
// bodies in relative angles gives the hand-written chain's M and k.
#include "lagrangec.h"

#include <cmath>
#include <map>
#include <random>
#include <sstream>

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

using GiNaC::ex;

namespace {

double value(const ex &e, const GiNaC::exmap &at) {
  return GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(e.subs(at))).to_double();
}

// R_x, R_y, R_z of the README: v_parent = R_a(t) v_new, right-handed.
double rotation(int axis, double t, int row, int col) {
  int i = (row - axis + 3) % 3, j = (col - axis + 3) % 3;  // cyclic: the axis first
  double R[3][3] = {{1, 0, 0}, {0, std::cos(t), -std::sin(t)}, {0, std::sin(t), std::cos(t)}};
  return R[i][j];
}

void each_axis_rotates_as_the_readme_says(void **) {
  const char *axes = "xyz";
  const double angle = 0.3;
  for (int a = 0; a < 3; ++a) {
    // d_ij = N_i . A_j: component i in N of A's unit vector j, R_a(angle)(i, j).
    std::string text = "name = \"frames\"\ncoordinates = [\"q\"]\nkinetic = \"q'^2/2\"\n[frames]\nA = \"N " +
                       std::string(1, axes[a]) + "(0.3)\"\n[definitions]\n";
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        text += "d" + std::to_string(i) + std::to_string(j) + " = \"dot(N." + axes[i] + ", A." + axes[j] + ")\"\n";
    lgc::Spec spec = lgc::read_spec_text("frames.toml", text);
    lgc::SymbolTable symbols = lgc::make_symbols(spec);
    lgc::Scope scope(spec, symbols);
    scope.read_all();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        std::string name = "d" + std::to_string(i) + std::to_string(j);
        const lgc::Value *v = scope.value(name, {"frames.toml", 1, 1});
        assert_non_null(v);
        double got = value(v->scalar, {}), want = rotation(a, angle, i, j);
        if (std::fabs(got - want) > 1e-15)
          fail_msg("%c(0.3): N.%c . A.%c = %.17g, R_%c(0.3)[%d][%d] = %.17g", axes[a], axes[i], axes[j], got, axes[a],
                   i, j, want);
      }
  }
}

// A frame turned twice about one axis, then about others: its direction
// cosines are the product of the README's matrices, whether the generator
// merges the two turns or not.
void merged_rotations_compose(void **) {
  const char *axes = "xyz";
  const double a = 0.3, b = -1.1, c = 0.7;
  for (int first = 0; first < 3; ++first) {
    int second = (first + 1) % 3;
    std::string text = "name = \"frames\"\ncoordinates = [\"q\"]\nkinetic = \"q'^2/2\"\n[frames]\nA = \"N " +
                       std::string(1, axes[first]) + "(0.3) " + axes[first] + "(-1.1)\"\nB = \"A " + axes[second] +
                       "(0.7)\"\n[definitions]\n";
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        text += "d" + std::to_string(i) + std::to_string(j) + " = \"dot(N." + axes[i] + ", B." + axes[j] + ")\"\n";
    lgc::Spec spec = lgc::read_spec_text("frames.toml", text);
    lgc::SymbolTable symbols = lgc::make_symbols(spec);
    lgc::Scope scope(spec, symbols);
    scope.read_all();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double want = 0;  // (R_first(a) R_first(b) R_second(c))(i, j)
        for (int k = 0; k < 3; ++k)
          for (int l = 0; l < 3; ++l)
            want += rotation(first, a, i, k) * rotation(first, b, k, l) * rotation(second, c, l, j);
        const lgc::Value *v = scope.value("d" + std::to_string(i) + std::to_string(j), {"frames.toml", 1, 1});
        assert_non_null(v);
        double got = value(v->scalar, {});
        if (std::fabs(got - want) > 1e-15)
          fail_msg("%c(0.3) %c(-1.1) %c(0.7): N.%c . B.%c = %.17g, the matrices' product %.17g", axes[first],
                   axes[first], axes[second], axes[i], axes[j], got, want);
      }
  }
}

// An n-link chain of uniform rods in relative angles ph1..phn (the rods of
// tests/bench/rod_chain.py, masses and lengths differing by link): as
// [bodies] on frames L_i = L_(i-1) z(ph_i), or with T and V written out.
std::string rod_parameters(int n) {
  std::ostringstream out;
  out << "[parameters]\n";
  for (int i = 1; i <= n; ++i) out << "m" << i << " = " << 1.0 + 0.5 * ((i - 1) % 3) << "\n";
  for (int i = 1; i <= n; ++i) out << "l" << i << " = " << 1.0 - 0.1 * ((i - 1) % 4) << "\n";
  out << "g = 9.81\n";
  return out.str();
}

std::string coordinate_list(int n) {
  std::string out;
  for (int i = 1; i <= n; ++i) out += std::string(i > 1 ? ", " : "") + "\"ph" + std::to_string(i) + "\"";
  return out;
}

std::string rod_arm_of_bodies(int n) {
  std::ostringstream out;
  out << "name = \"arm\"\ncoordinates = [" << coordinate_list(n) << "]\ngravity = \"-g*N.y\"\n" << rod_parameters(n)
      << "[frames]\n";
  for (int i = 1; i <= n; ++i) out << "L" << i << " = \"" << (i == 1 ? "N" : "L" + std::to_string(i - 1)) << " z(ph" << i << ")\"\n";
  out << "[points]\n";
  for (int i = 1; i <= n; ++i) {
    std::string joint = i == 1 ? "0*N.x" : "P" + std::to_string(i - 1);
    out << "P" << i << " = \"" << joint << " - l" << i << "*L" << i << ".y\"\n";
    out << "G" << i << " = \"" << joint << " - l" << i << "/2*L" << i << ".y\"\n";
  }
  for (int i = 1; i <= n; ++i)
    out << "[bodies.rod" << i << "]\nmass = \"m" << i << "\"\nframe = \"L" << i << "\"\ncentre = \"G" << i
        << "\"\ninertia = [\"m" << i << "*l" << i << "^2/12\", 0, \"m" << i << "*l" << i << "^2/12\"]\n";
  return out.str();
}

std::string rod_chain_written(int n) {
  auto angle = [](int j) {
    std::string a;
    for (int k = 1; k <= j; ++k) a += std::string(k > 1 ? " + " : "") + "ph" + std::to_string(k);
    return a;
  };
  auto rate = [](int j) {
    std::string a;
    for (int k = 1; k <= j; ++k) a += std::string(k > 1 ? " + " : "") + "ph" + std::to_string(k) + "'";
    return a;
  };
  std::string T, V;
  for (int i = 1; i <= n; ++i) {
    std::string vx, vy, y, m = "m" + std::to_string(i);
    for (int j = 1; j <= i; ++j) {
      std::string l = j < i ? "l" + std::to_string(j) : "l" + std::to_string(i) + "/2", sep = j > 1 ? " + " : "";
      vx += sep + l + "*cos(" + angle(j) + ")*(" + rate(j) + ")";
      vy += sep + l + "*sin(" + angle(j) + ")*(" + rate(j) + ")";
      y += sep + l + "*cos(" + angle(j) + ")";
    }
    T += std::string(i > 1 ? " + " : "") + m + "*((" + vx + ")^2 + (" + vy + ")^2)/2 + " + m + "*l" +
         std::to_string(i) + "^2*(" + rate(i) + ")^2/24";
    V += std::string(i > 1 ? " + " : "") + "-g*" + m + "*(" + y + ")";
  }
  return "name = \"chain\"\ncoordinates = [" + coordinate_list(n) + "]\nkinetic = \"" + T + "\"\npotential = \"" + V +
         "\"\n" + rod_parameters(n);
}

void arm_of_bodies_matches_the_written_chain(void **) {
  const int n = 6;
  lgc::Spec arm_spec = lgc::read_spec_text("arm.toml", rod_arm_of_bodies(n)),
            chain_spec = lgc::read_spec_text("chain.toml", rod_chain_written(n));
  lgc::Model arm = lgc::derive(arm_spec), chain = lgc::derive(chain_spec);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int trial = 0; trial < 5; ++trial) {
    GiNaC::exmap at_arm, at_chain;
    for (auto &[name, info] : chain.symbols.by_name) {
      if (info.kind != lgc::SymbolKind::coordinate && info.kind != lgc::SymbolKind::velocity) continue;
      double x = u(rng);
      at_chain[info.ex] = x;
      at_arm[arm.symbols.by_name.at(name).ex] = x;
    }
    auto parameters = [&](const lgc::Model &m, GiNaC::exmap &at) {
      for (auto &p : m.spec->parameters) at[m.symbols.by_name.at(p.name).ex] = p.value;
    };
    parameters(arm, at_arm);
    parameters(chain, at_chain);
    for (int i = 0; i < n; ++i) {
      double got = value(arm.k[i], at_arm), want = value(chain.k[i], at_chain);
      if (std::fabs(got - want) > 1e-12 * (1 + std::fabs(want)))
        fail_msg("state %d: k[%d] of the bodies %.17g, of the written chain %.17g", trial, i, got, want);
      for (int j = 0; j < n; ++j) {
        got = value(arm.M(i, j), at_arm), want = value(chain.M(i, j), at_chain);
        if (std::fabs(got - want) > 1e-12 * (1 + std::fabs(want)))
          fail_msg("state %d: M(%d, %d) of the bodies %.17g, of the written chain %.17g", trial, i, j, got, want);
      }
    }
  }
}

// A dumbbell of mass m, half at each end of a rod of length 2d through its
// centre at angle beta from B.x in B's x-y plane, B turned by two
// coordinates in 3D and its centre moving.
const char *kHeader = R"SPEC(name = "dumbbell"
coordinates = ["a", "b", "s"]
[parameters]
m = 1.3
d = 0.7
beta = 0.4
[definitions]
u = "cos(beta)*B.x + sin(beta)*B.y"
[frames]
B = "N x(a) y(b)"
P = "B z(beta)"
[points]
G = "s*N.x + a*N.z"
)SPEC";

// T at values given by name (each derive makes its own symbols).
double kinetic_at(const std::string &bodies, const std::map<std::string, double> &values) {
  lgc::Spec spec = lgc::read_spec_text("dumbbell.toml", kHeader + bodies);
  lgc::Model m = lgc::derive(spec);
  GiNaC::exmap at;
  for (auto &[name, v] : values) at[m.symbols.by_name.at(name).ex] = v;
  return value(m.T, at);
}

void products_of_inertia_are_tensor_components(void **) {
  const std::string particles = R"SPEC(
[particles.end1]
mass = "m/2"
point = "G + d*u"
[particles.end2]
mass = "m/2"
point = "G - d*u"
)SPEC";
  // m d^2 (1 - u u^T), u = (cos beta, sin beta, 0): I_xy = -m d^2 cos(beta) sin(beta).
  const std::string tensor = R"SPEC(
[bodies.rod]
mass = "m"
frame = "B"
centre = "G"
inertia = [["m*d^2*sin(beta)^2", "-m*d^2*cos(beta)*sin(beta)", 0],
           ["-m*d^2*cos(beta)*sin(beta)", "m*d^2*cos(beta)^2", 0],
           [0, 0, "m*d^2"]]
)SPEC";
  // The rod along P.x: principal moments (0, m d^2, m d^2) in P = "B z(beta)".
  const std::string principal = R"SPEC(
[bodies.rod]
mass = "m"
frame = "B"
centre = "G"
inertia = [0, "m*d^2", "m*d^2"]
inertia_frame = "P"
)SPEC";
  std::mt19937_64 rng(15);
  std::uniform_real_distribution<double> u(-2, 2);
  for (int trial = 0; trial < 5; ++trial) {
    std::map<std::string, double> at = {{"m", 1.3}, {"d", 0.7}, {"beta", 0.4}};
    for (const char *q : {"a", "b", "s", "a'", "b'", "s'"}) at[q] = u(rng);
    double want = kinetic_at(particles, at), got_tensor = kinetic_at(tensor, at),
           got_principal = kinetic_at(principal, at);
    if (std::fabs(got_tensor - want) > 1e-13 * (1 + want) || std::fabs(got_principal - want) > 1e-13 * (1 + want))
      fail_msg("T of two particles %.17g, of the tensor %.17g, of principal moments in P %.17g", want, got_tensor,
               got_principal);
  }
  // The other sign (I_xy = +integral of x y dm) gives another T.
  std::string flipped = tensor;
  for (size_t at = flipped.find("\"-m*d^2*cos"); at != std::string::npos; at = flipped.find("\"-m*d^2*cos"))
    flipped.replace(at, 2, "\"");
  std::map<std::string, double> at = {{"m", 1.3}, {"d", 0.7}, {"beta", 0.4}, {"a", 0.2}, {"b", -0.5},
                                      {"s", 0.0}, {"a'", 0.0}, {"b'", 0.0}, {"s'", 0.0}};
  at["a'"] = 1.0, at["b'"] = 0.3;
  double want = kinetic_at(particles, at), other = kinetic_at(flipped, at);
  if (std::fabs(other - want) < 1e-3)
    fail_msg("the flipped products give T = %.17g, the particles' %.17g: the test cannot tell the signs", other, want);
}

}  // namespace

int main() {
  const CMUnitTest tests[] = {
      cmocka_unit_test(each_axis_rotates_as_the_readme_says),
      cmocka_unit_test(products_of_inertia_are_tensor_components),
      cmocka_unit_test(merged_rotations_compose),
      cmocka_unit_test(arm_of_bodies_matches_the_written_chain),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
