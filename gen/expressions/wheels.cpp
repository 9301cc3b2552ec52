// wheels.cpp — the constraints of a disk wheel rolling without slipping on
// a plane ([rolling.NAME]): its contact point on the plane (holonomic) and
// no sliding of the material point at the contact (two nonholonomic rows).
// The rows are constraints with multipliers, never substituted into T: the
// substitution gives wrong equations for a nonholonomic system (sympy issue
// 27631).
#include "expressions/expressions.h"

namespace lgc {

namespace {

using GiNaC::ex;

class WheelReader {
 public:
  WheelReader(Scope &scope, const std::function<int(const ex &)> &sign)
      : scope_(scope), frames_(scope.frames), s_(scope.symbols), sign_(sign) {}

  WheelRows rows(const WheelSpec &w) {
    const BodySpec &body = body_of(w);
    std::string name = "wheel '" + w.name + "'";
    std::string of_centre = "the centre of " + name, of_axle = "the axle of " + name,
                of_normal = "the normal of " + name, of_radius = "the radius of " + name;
    Vector centre = w.centre ? read_vector(*w.centre, scope_, {of_centre.c_str(), false, false})
                             : read_vector(body.centre, scope_, {of_centre.c_str(), false, false});
    Vector a = unit(read_vector(w.axle, scope_, {of_axle.c_str(), false, false}), w.axle, of_axle);
    Vector n = unit(read_vector(w.normal, scope_, {of_normal.c_str(), false, false, false, "parameters"}), w.normal,
                    of_normal);
    ex r = read_expression(w.radius, scope_, {of_radius.c_str(), false, false, false, "parameters"});
    check_fixed(n, w.normal, of_normal);
    ex na = dot(frames_, n, a);
    if ((1 - GiNaC::pow(na, 2)).expand().is_zero())
      error_at(w.axle.loc_of(0), of_axle + " is parallel to the normal of its plane: the disk would lie flat, "
                                 "with no contact point; a rolling wheel's axle lies across the normal");

    // contact = centre - r k, k = (n - (n.a) a) / sqrt(1 - (n.a)^2), the
    // unit vector from the contact to the centre.
    Vector k;
    if (auto along_axis = axis_towards(a, n)) {
      k = *along_axis;
    } else {
      k = (1 / GiNaC::sqrt(1 - GiNaC::pow(na, 2))) * (n + (-na) * a);
    }
    Vector slip = time_derivative(frames_, s_, centre) +
                  cross(frames_, frames_.angular_velocity(scope_.frame(body.frame), s_), (-r) * k);
    WheelRows out{&w, dot(frames_, n, centre) - r * dot(frames_, n, k), {}, {}};
    auto [t1, t2] = tangents(n, out.tangent);
    out.no_slip = {dot(frames_, t1, slip), dot(frames_, t2, slip)};
    return out;
  }

 private:
  Scope &scope_;
  const FrameTree &frames_;
  const SymbolTable &s_;
  const std::function<int(const ex &)> &sign_;

  // k as a frame's unit vector, when it is one: with the axle an axis j of
  // a frame C (or of a frame C turns from about j) and another axis i of C
  // parallel to the plane (n . C.i = 0), k is C's third axis, or minus it,
  // whichever has n . k > 0 at the sampled states. The contact is then
  // written as by hand (centre - r*L.z), with no square root to simplify.
  std::optional<Vector> axis_towards(const Vector &a, const Vector &n) const {
    if (a.terms.size() != 1) return std::nullopt;
    auto &[frame, c] = *a.terms.begin();
    int j = -1;
    for (int i = 0; i < 3; ++i)
      if (c[i] == 1) j = i;
      else if (!c[i].is_zero()) return std::nullopt;
    if (j < 0) return std::nullopt;
    for (int C = frame;; C = frames_.node(C).parent) {
      for (int i : {(j + 1) % 3, (j + 2) % 3})
        if (dot(frames_, n, Vector::unit(C, i)).expand().is_zero()) {
          Vector third = Vector::unit(C, 3 - i - j);
          if (int sign = sign_(dot(frames_, n, third))) return ex(sign) * third;
        }
      if (C == FrameTree::N || frames_.node(C).axis != j) return std::nullopt;
    }
  }

  const BodySpec &body_of(const WheelSpec &w) const {
    std::vector<std::string> names;
    for (auto &b : scope_.spec.bodies) {
      if (b.name == w.body.name) return b;
      names.push_back(b.name);
    }
    for (auto &p : scope_.spec.particles)
      if (p.name == w.body.name)
        error_at(w.body.loc, "'" + w.body.name + "' is a particle; a wheel's body is a body of [bodies], whose frame turns with it");
    std::string list;
    for (auto &n : names) list += (list.empty() ? "" : ", ") + n;
    error_at(w.body.loc, "unknown body '" + w.body.name + "'" + did_you_mean(w.body.name, names) +
                             (names.empty() ? "; the spec has no [bodies]" : "; the bodies are " + list));
  }

  // The plane is fixed in N: a normal in a frame that turns with the
  // coordinates or t (B.z of a body B) is refused where it is written.
  void check_fixed(const Vector &n, const SourceText &src, const std::string &what) const {
    Components c = components_in(frames_, n, FrameTree::N);
    for (auto &e : c)
      if (s_.has_kind(e, SymbolKind::coordinate) || s_.has_kind(e, SymbolKind::time))
        error_at(src.loc_of(0), what + " turns with the coordinates (its components in N are " + expression_text(c[0]) +
                                    ", " + expression_text(c[1]) + ", " + expression_text(c[2]) +
                                    "); the plane is fixed in N: write its normal in N's axes");
  }

  // v / |v|, or v itself when it is a unit vector as written (B.y).
  Vector unit(const Vector &v, const SourceText &src, const std::string &what) const {
    ex square = dot(frames_, v, v);
    if ((square - 1).expand().is_zero()) return v;
    if (square.expand().is_zero()) error_at(src.loc_of(0), what + " is the zero vector");
    return (1 / GiNaC::sqrt(square)) * v;
  }

  // Two orthonormal directions in the plane, fixed in N: for a plane
  // normal to an axis of N, its other two axes in cyclic order (N.x and
  // N.y for N.z); else t1 along the first axis of N the plane holds (or
  // N.x projected onto it) and t2 = n x t1.
  std::pair<Vector, Vector> tangents(const Vector &n, std::array<std::string, 2> &names) const {
    Components c = components_in(frames_, n, FrameTree::N);
    std::vector<int> in_plane;
    for (int i = 0; i < 3; ++i)
      if (c[i].is_zero()) in_plane.push_back(i);
    const char *axis[] = {"N.x", "N.y", "N.z"};
    if (in_plane.size() == 2) {
      int k = 3 - in_plane[0] - in_plane[1], i = (k + 1) % 3, j = (k + 2) % 3;
      names = {axis[i], axis[j]};
      return {Vector::unit(FrameTree::N, i), Vector::unit(FrameTree::N, j)};
    }
    Vector e = Vector::unit(FrameTree::N, in_plane.empty() ? 0 : in_plane[0]);
    Vector t1 = e + (-dot(frames_, e, n)) * n;
    t1 = (1 / GiNaC::sqrt(dot(frames_, t1, t1))) * t1;
    names = {"t1", "t2"};
    return {t1, cross(frames_, n, t1)};
  }
};

}  // namespace

std::vector<WheelRows> wheel_rows(Scope &scope, const std::function<int(const GiNaC::ex &)> &sign) {
  WheelReader reader(scope, sign);
  std::vector<WheelRows> out;
  for (auto &w : scope.spec.wheels) out.push_back(reader.rows(w));
  return out;
}

}  // namespace lgc
