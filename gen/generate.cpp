// generate.cpp — the whole pipeline for one spec, and writing its files
// whole or not at all, as one set even when writers race.
#include "generate.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

namespace lgc {

namespace {

// ---- the time budget ----

// Written whole by the handler, which may call nothing else.
char budget_message[512];

extern "C" void budget_exceeded(int) {
  ssize_t written = ::write(STDERR_FILENO, budget_message, std::strlen(budget_message));
  (void)written;  // nothing is left to report a failed write to
  ::_exit(1);
}

// For its lifetime, the process's CPU time past `seconds` (ITIMER_PROF, not
// inherited by the compiler a fork starts) ends it with a message. Nothing
// is written during a generation, so nothing is left half-written.
class TimeBudget {
 public:
  TimeBudget(const Spec &spec, double seconds) {
    std::snprintf(budget_message, sizeof budget_message,
                  "lagrangec: %s: generation stopped at its time limit, %g s of CPU time (generate --time-limit; "
                  "%g s by default): its equations grow too large to derive (raise the limit, or write a chain of "
                  "rotations as [frames], which keep its structure)\n",
                  spec.path.c_str(), seconds, kGenerationSeconds);
    struct sigaction stop = {};
    stop.sa_handler = budget_exceeded;
    sigemptyset(&stop.sa_mask);
    sigaction(SIGPROF, &stop, &saved_action_);
    itimerval timer = {};
    timer.it_value.tv_sec = time_t(seconds);
    timer.it_value.tv_usec = suseconds_t((seconds - double(time_t(seconds))) * 1e6);
    setitimer(ITIMER_PROF, &timer, &saved_timer_);
  }
  ~TimeBudget() {
    setitimer(ITIMER_PROF, &saved_timer_, nullptr);
    sigaction(SIGPROF, &saved_action_, nullptr);
  }
  TimeBudget(const TimeBudget &) = delete;

 private:
  struct sigaction saved_action_;
  itimerval saved_timer_;
};

// In single precision a number past float's range would be printed as
// HUGE_VALF or 0.0f: the first one written is an error where it stands.
void check_float_literals(const Model &model) {
  if (model.beyond_float.empty()) return;
  const NamedValue *first = &model.beyond_float[0];
  for (const NamedValue &n : model.beyond_float)
    if (std::make_pair(n.loc.line, n.loc.col) < std::make_pair(first->loc.line, first->loc.col)) first = &n;
  error_at(first->loc, "the number " + first->name +
                           " is beyond float's range (1.18e-38 <= |value| <= 3.40e38, or 0): --real float would "
                           "make it infinite, 0 or short of digits; write it within that range, or generate in double");
}

}  // namespace

// spec → model → plan → the four files; a model whose M the plan counts
// far dearer than the recursion's estimate, derived again on the recursion.
GeneratedFiles generate(const Spec &spec, Formulation formulation, bool with_jacobian, Precision precision, bool strict,
                        double time_limit, const std::function<void(const Model &)> &inspect) {
  TimeBudget budget(spec, time_limit);
  WarningsOnce once;
  Model model = derive(spec, formulation, strict);
  if (precision == Precision::single_precision) check_float_literals(model);
  std::optional<Plan> plan;
  try {
    plan.emplace(model, with_jacobian, precision);
  } catch (const RecursionByCount &count) {
    model = derive(spec, formulation, strict, false, &count);
    plan.emplace(model, with_jacobian, precision);
  }
  if (inspect) inspect(model);
  return {emit_header(*plan), emit_source(*plan), emit_descriptor(*plan), emit_report(*plan), estimate_stack(*plan)};
}

namespace {

[[noreturn]] void io_error(const std::string &what, const std::string &path, int err) {
  throw std::runtime_error("cannot " + what + " " + path + ": " + std::strerror(err));
}

// ---- temporaries an interrupt must not leave behind ----

const int kInterrupts[] = {SIGINT, SIGTERM, SIGHUP};

// Temporaries not yet renamed into place. Changed only while the interrupts
// are blocked, so the handler never sees it half-updated.
std::vector<std::string> &pending() {
  static std::vector<std::string> paths;
  return paths;
}

// Blocks the interrupts for its lifetime.
class Uninterrupted {
 public:
  Uninterrupted() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kInterrupts) sigaddset(&set, sig);
    sigprocmask(SIG_BLOCK, &set, &saved_);
  }
  ~Uninterrupted() { sigprocmask(SIG_SETMASK, &saved_, nullptr); }

 private:
  sigset_t saved_;
};

// Removes the pending temporaries, then dies of the signal as it would have.
extern "C" void remove_pending_and_die(int sig) {
  for (const std::string &p : pending()) ::unlink(p.c_str());
  std::raise(sig);  // the handler was reset: this is the default action
}

// Once: interrupts whose action is the default get the cleanup handler, and
// SIGXFSZ is ignored so a write past the file size limit fails with EFBIG
// (and is cleaned up like a full disk) instead of killing the process.
void install_cleanup() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  struct sigaction cleanup = {};
  cleanup.sa_handler = remove_pending_and_die;
  cleanup.sa_flags = SA_RESETHAND;
  sigemptyset(&cleanup.sa_mask);
  for (int sig : kInterrupts) sigaddset(&cleanup.sa_mask, sig);
  for (int sig : kInterrupts) {
    struct sigaction old;
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) sigaction(sig, &cleanup, nullptr);
  }
  struct sigaction old;
  if (sigaction(SIGXFSZ, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) std::signal(SIGXFSZ, SIG_IGN);
}

// Removes a temporary that will not be renamed.
void discard(const std::string &tmp) {
  Uninterrupted quiet;
  ::unlink(tmp.c_str());
  auto &p = pending();
  p.erase(std::remove(p.begin(), p.end(), tmp), p.end());
}

// The permissions of a new file, as every tool gives them: 0666 less the umask.
mode_t new_file_mode() {
  static const mode_t mode = [] {
    mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
  }();
  return mode;
}

// A temporary file beside `path`, filled with `content` and flushed to disk.
std::string write_temporary(const std::string &path, const std::string &content) {
  install_cleanup();
  std::string tmp = path + ".XXXXXX";
  int fd;
  {
    Uninterrupted quiet;
    fd = mkstemp(tmp.data());
    if (fd >= 0) pending().push_back(tmp);
  }
  if (fd < 0) io_error("create a file beside", path, errno);
  for (size_t done = 0; done < content.size();) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      discard(tmp);
      io_error("write", path, err);
    }
    done += size_t(n);
  }
  if (::fchmod(fd, new_file_mode()) != 0 || ::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    discard(tmp);
    io_error("write", path, err);
  }
  return tmp;
}

// The lock of one set of files, held while they are renamed into place so
// that concurrent writers of the set replace it whole, one after another.
// The lock file exists only while it is held (its holder removes it, and a
// waiter that finds it removed or replaced tries again), and a symbolic link
// in its place is never followed.
class SetLock {
 public:
  explicit SetLock(std::string path) : path_(std::move(path)) {
    for (;;) {
      fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd_ < 0) io_error("create the lock", path_, errno);
      while (::flock(fd_, LOCK_EX) != 0)
        if (errno != EINTR) io_error("lock", path_, errno);
      struct stat held, named;
      if (::fstat(fd_, &held) == 0 && ::lstat(path_.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
          held.st_ino == named.st_ino)
        return;
      ::close(fd_);
    }
  }
  ~SetLock() {
    ::unlink(path_.c_str());
    ::close(fd_);
  }
  SetLock(const SetLock &) = delete;
  SetLock &operator=(const SetLock &) = delete;

 private:
  std::string path_;
  int fd_;
};

// Renames every staged temporary into place, all or (on an interrupt) none
// before the signal takes effect: the interrupts wait until the renames end.
// With `lock_path`, under that lock.
void commit(const std::vector<std::pair<std::string, std::string>> &staged, const std::string &lock_path = "") {
  Uninterrupted quiet;
  std::optional<SetLock> lock;
  try {
    if (!lock_path.empty()) lock.emplace(lock_path);
    for (auto &[tmp, path] : staged)
      if (std::rename(tmp.c_str(), path.c_str()) != 0) io_error("replace", path, errno);
  } catch (...) {
    for (auto &s : staged) ::unlink(s.first.c_str());
    pending().clear();
    throw;
  }
  pending().clear();
}

}  // namespace

void write_file_atomically(const std::string &path, const std::string &content) {
  commit({{write_temporary(path, content), path}});
}

void write_generated(const Spec &spec, const GeneratedFiles &files, const std::string &dir) {
  const std::pair<std::string, const std::string *> outputs[] = {{spec.name + ".h", &files.header},
                                                                 {spec.name + ".c", &files.source},
                                                                 {spec.name + "_model.c", &files.descriptor},
                                                                 {spec.name + ".md", &files.report}};
  // All temporaries first, then the renames: a failure before the renames
  // leaves every previous file as it was.
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) io_error("create the directory", dir, ec.value());
  std::vector<std::pair<std::string, std::string>> staged;
  try {
    for (auto &[name, content] : outputs) {
      std::string path = dir + "/" + name;
      staged.push_back({write_temporary(path, *content), path});
    }
  } catch (...) {
    for (auto &s : staged) discard(s.first);
    throw;
  }
  commit(staged, dir + "/." + spec.name + ".lagrangec-lock");
}

}  // namespace lgc
