// generate.cpp — the whole pipeline for one spec, and writing its files
// whole or not at all.
#include "lagrangec.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace lgc {

// spec → model → plan → the four files.
GeneratedFiles generate(const Spec &spec, Formulation formulation, bool with_jacobian) {
  Model model = derive(spec, formulation);
  Plan plan(model, with_jacobian);
  return {emit_header(plan), emit_source(plan), emit_descriptor(plan), emit_report(plan)};
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
  if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    discard(tmp);
    io_error("write", path, err);
  }
  return tmp;
}

// Renames every staged temporary into place, all or (on an interrupt) none
// before the signal takes effect: the interrupts wait until the renames end.
void commit(const std::vector<std::pair<std::string, std::string>> &staged) {
  Uninterrupted quiet;
  for (auto &[tmp, path] : staged)
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      int err = errno;
      for (auto &s : staged) ::unlink(s.first.c_str());
      pending().clear();
      io_error("replace", path, err);
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
  commit(staged);
}

}  // namespace lgc
