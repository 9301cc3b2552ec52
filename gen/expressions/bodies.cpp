// bodies.cpp — the kinetic and potential energy of [bodies] and
// [particles], kept in the shape the derivation takes apart without
// expanding: squares and products of forms linear in the velocities.
// Inertia entries are tensor components about the centre of mass: the
// products are I_xy = -∫ x y dm (the off-diagonal entries of the tensor,
// as the benchmark bicycle's table prints them).
#include "expressions/expressions.h"

namespace lgc {

namespace {

using GiNaC::ex;

// Expressions of a body's mass, inertia, gravity: constants of the motion.
ExprContext constant(const std::string &what) { return {what.c_str(), false, false, false, "parameters"}; }

class BodyReader {
 public:
  explicit BodyReader(Scope &scope) : scope_(scope), s_(scope.symbols) {
    if (scope.spec.gravity) {
      std::string what = "gravity";
      gravity_ = read_vector(*scope.spec.gravity, scope_, constant(what));
    }
  }

  BodyEnergy particle(const ParticleSpec &p) {
    std::string what = "the mass of particle '" + p.name + "'", where = "the point of particle '" + p.name + "'";
    ex m = read_expression(p.mass, scope_, constant(what));
    Vector r = read_vector(p.point, scope_, {where.c_str(), false, false});
    return {p.name, 0, 0, m, r, weight(m)};
  }

  BodyEnergy body(const BodySpec &b) {
    std::string what = "the mass of body '" + b.name + "'", where = "the centre of body '" + b.name + "'";
    ex m = read_expression(b.mass, scope_, constant(what));
    Vector r = read_vector(b.centre, scope_, {where.c_str(), false, false});
    int frame = scope_.frame(b.frame);
    GiNaC::matrix I = inertia(b);
    int axes = b.inertia_frame ? inertia_frame(b, frame) : frame;
    axes = turned_from(axes, I);
    return {b.name, 0, 0, m, r, weight(m), frame, axes, I};
  }

  void add_energies(std::vector<BodyEnergy> &bodies) {
    for (auto &b : bodies) {
      b.T = kinetic(b);
      b.V = potential(b.mass, b.centre);
    }
  }

  // m/2 |v|^2 of the centre, and for a body 1/2 sum_ab I_ab w_a w_b in its inertia's axes.
  ex kinetic(const BodyEnergy &b) {
    GiNaC::exvector terms = {translation(b.mass, b.centre)};
    if (b.frame < 0) return terms[0];
    Components w = components_in(scope_.frames, scope_.frames.angular_velocity(b.frame, s_), b.axes);
    const GiNaC::matrix &I = b.inertia;
    for (unsigned a = 0; a < 3; ++a)
      for (unsigned c = a; c < 3; ++c)
        if (!I(a, c).is_zero() && !w[a].is_zero() && !w[c].is_zero())
          terms.push_back(a == c ? I(a, a) / 2 * GiNaC::pow(w[a], 2) : I(a, c) * w[a] * w[c]);
    return GiNaC::add(terms);
  }

 private:
  Scope &scope_;
  const SymbolTable &s_;
  std::optional<Vector> gravity_;

  // m/2 |vel(r)|^2, as the squares of the velocity's components in one frame.
  ex translation(const ex &m, const Vector &r) {
    Vector velocity = time_derivative(scope_.frames, s_, r);
    Components v = components_in(scope_.frames, velocity, closest_frame(scope_.frames, velocity));
    GiNaC::exvector terms;
    for (auto &c : v)
      if (!c.is_zero()) terms.push_back(m / 2 * GiNaC::pow(c, 2));
    return GiNaC::add(terms);
  }

  ex potential(const ex &m, const Vector &r) { return gravity_ ? -m * dot(scope_.frames, *gravity_, r) : ex(0); }
  Vector weight(const ex &m) { return gravity_ ? m * *gravity_ : Vector{}; }

  // The tensor from 3 principal moments or 9 entries by rows, which must
  // be symmetric.
  GiNaC::matrix inertia(const BodySpec &b) {
    std::string what = "the inertia of body '" + b.name + "'";
    std::vector<ex> e;
    for (auto &t : b.inertia) e.push_back(read_expression(t, scope_, constant(what)));
    GiNaC::matrix I(3, 3);
    if (e.size() == 3) {
      for (int a = 0; a < 3; ++a) I(a, a) = e[a];
      return I;
    }
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) {
        I(a, c) = e[3 * a + c];
        if (c < a && !(I(a, c) - I(c, a)).expand().is_zero())
          error_at(b.inertia[3 * a + c].loc_of(0),
                   what + " is not symmetric: row " + std::to_string(a + 1) + ", column " + std::to_string(c + 1) +
                       " differs from row " + std::to_string(c + 1) + ", column " + std::to_string(a + 1) +
                       " (products of inertia are tensor components, I_xz = I_zx = -integral of x z dm)");
      }
    return I;
  }

  // The frame the inertia is given in, which must keep its orientation in
  // the body's frame: the same angular velocity, in other axes.
  int inertia_frame(const BodySpec &b, int frame) {
    int axes = scope_.frame(*b.inertia_frame);
    for (int a = 0; a < 3; ++a) {
      Components unit = {0, 0, 0};
      unit[a] = 1;
      Components c = scope_.frames.express(unit, axes, frame);
      for (auto &x : c)
        if (s_.has_kind(x, SymbolKind::coordinate) || x.has(s_.t))
          error_at(b.inertia_frame->loc, "inertia_frame '" + b.inertia_frame->name + "' turns in the frame of body '" +
                                             b.name + "' ('" + b.frame.name +
                                             "'): the inertia must be given in a frame at a constant rotation from it");
    }
    return axes;
  }

  // A rotation about an axis of symmetry of I leaves I unchanged, so the
  // angular velocity may be taken in the frame it turns from: a wheel's
  // rotational energy then has no trace of its spin angle.
  int turned_from(int axes, const GiNaC::matrix &I) const {
    const FrameTree &frames = scope_.frames;
    while (axes != FrameTree::N) {
      int a = frames.node(axes).axis, b = (a + 1) % 3, c = (a + 2) % 3;
      if (a < 0) break;  // a quaternion turns about no fixed axis
      bool symmetric = I(a, b).is_zero() && I(a, c).is_zero() && I(b, c).is_zero() && (I(b, b) - I(c, c)).expand().is_zero();
      if (!symmetric) break;
      axes = frames.node(axes).parent;
    }
    return axes;
  }
};

}  // namespace

std::vector<BodyEnergy> body_energies(Scope &scope, bool energies) {
  BodyReader reader(scope);
  std::vector<BodyEnergy> out;
  for (auto &b : scope.spec.bodies) out.push_back(reader.body(b));
  for (auto &p : scope.spec.particles) out.push_back(reader.particle(p));
  if (energies) reader.add_energies(out);
  return out;
}

void add_energies(Scope &scope, std::vector<BodyEnergy> &bodies) { BodyReader(scope).add_energies(bodies); }

}  // namespace lgc
