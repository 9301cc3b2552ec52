// test_interrupt.cpp — `generate` stopped part-way, by SIGINT or SIGTERM while
// its temporaries exist or by a full disk, leaves the previous files intact
// and no temporary behind.
#include <csignal>
#include <fstream>
#include <iterator>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process.hpp"

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

namespace fs = std::filesystem;

namespace {

const std::string spec = std::string(SPECS_DIR) + "/knife_edge.toml";
const char *const kOutputs[] = {"knife_edge.h", "knife_edge.c", "knife_edge_model.c", "knife_edge.md"};

// An output directory holding a previous version of every file.
fs::path previous_output() {
  fs::path dir = scratch("interrupt");
  for (const char *f : kOutputs) std::ofstream(dir / f) << "previous " << f << "\n";
  return dir;
}

// The previous files, unchanged, and nothing else.
void assert_untouched(const fs::path &dir) {
  int files = 0;
  for (auto &e : fs::directory_iterator(dir)) {
    ++files;
    std::string name = e.path().filename().string();
    if (slurp(e.path()) != "previous " + name + "\n") fail_msg("%s was changed or left behind", name.c_str());
  }
  assert_int_equal(files, 4);
  fs::remove_all(dir);
}

#if defined(__x86_64__)
// Runs `generate` under ptrace and sends it `sig` at its nth fsync, when n
// temporaries exist (the last one not yet flushed); returns its wait status.
int interrupted_at_fsync(const fs::path &dir, int nth, int sig) {
  pid_t pid = fork();
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    execl(LAGRANGEC, "lagrangec", "generate", spec.c_str(), "-o", dir.c_str(), static_cast<char *>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);  // the stop at exec
  ptrace(PTRACE_SETOPTIONS, pid, nullptr, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
  int pass_on = 0;  // a signal the tracee received, handed back to it
  for (int seen = 0; seen < 2 * nth;) {  // each syscall stops at entry and at exit
    ptrace(PTRACE_SYSCALL, pid, nullptr, pass_on);
    waitpid(pid, &status, 0);
    if (!WIFSTOPPED(status)) return status;
    pass_on = WSTOPSIG(status) == (SIGTRAP | 0x80) ? 0 : WSTOPSIG(status);
    user_regs_struct regs;
    if (!pass_on && ptrace(PTRACE_GETREGS, pid, nullptr, &regs) == 0 && regs.orig_rax == SYS_fsync) ++seen;
  }
  auto entries = std::distance(fs::directory_iterator(dir), fs::directory_iterator());
  if (entries != 4 + nth) fail_msg("expected %d temporaries at fsync %d, found %d files", nth, nth, int(entries));
  kill(pid, sig);  // pending until it runs again, untraced
  ptrace(PTRACE_DETACH, pid, nullptr, 0);
  waitpid(pid, &status, 0);
  return status;
}

void interrupt_case(int nth, int sig) {
  fs::path dir = previous_output();
  int status = interrupted_at_fsync(dir, nth, sig);
  if (!WIFSIGNALED(status) || WTERMSIG(status) != sig)
    fail_msg("generate was not stopped by signal %d (wait status %#x)", sig, status);
  assert_untouched(dir);
}

void sigint_with_one_temporary(void **) { interrupt_case(1, SIGINT); }
void sigterm_with_three_temporaries(void **) { interrupt_case(3, SIGTERM); }
#else
void sigint_with_one_temporary(void **) { skip(); }
void sigterm_with_three_temporaries(void **) { skip(); }
#endif

// A file size limit between the sizes of the first and the second file: the
// second write fails as on a full disk, after the first temporary is whole.
void full_disk(void **) {
  fs::path dir = previous_output();
  Result r = run({"prlimit", "--fsize=8192", LAGRANGEC, "generate", spec, "-o", dir.string()});
  assert_int_equal(r.status, 1);
  if (r.err.find("File too large") == std::string::npos) fail_msg("unexpected message: %s", r.err.c_str());
  assert_untouched(dir);
}

}  // namespace

int main() {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sigint_with_one_temporary),
      cmocka_unit_test(sigterm_with_three_temporaries),
      cmocka_unit_test(full_disk),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
