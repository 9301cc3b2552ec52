// test_bodies.cpp — the conventions of frames and bodies: each elementary
// rotation's direction cosines (docs/spec.md, "Direction cosines"), and products
// of inertia as tensor components (I_xy = -integral of x y dm) on a body
// turned off its principal axes, written three ways that must give the
// same T: two particles, the tensor in the body's axes, and principal
// moments in a frame at a constant rotation (inertia_frame). Rotations
// about one axis merge into one by the sum of their angles; a planar arm of
// bodies in relative angles gives the hand-written chain's M and k; a
// spatial arm's M and k (from the bodies' Jacobians) are Newton–Euler's, and
// so is M a + k by the generator's own Newton–Euler, for every spec with bodies.
// rhs's form, chosen per model by counting operations: the general fixed
// turns of the Franka Panda's URDF make its M dear, a spatial arm of five
// keeps M, and a model whose M counts far dearer than the estimate said is
// derived again on the recursion.
#include "generate.h"

#include <array>
#include <cmath>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

using GiNaC::ex;

namespace {

double value(const ex &e, const GiNaC::exmap &at) {
  return GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(e.subs(at))).to_double();
}

// R_x, R_y, R_z of docs/spec.md: v_parent = R_a(t) v_new, right-handed.
double rotation(int axis, double t, int row, int col) {
  int i = (row - axis + 3) % 3, j = (col - axis + 3) % 3;  // cyclic: the axis first
  double R[3][3] = {{1, 0, 0}, {0, std::cos(t), -std::sin(t)}, {0, std::sin(t), std::cos(t)}};
  return R[i][j];
}

void each_axis_rotates_as_the_spec_reference_says(void **) {
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
// cosines are the product of docs/spec.md's matrices, whether the generator
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

// An n-link spatial arm: link k turns from link k-1 (N for k = 1) by q_k
// about its z, y or x axis in turn (no two consecutive axes parallel),
// reaches from joint P_(k-1) to P_k = P_(k-1) + l_k L_k.x, has its centre
// at P_(k-1) + c_k in L_k's components, and a full inertia tensor I_k
// there; gravity is -g N.z. Its numbers are drawn once, and the test's
// Newton–Euler reference below uses the same ones.
struct SpatialLink {
  int axis;
  double m, l;
  std::array<double, 3> c;
  double I[3][3];
};
const double kGravity = 9.81;

std::vector<SpatialLink> spatial_links(int n, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<SpatialLink> links;
  for (int k = 0; k < n; ++k) {
    SpatialLink L{(2 - k % 3), 1.5 + u(rng), 0.8 + 0.3 * u(rng), {0, 0, 0}, {}};
    L.c = {L.l / 2 + 0.1 * u(rng), 0.1 * u(rng), 0.1 * u(rng)};
    double A[3][3];
    for (auto &row : A)
      for (double &x : row) x = 0.3 * u(rng);
    for (int a = 0; a < 3; ++a)  // A A^T + 0.05: symmetric, positive definite
      for (int b = 0; b < 3; ++b) L.I[a][b] = (a == b ? 0.05 : 0) + A[a][0] * A[b][0] + A[a][1] * A[b][1] + A[a][2] * A[b][2];
    links.push_back(L);
  }
  return links;
}

std::string spatial_arm_of_bodies(const std::vector<SpatialLink> &links) {
  std::ostringstream out;
  out.precision(17);
  int n = int(links.size());
  out << "name = \"arm3d\"\ncoordinates = [";
  for (int k = 1; k <= n; ++k) out << (k > 1 ? ", " : "") << "\"q" << k << "\"";
  out << "]\ngravity = \"-" << kGravity << "*N.z\"\n[frames]\n";
  for (int k = 1; k <= n; ++k)
    out << "L" << k << " = \"" << (k == 1 ? "N" : "L" + std::to_string(k - 1)) << " " << "xyz"[links[k - 1].axis]
        << "(q" << k << ")\"\n";
  out << "[points]\n";
  for (int k = 1; k <= n; ++k) {
    const SpatialLink &L = links[k - 1];
    std::string joint = k == 1 ? "0*N.x" : "P" + std::to_string(k - 1), frame = "L" + std::to_string(k);
    out << "P" << k << " = \"" << joint << " + " << L.l << "*" << frame << ".x\"\n";
    out << "G" << k << " = \"" << joint << " + " << L.c[0] << "*" << frame << ".x + " << L.c[1] << "*" << frame
        << ".y + " << L.c[2] << "*" << frame << ".z\"\n";
  }
  for (int k = 1; k <= n; ++k) {
    const SpatialLink &L = links[k - 1];
    out << "[bodies.link" << k << "]\nmass = " << L.m << "\nframe = \"L" << k << "\"\ncentre = \"G" << k
        << "\"\ninertia = [";
    for (int a = 0; a < 3; ++a)
      out << (a ? ", " : "") << "[" << L.I[a][0] << ", " << L.I[a][1] << ", " << L.I[a][2] << "]";
    out << "]\n";
  }
  return out.str();
}

using Vec3 = std::array<double, 3>;
using Mat3 = std::array<Vec3, 3>;
Vec3 operator+(Vec3 a, Vec3 b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec3 operator-(Vec3 a, Vec3 b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 operator*(double s, Vec3 a) { return {s * a[0], s * a[1], s * a[2]}; }
Vec3 operator*(const Mat3 &R, Vec3 a) {
  return {R[0][0] * a[0] + R[0][1] * a[1] + R[0][2] * a[2], R[1][0] * a[0] + R[1][1] * a[1] + R[1][2] * a[2],
          R[2][0] * a[0] + R[2][1] * a[1] + R[2][2] * a[2]};
}
Vec3 cross(Vec3 a, Vec3 b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
double dot(Vec3 a, Vec3 b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// The joint torques that give the arm accelerations qdd at (q, qd), by
// Newton–Euler in N's components, written from the mechanics, not from the
// generator: rotations multiplied out as matrices, each link's velocity and
// acceleration from its parent's, then the forces and moments back from the
// tip. tau = M qdd + k, so k = tau(q, qd, 0) and column j of M is
// tau(q, 0, e_j) - tau(q, 0, 0).
std::vector<double> newton_euler(const std::vector<SpatialLink> &links, const std::vector<double> &q,
                                 const std::vector<double> &qd, const std::vector<double> &qdd) {
  size_t n = links.size();
  std::vector<Mat3> C(n);  // L_k's unit vectors in N, as columns
  std::vector<Vec3> axis(n), w(n), alpha(n), P(n + 1), G(n), aP(n + 1), aG(n);
  Mat3 parent = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  Vec3 w_parent = {0, 0, 0}, alpha_parent = {0, 0, 0};
  P[0] = aP[0] = {0, 0, 0};
  for (size_t k = 0; k < n; ++k) {
    Mat3 R = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};  // docs/spec.md's R_a(q): v_parent = R v_child
    int a = links[k].axis, i = (a + 1) % 3, j = (a + 2) % 3;
    R[i][i] = R[j][j] = std::cos(q[k]);
    R[i][j] = -std::sin(q[k]);
    R[j][i] = std::sin(q[k]);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) C[k][r][c] = parent[r][0] * R[0][c] + parent[r][1] * R[1][c] + parent[r][2] * R[2][c];
    axis[k] = {C[k][0][a], C[k][1][a], C[k][2][a]};
    w[k] = w_parent + qd[k] * axis[k];
    alpha[k] = alpha_parent + qdd[k] * axis[k] + cross(w_parent, qd[k] * axis[k]);
    Vec3 to_end = C[k] * Vec3{links[k].l, 0, 0}, to_centre = C[k] * links[k].c;
    P[k + 1] = P[k] + to_end;
    G[k] = P[k] + to_centre;
    aP[k + 1] = aP[k] + cross(alpha[k], to_end) + cross(w[k], cross(w[k], to_end));
    aG[k] = aP[k] + cross(alpha[k], to_centre) + cross(w[k], cross(w[k], to_centre));
    parent = C[k], w_parent = w[k], alpha_parent = alpha[k];
  }
  std::vector<double> tau(n);
  Vec3 f_child = {0, 0, 0}, n_child = {0, 0, 0};  // what link k+1 needs from link k, at P_(k+1)
  for (size_t k = n; k-- > 0;) {
    Mat3 I{};  // C I C^T
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        for (int x = 0; x < 3; ++x)
          for (int y = 0; y < 3; ++y) I[r][c] += C[k][r][x] * links[k].I[x][y] * C[k][c][y];
    Vec3 F = links[k].m * (aG[k] - Vec3{0, 0, -kGravity});
    Vec3 N = I * alpha[k] + cross(w[k], I * w[k]);
    Vec3 f = F + f_child;  // from link k-1 on link k, and its moment about P_k
    Vec3 moment = N + cross(G[k] - P[k], F) + n_child + cross(P[k + 1] - P[k], f_child);
    tau[k] = dot(axis[k], moment);
    f_child = f, n_child = moment;
  }
  return tau;
}

// M and k of a 6-link spatial arm of bodies (derived from the bodies'
// Jacobians) against Newton–Euler at random states, and against the
// generator's own T differentiated numerically (M and p = dT/dq' by
// polarisation, exact for a quadratic form; k = (dp/dq) q' - dT/dq + dV/dq
// by central differences in q).
void spatial_arm_matches_newton_euler(void **) {
  const int n = 6;
  std::mt19937_64 rng(27);
  std::vector<SpatialLink> links = spatial_links(n, rng);
  lgc::Spec spec = lgc::read_spec_text("arm3d.toml", spatial_arm_of_bodies(links));
  lgc::Model arm = lgc::derive(spec);
  std::uniform_real_distribution<double> u(-2, 2);
  auto point = [&](const std::vector<double> &q, const std::vector<double> &qd) {
    lgc::Evaluator::Point at;
    for (int i = 0; i < n; ++i) at[arm.symbols.q[i]] = q[i], at[arm.symbols.v[i]] = qd[i];
    at[arm.symbols.t] = 0;
    return at;
  };
  auto energy = [&](const GiNaC::ex &e, const std::vector<double> &q, const std::vector<double> &qd) {
    return lgc::Evaluator(point(q, qd))(e);
  };
  auto check = [](int trial, const char *what, int i, int j, double got, double want, double tol) {
    if (!(std::fabs(got - want) <= tol * (1 + std::fabs(want))))
      fail_msg("state %d: %s(%d, %d) derived %.17g, reference %.17g", trial, what, i, j, got, want);
  };
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> q(n), qd(n), zero(n, 0.0);
    for (int i = 0; i < n; ++i) q[i] = u(rng), qd[i] = u(rng);
    lgc::Evaluator model(point(q, qd));
    std::vector<double> k_ref = newton_euler(links, q, qd, zero), rest = newton_euler(links, q, zero, zero);
    for (int j = 0; j < n; ++j) {
      std::vector<double> e(n, 0.0);
      e[j] = 1;
      std::vector<double> column = newton_euler(links, q, zero, e);
      for (int i = 0; i < n; ++i) check(trial, "M vs Newton-Euler", i, j, model(arm.M(i, j)), column[i] - rest[i], 1e-12);
    }
    for (int i = 0; i < n; ++i) check(trial, "k vs Newton-Euler", i, 0, model(arm.k[i]), k_ref[i], 1e-12);
    // From T: M_ij = T(e_i + e_j) - T(e_i) - T(e_j) at velocities e; k by differences of step h.
    std::vector<std::vector<double>> M(n, std::vector<double>(n));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        std::vector<double> ei(n, 0.0), ej(n, 0.0), eij(n, 0.0);
        ei[i] = 1, ej[j] = 1, eij[i] += 1, eij[j] += 1;
        M[i][j] = energy(arm.T, q, eij) - energy(arm.T, q, ei) - energy(arm.T, q, ej);
        if (i == j) M[i][j] = 2 * energy(arm.T, q, ei);
        check(trial, "M vs d2T/dq'dq'", i, j, model(arm.M(i, j)), M[i][j], 1e-12);
      }
    const double h = 1e-5;
    for (int i = 0; i < n; ++i) {
      // (dp_i/dq) q' as the derivative of p_i = dT/dq'_i along q'; p_i is
      // (T(q' + e_i) - T(q' - e_i))/2, exact for T quadratic in q'.
      auto p = [&](const std::vector<double> &at) {
        std::vector<double> up = qd, down = qd;
        up[i] += 1, down[i] -= 1;
        return (energy(arm.T, at, up) - energy(arm.T, at, down)) / 2;
      };
      std::vector<double> ahead = q, behind = q;
      for (int j = 0; j < n; ++j) ahead[j] += h * qd[j], behind[j] -= h * qd[j];
      std::vector<double> qi_up = q, qi_down = q;
      qi_up[i] += h, qi_down[i] -= h;
      double dT_dq = (energy(arm.T, qi_up, qd) - energy(arm.T, qi_down, qd)) / (2 * h);
      double dV_dq = (energy(arm.V, qi_up, qd) - energy(arm.V, qi_down, qd)) / (2 * h);
      double want = (p(ahead) - p(behind)) / (2 * h) - dT_dq + dV_dq;
      check(trial, "k vs T differentiated numerically", i, 0, model(arm.k[i]), want, 1e-7);
    }
  }
}

// M, k and M a + k of the bodies by Newton–Euler over the frame tree
// (newton_euler_dynamics, and inverse_dynamics, what the Jacobian
// differentiates) against the same from the bodies' Jacobian products
// (body_dynamics, what small systems expand) at random q, q', a,
// for the specs with bodies: wheels whose inertia axes spin off their
// frame (bicycle, leaning disk), a top, and the spatial arm, which is also
// checked against the test's own Newton–Euler.
void newton_euler_matches_jacobian_products(void **) {
  std::mt19937_64 rng(41);
  std::vector<SpatialLink> links = spatial_links(6, rng);
  std::vector<std::pair<std::string, lgc::Spec>> specs;
  for (const char *name : {"bicycle", "heavy_top", "leaning_disk_body"})
    specs.emplace_back(name, lgc::read_spec(std::string(SPECS_DIR) + "/" + name + ".toml"));
  specs.emplace_back("arm3d", lgc::read_spec_text("arm3d.toml", spatial_arm_of_bodies(links)));
  std::uniform_real_distribution<double> u(-2, 2);
  for (auto &[name, spec] : specs) {
    lgc::SymbolTable s = lgc::make_symbols(spec);
    lgc::Scope scope(spec, s);
    std::vector<lgc::BodyEnergy> bodies = lgc::body_energies(scope);
    lgc::KineticTerms products = lgc::body_dynamics(scope.frames, s, bodies),
                      recursive = lgc::newton_euler_dynamics(scope.frames, s, bodies);
    size_t n = s.q.size();
    std::vector<GiNaC::realsymbol> a_symbols;
    for (size_t i = 0; i < n; ++i) a_symbols.push_back(GiNaC::realsymbol("a" + std::to_string(i + 1)));
    std::vector<ex> R = lgc::inverse_dynamics(scope.frames, s, bodies, std::vector<ex>(a_symbols.begin(), a_symbols.end()));
    for (int trial = 0; trial < 5; ++trial) {
      lgc::Evaluator::Point at;
      std::vector<double> q(n), qd(n), qdd(n);
      for (size_t i = 0; i < n; ++i) {
        at[s.q[i]] = q[i] = u(rng);
        at[s.v[i]] = qd[i] = u(rng);
        at[a_symbols[i]] = qdd[i] = u(rng);
      }
      at[s.t] = u(rng);
      for (size_t i = 0; i < spec.parameters.size(); ++i) at[s.p[i]] = spec.parameters[i].value;
      lgc::Evaluator value_of(at);
      std::vector<double> reference = name == "arm3d" ? newton_euler(links, q, qd, qdd) : std::vector<double>();
      auto check = [&](const char *what, size_t i, size_t j, double got, double want) {
        if (!(std::fabs(got - want) <= 1e-12 * (1 + std::fabs(want))))
          fail_msg("%s, state %d: %s(%zu, %zu) by Newton-Euler %.17g, from the Jacobians %.17g", name.c_str(), trial,
                   what, i, j, got, want);
      };
      for (size_t i = 0; i < n; ++i) {
        check("k", i, 0, value_of(recursive.k[i]), value_of(products.k[i]));
        for (size_t j = 0; j < n; ++j) check("M", i, j, value_of(recursive.M(i, j)), value_of(products.M(i, j)));
        double want = value_of(products.k[i]);
        for (size_t j = 0; j < n; ++j) want += value_of(products.M(i, j)) * qdd[j];
        double got = value_of(R[i]);
        if (!(std::fabs(got - want) <= 1e-12 * (1 + std::fabs(want))))
          fail_msg("%s, state %d: row %zu by Newton-Euler %.17g, from M a + k %.17g", name.c_str(), trial, i, got, want);
        if (!reference.empty() && !(std::fabs(got - reference[i]) <= 1e-12 * (1 + std::fabs(reference[i]))))
          fail_msg("%s, state %d: row %zu by Newton-Euler %.17g, the test's own %.17g", name.c_str(), trial, i, got,
                   reference[i]);
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

// ArticulatedTree::planar_axis: the common axis when every link turns
// about it and every constant turn between joints keeps it (a turn about
// it does), none when a turn tips it, a joint turns about another axis, or
// the tree has a free joint.
void planar_axis_only_when_every_joint_keeps_it(void **) {
  auto turn = [](int axis, double angle) {
    GiNaC::matrix E(3, 3);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) E(unsigned(r), unsigned(c)) = rotation(axis, angle, r, c);
    return E;
  };
  lgc::ArticulatedTree tree;
  tree.links.resize(3);
  for (int i = 0; i < 3; ++i) {
    tree.links[size_t(i)].parent = i - 1;
    tree.links[size_t(i)].axis = 1;
    tree.links[size_t(i)].E = turn(1, 0);
  }
  tree.links[1].E = turn(1, 0.3);
  const std::optional<int> about_y = tree.planar_axis();
  if (about_y != 1) fail_msg("every joint about y, a constant turn about y: axis %d", about_y ? *about_y : -1);
  tree.links[2].E = turn(0, 0.2);
  if (tree.planar_axis())
    fail_msg("a constant turn about x tips the axis, but the tree is planar about %d", *tree.planar_axis());
  tree.links[2].E = turn(1, 0);
  tree.links[2].axis = 2;
  if (tree.planar_axis()) fail_msg("a joint about z among joints about y, but the tree is planar");
  tree.links[2].axis = 1;
  tree.links[0].axis = -1;
  if (tree.planar_axis()) fail_msg("a free joint, but the tree is planar");
}

// rhs's form as generate() leaves it, the model's reason beside it.
std::pair<bool, std::string> generated_form(const lgc::Spec &spec) {
  std::pair<bool, std::string> form;
  lgc::generate(spec, lgc::Formulation::dalembert, false, lgc::Precision::double_precision, false,
                lgc::kGenerationSeconds, [&](const lgc::Model &m) { form = {m.articulated.chosen, m.articulated.reason}; });
  return form;
}

// The Panda's joint frames turn by rpy = ±pi/2 in decimals at each of its
// last six joints (general turns): its M, f and solve counted 16,913
// operations against the 4,075 that kOpsPerEntry alone estimated, and its
// first simulate took 110 s of CPU; the turns' cost puts it on the recursion.
void panda_takes_the_recursion(void **) {
  lgc::Model m = lgc::derive(lgc::read_spec(std::string(URDF_DIR) + "/panda.urdf"));
  const lgc::ArticulatedTree &tree = m.articulated;
  if (!tree.chosen)
    fail_msg("the Panda keeps M: about %zu operations in the recursion against about %zu for M (%s)",
             tree.recursion_ops, tree.dense_ops, tree.reason.c_str());
  // 28 entries and 56 turns summed over their paths (the turn at links 2..7; entry (i, j) crosses i - j of them).
  const size_t want = 28 * lgc::ArticulatedTree::kOpsPerEntry + 56 * lgc::ArticulatedTree::kOpsPerTurn + 7 * 7 * 7 / 6 +
                      2 * 7 * 7;
  if (tree.dense_ops != want) fail_msg("the Panda's M estimated at %zu operations, want %zu", tree.dense_ops, want);
}

// A spatial arm of five links whose joint frames are turned by exact
// quarter turns (x(pi/2) between its links: signed permutations, which
// cost M nothing): the estimate keeps M, and so does the count.
void spatial_arm_of_five_keeps_the_dense_form(void **) {
  std::mt19937_64 rng(5);
  std::string text = spatial_arm_of_bodies(spatial_links(5, rng));
  for (int k = 2; k <= 5; ++k) {
    const std::string from = "L" + std::to_string(k) + " = \"L" + std::to_string(k - 1) + " ";
    const size_t at = text.find(from);
    assert_true(at != std::string::npos);
    text.insert(at + from.size(), "x(pi/2) ");
  }
  lgc::Spec spec = lgc::read_spec_text("arm5.toml", text);
  const lgc::ArticulatedTree tree = lgc::derive(spec).articulated;
  if (tree.chosen || !tree.available())
    fail_msg("the arm of five %s: about %zu operations in the recursion against about %zu for M (%s)",
             tree.available() ? "takes the recursion" : "is no tree", tree.recursion_ops, tree.dense_ops,
             (tree.available() ? tree.reason : tree.absent).c_str());
  auto [recursion, reason] = generated_form(spec);
  if (recursion) fail_msg("the arm of five is generated on the recursion: %s", reason.c_str());
}

// A spatial arm of six carrying four particles per link, their masses
// parameters, its first joint held by a row written twice: the tree sums
// each link's bodies, but M, derived body by body, counts their terms
// (about 12,500 operations against the 3,096 estimated), past twice the
// recursion's estimate: generated on the recursion, the reason saying so,
// and the second row's warning (redundant) printed once for both
// derivations.
void dense_form_far_past_its_estimate_is_derived_again(void **) {
  std::mt19937_64 rng(6);
  std::ostringstream text;
  const int particles = 4;
  text << spatial_arm_of_bodies(spatial_links(6, rng)) << "[parameters]\n";
  for (int k = 1; k <= 6; ++k)
    for (int p = 0; p < particles; ++p) text << "mp" << k << "_" << p << " = " << 0.1 + 0.01 * p << "\n";
  for (int k = 1; k <= 6; ++k)
    for (int p = 0; p < particles; ++p)
      text << "[particles.p" << k << "_" << p << "]\nmass = \"mp" << k << "_" << p << "\"\npoint = \""
           << (k == 1 ? std::string("0*N.x") : "P" + std::to_string(k - 1)) << " + " << 0.1 * (p + 1) << "*L" << k
           << ".x + " << 0.03 * (p % 3 - 1) << "*L" << k << ".y + " << 0.02 * (p % 2 ? 1 : -1) << "*L" << k << ".z\"\n";
  text << "[constraints]\nholonomic = [\"q1 - 0.1\", \"2*q1 - 0.2\"]\n";
  lgc::Spec spec = lgc::read_spec_text("heavy.toml", text.str());
  std::ostringstream warnings;
  std::streambuf *stderr_buffer = std::cerr.rdbuf(warnings.rdbuf());
  const lgc::ArticulatedTree estimated = lgc::derive(spec).articulated;
  warnings.str("");
  auto [recursion, reason] = generated_form(spec);
  std::cerr.rdbuf(stderr_buffer);
  if (estimated.chosen)
    fail_msg("the estimate already takes the recursion (%s): the test needs one that keeps M", estimated.reason.c_str());
  if (!recursion || reason.find("counted exactly") == std::string::npos)
    fail_msg("generated %s: %s", recursion ? "on the recursion" : "with M", reason.c_str());
  const std::string said = warnings.str(), redundant = "holonomic constraint 2 is implied";
  const size_t first = said.find(redundant);
  if (first == std::string::npos || said.find(redundant, first + 1) != std::string::npos)
    fail_msg("the redundant row's warning is not printed once:\n%s", said.c_str());
}

}  // namespace

int main() {
  const CMUnitTest tests[] = {
      cmocka_unit_test(each_axis_rotates_as_the_spec_reference_says),
      cmocka_unit_test(products_of_inertia_are_tensor_components),
      cmocka_unit_test(merged_rotations_compose),
      cmocka_unit_test(arm_of_bodies_matches_the_written_chain),
      cmocka_unit_test(spatial_arm_matches_newton_euler),
      cmocka_unit_test(newton_euler_matches_jacobian_products),
      cmocka_unit_test(planar_axis_only_when_every_joint_keeps_it),
      cmocka_unit_test(panda_takes_the_recursion),
      cmocka_unit_test(spatial_arm_of_five_keeps_the_dense_form),
      cmocka_unit_test(dense_form_far_past_its_estimate_is_derived_again),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
