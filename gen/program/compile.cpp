// compile.cpp — a model's program from its generated sources: the C
// compiler's command ($CC as words, never given to a shell), the runtime it
// links, and a check that what the compiler made runs.
#include "program/compile.h"
#include "program/limits.h"
#include "lagrangec_config.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <fcntl.h>
#include <iostream>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace lgc {

namespace {

// Generated sources from this size on are compiled with -O1: gcc -O2 on
// megabytes of straight-line code takes minutes and gigabytes (a 40-link
// chain in angles: over 7 min and 13 GB).
constexpr size_t kLargeSource = 1 << 20;

std::string self_path() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  buf[n] = 0;
  return buf;
}

// $CC split into words as a POSIX shell splits them: at unquoted blanks,
// with '...', "..." (where \ keeps only \ " $ ` and newline) and \ outside
// quotes; nothing is expanded, so "gcc -O0" and "'/opt/my cc' -m32" work and
// no text of $CC is ever run as shell code.
std::vector<std::string> compiler_words(const std::string &cc) {
  auto bad = [&](size_t at, const std::string &what) {  // $CC:COLUMN, the value, a caret under the column
    throw std::runtime_error("$CC:" + std::to_string(at + 1) + ": " + what + "\n    " + cc + "\n    " +
                             std::string(at, ' ') + "^");
  };
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < cc.size(); ++i) {
    char c = cc[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word), word.clear(), in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (++i == cc.size()) bad(i - 1, "a backslash ends the command");
      if (cc[i] != '\n') word += cc[i];
    } else if (c == '\'') {
      size_t end = cc.find('\'', i + 1);
      if (end == std::string::npos) bad(i, "an unclosed '");
      word += cc.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      size_t open = i;
      for (++i; i < cc.size() && cc[i] != '"'; ++i) {
        bool escape = cc[i] == '\\' && i + 1 < cc.size() && std::strchr("\\\"$`\n", cc[i + 1]);
        if (escape) ++i;
        if (!escape || cc[i] != '\n') word += cc[i];  // backslash-newline continues the line
      }
      if (i == cc.size()) bad(open, "an unclosed \"");
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

std::string joined(const std::vector<std::string> &words) {
  std::string s;
  for (auto &w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

// Runs argv (a bare argv[0] looked up in PATH) with `dir` as its working
// directory and the environment `env`, and returns its wait status; its
// stderr goes to the file `errors` in dir (when not empty), its stdout to
// the file `output` in dir (when not empty), and `quiet` sends all its
// output to /dev/null. `what` names it in messages; a process
// that cannot be made is reported as that, not as a failure of the command.
int run_in(const OpenDir &dir, const std::vector<std::string> &argv, char *const env[], bool quiet,
           const std::string &what, const std::string &errors = "", const std::string &output = "") {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addfchdir_np(&actions, dir.fd);
  if (!output.empty()) posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  } else if (!errors.empty()) {
    posix_spawn_file_actions_addopen(&actions, 2, errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  }
  std::vector<char *> args;
  for (auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int err;
  {
    UserLimits user;  // the generator's memory ceiling is lagrangec's own, not the compiler's or the program's
    err = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env);
  }
  posix_spawn_file_actions_destroy(&actions);
  if (err == EAGAIN || err == ENOMEM)
    throw std::runtime_error("cannot start a process to run " + what + ": " + std::strerror(err));
  if (err != 0) throw std::runtime_error("cannot run " + what + ": " + std::strerror(err));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("cannot wait for " + what + ": " + std::strerror(errno));
  return status;
}

// This environment without an MPI launcher's variables (Open MPI's
// OMPI_*, PMIx's, PMI's, Slurm's...): a program started with them would
// take itself for a rank of the job and wait in MPI_Init for ranks that
// are waiting, on the cache's lock, for it.
std::vector<std::string> without_launcher() {
  static const char *const prefixes[] = {"OMPI_", "OPAL_", "PMIX_", "PMI_", "PRTE_", "HYDRA_", "HYDI_",
                                         "MPIR_", "MPICH_", "I_MPI_", "SLURM_"};
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    if (std::none_of(std::begin(prefixes), std::end(prefixes),
                     [&](const char *p) { return std::strncmp(*e, p, std::strlen(p)) == 0; }))
      env.push_back(*e);
  return env;
}

std::string describe(int status) {
  return WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                             : "exit status " + std::to_string(WEXITSTATUS(status));
}

// What the compiler wrote to stderr (the file `name` in dir), the file then removed.
std::string take_errors(const OpenDir &dir, const std::string &name) {
  int fd = ::openat(dir.fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  std::string text;
  char buf[4096];
  for (ssize_t n; fd >= 0 && (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buf, size_t(n));
  }
  if (fd >= 0) ::close(fd);
  ::unlinkat(dir.fd, name.c_str(), 0);
  return text;
}

// Did a limit stop the compiler: a signal that limits send (SIGKILL from
// the kernel's out-of-memory killer, SIGXCPU, SIGXFSZ), or its own word
// that memory ran out (gcc, clang, and gcc's driver about a killed cc1)?
bool stopped_by_a_limit(int status, const std::string &errors) {
  if (WIFSIGNALED(status))
    return WTERMSIG(status) == SIGKILL || WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGXFSZ;
  for (const char *words : {"out of memory", "memory exhausted", "Cannot allocate memory", "Killed signal",
                            "std::bad_alloc", "LLVM ERROR: out of memory"})
    if (errors.find(words) != std::string::npos) return true;
  return false;
}

std::string megabytes(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", double(bytes) / 1e6);
  return buf;
}

// Runs the compiler's words and `args` in dir to make `made` ("the model's
// program"); throws, naming it, when it fails.
void run_compiler(const Toolchain &t, const std::vector<std::string> &args, const std::string &made,
                  const std::string &name, size_t source_size, const OpenDir &dir) {
  std::vector<std::string> cmd = t.compiler;
  cmd.insert(cmd.end(), args.begin(), args.end());
  const std::string log = "compiler-errors";
  int status = run_in(dir, cmd, environ, false, "the C compiler (" + t.compiler[0] + ")", log);
  std::string errors = take_errors(dir, log);
  std::cerr << errors;
  if ((!WIFEXITED(status) || WEXITSTATUS(status) != 0) && stopped_by_a_limit(status, errors))
    throw std::runtime_error(
        "the C compiler (" + t.compiler[0] + ") was stopped by a limit (" + describe(status) +
        (WIFSIGNALED(status) ? "" : ", out of memory") + ") compiling " + name + ".c, " + megabytes(source_size) +
        " of generated C: the limits are yours (ulimit -v, -t; a container's), lagrangec lowers none of them for "
        "the compiler; a smaller program: a method without the Jacobian (rk4, dopri5: bdf and adams need it; "
        "generate --no-jacobian), or the O(N) form of a long chain ([bodies] on [frames], by Newton-Euler) (in " +
        dir.path + ")");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("compiling " + made + " failed (" + describe(status) + "): " + joined(cmd) +
                             " (in " + dir.path + ")");
}

const char *optimisation(size_t source_size) { return source_size < kLargeSource ? "-O2" : "-O1"; }

}  // namespace

// The runtime this lagrangec was built with: in the build tree when run from
// it, else where `meson install` put it.
Toolchain find_toolchain() {
  Toolchain t;
  const char *cc = std::getenv("CC");
  t.compiler = compiler_words(cc ? cc : "");
  if (t.compiler.empty()) t.compiler = {"cc"};
  std::string build = LGC_BUILD_ROOT;
  bool in_build_tree = self_path().compare(0, build.size() + 1, build + "/") == 0;
  t.runtime_include = in_build_tree ? LGC_SOURCE_RUNTIME_INCLUDE : LGC_INSTALLED_INCLUDE;
  t.runtime_library = in_build_tree ? LGC_BUILD_RUNTIME_LIBRARY : LGC_INSTALLED_LIBRARY;
  t.runtime_sources = in_build_tree ? LGC_SOURCE_RUNTIME_SOURCES : LGC_INSTALLED_RUNTIME_SOURCES;
  t.link_args = compiler_words(LGC_RUNTIME_LINK_ARGS);
  return t;
}

void compile_program(const Toolchain &t, const std::string &name, size_t source_size, const OpenDir &dir) {
  std::vector<std::string> args = {"-std=c11", optimisation(source_size), "-I" + t.runtime_include,
                                   name + ".c", name + "_model.c", "main.c", t.runtime_library, "-o", name};
  args.insert(args.end(), t.link_args.begin(), t.link_args.end());
  run_compiler(t, args, "the model's program", name, source_size, dir);
  // A compiler that exits 0 may still have written junk: the program must
  // start and end on its own (usage, exit 2) before the cache records it,
  // never as a rank of the job that started lagrangec.
  std::string made = "the program that " + joined(t.compiler) + " made in " + dir.path;
  std::vector<std::string> env = without_launcher();
  std::vector<char *> envp;
  for (auto &e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  int status = run_in(dir, {"./" + name}, envp.data(), true, made);
  if (WIFSIGNALED(status) || WEXITSTATUS(status) == 126 || WEXITSTATUS(status) == 127)
    throw std::runtime_error(made + " does not run (" + describe(status) + ")");
}

void compile_fmu_library(const Toolchain &t, const std::string &name, size_t source_size,
                         const std::vector<std::string> &fmi_sources, const OpenDir &dir) {
  std::vector<std::string> args = {"-std=c11", optimisation(source_size), "-fPIC", "-shared",
                                   "-I" + t.runtime_include, "-I" + t.runtime_sources + "/fmi",
                                   "-I" + t.runtime_sources + "/src", name + ".c", name + "_model.c",
                                   "fmu_binding.c"};
  for (auto &s : fmi_sources) args.push_back(t.runtime_sources + "/fmi/" + s);
  // The runtime's symbols stay inside the library: an importer with a
  // runtime of its own, or two FMUs of this tool, do not collide.
  args.insert(args.end(), {t.runtime_library, "-Wl,--exclude-libs,ALL", "-Wl,-z,defs", "-o", name + ".so"});
  args.insert(args.end(), t.link_args.begin(), t.link_args.end());
  run_compiler(t, args, "the FMU's library " + name + ".so", name, source_size, dir);
}

void describe_fmu(const Toolchain &t, const std::string &name, const std::vector<std::string> &describe_args,
                  const OpenDir &dir) {
  // The library's own link arguments: a sanitized runtime's library needs a sanitized program.
  std::vector<std::string> args = {"-std=c11", "-I" + t.runtime_include, "-I" + t.runtime_sources + "/fmi",
                                   t.runtime_sources + "/fmi/describe_main.c", "./" + name + ".so", "-o", "describe"};
  args.insert(args.end(), t.link_args.begin(), t.link_args.end());
  run_compiler(t, args, "the program that describes " + name + ".so", name, 0, dir);
  std::vector<std::string> argv = {"./describe"};
  argv.insert(argv.end(), describe_args.begin(), describe_args.end());
  const std::string log = "describe-errors";
  int status = run_in(dir, argv, environ, false, "the FMU's describe program", log, "modelDescription.xml");
  std::string errors = take_errors(dir, log);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("writing modelDescription.xml from " + name + ".so failed (" + describe(status) +
                             "): " + errors + " (in " + dir.path + ")");
}

}  // namespace lgc
