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

// fmu_binding.c: what runtime/fmi/fmu.h asks of the model's FMU. The spec's
// name is a C identifier (the generator names every function after it).
std::string binding_source(const Spec &spec, const std::string &token, int kinds) {
  return "/* fmu_binding.c — " + spec.name + "'s FMU: its model, instantiation token and FMI kinds\n"
         "   (runtime/fmi/fmu.h), written by lagrangec fmu. */\n"
         "#include <lagrangec/model.h>\n\n"
         "extern const lgc_model " + spec.name + "_model;\n"
         "const lgc_model *const lgc_fmu_model = &" + spec.name + "_model;\n"
         "const char lgc_fmu_guid[] = \"" + token + "\";\n"
         "const int lgc_fmu_kinds = " + std::to_string(kinds) + ";\n";
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
  GeneratedFiles files = generate(spec, options.formulation, options.with_jacobian, Precision::double_precision,
                                  options.strict, options.time_limit);
  Toolchain toolchain = find_toolchain();
  const std::string token = guid(spec, files, options), binding = binding_source(spec, token, options.kinds);
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
