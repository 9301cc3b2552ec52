// wheels.cpp — the constraints of a body rolling without slipping on a
// plane ([rolling.NAME]: a disk wheel, a sphere, an ellipsoid, or a convex
// body given by its support function): its contact point on the plane
// (holonomic) and no sliding of the material point at the contact (two
// nonholonomic rows).
// The rows are constraints with multipliers, never substituted into T: the
// substitution gives wrong equations for a nonholonomic system (sympy issue
// 27631).
#include "expressions/expressions.h"

#include <cmath>

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
    std::string of_centre = "the centre of " + name, of_normal = "the normal of " + name;
    Vector centre = w.centre ? read_vector(*w.centre, scope_, {of_centre.c_str(), false, false})
                             : read_vector(body.centre, scope_, {of_centre.c_str(), false, false});
    std::string of_axle = "the axle of " + name;
    Vector a;
    if (w.shape == WheelSpec::disk) a = unit(read_vector(w.axle, scope_, {of_axle.c_str(), false, false}), w.axle, of_axle);
    Vector n = unit(read_vector(w.normal, scope_, {of_normal.c_str(), false, false, false, "parameters"}), w.normal,
                    of_normal);
    ex r = w.shape == WheelSpec::disk || w.shape == WheelSpec::sphere ? length(w.radius, "the radius of " + name) : ex(0);
    check_fixed(n, w.normal, of_normal);
    // The body's point at the contact, from its centre, and its height
    // above the plane (n . (contact - centre) = -height).
    Vector to_contact;
    ex height;
    switch (w.shape) {
      case WheelSpec::disk: {
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
        to_contact = (-r) * k;
        height = r * dot(frames_, n, k);
        break;
      }
      case WheelSpec::sphere: {
        // Straight down the normal, whatever the body's orientation.
        to_contact = (-r) * n;
        height = r;
        break;
      }
      case WheelSpec::ellipsoid:
      case WheelSpec::support: {
        // A convex body of support function h(u) (its extent along u from
        // the centre, u in the body frame's axes) touches the plane at the
        // point furthest along -n: grad h(-n_B), n_B = n in the body's axes,
        // at the height h(-n_B) (docs/theory.md, §8).
        int axes = scope_.frame(body.frame);
        Components nb = components_in(frames_, n, axes);
        GiNaC::exmap down = {{u_[0], -nb[0]}, {u_[1], -nb[1]}, {u_[2], -nb[2]}};
        ex h = support_function(w, name);
        Components p;
        for (int i = 0; i < 3; ++i) p[i] = h.diff(u_[i]).subs(down);
        to_contact.terms[axes] = p;
        height = h.subs(down);
        // A quaternion's rotation as written is |q|^2 times a rotation off
        // the unit sphere, and so n_B's length is the product of the |q|^2
        // of the quaternions on the way from N: the height's scale there (p,
        // of degree 0 in n_B, has none), divided out so that the row is the
        // height whatever |q| (else it would repeat the unit-norm row).
        ex scale = 1;
        for (int C = axes; C != FrameTree::N; C = frames_.node(C).parent)
          if (frames_.node(C).is_quaternion()) {
            const ex &q = frames_.node(C).angle;
            scale *= GiNaC::pow(q.op(0), 2) + GiNaC::pow(q.op(1), 2) + GiNaC::pow(q.op(2), 2) + GiNaC::pow(q.op(3), 2);
          }
        height = height / scale;
        break;
      }
    }
    Vector slip = time_derivative(frames_, s_, centre) +
                  cross(frames_, frames_.angular_velocity(scope_.frame(body.frame), s_), to_contact);
    WheelRows out{&w, dot(frames_, n, centre) - height, {}, {}};
    auto [t1, t2] = tangents(n, out.tangent);
    out.no_slip = {dot(frames_, t1, slip), dot(frames_, t2, slip)};
    return out;
  }

 private:
  Scope &scope_;
  const FrameTree &frames_;
  const SymbolTable &s_;
  const std::function<int(const ex &)> &sign_;
  // The direction of a support function, in the body frame's axes.
  const std::array<GiNaC::realsymbol, 3> u_ = {GiNaC::realsymbol("ux"), GiNaC::realsymbol("uy"),
                                               GiNaC::realsymbol("uz")};

  // e at the parameters' defaults, when it is a finite real number there.
  std::optional<double> at_defaults(const ex &e, const GiNaC::exmap &more = {}) const {
    double x = value_at_defaults(e, s_, scope_.spec, more);
    return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
  }

  // A radius or a semi-axis: an expression of the parameters, positive at
  // their defaults.
  ex length(const SourceText &src, const std::string &what) {
    ex r = read_expression(src, scope_, {what.c_str(), false, false, false, "parameters"});
    std::optional<double> value = at_defaults(r);
    if (value && !(*value > 0))
      error_at(src.loc_of(0), what + " is " + format_double(*value) +
                                  " at the parameters' defaults; a length must be positive");
    return r;
  }

  // h(ux, uy, uz): an ellipsoid's sqrt(a^2 ux^2 + b^2 uy^2 + c^2 uz^2), or
  // the one written, checked at sampled directions (the parameters at their
  // defaults) to be a support function: positive (the centre inside the
  // body), of degree 1 (h(2u) = 2 h(u)) and convex.
  ex support_function(const WheelSpec &w, const std::string &name) {
    if (w.shape == WheelSpec::ellipsoid) {
      const char *axis[] = {"x", "y", "z"};
      ex square = 0;
      for (int i = 0; i < 3; ++i) {
        ex a = length(w.semi_axes[i], std::string("the semi-axis along ") + axis[i] + " of " + name);
        square += GiNaC::pow(a * u_[i], 2);
      }
      return GiNaC::sqrt(square);
    }
    std::string what = "the support function of " + name;
    const SourceText &src = w.support_function;
    std::map<std::string, ex> locals = {{"ux", u_[0]}, {"uy", u_[1]}, {"uz", u_[2]}};
    std::vector<std::string> values = scope_.value_names();
    for (auto &[local, symbol] : locals)
      if (s_.by_name.count(local) || std::find(values.begin(), values.end(), local) != values.end())
        error_at(src.loc_of(0), "'" + local + "' is a name of the spec; in " + what +
                                    " ux, uy, uz are the direction's components: rename the spec's '" + local + "'");
    ExprContext ctx{what.c_str(), false, false, false, "parameters and the direction ux, uy, uz"};
    ctx.locals = &locals;
    ex h = read_expression(src, scope_, ctx);
    check_support(h, src, what);
    return h;
  }

  void check_support(const ex &h, const SourceText &src, const std::string &what) const {
    ex grad[3], hess[3][3];
    for (int i = 0; i < 3; ++i) grad[i] = h.diff(u_[i]);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) hess[i][j] = grad[i].diff(u_[j]);
    SampleSequence random;
    for (int k = 0; k < 64; ++k) {
      // The axes and the diagonals first, then directions spread at random.
      std::array<double, 3> u;
      if (k < 6) {
        u = {0, 0, 0};
        u[k / 2] = k % 2 ? -1 : 1;
      } else if (k < 14) {
        for (int i = 0; i < 3; ++i) u[i] = ((k - 6) >> i & 1 ? -1 : 1) / std::sqrt(3.0);
      } else {
        double z = 2 * random.next() - 1, phi = 2 * std::acos(-1.0) * random.next(), rho = std::sqrt(1 - z * z);
        u = {rho * std::cos(phi), rho * std::sin(phi), z};
      }
      auto at = [&](const ex &e, double scale = 1) {
        return at_defaults(e, {{u_[0], scale * u[0]}, {u_[1], scale * u[1]}, {u_[2], scale * u[2]}});
      };
      std::string where = " at u = (" + format_double(u[0]) + ", " + format_double(u[1]) + ", " +
                          format_double(u[2]) + ")";
      std::optional<double> h1 = at(h), h2 = at(h, 2);
      if (!h1 || !h2)
        error_at(src.loc_of(0), what + " has no real value" + where + " (the parameters at their defaults)");
      if (!(*h1 > 0))
        error_at(src.loc_of(0), what + " is " + format_double(*h1) + where +
                                    ": the body's centre must be inside it, where h(u), its extent along u, is positive");
      if (!(std::fabs(*h2 - 2 * *h1) <= 1e-9 * *h1))
        error_at(src.loc_of(0), what + " is not of degree 1: h(2u) = " + format_double(*h2) + " but 2 h(u) = " +
                                    format_double(2 * *h1) + where +
                                    "; a support function grows with its direction's length (a unit sphere's is "
                                    "sqrt(ux^2 + uy^2 + uz^2))");
      // The Hessian in two directions across u: the surface's radii of curvature there.
      std::array<double, 3> t1 = std::fabs(u[0]) < 0.9 ? std::array<double, 3>{0, u[2], -u[1]}
                                                       : std::array<double, 3>{-u[2], 0, u[0]};
      double len = std::sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
      for (double &x : t1) x /= len;
      std::array<double, 3> t2 = {u[1] * t1[2] - u[2] * t1[1], u[2] * t1[0] - u[0] * t1[2], u[0] * t1[1] - u[1] * t1[0]};
      double H[3][3];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          std::optional<double> v = at(hess[i][j]);
          if (!v) error_at(src.loc_of(0), what + " has no second derivative" + where + ": its surface is not smooth there");
          H[i][j] = *v;
        }
      auto form = [&](const std::array<double, 3> &a, const std::array<double, 3> &b) {
        double sum = 0;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) sum += a[i] * H[i][j] * b[j];
        return sum;
      };
      double a = form(t1, t1), b = form(t1, t2), c = form(t2, t2);
      double least = (a + c) / 2 - std::sqrt((a - c) * (a - c) / 4 + b * b);
      if (least < -1e-9 * *h1)
        error_at(src.loc_of(0), what + " is not convex: a radius of curvature of its surface is " +
                                    format_double(least) + where +
                                    " (the least eigenvalue of h's Hessian across u); the body must be convex, "
                                    "so that the plane touches it at one point");
    }
  }

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
