// emit_descriptor.cpp — prints NAME_model.c: the runtime's lgc_model for
// the plan, every field set by name (lagrangec/model.h says what each one
// holds), so the descriptor never depends on the order of the struct.
#include "emit/emit.h"

#include <sstream>

namespace lgc {

namespace {

std::string string_array(const std::vector<std::string> &items) {
  std::string s = "{";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : " ") + string_literal(items[i]);
  return s + " }";
}

std::vector<std::string> names_of(const std::vector<NamedValue> &v) {
  std::vector<std::string> names;
  for (auto &x : v) names.push_back(x.name);
  return names;
}

}  // namespace

std::string emit_descriptor(const Plan &plan) {
  const Model &m = plan.model;
  const Names &n = plan.names;
  const Spec &spec = *m.spec;
  std::ostringstream s;
  s << banner(plan, n.p + "_model.c");
  if (plan.real.single())  // lgc_model's functions take doubles
    return s.str() + "#error \"" + n.p + "_model.c: the runtime integrates models generated with --real double; " +
           n.p + ".c was generated with --real float, for firmware\"\n";
  s << "/* The runtime's descriptor of the model; " << n.p << ".c itself does not depend on the runtime. */\n";
  s << "#include \"" << n.p << ".h\"\n\n#include <lagrangec/model.h>\n\n";

  std::vector<std::string> state_names, labels;
  std::string given;
  for (auto &x : m.state) {
    state_names.push_back(x.name);
    given += std::string(given.empty() ? " " : ", ") + (x.given ? "1" : "0");
  }
  // The CSV names a wheel's rows after it (g[rear.x]); written rows keep their numbers, the default.
  std::vector<std::string> columns;
  bool wheels = false;
  for (size_t c = 0; c < m.nc(); ++c) {
    labels.push_back(m.constraint_label(c));
    columns.push_back(m.origins[c].column);
    wheels = wheels || m.origins[c].wheel >= 0 || (c < m.nh && c >= m.nh - m.ncontact) || c >= m.nc() - m.nslip();
  }
  s << "static const char *const coordinate_names[] = " << string_array(names_of(spec.coordinates)) << ";\n";
  s << "static const char *const state_names[] = " << string_array(state_names) << ";\n";
  if (!spec.parameters.empty())
    s << "static const char *const parameter_names[] = " << string_array(names_of(spec.parameters)) << ";\n";
  if (!spec.inputs.empty())
    s << "static const char *const input_names[] = " << string_array(names_of(spec.inputs)) << ";\n";
  if (!labels.empty()) s << "static const char *const constraint_labels[] = " << string_array(labels) << ";\n";
  if (wheels) s << "static const char *const constraint_columns[] = " << string_array(columns) << ";\n";
  if (!spec.outputs.empty()) {
    std::vector<std::string> outputs;
    for (auto &o : spec.outputs) outputs.push_back(o.name);
    s << "static const char *const output_names[] = " << string_array(outputs) << ";\n";
  }
  if (!spec.events.empty()) {
    std::vector<std::string> events;
    std::string direction, stop;
    for (auto &e : spec.events) {
      events.push_back(e.name);
      direction += (direction.empty() ? " " : ", ") + std::to_string(int(e.direction));
      stop += std::string(stop.empty() ? " " : ", ") + (e.stop ? "1" : "0");
    }
    s << "static const char *const event_names[] = " << string_array(events) << ";\n";
    s << "/* +1 rising, -1 falling, 0 both; 1 where the event ends the run. */\n";
    s << "static const signed char event_direction[] = {" << direction << " };\n";
    s << "static const unsigned char event_stop[] = {" << stop << " };\n";
  }
  if (!m.redundant.empty()) {
    s << "/* Rows the others imply on the constraints: left out of rhs's solve. */\n";
    s << "static const int redundant_rows[] = {";
    for (size_t i = 0; i < m.redundant.size(); ++i) s << (i ? ", " : " ") << m.redundant[i];
    s << " };\n";
  }
  if (!m.friction.empty()) {
    std::vector<std::string> names;
    std::string rows;
    for (auto &f : m.friction) {
      names.push_back(f.name);
      for (size_t i = 0; i < 2; ++i)
        rows += (rows.empty() ? " " : ", ") + (i < f.slip_rows.size() ? std::to_string(f.slip_rows[i]) : "-1");
    }
    s << "static const char *const friction_names[] = " << string_array(names) << ";\n";
    s << "/* Each friction contact's slip rows among the NC (-1: a planar contact's second). */\n";
    s << "static const int friction_slip_rows[] = {" << rows << " };\n";
  }
  s << "/* 1 where the spec's [initial] tables give the value, 0 where it defaults to 0. */\n";
  s << "static const unsigned char initial_given[] = {" << given << " };\n";

  s << "\nconst lgc_model " << n.fn("model") << " = {\n";
  auto field = [&](const char *name, const std::string &value) { s << "    ." << name << " = " << value << ",\n"; };
  field("name", string_literal(spec.name));
  field("title", string_literal(spec.title));
  for (Size size : {Size::nq, Size::nh, Size::nn, Size::nx, Size::np, Size::nu}) {
    std::string member = size_suffix(size);
    for (char &c : member) c = char(std::tolower((unsigned char)c));
    field(member.c_str(), n.size(size));
  }
  field("nwork", n.size(Size::nwork));
  field("coordinate_names", "coordinate_names");
  field("state_names", "state_names");
  if (!spec.parameters.empty()) {
    field("parameter_names", "parameter_names");
    field("parameter_defaults", n.fn("param_defaults"));
  }
  if (!spec.inputs.empty()) {
    field("input_names", "input_names");
    field("input_defaults", n.fn("input_defaults"));
  }
  if (!labels.empty()) field("constraint_labels", "constraint_labels");
  if (wheels) field("constraint_columns", "constraint_columns");
  field("initial_state", n.fn("initial_state"));
  field("initial_state_at", n.fn("initial_state_at"));
  field("initial_given", "initial_given");
  field("alpha", n.size("ALPHA"));
  field("beta", n.size("BETA"));
  const char *integrals[] = {"LGC_INTEGRAL_NONE", "LGC_INTEGRAL_ENERGY", "LGC_INTEGRAL_JACOBI"};
  field("integral", integrals[int(m.integral)]);
  if (m.integral_needs_zero_inputs) field("integral_needs_zero_inputs", "1");
  if (!m.integral_absent.empty()) field("integral_absent", string_literal(m.integral_absent));
  field("vakonomic", m.mu.empty() ? "0" : "1");
  field("rhs", n.fn("rhs"));
  field("kkt_terms", n.fn("kkt_terms"));
  // The runtime takes LAPACK's KKT solve (kkt_terms) over rhs's dense loops from LGC_LAPACK_MIN_NQ
  // coordinates: not over the recursion, whose rhs forms no M.
  field("straight_line_solve", plan.solver.straight_line || plan.articulated.chosen ? "1" : "0");
  if (m.nc()) {
    size_t offset = 0;  // grep tag: WORK-CONDITIONING
    for (auto &e : plan.rhs_work.offset("conditioning")) offset += e.value;
    field("work_conditioning", std::to_string(offset));
  }
  if (!m.redundant.empty()) {
    field("nredundant", std::to_string(m.redundant.size()));
    field("redundant_rows", "redundant_rows");
  }
  field("residuals", n.fn("residuals"));
  field("energy", n.fn("energy"));
  field("integral_value", n.fn(m.integral == Model::Integral::jacobi ? "jacobi_integral" : "energy"));
  field("energies", n.fn("energies"));
  field("inverse_dynamics", n.fn("inverse_dynamics"));
  field("bias", n.fn("bias"));
  field("gravity", n.fn("gravity"));
  field("mass_matrix", n.fn("mass_matrix"));
  field("constraint_jacobian", n.fn("constraint_jacobian"));
  field("constraint_coordinate_jacobian", n.fn("constraint_coordinate_jacobian"));
  if (plan.correction.available) {
    field("correction_factor", n.fn("correction_factor"));
    field("correction_solve", n.fn("correction_solve"));
    field("nwork_correction", n.size("NWORK_CORRECTION"));
  } else {
    s << "    /* " << (m.nc() ? "too large for a generated correction" : "no constraints to correct")
      << ": .correction_factor = NULL */\n";
  }
  if (plan.with_jacobian) {
    field("jacobian", n.fn("jacobian"));
    field("nwork_jacobian", n.size("NWORK_JACOBIAN"));
    if (plan.tree_jacobian) {
      s << "    /* dq''/dp would need the recursion's derivatives by its tables' entries: .parameter_jacobian = NULL */\n";
    } else {
      field("parameter_jacobian", n.fn("parameter_jacobian"));
      field("nwork_parameter_jacobian", n.size("NWORK_PARAMETER_JACOBIAN"));
    }
  } else {
    s << "    /* generated without Jacobians: .jacobian = .parameter_jacobian = NULL */\n";
  }
  if (m.ncontact) {
    field("ncontact", std::to_string(m.ncontact));
    field("restitution", n.fn("restitution"));
  }
  if (!m.friction.empty()) {
    field("nfriction", std::to_string(m.friction.size()));
    field("friction_names", "friction_names");
    field("friction_slip_rows", "friction_slip_rows");
    field("friction_normal", n.fn("friction_normal"));
    field("friction_coefficients", n.fn("friction_coefficients"));
  }
  if (plan.regressor.available()) {
    field("nstandard", n.size("NSTANDARD"));
    field("nbase", n.size("NBASE"));
    field("regressor", n.fn("regressor"));
    field("base_parameters", n.fn("base_parameters"));
    field("standard_regressor", n.fn("standard_regressor"));
    field("standard_parameters", n.fn("standard_parameters"));
  } else {
    s << "    /* no regressor (" << n.p << ".md says why): .regressor = NULL */\n";
  }
  if (!spec.outputs.empty()) {
    field("nout", n.size("NOUT"));
    field("output_names", "output_names");
    field("outputs", n.fn("outputs"));
  }
  if (!spec.events.empty()) {
    field("nevent", n.size("NEVENT"));
    field("event_names", "event_names");
    field("event_direction", "event_direction");
    field("event_stop", "event_stop");
    field("events", n.fn("events"));
  }
  s << "};\n";
  return s.str();
}

}  // namespace lgc
