// process.cpp — running real programs and reading real files, for the tests.
#include "process.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

std::string slurp(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
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

Result run(const std::vector<std::string> &argv, const std::vector<std::string> &env) {
  fs::path dir = scratch("run");
  fs::path out = dir / "out", err = dir / "err";
  pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(126);
    for (auto &e : env) putenv(const_cast<char *>(e.c_str()));
    std::vector<char *> args;
    for (auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  Result r{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(out), slurp(err)};
  fs::remove_all(dir);
  return r;
}
