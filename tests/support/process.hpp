// process.hpp — running real programs and reading real files, for the tests.
#pragma once

#include <filesystem>
#include <string>
#include <sys/types.h>
#include <vector>

struct Result {
  int status;            // exit status, or 128 + signal
  std::string out, err;  // what it wrote to stdout and stderr
};

// Runs argv (searched in PATH) with stdout and stderr captured; `env` adds
// NAME=VALUE entries to the environment, and a bare NAME removes one.
Result run(const std::vector<std::string> &argv, const std::vector<std::string> &env = {});

// Whether these programs are built under AddressSanitizer: they reserve
// terabytes of address space for its shadow, so they run neither under an
// address-space limit nor under valgrind.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// A program started and not yet waited for; `own_group` puts it in a process
// group of its own (its pid), so that it can be killed with its children.
struct Started {
  pid_t pid;
  std::filesystem::path dir;  // where its output is captured
};
Started start(const std::vector<std::string> &argv, const std::vector<std::string> &env = {},
              bool own_group = false);
Result finish(const Started &s);
// Starts every argv at the same moment (each waits at one gate until all
// exist), then waits for them all.
std::vector<Result> run_together(const std::vector<std::vector<std::string>> &argvs,
                                 const std::vector<std::string> &env = {});

// The flock locks in /proc/locks of process pid: those it holds, and those
// it is blocked waiting for.
struct Flocks {
  int held = 0, waiting = 0;
};
Flocks flocks_of(pid_t pid);

#if defined(__x86_64__)
// Runs argv under ptrace until its nth call of system call `nr` has
// returned, and leaves it stopped there; returns its pid, or fails the test
// if it ended first.
pid_t stop_after_syscall(const std::vector<std::string> &argv, long nr, int nth);
// Lets a process stopped by stop_after_syscall go on untraced, with signal
// `sig` (if not 0) pending.
void resume(pid_t pid, int sig);
#endif

std::string slurp(const std::filesystem::path &p);
// The files in dir whose names end in `extension` (".toml"), sorted.
std::vector<std::filesystem::path> files_in(const std::filesystem::path &dir, const std::string &extension);
// A new empty directory under the temporary directory.
std::filesystem::path scratch(const std::string &tag);

// cmocka group fixtures: one scratch directory for a whole group of tests,
// made before the first and removed after the last; group_dir() names it.
int group_dir_setup(void **state);
int group_dir_teardown(void **state);
const std::filesystem::path &group_dir();
