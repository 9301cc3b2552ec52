// cache.cpp — the user's cache of compiled model programs: directories only
// the user can write, opened without following symbolic links and checked
// through the descriptors that are then used; one entry per key, built once
// under a lock, and a program run only when it matches the entry's manifest.
#include "program/cache.h"
#include "program/sha256.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace lgc {

namespace {

// A descriptor closed when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd &operator=(Fd &&other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// A directory held open, and the view of it the build callback gets.
struct Dir {
  Fd fd;
  std::string path;
  OpenDir view() const { return {fd.get(), path, "/proc/self/fd/" + std::to_string(fd.get())}; }
};

[[noreturn]] void io_error(const std::string &what, const std::string &path) {
  throw std::runtime_error("cannot " + what + " " + path + ": " + std::strerror(errno));
}

[[noreturn]] void refuse(const std::string &path, const std::string &why) {
  throw std::runtime_error("refusing to use " + path + ": " + why +
                           "; remove it, or set LAGRANGEC_CACHE to a directory of your own");
}

std::string octal_mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(mode & 07777));
  return buf;
}

// What every directory and file of the cache must be before it is used:
// of the expected type, the user's, and writable by nobody else.
void check_owned(int fd, const std::string &path, mode_t type) {
  struct stat st;
  if (::fstat(fd, &st) != 0) io_error("inspect", path);
  if ((st.st_mode & S_IFMT) != type)
    refuse(path, type == S_IFDIR ? "it is not a directory" : "it is not a regular file");
  if (st.st_uid != ::geteuid())
    refuse(path, "it belongs to uid " + std::to_string(st.st_uid) + ", not to you (uid " +
                     std::to_string(::geteuid()) + ")");
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    refuse(path, "its group or others may write to it (mode " + octal_mode(st.st_mode) + ")");
}

// `name` in `parent`, opened without following a symbolic link; -1 when it
// does not exist.
int open_nofollow(int parent, const std::string &name, const std::string &path, int flags) {
  int fd = ::openat(parent, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0 || errno == ENOENT) return fd;
  struct stat st;
  if ((errno == ELOOP || errno == ENOTDIR) && ::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
    refuse(path, S_ISLNK(st.st_mode) ? "it is a symbolic link" : "it is not a directory");
  io_error("open", path);
}

// The directory `name` in `parent`, made (0700) if missing, then checked.
Dir own_dir(int parent, const std::string &name, const std::string &path) {
  if (::mkdirat(parent, name.c_str(), 0700) != 0 && errno != EEXIST) io_error("create the directory", path);
  Fd fd(open_nofollow(parent, name, path, O_RDONLY | O_DIRECTORY));
  if (fd.get() < 0) io_error("open", path);
  check_owned(fd.get(), path, S_IFDIR);
  return {std::move(fd), path};
}

// An environment variable, with an empty value counted as unset.
const char *env(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// $LAGRANGEC_CACHE, else $XDG_CACHE_HOME/lagrangec, else ~/.cache/lagrangec;
// never a directory shared with other users.
std::string root_path() {
  if (const char *d = env("LAGRANGEC_CACHE")) return d;
  if (const char *d = env("XDG_CACHE_HOME")) return std::string(d) + "/lagrangec";
  if (const char *h = env("HOME")) return std::string(h) + "/.cache/lagrangec";
  throw std::runtime_error("no cache directory for the model's program: set LAGRANGEC_CACHE, XDG_CACHE_HOME or HOME");
}

// The cache root, its missing parents made 0700 like itself. Only the root
// and what is under it are checked: the directories above are the user's
// choice (a home directory may well be a symbolic link).
Dir open_root() {
  std::string path = root_path();
  for (size_t i = 1; i < path.size(); ++i)
    if (path[i] == '/' && path[i - 1] != '/') {
      std::string parent = path.substr(0, i);
      if (::mkdir(parent.c_str(), 0700) != 0 && errno != EEXIST) io_error("create the directory", parent);
    }
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return own_dir(AT_FDCWD, path, path);
}

// The program's check before a use: its descriptor when it matches the
// manifest, else why not ("" when nothing was built yet).
struct Verdict {
  Fd program;
  std::string problem;
};

// The manifest lists every file of the entry as `sha256sum` does
// ("HASH  NAME" lines), so `sha256sum -c manifest` checks an entry by hand.
std::string manifest_hash(const std::string &manifest, const std::string &name) {
  std::istringstream in(manifest);
  for (std::string line; std::getline(in, line);)
    if (line.size() == 64 + 2 + name.size() && line.compare(64, 2, "  ") == 0 && line.compare(66, name.size(), name) == 0)
      return line.substr(0, 64);
  return "";
}

std::string read_fd(int fd, const std::string &path) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) io_error("read", path);
    text.append(buf, size_t(n));
  }
  return text;
}

Verdict verify(const Dir &entry, const std::string &name) {
  std::string manifest_path = entry.path + "/manifest", program_path = entry.path + "/" + name;
  Fd manifest(open_nofollow(entry.fd.get(), "manifest", manifest_path, O_RDONLY));
  Fd program(open_nofollow(entry.fd.get(), name, program_path, O_RDONLY));
  if (manifest.get() >= 0) check_owned(manifest.get(), manifest_path, S_IFREG);
  if (program.get() >= 0) check_owned(program.get(), program_path, S_IFREG);
  if (program.get() < 0) return {Fd(), manifest.get() < 0 ? "" : program_path + " is missing"};
  if (manifest.get() < 0) return {Fd(), program_path + " has no manifest (an interrupted build?)"};
  std::string expected = manifest_hash(read_fd(manifest.get(), manifest_path), name);
  if (expected.empty()) return {Fd(), manifest_path + " does not list " + name};
  if (sha256_hex_of_fd(program.get(), program_path) != expected)
    return {Fd(), program_path + " does not match its manifest (truncated or replaced?)"};
  return {std::move(program), ""};
}

// Waits for the lock. A builder killed while holding it blocks nobody: the
// kernel drops a flock when its descriptor closes, as it does at any death
// (the descriptor is close-on-exec, so the compiler never holds it).
void lock(const Fd &fd, int how, const std::string &path) {
  while (::flock(fd.get(), how) != 0)
    if (errno != EINTR) io_error("lock", path);
}

// Staging directories are build-PID: under the entry's exclusive lock any
// that exists is what a killed builder left.
const std::string kStagingPrefix = "build-";

void remove_leftovers(const Dir &entry) {
  std::string via = entry.view().via_fd;
  for (auto &e : std::filesystem::directory_iterator(via))
    if (e.path().filename().string().rfind(kStagingPrefix, 0) == 0) std::filesystem::remove_all(e.path());
}

// Moves every file of the staging directory into the entry, the user's
// alone (0600, the program 0700), with the manifest of their hashes last: a
// program is only ever used together with the manifest written after it.
void commit(const Dir &staging, const Dir &entry, const std::string &name) {
  std::vector<std::string> files;
  for (auto &e : std::filesystem::directory_iterator(staging.view().via_fd))
    if (e.symlink_status().type() == std::filesystem::file_type::regular) files.push_back(e.path().filename());
  std::sort(files.begin(), files.end());
  std::string manifest;
  for (const std::string &file : files) {
    std::string path = staging.path + "/" + file;
    Fd fd(open_nofollow(staging.fd.get(), file, path, O_RDONLY));
    if (fd.get() < 0 || ::fchmod(fd.get(), file == name ? 0700 : 0600) != 0) io_error("protect", path);
    manifest += sha256_hex_of_fd(fd.get(), path) + "  " + file + "\n";
  }
  if (manifest_hash(manifest, name).empty()) throw std::runtime_error("the build made no program " + name);
  std::string manifest_path = staging.path + "/manifest";
  Fd out(::openat(staging.fd.get(), "manifest", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (out.get() < 0) io_error("create", manifest_path);
  for (size_t done = 0; done < manifest.size();) {
    ssize_t n = ::write(out.get(), manifest.data() + done, manifest.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) io_error("write", manifest_path);
    done += size_t(n);
  }
  files.push_back("manifest");
  for (const std::string &file : files)
    if (::renameat(staging.fd.get(), file.c_str(), entry.fd.get(), file.c_str()) != 0)
      io_error("move into place", entry.path + "/" + file);
}

// Builds the entry's program in a staging directory of this process and
// commits it; on a failure nothing of it stays.
void build_into(const Dir &entry, const std::string &name, const std::function<void(const OpenDir &)> &build) {
  remove_leftovers(entry);
  std::string staging_name = kStagingPrefix + std::to_string(::getpid());
  Dir staging = own_dir(entry.fd.get(), staging_name, entry.path + "/" + staging_name);
  std::string leftover = entry.view().via_fd + "/" + staging_name;
  std::error_code ignored;
  try {
    build(staging.view());
    commit(staging, entry, name);
  } catch (...) {
    std::filesystem::remove_all(leftover, ignored);
    throw;
  }
  std::filesystem::remove_all(leftover, ignored);
}

}  // namespace

int cached_program(const std::string &entry_name, const std::string &name,
                   const std::function<void(const OpenDir &staging)> &build) {
  Dir root = open_root();
  Dir entry = own_dir(root.fd.get(), entry_name, root.path + "/" + entry_name);
  std::string lock_path = entry.path + "/lock";
  Fd lock_fd(::openat(entry.fd.get(), "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (lock_fd.get() < 0) io_error("open the lock", lock_path);
  // Readers share the lock; a builder holds it alone, so nobody sees an
  // entry half-built.
  lock(lock_fd, LOCK_SH, lock_path);
  Verdict v = verify(entry, name);
  if (v.program.get() >= 0) return v.program.release();
  lock(lock_fd, LOCK_EX, lock_path);
  v = verify(entry, name);  // another process may have built it meanwhile
  if (v.program.get() >= 0) return v.program.release();
  if (!v.problem.empty()) std::cerr << "lagrangec: " << v.problem << ": rebuilding it\n";
  build_into(entry, name, build);
  v = verify(entry, name);
  if (v.program.get() < 0) throw std::runtime_error(v.problem);
  return v.program.release();
}

}  // namespace lgc
