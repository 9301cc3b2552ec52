// process.cpp — running real programs and reading real files, for the tests.
#include "process.hpp"

#include <algorithm>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

namespace fs = std::filesystem;

std::string slurp(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> files_in(const fs::path &dir, const std::string &extension) {
  std::vector<fs::path> files;
  for (auto &e : fs::directory_iterator(dir))
    if (e.path().extension() == extension) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

fs::path scratch(const std::string &tag) {
  std::string tmpl = (fs::temp_directory_path() / ("lagrangec-test-" + tag + "-XXXXXX")).string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

static fs::path the_group_dir;

int group_dir_setup(void **) {
  the_group_dir = scratch("group");
  return 0;
}

int group_dir_teardown(void **) {
  fs::remove_all(the_group_dir);
  return 0;
}

const fs::path &group_dir() { return the_group_dir; }

// The child's side of start(): output captured, environment set, then (once
// `gate` reads end of file, if given) the program.
[[noreturn]] static void exec_child(const std::vector<std::string> &argv, const std::vector<std::string> &env,
                                    const fs::path &dir, int gate) {
  if (!freopen((dir / "out").c_str(), "w", stdout) || !freopen((dir / "err").c_str(), "w", stderr)) _exit(126);
  for (auto &e : env) putenv(const_cast<char *>(e.c_str()));
  if (gate >= 0) {
    char c;
    while (read(gate, &c, 1) > 0) {
    }
    close(gate);
  }
  std::vector<char *> args;
  for (auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  _exit(127);
}

static Started start_at_gate(const std::vector<std::string> &argv, const std::vector<std::string> &env,
                             bool own_group, int gate) {
  fs::path dir = scratch("run");
  pid_t pid = fork();
  if (pid == 0) {
    if (own_group) setpgid(0, 0);
    exec_child(argv, env, dir, gate);
  }
  if (own_group) setpgid(pid, pid);  // also here, so that it holds before start() returns
  return {pid, dir};
}

Started start(const std::vector<std::string> &argv, const std::vector<std::string> &env, bool own_group) {
  return start_at_gate(argv, env, own_group, -1);
}

Result finish(const Started &s) {
  int status = 0;
  waitpid(s.pid, &status, 0);
  Result r{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(s.dir / "out"),
           slurp(s.dir / "err")};
  fs::remove_all(s.dir);
  return r;
}

Result run(const std::vector<std::string> &argv, const std::vector<std::string> &env) {
  return finish(start(argv, env));
}

std::vector<Result> run_together(const std::vector<std::vector<std::string>> &argvs,
                                 const std::vector<std::string> &env) {
  int gate[2];
  if (pipe(gate) != 0) throw std::runtime_error("pipe failed");
  std::vector<Started> started;
  for (auto &argv : argvs) {
    fs::path dir = scratch("run");
    pid_t pid = fork();
    if (pid == 0) {
      close(gate[1]);
      exec_child(argv, env, dir, gate[0]);
    }
    started.push_back({pid, dir});
  }
  close(gate[0]);
  close(gate[1]);  // opens the gate: every child reads end of file
  std::vector<Result> results;
  for (auto &s : started) results.push_back(finish(s));
  return results;
}

Flocks flocks_of(pid_t pid) {
  // "1: FLOCK  ADVISORY  WRITE 1234 08:01:56 0 EOF", a waiter's with "->" after "1:".
  std::ifstream in("/proc/locks");
  Flocks f;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string number, kind, mode, access;
    long owner = 0;
    words >> number >> kind;
    bool waiting = kind == "->";
    if (waiting) words >> kind;
    words >> mode >> access >> owner;
    if (kind == "FLOCK" && owner == pid) ++(waiting ? f.waiting : f.held);
  }
  return f;
}

#if defined(__x86_64__)
pid_t stop_after_syscall(const std::vector<std::string> &argv, long nr, int nth) {
  pid_t pid = fork();
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    std::vector<char *> args;
    for (auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);  // the stop at exec
  ptrace(PTRACE_SETOPTIONS, pid, nullptr, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
  int pass_on = 0;  // a signal the tracee received, handed back to it
  for (int seen = 0; seen < 2 * nth;) {  // each syscall stops at entry and at exit
    ptrace(PTRACE_SYSCALL, pid, nullptr, pass_on);
    waitpid(pid, &status, 0);
    if (!WIFSTOPPED(status)) fail_msg("%s ended (wait status %#x) before call %d of syscall %ld", argv[0].c_str(), status, nth, nr);
    pass_on = WSTOPSIG(status) == (SIGTRAP | 0x80) ? 0 : WSTOPSIG(status);
    user_regs_struct regs;
    if (!pass_on && ptrace(PTRACE_GETREGS, pid, nullptr, &regs) == 0 && long(regs.orig_rax) == nr) ++seen;
  }
  return pid;
}

void resume(pid_t pid, int sig) {
  if (sig) kill(pid, sig);  // pending until it runs again, untraced
  ptrace(PTRACE_DETACH, pid, nullptr, 0);
}
#endif
