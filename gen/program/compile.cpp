// compile.cpp — a model's program from its generated sources: the C
// compiler's command ($CC as words, never given to a shell), the runtime it
// links, and a check that what the compiler made runs.
#include "program/compile.h"
#include "lagrangec_config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <fcntl.h>
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
// directory and returns its wait status; `quiet` sends its output to
// /dev/null. `what` names it in messages; a process that cannot be made is
// reported as that, not as a failure of the command.
int run_in(const OpenDir &dir, const std::vector<std::string> &argv, bool quiet, const std::string &what) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addfchdir_np(&actions, dir.fd);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  std::vector<char *> args;
  for (auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int err = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err == EAGAIN || err == ENOMEM)
    throw std::runtime_error("cannot start a process to run " + what + ": " + std::strerror(err));
  if (err != 0) throw std::runtime_error("cannot run " + what + ": " + std::strerror(err));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("cannot wait for " + what + ": " + std::strerror(errno));
  return status;
}

std::string describe(int status) {
  return WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                             : "exit status " + std::to_string(WEXITSTATUS(status));
}

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
  t.link_args = compiler_words(LGC_RUNTIME_LINK_ARGS);
  return t;
}

void compile_program(const Toolchain &t, const std::string &name, size_t source_size, const OpenDir &dir) {
  std::vector<std::string> cmd = t.compiler;
  cmd.insert(cmd.end(), {"-std=c11", source_size < kLargeSource ? "-O2" : "-O1", "-I" + t.runtime_include,
                         name + ".c", name + "_model.c", "main.c", t.runtime_library, "-o", name});
  cmd.insert(cmd.end(), t.link_args.begin(), t.link_args.end());
  int status = run_in(dir, cmd, false, "the C compiler (" + t.compiler[0] + ")");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("compiling the model's program failed (" + describe(status) + "): " + joined(cmd) +
                             " (in " + dir.path + ")");
  // A compiler that exits 0 may still have written junk: the program must
  // start and end on its own (usage, exit 2) before the cache records it.
  std::string made = "the program that " + joined(t.compiler) + " made in " + dir.path;
  status = run_in(dir, {"./" + name}, true, made);
  if (WIFSIGNALED(status) || WEXITSTATUS(status) == 126 || WEXITSTATUS(status) == 127)
    throw std::runtime_error(made + " does not run (" + describe(status) + ")");
}

}  // namespace lgc
