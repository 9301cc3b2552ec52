// simulate.cpp — `lagrangec simulate` and `lagrangec linearize`: generate the
// model into a cache directory keyed by the spec and the generator, compile
// it against the runtime once, and run it with the command and the user's
// options.
#include "lagrangec.h"
#include "lagrangec_config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace lgc {

namespace {

// Generated sources from this size on are compiled with -O1 (see build_program).
constexpr size_t kLargeSource = 1 << 20;

std::string read_all(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string hex_hash(const std::string &data) {
  uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a
  for (unsigned char c : data) h = (h ^ c) * 0x100000001B3ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
  return buf;
}

std::string self_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  buf[n] = 0;
  return buf;
}

// The runtime this lagrangec was built with: in the build tree when run from
// it, else where `meson install` put it.
struct Runtime {
  std::string include_dir, library;
};

Runtime find_runtime() {
  std::string self = self_path();
  std::string build = LGC_BUILD_ROOT;
  if (self.compare(0, build.size() + 1, build + "/") == 0) return {LGC_SOURCE_RUNTIME_INCLUDE, LGC_BUILD_RUNTIME_LIBRARY};
  return {LGC_INSTALLED_INCLUDE, LGC_INSTALLED_LIBRARY};
}

std::string cache_root() {
  if (const char *d = std::getenv("LAGRANGEC_CACHE")) return d;
  if (const char *d = std::getenv("XDG_CACHE_HOME")) return std::string(d) + "/lagrangec";
  if (const char *h = std::getenv("HOME")) return std::string(h) + "/.cache/lagrangec";
  return "/tmp/lagrangec-cache";
}

void make_dirs(const std::string &path) {
  for (size_t i = 1; i <= path.size(); ++i)
    if (i == path.size() || path[i] == '/') {
      std::string p = path.substr(0, i);
      if (::mkdir(p.c_str(), 0755) != 0 && errno != EEXIST)
        throw std::runtime_error("cannot create " + p + ": " + std::strerror(errno));
    }
}

int run(const std::vector<std::string> &argv) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char *> args;
    for (auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "lagrangec: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::vector<std::string> split(const std::string &s) {
  std::istringstream in(s);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// Builds the model's program for `spec` in `dir` unless it is there already.
std::string build_program(const Spec &spec, Formulation formulation, bool with_jacobian, const Runtime &rt,
                          const std::string &dir) {
  std::string exe = dir + "/" + spec.name;
  if (::access(exe.c_str(), X_OK) == 0) return exe;
  make_dirs(dir);
  GeneratedFiles files = generate(spec, formulation, with_jacobian);
  write_generated(spec, files, dir);
  write_file_atomically(dir + "/main.c",
                        "/* main.c — the program of " + spec.name + ", written by lagrangec simulate. */\n"
                        "#include \"" + spec.name + ".h\"\n\n#include <lagrangec/model.h>\n#include <lagrangec/program.h>\n\n"
                        "int main(int argc, char **argv) { return lgc_main(&" + spec.name +
                        "_model, argc, argv); }\n");
  const char *cc = std::getenv("CC");
  std::string tmp = exe + ".partial";
  // gcc -O2 on megabytes of straight-line code takes minutes and gigabytes
  // (a 40-link chain in angles: over 7 min and 13 GB); -O1 keeps that bounded.
  const char *optimise = files.source.size() < kLargeSource ? "-O2" : "-O1";
  std::vector<std::string> cmd = {cc && *cc ? cc : "cc", "-std=c11", optimise, "-I" + dir, "-I" + rt.include_dir,
                                  dir + "/" + spec.name + ".c", dir + "/" + spec.name + "_model.c", dir + "/main.c",
                                  rt.library, "-o", tmp};
  for (auto &a : split(LGC_RUNTIME_LINK_ARGS)) cmd.push_back(a);
  if (run(cmd) != 0) throw std::runtime_error("compiling the model's program in " + dir + " failed (the command is above)");
  if (std::rename(tmp.c_str(), exe.c_str()) != 0)
    throw std::runtime_error("cannot create " + exe + ": " + std::strerror(errno));
  return exe;
}

}  // namespace

int run_model(const std::string &command, const std::string &spec_path, Formulation formulation,
              const std::vector<std::string> &options) {
  Spec spec = read_spec(spec_path);
  Runtime rt = find_runtime();
  // simulate needs no Jacobians, and they can cost more than the rest.
  bool with_jacobian = command == "linearize";
  std::string variant = std::string(formulation == Formulation::vakonomic ? "-vakonomic" : "") +
                        (with_jacobian ? "-jacobian" : "");
  std::string key = hex_hash(spec.source + '\0' + variant + '\0' + LGC_VERSION + '\0' + read_all(self_path()) +
                             '\0' + read_all(rt.library));
  std::string exe =
      build_program(spec, formulation, with_jacobian, rt, cache_root() + "/" + spec.name + variant + "-" + key);
  std::vector<std::string> argv = {"lagrangec " + command + " " + spec_path, command};  // [0]: for its usage text
  argv.insert(argv.end(), options.begin(), options.end());
  std::fflush(nullptr);
  std::vector<char *> args;
  for (auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  execv(exe.c_str(), args.data());
  throw std::runtime_error("cannot run " + exe + ": " + std::strerror(errno));
}

}  // namespace lgc
