// simulate.cpp — `lagrangec simulate`, `linearize`, `eval` and `sweep`: the model's
// program, from the user's cache (cache.cpp) or built into it (compile.cpp),
// run with the command and the user's options.
#include "commands.h"
#include "generate.h"
#include "program/cache.h"
#include "program/compile.h"
#include "program/sha256.h"
#include "program/limits.h"
#include "program/simulate.h"
#include "lagrangec_config.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <iostream>
#include <sstream>
#include <unistd.h>

extern char **environ;

namespace lgc {

namespace {

// The build id the linker computed from this lagrangec's contents (it is
// linked with --build-id): its identity in the cache key, read from memory
// instead of hashing megabytes of executable on every run.
std::string generator_build_id() {
  std::string id;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *out) {
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE) continue;
          size_t align = ph.p_align == 8 ? 8 : 4;
          auto pad = [align](size_t n) { return (n + align - 1) / align * align; };
          auto *p = reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr), *end = p + ph.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            auto *note = reinterpret_cast<const ElfW(Nhdr) *>(p);
            const char *name = p + sizeof *note, *desc = name + pad(note->n_namesz);
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
              static_cast<std::string *>(out)->assign(desc, note->n_descsz);
              return 1;
            }
            p = desc + pad(note->n_descsz);
          }
        }
        return 1;  // only the first object, the program itself
      },
      &id);
  if (id.empty()) throw std::runtime_error("this lagrangec was linked without a build id (-Wl,--build-id)");
  return id;
}

std::string file_hash(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  std::string hash = sha256_hex_of_fd(fd, path);
  ::close(fd);
  return hash;
}

// Everything the program depends on: the spec's bytes (and its URDF's), the variant, the
// generator, the runtime library's bytes, and every word of the compiler's
// command. Words are NUL-terminated so that no two lists hash alike.
std::string cache_key(const Spec &spec, const std::string &variant, const Toolchain &t) {
  Sha256 key;
  auto word = [&key](const std::string &w) { key.update(w.c_str(), w.size() + 1); };
  for (const std::string &w : {spec.source, spec.urdf_source, variant, std::string(LGC_VERSION), generator_build_id(),
                               file_hash(t.runtime_library), t.runtime_include})
    word(w);
  for (const auto *words : {&t.compiler, &t.link_args}) {
    for (const std::string &w : *words) word(w);
    word("");
  }
  return key.hex().substr(0, 32);
}

// `entry`: lgc_main, or lgc_main_mpi for a program whose sweep shares its
// runs with MPI ranks. lgc_program_compiled names what was compiled, by
// the SHA-256 of each generated file: a sweep's sweep.txt holds it, so a
// sweep resumed after any change of the model (an edited restitution, an
// event, an output) is refused instead of mixing two models' runs.
std::string main_source(const Spec &spec, const GeneratedFiles &files, const std::string &entry) {
  std::string compiled;
  for (const auto &[name, text] : {std::pair<std::string, const std::string *>{spec.name + ".h", &files.header},
                                   {spec.name + ".c", &files.source},
                                   {spec.name + "_model.c", &files.descriptor}})
    compiled += "    \"" + name + " " + sha256_hex(*text) + "\",\n";
  return "/* main.c — the program of " + spec.name + ", written by lagrangec simulate. */\n"
         "#include \"" + spec.name + ".h\"\n\n#include <lagrangec/model.h>\n#include <lagrangec/program.h>\n\n"
         "const char *const lgc_program_compiled[] = {\n" + compiled + "    0};\n\n"
         "int main(int argc, char **argv) { return " + entry + "(&" + spec.name + "_model, argc, argv); }\n";
}

// A sweep's program when lagrangec has MPI: the MPI archive, installed and
// built beside the other, and MPI's library; a cache entry of its own.
void use_mpi(Toolchain &t) {
  t.runtime_library = t.runtime_library.substr(0, t.runtime_library.rfind('/') + 1) + "liblagrangec-program-mpi.a";
  std::istringstream words(LGC_MPI_LINK_ARGS);  // meson's words: no quotes, no blanks inside
  for (std::string w; words >> w;) t.link_args.push_back(w);
}

// A line on a terminal, rewritten in place, while the cache is filled (a
// large model takes tens of seconds to generate and compile); cleared when
// done, or before an error is said. Nothing when stderr is not a terminal.
class Progress {
 public:
  explicit Progress(bool on) : on_(on) {}
  ~Progress() { say(""); }
  void say(const std::string &text) {
    if (on_) std::cerr << "\r\033[K" << (text.empty() ? "" : "lagrangec: " + text) << std::flush;
  }

 private:
  bool on_;
};

// --quiet among a command's options.
bool quiet(const std::vector<std::string> &options) {
  return std::find(options.begin(), options.end(), "--quiet") != options.end();
}

}  // namespace

int run_model(const std::string &command, const std::string &spec_path, Formulation formulation,
              const std::vector<std::string> &options) {
  Spec spec = read_spec(spec_path);
  Toolchain toolchain = find_toolchain();
  bool with_mpi = LGC_WITH_MPI && command == "sweep";
  if (with_mpi) use_mpi(toolchain);
  std::string variant = std::string(formulation == Formulation::vakonomic ? "-vakonomic" : "") +
                        (with_mpi ? "-mpi" : "");
  // One program per model and formulation serves every command: it has
  // every entry point, the Jacobian too (linearize's, bdf's and adams'), so
  // whichever command comes first builds it and the others reuse it.
  int program = cached_program(spec.name + variant + "-" + cache_key(spec, variant, toolchain), spec.name,
                               [&](const OpenDir &dir) {
                                 Progress progress(::isatty(STDERR_FILENO) && !quiet(options));
                                 progress.say("generating " + spec.name + "'s C (once: the program is cached)...");
                                 GeneratedFiles files = generate(spec, formulation, true);
                                 write_generated(spec, files, dir.via_fd);
                                 write_file_atomically(dir.via_fd + "/main.c",
                                                       main_source(spec, files, with_mpi ? "lgc_main_mpi" : "lgc_main"));
                                 progress.say("compiling " + spec.name + " (" +
                                              std::to_string(files.source.size() / 1024 + 1) + " KiB of C)...");
                                 compile_program(toolchain, spec.name, files.source.size(), dir);
                               });
  std::vector<std::string> argv = {"lagrangec " + command + " " + spec_path, command};  // [0]: for its usage text
  argv.insert(argv.end(), options.begin(), options.end());
  std::fflush(nullptr);
  std::vector<char *> args;
  for (auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  // The descriptor that was hashed is the one run: no path is looked up
  // again between the check and the exec, and the file it holds is one that
  // only the user (or root) can write. (A sealed copy in a memfd would close
  // even that window, at a copy per run and a program known as /memfd:.)
  restore_user_limits();  // the program's memory is the user's, not the generator's ceiling
  ::fexecve(program, args.data(), environ);
  throw std::runtime_error("cannot run the model's program: " + std::string(std::strerror(errno)));
}

}  // namespace lgc
