// emit_c.cpp — prints the model as standalone C99 (NAME.h, NAME.c) and the
// runtime's descriptor (NAME_model.c). Expressions are printed only from the
// scheduled graph of lower.cpp, so the text is the same on every run.
#include "lagrangec.h"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

namespace lgc {

namespace {

const char *kVersion = "0.1.0";

std::string upper(std::string s) {
  for (char &c : s) c = char(std::toupper((unsigned char)c));
  return s;
}

// Text from the spec, safe inside a C comment.
std::string comment_text(std::string s) {
  for (size_t i; (i = s.find("*/")) != std::string::npos;) s.replace(i, 2, "* /");
  for (char &c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return s;
}


// ---- expressions ----

class CPrinter {
 public:
  CPrinter(const Graph &g, const std::map<int, int> &temps) : g_(g), temps_(temps) {}

  // The expression of node `id` itself, even when a temporary holds it.
  std::string define(int id) const { return body(g_.node(id)); }

  // Precedence: 1 sum, 2 product, 3 atom.
  std::string print(int id, int context = 0) const {
    auto t = temps_.find(id);
    if (t != temps_.end()) return "w" + std::to_string(t->second);
    const Node &n = g_.node(id);
    int level = precedence(n);
    std::string s = body(n);
    return level < context ? "(" + s + ")" : s;
  }

 private:
  const Graph &g_;
  const std::map<int, int> &temps_;

  static int precedence(const Node &n) {
    switch (n.kind) {
      case Node::num: return n.value < 0 ? 1 : 3;
      case Node::add: return n.terms.size() == 1 && n.value == 0 && n.terms[0].first > 0 ? 2 : 1;
      case Node::mul: return 2;
      case Node::ipow: return n.exponent <= 3 ? 2 : 3;
      default: return 3;
    }
  }

  std::string body(const Node &n) const {
    switch (n.kind) {
      case Node::num: return format_double(n.value);
      case Node::sym: return n.name;
      case Node::add: return sum(n);
      case Node::mul: return product(n);
      case Node::ipow: {
        std::string b = print(n.terms[0].second, 3);
        if (n.exponent > 3) return "pow(" + b + ", " + std::to_string(n.exponent) + ".0)";
        std::string s = b;
        for (int i = 1; i < n.exponent; ++i) s += "*" + b;
        return s;
      }
      case Node::pow: return "pow(" + print(n.terms[0].second) + ", " + print(n.terms[1].second) + ")";
      case Node::call: {
        std::string s = n.name + "(";
        for (size_t i = 0; i < n.terms.size(); ++i) s += (i ? ", " : "") + print(n.terms[i].second);
        return s + ")";
      }
    }
    unreachable("unknown node kind");
  }

  std::string sum(const Node &n) const {
    std::string s;
    for (auto &[coef, id] : n.terms) {
      double c = coef < 0 ? -coef : coef;
      std::string term = c == 1 ? print(id, 2) : format_double(c) + "*" + print(id, 2);
      if (s.empty()) s = coef < 0 ? "-" + term : term;
      else s += (coef < 0 ? " - " : " + ") + term;
    }
    if (n.value != 0) s += (n.value < 0 ? " - " : " + ") + format_double(n.value < 0 ? -n.value : n.value);
    return s;
  }

  std::string product(const Node &n) const {
    std::string num, den;
    int den_count = 0;
    bool den_atom = false;
    for (auto &[e, id] : n.terms) {
      std::string f = print(id, 2);
      if (e > 0) {
        num += (num.empty() ? "" : "*") + f;
      } else {
        den += (den.empty() ? "" : "*") + f;
        den_atom = ++den_count == 1 && (temps_.count(id) || precedence(g_.node(id)) == 3);
      }
    }
    if (num.empty()) num = "1.0";
    if (den.empty()) return num;
    return num + "/" + (den_atom ? den : "(" + den + ")");
  }
};

}  // namespace

Names::Names(const Model &m) : p(m.spec->name), P(upper(m.spec->name)) {}

std::string c_expression(const GiNaC::ex &e) {
  Graph g;
  int id = g.from_ginac(e);
  return CPrinter(g, {}).print(id);
}

namespace {

// ---- blocks of straight-line code ----

struct Function {
  std::string signature;  // "int knife_edge_rhs(...)"
  std::vector<std::string> params;  // the names, to mark the unused ones
};

// The arrays a symbol is loaded from (grep tag: STATE-LAYOUT, see model.h).
std::map<std::string, std::string> symbol_loads(const Model &m) {
  const SymbolTable &s = m.symbols;
  std::map<std::string, std::string> loads;
  for (size_t i = 0; i < m.state.size(); ++i) loads[m.state[i].sym.get_name()] = "state[" + std::to_string(i) + "]";
  for (size_t i = 0; i < s.p.size(); ++i) loads[s.p[i].get_name()] = "param[" + std::to_string(i) + "]";
  for (size_t i = 0; i < s.u.size(); ++i) loads[s.u[i].get_name()] = "input[" + std::to_string(i) + "]";
  return loads;
}

// Load order: state, then parameters, then inputs, each in spec order.
std::vector<std::string> load_order(const Model &m) {
  std::vector<std::string> order;
  for (auto &x : m.state) order.push_back(x.sym.get_name());
  for (auto &x : m.symbols.p) order.push_back(x.get_name());
  for (auto &x : m.symbols.u) order.push_back(x.get_name());
  return order;
}

class Emitter {
 public:
  explicit Emitter(const Model &m) : m_(m), n_(m) {}

  // A function whose body computes `outs`; `prologue`/`epilogue` are extra
  // statements (they may mention function parameters by name).
  std::string function(const Function &f, const std::vector<Assignment> &outs, const std::string &prologue = "",
                       const std::string &epilogue = "") {
    Graph &g = graph_;
    std::map<int, int> temps;
    std::vector<Statement> code = schedule(g, outs, temps);
    CPrinter printer(g, temps);

    std::set<std::string> used;  // symbol names the block reads
    std::set<int> seen;
    std::function<void(int)> collect = [&](int id) {
      if (!seen.insert(id).second) return;
      const Node &n = g.node(id);
      if (n.kind == Node::sym) used.insert(n.name);
      for (auto &t : n.terms) collect(t.second);
    };
    for (auto &a : outs) collect(a.node);

    std::ostringstream body;
    auto loads = symbol_loads(m_);
    std::set<std::string> arrays_read;
    for (auto &name : load_order(m_)) {
      if (!used.count(name)) continue;
      const std::string &from = loads.at(name);
      arrays_read.insert(from.substr(0, from.find('[')));
      const SymbolInfo *info = spec_name(name);
      body << "    const double " << name << " = " << from << ";";
      if (info && info->spec_name != name) body << "  /* " << info->spec_name << " */";
      body << "\n";
    }
    std::ostringstream stmts;
    std::string code_only = prologue + epilogue;  // without comments, to see what is mentioned
    for (const Statement &st : code) {
      std::string line;
      if (st.kind == Statement::temp) {
        line = "const double w" + std::to_string(st.temp_index) + " = " + printer.define(st.node) + ";";
      } else {
        const Assignment &a = *st.out;
        if (!a.comment.empty()) stmts << "    /* " << comment_text(a.comment) << " */\n";
        line = (a.target == "return" ? "return" : a.target + " =") + " " + printer.print(st.node) + ";";
      }
      stmts << "    " << line << "\n";
      code_only += line + "\n";
    }
    std::string text = prologue + stmts.str() + epilogue;
    // Parameters no statement mentions are marked, for -Wunused-parameter.
    std::ostringstream unused;
    for (auto &p : f.params) {
      bool mentioned = used.count(p) || arrays_read.count(p) || mentions(code_only, p);
      if (!mentioned) unused << "    (void)" << p << ";\n";
    }
    std::ostringstream out;
    out << f.signature << "\n{\n" << unused.str() << body.str() << text << "}\n";
    return out.str();
  }

  Graph &graph() { return graph_; }

 private:
  const Model &m_;
  Names n_;
  Graph graph_;

  const SymbolInfo *spec_name(const std::string &c_name) const {
    auto it = m_.symbols.by_c_name.find(c_name);
    return it == m_.symbols.by_c_name.end() ? nullptr : &it->second;
  }

  static bool mentions(const std::string &text, const std::string &word) {
    for (size_t i = text.find(word); i != std::string::npos; i = text.find(word, i + 1)) {
      bool left = i == 0 || !(std::isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_');
      size_t e = i + word.size();
      bool right = e >= text.size() || !(std::isalnum((unsigned char)text[e]) || text[e] == '_');
      if (left && right) return true;
    }
    return false;
  }
};

// ---- the pieces of NAME.c ----

std::string coordinate_label(const Model &m, size_t i) { return m.spec->coordinates[i].name; }

std::string constraint_label(const Model &m, size_t row) {
  if (row < m.nh) return "holonomic " + std::to_string(row + 1) + ": " + m.spec->holonomic[row].text;
  size_t j = row - m.nh;
  return "nonholonomic " + std::to_string(j + 1) + ": " + m.spec->nonholonomic[j].text;
}

// Entries of the matrix that are not identically zero, lower triangle only
// when `lower` (the solver reads no more of a symmetric M).
void matrix_outputs(Graph &g, std::vector<Assignment> &outs, const GiNaC::matrix &a, const std::string &target,
                    bool lower, const std::string &heading) {
  bool first = true;
  for (unsigned i = 0; i < a.rows(); ++i)
    for (unsigned j = 0; j < (lower ? i + 1 : a.cols()); ++j) {
      if (a(i, j).is_zero()) continue;
      outs.push_back({target + "[" + std::to_string(i * a.cols() + j) + "]", g.from_ginac(a(i, j)),
                      first ? heading : ""});
      first = false;
    }
}

}  // namespace

GiNaC::matrix stacked_jacobian(const Model &m) {
  GiNaC::matrix C(m.nh + m.nn, m.nq);
  for (size_t j = 0; j < m.nh; ++j)
    for (size_t i = 0; i < m.nq; ++i) C(j, i) = m.A(j, i);
  for (size_t j = 0; j < m.nn; ++j)
    for (size_t i = 0; i < m.nq; ++i) C(m.nh + j, i) = m.B(j, i);
  return C;
}

namespace {

std::string array_literal(const std::vector<double> &values, const std::vector<std::string> &labels) {
  std::ostringstream s;
  s << "{";
  for (size_t i = 0; i < values.size(); ++i)
    s << (i ? ", " : " ") << format_double(values[i]) << (labels.empty() ? "" : " /* " + labels[i] + " */");
  s << " }";
  return s.str();
}

std::vector<double> initial_state(const Model &m) {
  std::vector<double> x;
  for (auto &v : m.state) x.push_back(v.initial);
  return x;
}

std::vector<std::string> state_labels(const Model &m) {
  std::vector<std::string> l;
  for (auto &v : m.state) l.push_back(v.name);
  return l;
}

std::string banner(const Model &m, const std::string &file) {
  return "/* " + file + " — generated by lagrangec " + kVersion + " from " + m.spec->name +
         ".toml. Do not edit: change the spec and regenerate. */\n";
}

// The end of rhs: multipliers out, and for the vakonomic model mu' = -nu
// on the nonholonomic rows (grep tag: STATE-LAYOUT).
std::string multiplier_outputs(const Model &m) {
  Names n(m);
  const std::string Q = n.size("NQ"), C = n.size("NC"), H = n.size("NH"), N = n.size("NN");
  std::ostringstream s;
  if (m.mu.empty()) {
    s << "    if (out_multipliers)\n"
      << "        for (i = 0; i < " << C << "; ++i) out_multipliers[i] = nu[i];\n";
    return s.str();
  }
  s << "    /* Vakonomic: the multipliers mu are states; the rows' own multipliers are -mu'. */\n"
    << "    for (i = 0; i < " << N << "; ++i) out_dxdt[2*" << Q << " + " << N << " + i] = -nu[" << H << " + i];\n"
    << "    if (out_multipliers) {\n"
    << "        for (i = 0; i < " << H << "; ++i) out_multipliers[i] = nu[i];\n"
    << "        for (i = 0; i < " << N << "; ++i) out_multipliers[" << H << " + i] = state[2*" << Q << " + " << N
    << " + i];\n"
    << "    }\n";
  return s.str();
}

// dR/dx and dR/du of the KKT residual and dg/dx, dg/du, then the Jacobian
// of the first-order system by one factored solve per column.
std::string jacobian_source(const Model &m, Emitter &e) {
  Names n(m);
  Graph &g = e.graph();
  const std::string Q = n.size("NQ"), C = n.size("NC"), X = n.size("NX"), U = n.size("NU");
  std::vector<std::string> state, inputs;
  for (auto &x : m.state) state.push_back(x.sym.get_name());
  for (auto &u : m.symbols.u) inputs.push_back(u.get_name());
  std::vector<Assignment> outs;
  auto derivatives = [&](const std::vector<GiNaC::ex> &rows, const std::vector<std::string> &by,
                         const std::string &target, const std::string &heading) {
    for (size_t i = 0; i < rows.size(); ++i) {
      int row = g.from_ginac(rows[i]);
      for (size_t k = 0; k < by.size(); ++k) {
        int d = g.derivative(row, by[k]);
        if (g.is_zero(d)) continue;
        outs.push_back({target + "[" + std::to_string(i * by.size() + k) + "]", d, outs.size() ? "" : heading});
      }
    }
  };
  derivatives(m.R, state, "out_dR_dx", "dR/dx, R = [M a + k - Q - J^T nu; J a - r]");
  size_t before = outs.size();
  derivatives(m.R, inputs, "out_dR_du", "");
  derivatives(m.g, state, "out_dg_dx", "");
  derivatives(m.g, inputs, "out_dg_du", "");
  if (outs.size() > before) outs[before].comment = "dR/du, dg/dx, dg/du";
  std::ostringstream s;
  s << "/* Derivatives of the KKT residual at the solution in_acceleration, in_multipliers; entries not set are zero. */\n";
  s << e.function({"static void " + n.fn("residual_derivatives") +
                       "(double t, const double state[], const double input[], const double param[],\n"
                       "    double baumgarte_alpha, double baumgarte_beta,\n"
                       "    const double in_acceleration[], const double in_multipliers[],\n"
                       "    double out_dR_dx[], double out_dR_du[], double out_dg_dx[], double out_dg_du[])",
                   {"t", "state", "input", "param", "baumgarte_alpha", "baumgarte_beta", "in_acceleration",
                    "in_multipliers", "out_dR_dx", "out_dR_du", "out_dg_dx", "out_dg_du"}},
                  outs)
    << "\n";
  const std::string R = "(" + Q + " + " + C + ")";
  s << "int " << n.fn("jacobian")
    << "(double t, const double state[], const double input[], const double param[],\n"
       "    double baumgarte_alpha, double baumgarte_beta,\n"
       "    double out_dfdx[], double out_dfdu[], double work[])\n{\n"
       "    /* work: the rhs's (M | J | Y | S | nu | w), then dxdt | dR/dx | dR/du | dg/dx | dg/du | column\n"
       "       (grep tag: WORK-LAYOUT, sizes in NWORK_JACOBIAN) */\n"
    << "    double *M = work;\n"
    << "    double *J = M + " << Q << "*" << Q << ";\n"
    << "    double *S = J + 2*" << C << "*" << Q << ";\n"
    << "    double *nu = S + " << C << "*" << C << ";\n"
    << "    double *w = nu + " << C << ";\n"
    << "    double *dxdt = work + " << n.size("NWORK") << ";\n"
    << "    double *dR_dx = dxdt + " << X << ";\n"
    << "    double *dR_du = dR_dx + " << R << "*" << X << ";\n"
    << "    double *dg_dx = dR_du + " << R << "*" << U << ";\n"
    << "    double *dg_du = dg_dx + " << n.size("NN") << "*" << X << ";\n"
    << "    double *column = dg_du + " << n.size("NN") << "*" << U << ";\n"
    << "    int i, k, status;\n"
    << "    status = " << n.fn("rhs") << "(t, state, input, param, baumgarte_alpha, baumgarte_beta, dxdt, nu, work);\n"
    << "    if (status != " << n.size("OK") << ") return status;\n"
    << "    " << n.fn("zero") << "(dR_dx, " << R << "*" << X << ");\n"
    << "    " << n.fn("zero") << "(dR_du, " << R << "*" << U << ");\n"
    << "    " << n.fn("zero") << "(dg_dx, " << n.size("NN") << "*" << X << ");\n"
    << "    " << n.fn("zero") << "(dg_du, " << n.size("NN") << "*" << U << ");\n"
    << "    " << n.fn("residual_derivatives") << "(t, state, input, param, baumgarte_alpha, baumgarte_beta,\n"
    << "        dxdt + " << Q << ", nu, dR_dx, dR_du, dg_dx, dg_du);\n"
    << "    /* Rows of q' = v: the identity on the velocities. */\n"
    << "    " << n.fn("zero") << "(out_dfdx, " << X << "*" << X << ");\n"
    << "    " << n.fn("zero") << "(out_dfdu, " << X << "*" << U << ");\n"
    << "    for (i = 0; i < " << Q << "; ++i) out_dfdx[i*" << X << " + " << Q << " + i] = 1.0;\n"
    << "    /* Rows of q'': d(a, nu) = -K^-1 dR, a column at a time. */\n"
    << "    for (k = 0; k < " << X << " + " << U << "; ++k) {\n"
    << "        const double *dR = k < " << X << " ? dR_dx + k : dR_du + (k - " << X << ");\n"
    << "        const int stride = k < " << X << " ? " << X << " : " << U << ";\n"
    << "        for (i = 0; i < " << R << "; ++i) column[i] = -dR[i*stride];\n"
    << "        " << n.fn("solve_kkt") << "(M, J, S, column, column + " << Q << ", w);\n"
    << "        for (i = 0; i < " << Q << "; ++i) {\n"
    << "            if (k < " << X << ") out_dfdx[(" << Q << " + i)*" << X << " + k] = column[i];\n"
    << "            else out_dfdu[(" << Q << " + i)*" << U << " + k - " << X << "] = column[i];\n"
    << "        }\n";
  if (!m.mu.empty())
    s << "        /* Vakonomic: mu' = -nu on the nonholonomic rows. */\n"
      << "        for (i = 0; i < " << n.size("NN") << "; ++i) {\n"
      << "            const int row = 2*" << Q << " + " << n.size("NN") << " + i;\n"
      << "            const double d = -column[" << Q << " + " << n.size("NH") << " + i];\n"
      << "            if (k < " << X << ") out_dfdx[row*" << X << " + k] = d;\n"
      << "            else out_dfdu[row*" << U << " + k - " << X << "] = d;\n"
      << "        }\n";
  s << "    }\n"
    << "    /* Rows of the integral states, z' = g. */\n"
    << "    for (i = 0; i < " << n.size("NN") << "; ++i) {\n"
    << "        for (k = 0; k < " << X << "; ++k) out_dfdx[(2*" << Q << " + i)*" << X << " + k] = dg_dx[i*" << X << " + k];\n"
    << "        for (k = 0; k < " << U << "; ++k) out_dfdu[(2*" << Q << " + i)*" << U << " + k] = dg_du[i*" << U << " + k];\n"
    << "    }\n"
    << "    return " << n.size("OK") << ";\n}\n\n";
  return s.str();
}

}  // namespace

std::string emit_header(const Model &m) {
  Names n(m);
  std::ostringstream s;
  size_t nc = m.nh + m.nn;
  auto names_of = [](const std::vector<NamedValue> &v) {
    std::string s;
    for (auto &x : v) s += (s.empty() ? "" : ", ") + x.name;
    return s.empty() ? "none" : s;
  };
  s << banner(m, m.spec->name + ".h");
  s << "/* " << comment_text(m.spec->title) << " */\n";
  s << "#ifndef " << n.P << "_H\n#define " << n.P << "_H\n\n";
  s << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  s << "/* Sizes. */\n";
  s << "#define " << n.size("NQ") << " " << m.nq << "  /* coordinates: " << names_of(m.spec->coordinates) << " */\n";
  s << "#define " << n.size("NH") << " " << m.nh << "  /* holonomic constraints */\n";
  s << "#define " << n.size("NN") << " " << m.nn << "  /* nonholonomic constraints */\n";
  s << "#define " << n.size("NC") << " " << nc << "  /* constraint rows, NH + NN */\n";
  s << "#define " << n.size("NX") << " " << m.state.size() << "  /* state: q, q', the integrals of g"
    << (m.mu.empty() ? "" : ", the vakonomic multipliers mu") << " */\n";
  s << "#define " << n.size("NP") << " " << m.spec->parameters.size() << "  /* parameters: "
    << names_of(m.spec->parameters) << " */\n";
  s << "#define " << n.size("NU") << " " << m.spec->inputs.size() << "  /* inputs: " << names_of(m.spec->inputs)
    << " */\n";
  s << "#define " << n.size("NWORK") << " " << m.nq * m.nq + 2 * nc * m.nq + nc * nc + nc + m.nq
    << "  /* doubles of scratch for " << n.fn("rhs") << " */\n";
  size_t nx = m.state.size(), nu = m.spec->inputs.size(), rows = m.nq + nc;
  if (m.with_jacobian)
    s << "#define " << n.size("NWORK_JACOBIAN") << " (" << n.size("NWORK") << " + "
      << nx + rows * (nx + nu) + m.nn * (nx + nu) + rows << ")  /* ... for " << n.fn("jacobian") << " */\n";
  s << "\n";

  s << "/* Where each quantity sits in the state, parameter and input arrays. */\n";
  for (size_t i = 0; i < m.state.size(); ++i)
    s << "#define " << n.size("STATE_") << m.state[i].sym.get_name() << " " << i << "\n";
  for (size_t i = 0; i < m.spec->parameters.size(); ++i)
    s << "#define " << n.size("PARAM_") << m.spec->parameters[i].name << " " << i << "\n";
  for (size_t i = 0; i < m.spec->inputs.size(); ++i)
    s << "#define " << n.size("INPUT_") << m.spec->inputs[i].name << " " << i << "\n";

  s << "\n/* Return codes of " << n.fn("rhs") << ". */\n";
  s << "#define " << n.size("OK") << " 0\n";
  s << "#define " << n.size("SINGULAR_MASS") << " 1         /* M(q, t) is not positive definite */\n";
  s << "#define " << n.size("SINGULAR_CONSTRAINTS") << " 2  /* the constraint rows are dependent here */\n\n";

  s << "/* The spec's defaults. */\n";
  if (!m.spec->parameters.empty()) s << "extern const double " << n.fn("param_defaults") << "[" << n.size("NP") << "];\n";
  if (!m.spec->inputs.empty()) s << "extern const double " << n.fn("input_defaults") << "[" << n.size("NU") << "];\n";
  s << "extern const double " << n.fn("initial_state") << "[" << n.size("NX") << "];\n";
  s << "#define " << n.size("ALPHA") << " " << format_double(m.spec->alpha) << "  /* Baumgarte gains */\n";
  s << "#define " << n.size("BETA") << " " << format_double(m.spec->beta) << "\n\n";

  s << R"(/*
** The stabilised first-order system x' = f(t, x, u): q' = v,
** M v' + k = Q + A^T lambda + B^T mu with the constraint rows replaced by
** phi'' + alpha phi' + beta phi = 0 and g' = -alpha g - beta int g, and
** (int g)' = g. Writes out_dxdt (NX) and, unless NULL, the multipliers
** [lambda; mu] (NC). work holds NWORK doubles. Returns )" << n.size("OK") << R"( or an error.
*/
)";
  s << "int " << n.fn("rhs")
    << "(double t, const double state[], const double input[], const double param[],\n"
       "    double baumgarte_alpha, double baumgarte_beta,\n"
       "    double out_dxdt[], double out_multipliers[], double work[]);\n\n";
  if (m.with_jacobian) {
    s << "/*\n** Jacobians of the same system, df/dx (NX x NX) and df/du (NX x NU), row-major,\n"
         "** derived symbolically: q'' by differentiating the KKT system it solves.\n"
         "** work holds NWORK_JACOBIAN doubles.\n*/\n";
    s << "int " << n.fn("jacobian")
      << "(double t, const double state[], const double input[], const double param[],\n"
         "    double baumgarte_alpha, double baumgarte_beta,\n"
         "    double out_dfdx[], double out_dfdu[], double work[]);\n\n";
  }
  s << "/*\n** The pieces of the KKT system of " << n.fn("rhs") << " at one state: M (NQ x NQ, lower\n"
       "** triangle only; the rest is zero), f = Q - k (NQ), J = [A; B] (NC x NQ), the\n"
       "** stabilised constraint rows' right-hand side r (NC), and g (NN), the\n"
       "** derivatives of the integral states. For callers with their own solver.\n*/\n";
  s << "void " << n.fn("kkt_terms")
    << "(double t, const double state[], const double input[], const double param[],\n"
       "    double baumgarte_alpha, double baumgarte_beta,\n"
       "    double out_M[], double out_f[], double out_J[], double out_r[], double out_g[]);\n\n";
  s << "/* Constraint residuals: phi (NH), phi' (NH), g (NN). */\n";
  s << "void " << n.fn("residuals")
    << "(double t, const double state[], const double param[],\n"
       "    double out_phi[], double out_phi_dot[], double out_g[]);\n\n";
  s << "/* Total energy T + V. */\n";
  s << "double " << n.fn("energy") << "(double t, const double state[], const double param[]);\n\n";
  s << "/* Mass matrix M, NQ x NQ, row-major. */\n";
  s << "void " << n.fn("mass_matrix") << "(double t, const double state[], const double param[], double out_M[]);\n\n";
  s << "/* Constraint Jacobian in velocity space, C = [A; B], NC x NQ, row-major. */\n";
  s << "void " << n.fn("constraint_jacobian")
    << "(double t, const double state[], const double param[], double out_C[]);\n\n";
  s << "/* The runtime's descriptor of this model, defined in " << m.spec->name << "_model.c. */\n";
  s << "struct lgc_model;\nextern const struct lgc_model " << n.fn("model") << ";\n\n";
  s << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return s.str();
}

std::string emit_source(const Model &m) {
  Names n(m);
  Emitter e(m);
  Graph &g = e.graph();
  size_t nq = m.nq, nc = m.nh + m.nn;
  std::ostringstream s;
  s << banner(m, m.spec->name + ".c");
  s << "#include \"" << m.spec->name << ".h\"\n\n#include <math.h>\n\n";

  std::vector<std::string> pnames, unames;
  std::vector<double> pvals, uvals;
  for (auto &p : m.spec->parameters) pnames.push_back(p.name), pvals.push_back(p.value);
  for (auto &u : m.spec->inputs) unames.push_back(u.name), uvals.push_back(u.value);
  if (!pvals.empty())
    s << "const double " << n.fn("param_defaults") << "[" << n.size("NP") << "] = " << array_literal(pvals, pnames) << ";\n";
  if (!uvals.empty())
    s << "const double " << n.fn("input_defaults") << "[" << n.size("NU") << "] = " << array_literal(uvals, unames) << ";\n";
  s << "const double " << n.fn("initial_state") << "[" << n.size("NX") << "] = "
    << array_literal(initial_state(m), state_labels(m)) << ";\n\n";
  s << emit_kkt_solver(m) << "\n";

  // The equations at one state: M (lower triangle), f = Q - k, J, r, and g.
  {
    std::vector<Assignment> outs;
    matrix_outputs(g, outs, m.M, "out_M", true, "mass matrix M = d2T/dq'dq' (lower triangle)");
    for (size_t i = 0; i < nq; ++i)
      outs.push_back({"out_f[" + std::to_string(i) + "]", g.from_ginac((m.Q[i] - m.k[i]).expand()),
                      (i == 0 ? "f = Q - k, row " : "row ") + coordinate_label(m, i)});
    matrix_outputs(g, outs, stacked_jacobian(m), "out_J", false, "constraint Jacobian J = [A; B]");
    for (size_t j = 0; j < nc; ++j)
      outs.push_back({"out_r[" + std::to_string(j) + "]", g.from_ginac(m.r[j]),
                      "stabilised right-hand side of " + constraint_label(m, j)});
    for (size_t j = 0; j < m.nn; ++j)
      outs.push_back({"out_g[" + std::to_string(j) + "]", g.from_ginac(m.g[j]),
                      j == 0 ? "g, the derivatives of the integral states" : ""});
    s << e.function({"void " + n.fn("kkt_terms") +
                         "(double t, const double state[], const double input[], const double param[],\n"
                         "    double baumgarte_alpha, double baumgarte_beta,\n"
                         "    double out_M[], double out_f[], double out_J[], double out_r[], double out_g[])",
                     {"t", "state", "input", "param", "baumgarte_alpha", "baumgarte_beta", "out_M", "out_f",
                      "out_J", "out_r", "out_g"}},
                    outs,
                    "    " + n.fn("zero") + "(out_M, " + n.size("NQ") + "*" + n.size("NQ") + ");\n    " + n.fn("zero") +
                        "(out_J, " + n.size("NC") + "*" + n.size("NQ") + ");\n")
      << "\n";
  }

  // rhs: no spec names are in scope here, so its locals cannot clash.
  const std::string Q = n.size("NQ"), C = n.size("NC");
  s << "int " << n.fn("rhs")
    << "(double t, const double state[], const double input[], const double param[],\n"
       "    double baumgarte_alpha, double baumgarte_beta,\n"
       "    double out_dxdt[], double out_multipliers[], double work[])\n{\n"
       "    /* work: M | J | Y | S | nu | w  (grep tag: WORK-LAYOUT, sizes in NWORK) */\n"
    << "    double *M = work;\n"
    << "    double *J = M + " << Q << "*" << Q << ";\n"
    << "    double *Y = J + " << C << "*" << Q << ";\n"
    << "    double *S = Y + " << C << "*" << Q << ";\n"
    << "    double *nu = S + " << C << "*" << C << ";\n"
    << "    double *w = nu + " << C << ";\n"
    << "    double *acceleration = out_dxdt + " << Q << ";\n"
    << "    int i, status;\n"
    << "    " << n.fn("kkt_terms") << "(t, state, input, param, baumgarte_alpha, baumgarte_beta,\n"
    << "        M, acceleration, J, nu, out_dxdt + 2*" << Q << ");\n"
    << "    for (i = 0; i < " << Q << "; ++i) out_dxdt[i] = state[" << Q << " + i];\n"
    << "    status = " << n.fn("factor_kkt") << "(M, J, Y, S);\n"
    << "    if (status != " << n.size("OK") << ") return status;\n"
    << "    " << n.fn("solve_kkt") << "(M, J, S, acceleration, nu, w);\n"
    << multiplier_outputs(m) << "    return " << n.size("OK") << ";\n}\n\n";
  if (m.with_jacobian) s << jacobian_source(m, e);

  {
    std::vector<Assignment> outs;
    for (size_t j = 0; j < m.nh; ++j) {
      outs.push_back({"out_phi[" + std::to_string(j) + "]", g.from_ginac(m.phi[j]), constraint_label(m, j)});
      outs.push_back({"out_phi_dot[" + std::to_string(j) + "]", g.from_ginac(m.phi_dot[j]), ""});
    }
    for (size_t j = 0; j < m.nn; ++j)
      outs.push_back({"out_g[" + std::to_string(j) + "]", g.from_ginac(m.g[j]), constraint_label(m, m.nh + j)});
    s << e.function({"void " + n.fn("residuals") +
                         "(double t, const double state[], const double param[],\n"
                         "    double out_phi[], double out_phi_dot[], double out_g[])",
                     {"t", "state", "param", "out_phi", "out_phi_dot", "out_g"}},
                    outs)
      << "\n";
  }
  {
    std::vector<Assignment> outs = {{"return", g.from_ginac((m.T + m.V).expand()), "T + V"}};
    s << e.function({"double " + n.fn("energy") + "(double t, const double state[], const double param[])",
                     {"t", "state", "param"}},
                    outs)
      << "\n";
  }
  {
    std::vector<Assignment> outs;
    matrix_outputs(g, outs, m.M, "out_M", true, "lower triangle; the upper one mirrors it");
    std::ostringstream mirror;
    mirror << "    " << n.fn("mirror_lower") << "(out_M);\n";
    std::string prologue = "    " + n.fn("zero") + "(out_M, " + Q + "*" + Q + ");\n";
    s << "/* Copies the lower triangle of the symmetric M to the upper one. */\n"
      << "static void " << n.fn("mirror_lower") << "(double a[])\n{\n    int i, j;\n"
      << "    for (i = 0; i < " << Q << "; ++i)\n        for (j = 0; j < i; ++j) a[j*" << Q << " + i] = a[i*" << Q
      << " + j];\n}\n\n";
    s << e.function({"void " + n.fn("mass_matrix") + "(double t, const double state[], const double param[], double out_M[])",
                     {"t", "state", "param", "out_M"}},
                    outs, prologue, mirror.str())
      << "\n";
  }
  {
    std::vector<Assignment> outs;
    matrix_outputs(g, outs, stacked_jacobian(m), "out_C", false, "");
    for (size_t k = 0; k < outs.size(); ++k) {
      size_t row = std::stoul(outs[k].target.substr(6)) / nq;
      if (k == 0 || std::stoul(outs[k - 1].target.substr(6)) / nq != row) outs[k].comment = constraint_label(m, row);
    }
    std::string prologue = "    " + n.fn("zero") + "(out_C, " + C + "*" + Q + ");\n";
    s << e.function({"void " + n.fn("constraint_jacobian") +
                         "(double t, const double state[], const double param[], double out_C[])",
                     {"t", "state", "param", "out_C"}},
                    outs, prologue);
  }
  return s.str();
}

std::string emit_descriptor(const Model &m) {
  Names n(m);
  std::ostringstream s;
  auto strings = [](const std::vector<NamedValue> &v) {
    std::string s = "{";
    for (size_t i = 0; i < v.size(); ++i) s += std::string(i ? ", " : " ") + "\"" + v[i].name + "\"";
    return s + " }";
  };
  auto escaped = [](const std::string &t) {
    std::string s;
    for (char c : t) {
      if (c == '"' || c == '\\') s += '\\';
      if (c == '\n') { s += "\\n"; continue; }
      s += c;
    }
    return s;
  };
  bool has_p = !m.spec->parameters.empty(), has_u = !m.spec->inputs.empty();
  s << banner(m, m.spec->name + "_model.c");
  s << "/* The runtime's descriptor of the model; " << m.spec->name
    << ".c itself does not depend on the runtime. */\n";
  s << "#include \"" << m.spec->name << ".h\"\n\n#include <lagrangec/model.h>\n#include <stddef.h>\n\n";
  s << "static const char *const coordinate_names[] = " << strings(m.spec->coordinates) << ";\n";
  s << "static const char *const state_names[] = {";
  for (size_t i = 0; i < m.state.size(); ++i) s << (i ? ", " : " ") << "\"" << m.state[i].name << "\"";
  s << " };\n";
  if (has_p) s << "static const char *const parameter_names[] = " << strings(m.spec->parameters) << ";\n";
  if (has_u) s << "static const char *const input_names[] = " << strings(m.spec->inputs) << ";\n";
  s << "\nconst lgc_model " << n.fn("model") << " = {\n";
  s << "    \"" << m.spec->name << "\",\n";
  s << "    \"" << escaped(m.spec->title) << "\",\n";
  s << "    " << n.size("NQ") << ", " << n.size("NH") << ", " << n.size("NN") << ", " << n.size("NX") << ", "
    << n.size("NP") << ", " << n.size("NU") << ", " << n.size("NWORK") << ",\n";
  s << "    coordinate_names, " << (has_p ? "parameter_names" : "NULL") << ", " << (has_u ? "input_names" : "NULL")
    << ",\n";
  s << "    " << (has_p ? n.fn("param_defaults") : "NULL") << ", " << (has_u ? n.fn("input_defaults") : "NULL") << ", "
    << n.fn("initial_state") << ",\n";
  s << "    " << n.size("ALPHA") << ", " << n.size("BETA") << ",\n";
  s << "    " << (m.conservative ? 1 : 0) << ",  /* conservative: T + V is conserved */\n";
  s << "    " << n.fn("rhs") << ",\n    " << n.fn("residuals") << ",\n    " << n.fn("energy") << ",\n    "
    << n.fn("mass_matrix") << ",\n    " << n.fn("constraint_jacobian") << ",\n    "
    << (m.with_jacobian ? n.fn("jacobian") + ",\n    " + n.size("NWORK_JACOBIAN") : "NULL, 0  /* generated without Jacobians */")
    << ",\n    state_names,\n    "
    << (m.mu.empty() ? "0" : "1") << ",  /* vakonomic */\n    " << n.fn("kkt_terms") << ",\n    "
    << (kkt_solver_is_straight_line(m) ? "1" : "0") << "  /* the rhs's solve is straight-line code */\n};\n";
  return s.str();
}

}  // namespace lgc
