// fmu.cpp — `lagrangec fmu`: the spec's generated C and the runtime's fmi/
// compiled into binaries/linux64/NAME.so in a scratch directory, the
// modelDescription.xml that library writes of itself, and sources/ (the
// generated C, fmu_binding.c, the runtime's sources), zipped into one
// FMI 2.0 FMU.
#include "program/fmu.h"
#include "generate.h"
#include "program/compile.h"
#include "program/sha256.h"
#include "program/zip.h"
#include "lagrangec_config.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace lgc {

namespace fs = std::filesystem;

namespace {

// The runtime's fmi/ files compiled into the library (describe_main.c is the describing program's).
const std::vector<std::string> kFmiSources = {"fmi2.c", "fmu_variables.c", "model_description.c"};
// Runtime sources an FMU's sources/ leaves out: the configured version's,
// and SUNDIALS' (runtime/meson.build compiles them only with it; without
// them stepper.c offers rk4 and dopri5, all an FMU's step uses).
const std::vector<std::string> kNotShipped = {"version.c", "cvode.c", "newton_lu.c", "newton_lu.h", "vector_ops.c",
                                              "vector_ops.h", "describe_main.c", "version.h", "version.h.in"};

// A scratch directory of this process, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/lagrangec-fmu-XXXXXX";
    if (!::mkdtemp(pattern.data()))
      throw std::runtime_error("cannot create a scratch directory " + pattern + ": " + std::strerror(errno));
    path_ = pattern;
    fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error("cannot open " + path_ + ": " + std::strerror(errno));
  }
  ~ScratchDir() {
    ::close(fd_);
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
  OpenDir view() const { return {fd_, path_, "/proc/self/fd/" + std::to_string(fd_)}; }

 private:
  std::string path_;
  int fd_ = -1;
};

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The instantiation token: of everything the library was made from, so
// that another export of another model (or the same one changed) has
// another, and the same export the same.
std::string guid(const Spec &spec, const GeneratedFiles &files, const FmuOptions &options) {
  Sha256 hash;
  for (const std::string *part : {&spec.source, &files.header, &files.source, &files.descriptor})
    hash.update(part->c_str(), part->size() + 1);
  hash.update(std::string(LGC_VERSION) + " kinds " + std::to_string(options.kinds));
  std::string h = hash.hex();
  return "{" + h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" +
         h.substr(20, 12) + "}";
}

// The FMU's variables as runtime/fmi/fmu.h numbers them (value references):
// each kind a block, in fmu.h's order. fmu_binding.c records the counts,
// which the library checks against its own numbering before it describes itself.
struct Numbering {
  enum Kind { state, derivative, parameter, gain, step, input, multiplier, force, output, method, kinds };
  std::array<size_t, kinds> count{}, first{};
  explicit Numbering(const Model &m) {
    count = {m.state.size(), m.state.size(), m.symbols.p.size(), 2, 1, m.symbols.u.size(), m.nc(),
             m.nc() ? m.nq : 0, m.outputs.size(), 1};
    for (size_t k = 1; k < kinds; ++k) first[k] = first[k - 1] + count[k - 1];
  }
  size_t total() const { return first[kinds - 1] + count[kinds - 1]; }
  size_t of(const Known &k) const {
    switch (k.kind) {
      case Known::state: return first[state] + k.index;
      case Known::input: return first[input] + k.index;
      case Known::parameter: return first[parameter] + k.index;
      case Known::gain: return first[gain] + k.index;
    }
    unreachable("a known of no kind");
  }
};

// What fmu_binding.c says of each variable beyond the model descriptor: its
// unit and description (the spec's [units] and [descriptions], a velocity's
// and a derivative's unit derived) and a derivative's or output's dependencies.
struct Annotations {
  std::vector<std::string> unit_names;  // UnitDefinitions, in order of first use
  std::vector<int> unit;                // per variable, into unit_names, or -1
  std::vector<std::optional<std::string>> description;
  std::vector<const Dependencies *> dependencies;  // per variable, into structure; nullptr for none
  Numbering numbering;
  ModelStructure structure;
  Annotations(const Annotations &) = delete;  // dependencies point into its own structure

  Annotations(const Spec &spec, const Model &m) : numbering(m), structure(model_structure(m)) {
    const size_t n = numbering.total(), nq = m.nq;
    unit.assign(n, -1);
    description.resize(n);
    dependencies.assign(n, nullptr);
    auto set_unit = [&](size_t vr, const std::string &text) {
      auto found = std::find(unit_names.begin(), unit_names.end(), text);
      unit[vr] = int(found - unit_names.begin());
      if (found == unit_names.end()) unit_names.push_back(text);
    };
    auto annotate = [&](size_t vr, const std::string &name) {
      if (const Annotation *u = spec.unit_of(name)) set_unit(vr, u->text);
      if (const Annotation *d = spec.description_of(name)) description[vr] = d->text;
    };
    const auto &first = numbering.first;
    for (size_t i = 0; i < nq; ++i) {
      const std::string &q = m.state[i].name;
      annotate(first[Numbering::state] + i, q);
      if (const Annotation *u = spec.unit_of(q)) {
        const std::string rate = unit_per_second(u->text);
        set_unit(first[Numbering::state] + nq + i, rate);
        set_unit(first[Numbering::derivative] + i, rate);
        set_unit(first[Numbering::derivative] + nq + i, unit_per_second(rate));
      }
      if (const Annotation *d = spec.description_of(q))
        description[first[Numbering::state] + nq + i] = "velocity of " + q + " (" + d->text + ")";
    }
    for (size_t k = 0; k < m.symbols.p.size(); ++k)
      annotate(first[Numbering::parameter] + k, m.symbols.p[k].get_name());
    for (size_t j = 0; j < m.symbols.u.size(); ++j) annotate(first[Numbering::input] + j, m.symbols.u[j].get_name());
    for (size_t o = 0; o < spec.outputs.size(); ++o) annotate(first[Numbering::output] + o, spec.outputs[o].name);
    for (size_t i = 0; i < structure.derivatives.size(); ++i)
      dependencies[first[Numbering::derivative] + i] = &structure.derivatives[i];
    for (size_t c = 0; c < structure.multipliers.size(); ++c)
      dependencies[first[Numbering::multiplier] + c] = &structure.multipliers[c];
    for (size_t i = 0; i < numbering.count[Numbering::force]; ++i)
      dependencies[first[Numbering::force] + i] = &structure.forces[i];
    for (size_t o = 0; o < structure.outputs.size(); ++o)
      dependencies[first[Numbering::output] + o] = &structure.outputs[o];
  }
};

std::string number_list(const std::vector<std::string> &items, size_t per_line = 16) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i)
    s += (i == 0 ? "" : i % per_line == 0 ? ",\n    " : ", ") + items[i];
  return s;
}

// fmu_binding.c: what runtime/fmi/fmu.h asks of the model's FMU. The spec's
// name is a C identifier (the generator names every function after it);
// every text of the spec in it is a C string literal.
std::string binding_source(const Spec &spec, const std::string &token, int kinds, const Annotations &a) {
  std::ostringstream c;
  c << "/* fmu_binding.c — " << spec.name << "'s FMU: its model, instantiation token and FMI kinds,\n"
    << "   its variables' units, descriptions and dependencies (runtime/fmi/fmu.h), written by lagrangec fmu. */\n"
    << "#include <lagrangec/model.h>\n\n"
    << "extern const lgc_model " << spec.name << "_model;\n"
    << "const lgc_model *const lgc_fmu_model = &" << spec.name << "_model;\n"
    << "const char lgc_fmu_guid[] = \"" << token << "\";\n"
    << "const int lgc_fmu_kinds = " << kinds << ";\n\n";
  std::vector<std::string> items;
  for (size_t k : a.numbering.count) items.push_back(std::to_string(k));
  c << "/* Variables of each kind, in fmu.h's order. */\n"
    << "const int lgc_fmu_annotated_counts[] = {" << number_list(items) << "};\n\n";
  c << "/* UnitDefinitions: {has a BaseUnit, factor, kg, m, s, A, K, mol, cd, rad}. */\n"
    << "const int lgc_fmu_unit_count = " << a.unit_names.size() << ";\n"
    << "const char *const lgc_fmu_unit_names[] = {";
  for (const std::string &u : a.unit_names) c << string_literal(u) << ", ";
  c << "0};\nconst double lgc_fmu_unit_bases[][10] = {\n";
  for (const std::string &u : a.unit_names) {
    std::string problem;
    std::optional<UnitInfo> info = read_unit(u, problem);
    if (!info) unreachable("a unit of the spec that read_unit refuses");
    char factor[32];
    std::snprintf(factor, sizeof factor, "%.17g", info->factor);
    c << "    {" << (info->has_base ? 1 : 0) << ", " << factor;
    for (int e : info->exponents) c << ", " << e;
    c << "},  /* " << u << " */\n";
  }
  c << "    {0}};\n\n";
  const size_t n = a.numbering.total();
  items.clear();
  for (int u : a.unit) items.push_back(std::to_string(u));
  items.push_back("-1");
  c << "/* Per variable, by value reference: its unit (-1: none), its description (0: the default). */\n"
    << "const int lgc_fmu_units[] = {\n    " << number_list(items) << "};\n"
    << "const char *const lgc_fmu_descriptions[] = {\n";
  for (size_t vr = 0; vr < n; ++vr)
    c << "    " << (a.description[vr] ? string_literal(*a.description[vr]) : std::string("0")) << ",\n";
  c << "    0};\n\n";
  std::vector<std::string> starts, on, constant;
  for (size_t vr = 0; vr < n; ++vr) {
    starts.push_back(std::to_string(on.size()));
    if (!a.dependencies[vr]) continue;
    std::vector<std::pair<size_t, bool>> known;
    for (const Known &k : a.dependencies[vr]->on)
      known.emplace_back(a.numbering.of(k), a.dependencies[vr]->constant.count(k) > 0);
    std::sort(known.begin(), known.end());
    for (auto &[ref, is_constant] : known) {
      on.push_back(std::to_string(ref));
      constant.push_back(is_constant ? "1" : "0");
    }
  }
  starts.push_back(std::to_string(on.size()));
  on.push_back("0");
  constant.push_back("0");
  c << "/* Dependencies of the derivatives and outputs: value references from start[vr] to start[vr + 1]. */\n"
    << "const int lgc_fmu_dependency_start[] = {\n    " << number_list(starts) << "};\n"
    << "const unsigned lgc_fmu_dependency_on[] = {\n    " << number_list(on) << "};\n"
    << "const unsigned char lgc_fmu_dependency_constant[] = {\n    " << number_list(constant) << "};\n";
  return c.str();
}

// The files of `dir` whose names end in one of `suffixes`, less kNotShipped, sorted.
std::vector<fs::path> files_in(const std::string &dir, std::initializer_list<const char *> suffixes) {
  std::vector<fs::path> found;
  for (const auto &entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    bool wanted = std::any_of(suffixes.begin(), suffixes.end(), [&](const char *s) {
      return name.size() > std::strlen(s) && name.compare(name.size() - std::strlen(s), std::strlen(s), s) == 0;
    });
    if (entry.is_regular_file() && wanted &&
        std::find(kNotShipped.begin(), kNotShipped.end(), name) == kNotShipped.end())
      found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// sources/: the generated C and the binding at its top, the runtime's
// src/ and fmi/ in runtime/, its public headers in lagrangec/ (built with
// -I sources, docs/commands.md says how).
std::vector<ZipEntry> source_entries(const Spec &spec, const GeneratedFiles &files, const std::string &binding,
                                     const Toolchain &t, std::vector<std::string> &compiled) {
  std::vector<ZipEntry> entries = {{"sources/" + spec.name + ".h", files.header},
                                   {"sources/" + spec.name + ".c", files.source},
                                   {"sources/" + spec.name + "_model.c", files.descriptor},
                                   {"sources/fmu_binding.c", binding}};
  compiled = {spec.name + ".c", spec.name + "_model.c", "fmu_binding.c"};
  for (const char *dir : {"/src", "/fmi"})
    for (const fs::path &p : files_in(t.runtime_sources + dir, {".c", ".h"})) {
      const std::string name = "runtime/" + p.filename().string();
      entries.push_back({"sources/" + name, read_file(p)});
      if (p.extension() == ".c") compiled.push_back(name);
    }
  for (const fs::path &p : files_in(t.runtime_include + "/lagrangec", {".h"}))
    entries.push_back({"sources/lagrangec/" + p.filename().string(), read_file(p)});
  return entries;
}

// Model Exchange hands the integration to the importer, whose solver knows
// nothing of friction's modes (runtime/src/friction.c switches them inside
// the driver): a model with friction is exported for Co-Simulation only.
int kinds_for(const Spec &spec, int kinds) {
  if (spec.friction.empty() || !(kinds & kModelExchange)) return kinds;
  const std::string why = "friction '" + spec.friction[0].name +
                          "' switches between sticking and sliding inside the runtime's steps, which Model "
                          "Exchange leaves to the importer's integrator";
  if (kinds == kModelExchange) error_at(spec.friction[0].loc, why + ": export it with --kind cs");
  warn_at(spec.friction[0].loc, why + ": the FMU is Co-Simulation only");
  return kCoSimulation;
}

}  // namespace

void export_fmu(const std::string &spec_path, const FmuOptions &requested, const std::string &output) {
  Spec spec = read_spec(spec_path);
  FmuOptions options = requested;
  options.kinds = kinds_for(spec, requested.kinds);
  std::optional<Annotations> annotations;
  GeneratedFiles files = generate(spec, options.formulation, options.with_jacobian, Precision::double_precision,
                                  options.strict, options.time_limit,
                                  [&](const Model &model) { annotations.emplace(spec, model); });
  Toolchain toolchain = find_toolchain();
  const std::string token = guid(spec, files, options),
                    binding = binding_source(spec, token, options.kinds, *annotations);
  std::vector<std::string> compiled;
  std::vector<ZipEntry> sources = source_entries(spec, files, binding, toolchain, compiled);

  ScratchDir scratch;
  const OpenDir dir = scratch.view();
  write_generated(spec, files, dir.via_fd);
  write_file_atomically(dir.via_fd + "/fmu_binding.c", binding);
  compile_fmu_library(toolchain, spec.name, files.source.size(), kFmiSources, dir);
  std::vector<std::string> describe_args = {"lagrangec " LGC_VERSION};
  describe_args.insert(describe_args.end(), compiled.begin(), compiled.end());
  describe_fmu(toolchain, spec.name, describe_args, dir);

  std::vector<ZipEntry> entries = {
      {"modelDescription.xml", read_file(dir.via_fd + "/modelDescription.xml")},
      {"binaries/linux64/" + spec.name + ".so", read_file(dir.via_fd + "/" + spec.name + ".so"), true}};
  entries.insert(entries.end(), sources.begin(), sources.end());
  write_file_atomically(output, zip_archive(entries));
}

}  // namespace lgc
