// emit_report.cpp — the equations report, NAME.md: the spec and every derived
// quantity in LaTeX, one equation per line, in a stable order, for review.
// It reads the model's expressions and prints them from the plan's graph.
#include "emit/emit.h"

#include <lagrangec/version.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>
#include <utility>

namespace lgc {

namespace {

const std::set<std::string> kGreek = {
    "alpha", "beta",  "gamma", "delta",   "epsilon", "zeta", "eta",   "theta", "iota",  "kappa",
    "lambda", "mu",   "nu",    "xi",      "pi",      "rho",  "sigma", "tau",   "upsilon", "phi",
    "chi",   "psi",   "omega", "Gamma",   "Delta",   "Theta", "Lambda", "Xi",  "Pi",    "Sigma",
    "Upsilon", "Phi", "Psi",   "Omega",   "varphi",  "vartheta", "varepsilon"};

// x → x, phi → \phi, theta2 → \theta_{2}, long → \mathrm{long}; with
// `dotted`, the stem gets the dot: \dot{\theta}_{2}.
std::string tex_name(const std::string &name, bool dotted = false) {
  size_t split = name.find('_');
  if (split == std::string::npos) {
    split = name.find_last_not_of("0123456789") + 1;
    if (split == 0) split = name.size();
  }
  std::string stem = name.substr(0, split), sub = name.substr(split);
  if (!sub.empty() && sub[0] == '_') sub = sub.substr(1);
  std::string t = kGreek.count(stem) ? "\\" + stem : stem.size() == 1 ? stem : "\\mathrm{" + stem + "}";
  if (dotted) t = "\\dot{" + t + "}";
  if (!sub.empty()) {
    std::string s;
    for (char c : sub) s += c == '_' ? std::string("\\_") : std::string(1, c);
    t += "_{" + s + "}";
  }
  return t;
}

class TexPrinter {
 public:
  explicit TexPrinter(const Plan &plan) : g_(plan.graph) {
    const Model &m = plan.model;
    bool gains_named = m.symbols.by_name.count("alpha") || m.symbols.by_name.count("beta");
    for (const Local &l : plan.locals) {
      switch (l.role) {
        case Local::velocity: names_[l.name] = tex_name(l.spec_name.substr(0, l.spec_name.size() - 1), true); break;
        case Local::gain: names_[l.name] = "\\" + l.spec_name + (gains_named ? "_{B}" : ""); break;
        case Local::integral:
          names_[l.name] = "\\textstyle\\int_0^t g_{" + l.spec_name.substr(5) + "}\\,dt";  // int_gN
          break;
        case Local::solution: break;
        default: names_[l.name] = tex_name(l.spec_name);
      }
    }
  }

  // Large subexpressions the report's equations share are named and
  // defined once, below the first equation that uses them: u_{1} = ...
  // First every equation is counted, then named, then printed.
  void count(int id) {
    if (uses_[id]++) return;
    for (auto &t : g_.node(id).terms) count(t.second);
  }
  void choose_names() {
    for (auto &[id, uses] : uses_)
      if (uses > 1 && g_.node(id).kind >= Node::add && g_.node(id).kind <= Node::mul && leaves(id) >= kNamedLeaves)
        named_.emplace(id, 0);
  }
  // The names printed since the last call, each once, in order of first use.
  std::vector<int> take_new_names() { return std::exchange(pending_, {}); }
  std::string name_of(int id) const { return "u_{" + std::to_string(named_.at(id)) + "}"; }
  std::string define(int id) { return body(g_.node(id)); }

  std::string print(int id, int context = 0) {
    auto named = named_.find(id);
    if (named != named_.end()) {
      if (!named->second) named->second = ++last_name_, pending_.push_back(id);
      return name_of(id);
    }
    const Node &n = g_.node(id);
    int level = precedence(n);
    std::string s = body(n);
    return level < context ? "\\left(" + s + "\\right)" : s;
  }

 private:
  // Subexpressions of this many symbols and numbers, used twice or more, are named.
  static constexpr size_t kNamedLeaves = 24;
  const Graph &g_;
  std::map<std::string, std::string> names_;
  std::map<int, int> uses_;
  std::map<int, int> named_;  // node -> its number, 0 until first printed
  std::vector<int> pending_;
  int last_name_ = 0;
  std::map<int, size_t> leaves_;

  size_t leaves(int id) {
    auto memo = leaves_.find(id);
    if (memo != leaves_.end()) return memo->second;
    const Node &n = g_.node(id);
    size_t k = n.terms.empty() ? 1 : 0;
    for (auto &t : n.terms) k += leaves(t.second);
    return leaves_[id] = k;
  }

  static int precedence(const Node &n) {
    switch (n.kind) {
      case Node::num: return n.value < 0 ? 1 : 3;
      case Node::add: return n.terms.size() == 1 && n.value == 0 && n.terms[0].first > 0 ? 2 : 1;
      case Node::mul: return 2;
      default: return 3;
    }
  }

  // Numbers as a reader writes them: fractions of a denominator below 10 as
  // fractions (1/2, 2/3, as derivations make them); a short decimal as that
  // decimal (0.1, 0.0025, 0.003, as specs write them, never 1/400 beside
  // 0.003); other simple fractions as fractions (1/24, not
  // 0.041666666666666664). The continued fraction of v finds the smallest
  // denominator that is exact.
  static std::string number(double v) {
    const std::string decimal = format_double(v);  // shortest round trip: 0.0025
    const size_t first = decimal.find_first_not_of("-0.");
    const bool short_decimal = v != std::floor(v) && decimal.find('e') == std::string::npos &&
                               first != std::string::npos && decimal.size() - first <= 7;
    double x = std::fabs(v);
    long long p0 = 0, q0 = 1, p1 = 1, q1 = 0;  // convergents p/q
    for (int step = 0; step < 12 && x < 1e9; ++step) {
      long long a = (long long)std::floor(x);
      long long p = a * p1 + p0, q = a * q1 + q0;
      if (q > 720) break;
      p0 = p1, q0 = q1, p1 = p, q1 = q;
      if (double(p) / double(q) == std::fabs(v) && !(short_decimal && q >= 10)) {
        std::string sign = v < 0 ? "-" : "";
        return q == 1 ? sign + std::to_string(p) : sign + "\\frac{" + std::to_string(p) + "}{" + std::to_string(q) + "}";
      }
      if (x == double(a)) break;
      x = 1 / (x - double(a));
    }
    std::string s = decimal;
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
    size_t e = s.find('e');
    if (e != std::string::npos) s = s.substr(0, e) + " \\cdot 10^{" + s.substr(e + 1) + "}";
    return s;
  }

  std::string body(const Node &n) {
    switch (n.kind) {
      case Node::num: return number(n.value);
      case Node::sym: return names_.count(n.name) ? names_.at(n.name) : tex_name(n.name);
      case Node::add: {
        std::string s;
        for (auto &[coef, id] : n.terms) {
          double c = coef < 0 ? -coef : coef;
          std::string term = c == 1 ? print(id, 2) : number(c) + " " + print(id, 2);
          if (s.empty()) s = coef < 0 ? "-" + term : term;
          else s += (coef < 0 ? " - " : " + ") + term;
        }
        if (n.value != 0) s += (n.value < 0 ? " - " : " + ") + number(n.value < 0 ? -n.value : n.value);
        return s;
      }
      case Node::mul: {
        std::string num, den;
        for (auto &[e, id] : n.terms) (e > 0 ? num : den) += (e > 0 ? num : den).empty() ? print(id, 2) : " " + print(id, 2);
        if (num.empty()) num = "1";
        return den.empty() ? num : "\\frac{" + num + "}{" + den + "}";
      }
      case Node::ipow: return "{" + print(n.terms[0].second, 3) + "}^{" + std::to_string(n.exponent) + "}";
      case Node::pow: return "{" + print(n.terms[0].second, 3) + "}^{" + print(n.terms[1].second) + "}";
      case Node::call: {
        if (n.name == "sqrt") return "\\sqrt{" + print(n.terms[0].second) + "}";
        if (n.name == "fabs") return "\\left|" + print(n.terms[0].second) + "\\right|";
        if (n.name == "copysign") return "\\operatorname{sgn}\\left(" + print(n.terms[1].second) + "\\right)";
        static const std::set<std::string> known = {"sin", "cos", "tan", "sinh", "cosh", "tanh", "exp", "log"};
        std::string f = known.count(n.name) ? "\\" + n.name : "\\operatorname{" + n.name + "}";
        std::string s = f + "\\left(";
        for (size_t i = 0; i < n.terms.size(); ++i) s += (i ? ", " : "") + print(n.terms[i].second);
        return s + "\\right)";
      }
    }
    unreachable("unknown node kind");
  }
};

class Report {
 public:
  explicit Report(const Plan &plan) : plan_(plan), m_(plan.model), g_(plan.graph), tex_(plan) {}

  std::string run() {
    counting_ = true;  // a first pass counts what the equations share
    write();
    counting_ = false;
    out_.str("");
    tex_.choose_names();
    write();
    return out_.str();
  }

 private:
  void listing(const char *title, const char *language, const std::string &text) {
    out_ << "## " << title << "\n\n```" << language << "\n" << text
         << (text.empty() || text.back() == '\n' ? "" : "\n") << "```\n\n";
  }

  void write() {
    const Spec &s = *m_.spec;
    out_ << "# " << s.name << " — " << s.title << "\n\n";
    out_ << "Generated by lagrangec " << LGC_VERSION << " from `"
         << (s.source.empty() ? std::filesystem::path(s.urdf_path).filename().string() : s.name + ".toml")
         << "`. Do not edit: change the spec and regenerate.\n\n";
    if (!s.urdf_renamed.empty()) {
      out_ << "Names of the URDF that are not identifiers, as the equations write them:\n\n";
      for (auto &[identifier, original] : s.urdf_renamed) out_ << "- `" << identifier << "`: the " << original << "\n";
      out_ << "\n";
    }
    if (!s.source.empty()) listing("Spec", "toml", s.source);
    if (!s.urdf_source.empty()) listing("URDF", "xml", s.urdf_source);
    if (!s.units.empty() || !s.descriptions.empty()) variables();
    if (!s.frames.empty()) frames();
    if (!m_.bodies.empty()) bodies();
    out_ << "## Energies\n\n";
    if (m_.articulated.chosen) {
      out_ << "The bodies' energies are not derived as expressions for this model (its rhs takes the "
              "articulated-body recursion): `" << plan_.names.p << "_energies` computes them over the tree's tables, "
              "$T = \\frac12 \\sum_L v_L \\cdot I_L v_L$ of each link's spatial velocity and inertia and "
              "$V = -\\sum_L m_L\\, g \\cdot r_L$ of its mass and centre, and adds the potential written beside "
              "them:\n\n";
      equation("V_{\\mathrm{written}}", m_.V);
    } else {
      equation("T", m_.T);
      equation("V", m_.V);
    }
    integral();
    out_ << "## Equations of motion\n\n"
         << "$$M(q,t)\\,\\ddot q + k(q,\\dot q,t) = Q + A^T\\lambda + B^T\\mu$$\n\n";
    if (m_.articulated.chosen) {
      const std::string &p = plan_.names.p;
      out_ << "$M$ and $k$ are not derived as expressions for this model: they grow as the tree's depth cubed, and "
              "its generated functions compute them over the tree's tables below instead, as rhs does: `"
           << p << "_mass_matrix` by the composite-rigid-body algorithm, `" << p << "_inverse_dynamics`, `" << p
           << "_bias` and `" << p << "_gravity` by the recursive Newton–Euler algorithm, `" << p << "_energies` from "
              "each link's velocity and height (Featherstone's, O(N) in the links; M's rows by the ancestors of each "
              "link), with $\\partial V/\\partial q$ of the potential written beside the bodies. The applied forces "
              "$Q$, in the order " << coordinate_list() << ":\n\n";
    } else {
      out_ << "Mass matrix $M = \\partial^2 T/\\partial\\dot q\\,\\partial\\dot q$, rows and columns in the order "
           << coordinate_list() << ":\n\n";
      matrix("M", m_.M);
      out_ << "$k = \\frac{\\partial^2 T}{\\partial \\dot q\\,\\partial q}\\dot q + \\frac{\\partial^2 T}{\\partial \\dot q\\,"
              "\\partial t} - \\frac{\\partial L}{\\partial q}$, and the applied forces $Q$:\n\n";
      for (size_t i = 0; i < m_.nq; ++i) equation("k_{" + coordinate(i) + "}", m_.k[i]);
    }
    for (size_t i = 0; i < m_.nq; ++i) equation("Q_{" + coordinate(i) + "}", m_.Q[i]);
    if (plan_.articulated.chosen)
      articulated();
    else
      out_ << "The generated rhs forms $M$ and $k$ and solves with them, not by the articulated-body recursion: "
           << plan_.articulated.reason << ".\n\n";
    if (!s.wheels.empty()) wheels();
    if (m_.nh) holonomic();
    if (m_.nn) nonholonomic();
    if (!m_.friction.empty()) friction();
    if (m_.nh + m_.nn) stabilised();  // an unconstrained model has nothing to stabilise
    state();
    if (!m_.outputs.empty()) outputs();
    if (!m_.events.empty()) events();
    regressor();
  }

  const Plan &plan_;
  const Model &m_;
  const Graph &g_;
  TexPrinter tex_;
  std::ostringstream out_;
  bool counting_ = false;

  std::string coordinate(size_t i) const { return tex_name(m_.spec->coordinates[i].name); }
  std::string coordinate_list() const {
    std::string s;
    for (size_t i = 0; i < m_.nq; ++i) s += (i ? ", " : "") + std::string("$") + coordinate(i) + "$";
    return s;
  }
  // The plan lowered every expression of the model: its canonical order is the report's.
  std::string tex(const GiNaC::ex &e) {
    if (counting_) return tex_.count(g_.lowered(e)), "";
    return tex_.print(g_.lowered(e));
  }

  void equation(const std::string &lhs, const GiNaC::ex &rhs) {
    out_ << "$$" << lhs << " = " << tex(rhs) << "$$\n\n";
    definitions();
  }

  // The names the last equation introduced, and those their definitions do.
  void definitions() {
    for (auto names = tex_.take_new_names(); !names.empty(); names = tex_.take_new_names())
      for (int id : names) out_ << "$$" << tex_.name_of(id) << " = " << tex_.define(id) << "$$\n\n";
  }

  void matrix(const std::string &name, const GiNaC::matrix &a) {
    out_ << "$$\n" << name << " = \\begin{pmatrix}\n";
    for (unsigned i = 0; i < a.rows(); ++i) {
      for (unsigned j = 0; j < a.cols(); ++j) out_ << (j ? " & " : "") << tex(a(i, j));
      out_ << (i + 1 < a.rows() ? " \\\\\n" : "\n");
    }
    out_ << "\\end{pmatrix}\n$$\n\n";
    definitions();
  }

  // Which quantity the motion conserves, and why (integral.cpp).
  void integral() {
    out_ << "## Integral of the motion\n\n";
    const char *inputs = m_.integral_needs_zero_inputs ? " while every input is 0 (the forces are the inputs')" : "";
    switch (m_.integral) {
      case Model::Integral::energy:
        out_ << "$T + V$ is conserved" << inputs << ": $L$ has no explicit $t$, neither the forces nor the "
             << "constraints do work, and $T$ is homogeneous quadratic in $\\dot q$. The summary reports its "
             << "drift (`energy drift`), the CSV its value (`T+V`).\n\n";
        break;
      case Model::Integral::jacobi:
        out_ << "The Jacobi integral $h = \\dot q \\cdot \\partial L/\\partial \\dot q - L$ is conserved" << inputs
             << ", not $T + V$: $L$ has no explicit $t$ and neither the forces nor the constraints do work, but "
             << "$T$ is not homogeneous quadratic in $\\dot q$ (coordinates in a turning frame). The summary "
             << "reports its drift (`Jacobi integral drift`), the CSV its value (`h`), `" << m_.spec->name
             << "_jacobi_integral` computes it:\n\n";
        equation("h", m_.jacobi);
        break;
      case Model::Integral::none:
        out_ << "None: " << m_.integral_absent << ". The summary says `not conserved` and why; the CSV's "
             << "`T+V` is the energy, not an integral.\n\n";
        break;
    }
  }

  // Spec text in a Markdown table's cell.
  static std::string cell(const std::string &text) {
    std::string s;
    for (char c : text) s += c == '|' ? "\\|" : c == '\n' ? " " : std::string(1, c);
    return "`" + s + "`";
  }

  void frames() {
    out_ << "## Frames\n\n"
         << "Each frame turns from its parent by the rotations listed, each about an axis of the frame just made "
            "(intrinsic); a rotation by $a$ about $z$ maps components in the new frame to components in the old one "
            "by $R_z(a) = \\begin{pmatrix} \\cos a & -\\sin a & 0 \\\\ \\sin a & \\cos a & 0 \\\\ 0 & 0 & 1 "
            "\\end{pmatrix}$ (and cyclically for $x$, $y$). $N$ is the Newtonian frame.\n\n"
         << "| frame | parent and rotations |\n|---|---|\n";
    for (auto &f : m_.spec->frames) out_ << "| `" << f.name << "` | " << cell(f.text.text) << " |\n";
    out_ << "\n";
  }

  void bodies() {
    const Spec &s = *m_.spec;
    out_ << "## Bodies and particles\n\n"
         << "Inertia about the centre of mass, as tensor components ($I_{xz} = -\\int x z\\,dm$) in the axes of the "
            "body's frame (or of its inertia_frame). Each adds $\\frac{1}{2} m v\\cdot v + \\frac{1}{2}\\omega^T I "
            "\\omega$ to $T$ ($v$ the velocity of the centre in $N$, $\\omega$ the angular velocity) and "
            "$-m\\,g\\cdot r$ to $V$ ($r$ the centre, $g$ the spec's gravity).\n\n"
         << "| body | mass | frame | centre | inertia |\n|---|---|---|---|---|\n";
    for (auto &b : s.bodies) {
      std::string inertia;
      for (size_t i = 0; i < b.inertia.size(); ++i)
        inertia += (i == 0 ? "" : b.inertia.size() == 9 && i % 3 == 0 ? "; " : ", ") + b.inertia[i].text;
      std::string frame = b.frame.name + (b.inertia_frame ? " (inertia in " + b.inertia_frame->name + ")" : "");
      out_ << "| " << b.name << " | " << cell(b.mass.text) << " | " << cell(frame) << " | " << cell(b.centre.text)
           << " | " << cell(inertia) << " |\n";
    }
    for (auto &p : s.particles)
      out_ << "| " << p.name << " (particle) | " << cell(p.mass.text) << " | | " << cell(p.point.text) << " | |\n";
    out_ << "\n";
    for (auto &b : m_.bodies) {
      if (m_.articulated.chosen) break;  // not derived: the tables below hold them
      equation("T_{\\mathrm{" + tex_text(b.name) + "}}", b.T);
      equation("V_{\\mathrm{" + tex_text(b.name) + "}}", b.V);
    }
  }

  static std::string tex_text(const std::string &name) {
    std::string s;
    for (char c : name) s += c == '_' ? std::string("\\_") : std::string(1, c);
    return s;
  }

  void wheels() {
    const Spec &s = *m_.spec;
    std::set<WheelSpec::Shape> shapes;
    for (const WheelSpec &wheel : s.wheels) shapes.insert(wheel.shape);
    out_ << "## Rolling wheels\n\n"
         << "A body on the plane through $N$'s origin with unit normal $n$ touches it at $\\mathrm{contact}$";
    if (shapes.count(WheelSpec::disk))
      out_ << "; a disk of radius $r$ and axle $a$ at $\\mathrm{centre} - r k$, $k = (n - (n\\cdot a)a)/"
              "\\sqrt{1 - (n\\cdot a)^2}$";
    if (shapes.count(WheelSpec::sphere)) out_ << "; a sphere of radius $r$ at $\\mathrm{centre} - r n$";
    if (shapes.count(WheelSpec::ellipsoid) || shapes.count(WheelSpec::support))
      out_ << "; a convex body of support function $h(u)$ ($u$ in its frame's axes; an ellipsoid's "
              "$\\sqrt{a^2u_x^2 + b^2u_y^2 + c^2u_z^2}$) at $\\mathrm{centre} + R\\,\\nabla h(-R^T n)$, "
              "$R$ its frame's rotation, the centre at the height $h(-R^T n)$ (docs/theory.md, §8)";
    out_ << ". It rolls without slipping: the contact is on the plane ($n \\cdot \\mathrm{contact} = 0$, "
            "holonomic, left out when it is 0 at every state), and the body's material point there does not slide "
            "along the plane's tangents (nonholonomic; a row that is 0 at every state, across the plane of a planar "
            "wheel, left out).\n\n"
         << "| wheel | body | shape | centre | size | normal | rows |\n|---|---|---|---|---|---|---|\n";
    for (size_t w = 0; w < s.wheels.size(); ++w) {
      const WheelSpec &wheel = s.wheels[w];
      std::string centre = wheel.centre ? cell(wheel.centre->text) : "the body's";
      std::string rows;
      for (const std::string &row : m_.left_out[w]) rows += row + ": 0 at every state, left out; ";
      for (size_t c = 0; c < m_.nc(); ++c)
        if (m_.origins[c].wheel == int(w))
          rows += m_.origins[c].row + ": $" +
                  (c < m_.nh ? "\\varphi_{" + std::to_string(c + 1) : "g_{" + std::to_string(c - m_.nh + 1)) + "}$; ";
      rows.resize(rows.size() - 2);
      std::string shape, size;
      switch (wheel.shape) {
        case WheelSpec::disk: shape = "disk", size = "axle " + cell(wheel.axle.text) + ", radius " + cell(wheel.radius.text); break;
        case WheelSpec::sphere: shape = "sphere", size = "radius " + cell(wheel.radius.text); break;
        case WheelSpec::ellipsoid:
          shape = "ellipsoid", size = "semi-axes " + cell(wheel.semi_axes[0].text) + ", " + cell(wheel.semi_axes[1].text) +
                                      ", " + cell(wheel.semi_axes[2].text);
          break;
        case WheelSpec::support: shape = "support function", size = "$h$ = " + cell(wheel.support_function.text); break;
      }
      out_ << "| " << wheel.name << " | " << wheel.body.name << " | " << shape << " | " << centre << " | " << size
           << " | " << cell(wheel.normal.text) << " | " << rows << " |\n";
    }
    out_ << "\n";
  }

  void holonomic() {
    out_ << "## Holonomic constraints\n\n"
         << "$\\varphi(q,t) = 0$; $A = \\partial\\varphi/\\partial q$; "
            "$\\dot\\varphi = A\\dot q + \\partial\\varphi/\\partial t$; $\\ddot\\varphi = A\\ddot q + c_h$.\n\n";
    for (size_t j = 0; j < m_.nh; ++j) equation("\\varphi_{" + std::to_string(j + 1) + "}", m_.phi[j]);
    matrix("A", m_.A);
    for (size_t j = 0; j < m_.nh; ++j)
      equation("\\partial\\varphi_{" + std::to_string(j + 1) + "}/\\partial t", m_.phi_t[j]);
    for (size_t j = 0; j < m_.nh; ++j) equation("c_{h," + std::to_string(j + 1) + "}", m_.c_h[j]);
  }

  void nonholonomic() {
    out_ << "## Nonholonomic constraints\n\n"
         << "$g(q,\\dot q,t) = B\\dot q + b = 0$; $\\dot g = B\\ddot q + c_n$.\n\n";
    for (size_t j = 0; j < m_.nn; ++j) equation("g_{" + std::to_string(j + 1) + "}", m_.g[j]);
    matrix("B", m_.B);
    for (size_t j = 0; j < m_.nn; ++j) equation("b_{" + std::to_string(j + 1) + "}", m_.b[j]);
    for (size_t j = 0; j < m_.nn; ++j) equation("c_{n," + std::to_string(j + 1) + "}", m_.c_n[j]);
  }

  // Each Coulomb contact: its slip rows, normal force and coefficients.
  void friction() {
    out_ << "## Friction\n\nEach contact sticks (its slip rows $g$ held, their multipliers the friction "
            "force) while $|\\lambda_t| \\le \\mu_s N$, and slides otherwise, the rows dropped and "
            "$-\\mu_k N\\, s/|s|$ applied (docs/commands.md, \"Friction\").\n\n";
    for (const Model::Friction &f : m_.friction) {
      std::string rows;
      for (size_t c : f.slip_rows) rows += (rows.empty() ? "$g_{" : ", g_{") + std::to_string(c - m_.nh + 1) + "}";
      out_ << "`" << f.name << "`: slip " << rows << "$; its normal force $N = N_0 + \\sum_c "
           << "(\\partial N/\\partial \\lambda_c)\\, \\lambda_c$ over the multipliers, and its coefficients:\n\n";
      equation("N_0", f.normal0);
      for (size_t c = 0; c < m_.nc(); ++c)
        if (!f.normal_rate[c].is_zero())
          equation("\\partial N/\\partial " + tex_name(m_.multipliers[c].get_name()), f.normal_rate[c]);
      equation("\\mu_s", f.mu_static);
      equation("\\mu_k", f.mu_kinetic);
    }
  }

  // The spec's prose in a table's cell: no '|', no markup, one line.
  static std::string prose_cell(const std::string &text) {
    std::string out;
    for (char c : text) {
      switch (c) {
        case '|': out += "\\|"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '&': out += "&amp;"; break;
        case '\\': case '`': case '*': case '_': case '[': case ']': out += std::string("\\") + c; break;
        case '\n': case '\r': case '\t': out += ' '; break;
        default: out += c;
      }
    }
    return out;
  }

  // [units] and [descriptions]: what lagrangec fmu declares of the variables.
  void variables() {
    const Spec &s = *m_.spec;
    out_ << "## Units and descriptions\n\nAs `lagrangec fmu` declares them (a velocity's unit is its coordinate's "
            "per second):\n\n| name | | unit | description |\n|---|---|---|---|\n";
    auto row = [&](const std::string &name, const char *kind) {
      const Annotation *u = s.unit_of(name), *d = s.description_of(name);
      if (!u && !d) return;
      out_ << "| `" << name << "` | " << kind << " | " << (u ? cell(u->text) : "") << " | "
           << (d ? prose_cell(d->text) : "") << " |\n";
    };
    for (auto &q : s.coordinates) row(q.name, "coordinate");
    for (auto &p : s.parameters) row(p.name, "parameter");
    for (auto &u : s.inputs) row(u.name, "input");
    for (auto &o : s.outputs) row(o.name, "output");
    out_ << "\n";
  }

  void outputs() {
    out_ << "\n## Outputs\n\nCSV columns, and `" << m_.spec->name << "_outputs`; $\\lambda$ and $\\mu$ are the "
         << "multipliers of the system above.\n\n";
    for (size_t i = 0; i < m_.outputs.size(); ++i) {
      std::string name;  // an identifier: only '_' needs escaping in \text
      for (char c : m_.spec->outputs[i].name) name += c == '_' ? std::string("\\_") : std::string(1, c);
      equation("\\text{" + name + "}", m_.outputs[i]);
    }
  }

  void events() {
    out_ << "\n## Events\n\nWhere each function crosses zero (`" << m_.spec->name << "_events`):\n\n";
    static const char *const direction[] = {"falling", "both", "rising"};
    for (size_t i = 0; i < m_.events.size(); ++i) {
      const EventSpec &e = m_.spec->events[i];
      out_ << "`" << e.name << "`, " << direction[e.direction + 1] << ", " << (e.stop ? "stop" : "record") << ":\n\n";
      equation("e_{" + std::to_string(i + 1) + "}", m_.events[i]);
    }
  }

  // Which parameter combinations the inverse dynamics identifies (regressor.cpp).
  void regressor() {
    const Regressor &r = plan_.regressor;
    const std::string &p = m_.spec->name;
    out_ << "\n## Regressor\n\n";
    if (!r.available()) {
      out_ << "None: " << r.absent << ". No `" << p << "_regressor` is generated.\n";
      return;
    }
    out_ << "$\\tau = M\\ddot q + k - Q$ with every input 0 is linear in the " << r.standard.size()
         << " standard parameters $\\theta$, the monomials of the parameters it holds: $\\tau = "
            "Y(q,\\dot q,\\ddot q,t)\\,\\theta$ (`" << p << "_standard_regressor`, `" << p
         << "_standard_parameters`).\n\n| | standard parameter |\n|---|---|\n";
    for (size_t k = 0; k < r.standard.size(); ++k)
      out_ << "| $\\theta_{" << k + 1 << "}$ | " << cell(r.standard_text[k]) << " |\n";
    out_ << "\nA column of $Y$ that is a combination, with constant coefficients, of the columns before it "
            "(exactly, under $\\cos^2 + \\sin^2 = 1$) is merged into them; the " << r.base.size()
         << " left are independent, and their parameters are the base parameters, the combinations the "
            "motion identifies (`" << p << "_regressor` times `" << p << "_base_parameters` is $\\tau$):\n\n"
         << "| | base parameter | combines |\n|---|---|---|\n";
    for (size_t b = 0; b < r.base.size(); ++b) {
      std::string merged;
      for (size_t k : r.merged[b]) merged += (merged.empty() ? "$" : ", $") + std::string("\\theta_{") + std::to_string(k + 1) + "}$";
      out_ << "| $\\theta_{B," << b + 1 << "}$ | " << cell(r.base_text[b]) << " | " << merged << " |\n";
    }
  }

  // rhs's form, when it is the recursion (articulated_plan.cpp).
  void articulated() {
    const ArticulatedTree &tree = m_.articulated;
    out_ << "The generated rhs does not form $M$: it solves for $\\ddot q$ by the articulated-body recursion "
            "(Featherstone's, O(N) in the links) over a table of the tree's "
         << tree.links.size() << " links"
         << (m_.spec->form == "recursion" ? ": " : ", as it costs fewer operations: ") << plan_.articulated.reason
         << ". Each link turns from its parent about one axis of its joint frame:\n\n"
         << "| link | parent | axis | by |\n|---|---|---|---|\n";
    for (size_t i = 0; i < tree.links.size(); ++i) {
      const auto &L = tree.links[i];
      out_ << "| " << i + 1 << " | " << (L.parent < 0 ? std::string("N") : std::to_string(L.parent + 1)) << " | ";
      if (L.axis < 0) {
        out_ << "free | $";
        for (size_t k = 0; k < 7; ++k) out_ << (k ? ", " : "") << coordinate(L.free[k]);
        out_ << "$ |\n";
        continue;
      }
      out_ << "xyz"[L.axis] << " | $" << coordinate(L.coordinate) << "$ |\n";
    }
    out_ << "\n";
    const std::vector<size_t> rows = rows_on_top(m_);
    if (!rows.empty()) {
      out_ << "The constraint rows are solved on top of the recursion (docs/theory.md, the free joint, \"Constraint "
              "rows on top of the recursion\"): with $\\ddot q_0$ the recursion's $\\ddot q$ and $J$, $r$ the rows' "
              "Jacobian and stabilised right-hand side below, $\\ddot q = \\ddot q_0 + Y \\nu$ and "
              "$(J Y)\\,\\nu = r - J \\ddot q_0$, each column of $Y = M^{-1} J^T$ by a solve pass of the recursion "
              "(its articulated inertias and factors from the same call; $M$ is never formed). The multipliers are "
              "those of the KKT system with $M$, sign and scale. Rows solved so: ";
      for (size_t k = 0; k < rows.size(); ++k) out_ << (k ? ", " : "") << rows[k] + 1;
      out_ << " of " << m_.nc() << (rows.size() < m_.nc() ? " (the others get multiplier 0)" : "") << ".\n\n";
    }
    if (!plan_.with_jacobian)
      out_ << "It is generated without a Jacobian (`--no-jacobian`): `--method bdf` and `adams` take difference "
              "quotients of rhs.\n\n";
    if (plan_.tree_jacobian)
      out_ << "Its Jacobian (`" << plan_.names.fn("jacobian") << "`, which `--method bdf` and `adams` use) is the "
              "recursion's own derivative, not a symbolic one: $\\ddot q$ solves $ID(q, \\dot q, \\ddot q) = "
              "\\tau(q, \\dot q)$, so $\\partial\\ddot q/\\partial x = -M^{-1}(\\partial ID/\\partial x - "
              "\\partial\\tau/\\partial x)$, with $\\partial ID/\\partial x$ by one tangent pass of the "
              "Newton-Euler recursion over the tables per coordinate and per rate (O(N) each, O(N^2) in all)"
           << (m_.articulated.planar_axis()
                   ? ", in the plane as the recursion runs, and $M^{-1}$ by the recursion's solve pass, column by column"
                   : ", $M$ by the composite-rigid-body algorithm and its Cholesky factor")
           << (free_norm_row(m_) ? "; on the quaternion the norm row's stabilised equation takes the place of the gauge's row, as "
                         "in the recursion"
                       : "")
           << (rows.empty() ? ""
                            : ". With the rows on top, $\\ddot q = FD(q, \\dot q, \\tau + J^T \\nu)$: that derivative "
                              "at the total force, the rows' forces $J^T \\nu$ differentiated at fixed $\\nu$, and the "
                              "multipliers' own part $Y\\,\\partial\\nu/\\partial x$ from $J \\ddot q = r$, "
                              "$S\\,\\partial\\nu/\\partial x = \\partial(r - J \\ddot q)/\\partial x - "
                              "J\\,\\partial\\ddot q/\\partial x|_\\nu$ by rhs's factor of $S$, or its "
                              "minimum-norm solve where rhs took that one")
           << " (docs/theory.md §9" << (rows.empty() ? "" : ", \"The Jacobian with rows on top\"") << "). `" << plan_.names.fn("parameter_jacobian")
           << "` is not generated (it would need the recursion's derivatives by its tables' entries).\n\n";
    if (free_norm_row(m_))
      out_ << "The free link's twist is its quaternion's and its origin's rates; $\\ddot q$ of the quaternion is "
              "the rate of its angular velocity plus the part along the quaternion that its norm's stabilised row "
              "fixes (docs/theory.md, the free joint). That row's multiplier is reported as 0: the norm does no "
              "work on the motion, and the value the form with $M$ gives depends on how $T$ is continued off "
              "$|q| = 1$, not on the motion. Over the tables $M = J^T M_v J$, plus $q\\,q^T$ on the quaternion's "
              "block, $J$ the map from $\\dot q$ to the links' twists and $q\\,q^T$ the gauge "
              "$(q \\cdot \\dot q)^2/2$ that $T$ carries (0 on the norm), and the inverse dynamics adds the "
              "gauge's $(|\\dot q|^2 + q \\cdot \\ddot q)\\,q$: on $|q| = 1$ they are the symbolic $M$ and, "
              "across the norm row, $k$.\n\n";
  }

  void stabilised() {
    out_ << "## The stabilised system\n\n"
         << "Baumgarte stabilisation (6.291, 6.332–6.333) replaces the constraint rows by "
            "$\\ddot\\varphi + \\alpha\\dot\\varphi + \\beta\\varphi = 0$ and "
            "$\\dot g = -\\alpha g - \\beta\\int_0^t g\\,dt$, so each step solves\n\n"
         << "$$\n\\begin{pmatrix} M & -A^T & -B^T \\\\ A & 0 & 0 \\\\ B & 0 & 0 \\end{pmatrix}"
            "\\begin{pmatrix} \\ddot q \\\\ \\lambda \\\\ \\mu \\end{pmatrix} = "
            "\\begin{pmatrix} Q - k \\\\ r_h \\\\ r_n \\end{pmatrix}\n$$\n\n"
         << "with the constraint rows' right-hand sides\n\n";
    for (size_t j = 0; j < m_.nh + m_.nn; ++j) {
      std::string lhs = j < m_.nh ? "r_{h," + std::to_string(j + 1) + "}" : "r_{n," + std::to_string(j - m_.nh + 1) + "}";
      equation(lhs, m_.r[j]);
    }
  }

  void state() {
    out_ << "State: $x = (q, \\dot q" << (m_.nn ? ", \\int g\\,dt" : "") << ")$, $\\dot x = (\\dot q, \\ddot q"
         << (m_.nn ? ", g" : "") << ")$, " << 2 * m_.nq + m_.nn << " first-order equations.\n";
  }
};

}  // namespace

std::string emit_report(const Plan &plan) { return Report(plan).run(); }

}  // namespace lgc
