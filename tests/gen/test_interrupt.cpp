// test_interrupt.cpp — how `generate` writes a spec's files: stopped
// part-way (SIGINT or SIGTERM while its temporaries exist, or a full disk)
// it leaves the previous files intact and no temporary behind; raced by
// other `generate`s into the same directory it leaves one whole set, never
// a mix; and it gives its files the modes the umask asks for.
#include <csignal>
#include <fstream>
#include <iterator>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process.hpp"

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

namespace fs = std::filesystem;

namespace {

const std::string spec = std::string(SPECS_DIR) + "/knife_edge.toml";
const char *const kOutputs[] = {"knife_edge.h", "knife_edge.c", "knife_edge_model.c", "knife_edge.md"};

std::vector<std::string> generate(const fs::path &dir, const char *formulation = "dalembert") {
  return {LAGRANGEC, "generate", spec, "-o", dir.string(), "--formulation", formulation};
}

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

// The four files of each formulation, generated alone.
struct Sets {
  std::vector<std::string> dalembert, vakonomic;
};

const Sets &reference_sets() {
  static const Sets sets = [] {
    Sets s;
    for (auto [formulation, files] : {std::pair{"dalembert", &s.dalembert}, std::pair{"vakonomic", &s.vakonomic}}) {
      fs::path dir = scratch("reference");
      if (run(generate(dir, formulation)).status != 0) fail_msg("generate --formulation %s failed", formulation);
      for (const char *f : kOutputs) files->push_back(slurp(dir / f));
      fs::remove_all(dir);
    }
    return s;
  }();
  return sets;
}

// The directory holds one formulation's four files, whole, and nothing else.
void assert_one_whole_set(const fs::path &dir) {
  std::vector<std::string> found;
  for (const char *f : kOutputs) found.push_back(slurp(dir / f));
  auto entries = std::distance(fs::directory_iterator(dir), fs::directory_iterator());
  if (entries != 4) fail_msg("%d files in %s, expected the 4 outputs alone", int(entries), dir.c_str());
  const Sets &ref = reference_sets();
  if (found == ref.dalembert || found == ref.vakonomic) return;
  for (size_t i = 0; i < found.size(); ++i)
    print_message("%s: %s\n", kOutputs[i],
                  found[i] == ref.dalembert[i]   ? "d'Alembert"
                  : found[i] == ref.vakonomic[i] ? "vakonomic"
                                                 : "neither");
  fail_msg("%s holds a mixed set", dir.c_str());
}

#if defined(__x86_64__)
// `generate` stopped when its nth fsync has returned, n temporaries existing
// (the last one just flushed), then sent `sig`.
void interrupt_case(int nth, int sig) {
  fs::path dir = previous_output();
  pid_t pid = stop_after_syscall(generate(dir), SYS_fsync, nth);
  auto entries = std::distance(fs::directory_iterator(dir), fs::directory_iterator());
  if (entries != 4 + nth) fail_msg("expected %d temporaries at fsync %d, found %d files", nth, nth, int(entries));
  resume(pid, sig);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFSIGNALED(status) || WTERMSIG(status) != sig)
    fail_msg("generate was not stopped by signal %d (wait status %#x)", sig, status);
  assert_untouched(dir);
}

void sigint_with_one_temporary(void **) { interrupt_case(1, SIGINT); }
void sigterm_with_three_temporaries(void **) { interrupt_case(3, SIGTERM); }

// The race at its worst: a d'Alembert generate stopped after renaming its
// first file, while a vakonomic one writes the same spec's files. The second
// must wait for the first to finish its set (it is seen waiting on the set's
// lock), and the last one's set is what stays, whole.
void a_writer_stopped_mid_set_is_not_mixed_with_another(void **) {
  fs::path dir = scratch("race");
  pid_t first = stop_after_syscall(generate(dir, "dalembert"), SYS_rename, 1);
  Started second = start(generate(dir, "vakonomic"));
  int status = 0;
  for (int polls = 0; waitpid(second.pid, &status, WNOHANG) == 0; ++polls) {
    if (flocks_of(second.pid).waiting > 0) break;
    if (polls == 6000) fail_msg("the second generate neither ended nor waited for the lock within a minute");
    usleep(10000);
  }
  resume(first, 0);
  waitpid(first, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fail_msg("the first generate: wait status %#x", status);
  Result r = finish(second);
  if (r.status != 0) fail_msg("the second generate: exit %d: %s", r.status, r.err.c_str());
  assert_one_whole_set(dir);
  fs::remove_all(dir);
}
#else
void sigint_with_one_temporary(void **) { skip(); }
void sigterm_with_three_temporaries(void **) { skip(); }
void a_writer_stopped_mid_set_is_not_mixed_with_another(void **) { skip(); }
#endif

// Many generates of both formulations started together into one directory,
// a few times over: all succeed, and one whole set stays, with no lock file
// or temporary beside it.
void concurrent_generates_leave_one_whole_set(void **) {
  fs::path dir = scratch("storm");
  for (int round = 0; round < 4; ++round) {
    std::vector<std::vector<std::string>> runs;
    for (int i = 0; i < 8; ++i) runs.push_back(generate(dir, i % 2 ? "vakonomic" : "dalembert"));
    std::vector<Result> results = run_together(runs);
    for (size_t i = 0; i < results.size(); ++i)
      if (results[i].status != 0) fail_msg("round %d, run %zu: exit %d: %s", round, i, results[i].status, results[i].err.c_str());
    assert_one_whole_set(dir);
  }
  fs::remove_all(dir);
}

// A symbolic link where the set's lock would be is not followed: generate
// fails, naming it, writes nothing through it and leaves no temporary.
void a_link_in_place_of_the_lock_is_not_followed(void **) {
  fs::path dir = previous_output(), target = scratch("target");
  fs::create_symlink(target / "lock", dir / ".knife_edge.lagrangec-lock");
  Result r = run(generate(dir));
  if (r.status != 1 || r.err.find(".knife_edge.lagrangec-lock") == std::string::npos)
    fail_msg("exit %d: %s", r.status, r.err.c_str());
  if (!fs::is_empty(target)) fail_msg("something was created through the link");
  fs::remove(dir / ".knife_edge.lagrangec-lock");
  assert_untouched(dir);
  fs::remove_all(target);
}

// Files are created 0666 less the umask, like any tool's.
void files_honour_the_umask(void **) {
  for (mode_t mask : {mode_t(022), mode_t(027), mode_t(077), mode_t(002)}) {
    fs::path dir = scratch("umask");
    mode_t saved = umask(mask);  // inherited by the child
    Result r = run(generate(dir));
    umask(saved);
    assert_int_equal(r.status, 0);
    for (const char *f : kOutputs) {
      struct stat st;
      stat((dir / f).c_str(), &st);
      if ((st.st_mode & 0777) != (0666 & ~mask))
        fail_msg("umask %03o: %s has mode %03o, expected %03o", unsigned(mask), f, unsigned(st.st_mode & 0777),
                 unsigned(0666 & ~mask));
    }
    fs::remove_all(dir);
  }
}

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
      cmocka_unit_test(a_writer_stopped_mid_set_is_not_mixed_with_another),
      cmocka_unit_test(concurrent_generates_leave_one_whole_set),
      cmocka_unit_test(a_link_in_place_of_the_lock_is_not_followed),
      cmocka_unit_test(files_honour_the_umask),
  };
  return cmocka_run_group_tests(tests, nullptr, nullptr);
}
